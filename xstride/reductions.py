"""Reductions and scans of the namespace: ``sum``, ``prod``, ``min``, ``max``, ``mean``,
``var``, ``std``, ``cumulative_sum``, ``cumulative_prod`` (array API standard,
"Statistical functions"; ``all``/``any`` stay the library's).

A backend with a reductions executor (CuPy: ``xstride/_kernels``, see
docs/reductions.md) runs these on xstride's kernels for any layout and axis set,
deterministically. A backend without one (NumPy) runs its ``array_api_compat``
functions, with the argument checks of the kernel path, so the same bad call raises
the same clear error on every backend:

- ``min`` / ``max`` of an empty selection raise ``ValueError`` naming the empty axis;
- ``sum``, ``prod``, ``mean``, ``var``, ``std`` check ``axis`` and ``correction``;
- ``cumulative_sum`` / ``cumulative_prod`` check ``axis`` and ``include_initial`` and
  scan a 0-D array (or NumPy scalar) as one of shape ``(1,)`` (``array_api_compat``
  fails on 0-D with ``include_initial=True``).

A call without keyword arguments on NumPy (``xp.sum(a)``) needs no check and goes to
the library function directly.
"""

from __future__ import annotations

import inspect
import math

import numpy as np

from . import _backends
from ._backends import dispatch
from ._core.errors import type_error
from ._plans.reduction import (
    check_correction,
    empty_axis_error,
    normalize_axis,
    normalize_scan_axis,
)

__all__: list[str] = []

REDUCTIONS = ("sum", "prod", "min", "max", "mean", "var", "std")
SCANS = ("cumulative_sum", "cumulative_prod")

#: The standard's signatures (the checked wrappers forward keywords through **kwargs).
_SIGNATURES = {
    "sum": "(x, /, *, axis=None, dtype=None, keepdims=False)",
    "prod": "(x, /, *, axis=None, dtype=None, keepdims=False)",
    "min": "(x, /, *, axis=None, keepdims=False)",
    "max": "(x, /, *, axis=None, keepdims=False)",
    "mean": "(x, /, *, axis=None, keepdims=False)",
    "var": "(x, /, *, axis=None, correction=0.0, keepdims=False)",
    "std": "(x, /, *, axis=None, correction=0.0, keepdims=False)",
}


def _signature(text: str) -> inspect.Signature:
    return inspect.signature(eval(f"lambda {text[1:-1]}: None"))  # noqa: S307 - our literal


# ----------------------------------------------------------------------------- checked wrappers
def _minmax(func: str, lib):
    def impl(x, /, *, axis=None, keepdims=False, **kwargs):
        size = getattr(x, "size", None)
        if size == 0 and "initial" not in kwargs and "where" not in kwargs:
            axes = normalize_axis(func, axis, x.ndim)
            if math.prod(x.shape[a] for a in axes) == 0:
                raise empty_axis_error(func, x.shape, axes)
        return lib(x, axis=axis, keepdims=keepdims, **kwargs)

    impl.__name__ = impl.__qualname__ = func
    impl.__doc__ = (f"{func.capitalize()} (array API standard ``{func}``): the library's, "
                    "except that an empty selection raises ValueError naming the empty "
                    "axis (the same text as on the kernel path).")
    return impl


def _checked(func: str, lib):
    def impl(x, /, *, axis=None, keepdims=False, **kwargs):
        if axis is not None and hasattr(x, "ndim"):
            axis = normalize_axis(func, axis, x.ndim)
        if "correction" in kwargs:
            check_correction(func, kwargs["correction"])
        return lib(x, axis=axis, keepdims=keepdims, **kwargs)

    impl.__name__ = impl.__qualname__ = func
    impl.__doc__ = (f"{func.capitalize()} (array API standard ``{func}``): "
                    "``array_api_compat``'s, with ``axis`` and ``correction`` checked as on "
                    "the kernel path.")
    impl.__signature__ = _signature(_SIGNATURES[func])
    return impl


def _scan(func: str, lib, as_array):
    def impl(x, /, *, axis=None, dtype=None, include_initial=False):
        if not isinstance(include_initial, (bool, np.bool_)):
            raise type_error(func, "include_initial", include_initial, "a bool")
        if isinstance(x, np.generic):
            x = as_array(x)
        if getattr(x, "ndim", None) == 0:
            x = x.reshape(1)
        if hasattr(x, "ndim"):
            axis = normalize_scan_axis(func, axis, x.ndim)
        return lib(x, axis=axis, dtype=dtype, include_initial=bool(include_initial))

    impl.__name__ = impl.__qualname__ = func
    impl.__doc__ = (f"``{func}`` (array API standard): ``array_api_compat``'s, with the "
                    "argument errors of the kernel path; a 0-D array is scanned as one of "
                    "shape (1,).")
    return impl


def _library_functions(be) -> tuple[dict, dict]:
    """The checked wrappers over a backend's own library functions, and what a call
    without keywords runs (the library function itself, except where a positional
    call needs a check too)."""
    ns = be.namespace()
    funcs, positional = {}, {}
    for f in ("min", "max"):
        funcs[f] = _minmax(f, getattr(ns, f))
    for f in ("sum", "prod", "mean", "var", "std"):
        funcs[f] = _checked(f, getattr(ns, f))
        positional[f] = getattr(ns, f)   # nothing to check without keywords
    for f in SCANS:
        funcs[f] = _scan(f, getattr(ns, f), be.load().asarray)
    return funcs, positional


def _register() -> None:
    for be in _backends.each():
        kernels = [be.executor(k) for k in ("reductions", "scans")]
        if None not in kernels:
            for ex in kernels:
                dispatch.register_all(be, ex.FUNCTIONS)
        else:  # no kernels of its own: the library, checked (built on first use)
            dispatch.register_lazy(be, REDUCTIONS + SCANS, lambda be=be: _library_functions(be))


_register()
