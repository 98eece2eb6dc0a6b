"""``clip``'s bounds checked before the library's ``clip``, on the NumPy, dask and CuPy
backends (one check for all three; CuPy's registration is checked on the CPU with the
tests' stand-in CuPy, not yet run on a device), and by ``xp.fuse``'s tracer
(:func:`check_bounds`), so a fused ``clip`` refuses what the unfused call refuses.

The result of ``clip`` has ``x``'s dtype (standard: "Elementwise Functions", ``clip``),
so array_api_compat converts a Python scalar bound to that dtype, whatever it is. That
made answers no reading of the call gives, and different ones on the two backends:

- a Python ``int`` or ``float`` bound of a bool ``x`` became a bool
  (``clip([True, False], -200, 300)`` was ``[True, True]``: -200 is true), and
  ``clip(x, None, -1)`` of bools was ``[True, False]`` on NumPy, ``[True, True]`` on
  dask;
- a Python ``float`` bound of an integer ``x`` was truncated (``min=0.5`` clipped to 0,
  ``min=1e40`` was NumPy's unnamed "Python int too large to convert to C long" and 0 on
  dask);
- a Python ``int`` bound past the far end of an integer ``x``'s range (``min=300`` of
  int8, which would lift every element above the dtype) was NumPy's ``OverflowError``
  but wrapped on dask (``[44, 44, 44, 44]``);
- a Python ``complex``, a string or a list as a bound was a conversion error naming no
  argument (``int() argument must be ...``) on NumPy and a bare ``AttributeError``
  ("'complex' object has no attribute 'shape'") on dask.

Here a Python scalar bound must be of a kind the standard's type promotion lets a
scalar take beside ``x`` ("Type Promotion Rules", mixing arrays with Python scalars): a
``bool`` for a bool ``x``; a ``bool`` or ``int`` for an integer ``x``; a ``bool``,
``int`` or ``float`` for a real floating ``x``; and a ``complex`` too for a complex
``x`` (which NumPy clips in its lexicographic order, as ``maximum`` compares). Anything
else that is not an array is a ``TypeError`` naming the bound. A Python ``int`` past
the near end of an integer range (``min=-1000`` of int8) is no bound, as
array_api_compat has it; past the far end it is an ``OverflowError`` naming the bound
on both backends. An array bound must have ``x``'s dtype (the standard: "should have
the same data type as ``x``"; 2023.12 left bounds of another kind unspecified) or one
that promotes to it by the standard's rules (a narrower dtype of the same kind: int8
bounds of an int64 ``x``, float32 of a float64 or complex ``x``), whose every value
``x``'s dtype holds; any other dtype is a ``TypeError`` naming the bound on both
backends (the library cast it to ``x``'s dtype: a float64 bound of int8 was truncated,
an int64 bound of float32 rounded, a complex bound of a real ``x`` lost its imaginary
part, and an int8 bound of an int64 ``x`` was NumPy's unnamed ``OverflowError`` but
answered on dask). ``clip`` of a bool array without bounds is
a copy on dask too (dask's called NumPy's ``positive``, which refuses bools), and a
complex bound of a complex ``x`` is taken there too (compat's read its ``shape``).
"""

from __future__ import annotations

import sys

import numpy as np

from .._core.errors import overflow_error, type_error, value_error
from . import dask_standard as _dask_standard
from . import select as _backend
from .dispatch import compat_function, register

__all__ = ["check_clip", "check_bounds", "check_bound_shapes"]

#: Python scalar types a bound may be, by the kind of ``x``'s dtype
_TAKES = {"b": ((bool,), "a Python bool"),
          "i": ((bool, int), "a Python int or bool"),
          "u": ((bool, int), "a Python int or bool"),
          "f": ((bool, int, float), "a Python int, float or bool"),
          "c": ((bool, int, float, complex), "a Python int, float, complex or bool")}


def _is_array(v) -> bool:
    return hasattr(v, "shape") and hasattr(v, "dtype") and not isinstance(
        v, (np.generic, type))


