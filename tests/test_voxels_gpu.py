"""voxel_downsample and morton_tree on CuPy: equal to the NumPy backend (integers bit for
bit, centroids within the bound of the docstring), deterministic, bad input on the device."""

from __future__ import annotations

import numpy as np
import pytest

from xstride import algorithms as alg

from .test_voxels import assert_within_bound, reference

pytestmark = pytest.mark.gpu


def cloud(seed, n, ndim):
    rng = np.random.default_rng(seed)
    pts = rng.normal(0.0, 10.0, size=(n, ndim))
    pts[: n // 4] = np.round(pts[: n // 4])
    return pts


@pytest.mark.parametrize("ndim", [2, 3])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("size", [0.25, 2.0])
def test_voxels_equal_the_numpy_backend(cp, ndim, dtype, size):
    pts = cloud(ndim, 100_003, ndim).astype(dtype)
    c_host, n_host = alg.voxel_downsample(pts, size)
    c_dev, n_dev = alg.voxel_downsample(cp.asarray(pts), size)
    assert isinstance(c_dev, cp.ndarray) and c_dev.dtype == dtype and n_dev.dtype == np.int64
    np.testing.assert_array_equal(n_dev.get(), n_host)
    # the bound of the docstring, against the independent reference of the host tests
    assert_within_bound(c_dev.get(), n_dev.get(), reference(pts, size), dtype)
    assert_within_bound(c_host, n_host, reference(pts, size), dtype)


def test_voxels_deterministic_and_origin(cp):
    pts = cp.asarray(cloud(5, 200_000, 3))
    a = alg.voxel_downsample(pts, 0.5, origin=(-100.0, -3.0, 0.0))
    b = alg.voxel_downsample(pts, 0.5, origin=(-100.0, -3.0, 0.0))
    assert cp.array_equal(a[0], b[0]) and cp.array_equal(a[1], b[1])
    h = alg.voxel_downsample(pts.get(), 0.5, origin=(-100.0, -3.0, 0.0))
    np.testing.assert_array_equal(a[1].get(), h[1])


def test_voxel_bad_input_on_the_device(cp):
    pts = cp.zeros((10, 3))
    pts[7, 1] = cp.nan
    with pytest.raises(ValueError, match="'points' has a NaN or infinite coordinate in row 7"):
        alg.voxel_downsample(pts, 1.0)
    with pytest.raises(TypeError, match="different backends.*points is cupy.*origin is numpy"):
        alg.voxel_downsample(cp.zeros((4, 3)), 1.0, origin=np.zeros(3))
    with pytest.raises(TypeError, match="'points'.*floating"):
        alg.voxel_downsample(cp.zeros((4, 3), dtype=cp.int32), 1.0)
    with pytest.raises(ValueError, match="'voxel_size' must be positive"):
        alg.voxel_downsample(cp.zeros((4, 3)), cp.asarray(-1.0))


@pytest.mark.parametrize("ndim, levels", [(2, 12), (3, 10), (3, 21), (2, 32)])
def test_tree_equals_the_numpy_backend(cp, ndim, levels):
    rng = np.random.default_rng(levels)
    pts = rng.uniform(0, 1, size=(200_003, ndim))
    keys = alg.sort_by_key(alg.morton_keys(pts, [0] * ndim, [1] * ndim, levels))[0]
    host = alg.morton_tree(keys, ndim, levels)
    dev = alg.morton_tree(cp.asarray(keys), ndim, levels)
    assert dev.n_points == host.n_points
    for name in ("keys", "first", "count", "parent"):
        for level in range(levels + 1):
            d, h = getattr(dev, name)[level], getattr(host, name)[level]
            assert isinstance(d, cp.ndarray) and d.dtype == h.dtype
            np.testing.assert_array_equal(d.get(), h)


def test_tree_unsorted_keys_on_the_device(cp):
    keys = cp.arange(100_000, dtype=cp.uint64)
    keys[70_001] = 3
    with pytest.raises(ValueError, match=r"not sorted: sorted_keys\[70001\] = 3"):
        alg.morton_tree(keys, 3, 10)
    with pytest.raises(ValueError, match="wider than the 30 bits"):
        alg.morton_tree(cp.asarray([0, 2**30], dtype=cp.uint64), 3, 10)


def test_demo_voxel_and_tree_on_cupy_equal_numpy(cp, capsys, shared_dir, tmp_path):
    import json

    import plyfile

    from xstride.__main__ import main

    path = str(shared_dir / "data" / "bunny.ply")
    res = {}
    for backend in ("cupy", "numpy"):
        out = tmp_path / f"{backend}.ply"
        assert main(["demo", "--json", "--backend", backend, "--points", path, "--levels", "12",
                     "--voxel", "0.003", "--out", str(out)]) == 0
        res[backend] = json.loads(capsys.readouterr().out)
    assert res["cupy"]["tree"] == res["numpy"]["tree"]
    assert res["cupy"]["voxel"] == res["numpy"]["voxel"]
    dev = plyfile.PlyData.read(str(tmp_path / "cupy.ply"))["vertex"]
    host = plyfile.PlyData.read(str(tmp_path / "numpy.ply"))["vertex"]
    assert dev["count"].tolist() == host["count"].tolist()
    for axis in "xyz":
        np.testing.assert_allclose(dev[axis], host[axis], rtol=0, atol=1e-12)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_voxels_of_strided_points_equal_the_numpy_backend(cp, dtype):
    """The bounds and key passes read any strides (a reversed, every-other-column
    view) and every float dtype; the counts equal the host's exactly."""
    wide = cloud(11, 2 * 50_001, 3).reshape(50_001, 6).astype(dtype)
    pts = wide[::-1, ::2]
    c_host, n_host = alg.voxel_downsample(pts, 1.5)
    c_dev, n_dev = alg.voxel_downsample(cp.asarray(wide)[::-1, ::2], 1.5)
    np.testing.assert_array_equal(n_dev.get(), n_host)
    assert_within_bound(c_dev.get(), n_dev.get(), reference(pts, 1.5), dtype)


def test_voxel_bounds_pass_skips_non_finite_rows(cp):
    """The device bounds pass names the first non-finite row and takes the extremes over
    the finite rows, as the host executor does."""
    from xstride._host import segments as hs
    from xstride._kernels import segments as ks

    pts = cloud(12, 300_000, 3)
    pts[123_456, 2] = np.inf
    pts[200_000, 0] = np.nan
    pts[5, 1] = -1e300
    lo, hi, row = ks.voxel_bounds(cp.asarray(pts))
    assert row == hs.voxel_bounds(pts)[2] == 123_456
    finite = np.isfinite(pts).all(axis=1)
    np.testing.assert_array_equal(lo, pts[finite].min(axis=0))
    np.testing.assert_array_equal(hi, pts[finite].max(axis=0))
    with pytest.raises(ValueError, match="row 123456"):
        alg.voxel_downsample(cp.asarray(pts), 1.0)


def test_centroids_near_the_float64_limit_on_the_device(cp):
    """The re-sum of overflowing voxels with scaled points (``xm.where``, ``xm.isfinite``
    and the scaled mean through the segments executor, on CuPy arrays): finite
    centroids equal to the NumPy backend's, for a voxel of the thread walk and one of
    the long walk (more than 4096 rows: chunks and their combine overflow)."""
    rng = np.random.default_rng(3)
    big = np.column_stack([rng.uniform(1.6e308, 1.79e308, 9000), np.zeros(9000)])
    small = np.array([[1e-310, 1.0], [3e-310, 1.0], [1.7e308, 0.0], [1.75e308, 0.0]])
    for pts in (small, np.concatenate([small, big])):
        c_host, n_host = alg.voxel_downsample(pts, 1e308)
        c_dev, n_dev = alg.voxel_downsample(cp.asarray(pts), 1e308)
        assert bool(cp.isfinite(c_dev).all()) and np.isfinite(c_host).all()
        np.testing.assert_array_equal(n_dev.get(), n_host)
        # host and device sums of m rows: within 2 (m - 1) u sum|x| (the docstring's
        # bound), here over the mean and with the largest |x| for every row
        bound = (n_host[:, None] + 1) * 2 * 2.0**-53 * np.abs(pts).max()
        assert (np.abs(c_dev.get() - c_host) <= bound).all()
