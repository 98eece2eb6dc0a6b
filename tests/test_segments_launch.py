"""The CUDA executor of the segment primitives on the stand-in CuPy, with its kernels
played on the host.

Each launch of ``segments.cu`` that the stand-in records is carried out here by a
NumPy model of the kernel (``MODELS``), written from the kernel's comment: the same
arguments, read through the same device addresses, the same fold order (lanes, row
slots, chunks). This checks the launcher (arguments in order, grids, the records read
back, the plans' walks and the combine) and the design of the walks against the NumPy
backend without a GPU. It proves nothing about the CUDA code itself:
tests/test_segments_gpu.py does, on the device.
"""

from __future__ import annotations

import ctypes
import re

import numpy as np
import pytest

from tests.conftest import FakeCupyArray
from tests.test_segments_gpu import assert_close, values_of
from xstride import algorithms as alg
from xstride._core.dtypes import DTYPE_OF_C
from xstride._kernels import _compile
from xstride._kernels import compaction as kc
from xstride._kernels import segments as ks
from xstride._kernels._segment_launch import LAUNCHES
from xstride._plans.segments import LongPlan, SegmentPlan

TILE = 256 * 16


def mem(addr, dtype, count):
    """``count`` items of ``dtype`` at host address ``addr`` (writable, no copy)."""
    dt = np.dtype(dtype)
    if count == 0:
        return np.empty(0, dt)
    buf = (ctypes.c_char * (int(count) * dt.itemsize)).from_address(int(addr))
    return np.frombuffer(buf, dtype=dt)


def targs(name):
    inner = name.partition("<")[2].rstrip(">")
    return [t.strip() for t in inner.split(",")] if inner else []


class I128:
    """``xs_seg_i128`` (the exact sum of integer means) in the models: a Python int,
    stored in the partials as two 64-bit words, low then high (two's complement)."""

    def __new__(cls, v):
        return int(v)


class WideParts:
    """The partials of ``xs_seg_i128`` at a device address: item i is words 2i, 2i + 1."""

    def __init__(self, addr, count):
        self.words = mem(addr, np.uint64, 2 * count)

    def __getitem__(self, i):
        lo, hi = int(self.words[2 * i]), int(self.words[2 * i + 1])
        return lo + ((hi - (1 << 64) if hi >> 63 else hi) << 64)

    def __setitem__(self, i, v):
        self.words[2 * i] = v & ((1 << 64) - 1)
        self.words[2 * i + 1] = (v >> 64) & ((1 << 64) - 1)


def np_type(c):
    return I128 if c == "xs_seg_i128" else np.dtype(DTYPE_OF_C[c]).type


def parts_of(addr, A, count):
    return WideParts(addr, count) if A is I128 else mem(addr, A, count)


def identity(op, T, A):
    if op == 0:
        return A(0)
    if op == 1:
        return A(1)
    info = np.finfo(T) if np.dtype(T).kind == "f" else np.iinfo(T)
    big = np.inf if np.dtype(T).kind == "f" else info.max
    small = -np.inf if np.dtype(T).kind == "f" else info.min
    return A(big if op == 2 else small)


def fold(op, a, b):
    if op == 0:
        return a + b
    if op == 1:
        return a * b
    if b != b:
        return b
    if op == 2:
        return b if b < a else a
    return b if b > a else a


def finish(op, mean, R, acc, count):
    if (op >= 2 and count == 0) or (mean and count == 0):
        return R(np.nan)
    if mean:   # float(): an int sum (xs_seg_i128) rounded once, to nearest even
        return R(np.float64(float(acc)) / np.float64(count))
    return R(acc)


def reduce_types(name):
    t, a, r, op, mean = targs(name)[:5]    # xs_seg_warp's sixth, TILE, changes no bit
    return np_type(t), np_type(a), np_type(r), int(op), mean == "true"


def clamp(o, lo, n):
    """``xs_seg_clamp``: the short walks run before the offsets' check is read back."""
    return min(max(int(o), lo), n)


