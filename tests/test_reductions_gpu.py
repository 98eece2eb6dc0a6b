"""GPU tests of the namespace's reductions on CuPy arrays, against NumPy (the scans
are in test_scans_gpu.py).

Integers must match exactly. Floating-point sums must lie within the bound stated in
docs/reductions.md:  |s_hat - s| <= (ceil(n/4) + 64) * 2**-53 * sum|x|  (+ 2**-24 |s|
when the result is float32), n = elements per output.
"""

from __future__ import annotations

import math
import warnings

import array_api_compat.numpy as cnp
import numpy as np
import pytest

import xstride as xp

pytestmark = [pytest.mark.gpu, pytest.mark.usefixtures("poisoned_pool")]

_DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
           "float32", "float64"]


def _random(rng, shape, dtype):
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return rng.random(shape) < 0.5
    if dt.kind == "f":
        return (rng.standard_normal(shape) * 3 + 0.5).astype(dt)
    info = np.iinfo(dt)
    return rng.integers(max(info.min, -100), min(info.max, 100), size=shape, dtype=dt)


def _assert_sum_close(got, host, axis, keepdims=False):
    """Float sum within the stated bound of the exact (long double) sum."""
    got = np.asarray(got, dtype=np.longdouble)
    wide = host.astype(np.longdouble)
    exact = np.sum(wide, axis=axis, keepdims=keepdims)
    absum = np.sum(np.abs(wide), axis=axis, keepdims=keepdims)
    n = host.size // max(exact.size, 1) if host.size else 0
    bound = (math.ceil(n / 4) + 64) * 2.0 ** -53 * absum
    if host.dtype == np.float32:
        bound = bound + 2.0 ** -24 * np.abs(exact)
    assert got.shape == exact.shape
    assert np.all(np.abs(got - exact) <= bound), float(np.max(np.abs(got - exact) - bound))


def _views(cp, base_host):
    """(name, host view, device view) of awkward layouts over one buffer."""
    dev = cp.asarray(base_host)
    a, d = base_host.reshape(12, 10, 8), dev.reshape(12, 10, 8)
    yield "c", a, d
    yield "transposed", a.transpose(2, 0, 1), d.transpose(2, 0, 1)
    yield "negsteps", a[::-1, 1:9, ::-3], d[::-1, 1:9, ::-3]
    yield "mixed", a[2:11, ::-2].transpose(1, 2, 0), d[2:11, ::-2].transpose(1, 2, 0)
    yield "broadcast", np.broadcast_to(a[:, :1, :], (12, 5, 8)), cp.broadcast_to(d[:, :1, :], (12, 5, 8))
    yield "strided1d", base_host[3::7], dev[3::7]
    yield "offset_col", a[:, 3, 1:], d[:, 3, 1:]


_AXES = [None, 0, -1, (0, 1), (1, 2), (0, 2), ()]


# ----------------------------------------------------------------------------- dtypes
@pytest.mark.parametrize("dtype", _DTYPES)
def test_sum_dtype_rules_and_values(cp, dtype):
    rng = np.random.default_rng(1)
    host = _random(rng, (37, 129), dtype)
    x = cp.asarray(host)
    for axis in (None, 1):
        got = xp.sum(x, axis=axis)
        want = cnp.sum(host, axis=axis)
        assert got.dtype == want.dtype, (dtype, got.dtype, want.dtype)
        if want.dtype.kind == "f":
            _assert_sum_close(cp.asnumpy(got), host, axis)
        else:
            np.testing.assert_array_equal(cp.asnumpy(got), want)


@pytest.mark.parametrize("dtype", _DTYPES)
def test_min_max_dtypes(cp, dtype):
    rng = np.random.default_rng(2)
    host = _random(rng, (33, 70), dtype)
    x = cp.asarray(host)
    for f in ("min", "max"):
        for axis in (None, 0):
            got = getattr(xp, f)(x, axis=axis)
            want = getattr(cnp, f)(host, axis=axis)
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(cp.asnumpy(got), want)


@pytest.mark.parametrize("dtype", ["int8", "int32", "uint64", "float64"])
def test_prod(cp, dtype):
    rng = np.random.default_rng(3)
    if dtype == "float64":
        host = 1 + 0.01 * rng.standard_normal((20, 300))
    else:
        host = rng.integers(-3 if dtype[0] == "i" else 0, 4, size=(20, 300)).astype(dtype)
    x = cp.asarray(host)
    for axis in (None, 0, 1):
        got = cp.asnumpy(xp.prod(x, axis=axis))
        want = cnp.prod(host, axis=axis)
        assert got.dtype == want.dtype
        if want.dtype.kind == "f":
            np.testing.assert_allclose(got, want, rtol=1e-12)
        else:
            np.testing.assert_array_equal(got, want)   # wraps modulo 2**64 like NumPy


