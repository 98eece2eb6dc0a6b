"""Per-chunk tasks of the dask demo (:mod:`.dask_demo`): few tasks per chunk, each on
the chunk's own backend, so a stage costs its work and not dask's bookkeeping.

- :func:`bounding_box`: one task per row block gives the block's per-axis minimum and
  maximum (float64, on the host); the client reduces the ``2 * P`` rows. Min and max
  are exact, so the box equals the NumPy backend's ``xp.min``/``xp.max`` (NaN
  propagates as there).
- :func:`occupancy`: the run lengths of the level-``k`` cells of sorted keys. Each
  chunk needs the cell of the row before it (the last key of the nearest non-empty
  chunk before it) and the first cell start after it: tiny 1-element tasks carry
  them, so no chunk is cut, rechunked or sent to the client; one task per chunk then
  writes its counts. Four tasks per chunk, at constant depth.
- :func:`sorted_across`: whether sorted keys never decrease, per chunk and across
  chunk boundaries (the same last keys).
- :func:`runs`: the first row and the key of every run of equal sorted keys, per chunk
  (the demo's tree gathers them).
"""

from __future__ import annotations

import dask
import dask.array as da
import numpy as np
from array_api_compat import array_namespace
from dask.base import tokenize

import xstride

__all__ = ["bounding_box", "occupancy", "sorted_across", "runs"]

_WIDTH = 256   # rows folded side by side before the per-axis reduction


