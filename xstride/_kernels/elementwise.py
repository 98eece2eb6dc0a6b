"""The CUDA executor of the elementwise functions: the engine runs them on CuPy arrays.

:mod:`xstride.elementwise` holds the rules (dtype resolution, argument and ``out=``
checks, the library fallback for dtypes the engine lacks); this module runs a checked
call: :func:`ufunc` (the functions of ``xstride._core.ufuncs.ENGINE_UFUNCS``),
:func:`where`, :func:`astype` and :func:`copy_into`, each through the engine
(:mod:`._elementwise_exec`), and :func:`repeat` (``_elementwise_exec.repeat``), the
prepared-call fast path of a call seen before (:mod:`._prepared`: one dictionary
lookup, then the launch), with its forms for one and two arrays and a new output,
:func:`repeat1` and :func:`repeat2`.

Nothing here imports CuPy at import time.
"""

from __future__ import annotations

import numpy as np

from ._elementwise_source import C_TYPES   # the engine's: float16 too
from .._core.ufuncs import ENGINE_UFUNCS
from . import _elementwise_exec as _ex
from . import complex_parts as _cx
from ._cupy import cupy as _cupy
from ._devices import check as _check_devices
from ._elementwise_exec import repeat, repeat1, repeat2
from ._lru import Bounded

__all__ = ["takes", "repeat", "repeat1", "repeat2", "ufunc", "where", "astype", "copy_into",
           "partwise_takes", "partwise", "OPS", "ENGINE", "ACCEPTS_SEQUENCES",
           "WHOLE_ELEMENTS", "PARTWISE", "PARTWISE_MIN"]

#: name -> (arity, C++ expression over the loop-typed inputs {0}, {1})
OPS = ENGINE_UFUNCS
#: xstride's engine runs these functions.
ENGINE = True
#: ``copy_into`` takes device arrays and Python scalars, no nested lists.
ACCEPTS_SEQUENCES = False
#: The engine indexes whole elements: an output may not be a field of a record.
WHOLE_ELEMENTS = True
_NAMES = "abcdefgh"
#: The public names of a function's arguments by their count (the namespace's).
_ARG_NAMES = {1: ("x",), 2: ("x1", "x2")}
_spec_cache = Bounded(4096)


#: The dtypes the engine generates code for (anything else: the library's kernels).
DTYPES = frozenset(np.dtype(name) for name in C_TYPES)


def takes(*dtypes) -> bool:
    """True when the engine generates code for every one of ``dtypes``."""
    return all(_ex.ctype(d) is not None for d in dtypes)


def _scalar_to(v, dt):
    """A NumPy scalar of ``dt`` from a Python scalar (OverflowError as NumPy raises)."""
    return np.asarray(v, dtype=dt)[()]


def _where_scalar(v, dt):
    """``where``'s conversion of a Python scalar to the result dtype."""
    return np.asarray(v).astype(dt)[()]


def _remember(tag, args, out, fresh, entry, copied, conv, alloc):
    if not copied:
        _ex.remember(tag, entry, out, args, conv, alloc[0] if fresh else None)


def ufunc(func: str, kinds: tuple, loop: tuple, args: tuple, out, shape):
    """Run the checked call ``func(*args)`` with loop dtypes ``loop`` (inputs, then
    result) into ``out`` (a checked CuPy array) or a new array of ``shape`` laid out in
    the inputs' axis order; ``kinds`` per argument its dtype or Python scalar type."""
    cupy = _cupy()
    nin = len(args)
    _check_devices(func, [*zip(_ARG_NAMES[nin], args), ("out", out)], cupy)
    arrays = [a for a in args if isinstance(a, cupy.ndarray)]
    fresh = out is None
    alloc = [] if fresh else None
    if fresh:
        out = _ex.alloc_like_inputs(cupy, shape, loop[-1], arrays, alloc)
    ckey = (func, kinds, out.dtype)
    cached = _spec_cache.get(ckey)
    if cached is None:
        specs = [_ex.operand("r", out.dtype, kind="out")]
        for i, (k, ldt) in enumerate(zip(kinds, loop[:nin])):
            if isinstance(k, np.dtype):
                specs.append(_ex.operand(_NAMES[i], k, ldt))
            else:
                specs.append(_ex.operand(_NAMES[i], ldt, ldt, kind="scalar"))
        expr = OPS[func][1]
        body = "r = (" + _ex.ctype(out.dtype) + ")(" + expr.format(*_NAMES[:nin]) + ");"
        cached = _spec_cache.put(ckey, (tuple(specs), body))
    specs, body = cached
    ins = [a if isinstance(a, cupy.ndarray) else _scalar_to(a, ldt)
           for a, ldt in zip(args, loop[:nin])]
    entry, copied = _ex.launch(func, body, specs, [out], ins, resolve_overlap=not fresh)
    conv = [None if isinstance(a, cupy.ndarray) else (_scalar_to, ldt)
            for a, ldt in zip(args, loop[:nin])]
    _remember(func, args, out, fresh, entry, copied, conv, alloc)
    return out


#: The complex functions that act on the real and the imaginary parts apart (NumPy's
#: complex add and subtract): :func:`partwise` runs them on the parts.
PARTWISE = frozenset({"add", "subtract"})
#: Fewest output elements for :func:`partwise`; smaller calls stay the library's. The
#: parts' views cost host time per call that a small call's device time does not pay
#: back: CuPy's complex64 add of (2**25, 1) + (1,) ran at 0.76 of a copy on the H200
#: (2026-12-03), the engine's float32 one at 0.96, a gain of 40 us there.
PARTWISE_MIN = 1 << 22