def test_sum_with_dtype_argument(cp):
    host = np.arange(-300, 300, dtype=np.int16).reshape(20, 30)
    x = cp.asarray(host)
    for dt in (np.int8, np.uint16, np.float32, np.float64, np.int64):
        got = xp.sum(x, axis=0, dtype=dt)
        want = cnp.sum(host, axis=0, dtype=dt)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(cp.asnumpy(got), want)


# ----------------------------------------------------------------------------- layouts
@pytest.mark.parametrize("dtype", ["int64", "float64"])
def test_sum_and_max_over_awkward_layouts(cp, dtype):
    rng = np.random.default_rng(4)
    base = _random(rng, 960, dtype)
    for name, h, d in _views(cp, base):
        for axis in _AXES:
            if axis not in (None, ()) and max(np.atleast_1d(axis)) >= h.ndim:
                continue
            if isinstance(axis, int) and axis >= h.ndim:
                continue
            for keepdims in (False, True):
                got = xp.sum(d, axis=axis, keepdims=keepdims)
                assert got.shape == np.sum(h, axis=axis, keepdims=keepdims).shape
                if dtype == "int64":
                    np.testing.assert_array_equal(cp.asnumpy(got), np.sum(h, axis=axis, keepdims=keepdims))
                else:
                    _assert_sum_close(cp.asnumpy(got), h, axis, keepdims)
                gm = xp.max(d, axis=axis, keepdims=keepdims)
                np.testing.assert_array_equal(cp.asnumpy(gm), np.max(h, axis=axis, keepdims=keepdims),
                                              err_msg=f"{name} {axis}")


@pytest.mark.parametrize("shape,axis", [
    ((1000, 3), 0),            # outer, few columns: reduced range split over blocks
    ((3, 200000), 1),          # inner, few long rows: rows split over blocks
    ((2000000,), None),        # full
    ((64, 5000, 2), (0, 1)),   # outer, multi-axis reduced group
    ((50, 7, 3000), (0, 2)),   # inner rows over a non-coalescable reduced pair
    ((4096, 513), 0),          # outer with scalar loads (odd column count)
])
def test_large_strategies(cp, shape, axis):
    rng = np.random.default_rng(6)
    host = rng.standard_normal(shape)
    x = cp.asarray(host)
    _assert_sum_close(cp.asnumpy(xp.sum(x, axis=axis)), host, axis)
    np.testing.assert_array_equal(cp.asnumpy(xp.min(x, axis=axis)), np.min(host, axis=axis))
    ih = rng.integers(-1000, 1000, size=shape)
    np.testing.assert_array_equal(cp.asnumpy(xp.sum(cp.asarray(ih), axis=axis)), np.sum(ih, axis=axis))
    fh = host.astype(np.float32)      # 4-wide vector loads where the layout allows
    _assert_sum_close(cp.asnumpy(xp.sum(cp.asarray(fh), axis=axis)), fh, axis)


def test_deterministic_run_to_run(cp):
    rng = np.random.default_rng(7)
    x = cp.asarray(rng.standard_normal(3_000_001).astype(np.float32) * 1e3)
    y = cp.asarray(rng.standard_normal((300_000, 3)))
    a = [cp.asnumpy(xp.sum(x)) for _ in range(3)]
    b = [cp.asnumpy(xp.sum(y, axis=0)) for _ in range(3)]
    c = [cp.asnumpy(xp.cumulative_sum(y[:, 0])) for _ in range(3)]
    for r in a[1:]:
        assert r.tobytes() == a[0].tobytes()
    for r in b[1:]:
        assert r.tobytes() == b[0].tobytes()
    for r in c[1:]:
        assert r.tobytes() == c[0].tobytes()


# ----------------------------------------------------------------------------- moments
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32"])
def test_mean_var_std(cp, dtype):
    rng = np.random.default_rng(8)
    host = _random(rng, (40, 50, 6), dtype)
    x = cp.asarray(host).transpose(1, 2, 0)
    h = host.transpose(1, 2, 0)
    rtol = 1e-5 if dtype == "float32" else 1e-11
    h64 = h.astype(np.float64)   # reference in float64: NumPy's float32 mean is the
    for axis in (None, 0, (1, 2), 2):   # less accurate side (float32 accumulation)
        for keepdims in (False, True):
            got = xp.mean(x, axis=axis, keepdims=keepdims)
            want = cnp.mean(h, axis=axis, keepdims=keepdims)
            assert got.dtype == want.dtype and got.shape == want.shape
            np.testing.assert_allclose(cp.asnumpy(got), np.mean(h64, axis=axis, keepdims=keepdims),
                                       rtol=rtol, atol=1e-6 if dtype == "float32" else 1e-12)
            for corr in (0.0, 1):
                for f in ("var", "std"):
                    got = getattr(xp, f)(x, axis=axis, correction=corr, keepdims=keepdims)
                    want = getattr(cnp, f)(h, axis=axis, correction=corr, keepdims=keepdims)
                    assert got.dtype == want.dtype and got.shape == want.shape
                    np.testing.assert_allclose(cp.asnumpy(got), want, rtol=rtol)


