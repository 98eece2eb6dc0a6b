"""``sort`` and ``argsort`` of ``numpy.ma`` masked arrays: the masked elements last in
both directions (NumPy, and dask of masked chunks per block).

``numpy.ma`` sorts a masked element as the largest value (its data filled with NaN, or
the dtype's largest value): last ascending, among the NaNs and the largest values by
their index, and the descending sort, the ascending order reversed, put them first.
A masked element is a missing value, whatever the direction: here (as pandas and
Arrow place missing values by default) the masked elements come last in either
direction, after every value, NaNs included, in their order along the axis; the
elements that are not masked are in the order of the namespace's sort of a plain
array (NaNs last, and first with ``descending=True``; equal elements in their order).
:func:`masked_argsort` gives the indices (a plain integer array, as ``numpy.ma``'s),
:func:`masked_sort` the sorted masked array, its fill value ``x``'s; on dask
:func:`masked_sort_blocks` runs them per block, the sorted axis in one chunk.
"""

from __future__ import annotations

import numpy as np

from .dispatch import compat_function

__all__ = ["masked_argsort", "masked_sort", "masked_sort_blocks"]


def masked_argsort(x, axis: int, descending: bool, stable: bool):
    """The indices that sort a masked NumPy ``x`` (at least 1-D, ``axis`` checked) along
    ``axis``: the unmasked elements by the namespace's order, then the masked ones."""
    mask = np.ma.getmaskarray(x)
    # one value under every mask: the masked elements stay in their order (stable)
    data = np.where(mask, np.zeros((), x.dtype), np.ma.getdata(x))
    order = compat_function("numpy", "argsort")(data, axis=axis, descending=descending,
                                                stable=stable)
    last = np.argsort(np.take_along_axis(mask, order, axis=axis), axis=axis, kind="stable")
    return np.take_along_axis(order, last, axis=axis)


def masked_sort(x, axis: int, descending: bool, stable: bool):
    """``x`` (a masked NumPy array) sorted along ``axis``, its masked elements last."""
    order = masked_argsort(x, axis, descending, stable)
    return np.ma.masked_array(np.take_along_axis(np.ma.getdata(x), order, axis=axis),
                              mask=np.take_along_axis(np.ma.getmaskarray(x), order,
                                                      axis=axis),
                              fill_value=x.fill_value)


def _block(block, axis, descending, stable, indices):
    if not isinstance(block, np.ma.MaskedArray):   # a plain block among masked ones
        block = np.ma.masked_array(block)
    if indices:
        return masked_argsort(block, axis, descending, stable)
    return masked_sort(block, axis, descending, stable)


def masked_sort_blocks(x, axis: int, descending: bool, stable: bool, indices: bool):
    """``sort`` (``argsort`` where ``indices``) of a dask array ``x`` of masked chunks
    along ``axis`` (checked; of known length, or ``x`` 1-D in one block) per block."""
    axis %= x.ndim
    if x.numblocks[axis] > 1:
        x = x.rechunk({axis: -1})
    dtype = np.dtype(np.intp) if indices else x.dtype
    meta = np.empty((0,) * x.ndim, dtype)
    return x.map_blocks(_block, axis, descending, stable, indices, dtype=dtype,
                        meta=meta if indices else np.ma.masked_array(meta))
