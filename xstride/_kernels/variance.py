"""The CUDA executor of ``var`` and ``std``, on the reductions' launches, and their
prepared calls.

:mod:`xstride.reductions` checks the arguments and applies the dtype rules; :func:`var`
picks one of three kernel paths from the plan (:mod:`xstride._plans.reduction`):
short rows in one kernel that reads each row once (:func:`.var_kernels.var_rows`),
float32 in one pass of shifted moments (:func:`_var_moments`), or two passes in
float64 (the mean, then the squared deviations from it). A call on one of these paths
leaves a prepared call (:mod:`._prepared`) that :func:`repeat` runs for the next call
with the same key: the argument checks, the dtype rules, the recipes' lookups and the
plan's facts are skipped. On the H200 the host work of a checked call delayed the
kernel by 40-90 us (``var(x, axis=0)`` of float32 (2**25, 3): 0.153 ms a call, of
which the moments kernel 0.109 ms, 2026-12-04).
"""

from __future__ import annotations

import builtins
import warnings

import numpy as np

from . import var_kernels as vk
from ._cupy import cupy as _cupy
from ._prepared import GATE, Store, args_ok
from ._reduce_common import TUNING
from .reductions import _finish, _keep, _launch, _Recipe, _recipe

__all__ = ["var", "repeat"]

#: Inputs whose var/std run in one pass of shifted moments (:func:`_var_moments`),
#: when the result has the input's dtype.
_MOMENT_DTYPES = frozenset({np.dtype(np.float32)})

_F8 = np.dtype(np.float64)
_C16 = np.dtype(np.complex128)


def _var_moments(cp, x, rec: _Recipe, dof: float, root: bool, out_dtype: np.dtype,
                 center=None):
    """var (``root``: std) of float32 ``x`` in one pass over it, on ``rec`` (op
    ``"moments"``, a reduction kernel): the flat K-ordered result. Each output's first
    element K (``xs_var_center``, :func:`.var_kernels.moments_center`: the kernels'
    complex128 centers), then one launch: the float64 sums S1 of ``d = x - K`` and S2
    of ``d * d`` in a complex128 accumulator, then ``xs_var_moments``: ``(S2 - S1**2 /
    N) / dof``, its square root for std, rounded once. The shift by an element of the
    output's own data bounds the cancellation (reduce_finish.cu); the two-pass path
    reads the input twice. ``center``: the ``(launch, skip)`` of
    :func:`.var_kernels.moments_center` (looked up when not given)."""
    plan = rec.plan
    launch, skip = center or vk.moments_center(x, rec)
    shifts = cp.empty(plan.nrows, dtype=_C16)
    launch(x.data.ptr + rec.xoff + skip, shifts.data.ptr)
    m = _launch(x, rec, _C16, _C16, center=shifts)
    return vk.moments_finish(cp, m, float(plan.rowlen), dof, root, out_dtype)


class _VarCall:
    """One kernel path of :func:`var` with everything but the array fixed: ``kind``
    "rows" (:func:`.var_kernels.var_rows`), "moments" (:func:`_var_moments`) or "two"
    (the two float64 passes and :func:`.var_kernels.finish`). :meth:`run` is the
    checked call's path and, stored in :data:`_CALLS`, the prepared one."""

    __slots__ = ("kind", "rec", "rec2", "dof", "root", "out_dtype", "center", "mem_shape",
                 "inv", "index")

    def __init__(self, x, kind, rec, rec2, dof, root, out_dtype, keepdims):
        plan, ndim = rec.plan, x.ndim
        self.kind, self.rec, self.rec2 = kind, rec, rec2
        self.dof, self.root, self.out_dtype = dof, root, out_dtype
        # "moments": the centers' launch; "moments0": the bytes from the walk's start
        # to the row of logical index 0, whose elements the kernel reads as centers
        self.center = (vk.moments_center(x, rec) if kind == "moments" else
                       rec.xoff + vk.first_skip(x, plan.axes) if kind == "moments0" else None)
        # _finish's reshape and transpose, computed once
        self.mem_shape = tuple(plan.out_shape[j] for j in plan.out_order)
        inv = [0] * len(plan.out_order)
        for pos, j in enumerate(plan.out_order):
            inv[j] = pos
        self.inv = tuple(inv)
        self.index = (tuple(None if i in plan.axes else slice(None) for i in range(ndim))
                      if keepdims else None)

    def run(self, x):
        cp = _cupy()
        kind = self.kind
        if kind == "rows":
            v = vk.var_rows(cp, x, self.rec, self.dof, self.root, self.out_dtype)
        elif kind == "moments":
            v = _var_moments(cp, x, self.rec, self.dof, self.root, self.out_dtype,
                             self.center)
        elif kind == "moments0":   # one launch: each output's first element its shift
            m = _launch(x, self.rec, _C16, _C16, center=x.data.ptr + self.center)
            v = vk.moments_finish(cp, m, float(self.rec.plan.rowlen), self.dof, self.root,
                                  self.out_dtype)
        else:
            center = _launch(x, self.rec, _F8, _F8)
            ss = _launch(x, self.rec2, _F8, _F8, center=center)
            v = vk.finish(cp, ss, self.dof, self.root, self.out_dtype)
        res = v.reshape(self.mem_shape).transpose(self.inv) if self.inv else v.reshape(())
        return res if self.index is None else res[self.index]


