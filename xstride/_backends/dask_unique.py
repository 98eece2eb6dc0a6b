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
raise a ``ValueError`` saying so (dask's failed unclearly). -0.0 and 0.0 are one value,
signed as the first zero of ``x`` whatever the chunks (:func:`_zero_of_first`). An array
of ``numpy.ma`` masked chunks is a ``TypeError`` naming ``x`` (:func:`_refuse_masked`):
dask's ``unique`` reads the data under the masks. The values of an ``x`` of a
non-native byte order (``>i4``, ``>f8`` on a little-endian host) keep ``x``'s dtype, as
NumPy's do (:func:`_in_x_dtype`): dask's ``unique`` gave the native dtype, and of
integers declared ``x``'s while its blocks were native.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import numpy as np

from .._core.errors import type_error, value_error
from .dask_byteorder import in_dtype
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


def _first_zero_block(block):
    """One row for a block (NumPy or CuPy) of the flattened array: whether it holds a
    zero, and the sign bits of its first zero's real and imaginary parts."""
    from array_api_compat import array_namespace

    xs = array_namespace(block)
    out = xs.zeros((1, 3), dtype=xs.bool)
    at = xs.nonzero(block == 0)[0]
    if at.shape[0]:
        v = block[at[:1]]
        out[0, 0] = True
        out[0, 1] = xs.signbit(v.real)[0]
        out[0, 2] = xs.signbit(v.imag)[0] if v.dtype.kind == "c" else False
    return out


def _zero_of_first(values, flat):
    """``values`` (sorted, of the flattened ``flat``) with their zero, if any, signed as
    ``flat``'s first zero (for complex, each part's sign as that element's): -0.0 and
    0.0 are one value, and dask's ``unique`` kept the sign of whichever zero its chunks
    merged first, so it changed with the chunks. NumPy's ``unique_all`` (a stable sort)
    keeps the first occurrence's, which is one of the answers NumPy gives for the
    others (an unstable sort) and the one ``values[i] == x[indices[i]]`` asks. Each
    block's first zero, then the first block holding one (blocks of unknown, even
    zero, lengths: dask's cumulative sum over them failed)."""
    ns = get(_NAME).namespace()
    blocks = flat.numblocks[0]
    per = flat.map_blocks(_first_zero_block, new_axis=1, chunks=((1,) * blocks, (3,)),
                          dtype=bool, meta=get(_NAME).chunk_like(np.empty((0, 0), bool),
                                                                 flat._meta))
    per = per.rechunk((blocks, 3))   # one chunk of one row a block
    first = per[:, 0] & (ns.cumulative_sum(ns.astype(per[:, 0], np.int64)) == 1)
    re, im = (ns.any(first & per[:, i]) for i in (1, 2))
    dt = np.dtype(values.dtype)

    def zero(re_sign: bool, im_sign: bool = False):
        # a 0-d array of the chunks' backend (CuPy's where took no NumPy operand), cut
        # from a 1-element copy: CuPy's asarray of a 0-d -0.0 fills, which gave +0.0
        host = np.asarray([complex(-0.0 if re_sign else 0.0, -0.0 if im_sign else 0.0)
                           if dt.kind == "c" else (-0.0 if re_sign else 0.0)], dt)
        return get(_NAME).chunk_like(host, flat._meta)[0]

    if dt.kind == "f":
        rep = ns.where(re, zero(True), zero(False))
    else:
        zeros = {(a, b): zero(a, b) for a in (False, True) for b in (False, True)}
        rep = ns.where(re, ns.where(im, zeros[True, True], zeros[True, False]),
                       ns.where(im, zeros[False, True], zeros[False, False]))
    return ns.where(values == 0, rep, values)


def _refuse_masked(func: str, x) -> None:
    """A ``TypeError`` for ``x`` of ``numpy.ma`` masked chunks: dask's ``unique`` reads
    their data, masked elements included (``unique_values`` listed the masked elements'
    values, ``unique_counts`` gave values counts of 0, ``unique_all`` of integers failed
    when computed), where ``numpy.ma`` and the NumPy backend gather the masked elements
    into one masked value."""
    remedy = get(_NAME).mask_remedy(x)
    if remedy is not None:
        raise type_error(func, "x", x, f"an array without masked chunks ({remedy}, or "
                                       "compute it and call it on the NumPy masked array)")


def _in_x_dtype(fn):
    """``fn`` (a set function of dask arrays) with its values in ``x``'s dtype where
    ``x`` is of a non-native byte order (NumPy's ``unique`` keeps it;
    ``dask_byteorder.in_dtype``)."""
    @functools.wraps(fn)
    def wrapped(x, /):
        res = fn(x)
        dt = getattr(x, "dtype", None)
        if not isinstance(dt, np.dtype) or dt.isnative:
            return res
        if not isinstance(res, tuple):
            return in_dtype(res, dt)
        return res._replace(values=in_dtype(res.values, dt))
    return wrapped


def unique_values(x, /):
    """``unique_values`` of the standard on dask arrays, each NaN a value of its own (an
    array of rows selected by a boolean mask flattened by row blocks: dask's ravel of
    unknown lengths failed)."""
    _refuse_masked("unique_values", x)
    ns = get(_NAME).namespace()
    if x.ndim > 1 and any(n != n for n in x.shape):
        x = flat(x)
    if x.dtype.kind not in "fc":
        return ns.unique_values(x)
    (values,) = _not_nan(ns.unique_values(x))
    flat_x, _, nans = _nans(x)
    return ns.concat([_zero_of_first(values, flat_x), nans])


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
    _refuse_masked("unique_counts", x)
    _check_known("unique_counts", x)
    ns = get(_NAME).namespace()
    if x.dtype.kind not in "fc":
        return UniqueCountsResult(*ns.unique_counts(x))
    values, counts = _not_nan(*ns.unique_counts(x))
    flat_x, _, nans = _nans(x)
    ones = ns.astype(nans != nans, counts.dtype)   # 1 per NaN
    return UniqueCountsResult(ns.concat([_zero_of_first(values, flat_x), nans]),
                              ns.concat([counts, ones]))


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
    return ns.concat([_zero_of_first(values, flat), nans]), inverse


def unique_inverse(x, /):
    """``unique_inverse`` of the standard on dask arrays: the k-th NaN (flattened
    order) is value ``len(non-NaN values) + k``; ``inverse_indices`` has ``x``'s shape."""
    _refuse_masked("unique_inverse", x)
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
    _refuse_masked("unique_all", x)
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
    register(_fn.__name__, _NAME)(_in_x_dtype(_fn))
del _fn
