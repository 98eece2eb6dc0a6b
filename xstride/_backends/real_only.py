"""The ``TypeError`` of a complex argument to an elementwise function of real-valued
input, naming the argument.

The standard's ``atan2``, ``ceil``, ``copysign``, ``floor``, ``floor_divide``,
``hypot``, ``logaddexp``, ``nextafter``, ``remainder``, ``signbit`` and ``trunc``
take real-valued input ("Should have a real-valued ... data type"). The libraries
refused a complex one in their own words, naming no argument: NumPy's "ufunc 'hypot'
not supported for the input types, and the inputs could not be safely coerced to any
supported types according to the casting rule ''safe''", dask's "Parameters of such
types are not supported by hypot". The dispatch (``dispatch.follower``) asks
:func:`complex_argument_error` on the way out of a library's ``TypeError``: for one of
these functions the first complex argument (an array or NumPy scalar of a complex
dtype, a Python ``complex``) is named, on every backend, as xstride's checks name
arguments. The functions are not listed here but read from NumPy's loops: those whose
ufunc takes float64 and no complex128 (the bitwise functions, which take no real
floats either, are not among them). So for a floating or complex argument of the
bitwise functions and shifts (:func:`inexact_argument_error`; those whose ufunc takes
integers and no float64), and a bool one of ``negative``, ``positive``, ``sign`` and
``subtract`` (:func:`bool_argument_error`).
"""

from __future__ import annotations

import functools

import numpy as np

from .._core.errors import type_error
from .._core.names import ELEMENTWISE
from .._core.ufuncs import numpy_ufunc_name

__all__ = ["complex_argument_error", "bool_argument_error", "bool_operand_error",
           "inexact_argument_error"]

_ELEMENTWISE = frozenset(ELEMENTWISE)


def _takes(qualname: str, dtype) -> bool:
    """``qualname`` is an elementwise function whose NumPy ufunc has a loop for every
    input of ``dtype``."""
    uf = getattr(np, numpy_ufunc_name(qualname), None) if qualname in _ELEMENTWISE else None
    if not isinstance(uf, np.ufunc):
        return False
    try:
        uf.resolve_dtypes((np.dtype(dtype),) * uf.nin + (None,) * uf.nout)
    except TypeError:
        return False
    return True


@functools.cache
def real_only(qualname: str) -> bool:
    """``qualname`` is an elementwise function whose NumPy ufunc takes real floats and no
    complex input."""
    return _takes(qualname, np.float64) and not _takes(qualname, np.complex128)


@functools.cache
def numeric_only(qualname: str) -> bool:
    """``qualname`` is an elementwise function whose NumPy ufunc takes integers and no
    bool input (``negative``, ``positive``, ``sign``, ``subtract``)."""
    return _takes(qualname, np.int8) and not _takes(qualname, np.bool_)


@functools.cache
def integer_only(qualname: str) -> bool:
    """``qualname`` is an elementwise function whose NumPy ufunc takes integers and no
    real float input (the bitwise functions and shifts)."""
    return _takes(qualname, np.int8) and not _takes(qualname, np.float64)


#: What to write instead, for the functions a bool argument is most often given to.
_INSTEAD = {"negative": "logical_not or ~", "subtract": "logical_xor or ^",
            "positive": "the array itself", "sign": "the array itself, or astype"}


def _kind(v) -> str | None:
    """The dtype kind of an array or NumPy scalar, ``"c"``/``"f"``/``"i"`` for a Python
    complex, float or int (or bool), else None."""
    if isinstance(v, (bool, int, float, complex)) and not isinstance(v, np.generic):
        return "c" if isinstance(v, complex) else "f" if isinstance(v, float) else "i"
    if isinstance(v, type):
        return None
    try:
        return getattr(getattr(v, "dtype", None), "kind", None)
    except Exception:   # a property that raises: no array
        return None


def _numbers(named) -> tuple:
    """``named`` without its None values, and the :func:`_kind` of each; ``(None, None)``
    where an argument is no number at all (a str, an object or datetime array): then
    the library's error is about that argument, not about a complex or bool one."""
    named = [(name, value) for name, value in named if value is not None]
    kinds = [_kind(value) for _, value in named]
    if any(k is None or k not in "biufc" for k in kinds):
        return None, None
    return named, kinds


def _first_of_kind(exc: Exception, qualname: str, named, applies, kinds: str):
    """``(func, name, value)`` of the first argument of ``named`` (``(name, value)``
    pairs of the call) whose :func:`_kind` is in ``kinds``, where ``applies(qualname)``,
    the library's ``exc`` is a ``TypeError`` that names no argument and every argument is
    a number (an array or scalar of a bool or numeric dtype, a Python number); else None
    (``exc`` stands: an argument of no number at all, a str or an object array's element,
    is what the library's error is about)."""
    if not isinstance(exc, TypeError) or not applies(qualname) or "argument '" in str(exc):
        return None
    named, found = _numbers(named)
    if named is None:
        return None
    for (name, value), kind in zip(named, found):
        if kind in kinds:
            return qualname.rsplit(".", 1)[-1], name, value
    return None


def complex_argument_error(exc: Exception, qualname: str, named) -> TypeError | None:
    """The ``TypeError`` naming the first complex argument of a function of
    :func:`real_only` input (:func:`_first_of_kind`), else None."""
    hit = _first_of_kind(exc, qualname, named, real_only, "c")
    if hit is None:
        return None
    func, name, value = hit
    return type_error(func, name, value, "a real-valued array or Python scalar "
                                         f"({func} takes real-valued input only)")


def bool_argument_error(exc: Exception, qualname: str, named) -> TypeError | None:
    """The ``TypeError`` naming the first bool argument (an array or NumPy scalar of
    dtype bool; a Python ``bool`` is an int to the libraries) of a function of
    :func:`numeric_only` input, where the library named none (NumPy's "The numpy boolean
    negative ... is not supported", dask's "Parameters of such types are not supported by
    negative" or "operand type(s) all returned NotImplemented"); else None."""
    hit = _first_of_kind(exc, qualname, named, numeric_only, "b")
    return None if hit is None else bool_operand_error(*hit)


def bool_operand_error(func: str, name: str, value) -> TypeError:
    """The ``TypeError`` of a bool ``value`` given as argument ``name`` of ``func``, a
    function of numeric input, saying what to write instead."""
    instead = _INSTEAD.get(func)
    return type_error(func, name, value, f"a numeric array ({func} takes no bool input"
                      + (f"; for bool, {instead}" if instead else "") + ")")


def inexact_argument_error(exc: Exception, qualname: str, named) -> TypeError | None:
    """The ``TypeError`` naming the first floating or complex argument (an array or NumPy
    scalar of such a dtype, a Python ``float`` or ``complex``) of a function of
    :func:`integer_only` input, where the library named none (NumPy's "ufunc
    'bitwise_and' not supported for the input types, ...", dask's "Parameters of such
    types are not supported by bitwise_and"); else None."""
    hit = _first_of_kind(exc, qualname, named, integer_only, "fc")
    if hit is None:
        return None
    func, name, value = hit
    takes = "an integer or bool" if _takes(qualname, np.bool_) else "an integer"
    return type_error(func, name, value, f"{takes} array or Python int ({func} takes no "
                                         "floating-point or complex input)")
