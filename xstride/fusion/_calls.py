"""``xp.<name>`` called inside ``xp.fuse`` on stand-ins: :func:`namespace_call`, the
dispatch's hook (``fusion/__init__.py``), with ``where`` and ``clip`` of stand-ins.

An elementwise function of the engine or a fused math function becomes an Op node
(:func:`._tracer.ufunc`), ``where`` and ``clip`` as the unfused calls compute them,
``astype`` a cast, the view functions view steps (:mod:`._views`), the fused reductions
reduction records (:mod:`._reduce`); anything else raises :class:`Unfusable` naming the
function and what to do instead.
"""

from __future__ import annotations

import numpy as np

from .._backends.clip_checks import check_bounds
from .._core.names import ELEMENTWISE
from .._core.ufuncs import ENGINE_UFUNCS, FUSION_MATH, FUSION_PREDICATES
from ..elementwise import where_dtype
from ..elementwise_args import check_astype_complex, check_astype_copy, check_where_ints
from . import _reduce
from ._recorder import Unfusable
from ._tracer import Traced, Weak, _apply, _node_of, _operand, _reduction, astype, ufunc
from ._views import broadcast, index, permute, reshape

__all__ = ["namespace_call", "where", "clip"]


def where(rec, cond, x1, x2):
    ops = [_operand(rec, v) for v in (cond, x1, x2)]
    kinds = tuple(o[1].dtype if o[0] == "dev" else o[2] for o in ops)
    values = tuple(o[1] if o[0] == "dev" else o[3] for o in ops)
    check_where_ints(values[1], values[2])   # a Python int must fit the array's dtype
    rdt = where_dtype(kinds[1:], values[1:])
    return _apply(rec, "where", ops, (np.dtype(bool), rdt, rdt), rdt, np_strict=True)


def clip(rec, x, min=None, max=None):   # noqa: A002 (the standard's keyword names)
    """``clip`` as ``array_api_compat`` computes it (``common/_aliases.py``): a Python
    int bound beyond an integer dtype's range is dropped; each bound is converted to
    ``x``'s dtype, and where ``out < min`` (then ``out > max``) or the bound is NaN, the
    bound replaces the value. ``min`` and ``max`` are the standard's keywords."""
    if not isinstance(x, Traced):
        raise Unfusable("clip of a value that is no traced array")
    # the bounds' checks of the unfused call, a traced bound an array bound of its
    # dtype, a scalar argument by its value in this call (its type is the signature's);
    # a constant Python int past the near end of an integer range is no bound
    given = (min, max)
    lo, hi = (g if isinstance(g, Weak) else c for g, c in zip(given, check_bounds(
        x.dtype, *(g.value if isinstance(g, Weak) else g for g in given), Traced)))
    out = x
    xd = x.dtype
    for bound, cmp in ((lo, "less"), (hi, "greater")):
        if bound is None:
            continue
        if isinstance(bound, Traced):
            b = bound if bound.dtype == xd else astype(bound, xd)
        else:
            op = _operand(rec, bound)
            b = Traced(rec, _node_of(rec, op, xd), xd, ())
        hit = ufunc(rec, "bitwise_or", (ufunc(rec, cmp, (out, b)),
                                        ufunc(rec, "not_equal", (b, b))))
        out = _apply(rec, "where", (("dev", hit), ("dev", b), ("dev", out)),
                     (np.dtype(bool), xd, xd), xd, via="clip")
    return out


_VIEWS = {"permute_dims", "matrix_transpose", "broadcast_to", "reshape", "expand_dims"}
_REDUCTIONS = {"sum", "prod", "min", "max", "mean", "var", "std", "all", "any", "argmin",
               "argmax", "cumulative_sum", "cumulative_prod"}
#: elementwise functions the trace does not compute whose operator fuses in their place
#: (docs/fuse.md, "What fuses": CuPy's own operators, "CuPy's //, %, **, shifts")
_BY_OPERATOR = {"bitwise_left_shift": "<<", "bitwise_right_shift": ">>",
                "floor_divide": "//", "remainder": "%", "pow": "**"}