#: kinds of the dtypes an array bound may have, by the kind of ``x``'s dtype (the
#: standard's promotion: within bools, integers, real floats; real and complex floats)
_ARRAY_KINDS = {"b": "b", "i": "iu", "u": "iu", "f": "f", "c": "fc"}


def _array_bound_fits(dtype, bound_dtype) -> bool:
    """An array bound of ``bound_dtype`` is ``x``'s dtype or promotes to it (module
    docstring): a kind the standard promotes with ``x``'s, and no wider."""
    if getattr(bound_dtype, "kind", None) not in _ARRAY_KINDS[dtype.kind]:
        return False
    return np.result_type(dtype, bound_dtype).newbyteorder("=") == dtype.newbyteorder("=")


def check_clip(x, min, max) -> tuple:   # noqa: A002 (the standard's names)
    """``clip``'s ``min`` and ``max`` checked against ``x``'s dtype (module docstring):
    Python scalars by their kind, arrays by their dtype.

    Returns ``(min, max)``, with a Python int bound past the near end of an integer
    ``x``'s range replaced by None (no bound)."""
    return check_bounds(getattr(x, "dtype", None), min, max)


def check_bounds(dtype, min, max, array_type=()) -> tuple:   # noqa: A002 (the standard's names)
    """:func:`check_clip` for an ``x`` of ``dtype``; a bound of ``array_type`` (a type or
    a tuple of them: ``xp.fuse``'s traced arrays) is an array bound too."""
    kind = getattr(dtype, "kind", None)
    if kind not in _TAKES:
        return min, max   # not an array of a numeric dtype: the library's error
    scalars, allowed = _TAKES[kind]
    bounds = []
    for name, v in (("min", min), ("max", max)):
        if v is None:
            bounds.append(v)
            continue
        if isinstance(v, array_type) or _is_array(v):
            if not _array_bound_fits(dtype, v.dtype):
                raise type_error("clip", name, v,
                                 f"None, {allowed} or an array of dtype {dtype} (the dtype "
                                 "of x, which the result has) or of a dtype that promotes "
                                 "to it")
            bounds.append(v)
            continue
        if isinstance(v, np.generic):   # a NumPy scalar: its Python value's kind
            v = v.item()
        if type(v) not in scalars:
            raise type_error("clip", name, v,
                             f"None, an array or {allowed} (a bound of x of dtype {dtype}, "
                             "whose dtype the result has)")
        if kind in "iu" and type(v) is int:
            info = np.iinfo(dtype)
            far = v > info.max if name == "min" else v < info.min
            near = v <= info.min if name == "min" else v >= info.max
            if far:
                raise overflow_error("clip", name,
                                     f"is the Python int {v}, out of bounds for {dtype} "
                                     f"(from {info.min} to {info.max}), the dtype of x, "
                                     "which the result has")
            if near:
                v = None
        bounds.append(v)
    return tuple(bounds)


#: the bounds :func:`check_clip` returns that are no masked array (the fast path)
_PLAIN = frozenset((type(None), bool, int, float, complex, np.ndarray))
#: those of them that are no array: the result has x's shape
_SCALAR_BOUNDS = frozenset((type(None), bool, int, float, complex))


def check_bound_shapes(x, min, max) -> None:   # noqa: A002 (the standard's names)
    """``clip``'s array bounds broadcast with ``x`` (and with each other): else a
    ``ValueError`` naming the bound (NumPy's "shape mismatch: ... arg 0 with shape (2,)
    and arg 2 with shape (3,)", dask's "Chunks do not add up to shape"). Lengths dask
    does not know (NaN) are left to the backend."""
    shape, what = tuple(x.shape), "x's shape"
    for name, v in (("min", min), ("max", max)):
        s = tuple(getattr(v, "shape", None) or ())
        if not s or any(n != n for n in shape + s):
            continue
        try:
            shape = np.broadcast_shapes(shape, s)
        except ValueError:
            raise value_error("clip", name, f"has shape {s}, which does not broadcast with "
                                            f"{what} {shape}") from None
        what = "the shape of x and min broadcast together,"


