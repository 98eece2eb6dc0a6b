"""Morton keys and sort_by_key on CuPy: bit-identical to the host; the demo on the device."""

from __future__ import annotations

import json

import numpy as np
import pytest

from xstride import algorithms as alg

pytestmark = pytest.mark.gpu

INT_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]


@pytest.fixture
def poisoned(cp):
    """Fill a large pool block with 0xFF and free it, so fresh outputs start as garbage."""
    junk = cp.full(1 << 28, 0xFF, dtype=cp.uint8)
    del junk
    return cp


def points(seed, n, ndim, lo=-0.2, hi=1.2):
    rng = np.random.default_rng(seed)
    pts = rng.uniform(lo, hi, size=(n, ndim))
    pts[:64] = np.round(pts[:64] * 8) / 8  # exact cell boundaries at levels >= 3
    pts[64:70] = [[1.0] * ndim, [0.0] * ndim, [2.0] * ndim, [-5.0] * ndim, [0.5] * ndim,
                  [0.999] * ndim]
    return pts


# --------------------------------------------------------------------- keys
@pytest.mark.parametrize("ndim", [2, 3])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_device_keys_bit_identical_to_host(poisoned, ndim, dtype):
    cp = poisoned
    for seed, levels in enumerate((1, 3, 7, 16, alg.MAX_MORTON_LEVELS[ndim])):
        host_pts = points(100 * ndim + seed, 100_003, ndim).astype(dtype)
        lower, upper = [0.0, 1.0, 0.0][:ndim], [1.0, 0.0, 0.75][:ndim]  # axis 1 reversed
        want = alg.morton_keys(host_pts, lower, upper, levels)
        got = alg.morton_keys(cp.asarray(host_pts), lower, upper, levels)
        assert isinstance(got, cp.ndarray) and got.dtype == cp.uint64
        np.testing.assert_array_equal(cp.asnumpy(got), want)


@pytest.mark.parametrize("ndim", [2, 3])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_device_key_kernels_each_method(poisoned, ndim, dtype):
    """Both key kernels (shared-memory row tiles, strided loads) against the host, with
    sizes around the 512-point tile, a misaligned start (falls back to strided) and a
    NaN/inf in a full tile and in the partial last tile."""
    from xstride._kernels import morton as dev

    cp = poisoned
    lower, upper = [0.0, 1.0, 0.0][:ndim], [1.0, 0.0, 0.75][:ndim]
    levels = alg.MAX_MORTON_LEVELS[ndim] - 1
    scales = alg.morton_scales(lower, upper, levels)
    methods = ["strided", "rows"]   # (float32 3-D rows: 8-byte loads, since 2026-12-06)
    with pytest.raises(ValueError, match="'rows' kernel needs"):
        dev.keys(cp.zeros((600, ndim), dtype)[:, ::-1], lower, scales, levels, method="rows")
    for n in (1, 2, 511, 512, 513, 1024, 3 * 512 + 7, 200_001):
        host_pts = points(n + ndim, n, ndim).astype(dtype) if n >= 70 else \
            np.random.default_rng(n).uniform(-0.2, 1.2, (n, ndim)).astype(dtype)
        want = alg.morton_keys(host_pts, lower, upper, levels)
        d = cp.asarray(host_pts)
        for method in methods:
            got, bad = dev.keys(d, lower, scales, levels, method=method)
            assert bad == -1
            np.testing.assert_array_equal(cp.asnumpy(got), want, err_msg=f"{method} n={n}")
    base = cp.asarray(points(5, 100_001, ndim).astype(dtype))
    shifted = base[1:]  # 16-byte misaligned for 3-D rows of either dtype
    assert not dev._rows_ok(shifted, ndim) or ndim == 2
    got = alg.morton_keys(shifted, lower, upper, levels)
    np.testing.assert_array_equal(cp.asnumpy(got), alg.morton_keys(cp.asnumpy(shifted), lower,
                                                                   upper, levels))
    for row in (700, 100_000 - 3):
        bad_pts = cp.asnumpy(base).copy()
        bad_pts[row, ndim - 1] = np.inf if row % 2 else np.nan
        bad_pts[row + 2, 0] = np.nan
        for method in methods:
            _, first = dev.keys(cp.asarray(bad_pts), lower, scales, levels, method=method)
            assert first == row, method


