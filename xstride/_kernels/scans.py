"""The CUDA executor of the scans: cumulative_sum and cumulative_prod.

:mod:`xstride.reductions` checks the arguments and applies the dtype rules; :func:`scan`
runs the kernels of ``scans.cu`` for any layout, through :func:`plan_scan`; the output is
allocated in the input's memory order (as NumPy does); the few long contiguous
columns of ``"columns_split"`` run the two launches of ``scans_columns.cu`` over a
per-stream scratch, and so do the chunks of many series of ``"columns_chunks"``
(``scans_chunks.cu``). Rows along the innermost axis run ``scans_rows.cu``: a warp a
row, or a group of lanes a row for rows of up to 128 elements at the default tuning
(:func:`~._scan_geometry.scan_row_group`). Short dense rows (``"tile"``) run ``scans_short.cu``: staged
through shared memory, or for 4-byte elements in registers (a few whole rows a thread)
or by warps over 16-byte words (:func:`_warp_rows`; also dense rows of 33 to 63
4-byte elements), each with the staged tile's bits. Float32 row, column and ``"columns_split"`` scans carry float64
values and round each output once; the look-back scan runs
each thread's elements in float32 from float64 prefixes, within the bound stated in
``docs/reductions.md``. Launches go through :mod:`._launch`. Results are deterministic
run to run, including the single-pass look-back scan (see ``scans.cu``). :func:`repeat`
is the fast path of a call prepared before. See ``docs/reductions.md``.
"""

from __future__ import annotations

import math
import threading
from functools import partial

import numpy as np

from .._plans.scan import plan_scan
from ..layout import Layout
from . import _reduce_common as rc
from ._reduce_common import TUNING
from . import complex_parts as _cx
from ._cupy import cupy as _cupy
from ._devices import check as check_devices
from ._colsplit_geometry import colsplit_geometry
from ._geometry import SHORT_MAX_BLOCKS
from ._scan_geometry import (columns_vector, scan_regs_rows, scan_row_group, scan_tile_bytes,
                             scan_tile_loads, scan_tile_rows)
from ._lru import Bounded
from ._prepared import GATE, Store, args_ok
from ._launch import Launch, i64, slot32, slot64, struct

__all__ = ["takes", "takes_complex_sum", "scan", "complex_sum", "repeat"]

_SRC = "scans.cu"
_SHORT_SRC = "scans_short.cu"
_ROWS_SRC = "scans_rows.cu"
_COLUMNS_SRC = "scans_columns.cu"
_CHUNKS_SRC = "scans_chunks.cu"
_OPS = {"sum": 0, "prod": 1}
#: The public function of each op (the device check's messages name it).
_PUBLIC = {"sum": "cumulative_sum", "prod": "cumulative_prod"}


class _Recipe:
    """Launch data of one kind of scan call, computed once (see reductions._Recipe)."""

    __slots__ = ("plan", "fn", "desc", "grid", "ntiles", "tiles_per_row", "nelems",
                 "out_strides_bytes", "acc", "ngroups", "groups_per_row",
                 "c_order", "tail", "smem", "launch", "threads", "fill", "launch2",
                 "partial_bytes", "xoff")


_MAX_RECIPES = 512
_RECIPES: dict = Bounded(_MAX_RECIPES)


class _Descs:
    """Per (device, stream) look-back state of the look-back kernel: 16-byte descriptors
    (tag and value together) of the tiles and of the tile groups, in one zeroed buffer
    reused from launch to launch through the epoch in each tag."""

    __slots__ = ("buf", "epoch", "views")

    def __init__(self):
        self.buf = None
        self.epoch = 0
        self.views = {}


_DESCS: dict = Bounded(64)   # (device, stream) -> _Descs
_EPOCH_LIMIT = (1 << 30) - 1
# Threads that share a stream (CuPy's null stream) must not get the same epoch, nor
# launch with a buffer another thread has just replaced (and freed): the state and the
# launch are taken under one re-entrant lock.
_DESCS_LOCK = threading.RLock()


