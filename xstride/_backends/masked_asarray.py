"""``asarray`` of a ``numpy.ma`` masked array keeps its mask (NumPy and dask backends).

NumPy's ``asarray`` (and the dask backend's, which made a NumPy array of ``obj``
first) returned the data of a masked array alone: the masked elements became values,
where every other function of the namespace keeps the masks. Here a masked ``obj``
(:func:`masked_source`: a ``numpy.ma`` array, or on the NumPy backend a dask array of
masked chunks, computed) becomes a masked array (:func:`masked_asarray`) by the
standard's ``copy`` rules, the data's conversion NumPy's own (its checks of
``dtype``, ``device`` and ``copy=False``):

- no copy made (``copy`` None or False, ``dtype`` None or ``obj``'s): ``obj`` itself,
  as NumPy's ``asarray`` of a NumPy array returns it;
- a copy (``copy=True``, or another ``dtype``): the data converted, the mask copied
  beside it; the fill value ``obj``'s for its own dtype, else the new dtype's default
  (as the dask backend's ``astype`` of masked chunks: ``numpy.ma``'s cast of the fill
  value ``1e+20`` into an integer dtype warned).

The dask backend makes its blocks of the masked array so converted
(``dask.array.from_array`` keeps ``numpy.ma`` blocks). CuPy has no masked arrays: a
masked ``obj`` for CuPy chunks is refused (:func:`refuse_masked_chunks`).
"""

from __future__ import annotations

import sys

import numpy as np

from .._core.errors import type_error
from .dispatch import compat_function
from .registry import get

__all__ = ["masked_source", "masked_asarray", "refuse_masked_chunks"]


def masked_source(obj):
    """``obj`` where it is a ``numpy.ma`` masked array, a dask array of masked chunks
    computed into one, else None (``numpy.ma`` not imported: nothing is masked)."""
    ma = sys.modules.get("numpy.ma")
    if ma is None:
        return None
    if isinstance(obj, ma.MaskedArray):
        return obj
    dask = get("dask")
    if dask.owns(obj) and dask.mask_remedy(obj) is not None:
        out = dask.to_host(obj)
        return out if isinstance(out, ma.MaskedArray) else None
    return None


def masked_asarray(m, dtype=None, device=None, copy=None):
    """``asarray(m, dtype=dtype, device=device, copy=copy)`` of a masked NumPy array
    ``m``: a masked array, the mask kept (module docstring)."""
    ma = np.ma
    data = ma.getdata(m)
    out = compat_function("numpy", "asarray")(data, dtype=dtype, device=device, copy=copy)
    if out is data:   # nothing converted, nothing copied
        return m
    mask = ma.getmask(m)
    fill = m.fill_value if out.dtype == m.dtype else None
    return ma.masked_array(out, mask=ma.nomask if mask is ma.nomask else mask.copy(),
                           fill_value=fill)


def refuse_masked_chunks(func: str, obj, chunk_backend: str) -> None:
    """A ``TypeError`` naming ``obj`` of ``func``: a masked array for chunks of
    ``chunk_backend``, which has no masked arrays."""
    raise type_error(func, "obj", obj, f"an array without a mask ({chunk_backend} chunks carry no mask: "
                     "pass obj.filled(v), or use NumPy chunks)")