def test_device_keys_strided_view_and_device_bounds(poisoned):
    cp = poisoned
    host = points(7, 50_000, 3)
    wide = cp.zeros((50_000, 5))
    wide[:, 1:4] = cp.asarray(host)
    view = wide[:, 1:4]
    got = alg.morton_keys(view, cp.asarray([0.0, 0.0, 0.0]), cp.asarray([1.0, 1.0, 1.0]), 12)
    np.testing.assert_array_equal(cp.asnumpy(got), alg.morton_keys(host, [0] * 3, [1] * 3, 12))
    rev = cp.asarray(host)[::-1]
    got = alg.morton_keys(rev, [0] * 3, [1] * 3, 12)
    np.testing.assert_array_equal(cp.asnumpy(got), alg.morton_keys(host[::-1], [0] * 3, [1] * 3, 12))


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_device_nonfinite_names_the_first_row(cp, bad):
    host = points(3, 200_000, 2)
    host[123_457, 1] = bad
    host[150_000, 0] = bad
    with pytest.raises(ValueError, match="NaN or infinite coordinate in row 123457 "):
        alg.morton_keys(cp.asarray(host), [0, 0], [1, 1], 8)


def test_mixed_backends_refused(cp):
    # the bounds are host parameters: NumPy bounds go with CuPy positions (2026-12-05),
    # CuPy bounds with NumPy positions are mixed backends
    pts = np.array([[0.1, 0.2], [0.9, 0.4]])
    got = alg.morton_keys(cp.asarray(pts), np.zeros(2), [1, 1], 3)
    np.testing.assert_array_equal(cp.asnumpy(got), alg.morton_keys(pts, [0, 0], [1, 1], 3))
    with pytest.raises(TypeError, match="morton_keys: arrays from different backends"):
        alg.morton_keys(pts, cp.zeros(2), [1, 1], 3)
    with pytest.raises(TypeError, match="sort_by_key: arrays from different backends"):
        alg.sort_by_key(cp.arange(3), np.arange(3))


def test_device_encode_decode_match_host(poisoned):
    cp = poisoned
    rng = np.random.default_rng(12)
    for ndim in (2, 3):
        top = 2 ** alg.MAX_MORTON_LEVELS[ndim] - 1
        cells = rng.integers(0, top, size=(30_001, ndim), endpoint=True, dtype=np.uint64)
        cells[:2] = [[top] * ndim, [0] * ndim]
        want = alg.morton_encode(*cells.T)
        got = alg.morton_encode(*[cp.asarray(c) for c in cells.T])
        np.testing.assert_array_equal(cp.asnumpy(got), want)
        back = alg.morton_decode(got, ndim)
        assert back.shape == (30_001, ndim)
        np.testing.assert_array_equal(cp.asnumpy(back), cells)
    with pytest.raises(ValueError, match="wider than the 21-bit"):
        alg.morton_encode(cp.asarray([1]), cp.asarray([2**21]), cp.asarray([0]))


# --------------------------------------------------------------------- sort
def check_sort(cp, keys_host, *values_host):
    """Public sort_by_key (the device radix sort) vs the host."""
    want = alg.sort_by_key(keys_host, *values_host)
    dev_keys = cp.asarray(keys_host)
    dev_vals = [cp.asarray(v) for v in values_host]
    for got in (alg.sort_by_key(dev_keys, *dev_vals),):
        assert len(got) == len(want)
        assert got[0].dtype == keys_host.dtype and got[1].dtype == cp.int64
        for g, w in zip(got, want):
            np.testing.assert_array_equal(cp.asnumpy(g), w)


