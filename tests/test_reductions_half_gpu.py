"""float16 reductions on the device (``xs_half``): sum, prod, min, max, mean, all, any,
argmin and argmax of float16 arrays and views against NumPy, the sweep's shapes among
them, and the scans against the float64 prefix; var/std of float16 stay CuPy's (host tests:
tests/test_reductions_half.py)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import xstride as xp

pytestmark = [pytest.mark.gpu, pytest.mark.usefixtures("poisoned_pool")]
H = np.float16
F8 = np.float64

_VIEWS = {
    "(n,3)": ((4099, 3), lambda a: a),
    "(n,16)": ((2053, 16), lambda a: a),
    "(5,n).T": ((5, 3001), lambda a: a.T),
    "(n,8)[::-1]": ((1500, 8), lambda a: a[::-1]),
    "(n,7)[:, 1::2]": ((999, 7), lambda a: a[:, 1::2]),
    "(6,40,33)": ((6, 40, 33), lambda a: a),
    "(300000,)": ((300000,), lambda a: a),
    "(2**20,3)": ((1 << 20, 3), lambda a: a),
}


def _data(shape, seed, nan=False):
    h = np.random.default_rng(seed).standard_normal(shape).astype(H)
    if nan:
        flat = h.reshape(-1)
        flat[np.random.default_rng(seed + 1).choice(flat.size, 5, replace=False)] = np.nan
    return h


def _axes(ndim):
    return [None] + list(range(ndim)) + ([(0, 2)] if ndim == 3 else [])


@pytest.mark.parametrize("view", list(_VIEWS))
@pytest.mark.parametrize("func", ["sum", "mean", "prod"])
def test_sums_and_products_are_the_float64_result_rounded_once(cp, view, func):
    shape, make = _VIEWS[view]
    h = _data(shape, 1)
    if func == "prod":
        h = (np.abs(h) * 0.01 + 0.995).astype(H)
    d = make(cp.asarray(h))
    v = make(h)
    for axis in _axes(v.ndim):
        got = getattr(xp, func)(d, axis=axis)
        assert got.dtype == H
        with np.errstate(over="ignore", under="ignore"):
            want = getattr(np, func)(v.astype(F8), axis=axis).astype(H)
        np.testing.assert_array_max_ulp(cp.asnumpy(got), want, maxulp=1)


@pytest.mark.parametrize("view", list(_VIEWS))
@pytest.mark.parametrize("func", ["min", "max", "argmin", "argmax", "all", "any"])
def test_min_max_arg_and_logic_equal_numpy_with_nan(cp, view, func):
    shape, make = _VIEWS[view]
    h = _data(shape, 2, nan=func not in ("all", "any"))
    if func in ("all", "any"):
        h[..., ::7] = 0
    d = make(cp.asarray(h))
    v = make(h)
    axes = _axes(v.ndim)
    if func.startswith("arg"):
        axes = [a for a in axes if not isinstance(a, tuple)]
    for axis in axes:
        got = cp.asnumpy(getattr(xp, func)(d, axis=axis))
        want = getattr(np, func)(v, axis=axis)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


def test_var_std_of_float16_are_cupys(cp):
    h = _data((500, 3), 3)
    d = cp.asarray(h)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for func in ("var", "std"):
            np.testing.assert_array_equal(cp.asnumpy(getattr(xp, func)(d, axis=0)),
                                          cp.asnumpy(getattr(cp, func)(d, axis=0)))


_SCAN_VIEWS = {**_VIEWS, "(70001,3)": ((70001, 3), lambda a: a),
               "(3,70001).T": ((3, 70001), lambda a: a.T), "(64,5000)": ((64, 5000), lambda a: a),
               "(2**21,)": ((1 << 21,), lambda a: a)}


@pytest.mark.parametrize("view", list(_SCAN_VIEWS))
@pytest.mark.parametrize("func", ["cumulative_sum", "cumulative_prod"])
def test_float16_scans_are_the_float64_prefix_rounded_once(cp, view, func):
    """Each output within one float16 ulp of the float64 prefix (carried in float64,
    rounded once; NumPy rounds every partial sum to float16)."""
    shape, make = _SCAN_VIEWS[view]
    h = _data(shape, 5)
    if func == "cumulative_prod":
        h = (np.abs(h) * 0.0005 + 0.9998).astype(H)
    d, v = make(cp.asarray(h)), make(h)
    ref = np.cumsum if func == "cumulative_sum" else np.cumprod
    for axis in range(v.ndim):
        got = cp.asnumpy(getattr(xp, func)(d, axis=axis))
        assert got.dtype == H and got.shape == v.shape
        want = ref(v.astype(F8), axis=axis).astype(H)
        np.testing.assert_array_max_ulp(got, want, maxulp=1)


def test_a_float16_sum_into_float32(cp):
    h = _data((4000, 5), 4)
    got = xp.sum(cp.asarray(h), axis=0, dtype=xp.float32)
    assert got.dtype == np.float32
    np.testing.assert_allclose(cp.asnumpy(got), h.astype(F8).sum(axis=0), rtol=1e-6)


def test_staged_float16_rows_give_the_bits_of_one_thread_a_row(cp, monkeypatch):
    """The "tile" kernel stages 2-byte rows as 16-byte words; its sums, minima and
    maxima of float16 rows (k = 2..32, contiguous, reversed, offset) equal the
    one-thread-a-row kernel's bit for bit, and NumPy's for min/max."""
    from xstride._kernels import reductions as red
    from xstride._kernels._lru import Bounded
    from xstride._kernels._prepared import Store
    from xstride._plans import reduction as plan_mod
    from xstride._plans.reduction import plan_array

    rng = np.random.default_rng(8)
    staged = 0
    for k in range(2, 33):
        host = rng.standard_normal((3001, k)).astype(H)
        dev = cp.asarray(host)
        for x, h in [(dev, host), (dev[::-1, ::-1], host[::-1, ::-1]), (dev[3:, 1:], host[3:, 1:])]:
            if plan_array(x, (1,)).strategy != "tile":
                continue
            staged += 1
            got = {f: cp.asnumpy(getattr(xp, f)(x, axis=1)) for f in ("sum", "min", "max")}
            np.testing.assert_array_equal(got["min"], np.min(h, axis=1))
            np.testing.assert_array_equal(got["max"], np.max(h, axis=1))
            with monkeypatch.context() as m:
                m.setattr(plan_mod, "TILE_MIN_ROWS", 1 << 30)
                m.setattr(red, "_RECIPES", Bounded(1024))
                m.setattr(red, "_CALLS", Store(1024))
                assert plan_array(x, (1,)).strategy == "short"
                for f, g in got.items():
                    assert g.tobytes() == cp.asnumpy(getattr(xp, f)(x, axis=1)).tobytes(), (k, f)
    assert staged >= 30, staged
