"""The compaction kernels (``compaction.cu``: runs, ``compact``, ``bin_offsets``) and
the voxel passes (``voxels.cu``) through their executor on the stand-in CuPy, each
launch played on its NumPy model (the models, the stand-in's log and the ``dev``
fixture are tests/test_segments_launch.py's). It checks the launcher and the design
against the NumPy backend without a GPU; tests/test_segments_gpu.py and
tests/test_voxels_gpu.py check the CUDA code on the device.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.test_segments_gpu import assert_close, staged_keys
from tests.test_segments_launch import GAP, STAGE, TILE, count_record_waits, names
from tests.test_segments_launch import dev  # noqa: F401 (fixture)
from xstride import algorithms as alg
from xstride._kernels import segments as ks
from xstride._kernels import compaction as kc
from xstride._kernels import voxel_passes
from xstride._plans.segments import RUN_TESTS


def test_runs_compaction_and_bins_played(dev):
    rng = np.random.default_rng(1)
    n = 2 * TILE + 77   # three tiles
    keys = np.sort(rng.integers(0, 3000, size=n)).astype(np.uint16)
    vals = rng.integers(-5, 5, size=(n, 2))
    uk, red = alg.reduce_by_key(dev.asarray(keys), dev.asarray(vals), "max")
    huk, hred = alg.reduce_by_key(keys, vals, "max")
    np.testing.assert_array_equal(uk.get(), huk)
    np.testing.assert_array_equal(red.get(), hred)
    mask = rng.random(n) < 0.4
    arrays = [np.arange(n), rng.normal(size=(n, 3)).astype(np.float32), mask.copy(),
              np.zeros((n, 0))]
    got = alg.compact(dev.asarray(mask), *[dev.asarray(a) for a in arrays])
    for g, a in zip(got, arrays):
        np.testing.assert_array_equal(g.get(), a[mask])
    bins = np.sort(rng.integers(0, 50, size=n)).astype(np.int8)
    np.testing.assert_array_equal(alg.bin_offsets(dev.asarray(bins), 53).get(),
                                  alg.bin_offsets(bins, 53))
    u, c = alg.run_length_encode(dev.asarray(np.array([4, 4, 1, 4], dtype=np.int64)))
    assert u.get().tolist() == [4, 1, 4] and c.get().tolist() == [2, 1, 1]
    u, c = alg.run_length_encode(dev.asarray(keys))      # three tiles: the close kernel's
    hu, hc = alg.run_length_encode(keys)                  # lengths, the last one from n
    np.testing.assert_array_equal(u.get(), hu)
    np.testing.assert_array_equal(c.get(), hc)
    assert c.get().sum() == n and c.dtype == np.int64


@pytest.mark.parametrize("dtype", ["int16", "uint64"])
def test_runs_staged_tiles_played(dev, dtype):
    """The count pass stages the heads of its tiles of at most STAGE runs; the scatter
    moves those (the model reads nothing else for them) and finds the others' again.
    The copy and close launched ahead of the count's read-back write nothing (the
    record says that some tile did not stage)."""
    keys = staged_keys(dtype)
    u, c = alg.run_length_encode(dev.asarray(keys))
    hu, hc = alg.run_length_encode(keys)
    np.testing.assert_array_equal(u.get(), hu)
    np.testing.assert_array_equal(c.get(), hc)
    assert names(dev) == ["xs_seg_count", "xs_seg_scan_tiles", "xs_seg_copy_staged",
                          "xs_seg_close", "xs_seg_scatter", "xs_seg_close"]


def every_tile_staged_keys(dtype, n: int, seed: int = 0) -> np.ndarray:
    """Sorted keys of n elements in runs of 16 to 63 (at most 256 heads a tile of 4096,
    so every tile stages its heads)."""
    lens = np.random.default_rng(seed).integers(16, 64, size=n // 16 + 1)
    return np.repeat(np.arange(lens.size), lens)[:n].astype(dtype)


@pytest.mark.parametrize("dtype", ["int8", "uint16", "int32", "uint64"])
@pytest.mark.parametrize("n", [1, 4095, 4096, 3 * 4096 + 5])
def test_runs_every_tile_staged_played(dev, dtype, n):
    """When every tile staged its heads (the tile scan's record says so), the light copy
    moves them and the scatter is not launched."""
    keys = every_tile_staged_keys(dtype, n, seed=n)
    if dtype == "int8":
        keys = (keys % 100).astype(dtype)
        keys.sort()
    staged_runs_played(dev, keys)


def staged_runs_played(dev, keys):
    """``run_length_encode`` of keys whose every tile stages its heads, on the stand-in
    and on the host: equal, and the four launches of that path (no scatter). Returns
    the stand-in's keys and lengths and the host's."""
    u, c = alg.run_length_encode(dev.asarray(keys))
    hu, hc = alg.run_length_encode(keys)
    np.testing.assert_array_equal(u.get(), hu)
    np.testing.assert_array_equal(c.get(), hc)
    assert names(dev) == ["xs_seg_count", "xs_seg_scan_tiles", "xs_seg_copy_staged",
                          "xs_seg_close"]
    return u, c, hu, hc


@pytest.mark.parametrize("run, view", [(40, True), (100, True), (200, False), (300, False)])
def test_runs_ahead_of_the_read_back_give_views_or_copies(dev, run, view):
    """Every tile staged: the copy and the close, launched before the count's read-back,
    wrote the results into buffers of STAGE entries a tile (the copy and close read the
    total from the record). The keys and lengths come back as views of those buffers
    where they fill at least 1/8 of them (16 of 128 keys a run in a whole tile; less
    here, where the last tile is short), else as copies of their own size; equal to the
    host's either way, the offsets too."""
    n = 5 * TILE + 11
    keys = np.repeat(np.arange(n // run + 1), run)[:n].astype(np.int32)
    u, c, hu, hc = staged_runs_played(dev, keys)
    cap = -(-n // TILE) * STAGE
    for got in (u, c):
        assert (got.data.mem.size >= cap * got.itemsize) == view, (run, got.data.mem.size)
    bad, offsets, unique, _, lengths = ks.runs(dev.asarray(keys), True, lengths=True)
    assert bad == -1 and offsets.shape == (hu.size + 1,)
    np.testing.assert_array_equal(offsets.get(), np.concatenate([[0], np.cumsum(hc)]))
    np.testing.assert_array_equal(unique.get(), hu)
    np.testing.assert_array_equal(lengths.get(), hc)


def test_runs_ahead_of_the_read_back_with_unsorted_keys(dev):
    """Unsorted keys: the copy and close ahead of the read-back stay inside their buffers
    (the count is at most n and STAGE a tile) and the first unsorted position comes
    back, as before."""
    keys = np.repeat(np.arange(300), 30)[:2 * TILE].astype(np.int64)
    keys[5000] = -1
    bad, *rest = ks.runs(dev.asarray(keys), True)
    assert bad == 5000 and rest == [None, None, None]
    assert names(dev) == ["xs_seg_count", "xs_seg_scan_tiles", "xs_seg_copy_staged",
                          "xs_seg_close"]


def test_runs_ahead_failing_waits_for_the_record_s_copy(dev, monkeypatch):
    """A launch ahead of the read-back that fails (a compile error, say) waits for the
    record's copy before raising, so its pinned words are not handed back while the
    copy is pending; the next call reads its record through them."""
    keys = every_tile_staged_keys("int32", 3 * TILE)
    def fail(*args):
        raise RuntimeError("no kernel")
    ahead = kc._copy_staged_ahead
    monkeypatch.setattr(kc, "_copy_staged_ahead", fail)
    waited = count_record_waits(monkeypatch)
    with pytest.raises(RuntimeError, match="no kernel"):
        alg.run_length_encode(dev.asarray(keys))
    assert waited == [1]
    monkeypatch.setattr(kc, "_copy_staged_ahead", ahead)
    dev.launches.clear()
    staged_runs_played(dev, keys)
    assert waited == [1, 1]


def test_runs_without_room_for_the_stage_played(dev, monkeypatch):
    """Where the stage does not fit, the scatter reads every tile's keys again."""
    keys = staged_keys("int32")
    empty = dev.empty

    def no_stage(size, dtype=float):
        if size == -(-keys.size // TILE) * STAGE:
            raise MemoryError
        return empty(size, dtype=dtype)
    monkeypatch.setattr(dev, "empty", no_stage)
    u, c = alg.run_length_encode(dev.asarray(keys))
    hu, hc = alg.run_length_encode(keys)
    np.testing.assert_array_equal(u.get(), hu)
    np.testing.assert_array_equal(c.get(), hc)
    stage_args = [a.item() for k, _, _, args in dev.launches for a in args[-3:]
                  if k.name.startswith("xs_seg_scatter")]
    assert stage_args == [0, 0, 0]


@pytest.mark.parametrize("bins, n_bins", [
    ([], 0), ([], 7), ([0], 1), ([3, 3, 3], 4), ([0, 1, 2, 3], 40),
    ([2, 6, 6, 47, 47, 300], 301),                  # gaps of 1-4 bins and of 41, 253
    ([5, 5, GAP + 9, GAP + 9], GAP + 10),            # one gap over XS_SEG_GAP
    ([0, 1], GAP + 3)])                              # the tail's gap over it
def test_bin_offsets_walk_played(dev, bins, n_bins):
    """One pass writes every offset where no gap between neighbouring bins (the first
    from -1, the last to n_bins) is longer than XS_SEG_GAP; otherwise the search fills
    them all."""
    b = np.array(bins, dtype=np.int64)
    got = alg.bin_offsets(dev.asarray(b), n_bins).get()
    np.testing.assert_array_equal(got, alg.bin_offsets(b, n_bins))
    edges = np.diff(np.concatenate([[-1], b, [n_bins]]))
    searched = bool((edges > GAP).any())
    assert names(dev) == ["xs_seg_bins_walk"] + ["xs_seg_bins_fill"] * searched


def sparse_bins(rng, n, tile):
    """Sorted bins of ``n`` points with jumps of 1-40 bins at lane, warp and tile
    boundaries (positions 31/32, 255/256, tile - 1/tile, ...), one jump past
    XS_SEG_GAP, and runs of equal bins between them: ``(bins, n_bins)``."""
    steps = rng.integers(0, 2, size=n)
    for p in (31, 32, 63, 255, 256, 257, tile - 1, tile, tile + 1, 2 * tile, n - 1):
        if p < n:
            steps[p] = rng.integers(5, 41)
    steps[n // 2] = GAP + 17
    bins = np.cumsum(steps)
    return bins.astype(np.int64), int(bins[-1]) + 30


def test_bin_offsets_sparse_bins_at_every_boundary_played(dev):
    """Gaps of every length at the lanes', warps' and tiles' seams of the walk (a lane's
    predecessor from the lane before, lane 0's from the step or warp before), one past
    XS_SEG_GAP (then the search fills every offset), and the same bins with that gap
    closed (the walk alone): the offsets of the NumPy backend."""
    rng = np.random.default_rng(9)
    tile = kc._WALK_TILE
    b, n_bins = sparse_bins(rng, 3 * tile + 5, tile)
    np.testing.assert_array_equal(alg.bin_offsets(dev.asarray(b), n_bins).get(),
                                  alg.bin_offsets(b, n_bins))
    assert names(dev) == ["xs_seg_bins_walk", "xs_seg_bins_fill"]
    dev.launches.clear()
    b[b.size // 2:] -= GAP
    np.testing.assert_array_equal(alg.bin_offsets(dev.asarray(b), n_bins - GAP).get(),
                                  alg.bin_offsets(b, n_bins - GAP))
    assert names(dev) == ["xs_seg_bins_walk"]
    with pytest.raises(ValueError, match=f"position {tile}"):
        bad = b.copy()
        bad[tile] = bad[tile - 1] - 1
        alg.bin_offsets(dev.asarray(bad), n_bins)


def test_launch_constants_match_the_kernels():
    """The grids the executor sizes from XS_SEG_WALK_ITEMS and XS_VOX_ITEMS."""
    from tests.test_segments_launch import _define

    assert kc._WALK_TILE == ks._THREADS * _define("compaction.cu", "XS_SEG_WALK_ITEMS")
    assert voxel_passes._VOX_ITEMS == _define("voxels.cu", "XS_VOX_ITEMS")
    assert kc._SCAN_THREADS == 1024


def test_bin_offsets_bad_bins_before_the_offsets_size_played(dev):
    """Where the offsets do not fit, the walk only checks: bad bins are named first,
    good ones give the MemoryError."""
    with pytest.raises(ValueError, match="'sorted_bins' must be sorted.*position 1"):
        alg.bin_offsets(dev.asarray(np.array([5, 1])), 2**50)
    with pytest.raises(ValueError, match="holds bin -1 at position 0"):
        alg.bin_offsets(dev.asarray(np.array([-1, 0])), 2**50)
    with pytest.raises(MemoryError, match="offsets"):
        alg.bin_offsets(dev.asarray(np.array([0, 1])), 2**50)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("ndim", [2, 3])
def test_voxel_passes_played(dev, dtype, ndim):
    """voxel_downsample's two device passes (bounds with the first non-finite row, then
    the keys) on the stand-in equal the NumPy executor's, on strided points too (the
    public path through the sort runs on the GPU: tests/test_voxels_gpu.py)."""
    from xstride._host import segments as hs

    rng = np.random.default_rng(ndim)
    base = (rng.normal(size=(300, 2 * ndim)) * 3).astype(dtype)
    pts = base[::-1, ::2]          # negative row stride, column stride 2
    lo, hi, row = ks.voxel_bounds(dev.asarray(pts))
    wlo, whi, wrow = hs.voxel_bounds(pts)
    assert row == wrow == -1
    np.testing.assert_array_equal(lo, wlo)
    np.testing.assert_array_equal(hi, whi)
    size = np.array([0.7, 0.3, 1.1][:ndim])
    for origin in (wlo, wlo - 10.0, wlo + 1.0):
        vmin = np.floor((wlo - origin) / size)
        got = ks.voxel_keys(dev.asarray(pts), origin, size, vmin)
        np.testing.assert_array_equal(got.get(), hs.voxel_keys(pts, origin, size, vmin))
    assert names(dev) == ["xs_vox_bounds"] + ["xs_vox_keys"] * 3
    bad = pts.copy()
    bad[7, ndim - 1] = np.nan
    bad[9, 0] = -np.inf
    bad[0, 0] = 1e6        # a finite extreme still counts
    lo, hi, row = ks.voxel_bounds(dev.asarray(bad))
    assert row == hs.voxel_bounds(bad)[2] == 7
    finite = np.isfinite(bad).all(axis=1)
    np.testing.assert_array_equal(hi, bad[finite].max(axis=0))
    np.testing.assert_array_equal(lo, bad[finite].min(axis=0))


@pytest.mark.parametrize("longest, stats", [(3, False), (256, False), (257, False),
                                            (3000, False), (4096, True), (4097, True)])
@pytest.mark.parametrize("mean", ["short", "long"])
def test_reduce_by_key_bounds_the_longest_run_in_the_check(dev, longest, stats, mean):
    """The sortedness check also tests for runs longer than 256 and 4096 rows: only a
    run longer than 4096 (or one of 3841 to 4096 rows, the second test's false alarm)
    sends reduce_by_key to the pass over the offsets (and its read-back); the results
    equal the host's on either walk (the thread walk for both means here: at most 128
    rows and 2 KiB a run; the warp walk is played by the other tests)."""
    # the count pass compares each key with its thread's next item, XS_SEG_THREADS on
    assert RUN_TESTS[0] == ks._THREADS and RUN_TESTS[0] <= RUN_TESTS[1]
    rng = np.random.default_rng(longest)
    short = 3 if mean == "short" else 40
    lens = np.concatenate([np.full(3000 if mean == "short" else 300, short), [longest]])
    rng.shuffle(lens)
    keys = np.repeat(np.arange(lens.size, dtype=np.int32) * 3, lens)
    vals = rng.normal(size=(keys.size, 2))
    uk, red = alg.reduce_by_key(dev.asarray(keys), dev.asarray(vals), "sum")
    huk, hred = alg.reduce_by_key(keys, vals, "sum")
    np.testing.assert_array_equal(uk.get(), huk)
    offs = np.concatenate([[0], np.cumsum(lens)])
    assert_close("sum", vals, offs, red.get(), hred)
    walk = names(dev)
    assert ("xs_seg_offsets_stats" in walk) == stats, walk
    # the light copy and the close go ahead of the count's read-back; the scatter (and a
    # second close) follows only where some tile of 4096 keys holds more than 256 heads
    heads = np.flatnonzero(np.concatenate([[True], keys[1:] != keys[:-1]]))
    staged = np.bincount(heads // TILE).max() <= STAGE
    assert walk[:4] == ["xs_seg_count", "xs_seg_scan_tiles", "xs_seg_copy_staged",
                        "xs_seg_close"]
    assert (walk[4] == "xs_seg_scatter") == (not staged), walk
    assert staged == (mean == "long")
