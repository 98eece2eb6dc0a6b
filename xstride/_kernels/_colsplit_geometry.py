"""Launch geometry of the ``"columns_split"`` scan (``scans_columns.cu``): threads per
column, the staged runs and their padding, the chunks of both launches. Pure Python
(no CuPy import), tested on the CPU (tests/test_scans_columns.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from .._core.errors import error

__all__ = ["COLSPLIT_CHUNKS_PER_SM", "ColsplitGeometry", "colsplit_geometry", "colsplit_pad"]

#: Chunks per SM of the "columns_split" scan: one wave of its scan launch, whose
#: ``__launch_bounds__(256, MINB)`` (MINB = ``TUNING["colsplit"]``, this by default)
#: keeps that many blocks of 256 threads per SM.
COLSPLIT_CHUNKS_PER_SM = 4


@dataclass(frozen=True)
class ColsplitGeometry:
    """Launch geometry of the ``"columns_split"`` scan (``scans_columns.cu``).

    Attributes
    ----------
    threads : int
        Block width ``m * k``.
    m : int
        Threads per column.
    run : int
        ``L``: consecutive rows one thread scans in a tile (a template parameter).
    tile_rows : int
        ``R = m * L`` rows per staged tile.
    pad : int
        Shared elements of padding after each run of ``L * k`` elements.
    chunk_rows : int
        Rows per chunk (a multiple of ``tile_rows``).
    chunks : int
        ``C``: blocks of both launches.
    out_offset : int
        Byte offset of the staged outputs in that memory: 0 when inputs and outputs
        have one size (each thread overwrites its own inputs), else past the inputs
        (rounded up to 16).
    smem : int
        Dynamic shared bytes of the scan launch.
    """

    threads: int
    m: int
    run: int
    tile_rows: int
    pad: int
    chunk_rows: int
    chunks: int
    out_offset: int
    smem: int


def _distinct_banks(k: int, stride: int, threads: int) -> bool:
    """Threads ``t = j * k + c`` at staged positions ``j * stride + c``: distinct
    modulo 32 within each warp and modulo 16 within each half-warp (4- and 8-byte
    elements without bank conflicts; a step down the run adds ``k`` to every
    position, which keeps them distinct)."""
    for width, banks in ((32, 32), (16, 16)):
        for w in range(0, threads, width):
            pos = {((t // k) * stride + t % k) % banks for t in range(w, min(w + width, threads))}
            if len(pos) != min(width, threads - w):
                return False
    return True


def colsplit_pad(k: int, run: int, threads: int) -> int:
    """Fewest elements of padding after each run of ``run * k`` staged elements of the
    ``"columns_split"`` scan that put the threads of a warp reading their runs on
    distinct banks (:func:`_distinct_banks`); ``(-(run - 1) * k) % 32`` always does
    (positions then equal the thread index plus a constant modulo 32), and is the
    answer when no smaller one does."""
    fallback = (-(run - 1) * k) % 32
    for pad in range(fallback):
        if _distinct_banks(k, run * k + pad, threads):
            return pad
    return fallback


def colsplit_geometry(n: int, k: int, in_size: int, out_size: int,
                      sm_count: int, blocks_per_sm: int = COLSPLIT_CHUNKS_PER_SM
                      ) -> ColsplitGeometry:
    """The geometry of the ``"columns_split"`` scan of ``n`` rows of ``k`` columns
    (``2 <= k <= 256``, ``n >= 1``) of ``in_size``-byte inputs and ``out_size``-byte
    outputs on a device of ``sm_count`` SMs: ``m = 256 // k`` threads per column,
    runs of 16 rows (8 when an element has 8 bytes), at most
    ``blocks_per_sm * sm_count`` chunks of whole tiles (one wave of the scan launch,
    compiled for that many resident blocks). The chunking fixes
    the combination order, so results are deterministic for one device model.

    Examples
    --------
    >>> g = colsplit_geometry(1 << 25, 3, 4, 4, 132)
    >>> g.threads, g.run, g.tile_rows, g.pad, g.chunks
    (255, 16, 1360, 19, 525)
    """
    if not 2 <= k <= 256 or n < 1:
        raise error(ValueError, "colsplit_geometry",
                    f"takes 2 <= k <= 256 columns and n >= 1 rows, got n={n}, k={k}")
    m = 256 // k
    run = 16 if max(in_size, out_size) <= 4 else 8
    tile = m * run
    pad = colsplit_pad(k, run, m * k)
    want = min(-(-n // tile), max(int(blocks_per_sm), 1) * max(int(sm_count), 1))
    chunk = -(-(-(-n // want)) // tile) * tile
    chunks = -(-n // chunk)
    slots = m * (run * k + pad)
    out_offset = 0 if in_size == out_size else -(-slots * in_size // 16) * 16
    smem = out_offset + slots * out_size
    return ColsplitGeometry(m * k, m, run, tile, pad, chunk, chunks, out_offset, smem)
