"""The CUDA executor of the reductions: sum, prod, min, max, all, any, mean (var and
std: :mod:`.variance`, on this module's launches).

:mod:`xstride.reductions` checks the arguments and applies the dtype rules; this module
runs the call on the kernels of ``reductions.cu`` for any layout and any axis set,
through the plan of :mod:`xstride._plans.reduction`: :func:`reduce`, :func:`mean`,
and :func:`repeat`, the prepared-call fast path (:mod:`._prepared`).
Results are deterministic run to run: the order in which values are combined is fixed
by the plan and the device's SM count, never by timing. See ``docs/reductions.md``.
"""

from __future__ import annotations

import builtins
import warnings
from dataclasses import replace

import numpy as np

from .._core.errors import type_error
from .._plans.reduction import empty_axis_error as _empty_axis_error, normalize_axis, plan_array
from .._plans.reduction_split import split_axes
from . import _reduce_common as rc
from . import complex_parts as _cx
from . import elementwise as _ew
from . import reduce_rows as _rr
from ._geometry import reduction_geometry
from ._cupy import cupy as _cupy
from ._devices import check as check_devices
from ._launch import Launch, i64, slot64, struct
from ._lru import Bounded
from ._prepared import GATE, Store, args_ok, axis_ok
from ._reduce_common import TUNING

__all__ = ["takes", "repeat", "reduce", "mean"]

_OPS = {"sum": 0, "prod": 1, "min": 2, "max": 3, "sumsq": 4, "all": 5, "any": 6, "mean": 7,
        "moments": 8, "moments0": 9}
#: all/any: each element becomes 0 or 1 (``x != 0``) in this accumulator (a 32-bit
#: type for the shuffles), combined by AND / OR; the result is bool.
_BOOL_ACC = np.dtype(np.int32)
_SRC = "reductions.cu"
#: The ops whose kernels read a center per output (``xs_centered`` in reduce_ops.cuh;
#: "moments0": the interleave kernel reads each output's first element from the input).
_CENTERED = frozenset({"sumsq", "moments", "moments0"})
#: Kernels with no split (one pass, no workspace): parameters x, out, center, then the
#: descriptor, nrows, rowlen (``rowregs``: nrows only); the others add partials and
#: counters after the center, chunk and nchunks at the end.
_ONE_PASS = frozenset({"rows_warp", "rows_group", "short", "tile", "lanes", "rowregs"})
#: Loads each thread batches for 1-byte elements in the kernels that walk elements one by
#: one (``TUNING``'s B keeps only B bytes a thread in flight there); the bits of any B.
BYTE_BATCH = 32
_BYTE_BATCHED = frozenset({"interleave", "rows_warp", "rows_group", "rows_block"})
#: Loads in flight a thread for 16-byte vectors of 1-byte elements into 8-byte
#: accumulators (the row kernels): ptxas 13 for sm_90 spills B = 8 of them (each a
#: vector of 16 unpacked bytes) at MINB 3, and none at 4 (uint8 sum: 68 registers).
WIDE_ACC_BYTE_VECTORS = 4
#: Bytes of complex elements a thread of the "interleave" kernel's element walk keeps in
#: flight (B = 16 for complex64, 8 for complex128): ptxas 13 for sm_90 spilled at
#: ``TUNING["interleave"]``'s B = 32 (complex128 sum and mean 712 bytes, prod 368, all
#: 232, any 184; complex64 into complex128 sum 100, prod 72, mean 36), and at these B
#: none (106-124 registers; the same blocks per SM, so the same grid and bits). On the
#: H100 (2026-12-06, (2**24, 3) over axis 0) complex128 sum/prod/mean read 0.88-0.93 of
#: copy at 32 and 0.94-0.97 here; complex64 the same within 0.03.
COMPLEX_BATCH_BYTES = 128
#: 16-byte chunks of complex64 elements a thread of the "lanes" kernel keeps in flight
#: (``TUNING["lanes"]``'s B = 2 elsewhere; complex128 never takes it): at MINB 8 (32
#: registers) ptxas 13 for sm_90 spilled 148 bytes for the mean at 2 and 24 at 1 (8
#: blocks an SM at both; a one-pass grid). On the H100 (2026-12-06) the mean of a
#: complex64 (n, 2) over axis 1 read 0.46-0.47 of copy at 2 and 0.60-0.62 at 1; sum and
#: prod the same within 0.02.
COMPLEX_LANES_BATCH = 1
#: MINB of the "short" kernel when a thread takes W rows that lie side by side (W
#: accumulators): ptxas 13 for sm_90 spills float32 sums (W = 4) and bool all/any
#: (W = 16) at the default 8 (32 registers), and none at 4 (48-64 registers).
SIDE_BY_SIDE_MINB = 4


