"""``sort`` and ``argsort`` on the CuPy backend: rows of at most 16 elements along the
sorted axis on xstride's rows kernel (:mod:`xstride._kernels.sort_rows`), the rest on
array-api-compat's CuPy functions as before.

CuPy's sort along a short axis is a segmented sort: 12.4 ms for the rows of a
``(2**24, 3)`` float64 array on an H100, where one thread a row sorts them in registers
at copy speed. The arguments are checked as on the NumPy backend (``check_sort_args``:
the same errors); the order is NumPy's: stable, NaN last ascending and first descending,
equal elements in their order either way. A descending sort of longer rows is the flip
of the ascending sort of the flipped array, as on the NumPy backend (compat's flip of
the ascending sort reversed equal elements: -0.0 and 0.0), made C-ordered. Imported on
the first lookup with the other fixes (``overrides.py``).
"""

from __future__ import annotations

import operator

from .arg_checks import check_sort_args, sort_descending
from .dispatch import compat_function, register

__all__ = []

_BACKEND = "cupy"


def _short_rows(x, axis: int) -> bool:
    """Whether the rows kernel sorts ``x`` along ``axis``: a dtype it orders, at most
    ``MAX_ROW`` elements along the axis, a plain CuPy array."""
    from .._kernels import sort_rows as K

    return x.ndim >= 1 and x.dtype.name in K.DTYPES and 1 <= x.shape[axis] <= K.MAX_ROW


def _sorted_rows(x, axis: int, descending: bool, arg: bool):
    """Sort (or argsort) ``x`` along ``axis`` by rows: the axis moved last and the rows
    made C-ordered (a copy only where they are not), the result's axis moved back and
    made C-ordered, as NumPy's and CuPy's sorts return it (a copy only for another axis
    than the last)."""
    import cupy

    from .._kernels import sort_rows as K

    moved = cupy.moveaxis(x, axis, -1)
    rows = cupy.ascontiguousarray(moved).reshape(-1, moved.shape[-1])
    out = K.sort_rows(rows, descending, arg).reshape(moved.shape)
    return cupy.ascontiguousarray(cupy.moveaxis(out, -1, axis))


def _flat(x, axis):
    """``axis=None``: the flattened array along its one axis (NumPy's flattened sort)."""
    if axis is None and hasattr(x, "reshape"):
        return x.reshape(-1), -1
    return x, axis


@register("sort", _BACKEND)
def sort(x, /, *, axis=-1, descending=False, stable=True, **kwargs):
    """``sort`` of the standard on CuPy arrays: rows of at most 16 elements on the rows
    kernel, other arrays by array-api-compat's ``sort``."""
    x, axis = _flat(x, axis)
    check_sort_args("sort", x, axis, descending, stable, kwargs)
    axis = operator.index(axis)   # (a 0-D integer array too)
    if not kwargs and _short_rows(x, axis):
        return _sorted_rows(x, axis, bool(descending), arg=False)
    if descending:   # equal elements (-0.0 and 0.0) in their order, as argsort keeps them
        import cupy

        return cupy.ascontiguousarray(sort_descending(
            cupy.flip, compat_function(_BACKEND, "sort"), x, axis, **kwargs))
    return compat_function(_BACKEND, "sort")(x, axis=axis, descending=descending,
                                             stable=stable, **kwargs)


@register("argsort", _BACKEND)
def argsort(x, /, *, axis=-1, descending=False, stable=True, **kwargs):
    """``argsort`` of the standard on CuPy arrays (int64 indices): rows of at most 16
    elements on the rows kernel, other arrays by array-api-compat's ``argsort``."""
    x, axis = _flat(x, axis)
    check_sort_args("argsort", x, axis, descending, stable, kwargs)
    axis = operator.index(axis)
    if not kwargs and _short_rows(x, axis):
        return _sorted_rows(x, axis, bool(descending), arg=True)
    return compat_function(_BACKEND, "argsort")(x, axis=axis, descending=descending,
                                                stable=stable, **kwargs)