def partwise_takes(func: str, loop: tuple, arrays, out, size: int) -> bool:
    """True when :func:`partwise` runs ``func`` with loop dtypes ``loop`` on ``arrays``
    (every argument an array) into ``out`` (None or a CuPy array) for ``size`` output
    elements: a function of :data:`PARTWISE`, every array and the loop of one complex
    dtype whose parts the engine takes, ``out`` None or of that dtype, at least
    :data:`PARTWISE_MIN` elements, and every array's last axis its innermost
    (:func:`_last_innermost`)."""
    dt = np.dtype(loop[-1])
    part = _cx.PART.get(dt)
    return (func in PARTWISE and part is not None and size >= PARTWISE_MIN
            and _ex.ctype(part) is not None and all(np.dtype(d) == dt for d in loop)
            and all(a.dtype == dt for a in arrays) and (out is None or out.dtype == dt)
            and all(_last_innermost(a) for a in (*arrays, *(() if out is None else (out,)))))


def _last_innermost(a) -> bool:
    """Whether the last axis of more than one element is also the one of the smallest
    stride (or ``a`` has at most one such axis): its parts then run on as one
    contiguous row. Where it is not, ``x + x[0]`` of a (5, 2**25) complex64 array used
    as ``.T`` ran at 0.62 of a copy over the parts against CuPy's 0.79 (H200,
    2026-12-03), so such calls stay the library's."""
    axes = [(abs(st), i) for i, (n, st) in enumerate(zip(a.shape, a.strides)) if n > 1]
    return len(axes) < 2 or min(axes)[1] == max(i for _, i in axes)


def partwise(func: str, loop: tuple, args: tuple, out, shape):
    """Run the checked complex call ``func(*args)`` (:func:`partwise_takes`) as the same
    function of the real arrays of their parts (``complex_parts.parts``: shape
    ``x.shape + (2,)``, broadcast as the arrays are) into the parts of ``out`` or of a
    new array of ``shape``: the engine's prepared call after the first."""
    dt = np.dtype(loop[-1])
    part = _cx.PART[dt]
    ps = tuple(_cx.parts(a) for a in args)
    pout = None if out is None else _cx.parts(out)
    res = repeat(func, ps, pout)
    if res is None:
        res = ufunc(func, (part,) * len(ps), (part,) * (len(ps) + 1), ps, pout,
                    tuple(shape) + (2,))
    return out if out is not None else _cx.from_parts(res, dt)


def where(kinds: tuple, rdt, args: tuple, out, shape):
    """Run the checked call ``where(*args)`` (result dtype ``rdt``) into ``out`` or a new
    array of ``shape``."""
    cupy = _cupy()
    _check_devices("where", [*zip(("condition", "x1", "x2"), args), ("out", out)], cupy)
    arrays = [a for a in args if isinstance(a, cupy.ndarray)]
    fresh = out is None
    alloc = [] if fresh else None
    if fresh:
        out = _ex.alloc_like_inputs(cupy, shape, rdt, arrays, alloc)
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
    _remember("where", args, out, fresh, entry, copied, conv, alloc)
    return out


def astype(x, dt):
    """A cast copy of the CuPy array ``x`` to ``dt`` (both engine dtypes), laid out in
    ``x``'s axis order."""
    got = repeat(("astype", dt), (x,), None)
    if got is not None:
        return got
    cupy = _cupy()
    _check_devices("astype", [("x", x)], cupy)
    alloc = []
    out = _ex.alloc_like_inputs(cupy, x.shape, dt, [x], alloc)
    specs = [_ex.operand("r", dt, kind="out"), _ex.operand("a", x.dtype, dt, cast=True)]
    entry, _ = _ex.launch("astype", "r = a;", specs, [out], [x], resolve_overlap=False)
    _ex.remember(("astype", dt), entry, out, (x,), (None,), alloc[0])
    return out


def copy_into(dst, src):
    """Copy ``src`` (CuPy array or Python scalar, broadcast; checked by the caller) into
    the CuPy view ``dst``. Overlapping source and destination give NumPy's answer (the
    source is read before anything is written)."""
    if repeat("copy_into", (src,), dst) is not None:
        return dst
    cupy = _cupy()
    _check_devices("copy_into", [("dst", dst), ("src", src)], cupy)
    if isinstance(src, cupy.ndarray):
        sdt = src.dtype
    else:  # a Python scalar is weak (NEP 50)
        sdt = np.dtype(bool) if isinstance(src, bool) else np.result_type(dst.dtype, src)
    if _ex.ctype(dst.dtype) is None or _ex.ctype(sdt) is None:
        dst[...] = src
        return dst
    if isinstance(src, cupy.ndarray):
        specs = [_ex.operand("r", dst.dtype, kind="out"),
                 _ex.operand("a", src.dtype, dst.dtype, cast=True)]
        ins = [src]
    else:
        specs = [_ex.operand("r", dst.dtype, kind="out"),
                 _ex.operand("a", dst.dtype, dst.dtype, kind="scalar")]
        ins = [_scalar_to(src, dst.dtype)]
    entry, copied = _ex.launch("copy", "r = a;", specs, [dst], ins)
    if not copied:
        conv = [None] if isinstance(src, cupy.ndarray) else [(_scalar_to, dst.dtype)]
        _ex.remember("copy_into", entry, dst, (src,), conv)
    return dst
