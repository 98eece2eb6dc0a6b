"""An elementwise function's operands whose shapes do not broadcast together: one text
on every backend.

The CuPy backend's elementwise engine raises xstride's ``broadcast_error`` ("add: shapes
(2, 3) and (2, 2) cannot be broadcast together", ``_plans/elementwise.py``), and so does
every backend's call with ``out=``; a call without ``out=`` on the NumPy backend raised
NumPy's "operands could not be broadcast together with shapes (2,3) (2,2) " and on the
dask backend dask's "... with shapes (2, 3) (2, 2)". :func:`broadcast_shape_error` gives
xstride's error for those, from the operands' shapes; the dispatch calls it on the
library's error path only (no cost to a good call).

So for ``broadcast_to`` of an ``x`` whose shape does not broadcast into ``shape``
(NumPy's "operands could not be broadcast together with remapped shapes
[original->remapped]: (2,3)  and requested shape (3,3)", dask's "cannot broadcast shape
(2, 3) to shape (3, 3)"; now "shapes (2, 3) and (3, 3) cannot be broadcast together
(into shape)", the ``xp.fuse`` tracer's text) and ``broadcast_arrays`` of shapes that do
not broadcast (NumPy's "shape mismatch: objects cannot be broadcast to a single shape.
Mismatch is between arg 0 ...", where the dask backend's ``dask_broadcast.py`` raised
xstride's text already).
"""

from __future__ import annotations

import numpy as np

from .._core.errors import broadcast_error, value_error
from .no_array import operand_names

__all__ = ["broadcast_shape_error", "known_lengths_conflict"]

#: NumPy's and dask's text of operands that do not broadcast (not NumPy's "remapped
#: shapes" of an output or of ``broadcast_to``, which name other shapes).
_NOT_TOGETHER = "operands could not be broadcast together with shapes"


def _into(shape, target) -> bool:
    """Whether ``shape`` may broadcast into ``target`` (NumPy's rule, lengths of 1 grow;
    a length dask does not know, NaN, may be any)."""
    if len(shape) > len(target):
        return False
    return all(n != n or n == 1 or n == m for n, m in zip(shape[::-1], target[::-1]))


def known_lengths_conflict(shapes) -> bool:
    """Whether two known lengths other than 1 of one broadcast axis differ (``shapes``
    aligned on their last axes; NaN lengths, unknown to dask, are left out)."""
    ndim = max((len(s) for s in shapes), default=0)
    for i in range(1, ndim + 1):
        known = {n for s in shapes if len(s) >= i for n in (s[-i],) if n == n and n != 1}
        if len(known) > 1:
            return True
    return False


def _to_error(named) -> ValueError | None:
    """``broadcast_to``'s error where ``x``'s shape does not broadcast into ``shape`` (a
    tuple of non-negative ints: other shapes are ``shape_checks.py``'s), else None."""
    values = dict(named)
    x, shape = values.get("x"), values.get("shape")
    target = tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)
    if (not all(isinstance(n, (int, np.integer)) and not isinstance(n, (bool, np.bool_))
                and n >= 0 for n in target)
            or not isinstance(getattr(x, "shape", None), tuple)):
        return None
    target = tuple(int(n) for n in target)
    if _into(x.shape, target):   # (unknown lengths alone: dask_broadcast.py's error)
        return None
    return broadcast_error("broadcast_to", (x.shape, target), into="shape")


def _arrays_error(named) -> ValueError | None:
    """``broadcast_arrays``' error where its arrays' shapes do not broadcast together."""
    # (the arrays are the *args of the library's function: "arrays[0]", "args[0]", ...)
    shapes = [v.shape for n, v in named if n.endswith("]")
              and isinstance(getattr(v, "shape", None), tuple)]
    if not shapes or any(n != n for s in shapes for n in s):
        return None
    ndim = max(len(s) for s in shapes)
    for i in range(1, ndim + 1):   # (no product of lengths: a size past int64 is no mismatch)
        if len({s[-i] for s in shapes if len(s) >= i and s[-i] != 1}) > 1:
            return broadcast_error("broadcast_arrays", shapes)
    return None


def broadcast_shape_error(exc: Exception, qualname: str, named) -> ValueError | None:
    """xstride's ``ValueError`` for the library's ``exc`` where the operands of the
    elementwise function ``qualname`` (``where``'s ``condition``, ``x1`` and ``x2`` too),
    given as ``named`` ``(name, value)`` pairs, do not broadcast together, where
    ``broadcast_to``'s ``x`` does not broadcast into ``shape`` and where
    ``broadcast_arrays``' arrays do not broadcast together; else None."""
    if not isinstance(exc, ValueError) or "argument '" in str(exc):   # xstride's own
        return None
    if qualname == "broadcast_to":
        return _to_error(named)
    if qualname == "broadcast_arrays":
        return _arrays_error(named)
    if _NOT_TOGETHER not in str(exc):
        return None
    names = ("condition", "x1", "x2") if qualname == "where" else operand_names(qualname)
    values = dict(named)
    if not names or any(n not in values for n in names):
        return None
    try:
        shapes = [tuple(np.shape(values[n])) for n in names]
    except Exception:   # an operand NumPy cannot read a shape of: the library's error
        return None
    func = qualname.rsplit(".", 1)[-1]
    if any(n != n for s in shapes for n in s):   # NaN: a length dask does not know
        if known_lengths_conflict(shapes):   # (nan, 3) with (4,): no length would do
            return broadcast_error(func, shapes)
        name, shape = next((n, s) for n, s in zip(names, shapes) if any(k != k for k in s))
        return value_error(func, name, f"has shape {shape}, with lengths dask does not know "
                                       "(as after boolean indexing), which the broadcast "
                                       "needs; call x.compute_chunk_sizes() first")
    try:
        shape = np.broadcast_shapes(*shapes)
    except ValueError:
        return broadcast_error(func, shapes)
    # the operands broadcast: the library's shapes were theirs and ``out``'s
    out = values.get("out")
    if isinstance(getattr(out, "shape", None), tuple):
        return value_error(func, "out", f"has shape {tuple(out.shape)}; the operands' "
                                        f"broadcast shape {shape} does not broadcast into it")
    return None
