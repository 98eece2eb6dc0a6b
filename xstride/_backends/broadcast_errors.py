"""An elementwise function's operands whose shapes do not broadcast together: one text
on every backend.

The CuPy backend's elementwise engine raises xstride's ``broadcast_error`` ("add: shapes
(2, 3) and (2, 2) cannot be broadcast together", ``_plans/elementwise.py``), and so does
every backend's call with ``out=``; a call without ``out=`` on the NumPy backend raised
NumPy's "operands could not be broadcast together with shapes (2,3) (2,2) " and on the
dask backend dask's "... with shapes (2, 3) (2, 2)". :func:`broadcast_shape_error` gives
xstride's error for those, from the operands' shapes; the dispatch calls it on the
library's error path only (no cost to a good call).
"""

from __future__ import annotations

import numpy as np

from .._core.errors import broadcast_error
from .no_array import operand_names

__all__ = ["broadcast_shape_error"]

#: NumPy's and dask's text of operands that do not broadcast (not NumPy's "remapped
#: shapes" of an output or of ``broadcast_to``, which name other shapes).
_NOT_TOGETHER = "operands could not be broadcast together with shapes"


def broadcast_shape_error(exc: Exception, qualname: str, named) -> ValueError | None:
    """xstride's ``ValueError`` for the library's ``exc`` where the operands of the
    elementwise function ``qualname`` (``where``'s ``condition``, ``x1`` and ``x2`` too),
    given as ``named`` ``(name, value)`` pairs, do not broadcast together; else None."""
    if not isinstance(exc, ValueError) or _NOT_TOGETHER not in str(exc):
        return None
    names = ("condition", "x1", "x2") if qualname == "where" else operand_names(qualname)
    values = dict(named)
    if not names or any(n not in values for n in names):
        return None
    try:
        shapes = [tuple(np.shape(values[n])) for n in names]
    except Exception:   # an operand NumPy cannot read a shape of: the library's error
        return None
    return broadcast_error(qualname.rsplit(".", 1)[-1], shapes)