def test_var_is_two_pass_accurate(cp):
    host = 1e8 + np.arange(1000, dtype=np.float64) % 7   # a one-pass formula cancels
    got = float(xp.var(cp.asarray(host)))
    assert got == pytest.approx(np.var(host), rel=1e-9)


# ----------------------------------------------------------------------------- edges
def test_empty_and_trivial(cp):
    z = cp.zeros((3, 0, 4), dtype=cp.float32)
    np.testing.assert_array_equal(cp.asnumpy(xp.sum(z, axis=1)), np.zeros((3, 4)))
    np.testing.assert_array_equal(cp.asnumpy(xp.prod(z, axis=1)), np.ones((3, 4)))
    assert xp.sum(z).dtype == cp.float32 and float(xp.sum(z)) == 0.0
    assert int(xp.prod(cp.zeros((0,), dtype=cp.int8))) == 1
    assert xp.sum(z, axis=(0, 2)).shape == (0,)
    assert xp.max(z, axis=(0, 2)).shape == (0,)
    with pytest.raises(ValueError, match="zero-size axis 1"):
        xp.max(z, axis=1)
    with pytest.raises(ValueError, match="zero-size axis 1"):
        xp.min(z)
    with pytest.raises(ValueError, match="zero-size axis 0"):
        xp.min(cp.zeros((0,), dtype=cp.complex64))
    x = cp.asarray(np.arange(12, dtype=np.int8).reshape(3, 4))
    r = xp.sum(x, axis=())
    assert r.dtype == cp.int64 and r.shape == (3, 4)
    np.testing.assert_array_equal(cp.asnumpy(r), np.arange(12).reshape(3, 4))
    assert xp.max(x, axis=()).dtype == cp.int8
    assert int(xp.sum(cp.asarray(np.int32(5)))) == 5
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        m = xp.mean(cp.zeros((2, 0)), axis=1)
    assert np.isnan(cp.asnumpy(m)).all() and m.shape == (2,) and w


