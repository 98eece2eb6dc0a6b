"""Reductions and scans of the namespace: ``sum``, ``prod``, ``min``, ``max``, ``mean``,
``var``, ``std``, ``cumulative_sum``, ``cumulative_prod`` (array API standard,
"Statistical functions"), ``all``, ``any`` ("Utility functions") and ``argmin``,
``argmax`` ("Searching functions").

This module holds the rules — argument checks and the standard's dtype rules — and
hands the call to the backend of ``x``:

- a backend with reductions and scans executors (CuPy: ``xstride/_kernels``, see
  docs/reductions.md) runs them on xstride's kernels for any layout and axis set,
  deterministically (float16 too, except ``var``/``std``; complex
  ``sum``/``prod``/``mean``/``all``/``any``); dtypes the kernels do not handle
  and
  NumPy-only keywords (``out=``, ``where=``, ``initial=``) go to the backend's
  ``array_api_compat`` namespace;
- a backend without (NumPy) runs its ``array_api_compat`` functions after the same
  checks, so the same bad call raises the same clear error on every backend. A call
  without keyword arguments (``xp.sum(a)``) needs no check and goes to the library
  function directly. NumPy's reductions executor (``xstride/_host/reductions.py``)
  puts walks for short axes in front of the library's ``min``, ``max``, ``all``,
  ``any``, integer ``sum``/``prod`` and the scans (``around``): the same results,
  walked across the long axis.
- a backend with a reductions executor but no scans executor (dask:
  ``xstride/_chunked/reductions.py``) gets that executor's functions (every one here:
  dask's reduction trees and scans with the namespace's function on each chunk) behind
  the same checks, and its library's for any name the executor lacks.

Rules: ``axis`` an int, a tuple of ints or None (``numpy.exceptions.AxisError`` out
of range, as NumPy's, on every backend; ``ValueError`` repeated); ``keepdims`` and ``include_initial`` bools; ``correction`` a real number;
``dtype`` a dtype or None; ``min``/``max`` of an empty selection raise ``ValueError``
naming the empty axis; a 0-D array is scanned as one of shape ``(1,)``. ``argmin``/
``argmax`` take one axis (an int) or None, never a tuple (``TypeError``), and a real
dtype (complex: ``TypeError``); an empty selection raises ``ValueError`` as for
``min``/``max``.
"""

from __future__ import annotations

import functools
import inspect
import math

import numpy as np

from . import _backends
from ._backends import dispatch
from ._core.errors import argument_error, error, type_error
from ._core.reduction_docs import reduction_doc
from ._plans.masked_moments import masked_moment_result
from ._plans.rule_dtypes import input_dtype
from ._plans.reduction import (
    check_correction,
    empty_axis_error,
    normalize_axis,
    normalize_scan_axis,
)
from .reduction_args import (
    INTP as _INTP,
    NUMERIC as _NUMERIC,
    arg_rules as _arg_rules,
    check_array as _check_array,
    check_bool as _check_bool,
    check_empty_minmax as _check_empty_minmax,
    check_no_ddof as _check_no_ddof,
    check_no_out as _check_no_out,
    check_out_shape as _check_out_shape,
    out_dtype as _out_dtype,
)

__all__ = ["default_sum_dtype", "moment_dtype"]

REDUCTIONS = ("sum", "prod", "min", "max", "mean", "var", "std")
SCANS = ("cumulative_sum", "cumulative_prod")
LOGICAL = ("all", "any")
ARG_REDUCTIONS = ("argmin", "argmax")
_SCAN_OPS = {"cumulative_sum": "sum", "cumulative_prod": "prod"}

