"""GPU tests of the namespace's reductions and scans on CuPy arrays, against NumPy.

Integers must match exactly. Floating-point sums must lie within the bound stated in
docs/reductions.md:  |s_hat - s| <= (ceil(n/4) + 64) * 2**-53 * sum|x|  (+ 2**-24 |s|
when the result is float32), n = elements per output; float32 look-back scans add
the float32 run's term (``_scan_bound``).
"""

from __future__ import annotations

import math
import warnings

import array_api_compat.numpy as cnp
import numpy as np
import pytest

import xstride as xp

pytestmark = pytest.mark.gpu

_DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
           "float32", "float64"]


@pytest.fixture(autouse=True)
def _poison_pool(cp):
    """Fill pooled device memory with 0xFF so that a result element the kernels forget
    to write shows up as NaN / -1 / max instead of a lucky zero."""
    junk = cp.full(1 << 25, 0xFF, dtype=cp.uint8)
    del junk
    yield


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


#: float32 look-back scans sum each thread's run of at most this many elements in float32
_RUN = 64


def _scan_bound(h, axis):
    """The stated bound of a float scan of host array ``h`` (docs/reductions.md): the
    float64 part, the final rounding of a float32 result, and for float32 the float32
    run: (_RUN + 1) * 2**-24 times the sum of |x| over the last _RUN elements, plus
    (_RUN * 2**-24)**2 = 2**-36 times the sum of all |x| (the compensated run totals)."""
    wide = h.astype(np.longdouble)
    exact = np.cumsum(wide, axis=axis)
    absum = np.cumsum(np.abs(wide), axis=axis)
    bound = (math.ceil(h.shape[axis] / 4) + 64) * 2.0 ** -53 * absum
    if h.dtype == np.float32:
        n = h.shape[axis]
        lag = np.take(absum, np.arange(n - _RUN), axis=axis)
        zeros = np.zeros_like(np.take(absum, np.arange(min(_RUN, n)), axis=axis))
        window = absum - np.concatenate([zeros, lag], axis=axis)
        bound = (bound + 2.0 ** -24 * np.abs(exact) + (_RUN + 1) * 2.0 ** -24 * window
                 + 2.0 ** -36 * absum)
    return exact, bound


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
    with pytest.raises(TypeError, match="correction"):
        xp.var(x, correction="1")
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


# ----------------------------------------------------------------------------- scans
@pytest.mark.parametrize("dtype", ["int64", "float64"])
@pytest.mark.parametrize("include_initial", [False, True])
def test_cumulative_sum_awkward_layouts(cp, dtype, include_initial):
    rng = np.random.default_rng(10)
    base = _random(rng, 960, dtype)
    for name, h, d in _views(cp, base):
        for axis in range(h.ndim):
            got = xp.cumulative_sum(d, axis=axis, include_initial=include_initial)
            want = cnp.cumulative_sum(h, axis=axis, include_initial=include_initial)
            assert got.shape == want.shape and got.dtype == want.dtype
            if dtype == "int64":
                np.testing.assert_array_equal(cp.asnumpy(got), want, err_msg=name)
            else:
                np.testing.assert_allclose(cp.asnumpy(got), want, rtol=1e-12, atol=1e-12,
                                           err_msg=name)


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint8", "int32", "float32"])
def test_scan_dtype_rules(cp, dtype):
    rng = np.random.default_rng(11)
    host = _random(rng, (6, 70), dtype)
    for f in ("cumulative_sum", "cumulative_prod"):
        h = host if f == "cumulative_sum" or dtype == "bool" else (host % 3 if dtype != "float32" else host)
        got = getattr(xp, f)(cp.asarray(h), axis=1)
        want = getattr(cnp, f)(h, axis=1)
        assert got.dtype == want.dtype
        if want.dtype.kind == "f":
            np.testing.assert_allclose(cp.asnumpy(got), want, rtol=2e-5)
        else:
            np.testing.assert_array_equal(cp.asnumpy(got), want)


