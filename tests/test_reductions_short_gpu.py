"""GPU tests of the short-row reduction strategies (rows of at most 32 elements:
"short", one thread per output row, ``xs_reduce_short``, and "tile", the same fold
from rows staged in shared memory, ``xs_reduce_tile``, in reductions.cu), against
NumPy. tests/test_reductions_tile_gpu.py checks that the two give the same bits.

Integers, min and max must match exactly (NaN where NumPy has NaN); floating-point
sums lie within the bound of docs/reductions.md,
|s_hat - s| <= (ceil(n/4) + 64) * 2**-53 * sum|x| (+ 2**-24 |s| for float32).
The pool is poisoned (0xFF) so an output the kernel does not write shows up.
"""

from __future__ import annotations

import math
import warnings

import array_api_compat.numpy as cnp
import numpy as np
import pytest

from tests.test_reductions_gpu import _assert_sum_close

import xstride as xp
from xstride._kernels._reduce_common import VARIANTS
from xstride._plans.reduction import plan_array

pytestmark = [pytest.mark.gpu, pytest.mark.usefixtures("poisoned_pool")]

_N = 4099          # not a multiple of 256: a partial last block
_KS = list(range(1, 17))
_DTYPES = ["float32", "float64", "int64", "bool"]


def _random(rng, shape, dtype, small=False):
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return rng.random(shape) < 0.5
    if dt.kind == "f":
        return (rng.standard_normal(shape) * 3 + 0.5).astype(dt)
    lo, hi = (-5, 6) if small else (-1000, 1000)
    return rng.integers(lo, hi, size=shape).astype(dt)


def _layouts(cp, host):
    """(name, host view, device view, axis) of an (n, k) array reduced over its short
    axis: the array itself (axis=1) and a (k, n) view of the same memory (x.T, axis=0)."""
    dev = cp.asarray(host)
    yield "rows", host, dev, 1
    yield "T", host.T, dev.T, 0


def _assert_short(x, axis):
    k = x.shape[axis]
    strategy = plan_array(x, (axis,)).strategy
    # rows stored one after another of a power of two of 16-byte chunks: "lanes"
    assert strategy in (("short", "tile", "lanes") if k > 1 else ("copy",)), \
        (x.shape, x.strides, axis, strategy)


def _assert_prod_close(got, host, axis):
    """A sequential float64 product of k terms: relative error below (k + 1) * 2**-53
    (+ 2**-24 for a float32 result) of the exact product."""
    got = np.asarray(got, dtype=np.longdouble)
    exact = np.prod(host.astype(np.longdouble), axis=axis)
    k = host.shape[axis]
    rel = (k + 1) * 2.0 ** -53 + (2.0 ** -24 if host.dtype == np.float32 else 0.0)
    assert got.shape == exact.shape
    assert np.all(np.abs(got - exact) <= rel * np.abs(exact)), \
        float(np.max(np.abs(got - exact) - rel * np.abs(exact)))


def _assert_mean_close(got, host, axis):
    wide = host.astype(np.longdouble)
    k = host.shape[axis]
    exact = np.sum(wide, axis=axis) / k
    bound = (math.ceil(k / 4) + 66) * 2.0 ** -53 * np.sum(np.abs(wide), axis=axis) / k
    if host.dtype == np.float32:
        bound = bound + 2.0 ** -24 * np.abs(exact)
    got = np.asarray(got, dtype=np.longdouble)
    assert got.shape == exact.shape
    assert np.all(np.abs(got - exact) <= bound), float(np.max(np.abs(got - exact) - bound))


