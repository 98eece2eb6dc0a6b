"""Thin overrides where ``array_api_compat`` differs from the array API standard.

Each function here is written against the plain library module of its input
(``numpy`` or ``cupy``), so one definition serves both; it is registered for the
backends that need it. Complex special values are in ``complex_special.py``; the
size checks of CuPy's creation and reshaping functions in ``size_checks.py``.
Each names the clause of the standard it restores; the conformance suite
(``docs/conformance.md``) is the check.
"""

from __future__ import annotations

import builtins
import contextlib
import sys
from dataclasses import dataclass

import numpy as np

from . import select as _backend
from . import size_checks as _sizes
from .fill_checks import check_fill_type, check_fill_value
from .dispatch import compat_function, implementation, register
from .masked_where import masked_where
from .._core.errors import type_error, value_error

__all__ = ["finfo_object", "finfo", "iinfo", "floor_divide", "remainder", "asarray", "from_dlpack", "full",
           "full_like", "dask_can_cast", "dask_isdtype"]


def _module_of(*xs):
    return _backend.array_module(
        _backend.backend_of("xstride", ((f"x{i}", x) for i, x in enumerate(xs)), "numpy")
    )


def _quiet(m):
    """NumPy warns on inf/NaN arithmetic that the standard defines; CuPy does not."""
    return np.errstate(all="ignore") if m is np else contextlib.nullcontext()


@dataclass(frozen=True)
class finfo_object:  # noqa: N801 - the standard's name for this type
    """Machine limits of a floating-point dtype, as the standard specifies them.

    ``eps``, ``max``, ``min`` and ``smallest_normal`` are Python floats (NumPy's
    ``finfo`` gives NumPy scalars); ``dtype`` is the real dtype of the same precision
    (``float32`` for ``complex64``).
    """

    bits: int
    eps: float
    max: float
    min: float
    smallest_normal: float
    dtype: object


def finfo(type, /) -> finfo_object:
    """``finfo`` of the standard ("Data type functions"); see :class:`finfo_object`."""
    is_dtype = isinstance(type, (builtins.type, np.dtype, str))
    if not is_dtype and not hasattr(type, "dtype"):
        raise type_error("finfo", "type", type, "a floating-point dtype or array")
    dt = np.dtype(type if is_dtype else type.dtype)
    if dt.kind not in "fc":
        raise value_error("finfo", "type", f"is {dt}; expected a real or complex "
                          "floating-point dtype or array")
    f = np.finfo(dt)
    return finfo_object(int(f.bits), float(f.eps), float(f.max), float(f.min),
                        float(f.smallest_normal), f.dtype)


def iinfo(type, /):
    """``iinfo`` of the standard ("Data type functions"): NumPy's ``iinfo`` of an integer
    dtype or array; anything else is refused naming ``type`` (compat's retried
    ``type.dtype``: a float dtype was "Invalid integer data type 'O'.", None an
    ``AttributeError``)."""
    is_dtype = isinstance(type, (builtins.type, np.dtype, str))
    if not is_dtype and not hasattr(type, "dtype"):
        raise type_error("iinfo", "type", type, "an integer dtype or array")
    try:
        dt = np.dtype(type if is_dtype else type.dtype)
    except TypeError:
        raise type_error("iinfo", "type", type, "an integer dtype or array") from None
    if dt.kind not in "iu":
        raise value_error("iinfo", "type", f"is {dt}; expected an integer dtype or array")
    return np.iinfo(dt)


def dask_can_cast(from_, to, /) -> bool:
    """``can_cast`` of the dask backend: a dask array ``from_`` is asked by its dtype
    (compat's is ``numpy.can_cast``, which reached the array through
    ``__array_function__``: dask's ``FutureWarning`` that it "may stop working")."""
    if _backend.backend_of_array(from_) == "dask":
        from_ = from_.dtype
    return np.can_cast(from_, to)


def dask_isdtype(dtype, kind, /) -> bool:
    """``isdtype`` of the dask backend: the standard's ``dtype`` is a dtype, and a dask
    array is refused as NumPy's and CuPy's refuse theirs (compat's answered for its
    dtype); the rest is NumPy's ``isdtype`` (dask's dtypes are NumPy's): compat's took
    a string dtype, answered False for a kind of no dtype or name (an int, a nested
    tuple) and True for ``(float32, 'x')``, where NumPy's refuses each."""
    if _backend.backend_of_array(dtype) is not None:
        raise type_error("isdtype", "dtype", dtype, "a dtype (an array's .dtype)")
    return np.isdtype(dtype, kind)