#: The standard's signatures (the library path forwards NumPy-only keywords too).
_SIGNATURES = {
    "sum": "(x, /, *, axis=None, dtype=None, keepdims=False, **kwargs)",
    "prod": "(x, /, *, axis=None, dtype=None, keepdims=False, **kwargs)",
    "min": "(x, /, *, axis=None, keepdims=False, **kwargs)",
    "max": "(x, /, *, axis=None, keepdims=False, **kwargs)",
    "mean": "(x, /, *, axis=None, keepdims=False, dtype=None, **kwargs)",
    "var": "(x, /, *, axis=None, correction=0.0, keepdims=False, dtype=None, **kwargs)",
    "std": "(x, /, *, axis=None, correction=0.0, keepdims=False, dtype=None, **kwargs)",
    "all": "(x, /, *, axis=None, keepdims=False, **kwargs)",
    "any": "(x, /, *, axis=None, keepdims=False, **kwargs)",
    "argmin": "(x, /, *, axis=None, keepdims=False, **kwargs)",
    "argmax": "(x, /, *, axis=None, keepdims=False, **kwargs)",
    "cumulative_sum": "(x, /, *, axis=None, dtype=None, include_initial=False)",
    "cumulative_prod": "(x, /, *, axis=None, dtype=None, include_initial=False)",
}


# ----------------------------------------------------------------------------- dtype rules
def default_sum_dtype(dt: np.dtype) -> np.dtype:
    """Result dtype of sum/prod/cumulative_* without ``dtype=`` (the standard's rule, as
    ``array_api_compat.numpy`` applies it): bool and signed integers -> int64, unsigned
    integers -> uint64, floating point and complex -> itself (``dt``: a dtype of the
    namespace or a NumPy dtype; another is a ``TypeError``)."""
    dt = input_dtype("default_sum_dtype", dt)
    if dt.kind in "bi":
        return np.dtype(np.int64)
    if dt.kind == "u":
        return np.dtype(np.uint64)
    return dt


def moment_dtype(func: str, dt: np.dtype, dtype) -> np.dtype:
    """Result dtype of mean/var/std: ``dtype=``, else floating inputs keep their dtype,
    complex ones too for mean (var/std: the real dtype of their precision), and
    integers give float64 (NumPy)."""
    dt = input_dtype("moment_dtype", dt)
    if dt.kind == "c":
        default = dt if func == "mean" else np.dtype(f"f{dt.itemsize // 2}")
    else:
        default = dt if dt.kind == "f" else np.dtype(np.float64)
    return _out_dtype(func, dtype, default, dt)



# ----------------------------------------------------------------------------- on a backend's kernels
_BOOL = np.dtype(np.bool_)