def _unfused_elementwise(name: str) -> str:
    """Why ``xp.<name>``, an elementwise function the trace does not compute, stops a
    call from fusing, and what to do instead (it said "neither elementwise nor one of
    the fused views", of functions that are elementwise)."""
    op = _BY_OPERATOR.get(name)
    instead = (f"write the operator {op} in its place (it fuses) or call xp.{name} outside "
               "the fused function" if op else f"call xp.{name} outside the fused function")
    return (f"xp.{name} is not supported inside xp.fuse (docs/fuse.md, \"What fuses\"); "
            f"{instead}")


def namespace_call(qualname: str, args: tuple, kwargs: dict):
    """An ``xp.<qualname>`` call whose arguments include stand-ins (the dispatch hook).

    Raises
    ------
    Unfusable
        A function outside the fused set, or a keyword the fused form does not take.
    """
    rec = None
    for v in list(args) + list(kwargs.values()):
        if isinstance(v, (Traced, Weak)):
            rec = v._rec
            break
    name = qualname
    if "x" in kwargs:   # positional-only in the namespace: the unfused call raises
        raise Unfusable(f"xp.{name} with x= (x is positional-only)")
    if name == "astype" and (len(args) > 2 or "dtype" in kwargs):
        raise Unfusable("xp.astype with dtype= or copy given by position (astype takes "
                        "x and dtype by position, copy by keyword)")
    if (name in ENGINE_UFUNCS or name in FUSION_MATH or name in FUSION_PREDICATES
            or name == "bitwise_invert"):
        if kwargs:
            raise Unfusable(f"xp.{name} with keyword arguments ({', '.join(kwargs)})")
        return ufunc(rec, name, args, np_strict=True)
    if name == "where" and not kwargs:
        return where(rec, *args)
    if name == "astype":
        check_astype_copy(kwargs.get("copy", True))   # the unfused call's TypeError
        if len(args) == 2 and isinstance(args[0], Traced):   # complex to real: refused
            check_astype_complex(args[0].dtype, np.dtype(args[1]))
        kw = dict(kwargs)
        if kw.pop("device", None) is not None:
            raise Unfusable("xp.astype with device=")
        return astype(*args, **kw)
    if name == "clip":
        return clip(rec, *args, **kwargs)
    if name in _VIEWS:
        x = args[0] if args else kwargs.get("x")
        if not isinstance(x, Traced):
            raise Unfusable(f"xp.{name} of a value that is no traced array")
        rest = dict(kwargs)
        rest.pop("x", None)
        more = list(args[1:])
        if name == "permute_dims":
            return permute(x, more[0] if more else rest["axes"])
        if name == "matrix_transpose":
            return x.mT
        if name == "broadcast_to":
            return broadcast(x, more[0] if more else rest["shape"])
        if name == "reshape":
            if rest.get("copy") is not None or len(more) > 1:
                raise Unfusable("xp.reshape with copy=")
            return reshape(x, more[0] if more else rest["shape"])
        axis = more[0] if more else rest.get("axis", 0)
        nd = x.ndim + 1
        if isinstance(axis, bool) or not isinstance(axis, int) or not -nd <= axis < nd:
            raise Unfusable("xp.expand_dims with that axis")
        axis %= nd
        return index(x, (slice(None),) * axis + (None,))
    if name in _reduce.FUSED:
        return _reduction(name, args, kwargs)
    if name in _REDUCTIONS:
        raise Unfusable(f"xp.{name} (only sum, prod, min, max and mean fuse)")
    if name in ELEMENTWISE:
        raise Unfusable(_unfused_elementwise(name))
    raise Unfusable(f"xp.{name} (neither elementwise nor one of the fused views and "
                    "reductions: docs/fuse.md, \"What fuses\"; for a periodic stencil, "
                    "refresh ghost cells with xp.copy_into and fuse the slices)"
                    if name in ("roll", "concat") else
                    f"xp.{name} (neither elementwise nor one of the fused views and "
                    "reductions: docs/fuse.md, \"What fuses\")")
