"""Per-chunk tasks of the dask demo (:mod:`.dask_demo`): few tasks per chunk, each on
the chunk's own backend, so a stage costs its work and not dask's bookkeeping.

- :func:`bounding_box`: one task per row block gives the block's per-axis minimum and
  maximum (float64, on the host); the client reduces the ``2 * P`` rows. Min and max
  are exact, so the box equals the NumPy backend's ``xp.min``/``xp.max`` (NaN
  propagates as there).
- :func:`box_in_graph`: the same box, and the demo's Morton box and scales of it, as
  one task of the graph (the pipeline submitted without waits: the keys' tasks read it
  on the cluster).
- :func:`occupancy`: the run lengths of the level-``k`` cells of sorted keys. Each
  chunk needs the cell of the row before it (the last key of the nearest non-empty
  chunk before it) and the first cell start after it: a summary of every chunk (its
  first and last keys, the count and first row of the cells that start after its first
  row, as Python ints) goes to every chunk's counts task, which works out both, where
  all tasks share one memory (each counts task waits for the device at its end, and the
  client for the counts tasks); on a cluster of several workers it comes to the client
  (one round trip), which
  passes each chunk's task what it needs as constants. Either way no chunk is cut,
  rechunked or sent anywhere.
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

from .. import _backends

__all__ = ["bounding_box", "box_in_graph", "occupancy", "length", "synchronized",
           "sorted_across", "runs"]

def _box_block(block):
    """(2, d) float64 host array: the block's per-axis min (row 0) and max (row 1)."""
    m, d = block.shape
    if m == 0:
        return np.array([[np.inf] * d, [-np.inf] * d])
    # xstride's namespace: on a NumPy chunk the host walk of the short axis (NumPy's
    # own min(axis=0) of (n, 3) is about 25 times slower), on a CuPy chunk its kernels
    both = [xstride.to_numpy(f(block, axis=0)) for f in (xstride.min, xstride.max)]
    return np.stack(both).astype(np.float64)


def bounding_box(pos) -> tuple:
    """(lower, upper) float64 (d,) host vectors of dask positions (n, d), n >= 1."""
    pos = pos.rechunk({1: -1})
    d = pos.shape[1]
    boxes = da.map_blocks(_box_block, pos, chunks=((2,) * pos.numblocks[0], (d,)),
                          dtype=np.float64, meta=np.empty((0, 0)))
    # the blocks' results themselves, not the array: its compute joins them in a task of
    # its own first (one more step on the cluster, a few milliseconds with one worker)
    both = np.concatenate(dask.compute(*boxes.to_delayed().ravel()))
    return both[0::2].min(axis=0), both[1::2].max(axis=0)


def _box_of(levels: int, source, *blocks) -> tuple:
    """``(box_lower, scales, lower, upper)`` float64 (d,) host vectors from the blocks'
    :func:`_box_block` rows: the points' bounding box (``lower``, ``upper``), the demo's
    Morton box of it (``box_lower``, a :class:`DemoError` where the box has no usable
    extent, naming the point file ``source`` where not ``None``) and its scales, on a
    worker."""
    from .. import algorithms
    from .demo import _morton_box

    both = np.concatenate(blocks)
    lower, upper = both[0::2].min(axis=0), both[1::2].max(axis=0)
    box_lower, box_upper = _morton_box(lower, upper, levels, source)
    return box_lower, algorithms.morton_scales(box_lower, box_upper, levels), lower, upper


def box_in_graph(pos, levels: int, source: str | None = None):
    """A ``Delayed`` of ``(box_lower, scales, lower, upper)`` (:func:`_box_of`) of dask
    positions (n, d), n >= 1: the box as :func:`bounding_box` and the demo's
    ``_morton_box`` give it, computed on the cluster (the Morton keys' tasks read it
    there: ``keys_in_box`` of the dask backend's Morton executor). Positions in one
    block take one task."""
    pos = pos.rechunk({1: -1})
    rows = [k[0] for k in pos.__dask_keys__()]
    token = tokenize(pos.name, levels, source)
    name, block = f"morton-box-{token}", f"morton-box-block-{token}"
    if len(rows) == 1:
        layer = {(name, 0): (_box_of, levels, source, (_box_block, rows[0]))}
    else:
        layer = {(block, i): (_box_block, r) for i, r in enumerate(rows)}
        layer[(name, 0)] = (_box_of, levels, source) + tuple((block, i)
                                                             for i in range(len(rows)))
    return _delayed(name, 0, _graph(name, layer, [pos]))


