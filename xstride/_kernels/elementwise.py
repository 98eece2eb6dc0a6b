"""The standard's elementwise functions on CuPy arrays, run on xstride's engine.

Registered by :mod:`xstride.elementwise` for the backend of CuPy arrays (``FUNCTIONS``):
``add subtract multiply divide maximum minimum equal not_equal less less_equal greater
greater_equal bitwise_and bitwise_or bitwise_xor logical_and logical_or logical_xor
negative positive abs square where astype``, plus :func:`copy_into`. Each takes the
xstride extension ``out=`` (an existing CuPy array; ``out`` may be an input, so
``add(x, y, out=x)`` is an in-place update).

Dtype rules are NumPy's, taken from NumPy itself: ``ufunc.resolve_dtypes`` with
Python scalars as weak scalars (NEP 50, as the array API standard says), so the result
dtype and the loop dtypes are exactly those NumPy would use. A dtype combination NumPy
refuses raises ``TypeError``. Dtypes the engine does not generate code for (complex,
float16) run on CuPy's own kernels, with the same ``out=`` and overlap semantics.

Nothing here imports CuPy at import time.
"""

from __future__ import annotations

import sys

import numpy as np

from .._backends.dispatch import _from_compat
from .._core.ufuncs import ENGINE_UFUNCS, NUMPY_UFUNC
from .._plans.elementwise import broadcast_shapes
from ..layout import check_output
from .._core.errors import type_error
from . import _elementwise_exec as _ex

__all__ = ["ufunc_call", "where", "astype", "copy_into", "OPS"]

#: name -> (arity, C++ expression over the loop-typed inputs {0}, {1})
OPS = ENGINE_UFUNCS
_NP_UFUNC = NUMPY_UFUNC
_NAMES = "abcdefgh"
_resolve_cache: dict = {}
_spec_cache: dict = {}


def _cupy():
    return sys.modules["cupy"]


def _scalar_kind(v):
    """``type(v)`` for a Python scalar (bool, int, float, complex), else None."""
    if isinstance(v, bool):
        return bool
    if isinstance(v, (int, float, complex)):
        return type(v)
    return None


def _classify(func, names, args, cupy):
    kinds = []
    for nm, v in zip(names, args):
        if isinstance(v, cupy.ndarray):
            kinds.append(v.dtype)
        else:
            k = _scalar_kind(v)
            if k is None:
                raise type_error(func, nm, v, "a cupy.ndarray or a Python scalar")
            kinds.append(k)
    return tuple(kinds)


def _resolve(func, kinds):
    key = (func, kinds)
    r = _resolve_cache.get(key)
    if r is None:
        uf = getattr(np, _NP_UFUNC.get(func, func))
        try:
            # Python int/float/complex are weak (NEP 50); a Python bool is bool
            r = uf.resolve_dtypes(tuple(np.dtype(bool) if k is bool else k for k in kinds)
                                  + (None,))
        except TypeError as exc:
            shown = ", ".join(str(k if isinstance(k, np.dtype) else k.__name__) for k in kinds)
            raise TypeError(f"{func}: no loop for dtypes ({shown}): {exc}") from None
        _resolve_cache[key] = r
    return r


def _engine_ok(dtypes) -> bool:
    return all(_ex.ctype(d) is not None for d in dtypes)


def _scalar_to(v, dt):
    """A NumPy scalar of ``dt`` from a Python scalar (OverflowError as NumPy raises)."""
    return np.asarray(v, dtype=dt)[()]


def _finish_out(func, res, out, cupy):
    """Fallback path: copy a fresh result into ``out`` after NumPy's checks."""
    if out is None:
        return res
    _ex.check_out(func, out, res.shape, res.dtype, cupy)
    copy_into(out, res)
    return out


