"""``flip`` of a dask array along axes whose block lengths dask does not know (after
boolean indexing): dask's slice ``x[::-1]`` needs those lengths and raised "Arrays
chunk sizes are unknown". Reversing an axis is reversing the order of its blocks and
each block along it, which needs no length: one ``blocks`` selection and one
``map_blocks``, nothing computed. The caller takes it for axes of one block only: along
several, the reversed blocks' lengths are ``x``'s reversed, and dask, which knows
neither, pairs them with ``x``'s by position (``x + flip(x)`` was wrong)."""

from __future__ import annotations

import math

__all__ = ["flip_unknown"]


def _unknown(n) -> bool:
    return isinstance(n, float) and math.isnan(n)


def _flip_block(block, axes):
    index = tuple(slice(None, None, -1) if a in axes else slice(None)
                  for a in range(block.ndim))
    return block[index]


def flip_unknown(x, axes: tuple, flip):
    """``x`` flipped along ``axes`` (normalized, distinct); the axes of unknown length
    by their blocks, the others by ``flip`` (the namespace's own)."""
    lost = tuple(a for a in axes if _unknown(x.shape[a]))
    known = tuple(a for a in axes if a not in lost)
    if lost:
        order = tuple(slice(None, None, -1) if a in lost else slice(None)
                      for a in range(x.ndim))
        x = x.blocks[order].map_blocks(_flip_block, lost, dtype=x.dtype)
    return flip(x, axis=known) if known else x
