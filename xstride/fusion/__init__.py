"""``xp.fuse``: a function written with operators and ``xp.*`` calls, run as one kernel.

On CuPy arrays, ``x + y`` is CuPy's own kernel and only ``xp.add(x, y)`` reaches
xstride's elementwise engine; a function of several operators runs one kernel per
operator, each reading and writing whole arrays. ``xp.fuse(fn)`` traces ``fn`` once per
signature (:mod:`._tracer`) and runs the traced graph as one kernel of the engine
(``be.executor("fusion")``, ``xstride/_kernels/fusion.py``): every argument is read
once with its own strides, views of the arguments (slices, ``.T``, ``permute_dims``,
``broadcast_to``, ``reshape`` where a view) are Layout changes, not copies, and the
result is bit-identical to running ``fn`` unfused through xstride (docs/fuse.md).

On dask arrays (``xstride/_chunked/fusion.py``) an elementwise graph whose arguments'
chunks line up runs per block: one ``blockwise`` task per block calls this fused
function on the blocks (one kernel per CuPy block); anything else runs as written.
Either way the dask arguments first lose their chunks of no element, as the
namespace's arguments do (the executor's ``arguments`` hook).
On NumPy arrays (and on any backend without a fusion executor), ``fn`` runs as written.
"""

from __future__ import annotations

import functools
import inspect
import sys
import types
import warnings

import numpy as np

from .. import _backends
from .._backends import dispatch
from .._core.errors import DeviceError, error, type_error
from ._calls import namespace_call
from ._tracer import Traced, Unfusable, Weak, trace

__all__ = ["fuse", "Fused", "FusionWarning"]


class FusionWarning(UserWarning):
    """A fused function ran unfused: its message names the operation that no fused
    kernel expresses (once per signature)."""


_PY_SCALARS = (bool, int, float, complex)
_STATIC = (str, bytes, type(None))
#: The entry of a signature whose graphs are kept per argument shapes.
_BY_SHAPE = ("by shape",)
#: Most signatures one fused function keeps (the oldest goes first).
MAX_SIGNATURES = 256


def _hook(qualname, args, kwargs):
    """The dispatch hook: an ``xp.*`` call with a stand-in among its arguments is
    recorded by the tracer; any other call goes on (``NotImplemented``)."""
    for v in args:
        if isinstance(v, (Traced, Weak)):
            return namespace_call(qualname, args, kwargs)
    for v in kwargs.values():
        if isinstance(v, (Traced, Weak)):
            return namespace_call(qualname, args, kwargs)
    for v in args:   # a sequence of stand-ins (concat, stack): named as the function,
        if isinstance(v, (list, tuple)) and any(isinstance(e, (Traced, Weak)) for e in v):
            return namespace_call(qualname, args, kwargs)   # not the attribute it read
    return NotImplemented


dispatch.TRACE_HOOK = _hook


