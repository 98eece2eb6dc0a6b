"""Fill values and Python ints the creation functions take where the standard asks for
an error: ``full``'s and ``full_like``'s ``fill_value`` of no number (None, a str,
bytes: NumPy made an object or string array, or NaN), a Python int ``fill_value`` or
item of ``asarray`` that no integer dtype holds (NumPy made an array of Python
objects), and a Python int fill past the ``dtype`` it is given (NumPy's
``OverflowError`` at the call, where dask's came only when computed). The checks and
the NumPy backend's ``full``, ``full_like`` and ``asarray``; the dask backend's
creation functions (``dask_fixes.py``) and CuPy's (``size_checks.py``) call the
checks.
"""

from __future__ import annotations

import numpy as np

from .._core.errors import overflow_error, type_error, value_error
from . import select as _backend
from .copy_checks import check_copy
from .dispatch import compat_function, register
from .masked_asarray import SEQUENCES, masked_asarray, masked_items, masked_source
from .no_array import PLAIN_TYPES
from .shape_checks import named_shape_error

__all__ = ["check_int_fill", "check_fill_fits", "check_fill_type", "check_fill_value",
           "check_int_items",
           "int_fill_dtype", "INT_LO", "INT_HI", "short_int", "name_int_past_dtype"]

#: the Python ints some NumPy integer dtype holds (int64's and uint64's)
INT_LO, INT_HI = -2**63, 2**64 - 1


def short_int(v: int) -> str:
    text = str(v)
    return text if len(text) <= 24 else f"{text[:12]}... ({len(text)} digits)"


def _unheld(func: str, arg: str, v: int) -> OverflowError:
    return overflow_error(func, arg, f"holds the Python int {short_int(v)}, which no integer dtype "
                                     "holds (int64 or uint64; NumPy made an array of Python "
                                     "objects); give a float or an array")


def check_int_fill(func: str, fill_value, dtype) -> None:
    """``full``'s Python int ``fill_value`` without ``dtype``: one an integer dtype holds."""
    if dtype is None and type(fill_value) is int and not INT_LO <= fill_value <= INT_HI:
        raise _unheld(func, "fill_value", fill_value)


def check_fill_fits(fill_value, dtype) -> None:
    """A Python int ``fill_value`` of ``full``/``full_like`` against the integer ``dtype``
    of the result: NumPy's own conversion, which raises its ``OverflowError`` ("Python
    integer 300 out of bounds for int8") where ``dtype`` cannot hold it, as NumPy's
    ``full`` does at the call (NEP 50). dask's ``full`` raised it only when computed.
    Other fills and dtypes (and a ``dtype`` NumPy does not know) are left to the
    library's function."""
    if type(fill_value) is not int or dtype is None:
        return
    try:
        dt = np.dtype(dtype)
    except TypeError:
        return
    if dt.kind in "iu":
        np.asarray(fill_value, dtype=dt)


def check_fill_value(func: str, fill_value, dtype) -> None:
    """A float or complex ``fill_value`` (Python's or NumPy's scalar) against the
    ``dtype`` of the result, as ``asarray`` converts one: a complex number into a real or
    bool dtype is a ``TypeError`` (the imaginary part dropped), NaN or an infinity into an
    integer dtype a ``ValueError``, a finite float whose integer part the integer dtype
    cannot hold an ``OverflowError``. NumPy's ``full`` cast each unsafely, with a
    warning at most (``full(2, nan, dtype=int64)`` filled -2**63). Other fills and
    dtypes (and a ``dtype`` NumPy does not know) are left to the library."""
    if dtype is None or not isinstance(fill_value, (float, complex, np.floating,
                                                    np.complexfloating)):
        return
    try:
        dt = dtype if isinstance(dtype, np.dtype) else np.dtype(dtype)
    except TypeError:
        return
    kind = dt.kind
    if type(fill_value) is float and kind == "f":   # (the common fill: nothing to check)
        return
    if isinstance(fill_value, (complex, np.complexfloating)):
        if kind in "biuf":
            raise type_error(func, "fill_value", fill_value,
                             f"a real number for dtype {dt} (a complex fill would lose its "
                             "imaginary part)")
        return
    if kind not in "iu":
        return
    v = float(fill_value)
    if v != v or v in (float("inf"), float("-inf")):
        raise value_error(func, "fill_value", f"is {v}, which the integer dtype {dt} cannot "
                                              "hold")
    info = np.iinfo(dt)
    if not info.min <= int(v) <= info.max:
        raise overflow_error(func, "fill_value", f"is {v}, whose integer part is out of "
                                                 f"bounds for {dt}")


