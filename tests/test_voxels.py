"""voxel_downsample on the host: against an independent np.unique reference (random clouds
by Hypothesis, the bunny), the accuracy bound of its docstring, Morton order, bad input."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from xstride import algorithms as alg
from xstride.algorithms import MAX_MORTON_LEVELS

U = 2.0**-53


def reference(points, voxel_size, origin=None):
    """(centroids float64, counts, voxel index rows) by np.unique(return_inverse), in
    Morton order of the voxel indices counted from the lowest occupied voxel.

    Independent of xstride but for the bit interleaving, checked below by its own
    bit-by-bit reference."""
    p = np.asarray(points, dtype=np.float64)
    ndim = p.shape[1]
    lo = p.min(axis=0) if origin is None else np.asarray(origin, dtype=np.float64)
    size = np.broadcast_to(np.asarray(voxel_size, dtype=np.float64), (ndim,))
    vox = np.floor((p - lo) / size).astype(np.int64)
    uniq, inverse, counts = np.unique(vox, axis=0, return_inverse=True, return_counts=True)
    inverse = inverse.reshape(-1)
    sums = np.stack([np.bincount(inverse, weights=p[:, a], minlength=len(uniq))
                     for a in range(ndim)], axis=1)
    means = sums / counts[:, None]
    rel = uniq - uniq.min(axis=0)
    keys = np.array([bitwise_key(row) for row in rel], dtype=np.uint64)
    order = np.argsort(keys, kind="stable")
    # the bound's max|x| per voxel and axis
    absmax = np.zeros_like(means)
    np.maximum.at(absmax, inverse, np.abs(p))
    return means[order], counts[order], uniq[order], absmax[order]


def bitwise_key(cells) -> int:
    """Bit ndim*b + a of the key is bit b of cell a (DESIGN.md, written out bit by bit)."""
    ndim = len(cells)
    key = 0
    for b in range(64 // ndim):
        for a, c in enumerate(cells):
            key |= ((int(c) >> b) & 1) << (ndim * b + a)
    return key


def assert_within_bound(cent, counts, ref, dtype):
    means, ref_counts, _, absmax = ref
    np.testing.assert_array_equal(counts, ref_counts)
    assert cent.dtype == dtype and counts.dtype == np.int64
    m = counts[:, None].astype(np.float64)
    bound = (m + 1) * 2 * U * absmax
    if dtype != np.float64:
        bound = bound + np.spacing(np.abs(means).astype(dtype)).astype(np.float64)
    err = np.abs(cent.astype(np.float64) - means)
    assert (err <= bound).all(), float((err - bound).max())


def cloud(seed, n, ndim, scale=10.0):
    rng = np.random.default_rng(seed)
    pts = rng.normal(0.0, scale, size=(n, ndim))
    pts[: n // 4] = np.round(pts[: n // 4])  # points on voxel faces (integer voxel sizes)
    return pts


# --------------------------------------------------------------------- against the reference
@pytest.mark.parametrize("ndim", [2, 3])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16])
@pytest.mark.parametrize("size", [0.5, 1.0, 3.0])
def test_equals_unique_reference(ndim, dtype, size):
    pts = cloud(ndim, 20_000, ndim).astype(dtype)
    cent, counts = alg.voxel_downsample(pts, size)
    assert counts.sum() == len(pts) and len(counts) > 100
    assert_within_bound(cent, counts, reference(pts, size), dtype)


@settings(max_examples=60, deadline=None)
@given(ndim=st.sampled_from([2, 3]), n=st.integers(1, 400), seed=st.integers(0, 2**32 - 1),
       size=st.floats(0.01, 50.0), spread=st.floats(0.0, 1e3),
       offset=st.floats(-1e6, 1e6), per_axis=st.booleans(), with_origin=st.booleans())
def test_random_clouds_equal_the_reference(ndim, n, seed, size, spread, offset, per_axis,
                                           with_origin):
    rng = np.random.default_rng(seed)
    pts = offset + spread * rng.standard_normal((n, ndim))
    pts[rng.integers(0, n, n // 3)] = pts[0]  # duplicates
    vs = size * rng.uniform(0.5, 2.0, ndim) if per_axis else size
    origin = (pts.min(axis=0) - rng.uniform(0, 3 * size, ndim)).tolist() if with_origin else None
    cent, counts = alg.voxel_downsample(pts, vs, origin=origin)
    assert_within_bound(cent, counts, reference(pts, vs, origin), np.float64)


def test_points_below_the_origin_count_from_the_lowest_voxel():
    pts = np.array([[-2.5, 0.0], [0.5, 0.5], [-2.4, 0.2], [1.5, -1.5]])
    cent, counts = alg.voxel_downsample(pts, 1.0, origin=(0.0, 0.0))
    ref = reference(pts, 1.0, (0.0, 0.0))
    assert_within_bound(cent, counts, ref, np.float64)
    # relative voxels (0, 2) (3, 2) (4, 0): keys 8, 13, 16
    assert ref[2].tolist() == [[-3, 0], [0, 0], [1, -2]]
    assert counts.tolist() == [2, 1, 1]


def test_an_origin_far_below_the_points_still_counts_from_the_lowest_voxel():
    # voxels 10 and 11 on x (origin -10): counted from the lowest occupied voxel they are
    # 0 and 1, so (1, 0) comes before (0, 1); counted from the origin (10, 0) would come
    # after (11, 0)... and (10, 1) before it. The docs state the first.
    pts = np.array([[0.5, 1.5], [1.5, 0.5], [0.5, 0.5]])
    cent, counts = alg.voxel_downsample(pts, 1.0, origin=[-10.0, 0.0])
    assert cent.tolist() == [[0.5, 0.5], [1.5, 0.5], [0.5, 1.5]]
    assert counts.tolist() == [1, 1, 1]
    ref = reference(pts, 1.0, [-10.0, 0.0])
    assert_within_bound(cent, counts, ref, np.float64)


def test_floor_before_counting_from_the_lowest_voxel():
    # q = -1e-10 is voxel -1; counted from -2**31 that is 2**31 - 1, which q + 2**31
    # would round up to 2**31 (the voxel of 0.0)
    pts = np.array([[-2.0**31, 0.0], [-1e-10, 0.0], [0.0, 0.0]])
    cent, counts = alg.voxel_downsample(pts, 1.0, origin=[0.0, 0.0])
    assert counts.tolist() == [1, 1, 1]
    assert cent[:, 0].tolist() == [-2.0**31, -1e-10, 0.0]
    assert_within_bound(cent, counts, reference(pts, 1.0, [0.0, 0.0]), np.float64)


def test_morton_order_and_the_worked_example():
    # four 2-D voxels (0,0) (1,0) (0,1) (1,1): Morton order is exactly that
    pts = np.array([[1.5, 1.5], [0.2, 1.2], [1.1, 0.1], [0.5, 0.5], [0.7, 0.3]])
    cent, counts = alg.voxel_downsample(pts, 1.0, origin=[0, 0])
    np.testing.assert_allclose(cent, [[0.6, 0.4], [1.1, 0.1], [0.2, 1.2], [1.5, 1.5]])
    assert counts.tolist() == [2, 1, 1, 1]


def test_bitwise_key_matches_morton_encode():
    cells = np.random.default_rng(1).integers(0, 2**21, size=(200, 3))
    keys = alg.morton_encode(cells[:, 0], cells[:, 1], cells[:, 2])
    assert keys.tolist() == [bitwise_key(c) for c in cells]


def test_bunny(shared_dir):
    from xstride._cli.pointio import read_points

    pts = read_points(shared_dir / "data" / "bunny.ply")
    for size in (0.002, 0.01, 0.05):
        cent, counts = alg.voxel_downsample(pts, size)
        assert_within_bound(cent, counts, reference(pts, size), pts.dtype)
        assert 1 < len(counts) < len(pts)


def test_deterministic_run_to_run():
    pts = cloud(7, 50_000, 3)
    a = alg.voxel_downsample(pts, 0.7)
    b = alg.voxel_downsample(pts, 0.7)
    assert a[0].tobytes() == b[0].tobytes() and a[1].tobytes() == b[1].tobytes()


def test_strided_and_transposed_points():
    base = cloud(3, 4000, 3)
    view = np.asfortranarray(base)[::2]
    cent, counts = alg.voxel_downsample(view, 2.0)
    assert_within_bound(cent, counts, reference(view, 2.0), np.float64)


def test_empty_single_and_lists():
    cent, counts = alg.voxel_downsample(np.empty((0, 3)), 1.0)
    assert cent.shape == (0, 3) and counts.shape == (0,) and counts.dtype == np.int64
    cent, counts = alg.voxel_downsample([[1.0, 2.0]], 0.5)
    assert cent.tolist() == [[1.0, 2.0]] and counts.tolist() == [1]


def test_widest_span_that_fits_and_one_more():
    top = MAX_MORTON_LEVELS[3]
    pts = np.array([[0.0, 0.0, 0.0], [2.0**top - 1, 5.0, 0.0]])
    cent, counts = alg.voxel_downsample(pts, 1.0)
    assert counts.tolist() == [1, 1]
    pts[1, 0] = 2.0**top
    with pytest.raises(ValueError, match=r"voxel_size.*2,097,153 voxels on axis 0.*larger"):
        alg.voxel_downsample(pts, 1.0)
    with pytest.raises(ValueError, match=r"voxel_size.*too many voxels on axis 1"):
        alg.voxel_downsample(np.array([[0.0, 0.0], [0.0, 1e300]]), 1e-300)
    # the size as it reads back (was 6 digits: 4.76837e-07 for this one and for the
    # 4.76836930829558e-07 that fails too, so neither could be told from the other)
    with pytest.raises(ValueError, match=r"voxel size 4\.76836930829558e-07\)"):
        alg.voxel_downsample(np.array([[0.0, 0.0, 0.0], [1.0, 1.0, 1.0]]),
                             4.76836930829558e-07)
    # 2-D keys hold 32 bits per axis
    assert alg.voxel_downsample(np.array([[0.0, 0.0], [2.0**32 - 1, 0.0]]), 1.0)[1].size == 2
    # an origin far below the points: the message names it as a way out too
    with pytest.raises(ValueError, match="larger voxel_size or an origin nearer the points"):
        alg.voxel_downsample(np.zeros((4, 3)), 0.5, origin=[-1e308, 0.0, 0.0])


def test_voxel_size_past_float64_is_named_shortly():
    with pytest.raises(ValueError, match=r"must be finite; 100000000000\.\.\. \(401 "
                                         r"characters\) does not fit a float64"):
        alg.voxel_downsample(np.zeros((4, 3)), 10**400)


# --------------------------------------------------------------------- bad input
@pytest.mark.parametrize("size", [0.0, -1.0, np.inf, np.nan, [1.0, 0.0, 1.0], [1.0, -np.inf, 1.0]])
def test_voxel_size_not_positive_or_not_finite(size):
    with pytest.raises(ValueError, match="'voxel_size' must be (positive|finite)"):
        alg.voxel_downsample(np.zeros((4, 3)), size)


@pytest.mark.parametrize("size", ["1", None, True, 1 + 2j, [True, 1, 1], object()])
def test_voxel_size_not_a_real_number(size):
    with pytest.raises(TypeError, match="'voxel_size'"):
        alg.voxel_downsample(np.zeros((4, 3)), size)


@pytest.mark.parametrize("size", [[1.0, 1.0], [[1.0, 1.0, 1.0]], []])
def test_voxel_size_of_the_wrong_length(size):
    with pytest.raises(ValueError, match="'voxel_size' must be one number or 3"):
        alg.voxel_downsample(np.zeros((4, 3)), size)


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.uint8, np.bool_, np.complex128])
def test_points_not_float(dtype):
    with pytest.raises(TypeError, match="'points'.*floating dtype"):
        alg.voxel_downsample(np.zeros((4, 3), dtype=dtype), 1.0)


@pytest.mark.skipif(np.dtype(np.longdouble).itemsize <= 8,
                    reason="long double is float64 on this platform")
@pytest.mark.parametrize("dtype", [np.longdouble, np.dtype(np.longdouble).newbyteorder()])
def test_points_long_double_refused(dtype):
    # were carried as float32: [1 + 2**-40, 1 + 3 * 2**-40] averaged to 1.0
    pts = np.array([[1 + 2**-40, 0.0], [1 + 3 * 2**-40, 0.0]], dtype=dtype)
    with pytest.raises(TypeError, match="'points'.*float16, float32 or float64"):
        alg.voxel_downsample(pts, 10.0)


@pytest.mark.parametrize("shape", [(4,), (4, 1), (4, 4), (2, 3, 3), ()])
def test_points_of_the_wrong_shape(shape):
    with pytest.raises(ValueError, match=r"'points' must have shape \(n, 2\) or \(n, 3\)"):
        alg.voxel_downsample(np.zeros(shape), 1.0)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_points_not_finite_name_the_row(bad):
    pts = np.zeros((10, 3))
    pts[6, 2] = bad
    with pytest.raises(ValueError, match="'points' has a NaN or infinite coordinate in row 6"):
        alg.voxel_downsample(pts, 1.0)


@pytest.mark.parametrize("origin, cls, match", [
    ([0.0, 0.0], ValueError, "'origin' must have 3 entries"),
    ([0.0, np.nan, 0.0], ValueError, "'origin' must be finite"),
    ("abc", TypeError, "'origin'"),
    (1.0, TypeError, "'origin'"),
    ([0, 1j, 0], TypeError, "'origin'"),
    ([True, 0, 0], TypeError, "'origin'"),          # NumPy reads [True, 0, 0] as ints
    ((0.0, np.True_, 0.0), TypeError, "'origin'"),
])
def test_bad_origin(origin, cls, match):
    with pytest.raises(cls, match=match):
        alg.voxel_downsample(np.zeros((4, 3)), 1.0, origin=origin)


@pytest.mark.parametrize("ndim", [2, 3])
@pytest.mark.parametrize("origin, cls, said", [
    (1.0, TypeError, "expected a sequence of {} real numbers, one per axis"),
    ([0, 1j, 0], TypeError, "expected a sequence of {} real numbers$"),
    ([[0.0, 0.0, 0.0]], ValueError, "must be a sequence of {} numbers; got shape"),
])
def test_bad_origin_asks_for_one_number_per_axis_of_the_points(ndim, origin, cls, said):
    # the messages said "2 or 3" numbers where the points' dimension was known
    with pytest.raises(cls, match=said.format(ndim)):
        alg.voxel_downsample(np.zeros((4, ndim)), 1.0, origin=origin)


def test_mixed_backends_name_the_arguments(fake_cupy):
    dev = fake_cupy.asarray(np.ones(3))
    with pytest.raises(TypeError, match="different backends.*points is numpy.*origin is"):
        alg.voxel_downsample(np.zeros((4, 3)), 1.0, origin=dev)
    with pytest.raises(TypeError, match="different backends.*voxel_size is"):
        alg.voxel_downsample(np.zeros((4, 3)), dev)


def test_dask_points_say_what_to_do():
    da = pytest.importorskip("dask.array")
    with pytest.raises(NotImplementedError, match="voxel_downsample: not available.*compute"):
        alg.voxel_downsample(da.zeros((4, 3), chunks=2), 1.0)
    import xstride as xp

    with xp.use_backend("dask", chunk_backend="numpy"):   # a list is no array to compute
        with pytest.raises(NotImplementedError, match=r"voxel_downsample: not available on "
                                                      r"the dask backend; lists and tuples are taken as arrays of the active backend \(dask\): pass NumPy or CuPy arrays"):
            alg.voxel_downsample([[0.1, 0.2, 0.3], [0.15, 0.2, 0.3]], 0.5)


@pytest.mark.parametrize("shape, voxel_size, origin", [
    ((4,), 1.0, None), ((4, 5), 1.0, None), ((4, 3), -1.0, None), ((4, 3), [1.0, 2.0], None),
    ((4, 3), "1", None), ((4, 3), 1.0, [0.0, 0.0]), ((4, 3), 1.0, [np.inf] * 3),
])
def test_dask_points_are_refused_before_the_other_arguments(shape, voxel_size, origin):
    """The refusal of dask points is the one error, before the points' shape, the voxel
    size and the origin are checked (as for ``morton_tree`` and the segment functions)."""
    da = pytest.importorskip("dask.array")
    with pytest.raises(NotImplementedError, match=r"^voxel_downsample: not available on the "
                                                  r"dask backend; compute the points first"):
        alg.voxel_downsample(da.zeros(shape), voxel_size, origin=origin)


def test_dask_refusal_comes_before_the_conversion_of_a_list():
    """A list of points while dask is active is refused as such, also under a per-axis
    chunks option that does not fit its rank (it was that option's ValueError, naming
    ``asarray``: the list was made a dask array before the refusal), and a dask array
    of ints is refused as dask, not for its dtype."""
    da = pytest.importorskip("dask.array")
    import xstride as xp

    with xp.use_backend("dask", chunks=(2,)):
        with pytest.raises(NotImplementedError, match=r"voxel_downsample: not available on "
                                                      r"the dask backend; lists and tuples"):
            alg.voxel_downsample([[0.1, 0.2, 0.3], [0.15, 0.2, 0.3]], 0.5)
    with pytest.raises(NotImplementedError, match="voxel_downsample: not available.*compute"):
        alg.voxel_downsample(da.zeros((4, 3), dtype=np.int64, chunks=2), 1.0)


@pytest.mark.parametrize("dtype", [">f8", ">f4", "<f8"])
def test_non_native_byte_order_keeps_the_precision(dtype):
    """Big-endian points (FITS, HDF5) carry their own width: float64 centroids are not
    rounded through float32; the result keeps the points' dtype."""
    p = np.array([[0.1, 0.2], [0.9, 0.9], [0.3, 0.7]])
    got, counts = alg.voxel_downsample(p.astype(dtype), 0.5)
    want, want_counts = alg.voxel_downsample(p.astype(np.dtype(dtype).newbyteorder("=")), 0.5)
    assert got.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(counts, want_counts)
    if np.dtype(dtype).itemsize == 8:
        np.testing.assert_array_equal(got[0], [0.2, (0.2 + 0.7) / 2])


