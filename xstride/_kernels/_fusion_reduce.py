"""The reductions of ``xp.fuse``: a traced reduction run on the reduction kernels.

A fused function that reduces (``xp.sum(m[:, None] * v * v)``) is run, per
:class:`~xstride._plans.fusion.Reduce` of its graph, by :func:`reduce_one`:

- the reduced node is a view of an argument: the reduction of that view, as the
  unfused call runs it;
- else the array the unfused run would store and reduce is *virtual*: its layout is
  :func:`xstride._plans.fusion.virtual_layout` (a new contiguous array, C order or the
  inputs' order as the unfused run allocates it), the reduction is planned on that
  layout (:func:`xstride._plans.reduction.plan_reduction`) and launched with the
  geometry the unfused call computes for it (a 16-byte aligned address; for the split
  kernels, the resident blocks of the plain kernel) on the kernels of
  ``reductions.cu``, compiled with a generated input type
  (:func:`._fusion_source.reduce_source`) whose element ``o`` evaluates the fused
  expression at the operands' offsets of that element. Same plan, same walk, same
  accumulator, same order: the bits of the unfused reduction, without the stored
  intermediate;
- the strategies without a kernel (``"copy"``, ``"identity"``, ``"empty"``), and dtypes
  the kernels do not take, store the intermediate with the fused elementwise kernel
  and reduce it as the unfused call does.

Imports CuPy only when called.
"""

from __future__ import annotations

import sys
from struct import pack as struct_pack

import numpy as np

from .._plans import fusion as _fplan
from .._plans.reduction import plan_reduction
from ..layout import Layout
from . import _reduce_common as rc
from . import reductions as _kr
from ._compile import function
from ._fusion_source import reduce_source
from ._geometry import reduction_geometry
from ._launch import Launch, i64, slot64, struct
from ._lru import Bounded

__all__ = ["reduce_one", "unfused", "pack_input", "dense_loads", "row_broadcast_loads",
           "KERNEL_STRATEGIES", "W32_LIMIT", "clear"]

#: plan strategies that run a kernel (the others store the intermediate first)
KERNEL_STRATEGIES = frozenset({"inner", "short", "tile", "outer", "interleave", "full"})
#: the kernel of the last fused reduction (``"stored"``: the intermediate was stored
#: first; ``"view"``: the reduction of a view of an argument), for tests and benchmarks
last_kind = None
#: the virtual arrays below this many elements walk with 32-bit divisions
W32_LIMIT = 1 << 32
_SRC = "reductions.cu"
#: ``(MINB, B)`` of a fused reduction kernel where it differs from the plain kernel's
#: (``_reduce_common.TUNING``); the grid stays the plain kernel's, and so do the bits.
#: ``rows_block`` (a whole array's sum, as the kinetic energy ``0.5 * sum(m[:, None] *
#: v * v)``): at MINB 3 ptxas gives the fused kernel 80 registers and it ran at 0.84
#: of copy on the H200 (2026-12-02, v of (2**26, 3) float32, five rounds in one
#: process), at MINB 2 (112 registers, no spills) 0.96, at MINB 4 0.98 (62 registers;
#: but 16-44 bytes of spills with three loads or more).
FUSED_TUNING: dict = {"rows_block": (2, 8)}
_pre = Bounded(1024)


def clear() -> None:
    _pre.clear()
    _RECIPES.clear()


def _kind(kind):
    global last_kind
    last_kind = kind


def _pre_graph(graph, red):
    key = (id(graph), red.arg)
    got = _pre.get(key)
    if got is None or got[0] is not graph:
        got = _pre.put(key, (graph, _fplan.pre_graph(graph, red)))
    return got[1]


