"""Size checks in front of CuPy's creation, broadcasting, reshaping and repeating functions.

CuPy multiplies a shape's extents in 64-bit C integers and wraps silently:
``cupy.zeros((2**32, 2**32, 2))`` is an array of size 0, ``cupy.ones((2, 2, 5, 5581,
8681, 49477, 384773), dtype=cupy.int8)`` one of size 4, and a result whose byte size
wraps gets a too-small allocation. Each function here works out, in Python integers,
the shape of the result and its item size, checks them with
:func:`xstride._core.sizes.checked_size` (``ValueError`` naming the function and the
argument) and only then calls ``array_api_compat.cupy``. Arguments it cannot read
(wrong types, negative repeats, shapes that do not broadcast) are passed on unchanged,
so the library raises its own error for them. Registered for CuPy in ``fixes.py``.
NumPy checks sizes itself (``ValueError``), so the NumPy backend keeps its fast path.

The creation functions' arguments are named here as on the NumPy and dask backends
(``shape_checks.py``, ``arange_checks.py``, ``arg_checks.py``; CuPy's own messages named
none: "an integer is required" for ``zeros(True)``, a bare ``ZeroDivisionError`` for
``arange(0, 5, 0)``). Where CuPy takes a bad argument (``eye(2, k=True)``,
``linspace(0, 1, 2, endpoint="no")``) or fails obscurely on it (``full(3, None)``:
an object array it cannot hold; ``full_like(x, "a")``: its fill kernel's "Unsupported
type"), a cheap type test runs first, as on NumPy; the ``shape`` of ``empty``,
``zeros``, ``ones`` and ``full`` and ``arange``'s arguments are checked only once CuPy
refused the call (or the shape is no tuple of ints, which the size check found
already), so a good call costs nothing more. Checked on the CPU with the tests'
stand-in CuPy (``tests/test_creation_cupy.py``); the same calls on a device:
``tests/test_creation_cupy_gpu.py``.
"""

from __future__ import annotations

import math
import operator

import numpy as np

from . import select as _backend
from .._core.sizes import checked_size
from .arange_checks import check_arange, refuse_complex
from .arg_checks import check_linspace, check_step
from .linspace_ints import floored_linspace, integer_past_float
from .fill_checks import check_fill_type
from .shape_checks import check_eye, check_shape

__all__ = ["shape_of", "itemsize_of", "fill_itemsize", "empty", "zeros", "ones", "eye",
           "arange", "linspace", "shaped", "empty_like", "zeros_like", "ones_like", "check_like",
           "broadcast_to", "broadcast_arrays", "reshape", "tile", "repeat"]


def _impl(name: str):
    return getattr(_backend.namespace("cupy"), name)


def _index(value):
    """``operator.index(value)``, or None when ``value`` is not an integer."""
    try:
        return operator.index(value)
    except TypeError:
        return None


def shape_of(value) -> tuple[int, ...] | None:
    """``value`` (an int or a sequence of ints) as a tuple of Python ints, else None."""
    n = _index(value)
    if n is not None:
        return (n,)
    try:
        out = tuple(operator.index(v) for v in value)
    except TypeError:
        return None
    return out


def itemsize_of(dtype) -> int:
    """Bytes per element of ``dtype``: float64's 8 for None (the default dtype), 1 for
    what is not a dtype."""
    if dtype is None:
        return 8
    try:
        return np.dtype(dtype).itemsize
    except TypeError:
        return 1  # not a dtype: the library refuses it; the count is still checked


def _check(func: str, arg: str, shape, itemsize: int, *, result: bool = False) -> None:
    if shape is not None:
        checked_size(func, arg, shape, itemsize, result=result)


# ---------------------------------------------------------------------- creation
def shaped(func: str, call, shape, itemsize: int):
    """``call()`` (CuPy's ``func`` of ``shape``), ``shape`` named where it is not one
    (:func:`~.shape_checks.check_shape`): a shape of no ints or of a negative length
    before the call, its size past int64 too; a bool where CuPy refused the call."""
    shp = shape_of(shape)
    if shp is None:   # no int or tuple of ints: named (else the library's error)
        check_shape(func, shape)
    try:
        _check(func, "shape", shp, itemsize)
    except ValueError:   # a negative length: named as on NumPy
        check_shape(func, shape)
        raise
    try:
        return call()
    except (TypeError, ValueError):
        check_shape(func, shape)
        raise


def empty(shape, *, dtype=None, device=None, **kwargs):
    """``empty`` on CuPy, ``shape`` named (:func:`shaped`), its size past int64 refused."""
    return shaped("empty", lambda: _impl("empty")(shape, dtype=dtype, device=device,
                                                  **kwargs), shape, itemsize_of(dtype))


def zeros(shape, *, dtype=None, device=None, **kwargs):
    """``zeros`` on CuPy, ``shape`` named (:func:`shaped`), its size past int64 refused."""
    return shaped("zeros", lambda: _impl("zeros")(shape, dtype=dtype, device=device,
                                                  **kwargs), shape, itemsize_of(dtype))