@pytest.mark.parametrize("shape,axis", [
    ((3_000_017,), 0),          # lookback, ragged last tile
    ((3, 1_000_003), 1),        # lookback per row
    ((200_001, 3), 0),          # lookback over a strided axis
    ((5000, 640), 1),           # rows
    ((640, 5000), 0),           # columns
])
@pytest.mark.parametrize("include_initial", [False, True])
def test_scan_strategies(cp, shape, axis, include_initial):
    rng = np.random.default_rng(12)
    ih = rng.integers(-1000, 1000, size=shape)
    got = xp.cumulative_sum(cp.asarray(ih), axis=axis, include_initial=include_initial)
    np.testing.assert_array_equal(
        cp.asnumpy(got), cnp.cumulative_sum(ih, axis=axis, include_initial=include_initial))
    fh = rng.standard_normal(shape).astype(np.float32)
    got = cp.asnumpy(xp.cumulative_sum(cp.asarray(fh), axis=axis)).astype(np.longdouble)
    exact, bound = _scan_bound(fh, axis)
    assert np.all(np.abs(got - exact) <= bound)


def test_cumulative_prod_values(cp):
    rng = np.random.default_rng(13)
    host = 1 + 1e-3 * rng.standard_normal((7, 20000))
    got = cp.asnumpy(xp.cumulative_prod(cp.asarray(host), axis=1, include_initial=True))
    np.testing.assert_allclose(got, cnp.cumulative_prod(host, axis=1, include_initial=True),
                               rtol=1e-11)
    ih = rng.integers(-3, 4, size=(2, 100000))
    np.testing.assert_array_equal(cp.asnumpy(xp.cumulative_prod(cp.asarray(ih), axis=1)),
                                  np.cumprod(ih, axis=1))


def test_scan_1_next_to_1e20_is_exact(cp):
    """include_initial shifts the inclusive scan: the value before 1e20 stays exactly
    1 (forming it as inclusive - x would give 1e20 - 1e20 = 0)."""
    n = 3 * 4096 + 5
    for pos in (0, 4095, 8190, 20):       # in a tile, across tile boundaries, short row
        host = np.zeros(n if pos != 20 else 50)
        host[pos], host[pos + 1] = 1.0, 1e20
        for x in (cp.asarray(host), cp.asarray(host.reshape(1, -1))):
            got = cp.asnumpy(xp.cumulative_sum(x, axis=-1, include_initial=True)).reshape(-1)
            incl = cp.asnumpy(xp.cumulative_sum(x, axis=-1)).reshape(-1)
            assert got[0] == 0.0
            assert got[pos + 1] == 1.0, pos
            assert got[pos + 2] == 1e20
            assert got[1:].tobytes() == incl.tobytes()


def test_scan_empty_and_0d(cp):
    z = cp.zeros((3, 0), dtype=cp.int32)
    r = xp.cumulative_sum(z, axis=1, include_initial=True)
    assert r.shape == (3, 1) and r.dtype == cp.int64
    np.testing.assert_array_equal(cp.asnumpy(r), np.zeros((3, 1)))
    r = xp.cumulative_prod(z, axis=1, include_initial=True)
    np.testing.assert_array_equal(cp.asnumpy(r), np.ones((3, 1)))
    assert xp.cumulative_sum(z, axis=1).shape == (3, 0)
    assert xp.cumulative_sum(cp.zeros((0, 4)), axis=1).shape == (0, 4)
    r = xp.cumulative_sum(cp.asarray(np.float64(2.5)))
    np.testing.assert_array_equal(cp.asnumpy(r), cnp.cumulative_sum(np.float64(2.5)))


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
@pytest.fixture
def tuning():
    """Set launch-tuning knobs for one test; restored afterwards."""
    from xstride._kernels import _reduce_common as rc

    saved = dict(rc.TUNING)

    def set_(**kw):
        rc.TUNING.update(saved)
        rc.TUNING.update(kw)

    yield set_
    rc.TUNING.clear()
    rc.TUNING.update(saved)


def _reduction_variants():
    from xstride._kernels._reduce_common import VARIANTS

    return [(k, v) for k in ("rows_warp", "rows_block", "cols") for v in VARIANTS[k]]


