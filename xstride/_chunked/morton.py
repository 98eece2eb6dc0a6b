"""Morton keys on dask arrays: each row block runs its own backend's Morton executor.

Arguments arrive checked by :mod:`xstride.algorithms`; the box (``lower``, ``scales``)
is a pair of host float64 vectors, the same for every block, so a key depends only on
its row and any chunking gives the NumPy backend's keys. (``morton_keys`` takes the
box as arguments; a caller that wants the points' own bounding box computes it first
with ``xp.min``/``xp.max``, dask reductions.)

A NaN or infinite coordinate is found by the block that holds it, when the graph is
computed: the ``ValueError`` then names the global row (the block's offset from
dask's ``block_info`` plus the row in the block).
"""

from __future__ import annotations

import dask.array as da
import numpy as np

from .._core.errors import value_error
from . import _config
from .chunks import without_empty_chunks

__all__ = ["checked_keys", "encode", "decode"]


def _keys_block(pos, lower, scales, levels, block_info=None):
    ex = _config.executor_of("morton", pos)
    keys, bad = ex.checked_keys(pos, lower, scales, levels)
    if bad >= 0:
        info = block_info[0]
        start = info["array-location"][0][0]
        if start == start:   # the block's first global row
            where = f"row {int(start) + bad}"
        else:   # NaN: the lengths of the blocks before it are unknown (boolean indexing)
            where = (f"row {bad} of row block {info['chunk-location'][0]} (dask does not "
                     "know the lengths of the blocks before it; positions."
                     "compute_chunk_sizes() first gives the global row)")
        values = np.asarray(_config.to_host(pos[bad])).tolist()
        raise value_error("morton_keys", "positions",
                          f"has a NaN or infinite coordinate in {where} ({values}); "
                          "Morton keys need finite positions")
    return keys


def checked_keys(positions, lower, scales, levels: int):
    """``(keys, -1)``: uint64 keys (n,) of positions (n, ndim) as a dask array, chunked
    like the rows of ``positions``. Non-finite rows raise when the keys are computed."""
    pos = without_empty_chunks(positions).rechunk({1: -1})  # a block holds whole rows
    meta = pos._meta.astype(np.uint64).reshape((0,))
    keys = da.map_blocks(_keys_block, pos, lower, scales, levels, drop_axis=1,
                         dtype=np.uint64, meta=meta)
    return keys, -1


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
