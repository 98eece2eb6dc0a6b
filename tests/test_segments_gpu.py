"""The segment primitives on CuPy: integers bit for bit as on the NumPy backend, floats
within the bound the docstring states, the same bits run to run, and the device-side
errors."""

from __future__ import annotations

import re
import zlib

import numpy as np
import pytest

from xstride import algorithms as alg
from xstride._plans.segments import LongPlan, SegmentPlan

pytestmark = pytest.mark.gpu

INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
FLOATS = ["float32", "float64"]
OPS = ["sum", "prod", "min", "max", "mean", "count"]


@pytest.fixture
def poisoned(cp):
    """Fill a large pool block with 0xFF and free it, so fresh outputs start as garbage."""
    junk = cp.full(1 << 27, 0xFF, dtype=cp.uint8)
    del junk
    return cp


def layout(rng, n_seg, mean_len, empty=True, long=0):
    lens = rng.poisson(mean_len, size=n_seg)
    if not empty:
        lens = np.maximum(lens, 1)
    if long:
        lens[rng.integers(0, n_seg)] = long
    return np.concatenate([[0], np.cumsum(lens)]).astype(np.int64)


def values_of(rng, dtype, n, k):
    shape = (n,) if k is None else (n, k)
    if dtype in FLOATS:
        return rng.normal(size=shape).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(max(info.min, -50), min(info.max, 50), size=shape, dtype=dtype,
                        endpoint=True)


def assert_close(op, host_vals, offsets, got, want):
    """Integers and min/max/count: equal. Float sums/means/products: the stated bound."""
    assert got.dtype == want.dtype and got.shape == want.shape
    if got.dtype.kind in "iu" or op in ("min", "max", "count"):
        np.testing.assert_array_equal(got, want)
        return
    lens = np.diff(offsets).astype(np.float64)
    shape = (-1,) + (1,) * (got.ndim - 1)
    m = lens.reshape(shape)
    eps = float(np.finfo(got.dtype).eps)
    if op == "prod":
        bound = 2 * m * 2.0**-53 * np.abs(want.astype(np.float64))
    else:
        a = np.abs(host_vals.astype(np.float64)).reshape((len(host_vals),) + got.shape[1:])
        cs = np.concatenate([np.zeros((1,) + a.shape[1:]), np.cumsum(a, axis=0)])
        absum = (cs[offsets[1:]] - cs[offsets[:-1]]) * (1 + 1e-9)
        bound = 2 * np.maximum(m - 1, 0) * 2.0**-53 * absum
        if op == "mean":
            bound = bound / np.maximum(m, 1)
    # the final rounding: relative for normal results, an absolute term below the
    # smallest normal number of the result dtype (gradual underflow: products of many
    # small factors land among the subnormals, whose spacing is not relative)
    tiny = float(np.finfo(got.dtype).tiny)
    bound = bound + eps * np.abs(want.astype(np.float64)) + tiny
    diff = np.abs(got.astype(np.float64) - want.astype(np.float64))
    both_nan = np.isnan(got) & np.isnan(want)
    assert np.all(both_nan | (diff <= bound)), (op, diff.max())


@pytest.mark.parametrize("dtype", INTS + FLOATS)
@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("shape", [("short", None), ("short", 3), ("long", None),
                                   ("long", 5), ("huge", 2), ("long", 40), ("mixed", 3),
                                   ("mixed", None)])
def test_segment_reduce_device_equals_host(poisoned, dtype, op, shape):
    cp = poisoned
    kind, k = shape
    rng = np.random.default_rng(zlib.crc32(repr((dtype, op, kind, k)).encode()))
    empty = dtype in FLOATS or op in ("sum", "prod", "count")
    if kind == "short":
        offsets = layout(rng, 5000, 3, empty)
    elif kind == "long":
        offsets = layout(rng, 300, 200, empty)
    elif kind == "huge":   # one segment spanning several 4096-row chunks, many short ones
        offsets = layout(rng, 2000, 2, empty, long=3 * 4096 + 17)
    else:   # warps per segment, and one long segment in chunks
        offsets = layout(rng, 300, 200, empty, long=2 * 4096 + 5)
    vals = values_of(rng, dtype, int(offsets[-1]), k)
    want = alg.segment_reduce(vals, offsets, op)
    got = alg.segment_reduce(cp.asarray(vals), cp.asarray(offsets), op)
    assert isinstance(got, cp.ndarray)
    assert_close(op, vals, offsets, got.get(), want)
    again = alg.segment_reduce(cp.asarray(vals), cp.asarray(offsets), op)
    assert again.get().tobytes() == got.get().tobytes()