def test_nan_propagates(cp):
    for shape, axis in [((5000,), None), ((40, 300), 1), ((300, 40), 0), ((3, 100000), 1)]:
        host = np.random.default_rng(9).standard_normal(shape)
        host.flat[host.size // 2 + 1] = np.nan
        x = cp.asarray(host)
        for f in ("sum", "min", "max"):
            got = cp.asnumpy(getattr(xp, f)(x, axis=axis))
            want = getattr(np, f)(host, axis=axis)
            np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
            np.testing.assert_allclose(got, want, rtol=1e-12)   # NaN == NaN here


def test_bad_arguments(cp):
    x = cp.ones((2, 3))
    with pytest.raises(ValueError, match="duplicate axes"):
        xp.sum(x, axis=(0, -2))
    with pytest.raises(ValueError, match="out of range"):
        xp.max(x, axis=2)
    with pytest.raises(TypeError, match="axis"):
        xp.sum(x, axis=1.0)
    with pytest.raises(TypeError, match="dtype"):
        xp.sum(x, dtype="not a dtype")
    for c in ("1", True, np.bool_(True), 1 + 0j, np.complex128(1)):
        with pytest.raises(TypeError, match="correction"):
            xp.var(x, correction=c)
    for f in ("var", "std"):   # NumPy's name, after a prepared call of the same array
        getattr(xp, f)(x, axis=1)
        with pytest.raises(TypeError, match=rf"^{f}: takes correction= .* got ddof=1"):
            getattr(xp, f)(x, axis=1, ddof=1)
    with pytest.raises(ValueError, match="out of range"):
        xp.sum(cp.asarray(2.5), axis=0)
    with pytest.raises(ValueError, match="must be given"):
        xp.cumulative_sum(x)
    with pytest.raises(TypeError, match="include_initial"):
        xp.cumulative_sum(x, axis=0, include_initial="yes")
    with pytest.raises(ValueError, match="out of range"):
        xp.cumulative_prod(x, axis=-3)


def test_more_than_2_31_elements(cp):
    n = 2**31 + 77
    x = cp.ones(n, dtype=cp.int8)
    x[2**31 + 5] = 9
    x[-1] = 3
    assert int(xp.sum(x)) == n - 2 + 9 + 3
    assert int(xp.max(x)) == 9
    assert int(xp.max(x[2**31 + 6:])) == 3
    c = xp.cumulative_sum(x)
    assert c.dtype == cp.int64
    idx = cp.asarray([0, 2**31 - 1, 2**31, 2**31 + 4, 2**31 + 5, n - 1])
    got = cp.asnumpy(c[idx]).tolist()
    assert got == [1, 2**31, 2**31 + 1, 2**31 + 5, 2**31 + 6 + 8, n - 2 + 9 + 3]
    del c


# ----------------------------------------------------------------------------- NaN in moments
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_moments_propagate_nan(cp, dtype):
    """var/std/mean of NaN are NaN, as NumPy: a 0-d array, one element per output
    (axis=()), and NaN inside longer reductions; with and without correction."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for host, axes in [(np.array(np.nan, dtype=dtype), [None, ()]),
                           (np.array([[np.nan, 1.5], [2.0, np.inf]], dtype=dtype), [()]),
                           (np.array(2.5, dtype=dtype), [None])]:
            x = cp.asarray(host)
            for axis in axes:
                for f in ("var", "std", "mean"):
                    for corr in ((0.0, 1) if f != "mean" else (None,)):
                        kw = {} if corr is None else {"correction": corr}
                        got = getattr(xp, f)(x, axis=axis, **kw)
                        want = getattr(cnp, f)(host, axis=axis, **kw)
                        assert got.dtype == want.dtype and got.shape == want.shape, (f, axis)
                        np.testing.assert_array_equal(cp.asnumpy(got), want,
                                                      err_msg=f"{f} {axis} {corr} {host}")
        rng = np.random.default_rng(21)
        for shape, axis in [((1000,), None), ((30, 200), 1), ((200, 30), 0), ((3, 70000), 1)]:
            host = rng.standard_normal(shape).astype(dtype)
            host.flat[host.size // 3] = np.nan
            x = cp.asarray(host)
            for f in ("var", "std", "mean"):
                for corr in ((0.0, 1) if f != "mean" else (None,)):
                    kw = {} if corr is None else {"correction": corr}
                    got = cp.asnumpy(getattr(xp, f)(x, axis=axis, **kw))
                    want = getattr(np, f)(host.astype(np.float64), axis=axis,
                                          **({} if corr is None else {"ddof": corr}))
                    np.testing.assert_array_equal(np.isnan(got), np.isnan(want), err_msg=f)
                    assert np.isnan(got).any()
                    np.testing.assert_allclose(got, want, rtol=1e-5 if dtype == "float32" else 1e-11)


# ----------------------------------------------------------------------------- kernel variants
def _reduction_variants():
    from xstride._kernels._reduce_common import VARIANTS

    return [(k, v) for k in ("rows_warp", "rows_group", "rows_block", "cols") for v in VARIANTS[k]]


# (shape, axis, view) routed to each reduction kernel, with tails and odd alignments
_ROUTES = {
    "rows_warp": [((600, 643), 1, None), ((300, 4001), 1, "offset"), ((40, 6, 50), (0, 2), None),
                  ((700, 80), 1, "stride")],   # rows of 40: still a warp each (not "short")
    # groups of 8 and 16 lanes a row (_geometry.warp_group) for float32, rows off 16-byte
    # boundaries (float64 rows of 200 and 300 are past 96 words: the warp; of 40
    # elements 16 bytes apart, a group)
    "rows_group": [((20_001, 200), 1, None), ((13_001, 301), 1, "offset"),
                   ((15_000, 80), 1, "stride")],   # rows of 40 elements 16 bytes apart
    "rows_block": [((1_000_003,), None, None), ((3, 300_001), 1, "offset"),
                   ((2, 50_000, 3), (1, 2), "stride")],
    "cols": [((300, 2048), 0, None), ((5000, 12), 0, None), ((999, 513), 0, None),
             ((64, 30, 256), (0, 1), "offset"), ((64, 30, 256), (0, 1), "sub")],
}


def _view(a, how):
    if how == "offset":
        return a[..., 1:]
    if how == "stride":
        return a[..., ::2]
    if how == "sub":   # reduced axes that do not coalesce
        return a[:, :29]
    return a


@pytest.mark.parametrize("knob,value", _reduction_variants())
def test_reduction_variants(cp, tuning, knob, value):
    tuning(**{knob: value})
    rng = np.random.default_rng(31)
    for shape, axis, how in _ROUTES[knob]:
        base = rng.standard_normal(shape)
        for b in (base, base.astype(np.float32)):
            h, x = _view(b, how), _view(cp.asarray(b), how)
            _assert_sum_close(cp.asnumpy(xp.sum(x, axis=axis)), h, axis)
            np.testing.assert_array_equal(cp.asnumpy(xp.max(x, axis=axis)), np.max(h, axis=axis))
            rtol = 1e-4 if h.dtype == np.float32 else 1e-10
            np.testing.assert_allclose(cp.asnumpy(xp.var(x, axis=axis)),
                                       np.var(h.astype(np.float64), axis=axis), rtol=rtol)
        ib = rng.integers(-100, 100, size=shape).astype(np.int8)
        np.testing.assert_array_equal(cp.asnumpy(xp.sum(_view(cp.asarray(ib), how), axis=axis)),
                                      np.sum(_view(ib, how), axis=axis))
        nan = base.copy()
        nan.flat[nan.size // 2] = np.nan
        got = cp.asnumpy(xp.min(_view(cp.asarray(nan), how), axis=axis))
        want = np.min(_view(nan, how), axis=axis)
        np.testing.assert_array_equal(got, want)   # NaN where NumPy has NaN
        assert np.isnan(want).any() == np.isnan(got).any()


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32", "bool"])
def test_interleave_of_column_slices(cp, dtype):
    """A few contiguous columns of rows further apart than the column count (x[:, a:b]
    of a wider array, reversed or every other row) reduced over the rows: the
    "interleave" kernels read them as one flat array of the rows' columns (several
    blocks, a partial last one); sum, max, mean, var, all/any and argmin/argmax as
    NumPy's."""
    from xstride._plans.reduction import plan_array

    rng = np.random.default_rng(21)
    for n, width, cols, rows in ((300_001, 7, slice(0, 3), slice(None)),
                                 (200_003, 16, slice(2, 10), slice(None, None, -1)),
                                 (100_000, 5, slice(1, 5), slice(None, None, 2)),
                                 (4099, 40, slice(5, 37), slice(None))):
        host = _random(rng, (n, width), dtype)
        h = host[rows, cols]
        x = cp.asarray(host)[rows, cols]
        assert plan_array(x, (0,)).strategy == "interleave"
        what = f"{dtype} {h.shape} {h.strides}"
        if dtype == "bool":
            np.testing.assert_array_equal(xp.all(x, axis=0).get(), h.all(axis=0), what)
            np.testing.assert_array_equal(xp.any(x, axis=0).get(), h.any(axis=0), what)
            continue
        for f in ("argmin", "argmax", "max"):
            np.testing.assert_array_equal(getattr(xp, f)(x, axis=0).get(),
                                          getattr(np, f)(h, axis=0), f"{f} {what}")
        if dtype.startswith("float"):
            _assert_sum_close(xp.sum(x, axis=0).get(), h, 0)
            tol = 2e-6 if dtype == "float32" else 1e-12
            np.testing.assert_allclose(xp.mean(x, axis=0).get(),
                                       h.astype(np.float64).mean(axis=0), rtol=tol)
            np.testing.assert_allclose(xp.var(x, axis=0).get(),
                                       h.astype(np.float64).var(axis=0), rtol=tol)
        else:
            np.testing.assert_array_equal(xp.sum(x, axis=0).get(), h.sum(axis=0), what)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_sums_of_negative_zeros_are_positive_zero_as_numpys(cp, dtype):
    """NumPy sums from the identity: 0 + -0.0 is +0.0, over one element (the copy
    strategy: ``0 + x`` on the engine) and over many (the kernels start from 0)."""
    for shape, axis in [((1000, 1), 1), ((1, 1000), 0), ((1000, 3), 1), ((3, 1000), 0),
                        ((5000,), 0)]:
        h = np.full(shape, -0.0, dtype=dtype)
        for func in ("sum", "mean"):
            got = cp.asnumpy(getattr(xp, func)(cp.asarray(h), axis=axis))
            want = getattr(np, func)(h, axis=axis)
            assert got.dtype == want.dtype
            assert not np.signbit(want).any()
            assert got.tobytes() == want.tobytes(), (func, shape)
        # min, max, prod keep the element: -0.0 (prod: 1 * -0.0)
        for func in ("min", "max", "prod"):
            got = cp.asnumpy(getattr(xp, func)(cp.asarray(h), axis=axis))
            assert got.tobytes() == getattr(np, func)(h, axis=axis).tobytes(), (func, shape)