def ones(shape, *, dtype=None, device=None, **kwargs):
    """``ones`` on CuPy, ``shape`` named (:func:`shaped`), its size past int64 refused."""
    return shaped("ones", lambda: _impl("ones")(shape, dtype=dtype, device=device,
                                                **kwargs), shape, itemsize_of(dtype))


def fill_itemsize(fill_value, dtype) -> int:
    """Item size of ``full(shape, fill_value, dtype=dtype)`` (CuPy's rule for None)."""
    if dtype is not None:
        return itemsize_of(dtype)
    dt = getattr(fill_value, "dtype", None)
    try:
        return np.dtype(dt).itemsize if dt is not None else np.asarray(fill_value).dtype.itemsize
    except (TypeError, ValueError, OverflowError):
        return 1


def eye(n_rows, n_cols=None, /, *, k=0, dtype=None, device=None, **kwargs):
    """``eye`` on CuPy: ``n_rows``, ``n_cols`` and ``k`` checked first, as on NumPy
    (:func:`~.shape_checks.check_eye`; CuPy took ``k=True`` as 1), then
    ``n_rows * n_cols`` elements past int64 refused."""
    check_eye(n_rows, n_cols, k)
    rows = _index(n_rows)
    cols = rows if n_cols is None else _index(n_cols)
    if rows is not None and cols is not None:
        _check("eye", "n_rows" if n_cols is None else "n_cols", (rows, cols),
               itemsize_of(dtype), result=True)
    return _impl("eye")(n_rows, n_cols, k=k, dtype=dtype, device=device, **kwargs)