def _lookback_state(cp, device_id: int, ntiles: int, ngroups: int, stream_ptr=None):
    """(tile descriptors, group descriptors, epoch) for one look-back launch on the
    current device ``device_id`` and stream (``stream_ptr``, by default the current
    stream's); the two descriptor arrays as device addresses (int)."""
    if stream_ptr is None:
        stream_ptr = cp.cuda.get_current_stream().ptr
    key = (device_id, stream_ptr)
    with _DESCS_LOCK:
        st = _DESCS.get(key)
        if st is None:
            st = _DESCS.put(key, _Descs())
        words = 2 * (ntiles + ngroups)
        if st.buf is None or st.buf.size < words or st.epoch >= _EPOCH_LIMIT:
            st.buf = cp.zeros(max(words, 8192), dtype=np.uint64)
            st.epoch = 0
            st.views = {}
        st.epoch += 1
        epoch = st.epoch
        views = st.views.get(ntiles)
        if views is None:   # device addresses, passed as 64-bit values (cheaper than arrays)
            base = st.buf.data.ptr
            views = st.views[ntiles] = (base, base + 16 * ntiles)
    return views[0], views[1], epoch


class _Partials:
    """Per (device, stream) scratch of the ``"columns_split"`` and ``"columns_chunks"``
    scans: the chunks' folds, written by the first launch and read by the second. Reused from call to call
    on one stream, whose order serializes its users."""

    __slots__ = ("buf",)

    def __init__(self):
        self.buf = None


_PARTIALS: dict = Bounded(64)   # (device, stream) -> _Partials


def _partials(cp, device_id: int, nbytes: int, stream_ptr: int):
    """At least ``nbytes`` of scratch (a CuPy array) for the current stream. Callers
    hold ``_DESCS_LOCK`` from here until both launches are queued: threads sharing a
    stream must not interleave their folds and scans over one buffer."""
    key = (device_id, stream_ptr)
    ws = _PARTIALS.get(key)
    if ws is None:
        ws = _PARTIALS.put(key, _Partials())
    if ws.buf is None or ws.buf.size < nbytes:
        ws.buf = cp.empty(max(nbytes, 1 << 16), dtype=np.uint8)
    return ws.buf


def _build_colsplit(rec: _Recipe, op: str, tin: np.dtype, tout: np.dtype) -> _Recipe:
    """The two launches of the ``"columns_split"`` scan (``scans_columns.cu``): the
    chunks' column folds into the per-stream partials, then the scan of each chunk."""
    plan = rec.plan
    k = plan.kshape[0]
    minb = rc.TUNING["colsplit"]
    g = colsplit_geometry(plan.length, k, tin.itemsize, tout.itemsize, rc.sm_count(), minb)
    ci, ca, co = rc.CTYPE[tin], rc.CTYPE[rec.acc], rc.CTYPE[tout]
    fold = rc.kernel(_COLUMNS_SRC, f"xs_colsplit_fold<{_OPS[op]}, {ci}, {ca}>")
    rec.fn = rc.kernel(_COLUMNS_SRC,
                       f"xs_colsplit_scan<{_OPS[op]}, {ci}, {ca}, {co}, {g.run}, {minb}>")
    rec.grid, rec.threads, rec.smem = (g.chunks,), g.threads, g.smem
    rec.partial_bytes = g.chunks * k * rec.acc.itemsize
    n, kk, ch, rs = i64(plan.length), i64(k), i64(g.chunk_rows), i64(plan.s_in)
    # x, partials, n, k, chunk rows, row stride / x, out, partials, n, k, chunk rows,
    # pad, out_offset, init, row stride (k, or -k for reversed rows)
    rec.launch = Launch(fold, rec.grid, (g.threads,), [slot64(), slot64(), n, kk, ch, rs], 0)
    rec.launch2 = Launch(rec.fn, rec.grid, (g.threads,),
                         [slot64(), slot64(), slot64(), n, kk, ch, i64(g.pad),
                          i64(g.out_offset), i64(int(plan.include_initial)), rs], g.smem)
    return rec


