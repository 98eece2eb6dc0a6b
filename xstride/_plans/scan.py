"""Host-side plans for scans (cumulative_sum, cumulative_prod) over any strided layout.

A plan is pure Python (no NumPy or CuPy): it reads a :class:`xstride.layout.Layout`
and the scan axis and decides *what* the device does; ``xstride/_kernels/scans.py``
decides nothing but launches it. The axis rules are in :mod:`.reduction`
(:func:`~.reduction.normalize_scan_axis`). See ``docs/reductions.md``.

The scan axis keeps its order (scans are not commutative in position). The other
axes become rows; the output is allocated in the input's memory order. Strategy:
``"rows"`` (the scan axis is the innermost: one warp per row), ``"columns"`` (another
axis is innermost, or the rows are short, at most :data:`SHORT_ROWLEN` elements, and at
least :data:`SHORT_MIN_ROWS` of them: one thread per row, neighbouring threads on
neighbouring rows), ``"tile"`` (such short rows stored one after another: a block
stages many rows in shared memory, scans each in one thread and writes the outputs
back as one contiguous span; also rows whose elements are reversed, ``x[:, ::-1]``,
and up to :data:`TILE_MAX_SERIES` short series side by side in dense rows,
:func:`tile_series_ok`), ``"columns_split"`` (a contiguous ``(n, k)`` block,
``2 <= k <= 256``, scanned over more than 4096 rows: a reduce-then-scan over chunks of
whole rows, each read as one flat array, in two launches; ``scans_columns.cu``),
``"columns_chunks"`` (series too few for one thread each, cut into chunks;
:mod:`.scan_chunks`) or
``"lookback"`` (long rows, too few of them to fill the device: tiles of 4096 elements,
or 8192 for 4-byte types in the default variant, chained by the single-pass decoupled
look-back of Merrill & Garland, "Single-pass
Parallel Prefix Scan with Decoupled Look-back", NVIDIA NVR-2016-002).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..layout import Layout
from .reduction import SHORT_MIN_ROWS, SHORT_ROWLEN
from .scan_chunks import CHUNKS_MIN_THREADS, column_chunks

__all__ = ["ScanPlan", "plan_scan", "COLSPLIT_MAX_COLS", "COLSPLIT_MIN_LENGTH", "colsplit_ok",
           "TILE_MAX_SERIES", "TILE_MAX_SERIES_SPAN", "tile_series_ok"]


#: Most columns of the ``"columns_split"`` scan (a contiguous ``(n, k)`` run scanned
#: over its rows): the block width ``(256 // k) * k`` keeps each thread in one column.
#: Past 32 columns the scan was the strided look-back's, 0.02-0.11 of a copy for
#: (n, 33) to (n, 100) arrays over axis 0 on the H200 (2026-12-04).
COLSPLIT_MAX_COLS = 256
#: Fewest rows of ``"columns_split"``: shorter columns stay ``"columns"`` (one thread
#: per column), as every column scan of at most 4096 rows does.
COLSPLIT_MIN_LENGTH = 4097


def colsplit_ok(kshape, kstride, kout, s_in: int, s_out: int, length: int) -> bool:
    """The ``"columns_split"`` scan takes one row axis of ``2 <= k <=``
    :data:`COLSPLIT_MAX_COLS` contiguous columns (input and output stride 1) whose
    rows follow one another (scan-axis stride ``k`` in the output, ``k`` or ``-k`` in
    the input: rows forward or reversed, as in ``x[::-1]``), scanned over at least
    :data:`COLSPLIT_MIN_LENGTH` rows: the array is one contiguous ``(length, k)``
    block, read row by row in either direction and written as one flat array."""
    return (len(kshape) == 1 and 2 <= kshape[0] <= COLSPLIT_MAX_COLS
            and kstride[0] == 1 and kout[0] == 1 and abs(s_in) == kshape[0]
            and s_out == kshape[0] and length >= COLSPLIT_MIN_LENGTH)


#: Most series side by side in a row of the ``"tile"`` scan (:func:`tile_series_ok`).
TILE_MAX_SERIES = 32
#: Most elements of a row of series side by side (``length * C``) in the ``"tile"``
#: scan: a staged tile then holds several rows, so most of a block's threads have a
#: series, and a row fits every tile size of ``TUNING["scan_tile"]`` (8 KiB of 8-byte
#: inputs and outputs, with the initial element) as the rows of dense short-row scans
#: (at most 32 elements) do.
TILE_MAX_SERIES_SPAN = 256


def tile_series_ok(kshape, kstride, kout, s_in: int, s_out: int, length: int,
                   init: int) -> bool:
    """The ``"tile"`` scan also takes ``2 <= C <=`` :data:`TILE_MAX_SERIES` series side
    by side: row axes ``(m, C)`` whose inner axis has stride 1 in input and output, the
    scan axis (``length >= 2`` elements, ``length * C <=``
    :data:`TILE_MAX_SERIES_SPAN`) stride ``C`` in both, rows of ``length * C``
    elements one after another in the input and of ``(length + init) * C`` in the
    output, e.g. ``cumulative_sum(x, axis=1)`` of an ``(m, 8, 3)`` array."""
    return (len(kshape) == 2 and 2 <= kshape[1] <= TILE_MAX_SERIES and kstride[1] == 1
            and kout[1] == 1 and s_in == kshape[1] and s_out == kshape[1]
            and 2 <= length and length * kshape[1] <= TILE_MAX_SERIES_SPAN
            and kstride[0] == length * kshape[1] and kout[0] == (length + init) * kshape[1])


@dataclass(frozen=True)
class ScanPlan:
    """What a cumulative sum/product does on the device.

    Attributes
    ----------
    strategy : {"rows", "columns", "columns_chunks", "tile", "columns_split", "lookback",
                "empty", "fill"}
    axis : int
    length : int
        Elements scanned per row (``x.shape[axis]``).
    include_initial : bool
    out_shape, out_strides : tuple of int
        Logical output shape and its element strides in the output buffer (compact
        in the input's memory order).
    kshape, kstride, kout : tuple of int
        Row axes after coalescing: extents, input strides, output strides.
    s_in, s_out : int
        Element strides of the scan axis in the input and the output.
    offset : int
        Element offset of the input's first element.
    nrows : int
    chunks : int
        ``"columns_chunks"``: chunks per series (:func:`~.scan_chunks.column_chunks`),
        of :attr:`chunk_rows` elements each (the last may be shorter); 1 otherwise.
    """

    strategy: str
    axis: int
    length: int
    include_initial: bool
    out_shape: tuple
    out_strides: tuple
    kshape: tuple
    kstride: tuple
    kout: tuple
    s_in: int
    s_out: int
    offset: int
    nrows: int
    chunks: int = 1

    @property
    def nk(self) -> int:
        return len(self.kshape)

    @property
    def chunk_rows(self) -> int:
        return -(-self.length // self.chunks)


def plan_scan(layout: Layout, axis: int, include_initial: bool, sm_count: int = 132) -> ScanPlan:
    """Plan a scan of ``layout`` along the normalized ``axis``.

    Examples
    --------
    >>> from xstride.layout import Layout
    >>> plan_scan(Layout((409600, 640), itemsize=4), 1, False).strategy
    'rows'
    >>> plan_scan(Layout((1 << 28,), itemsize=4), 0, False).strategy
    'lookback'
    >>> plan_scan(Layout((1 << 20, 3), itemsize=4), 1, False).strategy
    'tile'
    >>> plan_scan(Layout((1 << 20, 3), itemsize=4), 0, False).strategy
    'columns_split'
    >>> p = plan_scan(Layout((4096, 24576), itemsize=4), 0, False)
    >>> p.strategy, p.chunks, p.chunk_rows
    ('columns_chunks', 6, 683)
    """
    shape, strides = layout.shape, layout.strides
    init = 1 if include_initial else 0
    length = shape[axis]
    out_shape = tuple(n + init if i == axis else n for i, n in enumerate(shape))
    order = sorted(range(len(shape)), key=lambda i: -abs(strides[i]))
    out_strides = [0] * len(shape)
    step = 1
    for i in reversed(order):
        out_strides[i] = step
        step *= max(out_shape[i], 1)
    out_strides = tuple(out_strides)
    s_in, s_out = strides[axis], out_strides[axis]
    rows = [(shape[i], strides[i], out_strides[i]) for i in order if i != axis and shape[i] != 1]
    nrows = math.prod(n for n, _, _ in rows)
    merged: list[list[int]] = []
    for n, si, so in rows:
        if merged and merged[-1][1] == n * si and merged[-1][2] == n * so:
            merged[-1][0] *= n
            merged[-1][1] = si
            merged[-1][2] = so
        else:
            merged.append([n, si, so])
    kshape = tuple(m[0] for m in merged)
    kstride = tuple(m[1] for m in merged)
    kout = tuple(m[2] for m in merged)
    chunks = 1
    if nrows == 0 or length + init == 0:
        strategy = "empty"
    elif length == 0:
        strategy = "fill"
    else:
        sm = max(int(sm_count), 1)
        innermost = all(abs(s_in) <= abs(si) for _, si, _ in merged)
        if innermost and length <= SHORT_ROWLEN and nrows >= SHORT_MIN_ROWS:
            # short rows: a warp per row would leave most lanes idle; one thread per
            # row, as for the short reductions, from a staged tile when the rows are
            # dense (one after another in the input and so in the output; a row's
            # elements forward or reversed, as in x[:, ::-1]: the tile is the same
            # span of memory, read from its other end)
            dense = (len(merged) == 1 and kstride[0] == length and abs(s_in) == 1
                     and s_out == 1 and kout[0] == length + init)
            strategy = "tile" if dense else "columns"
        elif (length <= SHORT_ROWLEN and nrows >= SHORT_MIN_ROWS
              and tile_series_ok(kshape, kstride, kout, s_in, s_out, length, init)):
            # C short series side by side in dense rows (axis 1 of an (m, L, C)
            # array): one staged span of L * C elements a row, a thread per series
            strategy = "tile"
        elif innermost:
            strategy = "rows" if (length <= 8192 or nrows >= 16 * sm) else "lookback"
        elif colsplit_ok(kshape, kstride, kout, s_in, s_out, length):
            strategy = "columns_split"
        else:
            strategy = "columns" if (length <= 4096 or nrows >= 128 * sm) else "lookback"
        if strategy == "columns" or (strategy == "lookback" and not innermost):
            # too few series for one thread each: chunks of each series side by side
            # (long series of an outer axis too, where the chunks give enough threads)
            chunks = column_chunks(nrows, length)
            if chunks > 1 and (strategy == "columns" or nrows * chunks >= CHUNKS_MIN_THREADS):
                strategy = "columns_chunks"
            else:
                chunks = 1
    return ScanPlan(strategy, axis, length, bool(include_initial), out_shape, out_strides,
                    kshape, kstride, kout, s_in, s_out, layout.offset, nrows, chunks)
