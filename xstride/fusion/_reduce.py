"""The trailing reductions of ``xp.fuse``: ``xp.sum``, ``prod``, ``min``, ``max`` and
``mean`` of a traced value, recorded as a :class:`~xstride._plans.fusion.Reduce`.

The reduction's result becomes a virtual argument of the graph (past the function's
own arguments): the nodes that use it read it as a Load. The executor computes each
reduction before the kernel that reads its result, with the reduction kernels of the
unfused call (same plan, same order, same accumulator: ``xstride/_kernels/
_fusion_reduce.py``), whose load evaluates the fused expression.

The dtype rules are the unfused namespace functions' (``xstride/reductions.py``):
``sum``/``prod`` give int64/uint64 for bool and integers, the input's dtype for
floats, or ``dtype=``; ``mean`` a floating dtype; ``min``/``max`` the input's.
"""

from __future__ import annotations

import numpy as np

from .._plans import fusion as _plan
from .._plans.reduction import normalize_axis
from ..reduction_args import out_dtype as _out_dtype
from ..reductions import default_sum_dtype, moment_dtype
from ._recorder import ENGINE_DTYPES, Unfusable

__all__ = ["FUSED", "reduction", "red_shape", "is_result"]

#: the namespace reductions a fused function may end with
FUSED = ("sum", "prod", "min", "max", "mean")


def reduction(func: str, args: tuple, kwargs: dict, traced):
    """Record ``xp.<func>(*args, **kwargs)``: ``(x, Reduce)`` (``x`` the traced input;
    the caller makes the result's Load node).

    Raises
    ------
    Unfusable
        ``x`` is no traced array (or a NumPy scalar argument), an argument the fused
        form does not take, a result dtype outside the engine's, a value whose stored
        layout in the unfused run depends on a view of a computed value
        (:func:`~xstride._plans.fusion.stored_layout_known`).
    TypeError, ValueError
        A bad ``axis`` or ``dtype=`` (the unfused call's errors: the call then runs
        unfused, which raises them).
    """
    args = list(args)
    kw = dict(kwargs)
    x = args.pop(0) if args else kw.pop("x", None)
    if not isinstance(x, traced) or x._nparg is not None:
        raise Unfusable(f"xp.{func} of a value that is no traced array")
    if args:
        raise Unfusable(f"xp.{func} with positional arguments after x")
    axis = kw.pop("axis", None)   # a list: normalize_axis refuses it, as unfused
    keepdims = kw.pop("keepdims", False)
    dtype = kw.pop("dtype", None) if func in ("sum", "prod", "mean") else None
    if kw:
        raise Unfusable(f"xp.{func} with keyword arguments ({', '.join(kw)})")
    if not isinstance(keepdims, (bool, np.bool_)):   # np.True_ too, as the unfused call
        raise Unfusable(f"xp.{func} with keepdims={keepdims!r} (not a bool)")
    keepdims = bool(keepdims)
    axes = normalize_axis(func, axis, x.ndim)
    if not _plan.stored_layout_known(x._rec.nodes, x._node):
        # the unfused run reduces the value it stored, seen through the view: the order
        # of its folds (the bits of a float sum) is that layout's, not the fused one's
        raise Unfusable(f"xp.{func} of a view of a computed value (its order of "
                        "summation is the stored value's)")
    in_dt = x.dtype
    if func in ("sum", "prod"):
        out = _out_dtype(func, dtype, default_sum_dtype(in_dt), in_dt)
        bad = out.kind == "b"
    elif func == "mean":
        out = moment_dtype(func, in_dt, dtype)
        bad = out.kind != "f"
    else:
        out = in_dt
        bad = False
    if bad or out not in ENGINE_DTYPES:
        raise Unfusable(f"xp.{func} into dtype {out}")
    rec = x._rec
    arg = rec.nargs + len(rec.reductions)
    red = _plan.Reduce(func, x._node, axis, axes, keepdims,
                       None if dtype is None else np.dtype(dtype).name, out.name, arg)
    rec.reductions.append(red)
    return x, red


def red_shape(x, red) -> tuple:
    """The trace-time shape of the result of ``red`` over ``x``."""
    if red.keepdims:
        return tuple(1 if i in red.axes else n for i, n in enumerate(x._shape))
    return tuple(n for i, n in enumerate(x._shape) if i not in red.axes)


def is_result(rec, node: int) -> bool:
    """``node`` is a reduction's result as the reduction gives it (no view of it)."""
    n = rec.nodes[node]
    return isinstance(n, _plan.Load) and n.arg >= rec.nargs and not n.views
