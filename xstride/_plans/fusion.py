"""The fused-kernel graph and its layouts: what ``xp.fuse`` traced, replayed per call.

Backend neutral, pure Python over :class:`~xstride.layout.Layout` (no NumPy or CuPy).
``xstride/fusion/`` (public) records a :class:`Graph` by running the user's function
on stand-in arrays; the CUDA executor (``xstride/_kernels/fusion.py``) turns it into
one elementwise kernel of the engine. Between the two sits this module:

- the graph itself: *loads* (an argument array seen through a chain of view steps),
  *scalars* (a by-value kernel argument: a Python value computed on the host, or a
  NumPy scalar argument), and *ops* (one elementwise function with its loop and
  result dtypes), in creation order, which is a topological order;
- :func:`call_layouts`: the layout of every load for the layouts of one call's
  arguments (view steps applied to Layouts, never to data), and the iteration shape;
- :func:`index_layout` and :func:`reshape_layout`: basic indexing (``None`` and
  ``...`` included) and a reshape that is a view, on a Layout (:mod:`.fusion_views`).

View steps (tuples, first item the kind):

``("index", key)``      basic indexing: a tuple of ints, slices, ``None`` and ``...``;
``("permute", axes)``   ``permute_dims``; ``.T`` is the reversed axes;
``("broadcast", shape)`` ``broadcast_to`` a concrete shape (the graph is then
                        shape-dependent: its cache key holds the input shapes);
``("reshape", shape)``  a reshape that must be a view (shape-dependent too);
``("expand", node)``    broadcast to the call-time shape of an earlier node: the step a
                        view of a computed value pushes onto the loads below it.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass

from .._core.errors import broadcast_error, error
from ..layout import Layout
from .elementwise import broadcast_shapes, result_axis_order
from .fusion_views import decode_key, encode_key, expand_key, index_layout, reshape_layout

__all__ = ["Load", "Scalar", "Op", "Reduce", "Graph", "build", "call_layouts", "node_shapes",
           "index_layout", "reshape_layout", "expand_key", "encode_key", "decode_key", "pre_graph",
           "virtual_layout", "stored_layout_known", "reduce_walk", "magic", "results", "host_values",
           "scalar_sources"]


@dataclass(frozen=True)
class Load:
    """An argument array seen through view steps (one array operand of the kernel).

    arg : index of the argument of the fused function.
    views : the view steps, in the order they were applied.
    dtype : NumPy dtype name of the stored elements.
    """

    arg: int
    views: tuple
    dtype: str


@dataclass(frozen=True)
class Scalar:
    """A by-value kernel argument of dtype ``dtype``.

    source : ``("host", node)`` a Python value the host computes per call (a Python
        scalar argument, a literal, or Python arithmetic on them), converted to
        ``dtype`` as the engine converts weak scalars; or ``("arg", i)`` a NumPy scalar
        argument ``i`` (its own dtype: strong, NEP 50).
    """

    source: tuple
    dtype: str


@dataclass(frozen=True)
class Op:
    """One elementwise function over earlier nodes.

    func : the function's name (``"add"``, ``"exp"``, ``"where"``, ``"astype"``, ...).
    inputs : node indices.
    loop : NumPy dtype names the inputs are converted to before the function runs.
    dtype : NumPy dtype name of the result.
    via : who computes it in the unfused run, which fixes the layout of the array it
        stores (:func:`virtual_layout`): ``"op"`` CuPy (an operator, a method, a math
        function), ``"xp"`` xstride's engine (``xp.add``, ``xp.where``, ...),
        ``"clip"`` the ``where`` steps of ``xp.clip``.
    pushed : made by pushing a view of a computed value onto the loads below it
        (``xstride/fusion/_views.py``): the unfused run stores the value and sees it
        through the view, a layout :func:`virtual_layout` does not give.
    """

    func: str
    inputs: tuple
    loop: tuple
    dtype: str
    via: str = "op"
    pushed: bool = False


@dataclass(frozen=True)
class Reduce:
    """A reduction (``sum``, ``prod``, ``min``, ``max``, ``mean``) of a node, whose result
    is argument ``arg`` of the graph (a virtual argument past the function's own: the
    nodes that use the result read it as a :class:`Load` of ``arg``).

    func : the namespace function.
    input : the node reduced.
    axis : the ``axis`` argument as given (None, an int or a tuple of ints).
    axes : the normalized axes.
    keepdims : bool.
    dtype : the caller's ``dtype=`` (None, or a dtype name).
    out : NumPy dtype name of the result.
    arg : the virtual argument index of the result.
    """

    func: str
    input: int
    axis: object
    axes: tuple
    keepdims: bool
    dtype: object
    out: str
    arg: int


@dataclass(frozen=True)
class Graph:
    """A traced function: device nodes, host nodes, and the outputs (see :func:`build`).

    nodes : tuple of Load, Scalar or Op (device values, topological order). Nodes no
        output depends on stay: a view of a computed value refers to its shape.
    host : tuple of host nodes: ``("arg", i)``, ``("const", value)``,
        ``("unary", name, a)``, ``("binary", name, a, b)`` (Python arithmetic on
        earlier host nodes; ``name`` an :mod:`operator` function name).
    outputs : tuple of node indices (each an Op).
    nargs : number of arguments of the function.
    loads, scalars, ops : the indices of the Load, Scalar and Op nodes the outputs
        depend on, in order: the kernel's array operands, by-value operands, and the
        statements of its body.
    shape_dependent : the trace read concrete shapes (``.shape``, ``broadcast_to``,
        ``reshape``): it holds only for the input shapes it was traced with (the
        executors' keys hold every input shape anyway).
    reductions : tuple of :class:`Reduce`, in the order they run: each one's result is
        the argument ``nargs + k`` of the nodes after it.
    type_read : the function read a stand-in's class (``isinstance(x, ...)``): a branch
        on the array type, which holds for the arguments' own type only (the dask
        executor's blocks are of another, so it runs such a function as written).
    """

    nodes: tuple
    host: tuple
    outputs: tuple
    nargs: int
    loads: tuple = ()
    scalars: tuple = ()
    ops: tuple = ()
    shape_dependent: bool = False
    reductions: tuple = ()
    type_read: bool = False


def build(nodes, host, outputs, nargs: int, shape_dependent: bool = False,
          reductions: tuple = (), type_read: bool = False) -> Graph:
    """A :class:`Graph` with the nodes the outputs depend on found."""
    nodes = tuple(nodes)
    live = _live(nodes, outputs)
    # the reductions the outputs need (each one's input, and the reductions below it)
    by_arg = {r.arg: r for r in reductions}
    used = set()
    stack = [nodes[i].arg for i in live if isinstance(nodes[i], Load) and nodes[i].arg in by_arg]
    while stack:
        a = stack.pop()
        if a in used:
            continue
        used.add(a)
        stack.extend(nodes[i].arg for i in _live(nodes, (by_arg[a].input,))
                     if isinstance(nodes[i], Load) and nodes[i].arg in by_arg)
    reductions = tuple(r for r in reductions if r.arg in used)
    order = sorted(live)
    return Graph(nodes, tuple(host), tuple(outputs), nargs,
                 tuple(i for i in order if isinstance(nodes[i], Load)),
                 tuple(i for i in order if isinstance(nodes[i], Scalar)),
                 tuple(i for i in order if isinstance(nodes[i], Op)), shape_dependent,
                 tuple(reductions), type_read)


def results(outs, multi):
    """What a fused call returns from ``outs`` (one array per graph output): the one
    output (``multi`` false), their tuple (``multi`` True), or, where the function
    returned one value at several places (``return y, y``), the tuple ``outs[i] for i
    in multi``: the same array object at each of them, as the unfused run gives."""
    if multi is True:
        return tuple(outs)
    if not multi:
        return outs[0]
    return tuple(outs[i] for i in multi)


def host_values(graph: Graph, args) -> list:
    """The values of the graph's host nodes for ``args`` (Python arithmetic, as the
    unfused run does it)."""
    vals = []
    for h in graph.host:
        kind = h[0]
        if kind == "arg":
            vals.append(args[h[1]])
        elif kind == "const":
            vals.append(h[1])
        elif kind == "unary":
            vals.append(getattr(operator, h[1])(vals[h[2]]))
        else:
            vals.append(getattr(operator, h[1])(vals[h[2]], vals[h[3]]))
    return vals


def scalar_sources(graph: Graph, args) -> list:
    """``(value, dtype name)`` of each by-value scalar of one call, in ``graph.scalars``
    order: the value an executor converts to that dtype (as NumPy converts it: an int
    out of its range is an ``OverflowError``, which the unfused run raises too)."""
    hv = host_values(graph, args) if graph.host else None
    out = []
    for i in graph.scalars:
        n = graph.nodes[i]
        src = n.source
        out.append((hv[src[1]] if src[0] == "host" else args[src[1]], n.dtype))
    return out


def _reach(nodes, starts, follow):
    """Each node reached from ``starts``, once, continuing from node ``n`` to the nodes
    ``follow(n)`` names."""
    seen = set()
    stack = list(starts)
    while stack:
        i = stack.pop()
        if i in seen:
            continue
        seen.add(i)
        yield i
        stack.extend(follow(nodes[i]))


def _live(nodes, outputs) -> set:
    """The nodes ``outputs`` depend on within one kernel (a reduction's result is a leaf)."""
    return set(_reach(nodes, outputs, lambda n: n.inputs if isinstance(n, Op) else ()))


def pre_graph(graph: Graph, red: Reduce) -> Graph:
    """The graph whose one output is the node ``red`` reduces (the body of the fused
    reduction's load)."""
    return build(graph.nodes, graph.host, (red.input,), graph.nargs, graph.shape_dependent,
                 tuple(r for r in graph.reductions if r.arg < red.arg))


def _view(lay: Layout, step, shapes) -> Layout:
    kind = step[0]
    if kind == "index":
        return index_layout(lay, step[1])
    if kind == "permute":
        return lay.permute(step[1])
    if kind == "broadcast":
        target = tuple(step[1])
        if broadcast_shapes(lay.shape, target, func="broadcast_to") != target:
            raise broadcast_error("broadcast_to", (lay.shape, target), into="shape")
        return lay.broadcast_to(target)
    if kind == "reshape":
        got = reshape_layout(lay, step[1])
        if got is None:
            raise error(ValueError, "fuse", f"reshape of {lay.shape} (strides {lay.strides}) "
                                            f"into {tuple(step[1])} needs a copy")
        return got
    if kind == "expand":
        target = shapes[step[1]]
        return lay.broadcast_to(broadcast_shapes(lay.shape, target, func="fuse"))
    raise error(ValueError, "fuse", f"unknown view step {kind!r}")


def node_shapes(graph: Graph, arg_layouts, upto: int | None = None) -> tuple[list, dict]:
    """Per node its call-time shape, and per Load node its Layout (the nodes before
    ``upto``, else all).

    ``arg_layouts[i]`` is the Layout of argument ``i`` (None for a non-array). A
    Scalar's shape is ``()``; an Op's is the broadcast of its inputs'; a load of a
    reduction's result that this call does not compute (no Layout), and what is
    computed from it, have None.

    Raises
    ------
    ValueError
        Shapes that do not broadcast, a reshape that is no view; ``IndexError`` for an
        index out of range (as the unfused run raises them).
    """
    shapes: list = []
    lays: dict = {}
    for i, n in enumerate(graph.nodes[:upto]):
        if isinstance(n, Load):
            lay = arg_layouts[n.arg] if n.arg < len(arg_layouts) else None
            if lay is None:            # an unused reduction's result: no shape
                shapes.append(None)
                continue
            for step in n.views:
                lay = _view(lay, step, shapes)
            lays[i] = lay
            shapes.append(lay.shape)
        elif isinstance(n, Scalar):
            shapes.append(())
        else:
            ins = [shapes[k] for k in n.inputs]
            if None in ins:
                shapes.append(None)
                continue
            first = ins[0]
            if all(s == first for s in ins):
                shapes.append(first)
            else:
                shapes.append(broadcast_shapes(*ins, func=n.func))
    return shapes, lays


def call_layouts(graph: Graph, arg_layouts) -> tuple[tuple, list] | None:
    """The iteration shape and the Layout of each load (in :meth:`Graph.loads` order) of
    one call, or None when the outputs' shapes differ (then no single kernel fits).

    Raises
    ------
    ValueError, IndexError
        As :func:`node_shapes`.
    """
    shapes, lays = node_shapes(graph, arg_layouts, max(graph.outputs) + 1)
    outs = {shapes[k] for k in graph.outputs}
    if len(outs) != 1:
        return None
    (shape,) = outs
    return shape, [lays[i] for i in graph.loads]


def rows_apart(args, load_lays) -> bool:
    """Whether two loads of one argument (``args[i]`` is load ``i``'s argument index)
    start at least a row apart in its buffer: a stencil's rows above and below, which
    the engine's row tiles serve best a few rows a work item. A row: the last axis of
    the load (its extent times its stride's magnitude, at least one element)."""
    seen: dict = {}
    for arg, lay in zip(args, load_lays):
        row = max(1, lay.shape[-1] * abs(lay.strides[-1])) if lay.shape else 1
        for off, r in seen.get(arg, ()):
            if abs(off - lay.offset) >= max(row, r):
                return True
        seen.setdefault(arg, []).append((lay.offset, row))
    return False


# ----------------------------------------------------------------------------- reductions
def _c_order(shape) -> tuple:
    return tuple(range(len(shape)))


def virtual_layout(graph: Graph, node: int, shapes, lays, itemsize: int,
                   _memo: dict | None = None) -> Layout:
    """The Layout of the array the unfused run stores for ``node`` (an Op) before it
    reduces it: a new array (offset 0) in C order where CuPy's operator or method made
    it (``via="op"``: CuPy allocates ufunc results in C order), in the inputs' axis
    order where xstride's engine did (``via="xp"``) or for ``astype`` (CuPy's and the
    engine's keep the input's order): :func:`~xstride._plans.elementwise.result_axis_order`
    over the operands, each at its own layout (a load's, or the one this function
    gives an op below); ``clip`` (``via="clip"``, ``array_api_compat``'s) copies
    ``x`` in its order, then writes into the copy.

    ``shapes`` and ``lays`` are :func:`node_shapes` of the call. Each op's layout is
    found once per call (``_memo``): a shared subexpression is not walked again.
    """
    memo = {} if _memo is None else _memo
    got = memo.get(node)
    if got is not None:
        return got
    shape = tuple(shapes[node])
    order = _c_order(shape)
    n = graph.nodes[node]
    if n.via != "op" or n.func == "astype":
        strides = []
        # clip (array_api_compat's): a copy of x in its order ("K"), then written into
        ins = n.inputs[2:] if n.via == "clip" else n.inputs
        for k in ins:
            src = graph.nodes[k]
            if isinstance(src, Scalar):
                continue
            lay = lays[k] if isinstance(src, Load) else virtual_layout(
                graph, k, shapes, lays, itemsize, memo)
            strides.append(lay.broadcast_to(shape).strides)
        order = result_axis_order(shape, strides)
    ashape = [shape[a] for a in order]
    cstr = [0] * len(shape)
    step = 1
    for pos in range(len(order) - 1, -1, -1):
        cstr[order[pos]] = step
        step *= ashape[pos]
    memo[node] = lay = Layout(shape, tuple(cstr), 0, itemsize)
    return lay


def stored_layout_known(nodes, node: int) -> bool:
    """Whether :func:`virtual_layout` gives the layout the unfused run stores for
    ``node`` (a Load: its own): not where it depends on a pushed view (:class:`Op`
    ``pushed``) — the node itself, or an input of a node whose layout follows its
    inputs'. Each node is visited once (a shared subexpression is not walked again)."""
    def follow(n):
        if not isinstance(n, Op) or (n.via == "op" and n.func != "astype"):
            return ()
        return n.inputs[2:] if n.via == "clip" else n.inputs

    return not any(isinstance(nodes[i], Op) and nodes[i].pushed
                   for i in _reach(nodes, (node,), follow))


def reduce_walk(vlay: Layout, load_lays) -> tuple[tuple, tuple]:
    """How a fused reduction's load finds its operands from an element offset ``o`` of
    the virtual array ``vlay`` (:func:`virtual_layout`, contiguous): ``(extents,
    strides)``, the extents of its axes in memory order (outermost first; axes of
    extent 1 dropped, neighbours that every load walks as one coalesced), and per load
    (``load_lays``, each broadcast to ``vlay``'s shape) its element strides over them.
    ``o`` splits into the axes' indices by division from the innermost axis."""
    shape = vlay.shape
    order = sorted(range(len(shape)), key=lambda a: -vlay.strides[a])
    bl = [lay.broadcast_to(shape).strides for lay in load_lays]
    ext, strs = [], [[] for _ in bl]
    for a in order:
        if shape[a] == 1:
            continue
        if ext and all(s[-1] == b[a] * shape[a] for s, b in zip(strs, bl)):
            ext[-1] *= shape[a]
            for s, b in zip(strs, bl):
                s[-1] = b[a]
            continue
        ext.append(shape[a])
        for s, b in zip(strs, bl):
            s.append(b[a])
    return tuple(ext), tuple(tuple(s) for s in strs)


def magic(d: int) -> int:
    """The 32-bit division constants of divisor ``d`` (1 <= d < 2**32), packed as
    ``m | s1 << 32 | s2 << 40``: for every 32-bit ``n``, ``n // d`` is
    ``(t + ((n - t) >> s1)) >> s2`` with ``t = (m * n) >> 32`` (Granlund and
    Montgomery, "Division by Invariant Integers using Multiplication", PLDI 1994,
    figure 4.1)."""
    ell = (d - 1).bit_length()
    m = ((1 << 32) * ((1 << ell) - d)) // d + 1
    return (m & 0xFFFFFFFF) | (min(ell, 1) << 32) | (max(ell - 1, 0) << 40)