def _check_all(cp, host, x, axis, keepdims=False):
    """sum, prod, min, max, mean, var, std of the device view ``x`` against NumPy on
    ``host`` (the same view), each called twice (the second is the prepared call) and
    the two bit-identical."""
    dt = host.dtype
    for f in ("sum", "prod", "min", "max", "mean", "var", "std"):
        kws = [{}]
        if f in ("var", "std") and host.shape[axis] > 1:
            kws.append({"correction": 1})
        for kw in kws:
            got = getattr(xp, f)(x, axis=axis, keepdims=keepdims, **kw)
            again = getattr(xp, f)(x, axis=axis, keepdims=keepdims, **kw)
            want = getattr(cnp, f)(host, axis=axis, keepdims=keepdims, **kw)
            assert got.dtype == want.dtype and got.shape == want.shape, (f, kw, got.dtype,
                                                                         want.dtype)
            g, a = cp.asnumpy(got), cp.asnumpy(again)
            assert g.tobytes() == a.tobytes(), f"{f} not deterministic"
            if keepdims:
                g, want = np.squeeze(g, axis), np.squeeze(want, axis)
            if f in ("min", "max") or (f in ("sum", "prod") and dt.kind != "f"):
                np.testing.assert_array_equal(g, want, err_msg=f)
            elif f == "sum":
                _assert_sum_close(g, host, axis)
            elif f == "prod":
                _assert_prod_close(g, host, axis)
            elif f == "mean":
                _assert_mean_close(g, host.astype(np.float64) if dt.kind != "f" else host,
                                   axis)
            else:
                ref = getattr(np, f)(host.astype(np.float64), axis=axis,
                                     ddof=kw.get("correction", 0))
                rtol = 1e-5 if dt == np.float32 else 1e-12
                np.testing.assert_allclose(g, ref, rtol=rtol, atol=0, err_msg=f"{f} {kw}")


# ----------------------------------------------------------------------------- values
@pytest.mark.parametrize("dtype", _DTYPES)
@pytest.mark.parametrize("k", _KS)
def test_short_rows_against_numpy(cp, dtype, k):
    rng = np.random.default_rng(100 + k)
    host = _random(rng, (_N, k), dtype, small=True)
    for name, h, x, axis in _layouts(cp, host):
        _assert_short(x, axis)
        _check_all(cp, h, x, axis)


@pytest.mark.parametrize("dtype", ["float32", "int64"])
def test_short_keepdims_and_many_blocks(cp, dtype):
    rng = np.random.default_rng(7)
    host = _random(rng, (70_001, 3), dtype, small=True)
    for name, h, x, axis in _layouts(cp, host):
        _assert_short(x, axis)
        _check_all(cp, h, x, axis, keepdims=True)


def test_short_int64_sums_are_exact_past_2_53(cp):
    host = np.full((1000, 5), (1 << 60) + 1, dtype=np.int64)
    host[:, 1] = -(1 << 60)
    x = cp.asarray(host)
    _assert_short(x, 1)
    np.testing.assert_array_equal(cp.asnumpy(xp.sum(x, axis=1)), np.sum(host, axis=1))
    np.testing.assert_array_equal(cp.asnumpy(xp.prod(x, axis=1)), np.prod(host, axis=1))


# ----------------------------------------------------------------------------- NaN, inf
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("k", [2, 3, 4, 5, 8, 9, 16])
def test_short_nan_and_inf(cp, dtype, k):
    rng = np.random.default_rng(200 + k)
    host = _random(rng, (_N, k), dtype)
    rows = rng.choice(_N, size=300, replace=False)
    for i, r in enumerate(rows[:200]):
        host[r, i % k] = np.nan            # every position of a row, first and last too
    for i, r in enumerate(rows[200:]):
        host[r, i % k] = np.inf if i % 2 else -np.inf
    host[rows[0], :] = np.nan              # a row of NaN only
    for name, h, x, axis in _layouts(cp, host):
        _assert_short(x, axis)
        for f in ("min", "max", "sum", "prod"):
            got = cp.asnumpy(getattr(xp, f)(x, axis=axis))
            want = getattr(np, f)(h, axis=axis)
            np.testing.assert_array_equal(np.isnan(got), np.isnan(want), err_msg=f)
            np.testing.assert_array_equal(np.isinf(got), np.isinf(want), err_msg=f)
            if f in ("min", "max"):
                np.testing.assert_array_equal(got, want, err_msg=f)  # NaN where NumPy has NaN
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            for f in ("mean", "var", "std"):
                got = cp.asnumpy(getattr(xp, f)(x, axis=axis))
                want = getattr(np, f)(h.astype(np.float64), axis=axis)
                np.testing.assert_array_equal(np.isnan(got), np.isnan(want), err_msg=f)