def _fold(block, reduce):
    """``reduce(block, axis=0)`` with the rows folded ``_WIDTH`` at a time, so the inner
    loop runs over contiguous memory (NumPy's ``min(axis=0)`` of an (n, 3) array walks
    3 elements per outer step, about 25 times slower)."""
    m, d = block.shape
    head = (m // _WIDTH) * _WIDTH
    xp = array_namespace(block)
    parts = []
    if head:
        parts.append(reduce(block[:head].reshape(head // _WIDTH, _WIDTH * d), axis=0)
                     .reshape(_WIDTH, d))
    if head < m:
        parts.append(block[head:])
    return reduce(xp.concat(parts, axis=0), axis=0)


def _box_block(block):
    """(2, d) float64 host array: the block's per-axis min (row 0) and max (row 1)."""
    m, d = block.shape
    if m == 0:
        return np.array([[np.inf] * d, [-np.inf] * d])
    xp = array_namespace(block)
    both = xp.astype(xp.stack([_fold(block, xp.min), _fold(block, xp.max)]), xp.float64)
    return xstride.to_numpy(both)


def bounding_box(pos) -> tuple:
    """(lower, upper) float64 (d,) host vectors of dask positions (n, d), n >= 1."""
    pos = pos.rechunk({1: -1})
    d = pos.shape[1]
    boxes = da.map_blocks(_box_block, pos, chunks=((2,) * pos.numblocks[0], (d,)),
                          dtype=np.float64, meta=np.empty((0, 0)))
    both = np.asarray(boxes.compute())
    return both[0::2].min(axis=0), both[1::2].max(axis=0)


# ------------------------------------------------------------------ sorted keys
# Graphs as one layer of plain tasks (a dask.delayed call per task merges graphs once
# per call). Each chunk's task gets the 1-element ends of all the chunks before (or
# after) it and keeps the nearest non-empty one: depth stays constant instead of a chain
# of P tasks, each a round trip through the scheduler.
def _last(block):
    """The last key of ``block`` (1 element; empty for an empty block)."""
    return block[-1:]


def _nearest_before(*lasts):
    """The last of the non-empty 1-element arrays, or None."""
    for last in reversed(lasts):
        if last.shape[0]:
            return last
    return None


def _starts_block(block, first_row: int, shift, *lasts):
    """Global rows (int64) where a cell starts in this chunk of sorted keys; ``lasts``:
    the last keys of the chunks before it."""
    # scalars stay NumPy/Python scalars: kernel arguments on the device, where a 0-d
    # device array would be a host-to-device copy that waits for the stream
    xp = array_namespace(block)
    cells = block >> shift
    before = _nearest_before(*lasts)
    if before is None:
        prev = cells[:1] ^ np.uint64(1)   # row 0 of all starts a cell
    else:
        prev = before >> shift
    boundary = cells != xp.concat([prev, cells[:-1]])
    return xp.astype(xp.nonzero(boundary)[0], xp.int64) + first_row


def _first(starts):
    return starts[:1]


def _counts_block(starts, end, *firsts):
    """Cell sizes of the cells starting in this chunk: differences of its starts and
    the first start after the chunk (``firsts`` of the later chunks, else ``end``)."""
    xp = array_namespace(starts)
    after = next((f for f in firsts if f.shape[0]), None)
    if after is None:
        after = xp.asarray([end], dtype=xp.int64)
    return xp.diff(xp.concat([starts, after]))


def _length(block) -> int:
    return int(block.shape[0])


def _graph(name, layer, dependencies):
    from dask.highlevelgraph import HighLevelGraph

    return HighLevelGraph.from_collections(name, layer, dependencies=dependencies)


def occupancy(sorted_keys, shift: int):
    """Points per occupied cell (int64, a persisted dask array of known chunks) of the
    cells ``key >> shift`` of sorted keys: the run lengths in key order."""
    from dask.delayed import Delayed

    n = int(sorted_keys.shape[0])
    nb = sorted_keys.numblocks[0]
    keys = sorted_keys.__dask_keys__()
    offsets = np.concatenate([[0], np.cumsum(sorted_keys.chunks[0][:-1])]).astype(int)
    token = tokenize(sorted_keys.name, shift)
    last, starts, first, counts = (f"occupancy-{s}-{token}"
                                   for s in ("last", "starts", "first", "counts"))
    shift = np.uint64(shift)
    layer = {}
    for i in range(nb):
        layer[(last, i)] = (_last, keys[i])
        layer[(starts, i)] = (_starts_block, keys[i], int(offsets[i]), shift) \
            + tuple((last, j) for j in range(i))
        layer[(first, i)] = (_first, (starts, i))
    for i in range(nb):
        layer[(counts, i)] = (_counts_block, (starts, i), n) \
            + tuple((first, j) for j in range(i + 1, nb))
    graph = _graph(counts, layer, [sorted_keys])
    parts = dask.persist(*[Delayed((counts, i), graph, layer=counts) for i in range(nb)])
    length = f"occupancy-length-{token}"
    lengths = _graph(length, {(length, i): (_length, (counts, i)) for i in range(nb)}, parts)
    sizes = dask.compute(*[Delayed((length, i), lengths, layer=length) for i in range(nb)])
    name = f"occupancy-{token}"
    arr = da.Array(_graph(name, {(name, i): (_ident, (counts, i)) for i in range(nb)}, parts),
                   name, (tuple(sizes),), dtype=np.int64,
                   meta=sorted_keys._meta.astype(np.int64))
    return dask.persist(arr)[0]


def _ident(x):
    return x


def _heads_block(block, starts, first_row: int):
    """The keys of a chunk at its run starts (global rows ``starts``)."""
    return block[starts - first_row]


def runs(sorted_keys):
    """``(starts, heads)``: the global rows (int64) where a run of equal keys starts and
    the key of each run, as two dask arrays of unknown chunk lengths (one chunk per
    chunk of ``sorted_keys``), for the client to gather."""
    nb = sorted_keys.numblocks[0]
    keys = sorted_keys.__dask_keys__()
    offsets = np.concatenate([[0], np.cumsum(sorted_keys.chunks[0][:-1])]).astype(int)
    token = tokenize(sorted_keys.name, "runs")
    last, starts, heads = (f"runs-{s}-{token}" for s in ("last", "starts", "heads"))
    zero = np.uint64(0)
    first = {(last, i): (_last, keys[i]) for i in range(nb)}
    first.update({(starts, i): (_starts_block, keys[i], int(offsets[i]), zero)
                  + tuple((last, j) for j in range(i)) for i in range(nb)})
    unknown = ((np.nan,) * nb,)
    meta = sorted_keys._meta
    rows = da.Array(_graph(starts, first, [sorted_keys]), starts, unknown, dtype=np.int64,
                    meta=meta.astype(np.int64))
    layer = {(heads, i): (_heads_block, keys[i], (starts, i), int(offsets[i]))
             for i in range(nb)}
    return rows, da.Array(_graph(heads, layer, [rows, sorted_keys]), heads, unknown,
                          dtype=sorted_keys.dtype, meta=meta)


def _sorted_block(block, *lasts) -> bool:
    xp = array_namespace(block)
    if block.shape[0] == 0:
        return True
    before = _nearest_before(*lasts)
    prev = block[:1] if before is None else before
    return bool(xp.all(xp.concat([prev, block[:-1]]) <= block))


def sorted_across(keys):
    """A delayed bool: the keys never decrease (within and across chunks)."""
    from dask.delayed import Delayed

    nb = keys.numblocks[0]
    kk = keys.__dask_keys__()
    token = tokenize(keys.name)
    last, ok, every = (f"sorted-{s}-{token}" for s in ("last", "ok", "all"))
    layer = {(last, i): (_last, kk[i]) for i in range(nb)}
    layer.update({(ok, i): (_sorted_block, kk[i]) + tuple((last, j) for j in range(i))
                  for i in range(nb)})
    layer[(every, 0)] = (all, [(ok, i) for i in range(nb)])
    return Delayed((every, 0), _graph(every, layer, [keys]), layer=every)
