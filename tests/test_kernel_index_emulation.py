"""Exact Python emulations of the index math of four kernels, run on the host's own
plans and launch geometry: xs_arg_interleave (+ xs_arg_combine), xs_reduce_interleave
with rows of stride rs >= ncols, the 1-byte word staging of xs_reduce_tile, and the
next-tile prefetch of xs_colsplit_scan; and of the walk over two reduced axes
(xs_walk2). Each emulation walks the kernel's loops thread by thread over a flat memory
buffer (the view's base array) and checks every address against the buffer and the
result against NumPy; keep them in step with the kernels."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from xstride._kernels import _reduce_common as rc
from xstride._kernels import argreductions as _arg
from xstride._kernels._colsplit_geometry import colsplit_geometry
from xstride._kernels._geometry import reduction_geometry, tile_rows
from xstride._plans.argreduction import plan_arg_array
from xstride._plans.reduction import plan_reduction
from xstride.layout import Layout

from tests.test_argreductions_host import _better   # the order of xs_arg_better

NONE = (1 << 63) - 1


def _elem_offset(base, view):
    """Element offset of view's first element in base's flat buffer."""
    d = view.__array_interface__["data"][0] - base.__array_interface__["data"][0]
    assert d % base.itemsize == 0
    return d // base.itemsize


def _emulate_arg_interleave(mem, xa, MAX, ncols, nred, chunk, nchunks, rbase, rweight, rs,
                            block):
    B = 8
    worst = -np.inf if MAX else np.inf
    width = ncols * (block // ncols)
    wrows = width // ncols
    total = ncols * nred
    outs = {}
    for b in range(nchunks):
        begin = b * chunk
        end = min(begin + chunk, total)
        sv, si = [worst] * block, [NONE] * block
        for t in range(block):
            bv, bi = worst, NONE
            if t < width:
                j = (begin + t) // ncols
                p = xa + j * rs + t % ncols
                pstep = wrows * rs
                i = begin + t
                while i < end:
                    v = []
                    for k in range(B):
                        ik = i + k * width
                        if ik < end:
                            addr = p + k * pstep
                            assert 0 <= addr < mem.size, (b, t, k, addr)
                            v.append(mem[addr])
                        else:
                            v.append(worst)
                    for k in range(B):
                        idx = rbase + (j + k * wrows) * rweight if i + k * width < end else NONE
                        if _better(MAX, v[k], idx, bv, bi):
                            bv, bi = v[k], idx
                    i += B * width
                    j += B * wrows
                    p += B * pstep
            sv[t], si[t] = bv, bi
        for t in range(ncols):
            bv, bi = sv[t], si[t]
            for u in range(t + ncols, width, ncols):
                if _better(MAX, sv[u], si[u], bv, bi):
                    bv, bi = sv[u], si[u]
            outs[(b, t)] = (bv, bi)
    res = []
    for c in range(ncols):
        bv, bi = worst, NONE
        for b in range(nchunks):
            v, i = outs[(b, c)]
            if _better(MAX, v, i, bv, bi):
                bv, bi = v, i
        res.append(bi)
    return np.array(res)


def _arg_cases():
    rng = np.random.default_rng(3)
    for n, w, k in [(700, 7, 3), (1000, 3, 3), (513, 40, 15), (300, 33, 32), (999, 5, 5)]:
        base = rng.integers(0, 50, size=n * w + 3).astype(np.float64)
        a = base[3:].reshape(n, w)
        yield base, a[:, :k]
        yield base, a[::-1, :k]
        yield base, a[::-3, 1:1 + min(k, w - 1)]
        yield base, a[5:, w - k:]


@pytest.mark.parametrize("case", list(_arg_cases()), ids=lambda c: str(c[1].shape))
@pytest.mark.parametrize("sm", [1, 4])
def test_arg_interleave_emulation(case, sm):
    base, x = case
    plan = plan_arg_array(x, (0,))
    geo = _arg.arg_geometry(plan, sm)
    assert geo.kernel == "interleave", (plan.base.strategy, geo.kernel)
    xa = _elem_offset(base, x) + plan.offset
    for MAX in (0, 1):
        got = _emulate_arg_interleave(base, xa, MAX, plan.base.nrows, plan.base.rowlen,
                                      geo.chunk, geo.nchunks, plan.rbase, plan.rweight[0],
                                      plan.rstride[0], geo.block)
        want = np.argmax(x, axis=0) if MAX else np.argmin(x, axis=0)
        np.testing.assert_array_equal(got, want)


def _emulate_reduce_interleave(mem, xa, ncols, nred, chunk, nchunks, rs, bd):
    total = ncols * nred
    part = np.zeros((nchunks, ncols))
    for b in range(nchunks):
        begin = b * chunk
        end = min(begin + chunk, total)
        sm = np.zeros(bd)
        for t in range(bd):
            col = t % ncols
            first = begin + t
            count = (end - first + bd - 1) // bd if end > first else 0
            base = xa + (first // ncols) * rs + col
            rstep = (bd // ncols) * rs
            acc = 0.0
            for u in range(count):
                addr = base + u * rstep
                assert 0 <= addr < mem.size
                acc += mem[addr]
            sm[t] = acc
        for t in range(ncols):
            part[b, t] = sum(sm[u] for u in range(t, bd, ncols))
    return part.sum(axis=0)


@pytest.mark.parametrize("case", list(_arg_cases()), ids=lambda c: str(c[1].shape))
def test_reduce_interleave_emulation(case):
    base, x = case
    plan = plan_reduction(Layout.from_array(x), (0,))
    assert plan.strategy == "interleave", plan.strategy
    geo = reduction_geometry(plan, x.itemsize, 2, 0, resident=2)
    xa = _elem_offset(base, x) + plan.offset
    got = _emulate_reduce_interleave(base, xa, plan.nrows, plan.rowlen, geo.chunk,
                                     geo.nchunks, plan.rstride[0], geo.block[0])
    np.testing.assert_array_equal(got, x.sum(axis=0))


def _emulate_reduce_interleave_words(x, ncols, nred, chunk, nchunks, bd, V):
    """xs_reduce_interleave with V > 1: the flat run ``x`` read as words of V elements
    (every whole word checked inside the run), the partial last word element by
    element by the thread whose word it is, each lane's column checked, the lanes
    folded in groups of columns, the groups and the chunks in order."""
    total = ncols * nred
    assert (bd * V) % ncols == 0 and chunk % (bd * V) == 0
    part = np.zeros((nchunks, ncols), dtype=np.int64)
    seen = np.zeros(total, dtype=np.int64)
    for b in range(nchunks):
        begin = b * chunk
        end = min(begin + chunk, total)
        nw = (end - begin) // V
        sw = np.zeros(bd * V, dtype=np.int64)
        for t in range(bd):
            count = (nw - t + bd - 1) // bd if nw > t else 0
            for u in range(count):
                w0 = begin + t * V + u * bd * V
                assert w0 + V <= end and w0 % V == 0
                for j in range(V):
                    assert (w0 + j) % ncols == (t * V + j) % ncols
                    sw[t * V + j] += x[w0 + j]
                    seen[w0 + j] += 1
            if t == nw % bd:
                e0 = begin + nw * V
                for j in range(V):
                    if e0 + j < end:
                        assert (e0 + j) % ncols == (t * V + j) % ncols
                        sw[t * V + j] += x[e0 + j]
                        seen[e0 + j] += 1
        G = bd // ncols
        groups = [sum(sw[v] for v in range(t, bd * V, G * ncols)) for t in range(G * ncols)]
        for c in range(ncols):
            part[b, c] = sum(groups[k * ncols + c] for k in range(G))
    np.testing.assert_array_equal(seen, 1)      # every element folded once
    return part.sum(axis=0)


@pytest.mark.parametrize("itemsize", [1, 2, 4, 8])
@pytest.mark.parametrize("sm", [1, 3])
def test_reduce_interleave_words_emulation(itemsize, sm):
    rng = np.random.default_rng(itemsize)
    dtype = {1: np.int8, 2: np.int16, 4: np.int32, 8: np.int64}[itemsize]
    # k = 6, 10, 12, 24, 30: a block width that is not a multiple of k for some V
    for k, n in [(2, 3), (3, 5), (3, 1001), (5, 777), (7, 2048), (16, 300), (31, 99),
                 (32, 257), (9, 12_345), (6, 999), (10, 555), (12, 2001), (24, 333),
                 (30, 77)]:
        x = rng.integers(-50, 50, size=(n, k)).astype(dtype)
        plan = plan_reduction(Layout.from_array(x), (0,))
        assert plan.strategy == "interleave", plan.strategy
        geo = reduction_geometry(plan, itemsize, sm, 0, resident=2, words=True)
        assert geo.vec == 16 // itemsize
        got = _emulate_reduce_interleave_words(x.ravel(), k, n, geo.chunk, geo.nchunks,
                                               geo.block[0], geo.vec)
        np.testing.assert_array_equal(got, x.astype(np.int64).sum(axis=0))


@pytest.mark.parametrize("itemsize", [1, 2, 4, 8])
def test_interleave_words_geometry_for_every_width(itemsize):
    """Every column count 2..32, several lengths and wave sizes: the block's lanes a
    multiple of the column count, every chunk a whole number of the block's lanes, at
    most 256 threads, at least one group of lanes per column."""
    V = 16 // itemsize
    for k in range(2, 33):
        for n in (1, 7, 1000, 123_457):
            x = np.zeros((n + 1, k), dtype=f"i{itemsize}")
            plan = plan_reduction(Layout.from_array(x), (0,))
            assert plan.strategy == "interleave", (k, plan.strategy)
            for sm, resident in ((1, 1), (4, 2), (132, 3)):
                geo = reduction_geometry(plan, itemsize, sm, 0, resident=resident, words=True)
                bd = geo.block[0]
                assert geo.vec == V and k <= bd <= 256 and (bd * V) % k == 0, (k, bd)
                assert geo.chunk % (bd * V) == 0 and geo.grid == (geo.nchunks,)
                assert (geo.nchunks - 1) * geo.chunk < (n + 1) * k <= geo.nchunks * geo.chunk


def test_words_only_where_their_lanes_fit_shared_memory():
    """``takes_words``: real, integer and bool inputs whose 256 * V accumulators fit
    32 KiB (the 48 KiB a block may declare, with room): every accumulator the
    reductions use (sums, products, means and var's into int64/uint64/float64/complex128,
    min/max into the input widened to 32 bits, all/any into int32) for every input."""
    accs = [np.int64, np.uint64, np.float64, np.complex128, np.int32, np.uint32, np.float32]
    for dt in rc.REDUCED:
        for acc in map(np.dtype, accs):
            ok = rc.takes_words(dt, acc)
            fits = 256 * (16 // dt.itemsize) * acc.itemsize <= rc.WORDS_SHARED_BYTES
            assert ok == (dt.kind in "biuf" and fits), (dt, acc)
            assert not ok or 256 * (16 // dt.itemsize) * acc.itemsize <= 48 * 1024
    # sum(b, axis=0, dtype=complex128) of bool, int8, uint8: 64 KiB of lanes
    for dt in (np.bool_, np.int8, np.uint8):
        assert not rc.takes_words(dt, np.complex128)
    assert rc.takes_words(np.int8, np.int64) and rc.takes_words(np.float32, np.complex128)


def test_interleave_words_needs_one_aligned_run():
    """Words only for one contiguous run at a 16-byte address of 1-8 byte elements;
    the element walk otherwise, and for fused inputs (``words=False``)."""
    x = np.zeros((1000, 8), dtype=np.float32)
    plan = plan_reduction(Layout.from_array(x), (0,))
    assert reduction_geometry(plan, 4, 2, 0, words=True).vec == 4
    assert reduction_geometry(plan, 4, 2, 8, words=True).vec == 1      # misaligned
    assert reduction_geometry(plan, 4, 2, 0).vec == 1                  # not asked
    cols = plan_reduction(Layout.from_array(x[:, :3]), (0,))           # rows of 8
    assert cols.strategy == "interleave"
    assert reduction_geometry(cols, 4, 2, 0, words=True).vec == 1
    wide = plan_reduction(Layout.from_array(np.zeros((100, 3), np.complex128)), (0,))
    assert reduction_geometry(wide, 16, 2, 0, words=True).vec == 1


# ----------------------------------------------------------------------------- tile, 1 byte
def _padded(TB, size):
    elems = TB // size
    return (elems + (elems // 32 if elems // 32 > 32 else 32) + 15) // 16 * 16


@pytest.mark.parametrize("variant", rc.VARIANTS["tile"])
def test_tile_one_byte_words_fit_and_stay_in_units(variant):
    """For every 1-byte row shape the plan stages, every alignment of the view and
    either sign of the kept stride: the staged words fit the shared array and every
    word read lies in a 16-byte unit that holds a byte of the view."""
    _, _, TB, most = variant
    cap = _padded(TB, 1)
    for rowlen in range(2, 193):
        for ks in sorted({rowlen, rowlen + 1, 2 * rowlen, rowlen + 7}):
            if ks > 2 * rowlen:
                continue
            nrows = 3000
            for sign in (1, -1):
                lay = Layout((nrows, rowlen), (sign * ks, 1), 0 if sign > 0 else (nrows - 1) * ks, 1)
                plan = plan_reduction(lay, (1,))
                if plan.strategy != "tile":
                    continue
                R = tile_rows(plan.kstride[0], rowlen, 1, TB, most)
                for addr0 in (0, 1, 7, 15):       # byte address of the view's lowest byte
                    lo_view, hi_view = addr0, addr0 + (nrows - 1) * ks + rowlen
                    xa = addr0 + plan.offset    # row 0's first byte
                    for r0 in itertools.chain(range(0, nrows, R)):
                        nt = min(R, nrows - r0)
                        k = plan.kstride[0]
                        lo = r0 * k if k >= 0 else (r0 + nt - 1) * k
                        span = (nt - 1) * abs(k) + rowlen
                        a = xa + lo
                        shift = a & 15
                        nw = (shift + span + 15) >> 4
                        assert nw * 16 <= cap, (rowlen, ks, R, nt, shift)
                        w0, w1 = a - shift, a - shift + 16 * nw
                        assert w0 >= (lo_view & ~15) and w1 <= ((hi_view + 15) & ~15)
                        for t in (0, nt - 1):
                            o = shift + (r0 + t) * k - lo
                            assert 0 <= o and o + rowlen <= 16 * nw


def _bank_ways(stride, size, sh):
    """Most threads of one shared-memory request of the tile kernel's fold (thread t
    reads element t * stride + j, staged at e + (e >> sh)) on one bank, averaged over j:
    4-byte elements a warp over 32 banks, 8-byte ones a half-warp over 16 bank pairs."""
    ways = []
    for j in range(stride):
        e = np.arange(32) * stride + j
        p = e + (e >> sh)
        if size == 4:
            ways.append(np.bincount(p % 32).max())
        else:
            ways.append(max(np.bincount(p[h:h + 16] % 16).max() for h in (0, 16)))
    return float(np.mean(ways))


@pytest.mark.parametrize("size", [4, 8])
def test_tile_rows_meet_few_banks(size):
    """The staged tile's rule (reductions.cu, xs_reduce_tile): rows 2 or a multiple of
    4 elements apart padded after every 32 elements, others unpadded. For every stride
    the plan stages (at most 2 * 192): odd strides meet every bank once, strides of 2
    mod 4 at most twice (padded, 31, 62, 93, ... met one bank 16-24 times for 4-byte
    elements); the padded ones, which unpadded would meet a bank at least 4 times (2
    apart: twice, padded no more), at most 8 times."""
    for stride in range(1, 385):
        padded, unpadded = _bank_ways(stride, size, 5), _bank_ways(stride, size, 31)
        if stride % 2:
            assert unpadded == 1.0, stride
        elif stride % 4 and stride != 2:
            assert unpadded <= 2.0, stride
        elif stride == 2:
            assert padded <= unpadded == 2.0, stride
        else:
            assert unpadded >= 4.0 and padded <= 8.0, stride
    assert _bank_ways(31, 4, 5) > 20 and _bank_ways(62, 4, 5) == 16.0


# ----------------------------------------------------------------------------- colsplit
@pytest.mark.parametrize("n,k,size", [(5000, 3, 4), (4097, 32, 8), (100000, 7, 4),
                                      (70001, 16, 1), (9999, 2, 8)])
@pytest.mark.parametrize("reverse", [False, True])
def test_colsplit_prefetch_emulation(n, k, size, reverse):
    """The scan kernel's staging with the prefetch reads exactly the chunk's elements
    (thread (j, c) = (t / k, t % k) loads x + (tr + j) * rs + c + s * m * rs, rs = k, or
    -k for reversed rows), whole tiles without bounds tests and the last one with them;
    every staged element is the one of its tile (none stale). The fold pass's pointer
    walk (x + (r0 + t / k) * rs + t % k, then m * rs a step) meets every element of its
    chunk once. Memory holds row r of the scan at x + r * rs."""
    g = colsplit_geometry(n, k, size, size, 5)
    m = 256 // k
    T = m * k
    L = g.run
    R = m * L
    rs = -k if reverse else k
    base = (n - 1) * k if reverse else 0          # x: row 0 of the scan in memory
    mem = np.arange(n * k)                          # memory element e holds e

    def scan_flat(f):                               # flat element f in scan order
        r, c = divmod(f, k)
        return mem[base + r * rs + c]

    for b in range(g.chunks):
        r0 = b * g.chunk_rows
        r1 = min(r0 + g.chunk_rows, n)
        # the fold: each thread's pointer walk, B-step loop and tail alike
        seen = []
        for t in range(T):
            p, i = base + (r0 + t // k) * rs + t % k, r0 * k + t
            while i < r1 * k:
                assert 0 <= p < n * k
                seen.append(mem[p])
                assert mem[p] == scan_flat(i)
                p, i = p + m * rs, i + T
        assert sorted(seen) == sorted(scan_flat(f) for f in range(r0 * k, r1 * k))
        v = [[None] * L for _ in range(T)]

        def load(tr):
            whole = r1 - tr >= R
            ne = (r1 - tr) * k
            for t in range(T):
                j, c = divmod(t, k)
                src = base + (tr + j) * rs + c
                for s in range(L):
                    if whole or t + s * T < ne:
                        e = src + s * m * rs
                        assert 0 <= e < n * k
                        assert scan_flat(tr * k + t + s * T) == mem[e]
                        assert r0 * k <= tr * k + t + s * T < r1 * k
                        v[t][s] = (tr, mem[e])
        if r0 < r1:
            load(r0)
        tr = r0
        while tr < r1:
            nt = min(r1 - tr, R)
            ne = nt * k
            for t in range(T):
                for s in range(L):
                    if t + s * T < ne:
                        assert v[t][s] == (tr, scan_flat(tr * k + t + s * T))
            if tr + R < r1:
                load(tr + R)
            tr += R


class _Walk2:
    """xs_walk2 (detail/reduce_ops.cuh), line by line."""

    def __init__(self, i, step, n1, s0, s1):
        q, sq = i // n1, step // n1
        self.n1, self.i1 = n1, i - q * n1
        self.off = q * s0 + self.i1 * s1
        self.rem = step - sq * n1
        self.adv, self.carry = sq * s0 + self.rem * s1, s0 - n1 * s1

    def next(self):
        self.i1 += self.rem
        self.off += self.adv
        if self.i1 >= self.n1:
            self.i1 -= self.n1
            self.off += self.carry


@pytest.mark.parametrize("step", [1, 8, 32, 256])
def test_walk_of_two_reduced_axes_meets_the_division(step):
    """The walk's offsets equal xs_offset's (a division per element) for every start
    below the step and inner extents below, at and above it, negative strides too
    (the walks of the short, column and row kernels: steps 1, 8, 32, 256)."""
    for n1 in (1, 2, 3, 7, 8, 9, 31, 32, 33, 255, 256, 257, 1000):
        for s0, s1 in ((n1 * 5, 1), (7, 3 * 7 * n1 + 1), (-4 * n1, 2)):
            n0 = 3 + 2 * step // n1
            want = [(i // n1) * s0 + (i % n1) * s1 for i in range(n0 * n1)]
            for start in sorted({0, 1, step // 2, step - 1}):
                w = _Walk2(start, step, n1, s0, s1)
                for i in range(start, n0 * n1, step):
                    assert w.off == want[i], (step, n1, s0, s1, start, i)
                    w.next()


def _run_take(mx, bv, bj, v, j, forward):
    """xs_arg_run::take (argreductions.cu), line by line."""
    vn, bn = v != v, bv != bv
    better = (v > bv) if mx else (v < bv)
    at_least = (v >= bv) if mx else (v <= bv)
    win = ((vn and not bn) or (not vn and better)) if forward else (vn or (not bn and at_least))
    return (v, j) if bj < 0 or win else (bv, bj)


@pytest.mark.parametrize("mx", [0, 1])
def test_arg_run_keeps_the_pair_order(mx):
    """A lane's best value and position (xs_arg_run), its index formed at the end,
    is the best pair by xs_arg_better's order (NaN first, then value, then the
    smaller index) for walks whose index rises (rw > 0) or falls (rw < 0) with the
    position, over values with many ties, NaN, infinities and signed zeros."""
    rng = np.random.default_rng(mx)
    pool = np.array([np.nan, -np.inf, np.inf, -0.0, 0.0, 1.0, -1.0, 2.0], np.float32)
    for trial in range(400):
        n = int(rng.integers(1, 12))
        vals = rng.choice(pool, n)
        rbase, rw = (0, 1) if trial % 2 else (n - 1, -1)
        bv, bj = np.float32(np.inf if not mx else -np.inf), -1
        for j, v in enumerate(vals):
            bv, bj = _run_take(mx, bv, bj, v, j, rw > 0)
        best = None
        for j, v in enumerate(vals):
            if best is None or _better(mx, v, rbase + j * rw, *best):
                best = (v, rbase + j * rw)
        assert rbase + bj * rw == best[1], (vals, rw)
