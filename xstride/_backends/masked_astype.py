"""``astype`` of a dask array of ``numpy.ma`` masked chunks, without the fill value's
warning.

The blocks of such an array carry a fill value (dask's slicing sets ``numpy.ma``'s
default, ``1e+20`` for floats), and ``numpy.ma``'s ``astype`` casts it into the new
dtype: a float array cast to an integer dtype warned "RuntimeWarning: invalid value
encountered in cast" once a block when computed, of no element (the NumPy backend's
``astype`` of the same array, whose fill value is not set, warned nothing). Here
(:func:`masked_astype`) each block's data is cast and its mask kept, the fill value
the new dtype's default, as the NumPy backend's result has; a cast of the data
itself (a NaN into an integer dtype) warns as NumPy's does.
"""

from __future__ import annotations

import sys

import numpy as np

__all__ = ["masked_astype"]


def _astype_block(block, dtype):
    """A block cast into ``dtype``: a masked block's data cast, its mask kept."""
    if isinstance(block, np.ma.MaskedArray):
        return np.ma.masked_array(np.ma.getdata(block).astype(dtype),
                                  mask=np.ma.getmaskarray(block))
    return block.astype(dtype)


def masked_astype(x, dtype: np.dtype, copy: bool):
    """``x`` (a dask array of masked chunks) cast into ``dtype`` per block; None for any
    other ``x``, or where nothing is cast (``copy=False`` of ``x``'s dtype)."""
    ma = sys.modules.get("numpy.ma")   # not imported: nothing is masked
    meta = getattr(x, "_meta", None)
    if ma is None or not isinstance(meta, ma.MaskedArray) or not hasattr(x, "map_blocks"):
        return None
    if x.dtype == dtype and not copy:
        return None
    return x.map_blocks(_astype_block, dtype, dtype=dtype,
                        meta=ma.masked_array(np.empty((0,) * x.ndim, dtype)))
