"""Shared by the reduction and scan executors: dtype tables, kernel lookup, packing.

Nothing here imports CuPy at import time.
"""

from __future__ import annotations

import functools
import struct

import numpy as np

from .._core import dtypes as _dtypes
from ._cupy import cupy as _cupy
from . import _compile
from ._compile import Request, current_device, function, prefetch, source
from ._knobs import Knobs
from ._lru import Bounded

__all__ = [
    "CTYPE", "HALF", "COMPLEX", "SUPPORTED", "REDUCED", "ARG_REDUCED", "acc_dtype", "minmax_acc_dtype",
    "kernel", "pack_struct", "capacity", "reduced_capacity", "sm_count", "source", "resident_blocks", "kernel_resident", "TUNING",
    "VARIANTS", "ROW_BYTE_WORDS", "takes_words", "words_tuning", "WORDS_ACC_BYTES", "WORDS_SHARED_BYTES",
]

#: Launch tuning; see docs/reductions.md. Reduction kernels take ``(MINB, B)``:
#: ``MINB`` the minimum resident blocks per SM given to ``__launch_bounds__`` (it caps
#: the registers), ``B`` the loads each thread batches (issued together before any
#: is folded; ``B = 1`` is the original one-load-in-flight loop). Chosen from ptxas
#: register counts (no spills in the hot loops, but for a few instantiations of
#: ``(4, 4)`` below: a complex64 ``sum`` spills 16 bytes) and the H200 benchmark
#: (``benchmarks/reductions.py --sweep``). ``rows_warp`` and ``rows_group`` ``(4, 4)``:
#: on the H200 (2026-12-04, ``sum``/``max``/``all(x, axis=1)``, 128 MiB arrays, the
#: knob switched within one process, two rounds, fraction of copy) the warp read
#: float64 (n, 256) ``max`` at 0.80 against 0.56 for ``(3, 8)`` (CuPy 0.74), (n, 1000)
#: 0.77 against 0.65, bool (n, 1000) ``all`` 0.40 against 0.18, int8 ``max`` 0.38
#: against 0.20, 3-5 % below ``(3, 8)`` on ``sum`` of float64 (n, 194), int64 (n, 200)
#: and float32 (n, 500); ``(8, 2)``, ``(6, 4)``, ``(4, 8)``, ``(2, 8)``, ``(2, 16)``
#: between them or below. The groups: int8 (n, 600) ``max`` 0.47 against 0.20 (CuPy
#: 0.34), float32 (n, 200)-(n, 300) ``max`` +0.05, ``sum`` -0.02 to -0.05, int32 (n,
#: 200) ``max`` 0.77 against 0.83. ``short`` (one thread per output row): ptxas
#: 12.9/13.0 for sm_90 gives ``(6, 4)`` 36-40 registers and no spills (8 bytes in the
#: float64 ``var`` pass), ``(5, 8)`` 40-48 and none, ``(8, 4)`` 32 and 4-28 bytes
#: for rows element by element (ptxas 13, 2026-12-06: rows of whole 16-byte vectors,
#: V > 1, spill 32-208 bytes at B = 4 and 0-56 at 2; complex accumulators of V = 1
#: rows 96-168; not timed against the H200 readings below);
#: on the H200 (2026-12-01, ``sum(x, axis=1)`` of (n, k) float32, n = 2**25, against
#: CuPy's time) ``(8, 4)`` read k = 5, 8, 12 at 1.11, 1.08, 1.01 against 1.01, 1.04,
#: 0.95 for ``(6, 4)``, and (n, 16) with vectors at 0.99. ``lanes`` ``(8, 2)``: (n, 8)
#: 1.08x and (n, 16) 0.97x CuPy against 1.05x and 0.93x for ``(4, 2)``. ``tile``: ``(MINB, B, bytes, rows)``, the shared
#: memory one block stages (the plan chooses "tile" by ``TILE_BYTES``, 32768; the
#: kernel takes any size that holds one row) and the most rows it stages (0: as many
#: as fit): ``(2, 8, 32768, 0)`` led the H200 sweep (benchmarks/short_rows.py,
#: 2026-12-01) at 0.80-0.86 of copy for rows of 8-20 float32 bytes, 0.92 at 64.
#: ``interleave`` ``(2, 32)``: 32 loads in flight a thread at 2 blocks per SM; on the
#: H200 (2026-12-02, ``sum``/``max(x, axis=0)`` of (n, k) float32, n = 2**25, two
#: processes) 0.80-0.84 of copy at k = 2-3, 0.88-0.93 at k = 5-15 and 0.96 at 4, where
#: ``(4, 8)`` read 0.63-0.76, 0.80-0.88 and 0.82-0.89, and ``(4, 16)``, ``(2, 16)``,
#: ``(3, 16)`` 0.72-0.93; float64 and int64 (n, 3) 0.95-0.97 against 0.81-0.85.
#: ``interleave_words`` ``(MINB, B)``: the same kernel reading its run as 16-byte words
#: (:func:`~._geometry.interleave_words`), B words in flight a thread: on the H200
#: (2026-12-03, n = 2**25) ``(2, 8)`` led or matched (within 0.02) ``(2, 4)``, ``(4, 4)``
#: and ``(4, 8)`` on bool, uint8, int16, float16, float32, float64 and int64 (n, 3) and
#: float32 (n, 9)-(n, 16), by up to 0.16 of copy (uint8 (n, 3) ``sum``).
#: Scans: ``scan_rows`` (MINB of the row scan); ``scan_tile`` (bytes a block of the
#: short-row scan stages, ``scans_short.cu``; its threads issue all their loads of
#: a tile at once, into registers: on the H200, 2026-12-02, 32768 ran
#: ``cumulative_sum(x, axis=1)`` of (n, 3), (n, 8), (n, 16), (n, 32) float32 and (n, 3) int8 at 0.76, 0.87, 0.88, 0.81,
#: 0.85 of copy, 16384 at 0.77, 0.86, 0.87, 0.76, 0.77, 8192 at 0.65-0.72; the kernel
#: before, which loaded a tile after storing the last, 0.68, 0.76, 0.79 at 16384);
#: ``scan_warp`` (U steps of 32 words in flight a warp, MINB of ``xs_scan_warprows``,
#: the warp scan of dense 4-byte rows over 16-byte words; ``(0, 0)``: off): on the
#: H200 (2026-12-03, ``cumulative_sum(x, axis=1)`` of (2**25, k) float32, k = 5..32)
#: ``(4, 4)`` 0.86-0.93 of copy (ptxas 13.0 for sm_90: 64 registers and 12 bytes
#: spilled for float32 sums, none for int32), ``(2, 4)`` 0.78-0.88,
#: ``(8, 2)`` 0.65-0.87; ``scan_rows_group`` (MINB of ``xs_scan_rows_group`` and U, the
#: steps of 4 elements a lane it loads together; U = 0: a warp a row always): on the
#: H200 (2026-12-04, ``cumulative_sum(x, axis=1)`` of 512 MiB (n, k), fraction of
#: copy) ``(4, 2)`` read float32 k = 33, 50, 64 at 0.34, 0.38, 0.72 against 0.16,
#: 0.25, 0.36 with the warp, float64 k = 33, 64 at 0.59, 0.92 against 0.35, 0.68,
#: bool (n, 50) 0.71 against 0.35, and k = 100-128 as the warp did (0.50-0.95);
#: ``(3, 4)`` 0.30-0.88 and below the warp from k = 128, ``(4, 1)``, ``(6, 1)``, ``(8,
#: 1)``, ``(6, 2)``, ``(2, 4)`` and ``(4, 4)`` below ``(4, 2)`` but for float32 k = 50-64
#: at ``(6, 1)`` (ptxas 13 for sm_90: ``(4, 2)`` 64 registers and 0-12 bytes spilled,
#: ``(4, 1)`` none, ``(3, 4)`` 75-80 registers and none); ``colsplit`` (MINB
#: of the ``"columns_split"`` scan launch, and its chunks per SM: 4 led 2, 3, 5, 6, 8
#: on (n, 3), (n, 8), (n, 16) float32); ``var_rows`` (MINB of ``xs_var_rows`` for rows
#: of at most 4 elements, MINB for longer ones, and the rows a thread loads at once
#: for rows of at most 4 elements, half as many at 8, one from 16: one row a thread,
#: MINB 6 led 1, 4, 8 by 13-15% on (n, 2), (n, 3), (n, 3)[::2], while from 6 elements
#: 4 led by 7-20% and 6 spilled, 1.8-2.0x as slow at 12 and 16; on the H200,
#: 2026-12-03, n = 2**25, var(x, axis=1), fraction of copy, (4, 4, 4) read (n, 3)
#: 0.59, (n, 4) 0.79, (n, 8) 0.88, (3, n).T 0.62, float64 (n, 3) 0.96 against 0.48,
#: 0.68, 0.75, 0.42, 0.88 for (6, 4, 1), (4, 4, 2) and (6, 4, 2) between them, (4, 4,
#: 8) 0.63 on (n, 3) but 0.64-0.75 on the rest); ``var_regs`` (``xs_var_rowregs``,
#: dense rows of 1-, 2- and 4-byte elements that are not whole 16-byte words: MINB,
#: the bytes a thread's rows are doubled within, the most bytes of the fewest rows
#: that fill whole words; ``var_kernels.var_regs_q``; on the H200, 2026-12-04, n =
#: 2**25 float32, var(x, axis=1), fraction of copy against ``xs_var_rows`` in the same
#: process, (n, 2) 0.44-0.51 -> 0.86-0.88, (n, 3) 0.57-0.64 -> 0.86, std (n, 3)
#: 0.53-0.56 -> 0.79-0.82, (n, 5) 0.51-0.56 -> 0.81-0.90, (n, 6) 0.48-0.64 -> 0.85-0.87,
#: (n, 7) 0.59-0.67 -> 0.76-0.77, (n, 10) 0.50 -> 0.81-0.84, (n, 14) 0.48 -> 0.72, int32
#: (n, 3) 0.74-0.78 -> 0.95-0.97; MINB 6 lost on rows of 6 and more, 8 rows of 3 a
#: thread lost to 4); ``var_side`` (MINB of ``xs_var_side``, rows of 2-4 4-byte
#: elements side by side, 0 turns it off); the
#: look-back scan
#: (``scans.cu``): ``lookback_items`` elements per thread
#: for 4-byte types (halved for 8-byte ones), MINB ``lookback_minb`` (5: at most 51
#: registers), ``lookback_group`` tiles per group and ``lookback_window`` groups
#: inspected per round (both at most 32), ``lookback_direct`` groups before a tile's
#: own whose aggregate the tile rebuilds from their tiles' aggregates (0..4),
#: ``lookback_f32_run`` (float32 sums; 1: run in float32 within a thread, 0: in
#: float64, 2: compensated float32 run totals, float64 outputs), ``lookback_threads``
#: (threads of a tile: 64, 128, 256 or 512 are tested; set ``lookback_minb`` with it,
#: as both fix the register cap, 65536 / (threads * minb), and threads * minb must
#: stay within 2048). Only ``lookback_items``, ``lookback_group``,
#: ``lookback_f32_run`` and ``lookback_threads`` change the bits of float results.
#: ``arg_tile`` (``xs_arg_tile``, argmin/argmax of short rows staged in shared memory:
#: the most bytes of a tile's span, a multiple of 16 of at most 16384; MINB, which is
#: also the blocks an SM of its grid, for 4- and 8-byte elements and for 1- and 2-byte
#: ones; 0 turns it off;
#: ``argreductions.arg_tile_rows``). On the H200 (2026-12-04, argmax(x, axis=1), n =
#: 2**25 rows, two rounds) MINB 6 against 4 read uint8 (n, 3) 0.85-0.87 of copy against
#: 0.78-0.84, bool (n, 100) 0.48 against 0.44-0.46, int16 (n, 5) 0.79-0.84 against
#: 0.79-0.80, but float64 (n, 5) 0.88 against 0.91 and uint64 (n, 16) 0.92 against 0.94;
#: spans of 8192 bytes (MINB 8) lost on 4- and 8-byte rows (float32 (n, 5) 0.71
#: against 0.81).
#: Every assignment bumps ``TUNING.version`` (:class:`._knobs.Knobs`), which the keys of
#: the prepared calls and recipes hold: a changed knob is never served a stale plan.
TUNING = Knobs({
    "rows_warp": (4, 4),
    "rows_group": (4, 4),
    "rows_block": (3, 8),
    "cols": (3, 8),
    "short": (8, 4),
    "tile": (2, 8, 32768, 0),
    "interleave": (2, 32),
    "interleave_words": (2, 8),
    "lanes": (8, 2),
    "scan_rows": 4,
    "scan_rows_group": (4, 2),
    "scan_tile": 32768,
    "scan_regs": 2,
    "scan_warp": (4, 4),
    "red_regs": 4,
    "arg_regs": 6,
    "arg_tile": (16384, 4, 6),
    "colsplit": 4,
    "var_rows": (4, 4, 4),
    "var_regs": (4, 48, 128),
    "var_side": 4,
    "lookback_items": 32,
    "lookback_minb": 5,
    "lookback_group": 32,
    "lookback_window": 32,
    "lookback_direct": 1,
    "lookback_f32_run": 1,
    "lookback_threads": 256,
})