def unfused(red, x):
    """``xp.<red.func>`` of the CuPy array ``x`` as the namespace runs it on CuPy."""
    out = np.dtype(red.out)
    func = red.func
    if func == "mean":
        if _kr.takes(x.dtype, out):
            return _kr.mean(func, x, red.axis, red.axes, red.keepdims, out, red.dtype)
    elif _kr.takes(x.dtype, out):
        return _kr.reduce(func, func, x, red.axis, red.axes, red.keepdims, out, red.dtype)
    kw = {"dtype": red.dtype} if func in ("sum", "prod", "mean") else {}
    return getattr(sys.modules["cupy"], func)(x, axis=red.axes, keepdims=red.keepdims, **kw)


def reduce_one(graph, red, args, fx):
    """The result of reduction ``red`` of ``graph`` for the arguments ``args`` (the
    function's, then the results of the reductions before ``red``). ``fx`` is the
    executor of the elementwise graphs (``xstride/_kernels/fusion.py``): its
    ``elementwise(graph, args)`` stores the intermediate of the strategies without a
    kernel, ``view_of`` and ``scalar_values`` as there.

    The plan, kernel and launch of a call are kept (:class:`_Recipe`) under the
    arguments' shapes, strides and dtypes (and the scalars' types): a later call with
    the same ones packs the addresses and scalars and launches.

    Raises
    ------
    ValueError, IndexError
        As the unfused call (views that do not apply, ``min``/``max`` of an empty
        selection).
    """
    cupy = sys.modules["cupy"]
    nd = cupy.ndarray
    key = [id(graph), red.arg, cupy.cuda.runtime.getDevice(), W32_LIMIT,
           rc.TUNING.version]
    for a in args:
        key.append((a.shape, a.strides, a.dtype) if type(a) is nd else type(a))
    key = tuple(key)
    rec = _RECIPES.get(key)
    if rec is None or rec.graph is not graph:
        rec = _RECIPES.put(key, _recipe(graph, red, args, nd))
    return rec.run(args, fx, cupy)


class _Recipe:
    """What a fused reduction of one kind of call does (:func:`reduce_one`)."""

    __slots__ = ("graph", "red", "pre", "mode", "view", "launch", "plan", "geo", "out_dt",
                 "acc", "loads", "fixed", "split", "ndim")

    def run(self, args, fx, cupy):
        red = self.red
        if self.mode == "view":
            _kind("view")
            arg, lay = self.view
            return unfused(red, fx.view_of(args[arg], lay))
        if self.mode == "stored":
            _kind("stored")
            return unfused(red, fx.elementwise(self.pre, args))
        plan, geo = self.plan, self.geo
        addresses = [args[arg].data.ptr + off for arg, off in self.loads]
        data = struct_pack(f"<{len(addresses)}Q", *addresses) + self.fixed + b"".join(
            v.tobytes().ljust(8, b"\0") for v in fx.scalar_values(self.pre, args)) + _ZERO
        out = cupy.empty(plan.nrows, dtype=self.out_dt)
        _kind(geo.kernel)
        launch = self.launch
        if not self.split:
            launch(out.data.ptr, 0, structs=((0, data),))
        elif geo.nchunks > 1:
            ncounters = {"rows_block": plan.nrows, "interleave": 1}.get(geo.kernel, geo.grid[0])
            stream = cupy.cuda.get_current_stream().ptr
            counters, partials = _kr._workspace(cupy, out.data.device_id, ncounters,
                                                plan.nrows * geo.nchunks, self.acc, stream)
            launch(out.data.ptr, 0, partials.data.ptr, counters.data.ptr, stream_ptr=stream,
                   structs=((0, data),))
        else:
            launch(out.data.ptr, 0, 0, 0, structs=((0, data),))
        return _kr._finish(out, plan, self.ndim, red.keepdims)


_RECIPES = Bounded(1024)
_ZERO = bytes(8)