def m_thread(name, grid, v, off, n, n_seg, k, max_rows, per_block, out):
    T, A, R, op, mean = reduce_types(name)
    assert 1 <= per_block <= 512 and grid[0] == min(-(-n_seg // per_block), 1 << 20)
    o = [clamp(x, 0, n) for x in mem(off, np.int64, n_seg + 1)]
    vals = mem(v, T, n * k)
    res = mem(out, R, n_seg * k)
    for t in range(n_seg * k):
        s, c = divmod(t, k)
        r0, r1 = o[s], max(o[s], o[s + 1])
        if r1 - r0 > max_rows:
            continue
        acc = identity(op, T, A)
        for r in range(r0, r1):
            acc = fold(op, acc, A(vals[r * k + c]))
        res[t] = finish(op, mean, R, acc, r1 - r0)


def m_warp(name, grid, v, off, n, ids, n_items, k, chunks, chunk_rows, max_rows, out, part):
    T, A, R, op, mean = reduce_types(name)
    idx = mem(ids, np.int64, n_items) if ids else np.arange(n_items)
    top = int(idx.max()) + 1          # the segments it reaches: 0 .. top - 1
    o = mem(off, np.int64, top + 1)
    vals = mem(v, T, n * k)
    res = mem(out, R, top * k)
    parts = parts_of(part, A, n_items * chunks * k) if part else None
    for w in range(n_items * chunks):
        j, p = divmod(w, chunks)
        s = int(idx[j])
        s0 = clamp(o[s], 0, n)
        s1 = clamp(o[s + 1], s0, n)
        r0 = s0 + p * chunk_rows
        if s1 - s0 > max_rows or (r0 >= s1 and (p > 0 or chunks > 1)):
            continue
        r1 = min(r0 + chunk_rows, s1)
        for c0 in range(0, k, 32):
            kk = min(32, k - c0)
            G = 32 // kk
            acc = []
            for lane in range(32):
                g, col = divmod(lane, kk)
                a = identity(op, T, A)
                if g < G:
                    for r in range(r0 + g, r1, G):
                        a = fold(op, a, A(vals[r * k + c0 + col]))
                acc.append(a)
            h = 1
            while h < G:   # shfl_down by h * kk: lanes past 31 keep their own value
                acc = [fold(op, acc[lane], acc[lane + h * kk])
                       if (lane // kk) % (2 * h) == 0 and lane // kk + h < G else acc[lane]
                       for lane in range(32)]
                h *= 2
            for lane in range(kk):
                x = acc[lane]
                if chunks == 1:
                    res[s * k + c0 + lane] = finish(op, mean, R, x, s1 - s0)
                else:
                    parts[(j * chunks + p) * k + c0 + lane] = x


def m_combine(name, grid, part, off, ids, n_items, k, chunks, chunk_rows, out):
    T, A, R, op, mean = reduce_types(name)
    idx = mem(ids, np.int64, n_items) if ids else np.arange(n_items)
    top = int(idx.max()) + 1
    o = mem(off, np.int64, top + 1)
    parts = parts_of(part, A, n_items * chunks * k)
    res = mem(out, R, top * k)
    for t in range(n_items * k):
        j, c = divmod(t, k)
        s = int(idx[j])
        m = int(o[s + 1] - o[s])
        acc = identity(op, T, A)
        for p in range(-(-m // chunk_rows)):
            acc = fold(op, acc, parts[(j * chunks + p) * k + c])
        res[s * k + c] = finish(op, mean, R, acc, m)


def m_offsets_stats(name, grid, off, m, rec):
    o = mem(off, np.int64, m)
    r = mem(rec, np.uint64, 5)
    r[3], r[4] = o[:1].view(np.uint64)[0], o[-1:].view(np.uint64)[0]
    # compared, not subtracted, as the kernel does (offsets far apart would wrap)
    down = o[1:] < o[:-1]
    d = o[1:].view(np.uint64) - o[:-1].view(np.uint64)
    bad = np.flatnonzero(down)
    if bad.size:
        r[0] = bad[0] + 1
    empty = np.flatnonzero(~down & (d == 0))
    if empty.size:
        r[1] = empty[0]
    if (~down).any():
        r[2] = ~d[~down].max()


def flags_of(flag, K, src, n, thr):
    s = mem(src, K, n + (flag == 2))
    if flag == 0:
        return s != 0
    if flag == 2:
        return np.diff(s) > thr
    f = np.ones(n, dtype=bool)
    f[1:] = s[1:] != s[:-1]
    return f


#: XS_SEG_STAGE of segments.cu: the run heads a tile of the count pass stages
STAGE = 256


def m_count(name, grid, src, n, thr, counts, check, rec, stage_pos, stage_key):
    flag, K = int(targs(name)[0]), np_type(targs(name)[1])
    f = flags_of(flag, K, src, n, thr)
    c = mem(counts, np.int64, grid[0])
    for b in range(grid[0]):
        c[b] = f[b * TILE:(b + 1) * TILE].sum()
        if flag == 1 and stage_pos and c[b] <= STAGE:
            heads = np.flatnonzero(f[b * TILE:(b + 1) * TILE]) + b * TILE
            mem(stage_pos, np.int64, grid[0] * STAGE)[b * STAGE:b * STAGE + heads.size] = heads
            mem(stage_key, K, grid[0] * STAGE)[b * STAGE:b * STAGE + heads.size] = \
                mem(src, K, n)[heads]
    if flag == 1 and check:
        s = mem(src, K, n)
        r = mem(rec, np.uint64, 4)
        bad = np.flatnonzero(s[1:] < s[:-1])
        if bad.size:
            r[0] = min(int(r[0]), int(bad[0]) + 1)
        l1, l2 = thr & 0xFFFFFFFF, thr >> 32
        if n > l1 and (s[l1:] == s[:-l1]).any():
            r[2] = 0
        d = l2 - l1
        heads = np.arange(0, max(n - d, 0), l1)
        if heads.size and (s[heads] == s[heads + d]).any():
            r[3] = 0


def m_scan_tiles(name, grid, counts, n_tiles, rec):
    c = mem(counts, np.int64, n_tiles)
    total = int(c.sum())
    over = bool((c > STAGE).any())   # some tile did not stage its heads
    c[:] = np.concatenate([[0], np.cumsum(c)[:-1]])
    r = mem(rec, np.uint64, 5)
    r[1] = total
    if over:
        r[4] = 0


def m_copy_staged(name, grid, offsets, tiles, rec, stage_pos, stage_key, dst, idx):
    W = np_type(targs(name)[0])
    assert grid[0] == tiles
    r = mem(rec, np.uint64, 5)
    if int(r[4]) != 2**64 - 1:   # some tile did not stage its heads: nothing written
        return
    total = int(r[1])
    starts = mem(offsets, np.int64, tiles)
    ends = np.append(starts[1:], total)
    assert (ends - starts <= STAGE).all(), "a tile that did not stage its heads"
    for b in range(tiles):
        cnt = int(ends[b] - starts[b])
        mem(idx, np.int64, total)[starts[b]:ends[b]] = \
            mem(stage_pos, np.int64, tiles * STAGE)[b * STAGE:b * STAGE + cnt]
        mem(dst, W, total)[starts[b]:ends[b]] = \
            mem(stage_key, W, tiles * STAGE)[b * STAGE:b * STAGE + cnt]


def m_scatter(name, grid, flags, n, thr, offsets, src, row_words, dst, idx, stage_pos,
              stage_key, total):
    flag, K, W = int(targs(name)[0]), np_type(targs(name)[1]), np_type(targs(name)[2])
    f = flags_of(flag, K, flags, n, thr)
    tiles = mem(offsets, np.int64, grid[0])
    assert total == (int(f.sum()) if stage_pos else 0)   # only the staged runs need it
    total = int(f.sum())
    out_idx = mem(idx, np.int64, total) if idx else None
    s = mem(src, W, n * row_words) if src else None
    d = mem(dst, W, total * row_words) if src else None
    ends = np.append(tiles[1:], total)
    for b in range(grid[0]):
        if flag == 1 and stage_pos and ends[b] - tiles[b] <= STAGE:   # staged: moved only
            cnt = int(ends[b] - tiles[b])
            out_idx[tiles[b]:ends[b]] = mem(stage_pos, np.int64, grid[0] * STAGE)[
                b * STAGE:b * STAGE + cnt]
            d[tiles[b]:ends[b]] = mem(stage_key, W, grid[0] * STAGE)[b * STAGE:b * STAGE + cnt]
            continue
        sel = np.flatnonzero(f[b * TILE:(b + 1) * TILE]) + b * TILE
        for rank, i in enumerate(sel):
            p = tiles[b] + rank
            if out_idx is not None:
                out_idx[p] = i
            if s is not None:
                d[p * row_words:(p + 1) * row_words] = s[i * row_words:(i + 1) * row_words]


#: XS_SEG_GAP of segments.cu: the longest gap between neighbouring bins the walk writes
GAP = 1 << 16


def _define(file: str, name: str) -> int:
    """The value of ``#define name`` in a kernel source beside the executor."""
    m = re.search(rf"^#define {name} (\d+)$", _compile.source(file), re.M)
    assert m, (file, name)
    return int(m.group(1))


def m_bins_walk(name, grid, bins, n, n_bins, out, rec):
    """``xs_seg_bins_walk`` lane by lane: warp w of block b walks the 32 * ITEMS
    elements from its start, element start + j * 32 + lane in lane ``lane`` at step
    ``j``; a lane's predecessor is the lane before's element (a shuffle), lane 0's lane
    31's of the step before, or at step 0 the load of the element before the start."""
    items, threads = _define("compaction.cu", "XS_SEG_WALK_ITEMS"), ks._THREADS
    assert kc._WALK_TILE == threads * items
    b = mem(bins, np_type(targs(name)[0]), n)
    r = mem(rec, np.uint64, 3)
    o = mem(out, np.int64, n_bins + 1) if out else None
    assert grid[0] * kc._WALK_TILE >= n + 1

    def at(i):   # xs_seg_bin_at
        if i < 0:
            return -1
        if i >= n:
            return n_bins
        x = int(b[i])
        return -1 if x < 0 or x >= n_bins else x

    bad, outside, over = [], [], False
    for block in range(grid[0]):
        for warp in range(threads // 32):
            start = block * kc._WALK_TILE + warp * 32 * items
            v = [[at(start + j * 32 + lane) for lane in range(32)] for j in range(items)]
            last = at(start - 1)
            for j in range(items):
                for lane in range(32):
                    i, cur = start + j * 32 + lane, v[j][lane]
                    prev = v[j][lane - 1] if lane else last
                    if i < n and cur < 0:
                        outside.append(i)
                    if 0 < i < n and cur < prev:
                        bad.append(i)
                    gap = cur - prev if o is not None and cur > prev else 0
                    assert gap == 0 or i <= n   # past the end both are n_bins
                    if gap > GAP:
                        over = True
                    elif gap:
                        o[prev + 1:cur + 1] = i
                last = v[j][31]
    if bad:
        r[0] = min(bad)
    if outside:
        r[1] = min(outside)
    if over:
        r[2] = 0


def m_bins_fill(name, grid, bins, n, n_bins, out):
    b = mem(bins, np_type(targs(name)[0]), n)
    o = mem(out, np.int64, n_bins + 1)
    assert grid[0] * 256 >= n_bins + 1
    for t in range(n_bins + 1):
        lo, hi = 0, n
        while lo < hi:
            mid = lo + ((hi - lo) >> 1)
            lo, hi = (mid + 1, hi) if int(b[mid]) < t else (lo, mid)
        o[t] = lo


def strided(addr, T, n, d, rs, cs):
    """The (n, d) points at ``addr`` with strides ``rs``, ``cs`` in elements."""
    lo = min(0, (n - 1) * rs, (d - 1) * cs)
    hi = max(0, (n - 1) * rs) + max(0, (d - 1) * cs)
    flat = mem(addr + lo * np.dtype(T).itemsize, T, hi - lo + 1)
    return np.lib.stride_tricks.as_strided(
        flat[-lo:], shape=(n, d), strides=(rs * flat.itemsize, cs * flat.itemsize))


def ordered(x):
    b = np.float64(x).view(np.uint64)
    return int(~b if b >> np.uint64(63) else b | np.uint64(1 << 63))


def m_vox_bounds(name, grid, pts, n, rs, cs, rec):
    T, d = np_type(targs(name)[0]), int(targs(name)[1])
    p = strided(pts, T, n, d, rs, cs).astype(np.float64)
    r = mem(rec, np.uint64, 2 * d + 1)
    finite = np.isfinite(p).all(axis=1)
    if not finite.all():
        r[2 * d] = np.flatnonzero(~finite)[0]
    if finite.any():
        for a in range(d):
            r[a] = ordered(p[finite, a].min())
            r[d + a] = ~np.uint64(ordered(p[finite, a].max()))


def m_vox_keys(name, grid, pts, n, rs, cs, *rest):
    T, d = np_type(targs(name)[0]), int(targs(name)[1])
    *bits, keys = rest
    lo, size, vmin = (np.array(bits[i:i + 3], dtype=np.int64).view(np.float64)[:d]
                      for i in (0, 3, 6))
    p = strided(pts, T, n, d, rs, cs).astype(np.float64)
    cells = [(np.floor((p[:, a] - lo[a]) / size[a]) - vmin[a]).astype(np.uint64)
             for a in range(d)]
    from xstride._host.morton import encode
    mem(keys, np.uint64, n)[:] = encode(cells)


def m_close(name, grid, offsets, total, n, lengths, rec):
    if rec:   # launched before the host read the count: the record's total, if staged
        r = mem(rec, np.uint64, 5)
        if int(r[4]) != 2**64 - 1:
            return
        total = int(r[1])
    off = mem(offsets, np.int64, total + 1)
    if lengths:   # read before the end is written: the last length comes from n
        assert grid[0] * 256 >= min(total, 1)   # a grid-stride loop covers every run
        nxt = np.append(off[1:total], n)
        mem(lengths, np.int64, total)[:] = nxt - off[:total]
    off[total] = n


MODELS = {"xs_vox_bounds": m_vox_bounds, "xs_seg_close": m_close, "xs_vox_keys": m_vox_keys,
          "xs_seg_thread": m_thread, "xs_seg_warp": m_warp, "xs_seg_combine": m_combine,
          "xs_seg_offsets_stats": m_offsets_stats, "xs_seg_count": m_count,
          "xs_seg_scan_tiles": m_scan_tiles, "xs_seg_scatter": m_scatter,
          "xs_seg_copy_staged": m_copy_staged,
          "xs_seg_bins_walk": m_bins_walk, "xs_seg_bins_fill": m_bins_fill}


class Played(list):
    """The stand-in's launch log, playing each launch on its model as it comes."""

    def append(self, item):
        super().append(item)
        kernel, grid, block, args = item
        grid = grid if isinstance(grid, tuple) else (grid,)
        with np.errstate(all="ignore"):
            MODELS[kernel.name.partition("<")[0]](kernel.name, grid, *[a.item() for a in args])


def segments_device(fake, monkeypatch, launches):
    """The body of a fixture: the stand-in CuPy ``fake`` with ``launches`` as its launch
    log (which runs each launch), the indexing the executor uses, and empty caches of
    compiled kernels and launches before and after."""
    fake.launches = launches
    _compile.clear()
    LAUNCHES.clear()
    monkeypatch.setattr(FakeCupyArray, "__setitem__",
                        lambda self, i, v: self.host.__setitem__(i, v), raising=False)
    monkeypatch.setattr(FakeCupyArray, "__sub__",
                        lambda self, o: FakeCupyArray(self.host - o.host), raising=False)
    yield fake
    _compile.clear()
    LAUNCHES.clear()


@pytest.fixture
def dev(fake_cupy, monkeypatch):
    yield from segments_device(fake_cupy, monkeypatch, Played())


def names(fake):
    return [k.name.partition("<")[0] for k, *_ in fake.launches]


def count_record_waits(monkeypatch) -> list:
    """Make the segment executor's record reads note each wait for a queued copy: the
    returned list gains a 1 a wait (a failure path must wait for a copy it queued)."""
    waited = []
    read_later = ks._read_later

    def watched(rec):
        wait = read_later(rec)
        return lambda: waited.append(1) or wait()
    monkeypatch.setattr(ks, "_read_later", watched)
    monkeypatch.setattr(kc, "_read_later", watched)
    return waited


PLANS = [None, (SegmentPlan("warp", 4, True), LongPlan(3, 4)),
         (SegmentPlan("thread", 5, True), LongPlan(1, 12)),
         (SegmentPlan("warp", 12, False), None), (SegmentPlan("thread", 12, False), None)]


@pytest.mark.parametrize("plan", PLANS)
@pytest.mark.parametrize("k", [None, 3, 33])
@pytest.mark.parametrize("dtype, op", [("int64", "sum"), ("uint8", "max"), ("int16", "min"),
                                       ("float64", "sum"), ("float32", "mean"),
                                       ("int32", "prod"), ("uint32", "mean")])
def test_reduce_walks_played(dev, monkeypatch, plan, k, dtype, op):
    if plan is not None:
        monkeypatch.setattr(ks, "plan_segments", lambda n, n_seg, max_len, row_bytes: plan[0])
        monkeypatch.setattr(ks, "plan_long", lambda n_long, max_len: plan[1])
    rng = np.random.default_rng(3)
    low = 1 if dtype.startswith(("int", "uint")) and op in ("min", "max", "mean") else 0
    lens = rng.integers(low, 13, size=9)
    offs = np.concatenate([[0], np.cumsum(lens)]).astype(np.int64)
    vals = values_of(rng, dtype, int(offs[-1]), k)
    want = alg.segment_reduce(vals, offs, op)
    got = alg.segment_reduce(dev.asarray(vals), dev.asarray(offs), op)
    assert isinstance(got, FakeCupyArray)
    assert_close(op, vals, offs, got.get(), want)
    walk = names(dev)
    assert walk[0] == "xs_seg_offsets_stats"
    if plan is not None:
        short = "xs_seg_thread" if plan[0].short == "thread" else "xs_seg_warp"
        long = ["xs_seg_count", "xs_seg_scan_tiles", "xs_seg_scatter", "xs_seg_warp"]
        if plan[1] is not None and plan[1].chunks > 1:
            long.append("xs_seg_combine")
        assert walk[1:] == [short] + (long if plan[0].long else [])


@pytest.mark.parametrize("plan", PLANS)
@pytest.mark.parametrize("dtype", ["int8", "int64", "uint64"])
def test_integer_means_played_bit_for_bit(dev, monkeypatch, plan, dtype):
    """Integer means carry the exact sum (``xs_seg_i128``, two words per partial of the
    long walk): full-range values whose sums leave 64 bits give the host's bits on every
    walk, the chunk combine included."""
    if plan is not None:
        monkeypatch.setattr(ks, "plan_segments", lambda n, n_seg, max_len, row_bytes: plan[0])
        monkeypatch.setattr(ks, "plan_long", lambda n_long, max_len: plan[1])
    rng = np.random.default_rng(17)
    lens = rng.integers(1, 13, size=9)
    offs = np.concatenate([[0], np.cumsum(lens)]).astype(np.int64)
    info = np.iinfo(dtype)
    vals = rng.integers(info.min, info.max, size=(int(offs[-1]), 3), dtype=dtype,
                        endpoint=True)
    vals[offs[1]:offs[2]] = info.max                  # a sum far outside 64 bits
    want = alg.segment_reduce(vals, offs, "mean")
    got = alg.segment_reduce(dev.asarray(vals), dev.asarray(offs), "mean").get()
    assert got.dtype == np.float64 and got.tobytes() == want.tobytes()
    if plan is not None and plan[1] is not None and plan[1].chunks > 1:
        assert names(dev)[-1] == "xs_seg_combine"


def test_plan_choice_reaches_every_walk(dev):
    vals = np.arange(5000.0)
    short = np.arange(0, 5001, 2)
    alg.segment_reduce(dev.asarray(vals), dev.asarray(short))
    assert names(dev)[-1] == "xs_seg_thread"
    del dev.launches[:]
    alg.segment_reduce(dev.asarray(vals), dev.asarray(np.array([0, 100, 5000])))
    assert names(dev) == ["xs_seg_offsets_stats", "xs_seg_warp", "xs_seg_count",
                          "xs_seg_scan_tiles", "xs_seg_scatter", "xs_seg_warp",
                          "xs_seg_combine"]   # 4900 rows > 4096: two chunks
    del dev.launches[:]
    mixed = np.concatenate([np.arange(0, 4000, 2), [4700, 5000]])   # short ones and 700
    got = alg.segment_reduce(dev.asarray(vals), dev.asarray(mixed), "sum")
    np.testing.assert_array_equal(got.get(), alg.segment_reduce(vals, mixed, "sum"))
    assert names(dev) == ["xs_seg_offsets_stats", "xs_seg_thread", "xs_seg_count",
                          "xs_seg_scan_tiles", "xs_seg_scatter", "xs_seg_warp"]


@pytest.mark.parametrize("k", [1, 3, 7])
def test_warp_order_model_is_the_played_walk(dev, monkeypatch, k):
    """The order test_segments_gpu.py checks the device against bit for bit
    (``warp_order_sum``) is the warp walk's order as modelled here."""
    from tests.test_segments_gpu import warp_order_sum

    monkeypatch.setattr(ks, "plan_segments",
                        lambda n, n_seg, max_len, row_bytes: SegmentPlan("warp", 4096, False))
    rng = np.random.default_rng(k)
    G = 32 // k
    lens = np.array([1, G - 1, G + 1, 4 * G, 4 * G + 1, 8 * G + 1, 16 * G + 3, 33] * 2)
    offs = np.concatenate([[0], np.cumsum(lens)]).astype(np.int64)
    vals = rng.normal(size=(int(offs[-1]), k)) * 10.0 ** rng.integers(-8, 8, size=(1, k))
    got = alg.segment_reduce(dev.asarray(vals), dev.asarray(offs)).get()
    assert "xs_seg_warp" in names(dev)
    want = np.stack([warp_order_sum(vals[a:b]) for a, b in zip(offs[:-1], offs[1:])])
    assert got.tobytes() == want.tobytes()