#: (MINB, B) of the warp and group row kernels over 16-byte words of 1-byte elements
#: (in place of their ``TUNING``): B = 4 at MINB 4 spilled 50-128 bytes (ptxas 13,
#: sm_90) and B = 2 none, at the same speed; the warp read (n, 1000) int8 ``max``,
#: uint8 ``sum`` and bool ``all`` at 0.44-0.48 of copy at MINB 3 against 0.39-0.40 at
#: 4, the groups (n, 256)-(n, 600) at 0.38-0.63 at MINB 4 against 0.33-0.58 at 3 (H200,
#: 2026-12-04, the knobs switched within one process).
ROW_BYTE_WORDS = {"rows_warp": (3, 2), "rows_group": (4, 2)}

#: The variants each knob can take (tested on the GPU; the benchmark's --sweep times
#: those of its cube cases, which ``rows_group`` has none of).
VARIANTS = {
    "rows_warp": [(6, 1), (4, 4), (3, 8)],
    "rows_group": [(6, 1), (4, 4), (3, 8)],
    "rows_block": [(1, 1), (4, 4), (3, 8)],
    "cols": [(6, 1), (4, 4), (3, 8)],
    "short": [(6, 4), (5, 8), (8, 4)],
    "tile": [(8, 8, 8192, 256), (4, 8, 16384, 0), (2, 8, 32768, 0)],
    "interleave": [(4, 8), (4, 16), (2, 32)],
    "lanes": [(4, 4), (4, 2), (8, 2)],
    "colsplit": [2, 6, 4],
    "scan_regs": [0, 4, 2],
    "scan_warp": [(0, 0), (2, 4), (8, 2), (4, 4)],
    "scan_rows_group": [(4, 1), (3, 4), (4, 2)],
    "red_regs": [0, 2, 4],
    "arg_regs": [0, 4, 6],
    "arg_tile": [0, (8192, 6, 8), (16384, 4, 6)],
    "var_rows": [(6, 4, 1), (6, 4, 2), (4, 4, 2), (1, 1, 1), (4, 4, 4)],
    "var_regs": [(0, 0, 0), (4, 96, 96), (4, 48, 128)],
    "var_side": [0, 3, 4],
    "lookback_items": [16, 32, 64],
    "lookback_minb": [3, 4, 5],
    "lookback_group": [32, 4],
    "lookback_window": [32, 2],
    "lookback_direct": [2, 0, 1, 4],
    "lookback_f32_run": [1, 0, 2],
    "lookback_threads": [256, 128, 512],
}

