"""Morton keys on dask arrays: each row block runs its own backend's Morton executor.

Arguments arrive checked by :mod:`xstride.algorithms`; the box (``lower``, ``scales``)
is a pair of host float64 vectors, the same for every block, so a key depends only on
its row and any chunking gives the NumPy backend's keys. (``morton_keys`` takes the
box as arguments; a caller that wants the points' own bounding box computes it first
with ``xp.min``/``xp.max``, dask reductions; :func:`keys_in_box` takes the box as a
task of the graph instead, whose value the client never holds.)

A NaN or infinite coordinate is found by the block that holds it, when the graph is
computed; the ``ValueError`` names the first bad row of the whole array, as the NumPy
backend's does, whatever the chunking and the order the blocks run in: each block's
keys pass through a task that also reads a chain of small tasks carrying the row count
and the first bad row of the blocks before it (not the keys), so a block raises the
first bad row among the blocks before it and itself, and no later block can hold an
earlier row. (Before, each block raised its own first bad row: row 17 or row 13 of
the same points by the chunking, and by the scheduler's order.) The chain counts the
rows the blocks hold, so the row is global even where dask does not know the blocks'
lengths (after boolean indexing). Computing the last blocks alone computes the keys
of the blocks before them too.

Each link of the chain reads its block's result where it lies (dask runs a task where
its largest input is: the keys stay put, only the link's two ints and row travel), and
a block's keys wait for the link before them, not their own: the last block's keys are
``P + 1`` tasks deep, not ``2 P + 2`` (with one worker each dependent step costs a
few milliseconds of the scheduler's batched messages, docs/performance.md, "The dask
pipeline's steps on one GPU"). Positions in one block need no chain: their keys are
one task.
"""

from __future__ import annotations

import operator

import dask.array as da
import numpy as np
from dask.base import tokenize
from dask.highlevelgraph import HighLevelGraph

from .._core.errors import value_error
from . import _config
from .chunks import without_empty_chunks

__all__ = ["checked_keys", "keys_in_box", "encode", "decode"]


def _keys_and_bad(pos, lower, scales, levels):
    """``(keys or None, rows, bad, values)`` of one row block: its first bad row in the
    block (-1 for none) and that row's coordinates (host floats)."""
    ex = _config.executor_of("morton", pos)
    keys, bad = ex.checked_keys(pos, lower, scales, levels)
    values = np.asarray(_config.to_host(pos[bad])).tolist() if bad >= 0 else None
    return keys, int(pos.shape[0]), int(bad), values


def _first_bad(before, block):
    """``(rows, first)`` after one more block: the rows counted so far and the first bad
    row ``(global row, values)`` among them, or None (``block`` as
    :func:`_keys_and_bad` returns it; its keys are not read)."""
    rows, first = before
    m, bad, values = block[1:]
    if first is None and bad >= 0:
        first = (rows + bad, values)
    return rows + m, first


def _keys_or_raise(block, before):
    """The keys of ``block``, or the error of the first bad row among the blocks before
    it (``before``, the chain's link) and itself."""
    first = _first_bad(before, block)[1]
    if first is not None:
        row, values = first
        raise value_error("morton_keys", "positions",
                          f"has a NaN or infinite coordinate in row {row} ({values}); "
                          "Morton keys need finite positions")
    return block[0]


def checked_keys(positions, lower, scales, levels: int):
    """``(keys, -1)``: uint64 keys (n,) of positions (n, ndim) as a dask array, chunked
    like the rows of ``positions``. Non-finite rows raise when the keys are computed,
    naming the first of the whole array (module docstring)."""
    return _keys(positions, lower, scales, levels, None), -1


def keys_in_box(positions, box, levels: int):
    """uint64 keys (n,) of positions (n, ndim), as :func:`checked_keys` gives them, of
    a box the graph computes: ``box`` is a ``dask.delayed.Delayed`` whose value is the
    pair ``(lower, scales)`` of host float64 vectors (ndim,). Each block's keys task
    reads the pair where it lies: the client never holds the box, and the keys' tasks
    go in one submission with the box's (a program that computes once at the end does
    not wait for it)."""
    key = box.key
    pair = ((operator.getitem, key, 0), (operator.getitem, key, 1))
    return _keys(positions, *pair, levels, box)


def _keys(positions, lower, scales, levels: int, box):
    """The keys' graph: ``lower`` and ``scales`` are host vectors, or (with ``box``,
    the collection that computes them) tasks that read them from ``box``'s key."""
    pos = without_empty_chunks(positions).rechunk({1: -1})  # a block holds whole rows
    token = tokenize(pos.name, lower, scales, levels)
    block, chain, out = (f"morton-keys-{step}-{token}" for step in ("block", "chain", "out"))
    dsk = {}
    before = (0, None)   # no row yet
    rows = pos.__dask_keys__()
    if len(rows) == 1:   # no link to wait for or to make: the keys in one task
        dsk[(out, 0)] = (_keys_or_raise, (_keys_and_bad, rows[0][0], lower, scales, levels),
                         before)
        rows = []
    for i, row in enumerate(rows):
        dsk[(block, i)] = (_keys_and_bad, row[0], lower, scales, levels)
        dsk[(out, i)] = (_keys_or_raise, (block, i), before)
        dsk[(chain, i)] = (_first_bad, before, (block, i))
        before = (chain, i)
    graph = HighLevelGraph.from_collections(
        out, dsk, dependencies=[pos] if box is None else [pos, box])
    meta = pos._meta.astype(np.uint64).reshape((0,))
    return da.Array(graph, out, (pos.chunks[0],), dtype=np.uint64, meta=meta)


def _encode_block(*cells):
    return _config.executor_of("morton", cells[0]).encode(list(cells))


def encode(cells):
    """Keys of checked integer cell arrays (dask, broadcast to one shape)."""
    cells = [without_empty_chunks(c) for c in cells]
    meta = cells[0]._meta.astype(np.uint64)
    return da.map_blocks(_encode_block, *cells, dtype=np.uint64, meta=meta)


def _decode_block(keys, ndim):
    return _config.executor_of("morton", keys).decode(keys, ndim)


def decode(keys_u64, ndim: int):
    """Cells (n, ndim) uint64 of 1-D uint64 keys (a dask array)."""
    keys_u64 = without_empty_chunks(keys_u64)
    meta = keys_u64._meta.astype(np.uint64).reshape((0, 0))
    return da.map_blocks(_decode_block, keys_u64, ndim, new_axis=1,
                         chunks=keys_u64.chunks + ((ndim,),), dtype=np.uint64, meta=meta)
