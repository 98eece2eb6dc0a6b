"""A dask result in the dtype of its input where that dtype is of a non-native byte order.

NumPy's functions that move elements (``repeat``, ``tile``, ``roll``, ``unique``) keep
a big-endian ``x``'s dtype (``>i4`` on a little-endian host); dask's build theirs with
``concatenate``, whose result dtype is NumPy's promotion, native: the dask backend's
``repeat``, ``tile`` and ``roll`` of a ``>i4`` array were ``int32``, and its ``unique`` computed
native blocks (declaring ``>i4`` for integers, so the array computed to another dtype
than it declared). :func:`in_dtype` casts each block back when computed; arrays of a
native dtype pass unchanged (no layer added).
"""

from __future__ import annotations

import numpy as np

__all__ = ["in_dtype"]


def _block_as(block, dt):
    return block.astype(dt, copy=False)


def in_dtype(result, dt):
    """Dask array ``result`` (elements of an array of dtype ``dt``) declared and computed
    in ``dt`` where ``dt`` is a NumPy dtype of a non-native byte order; else ``result``."""
    if not isinstance(dt, np.dtype) or dt.isnative:
        return result
    return result.map_blocks(_block_as, dt, dtype=dt)
