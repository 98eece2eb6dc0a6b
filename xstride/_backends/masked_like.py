"""``empty_like``, ``zeros_like``, ``ones_like`` and ``full_like`` of a dask array of
``numpy.ma`` masked chunks, as NumPy's of a masked array.

NumPy's ``zeros_like`` (and ``ones_like``, ``empty_like``, ``full_like``) of a
``numpy.ma`` masked array ``x`` is a masked array: the new values (``empty_like``:
any), ``x``'s mask copied (the result's own, not a view of ``x``'s), ``x``'s fill value
(into the result's dtype, as ``numpy.ma`` casts it); with a ``shape=`` of another size
than ``x``'s no element is masked (of ``x``'s size, ``x``'s mask reshaped in C order).
dask's functions gave plain NumPy chunks under a masked meta: the mask dropped, so the
two backends disagreed. Here (:func:`masked_like`) each block of ``x`` becomes NumPy's
function of it (``map_blocks``: the result depends on ``x``, whose mask it copies);
with a ``shape=`` of another size, dask's array of that shape with each block NumPy's
function of ``x``'s meta (a masked array of no element with ``x``'s fill value) of the
block's shape: a masked array without a masked element.
"""

from __future__ import annotations

import functools
import math
import sys

import numpy as np

__all__ = ["masked_chunks", "masked_like"]


def masked_chunks(x) -> bool:
    """Whether ``x`` is a dask array of ``numpy.ma`` masked chunks (its meta masked)."""
    ma = sys.modules.get("numpy.ma")   # not imported: nothing is masked
    return (ma is not None and isinstance(getattr(x, "_meta", None), ma.MaskedArray)
            and hasattr(x, "map_blocks"))


def _call(name: str, like, dtype, fill, **kwargs):
    """NumPy's ``name`` (``zeros_like``, ...) of ``like``; ``fill`` a 1-tuple for
    ``full_like``'s ``fill_value``, else empty."""
    return getattr(np, name)(like, *fill, dtype=dtype, **kwargs)


def _like_block(block, name, dtype, fill, order):
    """NumPy's ``name`` of one block of ``x``: its mask copied."""
    return _call(name, block, dtype, fill, order=order)


def _shaped_block(block, name, template, dtype, fill, order):
    """NumPy's ``name`` of ``template`` (``x``'s meta) with ``block``'s shape."""
    return _call(name, template, dtype, fill, order=order, shape=block.shape)


def masked_like(name: str, x, dtype, fill=(), *, chunks=None, shape=None, order="K",
                plain=None):
    """``name(x, *fill, dtype=dtype, chunks=chunks, shape=shape, order=order)`` of a
    dask array ``x`` of masked chunks (:func:`masked_chunks`), as NumPy's of a masked
    array (module docstring; ``order``: each block's, NumPy's keyword). ``plain``:
    dask's function, called with ``shape=`` of another size (``plain(x, *fill, dtype=dtype,
    shape=shape, chunks=chunks)``)."""
    ma = np.ma
    dt = x.dtype if dtype is None else np.dtype(dtype)
    if shape is not None:
        shape = tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)
    meta = ma.masked_array(np.empty((0,) * (x.ndim if shape is None else len(shape)), dt))
    if shape is None or math.prod(shape) == x.size:
        # dask's reshape splits and merges axes only: flattened first
        src = x if shape is None or shape == x.shape else x.reshape(-1).reshape(shape)
        if chunks is not None:
            src = src.rechunk(chunks)
        block_fn = functools.partial(_like_block, name=name, dtype=dt, fill=tuple(fill),
                                     order=order)
        return src.map_blocks(block_fn, dtype=dt, meta=meta)
    base = plain(x, *fill, dtype=dt, shape=shape, chunks=chunks)
    block_fn = functools.partial(_shaped_block, name=name, template=x._meta, dtype=dt,
                                 fill=tuple(fill), order=order)
    return base.map_blocks(block_fn, dtype=dt, meta=meta)
