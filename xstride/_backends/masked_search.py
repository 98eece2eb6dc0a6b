"""``searchsorted`` of ``numpy.ma`` masked arguments, one rule for the NumPy and dask
backends.

NumPy's ``searchsorted`` (``numpy.ma`` has none of its own) and dask's read the data
under the masks: a masked element of ``x1`` was searched as a value (of a masked array
sorted by ``numpy.ma``, its masked elements last, the data under them in no order),
and a masked element of ``x2`` got an index of its data, unmasked. Here
(:func:`masked_searchsorted`) a masked ``x1`` (on dask, of masked chunks) is a
``TypeError`` naming it and what to pass, and a masked ``x2``'s indices keep its mask
(the data under it searched, its answer masked), as the elementwise functions keep it.
"""

from __future__ import annotations

import sys

from .._core.errors import type_error

__all__ = ["masked_searchsorted"]

#: What to pass instead of a masked ``x1``, by backend.
_REMEDY = {"numpy": "x1.compressed() (its elements not masked) or x1.filled(v)",
           "dask": "dask.array.ma.filled(x1, v), or compute it and pass its compressed()"}


def masked_searchsorted(search, x1, x2, side, sorter, backend: str):
    """``search(x1, x2's data, ...)`` with ``x2``'s mask where ``x2`` is masked; a
    ``TypeError`` for a masked ``x1``; None where neither is masked."""
    ma = sys.modules.get("numpy.ma")   # not imported: nothing is masked
    if ma is None:
        return None

    def masked(v):
        return isinstance(v, ma.MaskedArray) or isinstance(getattr(v, "_meta", None),
                                                            ma.MaskedArray)
    if masked(x1):
        raise type_error("searchsorted", "x1", x1, "an array without a mask (the data "
                                                   "under it would be searched): pass "
                                                   + _REMEDY[backend])
    if not masked(x2):
        return None
    if not isinstance(x2, ma.MaskedArray):
        import dask.array as da

        ma = da.ma
    res = search(x1, ma.getdata(x2), side=side, sorter=sorter)
    return ma.masked_array(res, mask=ma.getmaskarray(x2))