def fuse(fn=None, *, strict: bool = False):
    """Run ``fn`` as one elementwise kernel on CuPy arrays.

    Usable as ``@xp.fuse`` and ``@xp.fuse(strict=True)``.

    Parameters
    ----------
    fn : callable
        A function of arrays (and Python or NumPy scalars) written with operators
        (arithmetic, comparison, bitwise, their reflected and unary forms), the
        namespace's elementwise functions called as ``xp.<name>`` (the engine's, the
        math functions ``exp``, ``log``, ``sqrt``, ``sin``, ``cos``, ``tanh``,
        ``floor``, ... and ``where``, ``clip``, ``astype``), basic indexing, ``.T``,
        ``.mT``, ``xp.permute_dims``, ``xp.matrix_transpose``, ``xp.expand_dims``,
        ``xp.broadcast_to``, ``xp.reshape`` (where a view), the reductions
        ``xp.sum``, ``prod``, ``min``, ``max``, ``mean`` (in the reduction kernels,
        the bits of the unfused reduction) and work after them, returning one array or
        a tuple of arrays (of one shape, unless each is a reduction's result).
    strict : bool
        Raise ``TypeError`` instead of running unfused when ``fn`` does something
        no fused kernel expresses (a NumPy bool counts, as for ``keepdims``). Only
        where a call traces (CuPy or dask arrays): on NumPy arrays ``fn`` runs as
        written, with no trace, no warning and no ``TypeError`` (on a machine without
        a GPU, call it on dask arrays to check that it fuses).

    Returns
    -------
    Fused
        A callable with ``fn``'s name and docstring.

    Raises
    ------
    TypeError
        ``fn`` is not callable; ``strict`` is not a bool (or a NumPy bool).

    Notes
    -----
    The signature of a call is, per argument: a CuPy array's dtype and ndim, a Python
    scalar's type, a NumPy scalar's dtype, or the value of a ``str``/``bytes``/``None``
    argument. The first call of a signature runs ``fn`` on stand-in arrays and builds
    the kernel; the traced graph holds Python values seen then (literals, globals):
    a global changed later is not seen. Arrays other than the arguments (captured from
    a closure) are not fused. See docs/fuse.md for the rules.

    Examples
    --------
    >>> import xstride as xp
    >>> @xp.fuse
    ... def push(x, v, a, dt):
    ...     return x + v * dt + 0.5 * a * dt * dt, v + a * dt
    """
    if not isinstance(strict, (bool, np.bool_)):   # as the reductions' keepdims
        raise type_error("fuse", "strict", strict, "a bool")
    strict = bool(strict)
    if fn is None:
        return lambda f: fuse(f, strict=strict)
    if not callable(fn):
        raise type_error("fuse", "fn", fn, "a callable")
    return Fused(fn, strict)


def _by_qualname(mod, qualname: str):
    """What ``mod.<qualname>`` names (``C.m``: the attribute ``m`` of the class ``C``),
    or None (a function's local, ``f.<locals>.g``)."""
    obj = mod
    for part in qualname.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


