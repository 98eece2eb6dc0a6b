"""``unique_values``, ``unique_counts`` and ``unique_inverse`` on dask arrays with NaN.

The standard counts every NaN as a value of its own ("Set Functions": "each ``nan``
value should have a count of one"; NumPy's ``unique(..., equal_nan=False)``). dask's
``unique`` runs NumPy's per chunk with NaNs folded into one, then merges chunks by
equality, which NaN never has: ``unique_counts`` of ``[2, nan, 1]`` gave the counts
``[1, 1, 0]`` and ``unique_inverse`` sent the NaN to the index of 1.0. Here the
floating and complex arrays take dask's ``unique`` without its folded NaN, then every
NaN, in the order of the flattened array, one value each: NumPy's order for real
arrays; for complex ones NumPy sorts its NaNs by which part is NaN, this order may
differ (the standard leaves it open). The inverse of an element that is not NaN is its
position among the sorted values (a ``searchsorted`` per block against them, dask's ``unique`` giving one
block); of the k-th NaN, the number of those values plus k. Nothing is computed.
Integer and bool arrays go to dask's functions unchanged. ``unique_all`` of a floating
or complex array is built on the same inverse: its ``indices`` and ``counts`` are those
of dask's ``unique`` of the (integer) inverse, whose values are ``0 .. K-1``: the first
flat position of each value, and its count. (dask's ``unique_all`` failed when computed
on an array with NaN: "zero-size array to reduction operation minimum which has no
identity", for every one of its four arrays.) ``unique_counts``, ``unique_inverse`` and
``unique_all`` of an array whose lengths dask does not know (after boolean indexing)
raise a ``ValueError`` saying so (dask's failed unclearly).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._core.errors import value_error
from .dask_standard import flat
from .dispatch import register
from .registry import get

__all__ = ["UniqueAllResult", "UniqueCountsResult", "UniqueInverseResult", "unique_values",
           "unique_counts", "unique_inverse", "unique_all"]

_NAME = "dask"


class UniqueAllResult(NamedTuple):
    """``unique_all``: ``values``, ``indices`` and ``counts`` (int64, 1-D) and
    ``inverse_indices`` (``x``'s shape)."""

    values: object
    indices: object
    inverse_indices: object
    counts: object


class UniqueCountsResult(NamedTuple):
    """``unique_counts``: ``values`` and ``counts`` (int64), both 1-D."""

    values: object
    counts: object


class UniqueInverseResult(NamedTuple):
    """``unique_inverse``: ``values`` (1-D) and ``inverse_indices`` (``x``'s shape)."""

    values: object
    inverse_indices: object


def _nans(x):
    """``(flattened x, its NaN mask, its NaNs in order)``."""
    ns = get(_NAME).namespace()
    flat = ns.reshape(x, (-1,))
    nan = ns.isnan(flat)
    return flat, nan, flat[nan]


def _not_nan(values, *others):
    """``values`` (dask's ``unique`` of an array with NaN: NaN folded into one, last)
    and ``others`` of the same length, without that NaN. (dask's ``unique`` of the
    values left after a boolean mask, whose chunk lengths are unknown, fails when it
    counts.)"""
    keep = ~get(_NAME).namespace().isnan(values)
    return (values[keep], *(o[keep] for o in others))


def unique_values(x, /):
    """``unique_values`` of the standard on dask arrays, each NaN a value of its own (an
    array of rows selected by a boolean mask flattened by row blocks: dask's ravel of
    unknown lengths failed)."""
    ns = get(_NAME).namespace()
    if x.ndim > 1 and any(n != n for n in x.shape):
        x = flat(x)
    if x.dtype.kind not in "fc":
        return ns.unique_values(x)
    (values,) = _not_nan(ns.unique_values(x))
    return ns.concat([values, _nans(x)[2]])


def _check_known(func: str, x) -> None:
    """dask's ``unique`` with counts, indices or an inverse makes arrays of ``x``'s
    lengths: of lengths it does not know (after boolean indexing) it failed with
    "'curry' object is not subscriptable" when computed, or "cannot convert float NaN
    to integer" at the call."""
    if any(n != n for n in x.shape):
        raise value_error(func, "x", f"has shape {x.shape}, with lengths dask does not know "
                                     "(as after boolean indexing), which dask's unique "
                                     "needs for counts, indices and inverses; call "
                                     "x.compute_chunk_sizes() first (unique_values takes "
                                     "such arrays)")


def unique_counts(x, /):
    """``unique_counts`` of the standard on dask arrays, each NaN counted once."""
    _check_known("unique_counts", x)
    ns = get(_NAME).namespace()
    if x.dtype.kind not in "fc":
        return UniqueCountsResult(*ns.unique_counts(x))
    values, counts = _not_nan(*ns.unique_counts(x))
    nans = _nans(x)[2]
    ones = ns.astype(nans != nans, counts.dtype)   # 1 per NaN
    return UniqueCountsResult(ns.concat([values, nans]), ns.concat([counts, ones]))


def _inverse_block(xb, rank, values):
    """The inverse of one block ``xb`` (NumPy or CuPy) against the sorted ``values``
    without NaN; ``rank``: each element's count of NaNs before it, minus one."""
    from array_api_compat import array_namespace

    xs = array_namespace(xb)
    out = xs.astype(xs.searchsorted(values, xb), xs.int64)
    nan = xs.isnan(xb)
    out[nan] = values.shape[0] + rank[nan]
    return out


def _values_and_inverse(x):
    """``(values, flat inverse)`` of a floating or complex dask array ``x``: the k-th NaN
    (flattened order) is value ``len(non-NaN values) + k``."""
    ns = get(_NAME).namespace()
    da = get(_NAME).load()
    flat, nan, nans = _nans(x)
    (values,) = _not_nan(ns.unique_values(x))
    rank = ns.cumulative_sum(ns.astype(nan, np.int64)) - 1
    inverse = da.blockwise(_inverse_block, "i", flat, "i", rank, "i", values, "j",
                           dtype=np.int64, concatenate=True,
                           meta=get(_NAME).chunk_like(np.empty((0,), np.int64), flat._meta))
    return ns.concat([values, nans]), inverse


def unique_inverse(x, /):
    """``unique_inverse`` of the standard on dask arrays: the k-th NaN (flattened
    order) is value ``len(non-NaN values) + k``; ``inverse_indices`` has ``x``'s shape."""
    _check_known("unique_inverse", x)
    ns = get(_NAME).namespace()
    if x.dtype.kind not in "fc":
        return UniqueInverseResult(*ns.unique_inverse(x))
    values, inverse = _values_and_inverse(x)
    return UniqueInverseResult(values, ns.reshape(inverse, x.shape))


def unique_all(x, /):
    """``unique_all`` of the standard on dask arrays, each NaN a value of its own (as
    :func:`unique_inverse`); ``indices`` (each value's first flat position) and
    ``counts`` from dask's ``unique`` of the inverse."""
    _check_known("unique_all", x)
    ns = get(_NAME).namespace()
    if x.dtype.kind not in "fc":
        return UniqueAllResult(*ns.unique_all(x))
    values, inverse = _values_and_inverse(x)
    _, indices, counts = get(_NAME).load().unique(inverse, return_index=True,
                                                  return_counts=True)
    return UniqueAllResult(values, ns.astype(indices, np.int64),
                           ns.reshape(inverse, x.shape), ns.astype(counts, np.int64))


for _fn in (unique_values, unique_counts, unique_inverse, unique_all):
    register(_fn.__name__, _NAME)(_fn)
del _fn
