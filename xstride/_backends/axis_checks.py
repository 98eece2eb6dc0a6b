"""``flip`` and ``expand_dims`` of the NumPy backend, ``axis`` checked first by the check
the dask backend's share (``normalize_axis``, ``xstride/_plans/reduction.py``; the dask
ones are in ``dask_standard.py``).

NumPy's took a bool as an axis (``flip(x, axis=True)`` flipped axis 1,
``expand_dims(x, axis=True)`` inserted one there), where the dask backend's, the
reductions and ``sort``/``diff`` refuse one with ``TypeError`` (the standard's ``axis``
is an int). With the check both backends raise the same class and message for any bad
axis: ``TypeError`` of no int, ``numpy.exceptions.AxisError`` out of range,
``ValueError`` repeated. ``roll``'s axis is checked in ``arg_checks.roll``.
"""

from __future__ import annotations

from .._plans.reduction import normalize_axis
from .dispatch import compat_function, register

__all__ = ["flip", "expand_dims"]


def flip(x, /, *, axis=None):
    """``flip`` of the standard on NumPy arrays, ``axis`` checked first (a list of axes
    too, which NumPy's takes)."""
    if axis is not None and hasattr(x, "ndim"):
        normalize_axis("flip", tuple(axis) if isinstance(axis, list) else axis, x.ndim)
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


for _fn in (flip, expand_dims):
    register(_fn.__name__, "numpy")(_fn)
del _fn
