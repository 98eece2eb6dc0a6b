"""GPU tests of the "columns_split" scan (cumulative_sum / cumulative_prod over the rows
of a contiguous (n, k) array, 2 <= k <= 256, n > 4096; ``scans_columns.cu``) against
NumPy: integers exact, floats within the bound of docs/reductions.md (``_scan_bound``),
bit-equal run to run, and views that are not one contiguous block keep their old
strategies (and their results)."""

from __future__ import annotations

import array_api_compat.numpy as cnp
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import xstride as xp
from xstride._kernels._colsplit_geometry import colsplit_geometry
from xstride._plans.scan import COLSPLIT_MIN_LENGTH, plan_scan
from xstride.layout import Layout
from tests.test_reductions_gpu import _random
from tests.test_scans_gpu import _scan_bound

pytestmark = [pytest.mark.gpu, pytest.mark.usefixtures("poisoned_pool")]


def xp_sm_count(cp):
    dev = cp.cuda.runtime.getDevice()
    return int(cp.cuda.runtime.getDeviceProperties(dev)["multiProcessorCount"])


def _strategy(x, axis=0, include_initial=False):
    return plan_scan(Layout.from_array(x), axis, include_initial).strategy


def _check(got, h, axis, include_initial, what):
    want = cnp.cumulative_sum(h, axis=axis, include_initial=include_initial)
    got = got if isinstance(got, np.ndarray) else got.get()
    assert got.dtype == want.dtype and got.shape == want.shape, what
    if want.dtype.kind != "f":
        np.testing.assert_array_equal(got, want, err_msg=what)
        return
    exact, bound = _scan_bound(h, axis)
    core = got.take(np.arange(int(include_initial), got.shape[axis]), axis=axis)
    if include_initial:
        assert np.all(got.take(0, axis=axis) == 0), what
    assert np.all(np.abs(core.astype(np.longdouble) - exact) <= bound), what


@pytest.mark.parametrize("k", range(2, 33))
def test_cumulative_sum_every_width(cp, k):
    rng = np.random.default_rng(k)
    big = (1 << 20) + 7
    for n in (COLSPLIT_MIN_LENGTH, 70_001, big):
        # the long-double bound on 2**20 rows only for a few widths (host time)
        dts = ("int64", "float32") if n < big or k in (2, 3, 5, 16) else ("int64",)
        for dt in dts:
            h = _random(rng, (n, k), dt)
            x = cp.asarray(h)
            assert _strategy(x) == "columns_split"
            for ii in (False, True):
                _check(xp.cumulative_sum(x, axis=0, include_initial=ii), h, 0, ii,
                       f"n={n} k={k} {dt} include_initial={ii}")


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32", "int8", "uint8",
                                   "bool"])
@pytest.mark.parametrize("k", [3, 16, 32, 33, 64, 100, 256])
def test_cumulative_sum_dtypes(cp, dtype, k):
    rng = np.random.default_rng(100 + k)
    h = _random(rng, (100_003, k), dtype)
    x = cp.asarray(h)
    _check(xp.cumulative_sum(x, axis=0), h, 0, False, dtype)
    _check(xp.cumulative_sum(x, axis=-2, include_initial=True), h, 0, True, dtype)
    if dtype in ("int8", "float32"):     # an explicit result dtype
        got = xp.cumulative_sum(x, axis=0, dtype=xp.float64).get()
        np.testing.assert_allclose(got, np.cumsum(h.astype(np.float64), axis=0),
                                   rtol=1e-12, atol=1e-9)