class Fused:
    """A fused function (made by :func:`fuse`); call it as ``fn``.

    Calling it returns what ``fn`` returns for the same arguments: on CuPy arrays the
    output(s) of one fused kernel (bit-identical to ``fn`` run unfused through xstride),
    on dask arrays whose chunks line up one fused call per block, anything else ``fn``
    run as written. It raises what ``fn`` raises, ``TypeError`` under ``strict=True``
    where a call cannot be fused, and :class:`~xstride._core.errors.DeviceError` for a
    CuPy argument on another device (see :meth:`__call__`). The instance carries
    ``fn``'s name and docstring (``functools.update_wrapper``); as a class attribute
    it binds as a method, as a plain function does.

    Parameters
    ----------
    fn : callable
        The function to fuse (:func:`fuse` checks it).
    strict : bool, optional
        Raise instead of running unfused (default False).

    Attributes
    ----------
    fn : callable
        The function as written.
    strict : bool
        Whether a call that cannot be fused raises ``TypeError`` (True) or runs ``fn``
        unfused with a :class:`FusionWarning` (False).
    """

    def __init__(self, fn, strict: bool = False):
        functools.update_wrapper(self, fn)
        self.fn = fn
        self.strict = strict
        self._graphs: dict = {}
        self._ex = None
        self._params = None   # fn's inspect.Signature (False: none), read on first need
        self._plans: dict = {}  # (len(args), *keyword names) -> where each argument goes
        self._defaults = ()     # the positional parameters' defaults, once _plan read them

    def __reduce__(self):
        """Pickled (a dask task sends it to a worker) by reference where its module holds
        it under its qualified name (``@xp.fuse`` on a module's function, or on a method
        or staticmethod of a module's class), else as ``fn`` and
        ``strict`` (cloudpickle sends a function of ``__main__`` by value); the traced
        graphs are not sent: a worker traces each signature once."""
        mod = sys.modules.get(getattr(self, "__module__", None) or "")
        name = getattr(self, "__qualname__", "")
        if mod is not None and mod.__name__ != "__main__" and name \
                and _by_qualname(mod, name) is self:   # a class's method too: C.m
            return name
        return (Fused, (self.fn, self.strict))

    def __get__(self, obj, objtype=None):
        """As a method: a bound method of ``obj``, as a plain function gives (its name,
        docstring, ``__self__``, equality and pickling by ``getattr``); a call passes
        ``obj`` as the first argument, which is no array: on CuPy the call runs unfused
        (docs/fuse.md, "How a call runs")."""
        if obj is None or isinstance(self.fn, staticmethod):   # as the staticmethod binds
            return self
        return types.MethodType(self, obj)

    def __call__(self, /, *args, **kwargs):   # /: fn may have a parameter "self"
        """``fn(*args, **kwargs)``, as one fused kernel where the arguments allow.

        Parameters
        ----------
        *args, **kwargs
            ``fn``'s arguments: arrays, Python or NumPy scalars, and ``str``/``bytes``/
            ``None`` values (part of the signature, so of the kernel). Keywords that
            name positional parameters of ``fn`` are moved to their places; values for
            keyword-only parameters or ``**kwargs`` run ``fn`` unfused.

        Returns
        -------
        array or tuple of arrays
            What ``fn`` returns. On CuPy arrays, for a signature the trace could fuse:
            the new output arrays of one engine kernel (of one shape, or reductions'
            results), bit-identical to ``fn`` run unfused through xstride. On dask
            arrays whose chunks line up: dask arrays of one fused call per block.
            Otherwise (NumPy arrays, no arrays, arrays of two backends, a signature
            that does not fuse): ``fn`` run as written, whatever it returns.

        Raises
        ------
        TypeError
            ``strict=True`` and a call on CuPy or dask arrays (never one on NumPy
            arrays, which runs as written) cannot be fused: ``fn`` does something no
            fused kernel expresses (docs/fuse.md, "Not yet fused"), an argument of
            another type than the above, keyword-only arguments, or a trace that raised
            where the unfused run did not; the message, ``fuse: cannot fuse <name>:
            <reason>``, gives the reason.
        ValueError
            :class:`~xstride._core.errors.DeviceError`: a CuPy argument is on another
            device than the current one; raised before anything is launched, and ``fn``
            is then not run unfused.
        Exception
            Whatever ``fn`` raises run unfused: a call whose trace or fused run fails
            (shapes that do not broadcast, dtypes NumPy refuses, a wrong argument
            count) runs ``fn`` as written, which raises its own error.

        Warns
        -----
        FusionWarning
            Once per signature, when ``strict=False`` and the call runs unfused because
            the trace could not fuse it (the message names the operation).
        """
        given = (args, kwargs)   # an unfused run gets the call as written
        if kwargs:
            args, kwargs = self._positional(args, kwargs)
        ex = self._ex
        if ex is not None and not kwargs:
            try:
                got = ex.repeat(self, args)
            except (OverflowError, TypeError):   # a scalar outside its loop dtype, or one
                got = None                       # the host's arithmetic made complex
                # (x * s ** 0.5 of s < 0): the checked path, which names or runs it
            if got is not None:
                return got
        return self._call(args, kwargs, given)

    def _positional(self, args, kwargs):
        """``(args, kwargs)`` of the call with its keywords that name positional
        parameters moved to their places, with the defaults of any positional
        parameters left out filled in (``push(x, v, a, dt=0.1)`` is ``push(x, v, a,
        0.1)``); what stays a keyword names a keyword-only parameter or ``**kwargs``. As
        given where the call does not fit ``fn`` (the unfused run raises Python's
        error) or ``fn`` has no signature to read. The places are found once per
        number of positional arguments and keyword names (:meth:`_plan`)."""
        key = (len(args), *kwargs)
        plan = self._plans.get(key)
        if plan is None:
            plan = self._plan(len(args), tuple(kwargs))
            if len(self._plans) >= MAX_SIGNATURES:
                self._plans.clear()
            self._plans[key] = plan
        if plan is False:
            return args, kwargs
        places, rest = plan
        moved = tuple(args[w] if t == 0 else kwargs[w] if t == 1 else w for t, w in places)
        return moved, {k: kwargs[k] for k in rest}

    def _read_params(self):
        """``fn``'s ``inspect.Signature`` (False where it has none), read once."""
        params = self._params
        if params is None:
            try:
                # fn's own parameters: a functools.wraps wrapper's (*args, **kwargs),
                # not those of the function it wraps (it may read its keywords itself)
                # (a fused function's calls reach its own fn as written: its parameters)
                fn = self.fn
                while isinstance(fn, Fused):
                    fn = fn.fn
                fn = fn.__func__ if isinstance(fn, staticmethod) else fn
                params = inspect.signature(fn, follow_wrapped=False)
            except (TypeError, ValueError):
                params = False
            else:
                self._defaults = tuple(p.default for p in params.parameters.values()
                                       if p.kind <= p.POSITIONAL_OR_KEYWORD)
            self._params = params
        return params

    def _untaken(self, args, be) -> str:
        """The reason a call of ``args`` has no signature: each argument of a type no
        fused kernel takes named (``fn``'s parameter and its position) and what to pass
        instead, after the arguments' types (as the message always began)."""
        params = self._read_params()
        names = [p.name for p in params.parameters.values()
                 if p.kind <= p.POSITIONAL_OR_KEYWORD] if params else []
        kinds = ", ".join(sorted({type(a).__name__ for a in args}))
        bad = []
        defaults = self._defaults
        for i, a in enumerate(args):
            if (isinstance(a, (np.generic, *_STATIC)) or type(a) in _PY_SCALARS
                    or be.owns(a) or (i < len(defaults) and a is defaults[i])):
                continue   # as _signature takes them
            where = f"'{names[i]}' (position {i})" if i < len(names) else f"at position {i}"
            bad.append(f"argument {where} is a {type(a).__name__}")
        return (f"arguments of types {kinds}; {', '.join(bad)}: a fused kernel takes "
                "arrays of the arguments' backend (convert a list or tuple with "
                "xp.asarray), Python or NumPy scalars, and str, bytes or None")

    def _plan(self, nargs, names):
        """Where each argument of a call with ``nargs`` positional arguments and the
        keywords ``names`` goes: ``(places, rest)``, ``places`` a ``(0, i)`` (the
        positional argument ``i``), ``(1, name)`` (the keyword ``name``) or ``(2,
        value)`` (a default) per positional parameter, ``rest`` the keywords that stay;
        False where the call does not fit or ``fn`` has no signature."""
        params = self._read_params()
        if params is False:
            return False
        try:          # marks stand for the values: bind reads only their number and names
            bound = params.bind(*(_Mark(0, i) for i in range(nargs)),
                                **{k: _Mark(1, k) for k in names})
        except TypeError:
            return False
        if bound.kwargs:   # a gap before a keyword: the positional defaults fill it
            for name, p in params.parameters.items():
                if p.kind <= p.POSITIONAL_OR_KEYWORD and p.default is not p.empty:
                    bound.arguments.setdefault(name, p.default)
        places = tuple(m.at if type(m) is _Mark else (2, m) for m in bound.args)
        return places, tuple(bound.kwargs)

    # ------------------------------------------------------------------ the checked path
    def _backend(self, args):
        """The backend of the array arguments, or None (no arrays, or mixed: the
        unfused run decides)."""
        found = None
        for a in args:
            if isinstance(a, (np.generic, *_PY_SCALARS, *_STATIC)):
                continue
            be = _backends.of_array(a)
            if be is None:
                continue
            if found is not None and be is not found:
                return None
            found = be
        return found

    def _signature(self, args, be):
        sig = []
        defaults = self._defaults
        for i, a in enumerate(args):
            if isinstance(a, np.generic):
                sig.append(("n", a.dtype))
            elif type(a) in _PY_SCALARS:
                sig.append(type(a))
            elif isinstance(a, _STATIC):
                sig.append(("s", type(a), a))
            elif be.owns(a):
                sig.append(("a", a.dtype, a.ndim))
            elif i < len(defaults) and a is defaults[i]:   # a default filled into a gap:
                sig.append(("d", i))      # part of the kernel, as in a call that leaves it out
            else:
                return None
        return tuple(sig)

    def _call(self, args, kwargs, given):
        """The call of ``args``/``kwargs`` (keywords of positional parameters moved to
        their places); every unfused run calls ``fn`` as the user did, ``given``."""
        fn = self.fn
        for a in (*args, *kwargs.values()):
            if isinstance(a, (Traced, Weak)):   # called inside another fused function's
                return fn(*given[0], **given[1])  # trace: its body is part of that graph
        be = self._backend(args)
        ex = be.executor("fusion") if be is not None else None
        if ex is None:
            return fn(*given[0], **given[1])   # NumPy arrays, no arrays, mixed: as written
        prepare = getattr(ex, "arguments", None)
        if prepare is not None:                # the backend's rewrite, as its namespace's
            args, kwargs = prepare(args, kwargs)   # (dask: chunks of no element merged
            given = prepare(*given)                # away, in the unfused run's too)
        if kwargs:
            if self._params and not _fits(self._params, args, kwargs):
                return fn(*given[0], **given[1])   # Python's error for the call
            why = ("keyword-only arguments or **kwargs (make them positional parameters)"
                   if self._params else "keyword arguments of a function with no "
                   "signature to read (pass them positionally)")
            return self._unfusable(("kwargs",), why, given)
        sig = self._signature(args, be)
        if sig is None:   # warned once per reason: its types and each untaken argument's place
            why = self._untaken(args, be)
            return self._unfusable(("types", why), why, given)
        entry = self._lookup(sig, args)
        if entry is None:
            entry = self._trace(sig, args, be, given)
            if not isinstance(entry, tuple):   # ran unfused: its result
                return entry[0]
        if entry[0] is None:                   # unfusable signature, warned before
            return fn(*given[0], **given[1])
        _sig, graph, multi = entry
        try:
            out = ex.run(self, graph, args, multi)
        except DeviceError:   # an array on another device: refused, never run unfused
            raise
        except OverflowError:
            # this call's scalar outside its loop dtype (x < 300 of int8 x, traced with one
            # that fit): traced again, the trace names it (warned once per value, or
            # strict's TypeError), as a first call of the value is
            again = self._trace(sig, args, be, given)
            return again[0] if not isinstance(again, tuple) else fn(*given[0], **given[1])
        except (ValueError, IndexError, TypeError) as exc:
            # the unfused run gives the error where fn has one; where it runs, the fused
            # kernel could not (a reshape of a computed value that needs a copy): said
            # once per reason, strict's TypeError, as any call that runs unfused
            reason = f"the fused kernel cannot run this call ({type(exc).__name__}: {exc})"
            return self._run_unfused(self._key(sig, args), reason, given, keep=False,
                                     depth=0)
        if out is None:                        # outputs of different shapes for these shapes
            return fn(*given[0], **given[1])
        self._ex = ex
        return out

    def _trace(self, sig, args, be, given):
        """Trace a new signature: ``(signature, graph, multi)``, or ``[result]`` of the unfused
        run (warned, or an error raised)."""
        try:
            graph, multi = trace(self.fn, args, be.owns)
        except Unfusable as u:
            reason = u.what
            if self.strict:
                self._refused(reason)
            if u.by_value:   # this call's scalar (x < 300 of int8 x), not the signature's:
                return [self._run_unfused(self._key(sig, args), reason, given, keep=False)]
        except Exception as exc:  # a rule or user error: the unfused run gives it
            reason = f"{type(exc).__name__}: {exc}"
        else:
            return self._keep(sig, args, graph, multi)
        return [self._run_unfused(self._key(sig, args), reason, given)]

    def _refused(self, reason, depth=0):
        """Raise (``strict=True``) or warn; the warning names the user's call line,
        ``depth`` frames further out than ``_call``'s caller of this (``_run_unfused``
        is one more frame below ``_call`` than ``_unfusable``)."""
        name = getattr(self.fn, "__qualname__", repr(self.fn))
        if self.strict:
            raise error(TypeError, "fuse", f"cannot fuse {name}: {reason}")
        warnings.warn(f"fuse: {name} runs unfused: {reason}", FusionWarning,
                      stacklevel=5 + depth)

    def _unfusable(self, key, reason, given):
        if key not in self._graphs:
            self._refused(reason)
            self._store(key, (None, reason))
        return self.fn(*given[0], **given[1])

    def _run_unfused(self, key, reason, given, keep=True, depth=1):
        """``fn`` run as written for a signature first found unfusable, then the warning
        and the entry ``key``. The entry is there while ``fn`` runs, so that ``fn``
        calling this fused function again (recursion) runs unfused at once: one trace
        and one warning per signature, not one per level. Where ``fn`` raises, the
        entry goes again (as before: nothing kept, the next call traces again), and so
        it does where ``strict=True`` raises. ``keep=False`` (a reason of this call's
        scalar values only): the entry goes after the run too, so that a later call of
        the signature traces again; the warning is given once per reason. ``depth``:
        frames between ``_call`` and this (1 from ``_trace``, 0 from ``_call``)."""
        had = key in self._graphs
        self._store(key, (None, reason))
        warned = ("by value", key, reason)
        try:
            result = self.fn(*given[0], **given[1])   # raises the unfused error, or runs
            if keep or warned not in self._graphs:
                self._refused(reason, depth=depth)   # strict=True: raises, keeping nothing
        except BaseException:
            if not had:
                self._graphs.pop(key, None)
            raise
        if not keep:
            if not had:
                self._graphs.pop(key, None)
            self._store(warned, (None, reason))
        return result

    def _key(self, sig, args):
        """The key of ``sig``'s entry: ``sig``, or ``sig`` and the arguments' shapes once
        a trace of ``sig`` read concrete shapes (``x.shape``, ``broadcast_to``,
        ``reshape``): such a graph holds only for the shapes it was traced with."""
        if self._graphs.get(sig) is _BY_SHAPE:
            return sig + (tuple(getattr(a, "shape", None) for a in args),)
        return sig

    def _lookup(self, sig, args):
        """The entry of ``sig`` for ``args``, or None. Another thread's trace of ``sig``
        may mark it shape-dependent between the key and the read: the read then finds
        the mark, and the key of the arguments' shapes is read instead."""
        entry = self._graphs.get(self._key(sig, args))
        if entry is _BY_SHAPE:
            entry = self._graphs.get(self._key(sig, args))
        return None if entry is _BY_SHAPE else entry

    def _keep(self, sig, args, graph, multi):
        """Store a traced graph of the plain signature ``sig``; returns its entry."""
        if graph.shape_dependent:
            self._store(sig, _BY_SHAPE)
        entry = (sig, graph, multi)
        self._store(self._key(sig, args), entry)
        return entry

    def _store(self, key, entry):
        graphs = self._graphs
        while len(graphs) >= MAX_SIGNATURES:   # the oldest goes; another thread may be
            try:                                # storing or dropping one at the same time
                graphs.pop(next(iter(graphs)), None)
            except (RuntimeError, StopIteration):   # changed under the iterator: again
                continue
        graphs[key] = entry

    def graph(self, *args):
        """The traced graph of ``args``'s signature (tracing it now if new), or None when
        it runs unfused: for tests and docs.

        Raises
        ------
        TypeError
            No argument is an array of a backend with a fusion executor (CuPy, dask).
        """
        be = self._backend(args)
        if be is None or be.executor("fusion") is None:
            raise error(TypeError, "Fused.graph", "needs array arguments of a backend that "
                                                  "traces (CuPy or dask); on NumPy arrays "
                                                  "the function runs as written")
        sig = self._signature(args, be)
        if sig is None:                        # an argument type that runs unfused
            return None
        entry = self._lookup(sig, args)
        if entry is None:
            try:
                graph, multi = trace(self.fn, args, be.owns)
            except Unfusable:
                return None
            entry = self._keep(sig, args, graph, multi)
        return entry[1] if entry[0] is not None else None   # (None, reason): unfused

    def __repr__(self):
        return f"<fused {getattr(self.fn, '__qualname__', self.fn)!r}>"


def __dir__():
    """What ``dir()`` and tab completion list: the public names, ``__all__`` (the helpers
    this module imports or keeps for xstride's own modules stay importable, unlisted),
    and the private ones."""
    return sorted(set(__all__) | {k for k in globals() if k.startswith("_")})


class _Mark:
    """An argument of a call in :meth:`Fused._plan`: ``at`` is ``(0, i)`` (positional
    ``i``) or ``(1, name)`` (the keyword ``name``)."""

    __slots__ = ("at",)

    def __init__(self, kind, where):
        self.at = (kind, where)


def _fits(params: inspect.Signature, args, kwargs) -> bool:
    """Whether a call with ``args`` and ``kwargs`` fits the signature ``params``."""
    try:
        params.bind(*args, **kwargs)
    except TypeError:
        return False
    return True
