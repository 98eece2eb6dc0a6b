"""``searchsorted`` of the standard on dask arrays (see ``dask_standard.py``'s list):
``sorter`` as a ``take`` of ``x1`` first, checked as the NumPy backend checks it; a
Python scalar or list ``x2`` as one block on ``x1``'s chunk backend; a 0-D ``x2`` as
one of shape ``(1,)``; an ``x1`` or ``x2`` of block lengths dask does not know by the sum
of ``x1``'s blocks' counts. Nothing here imports dask at import time."""

from __future__ import annotations

import math

import numpy as np

from .._chunked import _config as _chunked_config
from .._core.errors import value_error
from .dask_standard import _NAME, _known, _no_element, _ns
from .dispatch import register
from .masked_search import masked_searchsorted
from .registry import get
from .sorter_checks import check_sorter, check_sorter_range, check_values

__all__ = ["searchsorted"]


def _host_on(block, *, like):
    """NumPy ``block`` as an array of the chunk backend of ``like``."""
    return get(_NAME).chunk_like(block, like)


def _sorter_in_range(block, *, n):
    """Block ``block`` of ``sorter``, whose indices must lie in ``[0, n)``, checked as
    the NumPy backend checks a whole ``sorter`` (its ``min`` and ``max``)."""
    return check_sorter_range(block, n)


def searchsorted(x1, x2, /, *, side="left", sorter=None):
    """``searchsorted`` of the standard on dask arrays: ``sorter`` as a ``take`` of
    ``x1`` first; a Python scalar or list ``x2`` as one block; a 0-D ``x2`` as shape (1,).

    Raises
    ------
    TypeError
        ``sorter`` of a dtype other than an integer one (a bool or float ``sorter``
        gave wrong answers or dask's ``AttributeError``).
    ValueError
        ``x1`` or ``sorter`` not 1-D, ``sorter`` of another length than ``x1``; a
        ``sorter`` index out of ``[0, x1.shape[0])``, when the result is computed (dask
        took a negative one as counted from the end); a ``sorter`` with an ``x1`` of a
        length dask does not know (after boolean indexing: dask's gather raised its
        ``NotImplementedError``, naming neither).
    """
    ns = _ns()
    if sorter is not None and not get(_NAME).owns(sorter):
        sorter = np.asarray(sorter)
    check_sorter(x1, sorter, side)   # and x1 of one dimension, side
    check_values(x1, x2)
    got = masked_searchsorted(searchsorted, x1, x2, side, sorter, _NAME)
    if got is not None:   # x2's mask kept (a masked x1 refused): masked_search.py
        return got
    if sorter is not None:
        if not _known(x1.shape[0]):   # dask's gather said "Slicing an array with unknown ..."
            raise value_error("searchsorted", "x1", f"has shape {x1.shape}, with a length "
                                                    "dask does not know (as after boolean "
                                                    "indexing), which its gather by sorter "
                                                    "needs; call x1.compute_chunk_sizes() "
                                                    "first, or sort x1 and pass no sorter")
        if get(_NAME).owns(sorter):
            sorter = sorter.map_blocks(_sorter_in_range, n=x1.shape[0], dtype=sorter.dtype,
                                       meta=sorter._meta)
        else:
            _sorter_in_range(sorter, n=x1.shape[0])
        x1 = ns.take(x1, sorter, axis=0)
    if type(x2) is int and x1.dtype.kind in "iu":
        # a Python int past x1's integer dtype (NumPy's compares it as it is): past the
        # largest value every element is below it, past the smallest none (np.asarray
        # made an object array, refused as an x2 of dtype object)
        info = np.iinfo(x1.dtype)
        if x2 > info.max:
            x2, side = int(info.max), "right"
        elif x2 < info.min:
            x2, side = int(info.min), "left"
    elif type(x2) is int and x1.dtype.kind in "fb" and not -2**63 <= x2 < 2**64:
        x2, side = _beyond_int64(x2, x1.dtype, side)
    if not get(_NAME).owns(x2):
        da = get(_NAME).load()
        host = np.asarray(x2)
        x2 = da.from_array(host, chunks=tuple((n,) for n in host.shape)).map_blocks(
            _host_on, like=x1._meta, dtype=host.dtype,
            meta=get(_NAME).chunk_like(np.empty((0,) * host.ndim, host.dtype), x1._meta))
    if _no_element(x2):   # dask's declared x2's shape but computed (1, 0) for (0, 3)
        da = get(_NAME).load()
        empty = get(_NAME).chunk_like(np.empty(x2.shape, np.intp), x1._meta)
        return da.from_array(empty, chunks=tuple((n,) for n in x2.shape), asarray=False)
    if x2.ndim == 0:   # dask's block search writes into its result: one of shape (1,)
        return ns.reshape(searchsorted(x1, ns.reshape(x2, (1,)), side=side), ())
    if not all(_known(n) for n in x1.shape + x2.shape):
        return _searchsorted_by_counts(x1, x2, side)
    return ns.searchsorted(x1, x2, side=side)


def _beyond_int64(v: int, dtype, side: str) -> tuple:
    """``(x2, side)`` for a Python int ``v`` outside int64 and uint64 (``np.asarray``
    made it an object array, refused) searched in a bool or floating ``x1`` of ``dtype``,
    with NumPy's answer, which compares ``v`` as it is: for bools the nearest bound;
    else ``f``, ``v`` rounded to ``dtype`` (an inf past its range). Where ``f`` is ``v``
    (``2**64``, a power of two) the search is the one asked; else no element lies
    strictly between ``v`` and ``f`` and none equals ``v``, so the elements below
    ``v`` are those below ``f`` where ``f > v`` (side "left"), those at most ``f``
    where ``f < v`` (side "right"), on either side asked."""
    if dtype.kind == "b":
        return (True, "right") if v > 0 else (False, "left")
    try:
        with np.errstate(over="ignore"):   # past float16's or float32's range: inf
            f = dtype.type(float(v))
    except OverflowError:   # past float64: past every float type's range
        f = dtype.type(math.inf if v > 0 else -math.inf)
    if float(f) == v:
        return f, side
    return f, "left" if float(f) > v else "right"


def _count_block(a, v, *, side):
    """How many elements of the sorted block ``a`` come before each of ``v``: the
    block's own ``searchsorted``, with a leading axis of one (one row per block)."""
    return _chunked_config.namespace_function("searchsorted", a)(a, v, side=side)[None]


def _searchsorted_by_counts(x1, x2, side):
    """``searchsorted`` of a sorted ``x1`` or values ``x2`` whose block lengths dask does
    not know (after boolean indexing): the sum over ``x1``'s blocks of each block's own
    answer (how many of its elements come before the value), which needs no length.
    dask's adds the blocks' offsets from ``x1``'s lengths, and gave NaN for every value
    past the first block; for an ``x2`` of two or more dimensions and unknown lengths its
    blocks came out with their axes misplaced (a result of shape ``(2, 0)`` for values
    of ``(0, 2)``, "could not broadcast input array from shape (1,0) into shape (1,2)"
    where a block of values held no row)."""
    da = get(_NAME).load()
    vi = tuple(range(1, x2.ndim + 1))
    meta = get(_NAME).chunk_like(np.empty((0,) * (x2.ndim + 1), np.intp), x1._meta)
    per_block = da.blockwise(_count_block, (0,) + vi, x1, (0,), x2, vi, side=side,
                             adjust_chunks={0: 1}, dtype=np.intp, meta=meta)
    return _ns().sum(per_block, axis=0, dtype=np.intp)


register("searchsorted", _NAME)(searchsorted)
