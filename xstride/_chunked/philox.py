"""Philox4x32-10 on dask arrays: each chunk runs its own backend's Philox executor.

Arguments arrive checked by :mod:`xstride.rng`: Python ints in ``[0, 2**64)`` or dask
arrays of ``uint64`` (``uint32`` for the raw counter words) that broadcast together.

Chunk invariance. A value of the pure functions depends only on the ``(seed, stream,
counter)`` values of its element, which the chunk carries, so any chunking gives the
bits of the NumPy backend. The generator's stream (:func:`pairs`) has no counter array:
the chunk covering elements ``[s, e)`` of the result reads its global offset ``s`` from
dask's ``block_info`` and evaluates counters ``start + s // 2 .. start + (e - 1) // 2``
(two values per counter), never a seed or counter per chunk. This is the
``map_blocks``/``block_info`` pattern of ``dask/array/random.py``.
"""

from __future__ import annotations

import dask.array as da
import numpy as np
from array_api_compat import array_namespace

from .._plans.philox import M32, mul_hi_lo
from . import _config
from .chunks import fit_chunks, fit_option, without_empty_chunks

__all__ = ["uniform", "uniform2", "normal", "normal2", "pairs", "words", "integers"]


# ------------------------------------------------------------------ per chunk
def _real_block(*blocks, kind, ints):
    """``kind`` of one chunk; ``ints`` holds the Python ints and the literal blocks
    (:func:`_literal`), None where a block goes."""
    it = iter(blocks)
    args = [next(it) if v is None else _on_device(v, blocks[0]) for v in ints]
    ex = _config.executor_of("philox", blocks[0])
    # the blocks as they are (a counter column (m, 1) beside a stream row (1, k)): the
    # executors broadcast them, as their arrays' own functions do
    shape = np.broadcast_shapes(*(a.shape for a in args if not isinstance(a, int)))
    res = getattr(ex, kind)(*args, shape)
    if isinstance(res, tuple):  # two outputs: stacked on a new last axis
        return array_namespace(res[0]).stack(res, axis=-1)
    return res


def _on_device(value, block):
    """``value`` (a Python int or a literal, :func:`_literal`) beside ``block``: a literal
    of host data beside a device block goes to the block's device (a copy of a few
    bytes, which CuPy's ``asarray`` of host data queues on the stream)."""
    if isinstance(value, np.ndarray) and not isinstance(block, np.ndarray):
        return _config.like(value, block)
    return value


def _pairs_block(kind, seed, stream, start, like, block_info=None):
    """Elements ``[s, e)`` of the generator's stream (``s``, ``e`` from ``block_info``)."""
    s, e = block_info[None]["array-location"][0]
    ex = _config.executor_of("philox", like)
    if e <= s:
        return ex.pairs(kind, seed, stream, start, 0)
    first, last = s // 2, (e - 1) // 2
    vals = ex.pairs(kind, seed, stream, start + first, 2 * (last - first + 1))
    off = s - 2 * first
    return vals[off:off + (e - s)]


def _words_block(cw, k0, k1):
    ex = _config.executor_of("philox", cw)
    return ex.words(cw, k0, k1, tuple(cw.shape[:-1]))


# ------------------------------------------------------------------ graphs
def _meta(like, ndim: int, dtype):
    """An empty array of ``like``'s backend with ``ndim`` axes and ``dtype``."""
    meta = like.astype(dtype)
    if ndim:   # dask's meta of a 0-d array holds one element: take none of it
        meta = meta.reshape(-1)[:0]
    return meta.reshape((0,) * ndim)


def _aligned(arrays):
    """``(arrays, chunks)``: the arrays with their chunks unified where their lengths
    match (axes counted from the last, as broadcasting does) and the chunks of their
    broadcast. Axes of length 1 stay as they are, not broadcast: each block task gets
    the blocks it broadcasts from (:func:`_real_block`). ``da.broadcast_arrays`` made a
    ``broadcast_to`` task of every argument's every block first: one more step between
    the arguments and the values (a few milliseconds each on a cluster of one worker,
    where the scheduler batches its messages to the worker)."""
    pairs = [(a, tuple(reversed(range(a.ndim)))) for a in arrays]
    _, arrays = da.core.unify_chunks(*[x for p in pairs for x in p], warn=False)
    return list(arrays), da.core.broadcast_chunks(*(a.chunks for a in arrays))


#: The largest array a block task takes as a literal (:func:`_literals`): each block's
#: task carries a copy.
_LITERAL_BYTES = 2**16