@pytest.mark.parametrize("k", [2, 3, 7, 32, 200])
def test_cumulative_prod(cp, k):
    rng = np.random.default_rng(200 + k)
    n = 200_003
    ph = 1 + 1e-4 * rng.standard_normal((n, k))
    for ii in (False, True):
        got = xp.cumulative_prod(cp.asarray(ph), axis=0, include_initial=ii).get()
        np.testing.assert_allclose(got, cnp.cumulative_prod(ph, axis=0, include_initial=ii),
                                   rtol=1e-11)
    ih = rng.integers(-1, 2, size=(n, k)) | 1
    ih[rng.integers(0, n, 5), rng.integers(0, k, 5)] = 2       # products up to 32
    got = xp.cumulative_prod(cp.asarray(ih), axis=0, include_initial=True).get()
    np.testing.assert_array_equal(got, cnp.cumulative_prod(ih, axis=0, include_initial=True))
    bh = rng.random((n, k)) < 0.9999
    np.testing.assert_array_equal(xp.cumulative_prod(cp.asarray(bh), axis=0).get(),
                                  np.cumprod(bh, axis=0))


def test_bit_equal_run_to_run(cp):
    rng = np.random.default_rng(300)
    arrays = [cp.asarray(rng.standard_normal((n, k)).astype(dt))
              for n, k, dt in (((1 << 22) + 3, 3, np.float32), ((1 << 21) + 1, 16, np.float32),
                               ((1 << 21) + 5, 5, np.float64))]
    first = [xp.cumulative_sum(x, axis=0).get().tobytes() for x in arrays]
    for _ in range(2):
        for x, want in zip(arrays, first):
            assert xp.cumulative_sum(x, axis=0).get().tobytes() == want
    # another stream: its own scratch, the same bits
    cp.cuda.Device().synchronize()
    s = cp.cuda.Stream(non_blocking=True)
    with s:
        again = [xp.cumulative_sum(x, axis=0) for x in arrays]
    s.synchronize()
    assert [a.get().tobytes() for a in again] == first


def test_1_next_to_1e20_stays_exact(cp):
    """include_initial shifts by one row: the value before 1e20 in its column is
    exactly 1, across tile and chunk boundaries."""
    n, k = 1 << 20, 4
    g = colsplit_geometry(n, k, 8, 8, xp_sm_count(cp))
    assert g.chunks > 1
    for row in (0, g.tile_rows - 1, g.chunk_rows - 1, 3 * g.chunk_rows, n - 2):
        h = np.zeros((n, k))
        h[row, 2], h[row + 1, 2] = 1.0, 1e20
        got = xp.cumulative_sum(cp.asarray(h), axis=0, include_initial=True).get()
        assert got[row + 1, 2] == 1.0 and got[row + 2, 2] == 1e20, row
        assert np.all(got[:, [0, 1, 3]] == 0)


def test_views_that_are_not_one_block_keep_their_strategy(cp):
    rng = np.random.default_rng(400)
    base = _random(rng, (100_003, 6), "float32")
    xb = cp.asarray(base)
    cases = {
        "reversed rows": (xb[::-1, :3], base[::-1, :3]),
        "reversed columns": (xb[:, 2::-1], base[:, 2::-1]),
        "column slice": (xb[:, 1:4], base[:, 1:4]),
        "column stride": (xb[:, ::2], base[:, ::2]),
        "every other row": (xb.reshape(-1, 3)[::2], base.reshape(-1, 3)[::2]),
        "transposed": (xb.T.copy().T, base),   # Fortran order: columns contiguous
    }
    for name, (x, h) in cases.items():
        assert _strategy(x) != "columns_split", name
        for ii in (False, True):
            _check(xp.cumulative_sum(x, axis=0, include_initial=ii), h, 0, ii, name)


