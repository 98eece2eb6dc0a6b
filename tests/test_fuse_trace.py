"""``xp.fuse`` on the CPU: the tracer's graphs, dtypes, views as Layouts, weak scalars
and random expression trees (stand-in CuPy, no GPU; what runs unfused and the strict
errors: ``test_fuse_fallbacks.py``).

The graph of a function traced on stand-in CuPy arrays is run by a NumPy model of the
fused kernel (``_fuse_cases.evaluate``) and compared, dtype and bits, with the function
run unfused on NumPy arrays.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import xstride as xp
from xstride._plans import fusion as fplan
from xstride.layout import Layout

from ._fuse_cases import DTYPES, arguments, build, check, evaluate, fake, same, trees


# ----------------------------------------------------------------------------- the cases
def test_particle_push_graph(fake_cupy):
    rng = np.random.default_rng(0)
    x, v, a = (rng.standard_normal((64, 3)).astype(np.float32) for _ in range(3))

    def push(x, v, a, dt):
        return x + v * dt + 0.5 * a * dt * dt, v + a * dt

    g = check(push, x, v, a, 0.01)
    # three loads (x, v, a), two scalars (dt and 0.5 in float32), two outputs
    assert [g.nodes[i].arg for i in g.loads] == [0, 1, 2]
    assert [g.nodes[i].dtype for i in g.scalars] == ["float32", "float32"]
    assert len(g.outputs) == 2
    assert all(g.nodes[i].dtype == "float32" for i in g.ops)


def test_push_with_transposed_a(fake_cupy):
    rng = np.random.default_rng(1)
    x, v = (rng.standard_normal((64, 3)).astype(np.float32) for _ in range(2))
    aT = rng.standard_normal((3, 64)).astype(np.float32)

    def push(x, v, a, dt):
        return x + v * dt + 0.5 * a.T * dt * dt, v + a.T * dt

    g = check(push, x, v, aT, 0.01)
    views = [g.nodes[i].views for i in g.loads]
    assert (("permute", (1, 0)),) in views          # a.T is a Layout change of a


def test_jacobi_through_slices(fake_cupy):
    u = np.random.default_rng(2).standard_normal((33, 40))
    c = u[1:-1, 1:-1]

    def jacobi(u, c):
        return c + 0.1 * (u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2] - 4 * c)

    g = check(jacobi, u, c)
    assert sorted(g.nodes[i].arg for i in g.loads) == [0, 0, 0, 0, 1]
    lays = fplan.call_layouts(g, [Layout.from_array(u), Layout.from_array(c)])[1]
    # the four shifted windows of u: offsets relative to u's first element
    offs = [lay.offset for i, lay in zip(g.loads, lays) if g.nodes[i].arg == 0]
    assert sorted(offs) == sorted([2 * 40 + 1, 1, 40 + 2, 40])
    # rows above and below: the engine's row tiles take a few rows a work item
    assert fplan.rows_apart([g.nodes[i].arg for i in g.loads], lays)


def test_rows_apart_only_for_one_argument_read_rows_apart():
    """A stencil's rows above and below are rows apart; a shift along the row, two
    arguments or one load each are not."""
    u = Layout((10, 40))

    def lays(*keys):
        return [fplan.index_layout(u, fplan.encode_key(k)) for k in keys]

    rows = (slice(2, None), slice(1, -1))
    up = (slice(None, -2), slice(1, -1))
    left, right = (slice(1, -1), slice(None, -2)), (slice(1, -1), slice(2, None))
    assert fplan.rows_apart([0, 0], lays(rows, up))
    assert not fplan.rows_apart([0, 0], lays(left, right))      # 2 elements apart
    assert not fplan.rows_apart([0, 1], lays(rows, up))         # two arrays
    assert not fplan.rows_apart([0], lays(rows))
    assert not fplan.rows_apart([0, 0], lays(rows, rows))       # the same view twice
    t = Layout((10, 40), strides=(1, 10))                       # a transposed view
    a, b = (fplan.index_layout(t, fplan.encode_key(k)) for k in ((slice(1, None),),
                                                                  (slice(None, -1),)))
    assert not fplan.rows_apart([0, 0], [a, b])                 # one element apart


def test_mixed_layout_update(fake_cupy):
    rng = np.random.default_rng(3)
    f = rng.standard_normal((6, 5, 4)).astype(np.float32)
    g_ = rng.standard_normal((5, 4, 6)).astype(np.float32)
    h = rng.standard_normal((6, 4)).astype(np.float32)

    def update(f, g, h):
        return 0.9 * f + 0.5 * xp.permute_dims(g, (2, 0, 1)) - h[:, None, :]

    check(update, f, g_, h)


def test_broadcast_scalar_arrays_and_new_axes(fake_cupy):
    rng = np.random.default_rng(4)
    m = rng.standard_normal(50).astype(np.float64)
    v = rng.standard_normal((50, 3)).astype(np.float32)

    def energy_density(m, v):
        return 0.5 * (m[:, None] * v * v)

    g = check(energy_density, m, v)
    mviews = [g.nodes[i].views for i in g.loads if g.nodes[i].arg == 0]
    assert mviews == [(("index", (("slice", None, None, None), None)),)]


# ----------------------------------------------------------------------------- views
def test_view_of_a_computed_value_is_pushed_to_the_loads(fake_cupy):
    rng = np.random.default_rng(5)
    x = rng.standard_normal((6, 4)).astype(np.float32)
    r = rng.standard_normal(4).astype(np.float32)

    def f(x, r):
        return ((x + r) * 2)[::-1, 1:].T

    g = check(f, x, r)
    # r was broadcast to (6, 4) before the slice: an "expand" step, then the views
    rview = [g.nodes[i].views for i in g.loads if g.nodes[i].arg == 1][0]
    assert rview[0][0] == "expand" and [s[0] for s in rview[1:]] == ["index", "permute"]


@pytest.mark.parametrize("key", [
    (slice(None, None, -1),), (Ellipsis, None), (None, 2), (1, slice(1, None, 2)),
    (slice(-2, None), Ellipsis, slice(None, None, -3)),
])
def test_basic_indexing_forms(fake_cupy, key):
    x = np.arange(5 * 6 * 3, dtype=np.float64).reshape(5, 6, 3)
    if key == (None, 2) or key == (1, slice(1, None, 2)):
        x = x[:, :, 0]
    check(lambda x: x[key] * 2, x)


def test_broadcast_to_reshape_expand_dims_matrix_transpose(fake_cupy):
    x = np.arange(12, dtype=np.float32)
    m = np.arange(4, dtype=np.float32)
    y = np.arange(12, dtype=np.float32).reshape(3, 4)

    def f(x, m, y):
        a = xp.reshape(x, (3, 4)) + xp.broadcast_to(m, (3, 4))
        b = xp.expand_dims(m, axis=0) * xp.matrix_transpose(xp.matrix_transpose(y))
        return a - b

    g = check(f, x, m, y)
    assert g.shape_dependent


@pytest.mark.parametrize("body", [
    lambda x: xp.reshape(x, (4.0, 3)) * 2, lambda x: xp.reshape(x, (4.5, 3)) * 2,
    lambda x: xp.broadcast_to(x[0], (3.0, 4)) * 2,
    lambda x: xp.permute_dims(x, (1.0, 0)) * 2, lambda x: x.transpose(1.5, 0) * 2,
])
def test_a_float_extent_or_axis_is_the_unfused_type_error(fake_cupy, body):
    """``int()`` of each extent or axis took ``4.0`` (and ``4.5``) as 4: the fused call
    gave a result where the unfused reshape / broadcast_to / permute_dims raises
    TypeError."""
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    with pytest.raises(TypeError):
        body(a)
    try:   # the trace raises the unfused TypeError, or refuses (runs unfused)
        graph = xp.fuse(body).graph(fake(a))
    except TypeError as exc:
        assert "cannot be interpreted as an integer" in str(exc)
    else:
        assert graph is None


def test_integer_like_extents_still_fuse(fake_cupy):
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    check(lambda x: xp.reshape(x, (np.int64(4), 3)) * 2, a)
    check(lambda x: xp.reshape(x, np.array([2, 6])) + 1, a)
    check(lambda x: xp.broadcast_to(x[0], 4) * 2, a)        # an int, as NumPy takes it
    check(lambda x: x.reshape(-1) * 2, a)


def test_reshape_that_needs_a_copy_is_refused_per_call():
    lay = Layout((4, 6), (1, 4))            # a transposed (6, 4) array
    assert fplan.reshape_layout(lay, (24,)) is None
    assert fplan.reshape_layout(Layout((4, 6)), (2, 12)).strides == (12, 1)
    assert fplan.reshape_layout(Layout((4, 6)), (-1,)).shape == (24,)
    with pytest.raises(ValueError, match="cannot reshape"):
        fplan.reshape_layout(Layout((4, 6)), (5, 5))
    with pytest.raises(ValueError, match="one unknown"):
        fplan.reshape_layout(Layout((4, 6)), (-1, -1))


def test_index_errors_are_the_unfused_ones():
    with pytest.raises(IndexError):
        fplan.index_layout(Layout((3, 4)), (5,))
    with pytest.raises(IndexError, match="single ellipsis"):
        fplan.index_layout(Layout((3, 4)), (Ellipsis, Ellipsis))
    with pytest.raises(IndexError, match="too many"):
        fplan.index_layout(Layout((3, 4)), (0, 0, 0))


# ----------------------------------------------------------------------------- dtypes
@pytest.mark.parametrize("dt", ["int8", "uint8", "int32", "float32", "float64", "bool"])
@pytest.mark.parametrize("scalar", [2, 0.5, True])
def test_weak_python_scalars(fake_cupy, dt, scalar):
    x = np.arange(6).astype(dt).reshape(2, 3)
    if dt == "bool" and not isinstance(scalar, bool):
        check(lambda x, s: x * s, x, scalar)
        return
    check(lambda x, s: (x * s, x + 1, 3 - x, x == s), x, scalar)


def test_python_arithmetic_on_scalar_arguments_runs_on_the_host(fake_cupy):
    x = np.linspace(0, 1, 8, dtype=np.float32)

    def f(x, dt):
        return (dt * dt) * x + dt / 3

    g = check(f, x, 0.1)
    kinds = [h[0] for h in g.host]
    assert "binary" in kinds
    assert check(f, x, 0.3).host == g.host     # the values are computed per call


@pytest.mark.parametrize("fn, s", [
    (lambda x, s: x * (s ^ -3), True), (lambda x, s: x + (s & 6), 5),
    (lambda x, s: x + (s | True), 4), (lambda x, s: x * (1 << s), 2),
    (lambda x, s: x + (s >> 1), 7), (lambda x, s: x + ~s, 2),
    (lambda x, s: x * divmod(s, 3)[0] + divmod(7, s)[1], 5),
])
def test_bitwise_python_arithmetic_on_scalar_arguments_runs_on_the_host(fake_cupy, fn, s):
    """``s ^ -3``, ``1 << s``, ``~s``, ``divmod(s, 3)`` of a Python scalar argument
    raised "unsupported operand type(s) for ^: 'Weak' and 'int'" in the trace (the call
    ran unfused with that warning; strict: TypeError)."""
    x = np.arange(-3, 3, dtype=np.int8)
    g = check(fn, x, s)
    assert "arg" in [h[0] for h in g.host] and len(g.host) >= 2
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        xp.fuse(fn, strict=True).graph(fake(x), s)


def _by_scalar_kind(x, s):
    if isinstance(s, int):                   # the unfused run's branch for an int or bool
        return x + s
    if isinstance(s, (float, complex)):
        return x * s
    return x - s


@pytest.mark.parametrize("s", [3, True, 2.5])
def test_isinstance_of_a_python_scalar_argument_takes_the_unfused_branch(fake_cupy, s):
    """A new-user probe: the stand-in of a Python scalar argument answered ``isinstance``
    as its own class, so ``isinstance(s, int)`` was False in the trace and the kernel
    computed another branch than the unfused run (``x - s`` for ``x + s``). It answers
    as the value's type now (the tracer's own checks still see the stand-in)."""
    x = np.arange(6, dtype=np.float32)
    check(_by_scalar_kind, x, s)
    g = xp.fuse(_by_scalar_kind, strict=True).graph(fake(x), s)
    want = "add" if isinstance(s, int) else "multiply"
    assert [g.nodes[i].func for i in g.ops] == [want]


def test_numpy_scalars_are_strong(fake_cupy):
    x = np.arange(4, dtype=np.float32)
    g = check(lambda x, s: x * s, x, np.float64(0.5))
    assert g.nodes[g.outputs[0]].dtype == "float64"
    g = check(lambda x, s: x * s, x, np.int16(3))
    assert g.nodes[g.outputs[0]].dtype == "float32"


@pytest.mark.parametrize("fn", ["exp", "log1p", "sqrt", "sin", "cos", "tanh", "floor", "ceil",
                                "trunc", "acosh", "atan"])
@pytest.mark.parametrize("dt", ["int16", "int32", "float32", "float64"])
def test_math_functions(fake_cupy, fn, dt):
    x = (np.arange(1, 9) * 1.5).astype(dt)
    check(lambda x: getattr(xp, fn)(x) + 1, x)


@pytest.mark.parametrize("dt", ["int8", "uint8", "int16", "int32", "uint32", "int64", "uint64",
                                "bool", "float32", "float64"])
def test_cupy_operators_floordiv_mod_pow_shift(fake_cupy, dt):
    """``//``, ``%``, ``**``, ``<<``, ``>>``, ``divmod`` with their reflected forms: NumPy's
    loop dtypes (NEP 50), values as the unfused run (zero divisors included for
    integers; float operands where floor(a / b) is NumPy's floor division)."""
    rng = np.random.default_rng(9)
    d = np.dtype(dt)
    if d.kind == "f":
        x = (rng.integers(-40, 40, (3, 4)) / 4).astype(dt)
        y = (rng.integers(1, 9, (3, 4)) / 2 * rng.choice([-1, 1], (3, 4))).astype(dt)
    else:
        lo = 0 if d.kind in "ub" else -20
        x = rng.integers(lo, 20, (3, 4)).astype(dt)
        y = rng.integers(lo, 6, (3, 4)).astype(dt)
    with np.errstate(all="ignore"):
        if d.kind == "f":   # float %: unfused (not yet CuPy's bits), so divmod too
            check(lambda x, y: (x // y, 7 // y), x, y)
            for fn in (lambda x, y: x % y, lambda x, y: divmod(x, y)):
                assert xp.fuse(fn).graph(fake(x), fake(y)) is None   # runs unfused
        else:
            check(lambda x, y: (x // y, x % y, 7 // (y | 1)), x, y)
            check(lambda x, y: divmod(x, y) + divmod(3, y + 1), x, y)
        if d.kind == "u":
            check(lambda x, y: (x << (y & 3), x >> 2, 1 << (y & 3), x ** (y & 3)), x, y)
        elif d.kind != "f":  # signed (and bool: int8) shifts: unfused
            check(lambda x, y: x ** (y & 3), x, y)
            assert xp.fuse(lambda x, y: x >> (y & 3)).graph(fake(x), fake(y)) is None
        else:
            check(lambda x, y: (x ** y, 2 ** x, x ** 3, x ** 1.5), x, y)
        if d.kind != "b":   # bool ** 2: NumPy squares in int8, CuPy in int64 (below)
            check(lambda x: (x ** 2, x ** 2.0, x ** 0.5, x ** -1.0 if d.kind == "f" else x),
                  np.abs(x))


def test_power_shortcuts_follow_cupy(fake_cupy):
    """CuPy computes ``x ** 2`` as ``square`` (in ``result_type(x, 2)`` for bool and
    unsigned ``x``), ``** 2.0`` as ``square``, ``** 0.5`` as ``sqrt``, ``** -1.0`` as
    ``reciprocal`` (a non-float ``x`` in ``result_type(x, y)``); others are ``power``."""
    def funcs(fn, x):
        g = xp.fuse(fn, strict=True).graph(fake(x))
        return [(g.nodes[i].func, g.nodes[i].dtype) for i in g.ops]
    f32, i8, b = np.ones(3, np.float32), np.ones(3, np.int8), np.ones(3, bool)
    assert funcs(lambda x: x ** 2, f32) == [("square", "float32")]
    assert funcs(lambda x: x ** 2, i8) == [("square", "int8")]
    assert funcs(lambda x: x ** 2, b) == [("astype", "int64"), ("square", "int64")]
    assert funcs(lambda x: x ** 0.5, i8) == [("astype", "float64"), ("sqrt", "float64")]
    assert funcs(lambda x: x ** -1.0, f32) == [("reciprocal", "float32")]
    assert funcs(lambda x: x ** 3, f32) == [("power", "float32")]
    assert funcs(lambda x: 2 ** x, f32) == [("power", "float32")]
    with pytest.raises(TypeError, match="a Python scalar argument"):
        xp.fuse(lambda x, s: x ** s, strict=True)(fake(f32), 2)


def test_reduction_methods_fuse_where_exact(fake_cupy):
    i = fake(np.arange(12, dtype=np.int16).reshape(3, 4))
    g = xp.fuse(lambda x: (x * 2).sum(axis=1), strict=True).graph(i)
    assert [(r.func, r.axes, r.out) for r in g.reductions] == [("sum", (1,), "int64")]
    g = xp.fuse(lambda x: (x > 3).max(0, keepdims=True), strict=True).graph(i)
    assert [(r.func, r.keepdims, r.out) for r in g.reductions] == [("max", True, "bool")]
    f = fake(np.ones((3, 4), np.float32))
    for fn, what in [(lambda x: (x * 2).sum(), "of float32 into a float"),
                     (lambda x: (x * 2).sum(dtype=xp.float64), "into a float"),
                     (lambda x: x.max(out=x), "out="), (lambda x: x.min(0, None, True, 1),
                                                        "positional"),
                     (lambda x: x.prod(where=x), "where=")]:
        with pytest.raises(TypeError, match=what):
            xp.fuse(fn, strict=True)(i if "positional" in what or "where" in what or
                                     "out" in what else f)


def test_where_clip_astype_bitwise(fake_cupy):
    rng = np.random.default_rng(6)
    x = rng.standard_normal(20).astype(np.float32)
    x[3] = np.nan
    i = rng.integers(-9, 9, 20).astype(np.int32)

    def f(x, i):
        return (xp.where(x > 0, x, 0.0), xp.clip(x, -0.5, 0.75), xp.astype(i, xp.float32) * x,
                ~i & 5 | (i ^ 3), ~(x > 0), xp.clip(i, -3, 2**40), abs(i), -x, +x)

    check(f, x, i)


def test_clip_takes_the_standards_keywords(fake_cupy):
    """A new-user probe: ``xp.clip(x, min=..., max=...)``, the standard's spelling
    (``clip(x, /, min=None, max=None)``), raised "clip() got an unexpected keyword
    argument 'min'" in the trace, so the call ran unfused (or raised under strict)."""
    x = np.array([-2.0, -0.25, 0.5, 3.0, np.nan], np.float32)
    i = np.arange(-3, 2, dtype=np.int16)      # one shape: outputs of a fused call

    def f(x, i):
        return (xp.clip(x, min=-0.5, max=0.75), xp.clip(x, max=0.0), xp.clip(x, -1.0, max=2.0),
                xp.clip(i, min=-2), xp.clip(i, min=None, max=2))

    check(f, x, i)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tree=trees(), dtypes=st.tuples(*[st.sampled_from(DTYPES)] * 3), seed=st.integers(0, 9))
def _random_expression_matches_numpy(tree, dtypes, seed):
    from .conftest import installed_fake_cupy

    fn = build(tree)
    args = arguments(np.random.default_rng(seed), dtypes)
    try:
        with np.errstate(all="ignore"):
            want = fn(*args)
    except Exception as exc:   # the unfused run refuses it: the trace raises or gives up
        with installed_fake_cupy():
            try:
                graph = xp.fuse(fn).graph(*[fake(a) for a in args])
            except type(exc):
                return
        assert graph is None, "traced what the unfused run refuses"
        return
    with installed_fake_cupy():
        graph = xp.fuse(fn).graph(*[fake(a) for a in args])
    if graph is None:   # float16 and other dtypes outside the engine: runs unfused
        assert np.dtype(want.dtype) not in xp.fusion._tracer.ENGINE_DTYPES or any(
            np.dtype(d).kind in "iub" for d in dtypes)
        return
    (got,) = evaluate(graph, args)
    funcs = {graph.nodes[i].func for i in graph.ops}
    if funcs <= CORRECTLY_ROUNDED:
        same(got, want)
    else:   # NumPy's own exp, atan2, ... differ by an ulp between its SIMD and strided loops
        within_ulps(got, want, 2)
    STATS.append(len(graph.ops))


#: Functions whose NumPy result is the correctly rounded one on every loop (IEEE basic
#: operations, comparisons, selections): the model and the unfused run agree bit for
#: bit. Others (exp, atan2, ...) are compared within 2 ulps here; on the GPU the fused
#: kernel and the unfused run use the same CUDA functions and agree bit for bit
#: (tests/test_fuse_gpu.py).
CORRECTLY_ROUNDED = frozenset({
    "add", "subtract", "multiply", "divide", "sqrt", "negative", "positive", "abs",
    "floor", "ceil", "trunc", "round", "maximum", "minimum", "where", "astype", "clip",
    "equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
    "logical_and", "logical_or", "logical_xor", "logical_not", "bitwise_and",
    "bitwise_or", "bitwise_xor", "bitwise_invert", "isnan", "isinf", "isfinite",
    "signbit", "square"})


def within_ulps(got, want, ulps):
    """Same dtype and shape; integers and bools equal; floats: NaN and inf where the
    other has them, finite values within ``ulps`` units in the last place."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, want.dtype)
    if got.dtype.kind not in "fc":
        np.testing.assert_array_equal(got, want)
        return
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_array_equal(np.isinf(got), np.isinf(want))
    fin = np.isfinite(want)
    np.testing.assert_array_equal(got[~fin & ~np.isnan(want)], want[~fin & ~np.isnan(want)])
    np.testing.assert_array_max_ulp(got[fin], want[fin], maxulp=ulps)


STATS: list = []


def test_random_expressions_match_numpy():
    """Random expression trees traced, evaluated by the NumPy model of the kernel and
    compared bit for bit with the unfused run (Hypothesis); and not vacuously: most
    trees traced to a graph with ops."""
    STATS.clear()
    _random_expression_matches_numpy()
    assert len(STATS) >= 40 and sum(1 for n in STATS if n >= 2) >= 12, STATS
