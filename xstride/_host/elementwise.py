"""The NumPy executor of the elementwise functions' ``out=`` extension and of
``copy_into``.

``xstride.elementwise`` checks the arguments (``out`` a writeable NumPy array of the
broadcast shape that reaches each element once; ``same_kind`` casts); without ``out=``
the namespace calls ``array_api_compat.numpy`` unchanged. Here the NumPy ufunc runs
with ``out=out``: NumPy copies inputs that overlap the output, so
``add(a[1:], a[:-1], out=a[1:])`` is NumPy's answer.
"""

from __future__ import annotations

import numpy as np

from .._core.errors import broadcast_error, describe, error, type_error
from .._core.intseq import leaves
from .._core.ufuncs import NUMPY_OUT_INTO_A_COPY, numpy_ufunc_name

__all__ = ["ufunc_into", "through_contiguous_out", "copy_into", "ENGINE", "ACCEPTS_SEQUENCES", "WHOLE_ELEMENTS"]

#: The library computes these functions: no engine of xstride's here.
ENGINE = False
#: ``copy_into`` takes nested lists as ``src`` (``numpy.copyto`` does).
ACCEPTS_SEQUENCES = True
#: Outputs may be fields of records (NumPy indexes bytes).
WHOLE_ELEMENTS = False



def ufunc_into(func: str, args: tuple, out):
    """NumPy's ufunc of the standard's ``func`` with ``out=out`` (checked by the caller);
    :data:`~xstride._core.ufuncs.NUMPY_OUT_INTO_A_COPY` through a contiguous copy of
    ``out`` where ``out`` is not contiguous (:func:`through_contiguous_out`)."""
    ufunc = getattr(np, numpy_ufunc_name(func))
    if func in NUMPY_OUT_INTO_A_COPY and not out.flags.forc:
        return through_contiguous_out(ufunc, args, out, {})
    return ufunc(*args, out=out)


def through_contiguous_out(fn, args: tuple, out, kwargs: dict):
    """``fn(*args, out=out, **kwargs)`` (a NumPy ufunc) run into a C-contiguous copy of
    ``out`` (``out=(o,)``: of ``o``), which is then written back into ``out``, and
    ``out``'s array returned: NumPy's loop into such an ``out`` computes what it computes
    into ``out`` itself, ``where=`` leaves the copy's (``out``'s) values, and a
    ``numpy.ma`` ``out`` gets the ufunc's mask. A read-only ``out`` gets NumPy's own
    call (its error)."""
    o = out[0] if type(out) is tuple else out
    if not o.flags.writeable:
        return fn(*args, out=out, **kwargs)
    tmp = o.copy(order="C")
    fn(*args, out=(tmp,) if type(out) is tuple else tmp, **kwargs)
    o[...] = tmp
    return o


def copy_into(dst, src):
    """``numpy.copyto(dst, src, casting="same_kind")`` (``dst`` checked by the caller);
    NumPy's errors re-raised naming ``copy_into``."""
    try:
        shape = np.shape(src)
    except ValueError:   # a ragged nesting of lists
        raise type_error("copy_into", "src", src, "a numpy.ndarray or a Python scalar "
                                                  "(or a rectangular nested list)") from None
    try:
        if np.broadcast_shapes(shape, dst.shape) != dst.shape:
            raise ValueError
    except ValueError:
        raise broadcast_error("copy_into", (shape, dst.shape), into="dst") from None
    if dst.dtype.kind in "iu" and isinstance(src, (list, tuple)):
        src = _check_int_items(dst, src)
    if isinstance(src, np.ndarray) and np.may_share_memory(dst, src):
        # copyto makes a temporary only for a dst of 2 or more axes (or of fields): a
        # 1-D dst is walked in one direction, and a src of another stride (or a
        # broadcast element inside dst) is read after parts of it were written
        src = src.copy()
    try:
        np.copyto(dst, src, casting="same_kind")
    except TypeError:  # a sequence whose values do not fit dst's kind
        kind = np.asarray(src).dtype
        raise type_error("copy_into", "src", src, f"values that cast to dst's dtype "
                         f"{dst.dtype} by the same_kind rule (these are {kind})") from None
    except OverflowError as exc:  # a Python int out of dst's range (300 into int8)
        text = repr(src) if len(repr(src)) <= 40 else describe(src)   # not 600 digits
        raise error(OverflowError, "copy_into",
                    f"src {text} does not fit dst's dtype {dst.dtype} ({exc})") from None
    return dst


def _check_int_items(dst, src):
    """The Python ints of a (nested) list ``src`` are weak as a scalar is (NEP 50): each
    must fit ``dst``'s integer dtype (``copyto`` made the list int64 and wrapped
    ``[1, 300]`` into int8 as ``[1, 44]``, where ``300`` alone raises). A list of Python
    ints and bools alone is returned as an array of ``dst``'s dtype (``copyto``'s int64
    or uint64 array of it was no same_kind cast into an unsigned ``dst``, or into int64
    from ``[2**63, 1]``: a ``TypeError`` for ``[1, 0]`` into uint8); any other list is
    returned as it is."""
    items = list(leaves(src))
    if items and all(type(v) in (int, bool) for v in items):
        info = np.iinfo(dst.dtype)
        bad = next((v for v in items if not info.min <= v <= info.max), None)
        if bad is not None:
            raise _int_overflow(dst, src, bad)
        return np.asarray(src, dtype=dst.dtype)
    ints = np.asarray(src).dtype
    if ints.kind in "iu" and np.can_cast(ints, dst.dtype, casting="same_kind"):
        try:
            np.asarray(src, dtype=dst.dtype)   # NumPy's OverflowError where one does not fit
        except OverflowError:
            # NumPy raises it for NumPy integer scalars in the list too ([np.int64(300)]),
            # which are not weak: those are cast by same_kind as an array of them is
            info = np.iinfo(dst.dtype)
            bad = next((v for v in leaves(src) if isinstance(v, int)
                        and not isinstance(v, bool) and not info.min <= v <= info.max), None)
            if bad is not None:
                raise _int_overflow(dst, src, bad) from None
    return src


def _int_overflow(dst, src, bad: int) -> OverflowError:
    return error(OverflowError, "copy_into",
                 f"src (a {type(src).__name__} of ints) does not fit dst's dtype {dst.dtype} "
                 f"(Python integer {bad} out of bounds for {dst.dtype})")
