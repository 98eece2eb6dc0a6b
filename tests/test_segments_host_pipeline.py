"""The segment functions' CUDA kernels run on the host, end to end: every launch the
CuPy executor makes on the stand-in CuPy (tests/conftest.py) is carried out by the
kernel's own source (``segments.cu``, ``compaction.cu``) compiled by g++
with the host stand-ins of ``host_cuda/`` (a block's threads as threads, each warp's
lanes at a barrier of their own for shuffles and ballots, the blocks one after
another), not by a model. The results are compared with the NumPy backend's:
``segment_reduce`` on each walk, ``run_length_encode``, ``reduce_by_key``,
``bin_offsets``, ``compact``, and the errors found on the device. (``voxel_downsample``
sorts with the radix sort, whose kernels are not built here.)
This checks the kernels' index arithmetic and the launcher together without a GPU;
timing, memory ordering between blocks that run at once, and the PTX paths (``cp.async``)
are the GPU tests' (tests/test_segments_gpu.py, tests/test_voxels_gpu.py)."""

from __future__ import annotations

import numpy as np
import pytest

from tests._host_kernels import CXX, HostLaunches, build_dir, launch_table
from tests.test_segments_gpu import assert_close, values_of
from tests.test_segments_launch import segments_device
from tests.test_segments_nvrtc import every_compaction_name
from xstride import algorithms as alg
from xstride._kernels import segments as ks
from xstride._plans.segments import accumulator, result_dtype

pytestmark = pytest.mark.skipif(CXX is None, reason="g++ (C++20) is not on PATH")

#: (value dtype, op) of the reductions built here (each a family of three kernels)
REDUCTIONS = [("float32", "sum"), ("float64", "mean"), ("int64", "sum"), ("uint8", "max"),
              ("int16", "min"), ("int32", "mean"), ("float32", "prod")]


def _reduction_names() -> list:
    names = []
    for dtype, op in REDUCTIONS:
        for tile in {False, np.dtype(dtype).itemsize in (4, 8)}:   # the warp walk's two forms
            names += ks.reduce_kernels(dtype, op, result_dtype(op, dtype), accumulator(op, dtype),
                                       tile)
    return names + [ks._OFFSETS_STATS]


@pytest.fixture(scope="module")
def kernels(tmp_path_factory):
    """name expression -> the host entry that runs it on 64-bit argument words."""
    build = build_dir(tmp_path_factory, "segments_pipeline")
    return {**launch_table(build, "segments.cu", _reduction_names()),
            **launch_table(build, "compaction.cu", every_compaction_name())}


@pytest.fixture
def dev(fake_cupy, monkeypatch, kernels):
    yield from segments_device(fake_cupy, monkeypatch, HostLaunches(kernels))


def _names(fake) -> set:
    return {k.name.partition("<")[0] for k, *_ in fake.launches}


@pytest.mark.parametrize("dtype, op", REDUCTIONS)
@pytest.mark.parametrize("k", [None, 3, 33])
@pytest.mark.parametrize("mean_len, long", [(6, 0), (300, 0), (20, 9000)])
def test_segment_reduce_on_the_host_kernels(dev, dtype, op, k, mean_len, long):
    """Short segments (the thread walk), long ones (the warp walk), and one past 4096
    rows among short ones (the long walk over chunks and their combine)."""
    rng = np.random.default_rng(len(dtype) + (k or 0) + mean_len)
    lens = rng.poisson(mean_len, size=25)
    if op in ("min", "max", "mean") and dtype.startswith(("int", "uint")):
        lens = np.maximum(lens, 1)
    if long:
        lens[7] = long
    offs = np.concatenate([[0], np.cumsum(lens)]).astype(np.int64)
    vals = values_of(rng, dtype, int(offs[-1]), k)
    want = alg.segment_reduce(vals, offs, op)
    got = alg.segment_reduce(dev.asarray(vals), dev.asarray(offs), op)
    assert_close(op, vals, offs, got.get(), want)
    walks = _names(dev)
    assert "xs_seg_thread" in walks or "xs_seg_warp" in walks
    if long:
        assert {"xs_seg_warp", "xs_seg_combine"} <= walks


@pytest.mark.parametrize("key_dtype", ["int8", "uint16", "int32", "int64", "uint64"])
@pytest.mark.parametrize("n, top", [(1, 3), (5000, 7), (20000, 5000), (9000, 3)])
def test_runs_and_reduce_by_key_on_the_host_kernels(dev, key_dtype, n, top):
    rng = np.random.default_rng(n + top)
    keys = np.sort(rng.integers(0, top, size=n).astype(key_dtype))
    u, c = alg.run_length_encode(dev.asarray(keys))
    hu, hc = alg.run_length_encode(keys)
    np.testing.assert_array_equal(u.get(), hu)
    np.testing.assert_array_equal(c.get(), hc)
    vals = rng.normal(size=(n, 3)).astype(np.float32)
    ku, red = alg.reduce_by_key(dev.asarray(keys), dev.asarray(vals))
    hku, hred = alg.reduce_by_key(keys, vals)
    np.testing.assert_array_equal(ku.get(), hku)
    offs = np.concatenate([[0], np.cumsum(hc)])
    assert_close("sum", vals, offs, red.get(), hred)