def test_origin_past_float64_is_named_shortly():
    """As voxel_size: an int of 400 digits is named by its first digits and its length,
    also inside a sequence (the origin, morton_keys' bounds)."""
    with pytest.raises(ValueError, match=r"'origin' must be finite; \[10000000000\.\.\. "
                                         r"\(\d+ characters\) does not fit a float64$"):
        alg.voxel_downsample(np.zeros((4, 2)), 1.0, origin=[10**400, 0])
    with pytest.raises(ValueError, match=r"'upper' must be finite; .{12}\.\.\. \(\d+ "
                                         r"characters\) does not fit a float64$"):
        alg.morton_keys(np.zeros((1, 2)), [0, 0], (1, -(10**400)), 4)


def test_coordinates_less_the_origin_past_float64_are_named():
    """A new-user probe: points from -1e308 to 1e308 (their difference overflows to
    inf) were refused as "too many voxels ... choose a larger voxel_size", which no
    voxel size fixes; the message now says what overflows, naming points or origin."""
    pts = np.array([[1e308, 0.0], [-1e308, 0.0]])
    with pytest.raises(ValueError, match=r"^voxel_downsample: argument 'points' spans more "
                                         r"than float64 holds: .* on axis 0 \(points "
                                         r"-1e\+308 to 1e\+308, origin -1e\+308\)"):
        alg.voxel_downsample(pts, 1e308)
    with pytest.raises(ValueError, match=r"^voxel_downsample: argument 'origin' is too far "
                                         r"from the points: .* on axis 0"):
        alg.voxel_downsample(pts[:1], 1.0, origin=[-1e308, 0.0])
    _, counts = alg.voxel_downsample(pts / 4, 1e308)   # no overflow: one voxel of both
    assert counts.tolist() == [2]


