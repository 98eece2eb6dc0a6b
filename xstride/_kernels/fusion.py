"""The CUDA executor of ``xp.fuse``: a traced graph as one kernel of the engine.

:func:`run` takes a graph (:mod:`xstride._plans.fusion`) and the call's arguments,
replays the graph's view steps on the arguments' Layouts (no copies), allocates the
outputs in the inputs' axis order, and launches the engine's kernel for the fused body
(:mod:`._fusion_source`) through :func:`._elementwise_exec.launch`: the same plan
(broadcast, drop, order, coalesce; flat, rows, tiled or N-d path), the same compiled
kernel cache and launcher as ``xp.add``. Each load is one operand with its own
strides; scalars are passed by value.

:func:`repeat` is the prepared call (as the engine's): a key of the graph, the device,
and per argument its dtype, shape, strides, pointer modulo 16 and device (or its scalar
type; an array of another device misses, and :func:`run` refuses it: :mod:`._devices`)
-> one lookup, the output allocations, the per-call pointers and scalar values, the
launch. The store is bounded (:class:`._lru.Bounded`).

Imports CuPy only when called.
"""

from __future__ import annotations

import inspect
import sys

import numpy as np

from .._plans import fusion as _fplan
from .._plans.fusion import host_values
from ..layout import Layout
from . import _elementwise_exec as _ex
from . import _fusion_reduce as _fr
from .._core.errors import device_error
from ._cupy import empty_maker
from ._devices import misplaced
from ._elementwise_source import C_TYPES
from ._fusion_source import fused_body, operand_specs
from ._lru import Bounded
from ._prepared import GATE, PY_SCALARS

__all__ = ["run", "repeat", "clear", "elementwise", "view_of", "scalar_values", "DTYPES", "PREPARED"]

#: dtypes the fused kernels compute in (the engine's).
DTYPES = frozenset(np.dtype(n) for n in C_TYPES) - {np.dtype(np.float16)}   # not fused yet
#: prepared calls: key -> :class:`_Call`
PREPARED = Bounded(4096)
_bodies = Bounded(1024)


def clear() -> None:
    """Empty the prepared calls and the bodies (the engine's caches are its own)."""
    PREPARED.clear()
    _KEYERS.clear()
    _KEY_FUNCTIONS.clear()
    _bodies.clear()
    _fr.clear()


def _scalar_to(v, dt):
    """A NumPy scalar of ``dt`` from a Python scalar (``OverflowError`` as NumPy)."""
    return np.asarray(v, dtype=dt)[()]


def scalar_values(graph, args) -> list:
    """The by-value scalars of one call, in :meth:`Graph.scalars` order."""
    return [_scalar_to(v, dt) for v, dt in _fplan.scalar_sources(graph, args)]


def _source(graph):
    """``(operand specs, body)`` of ``graph``, cached by identity."""
    got = _bodies.get(id(graph))
    if got is None or got[0] is not graph:
        got = _bodies.put(id(graph), (graph, operand_specs(graph), fused_body(graph)))
    return got[1], got[2]


def view_of(a, lay: Layout):
    """The CuPy view of ``a`` that ``lay`` describes (element offset and strides relative
    to ``a``'s first element): a new array header over the same memory, no copy."""
    isz = a.itemsize
    return type(a)(lay.shape, a.dtype, a.data + lay.offset * isz,
                   tuple(s * isz for s in lay.strides))


def run(owner, graph, args, multi=False):
    """Run the fused ``graph`` of ``owner`` (the fused function: with the arguments'
    dtypes, shapes and scalar types it keys the prepared call) on ``args``.

    Returns
    -------
    The output CuPy array, or a tuple of them when ``multi`` (a tuple of output
    indices: one output at several places, :func:`~xstride._plans.fusion.results`);
    None when the outputs' call-time shapes differ (the caller then runs the function unfused).

    Raises
    ------
    ValueError, IndexError
        The view steps do not apply to these argument shapes (as the unfused run
        would raise; the caller runs the function unfused to give its error).
    DeviceError
        (a ``ValueError``) An array argument is not on the current device; nothing is
        launched (:mod:`._devices`).
    """
    got = misplaced(args)
    if got is not None:
        raise _device_refusal(owner, *got)
    if graph.reductions:
        return _run_reduced(owner, graph, args, multi)
    return _run(owner, graph, args, multi)


def _device_refusal(owner, i: int, device: int, current: int):
    """The :func:`~xstride._core.errors.device_error` of argument ``i`` of the fused
    function ``owner``, named by its parameter where the signature says (else
    ``args[i]``)."""
    fn = getattr(owner, "fn", owner)
    arg = f"args[{i}]"
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):   # no signature to read (a builtin, a C function)
        params = []
    if i < len(params) and params[i].kind in (params[i].POSITIONAL_ONLY,
                                              params[i].POSITIONAL_OR_KEYWORD):
        arg = params[i].name
    name = getattr(fn, "__qualname__", None) or type(fn).__name__
    name = name.rpartition("<locals>.")[2]   # a function defined in another's body
    return device_error(f"fused function {name}", arg, device, current)


