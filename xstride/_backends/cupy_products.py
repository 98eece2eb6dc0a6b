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
import operator

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


def contracted(x1, x2, axis: int, ns):
    """``vecdot``'s sum of ``conj(x1) * x2`` along ``axis`` of each operand (NumPy's
    gufunc reads a non-negative axis in each operand's own dimensions), on the functions
    of ``ns`` (``moveaxis``, ``conj``, ``multiply``, ``sum``): each operand's axis moved
    last, the rest broadcast, the product summed in its own dtype. The shape check runs
    on the moved operands (lengths along the axis, then the other axes' broadcast)."""
    a1, a2 = ns.moveaxis(x1, axis, -1), ns.moveaxis(x2, axis, -1)
    bad = vecdot_shape_error(a1, a2, -1) if axis >= 0 else vecdot_shape_error(x1, x2, axis)
    if bad is not None:
        raise bad
    if a1.dtype.kind == "c":
        a1 = ns.conj(a1)
    product = ns.multiply(a1, a2)
    return ns.sum(product, axis=-1, dtype=product.dtype)


class _Own:
    """The CuPy backend's functions as :func:`contracted` calls them."""

    def __getattr__(self, name):
        if name == "moveaxis":
            import cupy

            return cupy.moveaxis   # a view: no copy
        return _own(name)


@register("vecdot", _BACKEND)
def vecdot(x1, x2, /, *, axis=-1):
    """``vecdot`` of the standard: the sum of ``conj(x1) * x2`` along ``axis`` in the
    dtype of the product (:func:`contracted`). Boolean operands go to the library's
    ``vecdot`` (a sum of booleans has no dtype of its own)."""
    if not (hasattr(x1, "ndim") and hasattr(x2, "ndim")):
        return compat_function(_BACKEND, "vecdot")(x1, x2, axis=axis)   # its own error
    if x1.ndim == 0 or x2.ndim == 0:
        raise zero_d_error("vecdot", x1, x2)
    normalize_one_axis("vecdot", axis, builtins.min(x1.ndim, x2.ndim))   # in both
    axis = operator.index(axis)   # its sign kept: a negative axis counts from each end
    if x1.dtype == np.bool_ or x2.dtype == np.bool_:
        return compat_function(_BACKEND, "vecdot")(x1, x2, axis=axis)
    return contracted(x1, x2, axis, _Own())


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
