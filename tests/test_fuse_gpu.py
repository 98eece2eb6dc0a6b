"""``xp.fuse`` on CuPy arrays: bit for bit against the same function run unfused through
xstride on the same arrays (CuPy's operators, xstride's ``xp.*``), on the issue's cases
and on random expression trees over random views and dtypes (Hypothesis)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import xstride as xp
from xstride._kernels import _elementwise_exec as ex
from xstride._kernels import fusion as fx

from ._fuse_cases import DTYPES, arguments, build, trees

pytestmark = pytest.mark.gpu


def same(got, want):
    """Same type, dtype, shape and bytes (NaNs and signed zeros included)."""
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            same(g, w)
        return
    if not hasattr(want, "dtype"):   # an expression of literals only: a Python number
        assert type(got) is type(want), (got, want)
        assert np.array(got).tobytes() == np.array(want).tobytes(), (got, want)
        return
    assert got.dtype == want.dtype and got.shape == want.shape, (got, want)
    g, w = got.get(), want.get()
    assert np.ascontiguousarray(g).tobytes() == np.ascontiguousarray(w).tobytes(), (g, w)


def both(fn, *args):
    """``fn`` fused (strict: it must fuse) twice (the traced call and the prepared
    repeat) and unfused; all three bit-identical."""
    fused = xp.fuse(fn, strict=True)
    want = fn(*args)
    same(fused(*args), want)
    same(fused(*args), want)
    return fused


def push(x, v, a, dt):
    return x + v * dt + 0.5 * a * dt * dt, v + a * dt


def push_t(x, v, aT, dt):
    return x + v * dt + 0.5 * aT.T * dt * dt, v + aT.T * dt


def jacobi(u, c):
    return c + 0.1 * (u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2] - 4 * c)


def update(f, g, h):
    return 0.9 * f + 0.5 * xp.permute_dims(g, (2, 0, 1)) - h[:, None, :]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_issue_cases(cp, dtype):
    rng = cp.random.default_rng(0)
    n = 100_003
    x, v, a = (rng.standard_normal((n, 3), dtype=dtype) for _ in range(3))
    both(push, x, v, a, 0.01)
    both(push_t, x, v, cp.ascontiguousarray(a.T), 0.01)
    u = rng.standard_normal((515, 517), dtype=dtype)
    both(jacobi, u, u[1:-1, 1:-1])
    f = rng.standard_normal((40, 30, 20), dtype=dtype)
    g = rng.standard_normal((30, 20, 40), dtype=dtype)
    h = rng.standard_normal((40, 20), dtype=dtype)
    both(update, f, g, h)


def test_prepared_call_and_output_layout(cp):
    fx.clear()
    x = cp.arange(24, dtype=cp.float32).reshape(4, 6).T      # F-order input
    fused = both(lambda x, s: (x * s + 1, x > s), x, 2.5)
    assert len(fx.PREPARED) == 1
    r = fused(x, 3.5)
    same(r, (x * 3.5 + 1, x > 3.5))
    assert r[0].strides == x.strides                          # the inputs' axis order (K)
    assert fx.repeat(fused, (x, 3.5)) is not None


def test_one_tuple_numpy_scalar_empty_and_bool(cp):
    x = cp.arange(10, dtype=cp.int16)
    r = both(lambda x: (x + 1,), x)(x)
    assert isinstance(r, tuple) and len(r) == 1
    both(lambda x, s: x * s, x, np.float64(1.5))
    both(lambda x: x * 2, cp.ones((0, 4), cp.float32))
    b = cp.arange(12).reshape(3, 4) % 3 == 0
    both(lambda b, x: (~b & (x > 4)) | b[::-1], b, cp.arange(12).reshape(3, 4))


def test_math_where_clip_astype(cp):
    rng = cp.random.default_rng(1)
    for dt in ("float32", "float64"):
        x = rng.standard_normal(50_000, dtype=dt) * 3
        x[7] = cp.nan
        both(lambda x: (xp.exp(x), xp.log1p(xp.abs(x)), xp.sqrt(xp.abs(x)), xp.sin(x),
                        xp.cos(x), xp.tanh(x), xp.floor(x), xp.atan2(x, 0.5),
                        xp.hypot(x, x)), x)
        both(lambda x: (xp.where(x > 0, x, -0.0), xp.clip(x, -1, 0.5),
                        xp.astype(x, xp.int32), xp.maximum(x, 0), xp.minimum(x, x[::-1])), x)
        x[8:11] = cp.asarray([cp.inf, -cp.inf, -0.0], dtype=dt)
        both(lambda x: (xp.isnan(x), xp.isinf(x), xp.isfinite(x), xp.logical_not(x),
                        xp.signbit(x)), x)
    i = cp.arange(-20, 20, dtype=cp.int32)
    both(lambda i: (xp.exp(i), i / 3, xp.clip(i, -5, 2**40), xp.floor(i) * 2), i)


def test_unfusable_runs_unfused_on_cupy(cp):
    m = cp.arange(1, 101, dtype=cp.float32)
    v = cp.ones((100, 3), cp.float32)

    def spread(m, v):
        return 0.5 * xp.var(m[:, None] * v * v)

    fused = xp.fuse(spread)
    with pytest.warns(xp.FusionWarning, match="xp.var"):
        same(fused(m, v), spread(m, v))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tree=trees(max_leaves=12, gpu=True), dtypes=st.tuples(*[st.sampled_from(DTYPES)] * 3),
       seed=st.integers(0, 99), view=st.sampled_from(["plain", "step", "reversed", "offset"]))
def test_random_expressions_bit_for_bit(tree, dtypes, seed, view):
    import cupy as cp

    def place(a):
        """``a`` on the device, as the chosen kind of view of a larger array."""
        if view == "plain":
            return cp.asarray(a)
        big = np.zeros(tuple(2 * n + 1 for n in a.shape), a.dtype)
        sl = {"step": tuple(slice(1, None, 2) for _ in a.shape),
              "reversed": tuple(slice(2 * n - 1, None, -2) for n in a.shape),
              "offset": tuple(slice(1, n + 1) for n in a.shape)}[view]
        big[sl] = a
        return cp.asarray(big)[sl]

    fn = build(tree)
    args = arguments(np.random.default_rng(seed), dtypes, place)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            want = fn(*args)
        except Exception as exc:
            with pytest.raises(type(exc)):
                xp.fuse(fn)(*args)
            return
        fused = xp.fuse(fn)
        got = fused(*args)
        same(got, want)
        same(fused(*args), want)      # the prepared repeat


def test_an_expression_of_literals_only_gives_the_python_number(cp):
    """Hypothesis found ``(-1.25) ** 0.5`` (a Python complex, as unfused): the fused
    call returns the same Python number, not an array."""
    fn = lambda a, b, c: (-1.25) ** 0.5   # noqa: E731
    args = [cp.zeros((5, 7), dtype=cp.bool_)] * 3
    same(xp.fuse(fn)(*args), fn(*args))
    assert type(xp.fuse(fn)(*args)) is complex


def test_kind_of_the_transposed_push(cp):
    x = cp.ones((4096, 64), cp.float32)
    aT = cp.ones((64, 4096), cp.float32)
    xp.fuse(lambda x, a: x + 2 * a.T)(x, aT)
    assert ex.last_kind == "tiled"


def test_numpy_scalar_promotion_matches_cupy_operators(cp):
    """NumPy scalars are strong in the tracer (NEP 50): the result dtype must be the one
    CuPy's operator gives for the same call."""
    x = cp.arange(10, dtype=cp.float32)
    both(lambda x, s: x * s, x, np.float64(0.5))
    both(lambda x, s: x + s, cp.arange(10, dtype=cp.int8), np.int64(3))


