"""CuPy executors of the namespace's scans: cumulative_sum and cumulative_prod.

Standard signatures (``axis``, ``dtype``, ``include_initial``) and dtype rules (bool and
integers narrower than 64 bits give int64/uint64, as ``array_api_compat.numpy``). The
kernels of ``scans.cu`` run for any layout, through :func:`plan_scan`; the output is
allocated in the input's memory order (as NumPy does). Float32 scans carry a float64
running value and round each output once. Results are deterministic run to run,
including the single-pass look-back scan (see ``scans.cu``). float16, complex and
``dtype=bool`` go to ``array_api_compat.cupy``. See ``docs/reductions.md``.
"""

from __future__ import annotations

import numpy as np

from .. import _backend
from .._dispatch import register
from .._errors import type_error
from .._reduction_plan import TILE_ITEMS, normalize_scan_axis, plan_scan
from ..layout import Layout
from . import _reduce_common as rc

__all__ = ["cumulative_sum", "cumulative_prod", "scan"]

_SRC = "scans.cu"
_OPS = {"sum": 0, "prod": 1}


def scan(func: str, op: str, x, axis, dtype, include_initial):
    """Run a cumulative ``op`` of ``x`` along ``axis``; returns a new CuPy array."""
    cp = rc.load_cupy()
    if not isinstance(x, cp.ndarray):
        raise type_error(func, "x", x, "a cupy.ndarray")
    if not isinstance(include_initial, (bool, np.bool_)):
        raise type_error(func, "include_initial", include_initial, "a bool")
    if x.ndim == 0:
        x = x.reshape(1)
    ax = normalize_scan_axis(func, axis, x.ndim)
    default = rc.default_sum_dtype(np.dtype(x.dtype))
    if dtype is None:
        out_dt = default
    else:
        try:
            out_dt = np.dtype(dtype)
        except TypeError:
            raise type_error(func, "dtype", dtype, "a dtype of the namespace or None") from None
    if x.dtype not in rc.SUPPORTED or out_dt not in rc.SUPPORTED or out_dt.kind == "b":
        f = getattr(_backend.namespace("cupy"), func)
        return f(x, axis=ax, dtype=dtype, include_initial=bool(include_initial))
    acc = rc.acc_dtype(out_dt)
    plan = plan_scan(Layout.from_array(x), ax, bool(include_initial), rc.sm_count())
    # output buffer compact in the input's memory order, viewed in logical order
    nbytes_elems = 1
    for n in plan.out_shape:
        nbytes_elems *= n
    buf = cp.empty(nbytes_elems, dtype=out_dt)
    out = cp.lib.stride_tricks.as_strided(
        buf, shape=plan.out_shape, strides=tuple(s * out_dt.itemsize for s in plan.out_strides))
    if plan.strategy == "empty":
        return out
    if plan.strategy == "fill":
        buf.fill(1 if op == "prod" else 0)
        return out
    cap = rc.capacity(plan.nk)
    desc = rc.pack_struct(rc.pad(plan.kshape, cap, 1), rc.pad(plan.kstride, cap, 0),
                          rc.pad(plan.kout, cap, 0),
                          tail=(plan.nk, plan.s_in, plan.s_out, int(plan.include_initial)))
    tin, tacc, tout = rc.CTYPE[np.dtype(x.dtype)], rc.CTYPE[acc], rc.CTYPE[out_dt]
    expr = f"xs_scan_{plan.strategy}<{_OPS[op]}, {tin}, {tacc}, {tout}, {cap}"
    if plan.strategy == "lookback":
        expr += f", {rc.TUNING['lookback_q']}>"
    elif plan.strategy == "rows":
        expr += f", {rc.TUNING['scan_rows']}>"
    else:
        expr += ">"
    fn = rc.kernel(_SRC, expr)
    ptr = np.uint64(x.data.ptr + plan.offset * x.itemsize)
    optr = np.uint64(buf.data.ptr)
    n, length = np.int64(plan.nrows), np.int64(plan.length)
    sm = rc.sm_count()
    if plan.strategy == "lookback":
        tiles_per_row = -(-plan.length // TILE_ITEMS)
        ntiles = plan.nrows * tiles_per_row
        counter = cp.zeros(1, dtype=np.uint64)
        flags = cp.zeros(ntiles, dtype=np.int32)
        aggs = cp.empty(ntiles, dtype=acc)
        incls = cp.empty(ntiles, dtype=acc)
        fn((ntiles,), (256,), (ptr, optr, desc, length, np.int64(tiles_per_row), counter,
                               flags, aggs, incls))
    elif plan.strategy == "rows":
        blocks = min(-(-plan.nrows // 8), 32 * sm)
        fn((blocks,), (256,), (ptr, optr, desc, n, length))
    else:  # columns
        blocks = min(-(-plan.nrows // 256), 32 * sm)
        fn((blocks,), (256,), (ptr, optr, desc, n, length))
    return out


@register("cumulative_sum", "cupy")
def cumulative_sum(x, /, *, axis=None, dtype=None, include_initial=False):
    """Cumulative sum (array API standard ``cumulative_sum``) of a CuPy array.

    ``include_initial=True`` puts the identity 0 first: the result is then the
    exclusive scan followed by the total, formed by shifting (``1`` next to ``1e20``
    stays exactly 1), never by subtracting.
    """
    return scan("cumulative_sum", "sum", x, axis, dtype, include_initial)


@register("cumulative_prod", "cupy")
def cumulative_prod(x, /, *, axis=None, dtype=None, include_initial=False):
    """Cumulative product (array API standard ``cumulative_prod``) of a CuPy array."""
    return scan("cumulative_prod", "prod", x, axis, dtype, include_initial)
