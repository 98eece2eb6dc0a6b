"""CUDA launch geometry of the elementwise, reduction and scan kernels.

The plans (:mod:`xstride._plans`) decide what is computed over which layout; this
module turns a plan into what a CUDA launch needs: the packed parameter struct of the
elementwise kernels, the grid of the tiled kernel, and the kernel, grid, block and
splitting of a reduction (the scans' tiles, register rows, lanes and vectors are
:mod:`._scan_geometry`, the ``"columns_split"`` scan's geometry
:mod:`._colsplit_geometry`). Pure Python (no CuPy import), so it is tested on the CPU.
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass

from .._core.errors import error
from .._plans.elementwise import Plan
from .._plans.reduction import (SHORT_VECTOR_ROW_BYTES, TILE_BYTES, ReductionPlan,
                                tile_rows)
from ._waves import wave_chunks

__all__ = ["TILE", "CAPS", "pack_params", "TiledGeometry", "tiled_geometry", "BLOCK_THREADS",
           "OUTER_ROWS", "SHORT_MAX_BLOCKS", "INTERLEAVE_MIN_ROUNDS",
           "ReductionGeometry", "interleave_words", "reduction_geometry", "regs_rows",
           "REGS_MOST_BYTES", "WARP_ROW_LOADS", "WARP_GROUP_MOST_LOADS",
           "WARP_GROUP_MOST_BYTE_LOADS", "WARP_GROUP_MIN_WARPS", "warp_group",
           "ROW_TILE_MIN", "row_tiles_fit", "SHORT_ROW_TILE_MIN", "short_row_unroll",
           "row_tiles_choice"]

# ----------------------------------------------------------------------------- elementwise
#: Side of the square shared-memory tile of the "tiled" path.
TILE = 32
#: Capacities (maximum number of outer axes) of the packed parameter struct.
CAPS = (4, 16, 64)


def _cap_for(ndim: int) -> int:
    for c in CAPS:
        if ndim <= c:
            return c
    raise error(ValueError, "elementwise", f"{ndim} outer axes exceed the maximum of {CAPS[-1]}")


def pack_params(plan: Plan) -> tuple[int, bytes]:
    """``(CAP, bytes)`` of ``xstride_ew_params<CAP, NOPS>`` (``xstride/elementwise.cuh``).

    For "flat", "rows" and "nd" the inner axis is the last one and the outer axes are
    the others; for "tiled" the inner axis is the last, the tile axis is
    ``plan.tile_axis``, and the outer ("rest") axes are the others.
    """
    nops = len(plan.strides)
    shp = plan.shape
    inner = len(shp) - 1
    if plan.kind == "tiled":
        t = plan.tile_axis
        outer = [a for a in range(inner) if a != t]
        e1 = shp[t]
        s1 = [plan.strides[k][t] for k in range(nops)]
    else:
        outer = list(range(inner))
        e1 = 1
        s1 = [0] * nops
    cap = _cap_for(len(outer))
    pad = cap - len(outer)
    fields = [plan.size, shp[inner], e1, len(outer)]
    fields += list(plan.offsets)
    fields += [plan.strides[k][inner] for k in range(nops)]
    fields += s1
    fields += [shp[a] for a in outer] + [1] * pad
    for k in range(nops):
        fields += [plan.strides[k][a] for a in outer] + [0] * pad
    return cap, struct.pack(f"<{len(fields)}q", *fields)


#: Fewest vectors per row for the engine's row tiles (``kernel_source(row_tiles=True)``):
#: one whole tile of ``BLOCK * UNROLL`` vectors (kernels of one vector a thread,
#: ``_elementwise_vectors.vector_unroll``, keep the bound: their tiles are of ``BLOCK``).
ROW_TILE_MIN = 1024


def row_tiles_fit(vectors_per_row: int, span: int = 1024) -> bool:
    """Whether the "rows"/"nd" kernel should take one row's tiles of ``span`` vectors per
    block iteration: rows of at least :data:`ROW_TILE_MIN` vectors whose last tile
    leaves at most a fifth of the tiles' threads idle. On the H200 (2026-12-01) a
    Jacobi step through five slices of an 8192² float32 array ran 0.56 ms with a
    division and the outer offsets per element, and a hand-written kernel with the
    row's offsets once per tile 0.19 ms (docs/performance.md)."""
    if vectors_per_row < ROW_TILE_MIN:
        return False
    tiles = -(-vectors_per_row // span)
    return (tiles * span - vectors_per_row) * 5 <= tiles * span


#: Fewest vectors per row for the short row tiles (:func:`short_row_unroll`).
SHORT_ROW_TILE_MIN = 128


def short_row_unroll(vectors_per_row: int, block: int = 256, most: int = 2) -> int:
    """Vectors a thread takes per row tile (1 or 2, at most ``most``: one step of
    ``block`` or ``2 * block`` vectors) for rows too short for :func:`row_tiles_fit` but of at least
    :data:`SHORT_ROW_TILE_MIN` vectors whose last tile leaves at most a fifth of the
    threads idle; 0 where no such tile fits (the per-vector walk stays). A 3-D stencil's
    rows of 510 float32 (512³ through slices) take one tile of 512 a row instead of a
    division and the outer offsets of every operand per vector."""
    if vectors_per_row < SHORT_ROW_TILE_MIN or vectors_per_row >= ROW_TILE_MIN:
        return 0
    for unroll in (2, 1):   # two vectors a thread where they fit: more loads in flight
        if unroll > most:
            continue
        span = block * unroll
        tiles = -(-vectors_per_row // span)
        if (tiles * span - vectors_per_row) * 5 <= tiles * span:
            return unroll
    return 0


def row_tiles_choice(vectors_per_row: int, block: int, unroll: int,
                     row_reuse: bool) -> tuple[bool, int]:
    """``(row_tiles, tile_unroll)`` of a "rows"/"nd" elementwise kernel: the long tiles
    where :func:`row_tiles_fit`; else, for a fused call that reads one argument rows
    apart (``row_reuse``: a stencil), the short tiles of :func:`short_row_unroll`;
    else the per-vector walk ``(False, 0)``. H200, 2026-12-03: a fused 7-point stencil
    on 512³ float32 (rows of 510) 1.62 -> 0.86 ms on the short tiles, while a plain
    ``add`` of two such slices went 0.40 -> 0.46 ms, so plain calls keep the walk."""
    if row_tiles_fit(vectors_per_row, block * unroll):
        return True, 0
    short = short_row_unroll(vectors_per_row, block, unroll) if row_reuse else 0
    return bool(short), short


@dataclass(frozen=True)
class TiledGeometry:
    """Launch geometry of the grid-walk tiled kernel (the tiled path's kernel).

    The tiles of (inner axis, tile axis) are numbered ``(a, b)``; ``ga`` x ``gb``
    neighbouring tiles form a group. Block ``(x, y, z)`` owns tile
    ``a = (z % nga) * ga + x % ga``, ``b = (z // nga) * gb + x // ga`` and the chunk
    ``y`` of ``r`` consecutive rest indices (looping by ``gridDim`` when a count exceeds
    the grid limit). Blocks are dispatched x fastest, so the ``ga * gb`` tiles of one
    group and one chunk are in flight together.

    Attributes
    ----------
    grid : tuple of int
        ``(ga * gb, min(nchunks, max_yz), min(nz, max_yz))``.
    tile, ga, gb, nga, nz, rest, r, nchunks : int
    off32 : bool
        Every offset any thread forms (partial tiles included) fits in a signed 32-bit
        int, so the kernel may use 32-bit offset arithmetic.
    """

    grid: tuple
    tile: int
    ga: int
    gb: int
    nga: int
    nz: int
    rest: int
    r: int
    nchunks: int
    off32: bool


def _divisor_at_most(n: int, cap: int) -> int:
    """Largest divisor of ``n`` that is <= ``cap`` (``cap <= 0``: ``n`` itself)."""
    if cap <= 0 or cap >= n:
        return n
    for d in range(cap, 0, -1):
        if n % d == 0:
            return d
    return 1


def tiled_geometry(plan: Plan, tile: int = 32, ga: int = 0, gb: int = 0, r: int = 1,
                   max_yz: int = 65535) -> TiledGeometry | None:
    """Geometry of the grid-walk tiled kernel for a ``"tiled"`` plan, or None.

    ``ga``/``gb`` are the largest group sides wanted, in tiles (0: a whole row of
    tiles); the sides used are the largest divisors of the tile counts not above them,
    so every group is full. ``r`` is the number of rest indices a block walks (its
    loads for the next one overlap the stores of the current one). None when the
    counts do not fit the kernel's 32-bit block arithmetic (more than 2**31 groups).
    """
    inner = len(plan.shape) - 1
    e0, e1 = plan.shape[inner], plan.shape[plan.tile_axis]
    tiles0, tiles1 = -(-e0 // tile), -(-e1 // tile)
    rest = plan.size // (e0 * e1)
    ga = _divisor_at_most(tiles0, min(ga, 1 << 15) if ga > 0 else 1 << 15)
    gb = _divisor_at_most(tiles1, min(gb, 1 << 15) if gb > 0 else 1 << 15)
    nga = tiles0 // ga
    nz = nga * (tiles1 // gb)
    if nz >= 1 << 31:
        return None
    r = max(1, int(r))
    nchunks = -(-rest // r)
    lim = 0
    for k in range(len(plan.strides)):
        reach = abs(plan.offsets[k])
        for a, (n, s) in enumerate(zip(plan.shape, plan.strides[k])):
            reach += (n - 1 + (tile if a in (inner, plan.tile_axis) else 0)) * abs(s)
        lim = max(lim, reach)
    return TiledGeometry((ga * gb, min(nchunks, max_yz), min(nz, max_yz)), tile, ga, gb,
                         nga, nz, rest, r, nchunks, lim < (1 << 31) - 1)



# ----------------------------------------------------------------------------- reductions
#: Threads per block of every reduction/scan kernel.
BLOCK_THREADS = 256
#: Rows per block split of the outer reduction (block = 32 x OUTER_ROWS threads).
OUTER_ROWS = 8
#: Most blocks of the one-thread-per-output kernel ("short"); beyond 2**28 outputs
#: its threads loop over the rows (grid-stride), which keeps the grid far inside
#: CUDA's limit of 2**31 - 1 blocks for any row count.
SHORT_MAX_BLOCKS = 1 << 20
#: Fewest block-widths of elements one block of the "interleave" kernel folds per
#: thread (small runs take fewer blocks rather than blocks of one load per thread).
INTERLEAVE_MIN_ROUNDS = 8


@dataclass(frozen=True)
class ReductionGeometry:
    """How a planned reduction is launched.

    Attributes
    ----------
    kernel : {"rows_warp", "rows_group", "rows_block", "cols", "short", "tile", "interleave", "lanes"}
    grid, block : tuple of int
    vec : int
        Elements per vector load (1 = scalar loads; "short" only: -W, W rows that lie
        side by side per thread, one 16-byte load across them per step; "interleave":
        V > 1 reads the run as words of V elements, :func:`interleave_words`).
    group : int
        Lanes per row of "rows_group" (:func:`warp_group`; 32: "rows_warp").
    nchunks, chunk : int
        ("tile": ``chunk`` is the rows staged per block; "interleave": ``chunk``
        elements of the flat run per block, ``nchunks`` blocks.)
        The reduced range of each row is split into ``nchunks`` pieces of ``chunk``
        elements (the last may be shorter); partial results are combined in chunk
        order by the last block to finish (deterministic).
    """

    kernel: str
    grid: tuple
    block: tuple
    vec: int
    nchunks: int
    chunk: int
    group: int = 32


def _vec_width(itemsize: int) -> int:
    return 16 // itemsize if itemsize in (4, 8) else 1


#: Most bytes of the W accumulators a thread of the side-by-side "short" walk holds: W
#: = 16 // itemsize rows a thread, fewer where their accumulators would take more
#: (1-byte rows into 8-byte sums: 8 rows, 8-byte loads). H200, 2026-12-04, (k, n).T
#: over axis 1, n = 2**25, fraction of copy, 16 rows a thread -> 8 (two rounds):
#: uint8/int8/bool ``sum`` of k = 3, 5, 16 0.39, 0.41-0.42, 0.69-0.73 -> 0.58-0.60,
#: 0.66-0.68, 0.97-1.03; ``prod`` 0.36, 0.36-0.37, 0.56-0.60 -> 0.58-0.59, 0.66-0.71,
#: 0.84-0.95; ``mean`` 0.24, 0.26-0.27, 0.64-0.65 -> 0.52, 0.54-0.56, 0.82-0.84;
#: ``max`` (16 rows either way) within 0.04.
SIDE_ACC_BYTES = 64


def _short_vec(plan: ReductionPlan, itemsize: int, base_address: int,
               side_by_side: bool = False, acc_size: int = 0) -> int:
    """Elements per load of the "short" kernel: whole 16-byte vectors when every row
    is a contiguous run of at least :data:`SHORT_VECTOR_ROW_BYTES` of them at a
    16-byte aligned address (one kept axis whose stride, like the row, is a whole
    number of vectors), else 1 (shorter rows summed no faster with vectors on the
    H200). With ``side_by_side``, ``-W`` (W = 16 // itemsize rows per thread, each step
    one 16-byte load across them) where the rows lie side by side: one kept axis of
    stride 1, one reduced axis, ``nrows`` and the reduced stride multiples of W, a
    16-byte aligned base, elements of 1, 2 or 4 bytes (on the H200, 2026-12-02, sum of
    (3, n).T float32 0.75 -> 0.90 of copy, any of (16, n).T bool 0.43 -> 1.01; float64
    and int64 1.03-1.08 either way). ``acc_size``: bytes of an accumulator, W then at
    most :data:`SIDE_ACC_BYTES` of them (each step an 8-byte load when that leaves 8
    rows of 1-byte elements)."""
    vec = _vec_width(itemsize)
    if (vec > 1 and plan.nk == 1 and plan.inner_contiguous and plan.rowlen % vec == 0
            and plan.rowlen * itemsize >= SHORT_VECTOR_ROW_BYTES
            and plan.kstride[0] % vec == 0 and base_address % 16 == 0):
        return vec
    if side_by_side and itemsize in (1, 2, 4):   # 8-byte rows: no gain measured
        w = 16 // itemsize
        if acc_size:
            w = max(min(w, SIDE_ACC_BYTES // acc_size), 8 // itemsize)
        if (plan.nk == 1 and plan.nr == 1 and plan.kstride[0] == 1 and plan.nrows % w == 0
                and plan.rstride[0] % w == 0 and base_address % 16 == 0):
            return -w
    return 1


#: Loads of its row a lane of a ``"rows_group"`` group should have (a load: one
#: element, or one 16-byte word with vector loads): :func:`warp_group`.
WARP_ROW_LOADS = 8
#: Longest rows, in loads, that groups of fewer than 32 lanes take (rows of 16-byte
#: words of 16 one-byte elements: :data:`WARP_GROUP_MOST_BYTE_LOADS`); longer ones
#: keep the warp of ``"rows_warp"``. 112: seven loads a lane of a group of 16 (on the
#: H200, 2026-12-04, rows of 100-110 words read at 0.89-0.97 of copy in groups of 16
#: against 0.73-0.85 with the warp; rows of 125-128 words, eight loads a lane, lost).
WARP_GROUP_MOST_LOADS = 112
WARP_GROUP_MOST_BYTE_LOADS = 48
#: Fewest warps per SM :func:`warp_group` keeps busy before it gives a row more lanes.
WARP_GROUP_MIN_WARPS = 24


def warp_group(nrows: int, rowlen: int, vec: int, sm_count: int) -> int:
    """Lanes per row of a reduction of ``nrows`` rows of ``rowlen`` elements loaded
    ``vec`` at a time, on ``sm_count`` SMs: 32 (``"rows_warp"``) for rows of more
    than :data:`WARP_GROUP_MOST_LOADS` loads, else the fewest (a power of two) that
    leave each lane at most :data:`WARP_ROW_LOADS` loads, doubled while the rows
    would occupy fewer than :data:`WARP_GROUP_MIN_WARPS` warps per SM.

    On the H200 (2026-12-04, 128 MiB arrays, fraction of copy; a warp of 32 lanes a
    row -> this rule; docs/reductions.md, "rows_group"): ``sum(x, axis=1)`` of float32
    (n, 200) 0.45 -> 0.76 (50 words: 8 lanes), (n, 300) 0.53 -> 0.73 (16 lanes), int32
    (n, 200) 0.45 -> 0.73, float16 (n, 300) 0.27 -> 0.57; ``all`` of bool (n, 256)
    0.08 -> 0.59 (2 lanes). Groups of 16 on rows of 113-128 words read float32
    (n, 500) at 0.62 against 0.75, and groups of 8 on int8 and bool rows of 63 words
    ``max`` and ``all`` at 0.15-0.17 against 0.18-0.21: those keep the warp. Rows of
    97-112 words kept the warp too (an int64 (n, 200) ``max`` read 0.60 in groups of
    16 against 0.69 on 128 MiB arrays) until a probe on 1 GiB arrays, two processes a
    variant, read them faster in groups of 16 (warp -> 16 lanes): ``sum`` of float64
    (n, 200) 0.80 -> 0.95, int64 (n, 200) ``max`` 0.77 -> 0.94, float32 (n, 400) 0.75 ->
    0.96, ``argmax`` of float32 (n, 400) 0.29 -> 0.60, float16 (n, 800) 0.12 -> 0.40."""
    loads = -(-rowlen // max(vec, 1))
    if loads > (WARP_GROUP_MOST_BYTE_LOADS if vec == 16 else WARP_GROUP_MOST_LOADS):
        return 32
    group = 1
    while group < 32 and -(-loads // group) > WARP_ROW_LOADS:
        group *= 2
    while group < 32 and nrows * group < 32 * WARP_GROUP_MIN_WARPS * sm_count:
        group *= 2
    return group


def interleave_words(plan: ReductionPlan, itemsize: int, base_address: int) -> int:
    """Elements per 16-byte word of the "interleave" kernel's word walk, or 1 (element
    by element): the columns one contiguous run (the reduced stride equal to the
    column count) at a 16-byte aligned address, elements of 1, 2, 4 or 8 bytes (the
    caller asks only for the dtypes and accumulators of ``_reduce_common.takes_words``:
    real, integer and bool elements whose lanes fit shared memory). On the
    H200 (2026-12-03, n = 2**25, fraction of copy, element walk -> words): any/all of
    bool (n, 16) 0.50-0.52 -> 0.90-0.92, (n, 3) 0.40-0.42 -> 0.57-0.60, float32 sum
    (n, 9)-(n, 15) 0.83-0.87 -> 0.93-1.00, (n, 3) 0.81-0.82 -> 0.89-0.90; 8-byte elements even
    (docs/reductions.md, "interleave")."""
    if (itemsize in (1, 2, 4, 8) and plan.nr == 1 and plan.rstride[0] == plan.nrows
            and base_address % 16 == 0):
        return 16 // itemsize
    return 1


def reduction_geometry(plan: ReductionPlan, itemsize: int, sm_count: int,
                       base_address: int = 0, resident: int = 8,
                       tile: tuple = (TILE_BYTES, 0),
                       side_by_side: bool = False, words: bool = False,
                       narrow: bool = False, acc_size: int = 0) -> ReductionGeometry:
    """Choose kernel, grid and splitting for ``plan`` on a device of ``sm_count`` SMs.

    ``base_address`` is the byte address of the input's first element of row 0
    (for the alignment test of vector loads in the outer and short strategies). ``resident`` is
    the number of blocks of the chosen kernel that fit on one SM: a split reduction
    launches about one full wave, ``sm_count * resident`` blocks, so that no SM
    idles through a partial last wave. ``tile`` is ``(bytes, most rows)`` of one
    block of the "tile" kernel (0 rows: as many as fit). ``side_by_side``: the "short"
    kernel may take rows that lie side by side several to a thread (``vec`` negative,
    see :func:`_short_vec`; the plain reductions' kernels, not the fused ones), with
    ``acc_size`` the bytes of one accumulator (0: not counted).
    ``words``: the "interleave" kernel may read its run as 16-byte words
    (:func:`interleave_words`; the plain and the fused reductions ask it alike,
    ``_reduce_common.takes_words``). ``narrow``: the row kernels ("inner", "full") read
    contiguous rows of 1- and 2-byte elements as 16-byte vectors too (16 or 8
    elements a load; the plain reductions, not the fused ones).
    """
    sm = max(int(sm_count), 1)
    if plan.strategy == "short":
        # one thread per output row, in order: ceil(nrows / 256) blocks, capped (the
        # kernel's grid-stride loop takes the rest); scalar loads, no split
        vec = _short_vec(plan, itemsize, base_address, side_by_side, acc_size)
        threads = plan.nrows // -vec if vec < 0 else plan.nrows
        blocks = min(-(-threads // BLOCK_THREADS), SHORT_MAX_BLOCKS)
        return ReductionGeometry("short", (blocks,), (BLOCK_THREADS,), vec, 1, plan.rowlen)
    if plan.strategy == "lanes":
        # 16-byte chunks, one per thread per step; about 32 blocks per SM, the rest by
        # the grid-stride walk; whole vectors where the first row is 16-byte aligned
        vec = _vec_width(itemsize)
        chunks = plan.nrows * plan.rowlen // vec
        blocks = min(-(-chunks // BLOCK_THREADS), 32 * sm)
        return ReductionGeometry("lanes", (blocks,), (BLOCK_THREADS,),
                                 vec if base_address % 16 == 0 else 1, 1, plan.rowlen)
    if plan.strategy == "tile":
        # R rows staged per block (chunk carries R); the kernel loops over the tiles
        rows = tile_rows(plan.kstride[0], plan.rowlen, itemsize, tile[0], tile[1])
        blocks = min(-(-plan.nrows // rows), SHORT_MAX_BLOCKS)
        return ReductionGeometry("tile", (blocks,), (BLOCK_THREADS,), 1, 1, rows)
    if plan.strategy == "interleave":
        # block width a multiple of the column count (with words of V elements: of
        # ncols / gcd(ncols, V), so that the block's lanes are); about one wave of
        # blocks, each a chunk of whole block-widths of the flat run
        ncols = plan.nrows
        vec = interleave_words(plan, itemsize, base_address) if words else 1
        m = ncols // math.gcd(ncols, vec)
        width = m * (BLOCK_THREADS // m)
        lanes = width * vec
        total = plan.nrows * plan.rowlen
        wave = max(int(resident), 1) * sm
        chunk = -(-total // wave)
        chunk = max(-(-chunk // lanes), INTERLEAVE_MIN_ROUNDS) * lanes
        nchunks = -(-total // chunk)
        return ReductionGeometry("interleave", (nchunks,), (width,), vec, nchunks, chunk)
    if plan.strategy in ("inner", "full"):
        vec = 1
        if plan.inner_contiguous:
            vec = 16 // itemsize if narrow and itemsize in (1, 2) else _vec_width(itemsize)
        if plan.strategy == "inner" and (plan.rowlen <= 4096 or plan.nrows >= 32 * sm):
            group = warp_group(plan.nrows, plan.rowlen, vec, sm)
            warps = -(-plan.nrows * group // 32)
            blocks = min(-(-warps // (BLOCK_THREADS // 32)), 32 * sm)
            return ReductionGeometry("rows_warp" if group == 32 else "rows_group", (blocks,),
                                     (BLOCK_THREADS,), vec, 1, plan.rowlen, group)
        target = max(int(resident), 1) * sm
        nchunks = wave_chunks(plan.nrows, target, min(-(-plan.rowlen // 4096), 65535))
        chunk = -(-plan.rowlen // nchunks)
        chunk = -(-chunk // 64) * 64  # keep chunk starts 16-byte aligned
        nchunks = -(-plan.rowlen // chunk)
        if plan.nrows * nchunks == 1:
            # one block (at most 4096 elements): vector loads gain nothing there, and
            # the scalar instance compiles in about half the time (int64 sum: 0.26
            # against 0.49 s of NVRTC on the development CPU, 2026-12-02)
            vec = 1
        return ReductionGeometry("rows_block", (plan.nrows * nchunks,), (BLOCK_THREADS,),
                                 vec, nchunks, chunk)
    if plan.strategy == "outer":
        vec = _vec_width(itemsize)
        if vec > 1:
            ok = (plan.kstride[-1] == 1 and plan.kshape[-1] % vec == 0
                  and all(s % vec == 0 for s in plan.kstride[:-1])
                  and all(s % vec == 0 for s in plan.rstride)
                  and base_address % 16 == 0)
            vec = vec if ok else 1
        tiles = -(-plan.nrows // (32 * vec))
        max_chunks = max(1, plan.rowlen // (OUTER_ROWS * 16))
        # split the reduced range only as far as needed to fill one wave: on the H200
        # a 4-way split of 640^3 axis=0 ran at 0.57 of copy against 0.78 unsplit
        wave = max(int(resident), 1) * sm
        nchunks = wave_chunks(tiles, wave, min(max_chunks, 65535))
        chunk = -(-plan.rowlen // nchunks)
        nchunks = -(-plan.rowlen // chunk)
        return ReductionGeometry("cols", (tiles, nchunks), (32, OUTER_ROWS), vec, nchunks,
                                 chunk)
    raise error(ValueError, "reduction_geometry", f"strategy {plan.strategy!r} launches no kernel")


# ----------------------------------------------------------------------------- register rows
#: Most bytes of input a thread of the register kernels of short dense rows takes
#: (``xs_scan_rowregs``, ``xs_arg_rowregs``, and ``xs_reduce_rowregs`` for Q > 1 rows; it
#: also takes single longer rows, ``reduce_rows.regs_q``): its rows are read as 16-byte words a
#: warp's span apart, and past 48 bytes a thread the L1 cache no longer holds the lines
#: between one word and the next (H200, 2**25 float32 rows scanned, fraction of copy
#: against the staged tile: rows of 1, 2, 3, 4, 6, 8, 12 elements 0.87-0.99 against
#: 0.63-0.81; of 16 (64 bytes) 0.78 against 0.83, of 5 (80 bytes) 0.59 against 0.76).
REGS_MOST_BYTES = 48


def regs_rows(length: int, itemsize: int) -> int:
    """Rows Q one thread of the register kernels of short dense rows takes: the fewest
    whose ``Q * length`` elements of ``itemsize`` bytes are whole 16-byte words,
    ``16 // gcd(length * itemsize, 16)``, when they hold at most
    :data:`REGS_MOST_BYTES` bytes; else 0.

    >>> [regs_rows(k, 4) for k in (1, 2, 3, 4, 5, 6, 8, 12, 16)]
    [4, 2, 4, 1, 0, 2, 1, 1, 0]
    >>> [regs_rows(k, 1) for k in (3, 5, 16, 24, 64)]
    [16, 0, 1, 2, 0]
    """
    if length < 1 or itemsize < 1:
        return 0
    q = 16 // math.gcd(length * itemsize, 16)
    return q if q * length * itemsize <= REGS_MOST_BYTES else 0