def ufunc_call(func: str, args: tuple, out=None):
    """Run the standard elementwise function ``func`` on CuPy arrays / scalars."""
    cupy = _cupy()
    key = None
    if _ex.CACHE:
        key = _ex.call_key(func, args, out, cupy.ndarray)
        if key is not None:
            got = _ex.run_cached(key, args, out, cupy)
            if got is not None:
                return got
    nin, expr = OPS[func]
    names = ("x1", "x2") if nin == 2 else ("x",)
    kinds = _classify(func, names, args, cupy)
    arrays = [a for a in args if isinstance(a, cupy.ndarray)]
    if not arrays:  # only Python scalars: CuPy's answer on the active device
        return _finish_out(func, _from_compat("cupy", func)(*args), out, cupy)
    loop = _resolve(func, kinds)
    if not _engine_ok(loop + tuple(a.dtype for a in arrays)) or (
            out is not None and isinstance(out, cupy.ndarray) and _ex.ctype(out.dtype) is None):
        return _finish_out(func, getattr(cupy, _NP_UFUNC.get(func, func))(*args), out, cupy)
    shape = arrays[0].shape
    for a in arrays[1:]:
        if a.shape != shape:
            shape = broadcast_shapes(*(a.shape for a in arrays), func=func)
            break
    rdt = loop[-1]
    fresh = out is None
    alloc = [] if fresh else None
    if fresh:
        out = _ex.alloc_like_inputs(cupy, shape, rdt, arrays, alloc)
    else:
        _ex.check_out(func, out, shape, rdt, cupy)
    ckey = (func, kinds, out.dtype)
    cached = _spec_cache.get(ckey)
    if cached is None:
        specs = [_ex.operand("r", out.dtype, kind="out")]
        for i, (k, ldt) in enumerate(zip(kinds, loop[:nin])):
            if isinstance(k, np.dtype):
                specs.append(_ex.operand(_NAMES[i], k, ldt))
            else:
                specs.append(_ex.operand(_NAMES[i], ldt, ldt, kind="scalar"))
        body = "r = (" + _ex.ctype(out.dtype) + ")(" + expr.format(*_NAMES[:nin]) + ");"
        cached = _spec_cache[ckey] = (tuple(specs), body)
    specs, body = cached
    ins = [a if isinstance(a, cupy.ndarray) else _scalar_to(a, ldt)
           for a, ldt in zip(args, loop[:nin])]
    entry, copied = _ex.launch(func, body, specs, [out], ins, resolve_overlap=not fresh)
    if key is not None and not copied:
        conv = [None if isinstance(a, cupy.ndarray) else (_scalar_to, ldt)
                for a, ldt in zip(args, loop[:nin])]
        _ex.remember(key, entry, out, args, conv, alloc[0] if fresh else None)
    return out


def _where_scalar(v, dt):
    """``where``'s conversion of a Python scalar to the result dtype."""
    return np.asarray(v).astype(dt)[()]


def _where_dtype(kinds, values):
    key = ("where", kinds)
    r = _resolve_cache.get(key)
    if r is None:
        dummies = [v if not isinstance(k, np.dtype) else np.empty((), k)
                   for k, v in zip(kinds, values)]
        r = np.where(True, dummies[0], dummies[1]).dtype
        _resolve_cache[key] = r
    return r


def where(condition, x1, x2, /, *, out=None):
    """``where`` of the standard on CuPy arrays (``out=`` is an xstride extension)."""
    cupy = _cupy()
    args = (condition, x1, x2)
    key = None
    if _ex.CACHE:
        key = _ex.call_key("where", args, out, cupy.ndarray)
        if key is not None:
            got = _ex.run_cached(key, args, out, cupy)
            if got is not None:
                return got
    kinds = _classify("where", ("condition", "x1", "x2"), args, cupy)
    arrays = [a for a in args if isinstance(a, cupy.ndarray)]
    if not arrays:
        return _finish_out("where", _from_compat("cupy", "where")(condition, x1, x2), out, cupy)
    rdt = _where_dtype(kinds[1:], (x1, x2))
    if not _engine_ok((rdt,) + tuple(a.dtype for a in arrays)) or (
            out is not None and isinstance(out, cupy.ndarray) and _ex.ctype(out.dtype) is None):
        return _finish_out("where", cupy.where(condition, x1, x2), out, cupy)
    shape = broadcast_shapes(*(a.shape for a in arrays), func="where")
    alloc = [] if out is None else None
    if out is None:
        out = _ex.alloc_like_inputs(cupy, shape, rdt, arrays, alloc)
    else:
        _ex.check_out("where", out, shape, rdt, cupy)
    specs = [_ex.operand("r", out.dtype, kind="out")]
    ins, conv = [], []
    for i, (v, ldt) in enumerate(zip(args, (np.dtype(bool), rdt, rdt))):
        if isinstance(v, cupy.ndarray):
            specs.append(_ex.operand(_NAMES[i], v.dtype, ldt))
            ins.append(v)
            conv.append(None)
        else:
            specs.append(_ex.operand(_NAMES[i], ldt, ldt, kind="scalar"))
            ins.append(_where_scalar(v, ldt))
            conv.append((_where_scalar, ldt))
    body = f"r = ({_ex.ctype(out.dtype)})(a ? b : c);"
    entry, copied = _ex.launch("where", body, specs, [out], ins)
    if key is not None and not copied:
        _ex.remember(key, entry, out, args, conv, alloc[0] if alloc is not None else None)
    return out