# ------------------------------------------------------------------ sorted keys
# Graphs as one layer of plain tasks (a dask.delayed call per task merges graphs once
# per call). What a chunk needs of the others (the last key before it, the first cell
# start after it) is a few Python ints: no task depends on another chunk's keys, so
# no chunk travels between workers. (The sortedness check and the runs take the last
# keys through the client; the occupancy too, but where all tasks share one memory,
# which passes the chunks' summaries from task to task: a round trip less.)
def _last(block):
    """The last key of ``block`` as a Python int, or None for an empty block."""
    return int(block[-1]) if block.shape[0] else None


def _befores(sorted_keys) -> list:
    """For each chunk, the last key of the nearest non-empty chunk before it (or None)."""
    nb = sorted_keys.numblocks[0]
    keys = sorted_keys.__dask_keys__()
    name = f"last-key-{tokenize(sorted_keys.name)}"
    graph = _graph(name, {(name, i): (_last, keys[i]) for i in range(nb)}, [sorted_keys])
    lasts = dask.compute(*[_delayed(name, i, graph) for i in range(nb)])
    out, before = [], None
    for last in lasts:
        out.append(before)
        before = before if last is None else last
    return out


def _delayed(name, i, graph):
    from dask.delayed import Delayed

    return Delayed((name, i), graph, layer=name)


def _boundary(block, shift, before):
    """True where a cell starts in this chunk (``before``: the key before it, or None).
    Scalars stay NumPy/Python scalars: kernel arguments on the device (a small device
    array made from host values would be a copy that waits for the stream)."""
    xp = array_namespace(block)
    cells = block >> shift
    if before is None:
        head = xp.ones(min(1, cells.shape[0]), dtype=xp.bool)   # row 0 of all starts a cell
    else:
        head = cells[:1] != (block.dtype.type(before) >> shift)
    return xp.concat([head, cells[1:] != cells[:-1]])


def _starts_block(block, first_row: int, shift, before):
    """Global rows (int64) where a cell starts in this chunk of sorted keys."""
    xp = array_namespace(block)
    return xp.astype(xp.nonzero(_boundary(block, shift, before))[0], xp.int64) + first_row


def _summary(block, shift):
    """``(rows, first key, last key, inner starts, first inner start)`` of a chunk of
    sorted keys, host ints (None for the keys of an empty chunk, and for the first inner
    start where there is none): what the client needs of the chunk to know its cells'
    count and first start (an inner start is a row after the chunk's first where a
    cell starts)."""
    m = int(block.shape[0])
    if m == 0:
        return 0, None, None, 0, None
    xp = array_namespace(block)
    cells = block >> block.dtype.type(shift)
    inner = xp.nonzero(cells[1:] != cells[:-1])[0]
    first = int(inner[0]) + 1 if inner.shape[0] else None
    return m, int(block[0]), int(block[-1]), int(inner.shape[0]), first


def _counts_block(block, first_row: int, shift, before, after: int):
    """Cell sizes of the cells starting in this chunk of sorted keys: differences of its
    starts (global rows) and ``after``, the first start after the chunk (or the number
    of keys)."""
    starts = _starts_block(block, first_row, shift, before)
    xp = array_namespace(starts)
    if starts.shape[0] == 0:
        return starts
    return xp.concat([xp.diff(starts), after - starts[-1:]])


def _graph(name, layer, dependencies):
    from dask.highlevelgraph import HighLevelGraph

    return HighLevelGraph.from_collections(name, layer, dependencies=dependencies)


def _before(info, i: int):
    """The key before chunk ``i``: the last key of the nearest non-empty chunk before it
    (None for none), from the chunks' summaries (:func:`_summary`)."""
    for j in range(i - 1, -1, -1):
        if info[j][2] is not None:
            return info[j][2]
    return None