def _kernel_functions(be) -> dict:
    """The namespace functions of a backend whose executors run reductions and scans."""
    red, scn = be.executor("reductions"), be.executor("scans")
    arg = be.executor("argreductions")
    variance = functools.partial(be.executor, "variance")   # imported on a first var/std
    lib = be.namespace
    nd = []   # the backend's array type, looked up once its library is loaded

    def check_x(func, x):
        if not nd:
            nd.append(be.array_type())
        if not isinstance(x, nd[0]):
            raise type_error(func, "x", x, f"an array of the {be.name} backend")
        if x.dtype.kind not in _NUMERIC:
            raise type_error(func, "x", x, "an array of a bool or numeric dtype")

    def takes(ex, *dtypes):
        return all(np.dtype(d) in ex.DTYPES for d in dtypes)

    def checked_out(func, x, axes, keepdims, kwargs):
        """An ``out=`` for the library's function, checked as on the NumPy backend (its
        backend, its shape, no element reached twice): CuPy's wrote each result into a
        stride-0 ``out``'s one element."""
        if kwargs.get("out") is not None:
            _check_out_shape(func, be, kwargs, x, axes, keepdims)

    def sum_like(func):
        def impl(x, /, *, axis=None, dtype=None, keepdims=False, **kwargs):
            if not kwargs:
                res = red.repeat(func, x, axis, dtype, keepdims)
                if res is not None:
                    return res
            check_x(func, x)
            _check_bool(func, "keepdims", keepdims)
            out = _out_dtype(func, dtype, default_sum_dtype(np.dtype(x.dtype)), x.dtype)
            axes = normalize_axis(func, axis, x.ndim)   # (the library's call too)
            if kwargs or not takes(red, x.dtype, out) or out.kind == "b":
                checked_out(func, x, axes, keepdims, kwargs)
                return getattr(lib(), func)(x, axis=axis, dtype=dtype, keepdims=keepdims,
                                            **kwargs)
            return red.reduce(func, func, x, axis, axes, bool(keepdims), out, dtype)
        return impl

    def same_or_bool(func, empty_raises: bool, out_of):
        """min/max (``empty_raises``; the result has x's dtype) and all/any (an empty
        selection is the identity; the result is bool): no ``dtype=`` argument."""
        def impl(x, /, *, axis=None, keepdims=False, **kwargs):
            if not kwargs:
                res = red.repeat(func, x, axis, None, keepdims)
                if res is not None:
                    return res
            check_x(func, x)
            _check_bool(func, "keepdims", keepdims)
            axes = normalize_axis(func, axis, x.ndim)
            if (empty_raises and not kwargs and x.size == 0
                    and math.prod(x.shape[a] for a in axes) == 0):
                raise empty_axis_error(func, x.shape, axes)
            # complex min/max (NumPy's order of the real, then the imaginary part)
            # stay the library's; complex all/any run on the kernels
            if kwargs or not takes(red, x.dtype) or (empty_raises and x.dtype.kind == "c"):
                checked_out(func, x, axes, keepdims, kwargs)
                return getattr(lib(), func)(x, axis=axis, keepdims=keepdims, **kwargs)
            return red.reduce(func, func, x, axis, axes, bool(keepdims), out_of(x))
        return impl

    def argminmax(func):
        def impl(x, /, *, axis=None, keepdims=False, **kwargs):
            if not kwargs and arg is not None:
                res = arg.repeat(func, x, axis, keepdims)
                if res is not None:
                    return res
            check_x(func, x)
            axes = _arg_rules(func, x, axis, keepdims)
            if kwargs or arg is None or not takes(arg, x.dtype):
                checked_out(func, x, None if axis is None else axes, keepdims, kwargs)
                return getattr(lib(), func)(x, axis=axis, keepdims=bool(keepdims), **kwargs)
            return arg.argreduce(func, x, axis, axes, bool(keepdims))
        return impl

    def mean(x, /, *, axis=None, keepdims=False, dtype=None, **kwargs):
        if not kwargs:
            res = red.repeat("mean", x, axis, dtype, keepdims)
            if res is not None:
                return res
        check_x("mean", x)
        _check_bool("mean", "keepdims", keepdims)
        out = moment_dtype("mean", np.dtype(x.dtype), dtype)
        axes = normalize_axis("mean", axis, x.ndim)   # (the library's call too)
        if kwargs or not takes(red, x.dtype, out) or out.kind not in "fc":
            checked_out("mean", x, axes, keepdims, kwargs)
            return lib().mean(x, axis=axis, keepdims=keepdims, dtype=dtype, **kwargs)
        return red.mean("mean", x, axis, axes, bool(keepdims), out, dtype)

    def var_like(func):
        def impl(x, /, *, axis=None, correction=0.0, keepdims=False, dtype=None, **kwargs):
            if not kwargs:
                res = variance().repeat(func, x, axis, correction, dtype, keepdims)
                if res is not None:
                    return res
            _check_no_ddof(func, kwargs)
            check_x(func, x)
            _check_bool(func, "keepdims", keepdims)
            check_correction(func, correction)
            out = moment_dtype(func, np.dtype(x.dtype), dtype)
            axes = normalize_axis(func, axis, x.ndim)   # (the library's call too)
            # float16 stays the library's: its var squares the deviations in float16
            # (NumPy's overflows to inf where the kernels, in float64, would not);
            # complex too (the real variance of complex values)
            if (kwargs or not takes(red, x.dtype, out) or out.kind != "f"
                    or np.dtype(x.dtype) == np.float16 or x.dtype.kind == "c"):
                checked_out(func, x, axes, keepdims, kwargs)
                if dtype is not None:
                    kwargs["dtype"] = dtype
                return getattr(lib(), func)(x, axis=axis, correction=correction,
                                            keepdims=keepdims, **kwargs)
            return variance().var(func, x, axis, axes, correction, bool(keepdims), out,
                                  func == "std", dtype)
        return impl

    def scan(func):
        op = _SCAN_OPS[func]

        def impl(x, /, *, axis=None, dtype=None, include_initial=False):
            res = scn.repeat(op, x, axis, dtype, include_initial)
            if res is not None:
                return res
            check_x(func, x)
            _check_bool(func, "include_initial", include_initial)
            ndim = x.ndim
            ax = normalize_scan_axis(func, axis, ndim)
            if ndim == 0:
                x = x.reshape(1)
            out = _out_dtype(func, dtype, default_sum_dtype(np.dtype(x.dtype)), x.dtype)
            if not takes(scn, x.dtype, out) or out.kind == "b":
                if x.shape[ax] == 1 and not include_initial:
                    # a scan of one element is the element, cast (NumPy's accumulate
                    # starts from it): CuPy's complex cumsum of (n, 1) over axis 1 ran
                    # 100x slower than this copy
                    return lib().astype(x, out, copy=True)
                if (op == "sum" and x.size and hasattr(scn, "takes_complex_sum")
                        and scn.takes_complex_sum(x.dtype, out)):
                    # complex: the real and imaginary parts scanned as real values
                    return scn.complex_sum(x, ax, bool(include_initial), out)
                return getattr(lib(), func)(x, axis=ax, dtype=dtype,
                                            include_initial=bool(include_initial))
            return scn.scan(op, x, ax, bool(include_initial), out, axis=axis, dtype=dtype,
                            prepare=ndim > 0)
        return impl

    funcs = {f: sum_like(f) for f in ("sum", "prod")}
    funcs.update({f: same_or_bool(f, True, lambda x: np.dtype(x.dtype))
                  for f in ("min", "max")})
    funcs.update({f: same_or_bool(f, False, lambda x: _BOOL) for f in LOGICAL})
    funcs.update({f: argminmax(f) for f in ARG_REDUCTIONS})
    funcs["mean"] = mean
    funcs.update({f: var_like(f) for f in ("var", "std")})
    funcs.update({f: scan(f) for f in SCANS})
    return funcs