#: C type of each dtype the kernels handle (from the one table, _core/dtypes.py; float16
#: as ``xs_half``, ``xstride/detail/half.cuh``; complex as ``xs_complex64``/``128``,
#: ``xstride/detail/complex.cuh``); anything else goes to CuPy.
HALF = np.dtype(np.float16)
COMPLEX = frozenset({np.dtype(np.complex64), np.dtype(np.complex128)})
CTYPE = {np.dtype(name): c for name, c in _dtypes.C_TYPES.items()} | {
    HALF: "xs_half", np.dtype(np.complex64): "xs_complex64",
    np.dtype(np.complex128): "xs_complex128"}
#: The dtypes the scans take: float16 too, carried in float64 and each output rounded
#: once, as float32 (NumPy rounds every partial sum to float16: its bits can differ,
#: never closer to the exact prefix sum); not complex.
SUPPORTED = frozenset(CTYPE) - COMPLEX
#: The dtypes the reductions take: float16 (loaded as ``xs_half`` and widened: sums and
#: products to float64, min/max to float32, exact; a float16 result rounded once) and,
#: for sum, prod, mean, all and any only, complex (folded in complex128; the public
#: layer sends complex min/max/var/std to the library).
REDUCED = frozenset(CTYPE)
#: The dtypes the arg-reductions take (float16 compared in float32; not complex).
ARG_REDUCED = REDUCED - COMPLEX


