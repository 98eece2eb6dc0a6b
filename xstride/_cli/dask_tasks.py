"""Per-chunk tasks of the dask demo (:mod:`.dask_demo`): few tasks per chunk, each on
the chunk's own backend, so a stage costs its work and not dask's bookkeeping.

- :func:`bounding_box`: one task per row block gives the block's per-axis minimum and
  maximum (float64, on the host); the client reduces the ``2 * P`` rows. Min and max
  are exact, so the box equals the NumPy backend's ``xp.min``/``xp.max`` (NaN
  propagates as there).
- :func:`occupancy`: the run lengths of the level-``k`` cells of sorted keys. Each
  chunk needs the cell of the row before it (the last row of the nearest non-empty
  chunk before it) and the first cell start after it: two chains of one tiny task per
  chunk carry them, so no chunk is cut, rechunked or sent to the client; one task per
  chunk then writes its counts.
- :func:`sorted_across`: whether sorted keys never decrease, per chunk and across
  chunk boundaries (the same chain of last keys).
"""

from __future__ import annotations

import dask
import dask.array as da
import numpy as np
from array_api_compat import array_namespace

import xstride

__all__ = ["bounding_box", "occupancy", "sorted_across"]

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
def _last(block, before):
    """The last key of ``block``, or ``before`` (the last key of an earlier chunk) when
    the block is empty; a 1-element array of the block's backend, or None."""
    return block[-1:] if block.shape[0] else before


def _lasts(keys) -> list:
    """For chunk ``i``, a delayed last key of the chunks before it (None for the first)."""
    blocks = keys.to_delayed().ravel()
    before, out = None, []
    for b in blocks:
        out.append(before)
        before = dask.delayed(_last, pure=True)(b, before)
    return out, blocks


def _starts_block(block, before, first_row: int, shift):
    """Global rows (int64) where a cell starts in this chunk of sorted keys."""
    xp = array_namespace(block)
    cells = block >> xp.asarray(shift, dtype=block.dtype)
    if before is None:
        prev = cells[:1] ^ xp.asarray(1, dtype=cells.dtype)   # row 0 of all starts a cell
    else:
        prev = before >> xp.asarray(shift, dtype=block.dtype)
    boundary = cells != xp.concat([prev, cells[:-1]])
    return xp.astype(xp.nonzero(boundary)[0], xp.int64) + xp.asarray(first_row, dtype=xp.int64)


def _first_after(starts, after):
    """The first start of ``starts`` or, when it has none, ``after`` (the next chunk's)."""
    return starts[:1] if starts.shape[0] else after


def _counts_block(starts, after):
    """Cell sizes of the cells starting in this chunk: differences of the starts and
    the first start after the chunk (a 1-element array)."""
    xp = array_namespace(starts)
    # ``after`` is the host array [n] for the chunks that no start follows
    return xp.diff(xp.concat([starts, xp.asarray(after)]))


def _length(block) -> int:
    return int(block.shape[0])


def occupancy(sorted_keys, shift: int):
    """Points per occupied cell (int64, a persisted dask array of known chunks) of the
    cells ``key >> shift`` of sorted keys: the run lengths in key order."""
    n = int(sorted_keys.shape[0])
    before, blocks = _lasts(sorted_keys)
    offsets = np.concatenate([[0], np.cumsum(sorted_keys.chunks[0][:-1])]).astype(int)
    shift = np.uint64(shift)
    starts = [dask.delayed(_starts_block, pure=True)(b, p, int(o), shift)
              for b, p, o in zip(blocks, before, offsets)]
    after, nxt = [None] * len(starts), np.array([n], dtype=np.int64)
    for i in range(len(starts) - 1, -1, -1):
        after[i] = nxt
        nxt = dask.delayed(_first_after, pure=True)(starts[i], nxt)
    counts = [dask.delayed(_counts_block, pure=True)(s, a) for s, a in zip(starts, after)]
    counts = dask.persist(*counts)
    sizes = dask.compute(*[dask.delayed(_length, pure=True)(c) for c in counts])
    meta = sorted_keys._meta.astype(np.int64)
    parts = [da.from_delayed(c, shape=(m,), dtype=np.int64, meta=meta)
             for c, m in zip(counts, sizes)]
    return dask.persist(da.concatenate(parts) if len(parts) > 1 else parts[0])[0]


def _sorted_block(block, before) -> bool:
    xp = array_namespace(block)
    if block.shape[0] == 0:
        return True
    prev = block[:1] if before is None else before
    return bool(xp.all(xp.concat([prev, block[:-1]]) <= block))


def sorted_across(keys):
    """A delayed bool: the keys never decrease (within and across chunks)."""
    before, blocks = _lasts(keys)
    return dask.delayed(all)([dask.delayed(_sorted_block, pure=True)(b, p)
                              for b, p in zip(blocks, before)])