@pytest.mark.parametrize("dtype", INT_DTYPES)
def test_device_sort_all_dtypes(poisoned, dtype):
    cp = poisoned
    info = np.iinfo(dtype)
    rng = np.random.default_rng(int(info.bits) + (info.min < 0))
    keys = rng.integers(info.min, info.max, size=70_001, endpoint=True, dtype=dtype)
    keys[:4] = [info.max, info.min, info.max, info.min]
    check_sort(cp, keys, rng.normal(size=70_001))


@pytest.mark.parametrize("n", [1, 2, 31, 4095, 4096, 4097, 65_537, (1 << 20) + 17])
def test_device_sort_is_stable_for_all_sizes(poisoned, n):
    cp = poisoned
    rng = np.random.default_rng(n)
    keys = rng.integers(0, max(2, n // 50), size=n).astype(np.uint64)  # many duplicates
    check_sort(cp, keys, np.arange(n, dtype=np.int64), rng.normal(size=(n, 3)).astype(np.float32))


def test_device_sort_key_shapes(poisoned):
    cp = poisoned
    rng = np.random.default_rng(99)
    n = 300_000
    cases = {
        "morton30": alg.morton_keys(rng.uniform(size=(n, 3)), [0] * 3, [1] * 3, 10),
        "morton63": alg.morton_keys(rng.uniform(size=(n, 3)), [0] * 3, [1] * 3, 21),
        "high_bits_only": rng.integers(0, 4, size=n).astype(np.uint64) << np.uint64(60),
        "all_equal": np.full(n, 12345, dtype=np.uint64),
        "random64": rng.integers(0, 2**64, size=n, dtype=np.uint64, endpoint=False),
        "signed_mixed": rng.integers(-(2**40), 2**40, size=n),
        "presorted": np.arange(n, dtype=np.uint64),
        "reversed": np.arange(n, dtype=np.int32)[::-1].copy(),
    }
    for name, keys in cases.items():
        check_sort(cp, keys, np.arange(n, dtype=np.int64))


def test_device_sort_strided_keys_and_empty(poisoned):
    cp = poisoned
    rng = np.random.default_rng(5)
    base = rng.integers(0, 1000, size=20_000).astype(np.int64)
    got = alg.sort_by_key(cp.asarray(base)[::2])
    want = alg.sort_by_key(base[::2])
    np.testing.assert_array_equal(cp.asnumpy(got[1]), want[1])
    empty = alg.sort_by_key(cp.zeros(0, dtype=cp.uint32), cp.zeros((0, 2)))
    assert [a.shape for a in empty] == [(0,), (0,), (0, 2)]


# --------------------------------------------------------------------- demo
def demo_json(capsys, *argv):
    from xstride.__main__ import main

    assert main(["demo", "--json", *argv]) == 0
    return json.loads(capsys.readouterr().out)


def same_results(a, b):
    for key in ("points", "ndim", "occupied_cells", "occupancy", "bounding_box", "checks", "tree"):
        assert a[key] == b[key], key


def test_demo_cupy_matches_numpy(cp, capsys):
    dev = demo_json(capsys, "--backend", "cupy", "--n", "300000", "--seed", "4")
    host = demo_json(capsys, "--backend", "numpy", "--n", "300000", "--seed", "4")
    assert dev["backend"] == "cupy" and all(dev["checks"].values())
    same_results(dev, host)


def test_demo_cupy_on_the_bunny(cp, capsys, shared_dir):
    path = str(shared_dir / "data" / "bunny.ply")
    dev = demo_json(capsys, "--backend", "cupy", "--points", path, "--levels", "12",
                    "--level-stats", "6")
    host = demo_json(capsys, "--backend", "numpy", "--points", path, "--levels", "12",
                     "--level-stats", "6")
    assert dev["points"] == 35947
    same_results(dev, host)
