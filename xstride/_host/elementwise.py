"""NumPy side of the elementwise functions that take xstride's ``out=`` extension.

Without ``out=`` these call ``array_api_compat.numpy`` unchanged (NumPy's results,
NumPy's speed). With ``out=`` they call the NumPy ufunc with ``out=out`` (NumPy
already copies inputs that overlap the output, so ``add(a[1:], a[:-1], out=a[1:])``
is NumPy's answer), after the checks the CuPy path makes too: ``out`` must be a NumPy
array that does not overlap itself (``ValueError`` otherwise, where NumPy would
silently write one element twice).
"""

from __future__ import annotations

import numpy as np

import array_api_compat.numpy as _compat

from .._core.ufuncs import ENGINE_UFUNCS, numpy_ufunc_name
from .._core.errors import type_error, value_error
from ..layout import check_output

__all__ = ["check_out", "copy_into"]

_UFUNCS = tuple(ENGINE_UFUNCS)


def check_out(func: str, out, arg: str = "out") -> None:
    """``out`` must be a writeable NumPy array that reaches each of its elements once.

    A length-1 axis of stride 0 reaches its element once; a field of a structured array
    (byte strides that are not multiples of the item size) is accepted, as NumPy does.
    """
    if not isinstance(out, np.ndarray):
        raise type_error(func, arg, out, "a numpy.ndarray (the inputs are NumPy arrays)")
    check_output(func, arg, out)   # Layout's test on byte strides (fields of records too)
    if not out.flags.writeable:
        raise value_error(func, arg, f"is read-only (shape {out.shape}, dtype {out.dtype})")


def _make(func):
    compat = getattr(_compat, func)
    uf = getattr(np, numpy_ufunc_name(func))
    if uf.nin == 2:
        def impl(x1, x2, /, *, out=None):
            if out is None:
                return compat(x1, x2)
            check_out(func, out)
            _check_shape(func, out, np.broadcast_shapes(np.shape(x1), np.shape(x2)))
            return uf(x1, x2, out=out)
    else:
        def impl(x, /, *, out=None):
            if out is None:
                return compat(x)
            check_out(func, out)
            _check_shape(func, out, np.shape(x))
            return uf(x, out=out)
    impl.__name__ = impl.__qualname__ = func
    impl.__doc__ = compat.__doc__
    return impl


def _check_shape(func, out, shape):
    if tuple(out.shape) != tuple(shape):
        raise value_error(func, "out", f"has shape {out.shape}; expected the broadcast "
                                       f"shape {tuple(shape)}")


_compat_where = _compat.where


def where(condition, x1, x2, /, *, out=None):
    """``where`` of the standard on NumPy arrays; ``out=`` (xstride extension)."""
    res = _compat_where(condition, x1, x2)
    if out is None:
        return res
    check_out("where", out)
    _check_shape("where", out, np.shape(res))
    if not np.can_cast(res.dtype, out.dtype, casting="same_kind"):
        raise TypeError(f"where: argument 'out' has dtype {out.dtype}, but the result "
                        f"dtype {res.dtype} cannot be cast to it (same_kind rule)")
    np.copyto(out, res)
    return out


def copy_into(dst, src):
    """NumPy: ``numpy.copyto(dst, src)`` after the self-overlap check."""
    check_out("copy_into", dst, "dst")
    try:
        np.shape(src)
    except ValueError:   # a ragged nesting of lists
        raise type_error("copy_into", "src", src, "a numpy.ndarray or a Python scalar "
                                                  "(or a rectangular nested list)") from None
    try:
        np.broadcast_shapes(np.shape(src), dst.shape)
        if np.broadcast_shapes(np.shape(src), dst.shape) != dst.shape:
            raise ValueError
    except ValueError:
        raise ValueError(f"copy_into: shapes {np.shape(src)} and {dst.shape} cannot be "
                         "broadcast together (into dst)") from None
    src_dtype = src.dtype if isinstance(src, np.ndarray) else None
    if src_dtype is not None and not np.can_cast(src_dtype, dst.dtype, casting="same_kind"):
        raise TypeError(f"copy_into: cannot copy {src_dtype} into dst of dtype {dst.dtype} "
                        "(NumPy's same_kind casting rule)")
    try:
        np.copyto(dst, src, casting="same_kind")
    except TypeError as exc:  # a Python scalar that does not fit dst's kind
        raise TypeError(f"copy_into: {exc}") from None
    except OverflowError as exc:  # a Python int out of dst's range (300 into int8)
        raise OverflowError(f"copy_into: src {src!r} does not fit dst's dtype {dst.dtype} "
                            f"({exc})") from None
    return dst


#: The namespace functions this executor implements (registered by
#: ``xstride.elementwise``), and what a call without keyword arguments runs: the
#: library function as it is.
FUNCTIONS = {f: _make(f) for f in _UFUNCS}
FUNCTIONS["where"] = where
POSITIONAL = {f: getattr(_compat, f) for f in FUNCTIONS}