def _literal(a, chunks):
    """The data of dask array ``a`` where its graph holds it as it is (``asarray`` of a
    small host or device array: no task computes it but, on device chunks, the chunk
    backend's ``asarray`` of the host data, which the block task then does) and every
    block of the result ``chunks`` reads all of it (each axis of ``a`` of length 1, or
    one chunk of the result); else None."""
    if a.npartitions != 1 or a.nbytes > _LITERAL_BYTES:
        return None
    value = _config.host_literal(a)
    if value is None:
        return None
    ends = chunks[len(chunks) - a.ndim:]
    if any(n != 1 and len(c) != 1 for n, c in zip(a.shape, ends)):
        return None
    return value


def _literals(arrays, chunks) -> list:
    """For each of ``arrays``: its data, where the block tasks take it as an argument
    (:func:`_literal`), else None; at least one array stays a dask input. A stream row
    ``xp.asarray(numpy.arange(3)[None, :])`` beside counters ``xp.arange(n)[:, None]``
    was an input task of its own, and dask does not fuse a block task of two inputs
    with the tasks before it: the counters' ``arange``, their ``[:, None]``'s alias and
    the values ran as three dependent tasks (on a cluster each a round trip of the
    scheduler's messages, docs/performance.md, "The dask pipeline's steps on one GPU");
    with the row a literal, one fused task and its alias."""
    found = [_literal(a, chunks) for a in arrays]
    if all(v is not None for v in found):
        found[0] = None
    return found


def _real(kind, seed, stream, counter, shape):
    vals = (seed, stream, counter)
    arrays = [v for v in vals if not isinstance(v, int)]
    if not arrays:  # Python ints only: one 0-d value, on the active chunk backend
        like = _config.default_meta()
        res = getattr(_config.executor_of("philox", like), kind)(*vals, shape)
        if isinstance(res, tuple):
            return tuple(da.from_array(r, chunks=(), asarray=False) for r in res)
        return da.from_array(res, chunks=(), asarray=False)
    arrays, chunks = _aligned([without_empty_chunks(a) for a in arrays])
    literals = _literals(arrays, chunks)
    arrays = [a for a, lit in zip(arrays, literals) if lit is None]
    it = iter(literals)
    ints = [v if isinstance(v, int) else next(it) for v in vals]
    like = arrays[0]._meta
    ndim = len(shape)
    if kind in ("uniform2", "normal2"):
        # the two values' last axis, and the leading axes of the result that no dask
        # input has (a literal of more axes than they: a stream column (R, 1) beside
        # counters (C,) in chunks; dask numbers a block's axes from its last)
        lead = ndim - max(a.ndim for a in arrays)
        both = da.map_blocks(_real_block, *arrays, kind=kind, ints=ints,
                             new_axis=list(range(lead)) + [ndim],
                             chunks=chunks + ((2,),), dtype=np.float64,
                             meta=_meta(like, ndim + 1, np.float64))
        return both[..., 0], both[..., 1]
    return da.map_blocks(_real_block, *arrays, kind=kind, ints=ints, chunks=chunks,
                         dtype=np.float64, meta=_meta(like, ndim, np.float64))


def uniform(seed, stream, counter, shape):
    """Uniforms in [0, 1) from ``(w0, w1)``; a dask array of ``shape``."""
    return _real("uniform", seed, stream, counter, shape)


def uniform2(seed, stream, counter, shape):
    """Two uniforms per counter, from ``(w0, w1)`` and ``(w2, w3)``."""
    return _real("uniform2", seed, stream, counter, shape)


def normal(seed, stream, counter, shape):
    """Box–Muller ``z0 = r cos(theta)`` per counter."""
    return _real("normal", seed, stream, counter, shape)


def normal2(seed, stream, counter, shape):
    """Box–Muller ``(z0, z1)`` per counter."""
    return _real("normal2", seed, stream, counter, shape)


