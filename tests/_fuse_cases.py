"""Shared by the ``xp.fuse`` tests: random expression trees (Hypothesis) turned into
Python functions, a NumPy model of a traced graph, and :func:`check`, which traces a
function on stand-in CuPy arrays and compares the model's run with the unfused one.

A tree is nested tuples; :func:`build` makes a function of the argument arrays that
evaluates it with operators and ``xp.*`` calls, so the same function runs fused (on
stand-ins), unfused on NumPy, or unfused on CuPy. :func:`evaluate` runs a traced graph
on NumPy arrays the way the fused kernel computes it (views from the Layouts the plan
replays, each op in its loop dtypes, each result rounded to its dtype), the CPU
reference for the tracer.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

import xstride as xp
from xstride._core.ufuncs import numpy_ufunc_name
from xstride._plans import fusion as fplan
from xstride.layout import Layout

#: dtypes of the random arguments
DTYPES = ("bool", "int8", "int32", "int64", "uint8", "uint32", "float32", "float64")
#: argument shapes: (m, n), its transpose (n, m) used through ``.T``, a row (n,)
M, N = 5, 7

# "%", "<<", ">>": fused only for some loops (float % and signed shifts run unfused, see
# xstride/fusion/_recorder.py _UNFUSED_LOOPS); tests/test_fuse_trace.py and
# tests/test_fuse_operators_gpu.py take them loop by loop
_BIN = ("+", "-", "*", "/", "<", ">", "==", "!=", "<=", "&", "|", "^", "//")
#: ``**`` takes CuPy's paths (``square`` for ``** 2``, integral powers of negative
#: exponents), not NumPy's: only the GPU trees (compared with CuPy) use it
_BIN_GPU = _BIN + ("**",)
_FN2 = ("maximum", "minimum", "add", "multiply", "atan2", "hypot")
_FN1 = ("exp", "sqrt", "sin", "tanh", "floor", "log1p", "abs", "negative", "square")
#: views of an (M, N) value that keep its shape
_VIEWS = ("rev0", "rev1", "rev01", "TT")


def leaves():
    return st.one_of(
        st.tuples(st.just("arg"), st.integers(0, 2)),
        st.tuples(st.just("lit"), st.one_of(st.integers(-3, 3), st.sampled_from(
            [0.5, -1.25, 2.0, 1e-3])))
    )


def trees(max_leaves=8, gpu=False):
    return st.recursive(leaves(), lambda kids: st.one_of(
        st.tuples(st.just("bin"), st.sampled_from(_BIN_GPU if gpu else _BIN), kids, kids),
        st.tuples(st.just("fn2"), st.sampled_from(_FN2), kids, kids),
        st.tuples(st.just("fn1"), st.sampled_from(_FN1), kids),
        st.tuples(st.just("neg"), kids),
        st.tuples(st.just("where"), kids, kids, kids),
        st.tuples(st.just("astype"), st.sampled_from(("float32", "float64", "int32")), kids),
        st.tuples(st.just("view"), st.sampled_from(_VIEWS), kids),
    ), max_leaves=max_leaves)


def _view(v, kind):
    if getattr(v, "ndim", 0) != 2:   # a scalar (a literal subtree): no view
        return v
    if kind == "rev0":
        return v[::-1]
    if kind == "rev1":
        return v[:, ::-1]
    if kind == "rev01":
        return v[::-1, ::-1]
    return xp.permute_dims(v.T, (1, 0))


def _scalar(v) -> bool:
    return isinstance(v, (bool, int, float))


def _eval(t, args):
    k = t[0]
    if k == "arg":
        i = t[1]
        # argument 1 is stored transposed (N, M) and used as .T; argument 2 is a row
        return args[1].T if i == 1 else args[i]
    if k == "lit":
        return t[1]
    if k == "bin":
        a, b = _eval(t[2], args), _eval(t[3], args)
        op = t[1]
        return {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b,
                "/": lambda: a / b, "<": lambda: a < b, ">": lambda: a > b,
                "==": lambda: a == b, "!=": lambda: a != b, "<=": lambda: a <= b,
                "&": lambda: a & b, "|": lambda: a | b, "^": lambda: a ^ b,
                "//": lambda: a // b, "%": lambda: a % b, "<<": lambda: a << b,
                ">>": lambda: a >> b, "**": lambda: a ** b}[op]()
    if k == "fn2":
        a, b = _eval(t[2], args), _eval(t[3], args)
        if _scalar(a) and _scalar(b):   # functions of Python scalars only: not traced
            return a
        return getattr(xp, t[1])(a, b)
    if k == "fn1":
        a = _eval(t[2], args)
        return a if _scalar(a) else getattr(xp, t[1])(a)
    if k == "neg":
        return -_eval(t[1], args)
    if k == "where":
        c, a, b = _eval(t[1], args), _eval(t[2], args), _eval(t[3], args)
        if _scalar(a) and _scalar(b):
            return a
        return xp.where(bool(c) if _scalar(c) else c, a, b)
    if k == "astype":
        v = _eval(t[2], args)
        return v if isinstance(v, (int, float)) else xp.astype(v, getattr(xp, t[1]))
    if k == "view":
        return _view(_eval(t[2], args), t[1])
    raise AssertionError(t)


def build(tree):
    """A function ``f(x, yT, r)`` (``x`` (M, N), ``yT`` (N, M) used as ``.T``, ``r``
    (N,)) that evaluates ``tree``; a result of the arguments' shape is returned."""
    def f(x, yT, r):
        out = _eval(tree, (x, yT, r))
        if isinstance(out, (int, float, bool)):
            return x + out
        return out
    return f


