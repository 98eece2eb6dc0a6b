"""``xp.fuse`` with reductions on CuPy arrays: bit for bit against the function run
unfused through xstride (``xp.sum`` and the others on the stored intermediate), on every
strategy of the reduction plan, every op, dtypes, views, ``keepdims``, work after the
reduction, several reductions; and random expression trees ending in a random
reduction (Hypothesis). Each check also makes sure the fused path ran (the function
was never called on CuPy arrays)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import xstride as xp
from xstride._kernels import _fusion_reduce as fr

from ._fuse_cases import DTYPES, arguments, build, trees
from .test_fuse_gpu import same

pytestmark = pytest.mark.gpu


def _on_device(args) -> bool:
    return any(type(a).__module__.startswith("cupy") for a in args)


def check(fn, *args):
    """``fn`` fused (strict) twice and unfused: bit-identical, and the fused calls never
    ran ``fn`` on the arrays themselves (no silent fallback)."""
    want = fn(*args)
    unfused = []

    def spy(*a):
        if _on_device(a):
            unfused.append(True)
        return fn(*a)

    fused = xp.fuse(spy, strict=True)
    same(fused(*args), want)
    same(fused(*args), want)
    assert not unfused, "the fused call ran the function unfused"
    return fused


def kinetic(m, v):
    return 0.5 * xp.sum(m[:, None] * v * v)


@pytest.mark.parametrize("n", [1, 7, 1000, 1 << 20])
def test_kinetic_energy(cp, n):
    rng = np.random.default_rng(n)
    m = cp.asarray(rng.random(n, np.float32))
    v = cp.asarray(rng.standard_normal((n, 3)).astype(np.float32))
    check(kinetic, m, v)


@pytest.mark.parametrize("dtype,k", [
    ("float32", 3), ("float32", 4), ("float32", 5), ("float32", 16), ("float64", 2),
    ("float64", 3), ("int16", 7), ("int16", 9), ("int8", 15), ("int8", 33)])
@pytest.mark.parametrize("axis", [None, 0, 1])
def test_a_value_per_row_read_twice_a_vector(cp, dtype, k, axis, monkeypatch):
    """``m[:, None]`` against ``(n, k)`` rows on the whole-array, column and row
    strategies, at and above the inner extent where a vector load spans two rows
    (``row_broadcast_loads``), also with ``m`` reversed: bit for bit the unfused run,
    and the kernels were generated with the two-row loads."""
    rng = np.random.default_rng(k)
    n = 4099
    m = cp.asarray(rng.integers(-3, 4, 2 * n).astype(dtype))
    v = cp.asarray(rng.integers(-3, 4, (n, k)).astype(dtype))
    assert k >= 16 // np.dtype(dtype).itemsize - 1
    seen = []
    real = fr.reduce_source

    def spy(pre, nd, w32, dense=(), rowb=()):
        seen.append(rowb)
        return real(pre, nd, w32, dense, rowb)

    monkeypatch.setattr(fr, "reduce_source", spy)
    check(lambda m, v: xp.sum(m[:n, None] * v - v, axis=axis), m, v)
    check(lambda m, v: xp.max(m[::-2, None] * v, axis=axis), m, v)
    # every kernel generated read m twice a vector (none where the plan has no kernel
    # and the intermediate is stored, as on some row strategies and integer dtypes)
    assert all(r == (1,) or r == (0,) for r in seen), seen
    if dtype.startswith("float") and axis != 1:
        assert seen


@pytest.mark.parametrize("shape,axis", [
    ((1 << 18, 3), 1),        # short / tile rows
    ((1 << 18, 3), 0),        # interleave
    ((3000, 300), 0),         # outer (cols), split
    ((300, 5000), 1),         # inner, a warp per row
    ((4, 1 << 18), 1),        # inner, split rows
    ((1 << 16, 16), 1),       # short rows of whole vectors
    ((40, 30, 20), (0, 2)),   # several reduced axes
    ((40, 30, 20), None),     # full
    ((5, 1, 7), 1),           # one element per output: the stored intermediate
    ((0, 4), 1),              # empty
])
@pytest.mark.parametrize("func", ["sum", "prod", "min", "max", "mean"])
def test_every_strategy_and_op(cp, shape, axis, func):
    rng = np.random.default_rng(3)
    a = cp.asarray(rng.standard_normal(shape).astype(np.float32))
    b = cp.asarray(rng.random(shape[-1:], np.float32) + 0.5)
    if func == "prod":
        a = 1 + a / 1000
    if func in ("min", "max") and 0 in shape:
        return
    check(lambda a, b: getattr(xp, func)(a * b - 0.25, axis=axis), a, b)
    check(lambda a, b: getattr(xp, func)(a * b, axis=axis, keepdims=True), a, b)


@pytest.mark.parametrize("k", [3, 7, 16])
@pytest.mark.parametrize("dt", ["float64", "float32", "int8", "int16"])
def test_interleave_words_keep_the_unfused_bits(cp, dt, k):
    """Over the rows of a contiguous (n, k) the unfused call reads the stored array by
    16-byte words; the fused one computes the same words (V elements of the expression
    each), so float64 sums, whose association shows, keep the unfused bits."""
    from xstride._kernels import _fusion_reduce as fr

    rng = np.random.default_rng(k)
    a = cp.asarray((rng.standard_normal((40_003, k)) * 100).astype(dt))
    b = cp.asarray((rng.random(k) + 0.5).astype(dt))
    check(lambda a, b: xp.sum(a * b, axis=0), a, b)
    assert fr.last_kind == "interleave"
    check(lambda a, b: (xp.max(a - b, axis=0), xp.mean(a * b, axis=0)), a, b)
    check(lambda a, b: xp.sum(a > b, axis=0), a, b)


@pytest.mark.parametrize("dt", ["int8", "uint8", "int32", "int64", "float64", "bool"])
def test_dtypes(cp, dt):
    rng = np.random.default_rng(1)
    a = cp.asarray(rng.integers(-100, 100, (3000, 7)).astype(dt))
    b = cp.asarray(rng.integers(-100, 100, (7,)).astype(dt))
    check(lambda a, b: xp.sum(a * b), a, b)
    if dt == "bool":   # CuPy refuses bool subtraction
        check(lambda a, b: (xp.sum(a + b, axis=0), xp.max(a ^ b, axis=1)), a, b)
    else:
        check(lambda a, b: (xp.sum(a + b, axis=0), xp.max(a - b, axis=1)), a, b)
    if dt[0] in "iu":
        check(lambda a, b: (xp.sum(a // (b | 1), axis=0), xp.min(a % 7, axis=1)), a, b)
    else:
        check(lambda a, b: xp.sum(a // b), a, b)
    check(lambda a, b: xp.mean(a * b, axis=1), a, b)
    check(lambda a, b: xp.sum(a > b, axis=0), a, b)
    if dt != "bool":
        check(lambda a, b: xp.sum(a * b, dtype=xp.float64), a, b)


def test_layout_of_the_stored_intermediate(cp):
    """The unfused run stores ``a.T * b.T`` (CuPy's operator) in C order, and
    ``xp.multiply(a.T, b.T)`` (the engine) in the inputs' order: the fused reduction
    walks each in that order, so their float32 sums keep their own bits."""
    rng = np.random.default_rng(5)
    a = cp.asarray(rng.standard_normal((3000, 500)).astype(np.float32))
    b = cp.asarray(rng.standard_normal((3000, 500)).astype(np.float32))
    for axis in (None, 0, 1):
        check(lambda a, b: xp.sum(a.T * b.T, axis=axis), a, b)
        check(lambda a, b: xp.sum(xp.multiply(a.T, b.T), axis=axis), a, b)
        check(lambda a, b: xp.max(xp.exp(a.T[::2]) + b.T[1::2], axis=axis), a, b)


def test_views_of_arguments_and_direct_reductions(cp):
    a = cp.arange(60, dtype=cp.float32).reshape(3, 4, 5)
    check(lambda a: xp.sum(a.T, axis=0), a)
    check(lambda a: xp.max(a[::-1, 1:], axis=(0, 2)), a)
    check(lambda a: xp.mean(a), a)


def test_work_after_the_reduction(cp):
    rng = np.random.default_rng(2)
    x = cp.asarray(rng.standard_normal((1000, 33)).astype(np.float32))
    check(lambda x: x - xp.mean(x, axis=0, keepdims=True), x)
    check(lambda x: xp.sqrt(xp.sum(x * x, axis=1))[:, None] * x, x)
    check(lambda x: xp.sum(x - xp.max(x, axis=1, keepdims=True), axis=1), x)
    check(lambda x, s: (s * xp.sum(x * x), xp.min(x)), x, 0.25)
    check(lambda x, s: xp.sum(x * s), x, np.float32(1.5))


def test_the_64_bit_walk(cp, monkeypatch):
    """Arrays past 2**32 elements walk with 64-bit divisions: the same bits."""
    monkeypatch.setattr(fr, "W32_LIMIT", 0)
    rng = np.random.default_rng(4)
    m = cp.asarray(rng.random(5000, np.float32))
    v = cp.asarray(rng.standard_normal((5000, 3)).astype(np.float32))
    check(kinetic, m, v)
    check(lambda m, v: xp.sum(m[:, None] * v, axis=0), m, v)


def test_min_of_an_empty_selection_raises_as_unfused(cp):
    a = cp.ones((0, 3), cp.float32)
    with pytest.raises(ValueError):
        xp.min(a * 2, axis=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError):
            xp.fuse(lambda a: xp.min(a * 2, axis=0))(a)


_FUNCS = ("sum", "prod", "min", "max", "mean")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tree=trees(max_leaves=8, gpu=True), dtypes=st.tuples(*[st.sampled_from(DTYPES)] * 3),
       seed=st.integers(0, 99), func=st.sampled_from(_FUNCS),
       axis=st.sampled_from([None, 0, 1, (0, 1), -1]), keepdims=st.booleans(),
       post=st.booleans())
def test_random_reductions_bit_for_bit(tree, dtypes, seed, func, axis, keepdims, post):
    import cupy as cp

    body = build(tree)

    def fn(x, yT, r):
        out = getattr(xp, func)(body(x, yT, r), axis=axis, keepdims=keepdims)
        return out * 2 if post else out

    args = arguments(np.random.default_rng(seed), dtypes, cp.asarray)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            want = fn(*args)
        except Exception as exc:
            with pytest.raises(type(exc)):
                xp.fuse(fn)(*args)
            return
        fused = xp.fuse(fn)
        same(fused(*args), want)
        same(fused(*args), want)