def test_offset_and_unaligned_blocks_take_it(cp):
    """Whole-row slices, a block starting at an odd address and a block's rows
    reversed are still one contiguous block (the kernels make scalar accesses only)."""
    rng = np.random.default_rng(500)
    n, k = 50_001, 3
    flat = _random(rng, n * k + 1, "float32")
    x = cp.asarray(flat)[1:].reshape(n, k)
    assert _strategy(x) == "columns_split" and x.data.ptr % 8 == 4
    _check(xp.cumulative_sum(x, axis=0), flat[1:].reshape(n, k), 0, False, "unaligned")
    h = flat[1:].reshape(n, k)[7:]
    x = x[7:]
    assert _strategy(x, include_initial=True) == "columns_split"
    _check(xp.cumulative_sum(x, axis=0, include_initial=True), h, 0, True, "row offset")
    for k in (2, 3, 16):                               # rows reversed: read from the last
        hr = _random(rng, (70_001, k), "float32")
        xr = cp.asarray(hr)
        for hv, xv in ((hr[::-1], xr[::-1]), (hr[::-1][5:], xr[::-1][5:])):
            assert _strategy(xv) == "columns_split"
            for ii in (False, True):
                _check(xp.cumulative_sum(xv, axis=0, include_initial=ii), hv, 0, ii,
                       f"reversed k={k}")
        hi = _random(rng, (9000, k), "int64")
        _check(xp.cumulative_sum(cp.asarray(hi)[::-1], axis=0), hi[::-1], 0, False,
               f"reversed int64 k={k}")
    h3 = _random(rng, (2, 9000, 4), "int64")          # one block of a 3-D array
    x3 = cp.asarray(h3)[1]
    assert _strategy(x3) == "columns_split"
    _check(xp.cumulative_sum(x3, axis=0), h3[1], 0, False, "3-D slab")


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(n=st.integers(COLSPLIT_MIN_LENGTH - 3, 40_000), k=st.one_of(st.integers(1, 34), st.sampled_from([64, 100, 255, 256, 257])),
       skip=st.integers(0, 3), step=st.sampled_from([1, 1, 1, 2, -1]),
       cols=st.sampled_from(["all", "all", "slice"]),
       dtype=st.sampled_from(["int32", "int64", "float64", "float32", "uint8"]),
       include_initial=st.booleans(), prod=st.booleans())
def test_random_blocks_and_views(cp, n, k, skip, step, cols, dtype, include_initial, prod):
    """Random (n, k) blocks around the thresholds (n near 4097, k = 1..34, 64-257) and views of
    them (a row offset, reversed or every other row, a column slice): the results of
    whichever strategy the plan picks equal NumPy's, and exactly the contiguous blocks
    with 2 <= k <= 256 and more than 4096 rows take columns_split."""
    rng = np.random.default_rng(n * 37 + k)
    h0 = _random(rng, (n, k + 1), dtype)
    if prod:
        h0 = (h0 % 3 - 1) | 1 if h0.dtype.kind in "iu" else 1 + 1e-3 * (h0 - 0.5)
        h0 = h0.astype(dtype)
    x0 = cp.asarray(h0)
    if cols == "all":
        h0, x0 = np.ascontiguousarray(h0[:, :k]), cp.ascontiguousarray(x0[:, :k])
    else:
        h0, x0 = h0[:, :k], x0[:, :k]
    h, x = h0[skip::step] if step > 0 else h0[::step], x0[skip::step] if step > 0 else x0[::step]
    contiguous = cols == "all" and step in (1, -1)      # rows forward or reversed
    taken = _strategy(x, 0, include_initial) == "columns_split"
    assert taken == (contiguous and 2 <= k <= 256 and h.shape[0] > 4096), (h.shape, step, cols)
    f = xp.cumulative_prod if prod else xp.cumulative_sum
    got = f(x, axis=0, include_initial=include_initial).get()
    want = (cnp.cumulative_prod if prod else cnp.cumulative_sum)(
        h, axis=0, include_initial=include_initial)
    assert got.dtype == want.dtype and got.shape == want.shape
    if want.dtype.kind != "f":
        np.testing.assert_array_equal(got, want)
    elif prod:    # against a float64 product (NumPy's float32 one drifts by n ulps)
        want = cnp.cumulative_prod(h.astype(np.float64), axis=0,
                                   include_initial=include_initial)
        np.testing.assert_allclose(got, want, rtol=1e-5 if dtype == "float32" else 1e-10)
    else:
        _check(got, h, 0, include_initial, f"{h.shape} {dtype}")


