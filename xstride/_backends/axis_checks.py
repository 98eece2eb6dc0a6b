"""Axis checks in front of library functions: ``flip`` and ``expand_dims`` of the NumPy
backend, ``squeeze`` of the NumPy and dask backends, and ``stack``, ``unstack`` and
``moveaxis`` of every backend.

NumPy's ``flip`` and ``expand_dims`` took a bool as an axis (``flip(x, axis=True)``
flipped axis 1, ``expand_dims(x, axis=True)`` inserted one there), where the dask
backend's, the reductions and ``sort``/``diff`` refuse one with ``TypeError`` (the
standard's ``axis`` is an int): here their axis is checked first by the check the dask
backend's share (``normalize_axis``, ``xstride/_plans/reduction.py``; the dask ones are
in ``dask_standard.py``). With the check both backends raise the same class and message
for any bad axis: ``TypeError`` of no int, ``numpy.exceptions.AxisError`` out of range,
``ValueError`` repeated. ``roll``'s axis is checked in ``arg_checks.roll``.

``squeeze`` of an axis whose length is not 1 said "cannot select an axis to squeeze out
which has size not equal to one" (NumPy's) and "cannot squeeze axis with size other than
one" (dask's), naming neither the axis nor the argument: :func:`check_squeeze` raises one
``ValueError`` on both backends (dask's also raised a bare ``IndexError`` for an axis out
of range).

``stack`` of no array or of shapes that differ is one error on every backend
(``join_checks.py``, on the library's ``ValueError``).

NumPy's and dask's ``stack``, ``unstack`` (compat's, by ``moveaxis``) and ``moveaxis``
took ``True`` as axis 1 too, on both backends: here a bool (Python's or NumPy's, also in
a tuple of ``moveaxis``) is refused first with the ``TypeError`` of the other functions;
everything else is the library's (its errors named by ``axis_errors.py``).
"""

from __future__ import annotations

import numpy as np

from .._core.errors import type_error, value_error
from .._plans.reduction import normalize_axis
from .dispatch import compat_function, register
from .join_checks import check_some_arrays, check_stack_shapes
from .registry import get
from .numpy_masked import masked_among

__all__ = ["flip", "expand_dims", "check_squeeze", "squeeze", "refuse_bool_axis"]

_ONE = "an int naming one axis"
_MOVED = "an int or a tuple of ints"


def flip(x, /, *, axis=None):
    """``flip`` of the standard on NumPy arrays, ``axis`` checked first (a list of axes
    too, which NumPy's takes). A 0-D array gives a 0-D view of itself, as dask's flip
    gives a 0-D array of its dtype: NumPy's indexed it with ``()``, a NumPy scalar of
    the native byte order (``flip`` of a ``>i8`` 0-D array was an ``int64`` scalar)."""
    if axis is not None and hasattr(x, "ndim"):
        normalize_axis("flip", tuple(axis) if isinstance(axis, list) else axis, x.ndim)
    if isinstance(x, np.ndarray) and x.ndim == 0:
        return x[...]
    return compat_function("numpy", "flip")(x, axis=axis)


def expand_dims(x, /, axis=0):
    """``expand_dims`` of the standard on NumPy arrays, ``axis`` checked first against
    the result's rank (a tuple or list of axes too, which NumPy's takes)."""
    if hasattr(x, "ndim"):
        if isinstance(axis, (tuple, list)):
            normalize_axis("expand_dims", tuple(axis), x.ndim + len(axis))
        else:
            normalize_axis("expand_dims", axis, x.ndim + 1)
    return compat_function("numpy", "expand_dims")(x, axis=axis)


def check_squeeze(x, axis) -> None:
    """``squeeze``'s ``axis`` (an int or a tuple of ints, ``normalize_axis``'s checks)
    names axes of ``x`` of length 1 only."""
    for i in normalize_axis("squeeze", axis, x.ndim):
        n = x.shape[i]
        if n != 1:
            length = (f"which has length {n}" if n == n else "whose length dask does not "
                      "know (as after boolean indexing; x.compute_chunk_sizes() first)")
            raise value_error("squeeze", "axis", f"names axis {i}, {length} in an array of "
                                                 f"shape {tuple(x.shape)}; only axes of "
                                                 "length 1 can be squeezed out")


def squeeze(a, axis=None):
    """``squeeze`` on NumPy arrays (NumPy's signature: without ``axis`` every axis of
    length 1), ``axis`` checked first (:func:`check_squeeze`)."""
    if axis is not None and hasattr(a, "ndim"):
        check_squeeze(a, axis)
    return compat_function("numpy", "squeeze")(a, axis=axis)