# ----------------------------------------------------------------------------- helpers
def _finish(buf, plan, ndim: int, keepdims: bool):
    """Turn the K-ordered flat result buffer into the logical (keepdims) view."""
    mem_shape = tuple(plan.out_shape[j] for j in plan.out_order)
    inv = [0] * len(plan.out_order)
    for pos, j in enumerate(plan.out_order):
        inv[j] = pos
    res = buf.reshape(mem_shape).transpose(inv) if inv else buf.reshape(())
    if keepdims:
        res = res[tuple(None if i in plan.axes else slice(None) for i in range(ndim))]
    return res


class _Recipe:
    """Everything a reduction of one (layout, axes, op, dtypes, alignment, tuning)
    needs at launch time, computed once: the plan, the kernel, the geometry and the
    argument tail of the launch (Python planning costs tens of microseconds; the GPU
    sits idle while the host plans, so it is done once per kind of call)."""

    __slots__ = ("plan", "kind", "fn", "grid", "block", "desc", "nchunks", "chunk",
                 "ncounters", "npartials", "mem_shape", "inv", "xoff", "launch")


_MAX_RECIPES = 1024
_RECIPES: dict = Bounded(_MAX_RECIPES)


def _build_recipe(plan, x, op: str, out_dtype: np.dtype, acc: np.dtype) -> _Recipe:
    rec = _Recipe()
    rec.plan = plan
    mem_shape = tuple(plan.out_shape[j] for j in plan.out_order)
    inv = [0] * len(plan.out_order)
    for pos, j in enumerate(plan.out_order):
        inv[j] = pos
    rec.mem_shape, rec.inv = mem_shape, tuple(inv)
    rec.kind = None
    if plan.strategy not in ("inner", "short", "tile", "outer", "interleave", "full", "lanes"):
        return rec
    base = x.data.ptr + plan.offset * x.itemsize
    # "tile": (MINB, B, bytes staged, most rows) -- the last two shape the launch
    tile = tuple(rc.TUNING["tile"][2:]) if plan.strategy == "tile" else (0, 0)
    # rows side by side (vec < 0) for every op but var's centered pass ("sumsq"): the
    # walk reads no center, and var/std run such rows (one reduced axis of at most 32
    # elements) in xs_var_rows, never in two passes (see var)
    nkc, nrc = rc.capacity(plan.nk), rc.reduced_capacity(plan.nr)
    # the descriptor (also read by var's one-kernel rows, xs_var_rows)
    rec.desc = rc.pack_struct(rc.pad(plan.kshape, nkc, 1), rc.pad(plan.kstride, nkc, 0),
                              rc.pad(plan.rshape, nrc, 1), rc.pad(plan.rstride, nrc, 0),
                              tail=(plan.nk, plan.nr))
    q = _rr.rows_q(plan, x, op, _CENTERED, base, out_dtype)
    if q:   # short dense rows folded in registers (reductions_rows.cu)
        return _rr.build(rec, plan, x, _OPS[op], q, out_dtype, acc)
    # the interleave kernel's run by 16-byte words (as the fused reductions ask)
    words = rc.takes_words(x.dtype, acc)
    geo = reduction_geometry(plan, x.itemsize, rc.sm_count(), base, tile=tile,
                             side_by_side=op not in _CENTERED, words=words, narrow=True,
                             acc_size=acc.itemsize)
    tin, tacc, tout = rc.CTYPE[np.dtype(x.dtype)], rc.CTYPE[acc], rc.CTYPE[out_dtype]
    if geo.kernel == "interleave" and geo.vec > 1:
        minb, batch = rc.words_tuning(geo.vec, acc)
    else:
        minb, batch = rc.row_tuning(geo.kernel, x.itemsize)
        if x.itemsize == 1 and geo.kernel in _BYTE_BATCHED and geo.vec == 1:
            batch = BYTE_BATCH
        elif geo.vec == 16 and acc.itemsize == 8:
            batch = builtins.min(batch, WIDE_ACC_BYTE_VECTORS)
        elif x.dtype.kind == "c" and geo.kernel == "interleave":
            batch = builtins.min(batch, COMPLEX_BATCH_BYTES // x.itemsize)
        if geo.vec == 16 and geo.kernel in rc.ROW_BYTE_WORDS:
            minb, batch = rc.ROW_BYTE_WORDS[geo.kernel]
        elif geo.kernel == "lanes" and x.dtype.kind == "c":
            batch = builtins.min(batch, COMPLEX_LANES_BATCH)
    if geo.vec < 0:   # rows side by side: W accumulators a thread
        minb = builtins.min(minb, SIDE_BY_SIDE_MINB)
    tail = (f", {tin}, {tacc}, {tout}, {nkc}, {nrc}, {geo.vec}, {minb}, {batch}"
            + (f", {tile[0]}>" if geo.kernel == "tile" else ">"))
    expr = f"xs_reduce_{geo.kernel}<{_OPS[op]}" + tail
    other = rc.PARTNER_OP.get(op)
    rec.fn = rc.kernel(_SRC, expr,
                       None if other is None else f"xs_reduce_{geo.kernel}<{_OPS[other]}" + tail)
    split_kernel = geo.kernel not in _ONE_PASS
    if split_kernel:
        threads = geo.block[0] * (geo.block[1] if len(geo.block) > 1 else 1)
        geo = reduction_geometry(plan, x.itemsize, rc.sm_count(), base,
                                 resident=rc.kernel_resident(_SRC, expr, threads),
                                 words=words, narrow=True)
    rec.kind, rec.grid, rec.block = geo.kernel, geo.grid, geo.block
    rec.nchunks, rec.chunk = geo.nchunks, geo.chunk
    rec.xoff = plan.offset * x.itemsize
    # the parameters packed once; a call sets the addresses: x, out, center[, partials,
    # counters], then the descriptor, nrows, rowlen[, chunk, nchunks]
    args = [slot64(), slot64(), slot64()] + ([slot64(), slot64()] if split_kernel else [])
    args += [struct(rec.desc.tobytes()), i64(plan.nrows), i64(plan.rowlen)]
    if geo.kernel == "tile":
        args += [i64(geo.chunk)]  # rows staged per block
    elif geo.kernel == "rows_group":
        args += [i64(geo.group)]  # lanes per row
    if split_kernel:
        args += [i64(geo.chunk), i64(geo.nchunks)]
    rec.launch = Launch(rec.fn, geo.grid, geo.block, args)
    if split_kernel and geo.nchunks > 1:
        rec.ncounters = {"rows_block": plan.nrows, "interleave": 1}.get(geo.kernel,
                                                                          geo.grid[0])
        rec.npartials = plan.nrows * geo.nchunks
    else:
        rec.ncounters = rec.npartials = 0
    return rec


def _recipe(func: str, x, axis, op: str, out_dtype: np.dtype, acc: np.dtype,
            axes=None) -> _Recipe:
    """The cached :class:`_Recipe` of this call; ``axes`` the normalized ``axis`` where
    the caller has it (else normalized here, with its argument errors)."""
    cp = _cupy()
    if not isinstance(x, cp.ndarray):
        raise type_error(func, "x", x, "a cupy.ndarray")
    check_devices(func, (("x", x),), cp)
    keyed = axis_ok(axis)
    mem = x.data
    # the current device too: the recipe's launch holds that device's function
    key = (x.shape, x.strides, x.dtype, axis, op, out_dtype, acc, mem.ptr & 15,
           mem.device_id, cp.cuda.runtime.getDevice(), rc.TUNING.version)
    rec = _RECIPES.get(key) if keyed else None
    if rec is not None:
        return rec
    if axes is None:
        axes = normalize_axis(func, axis, x.ndim)
    plan = plan_array(x, axes)
    if (plan.strategy == "copy" and op == "prod" and x.dtype.kind == out_dtype.kind == "c"
            and x.itemsize <= out_dtype.itemsize):   # (1 + 0j) * y, one pass (reductions.md)
        plan = replace(plan, strategy="short", rshape=(1,), rstride=(1,))
    rec = _build_recipe(plan, x, op, out_dtype, acc)
    if keyed:
        _RECIPES.put(key, rec)
    return rec


class _Workspace:
    """Per (device, stream) scratch of the split reductions: the row counters (zero
    between launches: every kernel resets the counters it used) and the partials.
    Reused from call to call on one stream, whose order serializes their users."""

    __slots__ = ("counters", "partials")

    def __init__(self):
        self.counters = None
        self.partials = None


#: (device, stream) -> _Workspace; a dropped one is rebuilt zeroed (stream order keeps
#: a replaced buffer's last users safe: CuPy's pool reuses it on that stream only)
_WORKSPACES: dict = Bounded(64)


def _workspace(cp, device_id: int, ncounters: int, npartials: int, acc: np.dtype,
               stream_ptr=None):
    if stream_ptr is None:
        stream_ptr = cp.cuda.get_current_stream().ptr
    key = (device_id, stream_ptr)
    ws = _WORKSPACES.get(key)
    if ws is None:
        ws = _WORKSPACES.put(key, _Workspace())
    if ws.counters is None or ws.counters.size < ncounters:
        ws.counters = cp.zeros(builtins.max(ncounters, 1024), dtype=np.uint32)
    nbytes = npartials * acc.itemsize
    if ws.partials is None or ws.partials.size < nbytes:
        ws.partials = cp.empty(builtins.max(nbytes, 1 << 16), dtype=np.uint8)
    return ws.counters, ws.partials


def _launch(x, rec: _Recipe, out_dtype: np.dtype, acc: np.dtype, center=None):
    """Run the kernel of ``rec`` on ``x``; the flat K-ordered result buffer.
    ``center`` (op ``"sumsq"``, ``"moments"``) is a flat buffer of ``acc`` in the same
    order, or (op ``"moments0"``) the address of ``x``'s row of logical index 0."""
    cp = _cupy()
    out = cp.empty(rec.plan.nrows, dtype=out_dtype)
    xa = x.data.ptr + rec.xoff
    cen = 0 if center is None else center if type(center) is int else center.data.ptr
    if rec.kind in _ONE_PASS:
        rec.launch(xa, out.data.ptr, cen)
    elif rec.npartials:
        stream = cp.cuda.get_current_stream().ptr
        counters, partials = _workspace(cp, x.data.device_id, rec.ncounters,
                                        rec.npartials, acc, stream)
        rec.launch(xa, out.data.ptr, cen, partials.data.ptr, counters.data.ptr,
                   stream_ptr=stream)
    else:
        rec.launch(xa, out.data.ptr, cen, 0, 0)
    return out


def _finish_rec(buf, rec: _Recipe, ndim: int, keepdims: bool):
    """:func:`_finish` with the recipe's precomputed memory shape and inverse order."""
    res = buf.reshape(rec.mem_shape).transpose(rec.inv) if rec.inv else buf.reshape(())
    if keepdims:
        axes = rec.plan.axes
        res = res[tuple(None if i in axes else slice(None) for i in range(ndim))]
    return res


# ----------------------------------------------------------------------------- prepared calls
class _Call:
    """A prepared call (:mod:`._prepared`) of sum/prod/min/max/mean/all/any that
    launches a kernel, for one key of :func:`repeat` (op, layout, dtype, axis, dtype=, keepdims,
    alignment, devices, tuning): the recipe (with its launch), the output's allocation
    and how it becomes the result, and the addresses after the two pointers (with the
    workspace of the last stream a split reduction ran on). :meth:`run` (stored in
    :data:`_CALLS`) repeats it."""

    __slots__ = ("rec", "go", "new", "alloc", "out_dtype", "acc", "direct", "index",
                 "bound", "current_stream", "device_id")

    def run(self, x):
        """Repeat the call on ``x`` (same key); the result."""
        mem = x.data
        out = self.new(self.alloc, self.out_dtype)
        rec = self.rec
        bound = self.bound  # read once: another thread may rebind it meanwhile
        if self.current_stream is not None:  # a split reduction: the stream's workspace
            stream = self.current_stream().ptr
            if stream != bound[0]:
                bound = _rebind(self, stream)
        # the launch bound to its facts (Launch.bind), on the current stream
        self.go(mem.ptr + rec.xoff, out.data.ptr, *bound[1])
        if self.direct:
            return out
        res = out.reshape(rec.mem_shape).transpose(rec.inv) if rec.inv else out.reshape(())
        return res[self.index] if self.index is not None else res


class _CopyCall:
    """A prepared call whose plan is "copy" (one element per output: no reduction
    kernel, :func:`_cast_copy`): what the checked path works out before the copy."""

    __slots__ = ("squeeze", "axes", "out_dtype", "op", "keepdims", "ndim")

    def run(self, x):
        y = self.squeeze(x, axis=self.axes) if self.axes else x
        return _keep(_cast_copy(y, self.out_dtype, self.op), self.axes, self.ndim,
                     self.keepdims)


class _SplitCall:
    """A prepared call of two passes (:func:`_split`): the first pass's prepared launch,
    then the second's on its result."""

    __slots__ = ("first", "second")

    def run(self, x):
        return self.second(self.first(x))


_MAX_CALLS = 1024
#: key -> the ``run`` of a :class:`_Call`, :class:`_CopyCall` or :class:`_SplitCall`
_CALLS = Store(_MAX_CALLS)


def _rebind(call: _Call, stream: int):
    """Point ``call``'s addresses at the workspace of ``stream``: ``(stream, (center,
    partials, counters), the workspace arrays kept alive)``, stored as one attribute so
    that a concurrent reader sees a matching set."""
    rec = call.rec
    counters, partials = _workspace(_cupy(), call.device_id, rec.ncounters,
                                    rec.npartials, call.acc, stream)
    bound = call.bound = (stream, (0, partials.data.ptr, counters.data.ptr),
                          (partials, counters))
    return bound


def _new_call(cp, x, keepdims, rec: _Recipe, out_dtype, acc) -> _Call:
    """The :class:`_Call` that repeats ``rec`` (just launched on ``x`` by a checked
    call) with ``keepdims``."""
    call = _Call()
    call.rec, call.out_dtype, call.acc = rec, out_dtype, acc
    call.go = rec.launch.bind()
    call.new = cp.ndarray
    identity = rec.inv == tuple(range(len(rec.inv)))
    call.direct = identity and not keepdims
    call.alloc = rec.mem_shape if call.direct else (rec.plan.nrows,)
    axes = rec.plan.axes
    call.index = tuple(None if i in axes else slice(None) for i in range(x.ndim)) \
        if keepdims else None
    # after the input and output addresses: the center (none)[, partials, counters]
    call.device_id = x.data.device_id
    if rec.npartials:
        call.current_stream = cp.cuda.get_current_stream
        call.bound = (None, (), ())
    else:
        call.current_stream = None
        call.bound = (None, (0,) if rec.kind in _ONE_PASS else (0, 0, 0), ())
    return call


def _prepare(op, x, axis, dtype, keepdims, rec: _Recipe, out_dtype, acc):
    """Prepare ``rec`` (just launched by a checked call) under the key of this call,
    so the next equal call goes through :func:`repeat`."""
    if rec.kind is None or not args_ok(axis, dtype, keepdims):
        return
    cp = _cupy()
    call = _new_call(cp, x, keepdims, rec, out_dtype, acc)
    _CALLS.prepare(_key(cp, op, x, axis, dtype, keepdims), call.run, cp)


def _split(func, op, x, axis, axes, outer, keepdims, out_dtype, mid, acc, dtype):
    """The two passes of a split call (:func:`~xstride._plans.reduction_split.split_axes`):
    the ``outer`` axes into an intermediate of ``mid`` kept as size-1 axes, then every
    reduced axis of it; prepared for :func:`repeat` as one call of the two passes'
    prepared launches where both run a kernel (no planning between them)."""
    rec1 = _recipe(func, x, outer, op, mid, acc, outer)
    y = _reduce(func, op, x, outer, outer, True, mid, acc, prepare=False)
    rec2 = _recipe(func, y, axes, op, out_dtype, acc, axes)
    res = _reduce(func, op, y, axes, axes, keepdims, out_dtype, acc, prepare=False)
    if rec1.kind is not None and rec2.kind is not None and args_ok(axis, dtype, keepdims):
        cp = _cupy()
        call = _SplitCall()
        call.first = _new_call(cp, x, True, rec1, mid, acc).run
        call.second = _new_call(cp, y, keepdims, rec2, out_dtype, acc).run
        _CALLS.prepare(_key(cp, op, x, axis, dtype, keepdims), call.run, cp)
    return res


def _key(cp, op, x, axis, dtype, keepdims) -> tuple:
    """The key :func:`repeat` looks a prepared call up by."""
    mem = x.data
    return (op, x.shape, x.strides, x.dtype, axis, dtype, keepdims, mem.ptr & 15,
            mem.device_id, cp.cuda.runtime.getDevice(), rc.TUNING.version)


def _copy(op, x, axis, axes, dtype, keepdims, out_dtype, prepare: bool):
    """The "copy" plan's result (:func:`_cast_copy` of ``x`` without ``axes``),
    prepared for :func:`repeat` where ``prepare`` and the arguments allow."""
    cp = _cupy()
    call = _CopyCall()
    call.squeeze, call.axes, call.out_dtype, call.op = cp.squeeze, axes, out_dtype, op
    call.keepdims, call.ndim = keepdims, x.ndim
    if prepare and args_ok(axis, dtype, keepdims):
        _CALLS.prepare(_key(cp, op, x, axis, dtype, keepdims), call.run, cp)
    return call.run(x)


def _reduce(func: str, op: str, x, axis, axes, keepdims: bool, out_dtype: np.dtype,
            acc: np.dtype, dtype=None, prepare: bool = True):
    """The call on the kernels; ``prepare``: keep it for :func:`repeat` (not for the
    passes of a split call, whose dtypes are not the call's rules')."""
    cp = _cupy()
    rec = _recipe(func, x, axis, op, out_dtype, acc, axes)
    plan = rec.plan
    if rec.kind is not None:
        res = _finish_rec(_launch(x, rec, out_dtype, acc), rec, x.ndim, keepdims)
        if prepare:
            _prepare(op, x, axis, dtype, keepdims, rec, out_dtype, acc)
        return res
    axes = plan.axes
    if plan.rowlen == 0 and op in ("min", "max"):
        raise _empty_axis_error(func, x.shape, axes)
    if plan.strategy == "empty":
        buf = cp.empty(0, dtype=out_dtype)
    elif plan.strategy == "identity":
        buf = cp.full(plan.nrows, 1 if op in ("prod", "all") else 0, dtype=out_dtype)
    else:  # copy (all/any: the cast to bool is x != 0, NaN true)
        return _copy(op, x, axis, axes, dtype, keepdims, out_dtype, prepare)
    return _finish_rec(buf, rec, x.ndim, keepdims)


def _add_zero(y, dt: np.dtype):
    """``y + 0.0`` (``y`` of the float dtype ``dt``) on the engine: its prepared call
    where an earlier one left it (no planning: the host time of a launch), else the
    checked call, which prepares it."""
    got = _ew.repeat2("add", y, 0.0)
    if got is not None:
        return got
    return _ew.ufunc("add", (dt, float), (dt,) * 3, (y, 0.0), None, y.shape)


def _cast_copy(y, out_dtype: np.dtype, op: str):
    """``y`` cast to ``out_dtype``, reduced over an axis of one element (the "copy"
    strategy: one element per output), on the elementwise engine where it takes both
    dtypes. NumPy reduces from the identity, so the result is not always the element:
    a float sum (and mean) is ``0 + y`` (``-0.0`` becomes ``+0.0``), a complex product
    is ``(1 + 0j) * y`` (a NaN or infinite part makes the other part NaN, and
    ``-0.0`` real parts become ``+0.0``), a complex mean ``(0 + y) / (1 + 0j)`` (as the
    kernels divide: a NaN or infinite part makes the other NaN); every other case is
    the element itself."""
    plain = y.dtype.kind not in "fc" or not (op in ("sum", "mean") and out_dtype.kind in "fc"
                                             or op == "prod" and out_dtype.kind == "c")
    if (not plain and y.dtype == out_dtype and out_dtype.kind == "f"
            and _ew.takes(out_dtype)):   # 0 + y in one pass on the engine
        return _add_zero(y, out_dtype)
    part = _cx.PART.get(out_dtype)
    if op == "sum" and y.dtype == out_dtype and part is not None and _ew.takes(part):
        # a complex sum adds 0 to each part: one pass of the engine over both parts
        return _cx.from_parts(_add_zero(_cx.parts(y), part), out_dtype)
    if not plain and y.dtype == out_dtype:
        res = y     # no cast: the identity's operation below is the one pass
    else:
        res = _ew.astype(y, out_dtype) if _ew.takes(y.dtype, out_dtype) else \
            y.astype(out_dtype, copy=plain)
    if plain:
        return res
    cp = _cupy()
    identity = out_dtype.type(1 if op == "prod" else 0)   # NumPy's first operand
    res = (cp.multiply if op == "prod" else cp.add)(identity, res,
                                                    out=None if res is y else res)
    if op == "mean" and out_dtype.kind == "c":
        # Smith's division by 1 + 0j (complex.cuh): re + im * 0 and im - re * 0
        re, im = res.real, res.imag
        zero = re.dtype.type(0)
        re_new = cp.add(re, cp.multiply(im, zero))
        im -= cp.multiply(re, zero)
        re[...] = re_new
    return res


def _keep(res, axes, ndim, keepdims):
    if keepdims:
        res = res[tuple(None if i in axes else slice(None) for i in range(ndim))]
    return res


#: The dtypes the kernels handle (anything else: the library).
DTYPES = rc.REDUCED


def takes(*dtypes) -> bool:
    """True when the kernels handle every one of ``dtypes`` (else the library runs)."""
    return all(np.dtype(d) in rc.REDUCED for d in dtypes)


def repeat(op: str, x, axis, dtype, keepdims):
    """The result of the call of ``op`` (sum, prod, min, max, mean, all, any) prepared before with the
    same key, else None (a miss: the checked path runs)."""
    if type(x) is not GATE.nd or not args_ok(axis, dtype, keepdims):
        return None
    mem = x.data
    run = _CALLS.get((op, x.shape, x.strides, x.dtype, axis, dtype, keepdims, mem.ptr & 15,
                      mem.device_id, GATE.getdev(), TUNING.version))
    if run is None:
        return None
    return run(x)


def reduce(func: str, op: str, x, axis, axes, keepdims: bool, out_dtype: np.dtype,
           dtype=None):
    """``op`` (sum, prod, min, max, all, any) of ``x`` over ``axis`` into ``out_dtype``,
    on the kernels, deterministically (in two passes where
    :func:`~xstride._plans.reduction.split_axes` says so). Sums and products accumulate in
    :func:`~._reduce_common.acc_dtype` (float64 for floating results, 64-bit integers
    otherwise); min/max in the input type widened to 32 bits; all/any (``out_dtype``
    bool) in an int32 0/1 (``x != 0``) combined by AND / OR. ``dtype`` is the
    caller's ``dtype=`` argument, part of the prepared call's key; ``axes`` the
    normalized ``axis``."""
    if op in ("min", "max"):
        acc = rc.minmax_acc_dtype(np.dtype(x.dtype))
    elif op in ("all", "any"):
        acc = _BOOL_ACC
    else:
        acc = rc.acc_dtype(out_dtype)
    split = split_axes(x.shape, tuple(s // x.itemsize for s in x.strides), axes)
    if split is not None:
        # two passes (see split_axes): the outer axes into an intermediate of the
        # accumulator type (min/max: the input's; all/any: bool), kept as size-1 axes,
        # then every reduced axis of it; no value is rounded in between
        mid = {"min": x.dtype, "max": x.dtype, "all": np.dtype(bool),
               "any": np.dtype(bool)}.get(op, acc)
        return _split(func, op, x, axis, axes, split[0], keepdims, out_dtype,
                      np.dtype(mid), acc, dtype)
    return _reduce(func, op, x, axis, axes, keepdims, out_dtype, acc, dtype)


def mean(func: str, x, axis, axes, keepdims: bool, out_dtype: np.dtype, dtype=None):
    """Mean of ``x``: one kernel that sums in float64 (complex128 for complex ``x``) and
    divides each sum once by the count as it stores it (two, each a mean, where :func:`reduce` runs two passes),
    cast to ``out_dtype`` (op ``"mean"``, prepared like the
    sums: ``dtype`` is the caller's ``dtype=``). An empty selection gives NaN with
    NumPy's ``RuntimeWarning``."""
    cp = _cupy()
    f8 = rc.acc_dtype(out_dtype)   # float64 (complex128 for a complex mean)
    split = split_axes(x.shape, tuple(s // x.itemsize for s in x.strides), axes)
    if split is not None:
        # two passes (see reduce): the mean of the outer axes in float64, then the mean
        # of its rows (every group holds the same count: the mean of the means)
        return _split(func, "mean", x, axis, axes, split[0], keepdims, out_dtype, f8, f8,
                      dtype)
    rec = _recipe(func, x, axis, "mean", out_dtype, f8, axes)
    if rec.kind is not None:
        res = _finish_rec(_launch(x, rec, out_dtype, f8), rec, x.ndim, keepdims)
        _prepare("mean", x, axis, dtype, keepdims, rec, out_dtype, f8)
        return res
    plan = rec.plan
    axes = plan.axes
    if plan.strategy == "copy":
        return _copy("mean", x, axis, axes, dtype, keepdims, out_dtype, True)
    if plan.strategy == "identity":
        warnings.warn("Mean of empty slice", RuntimeWarning, stacklevel=3)
        buf = cp.full(plan.nrows, complex(np.nan, np.nan) if out_dtype.kind == "c" else np.nan,
                      dtype=out_dtype)
    else:  # empty
        buf = cp.empty(0, dtype=out_dtype)
    return _finish(buf, plan, x.ndim, keepdims)