def _starts_at_head(summary, before, shift: int) -> bool:
    """Whether a cell starts at the chunk's first row (``before``: the key before it)."""
    m, head = summary[:2]
    return m > 0 and (before is None or head >> shift != before >> shift)


def _after(info, i: int, n: int, offsets: tuple, shift: int) -> int:
    """The first row after chunk ``i`` where a cell starts (a global row), else ``n``:
    the chunks after it are read until one holds a start (the next one, but where a
    cell spans whole chunks)."""
    before = info[i][2] if info[i][2] is not None else _before(info, i)
    for j in range(i + 1, len(info)):
        m, head, last, _, first_inner = info[j]
        if _starts_at_head(info[j], before, shift):
            return offsets[j]
        if first_inner is not None:
            return offsets[j] + first_inner
        before = before if last is None else last
    return n


def _lengths(shift: int, *info) -> list:
    """Each chunk's count of cells (Python ints) from the chunks' summaries."""
    out, before = [], None
    for summary in info:
        out.append(summary[3] + int(_starts_at_head(summary, before, shift)))
        before = before if summary[2] is None else summary[2]
    return out


def _counts_of_summaries(block, i: int, n: int, offsets: tuple, shift: int, *info):
    """:func:`_counts_block` of chunk ``i`` (``block``), its key before and first start
    after found in the chunks' summaries (``info``, :func:`_summary`), returned once the
    device work queued before has ended (:func:`_synchronized`)."""
    return _synchronized(_counts_block(block, offsets[i], np.uint64(shift),
                                       _before(info, i), _after(info, i, n, offsets, shift)))


def _synchronized(counts):
    """``counts`` once the device work queued before has ended (a task ends when its
    kernels are queued): where every task shares one memory, a client that has every
    counts task's end has the device's (no round trip of its own to synchronize the
    workers)."""
    _backends.of_array(counts).synchronize()
    return counts


def _counts_synchronized(block, n: int, shift):
    """:func:`_counts_block` of keys in one chunk, once its device work has ended."""
    return _synchronized(_counts_block(block, 0, shift, None, n))


def synchronized(sorted_keys) -> bool:
    """Whether :func:`occupancy` of ``sorted_keys`` returns once the counts' device work
    has ended (one chunk, or every task in one memory: each counts task waits for it);
    else the caller synchronizes the workers."""
    return sorted_keys.numblocks[0] == 1 or _backends.of_array(sorted_keys).one_memory(
        sorted_keys)


def _rows(*chunks) -> int:
    return sum(int(c.shape[0]) for c in chunks)


def _scalar(name: str, layer: dict, dependencies: list, dtype):
    """A 0-d dask array of the Python value the task ``(name,)`` of ``layer`` gives. Not
    a ``Delayed``: ``dask.compute`` of ``Delayed`` objects beside arrays returned the
    results out of order (dask 2026.7.1 and 2026.8.0: grouped by kind; docs/dask.md)."""
    return da.Array(_graph(name, layer, dependencies), name, (), dtype=dtype,
                    meta=np.empty((), dtype=dtype))


def length(counts):
    """The number of rows of 1-D dask array ``counts``, a 0-d int64 dask array: one task
    reads its chunks' lengths where they are unknown (the occupancy in one memory or of
    keys in one chunk)."""
    name = f"rows-{tokenize(counts.name)}"
    if np.isnan(counts.shape[0]):
        layer = {(name,): (_rows,) + tuple(counts.__dask_keys__())}
        return _scalar(name, layer, [counts], np.int64)
    return _scalar(name, {(name,): int(counts.shape[0])}, [], np.int64)


