"""The register kernel of short dense rows (``xs_reduce_rowregs``, reductions_rows.cu):
which reductions of the ``"tile"``, ``"lanes"`` and ``"short"`` plans it takes in place
of their kernels, and its launch.

A thread folds ``Q`` whole rows from 16-byte words in registers (:func:`regs_q`);
the fold of every row is the staged kernel's, so the results have the same bits. See
``docs/reductions.md`` ("tile").
"""

from __future__ import annotations

import numpy as np

from . import _reduce_common as rc
from ._geometry import regs_rows
from ._launch import Launch, i64, slot64

__all__ = ["rows_q", "regs_q", "chunks", "build", "ONE_ROW_MOST_BYTES", "MOST_OUT_BYTES"]

_SRC = "reductions_rows.cu"
#: Input dtypes it takes: 1-, 2- and 4-byte integers, bool, float16 and float32 (complex
#: stays staged). float16 rows came 2026-12-03 (H200, the same bits as staged, fraction
#: of copy, ``sum``/``max``): (n, 3) 0.69-0.71 -> 0.88, (n, 16) 0.49 -> 0.98-0.99 (0.56
#: ms, slower than CuPy's 0.60, -> 0.28), (n/4, 32) 0.25 -> 0.94-0.95, (n/8, 64) 0.12 ->
#: 0.76-0.78, (n/8, 96) 0.21 -> 0.69-0.74.
_KINDS = frozenset("biuf")
#: The plans whose dense rows it takes. H200, (2**25, k), fraction of copy, the plan's
#: kernel against this one (2026-12-03, the same bits): float32 "lanes" k = 8 0.97 ->
#: 1.00-1.03, "short" k = 6 0.94-0.99 -> 0.99-1.02; int16 "short" k = 16 0.48-0.58 ->
#: 0.96-1.03; "lanes" k = 4 about even (docs/reductions.md, "tile").
STRATEGIES = frozenset({"tile", "lanes", "short"})
#: The only "lanes" rows it takes: two 16-byte chunks. Rows of one chunk ((n, 4) of
#: 4-byte elements) read 0.88-0.95 of copy either way in the comparison, and in the
#: sweep's next run `sum` of float32 (n, 4) 0.185 ms against CuPy's 0.177 (1.00x CuPy
#: on "lanes" the run before), so they stay on "lanes".
LANES_ROW_BYTES = 32


#: Rows past :func:`regs_rows`'s 48 bytes a thread are taken one a thread (rows of whole
#: 16-byte words) up to these bytes, by element size. The plans' kernels read narrow
#: elements of longer rows slowly: H200, 2026-12-03, 2**25 elements, fraction of copy,
#: the plan's kernel against this one (the same bits), 1- and 2-byte rows: int16 (n,
#: 32) ("short") 0.26-0.28 -> 1.02-1.05 (``max`` 2.09 ms against CuPy's 0.55), 48 0.40
#: -> 0.91, 64 0.12 -> 0.83, 96 0.21 -> 0.79-0.83; uint8, int8, bool rows of 64 (sum,
#: max, any, all; "tile") 0.12-0.13 -> 0.87-1.02, 80 0.40 -> 0.91, 96 0.22 -> 0.86-0.93,
#: 128 0.06 -> 0.80-0.84 (``max`` 4.26 ms against CuPy's 2.39), 192 0.12 -> 0.77. 4-byte
#: rows gain less and lose past 96 bytes: float32 (n, 16) ("short") 0.95-1.03 ->
#: 0.97-1.04, int32 0.97-1.03 -> 0.95-1.04, float32 (n, 24) ("tile") 0.80 -> 0.90-0.91,
#: but (n, 40) and (n, 48) 0.83-0.84 -> 0.77-0.80 (``max``; ``sum`` and ``prod``
#: 0.82-0.84 -> 0.80-0.82, ``mean`` of (n, 40) 0.71 -> 0.81) and int32 (n, 48) ``max``
#: 0.90 -> 0.80 (``sum`` 0.80 -> 0.82).
ONE_ROW_MOST_BYTES = {1: 192, 2: 192, 4: 96}


