"""``astype`` (and ``abs`` of complex data) of a dask array of ``numpy.ma`` masked
chunks, without the fill value's warning.

The blocks of such an array carry a fill value (dask's slicing sets ``numpy.ma``'s
default, ``1e+20`` for floats), and ``numpy.ma``'s ``astype`` casts it into the new
dtype: a float array cast to an integer dtype warned "RuntimeWarning: invalid value
encountered in cast" once a block when computed, of no element (the NumPy backend's
``astype`` of the same array, whose fill value is not set, warned nothing). Here
(:func:`masked_astype`) each block's data is cast and its mask kept, the fill value
the new dtype's default, as the NumPy backend's result has; a cast of the data
itself (a NaN into an integer dtype) warns as NumPy's does.

``abs`` of complex masked blocks keeps their complex fill value on its real result, and
dask's join of the blocks sets the first one's on the whole: "ComplexWarning: Casting
complex values to real discards the imaginary part" when computed (NumPy's ``abs`` of
one masked array warns nothing). :func:`masked_abs_of` wraps ``abs`` so that each
block's result has the real dtype's default fill value.
"""

from __future__ import annotations

import sys

import numpy as np

__all__ = ["masked_astype", "masked_abs_of"]


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


def _abs_block(block):
    """``abs`` of a block, a masked one's result with a fill value of its own dtype."""
    out = np.abs(block)
    if isinstance(out, np.ma.MaskedArray):
        return np.ma.masked_array(np.ma.getdata(out), mask=np.ma.getmaskarray(out))
    return out


def masked_abs_of(library_abs):
    """``abs(x, out=None)``: of a dask array of complex masked chunks per block by
    :func:`_abs_block`; any other call ``library_abs``'s."""
    def abs(x, /, *, out=None):   # noqa: A001  (the standard's name)
        ma = sys.modules.get("numpy.ma")   # not imported: nothing is masked
        meta = getattr(x, "_meta", None)
        if (out is None and ma is not None and isinstance(meta, ma.MaskedArray)
                and meta.dtype.kind == "c" and hasattr(x, "map_blocks")):
            real = np.abs(np.ma.getdata(meta)).dtype
            return x.map_blocks(_abs_block, dtype=real,
                                meta=ma.masked_array(np.empty((0,) * x.ndim, real)))
        return library_abs(x, out=out)
    abs.__module__ = library_abs.__module__   # the elementwise function it wraps
    return abs