def test_fused_method_binds_and_runs_unfused(cp):
    """A method binds its instance; an argument that is no array, scalar or str makes
    the signature unfusable (its attributes would be baked into the kernel)."""
    class Stepper:
        def __init__(self, k):
            self.k = k

        @xp.fuse
        def step(self, x):
            return x * 2 + 1

    x = cp.arange(6, dtype=cp.float32)
    with pytest.warns(xp.FusionWarning, match="arguments of types"):
        same(Stepper(1).step(x), x * 2 + 1)


def test_keyword_arguments_are_fused_and_give_the_positional_bits(cp):
    rng = np.random.default_rng(7)
    x, v, a = (cp.asarray(rng.standard_normal((4097, 3)).astype(np.float32)) for _ in range(3))

    @xp.fuse
    def push(x, v, a, dt=0.5, scale=1.0):
        return x + v * dt + 0.5 * a * dt * dt * scale, v + a * dt

    want = push(x, v, a, 0.25, 1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")            # no FusionWarning: fused
        for got in (push(x, v, a, dt=0.25), push(dt=0.25, a=a, v=v, x=x)):
            for g, w in zip(got, want):
                assert cp.asnumpy(g).tobytes() == cp.asnumpy(w).tobytes()
        got = push(x, v, a, scale=2.0)
    want = push(x, v, a, 0.5, 2.0)
    assert cp.asnumpy(got[0]).tobytes() == cp.asnumpy(want[0]).tobytes()
