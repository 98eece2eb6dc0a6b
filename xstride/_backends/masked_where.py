"""``where`` of ``numpy.ma`` masked operands on the NumPy and dask backends.

NumPy's ``where`` returns a plain array of the operands' data: of masked operands the
masks were dropped and the elements under them shown as values (dask's ``where`` calls
it per block: the same). Where ``condition``, ``x1`` or ``x2`` is a ``numpy.ma`` masked
array (on dask, an array of masked chunks), :func:`masked_where` selects by
``numpy.ma.where``'s rule (per block on dask): each element keeps the mask of the
operand it comes from, and a masked ``condition`` masks the result, as ``numpy.ma``
does. The data and its dtype are NumPy's ``where`` of the operands' data (a Python
scalar stays weak: ``numpy.ma.where`` made ``where(c, float32_masked, 2.0)`` float64).
"""

from __future__ import annotations

import sys

import numpy as np

__all__ = ["masked_where", "where_block"]


def _masked(ma, v) -> bool:
    """Whether ``v`` is a masked NumPy array or a dask array of masked chunks."""
    return isinstance(v, ma.MaskedArray) or isinstance(getattr(v, "_meta", None),
                                                        ma.MaskedArray)


def masked_where(condition, x1, x2):
    """``where(condition, x1, x2)`` with ``numpy.ma``'s masks (per block where one
    operand is a dask array) where an operand is masked; None otherwise (the library's
    ``where`` runs)."""
    ma = sys.modules.get("numpy.ma")   # not imported: nothing is masked
    if ma is None or not (_masked(ma, condition) or _masked(ma, x1) or _masked(ma, x2)):
        return None
    da = sys.modules.get("dask.array")
    if da is not None and any(isinstance(v, da.Array) for v in (condition, x1, x2)):
        return da.core.elemwise(where_block, condition, x1, x2)
    return where_block(condition, x1, x2)


def where_block(condition, x1, x2):
    """``where`` of NumPy values (masked or not, or Python scalars), ``numpy.ma``'s masks."""
    ma = sys.modules["numpy.ma"]
    data = [ma.getdata(v) if isinstance(v, ma.MaskedArray) else v
            for v in (condition, x1, x2)]
    out = np.where(*data)
    picked = np.where(ma.filled(condition, False), ma.getmaskarray(x1), ma.getmaskarray(x2))
    mask = np.broadcast_to(picked | ma.getmaskarray(condition), out.shape)
    return ma.masked_array(out, mask=mask)