_MAX_CALLS = 1024
#: key of :func:`_key` -> the ``run`` of a :class:`_VarCall`
_CALLS = Store(_MAX_CALLS)


def _key(func, x, axis, correction, dtype, keepdims, device: int) -> tuple:
    mem = x.data
    # the correction's type too: an int past int64 raises where the equal float does not
    return (func, x.shape, x.strides, x.dtype, axis, type(correction), correction, dtype,
            keepdims, mem.ptr & 15, mem.device_id, device, TUNING.version)


def _keyed(correction) -> bool:
    """``correction`` may be keyed: a Python int or float (not a bool, not a NumPy
    scalar), and not NaN (a NaN never equals the stored one)."""
    t = type(correction)
    return (t is int or t is float) and correction == correction


def repeat(func: str, x, axis, correction, dtype, keepdims):
    """The result of the call of ``func`` (var, std) prepared before with the same key,
    else None (a miss: the checked path runs). ``correction`` is keyed only as a Python
    int or float, by its type and value (:func:`_keyed`)."""
    if (type(x) is not GATE.nd or not args_ok(axis, dtype, keepdims)
            or not _keyed(correction)):
        return None
    run = _CALLS.get(_key(func, x, axis, correction, dtype, keepdims, GATE.getdev()))
    return None if run is None else run(x)


def var(func: str, x, axis, axes, correction, keepdims: bool, out_dtype: np.dtype,
        root: bool, dtype=None):
    """Variance (``root``: standard deviation) of ``x``: two passes on the kernels, both
    accumulated in float64 — the mean, then the sum of squared deviations from it (no
    cancellation of a one-pass formula) — divided by ``max(N - correction, 0)`` as
    NumPy does (0/0 gives NaN, x/0 gives inf). Many short rows (at most
    :data:`~.var_kernels.VAR_ROWS_MAX` elements, a float output) run both passes in one
    kernel that reads each row once (:func:`.var_kernels.var_rows`); other float32
    inputs one pass of shifted moments (:func:`_var_moments`). ``axis`` and ``dtype``
    are the caller's arguments (``axes`` the normalized axis): with ``correction`` and
    ``keepdims`` they key the prepared call a kernel path leaves for :func:`repeat`."""
    cp = _cupy()
    out_dtype = np.dtype(out_dtype)
    # float32 into a float32 result: the recipe of the one-pass moments (its plan is the
    # mean's), else the mean's (the first of the two passes; a float64 result, dtype=,
    # would show the moments' cancellation, which rounding to float32 hides)
    moments = x.dtype in _MOMENT_DTYPES and out_dtype == x.dtype
    rec = (_recipe(func, x, axis, "moments", _C16, _C16, axes) if moments
           else _recipe(func, x, axis, "mean", _F8, _F8, axes))
    plan = rec.plan
    axes = plan.axes
    n = plan.rowlen
    dof = n - correction
    warned = dof <= 0 or n == 0
    if warned:
        warnings.warn("Degrees of freedom <= 0 for slice", RuntimeWarning, stacklevel=4)
    one_each = plan.strategy == "copy"
    if one_each:
        # one element per output: its deviation from itself, x - x, is 0 for finite
        # x and NaN for NaN or inf (as NumPy's x - mean(x)), never a plain 0
        y = (cp.squeeze(x, axis=axes) if axes else x).astype(_F8)
        ss = (y - y) * (y - y)
    elif n == 0 or plan.nrows == 0:
        ss = cp.full(plan.nrows, np.nan, dtype=_F8)
    else:
        finished = out_dtype in vk.FINISH_TYPES
        if finished and vk.rows_ok(plan):
            kind, rec2 = "rows", None
        elif moments and rec.kind == "interleave":
            # the interleave kernel reads each column's first element itself (op
            # "moments0"): no launch of the centers, the same shifts and bits
            kind, rec2 = "moments0", None
            rec = _recipe(func, x, axis, "moments0", _C16, _C16, axes)
        elif moments:   # a kernel strategy here: copy, identity and empty are handled above
            kind, rec2 = "moments", None
        else:
            kind, rec2 = "two", _recipe(func, x, axis, "sumsq", _F8, _F8, axes)
        if kind != "two" or finished:
            call = _VarCall(x, kind, rec, rec2, float(builtins.max(dof, 0)), root,
                            out_dtype, keepdims)
            res = call.run(x)
            if not warned and args_ok(axis, dtype, keepdims) and _keyed(correction):
                _CALLS.prepare(_key(func, x, axis, correction, dtype, keepdims,
                                    cp.cuda.runtime.getDevice()), call.run, cp)
            return res
        center = _launch(x, rec, _F8, _F8)
        ss = _launch(x, rec2, _F8, _F8, center=center)
    v = ss / float(builtins.max(dof, 0))
    if root:
        v = cp.sqrt(v)
    v = v.astype(out_dtype, copy=False)
    if one_each:
        return _keep(v, axes, x.ndim, keepdims)
    return _finish(v, plan, x.ndim, keepdims)
