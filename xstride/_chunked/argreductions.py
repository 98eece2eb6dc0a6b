"""``argmin``/``argmax`` of dask arrays: (value, global index) pairs per chunk, combined
by dask's reduction tree.

Each chunk gives, for every lane of the reduced axis (or once, for ``axis=None``), its
pair: the value and the *global* index of the chunk's own ``argmin``/``argmax`` (the
namespace's function on the chunk's backend: xstride's kernels in a CuPy chunk), the
offset of the chunk added from dask's ``block_info`` (for ``axis=None``, the C-order
flat index into the whole array). A chunk with no element along the reduced axes gives
index -1 (no candidate). Combining pairs keeps, per lane, the first NaN if there is one
(NumPy's rule: a NaN is the minimum and the maximum), else the smallest (largest)
value, ties going to the smallest global index — the first occurrence. The order of
candidates is total, so the answer is NumPy's for every chunking (exact: no arithmetic
on values). A ``numpy.ma`` chunk is read as ``numpy.ma`` reads it: its masked elements
filled with the value that never wins (the dtype's largest for ``argmin``).

Source: dask's ``dask/array/reductions.py`` (``arg_reduction``: chunk offsets, a
tree of partial results); the tie and NaN rules are NumPy's ``argmin``/``argmax``.
"""

from __future__ import annotations

import functools
import math

import dask.array as da
import numpy as np
from dask.array.utils import meta_from_array

from .._core.errors import value_error
from . import _config

__all__ = ["argmin", "argmax"]

_INT = np.dtype(np.int64)
_NONE = np.iinfo(np.int64).max     # "no candidate" while selecting


def _fn(name, chunk):
    return _config.namespace_function(name, chunk)


def _pair_shape(shape, axes) -> tuple:
    return tuple(1 if a in axes else n for a, n in enumerate(shape))


def _filled(func, block):
    """A ``numpy.ma`` chunk as ``numpy.ma``'s ``argmin``/``argmax`` read it: each masked
    element replaced by the value that never wins (``minimum_fill_value``, the dtype's
    largest, for ``argmin``; ``maximum_fill_value`` for ``argmax``), so the pairs are
    those of the whole array's filled data, whatever the chunks. Other chunks as they
    are."""
    if not np.ma.isMaskedArray(block):
        return block
    fill = (np.ma.minimum_fill_value if func == "argmin" else np.ma.maximum_fill_value)(block)
    return block.filled(fill)


def _chunk_pairs(func, block, axes, shape, block_info=None):
    """The pair of one chunk: ``{"v": values, "i": global indices}``, each of ``block``'s
    shape with length 1 along ``axes``."""
    starts = [lo for lo, _ in block_info[0]["array-location"]]
    block = _filled(func, block)
    pshape = _pair_shape(block.shape, axes)
    if any(block.shape[a] == 0 for a in axes):   # no candidate
        return {"v": _config.like(np.zeros(pshape, dtype=block.dtype), block),
                "i": _config.like(np.full(pshape, -1, dtype=_INT), block)}
    if len(axes) == 1:   # one axis (or a 1-D array): the index along it
        ax = axes[0]
        idx = _fn(func, block)(block, axis=ax, keepdims=True)
        val = _fn(func[3:], block)(block, axis=ax, keepdims=True)
        return {"v": val, "i": _fn("astype", idx)(idx, _INT) + starts[ax]}
    # every axis: the C-order flat index into the whole array
    k = int(_config.to_host(_fn(func, block)(block)))
    local = np.unravel_index(k, block.shape)
    glob = np.ravel_multi_index(tuple(int(i) + s for i, s in zip(local, starts)), shape)
    val = block[tuple(slice(i, i + 1) for i in local)]
    return {"v": val, "i": _config.like(np.full(pshape, glob, dtype=_INT), block)}


def _identity(pairs, axis=None, keepdims=True):
    return pairs


def _cat(parts, axes, key):
    """The field ``key`` of dask's nested lists of pairs, concatenated along ``axes``."""
    if isinstance(parts, dict):
        return parts[key]
    if not isinstance(parts, list) or not axes:
        return _cat(parts[0], axes, key) if isinstance(parts, list) else parts[key]
    pieces = [_cat(p, axes[1:], key) for p in parts]
    return pieces[0] if len(pieces) == 1 else _fn("concat", pieces[0])(pieces, axis=axes[0])


