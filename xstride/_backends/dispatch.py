"""Dispatch of the standard's functions to the backend of their arguments.

Each public function of the namespace is a thin wrapper made here. A wrapper for a
function that takes arrays looks at the types of its arguments and calls the
implementation of their backend; a wrapper for a creation function calls the one of
the active backend. Implementations come from ``array_api_compat.numpy`` /
``array_api_compat.cupy`` unless xstride registers its own (:func:`register`), for
example the elementwise engine and the reductions on CuPy arrays.

The fast path matters: a namespace called in inner loops must cost next to nothing.
While CuPy has not been imported by anyone, no CuPy array can exist, so a wrapper
calls the NumPy implementation straight away (one dict lookup in ``sys.modules``).
"""

from __future__ import annotations

import functools
import importlib
import inspect
import math
import re
import sys
import threading

import numpy as np

from .._core.errors import error
from .._core.ufuncs import ENGINE_UFUNCS
from ._base import Backend
from .axis_errors import axis_argument_error
from .axis_values import axis_ints
from .broadcast_errors import broadcast_shape_error
from .creation_errors import creation_argument_error
from .int_errors import unheld_int_error
from .no_array import (MORE_ARRAYS, NUMPY_TYPES, OPERAND_TYPES, attribute_error,
                       leading_array_error, leading_arrays, no_array_error, operand_error,
                       operand_names)
from .no_array import named_arguments as _named
from .out_overlap import checks_out, out_function
from .registry import DEFAULT, REGISTRY, each
from .real_only import bool_argument_error, complex_argument_error, inexact_argument_error
from .matmul_checks import gufunc_shape_error
from .lapack_dtype import lapack_dtype_error
from .linalg_shapes import linalg_shape_error
from .positional import (XP_BOUND, out_position, positional_count, reference_most,
                         too_few_error, too_many, too_many_error, ufunc_out)
from . import select as _backend

__all__ = ["register", "register_all", "register_arguments", "implementation", "follower",
           "creator", "param_names"]

# backend name -> qualified name ("add", "linalg.solve") -> callable
_tables: dict[str, dict[str, object]] = {name: {} for name in REGISTRY}
_overrides: dict[str, dict[str, object]] = {name: {} for name in REGISTRY}
# backend name -> qualified name -> provider of (functions, positional) built on first use
_lazy: dict[str, dict[str, object]] = {name: {} for name in REGISTRY}
# NumPy: qualified name -> callable for calls without keyword arguments. Forwarding an
# empty ``**kwargs`` costs more than the rest of a wrapper, so the common call
# ``xp.add(a, b)`` passes positional arguments only.
_positional: dict[str, object] = {}
_modules = sys.modules
# The libraries of the backends other than the default one. While none of them has been
# imported by anyone, no array of theirs can exist, so a call goes to the default
# backend without looking at its arguments: one ``in sys.modules`` test for each of the
# (two: CuPy, dask) libraries; with more than two, the wrappers always take the look.
#: ``xp.fuse``'s tracer (``xstride/fusion``) sets this to a callable ``(qualname, args,
#: kwargs)``: a call whose arguments name no backend (the full check) is first offered
#: to it, so that ``xp.exp(t)`` of a traced stand-in ``t`` is recorded; it answers
#: ``NotImplemented`` for any other call. Only the slow path reads it.
TRACE_HOOK = None
_OPTIONAL = tuple(cls.library for name, cls in REGISTRY.items() if name != DEFAULT)
# two names to test (a name no module has where there is one library; "sys", always
# imported, where there are more than two: the look is always taken)
_NO_MODULE = "xstride: no module has this name"
_OPTIONAL_PAIR = (_OPTIONAL + (_NO_MODULE,) * 2)[:2] if len(_OPTIONAL) <= 2 else ("sys",) * 2


