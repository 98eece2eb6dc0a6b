"""``take`` by ``numpy.ma`` masked indices, one answer on the NumPy and dask backends.

``numpy.ma``'s ``take`` masks the elements taken by a masked index (the index under the
mask is read, but its element masked). The NumPy backend's ``take`` of a masked ``x``
did so; of a plain ``x`` NumPy's checks read the index under the mask (an
``IndexError`` for a masked 40), and dask's gather read it as an index, the element
shown unmasked (or failed when computed: "index 0 is out of bounds for axis 1 with size
0"). Here (:func:`masked_take`) a masked ``indices`` (on dask, of masked chunks) is
filled with 0 and the elements it took are masked, on both backends, whether ``x`` is
masked or not; an index under the mask is never read.
"""

from __future__ import annotations

import sys

__all__ = ["masked_take"]


def masked_take(take, x, indices, axis):
    """``take(x, filled indices, axis=axis)`` with the elements of masked indices
    masked, where ``indices`` (1-D) is masked; None where it is not."""
    ma = sys.modules.get("numpy.ma")   # not imported: nothing is masked
    if ma is None:
        return None
    if isinstance(indices, ma.MaskedArray):
        lib = ma
    elif isinstance(getattr(indices, "_meta", None), ma.MaskedArray):
        import dask.array as da

        lib = da.ma
    else:
        return None
    if getattr(indices, "ndim", 1) != 1 or getattr(x, "ndim", 0) == 0:
        return None   # the backend's own checks refuse these
    missing = lib.getmaskarray(indices)
    res = take(x, lib.filled(indices, 0), axis=axis)
    ax = 0 if axis is None else int(axis) % x.ndim
    missing = missing.reshape((1,) * ax + (-1,) + (1,) * (x.ndim - ax - 1))
    return lib.masked_array(lib.getdata(res), mask=lib.getmaskarray(res) | missing)