def acc_dtype(out: np.dtype) -> np.dtype:
    """Accumulator of sum/prod/scans for a result dtype: float64 for floating results
    (float32 sums are carried in float64 and rounded once), int64/uint64 for
    integers (exact modulo 2**64; narrower results wrap exactly like NumPy's),
    complex128 for complex results."""
    if out.kind == "f":
        return np.dtype(np.float64)
    if out.kind == "c":
        return np.dtype(np.complex128)
    if out.kind == "u":
        return np.dtype(np.uint64)
    return np.dtype(np.int64)


def minmax_acc_dtype(dt: np.dtype) -> np.dtype:
    """Accumulator of min/max: the input type, widened to 32 bits for the shuffles."""
    if dt.kind == "b" or (dt.kind == "i" and dt.itemsize < 4):
        return np.dtype(np.int32)
    if dt.kind == "u" and dt.itemsize < 4:
        return np.dtype(np.uint32)
    if dt == HALF:
        return np.dtype(np.float32)
    return dt


#: Most bytes of a thread's V accumulators in the "interleave" kernel's word walk at the
#: full B words in flight; past it B is halved (ptxas 13 for sm_90: int8 sums, 16 int64
#: accumulators, spill 88 bytes at B = 8 and none at 4).
WORDS_ACC_BYTES = 64
#: Most bytes of the word walk's lanes in shared memory, ``256 * V`` accumulators (a
#: block may declare 48 KiB; a 1-byte input with a complex128 accumulator,
#: ``sum(b, axis=0, dtype=complex128)``, would take 64 KiB and fail to compile).
WORDS_SHARED_BYTES = 32768