def clip(x, /, min=None, max=None):   # noqa: A002 (the standard's names)
    """``clip`` of the standard on NumPy arrays, its bounds checked first
    (:func:`check_clip`), then NumPy's ``clip`` of ``x`` and the bounds in ``x``'s dtype
    into a new array of that dtype.

    Not array_api_compat's (1.16): it clamps an integer ``x``'s array bounds to ``x``'s
    range by writing into them (a read-only bound, a ``broadcast_to`` view, was "assignment
    destination is read-only"; a narrower dtype's was an ``OverflowError``) and takes no
    ``x`` of non-native byte order ("Cannot cast ufunc 'clip' input 0 from dtype('>f8')").
    After the check every bound is in ``x``'s range, and converts to ``x``'s dtype as
    compat's does. ``numpy.ma`` operands keep their masks (:func:`_masked_clip`)."""
    min, max = check_clip(x, min, max)   # noqa: A001
    if type(x) is not np.ndarray or min.__class__ not in _PLAIN or max.__class__ not in _PLAIN:
        ma = sys.modules.get("numpy.ma")   # not imported: nothing is masked
        if ma is not None and any(isinstance(v, ma.MaskedArray) for v in (x, min, max)):
            return _masked_clip(ma, x, min, max)
        if type(x) is not np.ndarray:   # not a plain NumPy array: compat's (and its error)
            return compat_function("numpy", "clip")(x, min, max)
    lo, hi = (None if v is None else np.asarray(v, dtype=x.dtype) for v in (min, max))
    if min.__class__ in _SCALAR_BOUNDS and max.__class__ in _SCALAR_BOUNDS:
        shape = x.shape   # no array bound: x's shape (broadcast_shapes: 2.7 of 5.8 us)
    else:
        try:
            shape = np.broadcast_shapes(x.shape, *(v.shape for v in (lo, hi) if v is not None))
        except ValueError:
            check_bound_shapes(x, lo, hi)   # names the bound
            raise
    out = np.empty(shape, dtype=x.dtype)
    if lo is None and hi is None:
        out[...] = x
    else:
        np.clip(x, lo, hi, out=out)
    return out[()]


def _masked_clip(ma, x, lo, hi):
    """:func:`clip` where ``x`` or a bound is a ``numpy.ma`` masked array: the clip of
    the data, masked wherever an operand is (as NumPy's ``clip`` of a masked array, and
    the dask backend's of masked chunks; compat's returned a plain array, the masked
    elements shown clipped)."""
    out = clip(*(ma.getdata(v) if isinstance(v, ma.MaskedArray) else v
                 for v in (x, lo, hi)))
    mask = np.zeros(np.shape(out), dtype=bool)
    for v in (x, lo, hi):
        if isinstance(v, ma.MaskedArray):
            mask = mask | ma.getmaskarray(v)
    return ma.masked_array(out, mask=mask)


def dask_clip(x, /, min=None, max=None):   # noqa: A002 (the standard's names)
    """``clip`` of the standard on dask arrays, its bounds checked first
    (:func:`check_clip`); without bounds a copy (dask's called ``positive`` of bools)."""
    min, max = check_clip(x, min, max)   # noqa: A001
    if hasattr(x, "shape"):
        check_bound_shapes(x, min, max)
    ns = _dask_standard._ns()
    if min is None and max is None and getattr(x, "ndim", None) is not None:
        return ns.asarray(x, copy=True)
    # a complex bound as an array: compat's clip reads the shape of any other scalar
    min, max = (ns.asarray(v, dtype=x.dtype) if type(v) is complex else v   # noqa: A001
                for v in (min, max))
    return _dask_standard.clip(x, min, max)


