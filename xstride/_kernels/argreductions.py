"""The CUDA executor of ``argmin`` and ``argmax``.

:mod:`xstride.reductions` checks the arguments (one axis or None, a real dtype, no
empty selection); this module runs the call on the kernels of ``argreductions.cu``
for any layout, through the plan of :mod:`xstride._plans.argreduction` (the reduction
plan plus the logical-index weights of the walk). The kernel is chosen by
:func:`arg_geometry`: one thread per output where a kept axis is innermost or the rows
are short, one warp per output where the reduced axis is innermost; rows too long for
the outputs to fill the device are split into chunks whose (value, index) pairs a
second kernel folds. Short rows go to the register kernels where they fit
(:func:`arg_regs_rows`, :func:`arg_side_rows`), else to tiles staged in shared memory
(:func:`arg_tile_rows`). Pairs are combined by a strict total order (NaN first, then the
better value, then the smaller index), so the result is the same for every split and
tree: NumPy's first occurrence, or the first NaN. :func:`repeat` is the prepared-call
fast path (:mod:`._prepared`) of a call seen before. See ``docs/reductions.md``.
"""

from __future__ import annotations

import math

from dataclasses import dataclass

import numpy as np

from .._core.errors import type_error
from .._plans.argreduction import ArgPlan, plan_arg_array
from .._plans.reduction import SHORT_ROWLEN, empty_axis_error
from . import _reduce_common as rc
from ._cupy import cupy as _cupy
from ._devices import check as check_devices
from ._geometry import regs_rows, warp_group
from ._launch import Launch, i64, slot64, struct
from ._lru import Bounded
from ._prepared import GATE, Store

__all__ = ["DTYPES", "takes", "argreduce", "repeat", "ArgGeometry", "arg_geometry",
           "pack_desc", "arg_regs_rows", "arg_side_rows", "arg_tile_rows"]

_SRC = "argreductions.cu"
_MAX = {"argmin": 0, "argmax": 1}
#: Threads per block of the three kernels.
BLOCK = 256
#: Work items (row, chunk) wanted per SM: threads for the thread kernel, warps for the
#: warp kernel (2048 threads = 64 warps fill an SM of the H200 / A100).
THREAD_ITEMS_PER_SM = 2048
WARP_ITEMS_PER_SM = 64
#: Most bytes of a row of more than SHORT_ROWLEN elements the thread kernel (or
#: ``xs_arg_rowregs``) takes: 1-byte rows of up to 112 elements, 2-byte rows of up to
#: 56. A warp a row of 33-128 one-byte elements (2 to 4 of them a lane, then the
#: shuffle tree of value and index) read 0.02-0.06 of a copy on the H200; a thread a
#: row read 0.13-0.15 (int8 rows of 33, 50, 100), 0.45-0.63 in registers (int8 rows of
#: 48, 64, 96, int16 of 40), but 0.03 for int8 rows of 128 (the warp: 0.06)
#: (2026-12-04, argmin(x, axis=1) of 2**25 elements).
THREAD_ROW_MOST_BYTES = 112
#: Shortest chunk a row is split into, in elements (thread kernel, warp kernel).
THREAD_MIN_CHUNK = 64
WARP_MIN_CHUNK = 2048
#: Fewest bytes of a work item whose walk the warp kernel reads by 16-byte words: a
#: whole batch of four words for each of the 32 lanes. Rows of 64 int8 as words (4
#: lanes of 32 busy) took 5.7 ms against 4.6 ms element by element ((2**23, 64),
#: H200); the words were timed only on long rows (2**25 elements and more, chunks of
#: at least 2048), so shorter items keep the element walk they had before.
WARP_WORDS_MIN_BYTES = 32 * 4 * 16
#: Most chunks a row whose pairs one warp of ``xs_arg_combine`` folds (8 pairs a lane
#: in flight: one round); rows of more take a block of 256 threads.
COMBINE_WARP_MOST = 256
#: Most blocks of the thread kernel (its threads loop over the items beyond).
THREAD_MAX_BLOCKS = 1 << 20
#: Blocks per SM the thread kernel is compiled to keep resident (``__launch_bounds__``
#: minimum: a register cap of 65536 / (256 * MINB) per thread). On the H200
#: (2026-12-01, n = 2**25 float32, argmin(x, axis=1)) MINB 1, 2, 4, 8 took 1.48, 1.19,
#: 1.20, 2.24 times MINB 6's time on (n, 3), 1.55, 1.25, 1.25, 2.08 on (3, n).T and
#: 1.16, 1.05, 1.05, 1.63 on (n, 16).
THREAD_MINB = 6
#: The "interleave" kernel's (blocks per SM of its one wave, loads each thread keeps in
#: flight), by element size: 4-byte and narrower elements, 8-byte ones. On an H100
#: (2026-12-02, argmin/argmax(x, axis=0) of (n, k), n = 2**25, two processes with the
#: variants in opposite orders) (4, 16) read float32 k = 2, 3, 4, 8, 16 at 0.67-0.73,
#: 0.69-0.78, 0.85-0.86, 0.91, 0.88-0.94 of copy against 0.56-0.59, 0.59-0.67, 0.72-0.73,
#: 0.78, 0.77-0.82 for (8, 8) ((2, 32), (4, 32), (8, 16), (6, 16) between them), while
#: float64 and int64 (n, 3) kept (8, 8) at 0.84-0.89 against 0.75-0.83 for (4, 16).
INTERLEAVE_TUNING = {4: (4, 16), 8: (8, 8)}
#: The fewest block widths of elements each block of it folds per thread (as the sums'
#: "interleave").
INTERLEAVE_MIN_ROUNDS = 8