def stream_chunks(n: int, shape, dtype, func: str = "Philox") -> tuple:
    """Chunks of a 1-D stream of ``n = prod(shape)`` values that reshapes to ``shape``
    with the rows the backend's ``chunks`` option gives an array of ``shape`` (as the
    creation functions' arrays have): whole rows per chunk, the trailing axes whole (an
    array of no elements: one empty chunk; 0-d: one chunk). ``shape=None`` or 1-D: the
    option applied to the stream itself. ``func``, the method called
    (``"Philox.uniform"``), is named by the error of an option of lower rank than the
    array."""
    opt = _config.default_chunks()
    if shape is not None and len(shape) == 0:
        return ((n,),)
    opt = fit_option(func, opt, (n,) if shape is None else shape, own_chunks=False)
    if n == 0:   # dask's byte-size rule divides by zero for (0, k) rows wider than it
        return ((0,),)
    whole = (n,) if shape is None or len(shape) == 1 else tuple(shape)
    normal = fit_chunks(func, opt, whole, dtype, option=_config.default_chunks())
    if len(whole) == 1:
        return normal
    rows = normal[0]
    row = int(np.prod(shape[1:], dtype=np.int64))
    return (tuple(c * row for c in rows),) if row else ((0,),)


def pairs(kind, seed, stream, start, n, shape=None, func="Philox"):
    """The generator's stream: ``n`` float64 values from counters ``start, start + 1,
    ...`` (two per counter), a 1-D dask array on the active chunk backend, chunked by
    :func:`stream_chunks` (``shape``: the array it will be reshaped to); the same bits
    for any chunking; ``func`` as in :func:`stream_chunks`."""
    like = _config.default_meta()
    chunks = stream_chunks(n, shape, np.float64, func)
    return _as_rows(da.map_blocks(_pairs_block, kind=kind, seed=seed, stream=stream,
                                  start=start, like=like, chunks=chunks, dtype=np.float64,
                                  meta=_meta(like, 1, np.float64)), shape)


def _block_as_rows(block, tail: tuple):
    return block.reshape((-1,) + tail)


