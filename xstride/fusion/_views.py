"""View steps of ``xp.fuse``'s stand-ins: basic indexing, ``permute_dims``,
``broadcast_to`` and ``reshape`` of a traced value, recorded as view steps of the loads
(:mod:`xstride._plans.fusion`), never as copies.

A view of a computed value is pushed down to the loads it was computed from, each
first broadcast to the value's shape (``(a + b)[1:]`` loads ``a[1:]`` and ``b[1:]``);
the trace-time shape of every step is checked on Layouts, so a bad index or axis
raises the error the unfused call raises.
"""

from __future__ import annotations

import operator

import numpy as np

from .._plans import fusion as _plan
from .._plans.elementwise import broadcast_shapes
from ..layout import Layout
from ._recorder import Unfusable

__all__ = ["view", "index", "permute", "broadcast", "reshape"]


def view(t, step, shape):
    """``t`` seen through ``step`` (a view step of :mod:`xstride._plans.fusion`); ``shape``
    is the result's trace-time shape (checked by the caller)."""
    rec = t._rec
    if t._nparg is not None or not _has_load(rec, t._node):
        raise Unfusable("a view of a value computed from scalars only")
    return type(t)(rec, _push(rec, t._node, (step,)), t.dtype, shape)


def _has_load(rec, i) -> bool:
    n = rec.nodes[i]
    if isinstance(n, _plan.Load):
        return True
    return isinstance(n, _plan.Op) and any(_has_load(rec, k) for k in n.inputs)


def _push(rec, i, steps) -> int:
    n = rec.nodes[i]
    if isinstance(n, _plan.Load):
        lay = Layout(rec.shapes[i])
        for s in steps:
            lay = _plan._view(lay, s, rec.shapes)
        return rec.add(_plan.Load(n.arg, n.views + tuple(steps), n.dtype), lay.shape)
    if isinstance(n, _plan.Scalar):
        return i
    ins = []
    for k in n.inputs:
        pre = () if rec.shapes[k] == rec.shapes[i] else (("expand", i),)
        ins.append(_push(rec, k, pre + tuple(steps)))
    shape = broadcast_shapes(*(rec.shapes[k] for k in ins), func=n.func)
    return rec.add(_plan.Op(n.func, tuple(ins), n.loop, n.dtype, n.via, pushed=True), shape)


def _check_view(t, step):
    """The trace-time shape of ``t`` seen through ``step`` (errors as the unfused run)."""
    return _plan._view(Layout(t._shape), step, t._rec.shapes).shape


def _plain_int(k):
    """A NumPy integer (a constant: arguments are stand-ins) as a Python int."""
    return int(k) if isinstance(k, np.integer) else k


def index(t, key):
    """``t[key]`` for a basic index; an array or list index is :class:`Unfusable`.
    NumPy integers count as ints, in slices too (NumPy's and CuPy's basic indexing)."""
    items = key if isinstance(key, tuple) else (key,)
    plain = []
    for k in items:
        if isinstance(k, slice):
            k = slice(*(_plain_int(p) for p in (k.start, k.stop, k.step)))
            if any(isinstance(p, (bool, np.bool_)) for p in (k.start, k.stop, k.step)):
                raise Unfusable("a slice bound that is a bool (x[:True])")
            if any(p is not None and not isinstance(p, int) for p in (k.start, k.stop, k.step)):
                raise Unfusable("a slice whose bounds are no Python ints")
        elif k is not None and k is not Ellipsis:
            k = _plain_int(k)
            if isinstance(k, bool) or not isinstance(k, int):
                raise Unfusable(f"indexing by {type(k).__name__} (only basic indexing fuses)")
        plain.append(k)
    key = tuple(plain) if isinstance(key, tuple) else plain[0]
    step = ("index", _plan.encode_key(key))
    return view(t, step, _check_view(t, step))


def permute(t, axes):
    # operator.index(True) is 1, but the namespace's permute_dims refuses a bool axis
    # (the unfused run then gives its own answer, CuPy's for .transpose())
    try:
        bad = any(isinstance(a, (bool, np.bool_)) for a in axes)
        axes = tuple(operator.index(a) for a in axes)   # not int(): 1.0 is refused
    except TypeError:
        bad = True
    if bad:
        raise Unfusable("permute_dims with axes that are no ints")
    step = ("permute", axes)
    return view(t, step, _check_view(t, step))


def _extents(shape) -> tuple:
    """``shape`` (an integer or a sequence of them) as a tuple of ints: ``operator.index``
    as NumPy's, so ``4.0`` is the unfused call's TypeError, not ``int()``'s 4."""
    if isinstance(shape, (bool, np.bool_)):
        raise Unfusable("a shape that is a bool")
    try:
        return (operator.index(shape),)
    except TypeError:
        pass
    if any(isinstance(n, (bool, np.bool_)) for n in shape):
        raise Unfusable("a shape with a bool extent")
    return tuple(operator.index(n) for n in shape)


def broadcast(t, shape):
    t._rec.shape_dependent = True
    step = ("broadcast", _extents(shape))
    return view(t, step, _check_view(t, step))


def reshape(t, shape):
    t._rec.shape_dependent = True
    step = ("reshape", _extents(shape))
    # the trace-time arrays decide whether the reshape is a view: checked per call again
    return view(t, step, _plan.reshape_layout(Layout(t._shape), step[1]).shape)
