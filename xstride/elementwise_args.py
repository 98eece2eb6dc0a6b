"""The checks of the elementwise functions' arguments, for :mod:`xstride.elementwise`
(and ``xp.fuse``'s tracer, ``xstride/fusion/``): a Python scalar's kind
(:func:`scalar_kind`: weak, NEP 50), ``where``'s operands (a Python int that fits the
dtype it takes, values of no number refused), an ``out=`` (:func:`check_out`: the
backend's array of the result's shape, to which the result casts, reaching each element
once, writeable), and ``astype``'s ``dtype`` and ``copy`` (a complex dtype into a real
one refused). Each raises the error naming the argument. No name of the namespace:
the module's names are xstride's own (``xstride.elementwise`` imports them).
"""

from __future__ import annotations

import numpy as np

from ._core.errors import cast_error, error, immutable_error, overflow_error, type_error, value_error
from .layout import check_output

__all__ = ["NUMERIC", "scalar_kind", "check_where_ints", "check_where_values", "check_out",
           "astype_dtype", "check_astype_complex", "check_astype_copy"]

#: dtype kinds the functions take: bool, signed, unsigned, floating, complex
NUMERIC = "biufc"


def scalar_kind(v):
    """``type(v)`` for a Python scalar (bool, int, float, complex), else None (a NumPy
    scalar too, although ``numpy.float64`` subclasses ``float``: it is strong, NEP 50,
    and :func:`xstride.elementwise.classify` takes its dtype)."""
    if isinstance(v, bool):
        return bool
    if isinstance(v, (int, float, complex)) and not isinstance(v, np.generic):
        return type(v)
    return None


def check_where_ints(x1, x2) -> None:
    """``where``'s Python int operand: a weak scalar, which takes the other operand's
    integer dtype as in ``add`` (NEP 50), or NumPy's default integer (int64) beside a
    bool or another Python int, so it must fit that dtype (NumPy's ``where`` wrapped
    ``where(c, int8_array, 1000)`` to -24 where ``add(int8_array, 1000)`` raises, and
    ``where(c, 2**63, 1)`` to -2**63).

    Raises
    ------
    OverflowError
        The int is out of the bounds of the dtype it takes.
    """
    for name, v, other in (("x1", x1, x2), ("x2", x2, x1)):
        if type(v) is int:
            dt = getattr(other, "dtype", None)
            if isinstance(other, (bool, int)) or (dt is not None and dt.kind == "b"):
                dt, beside = np.dtype(np.int64), ("NumPy's default integer, which it takes "
                                                  "beside a bool or a Python int")
            elif dt is not None and dt.kind in "iu":
                beside = "the dtype of the other operand it takes (as in add)"
            else:
                continue
            info = np.iinfo(dt)
            if not info.min <= v <= info.max:
                raise overflow_error("where", name, f"is the Python int {v}, out of bounds "
                                                    f"for {dt}, {beside}")


def check_where_values(be, condition, x1, x2) -> None:
    """``where``'s arguments on a backend whose library computes it: each an array of
    ``be`` (left to the library), a NumPy scalar of a bool or numeric dtype, or a Python
    bool, int, float or complex, as the standard has them (the engine's :func:`xstride.elementwise.classify`
    asks the same). NumPy's ``where`` made ``where(c, x, None)`` an object array and
    ``where(c, x, "a")`` a str array; dask's returned ``NotImplemented`` for a str or a
    ``numpy.datetime64`` and said "either both or neither of x and y should be given"
    for ``None``. Objects that are array-likes of another library (``__array__``,
    ``__array_interface__``, ``__dlpack__``) are left to the library; a list, a tuple or
    a range is refused, as the elementwise functions refuse one (NumPy's ``where`` made
    an array of it, CuPy's refuses it).

    Raises
    ------
    TypeError
        Any other value (a list, ``None``, a str, a ``Fraction``, a
        ``numpy.datetime64``...), naming the argument.
    """
    for name, v in (("condition", condition), ("x1", x1), ("x2", x2)):
        if be.owns(v) and not isinstance(v, np.generic):
            continue
        if isinstance(v, np.generic):
            if v.dtype.kind in NUMERIC:
                continue
        elif (scalar_kind(v) is not None
              or any(hasattr(v, a) for a in ("__array__", "__array_interface__",
                                              "__dlpack__"))):
            continue
        raise type_error("where", name, v, f"an array of the {be.name} backend or a Python "
                                           "bool, int, float or complex")


