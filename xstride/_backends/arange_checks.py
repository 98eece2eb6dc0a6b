"""``arange``'s arguments and length, one check for the NumPy and dask backends, and
the NumPy backend's ``arange``.

:func:`check_arange` names the argument of a call that is no real number (``arange(None)``
was NumPy's "unsupported operand type(s) for -: 'NoneType' and 'int'") and a length
past int64 (``arange(1e20)`` was NumPy's "Maximum allowed size exceeded"). The dask
backend runs it before dask's function (``dask_fixes.py``); the NumPy backend on
NumPy's error, so that a call NumPy takes costs nothing more.

NumPy computes the length (and from 2**63 on the values) of an ``arange`` of Python
ints in float64: ``arange(2**63, 2**63 + 3)`` gave three equal values, ``arange(2**63)``
and ``arange(0, 2**63, dtype=int8)`` an empty array. Where an int is 2**53 or more in
magnitude, the length is computed exactly and refused past int64 (the bytes of the
dtype's items); without ``dtype`` or into an integer one the values are exact too, and
into a float or complex ``dtype`` each is the exact integer rounded once to the dtype
(``arange(0, 2**63 + 5, 2**62, dtype=float64)`` is ``[0.0, 2.0**62, 2.0**63]``; NumPy's
had 2 values, and ``arange(2**53, 2**53 + 4, dtype=float64)`` four equal ones)
(:func:`wide_plan`, :func:`wide_values`: the dask backend's from each block's indices).
"""

from __future__ import annotations

import math

import numpy as np

from .._core.errors import argument_error, overflow_error, type_error, value_error
from .._core.sizes import INT64_MAX, checked_size, out_of_memory
from .arange_floats import float_values
from .arg_checks import check_step
from .fill_checks import INT_HI as _INT_HI, INT_LO as _INT_LO, short_int as _short
from .dispatch import compat_function, register

__all__ = ["arange_args", "check_arange", "refuse_complex", "check_arange_dtype",
           "bool_range", "arange",
           "wide_ints", "wide_plan", "wide_values"]

#: Python ints from this magnitude on are inexact as floats, in which NumPy's arange
#: computes its length (and from 2**63 on its values)
_EXACT_FLOAT = 2**53


def arange_args(args, kwargs):
    """``(start, stop, step)`` of an ``arange`` call (``arange(n)``: ``(0, n, 1)``)."""
    start = args[0] if args else kwargs.get("start")
    stop = args[1] if len(args) > 1 else kwargs.get("stop")
    step = args[2] if len(args) > 2 else kwargs.get("step", 1)
    return (0, start, step) if stop is None else (start, stop, step)


def check_arange_dtype(dtype, *, lazy: bool) -> None:
    """``arange``'s ``dtype`` one of numbers: a str, bytes or void dtype a ``TypeError``
    naming it (NumPy's "arange() not supported for inputs with DType" named no
    argument, and dask's failed only when computed); on the dask backend (``lazy``) a
    datetime64 one too (dask's had one value more than its shape)."""
    try:
        kind = np.dtype(dtype).kind if dtype is not None else "f"
    except TypeError:
        return   # no dtype: the dispatch's dtype check names it
    if kind in "USV" or (lazy and kind == "M"):
        raise type_error("arange", "dtype", dtype, "a numeric dtype" + (
            "; the dask backend's arange makes no datetime64 values" if kind == "M" else ""))


def refuse_complex(start, stop, step) -> None:
    """``arange``'s complex arguments refused before NumPy's or CuPy's ``arange`` (which
    take them) is called: :func:`check_arange`'s error, on every backend."""
    for v in (start, stop, step):
        t = type(v)
        if t is int or t is float or v is None:   # the common ends: no further look
            continue
        if isinstance(v, (complex, np.complexfloating)) or getattr(
                getattr(v, "dtype", None), "kind", None) == "c":
            check_arange((start, stop, step), {}, complex_ok=True)


