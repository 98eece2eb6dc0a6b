"""GPU tests of the namespace's scans (cumulative_sum, cumulative_prod) on CuPy arrays,
against NumPy.

Integers must match exactly. Floating-point scans must lie within the bound stated in
docs/reductions.md (``_scan_bound``): the float64 part, the final rounding of a
float32 result, and for the float32 look-back scan the float32 run's term.
"""

from __future__ import annotations

import math

import array_api_compat.numpy as cnp
import numpy as np
import pytest

import xstride as xp
from xstride._kernels._lru import Bounded
from xstride._kernels._prepared import Store
from tests.test_reductions_gpu import _random, _view, _views

pytestmark = [pytest.mark.gpu, pytest.mark.usefixtures("poisoned_pool")]


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
    ((200_001, 3), 0),          # columns_split: a contiguous (n, 3) block
    ((200_001, 33), 0),         # lookback over a strided axis (k > 32)
    ((5000, 640), 1),           # rows
    ((640, 5000), 0),           # columns
    ((70_001, 3), 1),           # columns: short rows, a thread per row
    ((4099, 32), 1),            # columns: the longest short row
    ((4099, 33), 1),            # rows: just past it
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


# ----------------------------------------------------------------------------- look-back variants
def _scan_variants():
    return ([{"lookback_items": i, "lookback_minb": m} for i in (16, 32) for m in (3, 4, 5)]
            + [{"lookback_items": 64, "lookback_minb": m} for m in (2, 3)]
            + [{"lookback_group": 4, "lookback_window": 2},
               {"lookback_group": 1, "lookback_window": 32}]
            + [{"lookback_direct": d} for d in (0, 1, 4)] + [{"lookback_f32_run": r} for r in (0, 2)]
            + [{"lookback_threads": 128, "lookback_minb": 10},
               {"lookback_threads": 512, "lookback_minb": 2},
               {"lookback_threads": 64, "lookback_minb": 16, "lookback_items": 16}]
            + [{"lookback_group": 4, "lookback_window": 2, "lookback_direct": 4},
               {"lookback_group": 1, "lookback_window": 1, "lookback_direct": 3}])


