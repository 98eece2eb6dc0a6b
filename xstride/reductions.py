"""NumPy-backend overrides of the reductions and scans.

On NumPy arrays ``array_api_compat.numpy`` computes every reduction and scan; these
wrappers only make its argument handling match the CuPy path (``reductions.py``,
``scans.py``), so the same bad call raises the same clear error on both backends:

- ``min`` / ``max`` of an empty selection raise ``ValueError`` naming the empty axis;
- ``sum``, ``prod``, ``mean``, ``var``, ``std`` check ``axis`` and ``correction``;
- ``cumulative_sum`` / ``cumulative_prod`` check ``axis`` and ``include_initial`` and
  scan a 0-D array (or NumPy scalar) as one of shape ``(1,)``.
"""

from __future__ import annotations

import inspect
import math

import numpy as np

from ._backends import select as _backend
from ._backends.dispatch import register
from ._core.errors import type_error
from ._plans.reduction import normalize_axis, normalize_scan_axis
from ._kernels import reductions
from ._kernels.reductions import _check_correction, _empty_axis_error

__all__: list[str] = []


# ----------------------------------------------------------------------------- min/max
def _np_minmax(func: str, npfunc):
    def impl(x, /, *, axis=None, keepdims=False, **kwargs):
        size = getattr(x, "size", None)
        if size == 0 and "initial" not in kwargs and "where" not in kwargs:
            axes = normalize_axis(func, axis, x.ndim)
            if math.prod(x.shape[a] for a in axes) == 0:
                raise _empty_axis_error(func, x.shape, axes)
        return npfunc(x, axis=axis, keepdims=keepdims, **kwargs)

    impl.__name__ = impl.__qualname__ = func
    impl.__doc__ = (f"{func.capitalize()} of a NumPy array (array API standard ``{func}``):"
                    f" ``numpy.{func}``, except that an empty selection raises ValueError"
                    " naming the empty axis (the same text as on CuPy).")
    return impl


register("min", "numpy")(_np_minmax("min", np.min))
register("max", "numpy")(_np_minmax("max", np.max))


# ----------------------------------------------------------------------------- sum .. std
def _np_checked(func: str):
    """The NumPy implementation of ``func`` (sum, prod, mean, var, std):
    ``array_api_compat.numpy``'s, after the argument checks of the CuPy path, so that a
    bad ``axis`` or ``correction`` raises the same clear error on both backends (NumPy's
    own messages do not name the argument, and it accepted ``correction=True``)."""

    def impl(x, /, *, axis=None, keepdims=False, **kwargs):
        if axis is not None and isinstance(x, (np.ndarray, np.generic)):
            axis = normalize_axis(func, axis, np.ndim(x))
        if "correction" in kwargs:
            _check_correction(func, kwargs["correction"])
        return getattr(_backend.namespace("numpy"), func)(x, axis=axis, keepdims=keepdims,
                                                          **kwargs)

    impl.__name__ = impl.__qualname__ = func
    impl.__doc__ = (f"{func.capitalize()} of a NumPy array (array API standard ``{func}``):"
                    " ``array_api_compat.numpy``'s, with ``axis`` and ``correction`` checked"
                    " as on CuPy.")
    # the standard signature, the CuPy implementation's (keywords go through **kwargs)
    impl.__signature__ = inspect.signature(getattr(reductions, func))
    return impl


for _name in ("sum", "prod", "mean", "var", "std"):
    register(_name, "numpy")(_np_checked(_name))
del _name


# ----------------------------------------------------------------------------- scans
def _np_scan(func: str):
    """The NumPy implementation of ``func``: ``array_api_compat.numpy``'s, with the
    arguments checked as on CuPy, and a 0-D array scanned as one of shape ``(1,)``
    (array_api_compat fails on 0-D with ``include_initial=True``)."""

    def impl(x, /, *, axis=None, dtype=None, include_initial=False):
        if not isinstance(include_initial, (bool, np.bool_)):
            raise type_error(func, "include_initial", include_initial, "a bool")
        if isinstance(x, np.generic):
            x = np.asarray(x)
        if isinstance(x, np.ndarray) and x.ndim == 0:
            x = x.reshape(1)
        if isinstance(x, np.ndarray):
            axis = normalize_scan_axis(func, axis, x.ndim)
        f = getattr(_backend.namespace("numpy"), func)
        return f(x, axis=axis, dtype=dtype, include_initial=bool(include_initial))

    impl.__name__ = impl.__qualname__ = func
    impl.__doc__ = (f"``{func}`` of a NumPy array (array API standard): "
                    "``array_api_compat.numpy``'s, with the argument errors of the CuPy "
                    "path; a 0-D array is scanned as one of shape (1,), as on CuPy.")
    return impl


register("cumulative_sum", "numpy")(_np_scan("cumulative_sum"))
register("cumulative_prod", "numpy")(_np_scan("cumulative_prod"))