def _result_type_of(backend: str):
    library = []   # compat's result_type, looked up on the first call

    def result_type(*arrays_and_dtypes):
        """``result_type`` of the standard: arrays, dtypes and Python scalars, at least
        one of them an array or a dtype. NumPy's (compat's) read ``None`` as float64
        (``numpy.dtype(None)``), a list as a record's fields, and answered for Python
        scalars alone."""
        scalars = 0
        for i, v in enumerate(arrays_and_dtypes):
            if v is None or isinstance(v, (list, tuple, dict, set, range)):
                raise type_error("result_type", f"arrays_and_dtypes[{i}]", v,
                                 "an array, a dtype or a Python scalar")
            scalars += type(v) in (bool, int, float, complex)
        if arrays_and_dtypes and scalars == len(arrays_and_dtypes):
            raise value_error("result_type", "arrays_and_dtypes",
                              "holds Python scalars only; at least one array or dtype is "
                              "required (the scalars' dtype is the other's)")
        if not library:
            library.append(compat_function(backend, "result_type"))
        return library[0](*arrays_and_dtypes)
    return result_type


def _freq(name: str, backend: str):
    """``fft.<name>`` (``fftfreq``/``rfftfreq``) of ``backend``, with the window length
    checked first: NumPy's raised ``ZeroDivisionError`` for ``n=0``, and dask's took
    ``2.5`` and ``-1``; and the spacing ``d`` a non-zero real number (NumPy's raised an
    unnamed ``ZeroDivisionError`` for 0, dask's gave inf and nan; a string was NumPy's
    ``TypeError`` and dask's ``ValueError``); and ``dtype`` None or a real-valued
    floating-point dtype, as the standard asks (``dtype=int64`` gave zeros silently)."""

    def impl(n, /, *, d=1.0, dtype=None, device=None):
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
            raise type_error(name, "n", n, "a positive int (the window length)")
        if n < 1:
            raise value_error(name, "n", f"must be positive (the window length); got {n}")
        if isinstance(d, (bool, str, bytes)) or not isinstance(d, (int, float, np.integer,
                                                                   np.floating)):
            raise type_error(name, "d", d, "a real number (the sample spacing)")
        if d == 0:   # NumPy's: an unnamed ZeroDivisionError; dask's: inf and nan silently
            raise value_error(name, "d", "is 0; the sample spacing must be non-zero")
        if dtype is not None:
            try:
                real_float = np.dtype(dtype).kind == "f"
            except TypeError:
                real_float = False
            if not real_float:   # NumPy's and dask's cast the frequencies: int64 zeros
                raise type_error(name, "dtype", dtype, "a real-valued floating-point dtype "
                                                       "or None")
        if backend == "numpy":
            return getattr(_backend.namespace(backend).fft, name)(int(n), d=d, dtype=dtype,
                                                                   device=device)
        return _freq_by_index(name, backend, int(n), d, dtype, device)

    impl.__name__ = impl.__qualname__ = name
    impl.__doc__ = (f"``fft.{name}`` of the standard; ``n`` a positive int, ``d`` non-zero, "
                    "``dtype`` a real floating-point dtype.")
    return impl