def check_fill_type(func: str, fill_value, dtype) -> None:
    """``full``/``full_like``'s ``fill_value`` of no number (None, a str, bytes) for a
    numeric or bool ``dtype`` (or none: ``full`` made an object or string array, dask's
    failed with its dispatch's two-line message, ``full_like`` filled NaN): a
    ``TypeError``. A ``dtype`` NumPy does not know is left to the library's error. The
    standard's ``fill_value`` is a scalar: a list or a tuple (a ``TypeError``) and an
    array of one dimension or more (a ``ValueError``) are refused, where NumPy's
    broadcast them and dask's said "fill_value must be scalar" naming no function."""
    if isinstance(fill_value, (list, tuple)):
        raise type_error(func, "fill_value", fill_value, "a bool, int, float or complex")
    if getattr(fill_value, "ndim", 0):
        raise value_error(func, "fill_value", f"has shape {tuple(fill_value.shape)}; expected "
                                              "a scalar (a number or a 0-D array)")
    if fill_value is None or isinstance(fill_value, (str, bytes)):
        try:
            numeric = dtype is None or np.dtype(dtype).kind in "biufc"
        except TypeError:
            return
        if numeric:
            raise type_error(func, "fill_value", fill_value, "a bool, int, float or complex")


def full_like(x, /, fill_value, *, dtype=None, device=None, **kwargs):
    """``full_like`` of the standard on NumPy: a ``fill_value`` of no number refused
    (:func:`check_fill_type`; NumPy's filled NaN for None). With ``device`` None NumPy's
    ``full_like``, as array_api_compat calls it (its frame cost about 0.5 us a call)."""
    if fill_value.__class__ not in (int, bool):   # an int: NumPy's own check
        target = getattr(x, "dtype", None) if dtype is None else dtype
        if fill_value.__class__ not in (float, complex):   # a number: no type check
            check_fill_type("full_like", fill_value, target)
        check_fill_value("full_like", fill_value, target)
    if device is None:
        return np.full_like(x, fill_value, dtype=dtype, **kwargs)
    return _numpy("full_like")(x, fill_value, dtype=dtype, device=device, **kwargs)


def int_fill_dtype(fill_value, dtype):
    """``dtype``, or for a Python int fill without one past int64 NumPy's uint64 (dask's
    ``full`` failed converting it to a C long)."""
    if dtype is None and type(fill_value) is int and fill_value > 2**63 - 1:
        return np.dtype(np.uint64)
    return dtype


def check_int_items(func: str, out, arg: str = "obj") -> None:
    """``asarray``'s (``to_numpy``'s) host result ``out``: an array of Python objects
    made of a Python int no integer dtype holds is refused, naming ``arg`` (other object
    arrays pass as before)."""
    if out.dtype == object:
        for v in out.ravel().tolist() if out.ndim else [out[()]]:
            if type(v) is int and not INT_LO <= v <= INT_HI:
                raise _unheld(func, arg, v)


def _numpy(name):
    return compat_function("numpy", name)


def full(shape, fill_value, *, dtype=None, device=None, **kwargs):
    """``full`` of the standard on NumPy: a Python int ``fill_value`` no integer dtype
    holds is an ``OverflowError`` (NumPy made an array of Python objects); a fill value
    of no number (``None``, a str, bytes) a ``TypeError`` (NumPy made an object or
    string array); so with a numeric or bool ``dtype`` (NumPy's made NaN of None and
    parsed a str: ``full(2, "1", dtype=int32)``). A ``shape`` NumPy refuses is named
    (:func:`~xstride._backends.shape_checks.named_shape_error`)."""
    check_int_fill("full", fill_value, dtype)
    check_fill_type("full", fill_value, dtype)
    check_fill_value("full", fill_value, dtype)
    try:
        out = _numpy("full")(shape, fill_value, dtype=dtype, device=device, **kwargs)
    except (TypeError, ValueError):
        named_shape_error("full", shape, dtype)   # a bad shape named; else NumPy's error
        raise
    if dtype is None and out.dtype.kind in "OSUV":
        raise type_error("full", "fill_value", fill_value, "a bool, int, float or complex")
    return out