def arguments(rng, dtypes, make=lambda a: a):
    """Random arguments of ``dtypes`` (three names): (M, N), (N, M), (N,)."""
    out = []
    for dt, shape in zip(dtypes, ((M, N), (N, M), (N,))):
        dt = np.dtype(dt)
        if dt == bool:
            a = rng.integers(0, 2, shape).astype(bool)
        elif dt.kind in "iu":
            a = rng.integers(0 if dt.kind == "u" else -5, 6, shape).astype(dt)
        else:
            a = (rng.standard_normal(shape) * 3).astype(dt)
        out.append(make(a))
    return out


# ----------------------------------------------------------------------------- NumPy model
def _numpy_view(a: np.ndarray, lay: Layout) -> np.ndarray:
    root = a
    while isinstance(root.base, np.ndarray):
        root = root.base
    off = a.__array_interface__["data"][0] - root.__array_interface__["data"][0]
    isz = a.itemsize
    return np.ndarray(lay.shape, a.dtype, buffer=root, offset=off + lay.offset * isz,
                      strides=tuple(s * isz for s in lay.strides))


def evaluate(graph, args):
    """Run ``graph`` on NumPy ``args`` as the fused kernel computes it: a tuple of the
    outputs."""
    lays = [Layout.from_array(a) if isinstance(a, np.ndarray) else None for a in args]
    shape, loads = fplan.call_layouts(graph, lays)
    vals = {}
    for i, lay in zip(graph.loads, loads):
        vals[i] = _numpy_view(args[graph.nodes[i].arg], lay)
    hv = []
    import operator
    for h in graph.host:
        if h[0] == "arg":
            hv.append(args[h[1]])
        elif h[0] == "const":
            hv.append(h[1])
        elif h[0] == "unary":
            hv.append(getattr(operator, h[1])(hv[h[2]]))
        else:
            hv.append(getattr(operator, h[1])(hv[h[2]], hv[h[3]]))
    for i in graph.scalars:
        n = graph.nodes[i]
        v = hv[n.source[1]] if n.source[0] == "host" else args[n.source[1]]
        vals[i] = np.asarray(v, dtype=n.dtype)
    with np.errstate(all="ignore"):
        for i in graph.ops:
            n = graph.nodes[i]
            # copy=False: an operand of the loop dtype keeps its layout, so NumPy takes the
            # same (SIMD or strided) loop as in the unfused run (they differ by an ulp
            # in exp and the like)
            ins = [np.asarray(vals[k]).astype(d, copy=False) for k, d in zip(n.inputs, n.loop)]
            if n.func == "where":
                r = np.where(*ins)
            elif n.func == "astype":
                r = ins[0]
            else:
                r = getattr(np, numpy_ufunc_name(n.func))(*ins)
            vals[i] = np.asarray(r).astype(n.dtype)
    return tuple(np.broadcast_to(vals[o], shape) for o in graph.outputs)


def fake(a):
    """A stand-in CuPy array of ``a`` (``tests/conftest.py``)."""
    from .conftest import FakeCupyArray

    return FakeCupyArray(a)


def same(got, want):
    """Same dtype, shape and bytes (NaNs and signed zeros included)."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape, (got.shape, want.shape)
    assert np.ascontiguousarray(got).tobytes() == np.ascontiguousarray(want).tobytes(), \
        (got, want)


def check(fn, *args):
    """Trace ``fn`` on stand-ins of ``args`` (NumPy arrays and scalars), run the graph's
    NumPy model and compare with ``fn`` run unfused on NumPy."""
    fused = xp.fuse(fn, strict=True)
    dargs = [fake(a) if isinstance(a, np.ndarray) else a for a in args]
    graph = fused.graph(*dargs)
    assert graph is not None
    got = evaluate(graph, args)
    with np.errstate(all="ignore"):
        want = fn(*args)
    want = want if isinstance(want, tuple) else (want,)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        same(g, w)
    return graph
