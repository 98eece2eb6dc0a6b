"""The set functions of floating and complex NumPy arrays, each answer one answer.

The standard leaves two things open that NumPy's ``unique`` decides by its sort
(quicksort for ``unique_values``, ``unique_counts`` and ``unique_inverse``; a stable
sort only for ``unique_all``, which also asks for the indices): the sign of the one
zero where ``x`` holds both -0.0 and 0.0, and which NaN (each a value of its own) is
which. So the NumPy backend's ``unique_values(x)`` could hold -0.0 where its
``unique_all(x).values`` held 0.0 for the same ``x``, ``unique_inverse`` sent the NaNs
to their values in an order of its sort's, and the backends' answers differed
(``dask_unique.py``: the first zero of ``x``, the NaNs in ``x``'s flattened order).
Here the NumPy backend gives that answer too: the zero is ``x``'s first (bit for bit,
both parts of a complex one), the NaNs are the last values in ``x``'s flattened order
(their bits kept), and the k-th NaN's inverse index is the count of the other values
plus k (``unique_all``'s ``indices``: its flat position). One pass over ``x`` after
NumPy's sort where ``x`` holds a zero, one more where it holds a NaN (the last of the
sorted values, NumPy's place for them); integer and bool arrays go to compat's
functions unchanged.
"""

from __future__ import annotations

import numpy as np

from .dispatch import compat_function, register

__all__ = ["unique_values", "unique_counts", "unique_inverse", "unique_all"]


def _settle(x, values, inverse=None, indices=None):
    """``values`` (NumPy's sorted unique values of ``x``, NaNs last) with the zero and
    the NaNs of ``x``'s order, in place, and the same NaNs' ``inverse`` (flat) and
    ``indices``; returns ``values``."""
    flat = x.reshape(-1)
    if isinstance(flat, np.ma.MaskedArray):
        return _settle_masked(flat, values, inverse, indices)
    if values.dtype.kind == "f":   # sorted: the zero is where 0 would go (one search)
        at = int(values.searchsorted(0.0))
        if at < values.shape[0] and values[at] == 0:
            values[at] = flat[np.argmax(flat == 0)]
    else:
        zeros = values == 0
        if zeros.any():   # one zero among the values: x's first
            values[zeros] = flat[np.argmax(flat == 0)]
    if not values.shape[0] or values[-1] == values[-1]:   # NaNs sort last: none in x
        return values
    nan = np.isnan(flat)
    count = int(np.count_nonzero(nan))
    if count:
        first = values.shape[0] - count
        values[first:] = flat[nan]
        if inverse is not None:
            inverse[nan] = np.arange(first, first + count, dtype=inverse.dtype)
        if indices is not None:
            indices[first:] = np.flatnonzero(nan)
    return values


def _settle_masked(flat, values, inverse, indices):
    """``_settle`` of a masked ``x``: the same answer over its unmasked elements.

    NumPy's masked sort puts the one masked value among the values where its data
    sorts (after the NaNs, or before them), so the NaNs are found by value, not by
    place; a NaN under the mask is part of the masked value, not a NaN of its own.
    """
    data, mask = np.ma.getdata(flat), np.ma.getmaskarray(flat)
    vdata, vmask = np.ma.getdata(values), np.ma.getmaskarray(values)
    zeros = (vdata == 0) & ~vmask
    if zeros.any():
        values[zeros] = data[np.argmax((data == 0) & ~mask)]
    slots = np.flatnonzero(np.isnan(vdata) & ~vmask)
    if slots.shape[0]:
        nan = np.isnan(data) & ~mask
        values[slots] = data[nan]
        if inverse is not None:
            inverse[nan] = slots.astype(inverse.dtype)
        if indices is not None:
            indices[slots] = np.flatnonzero(nan)
    return values


_COMPAT: dict = {}   # name -> compat's NumPy function, looked up once


def _compat(name: str):
    fn = _COMPAT.get(name)
    if fn is None:
        fn = _COMPAT[name] = compat_function("numpy", name)
    return fn


def _floating(x) -> bool:
    return getattr(getattr(x, "dtype", None), "kind", None) in ("f", "c")


def unique_values(x, /):
    """``unique_values`` of the standard on NumPy arrays (floating: see the module)."""
    values = _compat("unique_values")(x)
    return _settle(x, values) if _floating(x) else values


def unique_counts(x, /):
    """``unique_counts`` of the standard on NumPy arrays; a NaN's count is 1."""
    res = _compat("unique_counts")(x)
    if _floating(x):
        _settle(x, res.values)
    return res


def unique_inverse(x, /):
    """``unique_inverse`` of the standard on NumPy arrays: the k-th NaN of ``x``'s
    flattened order is value ``len(other values) + k``."""
    res = _compat("unique_inverse")(x)
    if not _floating(x):
        return res
    inverse = res.inverse_indices.reshape(-1).copy()
    _settle(x, res.values, inverse=inverse)
    return res._replace(inverse_indices=inverse.reshape(res.inverse_indices.shape))


def unique_all(x, /):
    """``unique_all`` of the standard on NumPy arrays, its NaNs as ``unique_inverse``'s
    with their flat positions as ``indices``."""
    res = _compat("unique_all")(x)
    if not _floating(x):
        return res
    inverse = res.inverse_indices.reshape(-1).copy()
    _settle(x, res.values, inverse=inverse, indices=res.indices)
    return res._replace(inverse_indices=inverse.reshape(res.inverse_indices.shape))


for _fn in (unique_values, unique_counts, unique_inverse, unique_all):
    register(_fn.__name__, "numpy")(_fn)
del _fn
