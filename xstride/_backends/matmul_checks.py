"""``matmul``'s and ``vecdot``'s shape errors naming the standard's arguments, one text
for every backend: checked before dask's functions, and on the NumPy backend only once
NumPy's gufunc has refused the call (its "Input operand 1 has a mismatch in its core
dimension 0, with gufunc signature (n),(n)->()" named no argument; a valid call pays
nothing: ``dispatch.follower`` asks :func:`gufunc_shape_error` on the error's path).

Lengths dask does not know (NaN, after boolean indexing) are not compared.
"""

from __future__ import annotations

import math

import numpy as np

from .._core.errors import broadcast_error, value_error

__all__ = ["matmul_shape_error", "vecdot_shape_error", "gufunc_shape_error", "zero_d_error"]


def _known(n) -> bool:
    return not (isinstance(n, float) and math.isnan(n))


def zero_d_error(func: str, x1, x2) -> ValueError | None:
    """The ``ValueError`` naming a 0-D operand of ``matmul``/``vecdot`` (``func``), else
    None. (``vecdot`` of a 0-D operand said NumPy's "Input operand 0 does not have
    enough dimensions" on NumPy and an ``AxisError`` of ``axis`` on dask.)"""
    if x1.ndim == 0 or x2.ndim == 0:
        return value_error(func, "x1" if x1.ndim == 0 else "x2",
                           f"is 0-D; {func} takes arrays of at least one dimension")
    return None


def matmul_shape_error(x1, x2, func: str = "matmul") -> ValueError | None:
    """The standard's shape error of ``matmul(x1, x2)`` (a 0-D operand, contracted
    lengths that differ, stack dimensions that do not broadcast), else None."""
    if x1.ndim == 0 or x2.ndim == 0:
        return zero_d_error(func, x1, x2)
    k1 = x1.shape[-1]
    k2 = x2.shape[-2] if x2.ndim > 1 else x2.shape[0]
    if _known(k1) and _known(k2) and k1 != k2:
        return value_error(func, "x2", f"has shape {tuple(x2.shape)}, whose contracted "
                                       f"dimension {k2} differs from the last of x1 "
                                       f"{tuple(x1.shape)}")
    s1, s2 = tuple(x1.shape[:-2]), tuple(x2.shape[:-2])
    if s1 and s2 and all(_known(n) for n in s1 + s2):
        try:
            np.broadcast_shapes(s1, s2)
        except ValueError:
            return broadcast_error(func, (x1.shape, x2.shape))
    return None


def vecdot_shape_error(x1, x2, axis: int = -1, func: str = "vecdot") -> ValueError | None:
    """The shape error of ``vecdot(x1, x2, axis=axis)`` (an ``axis`` in range of both,
    checked before): lengths along ``axis`` that differ, or shapes that do not broadcast
    (dask's said "Chunks do not add up to shape", NumPy's "operands could not be
    broadcast together with remapped shapes"), else None."""
    n1, n2 = x1.shape[axis], x2.shape[axis]
    if _known(n1) and _known(n2) and n1 != n2:
        return value_error(func, "x2", f"has shape {tuple(x2.shape)}, whose length {n2} "
                                       f"along axis {axis} differs from x1's {n1} (shape "
                                       f"{tuple(x1.shape)})")
    if all(_known(n) for n in tuple(x1.shape) + tuple(x2.shape)):
        try:
            np.broadcast_shapes(tuple(x1.shape), tuple(x2.shape))
        except ValueError:
            return broadcast_error(func, (x1.shape, x2.shape))
    return None


def gufunc_shape_error(exc: Exception, qualname: str, named) -> ValueError | None:
    """The named shape error of a ``matmul``/``vecdot`` call NumPy's gufunc refused
    (``exc``, a ``ValueError``), else None (the library's error, raised as it was)."""
    func = qualname.rsplit(".", 1)[-1]
    if func not in ("matmul", "vecdot") or not isinstance(exc, ValueError):
        return None
    values = dict(named)
    x1, x2 = values.get("x1"), values.get("x2")
    if not (hasattr(x1, "shape") and hasattr(x2, "shape")):
        return None
    if func == "matmul":
        return matmul_shape_error(x1, x2)
    if x1.ndim == 0 or x2.ndim == 0:
        return zero_d_error(func, x1, x2)
    axis = values.get("axis", -1)
    if not isinstance(axis, int) or not -min(x1.ndim, x2.ndim) <= axis < min(x1.ndim, x2.ndim):
        return None   # an axis out of range: axis_errors.py's, as before
    return vecdot_shape_error(x1, x2, axis)