@pytest.mark.parametrize("points", ["abc", [[1, 2]], [["a", "b"]]])
def test_points_not_an_array_of_floats_named_as_given(points):
    """A str or a list of ints or strs is named as the caller passed it (the message
    described the array it became, a 0-d str array for "abc")."""
    with pytest.raises(TypeError, match=rf"^voxel_downsample: argument 'points' got "
                                        rf"{type(points).__name__} .*floating dtype .*"
                                        r"\(as an array it has dtype"):
        alg.voxel_downsample(points, 1.0)


def test_bools_in_a_list_of_points_are_refused():
    """[[True, 0.5]] was read as [[1.0, 0.5]], where bools in a list of origins are
    refused."""
    with pytest.raises(TypeError, match=r"^voxel_downsample: argument 'points' got list .*bool"):
        alg.voxel_downsample([[True, 0.5], [0.25, 0.5]], 1.0)


def test_centroids_of_points_near_the_float64_limit_are_finite():
    # two points of one voxel whose float64 sum passes 1.8e308: the mean is finite
    pts = np.array([[1.7e308, 0.0], [1.75e308, 0.0], [1e-310, 1.0], [3e-310, 1.0]])
    with warnings.catch_warnings():   # and NumPy's overflow warning does not leak
        warnings.simplefilter("error")
        cent, counts = alg.voxel_downsample(pts, 1e308)
    np.testing.assert_array_equal(counts, [2, 2])
    np.testing.assert_array_equal(cent, [[2e-310, 1.0], [1.725e308, 0.0]])
    # the same bits as the unscaled sum where that does not overflow
    ref = alg.voxel_downsample(pts / 4, 1e308 / 4)[0]
    np.testing.assert_array_equal(cent[1], ref[1] * 4)
    # three points at the limit, and below the origin
    pts = np.array([[-1.79e308, 1.79e308, 0.0]] * 3)
    cent, counts = alg.voxel_downsample(pts, 1.0, origin=[-1.79e308, 1.79e308, 0.0])
    np.testing.assert_array_equal(cent, pts[:1])
    np.testing.assert_array_equal(counts, [3])