def _as_rows(values, shape):
    """1-D ``values`` of whole rows per chunk (:func:`stream_chunks`) as an array of
    ``shape`` of 2 or more axes, a block a chunk: the rows the ``chunks`` option gives
    ``shape``, its blocks of no row too (dask's ``reshape`` merged those away, so the
    draw's blocks did not line up with ``xp.zeros(shape)``'s). Else ``values``."""
    if shape is None or len(shape) < 2 or values.shape[0] == 0:
        return values   # (no element: one empty chunk, as dask's reshape makes it)
    tail = tuple(int(t) for t in shape[1:])
    row = int(np.prod(tail, dtype=np.int64))
    rows = tuple(c // row for c in values.chunks[0])
    return values.map_blocks(_block_as_rows, tail, chunks=(rows,) + tuple((t,) for t in tail),
                             new_axis=list(range(1, len(shape))), dtype=values.dtype,
                             meta=_meta(values._meta, len(shape), values.dtype))


def words(counter_words, key0, key1, shape):
    """Raw Philox4x32-10: uint32 ``counter_words`` (..., 4) -> uint32 ``shape + (4,)``."""
    nd = len(shape)
    counter_words = without_empty_chunks(counter_words)
    cw = da.broadcast_to(counter_words, tuple(shape) + (4,)).rechunk({nd: 4})
    ind = tuple(range(nd))
    keys = []
    for k in (key0, key1):
        if isinstance(k, int):
            keys += [k, None]
        else:
            keys += [da.broadcast_to(without_empty_chunks(k), tuple(shape)), ind]
    return da.blockwise(_words_block, ind + (nd,), cw, ind + (nd,), *keys, dtype=np.uint32,
                        meta=_meta(cw._meta, nd + 1, np.uint32))


# ------------------------------------------------------------------ the generator's integers
_LIMIT = 1 << 64


def _lemire(xp, words, r, thresh):
    """(value, rejected) per row of uint32 ``words`` (m, 4): Lemire's multiply-and-reject
    on ``(w0 << 32) | w1``, then on ``(w2 << 32) | w3`` for a rejected first try."""
    w = words.astype(xp.uint64)
    s32 = xp.uint64(32)
    out = xp.zeros(w.shape[0], dtype=xp.uint64)
    rejected = xp.ones(w.shape[0], dtype=xp.bool)
    for a, b in ((0, 1), (2, 3)):
        x = (w[:, a] << s32) | w[:, b]
        if r == _LIMIT:
            val, ok = x, xp.ones(x.shape, dtype=xp.bool)
        else:
            val, lo = mul_hi_lo(xp, x, r)
            ok = lo >= xp.uint64(thresh)
        take = rejected & ok
        out = xp.where(take, val, out)
        rejected = rejected & ~ok
    return out, rejected


def _counter_words(xp, ctr, stream):
    return xp.stack([ctr & xp.uint64(M32), ctr >> xp.uint64(32),
                     xp.full_like(ctr, stream & M32), xp.full_like(ctr, stream >> 32)],
                    axis=1).astype(xp.uint32)


def _integers_block(seed, stream, start, r, thresh, like, block_info=None):
    """Round one of elements ``[s, e)``: counter ``start + i`` for element ``i``;
    returns uint64 (e - s, 2): the value and whether both tries were rejected."""
    s, e = block_info[None]["array-location"][0]
    xp = array_namespace(like)
    if e <= s:   # no element: no counter (start + s may be 2**64, past uint64)
        return xp.zeros((0, 2), dtype=xp.uint64)
    ex = _config.executor_of("philox", like)
    first = getattr(ex, "integers_first", None)   # the host's compiled round one
    got = first(seed, stream, start + s, e - s, r, thresh) if first is not None else None
    if got is not None:
        val, where = got
        flags = xp.zeros(e - s, dtype=xp.uint64)
        flags[where] = 1
        val[where] = 0   # (unwritten there; as _lemire leaves them)
        return xp.stack([val, flags], axis=1)
    ctr = xp.arange(e - s, dtype=xp.uint64) + xp.asarray(start + s, dtype=xp.uint64)
    words = ex.words(_counter_words(xp, ctr, stream), seed & M32, seed >> 32, (e - s,))
    val, rejected = _lemire(xp, words, r, thresh)
    return xp.stack([val, rejected.astype(xp.uint64)], axis=1)


def _patch_block(values, fix_index, fix_value, block_info=None):
    """``values`` with the elements of ``fix_index`` that fall in this block replaced."""
    s, e = block_info[0]["array-location"][0]
    inside = (fix_index >= s) & (fix_index < e)
    if not inside.any():
        return values
    out = values.copy()
    idx = _config.like(fix_index[inside] - s, values)
    out[idx] = _config.like(fix_value[inside], values)
    return out


def integers(seed, stream, start, n, r, thresh, room, shape=None, func="Philox.integers"):
    """The generator's integers in ``[0, r)`` (uint64, before ``low`` is added): a 1-D
    dask array of ``n`` values and the number of counters used.

    Round one runs per chunk (element ``i`` takes counter ``start + i``, so the values
    do not depend on the chunking); the elements both of whose tries were rejected
    (probability below ``r / 2**64`` each) are few: their global indices are computed
    (round one's values are not kept: they are computed again with the result, so the
    draw is as lazy as ``pairs`` and never holds its whole result), and the later rounds (fresh counters ``start + n, ...`` in index order, as on every
    backend) run here on the host, then patch their chunks. ``room(first, count)``
    raises ``OverflowError`` when counters ``first .. first + count - 1`` pass 2**64;
    ``func`` as in :func:`stream_chunks`.
    """
    like = _config.default_meta()
    chunks = stream_chunks(n, shape, np.uint64, func)
    both = da.map_blocks(_integers_block, seed=seed, stream=stream, start=start, r=r,
                         thresh=thresh, like=like, chunks=chunks + ((2,),),
                         dtype=np.uint64, meta=_meta(like, 2, np.uint64))
    # only the indices of the rejected elements are computed here, each chunk dropped
    # once read: round one is computed again, chunk by chunk, when the result is (a
    # persist of round one held the whole result in memory at the call, so a draw larger
    # than memory failed there, where uniform and normal stay lazy)
    todo = np.asarray(_config.to_host(da.flatnonzero(both[:, 1]).compute()), dtype=np.int64)
    values = both[:, 0]
    if todo.size == 0:
        return _as_rows(values, shape), n
    host = np.empty(0)
    ex = _config.executor_of("philox", host)
    fix_index, fix_value = todo.copy(), np.zeros(todo.size, dtype=np.uint64)
    where = np.arange(todo.size)   # positions in fix_index still to draw
    ctr_next = start + n
    while where.size:
        room(ctr_next, int(where.size))
        ctr = np.arange(where.size, dtype=np.uint64) + np.uint64(ctr_next)
        ctr_next += int(where.size)
        words = ex.words(_counter_words(np, ctr, stream), seed & M32, seed >> 32,
                         (int(where.size),))
        val, rejected = _lemire(np, words, r, thresh)
        done = ~rejected
        fix_value[where[done]] = val[done]
        where = where[rejected]
    values = da.map_blocks(_patch_block, values, fix_index, fix_value, dtype=np.uint64,
                           meta=values._meta)
    return _as_rows(values, shape), ctr_next - start