def check_out(func: str, out, shape, dtype, be, arg: str = "out", *,
              whole_elements: bool = False, numeric: bool = True, owns=None) -> None:
    """An ``out=`` argument: an array of backend ``be``, to which ``dtype`` casts
    (``same_kind``), of ``shape``, that reaches each of its elements once (a length-1
    axis of stride 0 does; Layout's test on the byte strides), writeable where the
    backend has the flag. ``whole_elements``: refuse a record's field (an executor that
    indexes whole elements); ``numeric``: refuse dtypes other than bool and numbers (the
    functions of this module; ``copy_into`` copies any dtype its library copies).

    Raises
    ------
    TypeError
        Not an array of ``be``; a cast that is not ``same_kind``.
    ValueError
        Another shape; an output that overlaps itself; a read-only output.
    """
    if be.immutable:
        raise immutable_error(func, arg, out, be.name, "use the returned array (call "
                              "without out=)" if arg == "out" else "use the result of "
                              "an expression instead of writing into dst")
    if not (owns or be.owns)(out) or isinstance(out, np.generic):
        raise type_error(func, arg, out, f"an array of the {be.name} backend (the inputs' "
                                         "backend)")
    if numeric and out.dtype.kind not in NUMERIC:
        raise type_error(func, arg, out, "an array of a bool or numeric dtype")
    if dtype is not None and not np.can_cast(dtype, out.dtype, casting="same_kind"):
        raise cast_error(func, arg, out.dtype, np.dtype(dtype), "same_kind")
    if shape is not None and tuple(out.shape) != tuple(shape):
        raise value_error(func, arg, f"has shape {tuple(out.shape)}; expected the broadcast "
                                     f"shape {tuple(shape)}")
    check_output(func, arg, out, whole_elements=whole_elements)
    flags = getattr(out, "flags", None)
    if be.readonly_views and flags is not None and not flags.writeable:
        raise value_error(func, arg, f"is read-only (shape {out.shape}, dtype {out.dtype})")


def astype_dtype(be, x, dtype, copy=True) -> np.dtype:
    """``astype``'s rules: ``x`` an array of ``be``, ``dtype`` a bool or numeric dtype,
    ``copy`` a bool (NumPy's took any value by its truth: ``copy="no"`` copied)."""
    if not be.owns(x) or (isinstance(x, np.generic) and not be.readonly_views):
        raise type_error("astype", "x", x, f"an array of the {be.name} backend")
    check_astype_copy(copy)
    if dtype is None:   # np.dtype(None) is float64: a silent cast to float64
        raise type_error("astype", "dtype", dtype, "a dtype (astype has no default dtype)")
    try:
        dt = np.dtype(dtype)
    except TypeError:
        raise type_error("astype", "dtype", dtype, "a dtype") from None
    kind = dt.kind
    if kind not in NUMERIC:
        raise type_error("astype", "dtype", dtype, "a bool or numeric dtype of the namespace")
    if kind in "iuf" and x.dtype.kind == "c":
        check_astype_complex(x.dtype, dt)
    return dt


def check_astype_complex(from_dtype, to_dtype) -> None:
    """``astype`` of a complex dtype into a real-valued one: a ``TypeError`` (the
    standard, "astype": "Casting a complex floating-point array to a real-valued data
    type should not be permitted"; NumPy and CuPy kept the real part with a
    ``ComplexWarning``, dask silently). Into a complex dtype or bool is a cast."""
    if np.dtype(from_dtype).kind == "c" and np.dtype(to_dtype).kind in "iuf":
        raise error(TypeError, "astype", f"cannot cast x of dtype {np.dtype(from_dtype)} to "
                                         f"the real-valued dtype {np.dtype(to_dtype)} (the "
                                         "standard does not permit it: which part to keep is "
                                         "a choice); cast xstride.real(x) or xstride.imag(x)")


def check_astype_copy(copy) -> None:
    """``astype``'s ``copy``: ``True`` or ``False`` (a NumPy bool too), as the standard
    has it; ``TypeError`` naming the argument for anything else (``None`` included)."""
    if copy is not True and copy is not False and not isinstance(copy, np.bool_):
        raise type_error("astype", "copy", copy, "True or False")