def register(qualname: str, backend, *, positional=None):
    """Decorator: make ``fn`` the implementation of ``qualname`` on ``backend``.

    Parameters
    ----------
    qualname : str
        A standard name, ``"add"``, or a sub-namespace name, ``"linalg.solve"``.
    backend : Backend or str
        A backend object (public modules) or, inside ``xstride/_backends``, its name.
    positional : callable, optional
        What to call instead of ``fn`` when a call has no keyword arguments, for an
        override that only adds keyword handling (``out=``) to a library function
        (used on the NumPy backend's fast path). Defaults to ``fn``.

    Examples
    --------
    >>> @register("add", some_backend)      # doctest: +SKIP
    ... def add(x1, x2, /): ...
    """
    if isinstance(backend, Backend):
        backend = backend.name
    if backend not in _tables:
        raise error(ValueError, "register", f"unknown backend {backend!r}")

    def deco(fn):
        if "<locals>" in getattr(fn, "__qualname__", ""):
            # Python's own messages ("f() takes 1 positional argument") name it so
            fn.__qualname__ = qualname.rsplit(".", 1)[-1]
        _overrides[backend][qualname] = fn
        _tables[backend][qualname] = fn
        if backend == "numpy":
            _positional[qualname] = positional or fn
        return fn

    return deco


#: backend name -> ``(args, kwargs) -> (args, kwargs)``: what that backend does to the
#: arguments of every call of the namespace before its implementation gets them (the
#: dask backend merges away chunks of no element, ``dask_fixes.py``). A backend not
#: named here gets its arguments as given, at the cost of one ``in`` of this dict.
_ARGUMENTS: dict[str, object] = {}


def register_arguments(backend: str, fn) -> None:
    """Make ``fn(qualname, args, kwargs) -> (args, kwargs)`` the rewrite of the arguments
    of every namespace call (wrappers of :func:`follower` and :func:`creator`) on
    ``backend``; it may also refuse them (raise)."""
    if backend not in _tables:
        raise error(ValueError, "register_arguments", f"unknown backend {backend!r}")
    _ARGUMENTS[backend] = fn


def register_all(backend, functions: dict, positional: dict | None = None) -> None:
    """Register every ``qualname -> callable`` of ``functions`` on ``backend``."""
    positional = positional or {}
    for qualname, fn in functions.items():
        register(qualname, backend, positional=positional.get(qualname))(fn)


def register_lazy(backend, qualnames, provider) -> None:
    """Register ``qualnames`` on ``backend`` from ``provider()``, called on first use.

    ``provider`` returns ``(functions, positional)`` as :func:`register_all` takes them;
    a backend whose implementations need its library imported registers this way, so
    that importing xstride imports no optional library.
    """
    if isinstance(backend, Backend):
        backend = backend.name
    for q in qualnames:
        _lazy[backend][q] = provider


#: Modules that register overrides when imported (``overrides.py`` names them): imported
#: on the first lookup that finds neither a registered function nor a provider, before
#: any name falls back to ``array_api_compat``, so that ``import xstride`` need not.
_PENDING: list[str] = []
_PENDING_LOCK = threading.RLock()
#: modules named but not yet imported to the end (a lookup of another thread waits)
_UNFINISHED = [0]


def register_on_first_lookup(*modules: str) -> None:
    """Import ``modules`` (which call :func:`register` at import) when a lookup first
    needs them: before :func:`implementation` answers with a library's function."""
    with _PENDING_LOCK:
        _PENDING.extend(modules)
        _UNFINISHED[0] += len(modules)


def _import_pending() -> None:
    # a lookup of another thread waits here until every module has registered: it must
    # not fall back to array_api_compat for a name a module is about to register
    with _PENDING_LOCK:
        while _PENDING:
            importlib.import_module(_PENDING.pop(0))
            _UNFINISHED[0] -= 1


#: Attribute of a registered function whose docstring is built on request: a callable
#: returning it, called when the namespace's wrapper of that name is made.
DOC_FACTORY = "_xs_doc_factory"


