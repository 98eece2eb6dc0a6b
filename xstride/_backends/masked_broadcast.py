"""``broadcast_to`` of ``numpy.ma`` masked arrays keeps the mask (NumPy and dask).

NumPy's ``broadcast_to`` (``subok=False``) returns a view of the data alone: of a
masked array the mask was dropped and the elements under it shown as values; dask's
calls it per block, the same. Here a masked ``x`` (on dask, an array of masked chunks)
has its data and its mask broadcast alike, by the backend's own ``broadcast_to`` (its
checks of ``shape`` first), and joined into a masked array (on dask per block, by
``dask.array.ma``), as ``numpy.ma`` broadcasts both in its arithmetic.
"""

from __future__ import annotations

import sys

from .arg_checks import broadcast_to as _numpy_broadcast_to
from .dask_fixes import broadcast_to as _dask_broadcast_to
from .dispatch import register

__all__ = ["masked_broadcast_to"]


def masked_broadcast_to(plain, x, shape):
    """``plain(x, shape)`` (a backend's ``broadcast_to``), the mask of a masked ``x``
    broadcast beside its data."""
    ma = sys.modules.get("numpy.ma")   # not imported: nothing is masked
    if ma is not None and isinstance(x, ma.MaskedArray):
        return ma.masked_array(plain(ma.getdata(x), shape),
                               mask=plain(ma.getmaskarray(x), shape))
    if ma is not None and isinstance(getattr(x, "_meta", None), ma.MaskedArray):
        import dask.array as da

        return da.ma.masked_array(plain(da.ma.getdata(x), shape),
                                  mask=plain(da.ma.getmaskarray(x), shape))
    return plain(x, shape)


def _of(plain):
    def broadcast_to(x, /, shape):
        return masked_broadcast_to(plain, x, shape)

    broadcast_to.__doc__ = plain.__doc__ + "\n\n    A masked ``x`` keeps its mask."
    return broadcast_to


register("broadcast_to", "numpy")(_of(_numpy_broadcast_to))
register("broadcast_to", "dask")(_of(_dask_broadcast_to))