@pytest.mark.parametrize("plan", [(SegmentPlan("warp", 7, True), LongPlan(3, 7)),
                                  (SegmentPlan("thread", 7, True), LongPlan(1, 20)),
                                  (SegmentPlan("warp", 20, False), None),
                                  (SegmentPlan("thread", 20, False), None)])
@pytest.mark.parametrize("k", [None, 1, 2, 3, 31, 32, 33, 65])
def test_every_walk_and_column_slab(cp, monkeypatch, plan, k):
    """Each walk of the plan (chunks combined in order included) on small data."""
    from xstride._kernels import segments as ks

    monkeypatch.setattr(ks, "plan_segments", lambda n, n_seg, max_len, row_bytes: plan[0])
    monkeypatch.setattr(ks, "plan_long", lambda n_long, max_len: plan[1])
    rng = np.random.default_rng(k or 0)
    for dtype, op in (("int64", "sum"), ("uint8", "max"), ("int16", "min"),
                      ("float64", "sum"), ("float32", "mean"), ("int32", "prod")):
        low = 1 if dtype in INTS and op in ("min", "max") else 0
        lens = rng.integers(low, 21, size=40)   # within chunks * chunk_rows of each plan
        offs = np.concatenate([[0], np.cumsum(lens)]).astype(np.int64)
        vals = values_of(rng, dtype, int(offs[-1]), k)
        want = alg.segment_reduce(vals, offs, op)
        got = alg.segment_reduce(cp.asarray(vals), cp.asarray(offs), op).get()
        assert_close(op, vals, offs, got, want)


@pytest.mark.parametrize("dtype", ["int8", "int32", "int64", "uint64"])
@pytest.mark.parametrize("shape", [("short", None), ("short", 3), ("long", 5), ("huge", 2),
                                   ("mixed", 33), ("forced", 3)])
def test_integer_means_bit_for_bit(poisoned, monkeypatch, dtype, shape):
    """The mean of integers is the exact sum (xs_seg_i128 on the device, 32-bit limbs on
    the host) rounded once, over the count: the device gives the host's bits on every
    walk, for full-range values whose sums leave 64 bits, run to run."""
    cp = poisoned
    kind, k = shape
    rng = np.random.default_rng(zlib.crc32(repr(("imean", dtype, kind, k)).encode()))
    if kind == "short":
        offsets = layout(rng, 5000, 3, empty=False)
    elif kind == "long":
        offsets = layout(rng, 300, 200, empty=False)
    elif kind == "huge":
        offsets = layout(rng, 2000, 2, empty=False, long=3 * 4096 + 17)
    elif kind == "mixed":
        offsets = layout(rng, 300, 200, empty=False, long=2 * 4096 + 5)
    else:   # the warp walk and the long walk in 3 chunks, combined, on small data
        from xstride._kernels import segments as ks

        monkeypatch.setattr(ks, "plan_segments", lambda n, n_seg, max_len, row_bytes: SegmentPlan(
            "warp", 7, True))
        monkeypatch.setattr(ks, "plan_long", lambda n_long, max_len: LongPlan(3, 7))
        offsets = layout(rng, 40, 10, empty=False)
        offsets = np.minimum(offsets, np.arange(offsets.size) * 21)   # at most 21 rows
    info = np.iinfo(dtype)
    n = int(offsets[-1])
    vals = rng.integers(info.min, info.max, size=(n,) if k is None else (n, k), dtype=dtype,
                        endpoint=True)
    top = rng.random(n) < 0.5
    vals[top] = info.max                       # long runs of the extreme: sums past 2**64
    want = alg.segment_reduce(vals, offsets, "mean")
    got = alg.segment_reduce(cp.asarray(vals), cp.asarray(offsets), "mean")
    assert got.dtype == cp.float64 and got.get().tobytes() == want.tobytes()
    again = alg.segment_reduce(cp.asarray(vals), cp.asarray(offsets), "mean")
    assert again.get().tobytes() == want.tobytes()
    keys = np.repeat(np.arange(offsets.size - 1, dtype=np.int64), np.diff(offsets))
    _, red = alg.reduce_by_key(cp.asarray(keys), cp.asarray(vals), "mean")
    assert red.get().tobytes() == want.tobytes()