def interleave_tuning(itemsize: int) -> tuple:
    """``(blocks per SM, loads in flight)`` of the "interleave" kernel for elements of
    ``itemsize`` bytes (:data:`INTERLEAVE_TUNING`)."""
    return INTERLEAVE_TUNING[8 if itemsize > 4 else 4]


#: Element sizes whose contiguous, 16-byte aligned runs ``xs_arg_interleave`` reads as
#: 16-byte words (each element a lane with its own best pair: ``256 * V`` pairs in
#: shared memory, so not the 16 lanes a thread of 1-byte elements would take).
INTERLEAVE_WORD_SIZES = (4, 8)
#: Words each thread of the word walk keeps in flight (64 bytes, as the element walk's
#: 16 four-byte loads).
INTERLEAVE_WORDS_B = 4

#: The dtypes the kernels handle (anything else: the library).
DTYPES = rc.ARG_REDUCED


def takes(*dtypes) -> bool:
    """True when the kernels handle every one of ``dtypes`` (else the library runs)."""
    return all(np.dtype(d) in rc.ARG_REDUCED for d in dtypes)


@dataclass(frozen=True)
class ArgGeometry:
    """How a planned arg-reduction is launched.

    Attributes
    ----------
    kernel : {"thread", "warp", "group", "interleave"}
        ``xs_arg_thread`` (one thread per work item), ``xs_arg_warp`` (one warp),
        ``xs_arg_group`` (``group`` lanes a row, rows of one chunk read by words) or
        ``xs_arg_interleave`` (a block per chunk of a flat run of a few columns; its
        block is ``ncols * (256 // ncols)`` threads).
    grid, block : int
        Blocks and threads per block of the first pass.
    nchunks, chunk : int
        Each row's walk is split into ``nchunks`` chunks of ``chunk`` elements (the
        last may be shorter); work item ``w = chunk_index * nrows + row``.
    combine_grid : int
        Blocks of ``xs_arg_combine``; 0 when ``nchunks == 1``.
    vec : int
        Elements per 16-byte word of the warp kernel's walk of one contiguous axis or
        of the interleave kernel's walk of one contiguous run, else 1 (element by
        element).
    combine_threads : int
        Threads of ``xs_arg_combine`` per row: 32 (a warp), or 256 (a block) when a row
        has more than :data:`COMBINE_WARP_MOST` chunks.
    group : int
        Lanes a row of ``xs_arg_group`` (:func:`~._geometry.warp_group`, below 32).
    """

    kernel: str
    grid: int
    block: int
    nchunks: int
    chunk: int
    combine_grid: int
    vec: int = 1
    combine_threads: int = 32
    group: int = 32