@pytest.mark.parametrize("key_dtype", ["int16", "uint64"])
@pytest.mark.parametrize("lens", [
    [100, 3839, 200],             # a run of 3839 rows: no multiple of 256 sees 3840 on
    [256, 3841, 10, 4096],        # runs from a multiple of 256: 3841 and 4096 rows
    [4000, 4097, 3000, 77],       # a run of 4097 across a tile's edge
    [300] * 30 + [4100],          # the one run past 4096 is the last: i + 3840 < n decides
    [300] * 40 + [257],           # longer than 256, none near 3840
    [256] * 50,                   # exactly 256: neither test
])
def test_run_length_tests_of_the_count_pass_on_the_host_kernels(dev, key_dtype, lens):
    """The count pass's two run tests on the kernel itself: some ``keys[i] ==
    keys[i + 256]`` (a run longer than 256), and some multiple ``i`` of 256 with
    ``keys[i] == keys[i + 3840]`` (every run longer than 4096 has one; the loads of
    ``keys[i + 3840]``, one a thread of the first 16, are issued beside the tile's
    copies), both only where ``i + L < n``; ``runs`` turns them into its bound of the
    longest run, which picks the walks of ``reduce_by_key``."""
    from xstride._plans.segments import longest_bound
    keys = np.repeat(np.arange(len(lens)) * 3, lens).astype(key_dtype)
    n = keys.size
    over1 = bool((keys[256:] == keys[:-256]).any()) if n > 256 else False
    i = np.arange(0, max(n - 3840, 0), 256)
    over2 = bool((keys[i] == keys[i + 3840]).any())
    bad, offsets, unique, longest = ks.runs(dev.asarray(keys), True)
    assert bad == -1 and longest == longest_bound((over1, over2)), (longest, over1, over2)
    np.testing.assert_array_equal(offsets.get(), np.concatenate([[0], np.cumsum(lens)]))
    vals = np.random.default_rng(len(lens)).normal(size=(n, 2)).astype(np.float32)
    ku, red = alg.reduce_by_key(dev.asarray(keys), dev.asarray(vals))
    hku, hred = alg.reduce_by_key(keys, vals)
    np.testing.assert_array_equal(ku.get(), hku)
    assert_close("sum", vals, offsets.get(), red.get(), hred)


@pytest.mark.parametrize("n, n_bins", [(1, 1), (3000, 5), (20000, 70000), (12000, 3)])
def test_bin_offsets_on_the_host_kernels(dev, n, n_bins):
    bins = np.sort(np.random.default_rng(n).integers(0, n_bins, size=n)).astype(np.int64)
    got = alg.bin_offsets(dev.asarray(bins), n_bins)
    np.testing.assert_array_equal(got.get(), alg.bin_offsets(bins, n_bins))


@pytest.mark.parametrize("n, density", [(1, 1.0), (5000, 0.5), (20000, 0.03), (9000, 0.97),
                                        (4096, 0.0)])
def test_compact_on_the_host_kernels(dev, n, density):
    rng = np.random.default_rng(n)
    mask = rng.random(n) < density
    arrays = [rng.normal(size=(n, 3)).astype(np.float32), np.arange(n, dtype=np.int64),
              rng.integers(0, 255, size=(n, 5), dtype=np.uint8),
              rng.normal(size=n).astype(np.float64)]
    got = alg.compact(dev.asarray(mask), *[dev.asarray(a) for a in arrays])
    for g, a in zip(got, arrays):
        np.testing.assert_array_equal(g.get(), a[mask])


def test_device_errors_on_the_host_kernels(dev):
    keys = np.arange(3 * 4096, dtype=np.int64)
    keys[4096 + 5] = 0
    keys[2 * 4096] = 0
    with pytest.raises(ValueError, match="position 4101 holds 0, less than 4100"):
        alg.reduce_by_key(dev.asarray(keys), dev.asarray(np.zeros(3 * 4096)))
    with pytest.raises(ValueError, match=r"non-decreasing; offsets\[2\] = 1"):
        alg.segment_reduce(dev.asarray(np.zeros(4, np.float32)), dev.asarray(np.array([0, 2, 1, 4])))
    with pytest.raises(ValueError, match=r"non-decreasing; offsets\[2\] = 4"):
        alg.segment_reduce(dev.asarray(np.zeros(4, np.float32)),
                           dev.asarray(np.array([0, 2**40, 4, 3])))      # the walk ran first
    with pytest.raises(ValueError, match="must end at n = 4"):
        alg.segment_reduce(dev.asarray(np.zeros(4, np.float32)),
                           dev.asarray(np.array([0, 3, 2**40])))
    with pytest.raises(ValueError, match="holds bin 7 at position 2"):
        alg.bin_offsets(dev.asarray(np.array([0, 1, 7, 0])), 7)


@pytest.mark.parametrize("offs, message", [
    ([0, 2**63 + 1, 4], r"non-decreasing; offsets\[2\] = 4 is less than offsets\[1\]"),
    ([0, 2**64 - 1], r"must end at n = 4 .*offsets\[-1\] = 18446744073709551615"),
    ([2**63, 4], r"must start at 0; got offsets\[0\] = 9223372036854775808")])
def test_uint64_offsets_past_int64_on_the_host_kernels(dev, offs, message):
    """uint64 offsets at or past 2**63 are checked as uint64 by the kernel itself, as
    the NumPy backend checks them (their int64 casts were negative)."""
    vals, o = np.zeros(4, np.float32), np.array(offs, dtype=np.uint64)
    with pytest.raises(ValueError, match=message):
        alg.segment_reduce(vals, o)
    with pytest.raises(ValueError, match=message):
        alg.segment_reduce(dev.asarray(vals), dev.asarray(o))