def _arange_count(start, stop, step):
    """Number of values of ``arange(start, stop, step)``, or None if not computable."""
    ints = [_index(v) for v in (start, stop, step)]
    if None not in ints:
        a, b, s = ints
        return None if s == 0 else max(0, -((a - b) // s))  # ceil((b - a) / s), exact
    try:
        q = (float(stop) - float(start)) / float(step)
    except (TypeError, ValueError, ZeroDivisionError, OverflowError):
        return None
    return max(0, math.ceil(q)) if math.isfinite(q) else None


def _scalar_itemsize(dtype, *values) -> int:
    if dtype is not None:
        return itemsize_of(dtype)
    return 16 if any(isinstance(v, complex) or getattr(v, "dtype", None) is not None
                     and np.dtype(v.dtype).kind == "c" for v in values) else 8


def arange(start, /, stop=None, step=1, *, dtype=None, device=None, **kwargs):
    """``arange`` on CuPy: ``step`` not zero (CuPy's raised a bare ``ZeroDivisionError``),
    a count of values whose size overflows int64 refused; where CuPy refuses the call,
    the argument named (:func:`~.arange_checks.check_arange`: ``arange(None)``,
    ``arange(0, inf)``)."""
    check_step(step)
    refuse_complex(start, stop, step)
    lo, hi = (0, start) if stop is None else (start, stop)
    count = _arange_count(lo, hi, step)
    if count is not None:
        _check("arange", "start" if stop is None else "stop", (count,),
               _scalar_itemsize(dtype, start, stop, step), result=True)
    try:
        return _impl("arange")(start, stop=stop, step=step, dtype=dtype, device=device,
                               **kwargs)
    except (TypeError, ValueError, OverflowError):
        check_arange((start, stop, step), {}, complex_ok=True)
        raise


def linspace(start, stop, /, num, *, dtype=None, device=None, endpoint=True, **kwargs):
    """``linspace`` on CuPy: ``num`` and ``endpoint`` checked first, as on NumPy
    (:func:`~.arg_checks.check_linspace`; CuPy took ``endpoint="no"`` as true), ``num``
    values whose size overflows int64 refused."""
    check_linspace(num, endpoint, start, stop, dtype)
    n = _index(num)
    if n is not None and n >= 0:
        _check("linspace", "num", (n,), _scalar_itemsize(dtype, start, stop), result=True)
    if (dt := integer_past_float(start, stop, dtype)) is not None:   # no wrap at the top
        return floored_linspace(_impl("linspace"), dt, start, stop, num, device=device,
                                endpoint=endpoint, **kwargs)
    return _impl("linspace")(start, stop, num, dtype=dtype, device=device,
                             endpoint=endpoint, **kwargs)


def check_like(func: str, x, dtype, kwargs) -> None:
    """The size check of a ``*_like`` call that passes ``shape=``."""
    shape = kwargs.get("shape")
    if shape is not None:
        itemsize = itemsize_of(dtype) if dtype is not None else getattr(x, "itemsize", 1)
        _check(func, "shape", shape_of(shape), itemsize)


def empty_like(x, /, *, dtype=None, device=None, **kwargs):
    """``empty_like`` on CuPy, refusing a ``shape=`` whose size overflows int64."""
    check_like("empty_like", x, dtype, kwargs)
    return _impl("empty_like")(x, dtype=dtype, device=device, **kwargs)


def zeros_like(x, /, *, dtype=None, device=None, **kwargs):
    """``zeros_like`` on CuPy, refusing a ``shape=`` whose size overflows int64."""
    check_like("zeros_like", x, dtype, kwargs)
    return _impl("zeros_like")(x, dtype=dtype, device=device, **kwargs)


def ones_like(x, /, *, dtype=None, device=None, **kwargs):
    """``ones_like`` on CuPy, refusing a ``shape=`` whose size overflows int64."""
    check_like("ones_like", x, dtype, kwargs)
    return _impl("ones_like")(x, dtype=dtype, device=device, **kwargs)


# ---------------------------------------------------------------------- manipulation
def broadcast_to(x, /, shape):
    """``broadcast_to`` on CuPy, refusing a shape whose size overflows int64."""
    _check("broadcast_to", "shape", shape_of(shape), getattr(x, "itemsize", 1))
    return _impl("broadcast_to")(x, shape)


def _broadcast_shape(shapes):
    """The array API broadcast of ``shapes`` (right-aligned), or None if they clash."""
    nd = max((len(s) for s in shapes), default=0)
    out = [1] * nd
    for s in shapes:
        for i, n in enumerate(s, nd - len(s)):
            if n != 1:
                if out[i] not in (1, n):
                    return None
                out[i] = n
    return tuple(out)


def broadcast_arrays(*arrays):
    """``broadcast_arrays`` on CuPy, refusing a common shape whose size overflows int64."""
    shapes = [shape_of(getattr(a, "shape", ())) for a in arrays]
    if arrays and None not in shapes:
        itemsize = max(getattr(a, "itemsize", 1) for a in arrays)
        _check("broadcast_arrays", "arrays", _broadcast_shape(shapes), itemsize, result=True)
    return _impl("broadcast_arrays")(*arrays)


def reshape(x, /, shape, *, copy=None, **kwargs):
    """``reshape`` on CuPy, refusing a shape whose size overflows int64.

    With a ``-1`` entry the result has ``x.size`` elements (or the library reports a
    mismatch): only the product of the other extents is checked, as NumPy does.
    """
    shp = shape_of(shape)
    if shp is not None:
        if -1 in shp:
            _check("reshape", "shape", tuple(n for n in shp if n != -1), 1)
        else:
            _check("reshape", "shape", shp, getattr(x, "itemsize", 1))
    return _impl("reshape")(x, shape, copy=copy, **kwargs)


def tile(x, repetitions, /):
    """``tile`` on CuPy, refusing a result whose size overflows int64."""
    reps, shape = shape_of(repetitions), shape_of(getattr(x, "shape", None))
    if reps is not None and shape is not None and min(reps, default=0) >= 0:
        nd = max(len(reps), len(shape))
        reps = (1,) * (nd - len(reps)) + reps
        shape = (1,) * (nd - len(shape)) + shape
        _check("tile", "repetitions", tuple(n * r for n, r in zip(shape, reps)),
               x.itemsize, result=True)
    return _impl("tile")(x, repetitions)


def _repeat_total(repeats, n: int, rest: int, itemsize: int):
    """Length of the repeated axis (``n`` long before), or None when the library should
    decide (unreadable or negative repeats, a length mismatch) or the size is clearly
    fine (a CuPy array of repeats whose float64 sum is far below the limit)."""
    r = _index(repeats)
    if r is not None:
        return r * n if r >= 0 else None
    if isinstance(repeats, _backend.cupy_ndarray() or ()):  # CuPy 14 takes these
        if repeats.ndim != 1 or repeats.dtype.kind not in "iu" or len(repeats) not in (1, n):
            return None
        approx = float(repeats.sum(dtype=np.float64))  # one scalar to the host
        if approx * (n if len(repeats) == 1 else 1) * rest * itemsize < 2.0**62:
            return None
        counts = [int(v) for v in repeats.get().tolist()]  # near the limit: exact
    else:
        counts = shape_of(repeats)
    if counts is None or min(counts, default=0) < 0 or len(counts) not in (1, n):
        return None
    return counts[0] * n if len(counts) == 1 else sum(counts)


def _repeat_shape(x, repeats, axis):
    """Result shape of CuPy's ``repeat``, or None (see :func:`_repeat_total`)."""
    shape = shape_of(getattr(x, "shape", None))
    if shape is None:
        return None
    if axis is None:
        shape, ax = (math.prod(shape),), 0
    else:
        ax = _index(axis)
        if ax is None or not -len(shape) <= ax < len(shape):
            return None
        ax %= len(shape)
    rest = math.prod(shape[:ax] + shape[ax + 1:])
    total = _repeat_total(repeats, shape[ax], rest, getattr(x, "itemsize", 1))
    return None if total is None else shape[:ax] + (total,) + shape[ax + 1:]


def repeat(x, repeats, /, *, axis=None):
    """``repeat`` on CuPy, refusing a result whose size overflows int64."""
    _check("repeat", "repeats", _repeat_shape(x, repeats, axis), getattr(x, "itemsize", 1),
           result=True)
    return _impl("repeat")(x, repeats, axis=axis)