def arg_geometry(plan: ArgPlan, sm_count: int, itemsize: int = 4,
                 aligned: bool = False) -> ArgGeometry:
    """Kernel, grid and split for ``plan`` (``rowlen >= 2``, ``nrows >= 1``) on a device
    of ``sm_count`` SMs, for elements of ``itemsize`` bytes; ``aligned``: the walk's
    first element lies on a 16-byte boundary.

    The warp kernel serves the plan strategies ``"inner"`` and ``"full"`` (long
    reduced runs innermost: the lanes of a warp read neighbouring elements of one
    row); the thread kernel every other (``"short"``, ``"tile"``: short rows;
    ``"outer"``, ``"interleave"``: a kept axis innermost — neighbouring threads on
    neighbouring rows read neighbouring elements or short runs; ``"lanes"``: rows of
    16-byte chunks), except ``"tile"`` and ``"lanes"`` rows longer than
    ``SHORT_ROWLEN`` elements and :data:`THREAD_ROW_MOST_BYTES` bytes, which the warp
    kernel reads. A row is split when the rows alone give fewer
    work items than :data:`THREAD_ITEMS_PER_SM` threads (:data:`WARP_ITEMS_PER_SM`
    warps) per SM, into chunks of at least :data:`THREAD_MIN_CHUNK`
    (:data:`WARP_MIN_CHUNK`) elements. Warp rows of one chunk along one contiguous
    axis that :func:`~._geometry.warp_group` gives fewer than 32 lanes take
    ``xs_arg_group`` (``"group"``): rows of a few dozen 16-byte words, each lane
    several words. The plan strategy ``"interleave"`` with a walk
    of one axis (a few contiguous columns of rows of any stride, reduced over the rows) takes
    ``xs_arg_interleave``: about :func:`interleave_tuning`'s blocks per SM, each
    a chunk of whole block widths of the flat run (work item ``b * ncols + c``); a
    contiguous, aligned run of 4- or 8-byte elements (:data:`INTERLEAVE_WORD_SIZES`)
    read as 16-byte words of ``vec`` elements, the block ``m * (256 // m)`` threads,
    ``m = ncols / gcd(ncols, vec)``, and the chunk whole blocks of words.
    """
    base = plan.base
    sm = max(int(sm_count), 1)
    nrows, rowlen = base.nrows, base.rowlen
    if (base.strategy == "interleave" and plan.nr == 1 and plan.rstride[0] >= nrows
            and nrows <= BLOCK):
        # 16-byte words of V elements where the run is one contiguous, aligned block:
        # the block's lanes (threads x V) a multiple of the column count
        vec = (16 // itemsize if aligned and itemsize in INTERLEAVE_WORD_SIZES
               and plan.rstride[0] == nrows else 1)
        m = nrows // math.gcd(nrows, vec)
        width = m * (BLOCK // m)
        lanes = width * vec
        total = nrows * rowlen
        chunk = -(-total // (interleave_tuning(itemsize)[0] * sm))
        chunk = max(-(-chunk // lanes), INTERLEAVE_MIN_ROUNDS) * lanes
        nchunks = -(-total // chunk)
        cgrid, cthreads = _combine(nrows, nchunks, sm)
        return ArgGeometry("interleave", nchunks, width, nchunks, chunk, cgrid, vec,
                           combine_threads=cthreads)
    # "tile" and "lanes" rows past SHORT_ROWLEN and THREAD_ROW_MOST_BYTES are medium
    # rows, a warp's work (argmin/argmax stage no tiles and combine no lanes)
    thread = (base.strategy not in ("inner", "full")
              and not (base.strategy in ("tile", "lanes") and rowlen > SHORT_ROWLEN
                       and rowlen * itemsize > THREAD_ROW_MOST_BYTES))
    target = sm * (THREAD_ITEMS_PER_SM if thread else WARP_ITEMS_PER_SM)
    min_chunk = THREAD_MIN_CHUNK if thread else WARP_MIN_CHUNK
    nchunks = max(1, min(-(-target // nrows), -(-rowlen // min_chunk)))
    # the warp kernel reads one contiguous axis by 16-byte words; its chunks then
    # start on whole words of the row
    vec = (16 // itemsize if not thread and itemsize in (1, 2, 4, 8) and plan.nr == 1
           and plan.rstride[0] == 1 else 1)
    chunk = -(-rowlen // nchunks)
    if vec > 1 and nchunks == 1:   # rows of a few dozen words: a group of lanes a row
        group = warp_group(nrows, rowlen, vec, sm)
        if group < 32:
            warps = -(-nrows * group // 32)
            return ArgGeometry("group", min(-(-warps // (BLOCK // 32)), 32 * sm), BLOCK, 1,
                               rowlen, 0, vec, 32, group)
    if chunk * itemsize < WARP_WORDS_MIN_BYTES:
        vec = 1        # less than a batch of four words a lane (WARP_WORDS_MIN_BYTES)
    chunk = -(-chunk // vec) * vec
    nchunks = -(-rowlen // chunk)
    items = nrows * nchunks
    if thread:
        grid = min(-(-items // BLOCK), THREAD_MAX_BLOCKS)
    else:
        grid = min(-(-items // (BLOCK // 32)), 32 * sm)
    cgrid, cthreads = _combine(nrows, nchunks, sm)
    return ArgGeometry("thread" if thread else "warp", grid, BLOCK, nchunks, chunk, cgrid,
                       vec, cthreads)


def _combine(nrows: int, nchunks: int, sm: int) -> tuple:
    """``(blocks, threads per row)`` of ``xs_arg_combine`` (``(0, 32)``: no split)."""
    if nchunks == 1:
        return 0, 32
    group = 32 if nchunks <= COMBINE_WARP_MOST else BLOCK
    return min(-(-nrows // (BLOCK // group)), 32 * sm), group


def pack_desc(plan: ArgPlan) -> tuple[int, int, np.ndarray]:
    """``(NK, NR, bytes)`` of ``xs_arg_desc<NK, NR>`` (``argreductions.cu``): kshape,
    kstride, rshape, rstride, rweight (padded to the capacities), nk, nr, rbase, all
    int64."""
    base = plan.base
    nkc, nrc = rc.capacity(base.nk), rc.reduced_capacity(plan.nr)
    desc = rc.pack_struct(rc.pad(base.kshape, nkc, 1), rc.pad(base.kstride, nkc, 0),
                          rc.pad(plan.rshape, nrc, 1), rc.pad(plan.rstride, nrc, 0),
                          rc.pad(plan.rweight, nrc, 0),
                          tail=(base.nk, plan.nr, plan.rbase))
    return nkc, nrc, desc


class _Recipe:
    """Plan, kernels and launches of one (layout, axes, op, dtype, device)."""

    __slots__ = ("plan", "geo", "acc", "first", "combine", "mem_shape", "inv", "xoff")


_RECIPES: dict = Bounded(1024)


#: Most rows a thread of ``xs_arg_rowregs`` takes (4 int64 indices: two 16-byte
#: stores); 1-byte rows of 3 would give 16 (128 bytes of indices a thread, the limit
#: at which the register reductions lost to staging).
ARG_REGS_MOST_ROWS = 4
#: Most bytes of the one row of whole 16-byte words a thread of ``xs_arg_rowregs``
#: takes where :func:`regs_rows` gives no group: rows of more than 48 bytes that the
#: thread kernel takes (:data:`THREAD_ROW_MOST_BYTES`): 1-byte rows of 64, 80 and 96
#: elements, 2-byte rows of 32, 40 and 48, 4-byte rows of 16, 20 and 24.
ARG_ONE_ROW_MOST_BYTES = 96


def arg_regs_rows(plan: ArgPlan, x, geo, aligned: bool) -> int:
    """Rows a thread of the register kernel of short dense rows (``xs_arg_rowregs``)
    takes for this plan, or 0: the one-thread walk (``geo.kernel == "thread"``, one
    chunk) of rows of one kept axis stored one after another, read forward (logical
    index j at element j), the first on a 16-byte boundary (``aligned``), 1-, 2- or
    4-byte elements, :func:`regs_rows` rows of at most 48 bytes and
    :data:`ARG_REGS_MOST_ROWS`, or one row of whole 16-byte words of at most
    :data:`ARG_ONE_ROW_MOST_BYTES`, ``TUNING["arg_regs"]`` (MINB) not 0."""
    base = plan.base
    dt = np.dtype(x.dtype)
    if (not rc.TUNING["arg_regs"] or not aligned or geo.kernel != "thread"
            or geo.nchunks != 1 or dt.itemsize > 4 or dt.kind not in "biuf"
            or base.nk != 1 or plan.nr != 1 or plan.rstride[0] != 1 or plan.rweight[0] != 1
            or plan.rbase != 0 or base.kstride[0] != base.rowlen):
        return 0
    q = regs_rows(base.rowlen, dt.itemsize)
    if q:
        return q if q <= ARG_REGS_MOST_ROWS else 0
    # one row of whole 16-byte words a thread, as the register reductions take them
    nbytes = base.rowlen * dt.itemsize
    return 1 if nbytes % 16 == 0 and nbytes <= ARG_ONE_ROW_MOST_BYTES else 0


#: Most rows a thread of ``xs_arg_side`` takes: 1-byte rows take 8 (an 8-byte load a
#: step), not 16 (ptxas 13, sm_90: the uint8 walk of 16 rows held 79 registers, of 8
#: 52). H200, 2026-12-04, ``argmax(x, axis=1)`` of (k, n).T, n = 2**25, fraction of
#: copy, 16 -> 8 rows: uint8, int8, bool k = 3 0.39 -> 0.62-0.63, k = 5 0.40 ->
#: 0.57-0.64, k = 16 0.36-0.38 -> 0.38-0.41 (CuPy 0.02-0.14).
ARG_SIDE_MOST_ROWS = 8


def arg_side_rows(plan: ArgPlan, x, geo, aligned: bool) -> int:
    """Rows a thread of ``xs_arg_side`` takes (W = 16 / itemsize, at most
    :data:`ARG_SIDE_MOST_ROWS`, each step of the walk one load of 16 or 8 bytes across
    them), or 0: the one-thread walk (``geo.kernel ==
    "thread"``, one chunk) of rows that lie side by side (one kept axis of stride 1, one
    reduced axis; ``argmin(x, axis=1)`` of a (k, n) array used as ``.T``), ``nrows``
    and the reduced stride multiples of W, the first element on a 16-byte boundary
    (``aligned``), 1-, 2- or 4-byte elements, ``TUNING["arg_regs"]``
    not 0 (the register kernels' knob)."""
    base = plan.base
    dt = np.dtype(x.dtype)
    if (not rc.TUNING["arg_regs"] or not aligned or geo.kernel != "thread"
            or geo.nchunks != 1 or dt.itemsize > 4 or dt.kind not in "biuf"
            or base.nk != 1 or base.kstride[0] != 1 or plan.nr != 1):
        return 0
    w = min(16 // dt.itemsize, ARG_SIDE_MOST_ROWS)
    return w if base.nrows % w == 0 and plan.rstride[0] % w == 0 else 0


#: Most bytes between the first elements of neighbouring rows that ``xs_arg_tile``
#: stages (the words it copies hold the gaps between the rows too).
ARG_TILE_MOST_STRIDE_BYTES = 128
#: Fewest bytes of a gap between rows that ``xs_arg_tile`` leaves to the thread kernel:
#: a whole 32-byte sector, which the thread kernel's loads skip and the tile's copy
#: would read.
ARG_TILE_GAP_BYTES = 32
#: Most bytes of a tile's span (``TUNING["arg_tile"][0]``, a multiple of 16): two
#: buffers of it, padded, fill at most the 48 KiB of static shared memory.
ARG_TILE_MOST_BYTES = 16384
#: Fewest rows of a tile of ``xs_arg_tile`` (unless that is every row).
ARG_TILE_MIN_ROWS = 32


def arg_tile_rows(plan: ArgPlan, x, geo) -> int:
    """Rows R of a tile of ``xs_arg_tile`` (short rows staged in shared memory by
    asynchronous 16-byte copies, a thread a row), or 0: the one-thread walk
    (``geo.kernel == "thread"``, one chunk) of rows of one kept axis of stride ``ks``
    (not 0, at most :data:`ARG_TILE_MOST_STRIDE_BYTES` bytes apart, with a gap between
    rows of less than :data:`ARG_TILE_GAP_BYTES`) and one contiguous reduced run
    (stride 1, logical weight 1 or -1), any element type the kernels take,
    ``TUNING["arg_tile"]`` (span bytes TB, a multiple of 16 of at most
    :data:`ARG_TILE_MOST_BYTES`; MINB of wide and of narrow elements) not 0 (a TB out
    of that range leaves the rows to the thread kernel). R is the most rows whose span,
    ``(R - 1)|ks| + rowlen`` elements, fits TB bytes, at most ``nrows``, whole blocks
    of :data:`BLOCK` rows when it is that many, and at least :data:`ARG_TILE_MIN_ROWS`
    unless it is every row. The register kernels (:func:`arg_regs_rows`,
    :func:`arg_side_rows`) are preferred where they apply."""
    knob = rc.TUNING["arg_tile"]
    base = plan.base
    if (not knob or geo.kernel != "thread" or geo.nchunks != 1 or base.nk != 1
            or plan.nr != 1 or plan.rstride[0] != 1 or abs(plan.rweight[0]) != 1):
        return 0
    size = np.dtype(x.dtype).itemsize
    ks = abs(base.kstride[0])
    elems = knob[0] // size
    if (knob[0] % 16 or knob[0] > ARG_TILE_MOST_BYTES or ks == 0
            or ks * size > ARG_TILE_MOST_STRIDE_BYTES
            or (ks - base.rowlen) * size >= ARG_TILE_GAP_BYTES or base.rowlen > elems):
        return 0
    r = min(base.nrows, (elems - base.rowlen) // ks + 1)
    if r >= BLOCK:
        r -= r % BLOCK
    return r if r >= ARG_TILE_MIN_ROWS or r == base.nrows else 0


def _build(plan: ArgPlan, x, op: str) -> _Recipe:
    rec = _Recipe()
    base = plan.base
    rec.plan = plan
    rec.mem_shape = tuple(base.out_shape[j] for j in base.out_order)
    inv = [0] * len(base.out_order)
    for pos, j in enumerate(base.out_order):
        inv[j] = pos
    rec.inv = tuple(inv)
    rec.geo = rec.first = rec.combine = None
    rec.xoff = plan.offset * x.itemsize
    if base.nrows == 0 or base.rowlen <= 1:
        return rec
    acc = rec.acc = rc.minmax_acc_dtype(np.dtype(x.dtype))
    geo = rec.geo = arg_geometry(plan, rc.sm_count(), x.itemsize,
                                 (x.data.ptr + rec.xoff) % 16 == 0)
    nkc, nrc, desc = pack_desc(plan)
    tin, tacc = rc.CTYPE[np.dtype(x.dtype)], rc.CTYPE[acc]
    q = arg_regs_rows(plan, x, geo, (x.data.ptr + rec.xoff) % 16 == 0)
    if q:   # short dense rows in registers: x, out, nrows
        minb = rc.TUNING["arg_regs"]
        expr = f"xs_arg_rowregs<{_MAX[op]}, {tin}, {tacc}, {base.rowlen}, {q}, {minb}>"
        rows = Launch(rc.kernel(_SRC, expr), (-(-(-(-base.nrows // q)) // BLOCK),), (BLOCK,),
                      [slot64(), slot64(), i64(base.nrows)])
        rec.first = lambda xa, out, pval, pidx: rows(xa, out)
        return rec
    w = arg_side_rows(plan, x, geo, (x.data.ptr + rec.xoff) % 16 == 0)
    if w:   # rows side by side, W a thread: x, out, nrows, rowlen, rs, rbase, rweight
        expr = f"xs_arg_side<{_MAX[op]}, {tin}, {tacc}, {w}>"
        side = Launch(rc.kernel(_SRC, expr),
                      (min(-(-(base.nrows // w) // BLOCK), THREAD_MAX_BLOCKS),), (BLOCK,),
                      [slot64(), slot64(), i64(base.nrows), i64(base.rowlen),
                       i64(plan.rstride[0]), i64(plan.rbase), i64(plan.rweight[0])])
        rec.first = lambda xa, out, pval, pidx: side(xa, out)
        return rec
    r = arg_tile_rows(plan, x, geo)
    if r:   # staged tiles of r rows: x, out, nrows, rowlen, ks, r, rbase, rweight
        tb, wide, narrow = rc.TUNING["arg_tile"]
        minb = wide if x.itemsize >= 4 else narrow
        expr = f"xs_arg_tile<{_MAX[op]}, {tin}, {tacc}, {tb}, {minb}>"
        ntiles = -(-base.nrows // r)
        tile = Launch(rc.kernel(_SRC, expr), (min(ntiles, minb * rc.sm_count()),), (BLOCK,),
                      [slot64(), slot64(), i64(base.nrows), i64(base.rowlen),
                       i64(base.kstride[0]), i64(r), i64(plan.rbase), i64(plan.rweight[0])])
        rec.first = lambda xa, out, pval, pidx: tile(xa, out)
        return rec
    if geo.kernel == "group":   # x, out, the descriptor, nrows, rowlen, lanes a row
        expr = f"xs_arg_group<{_MAX[op]}, {tin}, {tacc}, {nkc}, {nrc}, {geo.vec}>"
        grouped = Launch(rc.kernel(_SRC, expr), geo.grid, geo.block,
                         [slot64(), slot64(), struct(desc.tobytes()), i64(base.nrows),
                          i64(base.rowlen), i64(geo.group)])
        rec.first = lambda xa, out, pval, pidx: grouped(xa, out)
        return rec
    if geo.kernel == "interleave":
        batch = INTERLEAVE_WORDS_B if geo.vec > 1 else interleave_tuning(x.itemsize)[1]
        expr = f"xs_arg_interleave<{_MAX[op]}, {tin}, {tacc}, {batch}, {geo.vec}>"
        # x, out, partial values, partial indices, ncols, nred, chunk, nchunks, rbase,
        # rweight, the rows' stride
        rec.first = Launch(rc.kernel(_SRC, expr), geo.grid, geo.block,
                           [slot64(), slot64(), slot64(), slot64(), i64(base.nrows),
                            i64(base.rowlen), i64(geo.chunk), i64(geo.nchunks),
                            i64(plan.rbase), i64(plan.rweight[0]), i64(plan.rstride[0])])
    else:
        last = THREAD_MINB if geo.kernel == "thread" else geo.vec   # MINB, or V
        expr = f"xs_arg_{geo.kernel}<{_MAX[op]}, {tin}, {tacc}, {nkc}, {nrc}, {last}>"
        # x, out, partial values, partial indices, the descriptor, nrows, rowlen, chunk,
        # nchunks
        rec.first = Launch(rc.kernel(_SRC, expr), geo.grid, geo.block,
                           [slot64(), slot64(), slot64(), slot64(), struct(desc.tobytes()),
                            i64(base.nrows), i64(base.rowlen), i64(geo.chunk),
                            i64(geo.nchunks)])
    if geo.nchunks > 1:
        cexpr = f"xs_arg_combine<{_MAX[op]}, {tacc}, {geo.combine_threads}>"
        # whole warps: BLOCK threads (the interleave kernel's block is ncols * (256 //
        # ncols), 255 for 15 columns, whose last warp would straddle two blocks)
        rec.combine = Launch(rc.kernel(_SRC, cexpr), geo.combine_grid, BLOCK,
                             [slot64(), slot64(), slot64(), i64(base.nrows),
                              i64(geo.nchunks)])
    return rec


def _recipe(func: str, x, axes: tuple) -> _Recipe:
    cp = _cupy()
    if not isinstance(x, cp.ndarray):
        raise type_error(func, "x", x, "a cupy.ndarray")
    check_devices(func, (("x", x),), cp)
    key = (func, x.shape, x.strides, x.dtype, axes, cp.cuda.runtime.getDevice(),
           x.data.ptr & 15, rc.TUNING["arg_regs"], rc.TUNING["arg_tile"])
    rec = _RECIPES.get(key)
    if rec is None:
        rec = _RECIPES.put(key, _build(plan_arg_array(x, axes), x, func))
    return rec


def _run(rec: _Recipe, x):
    """Launch ``rec`` on ``x``; the flat int64 result in the output's memory order."""
    cp = _cupy()
    base = rec.plan.base
    i8 = np.dtype(np.int64)
    if rec.first is None:     # no output element, or one element per output: index 0
        return cp.zeros(base.nrows, dtype=i8)
    out = cp.empty(base.nrows, dtype=i8)
    xa = x.data.ptr + rec.xoff
    if rec.combine is None:
        rec.first(xa, out.data.ptr, 0, 0)
    else:
        n = base.nrows * rec.geo.nchunks
        pval = cp.empty(n, dtype=rec.acc)
        pidx = cp.empty(n, dtype=i8)
        rec.first(xa, 0, pval.data.ptr, pidx.data.ptr)
        rec.combine(pval.data.ptr, pidx.data.ptr, out.data.ptr)
    return out


def _shape(out, rec: _Recipe, index):
    res = out.reshape(rec.mem_shape).transpose(rec.inv) if rec.inv else out.reshape(())
    return res[index] if index is not None else res


class _Call:
    """A prepared call (:mod:`._prepared`): the recipe and the result's indexing."""

    __slots__ = ("rec", "index")

    def run(self, x):
        return _shape(_run(self.rec, x), self.rec, self.index)


#: (func, shape, strides, dtype, axis, keepdims, memory's device, current device,
#: address modulo 16, ``TUNING.version``) -> the ``run`` of a :class:`_Call`
_CALLS = Store(1024)


def repeat(func: str, x, axis, keepdims):
    """The result of the call of ``func`` (argmin, argmax) prepared before with the
    same key, else None (a miss: the checked path runs). ``axis`` is keyed only as
    None or an int (not a bool), ``keepdims`` only as True or False."""
    if type(x) is not GATE.nd or (keepdims is not True and keepdims is not False):
        return None
    if axis is not None and type(axis) is not int:
        return None
    run = _CALLS.get((func, x.shape, x.strides, x.dtype, axis, keepdims, x.data.device_id,
                      GATE.getdev(), x.data.ptr & 15, rc.TUNING.version))
    return None if run is None else run(x)


def argreduce(func: str, x, axis, axes: tuple, keepdims: bool):
    """``argmin``/``argmax`` (``func``) of the CuPy array ``x`` over the normalized
    ``axes`` (one axis, or every axis for ``axis=None``): an int64 array of the
    logical index along the axis (the flat C-order index over every axis), NumPy's
    first occurrence of the extreme, or of the first NaN.

    ``axis`` is the caller's argument (None or an int, ``axes`` its normalized
    form): it keys the prepared call that a successful call leaves for :func:`repeat`.

    Raises
    ------
    ValueError
        The selection is empty (a reduced axis of extent 0).
    """
    cp = _cupy()
    rec = _recipe(func, x, tuple(axes))
    base = rec.plan.base
    if base.rowlen == 0:
        raise empty_axis_error(func, x.shape, base.axes)
    index = tuple(None if i in base.axes else slice(None) for i in range(x.ndim)) \
        if keepdims else None
    res = _shape(_run(rec, x), rec, index)
    if (axis is None or type(axis) is int) and isinstance(keepdims, bool):
        call = _Call()
        call.rec, call.index = rec, index
        _CALLS.prepare((func, x.shape, x.strides, x.dtype, axis, keepdims,
                        x.data.device_id, cp.cuda.runtime.getDevice(), x.data.ptr & 15,
                        rc.TUNING.version), call.run, cp)
    return res