def occupancy(sorted_keys, shift: int):
    """Points per occupied cell (int64, a persisted dask array) of the cells
    ``key >> shift`` of sorted keys: the run lengths in key order, from a summary task a
    chunk (:func:`_summary`) and a counts task a chunk. Its chunks' lengths are known on
    a cluster of several workers, not known (NaN) in one memory and for keys in one
    chunk, where :func:`length` gives its rows.

    Where every task shares one memory (dask's threads, a cluster of one worker:
    the dask backend's ``one_memory``), each counts task reads the
    summaries (a few ints each) and the summaries and the counts go in one submission;
    each counts task ends once the device work queued before it has (the client's wait
    for them is the wait for the device, and no task of their lengths after them, one
    more step, nor a round trip to read those). On a cluster of several workers the summaries come to the client instead
    (one round trip), which works out what each chunk needs and passes it to the chunk's
    task as constants: no task fetches another's result (tiny transfers between
    workers cost more than the round trip, docs/dask.md). Keys in one chunk need
    nothing of another: one counts task, no summary."""
    shift = int(shift)   # a NumPy integer too (uint64 keys shifted by an int64 fail)
    n = int(sorted_keys.shape[0])
    nb = sorted_keys.numblocks[0]
    keys = sorted_keys.__dask_keys__()
    offsets = tuple(int(v) for v in
                    np.concatenate([[0], np.cumsum(sorted_keys.chunks[0][:-1])]))
    token = tokenize(sorted_keys.name, shift)
    summary, counts = (f"occupancy-{s}-{token}" for s in ("summary", "counts"))
    layer = {(summary, i): (_summary, keys[i], shift) for i in range(nb)}
    meta = sorted_keys._meta.astype(np.int64)
    if nb == 1:   # nothing before or after the chunk: its counts, the device waited for
        layer = {(counts, 0): (_counts_synchronized, keys[0], n, np.uint64(shift))}
    elif not _backends.of_array(sorted_keys).one_memory(sorted_keys):
        info = dask.compute(*[_delayed(summary, i, _graph(summary, layer, [sorted_keys]))
                              for i in range(nb)])
        ushift = np.uint64(shift)
        layer = {(counts, i): (_counts_block, keys[i], offsets[i], ushift, _before(info, i),
                               _after(info, i, n, offsets, shift)) for i in range(nb)}
        arr = da.Array(_graph(counts, layer, [sorted_keys]), counts,
                       (tuple(_lengths(shift, *info)),), dtype=np.int64, meta=meta)
        return dask.persist(arr)[0]
    else:
        summaries = tuple((summary, i) for i in range(nb))
        layer.update({(counts, i): (_counts_of_summaries, keys[i], i, n, offsets, shift)
                      + summaries for i in range(nb)})
    arr = da.Array(_graph(counts, layer, [sorted_keys]), counts, ((np.nan,) * nb,),
                   dtype=np.int64, meta=meta)
    return dask.persist(arr, optimize_graph=False)[0]


def _sorted_block(block, before) -> bool:
    xp = array_namespace(block)
    if block.shape[0] == 0:
        return True
    head = True if before is None else bool(block.dtype.type(before) <= block[0])
    return head and bool(xp.all(block[:-1] <= block[1:]))


def sorted_across(keys):
    """Whether the keys never decrease (within and across chunks), a 0-d bool dask
    array; the last keys of the chunks come to the client first (one round trip)."""
    nb = keys.numblocks[0]
    kk = keys.__dask_keys__()
    befores = _befores(keys)
    token = tokenize(keys.name)
    ok, every = (f"sorted-{s}-{token}" for s in ("ok", "all"))
    layer = {(ok, i): (_sorted_block, kk[i], befores[i]) for i in range(nb)}
    layer[(every,)] = (all, [(ok, i) for i in range(nb)])
    return _scalar(every, layer, [keys], np.bool_)


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
    befores = _befores(sorted_keys)
    token = tokenize(sorted_keys.name, "runs")
    starts, heads = (f"runs-{s}-{token}" for s in ("starts", "heads"))
    zero = np.uint64(0)
    first = {(starts, i): (_starts_block, keys[i], int(offsets[i]), zero, befores[i])
             for i in range(nb)}
    unknown = ((np.nan,) * nb,)
    meta = sorted_keys._meta
    rows = da.Array(_graph(starts, first, [sorted_keys]), starts, unknown, dtype=np.int64,
                    meta=meta.astype(np.int64))
    layer = {(heads, i): (_heads_block, keys[i], (starts, i), int(offsets[i]))
             for i in range(nb)}
    return rows, da.Array(_graph(heads, layer, [rows, sorted_keys]), heads, unknown,
                          dtype=sorted_keys.dtype, meta=meta)