def takes_words(dt: np.dtype, acc: np.dtype) -> bool:
    """True when the "interleave" kernel may read a run of ``dt`` elements as 16-byte
    words (:func:`~._geometry.interleave_words` then decides by the layout): real,
    integer and bool elements of at most 8 bytes, whose ``256 * 16 // itemsize``
    accumulators of ``acc`` fit :data:`WORDS_SHARED_BYTES`. The plain reductions and
    the fused ones ask the same, so a fused reduction keeps the unfused call's bits."""
    dt, acc = np.dtype(dt), np.dtype(acc)
    return (dt.kind in "biuf" and dt.itemsize <= 8
            and 256 * (16 // dt.itemsize) * acc.itemsize <= WORDS_SHARED_BYTES)


#: MINB of the tile kernel over 8-byte elements, at least: at ``TUNING["tile"]``'s 2,
#: ptxas 13 (sm_90) gave the int64 sum 68 registers (3 blocks an SM; 64 and 4 blocks
#: for int64 max and every float64 op), at 4 all of them 64 and no spills. H200,
#: 2026-12-04, 2**27 elements, fraction of copy, MINB 2 -> 4: int64 ``sum(x, axis=1)``
#: of (n, 33) 0.83 -> 0.88, (n, 50) 0.73 -> 0.83, (n, 100) 0.91 -> 1.02, (n, 128) 0.78
#: -> 0.93 (CuPy 0.89); int64 ``max`` and float64 within 0.02 either way. 4-byte
#: elements keep 2 (at 4 they lost 0.04-0.10: 52 registers, 4 blocks against 5).
TILE_WIDE_MINB = 4


def row_tuning(kernel_name: str, itemsize: int) -> tuple:
    """``(MINB, B)`` of a reduction kernel of ``TUNING``: the tile kernel over 8-byte
    elements at least :data:`TILE_WIDE_MINB` blocks an SM."""
    minb, batch = TUNING[kernel_name][:2]
    if kernel_name == "tile" and itemsize == 8:
        minb = max(minb, TILE_WIDE_MINB)
    return minb, batch


def words_tuning(vec: int, acc: np.dtype) -> tuple:
    """``(MINB, B)`` of the word walk for words of ``vec`` elements into ``acc``:
    ``TUNING["interleave_words"]``, B halved past :data:`WORDS_ACC_BYTES` of
    accumulators."""
    minb, batch = TUNING["interleave_words"]
    if vec * np.dtype(acc).itemsize > WORDS_ACC_BYTES:
        batch = max(batch // 2, 1)
    return minb, batch


def kernel(source_file: str, expression: str, partner: str | None = None):
    """The compiled ``cupy.RawKernel`` for one template instantiation (on the current
    device, from :func:`xstride._kernels._compile.function`).

    ``partner``: the instantiation a program nearly always launches beside this one
    (``max`` of the layout of a ``min``: a bounding box, a range), started on a compile
    thread while this one compiles (:func:`xstride._kernels._compile.prefetch`): a
    first ``min`` and ``max`` compile side by side. A hit starts nothing; neither does
    a host of fewer than four CPUs (two NVRTC runs would share too few), and a program
    that never asks for the partner has spent one compile of CPU time on it (and, a
    short script, waits for it at exit).
    """
    if partner is not None and _compile.COMPILE_THREADS >= 3:
        prefetch([Request(partner, file=source_file, name_expressions=(partner,))])
    return function(expression, file=source_file, name_expressions=(expression,))


#: The op whose kernel :func:`kernel` compiles beside an op's (the same layout and
#: types): min and max, of a bounding box or a range (argmin is as often alone).
PARTNER_OP = {"min": "max", "max": "min"}


def capacity(n: int) -> int:
    """Descriptor capacity for ``n`` axes: 4 covers nearly every coalesced layout."""
    return 4 if n <= 4 else 64


def reduced_capacity(n: int) -> int:
    """Capacity of the reduced axes of a reduction kernel's descriptor: 1 for one
    reduced axis (the kernels then compile only the one-axis walks: smaller, faster
    to compile), else :func:`capacity`."""
    return 1 if n == 1 else capacity(n)


def pack_struct(*groups, tail=()) -> np.ndarray:
    """Pack groups of int64 (each padded by the caller) into a size-1 void array that
    CuPy passes to a kernel by value."""
    values = [int(v) for g in groups for v in g] + [int(v) for v in tail]
    data = struct.pack(f"<{len(values)}q", *values)
    return np.frombuffer(data, dtype=np.dtype((np.void, len(data)))).copy()


def pad(values, cap: int, fill: int) -> tuple:
    values = tuple(values)
    return values + (fill,) * (cap - len(values))


@functools.lru_cache(maxsize=64)
def _sm_count(device_id: int) -> int:
    cp = _cupy()
    return int(cp.cuda.runtime.getDeviceProperties(device_id)["multiProcessorCount"])


def resident_blocks(fn, threads: int) -> int:
    """Blocks of ``threads`` threads of kernel ``fn`` that fit on one SM at once (from
    its register and static shared memory use; 4 if CuPy cannot say)."""
    try:
        regs = int(fn.num_regs)
        smem = int(fn.shared_size_bytes)
    except Exception:  # attribute missing in this CuPy: a safe middle value
        return 4
    warps = -(-threads // 32)
    regs_per_warp = -(-max(regs, 1) * 32 // 256) * 256
    by_regs = 65536 // (regs_per_warp * warps)
    by_threads = 2048 // threads
    by_smem = (227 * 1024) // (smem + 1024)
    return max(1, min(by_regs, by_threads, by_smem, 32))


_RESIDENT = Bounded(1024)


def kernel_resident(source_file: str, expression: str, threads: int) -> int:
    """:func:`resident_blocks` of one compiled instantiation on the current device,
    cached."""
    key = (current_device(), source_file, expression, threads)
    got = _RESIDENT.get(key)
    if got is None:
        got = _RESIDENT.put(key, resident_blocks(kernel(source_file, expression), threads))
    return got


def sm_count() -> int:
    """Number of SMs of the current device."""
    cp = _cupy()
    return _sm_count(cp.cuda.runtime.getDevice())
