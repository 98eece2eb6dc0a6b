"""0-D NumPy arrays given for an axis (``axis=numpy.asarray(1)``) beside the arrays of
another backend.

The NumPy backend takes a 0-D integer array wherever it takes an int axis (Python's
``__index__``, as NumPy's functions take it). On the dask backend such an axis was
refused as arrays of two backends ("x is dask, axis is numpy"): the lookup of a call's
backend counted it as a NumPy array. That lookup
(:func:`~xstride._backends.select.backend_of`) now counts no 0-D NumPy array given for
an argument of :data:`~xstride._backends.axis_errors.AXIS_PARAMETERS` (nor one in a
tuple or list there), as it counts no NumPy scalar; and since dask's functions take an
axis only of Python's or NumPy's integer types (``flip``: "iteration over a 0-d
array", ``expand_dims``: "Axis value must be an integer, got 1"), :func:`axis_ints`
hands the other backends' implementations the int a 0-D integer array stands for. A 0-D
array of another dtype (a float, a bool) is left as given, for the same ``TypeError``
naming the argument as on the NumPy backend.
"""

from __future__ import annotations

import numpy as np

from .axis_errors import AXIS_PARAMETERS

__all__ = ["is_0d", "axis_ints"]


def is_0d(value) -> bool:
    """Whether ``value`` is a 0-D NumPy array (of any dtype)."""
    return type(value) is np.ndarray and value.ndim == 0


def _int_of(value):
    """``value`` with a 0-D integer array (itself, or an item of a tuple or list) as the
    Python int it holds."""
    if is_0d(value):
        return int(value) if value.dtype.kind in "iu" else value
    if type(value) in (tuple, list) and any(is_0d(v) for v in value):
        return type(value)(_int_of(v) if is_0d(v) else v for v in value)
    return value


def axis_ints(params: tuple[str, ...], args: tuple, kwargs: dict) -> tuple[tuple, dict]:
    """``args`` and ``kwargs`` of a call whose parameters are named ``params`` (the
    reference function's, in order), each 0-D integer array given for an axis parameter
    as its int. The call unchanged (the same objects) where no argument is a 0-D array
    or a tuple or list holding one."""
    if not any(is_0d(a) or (type(a) in (tuple, list) and any(is_0d(v) for v in a))
               for a in (*args, *kwargs.values())):
        return args, kwargs
    args = tuple(_int_of(a) if i < len(params) and params[i] in AXIS_PARAMETERS else a
                 for i, a in enumerate(args))
    kwargs = {k: _int_of(v) if k in AXIS_PARAMETERS else v for k, v in kwargs.items()}
    return args, kwargs