def check_arange(args, kwargs, *, complex_ok: bool = False) -> None:
    """``arange``'s arguments real numbers, as the standard has them (NumPy's took
    complex ones: ``arange(1j)`` was an empty complex array; dask's refused them;
    ``complex_ok``: a backend whose library checks ``dtype``, NumPy's and CuPy's) and its
    length, where they are real numbers, finite and
    at most ``2**63 - 1`` (NumPy's ``ValueError``; dask's raised ``OverflowError``
    "cannot convert float infinity to integer" for ``arange(0, inf)`` and a
    ``TypeError`` from its ``isnan`` for ``arange(2**70)``)."""
    given = (("start", args[0] if args else kwargs.get("start")),
             ("stop", args[1] if len(args) > 1 else kwargs.get("stop", 0)),
             ("step", args[2] if len(args) > 2 else kwargs.get("step", 1)))
    if not complex_ok:   # the dask backend's: its dtype checked at the call
        check_arange_dtype(kwargs.get("dtype"), lazy=True)
    for arg, v in given:   # dask's made arange(None) an empty array, and named no
        complex_ = isinstance(v, complex) or getattr(   # argument
            v, "dtype", None) is not None and np.dtype(v.dtype).kind == "c"
        if (v is None and arg == "start") or complex_ or isinstance(
                v, (str, bytes, list, tuple)) or getattr(v, "ndim", 0) != 0:
            # (an array of one or more dimensions: NumPy's "only 0-dimensional arrays
            # can be converted to Python scalars", dask's inside its dispatch's message)
            raise type_error("arange", arg, v, "a real number (an int or a float)" + (
                "; the standard's arange takes no complex values" if complex_ else ""))
    start, stop, step = arange_args(args, kwargs)
    check_step(step)
    if not all(isinstance(v, (int, float, np.integer, np.floating))
               and not isinstance(v, bool) for v in (start, stop, step)) or step == 0:
        return   # the library's own checks answer
    if all(isinstance(v, (int, np.integer)) for v in (start, stop, step)):
        n = max(0, -(-(int(stop) - int(start)) // int(step)))
    else:
        n = (float(stop) - float(start)) / float(step)
    nan = next((arg for (arg, _), v in zip(given, (start, stop, step)) if v != v), None)
    if nan is not None:   # x.shape[0] of a dask array after boolean indexing is nan
        raise value_error("arange", nan, "is nan, which gives no number of elements (the "
                                         "length of a dask array after boolean indexing is "
                                         "nan: call x.compute_chunk_sizes() first)")
    if n != n or n > INT64_MAX:
        raise _length_error(n, start, step)


def bool_range(start, stop, step, dtype) -> bool:
    """Whether ``dtype`` is bool, its range then checked to be of at most 2 elements, as
    NumPy's ``arange`` makes them (``bool(start)``, ``bool(start + step)``). The dask
    backend's took ``arange(3, dtype=bool)`` as ``[False, True, True]`` and failed on a
    float ``start`` or ``step`` with NumPy's "numpy boolean subtract ... is not
    supported"; NumPy's own error named no argument.

    Raises
    ------
    TypeError
        A bool range of more than 2 elements, naming ``dtype``.
    """
    try:
        if dtype is None or np.dtype(dtype) != np.bool_:
            return False
    except TypeError:   # no dtype: the library's own error answers
        return False
    if all(isinstance(v, (int, np.integer)) for v in (start, stop, step)):
        n = max(0, -(-(int(stop) - int(start)) // int(step)))
    else:
        n = max(0, math.ceil((float(stop) - float(start)) / float(step)))
    if n > 2:
        raise _bool_error(n, start, step)
    return True


def _bool_error(n, start, step) -> TypeError:
    """The one message of a bool ``arange`` of more than 2 elements, on every backend."""
    return argument_error(TypeError, "arange", "dtype", f"is bool, whose arange has at most 2 "
                          f"elements (NumPy's rule); this one has {_text(n)} (from start "
                          f"{_text(start)} by step {_text(step)}): make an integer range "
                          "and compare it, or astype(bool) it")


def _text(v) -> str:
    return _short(int(v)) if isinstance(v, (int, np.integer)) else repr(v)


def _length_error(n, start, step) -> ValueError:
    """The one message of a length past int64, on every backend."""
    return value_error("arange", "stop", f"gives {_text(n)} elements from start "
                                        f"{_text(start)} by step {_text(step)}, which "
                                        "overflows int64 (at most 2**63 - 1)")


def _exact_length(start: int, stop: int, step: int, itemsize: int = 8) -> int:
    """The length of ``arange`` of Python ints, refused past int64 (in elements, or in
    bytes of ``itemsize`` each)."""
    n = max(0, -(-(stop - start) // step))
    if n > _INT_HI >> 1:   # checked_size would write out the digits of any length
        raise _length_error(n, start, step)
    checked_size("arange", "stop", (n,), itemsize, result=True)
    return n


def wide_ints(ints) -> bool:
    """Whether ``(start, stop, step)`` are Python ints, one of 2**53 or more in
    magnitude (NumPy's float64 length and values are inexact)."""
    return (all(type(v) is int for v in ints)
            and not all(-_EXACT_FLOAT < v < _EXACT_FLOAT for v in ints))


def _itemsize(dtype) -> int:
    try:
        return 8 if dtype is None else np.dtype(dtype).itemsize
    except TypeError:   # no dtype: the library's own error answers
        return 8


def wide_plan(start: int, stop: int, step: int, dtype):
    """``(n, dtype)`` of ``arange`` of Python ints, one of at least 2**53 in magnitude,
    of no ``dtype``, an integer one or a float or complex one: the exact length (NumPy's
    was computed in float64: ``arange(0, 2**63 + 5, 2**62, dtype=uint64)`` had 2 values, not 3); without
    ``dtype`` int64 where it holds the values, else uint64 (as ``asarray(2**63)``),
    values neither holds refused; into an integer ``dtype``, NumPy's ``OverflowError``
    for a ``start`` (or, of two values or more, a ``start + step``) it does not hold,
    the others wrapping as NumPy's ``arange`` wraps them; into a float or complex
    ``dtype`` (of float64 at most), values past float64 refused (NumPy's ``OverflowError``);
    into bool, at most 2 values, as NumPy's ``TypeError`` says of a longer one (NumPy's
    float64 length had cut ``arange(0, 2**64 + 1, 2**64, dtype=bool)`` to ``[False]``).
    None for another ``dtype`` (a long double whose precision float64 would cut:
    NumPy's ``arange`` answers, after the exact length is checked)."""
    dt = None
    if dtype is not None:
        try:
            dt = np.dtype(dtype)
        except TypeError:
            return None
    n = _exact_length(start, stop, step, _itemsize(dt))
    if dt is not None:
        if dt.kind in "fc" and np.finfo(dt).nmant <= 52:   # no wider than float64
            if n:   # NumPy's float() of a start it cannot hold, raised at the call
                _check_float_range(start, start + (n - 1) * step)
            return n, dt
        if dt.kind == "b":
            if n > 2:   # by the exact length (NumPy's float length can be off)
                raise _bool_error(n, start, step)
            return n, dt
        if dt.kind not in "iu":
            return None
        for v in (start, start + step)[:min(n, 2)]:
            dt.type(v)   # NumPy's OverflowError for a value dtype does not hold
        return n, dt
    if not n:   # no value to hold: the default integer dtype
        return 0, np.dtype(np.int64)
    last = start + (n - 1) * step
    lo, hi = min(start, last), max(start, last)
    if _INT_LO <= lo and hi <= _INT_HI >> 1:
        return n, np.dtype(np.int64)
    if 0 <= lo and hi <= _INT_HI:
        return n, np.dtype(np.uint64)
    arg = "start" if not _INT_LO <= start <= _INT_HI else "stop"
    raise overflow_error("arange", arg, f"gives values from {_short(lo)} to {_short(hi)}, "
                                        "which no integer dtype holds (int64 or uint64); "
                                        "give floats")


def _check_float_range(first: int, last: int) -> None:
    """The first and last values of a float ``arange`` within float64 (``float()``'s
    "int too large to convert to float", named)."""
    for arg, v in (("start", first), ("stop", last)):
        try:
            float(v)
        except OverflowError:
            raise overflow_error("arange", arg, f"gives values from {_short(first)} to "
                                                f"{_short(last)}, past the largest float64 "
                                                "(int too large to convert to float)"
                                 ) from None


def wide_values(idx, start: int, step: int, dt):
    """Elements ``idx`` (their global indices) of ``arange`` from ``start`` by ``step``
    into the integer dtype ``dt``: modulo 2**64 in uint64, then wrapped into ``dt`` (as
    the bits of int64 wrap), so the values are exact wherever ``dt`` holds them; into a
    float or complex ``dt``, each exact value rounded once (:func:`~.arange_floats.
    float_values`)."""
    if dt.kind in "fc":
        return float_values(idx, start, step, dt)
    if dt.kind == "b":   # at most 2 values (wide_plan): true where the exact one is not 0
        return np.array([start + int(i) * step != 0 for i in idx.tolist()], dtype=bool)
    words = idx.astype(np.uint64)
    words *= np.uint64(step % 2**64)
    words += np.uint64(start % 2**64)
    return words.view(dt) if dt.itemsize == 8 else words.astype(dt)


def _wide_arange(start, stop, step, dtype, device):
    """``arange`` of Python ints, one of at least 2**53 in magnitude, of no ``dtype``, an
    integer, float or complex one (:func:`wide_plan`), or None for another ``dtype``."""
    plan = wide_plan(start, stop, step, dtype)
    if plan is None:
        return None
    compat_function("numpy", "arange")(0, device=device)   # compat's check of the device
    n, dt = plan
    try:   # NumPy's errors named this uint64 array (ValueError: its bytes past int64)
        idx = np.arange(n, dtype=np.uint64)
    except (MemoryError, ValueError):
        raise out_of_memory("arange", "the result", (n,), dt.itemsize) from None
    return wide_values(idx, start, step, dt)


def arange(start, /, stop=None, step=1, *, dtype=None, device=None, **kwargs):
    """``arange`` of the standard on NumPy, ``step`` checked first (not zero); Python
    ints of 2**53 and more: the exact length and values (rounded once into a float
    ``dtype``) (:func:`_wide_arange`); where NumPy refuses the call, :func:`check_arange` names
    the argument."""
    check_step(step)
    refuse_complex(start, stop, step)
    ints = ((0, start) if stop is None else (start, stop)) + (step,)
    if wide_ints(ints):
        bool_range(*ints, dtype)   # (its length before any allocation)
        out = None if kwargs else _wide_arange(*ints, dtype, device)
        if out is not None:
            return out
        _exact_length(*ints, _itemsize(dtype))   # NumPy's float length was 0 for
        # arange(2**63, dtype=float16)
    try:
        return compat_function("numpy", "arange")(start, stop, step, dtype=dtype,
                                                  device=device, **kwargs)
    except (TypeError, ValueError):
        check_arange_dtype(dtype, lazy=False)
        check_arange((start, stop, step), {}, complex_ok=True)
        bool_range(*ints, dtype)
        raise


register("arange", "numpy")(arange)