@pytest.mark.parametrize("variant", _scan_variants(), ids=lambda v: "-".join(map(str, v.values())))
def test_lookback_scan_variants(cp, tuning, variant):
    tuning(**variant)
    rng = np.random.default_rng(32)
    # (200_001, 4)[..., 1:]: a strided axis (contiguous (n, k) blocks take columns_split)
    cases = [((3_000_017,), 0, None), ((3, 1_000_003), 1, None), ((200_001, 4), 0, "offset"),
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
    float32 (exact here: the sums are exact in float64), along every route of
    ``_routes`` (tile sizes, strided input, include_initial, rows)."""
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
        with np.errstate(over="ignore"):
            want = np.cumsum(h.astype(np.float64)).astype(np.float32)
        for route, got in _routes(cp, tuning, f32_run, h):
            np.testing.assert_array_equal(got, want, err_msg=route)
    assert np.isinf(want).sum() == 8193 + 31 - 8192 and np.isfinite(want[-1])


def _routes(cp, tuning, f32_run, h):
    """(route, result) of the float32 look-back scan of 1-D host array ``h`` along
    several routes, each result aligned with ``h``: the default tile, 16 and 64
    elements per thread, a strided view, include_initial (its leading 0 checked and
    dropped) and each of two rows of a 2-D array."""
    for name, knobs in [("default", {}), ("items 16", {"lookback_items": 16}),
                        ("items 64", {"lookback_items": 64, "lookback_minb": 3})]:
        tuning(lookback_f32_run=f32_run, **knobs)
        yield name, cp.asnumpy(xp.cumulative_sum(cp.asarray(h)))
    tuning(lookback_f32_run=f32_run)
    wide = np.zeros(2 * h.size, h.dtype)
    wide[1::2] = h
    yield "strided", cp.asnumpy(xp.cumulative_sum(cp.asarray(wide)[1::2]))
    got = cp.asnumpy(xp.cumulative_sum(cp.asarray(h), include_initial=True))
    assert got[0] == 0 and not np.signbit(got[0])
    yield "include_initial", got[1:]
    rows = cp.asnumpy(xp.cumulative_sum(cp.asarray(np.stack([h, h])), axis=1))
    yield "row 0", rows[0]
    yield "row 1", rows[1]


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
    finite values within the stated bound, along every route of ``_routes``."""
    for h in _near_max_cases():
        with np.errstate(over="ignore"):
            want = np.cumsum(h.astype(np.float64)).astype(np.float32)
        assert not np.isnan(want).any() and np.isfinite(want).all()
        exact, bound = _scan_bound(h, 0)
        for route, got in _routes(cp, tuning, f32_run, h):
            np.testing.assert_array_equal(np.isnan(got), np.isnan(want), err_msg=route)
            np.testing.assert_array_equal(np.isinf(got), np.isinf(want), err_msg=route)
            assert np.all(np.abs(got.astype(np.longdouble) - exact) <= bound), route


def test_scan_without_packed_launch_gives_the_same_bits(cp, monkeypatch):
    """Where CuPy exposes no function handle, scans launch through RawKernel's call
    (xstride._kernels._launch): the same bits for the look-back, rows and columns
    strategies."""
    from xstride._kernels import _launch, scans

    rng = np.random.default_rng(36)
    cases = [(rng.standard_normal(3_000_017).astype(np.float32), 0),
             (rng.integers(-9, 9, size=(5000, 640)).astype(np.int32), 1),
             (rng.standard_normal((640, 5000)), 0)]
    monkeypatch.setattr(scans, "_RECIPES", Bounded(1024))
    monkeypatch.setattr(scans, "_PREPARED", Store(1024))
    packed = [cp.asnumpy(xp.cumulative_sum(cp.asarray(h), axis=a)) for h, a in cases]
    assert len(scans._RECIPES) == 3
    assert all(r.launch.fptr is not None for r in scans._RECIPES.values())
    monkeypatch.setattr(scans, "_RECIPES", Bounded(1024))
    monkeypatch.setattr(scans, "_PREPARED", Store(1024))
    monkeypatch.setattr(_launch, "driver_entry", lambda kernel: (None, None))
    plain = [cp.asnumpy(xp.cumulative_sum(cp.asarray(h), axis=a)) for h, a in cases]
    assert len(scans._RECIPES) == 3
    assert all(r.launch.fptr is None for r in scans._RECIPES.values())
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


def test_prepared_calls_repeat_the_checked_path(cp, tuning, monkeypatch):
    """A repeated call goes straight to its recipe (scans._PREPARED) and gives the bits
    of the checked path; the key tells apart what changes the result (strides, dtype=,
    include_initial, tuning), and arguments the checked path rejects are still
    rejected after an equal-comparing valid call was prepared."""
    from xstride._kernels import scans

    monkeypatch.setattr(scans, "_PREPARED", Store(1024))
    rng = np.random.default_rng(38)
    h = rng.standard_normal((700, 700)).astype(np.float32)
    x = cp.asarray(h)
    first = cp.asnumpy(xp.cumulative_sum(x, axis=1, include_initial=True))
    assert len(scans._PREPARED) == 1
    builds = []
    real_build = scans._build
    monkeypatch.setattr(scans, "_build", lambda *a: builds.append(a) or real_build(*a))
    monkeypatch.setattr(scans, "_RECIPES", Bounded(1024))   # only a prepared call can skip _build
    again = cp.asnumpy(xp.cumulative_sum(x, axis=1, include_initial=True))
    assert again.tobytes() == first.tobytes() and not builds
    np.testing.assert_array_equal(first[:, 0], 0)
    exact, bound = _scan_bound(h, 1)
    assert np.all(np.abs(first[:, 1:].astype(np.longdouble) - exact) <= bound)
    # same shape, other strides: its own recipe, the transposed result
    got = cp.asnumpy(xp.cumulative_sum(x.T, axis=1, include_initial=True))
    exact, bound = _scan_bound(h.T, 1)
    assert np.all(np.abs(got[:, 1:].astype(np.longdouble) - exact) <= bound)
    # dtype= and include_initial in the key
    wide = cp.asnumpy(xp.cumulative_sum(x, axis=1, dtype=np.float64))
    assert wide.dtype == np.float64 and wide.shape == (700, 700)
    np.testing.assert_allclose(wide, np.cumsum(h.astype(np.float64), axis=1), rtol=1e-12, atol=1e-9)
    plain = cp.asnumpy(xp.cumulative_sum(x, axis=1))
    assert plain.shape == (700, 700) and plain.tobytes() == first[:, 1:].copy().tobytes()
    # the tuning is part of the key: another tile size builds (and runs) its own recipe
    flat = cp.asarray(rng.standard_normal(1_000_003).astype(np.float32))
    ref = cp.asnumpy(xp.cumulative_sum(flat))
    n = len(builds)
    tuning(lookback_items=16)
    other = cp.asnumpy(xp.cumulative_sum(flat))
    assert len(builds) == n + 1
    exact, bound = _scan_bound(cp.asnumpy(flat), 0)
    assert np.all(np.abs(other.astype(np.longdouble) - exact) <= bound)
    tuning()
    assert cp.asnumpy(xp.cumulative_sum(flat)).tobytes() == ref.tobytes()
    # the result's dtype object is the caller's, whoever built the shared recipe
    ih = cp.asarray(rng.integers(-9, 9, size=100_000).astype(np.int32))
    a = xp.cumulative_sum(ih, dtype=np.longlong)
    b = xp.cumulative_sum(ih)
    assert a.dtype == b.dtype == np.int64 and b.dtype == xp.cumulative_sum(ih).dtype
    assert b.dtype.char == np.dtype(np.int64).char
    np.testing.assert_array_equal(cp.asnumpy(b), np.cumsum(cp.asnumpy(ih), dtype=np.int64))
    # still rejected: include_initial 1 (== True), axis True (== 1), axis 1.0
    with pytest.raises(TypeError, match="include_initial"):
        xp.cumulative_sum(x, axis=1, include_initial=1)
    with pytest.raises(TypeError, match="axis"):
        xp.cumulative_sum(x, axis=True, include_initial=True)
    with pytest.raises(TypeError, match="axis"):
        xp.cumulative_sum(x, axis=1.0, include_initial=True)