# (shape, axis, view) routed to each reduction kernel, with tails and odd alignments
_ROUTES = {
    "rows_warp": [((600, 643), 1, None), ((300, 4001), 1, "offset"), ((40, 6, 50), (0, 2), None),
                  ((700, 40), 1, "stride")],
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


def _scan_variants():
    return ([{"lookback_items": i, "lookback_minb": m} for i in (16, 32) for m in (3, 4, 5)]
            + [{"lookback_items": 64, "lookback_minb": m} for m in (2, 3)]
            + [{"lookback_group": 4, "lookback_window": 2},
               {"lookback_group": 1, "lookback_window": 32}]
            + [{"lookback_direct": d} for d in (0, 1, 4)] + [{"lookback_f32_run": r} for r in (0, 2)]
            + [{"lookback_group": 4, "lookback_window": 2, "lookback_direct": 4},
               {"lookback_group": 1, "lookback_window": 1, "lookback_direct": 3}])


@pytest.mark.parametrize("variant", _scan_variants(), ids=lambda v: "-".join(map(str, v.values())))
def test_lookback_scan_variants(cp, tuning, variant):
    tuning(**variant)
    rng = np.random.default_rng(32)
    cases = [((3_000_017,), 0, None), ((3, 1_000_003), 1, None), ((200_001, 3), 0, None),
             ((2, 400_000), 1, "offset"), ((300_000,), 0, "stride")]
    for shape, axis, how in cases:
        for dt in ("int32", "int8", "float32", "float64", "bool"):
            h0 = _random(rng, shape, dt)
            h = _view(h0, how)
            x = _view(cp.asarray(h0), how)
            for ii in (False, True):
                got = cp.asnumpy(xp.cumulative_sum(x, axis=axis, include_initial=ii))
                want = cnp.cumulative_sum(h, axis=axis, include_initial=ii)
                assert got.dtype == want.dtype and got.shape == want.shape
                if want.dtype.kind != "f":
                    np.testing.assert_array_equal(got, want, err_msg=f"{shape} {dt} {ii}")
                    continue
                exact, bound = _scan_bound(h, axis)
                core = got.take(np.arange(int(ii), got.shape[axis]), axis=axis).astype(np.longdouble)
                assert np.all(np.abs(core - exact) <= bound), (shape, dt)
    ph = 1 + 1e-3 * rng.standard_normal((2, 50_000))
    np.testing.assert_allclose(cp.asnumpy(xp.cumulative_prod(cp.asarray(ph), axis=1)),
                               np.cumprod(ph, axis=1), rtol=1e-11)
    big = cp.asarray(rng.standard_normal(2_000_003))
    runs = [cp.asnumpy(xp.cumulative_sum(big)) for _ in range(3)]
    assert runs[1].tobytes() == runs[0].tobytes() == runs[2].tobytes()
    n = 5 * 8192 + 3
    for pos in (8191, 4095, 100):
        host = np.zeros(n)
        host[pos], host[pos + 1] = 1.0, 1e20
        got = cp.asnumpy(xp.cumulative_sum(cp.asarray(host), include_initial=True))
        assert got[0] == 0.0 and got[pos + 1] == 1.0 and got[pos + 2] == 1e20


def test_lookback_scan_bit_reproducible(cp, tuning):
    """The same input scanned 5 times gives the same bits (float32 and float64, a flat
    array of many tile groups and rows of several groups); the bits also do not
    depend on the look-back window, the residency, or how many preceding groups a tile
    rebuilds from their tiles' aggregates, which change which published prefix the
    timing finds (only the tile and group sizes fix the association)."""
    rng = np.random.default_rng(33)
    arrays = [cp.asarray(rng.standard_normal(12_000_007).astype(np.float32)),
              cp.asarray(rng.standard_normal(6_000_001)),
              cp.asarray(rng.standard_normal((3, 2_500_003)).astype(np.float32))]
    tuning()
    for x in arrays:
        runs = [cp.asnumpy(xp.cumulative_sum(x, axis=-1)).tobytes() for _ in range(5)]
        assert all(r == runs[0] for r in runs[1:]), x.shape
        for other in ({"lookback_window": 2}, {"lookback_window": 1}, {"lookback_minb": 3},
                      {"lookback_direct": 0}, {"lookback_direct": 4},
                      {"lookback_direct": 1, "lookback_window": 1}):
            tuning(**other)
            again = cp.asnumpy(xp.cumulative_sum(x, axis=-1)).tobytes()
            assert again == runs[0], (x.shape, other)
        tuning()
        # and it is a correct scan: within the stated bound of the exact one
        h = cp.asnumpy(x)
        got = np.frombuffer(runs[0], dtype=h.dtype).reshape(h.shape).astype(np.longdouble)
        exact, bound = _scan_bound(h, -1)
        assert np.all(np.abs(got - exact) <= bound), x.shape


@pytest.mark.parametrize("f32_run", [0, 2])
def test_lookback_float64_outputs_keep_the_tight_bound(cp, tuning, f32_run):
    """With float64 outputs (lookback_f32_run 0, and 2 with compensated float32 run
    totals) a float32 scan has no run term: within the float64 bound, the final
    rounding and (2) the compensation's 2**-36 * sum|x|."""
    tuning(lookback_f32_run=f32_run)
    rng = np.random.default_rng(37)
    for h in (rng.standard_normal(3_000_017).astype(np.float32),
              (rng.standard_normal((2, 700_001)) * 1e4 + 1).astype(np.float32)):
        got = cp.asnumpy(xp.cumulative_sum(cp.asarray(h), axis=-1)).astype(np.longdouble)
        wide = h.astype(np.longdouble)
        exact = np.cumsum(wide, axis=-1)
        absum = np.cumsum(np.abs(wide), axis=-1)
        bound = ((math.ceil(h.shape[-1] / 4) + 64) * 2.0 ** -53 * absum
                 + 2.0 ** -24 * np.abs(exact) + 2.0 ** -36 * absum)
        assert np.all(np.abs(got - exact) <= bound)


@pytest.mark.parametrize("f32_run", [1, 0, 2])
def test_lookback_scan_special_values(cp, tuning, f32_run):
    """Infinities, NaN and a leading -0.0 through the look-back, with float32 runs and
    with float64 running values: the IEEE pattern of the float64 scan of the same data
    (inf from the first inf on, NaN once +inf meets -inf or a NaN), mid-run, at a run's
    first element and on a tile boundary."""
    tuning(lookback_f32_run=f32_run)
    n = 1_000_003
    rng = np.random.default_rng(35)
    for pos_inf, pos_other, other in [(400_000, 700_000, -np.inf), (8192, 8192 * 3 + 17, np.nan),
                                      (31, 900_001, -np.inf)]:
        h = rng.standard_normal(n).astype(np.float32)
        h[0] = -0.0
        h[pos_inf], h[pos_other] = np.inf, other
        got = cp.asnumpy(xp.cumulative_sum(cp.asarray(h)))
        want = np.cumsum(h.astype(np.float64))
        assert np.signbit(got[0]) and got[0] == 0.0
        np.testing.assert_array_equal(np.isposinf(got), np.isposinf(want))
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
        fin = np.isfinite(want)
        exact, bound = _scan_bound(h[:pos_inf], 0)
        assert np.all(np.abs(got[:pos_inf].astype(np.longdouble) - exact) <= bound)
        assert fin.sum() == pos_inf


@pytest.mark.parametrize("f32_run", [1, 0, 2])
def test_lookback_scan_float32_range_edges(cp, tuning, f32_run):
    """Partial sums of one thread's run that leave float32's range while the true
    running values stay in it, and a prefix past the range that comes back: the
    thread falls back to float64, so every mode gives the float64 scan rounded to
    float32 (exact here: the sums are exact in float64)."""
    tuning(lookback_f32_run=f32_run)
    n = 1_000_000
    big = np.float32(3e38)
    cases = []
    h = np.zeros(n, np.float32)
    h[31], h[32], h[33], h[34] = -big, big, big, -big     # a run's total passes +-inf
    cases.append(h)
    h = np.zeros(n, np.float32)
    h[0], h[32], h[64] = big, big, -big                   # prefix 6e38, then 3e38 again
    cases.append(h)
    h = np.zeros(n, np.float32)
    h[8191], h[8192], h[8193 + 31] = big, big, -big       # across a tile boundary
    cases.append(h)
    for h in cases:
        got = cp.asnumpy(xp.cumulative_sum(cp.asarray(h)))
        with np.errstate(over="ignore"):
            want = np.cumsum(h.astype(np.float64)).astype(np.float32)
        np.testing.assert_array_equal(got, want)
    assert np.isinf(want).sum() == 8193 + 31 - 8192 and np.isfinite(want[-1])


def _near_max_cases():
    """Float32 data next to FLT_MAX that once broke the float32 runs (found in review):
    a TwoSum step whose own difference overflows (NaN from finite data, then NaN for
    the rest of the row), and a run whose rounding carries a true value just under
    FLT_MAX past it (inf where the float64 scan is finite)."""
    n = 100_000
    fmax = np.finfo(np.float32).max
    cases = []
    for first in (-(2.0 ** 126 - 2.0 ** 103), -3 * 2.0 ** 103):
        h = np.zeros(n, np.float32)
        h[32], h[33] = first, fmax
        cases.append(h)
    b = np.float32(2.0 ** 103 + 2.0 ** 80)
    total = 2.0 ** 127 + 31 * float(b)
    h = np.zeros(n, np.float32)
    h[0] = np.float32(np.floor((2.0 ** 128 - 6.5 * 2.0 ** 104 - total) / 2.0 ** 103) * 2.0 ** 103)
    h[32], h[33:64], h[64] = 2.0 ** 127, b, -(2.0 ** 127)
    cases.append(h)
    return cases


@pytest.mark.parametrize("f32_run", [1, 0, 2])
def test_lookback_scan_next_to_float32_max(cp, tuning, f32_run):
    """The IEEE pattern of the float64 scan (no NaN, no inf where it has none), and
    finite values within the stated bound."""
    tuning(lookback_f32_run=f32_run)
    for h in _near_max_cases():
        got = cp.asnumpy(xp.cumulative_sum(cp.asarray(h)))
        with np.errstate(over="ignore"):
            want = np.cumsum(h.astype(np.float64)).astype(np.float32)
        assert not np.isnan(want).any() and np.isfinite(want).all()
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
        np.testing.assert_array_equal(np.isinf(got), np.isinf(want))
        exact, bound = _scan_bound(h, 0)
        assert np.all(np.abs(got.astype(np.longdouble) - exact) <= bound)


def test_scan_without_packed_launch_gives_the_same_bits(cp, monkeypatch):
    """Where CuPy exposes no function handle, scans launch through RawKernel's call:
    the same bits for the look-back, rows and columns strategies."""
    from xstride._kernels import scans

    rng = np.random.default_rng(36)
    cases = [(rng.standard_normal(3_000_017).astype(np.float32), 0),
             (rng.integers(-9, 9, size=(5000, 640)).astype(np.int32), 1),
             (rng.standard_normal((640, 5000)), 0)]
    monkeypatch.setattr(scans, "_RECIPES", {})
    packed = [cp.asnumpy(xp.cumulative_sum(cp.asarray(h), axis=a)) for h, a in cases]
    assert all(r.launch is not None for r in scans._RECIPES.values())
    monkeypatch.setattr(scans, "_RECIPES", {})
    monkeypatch.setattr(scans, "packed_launch", lambda *a, **k: None)
    plain = [cp.asnumpy(xp.cumulative_sum(cp.asarray(h), axis=a)) for h, a in cases]
    assert all(r.launch is None for r in scans._RECIPES.values())
    for (h, a), p, q in zip(cases, packed, plain):
        assert p.tobytes() == q.tobytes()
        if h.dtype.kind == "i":
            np.testing.assert_array_equal(p, np.cumsum(h, axis=a))


def test_lookback_integers_exact_across_groups(cp, tuning):
    """Integer scans through the look-back with small groups (many group look-backs
    and passed windows) equal NumPy exactly, including int64 wrap-around."""
    tuning(lookback_group=2, lookback_window=1)
    rng = np.random.default_rng(34)
    h = rng.integers(-(2 ** 62), 2 ** 62, size=(2, 700_001), dtype=np.int64)
    with np.errstate(over="ignore"):
        want = np.cumsum(h, axis=1)
    np.testing.assert_array_equal(cp.asnumpy(xp.cumulative_sum(cp.asarray(h), axis=1)), want)
