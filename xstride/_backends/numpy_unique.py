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


_COMPAT: dict = {}   # name -> compat's NumPy function, looked up once


def _compat(name: str):
    fn = _COMPAT.get(name)
    if fn is None:
        fn = _COMPAT[name] = compat_function("numpy", name)
    return fn


def _masked(name: str, x):
    """``name`` of a ``numpy.ma`` masked ``x``: the function of its unmasked elements
    (this module's zero and NaN rules), then the one masked value last where an element
    is masked, counted once for all of them, its index the first masked element's.
    NumPy's masked ``unique`` sorted the masked value where its fill value sorts:
    ``[True, --, True]`` (fill value True) kept both Trues, and the NaNs and the masked
    value took each other's places."""
    flat = x.reshape(-1)
    mask = np.ma.getmaskarray(flat)
    data = np.ma.getdata(flat)
    keep = np.flatnonzero(~mask)
    res = _FUNCTIONS[name](data[keep])
    values = res if name == "unique_values" else res.values
    k, masked = values.shape[0], np.flatnonzero(mask)
    extra = min(masked.shape[0], 1)
    values = np.ma.masked_array(np.concatenate([values, data[masked[:1]]]),
                                mask=np.arange(k + extra) >= k)
    if name == "unique_values":
        return values
    fields = {"values": values}
    if name in ("unique_counts", "unique_all"):
        fields["counts"] = np.concatenate([res.counts, np.asarray(
            [masked.shape[0]] * extra, res.counts.dtype)])
    if name in ("unique_inverse", "unique_all"):
        inverse = np.empty(flat.shape[0], res.inverse_indices.dtype)
        inverse[keep] = res.inverse_indices.reshape(-1)
        inverse[masked] = k
        fields["inverse_indices"] = inverse.reshape(x.shape)
    if name == "unique_all":
        fields["indices"] = np.concatenate([keep[res.indices], masked[:1]]).astype(
            res.indices.dtype, copy=False)
    return res._replace(**fields)


def _floating(x) -> bool:
    return getattr(getattr(x, "dtype", None), "kind", None) in ("f", "c")


def unique_values(x, /):
    """``unique_values`` of the standard on NumPy arrays (floating: see the module)."""
    if isinstance(x, np.ma.MaskedArray):
        return _masked("unique_values", x)
    values = _compat("unique_values")(x)
    return _settle(x, values) if _floating(x) else values


def unique_counts(x, /):
    """``unique_counts`` of the standard on NumPy arrays; a NaN's count is 1."""
    if isinstance(x, np.ma.MaskedArray):
        return _masked("unique_counts", x)
    res = _compat("unique_counts")(x)
    if _floating(x):
        _settle(x, res.values)
    return res


def unique_inverse(x, /):
    """``unique_inverse`` of the standard on NumPy arrays: the k-th NaN of ``x``'s
    flattened order is value ``len(other values) + k``."""
    if isinstance(x, np.ma.MaskedArray):
        return _masked("unique_inverse", x)
    res = _compat("unique_inverse")(x)
    if not _floating(x):
        return res
    inverse = res.inverse_indices.reshape(-1).copy()
    _settle(x, res.values, inverse=inverse)
    return res._replace(inverse_indices=inverse.reshape(res.inverse_indices.shape))


def unique_all(x, /):
    """``unique_all`` of the standard on NumPy arrays, its NaNs as ``unique_inverse``'s
    with their flat positions as ``indices``."""
    if isinstance(x, np.ma.MaskedArray):
        return _masked("unique_all", x)
    res = _compat("unique_all")(x)
    if not _floating(x):
        return res
    inverse = res.inverse_indices.reshape(-1).copy()
    _settle(x, res.values, inverse=inverse, indices=res.indices)
    return res._replace(inverse_indices=inverse.reshape(res.inverse_indices.shape))


_FUNCTIONS = {f.__name__: f for f in (unique_values, unique_counts, unique_inverse, unique_all)}
for _fn in _FUNCTIONS.values():
    register(_fn.__name__, "numpy")(_fn)
del _fn