def _freq_by_index(name: str, backend: str, n: int, d, dtype, device):
    """NumPy's ``fftfreq``/``rfftfreq`` element for element on ``backend`` (its
    ``arange`` in the active chunks): each frequency index ``k`` (``0 .. N - 1`` then
    ``-(n // 2) .. -1``) times ``val = 1.0 / (n * d)``, ``val`` computed as NumPy does, in
    ``d``'s precision (a float32 ``d`` gives a float32 ``val``). dask's own divided a
    linspace by ``float(d)``: a few ulps from NumPy's for most ``n`` and ``d``."""
    val = 1.0 / (n * d)
    kw = {} if device is None else {"device": device}
    arange = implementation(backend, "arange")
    if name == "rfftfreq":
        k = arange(n // 2 + 1, dtype=np.int64, **kw)
    else:
        i = arange(n, dtype=np.int64, **kw)
        k = implementation(backend, "where")(i < (n - 1) // 2 + 1, i, i - n)
    out = k * val
    return out if dtype is None else implementation(backend, "astype")(out, dtype)


def floor_divide(x1, x2, /):
    """``floor_divide`` with the standard's special cases for infinite operands.

    NumPy returns NaN for ``inf // finite`` and ``-1`` for ``-1 // inf``; the standard
    asks for ``floor(x1 / x2)`` there (``±inf`` and ``±0``).
    """
    m = _module_of(x1, x2)
    with _quiet(m):
        q = m.floor_divide(x1, x2)
        if q.dtype.kind != "f":
            return q
        f1, f2 = _as_float(x1), _as_float(x2)
        special = (m.isinf(f1) & m.isfinite(f2)) | (m.isfinite(f1) & m.isinf(f2))
        fixed = m.floor(m.divide(x1, x2))
        got = masked_where(special, fixed, q)   # numpy.ma operands: masks kept
        return m.where(special, fixed, q) if got is None else got


def _as_float(x):
    """A Python int (of any size: ``2**64`` has no NumPy integer type) as the float it
    becomes beside a float array, for the special-case masks; anything else as it is."""
    return float(x) if isinstance(x, int) and not isinstance(x, bool) else x


def remainder(x1, x2, /):
    """``remainder`` with the standard's cases for infinite ``x2`` and zero ``x1``.

    The result has the sign of ``x2`` (Python's ``%``): for finite ``x1`` and infinite
    ``x2``, ``x1`` when the signs agree, else ``x2``; for ``x1 = ±0``, a zero with the
    sign of ``x2``. NumPy does this already; CuPy returns NaN and +0. Registered for CuPy.
    """
    m = _module_of(x1, x2)
    r = m.remainder(x1, x2)
    if r.dtype.kind != "f":
        return r
    with _quiet(m):
        f1, f2 = _as_float(x1), _as_float(x2)
        special = m.isfinite(f1) & m.isinf(f2) & (x1 != 0)
        keep_x1 = m.signbit(f1) == m.signbit(f2)
        r = m.where(special, m.where(keep_x1, x1, x2), r)
        # a zero dividend gives a zero with the sign of the divisor (+0 % -2 is -0)
        zero = (x1 == 0) & (x2 != 0) & ~m.isnan(f2)
        return m.where(zero, m.copysign(m.zeros_like(r), f2), r)


def _has_negative_zero(value) -> bool:
    """A -0.0 in ``value``: a Python or NumPy float or complex scalar, or a 0-d NumPy
    array of one (CuPy fills a 0-d array from those too)."""
    if isinstance(value, np.ndarray):
        if value.ndim or value.dtype.kind not in "fc":
            return False
        value = value[()]
    if isinstance(value, (complex, np.complexfloating)):
        return _has_negative_zero(float(value.real)) or _has_negative_zero(float(value.imag))
    if isinstance(value, np.floating):
        value = float(value)
    return isinstance(value, float) and value == 0.0 and bool(np.signbit(value))


def _restore_negative_zero(out, fill_value):
    """Rewrite ``out`` with the exact bits of ``fill_value`` when it holds a ``-0.0``.

    CuPy fills with ``cudaMemset`` whenever the value compares equal to 0, which
    writes +0 for -0.0 (also when the value comes as a 0-d array). Filling an
    unsigned-integer view of a fresh C-contiguous array with the value's bit pattern
    (nonzero, so no memset) keeps the sign.
    """
    if not _has_negative_zero(fill_value):
        return out
    m = _backend.array_module("cupy")
    dt = out.dtype
    word = np.dtype(f"u{dt.itemsize // 2 if dt.kind == 'c' else dt.itemsize}")
    words = np.full(1, fill_value, dtype=dt).view(word)  # 1 word, or 2 for complex
    exact = m.empty(out.shape, dtype=dt)
    flat = exact.reshape(-1).view(word)
    for k in range(words.size):
        flat[k::words.size].fill(words[k])
    if out.flags.c_contiguous:
        return exact
    out[...] = exact  # an array-to-array copy keeps the bits
    return out


def asarray(obj, /, *, dtype=None, device=None, copy=None, **kwargs):
    """``asarray`` on CuPy, keeping the sign of a ``-0.0`` scalar: a Python or NumPy
    float or complex, or a 0-d NumPy array of one.

    CuPy builds 0-d arrays from those by filling, which loses the sign of -0.0 (see
    :func:`_restore_negative_zero`; a 0-d NumPy -0.0 came out +0.0 on the H100,
    2026-12-05). Sequences and arrays of more dimensions are copied and keep it.
    """
    impl = _backend.namespace("cupy").asarray
    if copy and not kwargs and _fortran_copy(obj, dtype, device):
        # CuPy's copy in the array's own order moved a Fortran-ordered array at a fifth of
        # a contiguous copy's speed (a (3, 2**24) float64 view x.T: 1.20 ms against 0.29
        # ms for the copy of its transpose, which is C-ordered, on an H100, 2026-12-06)
        return obj.T.copy().T
    res = impl(obj, dtype=dtype, device=device, copy=copy, **kwargs)
    if isinstance(obj, (float, complex, np.floating, np.complexfloating)) or (
            isinstance(obj, np.ndarray) and obj.ndim == 0):
        return _restore_negative_zero(res, obj)
    return res


def _fortran_copy(obj, dtype, device) -> bool:
    """Whether ``asarray(obj, copy=True)`` copies a CuPy array that is Fortran-ordered and
    not C-ordered, to its own dtype and device (then its transpose's copy is one
    contiguous copy)."""
    cupy = sys.modules.get("cupy")
    if cupy is None or type(obj) is not cupy.ndarray or obj.ndim < 2:
        return False
    if not obj.flags.f_contiguous or obj.flags.c_contiguous:
        return False
    try:
        same_dtype = dtype is None or np.dtype(dtype) == obj.dtype
    except TypeError:   # not a dtype: CuPy's asarray says so
        return False
    return same_dtype and (device is None or device == obj.device)


def from_dlpack(x, /, *, device=None, copy=None):
    """``from_dlpack`` on CuPy: ``copy=True`` to the same device makes a device copy.

    CuPy's ``__dlpack__`` refuses ``copy=True`` unless the copy goes to the host, and
    CuPy's ``from_dlpack`` refuses any ``device=``; the standard allows both. A
    ``device`` equal to the array's own is dropped; ``copy=True`` imports without
    copying, then copies on the device.
    """
    impl = _backend.namespace("cupy").from_dlpack
    if device is not None and device == getattr(x, "device", None):
        device = None  # CuPy refuses any device argument, even the array's own
    if copy is True and device is None:
        return impl(x).copy()
    return impl(x, device=device, copy=copy)


def full(shape, fill_value, *, dtype=None, device=None, **kwargs):
    """``full`` on CuPy, keeping the sign of a ``-0.0`` fill value.

    A fill of no number is refused first, as on NumPy (``arg_checks.check_fill_type``:
    CuPy's made an object array it cannot hold for ``None``); ``shape`` is named and a
    shape whose element count or byte size overflows int64 refused (``ValueError``;
    CuPy would wrap it, see ``size_checks.py``).
    """
    check_fill_type("full", fill_value, dtype)
    check_fill_value("full", fill_value, dtype)
    impl = _backend.namespace("cupy").full
    return _restore_negative_zero(_sizes.shaped(
        "full", lambda: impl(shape, fill_value, dtype=dtype, device=device, **kwargs),
        shape, _sizes.fill_itemsize(fill_value, dtype)), fill_value)


def full_like(x, /, fill_value, *, dtype=None, device=None, **kwargs):
    """``full_like`` on CuPy, keeping the sign of a ``-0.0`` fill value.

    ``shape=`` (CuPy's keyword) is checked like ``full``'s shape; a fill of no number
    is refused first, as on NumPy (CuPy's fill kernel: "Unsupported type").
    """
    target = getattr(x, "dtype", None) if dtype is None else dtype
    check_fill_type("full_like", fill_value, target)
    check_fill_value("full_like", fill_value, target)
    _sizes.check_like("full_like", x, dtype, kwargs)
    impl = _backend.namespace("cupy").full_like
    return _restore_negative_zero(impl(x, fill_value, dtype=dtype, device=device, **kwargs),
                                  fill_value)


for _backend_name in _backend.BACKENDS:
    register("finfo", _backend_name)(finfo)
    register("iinfo", _backend_name)(iinfo)
    register("floor_divide", _backend_name)(floor_divide)
    register("result_type", _backend_name)(_result_type_of(_backend_name))
del _backend_name
# NumPy and dask, where they were found and tested (CuPy's not yet run on a device)
for _backend_name in ("numpy", "dask"):
    for _freq_name in ("fftfreq", "rfftfreq"):
        register(f"fft.{_freq_name}", _backend_name)(_freq(_freq_name, _backend_name))
del _backend_name, _freq_name
register("can_cast", "dask")(dask_can_cast)
register("isdtype", "dask")(dask_isdtype)
register("remainder", "cupy")(remainder)
register("full", "cupy")(full)
register("asarray", "cupy")(asarray)
register("from_dlpack", "cupy")(from_dlpack)
register("full_like", "cupy")(full_like)
# CuPy wraps sizes past int64 silently; these check them first (size_checks.py)
for _name in ("empty", "zeros", "ones", "eye", "arange", "linspace", "empty_like",
              "zeros_like", "ones_like", "broadcast_to", "broadcast_arrays", "reshape",
              "tile", "repeat"):
    register(_name, "cupy")(getattr(_sizes, _name))
del _name