#: The exact types of an ``obj`` that is never masked (NumPy's arrays and scalars,
#: Python's scalars, lists and tuples): ``asarray`` asks :func:`masked_source` of no
#: such ``obj`` (its registry look-up cost ``asarray([1.0, 2.0])`` 0.25 us, +50%).
_NEVER_MASKED = PLAIN_TYPES | frozenset((list, tuple))


def asarray(obj, /, *, dtype=None, device=None, copy=None, **kwargs):
    """``asarray`` of the standard on NumPy: a Python int no integer dtype holds is an
    ``OverflowError`` (NumPy made an array of Python objects); ``copy=False`` of a dask
    array, which is computed into a new array, is NumPy's ``ValueError`` (it was
    computed anyway, with dask's ``FutureWarning``); ``copy`` a bool or None
    (:func:`~xstride._backends.copy_checks.check_copy`). A ``numpy.ma`` masked ``obj``
    (or a dask array of masked chunks) keeps its mask, and a list or tuple of masked
    arrays their masks, stacked (:mod:`.masked_asarray`)."""
    if copy is not None and copy.__class__ is not bool:
        check_copy(copy)
    if copy is False and _backend.backend_of_array(obj) == "dask":
        raise value_error("asarray", "copy", "is False, but 'obj' is a dask array, computed "
                          "into a new NumPy array (a copy); pass copy=None, or use "
                          "xstride.to_numpy(obj)")
    if (not kwargs and obj.__class__ not in _NEVER_MASKED
            and (m := masked_source(obj)) is not None):
        return masked_asarray(m, dtype, device, copy if m is obj else None)
    try:
        out = _numpy("asarray")(obj, dtype=dtype, device=device, copy=copy, **kwargs)
    except OverflowError:
        name_int_past_dtype(obj, dtype)
        raise
    if out.dtype == object and dtype is None and not isinstance(obj, np.ndarray):
        check_int_items("asarray", out)
    if out.ndim > 1 and obj.__class__ in SEQUENCES:
        return masked_items(obj, out)   # masked items' masks stacked
    return out


def name_int_past_dtype(obj, dtype) -> None:
    """On NumPy's ``OverflowError`` of ``asarray(obj, dtype=...)`` with an integer
    ``dtype``: the first Python int of ``obj`` (a number, or a list or tuple of them)
    that the dtype cannot hold, named with the dtype's range (NumPy's said "Python int
    too large to convert to C long" of ``[2**64]`` into uint64); nothing where none is
    found (the caller re-raises NumPy's)."""
    try:
        dt = np.dtype(dtype)
    except TypeError:
        return
    if dt.kind not in "iu" or not isinstance(obj, (int, list, tuple)):
        return
    info = np.iinfo(dt)
    stack = [obj]
    while stack:
        v = stack.pop(0)
        if isinstance(v, (list, tuple)):
            stack[:0] = list(v)
        elif type(v) is int and not info.min <= v <= info.max:
            raise overflow_error("asarray", "obj", f"holds the Python int {short_int(v)}, "
                                 f"out of bounds for {dt} (from {info.min} to "
                                 f"{info.max})") from None


def _asarray_positional(obj, /):
    """``asarray(obj)`` without keywords: what array_api_compat's runs then,
    ``np.array(obj, copy=IF_NEEDED)``, which is ``np.asarray(obj)`` (0.7 us less a
    small call; docs/performance.md, "Call overhead on the host"). A masked ``obj``
    keeps its mask, a list or tuple of masked arrays their masks (:mod:`.masked_asarray`;
    the scalars of a list are not looked at)."""
    if obj.__class__ not in _NEVER_MASKED and (m := masked_source(obj)) is not None:
        return m
    out = np.asarray(obj)
    if out.dtype == object and not isinstance(obj, np.ndarray):
        check_int_items("asarray", out)
    if out.ndim > 1 and obj.__class__ in SEQUENCES:
        return masked_items(obj, out)   # masked items' masks stacked
    return out


_asarray_positional.__name__ = _asarray_positional.__qualname__ = "asarray"   # its errors
for _fn in (full, full_like):
    register(_fn.__name__, "numpy")(_fn)
register("asarray", "numpy", positional=_asarray_positional)(asarray)
del _fn
