"""``concat``'s and ``stack``'s ``arrays``, checked alike on every backend: none at all,
and shapes that do not line up, one text each; a generator (or any object that is no
tuple, list or array) a ``TypeError`` naming ``arrays``.

The libraries worded them otherwise: ``concat([])`` was NumPy's "need at least one array
to concatenate" and dask's "Need array(s) to concatenate"; ``concat`` of shapes that
differ off the axis NumPy's "all the input array dimensions except for the
concatenation axis must match exactly, but along dimension 1, ..." where the dask
backend's check (:func:`check_concat_shapes`) names the shapes; ``stack`` of shapes that
differ NumPy's "all input arrays must have the same shape" (naming none) and dask's
"Stacked arrays must have the same shape. The first array had shape (2, 3), while array
2 has shape (2, 2)" (counting from 1), ``stack([])`` "need at least one array to stack"
and "Need array(s) to stack". The dask backend's ``concat`` checks first; the NumPy
backend's ``concat`` and every backend's ``stack`` on the library's ``ValueError`` (no
cost to a good call), so that the error is this module's.

Lengths dask does not know (NaN, after boolean indexing) are not compared here.
"""

from __future__ import annotations

import numpy as np

from .._core.errors import type_error, value_error

__all__ = ["check_some_arrays", "check_concat_shapes", "check_stack_shapes"]


def _known(n) -> bool:
    return n == n   # NaN: a length dask does not know


def check_some_arrays(func: str, arrays) -> None:
    """``arrays`` of ``func`` (``concat``, ``stack``) is a tuple or list (or, as NumPy
    takes it, an array) holding at least one array: a generator was NumPy's unnamed
    "The first input argument needs to be a sequence" and dask's "object of type
    'generator' has no len()"."""
    if not isinstance(arrays, (list, tuple)) and getattr(arrays, "shape", None) is None:
        raise type_error(func, "arrays", arrays, "a tuple or list of arrays")
    if isinstance(arrays, (list, tuple)) and not arrays:
        raise value_error(func, "arrays", f"is empty; {func} needs at least one array")


def check_concat_shapes(arrays, axis):
    """``concat``'s ``arrays`` along an int ``axis``: equal lengths on every other axis
    (lengths dask does not know, NaN, pass; arrays of unequal ranks and an axis out of
    range are left to the library, whose errors name them). Returns ``arrays``."""
    shapes = [tuple(getattr(a, "shape", ())) for a in arrays]
    if axis is None or not shapes or len({len(t) for t in shapes}) != 1:
        return arrays
    nd = len(shapes[0])
    if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)) or not -nd <= axis < nd:
        return arrays
    ax = int(axis) % nd
    for i, t in enumerate(shapes[1:], 1):
        for d in range(nd):
            m, k = shapes[0][d], t[d]
            if d != ax and _known(m) and _known(k) and m != k:
                raise value_error("concat", "arrays", f"holds shapes {shapes[0]} (index 0) and "
                                                      f"{t} (index {i}), which differ along "
                                                      f"dimension {d} ({m} and {k}); every "
                                                      "dimension but the concatenation axis "
                                                      f"{ax} must match")
    return arrays


def check_stack_shapes(arrays) -> None:
    """``stack``'s ``arrays`` (a list or tuple of arrays) of one shape: the first that
    differs from the first array's (in rank, or in a length both know) is an error."""
    if not isinstance(arrays, (list, tuple)):
        return
    shapes = [getattr(a, "shape", None) for a in arrays]
    if any(not isinstance(t, tuple) for t in shapes):
        return
    first = shapes[0] if shapes else ()
    for i, t in enumerate(shapes[1:], 1):
        if len(t) != len(first) or any(_known(m) and _known(k) and m != k
                                       for m, k in zip(first, t)):
            raise value_error("stack", "arrays", f"holds shapes {first} (index 0) and {t} "
                                                 f"(index {i}); stack joins arrays of one "
                                                 "shape")