def _select(func, v, i, axes, keepdims):
    """The best pair per lane of ``(v, i)`` (lanes: the axes not in ``axes``)."""
    nd = v.ndim
    rest = [a for a in range(nd) if a not in axes]
    f = functools.partial(_fn, chunk=v)
    perm = tuple(rest + list(axes))
    lane = tuple(v.shape[a] for a in rest)
    flat = lane + (math.prod(v.shape[a] for a in axes),)
    v = f("reshape")(f("permute_dims")(v, perm), flat)
    i = f("reshape")(f("permute_dims")(i, perm), flat)
    valid = i >= 0
    best = f("min") if func == "argmin" else f("max")
    if v.dtype.kind == "f":
        nan = f("logical_and")(f("isnan")(v), valid)
        regular = f("logical_and")(valid, f("logical_not")(nan))
        fill = np.inf if func == "argmin" else -np.inf
    else:
        nan = None
        regular = valid
        if v.dtype.kind == "b":
            fill = func == "argmin"
        else:
            info = np.iinfo(v.dtype)
            fill = int(info.max if func == "argmin" else info.min)
    # (scalars as arrays of the partials' backend: no reliance on scalar where)
    full = f("full_like")
    vv = f("where")(regular, v, full(v, fill))
    top = best(vv, axis=-1, keepdims=True)
    cand = f("logical_and")(regular, vv == top)
    none = full(i, _NONE)
    idx = f("min")(f("where")(cand, i, none), axis=-1)
    top = top[..., 0]
    if nan is not None:
        has_nan = f("any")(nan, axis=-1)
        idx = f("where")(has_nan, f("min")(f("where")(nan, i, none), axis=-1), idx)
        top = f("where")(has_nan, full(top, np.nan), top)
    idx = f("where")(idx == _NONE, full(idx, -1), idx)
    out = _full(lane, axes, nd)
    if keepdims:
        return f("reshape")(top, out), f("reshape")(idx, out)
    return top, idx


def _full(lane, axes, nd) -> tuple:
    """The shape of ``nd`` axes with ``lane``'s lengths on the axes not in ``axes``."""
    it = iter(lane)
    return tuple(1 if a in axes else next(it) for a in range(nd))


def _combine(func, parts, axis=None, keepdims=True):
    axes = tuple(axis)
    v, i = _select(func, _cat(parts, axes, "v"), _cat(parts, axes, "i"), axes, True)
    return {"v": v, "i": i}


def _aggregate(func, parts, axis=None, keepdims=False):
    axes = tuple(axis)
    _, i = _select(func, _cat(parts, axes, "v"), _cat(parts, axes, "i"), axes, keepdims)
    return i


def _arg(func, x, axis, keepdims):
    axes = tuple(range(x.ndim)) if axis is None else (int(axis) % max(x.ndim, 1),)
    if x.ndim == 0:
        x = x.reshape(1)
        axes = (0,)
        squeeze = True
    else:
        squeeze = False
    if any(math.isnan(n) for a in axes for n in x.chunks[a]):
        # the global index needs each chunk's offset along the reduced axes
        raise value_error(func, "x", "has chunk lengths that dask does not know (as after "
                                     "boolean indexing) along the reduced axes; call "
                                     "x.compute_chunk_sizes() first")
    chunks = tuple((1,) * len(c) if a in axes else c for a, c in enumerate(x.chunks))
    # indices of masked chunks are a plain array, as numpy.ma's argmin gives (the masked
    # meta cast to int64 warned "invalid value encountered in cast" of its fill value)
    meta = np.ma.getdata(x._meta) if np.ma.isMaskedArray(x._meta) else x._meta
    pmeta = meta_from_array(meta, ndim=x.ndim, dtype=_INT)
    pairs = da.map_blocks(functools.partial(_chunk_pairs, func, axes=axes, shape=x.shape),
                          x, chunks=chunks, dtype=_INT, meta=pmeta,
                          name=f"xstride-{func}-pairs")
    nd_out = x.ndim if keepdims else x.ndim - len(axes)
    res = da.reduction(pairs, _identity, functools.partial(_aggregate, func),
                       combine=functools.partial(_combine, func), axis=axes,
                       keepdims=bool(keepdims), dtype=_INT, concatenate=False,
                       meta=meta_from_array(meta, ndim=nd_out, dtype=_INT),
                       name=f"xstride-{func}")
    return res.reshape(()) if squeeze else res


def argmin(x, /, *, axis=None, keepdims=False):
    """The standard's ``argmin`` of a dask array (a non-empty selection, checked).

    Raises
    ------
    ValueError
        A chunk length along the reduced axes is unknown (NaN): the global index
        needs it (``x.compute_chunk_sizes()`` first).
    """
    return _arg("argmin", x, axis, keepdims)


def argmax(x, /, *, axis=None, keepdims=False):
    """The standard's ``argmax`` of a dask array (the rules of :func:`argmin`)."""
    return _arg("argmax", x, axis, keepdims)