# ----------------------------------------------------------------------------- empty
@pytest.mark.parametrize("dtype", _DTYPES)
def test_short_empty_rows(cp, dtype):
    host = np.zeros((_N, 0), dtype=dtype)
    for name, h, x, axis in _layouts(cp, host):
        for f, ident in (("sum", 0), ("prod", 1)):
            got = getattr(xp, f)(x, axis=axis)
            want = getattr(cnp, f)(h, axis=axis)
            assert got.dtype == want.dtype and got.shape == want.shape == (_N,)
            np.testing.assert_array_equal(cp.asnumpy(got), np.full(_N, ident, want.dtype))
        for f in ("min", "max"):
            with pytest.raises(ValueError, match=f"zero-size axis {axis}"):
                getattr(xp, f)(x, axis=axis)
        for f in ("mean", "var", "std"):
            with pytest.warns(RuntimeWarning):
                got = getattr(xp, f)(x, axis=axis)
            assert got.shape == (_N,) and bool(cp.all(cp.isnan(got)))
    # no rows at all
    x = cp.zeros((0, 3), dtype=dtype)
    assert xp.sum(x, axis=1).shape == (0,) and xp.max(x, axis=1).shape == (0,)


# ----------------------------------------------------------------------------- other layouts
def _strided_views(host):
    """(name, view, axis) that plan as "short" with strides, reversal, several kept
    or several reduced axes."""
    yield "every other row", host[::2], 1
    yield "every other column", host[:, ::2], 1
    yield "reversed rows", host[:, ::-1], 1
    yield "reversed both", host[::-1, ::-1], 1
    yield "offset", host[3:, 1:], 1
    yield "kept axes split", host.reshape(-1, 64, host.shape[1])[:, :, :], 2
    yield "two reduced axes", host.reshape(host.shape[0], 2, -1)[:, :, ::2], (1, 2)


@pytest.mark.parametrize("dtype", _DTYPES)
def test_short_strided_layouts(cp, dtype):
    rng = np.random.default_rng(9)
    host = _random(rng, (64 * 97, 12), dtype, small=True)
    dev = cp.asarray(host)
    for (name, h, axis), (_, x, _) in zip(_strided_views(host), _strided_views(dev)):
        axes = axis if isinstance(axis, tuple) else (axis,)
        assert plan_array(x, axes).strategy in ("short", "tile"), name
        for f in ("sum", "prod", "min", "max"):
            got = cp.asnumpy(getattr(xp, f)(x, axis=axis))
            want = getattr(cnp, f)(h, axis=axis)
            assert got.dtype == want.dtype and got.shape == want.shape, (name, f)
            if f in ("min", "max") or np.dtype(dtype).kind != "f":
                np.testing.assert_array_equal(got, want, err_msg=f"{name} {f}")
            elif f == "sum":
                _assert_sum_close(got, h, axis)
        v = cp.asnumpy(xp.var(x, axis=axis))
        np.testing.assert_allclose(v, np.var(h.astype(np.float64), axis=axis),
                                   rtol=1e-5 if dtype == "float32" else 1e-12, err_msg=name)


# ----------------------------------------------------------------------------- launch
def test_short_grid_stride_loop(cp, monkeypatch):
    """With the grid capped at 2 blocks, each thread walks many rows."""
    from xstride._kernels import _geometry
    from xstride._kernels import reductions as red
    from xstride._kernels._lru import Bounded
    from xstride._kernels._prepared import Store

    monkeypatch.setattr(_geometry, "SHORT_MAX_BLOCKS", 2)
    monkeypatch.setattr(red, "_RECIPES", Bounded(1024))
    monkeypatch.setattr(red, "_CALLS", Store(1024))
    rng = np.random.default_rng(13)
    for dtype in ("float64", "int64"):
        host = _random(rng, (5001, 7), dtype, small=True)
        x = cp.asarray(host)[:, ::2]   # a strided row: "short", not "tile"
        rec = red._recipe("sum", x, 1, "sum", np.dtype(host.dtype), np.dtype(host.dtype))
        assert rec.kind == "short" and rec.grid == (2,)
        _check_all(cp, host[:, ::2], x, 1)