def _build_chunks(rec: _Recipe, op: str, tin: np.dtype, tout: np.dtype) -> _Recipe:
    """The two launches of the ``"columns_chunks"`` scan (``scans_chunks.cu``): the
    folds of every chunk of every series into the per-stream partials, then the scan
    of each chunk from the fold of the chunks before it."""
    plan = rec.plan
    cap = rc.capacity(plan.nk)
    ci, ca, co = rc.CTYPE[tin], rc.CTYPE[rec.acc], rc.CTYPE[tout]
    fold = rc.kernel(_CHUNKS_SRC, f"xs_chunks_fold<{_OPS[op]}, {ci}, {ca}, {cap}>")
    rec.fn = rc.kernel(_CHUNKS_SRC, f"xs_chunks_scan<{_OPS[op]}, {ci}, {ca}, {co}, {cap}>")
    rec.grid, rec.threads, rec.smem = (-(-plan.nrows // 256), plan.chunks), 256, 0
    rec.partial_bytes = plan.chunks * plan.nrows * rec.acc.itemsize
    desc = struct(rec.desc.tobytes())
    tail = [i64(plan.nrows), i64(plan.length), i64(plan.chunk_rows)]
    # x, partials, descriptor, nrows, length, chunk / x, out, partials, the same
    rec.launch = Launch(fold, rec.grid, (256,), [slot64(), slot64(), desc, *tail])
    rec.launch2 = Launch(rec.fn, rec.grid, (256,), [slot64(), slot64(), slot64(), desc, *tail])
    return rec


def _rowregs(plan, tin: np.dtype, tout: np.dtype, aligned: bool):
    """``(Q, MINB)`` of the register scan of short dense rows (``xs_scan_rowregs``) for
    a ``"tile"`` plan it takes: rows of one axis, forward or reversed, no initial
    element, 2- or 4-byte inputs and outputs of one size, few bytes a thread
    (:func:`scan_regs_rows`), the kernel's
    ``x`` on a 16-byte boundary (``aligned``; else its element loads read a quarter of
    the staged kernel's speed), ``TUNING["scan_regs"]`` (MINB) not 0; else None (the
    staged tile kernel runs)."""
    minb = int(rc.TUNING["scan_regs"])
    if not minb or not aligned or plan.nk != 1 or plan.include_initial:
        return None
    q = scan_regs_rows(plan.length, tin.itemsize, tout.itemsize)
    return (q, minb) if q else None


#: Fewest words of a chunk of ``xs_scan_warprows`` (a warp's chunk is at least this
#: many 16-byte words, a whole number of rows and of U steps of 32 words).
WARP_ROWS_MIN_WORDS = 2048


#: Longest dense rows a ``"rows"`` plan hands to ``xs_scan_warprows`` (rows of more
#: than 32 elements, which the ``"tile"`` plans do not take). float32 ``(n, L)``
#: ``cumulative_sum(x, axis=1)`` of 2**27 elements, fraction of a copy, H200
#: (2026-12-05): L = 33, 36, 40, 44, 48, 52, 56, 63: 0.35, 0.52, 0.55, 0.59, 0.57, 0.59,
#: 0.62, 0.37 by a group of lanes a row, 0.78, 0.81, 0.74, 0.71, 0.71, 0.65, 0.65, 0.58
#: by the warp scan (L = 60 the one loss: 0.64 against 0.56); L = 64: 0.71 either way,
#: L = 100: 0.57 against 0.45 (the warp scan's rounds, a shuffle each, grow with L).
WARP_ROWS_LONGEST = 63


def _warp_rows(plan, tin: np.dtype, tout: np.dtype, aligned: bool):
    """``(U, MINB, rounds, chunk_words)`` of the warp scan of short dense rows over
    16-byte words (``xs_scan_warprows`` in scans_short.cu) for a ``"tile"`` plan it
    takes, or a ``"rows"`` plan of dense rows of 33 to :data:`WARP_ROWS_LONGEST`
    elements (one after another in the input and the output):
    rows of one axis, forward, no initial element, 4-byte inputs and outputs
    (the staged tile reads 8-byte rows, or 4-byte ones into 8-byte outputs, at 0.90-0.97
    of a copy, the warp scan at 0.75-0.89 on the H200), at least the P = 4 elements of a
    word a row,
    ``x`` on a 16-byte boundary (``aligned``; the output buffer is a new allocation),
    ``TUNING["scan_warp"]`` (U steps of loads in flight, MINB) not ``(0, 0)``; else
    None. ``rounds`` is the most lanes without a row head in a row, ``(L - 1) // P``;
    a chunk starts on a row head, so its words are a multiple of ``L / gcd(L, P)``
    (and of the ``32 * U`` words of one pass of the warp's loop).

    The rows :func:`_rowregs` takes never reach it (the caller asks that first)."""
    u, minb = (int(v) for v in rc.TUNING["scan_warp"])
    p = 4   # elements of a 16-byte word
    length = plan.length
    if (not minb or not aligned or plan.nk != 1 or plan.include_initial or plan.s_in != 1
            or tin.itemsize != 4 or tout.itemsize != 4 or length < p):
        return None
    if plan.strategy == "rows" and not (
            32 < length <= WARP_ROWS_LONGEST and plan.s_out == 1
            and plan.kstride[0] == length and plan.kout[0] == length):
        return None
    unit = math.lcm(32 * u, length // math.gcd(length, p))
    chunk_words = unit * -(-WARP_ROWS_MIN_WORDS // unit)
    return u, minb, (length - 1) // p, chunk_words


def _lookback_items(tin: np.dtype, tout: np.dtype) -> int:
    """Elements per thread of the look-back tile: the tuned count for 4-byte types
    (halved for 8-byte ones). A lane holds at most 128 bytes of input in registers at
    once; tiles larger than that (parts) need equal input and output sizes."""
    items = int(rc.TUNING["lookback_items"])
    widest = max(tin.itemsize, tout.itemsize)
    cap = (256 if tin.itemsize == tout.itemsize else 128) // widest
    return max(16, min(items * 4 // widest if widest > 4 else items, cap))


def _segment_bytes(items: int, tin: np.dtype, tout: np.dtype) -> int:
    """Shared bytes of one warp's segment: 16-byte chunks, 16 bytes of padding after
    every 128 (``xs_chunk_at`` in scans.cu)."""
    chunks = 32 * items * max(tin.itemsize, tout.itemsize) // 16
    return (chunks + chunks // 8) * 16


def _build(x, ax: int, include_initial: bool, op: str, out_dt: np.dtype) -> _Recipe:
    # the recipe's key holds the buffer's address modulo 16: one kernel needs the
    # 16-byte boundary
    rec = _Recipe()
    acc = rc.acc_dtype(out_dt)
    rec.acc = acc
    rec.fill = 1 if op == "prod" else 0
    plan = plan_scan(Layout.from_array(x), ax, include_initial, rc.sm_count())
    rec.plan = plan
    n = 1
    for m in plan.out_shape:
        n *= m
    rec.nelems = n
    rec.out_strides_bytes = tuple(s * out_dt.itemsize for s in plan.out_strides)
    # the output buffer in C order already: a reshape (or the buffer itself) is the
    # result, without as_strided's cost on every call
    compact, acc_ = [], 1
    for m in reversed(plan.out_shape):
        compact.append(acc_)
        acc_ *= m
    rec.c_order = tuple(reversed(compact)) == tuple(plan.out_strides)
    rec.fn = None
    rec.tail = None
    # bytes from the buffer to the kernel's x: the first element, or for reversed
    # rows of the "tile" scan the lowest address of the first row (the kernel reads
    # each staged row from its other end)
    shift = plan.length - 1 if plan.strategy == "tile" and plan.s_in < 0 else 0
    rec.xoff = (plan.offset - shift) * np.dtype(x.dtype).itemsize
    aligned = (x.data.ptr + rec.xoff) % 16 == 0
    if plan.strategy in ("empty", "fill"):
        return rec
    cap = rc.capacity(plan.nk)
    rec.desc = rc.pack_struct(rc.pad(plan.kshape, cap, 1), rc.pad(plan.kstride, cap, 0),
                              rc.pad(plan.kout, cap, 0),
                              tail=(plan.nk, plan.s_in, plan.s_out, int(plan.include_initial)))
    if plan.strategy == "columns_split":
        return _build_colsplit(rec, op, np.dtype(x.dtype), out_dt)
    if plan.strategy == "columns_chunks":
        return _build_chunks(rec, op, np.dtype(x.dtype), out_dt)
    tin, tacc, tout = rc.CTYPE[np.dtype(x.dtype)], rc.CTYPE[acc], rc.CTYPE[out_dt]
    sm = rc.sm_count()
    if plan.strategy == "lookback":
        items = _lookback_items(np.dtype(x.dtype), out_dt)
        grp = int(rc.TUNING["lookback_group"])
        threads = int(rc.TUNING["lookback_threads"])
        expr = (f"xs_scan_lookback<{_OPS[op]}, {tin}, {tacc}, {tout}, {cap}, {items}, "
                f"{rc.TUNING['lookback_minb']}, {grp}, {rc.TUNING['lookback_window']}, "
                f"{rc.TUNING['lookback_direct']}, {int(rc.TUNING['lookback_f32_run'])}, "
                f"{threads}>")
        rec.threads = threads
        rec.tiles_per_row = -(-plan.length // (threads * items))
        rec.groups_per_row = -(-rec.tiles_per_row // grp)
        rec.ngroups = plan.nrows * rec.groups_per_row
        rec.ntiles = plan.nrows * rec.tiles_per_row
        rec.grid = (rec.ntiles,)
        rec.tail = (np.int64(plan.length), np.int64(rec.tiles_per_row),
                    np.int64(rec.groups_per_row))
        rec.smem = threads // 32 * _segment_bytes(items, np.dtype(x.dtype), out_dt)
    elif plan.strategy == "tile" and (regs := _rowregs(plan, np.dtype(x.dtype), out_dt,
                                                       aligned)):
        q, minb = regs
        expr = (f"xs_scan_rowregs<{_OPS[op]}, {tin}, {tacc}, {tout}, {plan.length}, {q}, "
                f"{int(plan.s_in < 0)}, {minb}>")
        rec.grid = (-(-(-(-plan.nrows // q)) // 256),)
        rec.tail = (np.int64(plan.nrows),)
        rec.desc = None
    elif plan.strategy in ("tile", "rows") and (warp := _warp_rows(
            plan, np.dtype(x.dtype), out_dt, aligned)):
        u, minb, rounds, chunk_words = warp
        expr = f"xs_scan_warprows<{_OPS[op]}, {tin}, {tacc}, {tout}, {u}, {minb}>"
        total = plan.nrows * plan.length
        words = -(-total // 4)
        rec.grid = (max(1, -(-(-(-words // chunk_words)) // 8)),)   # a chunk a warp
        rec.tail = (np.int64(total), np.int64(chunk_words), np.int64(plan.length),
                    np.int64(rounds))
        rec.desc = None
    elif plan.strategy == "tile":
        tile_bytes = scan_tile_bytes(rc.TUNING["scan_tile"], np.dtype(x.dtype).itemsize,
                                     out_dt.itemsize)
        # the staged rows: the rows themselves, or for series side by side (two row
        # axes, the inner one the series of a row) the outer rows of C series each
        series = plan.kshape[1] if plan.nk == 2 else 1
        walk = 2 if series > 1 else int(plan.s_in < 0)
        rows, out_offset = scan_tile_rows(plan.length * series,
                                          int(plan.include_initial) * series,
                                          np.dtype(x.dtype).itemsize, out_dt.itemsize,
                                          tile_bytes)
        nv = scan_tile_loads(tile_bytes, np.dtype(x.dtype).itemsize, out_dt.itemsize)
        expr = (f"xs_scan_tile<{_OPS[op]}, {tin}, {tacc}, {tout}, {cap}, {nv}, "
                f"{tile_bytes}, {walk}>")
        outer = plan.nrows // series
        rec.grid = (min(-(-outer // rows), SHORT_MAX_BLOCKS),)
        rec.tail = (np.int64(outer), np.int64(plan.length), np.int64(rows),
                    np.int64(out_offset))
    elif plan.strategy == "rows":
        minb, u = rc.TUNING["scan_rows_group"]
        group = scan_row_group(plan.nrows, plan.length, u, sm)
        if group < 32:   # a group of lanes a row, 32 / group rows a warp
            expr = (f"xs_scan_rows_group<{_OPS[op]}, {tin}, {tacc}, {tout}, {cap}, {minb}, "
                    f"{u}>")
            warps = -(-plan.nrows * group // 32)
            rec.grid = (min(-(-warps // 8), 32 * sm),)
            rec.tail = (np.int64(plan.nrows), np.int64(plan.length), np.int64(group))
        else:            # a warp a row
            expr = (f"xs_scan_rows<{_OPS[op]}, {tin}, {tacc}, {tout}, {cap}, "
                    f"{rc.TUNING['scan_rows']}>")
            rec.grid = (min(-(-plan.nrows // 8), 32 * sm),)
    else:  # columns
        vec = columns_vector(plan, np.dtype(x.dtype).itemsize, out_dt.itemsize)
        expr = f"xs_scan_columns<{_OPS[op]}, {tin}, {tacc}, {tout}, {cap}, {vec}>"
        rec.grid = (min(-(-plan.nrows // (256 * vec)), 32 * sm),)
    if plan.strategy not in ("lookback", "tile") and rec.tail is None:
        rec.tail = (np.int64(plan.nrows), np.int64(plan.length))
    if plan.strategy != "lookback":
        rec.smem = 0
        rec.threads = 256
    source = _SHORT_SRC if expr.startswith("xs_scan_warprows") else \
        {"tile": _SHORT_SRC, "rows": _ROWS_SRC}.get(plan.strategy, _SRC)
    rec.fn = rc.kernel(source, expr)
    if rec.smem > 48 * 1024 and rec.fn.max_dynamic_shared_size_bytes < rec.smem:
        rec.fn.max_dynamic_shared_size_bytes = rec.smem
    # the arguments packed once; a call sets the addresses (and the epoch): x, out,
    # descriptor, tail[, tile descriptors, group descriptors, epoch]
    desc = [] if rec.desc is None else [struct(rec.desc.tobytes())]
    args = [slot64(), slot64(), *desc, *[i64(v) for v in rec.tail]]
    if plan.strategy == "lookback":
        args += [slot64(), slot64(), slot32()]
    rec.launch = Launch(rec.fn, rec.grid, (rec.threads,), args, rec.smem)
    return rec


#: The dtypes the kernels handle (anything else: the library).
DTYPES = rc.SUPPORTED


def takes(*dtypes) -> bool:
    """True when the kernels handle every one of ``dtypes`` (else the library runs)."""
    return all(np.dtype(d) in rc.SUPPORTED for d in dtypes)


def takes_complex_sum(x_dtype, out_dt) -> bool:
    """True when :func:`complex_sum` takes a cumulative sum of ``x_dtype`` into ``out_dt``
    (both complex64 or complex128)."""
    return np.dtype(x_dtype) in _cx.PART and np.dtype(out_dt) in _cx.PART


def complex_sum(x, ax: int, include_initial: bool, out_dt: np.dtype):
    """The cumulative sum of a complex CuPy array ``x`` (at least one dimension, not
    empty) along the checked axis ``ax``, as a new array of complex ``out_dt``.

    Complex addition adds the real parts and the imaginary parts apart, so the scan is
    that of the real array of both parts (:func:`~._kernels.complex_parts.parts`, shape
    ``x.shape + (2,)``): :func:`scan` into the parts' dtype of ``out_dt`` (each part
    carried and rounded as a real scan is, docs/reductions.md), viewed back as complex.

    Raises
    ------
    ValueError
        As :func:`scan` (the device rules).
    """
    out_part = _cx.PART[np.dtype(out_dt)]
    res = scan("sum", _cx.parts(x), ax, include_initial, out_part, axis=ax, dtype=out_part,
               prepare=False)
    return _cx.from_parts(res, np.dtype(out_dt))


def scan(op: str, x, ax: int, include_initial: bool, out_dt: np.dtype, *, axis, dtype,
         prepare: bool = True):
    """A cumulative ``op`` (sum, prod) of ``x`` along the checked axis ``ax``; a new
    CuPy array of ``out_dt``. ``axis``/``dtype`` are the caller's arguments as given
    (the prepared call's key); ``prepare`` False for a 0-D input scanned as shape (1,)."""
    cp = _cupy()
    # x must be on the current device: it runs the kernel, holds the output, and the
    # recipe's launch holds that device's function
    check_devices(_PUBLIC[op], (("x", x),), cp)
    dev = cp.cuda.runtime.getDevice()
    tuned = rc.TUNING.version
    key = (x.shape, x.strides, x.dtype, ax, include_initial, op, out_dt, dev, tuned,
           x.data.ptr & 15)
    rec = _RECIPES.get(key)
    if rec is None:
        rec = _build(x, ax, include_initial, op, out_dt)
        _RECIPES.put(key, rec)
    out = _run(cp, rec, out_dt, x, dev)
    if prepare:
        _prepare(cp, op, x, axis, dtype, include_initial, dev, tuned, rec, out_dt)
    return out


def _run(cp, rec: _Recipe, out_dt: np.dtype, x, dev: int):
    """Launch ``rec`` on ``x`` (current device ``dev``); the result array, of the
    caller's ``out_dt`` (equal to the recipe's, perhaps not the same object)."""
    plan = rec.plan
    # output buffer compact in the input's memory order, viewed in logical order
    buf = cp.ndarray((rec.nelems,), out_dt)
    if plan.strategy == "fill":
        buf.fill(rec.fill)
    elif plan.strategy != "empty":
        ptr = x.data.ptr + rec.xoff
        optr = buf.data.ptr
        stream = cp.cuda.get_current_stream().ptr
        if plan.strategy == "lookback":
            with _DESCS_LOCK:
                tdesc, gdesc, epoch = _lookback_state(cp, dev, rec.ntiles, rec.ngroups, stream)
                rec.launch(ptr, optr, tdesc, gdesc, epoch, stream_ptr=stream)
        elif plan.strategy in ("columns_split", "columns_chunks"):
            with _DESCS_LOCK:
                part = _partials(cp, dev, rec.partial_bytes, stream)
                rec.launch(ptr, part.data.ptr, stream_ptr=stream)
                rec.launch2(ptr, optr, part.data.ptr, stream_ptr=stream)
        else:
            rec.launch(ptr, optr, stream_ptr=stream)
    if rec.c_order:
        return buf if len(plan.out_shape) == 1 else buf.reshape(plan.out_shape)
    return cp.lib.stride_tricks.as_strided(buf, shape=plan.out_shape,
                                           strides=rec.out_strides_bytes)


# Prepared calls (:mod:`._prepared`): a call that repeats an earlier one (same array
# type, shape, strides, dtype, arguments, array's device, current device, tuning and
# address modulo 16) goes straight to
# its recipe, skipping the argument checks, the dtype rules and the plan (a third of a
# call's host time). The prepared call is ``partial(_run, cp, rec, out_dt)``.
_MAX_PREPARED = 1024
_PREPARED = Store(_MAX_PREPARED)


def _prepare(cp, op, x, axis, dtype, include_initial, dev, tuned, rec: _Recipe,
             out_dt: np.dtype) -> None:
    """Prepare ``rec`` (and the result dtype) under the key of this call."""
    if not args_ok(axis, dtype, include_initial):
        return
    key = (op, x.shape, x.strides, x.dtype, axis, dtype, include_initial, x.data.device_id,
           dev, tuned, x.data.ptr & 15)
    _PREPARED.prepare(key, partial(_run, cp, rec, out_dt), cp)


def repeat(op, x, axis, dtype, include_initial):
    """The result of the call of ``op`` prepared before with the same key, else None (a
    miss: the checked path runs)."""
    if type(x) is not GATE.nd or not args_ok(axis, dtype, include_initial):
        return None
    dev = GATE.getdev()
    run = _PREPARED.get((op, x.shape, x.strides, x.dtype, axis, dtype, include_initial,
                         x.data.device_id, dev, TUNING.version,
                         x.data.ptr & 15))
    if run is None:
        return None
    return run(x, dev)