@pytest.mark.parametrize("ndim", [2, 3])
def test_host_voxel_keys_are_the_bits_of_the_cells(ndim):
    """The host's voxel keys (which interleave through the Morton module's shared step)
    against a bit-by-bit reference: bit ndim*b + a of a key is bit b of the cell on axis
    a, over more than one 65536-row block, a zero and a non-zero vmin."""
    from xstride._host.segments import voxel_keys

    rng = np.random.default_rng(5)
    pts = rng.uniform(-3.0, 40.0, size=(70_000, ndim))
    size = np.array([0.7, 0.3, 1.1][:ndim])
    for origin in (pts.min(axis=0), pts.min(axis=0) - 10.0):
        vmin = np.floor((pts.min(axis=0) - origin) / size)
        keys = voxel_keys(pts, origin, size, vmin)
        assert keys.dtype == np.uint64 and keys.shape == (70_000,)
        for i in (0, 1, 65535, 65536, 69_999):
            cells = [int(np.floor((pts[i, a] - origin[a]) / size[a]) - vmin[a])
                     for a in range(ndim)]
            want = 0
            for b in range(21):
                for a, c in enumerate(cells):
                    want |= ((c >> b) & 1) << (ndim * b + a)
            assert int(keys[i]) == want


@pytest.mark.parametrize("size, shown", [(0.0, "got 0.0"), (-2, "got -2.0"),
                                         ([1.0, 0.0, 1.0], r"got \[1.0, 0.0, 1.0\]")])
def test_a_bad_voxel_size_is_shown_as_given(size, shown):
    """A docs probe: a scalar 0.0 was reported as "got [0.0, 0.0, 0.0]"."""
    pts = np.zeros((4, 3))
    with pytest.raises(ValueError, match=f"'voxel_size' must be positive; {shown}$"):
        alg.voxel_downsample(pts, size)
