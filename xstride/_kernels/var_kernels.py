"""The kernels of var and std besides the reductions' passes (``reduce_finish.cu``):
the finish of the two-pass path (:func:`finish`), many short rows in one kernel
(:func:`var_rows`), and the shifts and the finish of the one-pass shifted moments
(:func:`moments_center`, :func:`moments_finish`). Launchers only: :mod:`.variance`
plans and calls them."""

from __future__ import annotations

import builtins
import math

import numpy as np

from . import _reduce_common as rc
from ._geometry import SHORT_MAX_BLOCKS
from ._launch import Launch, i64, slot64, slot_f64, struct
from ._lru import Bounded

__all__ = ["FINISH_TYPES", "VAR_ROWS_MAX", "VAR_SIDE_MAX", "finish", "rows_ok", "var_rows",
           "var_rows_per_thread", "var_regs_q", "var_side_ok", "moments_center",
           "moments_finish"]

#: Output types of the one-pass finish of var/std (``reduce_finish.cu``).
FINISH_TYPES = {np.dtype(np.float32): "float", np.dtype(np.float64): "double"}
#: (kernel, output type, root, n, device) -> Launch of ``xs_var_finish`` or
#: ``xs_var_moments``
_FINISH = Bounded(64)


def _per_output(cp, name: str, src, doubles: tuple, root: bool, out_dtype: np.dtype):
    """``out_dtype`` (n,) from the kernel ``name<T, ROOT>`` of ``reduce_finish.cu`` over
    the n values of ``src`` (a thread an output): its parameters src, out, n, then
    ``doubles``."""
    n = int(src.shape[0])
    out = cp.empty(n, dtype=out_dtype)
    if n == 0:
        return out
    key = (name, out_dtype, root, n, cp.cuda.runtime.getDevice())
    run = _FINISH.get(key)
    if run is None:
        expr = f"{name}<{FINISH_TYPES[out_dtype]}, {str(bool(root)).lower()}>"
        grid = builtins.max(1, builtins.min(-(-n // 256), 65535 * 8))
        run = _FINISH.put(key, Launch(rc.kernel("reduce_finish.cu", expr), (grid,), (256,),
                                      [slot64(), slot64(), i64(n)]
                                      + [slot_f64() for _ in doubles]))
    run(src.data.ptr, out.data.ptr, *doubles)
    return out


def finish(cp, ss, dof: float, root: bool, out_dtype: np.dtype):
    """``ss / dof`` (its square root for std) in ``out_dtype``: one kernel over the
    float64 sums of squares ``ss`` (n,), bit for bit the array operations
    ``(ss / dof)``, ``sqrt``, ``astype`` it replaces (three passes over n float64)."""
    return _per_output(cp, "xs_var_finish", ss, (dof,), root, out_dtype)


#: Longest rows of ``xs_var_rows`` (one thread per row, the row in registers).
VAR_ROWS_MAX = 32
#: Plans whose many short rows ``xs_var_rows`` takes (one thread per row).
VAR_ROWS_STRATEGIES = frozenset({"short", "tile", "lanes"})
#: (dtypes, root, descriptor, device, ...) -> Launch of ``xs_var_rows``
_VAR_ROWS = Bounded(256)


def var_rows_per_thread(r: int, q_short: int) -> int:
    """Rows a thread of ``xs_var_rows`` loads at once: ``q_short`` for rows of at most 4
    elements (``r``, the padded row length), half as many for 8, one from 16 (the
    row values stay in registers: 16 of them a thread at most)."""
    return builtins.max(1, int(q_short) * 4 // r)


def rows_ok(plan) -> bool:
    """True when ``xs_var_rows`` takes the plan: many rows (a short-row strategy) of at
    most :data:`VAR_ROWS_MAX` elements along one reduced axis."""
    return (plan.strategy in VAR_ROWS_STRATEGIES and plan.nr == 1
            and 2 <= plan.rowlen <= VAR_ROWS_MAX)


def var_regs_q(plan, itemsize: int, address: int, out_dtype: np.dtype, tuning) -> int:
    """Rows a thread of ``xs_var_rowregs`` takes (0: the plan's rows go to
    ``xs_var_rows``): rows of 4-byte elements stored one after another (one kept axis
    of stride ``rowlen``, the reduced axis of stride 1, the first row and the output at
    ``address`` on a 16-byte boundary) whose length is not a whole number of 16-byte
    words (``xs_var_rows`` reads those as words already). Narrower elements stay on
    ``xs_var_rows``: not timed, and their rows of 14-28 elements spill at 64 registers. ``tuning`` is
    ``TUNING["var_regs"]``, (MINB, bytes, most bytes): the fewest rows whose elements
    fill whole words, if they hold at most ``most bytes``, doubled while they stay
    within ``bytes`` and their outputs within 32 bytes; MINB 0 turns the kernel off.

    >>> from types import SimpleNamespace as P
    >>> rows = lambda k: P(nk=1, nr=1, rstride=(1,), kstride=(k,), rowlen=k)
    >>> f32 = np.dtype(np.float32)
    >>> [var_regs_q(rows(k), 4, 0, f32, (4, 48, 128)) for k in (2, 3, 4, 5, 6, 7, 9, 14)]
    [4, 4, 0, 4, 2, 4, 0, 2]
    >>> var_regs_q(rows(3), 4, 0, f32, (4, 96, 96)), var_regs_q(rows(6), 2, 0, f32, (4, 48, 128))
    (8, 0)
    >>> var_regs_q(rows(3), 4, 8, f32, (4, 48, 128))   # not on a 16-byte boundary
    0
    """
    minb, double_within, most = tuning
    nbytes = plan.rowlen * itemsize
    out_size = np.dtype(out_dtype).itemsize
    if (not minb or itemsize != 4 or nbytes % 16 == 0 or address % 16
            or plan.nk != 1 or plan.rstride != (1,) or plan.kstride[0] != plan.rowlen):
        return 0
    q = 16 // math.gcd(nbytes, 16)
    if q * nbytes > most or q * out_size > 32:
        return 0
    while 2 * q * nbytes <= double_within and 2 * q * out_size <= 32:
        q *= 2
    return q


def _rowregs_launch(plan, x, q: int, root: bool, out_dtype: np.dtype) -> Launch:
    """The launch of ``xs_var_rowregs`` for ``q`` rows a thread (:func:`var_regs_q`),
    called as ``xs_var_rows``'s: x, out, then dof (nrows packed)."""
    expr = (f"xs_var_rowregs<{rc.CTYPE[np.dtype(x.dtype)]}, {FINISH_TYPES[out_dtype]}, "
            f"{plan.rowlen}, {q}, {str(bool(root)).lower()}, {rc.TUNING['var_regs'][0]}>")
    grid = -(-(-(-plan.nrows // q)) // 256)
    return Launch(rc.kernel("reduce_finish.cu", expr), (grid,), (256,),
                  [slot64(), slot64(), i64(plan.nrows), slot_f64()])


#: Longest rows of ``xs_var_side``: 4 elements of 16-byte loads (16 values a thread;
#: rows of 8 spilled 40-52 bytes at MINB 4, ptxas 13, sm_90).
VAR_SIDE_MAX = 4


def var_side_ok(plan, itemsize: int, address: int, minb: int) -> bool:
    """True when ``xs_var_side`` takes the plan: rows of 2 to :data:`VAR_SIDE_MAX`
    4-byte elements that lie side by side (one kept axis of stride 1, the reduced axis
    of a stride that is a multiple of 4 elements, 0 included: a broadcast), a multiple
    of 4 rows, the first element and the output at ``address`` on a 16-byte boundary,
    ``minb`` (``TUNING["var_side"]``) not 0.

    >>> from types import SimpleNamespace as P
    >>> side = lambda k, n, s: P(nk=1, kstride=(1,), rstride=(s,), nrows=n, rowlen=k)
    >>> [var_side_ok(side(k, 4096, 4096), 4, 0, 4) for k in (2, 3, 4, 5)]
    [True, True, True, False]
    >>> var_side_ok(side(3, 4098, 4098), 4, 0, 4), var_side_ok(side(3, 4096, 4096), 8, 0, 4)
    (False, False)
    """
    return bool(minb and itemsize == 4 and address % 16 == 0 and plan.nk == 1
                and plan.kstride == (1,) and len(plan.rstride) == 1
                and plan.rstride[0] % 4 == 0 and plan.nrows % 4 == 0
                and 2 <= plan.rowlen <= VAR_SIDE_MAX)


def _side_launch(plan, x, root: bool, out_dtype: np.dtype) -> Launch:
    """The launch of ``xs_var_side`` (:func:`var_side_ok`), called as
    ``xs_var_rows``'s: x, out, then dof (stride, nrows and rowlen packed)."""
    expr = (f"xs_var_side<{rc.CTYPE[np.dtype(x.dtype)]}, {FINISH_TYPES[out_dtype]}, "
            f"{VAR_SIDE_MAX}, {str(bool(root)).lower()}, {rc.TUNING['var_side']}>")
    grid = builtins.min(-(-(plan.nrows // 4) // 256), SHORT_MAX_BLOCKS)
    return Launch(rc.kernel("reduce_finish.cu", expr), (grid,), (256,),
                  [slot64(), slot64(), i64(plan.rstride[0]), i64(plan.nrows),
                   i64(plan.rowlen), slot_f64()])


def var_rows(cp, x, rec, dof: float, root: bool, out_dtype: np.dtype):
    """var (``root``: std) of the short rows of ``rec``'s plan in one kernel
    (``xs_var_rows``, reduce_finish.cu): each row read once into registers, its float64
    mean, then its float64 sum of squared deviations, ``/ dof``, the square root for
    std, rounded once to ``out_dtype``; the flat K-ordered result (nrows,)."""
    plan = rec.plan
    out = cp.empty(plan.nrows, dtype=out_dtype)
    xa = x.data.ptr + rec.xoff
    words = (xa | out.data.ptr) & 15   # both on 16-byte boundaries: the word kernels' rule
    key = (x.dtype, out_dtype, root, rec.desc.tobytes(), plan.nrows, plan.rowlen, xa & 15,
           words, cp.cuda.runtime.getDevice(), rc.TUNING.version)
    run = _VAR_ROWS.get(key)
    if run is None:
        q = var_regs_q(plan, x.itemsize, words, out_dtype, rc.TUNING["var_regs"])
        if q:
            run = _VAR_ROWS.put(key, _rowregs_launch(plan, x, q, root, out_dtype))
        elif var_side_ok(plan, x.itemsize, words, rc.TUNING["var_side"]):
            run = _VAR_ROWS.put(key, _side_launch(plan, x, root, out_dtype))
    if run is None:
        r = 4
        while r < plan.rowlen:
            r *= 2
        vec = 16 // x.itemsize if x.itemsize in (4, 8) else 1
        if not (plan.nk == 1 and plan.rstride == (1,) and plan.rowlen % vec == 0
                and plan.kstride[0] % vec == 0 and xa % 16 == 0):
            vec = 1
        minb_short, minb_long, q_short = rc.TUNING["var_rows"]
        q = var_rows_per_thread(r, q_short)
        expr = (f"xs_var_rows<{rc.CTYPE[np.dtype(x.dtype)]}, {FINISH_TYPES[out_dtype]}, "
                f"{rc.capacity(plan.nk)}, {r}, {vec}, {str(bool(root)).lower()}, "
                f"{minb_short if r == 4 else minb_long}, {q}>")
        grid = builtins.min(-(-plan.nrows // (256 * q)), SHORT_MAX_BLOCKS)
        run = _VAR_ROWS.put(key, Launch(rc.kernel("reduce_finish.cu", expr), (grid,), (256,),
                                        [slot64(), slot64(), struct(rec.desc.tobytes()),
                                         i64(plan.nrows), i64(plan.rowlen), slot_f64()]))
    run(xa, out.data.ptr, dof)
    return out


#: (input dtype, descriptor bytes, rows, device) -> Launch of ``xs_var_center``
_CENTERS = Bounded(256)


def first_skip(x, axes) -> int:
    """Bytes from the plan's row start (where the reduced ``axes`` of negative stride
    are flipped) to the element of logical index 0 along them."""
    skip = 0
    for a in axes:
        n, s = x.shape[a], x.strides[a]
        if n > 1 and s < 0:
            skip -= (n - 1) * s
    return skip


def moments_center(x, rec):
    """``(launch, skip)`` of the one-pass path's shifts for ``x`` on the recipe ``rec``
    (its plan and descriptor): ``launch(x.data.ptr + rec.xoff + skip, out.data.ptr)``
    writes each output row's first element, widened to float64, as the real part of a
    complex128 ``out`` (nrows,) in the kernels' row order (``xs_var_center``). ``skip``
    (bytes) takes the plan's row start, where the reduced axes of negative stride are
    flipped, back to the element of logical index 0 along them: the shifts are those
    of ``x[first].transpose(plan.out_order).astype(complex128)``."""
    plan = rec.plan
    skip = first_skip(x, plan.axes)
    key = (x.dtype, rec.desc.tobytes(), plan.nrows, rc.current_device())
    run = _CENTERS.get(key)
    if run is None:
        expr = (f"xs_var_center<{rc.CTYPE[np.dtype(x.dtype)]}, {rc.capacity(plan.nk)}, "
                f"{rc.reduced_capacity(plan.nr)}>")
        grid = builtins.max(1, builtins.min(-(-plan.nrows // 256), SHORT_MAX_BLOCKS))
        run = _CENTERS.put(key, Launch(rc.kernel("reduce_finish.cu", expr), (grid,), (256,),
                                       [slot64(), slot64(), struct(rec.desc.tobytes()),
                                        i64(plan.nrows)]))
    return run, skip


def moments_finish(cp, m, count: float, dof: float, root: bool, out_dtype: np.dtype):
    """``xs_var_moments`` over the complex128 shifted moments ``m`` (n,) (real part the
    sum of ``d``, imaginary the sum of ``d * d``, over ``count`` elements each): the
    variance ``(S2 - S1**2 / count) / dof`` (its square root for std) in ``out_dtype``."""
    return _per_output(cp, "xs_var_moments", m, (count, dof), root, out_dtype)
