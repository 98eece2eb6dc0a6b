"""``reshape``'s ``shape`` and ``copy``, one check for the NumPy and dask backends.

NumPy takes any negative length as the unknown one: ``reshape(x, (-2, 3))`` of six
elements gave shape ``(2, 3)`` and ``reshape(x, (-3,))`` the flat array, where the
dask backend refused them (the standard's ``shape``: "Only one shape dimension can
be -1"). Here a length below -1 is a ``ValueError`` naming ``shape`` on both. The
NumPy backend's common call, a tuple (or a list) of ints none below -1 with no
``copy``, goes to the array's own ``reshape`` at once; its other calls, and NumPy's
refusals, are checked here, so a float or a bool length is a ``TypeError`` naming
``shape`` as on dask.

``copy`` is ``True``, ``False`` or ``None`` (a NumPy bool too), as the standard has it
and as ``astype``'s: NumPy took any value by its truth (``copy=1.0`` copied,
``copy=[]`` refused to), dask any value at all (``copy="no"``); now a ``TypeError``
naming ``copy`` on both.
"""

from __future__ import annotations

import math
import operator

import numpy as np

from .._core.errors import type_error, value_error
from .dispatch import compat_function, register

__all__ = ["check_shape", "check_copy", "reshape"]


def _known(n) -> bool:
    return not (isinstance(n, float) and math.isnan(n))


def check_shape(x, shape) -> tuple:
    """``reshape``'s ``shape`` as a tuple of ints, checked against ``x``'s lengths where
    they are all known (dask's NaN after boolean indexing are not) as NumPy checks it
    (dask's divided by zero for ``(0, -1)``, raised ``IndexError`` "Bad index" for
    ``(-1, 4)`` of 6 elements, and took ``(6.0,)``)."""
    items = shape if isinstance(shape, (tuple, list)) else (shape,)
    if getattr(shape, "ndim", None) == 1 and getattr(shape.dtype, "kind", "") in "iu":
        items = tuple(shape.tolist())   # NumPy takes a 1-D integer array as a shape
    try:
        if any(isinstance(n, bool) for n in items):
            raise TypeError
        items = tuple(operator.index(n) for n in items)
    except TypeError:
        raise type_error("reshape", "shape", shape, "an int or a tuple of ints") from None
    if any(n < -1 for n in items):   # dask's made an array of shape (-2, -6), NumPy's (2, 3)
        raise value_error("reshape", "shape", f"is {items}: a length is negative (only one "
                                              "length may be -1, the unknown one)")
    if not all(_known(n) for n in x.shape):
        return items
    size = math.prod(x.shape)
    free = items.count(-1)
    rest = math.prod(n for n in items if n != -1)
    if free > 1:
        raise value_error("reshape", "shape", f"is {items}: only one length may be -1")
    if (free and (rest == 0 or size % rest)) or (not free and rest != size):
        raise value_error("reshape", "shape", f"is {items}, which does not hold the "
                                              f"{size} elements of x's shape {x.shape}")
    return items


#: compat's NumPy ``reshape``, looked up on the first call (the namespace's import)
_numpy_reshape = None


def check_copy(copy) -> None:
    """``reshape``'s ``copy``: ``True``, ``False``, ``None`` or a NumPy bool."""
    if copy is not None and copy is not True and copy is not False \
            and not isinstance(copy, np.bool_):
        raise type_error("reshape", "copy", copy, "True, False or None")


def reshape(x, /, shape, *, copy=None):
    """``reshape`` of the standard on NumPy arrays: ``shape`` checked as on the dask
    backend (:func:`check_shape`) where it is not a tuple of lengths of -1 or more, and
    where NumPy refuses it; ``copy`` first (:func:`check_copy`)."""
    global _numpy_reshape
    if copy is None and x.__class__ is np.ndarray and (shape.__class__ is tuple
                                                       or shape.__class__ is list):
        # the common call, ints of -1 or more: NumPy's own method (compat's reshape
        # and the checks below took 0.35 us more a call, 2-core CI machine; a list
        # through them 2 us more)
        for n in shape:
            if n.__class__ is not int or n < -1:
                break
        else:
            try:
                return x.reshape(shape)
            except ValueError:   # lengths that do not hold x's elements: named
                check_shape(x, shape)
                raise
    if copy is not None and copy.__class__ is not bool:
        check_copy(copy)
    try:
        odd = shape.__class__ is not tuple or min(shape, default=0) < -1
    except TypeError:   # a length of no number
        odd = True
    if odd and hasattr(x, "shape"):
        check_shape(x, shape)
    if _numpy_reshape is None:
        _numpy_reshape = compat_function("numpy", "reshape")
    try:
        return _numpy_reshape(x, shape, copy=copy)
    except (TypeError, ValueError):
        if hasattr(x, "shape"):
            check_shape(x, shape)   # a shape NumPy refused, named; else NumPy's error
        raise


register("reshape", "numpy")(reshape)