# ----------------------------------------------------------------------------- on a backend's library
def _given_keepdims(fn, x, axis, keepdims, kwargs):
    """``fn(x, axis=axis, **kwargs)``, with ``keepdims=True`` only where asked: NumPy's
    functions pass a given ``keepdims`` on to a subclass's method, and ``np.matrix``'s
    take none (array_api_compat's ``sum(m, axis=0)`` works, with ``keepdims=False``
    it raises)."""
    if keepdims:
        return fn(x, axis=axis, keepdims=True, **kwargs)
    return fn(x, axis=axis, **kwargs)


def _library_functions(be) -> tuple[dict, dict]:
    """The backend's own library functions behind the same checks, and what a call
    without keywords runs (``x``'s check, then the library function). The library's
    functions are looked up on first call: building these imports no namespace."""
    funcs, positional = {}, {}
    # a reductions executor without scans (dask's: its tree, the namespace's function
    # on each chunk) replaces the library's function where it has one
    ex = be.executor("reductions")

    # name -> the executor's function, else the library's (a stand-in until its first
    # call, so that building these imports no namespace). A host executor with walks
    # (NumPy's: short axes walked across the long one) goes in front of the library's
    # functions instead: each of its functions calls the library's where no walk applies
    around = getattr(ex, "around", None)
    libs: dict = {}
    table = libs if around is None else {}
    for f in REDUCTIONS + SCANS + LOGICAL + ARG_REDUCTIONS:
        own = getattr(ex, f, None) if around is None else None
        table[f] = own if own is not None else dispatch.deferred(be, f, table)
    if around is not None:
        # a name without a walk gets a stand-in of its own, which replaces itself in
        # ``libs`` (a copy of ``table``'s would look the function up on every call)
        walks = around(table)
        for f in table:
            libs[f] = walks[f] if f in walks else dispatch.deferred(be, f, libs)

    # ``type(x) is nd`` and ``type(keepdims) is bool`` spare a small array's call the
    # full checks (docs/performance.md, "Call overhead on the host")
    def check_x_keepdims(func, x, keepdims):
        if type(x) is not nd or x.dtype.kind not in _NUMERIC:
            _check_array(func, be, x)
        if type(keepdims) is not bool:
            _check_bool(func, "keepdims", keepdims)

    def min_max(func):
        def impl(x, /, *, axis=None, keepdims=False, **kwargs):
            check_x_keepdims(func, x, keepdims)
            _check_no_out(func, be, kwargs)
            if axis is not None:
                axis = normalize_axis(func, axis, x.ndim)
            _check_out_shape(func, be, kwargs, x, axis, keepdims)
            if x.size == 0 and "initial" not in kwargs and "where" not in kwargs:
                _check_empty_minmax(func, x, axis)
            return _given_keepdims(libs[func], x, axis, keepdims, kwargs)
        return impl

    def checked(func):
        moment = func in ("mean", "var", "std")   # numpy.ma's dtype (masked_moments.py)

        def impl(x, /, *, axis=None, keepdims=False, **kwargs):
            check_x_keepdims(func, x, keepdims)
            _check_no_out(func, be, kwargs)
            if axis is not None:
                axis = normalize_axis(func, axis, x.ndim)
            _check_out_shape(func, be, kwargs, x, axis, keepdims)
            # (all/any take no dtype=, sum/prod/mean/all/any no correction=: the
            # library's "unexpected keyword argument" names them, as on CuPy)
            if kwargs.get("dtype") is not None and func not in LOGICAL:   # (native order)
                kwargs["dtype"] = _out_dtype(func, kwargs["dtype"], None, x.dtype)
            if func in ("var", "std"):
                _check_no_ddof(func, kwargs)
                if "correction" in kwargs:
                    check_correction(func, kwargs["correction"])
            res = _given_keepdims(libs[func], x, axis, keepdims, kwargs)
            if moment and type(x) is not nd:
                return masked_moment_result(func, x, res, kwargs.get("dtype"))
            return res
        return impl

    def argminmax(func):
        def impl(x, /, *, axis=None, keepdims=False, **kwargs):
            if (type(x) is nd and type(axis) is int and type(keepdims) is bool
                    and not kwargs and x.size > 0 and x.dtype.kind in "biuf"
                    and -x.ndim <= axis < x.ndim):   # nothing to refuse: one axis
                return libs[func](x, axis=axis + x.ndim if axis < 0 else axis,
                                  keepdims=keepdims)
            _check_array(func, be, x)
            _check_no_out(func, be, kwargs)
            axes = _arg_rules(func, x, axis, keepdims)
            if axis is not None:
                axis = axes[0]
            _check_out_shape(func, be, kwargs, x, None if axis is None else axes, keepdims)
            out = kwargs.get("out")
            if out is not None and out.dtype != _INTP and \
                    not np.can_cast(out.dtype, _INTP, casting="safe"):
                # NumPy's own: "Cannot cast array data from dtype('float64') to ..."
                raise argument_error(TypeError, func, "out", f"has dtype {out.dtype}; the "
                                     f"indices go into an out whose dtype casts safely to "
                                     f"{np.dtype(np.intp)} (NumPy's rule)")
            return _given_keepdims(libs[func], x, axis, keepdims, kwargs)
        return impl

    def scan(func, as_array):
        def impl(x, /, *, axis=None, dtype=None, include_initial=False):
            if type(x) is not nd or x.dtype.kind not in _NUMERIC:
                _check_array(func, be, x)
            if type(include_initial) is not bool:
                _check_bool(func, "include_initial", include_initial)
            if dtype is not None:   # (in the native byte order)
                dtype = _out_dtype(func, dtype, None, x.dtype)
            if isinstance(x, np.generic):
                x = as_array(x)
            axis = normalize_scan_axis(func, axis, x.ndim)
            if x.ndim == 0:
                x = x.reshape(1)
            return libs[func](x, axis=axis, dtype=dtype,
                             include_initial=bool(include_initial))
        return impl

    for f in ("min", "max"):
        funcs[f] = min_max(f)
    for f in ARG_REDUCTIONS:
        funcs[f] = argminmax(f)
    nd = be.array_type()

    def unchecked_keywords(func, fast=None):
        # without keywords only ``x`` needs its check: a list, a tuple or a string
        # array must be refused as with ``axis=0`` (and as on CuPy), not reduced; and
        # without an axis no walk applies: the library's function (``libs``: on NumPy,
        # the ufunc's reduce itself) directly. Where ``fast(x)`` fails (an empty
        # min/max, a complex argmax, a scan of other than one dimension), the checked
        # function answers. ``axis`` and the others are keyword-only (the standard;
        # CuPy's and dask's functions refuse them positionally): NumPy's would take
        # them unchecked
        checked_impl = funcs[func]
        scan = func in SCANS
        moment = func in ("mean", "var", "std")

        def refuse(args):
            return error(TypeError, func, f"takes 1 positional argument (x) but "
                                          f"{1 + len(args)} were given; pass axis, "
                                          "keepdims and the others by keyword")

        def impl(x, /, *args):
            if args:
                raise refuse(args)
            if type(x) is not nd or x.dtype.kind not in _NUMERIC:
                _check_array(func, be, x)
            if not fast(x):
                return checked_impl(x)
            if scan:
                return libs[func](x, axis=0, dtype=None, include_initial=False)
            return libs[func](x)

        def impl_any_x(x, /, *args):   # every array ``_check_array`` passes is taken
            if args:
                raise refuse(args)
            if type(x) is not nd or x.dtype.kind not in _NUMERIC:
                _check_array(func, be, x)
                if moment:
                    return masked_moment_result(func, x, libs[func](x))
            return libs[func](x)
        got = impl if fast is not None else impl_any_x
        got.__name__ = got.__qualname__ = func   # Python's "max() missing ..." names it
        return got

    for f in ("sum", "prod", "mean", "var", "std") + LOGICAL:
        funcs[f] = checked(f)
    for f in SCANS:
        funcs[f] = scan(f, be.load().asarray)
    for f in ("sum", "prod", "mean", "var", "std") + LOGICAL:
        positional[f] = unchecked_keywords(f)
    for f in ("min", "max"):
        positional[f] = unchecked_keywords(f, lambda x: x.size > 0)
    for f in ARG_REDUCTIONS:
        positional[f] = unchecked_keywords(f, lambda x: x.size > 0 and x.dtype.kind != "c")
    for f in SCANS:
        positional[f] = unchecked_keywords(f, lambda x: x.ndim == 1)
    return funcs, positional