def regs_q(rowlen: int, itemsize: int) -> int:
    """Rows a thread of ``xs_reduce_rowregs`` takes for rows of ``rowlen`` elements of
    ``itemsize`` (1, 2 or 4) bytes, outputs aside: :func:`regs_rows`, else 1 for rows of
    whole 16-byte words of at most :data:`ONE_ROW_MOST_BYTES`, else 0.

    >>> [regs_q(k, 4) for k in (3, 5, 16, 24, 28, 40)], regs_q(128, 1), regs_q(5, 1)
    ([4, 0, 1, 1, 0, 0], 1, 0)
    """
    q = regs_rows(rowlen, itemsize)
    if q:
        return q
    nbytes = rowlen * itemsize
    return 1 if nbytes % 16 == 0 and nbytes <= ONE_ROW_MOST_BYTES.get(itemsize, 0) else 0


#: Most bytes of outputs a thread stores: 16 bool sums of rows of 3 into int64 (128
#: bytes a thread) read 0.34 of copy against 0.88 staged (H200); int32 sums of rows of 3
#: into int64 (32 bytes) 0.87 against 0.78.
MOST_OUT_BYTES = 32


def rows_q(plan, x, op: str, centered: frozenset, base: int, out_dtype: np.dtype) -> int:
    """Rows a thread when ``xs_reduce_rowregs`` takes this plan (one of
    :data:`STRATEGIES`; a ``"lanes"`` plan's rows only of :data:`LANES_ROW_BYTES`): rows of one
    kept axis stored one after another (stride ``rowlen``), the reduced axis of stride 1,
    the first row on a 16-byte boundary (``base``, its address), an op without a center,
    a dtype of :data:`_KINDS` of at most 4 bytes, few bytes a thread in
    (:func:`regs_q`) and out (:data:`MOST_OUT_BYTES`) and ``TUNING["red_regs"]``
    (MINB) not 0; else 0."""
    dt = np.dtype(x.dtype)
    if (not rc.TUNING["red_regs"] or plan.strategy not in STRATEGIES or op in centered
            or dt.kind not in _KINDS or dt.itemsize > 4
            or plan.nk != 1 or plan.nr != 1 or plan.rstride[0] != 1
            or plan.kstride[0] != plan.rowlen or base % 16
            or plan.strategy == "lanes" and plan.rowlen * dt.itemsize != LANES_ROW_BYTES):
        return 0
    q = regs_q(plan.rowlen, dt.itemsize)
    return q if q * np.dtype(out_dtype).itemsize <= MOST_OUT_BYTES else 0


def chunks(plan, itemsize: int) -> int:
    """Parts a row is folded in, then combined: 2 for a ``"lanes"`` plan's rows of two
    16-byte chunks (``xs_reduce_lanes`` folds each in a lane of its own, then adds the
    two), else 1 (element order, as the ``"tile"`` and ``"short"`` kernels): so the
    register kernel gives the bits of the plan's own kernel."""
    return 2 if plan.strategy == "lanes" and plan.rowlen * itemsize == LANES_ROW_BYTES else 1


def build(rec, plan, x, opcode: int, q: int, out_dtype: np.dtype, acc: np.dtype):
    """Fill ``rec`` (a one-pass recipe: parameters x, out, center, nrows) with the
    launch of ``xs_reduce_rowregs`` for ``q`` rows a thread; returns it."""
    tin, tacc, tout = rc.CTYPE[np.dtype(x.dtype)], rc.CTYPE[acc], rc.CTYPE[out_dtype]
    minb = int(rc.TUNING["red_regs"])
    rec.fn = rc.kernel(_SRC, f"xs_reduce_rowregs<{opcode}, {tin}, {tacc}, {tout}, "
                             f"{plan.rowlen}, {q}, {chunks(plan, x.itemsize)}, {minb}>")
    rec.kind = "rowregs"   # rec.desc: the caller's
    rec.grid, rec.block = (-(-(-(-plan.nrows // q)) // 256),), (256,)
    rec.nchunks, rec.chunk = 1, 0
    rec.xoff = plan.offset * x.itemsize
    rec.ncounters = rec.npartials = 0
    rec.launch = Launch(rec.fn, rec.grid, rec.block,
                        [slot64(), slot64(), slot64(), i64(plan.nrows)])
    return rec