def _tuned_cases(cp, rng, k, what):
    """The scan of (n, k) float32, int64 and float64 arrays of a whole and a partial
    tile count, with and without ``include_initial``, within the bound and the same
    bits run to run."""
    for n in (COLSPLIT_MIN_LENGTH + 3, 300_007):
        for dt in ("float32", "int64", "float64"):
            h = _random(rng, (n, k), dt)
            x = cp.asarray(h)
            for ii in (False, True):
                got = xp.cumulative_sum(x, axis=0, include_initial=ii)
                _check(got, h, 0, ii, f"{what} n={n} k={k} {dt} include_initial={ii}")
                again = xp.cumulative_sum(x, axis=0, include_initial=ii)
                assert got.get().tobytes() == again.get().tobytes()


@pytest.mark.parametrize("minb", [2, 4, 6])
@pytest.mark.parametrize("k", [3, 7, 16, 32])
def test_every_colsplit_tuning(cp, monkeypatch, minb, k):
    """Each MINB of ``TUNING["colsplit"]`` (resident blocks of the scan launch and chunks
    per SM; the tile's next loads held in registers through the scan)."""
    from xstride._kernels import _reduce_common as rc

    monkeypatch.setitem(rc.TUNING, "colsplit", minb)
    _tuned_cases(cp, np.random.default_rng(minb * 100 + k), k, f"minb={minb}")


# ----------------------------------------------------------------------------- special values
def _special_columns():
    """1-D float32 columns of special values (from the look-back scan's tests): inf
    then -inf, a NaN, partial sums of a thread's run that leave float32's range while
    the true running values stay in it (runs of 16 rows start at multiples of 16; a
    tile of (n, 3) float32 holds 1360 rows), a prefix past the range that comes back,
    and the values next to FLT_MAX that broke the look-back scan's float32 runs once
    (this scan carries float64). Each with whether its float64 scan is exact in
    float32 (then the column must equal it, as in the look-back scan's test)."""
    from tests.test_scans_gpu import _near_max_cases
    n = 100_000
    big = np.float32(3e38)
    cols = []
    for pos, val in ((40_000, -np.inf), (8192 * 3 + 17, np.nan)):
        h = np.zeros(n, np.float32)
        h[31], h[pos] = np.inf, val
        cols.append((h, False))
    for spots in (((31, -big), (32, big), (33, big), (34, -big)),
                  ((0, big), (32, big), (64, big * -1)),
                  ((1359, big), (1360, big), (1360 + 31, -big))):
        h = np.zeros(n, np.float32)
        for i, v in spots:
            h[i] = v
        cols.append((h, True))
    return cols + [(c, False) for c in _near_max_cases()]


def test_special_values_keep_the_float64_pattern(cp):
    """Each special column, as column 1 of an (n, 3) array beside normal values,
    scanned over its rows: the inf/NaN pattern of the float64 scan and finite values
    within the stated bound, with and without include_initial."""
    rng = np.random.default_rng(41)
    for col, exact_col in _special_columns():
        h = rng.standard_normal((col.size, 3)).astype(np.float32)
        h[:, 1] = col
        x = cp.asarray(h)
        assert _strategy(x) == "columns_split"
        with np.errstate(over="ignore", invalid="ignore"):
            want = np.cumsum(h.astype(np.float64), axis=0).astype(np.float32)
        for ii in (False, True):
            got = xp.cumulative_sum(x, axis=0, include_initial=ii).get()[int(ii):]
            np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
            np.testing.assert_array_equal(np.isposinf(got), np.isposinf(want))
            np.testing.assert_array_equal(np.isneginf(got), np.isneginf(want))
            fin = np.isfinite(want)
            exact, bound = _scan_bound(np.where(np.isfinite(h), h, 0), 0)
            stop = np.argmin(np.all(fin, axis=1)) if not fin.all() else len(h)
            assert np.all(np.abs(got[:stop].astype(np.longdouble) - exact[:stop])
                          <= bound[:stop])
            if exact_col:
                np.testing.assert_array_equal(got[:, 1], want[:, 1])