def _recipe(graph, red, args, nd) -> _Recipe:
    rec = _Recipe()
    rec.graph, rec.red = graph, red
    pre = rec.pre = _pre_graph(graph, red)
    lays = [Layout.from_array(a) if type(a) is nd else None for a in args]
    shapes, nlays = _fplan.node_shapes(pre, lays, red.input + 1)
    node = graph.nodes[red.input]
    if isinstance(node, _fplan.Load):
        rec.mode, rec.view = "view", (node.arg, nlays[red.input])
        return rec
    in_dt, out_dt = np.dtype(node.dtype), np.dtype(red.out)
    vlay = _fplan.virtual_layout(pre, red.input, shapes, nlays, in_dt.itemsize)
    plan = plan_reduction(vlay, red.axes)
    if (plan.strategy not in KERNEL_STRATEGIES or not _kr.takes(in_dt, out_dt)
            or (red.func in ("min", "max") and in_dt.kind in "iu" and in_dt.itemsize == 4)):
        # min/max of 32-bit integers: the fused walk missed an element of a row on the
        # H200 (2026-12-01, min(-x, axis=1) of an int32 (5, 7) array; not found yet):
        # the intermediate is stored and reduced as the unfused call does
        rec.mode = "stored"
        return rec
    if red.func in ("min", "max"):
        acc = rc.minmax_acc_dtype(in_dt)
    elif red.func == "mean":
        acc = np.dtype(np.float64)
    else:
        acc = rc.acc_dtype(out_dt)
    load_lays = [nlays[i] for i in pre.loads]
    ext, strs = _fplan.reduce_walk(vlay, load_lays)
    w32 = vlay.size < W32_LIMIT
    dense = dense_loads(pre, ext, strs)
    fn, geo, desc = _kernel(pre, plan, red.func, in_dt, out_dt, acc, len(ext), w32, dense,
                            row_broadcast_loads(pre, ext, strs, in_dt.itemsize, dense))
    rec.mode, rec.plan, rec.geo, rec.out_dt, rec.acc, rec.ndim = \
        "kernel", plan, geo, out_dt, acc, vlay.ndim
    rec.loads = tuple((pre.nodes[i].arg, lay.offset * np.dtype(pre.nodes[i].dtype).itemsize)
                      for i, lay in zip(pre.loads, load_lays))
    nl = len(pre.loads)
    whole = pack_input([0] * nl, ext, strs, fx_scalars_zero(pre), w32)
    rec.fixed = whole[8 * nl:8 * nl + 8 * (2 * len(ext) + max(nl, 1) * len(ext))]
    rec.split = split = geo.kernel not in _kr._ONE_PASS
    params = [struct(whole), slot64(), slot64()] + ([slot64(), slot64()] if split else [])
    params += [struct(desc.tobytes()), i64(plan.nrows), i64(plan.rowlen)]
    if geo.kernel == "tile":
        params += [i64(geo.chunk)]
    elif geo.kernel == "rows_group":
        params += [i64(geo.group)]
    if split:
        params += [i64(geo.chunk), i64(geo.nchunks)]
    rec.launch = Launch(fn, geo.grid, geo.block, params)
    return rec


def fx_scalars_zero(pre) -> list:
    """Zeros in place of the scalars (the launch's first bytes; each call packs its own)."""
    return [np.zeros((), pre.nodes[i].dtype)[()] for i in pre.scalars]


_kernels = Bounded(1024)


def pack_input(addresses, ext, strs, svals, w32: bool) -> bytes:
    """The bytes of the kernel's input (``xs_fz_ptr`` of
    :func:`._fusion_source.reduce_source`): the loads' addresses, the walk's extents,
    their division constants (0 unless ``w32``), the loads' strides, the scalars (NumPy
    scalars, each in an 8-byte slot), the offset 0."""
    slots = [np.uint64(a).tobytes() for a in addresses]
    slots += [np.int64(e).tobytes() for e in ext]
    slots += [np.uint64(_fplan.magic(e) if w32 else 0).tobytes() for e in ext]
    for s in strs or ((0,) * len(ext),):
        slots += [np.int64(v).tobytes() for v in s]
    slots += [v.tobytes().ljust(8, b"\0") for v in svals]
    slots.append(np.int64(0).tobytes())
    return b"".join(slots)