_SIGNATURE_OBJECTS: dict = {}


def _signature(name: str) -> inspect.Signature:
    """The :class:`inspect.Signature` of ``_SIGNATURES[name]`` (made once)."""
    sig = _SIGNATURE_OBJECTS.get(name)
    if sig is None:
        sig = _SIGNATURE_OBJECTS[name] = inspect.signature(
            eval(f"lambda {_SIGNATURES[name][1:-1]}: None"))  # noqa: S307
    return sig


def _finish(funcs: dict) -> dict:
    for name, fn in funcs.items():
        fn.__name__ = fn.__qualname__ = name
        fn.__doc__ = None   # built when the namespace's wrapper is made
        setattr(fn, dispatch.DOC_FACTORY, functools.partial(reduction_doc, name))
        fn.__signature__ = _signature(name)
    return funcs


def _provider(be):
    """The functions of backend ``be``, built when the dispatch first needs one of them
    (importing xstride imports no executor and no library namespace)."""
    def provider():
        # (the executors' table, not the modules: importing dask's would import dask)
        if "reductions" in be.executors and "scans" in be.executors:
            return _finish(_kernel_functions(be)), {}
        # no kernels of its own: the library, checked
        funcs, positional = _library_functions(be)
        return _finish(funcs), positional
    return provider


def _register() -> None:
    for be in _backends.each():
        dispatch.register_lazy(be, REDUCTIONS + SCANS + LOGICAL + ARG_REDUCTIONS,
                               _provider(be))


_register()


def __dir__():
    """What ``dir()`` and tab completion list: the public names, ``__all__`` (the helpers
    this module imports or keeps for xstride's own modules stay importable, unlisted),
    and the private ones."""
    return sorted(set(__all__) | {k for k in globals() if k.startswith("_")})