def compat_function(backend: str, qualname: str):
    """The function ``qualname`` of ``backend``'s ``array_api_compat`` namespace; on
    NumPy a name of :data:`NUMPY_OWN` or :data:`NUMPY_COMMON` without importing that
    namespace."""
    if backend == "numpy":   # the NumPy namespace's functions built without its clone
        if qualname in NUMPY_OWN:
            return getattr(np, qualname)
        if qualname in NUMPY_COMMON:
            return _numpy_common(qualname)
    ns = _backend.namespace(backend)
    for part in qualname.split("."):
        ns = getattr(ns, part)
    return ns


def implementation(backend: str, qualname: str):
    """The callable that runs ``qualname`` on ``backend`` (an override, else compat's)."""
    table = _tables[backend]
    fn = table.get(qualname)
    if fn is None:
        provider = _lazy[backend].get(qualname)
        if provider is not None:
            funcs, positional = provider()
            for q in funcs:
                _lazy[backend].pop(q, None)
            register_all(backend, funcs, positional)
        fn = _overrides[backend].get(qualname)
        if fn is None and _UNFINISHED[0]:
            _import_pending()
            fn = _overrides[backend].get(qualname)
        if fn is None:
            fn = compat_function(backend, qualname)
        table[qualname] = fn
    return fn


#: Names whose function in ``array_api_compat``'s NumPy namespace is NumPy's own: that
#: namespace is a clone of NumPy with some names replaced, and none of these is
#: replaced in array-api-compat 1.11 to 1.16 (its ``numpy/_aliases.py`` and
#: ``common/_aliases.py``; tests/test_dispatch_numpy_own.py holds the list to the
#: installed version): the reductions, ``where`` and the engine's ufuncs, whose NumPy
#: names are the standard's (NumPy 2). :func:`deferred` takes them from NumPy, so that a
#: program's first ``xp.min(x)`` or ``xp.add(x, y)`` on NumPy arrays does not import
#: the namespace (60-70 ms on the development machine: the clone touches every NumPy
#: attribute, importing ``numpy.f2py``, ``numpy.testing``, ``numpy.ma``).
NUMPY_OWN = frozenset(("sum", "prod", "mean", "min", "max", "argmin", "argmax", "all",
                       "any", "where") + tuple(ENGINE_UFUNCS))


#: Creation functions that ``array_api_compat``'s NumPy namespace builds as
#: ``get_xp(numpy)(common._aliases.<name>)`` (its ``numpy/_aliases.py``, 1.11 to 1.16;
#: tests/test_dispatch_numpy_own.py holds that to the installed version).
#: :func:`_numpy_common` builds them the same way from ``array_api_compat.common``
#: (about 2 ms to import) instead of importing the namespace, whose clone of NumPy
#: costs a program's first ``xp.zeros`` 60-90 ms.
NUMPY_COMMON = frozenset(("arange", "empty", "empty_like", "eye", "full", "full_like",
                          "linspace", "ones", "ones_like", "zeros", "zeros_like"))


@functools.cache
def _numpy_common(qualname: str):
    """``array_api_compat``'s NumPy function ``qualname`` (one of :data:`NUMPY_COMMON`),
    built as that namespace builds it: one object per name."""
    from array_api_compat._internal import get_xp
    from array_api_compat.common import _aliases

    return get_xp(np)(getattr(_aliases, qualname))