def dense_loads(pre, ext, strs) -> tuple:
    """The loads (numbers ``k``) whose element strides over the walk ``ext`` are its
    C-order strides: element ``o`` of the virtual array is their element ``o``
    (:func:`._fusion_source.reduce_source` reads them by vector loads). Not bool
    loads."""
    c, cstr = 1, []
    for e in reversed(ext):
        cstr.append(c)
        c *= int(e)
    cstr = tuple(reversed(cstr))
    return tuple(k for k, (i, st) in enumerate(zip(pre.loads, strs))
                 if pre.nodes[i].dtype != "bool"
                 and all(int(a) == b or int(e) == 1 for a, b, e in zip(st, cstr, ext)))


def row_broadcast_loads(pre, ext, strs, itemsize: int, dense=()) -> tuple:
    """The loads (numbers ``k``) that a vector load of the 2-axis walk ``ext`` reads as
    two values, its first row's and its last's (:func:`._fusion_source.reduce_source`,
    ``rowb``): not bool, not ``dense``, inner stride 0, on a walk whose inner extent
    is at least ``16 // itemsize - 1`` (so that a vector load of at most 16 bytes of the
    virtual array's ``itemsize``-byte elements spans at most two rows)."""
    if len(ext) != 2 or int(ext[1]) < 16 // itemsize - 1:
        return ()
    return tuple(k for k, (i, st) in enumerate(zip(pre.loads, strs))
                 if k not in dense and pre.nodes[i].dtype != "bool" and int(st[1]) == 0)


def _kernel(pre, plan, func, in_dt, out_dt, acc, nd, w32, dense=(), rowb=()):
    """``(compiled kernel, geometry, descriptor)`` of a fused reduction: the plain
    call's kernel choice and geometry (a 16-byte aligned input; the split kernels sized
    by the plain kernel's resident blocks), the kernel compiled with the fused input."""
    isz = in_dt.itemsize
    tile = tuple(rc.TUNING["tile"][2:]) if plan.strategy == "tile" else (0, 0)
    # the interleave kernel's word walk where the plain call on the stored array takes
    # it (its elements computed V at a time, xs_load_vec of the fused input)
    words = rc.takes_words(in_dt, acc)
    geo = reduction_geometry(plan, isz, rc.sm_count(), 0, tile=tile, words=words)
    nkc, nrc = rc.capacity(plan.nk), rc.reduced_capacity(plan.nr)
    desc = rc.pack_struct(rc.pad(plan.kshape, nkc, 1), rc.pad(plan.kstride, nkc, 0),
                          rc.pad(plan.rshape, nrc, 1), rc.pad(plan.rstride, nrc, 0),
                          tail=(plan.nk, plan.nr))
    tin, tacc, tout = rc.CTYPE[in_dt], rc.CTYPE[acc], rc.CTYPE[out_dt]

    def expression(minb, batch):
        return (f"xs_reduce_{geo.kernel}<{_kr._OPS[func]}, {tin}, {tacc}, {tout}, {nkc}, "
                f"{nrc}, {geo.vec}, {minb}, {batch}"
                + (f", {tile[0]}>" if geo.kernel == "tile" else ">"))

    if geo.kernel == "interleave" and geo.vec > 1:
        plain = rc.words_tuning(geo.vec, acc)
    else:
        plain = rc.TUNING[geo.kernel][:2]
    expr = expression(*FUSED_TUNING.get(geo.kernel, plain))
    if geo.kernel not in _kr._ONE_PASS:
        threads = geo.block[0] * (geo.block[1] if len(geo.block) > 1 else 1)
        geo = reduction_geometry(plan, isz, rc.sm_count(), 0,
                                 resident=rc.kernel_resident(_SRC, expression(*plain), threads),
                                 words=words)
    key = (id(pre), expr, nd, w32, dense, rowb)
    got = _kernels.get(key)
    if got is None or got[0] is not pre:
        code = reduce_source(pre, nd, w32, dense, rowb) + rc.source(_SRC)
        got = _kernels.put(key, (pre, function(expr, code=code, name_expressions=(expr,))))
    return got[1], geo, desc
