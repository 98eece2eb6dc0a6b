"""``vecdot`` and ``count_nonzero`` on the CuPy backend, on xstride's own kernels.

``array_api_compat``'s CuPy namespace builds both from CuPy calls that are slow on the
shapes particle codes have: ``vecdot`` of two ``(n, 3)`` arrays is a batched ``matmul``
of ``n`` products of a ``(1, 3)`` and a ``(3, 1)`` matrix (22 ms for 2**24 float32
rows on an H100, against 0.35 ms for CuPy's ``(x1 * x2).sum(axis=-1)``), and
``count_nonzero(b, axis=0)`` of an ``(n, 3)`` array is CuPy's reduction along a long axis
of few outputs (24 ms). Here ``vecdot`` is the sum of ``conj(x1) * x2`` along ``axis``
in the product's dtype, and ``count_nonzero`` the int64 sum of ``x != 0``, both by the
elementwise engine and the reductions (docs/performance.md, "Particle shapes beyond
the sweep"). Imported on the first lookup with the other fixes (``overrides.py``).
"""

from __future__ import annotations

import builtins

import numpy as np

from .._core.errors import type_error
from .._plans.reduction import normalize_axis, normalize_one_axis
from .arg_checks import check_flag
from .dispatch import compat_function, implementation, register
from .matmul_checks import vecdot_shape_error, zero_d_error

__all__ = []

_BACKEND = "cupy"


def _own(qualname: str):
    return implementation(_BACKEND, qualname)


@register("vecdot", _BACKEND)
def vecdot(x1, x2, /, *, axis=-1):
    """``vecdot`` of the standard: ``sum(conj(x1) * x2, axis=axis)`` in the dtype of the
    product (the operands broadcast except along ``axis``, which must lie in both).
    Boolean operands go to the library's ``vecdot`` (a sum of booleans has no dtype of
    its own)."""
    if not (hasattr(x1, "ndim") and hasattr(x2, "ndim")):
        return compat_function(_BACKEND, "vecdot")(x1, x2, axis=axis)   # its own error
    if x1.ndim == 0 or x2.ndim == 0:
        raise zero_d_error("vecdot", x1, x2)
    normalize_one_axis("vecdot", axis, builtins.min(x1.ndim, x2.ndim))
    bad = vecdot_shape_error(x1, x2, axis)
    if bad is not None:
        raise bad
    if x1.dtype == np.bool_ or x2.dtype == np.bool_:
        return compat_function(_BACKEND, "vecdot")(x1, x2, axis=axis)
    a = _own("conj")(x1) if x1.dtype.kind == "c" else x1
    product = _own("multiply")(a, x2)
    return _own("sum")(product, axis=axis, dtype=product.dtype)


@register("count_nonzero", _BACKEND)
def count_nonzero(x, /, *, axis=None, keepdims=False):
    """``count_nonzero`` of the standard: the int64 sum of ``x != 0`` (NaN counts as
    nonzero) over ``axis`` (an int, a tuple of ints or None, checked as the reductions'
    axes)."""
    if not (hasattr(x, "ndim") and hasattr(x, "dtype")):
        raise type_error("count_nonzero", "x", x, "an array of the cupy backend "
                                                  "(xstride.asarray(x) makes one)")
    check_flag("count_nonzero", "keepdims", keepdims)
    normalize_axis("count_nonzero", axis, x.ndim)
    nonzero = x if x.dtype == np.bool_ else _own("not_equal")(x, 0)
    return _own("sum")(nonzero, axis=axis, dtype=np.int64, keepdims=bool(keepdims))