def deferred(backend, qualname: str, table: dict | None = None):
    """A stand-in for the function ``qualname`` of ``backend``'s ``array_api_compat``
    namespace, looked up on its first call.

    Making it costs nothing: the namespace (and with it the clone of the library that
    ``array_api_compat`` makes) is imported when a call first needs it, not at
    ``import xstride``. On that first call the stand-in puts the real function in
    ``table[qualname]`` where it still holds the stand-in, so that callers that look
    it up there pay nothing for it afterwards. ``table`` defaults to the NumPy
    backend's table of calls without keyword arguments (``register``'s
    ``positional``). On NumPy, a name of :data:`NUMPY_OWN` is NumPy's function itself.
    """
    name = backend.name if isinstance(backend, Backend) else backend
    if name == "numpy" and qualname in NUMPY_OWN:
        return getattr(np, qualname)
    if table is None:
        table = _positional if name == DEFAULT else {}

    def first_call(*args, **kwargs):
        fn = compat_function(name, qualname)
        if table.get(qualname) is first_call:
            table[qualname] = fn
        return fn(*args, **kwargs)

    first_call.__name__ = first_call.__qualname__ = qualname.rsplit(".", 1)[-1]
    return first_call


def param_names(fn) -> tuple[str, ...]:
    """Names of the positional parameters of ``fn``, for error messages; a ``*args``
    parameter is ``"*args"`` (its arguments are named ``args[0]``, ``args[1]``, ...)."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return ()
    return tuple(
        ("*" if p.kind == p.VAR_POSITIONAL else "") + p.name
        for p in sig.parameters.values()
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL)
    )


# Exact type -> backend, for the common call with plain arrays and Python scalars.
# ``None`` marks types that name no backend. The array types of the other backends
# (``cupy.ndarray``, ``dask.array.Array``) are added once their library is imported
# (checked on the way, so a user's own ``import cupy`` is seen too).
_BY_TYPE: dict[type, str | None] = {
    np.ndarray: "numpy", int: None, float: None, complex: None, bool: None, type(None): None,
    str: None,
}
_MISSING = object()
_NO_OPERAND = frozenset((type(None), str))   # name no backend, and are no operand
_SCALARS = frozenset((bool, int, float, complex))   # Python's: an operand of any backend


def _array_type_backend(t) -> str | None:
    """The backend whose array type is exactly ``t`` (added to ``_BY_TYPE``), or None.
    A backend's type is known once its library is imported (by anyone)."""
    for be in each():
        if be.array_type() is t:
            _BY_TYPE[t] = be.name
            return be.name
    return None


def _backend_by_type(args, shapes=True):
    """Backend of ``args`` (positional and keyword values) from their exact types.

    Returns ``None`` to ask for the full check: an argument's type is not in the
    table (sequences, subclasses, NumPy scalars...), backends are mixed (the full
    check then raises), or no argument is an array. Dtypes, dtype classes, strings
    and tuples of ints (``axis=(0, 1)``; unless ``shapes`` is false: an elementwise
    function's operand) name no backend.
    """
    found = None
    for a in args:
        kind = _BY_TYPE.get(type(a), _MISSING)
        if kind is _MISSING:
            if type(a) is tuple and shapes:   # axis=(0, 1), a shape: names no backend
                for e in a:
                    if type(e) is not int:
                        return None
                continue
            if isinstance(a, (np.dtype, type)):
                continue  # dtype=...: names no backend
            kind = _array_type_backend(type(a))
            if kind is None:
                return None
        if kind is not None:
            if found is None:
                found = kind
            elif kind != found:
                return None
    return found


def _finish(wrapper, reference, qualname: str, module: str):
    # a docstring built on request (``DOC_FACTORY``): only the names a program touches
    # pay for theirs (the engine's 24 numpydoc texts took 4.6 ms at once)
    factory = getattr(reference, DOC_FACTORY, None)
    if factory is not None and reference.__doc__ is None:
        reference.__doc__ = factory()
    functools.update_wrapper(wrapper, reference)
    wrapper.__module__ = module
    wrapper.__qualname__ = qualname.rsplit(".", 1)[-1]
    return wrapper