def astype(x, dtype, /, *, copy=True, device=None):
    """``astype`` of the standard on CuPy arrays: a cast copy in the input's axis order."""
    cupy = _cupy()
    if not isinstance(x, cupy.ndarray):
        raise type_error("astype", "x", x, "a cupy.ndarray")
    try:
        dt = np.dtype(dtype)
    except TypeError:
        raise type_error("astype", "dtype", dtype, "a dtype") from None
    if device is not None and device != x.device:
        return _from_compat("cupy", "astype")(x, dtype, copy=copy, device=device)
    if not copy and x.dtype == dt:
        return x
    key = None
    if _ex.CACHE:
        key = _ex.call_key(("astype", dt), (x,), None, cupy.ndarray)
        if key is not None:
            got = _ex.run_cached(key, (x,), None, cupy)
            if got is not None:
                return got
    if _ex.ctype(dt) is None or _ex.ctype(x.dtype) is None:
        return x.astype(dt, copy=True)
    alloc = []
    out = _ex.alloc_like_inputs(cupy, x.shape, dt, [x], alloc)
    specs = [_ex.operand("r", dt, kind="out"), _ex.operand("a", x.dtype, dt)]
    entry, _ = _ex.launch("astype", "r = a;", specs, [out], [x], resolve_overlap=False)
    if key is not None:
        _ex.remember(key, entry, out, (x,), (None,), alloc[0])
    return out


def copy_into(dst, src):
    """Copy ``src`` (CuPy array or Python scalar, broadcast) into the CuPy view ``dst``.

    Casting follows NumPy's ``copyto`` default (``same_kind``). Overlapping source and
    destination give NumPy's answer (the source is read before anything is written).
    """
    cupy = _cupy()
    isz = getattr(dst, "itemsize", 0)
    if isz and any(s % isz for s in getattr(dst, "strides", ())):
        # a record's field: the engine indexes whole elements (the error names dst)
        check_output("copy_into", "dst", dst, whole_elements=True)
    key = None
    if _ex.CACHE:
        key = _ex.call_key("copy_into", (src,), dst, cupy.ndarray)
        if key is not None and _ex.run_cached(key, (src,), dst, cupy) is not None:
            return dst
    if not isinstance(dst, cupy.ndarray):
        raise type_error("copy_into", "dst", dst, "a cupy.ndarray")
    if isinstance(src, cupy.ndarray):
        sdt = src.dtype
        broadcast_shapes(src.shape, dst.shape, func="copy_into")
        if broadcast_shapes(src.shape, dst.shape) != tuple(dst.shape):
            raise ValueError(f"copy_into: shapes {tuple(src.shape)} and {tuple(dst.shape)} "
                             "cannot be broadcast together (into dst)")
    else:
        k = _scalar_kind(src)
        if k is None:
            raise type_error("copy_into", "src", src, "a cupy.ndarray or a Python scalar")
        # a Python scalar is weak (NEP 50): it takes dst's dtype when NumPy would
        sdt = np.dtype(bool) if k is bool else np.result_type(dst.dtype, src)
    if not np.can_cast(sdt, dst.dtype, casting="same_kind"):
        raise TypeError(f"copy_into: cannot cast {np.dtype(sdt)} to {dst.dtype} "
                        "(same_kind rule)")
    _ex.check_out("copy_into", dst, dst.shape, dst.dtype, cupy)
    if _ex.ctype(dst.dtype) is None or _ex.ctype(sdt) is None:
        dst[...] = src
        return dst
    if isinstance(src, cupy.ndarray):
        specs = [_ex.operand("r", dst.dtype, kind="out"), _ex.operand("a", src.dtype, dst.dtype)]
        ins = [src]
    else:
        specs = [_ex.operand("r", dst.dtype, kind="out"),
                 _ex.operand("a", dst.dtype, dst.dtype, kind="scalar")]
        ins = [_scalar_to(src, dst.dtype)]
    entry, copied = _ex.launch("copy", "r = a;", specs, [dst], ins)
    if key is not None and not copied:
        conv = [None] if isinstance(src, cupy.ndarray) else [(_scalar_to, dst.dtype)]
        _ex.remember(key, entry, dst, (src,), conv)
    return dst


def _make(func, nin):
    if nin == 2:
        def impl(x1, x2, /, *, out=None):
            return ufunc_call(func, (x1, x2), out)
    else:
        def impl(x, /, *, out=None):
            return ufunc_call(func, (x,), out)
    impl.__name__ = impl.__qualname__ = func
    impl.__doc__ = (f"``{func}`` of the array API standard on CuPy arrays, on xstride's "
                    "elementwise engine; ``out=`` (xstride extension) writes in place.")
    return impl


#: The namespace functions this executor implements (registered by
#: ``xstride.elementwise`` for the backend whose executor this is).
FUNCTIONS = {name: _make(name, nin) for name, (nin, _) in OPS.items()}
FUNCTIONS["where"] = where
FUNCTIONS["astype"] = astype