def test_short_recipe_launches_the_short_kernel(cp):
    from xstride._kernels import reductions as red

    x = cp.ones((1000, 6), dtype=cp.float32)[:, ::2]
    f8 = np.dtype(np.float64)
    rec = red._recipe("sum", x, 1, "sum", np.dtype(np.float32), f8)
    assert rec.kind == "short" and rec.grid == (4,) and rec.block == (256,)
    assert rec.npartials == 0


@pytest.mark.parametrize("value", VARIANTS["short"])
def test_short_variants(cp, tuning, value):
    tuning(short=value)
    rng = np.random.default_rng(31)
    for k in (2, 3, 7, 9, 16, 32):
        for dtype in ("float32", "float64", "int64", "bool"):
            host = _random(rng, (1500, k), dtype, small=True)
            for name, h, x, axis in _layouts(cp, host):
                _assert_short(x, axis)
                _check_all(cp, h, x, axis)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32", "int16", "int8",
                                   "uint8", "bool"])
def test_short_rows_side_by_side_take_vectors_with_the_same_bits(cp, dtype):
    """Rows that lie side by side ((k, n) used as .T, reduced over k): W = 16 //
    itemsize rows a thread (8 rows and 8-byte loads for 1-byte rows into 8-byte sums,
    products and means), one load across them per step, give the bits of
    one row per thread (sum, prod, min, max, mean, all, any) and NumPy's values (var and
    std too, which run xs_var_rows on such rows); a misaligned input and a row count
    not a multiple of W take the one-row walk; 8-byte rows stay one a thread."""
    from xstride._kernels import _geometry, reductions as red

    rng = np.random.default_rng(17)
    dt = np.dtype(dtype)
    w = 16 // dt.itemsize if dt.itemsize < 8 else -1   # 8-byte rows: one a thread
    n = 8192
    dev = cp.asarray(_random(rng, (5, n + 16), dtype, small=True))
    views = {"aligned": (dev[:, :n].T, -w), "misaligned": (dev[:, 1:n + 1].T, 1),
             "rows not whole": (dev[:, :n - 1].T, 1), "one row axis of 3": (dev[:3, :n].T, -w)}
    funcs = ["sum", "prod", "min", "max", "mean", "all", "any", "var", "std"]
    for name, (x, want_vec) in views.items():
        plan = plan_array(x, (1,))
        assert plan.strategy == "short", name
        base = x.data.ptr + plan.offset * x.itemsize
        assert _geometry.reduction_geometry(plan, x.itemsize, 132, base,
                                            side_by_side=True).vec == want_vec, name
        wide = -min(-want_vec, 8) if want_vec < 0 else want_vec    # 8-byte accumulators
        assert _geometry.reduction_geometry(plan, x.itemsize, 132, base, side_by_side=True,
                                            acc_size=8).vec == wide, name
        for f in funcs:
            if f in ("mean", "var", "std") and dt.kind not in "fi":
                continue
            red._RECIPES.clear()
            red._CALLS.clear()
            got = cp.asnumpy(getattr(xp, f)(x, axis=1))
            with pytest.MonkeyPatch.context() as mp:
                real = red.reduction_geometry
                mp.setattr(red, "reduction_geometry",
                           lambda *a, **k: real(*a, **{**k, "side_by_side": False}))
                red._RECIPES.clear()
                red._CALLS.clear()
                one = cp.asnumpy(getattr(xp, f)(x, axis=1))
            assert got.dtype == one.dtype and got.tobytes() == one.tobytes(), (name, f)
            want = getattr(cnp, f)(cp.asnumpy(x), axis=1)
            if dt.kind == "f" or f in ("mean", "var", "std"):
                np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
            else:
                np.testing.assert_array_equal(got, want)
    red._RECIPES.clear()
    red._CALLS.clear()