def _most_positional(positional, reference) -> int | float:
    """How many positional arguments a call may pass to ``positional``, the NumPy
    function a call without keywords runs: for a NumPy ufunc, whose further positional
    arguments are ``out`` (which would skip every check of ``out=``), the positional
    parameters of ``reference`` (xstride's function: ``add(x1, x2, /, *, out=None)``);
    a call with more goes to ``reference``, which refuses it. For another NumPy function
    that takes ``out`` positionally, the parameters before it (a call with more is
    refused, :func:`positional.ufunc_out`). Else no limit."""
    if isinstance(reference, np.ufunc):   # the ufunc itself: its inputs (see positional.ufunc_out)
        return reference.nin
    if not isinstance(positional, np.ufunc):   # NumPy's round(a, decimals, out): up to out
        at = out_position(positional)
        return math.inf if at is None else at
    code = getattr(reference, "__code__", None)
    if (code is None
            or code.co_flags & inspect.CO_VARARGS):
        return math.inf
    return code.co_argcount


def _numpy_positional(qualname: str):
    fn = _positional.get(qualname)
    if fn is None:
        fn = _positional[qualname] = implementation("numpy", qualname)
    return fn


#: Python's message of a call with too many positional arguments.
_TOO_MANY = re.compile(r"takes (from \d+ to )?\d+ positional arguments? but \d+ "
                       r"(positional arguments? )?(\(and \d+ keyword-only arguments?\) )?"
                       r"(was|were) given")


def named_error(exc: Exception, qualname: str, reference=None,
                given: int | None = None) -> Exception:
    """``exc`` (raised by a library function) with a message that starts with the
    namespace function's name: the same exception type where it takes one message,
    else its ``TypeError``/``ValueError`` base. Errors that already name it pass.
    ``reference`` and ``given`` (the function and the number of positional arguments
    of the call) turn array_api_compat's "got multiple values for argument 'xp'" into
    Python's message of too many positional arguments."""
    name = qualname.rsplit(".", 1)[-1]
    text = str(exc)
    if text.startswith(f"{name}:") or text.startswith(f"{qualname}:"):
        return exc
    if (isinstance(exc, TypeError) and given is not None and reference is not None
            and XP_BOUND.search(text)):
        most = positional_count(reference)
        if most is not None and given > most:
            text = too_many(qualname, most, given)
    if isinstance(exc, TypeError) and _TOO_MANY.search(text):
        text += ("; the standard's arguments after those go by keyword "
                 f"(help(xstride.{qualname}))")
    msg = f"{name}: {text}"
    try:
        new = type(exc)(msg)
        if str(new) == msg:
            return new
    except Exception:  # a constructor that takes other arguments (UFuncTypeError ...)
        pass
    for base in (TypeError, OverflowError, ValueError):
        if isinstance(exc, base):
            return base(msg)
    return ValueError(msg)  # pragma: no cover - only those three are caught


