"""The engine's elementwise functions of the namespace: ``add``, ``subtract``,
``multiply``, ``divide``, ``maximum``, ``minimum``, the comparisons, the bitwise and
logical functions, ``negative``, ``positive``, ``abs``, ``square``, ``where`` and
``astype`` (array API standard, "Element-wise functions"), and ``copy_into``.

This module holds the rules; each backend's elementwise executor runs the call:

- dtypes are NumPy's, taken from NumPy itself: ``ufunc.resolve_dtypes`` with Python
  scalars as weak scalars (NEP 50, as the standard says), so the result and loop dtypes
  are exactly those NumPy would use; a combination NumPy refuses raises ``TypeError``;
- ``out=`` (an xstride extension; not ``astype``) is an existing array of the inputs' backend, of the
  broadcast shape, to which the result dtype casts (``same_kind``), that reaches each
  of its elements once; it may be an input (``add(x, y, out=x)``), with NumPy's answer
  for overlapping views;
- on CuPy arrays the call runs on xstride's elementwise engine (docs/elementwise.md);
  float16 there too (stored as its bits, computed in float32, rounded once: NumPy's
  bits); dtypes the engine generates no code for (complex) run on CuPy's own kernels
  with the same ``out=`` semantics; on NumPy arrays they are NumPy's ufuncs.

The list of functions is one table, ``xstride._core.ufuncs.ENGINE_UFUNCS``.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from . import _backends
from ._backends import dispatch
from ._backends.masked_astype import masked_abs_of, masked_astype
from ._backends.masked_where import masked_where
from ._core.errors import broadcast_error, error, type_error, value_error
from ._core.elementwise_docs import elementwise_doc
from ._core.ufuncs import ENGINE_UFUNCS, numpy_ufunc_name
from ._plans.elementwise import broadcast_shapes
from .elementwise_args import NUMERIC as _NUMERIC, astype_dtype as _astype_dtype
from .elementwise_args import (check_out, check_where_ints, check_where_values,
                               scalar_kind)

__all__ = ["resolve", "check_out", "FUNCTIONS"]

#: The namespace functions this module puts on the engine.
FUNCTIONS = tuple(ENGINE_UFUNCS) + ("where", "astype")

_resolved: dict = {}
_RESOLVED_MAX = 4096


# ----------------------------------------------------------------------------- rules
def classify(func: str, names, args, be, owns=None) -> tuple:
    """Per argument: its dtype (an array of backend ``be``, or a NumPy scalar of a bool
    or numeric dtype: strong, NEP 50) or its Python scalar type. ``owns``: the test for
    an array of ``be`` (default ``be.owns``).

    Raises
    ------
    TypeError
        An argument that is neither (naming the function and the argument).
    """
    owns = owns or be.owns
    kinds = []
    for nm, v in zip(names, args):
        if owns(v) and not isinstance(v, np.generic):
            if v.dtype.kind not in _NUMERIC:
                raise type_error(func, nm, v, "an array of a bool or numeric dtype")
            kinds.append(v.dtype)
        elif isinstance(v, np.generic) and v.dtype.kind in _NUMERIC:
            kinds.append(v.dtype)   # a NumPy scalar: its own dtype (NEP 50), as NumPy's
        else:
            k = scalar_kind(v)
            if k is None:
                raise type_error(func, nm, v, f"an array of the {be.name} backend or a "
                                              "Python scalar")
            kinds.append(k)
    return tuple(kinds)


def resolve(func: str, kinds: tuple) -> tuple:
    """Loop dtypes ``(in..., out)`` of ``func`` for argument kinds (dtypes or Python
    scalar types), by NumPy's ``ufunc.resolve_dtypes`` (NEP 50 weak scalars).

    Parameters
    ----------
    func : str
        An elementwise function that NumPy computes with a ufunc, by the standard's
        name or NumPy's (``"add"``, ``"pow"``, ``"power"``, ``"exp"``, ...:
        :data:`FUNCTIONS` but ``where``,
        whose dtype is :func:`where_dtype`'s, and ``astype``, whose dtype is its
        argument; and the math functions ``xp.fuse`` traces).
    kinds : tuple
        One per input: a ``numpy.dtype`` (or what ``numpy.dtype`` reads: ``"int8"``,
        ``numpy.float32``), or ``bool``, ``int``, ``float``, ``complex`` for a Python
        scalar.

    Raises
    ------
    ValueError
        ``func`` names no such function.
    TypeError
        ``kinds`` is no tuple of dtypes and Python scalar types, of one entry per
        input of ``func``; or NumPy has no loop for these dtypes.
    """
    key = (func, kinds)
    try:
        r = _resolved.get(key)
    except TypeError:   # a list of kinds (or an unhashable func): unhashable
        _ufunc_of(func)
        raise type_error("resolve", "kinds", kinds, "a tuple of dtypes and Python scalar "
                                                    "types") from None
    if r is None:
        uf = _ufunc_of(func)
        loop = _loop_kinds(uf, kinds)
        try:
            r = uf.resolve_dtypes(loop + (None,))
        except TypeError as exc:
            shown = ", ".join(str(k if isinstance(k, np.dtype) else k.__name__) for k in loop)
            raise error(TypeError, func, f"no loop for dtypes ({shown}): {exc}") from None
        if len(_resolved) >= _RESOLVED_MAX:
            _resolved.clear()
        _resolved[key] = r
    return r


def _ufunc_of(func) -> np.ufunc:
    """NumPy's ufunc of the elementwise function ``func`` (the standard's name or
    NumPy's: ``pow``, ``power``), :func:`resolve`'s check."""
    uf = getattr(np, numpy_ufunc_name(func), None) if isinstance(func, str) else None
    if not isinstance(uf, np.ufunc):
        raise value_error("resolve", "func", f"is {func!r}; expected the name of an "
                                             "elementwise function of the standard that "
                                             "NumPy computes with a ufunc ('add', 'exp', ...)")
    return uf


def _loop_kinds(uf: np.ufunc, kinds) -> tuple:
    """``kinds`` as ``resolve_dtypes`` takes them: dtypes, and ``int``, ``float``,
    ``complex`` (weak); a Python bool is bool."""
    if not isinstance(kinds, tuple) or len(kinds) != uf.nin:
        raise type_error("resolve", "kinds", kinds,
                         f"a tuple of {uf.nin} dtypes or Python scalar types (one per "
                         f"input of {uf.__name__})")
    loop = []
    for k in kinds:
        if k is bool:
            loop.append(np.dtype(bool))
        elif k in (int, float, complex):
            loop.append(k)
        elif k is None:   # (numpy.dtype(None) is float64)
            raise type_error("resolve", "kinds", kinds, "a tuple of dtypes or Python scalar "
                                                        "types, without None")
        else:
            try:
                dt = np.dtype(k)
            except TypeError:
                dt = None
            if dt is None or dt.kind == "O":   # (numpy.dtype of any other class: object)
                raise type_error("resolve", "kinds", kinds, "a tuple of dtypes or Python "
                                                            "scalar types")
            loop.append(dt)
    return tuple(loop)


def where_dtype(kinds: tuple, values: tuple) -> np.dtype:
    """Result dtype of ``where(condition, x1, x2)`` (NumPy's rules, weak scalars)."""
    key = ("where", kinds)
    r = _resolved.get(key)
    if r is None:
        dummies = [v if not isinstance(k, np.dtype) else np.empty((), k)
                   for k, v in zip(kinds, values)]
        r = np.where(True, dummies[0], dummies[1]).dtype
        if len(_resolved) >= _RESOLVED_MAX:
            _resolved.clear()
        _resolved[key] = r
    return r


def _copy_dtype(be, dst, src):
    """dtype of ``src`` for ``copy_into`` (a Python scalar is weak: NEP 50)."""
    if be.owns(src) and not isinstance(src, np.generic):
        try:   # shapes that broadcast nowhere, or to more than dst: one message
            fits = broadcast_shapes(src.shape, dst.shape, func="copy_into") == tuple(dst.shape)
        except ValueError:
            fits = False
        if not fits:
            raise broadcast_error("copy_into", (src.shape, dst.shape), into="dst")
        return src.dtype
    if isinstance(src, np.generic) and src.dtype.kind in _NUMERIC:
        return src.dtype   # strong (NEP 50)
    k = scalar_kind(src)
    if k is None:
        return None
    if k is bool:
        return np.dtype(bool)
    try:
        return np.result_type(dst.dtype, src)
    except TypeError:  # no common dtype (a record dst and a number): no same_kind cast
        if dst.dtype.kind in "US":   # but numpy.copyto writes a number's text into a
            return None              # string dst, as it writes a str: the library copies
        raise error(TypeError, "copy_into", f"cannot copy a Python {k.__name__} into dst of dtype "
                                 f"{dst.dtype}") from None


# ----------------------------------------------------------------------------- per backend
def _engine_functions(be, ex) -> tuple[dict, dict]:
    """The namespace functions on a backend whose executor has an engine."""
    lib = be.load
    nd = []   # the backend's array type, looked up once its library is loaded

    def owns(v):
        if not nd:
            nd.append(be.array_type())
        return isinstance(v, nd[0])

    def takes(*dtypes):
        return all(np.dtype(d) in ex.DTYPES for d in dtypes)

    def finish_out(func, res, out):
        """A library result, copied into ``out`` after the checks."""
        if out is None:
            return res
        check_out(func, out, res.shape, res.dtype, be, owns=owns)
        ex.copy_into(out, res)
        return out

    def ufunc_call(func, args, out):
        got = ex.repeat(func, args, out)
        if got is not None:
            return got
        return ufunc_checked(func, args, out)

    def on_device(args):
        """NumPy scalars as 0-d arrays of the backend (the engine's operands)."""
        return tuple(lib().asarray(a) if isinstance(a, np.generic) else a for a in args)

    def ufunc_checked(func, args, out):
        nin = len(args)
        kinds = classify(func, ("x1", "x2") if nin == 2 else ("x",), args, be, owns)
        if any(isinstance(a, np.generic) for a in args):
            args = on_device(args)
        arrays = [a for a, k in zip(args, kinds) if isinstance(k, np.dtype)]
        if not arrays:  # only Python scalars: the library's answer on the active device
            return finish_out(func, getattr(be.namespace(), func)(*args), out)
        loop = resolve(func, kinds)
        if not takes(*loop, *(a.dtype for a in arrays)) or (
                out is not None and owns(out) and not takes(out.dtype)):
            if len(arrays) == nin and getattr(ex, "PARTWISE", ()) and func in ex.PARTWISE:
                # complex add/subtract: the engine over the parts, where it takes them
                shape = broadcast_shapes(*(a.shape for a in arrays), func=func)
                if ((out is None or owns(out))
                        and ex.partwise_takes(func, loop, arrays, out, math.prod(shape))):
                    if out is not None:
                        check_out(func, out, shape, loop[-1], be, whole_elements=True,
                                  owns=owns)
                    return ex.partwise(func, loop, args, out, shape)
            return finish_out(func, getattr(lib(), numpy_ufunc_name(func))(*args), out)
        shape = arrays[0].shape
        for a in arrays[1:]:
            if a.shape != shape:
                shape = broadcast_shapes(*(a.shape for a in arrays), func=func)
                break
        if out is not None:
            check_out(func, out, shape, loop[-1], be, whole_elements=True, owns=owns)
        return ex.ufunc(func, kinds, loop, args, out, shape)

    # a new output: the prepared call's forms for one and two arguments first (one
    # call less than ufunc_call's), then the checked path
    repeat1, repeat2 = ex.repeat1, ex.repeat2

    def make(func, nin):
        if nin == 2:
            def impl(x1, x2, /, *, out=None):
                if out is None:
                    got = repeat2(func, x1, x2)
                    return got if got is not None else ufunc_checked(func, (x1, x2), None)
                return ufunc_call(func, (x1, x2), out)
        else:
            def impl(x, /, *, out=None):
                if out is None:
                    got = repeat1(func, x)
                    return got if got is not None else ufunc_checked(func, (x,), None)
                return ufunc_call(func, (x,), out)
        return impl

    def where(condition, x1, x2, /, *, out=None):
        if type(x1) is int or type(x2) is int:
            check_where_ints(x1, x2)
        args = (condition, x1, x2)
        got = ex.repeat("where", args, out)
        if got is not None:
            return got
        kinds = classify("where", ("condition", "x1", "x2"), args, be, owns)
        if any(isinstance(a, np.generic) for a in args):
            args = on_device(args)
            condition, x1, x2 = args
        arrays = [a for a, k in zip(args, kinds) if isinstance(k, np.dtype)]
        if not arrays:
            return finish_out("where", be.namespace().where(condition, x1, x2), out)
        rdt = where_dtype(kinds[1:], (x1, x2))
        if not takes(rdt, *(a.dtype for a in arrays)) or (
                out is not None and owns(out) and not takes(out.dtype)):
            return finish_out("where", lib().where(condition, x1, x2), out)
        shape = broadcast_shapes(*(a.shape for a in arrays), func="where")
        if out is not None:
            check_out("where", out, shape, rdt, be, whole_elements=True, owns=owns)
        return ex.where(kinds, rdt, args, out, shape)

    def astype(x, dtype, /, *, copy=True, device=None):
        dt = _astype_dtype(be, x, dtype, copy)
        if device is not None and device != x.device:
            return be.namespace().astype(x, dtype, copy=copy, device=device)
        if not copy and x.dtype == dt:
            return x
        if not takes(dt, x.dtype):
            return x.astype(dt, copy=True)
        return ex.astype(x, dt)

    funcs = {name: make(name, nin) for name, (nin, _) in ENGINE_UFUNCS.items()}
    funcs["where"] = where
    funcs["astype"] = astype
    return funcs, {}


def _library_functions(be, ex) -> tuple[dict, dict]:
    """The namespace functions on a backend whose library computes them: the library's
    own function without ``out=`` (what a call without keywords runs), the executor's
    ``out=`` path after the checks with it. The library's functions are looked up on
    first call (building these imports nothing: ``import xstride`` stays cheap)."""
    # name -> the library's function (a stand-in until its first call)
    libs: dict = {}
    for name in FUNCTIONS:
        libs[name] = dispatch.deferred(be, name, libs)

    def into(func, names, args, out):
        """The rules of an ``out=`` call, then the library's ufunc into ``out``."""
        kinds = classify(func, names, args, be)
        loop = resolve(func, kinds)
        shape = broadcast_shapes(*(np.shape(a) for a in args), func=func)
        check_out(func, out, shape, loop[-1], be)
        return ex.ufunc_into(func, args, out)

    def make(func, nin):
        # NumPy's ufunc with out= answers a call of plain arrays of one shape as the
        # checks would (its own same_kind rule, no element of out written twice); what
        # it refuses takes the checked path, whose error names the argument
        if nin == 2:
            def impl(x1, x2, /, *, out=None):
                if out is None:
                    return libs[func](x1, x2)
                if _plain_into(out, x1, x2):
                    try:
                        return libs[func](x1, x2, out=out)
                    except (TypeError, ValueError):   # its dtype checks precede the loop
                        return into(func, ("x1", "x2"), (x1, x2), out)
                return into(func, ("x1", "x2"), (x1, x2), out)
        else:
            def impl(x, /, *, out=None):
                if out is None:
                    return libs[func](x)
                if _plain_into(out, x):
                    try:
                        return libs[func](x, out=out)
                    except (TypeError, ValueError):   # its dtype checks precede the loop
                        return into(func, ("x",), (x,), out)
                return into(func, ("x",), (x,), out)
        return impl

    # the types a call of plain values has: the checks of other values run only for them
    plain = frozenset(t for t in (bool, int, float, complex, be.array_type()) if t is not None)

    def where(condition, x1, x2, /, *, out=None):
        t1, t2 = type(x1), type(x2)
        if t1 is int or t2 is int:
            check_where_ints(x1, x2)
        if t1 not in plain or t2 not in plain or type(condition) not in plain:
            check_where_values(be, condition, x1, x2)
        if out is None:   # masked operands keep their masks (masked_where.py)
            got = masked_where(condition, x1, x2)
            return libs["where"](condition, x1, x2) if got is None else got
        args = (condition, x1, x2)
        kinds = classify("where", ("condition", "x1", "x2"), args, be)
        rdt = where_dtype(kinds[1:], (x1, x2))
        shape = broadcast_shapes(*(np.shape(a) for a in args), func="where")
        check_out("where", out, shape, rdt, be)
        return ex.copy_into(out, libs["where"](condition, x1, x2))

    def astype(x, dtype, /, *, copy=True, device=None):
        dt = _astype_dtype(be, x, dtype, copy)
        got = None if device is not None else masked_astype(x, dt, copy)   # dask's warned
        return libs["astype"](x, dt, copy=copy, device=device) if got is None else got

    funcs = {name: make(name, nin) for name, (nin, _) in ENGINE_UFUNCS.items()}
    funcs["abs"] = masked_abs_of(funcs["abs"])   # dask's of complex masked chunks warned
    funcs["where"] = where
    funcs["astype"] = astype
    # a call without keywords goes to the library's function, looked up on first call
    positional = {name: dispatch.deferred(be, name) for name in funcs
                  if name not in ("astype", "where")}
    positional["where"] = where   # its Python ints checked first
    return funcs, positional


def _plain_into(out, x1, x2=None) -> bool:
    """Whether an ``out=`` call is one NumPy answers as xstride's checks would: ``out``
    and the operands ``x1`` (and ``x2``, where given) plain ``numpy.ndarray``s of one
    shape and a bool or numeric dtype, ``out`` C- or F-contiguous (so no element of it
    is reached twice). A read-only ``out`` passes: NumPy refuses it before it writes,
    and the caller's checked path then names it. About 7 us of checks a call saved
    (docs/performance.md, "Calls with out= on the host"); written out for one and two
    operands (no loop, no tuple): 0.36 us against 0.53 for two operands."""
    nd = np.ndarray
    if type(out) is not nd or type(x1) is not nd or (x2 is not None and type(x2) is not nd):
        return False
    shape = out.shape
    if x1.shape != shape or (x2 is not None and x2.shape != shape):
        return False
    kinds = _NUMERIC
    if (out.dtype.kind not in kinds or x1.dtype.kind not in kinds
            or (x2 is not None and x2.dtype.kind not in kinds)):
        return False
    return out.flags.forc   # forc: C- or F-contiguous


def _copyto_overlaps(dst, src) -> bool:
    """Whether ``numpy.copyto(dst, src)`` of two plain arrays of one shape (``dst``
    contiguous: :func:`_plain_into`) could read an element of ``src`` after writing over
    it. NumPy copies ``src`` first only for a ``dst`` of two or more axes; a 1-D ``dst``
    is walked in one direction, right only where ``src`` steps as ``dst`` does (a shift,
    ``copy_into(a[1:], a[:-1])``), not for ``copy_into(a[1:5], a[0:12:3])``. Callers
    compare the strides first (``dst.strides != src.strides and ...``), so the common
    call pays no function call and no overlap test."""
    return dst.ndim < 2 and np.may_share_memory(dst, src)


def copy_into_checked(be, dst, src):
    """``xstride.views.copy_into`` on backend ``be``: the rules, then its executor."""
    if _plain_into(dst, src) and not (dst.strides != src.strides
                                      and _copyto_overlaps(dst, src)):   # NumPy's answer
        try:
            np.copyto(dst, src, casting="same_kind")
            return dst
        except (TypeError, ValueError):   # its cast check precedes the copy: ours name it
            return _copy_into_checks(be, dst, src)
    return _copy_into_checks(be, dst, src)


def _copy_into_checks(be, dst, src):
    """``copy_into``'s rules, then the backend's executor."""
    ex = be.executor("elementwise")
    check_out("copy_into", dst, None, None, be, "dst",
              whole_elements=getattr(ex, "WHOLE_ELEMENTS", False), numeric=False)
    sdt = _copy_dtype(be, dst, src)
    if sdt is None and not ex.ACCEPTS_SEQUENCES:
        raise type_error("copy_into", "src", src, f"an array of the {be.name} backend or a "
                                                  "Python scalar")
    if sdt is not None and not np.can_cast(sdt, dst.dtype, casting="same_kind"):
        raise error(TypeError, "copy_into", f"cannot copy {np.dtype(sdt)} into dst of dtype "
                                 f"{dst.dtype} (same_kind rule)")
    return ex.copy_into(dst, src)


def _docs(funcs: dict) -> dict:
    for name, fn in funcs.items():
        fn.__name__ = fn.__qualname__ = name
        fn.__doc__ = None   # built when the namespace's wrapper is made
        setattr(fn, dispatch.DOC_FACTORY, functools.partial(elementwise_doc, name))
    return funcs


def _provider(be):
    """The functions of backend ``be``, built when the dispatch first needs one of them:
    importing xstride imports no executor and no library namespace."""
    def provider():
        ex = be.executor("elementwise")
        make = _engine_functions if getattr(ex, "ENGINE", False) else _library_functions
        funcs, positional = make(be, ex)
        return _docs(funcs), positional
    return provider


def _register() -> None:
    for be in _backends.each():
        # (the executors' table, not the modules: importing one would import its package)
        if "elementwise" in be.executors:
            dispatch.register_lazy(be, FUNCTIONS, _provider(be))


_register()


def __dir__():
    """What ``dir()`` and tab completion list: the public names, ``__all__`` (the helpers
    this module imports or keeps for xstride's own modules stay importable, unlisted),
    and the private ones."""
    return sorted(set(__all__) | {k for k in globals() if k.startswith("_")})