def test_integer_mean_that_used_to_wrap(cp):
    vals = np.array([2**62, 2**62, 2**63 - 1, 2**63 - 1, 2**63 - 1], dtype=np.int64)
    got = alg.segment_reduce(cp.asarray(vals), cp.asarray([0, 2, 5]), "mean").get()
    assert got.tolist() == [np.mean(vals[:2]), np.mean(vals[2:])] == [2.0**62, 2.0**63]


def test_strided_values_and_other_offset_dtypes(cp):
    rng = np.random.default_rng(5)
    base = rng.normal(size=(3000, 6))
    view = base[::-2, 1::2]
    offs = layout(rng, 100, 15)
    offs = (offs * (len(view) / offs[-1])).astype(np.int32)
    offs[-1] = len(view)
    offs = np.maximum.accumulate(offs)
    want = alg.segment_reduce(view, offs, "max")
    got = alg.segment_reduce(cp.asarray(base)[::-2, 1::2], cp.asarray(offs), "max")
    np.testing.assert_array_equal(got.get(), want)


def test_reduce_by_key_and_rle(poisoned):
    cp = poisoned
    rng = np.random.default_rng(11)
    for n in (0, 1, 4095, 4096, 4097, 100_003):
        keys = np.sort(rng.integers(0, max(n // 3, 1), size=n)).astype(np.uint32)
        vals = rng.normal(size=(n, 3)).astype(np.float32)
        uk, red = alg.reduce_by_key(cp.asarray(keys), cp.asarray(vals), "mean")
        huk, hred = alg.reduce_by_key(keys, vals, "mean")
        np.testing.assert_array_equal(uk.get(), huk)
        counts = alg.run_length_encode(keys)[1]
        offs = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        assert_close("mean", vals, offs, red.get(), hred)
        ikeys = rng.integers(-3, 3, size=n).astype(np.int64)   # unsorted: runs, not groups
        u, c = alg.run_length_encode(cp.asarray(ikeys))
        hu, hc = alg.run_length_encode(ikeys)
        np.testing.assert_array_equal(u.get(), hu)
        np.testing.assert_array_equal(c.get(), hc)
        ivals = rng.integers(-9, 9, size=n)
        for op in ("sum", "min", "count"):
            got = alg.reduce_by_key(cp.asarray(keys), cp.asarray(ivals), op)[1].get()
            np.testing.assert_array_equal(got, alg.reduce_by_key(keys, ivals, op)[1])


def staged_keys(dtype) -> np.ndarray:
    """Sorted keys whose tiles of 4096 (the count pass's) hold 4096, 256, 257, 256, 0
    and 255 run heads (a tile whose first key continues the run before it has one head
    fewer than its runs), then a partial tail tile: the count pass stages the heads of
    a tile of at most 256 (XS_SEG_STAGE) and the scatter moves them; the other tiles
    read the keys again."""
    tile = 4096
    out, last = [], -1
    for runs, continues in [(4096, False), (257, True), (257, False), (256, False),
                            (1, True), (255, False), (7, False)]:
        size = tile if runs > 7 or continues else 77
        cuts = np.sort(np.random.default_rng(runs).choice(np.arange(1, size), runs - 1,
                                                          replace=False))
        k = np.repeat(np.arange(runs), np.diff(np.concatenate([[0], cuts, [size]])))
        out.append(k + (last if continues else last + 1))
        last = int(out[-1][-1])
    return np.concatenate(out).astype(dtype)


@pytest.mark.parametrize("dtype", ["int16", "uint16", "int32", "uint64"])
def test_run_length_encode_staged_tiles(poisoned, dtype):
    cp = poisoned
    keys = staged_keys(dtype)
    assert np.all(np.diff(keys.astype(np.int64)) >= 0)
    u, c = alg.run_length_encode(cp.asarray(keys))
    hu, hc = alg.run_length_encode(keys)
    np.testing.assert_array_equal(u.get(), hu)
    np.testing.assert_array_equal(c.get(), hc)
    vals = np.arange(keys.size, dtype=np.int64)
    uk, red = alg.reduce_by_key(cp.asarray(keys), cp.asarray(vals))
    np.testing.assert_array_equal(uk.get(), hu)
    np.testing.assert_array_equal(red.get(), alg.reduce_by_key(keys, vals)[1])


@pytest.mark.parametrize("dtype", ["int8", "uint16", "int32", "uint64"])
@pytest.mark.parametrize("n", [1, 4095, 4096, 4097, 3 * 4096 + 5, 1 << 20])
def test_runs_every_tile_staged(poisoned, dtype, n):
    """Runs of 16 to 63 keys: every tile of 4096 stages its heads and the light copy
    (``xs_seg_copy_staged``) moves them; tile edges, a partial last tile, many tiles."""
    cp = poisoned
    lens = np.random.default_rng(n).integers(16, 64, size=n // 16 + 1)
    keys = np.repeat(np.arange(lens.size), lens)[:n]
    keys = np.sort(keys % 120) if dtype == "int8" else keys
    keys = keys.astype(dtype)
    u, c = alg.run_length_encode(cp.asarray(keys))
    hu, hc = alg.run_length_encode(keys)
    np.testing.assert_array_equal(u.get(), hu)
    np.testing.assert_array_equal(c.get(), hc)
    vals = np.random.default_rng(1).normal(size=(n, 3)).astype(np.float32)
    uk, red = alg.reduce_by_key(cp.asarray(keys), cp.asarray(vals))
    np.testing.assert_array_equal(uk.get(), hu)
    want = alg.reduce_by_key(keys, vals)[1]
    np.testing.assert_allclose(red.get(), want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("run, view", [(40, True), (100, True), (300, False), (5000, False)])
def test_runs_ahead_of_the_read_back_views_or_copies(poisoned, run, view):
    """Every tile staged: the heads' copy and the offsets' close were launched before the
    count's read-back, into buffers of 256 entries a tile (the total read on the
    device). Keys and lengths are views of those buffers where they fill at least 1/8
    of them, else arrays of their own size; the offsets equal the host's, so do a
    reduction over them and the voxels' counts."""
    cp = poisoned
    n = 64 * 4096 + 77
    keys = np.repeat(np.arange(n // run + 1, dtype=np.int64) * 3, run)[:n]
    u, c = alg.run_length_encode(cp.asarray(keys))
    hu, hc = alg.run_length_encode(keys)
    np.testing.assert_array_equal(u.get(), hu)
    np.testing.assert_array_equal(c.get(), hc)
    cap = -(-n // 4096) * 256
    for got in (u, c):
        assert (got.data.mem.size >= cap * got.itemsize) == view, (run, got.data.mem.size)
    vals = np.random.default_rng(run).integers(-99, 99, size=(n, 2))
    uk, red = alg.reduce_by_key(cp.asarray(keys), cp.asarray(vals))
    np.testing.assert_array_equal(uk.get(), hu)
    np.testing.assert_array_equal(red.get(), alg.reduce_by_key(keys, vals)[1])
    pts = np.stack([keys / 3.0, np.zeros(n), np.zeros(n)], axis=1) + 0.5
    cent, counts = alg.voxel_downsample(cp.asarray(pts), 1.0)
    hcent, hcounts = alg.voxel_downsample(pts, 1.0)
    np.testing.assert_array_equal(counts.get(), hcounts)
    np.testing.assert_array_equal(cent.get(), hcent)


@pytest.mark.parametrize("longest", [3, 256, 257, 4096, 4097, 10_000])
@pytest.mark.parametrize("short", [3, 40])
def test_reduce_by_key_runs_around_the_tested_lengths(cp, longest, short):
    """The sortedness check tests for runs longer than 256 and 4096 (src[i] ==
    src[i + L]); a run at, just past and far past each, among short runs (thread walk)
    or longer ones (warp walk), across tile edges: equal to the host within the
    bound, integer sums exactly, the same bits run to run."""
    rng = np.random.default_rng(longest + short)
    lens = np.concatenate([np.full(20_000 // short, short), [longest, longest // 2 + 1]])
    rng.shuffle(lens)
    keys = np.repeat(np.arange(lens.size, dtype=np.int64) * 5 - 7, lens)
    vals = rng.normal(size=(keys.size, 3))
    offs = np.concatenate([[0], np.cumsum(lens)]).astype(np.int64)
    uk, red = alg.reduce_by_key(cp.asarray(keys), cp.asarray(vals), "sum")
    huk, hred = alg.reduce_by_key(keys, vals, "sum")
    np.testing.assert_array_equal(uk.get(), huk)
    assert_close("sum", vals, offs, red.get(), hred)
    again = alg.reduce_by_key(cp.asarray(keys), cp.asarray(vals), "sum")[1]
    assert again.get().tobytes() == red.get().tobytes()
    ivals = rng.integers(-9, 9, size=keys.size)
    np.testing.assert_array_equal(alg.reduce_by_key(cp.asarray(keys), cp.asarray(ivals))[1].get(),
                                  alg.reduce_by_key(keys, ivals)[1])


@pytest.mark.parametrize("n", [0, 1, 17, 2047, 2048, 4095, 4096, 4097, 300_001])
def test_bin_offsets_device(cp, n):
    rng = np.random.default_rng(n)
    bins = np.sort(rng.integers(0, 1000, size=n)).astype(np.int16)
    np.testing.assert_array_equal(alg.bin_offsets(cp.asarray(bins), 1003).get(),
                                  alg.bin_offsets(bins, 1003))


@pytest.mark.parametrize("dtype", ["int64", "int32"])
def test_bin_offsets_sparse_bins_at_every_boundary_device(cp, dtype):
    """Jumps of 5-40 bins at the walk's lane, warp and tile seams and one past
    XS_SEG_GAP (the search then fills every offset), then the same bins with that
    gap closed (the walk alone), and an unsorted bin at a tile's first position: the
    NumPy backend's offsets and error."""
    from tests.test_compaction_launch import sparse_bins
    from xstride._kernels import compaction as kc

    rng = np.random.default_rng(11)
    tile, gap = kc._WALK_TILE, 1 << 16
    b, n_bins = sparse_bins(rng, 5 * tile + 3, tile)
    for bins, nb in ((b, n_bins), (np.where(np.arange(b.size) >= b.size // 2, b - gap, b),
                                   n_bins - gap)):
        bins = bins.astype(dtype)
        np.testing.assert_array_equal(alg.bin_offsets(cp.asarray(bins), nb).get(),
                                      alg.bin_offsets(bins, nb))
    bad = b.astype(dtype)
    bad[2 * tile] = bad[2 * tile - 1] - 1
    with pytest.raises(ValueError, match=f"position {2 * tile}"):
        alg.bin_offsets(cp.asarray(bad), n_bins)


@pytest.mark.parametrize("n", [0, 1, 100, 4096, 4097, 1_000_003])
def test_compact_device(poisoned, n):
    cp = poisoned
    rng = np.random.default_rng(n)
    mask = rng.random(n) < 0.37
    arrays = [np.arange(n, dtype=np.int64), rng.normal(size=(n, 3)).astype(np.float32),
              (rng.random(n) < 0.5), rng.normal(size=(n, 2)) + 1j, np.zeros((n, 0)),
              rng.integers(0, 255, size=(n, 3), dtype=np.uint8)]
    got = alg.compact(cp.asarray(mask), *[cp.asarray(a) for a in arrays])
    for g, a in zip(got, arrays):
        assert g.dtype == a.dtype
        np.testing.assert_array_equal(g.get(), a[mask])
    strided = cp.asarray(np.arange(3 * n).reshape(n, 3))[:, ::2]
    np.testing.assert_array_equal(alg.compact(cp.asarray(mask), strided)[0].get(),
                                  np.arange(3 * n).reshape(n, 3)[:, ::2][mask])


@pytest.mark.parametrize("density", [0.0, 0.01, 0.5, 0.97, 1.0])
def test_compact_rows_by_warps_every_density(cp, density):
    """The scatter moves up to four words of a selected row at a time: masks from empty
    to full, rows of 1 to 40 words of each width (word counts that are and are not
    multiples of four), a tail tile."""
    n = 3 * 4096 + 77
    rng = np.random.default_rng(int(density * 100))
    mask = rng.random(n) < density
    arrays = [rng.integers(0, 2**63, size=n, dtype=np.int64),
              rng.normal(size=(n, 40)), rng.integers(0, 255, size=(n, 7), dtype=np.uint8),
              rng.integers(0, 2**15, size=(n, 5), dtype=np.int16),
              rng.normal(size=(n, 3)).astype(np.float32)]
    got = alg.compact(cp.asarray(mask), *[cp.asarray(a) for a in arrays])
    for g, a in zip(got, arrays):
        np.testing.assert_array_equal(g.get(), a[mask])


@pytest.mark.parametrize("density", [0.01, 0.5, 1.0])
def test_compact_row_widths(cp, density):
    """Rows of 2, 2048, 4095 and 4096 words of 4 or 8 bytes, an odd byte count (1-byte
    words), 6-byte rows, a view that starts 4 bytes into its allocation, tail tiles."""
    rng = np.random.default_rng(int(density * 100) + 7)
    for n, cols, dtype in [(4096 + 33, 2, np.float32), (4096 + 3, 4095, np.float32),
                           (4096 + 5, 2048, np.float64), (600, 4096, np.float64),
                           (700, 3, np.uint8), (9000, 3, np.int16)]:
        a = rng.integers(0, 100, size=(n, cols)).astype(dtype)
        mask = rng.random(n) < density
        got = alg.compact(cp.asarray(mask), cp.asarray(a))[0]
        np.testing.assert_array_equal(got.get(), a[mask])
    flat = rng.normal(size=3 * 5000 + 1).astype(np.float32)
    view = cp.asarray(flat)[1:].reshape(5000, 3)          # 4 bytes past the allocation
    mask = rng.random(5000) < density
    np.testing.assert_array_equal(alg.compact(cp.asarray(mask), view)[0].get(),
                                  flat[1:].reshape(5000, 3)[mask])


# ---------------------------------------------------------------- device-side errors
def test_device_offset_errors(cp):
    v = cp.arange(10.0)
    with pytest.raises(ValueError, match="must start at 0; got offsets\\[0\\] = 1"):
        alg.segment_reduce(v, cp.asarray([1, 10]))
    big = np.arange(0, 20_001, dtype=np.int64)
    big[12_345] = 3
    big[15_000] = 2
    with pytest.raises(ValueError, match=r"non-decreasing; offsets\[12345\] = 3"):
        alg.segment_reduce(cp.zeros(20_000), cp.asarray(big))
    for op in ("count", "sum", "mean"):   # a difference that would wrap is no decrease
        with pytest.raises(ValueError, match=r"non-decreasing; offsets\[2\] = -2"):
            alg.segment_reduce(cp.arange(3.0), cp.asarray([0, 2**63 - 1, -2, 3]), op)
    with pytest.raises(ValueError, match="must end at n = 10"):
        alg.segment_reduce(v, cp.asarray([0, 4, 9]))
    with pytest.raises(ValueError, match="segment 1 no rows; the max"):
        alg.segment_reduce(cp.arange(10), cp.asarray([0, 4, 4, 10]), "max")


def test_device_uint64_offsets_past_int64_as_on_the_host(cp):
    """uint64 offsets at or past 2**63 give the NumPy backend's error (their int64 casts
    were compared: 'offsets[1] = 9223372036854775809 is less than offsets[0] = 0')."""
    vals = np.arange(4.0)
    for offs in ([0, 2**63 + 1, 4], [0, 2**64 - 1], [2**63, 4], [0, 2**63 + 5, 2**63 + 1, 4]):
        o = np.array(offs, dtype=np.uint64)
        with pytest.raises(ValueError) as want:
            alg.segment_reduce(vals, o)
        for op in ("sum", "count", "mean"):
            with pytest.raises(ValueError, match=re.escape(str(want.value))):
                alg.segment_reduce(cp.asarray(vals), cp.asarray(o), op)
    got = alg.segment_reduce(cp.asarray(vals), cp.asarray(np.array([0, 1, 4], np.uint64)))
    np.testing.assert_array_equal(got.get(), [0.0, 6.0])


@pytest.mark.parametrize("n, k, short", [(200, 3, "thread"), (4000, 64, "warp")])
def test_walk_before_the_check_reads_inside_the_rows(cp, n, k, short):
    """The short walk runs before the offsets' check is read back: offsets far outside
    the rows (which, unclamped, would read 2**40 rows away and fault the context) give
    the check's ValueError and leave the device working."""
    from xstride._plans.segments import plan_segments
    assert plan_segments(n, 3, 0, 4 * k).short == plan_segments(n, 2, 0, 4 * k).short == short
    v = cp.ones((n, k), dtype=cp.float32)
    bad = [([0, 2**40, -2**40, n], r"non-decreasing; offsets\[2\]"),
           ([0, 5, 2**40], f"must end at n = {n}"),
           ([-2**40, 7, n], "must start at 0"),
           ([0, n - 1, 2**40, n], r"non-decreasing; offsets\[3\]")]
    for offs, message in bad:
        for op in ("sum", "max", "mean"):
            with pytest.raises(ValueError, match=message):
                alg.segment_reduce(v, cp.asarray(offs, dtype=cp.int64), op)
    cp.cuda.Device().synchronize()          # an out-of-range read would surface here
    got = alg.segment_reduce(v, cp.asarray([0, 1, n], dtype=cp.int64))
    np.testing.assert_array_equal(got.get(), np.array([[1.0] * k, [n - 1.0] * k], np.float32))


def test_device_unsorted_keys_name_the_first_position(cp):
    keys = np.arange(50_000, dtype=np.int64)
    keys[30_001] = 5      # first unsorted position (a later tile)
    keys[40_000] = 0
    with pytest.raises(ValueError, match="position 30001 holds 5, less than 30000"):
        alg.reduce_by_key(cp.asarray(keys), cp.zeros(50_000))
    bins = np.sort(np.random.default_rng(0).integers(0, 9, size=9000))
    bins[7000] = 0
    with pytest.raises(ValueError, match="'sorted_bins' must be sorted.*position 7000"):
        alg.bin_offsets(cp.asarray(bins), 9)
    bins[8000] = 9
    with pytest.raises(ValueError, match="holds bin 9 at position 8000"):
        alg.bin_offsets(cp.asarray(bins), 9)


def test_device_mask_and_mixed_backends(cp):
    with pytest.raises(TypeError, match="'mask'.*bool"):
        alg.compact(cp.zeros(3, dtype=cp.int8), cp.zeros(3))
    with pytest.raises(ValueError, match=r"'arrays\[0\]' must have shape \(3, \.\.\.\)"):
        alg.compact(cp.ones(3, dtype=bool), cp.zeros(4))
    with pytest.raises(TypeError, match="different backends"):
        alg.compact(cp.ones(3, dtype=bool), np.zeros(3))
    with pytest.raises(TypeError, match="different backends"):
        alg.segment_reduce(cp.zeros(3), np.array([0, 3]))


# ---------------------------------------------------------------- the fold order, bit for bit
def warp_order_sum(seg: np.ndarray) -> np.ndarray:
    """The documented order of the short warp walk for ``k <= 32`` columns: row slot
    ``g`` of ``G = 32 // k`` folds rows ``g, g + G, ...`` in order from 0.0, then the
    slots by the fixed binary tree (at step ``h`` slot ``g``, a multiple of ``2h``,
    takes slot ``g + h``)."""
    k = seg.shape[1]
    G = 32 // k
    out = np.empty(k)
    for c in range(k):
        acc = []
        for g in range(G):
            a = 0.0
            for x in seg[g::G, c]:
                a = a + float(x)
            acc.append(a)
        h = 1
        while h < G:
            for g in range(0, G, 2 * h):
                if g + h < G:
                    acc[g] = acc[g] + acc[g + h]
            h *= 2
        out[c] = acc[0]
    return out


def staged_groups(offs, k, itemsize, per_block):
    """Whether each block's group of segments fits the thread walk's shared tile (the
    test of ``xs_seg_thread``: its elements plus one pad slot in 32)."""
    cap = 32768 // itemsize
    starts = offs[:-1:per_block]
    ends = offs[np.minimum(np.arange(starts.size) * per_block + per_block, offs.size - 1)]
    m = (ends - starts) * k
    return m + (m >> 5) <= cap


@pytest.mark.parametrize("k", [1, 3, 7])
def test_batched_walks_keep_the_documented_order(cp, monkeypatch, k):
    """The thread and warp walks load rows in batches, the thread walk from a shared
    tile where a block's segments fit it; the sums must still be the row-order
    (thread) and slot-then-tree (warp) folds of the docstring, bit for bit, on lengths
    around the batch edges (4 slots of G rows in the warp walk, 4 rows in the thread
    walk), staged or not."""
    from xstride._kernels import segments as ks

    rng = np.random.default_rng(k)
    G = 32 // k
    # the warp walk: lengths at the batch edges
    lens = np.array([1, 2, G - 1, G, G + 1, 4 * G - 1, 4 * G, 4 * G + 1, 8 * G + 1,
                     16 * G + 3, 40, 33, 32, 31] * 4)
    offs = np.concatenate([[0], np.cumsum(lens)]).astype(np.int64)
    vals = rng.normal(size=(int(offs[-1]), k)) * 10.0 ** rng.integers(-8, 8, size=(1, k))
    with monkeypatch.context() as m:
        m.setattr(ks, "plan_segments",
                  lambda n, n_seg, max_len, row_bytes: SegmentPlan("warp", 4096, False))
        got = alg.segment_reduce(cp.asarray(vals), cp.asarray(offs)).get()
    want = np.stack([warp_order_sum(vals[a:b]) for a, b in zip(offs[:-1], offs[1:])])
    assert got.tobytes() == want.tobytes()
    # the thread walk: each column in row order from 0.0, whatever the groups; a
    # segment longer than its 256 rows is skipped there and left to the long walk (one
    # chunk: the warp order)
    lens = np.concatenate([rng.integers(0, 24, size=1000), [200, 256, 255, 3, 0, 129, 300]])
    rng.shuffle(lens)
    offs = np.concatenate([[0], np.cumsum(lens)]).astype(np.int64)
    plan = ks.plan_segments(int(offs[-1]), lens.size, 300, 8 * k)
    assert (plan.short, plan.split, plan.long) == ("thread", 256, True)
    vals = rng.normal(size=(int(offs[-1]), k)) * 1e4
    want = np.zeros((lens.size, k))
    for s, (a, b) in enumerate(zip(offs[:-1], offs[1:])):
        if b - a > 256:
            want[s] = warp_order_sum(vals[a:b])
            continue
        for r in range(a, b):
            want[s] = want[s] + vals[r]
    default = ks._per_block(int(offs[-1]), lens.size, k, 8)
    assert staged_groups(offs, k, 8, default).any()
    assert not staged_groups(offs, k, 8, 512).any()
    for per_block in (default, 1, 5, 512):
        with monkeypatch.context() as m:
            m.setattr(ks, "_per_block", lambda n, n_seg, kk, itemsize: per_block)
            got = alg.segment_reduce(cp.asarray(vals), cp.asarray(offs)).get()
        assert got.tobytes() == want.tobytes(), per_block