def follower(qualname: str, module: str = "xstride"):
    """Wrapper for a function that takes arrays: it runs on its arguments' backend
    (mixed NumPy and CuPy arguments raise ``TypeError`` naming each of them)."""
    reference = implementation("numpy", qualname)
    most = _most_positional(_numpy_positional(qualname), reference)
    params = []   # the reference's parameter names, read when a message needs them
    limit = []    # how many positional arguments the reference takes, read when needed
    np_table, np_positional, tables = _tables["numpy"], _positional, _tables
    modules, rewrites = _modules, _ARGUMENTS
    first_optional, second_optional = _OPTIONAL_PAIR
    current = _backend._current
    # an elementwise function's operands, and the first (matmul's: two) arguments of one
    # that takes arrays alone there (sum, reshape): a type not NumPy's (a list, None) takes
    # the full check (no_array.operand_error and leading_array_error refuse it)
    operands, arrays, plain, nd = operand_names(qualname), NUMPY_TYPES, OPERAND_TYPES, np.ndarray
    direct, lead = bool(operands) and qualname not in MORE_ARRAYS, leading_arrays(qualname)
    shapes = not operands and not lead
    outs = checks_out(qualname)   # an out= that overlaps itself refused (out_overlap.py)
    # One or two arrays of one exact non-NumPy type (CuPy's), or one and a Python scalar:
    # once a call of that arity took the full path (backend by type, no rewrite: those are
    # registered as a backend is attached), the next goes straight to the backend's
    # table, read each call as there (0.47 -> 0.22 us added, docs/performance.md)
    seen = [None, None, None]   # [arity]: (array type, backend name)

    def wrapper(*args, **kwargs):
        try:
            if (not kwargs and 0 < (n := len(args)) < 3 and (s := seen[n]) is not None
                    and type(args[0]) is s[0] and ((u := type(args[-1])) is s[0]
                                                   or u in _SCALARS and lead < 2)
                    and (fn := tables[s[1]].get(qualname)) is not None):
                try:
                    return fn(*args)
                except AttributeError:   # as the full path's call below
                    if not params:
                        params.append(param_names(reference))
                    raise no_array_error(qualname, s[1], _named(params[0], args, kwargs))
            if (direct and not kwargs and args
                    and ((t := type(args[0])) is nd and type(args[-1]) in plain
                         or t in plain and type(args[-1]) in arrays)
                    or first_optional not in modules and second_optional not in modules
                    and current.get() == DEFAULT   # (an unavailable active one: checked)
                    and (shapes or args and ((type(args[0]) in arrays or isinstance(
                        args[0], nd)) and (lead < 2 or len(args) < 2 or type(args[1]) in
                        arrays or isinstance(args[1], nd)) if lead else  # (subclasses too)
                        type(args[0]) in plain and type(args[-1]) in plain))):
                # NumPy's arrays and scalars, or no array of another backend can exist
                if kwargs or len(args) > most:
                    fn = np_table[qualname]
                    if len(args) > most:
                        ufunc_out(fn, args, qualname)
                    if outs and (o := kwargs.get("out")) is not None:
                        try:   # a contiguous out: one flag test (about 0.04 us)
                            whole = o.flags.forc
                        except AttributeError:   # a tuple, no array
                            whole = False
                        if not whole:
                            fn = out_function(qualname, o, fn)
                        if len(kwargs) == 1 and 0 < (n := len(args)) < 3:   # out= alone:
                            # a call without * and ** (about 0.03 us of the test's back)
                            return (fn(args[0], out=o) if n == 1
                                    else fn(args[0], args[1], out=o))
                    return fn(*args, **kwargs)
                return np_positional[qualname](*args)
            backend = _backend_by_type(args + tuple(kwargs.values()) if kwargs else args,
                                       not operands)
            if (backend is None or operands and not _NO_OPERAND.isdisjoint(map(type, args[:2]))
                    or lead and (not args or _BY_TYPE.get(type(args[0])) is None or lead > 1
                                 and len(args) > 1 and _BY_TYPE.get(type(args[1])) is None)):
                # sequences, other types, mixed, no array, a None or str operand: full check
                if TRACE_HOOK is not None:
                    try:
                        got = TRACE_HOOK(qualname, args, kwargs)
                    except (TypeError, ValueError, OverflowError) as exc:
                        exc.xstride_traced = True   # the trace's own error: as raised
                        raise
                    if got is not NotImplemented:
                        return got
                if not params:
                    params.append(param_names(reference))
                backend = _backend.backend_of(qualname, _named(params[0], args, kwargs))
                if operands and (refused := operand_error(qualname, backend, args)):
                    raise refused
                if lead and (refused := leading_array_error(qualname, backend, params[0],
                                                            args)):
                    raise refused
                if backend != DEFAULT:   # axis=numpy.asarray(1) as 1 (axis_values.py)
                    args, kwargs = axis_ints(params[0], args, kwargs)
            if backend in rewrites:
                args, kwargs = rewrites[backend](qualname, args, kwargs)
            if not kwargs and backend == "numpy" and len(args) <= most:
                return np_positional[qualname](*args)
            # implementation()'s table, read here: one call less on every array call
            fn = tables[backend].get(qualname)
            if fn is None:
                fn = implementation(backend, qualname)
            if len(args) > 1:
                if not limit:   # NumPy's count, so a call other backends take, it takes
                    limit.append(reference_most(reference))
                if len(args) > limit[0]:   # (a ufunc's limit: its inputs, not out)
                    raise too_many_error(qualname, limit[0], len(args))
            if outs and kwargs and (o := kwargs.get("out")) is not None:
                try:   # a contiguous out of any backend (CuPy's flags have no forc)
                    whole = (f := o.flags).c_contiguous or f.f_contiguous
                except AttributeError:   # a tuple, no array
                    whole = False
                if not whole:
                    fn = out_function(qualname, o, fn)
            elif (not kwargs and 0 < (n := len(args)) < 3 and backend != DEFAULT
                    and backend not in rewrites and _BY_TYPE.get(t := type(args[0])) == backend
                    and ((u := type(args[-1])) is t or _BY_TYPE.get(u, _MISSING) is None)):
                seen[n] = (t, backend)   # the next such call: at the top
            try:
                return fn(*args, **kwargs) if kwargs else fn(*args)
            except AttributeError:
                # dask's functions read ``.shape``/``.ndim`` of what they are given: a
                # list there (dask the active backend, no array among the arguments)
                if not params:
                    params.append(param_names(reference))
                raise no_array_error(qualname, backend, _named(params[0], args, kwargs))
        except (TypeError, ValueError, OverflowError) as exc:  # a library's names no function
            if getattr(exc, "xstride_traced", False):   # xp.fuse's stand-ins: no library's
                raise
            few = too_few_error(qualname, reference, len(args), kwargs) if isinstance(
                exc, TypeError) else None   # Python's "missing ... argument", not the library's
            if few is not None:
                raise few from None
            if not params:
                params.append(param_names(reference))
            named = list(_named(params[0], args, kwargs))
            better = ((unheld_int_error(qualname, named, str(exc))
                       if isinstance(exc, OverflowError)
                       else None) or creation_argument_error(exc, qualname, args, kwargs)
                      or axis_argument_error(exc, qualname, named)
                      or complex_argument_error(exc, qualname, named)
                      or bool_argument_error(exc, qualname, named)
                      or inexact_argument_error(exc, qualname, named)
                      or gufunc_shape_error(exc, qualname, named)
                      or broadcast_shape_error(exc, qualname, named)
                      or lapack_dtype_error(exc, qualname, named)
                      or linalg_shape_error(exc, qualname, named))
            if better is not None:
                raise better from None
            raise named_error(exc, qualname, reference, len(args)) from None
        except AttributeError as exc:   # .ndim of a list or a scalar (no_array.py)
            if not params:
                params.append(param_names(reference))
            better = attribute_error(exc, qualname, _named(params[0], args, kwargs))
            if better is None:
                raise
            raise better from None

    return _finish(wrapper, reference, qualname, module)


def creator(qualname: str, module: str = "xstride"):
    """Wrapper for a creation function: it runs on the active backend."""
    reference = implementation("numpy", qualname)
    _numpy_positional(qualname)
    current = _backend._current
    np_table, np_positional, rewrites = _tables["numpy"], _positional, _ARGUMENTS

    def wrapper(*args, **kwargs):
        backend = current.get()
        try:
            if backend == "numpy":
                if kwargs:
                    return np_table[qualname](*args, **kwargs)
                return np_positional[qualname](*args)
            if backend in rewrites:
                args, kwargs = rewrites[backend](qualname, args, kwargs)
            return implementation(_backend.check_active(backend), qualname)(*args, **kwargs)
        except (TypeError, ValueError, OverflowError, NotImplementedError) as exc:  # unnamed
            raise (creation_argument_error(exc, qualname, args, kwargs, backend)   # chunks, dtype, device
                   or named_error(exc, qualname, reference, len(args))) from None

    return _finish(wrapper, reference, qualname, module)
