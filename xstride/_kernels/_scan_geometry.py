"""CUDA launch geometry of the scan kernels: the short-row scan's staged tiles
(``xs_scan_tile``: rows a tile, loads a thread, bytes staged), the rows a thread of the
register scan takes (``xs_scan_rowregs``), the lanes a row of the row scan
(``xs_scan_rows_group``) and the rows of the "columns" scan's 16-byte accesses. Built
on :mod:`._geometry` (``regs_rows``, ``WARP_GROUP_MIN_WARPS``); the ``"columns_split"``
scan's is :mod:`._colsplit_geometry`. Pure Python (no CuPy import), tested on the CPU.
"""

from __future__ import annotations

from .._core.errors import error
from ._geometry import WARP_GROUP_MIN_WARPS, regs_rows

__all__ = ["scan_tile_rows", "scan_tile_loads", "scan_tile_bytes", "SCAN_TILE_MOST_LOADS",
           "SCAN_TILE_THREADS", "SCAN_REGS_SIZES", "scan_regs_rows", "columns_vector",
           "scan_row_group"]


def scan_tile_rows(length: int, init: int, in_size: int, out_size: int,
                   tile_bytes: int) -> tuple[int, int]:
    """``(R, out_offset)`` of the short-row scan kernel ("tile", ``xs_scan_tile`` in
    scans_short.cu): the most rows R whose staged input (``R * length`` elements of
    ``in_size`` bytes) and outputs (``R * (length + init)`` of ``out_size``), each
    padded by one element after every 32 plus one, fit ``tile_bytes``, and the byte
    offset of the output array (the input's bytes rounded up to 16)."""
    def padded(n):
        return n + n // 32 + 1

    def fits(r):
        off = -(-padded(r * length) * in_size // 16) * 16
        return off + padded(r * (length + init)) * out_size <= tile_bytes, off

    lo, hi = 0, tile_bytes // max(length * in_size, 1) + 1
    while lo < hi:                        # the largest r that fits
        mid = (lo + hi + 1) // 2
        if fits(mid)[0]:
            lo = mid
        else:
            hi = mid - 1
    if lo < 1:
        raise error(ValueError, "scan_tile_rows",
                    f"a row of {length} elements does not fit {tile_bytes} bytes")
    return lo, fits(lo)[1]


#: Most loads a thread of the short-row scan holds in registers (NV of
#: ``xs_scan_tile``): ptxas 13 for sm_90 gives 63 registers at 16 and 242 at 64 (a
#: 32 KiB tile of int8 in and out), which leaves one block per SM.
SCAN_TILE_MOST_LOADS = 16
#: Threads of a block of ``xs_scan_tile`` (its ``__launch_bounds__``).
SCAN_TILE_THREADS = 256


def scan_tile_bytes(tile_bytes: int, in_size: int, out_size: int) -> int:
    """The bytes a block of the short-row scan stages: ``tile_bytes``, or less where
    narrow elements would need more than :data:`SCAN_TILE_MOST_LOADS` loads a thread."""
    return min(tile_bytes, SCAN_TILE_MOST_LOADS * SCAN_TILE_THREADS * (in_size + out_size))


def scan_tile_loads(tile_bytes: int, in_size: int, out_size: int) -> int:
    """Loads NV each of the :data:`SCAN_TILE_THREADS` threads makes of one tile of the
    short-row scan (``xs_scan_tile``): enough for the largest input span
    :func:`scan_tile_rows` can give, since input and outputs (at least as many) share
    ``tile_bytes``."""
    return max(1, -(-(tile_bytes // (in_size + out_size)) // SCAN_TILE_THREADS))


#: Bytes of the elements (in and out alike) the register scan takes: 4 (float32, int32
#: and uint32 sums and products) and 2 (float16, and 2-byte integers scanned in their
#: own type, ``dtype=``). H200, 2026-12-04, ``cumulative_sum(x, axis=1)``, n = 2**25,
#: fraction of copy, staged -> registers (the same bits, two rounds): float16 (n, 1),
#: (n, 2), (n, 3), (n, 4), (n, 6), (n, 8), (n, 16) 0.41-0.43, 0.40-0.43, 0.41, 0.42-0.43,
#: 0.41-0.42, 0.43, 0.43 -> 0.90-1.00, 0.93-1.00, 0.90-0.93, 0.98-1.00, 0.89-0.91,
#: 0.99, 0.96; int16 (n, 3) with ``dtype=int16`` 0.45 -> 0.77-0.78 (CuPy 0.002-0.007).
SCAN_REGS_SIZES = (2, 4)


def scan_regs_rows(length: int, in_size: int, out_size: int) -> int:
    """Rows Q each thread of the register scan of short dense rows (``xs_scan_rowregs``
    in scans_short.cu) takes: :func:`regs_rows` for inputs and outputs of one size of
    :data:`SCAN_REGS_SIZES`, else 0. Outputs of 8 bytes (int32 summed into int64) stay
    staged: 0.88-0.93 of copy in registers against 0.92-0.95 staged for rows of 2 and 4
    (H200).

    >>> scan_regs_rows(3, 4, 4), scan_regs_rows(4, 4, 8), scan_regs_rows(3, 8, 8)
    (4, 0, 0)
    >>> scan_regs_rows(3, 2, 2), scan_regs_rows(5, 2, 2), scan_regs_rows(16, 2, 2)
    (8, 0, 1)
    """
    return regs_rows(length, in_size) if in_size == out_size and in_size in SCAN_REGS_SIZES \
        else 0


def columns_vector(plan, in_size: int, out_size: int) -> int:
    """Rows each thread of the "columns" scan (``xs_scan_columns``) takes as one 16-byte
    access per step: ``16 // in_size`` when the rows lie side by side in input and
    output (one row axis, of stride 1 in both) and every step's vectors are whole
    (``nrows``, ``s_in`` and ``s_out`` multiples of it), input and output of one size of
    4 or 8 bytes; else 1. The kernel checks the addresses' alignment itself."""
    if in_size != out_size or in_size not in (4, 8):
        return 1
    v = 16 // in_size
    if (plan.nk == 1 and plan.kstride[0] == 1 and plan.kout[0] == 1
            and plan.nrows % v == 0 and plan.s_in % v == 0 and plan.s_out % v == 0):
        return v
    return 1


def scan_row_group(nrows: int, length: int, steps: int, sm_count: int) -> int:
    """Lanes per row of the row scan of ``nrows`` rows of ``length`` elements (plan
    strategy "rows"), whose lanes take 4 elements a step and load ``steps`` steps
    together: the fewest (a power of two) that cover a row in one such load, doubled
    while the rows would occupy fewer than :data:`WARP_GROUP_MIN_WARPS` warps per SM of
    ``sm_count``; 32 (``xs_scan_rows``, a warp a row) for longer rows."""
    group = 1
    while group < 32 and 4 * group * steps < length:
        group *= 2
    while group < 32 and nrows * group < 32 * WARP_GROUP_MIN_WARPS * sm_count:
        group *= 2
    return group