def _run_reduced(owner, graph, args, multi):
    """:func:`run` of a graph with reductions: each reduction first
    (:func:`._fusion_reduce.reduce_one`), its result the argument ``red.arg`` of what
    follows; then the outputs are the results, or one elementwise kernel computes them
    (prepared under ``(owner, "after")`` and the arguments with the results: a repeat
    call launches it from :func:`repeat`)."""
    ext = list(args) + [None] * (max(r.arg for r in graph.reductions) + 1 - len(args))
    for red in graph.reductions:
        ext[red.arg] = _fr.reduce_one(graph, red, ext, sys.modules[__name__])
    nodes = graph.nodes
    if all(isinstance(nodes[k], _fplan.Load) and nodes[k].arg >= graph.nargs and
           not nodes[k].views for k in graph.outputs):
        return _fplan.results([ext[nodes[k].arg] for k in graph.outputs], multi)
    after = (owner, "after")
    got = repeat(after, ext) if owner is not None else None
    if got is not None:
        return got
    return _run(after if owner is not None else None, graph, ext, multi)


def elementwise(graph, args):
    """The one output of the elementwise ``graph`` on ``args``, not prepared for repeats."""
    return _run(None, graph, args, False)


def _run(owner, graph, args, multi):
    """:func:`run` of an elementwise graph; ``owner`` None: not prepared for repeats."""
    cupy = sys.modules["cupy"]
    nd = cupy.ndarray
    lays = [Layout.from_array(a) if type(a) is nd else None for a in args]
    got = _fplan.call_layouts(graph, lays)
    if got is None:
        return None
    shape, load_lays = got
    loads = graph.loads
    views = []
    offs = []
    for i, lay in zip(loads, load_lays):
        n = graph.nodes[i]
        a = args[n.arg]
        views.append(view_of(a, lay))
        offs.append((n.arg, lay.offset * a.itemsize))
    alloc = []
    outs = []
    for k in graph.outputs:
        dt = np.dtype(graph.nodes[k].dtype)
        outs.append(_ex.alloc_like_inputs(cupy, shape, dt, views, alloc if not alloc else None))
    specs, body = _source(graph)
    svals = scalar_values(graph, args)
    reuse = _fplan.rows_apart([graph.nodes[i].arg for i in loads], load_lays)
    entry, _ = _ex.launch("fused", body, specs, outs, views + svals, resolve_overlap=False,
                          row_reuse=reuse)
    if owner is not None:
        _remember(owner, graph, args, entry, outs, alloc[0], tuple(offs), multi, cupy)
    return _fplan.results(outs, multi)


class _Call:
    """A prepared fused call; :meth:`run` repeats it (None on a miss)."""

    __slots__ = ("launch", "ashape", "perm", "dtypes", "aligns", "offs", "graph", "empty",
                 "single", "picks", "fixed", "dynamic")

    def run(self, args):
        empty, ashape, perm = self.empty, self.ashape, self.perm
        outs, vals = [], []
        for dt, al in zip(self.dtypes, self.aligns):
            o = empty(ashape, dt)
            if perm is not None:
                o = o.transpose(perm)
            p = o.data.ptr
            if p & 15 != al:
                return None
            outs.append(o)
            vals.append(p)
        if self.launch is not None:
            for i, off in self.offs:
                vals.append(args[i].data.ptr + off)
            if self.dynamic:
                fixed = list(self.fixed)
                g = self.graph
                hv = host_values(g, args) if g.host else None
                for pos, src, tp, lim in self.dynamic:   # tp: the NumPy scalar type
                    v = hv[src[1]] if src[0] == "host" else args[src[1]]
                    # a finite Python float that stays finite in a float or double slot
                    # goes there as it is: the slot rounds it as tp(v) would (one IEEE
                    # conversion), without the NumPy scalar (0.7 us); past ``lim`` (where
                    # NumPy's cast warns of overflow), NaN and inf: tp(v)
                    fixed[pos] = v if type(v) is float and -lim < v < lim else tp(v)
                vals += fixed
            elif self.fixed:
                vals += self.fixed
            self.launch(*vals)
        if self.single:
            return outs[0]
        return tuple(outs) if self.picks is None else tuple(outs[i] for i in self.picks)


#: The magnitude below which a Python float converts to the dtype without overflow
#: (float32: half an ulp of FLT_MAX past it, where round-to-nearest gives inf): such a
#: float is passed to its slot as it is (:meth:`_Call.run`); other dtypes: never (0).
_RAW_LIMIT = {"float32": 3.4028235677973366e38, "float64": float("inf")}