def _dask_squeeze(x, /, axis=None):
    """``squeeze`` of the standard on dask arrays, ``axis`` checked first; ``None``, or
    no ``axis`` (the standard asks for one; NumPy's and CuPy's take none), squeezes
    every axis of length 1, as on NumPy (the check took it for every axis)."""
    if axis is not None:
        check_squeeze(x, axis)
    return get("dask").namespace().squeeze(x, axis=axis)


def refuse_bool_axis(func: str, arg: str, value, expected: str) -> None:
    """``TypeError`` where ``value`` of axis argument ``arg`` is a bool or a tuple or list
    holding one (NumPy's functions take ``True`` as 1)."""
    items = value if isinstance(value, (tuple, list)) else (value,)
    if any(isinstance(i, (bool, np.bool_)) for i in items):
        raise type_error(func, arg, value, expected)


def _stack_numpy(arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
    refuse_bool_axis("stack", "axis", axis, _ONE)
    try:
        if out is None and dtype is None and masked_among(arrays):
            return np.ma.stack(arrays, axis=axis)   # NumPy's dropped the masks
        return compat_function("numpy", "stack")(arrays, axis=axis, out=out, dtype=dtype,
                                                  casting=casting)
    except (ValueError, TypeError):   # no array, a generator, shapes that differ: one
        check_some_arrays("stack", arrays)   # text (join_checks.py)
        check_stack_shapes(arrays)
        raise


def _stack_of(backend: str):
    def stack(arrays, axis=0, *args, **kwargs):
        refuse_bool_axis("stack", "axis", axis, _ONE)
        if not isinstance(arrays, (list, tuple)):   # dask's stacked a generator's items,
            check_some_arrays("stack", arrays)      # and a set's ints
        try:
            return compat_function(backend, "stack")(arrays, axis, *args, **kwargs)
        except (ValueError, TypeError):
            check_some_arrays("stack", arrays)   # (join_checks.py: one text everywhere)
            check_stack_shapes(arrays)
            _unknown_stack_error(arrays)
            raise
    return stack


def _unknown_stack_error(arrays) -> None:
    """``stack`` of dask arrays of one rank with lengths dask does not know (NaN, after
    boolean indexing) and no known lengths that differ: dask's said "Stacked arrays
    must have the same shape. The first array had shape (nan, 3), while array 2 has
    shape (nan, 3)"; a ``ValueError`` saying to compute the lengths."""
    shapes = [tuple(getattr(a, "shape", ())) for a in arrays] if isinstance(
        arrays, (list, tuple)) else []
    if len({len(t) for t in shapes}) != 1 or not any(n != n for t in shapes for n in t):
        return
    for lengths in zip(*shapes):
        if len({n for n in lengths if n == n}) > 1:
            return   # known lengths that differ: dask's error is right
    raise value_error("stack", "arrays", f"holds shapes {', '.join(map(str, shapes))}, with "
                                         "lengths dask does not know (as after boolean "
                                         "indexing), which stack needs to compare; call "
                                         "x.compute_chunk_sizes() on each first")


def _unstack_of(backend: str):
    def unstack(x, /, *, axis=0):
        refuse_bool_axis("unstack", "axis", axis, _ONE)
        shape = getattr(x, "shape", ())
        if (isinstance(axis, (int, np.integer)) and -len(shape) <= axis < len(shape)
                and shape[axis] != shape[axis]):   # NaN: a length dask does not know
            # dask's: "Cannot call len() on object with unknown chunk size", naming neither
            raise value_error("unstack", "x", f"has shape {tuple(shape)}, with lengths dask "
                                              "does not know (as after boolean indexing), "
                                              f"which the count of arrays along axis {axis} "
                                              "needs; call x.compute_chunk_sizes() first")
        return compat_function(backend, "unstack")(x, axis=axis)
    return unstack


def _moveaxis_of(backend: str):
    def moveaxis(a, source, destination):
        refuse_bool_axis("moveaxis", "source", source, _MOVED)
        refuse_bool_axis("moveaxis", "destination", destination, _MOVED)
        return compat_function(backend, "moveaxis")(a, source, destination)
    return moveaxis


for _fn in (flip, expand_dims, squeeze):
    register(_fn.__name__, "numpy")(_fn)
_dask_squeeze.__name__ = _dask_squeeze.__qualname__ = "squeeze"
register("squeeze", "dask")(_dask_squeeze)
_stack_numpy.__name__ = _stack_numpy.__qualname__ = "stack"
register("stack", "numpy")(_stack_numpy)
for _backend_name in ("numpy", "dask", "cupy"):
    if _backend_name != "numpy":
        register("stack", _backend_name)(_stack_of(_backend_name))
    register("unstack", _backend_name)(_unstack_of(_backend_name))
    register("moveaxis", _backend_name)(_moveaxis_of(_backend_name))
del _fn, _backend_name