def cupy_clip(x, /, min=None, max=None):   # noqa: A002 (the standard's names)
    """``clip`` of the standard on CuPy arrays, its bounds checked first
    (:func:`check_clip`). An integer or real floating ``x`` whose bounds are None,
    Python scalars or CuPy arrays: one elementwise kernel into a new array of ``x``'s
    dtype, the values of :func:`clip` on NumPy (:func:`_cupy_clip`; array_api_compat's
    clip took about 0.45 ms a call on the host, CuPy's own 0.04 ms; H100, 1000 elements,
    2026-12-05). Otherwise (bool or complex ``x``)
    array_api_compat's clip, a complex bound of a complex ``x`` as an array of
    ``x``'s dtype (compat's clip reads the shape of any bound other than a Python int or
    float). (Bounds on another backend were refused by the dispatch before.)"""
    min, max = check_clip(x, min, max)   # noqa: A001
    cp = sys.modules.get("cupy")
    if (cp is not None and type(x) is cp.ndarray and x.dtype.kind in "iuf"
            and all(v is None or type(v) in (bool, int, float, cp.ndarray) for v in (min, max))):
        return _cupy_clip(cp, x, min, max)
    if type(min) is complex or type(max) is complex:
        ns = _backend.namespace("cupy")
        min, max = (ns.asarray(v, dtype=x.dtype) if type(v) is complex   # noqa: A001
                    else v for v in (min, max))
    return compat_function("cupy", "clip")(x, min, max)


def _cupy_clip(cp, x, lo, hi):
    """One elementwise kernel into a new array of the broadcast shape and ``x``'s dtype:
    where ``x < lo`` or ``lo`` is NaN, ``lo``; then where the value is above ``hi`` or
    ``hi`` is NaN, ``hi``. That is NumPy's ``clip`` (a NaN in ``x`` or in a bound gives
    NaN, ``hi`` wins where ``lo > hi``; CuPy's clip kernel compares, so a NaN bound was no
    bound) and, bit for bit, what ``xp.fuse`` traces for ``clip``
    (``xstride/fusion/_tracer.py``): a NaN of ``x`` is passed through as it is (two
    launches of ``maximum`` and ``minimum`` gave another NaN's bits). Where ``x`` equals
    a bound, ``x`` is kept: a zero keeps its sign, as NumPy's ``clip`` of two bounds
    gives it (NumPy's of one bound is its ``minimum``/``maximum``, which give the
    bound's: ``clip(0.0, None, -0.0)`` is -0.0 there). Scalars as ``x``'s dtype (each in
    its range after :func:`check_clip`), array bounds converted to it."""
    lo, hi = (v if v is None else v.astype(x.dtype, copy=False) if type(v) is cp.ndarray
              else x.dtype.type(v) for v in (lo, hi))
    shape = np.broadcast_shapes(x.shape, *(v.shape for v in (lo, hi) if type(v) is cp.ndarray))
    out = cp.empty(shape, dtype=x.dtype)
    if lo is None and hi is None:
        out[...] = x
        return out
    _clip_kernel(cp, lo is not None, hi is not None)(
        x, *(v for v in (lo, hi) if v is not None), out)
    return out


_CLIP_KERNELS: dict = {}


def _clip_kernel(cp, has_lo: bool, has_hi: bool):
    """CuPy's ``ElementwiseKernel`` of :func:`_cupy_clip` with the bounds given (made once
    per combination; CuPy compiles it per dtype and keeps it in its caches)."""
    key = (cp.ElementwiseKernel, has_lo, has_hi)
    kern = _CLIP_KERNELS.get(key)
    if kern is None:
        params, body = ["T x"], ["T v = x;"]
        if has_lo:
            params.append("T lo")
            body.append("if (v < lo || lo != lo) v = lo;")
        if has_hi:
            params.append("T hi")
            body.append("if (v > hi || hi != hi) v = hi;")
        body.append("out = v;")
        name = "xs_clip" + "_lo" * has_lo + "_hi" * has_hi
        kern = _CLIP_KERNELS[key] = cp.ElementwiseKernel(
            ", ".join(params), "T out", " ".join(body), name)
    return kern


dask_clip.__name__ = dask_clip.__qualname__ = "clip"
cupy_clip.__name__ = cupy_clip.__qualname__ = "clip"
register("clip", "numpy")(clip)
register("clip", "dask")(dask_clip)
register("clip", "cupy")(cupy_clip)