def _remember(owner, graph, args, entry, outs, alloc, offs, multi, cupy):
    if not _ex.CACHE:
        return
    key = _key(owner, args, cupy.ndarray, cupy.cuda.runtime.getDevice())
    if key is None:
        return
    fn = entry[0]
    c = _Call()
    c.launch = None if fn is None else fn.launch.bind()
    c.ashape, c.perm = alloc
    c.dtypes = tuple(o.dtype for o in outs)
    c.aligns = tuple(o.data.ptr & 15 for o in outs)
    c.offs = offs
    c.graph = graph
    c.empty = empty_maker(cupy)
    c.single = not multi
    c.picks = multi if isinstance(multi, tuple) else None   # ``y, y``: one output twice
    # scalars computed from literals only are converted once; the others per call
    dep = []
    for h in graph.host:
        dep.append(h[0] == "arg" or (h[0] == "unary" and dep[h[2]]) or
                   (h[0] == "binary" and (dep[h[2]] or dep[h[3]])))
    fixed, dynamic = [], []
    for pos, i in enumerate(graph.scalars):
        n = graph.nodes[i]
        if n.source[0] == "host" and not dep[n.source[1]]:
            fixed.append(_scalar_to(host_values(graph, args)[n.source[1]], n.dtype))
        else:
            fixed.append(None)
            # the scalar type converts as np.asarray(v, dtype) does (OverflowError for
            # an int out of range, NumPy 2), and faster
            dt = np.dtype(n.dtype)
            dynamic.append((pos, n.source, dt.type, _RAW_LIMIT.get(dt.name, 0.0)))
    c.fixed, c.dynamic = tuple(fixed), tuple(dynamic)
    if GATE.nd is None:
        GATE.open(cupy)
    PREPARED.put(key, c.run)
    _KEYERS.put(owner, _key_function(tuple(_kind(v) for v in args)))


def _key(owner, args, nd, dev):
    key = [owner, _ex._MAX_GRID_YZ, dev]
    for v in args:
        t = type(v)
        if t is nd:
            mem = v.data
            key += (v.dtype, v.shape, v.strides, mem.ptr & 15, mem.device_id)
        elif t in PY_SCALARS:
            key.append(t)
        elif isinstance(v, np.generic):
            key.append(v.dtype)
        else:
            return None
    return tuple(key)


def _kind(v):
    """What :func:`_key` keys of an argument: "a" (an array), its type (a Python
    scalar), ("n", its type) (a NumPy scalar)."""
    t = type(v)
    if t in PY_SCALARS:
        return t
    if isinstance(v, np.generic):
        return ("n", t)
    return "a"


#: owner -> the key function of the argument kinds of its last prepared call
_KEYERS = Bounded(1024)
#: argument kinds -> their key function
_KEY_FUNCTIONS = Bounded(256)


def _key_function(kinds: tuple):
    """``key(owner, args, nd, dev)``: :func:`_key`, written out for arguments of
    ``kinds`` (see :func:`_kind`) as one tuple expression, without its list and loop;
    arguments of other kinds get :func:`_key` itself. Generated once per kinds (as
    :func:`collections.namedtuple` generates its class)."""
    fn = _KEY_FUNCTIONS.get(kinds)
    if fn is not None:
        return fn
    names = [f"a{i}" for i in range(len(kinds))]
    tests, parts, space = [], [], {"_key": _key, "ex": _ex}
    for i, (a, k) in enumerate(zip(names, kinds)):
        if k == "a":
            tests.append(f"type({a}) is nd")
            parts.append(f"{a}.dtype, {a}.shape, {a}.strides, {a}.data.ptr & 15, "
                         f"{a}.data.device_id")
        else:
            t = k[1] if isinstance(k, tuple) else k
            space[f"t{i}"] = t
            tests.append(f"type({a}) is t{i}")
            parts.append(f"{a}.dtype" if isinstance(k, tuple) else f"t{i}")
    unpack = (", ".join(names) + ("," if len(names) == 1 else "")) if names else "_"
    src = (f"def key(owner, args, nd, dev):\n"
           f"    if len(args) == {len(kinds)}:\n"
           + (f"        {unpack} = args\n" if names else "")
           + f"        if {' and '.join(tests) if tests else 'True'}:\n"
           f"            return (owner, ex._MAX_GRID_YZ, dev{''.join(', ' + p for p in parts)})\n"
           f"    return _key(owner, args, nd, dev)\n")
    exec(compile(src, f"<xstride fused key {kinds!r}>", "exec"), space)
    return _KEY_FUNCTIONS.put(kinds, space["key"])


def repeat(owner, args):
    """The result of the call of the fused function ``owner`` prepared before with the
    same argument facts (see :func:`run`), else None."""
    if not _ex.CACHE:
        return None
    keyer = _KEYERS.get(owner)
    key = (keyer or _key)(owner, args, GATE.nd, GATE.getdev())
    if key is None:
        return None
    run_ = PREPARED.get(key)
    if run_ is None:
        return None
    return run_(args)
