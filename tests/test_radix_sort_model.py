"""The device radix sort (``radix_sort.cu``, executor ``xstride/_kernels/sort.py``) on
the CPU: the real executor runs on the stand-in CuPy (tests/conftest.py), and each of
its launches runs a NumPy MODEL of that kernel on the launch's own arguments (device
pointers are host addresses there): the OR of the keys, the histogram of every digit
place, the exclusive offsets, and the one-sweep pass step by step as the CUDA code does
it: tiles taken from the atomic counter in the scratch, warp multi-split ranking (the
the peers from one ballot per digit bit, the leader's counter update) over the warp-striped loads,
the counts over warps, the block's exclusive scan, the 64-bit look-back words with
their pass tags and flags written into the real scratch, the look-back walk, the slots
of the tile sorted in shared memory, and the scatter. Blocks publish their aggregates
first and look back in a random order, so both ways out of the walk (the tile before
has its inclusive count out, or the walk adds aggregates first) run.

What this cannot show (tests/test_radix_sort_gpu.py on a device does): NVRTC's code,
the memory model of the spin loop, timing.
"""

from __future__ import annotations

import ctypes
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from xstride._core.dtypes import DTYPE_OF_C
from xstride._kernels import _compile
from xstride._kernels import sort as ks
from xstride._plans import radix_sort as rp

from tests.conftest import FakeCupy, FakeCupyArray, installed_fake_cupy

INT_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
SENTINEL = 0xFFFFFFFF


def mem(ptr: int, dtype, count: int) -> np.ndarray:
    """``count`` elements of ``dtype`` at the (host) address ``ptr``, writable."""
    dt = np.dtype(dtype)
    if count == 0:
        return np.empty(0, dt)
    return np.frombuffer((ctypes.c_char * (count * dt.itemsize)).from_address(int(ptr)), dt)


def digits(keys_u: np.ndarray, flip: int, shift: int, mask: int) -> np.ndarray:
    """``xs_radix_digit``: ((key ^ flip) >> shift) & mask of unsigned keys."""
    u = keys_u.astype(np.uint64) ^ np.uint64(flip)
    return ((u >> np.uint64(shift)) & np.uint64(mask)).astype(np.int64)


def word(tag: int, flag: int, count: int) -> np.uint64:
    return np.uint64((tag << 60) | (flag << 58) | count)


class Device:
    """Runs the models of radix_sort.cu's kernels; counts what ran."""

    def __init__(self, seed: int):
        self.rng = np.random.default_rng(seed)
        self.ran = []
        self.types = []   # the key sizes of each launch's template arguments
        self.modules = []   # the name expressions of each module compiled
        self.walks = {"at once": 0, "through aggregates": 0}
        self.gathers = []   # VBYTES of each pass
        self.carried = []   # CARRY of each pass

    def run(self, name: str, grid, block, args):
        grid = grid[0] if isinstance(grid, tuple) else grid
        block = block[0] if isinstance(block, tuple) else block
        m = re.fullmatch(r"(\w+)(?:<(.*)>)?", name)
        kernel, targs = m.group(1)[len("xs_radix_"):], (m.group(2) or "")
        self.ran.append(kernel)
        types = [np.dtype(DTYPE_OF_C[t.strip()]) for t in targs.split(",")
                 if t.strip() in DTYPE_OF_C]
        ktype = types[0] if types else None
        self.types.append(tuple(t.itemsize for t in types))
        assert block == rp.THREADS, (name, block)
        model = getattr(self, "or_" if kernel == "or" else kernel)
        model(ktype, targs, grid, [int(a) for a in args])

    # --- xs_radix_or<K>(keys, n, out)
    def or_(self, K, targs, grid, args):
        keys, n, out = args
        o = mem(out, np.uint64, 1)
        k = mem(keys, K, n).astype(np.uint64)
        o[0] |= np.bitwise_or.reduce(k) if n else np.uint64(0)

    # --- xs_radix_histogram<K>(keys, n, flip, places, bits, hist)
    def histogram(self, K, targs, grid, args):
        keys, n, flip, places, bits, hist = args
        h = mem(hist, np.uint64, places * rp.BINS)
        k = mem(keys, K, n)
        for p in range(places):
            mask = 0xFF if bits - 8 * p >= 8 else (1 << (bits - 8 * p)) - 1
            h[p * rp.BINS:(p + 1) * rp.BINS] += np.bincount(
                digits(k, flip, 8 * p, mask), minlength=rp.BINS).astype(np.uint64)

    # --- xs_radix_offsets(hist), one block per place
    def offsets(self, K, targs, grid, args):
        (hist,) = args
        h = mem(hist, np.uint64, grid * rp.BINS).reshape(grid, rp.BINS)
        h[:] = np.cumsum(h, axis=1) - h

    # --- xs_radix_onesweep<KIN, K, KOUT, IIN, IOUT, ITEMS, MINB[, VBYTES]>(kin, kout, iin,
    #         iout, n, flip, shift, mask, offsets, status, counter, tag, vals_in, vals_out)
    def onesweep(self, K, targs, grid, args):
        kin_t, k_t, kout_t, iin_t, iout_t = (np.dtype(DTYPE_OF_C[t.strip()])
                                             for t in targs.split(",")[:5])
        items = int(targs.split(",")[5])
        vbytes = int(targs.split(",")[7]) if len(targs.split(",")) > 7 else 0
        carry = len(targs.split(",")) > 8 and targs.split(",")[8].strip() == "true"
        # a pass that moves values has its own blocks per SM
        assert int(targs.split(",")[6]) == rp.TUNING["carry_min_blocks" if vbytes else "min_blocks"]
        assert K == kin_t and k_t.itemsize <= min(kin_t.itemsize, kout_t.itemsize)
        (kin, kout, iin, iout, n, flip, shift, mask, offs, status, counter, tag,
         vin, vout) = args
        # values only with VBYTES, and only in the pass that writes the int64 order
        assert (vin != 0) == (vout != 0) == (vbytes > 0)
        assert not vbytes or carry or iout_t == np.int64   # a gather: the last pass
        self.gathers.append(vbytes)
        self.carried.append(carry)
        flip &= (1 << (8 * k_t.itemsize)) - 1                   # (K)flip64
        assert grid == -(-n // (rp.THREADS * items))
        # the pass ranks keys as k_t: (K)keys_in[i] truncates to the narrow type
        keys_in = mem(kin, kin_t, n).astype(k_t)
        keys_out = mem(kout, kout_t, n)
        idx_in = None if iin == 0 else mem(iin, iin_t, n)
        idx_out = mem(iout, iout_t, n)
        bin_off = mem(offs, np.uint64, rp.BINS).astype(np.int64)
        st = mem(status, np.uint64, grid * rp.BINS)
        ctr = mem(counter, np.uint32, 1)
        tile_size = rp.THREADS * items
        warps, seg_len = rp.THREADS // 32, 32 * items
        lanes = np.arange(32)
        blocks = []
        # phase 1, every block: its tile from the counter, ranks, aggregate published
        for _ in range(grid):
            tile = int(ctr[0])
            ctr[0] += 1
            t0 = tile * tile_size
            warp_cnt = np.zeros((warps, rp.BINS), np.int64)
            items_of = []   # (index, digit, warp, rank) of the valid keys
            for w in range(warps):
                seg = t0 + w * seg_len
                for j in range(items):
                    i = seg + j * 32 + lanes
                    valid = i < n
                    d = np.full(32, SENTINEL, np.int64)
                    d[valid] = digits(keys_in[i[valid]], flip, shift, mask)
                    # xs_radix_peers: the valid lanes that agree on each of the 8 bits
                    peers = valid[None, :] & valid[:, None]
                    for b in range(8):
                        bit = (d >> b) & 1
                        peers &= bit[:, None] == bit[None, :]
                    peers |= np.eye(32, dtype=bool)   # an invalid lane: itself alone
                    below = np.tril(peers, -1).sum(axis=1)      # popc(peers & lanemask_lt)
                    total = peers.sum(axis=1)                  # popc(peers)
                    leader = valid & (below == 0)
                    base = np.where(valid, warp_cnt[w, np.where(valid, d, 0)], 0)
                    np.add.at(warp_cnt[w], d[leader], total[leader])
                    for lane in np.flatnonzero(valid):
                        items_of.append((int(i[lane]), int(d[lane]), w,
                                         int(base[lane] + below[lane])))
            count = warp_cnt.sum(axis=0)
            warp_excl = np.cumsum(warp_cnt, axis=0) - warp_cnt
            start = np.cumsum(count) - count
            assert st[tile * rp.BINS] == 0 or (int(st[tile * rp.BINS]) >> 60) != tag
            flag = 2 if tile == 0 else 1
            st[tile * rp.BINS:(tile + 1) * rp.BINS] = [word(tag, flag, int(c)) for c in count]
            blocks.append((tile, items_of, count, warp_excl, start))
        assert sorted(b[0] for b in blocks) == list(range(grid))
        # phase 2, in a random order: look back, inclusive published, scatter
        for b in self.rng.permutation(grid):
            tile, items_of, count, warp_excl, start = blocks[b]
            excl = np.zeros(rp.BINS, np.int64)
            if tile > 0:
                for d in range(rp.BINS):
                    k = tile - 1
                    while k >= 0:
                        w = int(st[k * rp.BINS + d])
                        assert w >> 60 == tag and (w >> 58) & 3 in (1, 2), \
                            f"tile {tile} digit {d}: tile {k} has not published"
                        excl[d] += w & ((1 << 58) - 1)
                        if (w >> 58) & 3 == 2:
                            self.walks["at once" if k == tile - 1 else "through aggregates"] += 1
                            break
                        k -= 1
                    assert k >= 0, "walked past tile 0 (tile 0 publishes an inclusive count)"
                    st[tile * rp.BINS + d] = word(tag, 2, int(excl[d] + count[d]))
            base = bin_off + excl - start                       # s_base
            t0 = tile * tile_size
            tile_n = min(tile_size, n - t0)
            s_keys = np.zeros(tile_size, k_t)
            s_idx = np.zeros(tile_size, iout_t)   # (IOUT)idx_in[i], or (IOUT)i
            filled = np.zeros(tile_size, np.int64)
            for i, d, w, r in items_of:
                slot = start[d] + warp_excl[w, d] + r
                s_keys[slot] = keys_in[i]
                s_idx[slot] = i if idx_in is None else idx_in[i]
                assert s_idx[slot] == (i if idx_in is None else idx_in[i]), "index narrowed"
                filled[slot] += 1
            assert (filled[:tile_n] == 1).all() and not filled[tile_n:].any(), "slots"
            dk = digits(s_keys[:tile_n], flip, shift, mask)
            assert (np.diff(dk) >= 0).all(), "the tile is not sorted by digit"
            pos = base[dk] + np.arange(tile_n)
            keys_out[pos] = s_keys[:tile_n].astype(kout_t)
            idx_out[pos] = s_idx[:tile_n]
            word_t = np.dtype(f"u{vbytes}") if vbytes else None   # rows as unsigned words
            if vbytes and carry:   # the rows of the tile move with its keys, by slot
                s_val = np.zeros(tile_size, word_t)
                vals_in = mem(vin, word_t, n)
                for i, d, w, r in items_of:
                    s_val[start[d] + warp_excl[w, d] + r] = vals_in[i]
                mem(vout, word_t, n)[pos] = s_val[:tile_n]
            elif vbytes:   # vals_out[at] = vals_in[s_idx[i]]
                mem(vout, word_t, n)[pos] = mem(vin, word_t, n)[s_idx[:tile_n]]


class EmuCupy(FakeCupy):
    """The stand-in CuPy whose kernels run :class:`Device`'s models."""

    def __init__(self, device: Device):
        super().__init__()
        self.dev = device

    def RawModule(self, code=None, options=(), name_expressions=None, **kwargs):  # noqa: N802
        dev = self.dev
        dev.modules.append(tuple(name_expressions or ()))

        class Kernel:
            def __init__(self, name):
                self.name = name

            def __call__(self, grid, block, args, shared_mem=0, stream=None, **kw):
                dev.run(self.name, grid, block, args)

        def get_function(name):
            assert name in name_expressions, (name, name_expressions)
            return Kernel(name)

        return type("Module", (), {"get_function": staticmethod(get_function)})()

    def take(self, a, order, axis=0):
        return FakeCupyArray(np.take(a.host, order.host, axis=axis))

    def arange(self, n, dtype=None):
        return FakeCupyArray(np.arange(n, dtype=dtype))

    def empty_like(self, a):
        return FakeCupyArray(np.empty_like(a.host))


@pytest.fixture
def device(monkeypatch):
    """A :class:`Device` behind an installed :class:`EmuCupy`; caches of compiled
    kernels and launches emptied before and after."""
    monkeypatch.setattr(FakeCupyArray, "view",
                        lambda self, dtype: self._view(self.host.view(dtype)), raising=False)
    dev = Device(0)
    _compile.clear()
    ks._LAUNCHES.clear()
    with installed_fake_cupy(EmuCupy(dev)):
        yield dev
    _compile.clear()
    ks._LAUNCHES.clear()


def emulated_sort(keys: np.ndarray, *values, key_bits=None):
    """The executor's result for host arrays, as host arrays."""
    out = ks.sort_by_key(FakeCupyArray(keys.copy()), [FakeCupyArray(v) for v in values],
                         key_bits)
    return [o.host for o in out]


def check(device, keys, *values, key_bits=None):
    got = emulated_sort(keys, *values, key_bits=key_bits)
    want = np.argsort(keys, kind="stable")
    np.testing.assert_array_equal(got[1], want)
    assert got[1].dtype == np.int64 and got[0].dtype == keys.dtype
    np.testing.assert_array_equal(got[0], keys[want])
    for g, v in zip(got[2:], values):
        np.testing.assert_array_equal(g, np.take(v, want, axis=0))
    return got


# ---------------------------------------------------------------- the model, end to end
@pytest.mark.parametrize("n", [1, 2, 33, rp.TILE - 1, rp.TILE, rp.TILE + 1, 3 * rp.TILE + 7])
def test_sizes_around_the_tile(device, n):
    rng = np.random.default_rng(n)
    keys = rng.integers(0, max(2, n // 40), size=n).astype(np.uint64)   # many duplicates
    check(device, keys, rng.normal(size=(n, 2)))
    passes = device.ran.count("onesweep")
    assert passes == -(-max(1, int(keys.max()).bit_length()) // 8) or keys.max() == 0


def test_walks_take_both_ways_out(device):
    rng = np.random.default_rng(1)
    n = 9 * rp.TILE + 100
    check(device, rng.integers(0, 1 << 20, size=n, dtype=np.uint64))
    assert device.walks["at once"] > 0 and device.walks["through aggregates"] > 0, device.walks
    assert device.ran[:3] == ["or", "histogram", "offsets"]
    assert device.ran[3:] == ["onesweep"] * 3


@pytest.mark.parametrize("dtype", INT_DTYPES)
def test_every_dtype_full_range(device, dtype):
    info = np.iinfo(dtype)
    rng = np.random.default_rng(info.bits)
    n = 2 * rp.TILE + 5
    keys = rng.integers(info.min, info.max, size=n, endpoint=True, dtype=dtype)
    keys[:4] = [info.max, info.min, info.max, info.min]
    check(device, keys, np.arange(n))
    check(device, keys, key_bits=info.bits)


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(n=st.integers(0, 3 * rp.TILE + 50), dtype=st.sampled_from(INT_DTYPES),
       bits=st.integers(1, 64), distinct=st.integers(1, 10_000), negative=st.booleans(),
       pass_bits=st.booleans(), seed=st.integers(0, 2**32 - 1))
def test_random_keys(device, n, dtype, bits, distinct, negative, pass_bits, seed):
    rng = np.random.default_rng(seed)
    info = np.iinfo(dtype)
    top = min(bits, info.bits - (info.min < 0))
    pool = rng.integers(0, 2**top, size=distinct, dtype=np.uint64, endpoint=False)
    keys = pool[rng.integers(0, distinct, size=n)].astype(dtype)
    if negative and info.min < 0 and n:
        keys[rng.random(n) < 0.4] = info.min + rng.integers(0, 3)
    key_bits = None
    if pass_bits:
        key_bits = info.bits if (keys < 0).any() else top
    check(device, keys, np.arange(n, dtype=np.int64), key_bits=key_bits)


@pytest.mark.parametrize("items", [1, 2, 7, rp.MAX_ITEMS])
def test_other_tile_sizes(device, monkeypatch, items):
    monkeypatch.setitem(rp.TUNING, "items", items)
    rng = np.random.default_rng(items)
    n = 40 * rp.THREADS * items + 3
    keys = rng.integers(-300, 300, size=n).astype(np.int16)
    keys[rng.random(n) < 0.5] = 7
    check(device, keys, np.arange(n, dtype=np.int64))
    assert device.walks["through aggregates"] > 0


def test_no_bits_no_passes(device):
    got = check(device, np.zeros(5000, np.int16))
    assert "onesweep" not in device.ran and got[1].tolist() == list(range(5000))
    device.ran.clear()
    got = emulated_sort(np.zeros(0, np.uint32), np.zeros((0, 3)))
    assert [g.shape for g in got] == [(0,), (0,), (0, 3)] and device.ran == []


def test_key_bits_skips_the_or_and_narrows_the_keys(device):
    rng = np.random.default_rng(4)
    keys = rng.integers(0, 1 << 30, size=5 * rp.TILE, dtype=np.uint64)
    check(device, keys, key_bits=30)
    assert device.ran == ["histogram", "offsets"] + ["onesweep"] * 4
    # 64-bit keys of 30 bits move as 32-bit keys: narrowed in the first pass, widened
    # in the last; the permutation moves as uint32 between passes
    assert device.types[2:] == expected(8, 4, 4, 4), device.types


def expected(item: int, narrow: int, passes: int, index: int) -> list:
    """The sizes (KIN, K, KOUT, IIN, IOUT) of each pass: keys of ``item`` bytes moved as
    ``narrow``, the permutation as ``index`` between passes; the first pass narrows,
    the last widens, the only one does both (with an int64 permutation)."""
    if passes == 1:
        return [(item, narrow, item, 8, 8)]
    return [(item, narrow, narrow, index, index)] \
        + [(narrow, narrow, narrow, index, index)] * (passes - 2) \
        + [(narrow, narrow, item, index, 8)]


@pytest.mark.parametrize("dtype,bits,narrow,passes", [
    (np.uint64, 12, 2, 2), (np.int64, 40, 8, 5), (np.int32, 8, 1, 1), (np.uint16, 9, 2, 2),
    (np.int64, 63, 8, 8), (np.uint32, 17, 4, 3), (np.uint64, 64, 8, 8), (np.int8, 8, 1, 1)])
def test_narrowed_passes(device, dtype, bits, narrow, passes):
    rng = np.random.default_rng(bits)
    keys = rng.integers(0, 2**bits, size=3 * rp.TILE + 9, dtype=np.uint64).astype(dtype)
    check(device, keys, key_bits=bits)
    item = np.dtype(dtype).itemsize
    assert device.types[2:] == expected(item, narrow, passes, 4), device.types


def test_a_first_sort_compiles_its_prelude_and_each_pass_alone(device):
    """One module for the OR/histogram/offsets kernels and one per distinct pass, so
    the passes of a first sort compile side by side."""
    keys = np.arange(3 * rp.TILE, dtype=np.uint64)[::-1].copy()
    check(device, keys)                       # 14 bits: narrowed to 16-bit keys, 2 passes
    assert sorted(len(m) for m in device.modules) == [1, 1, 3], device.modules
    check(device, keys, key_bits=14)          # the same kernels: nothing compiles
    check(device, keys.astype(np.int64))      # signed, same width: the same kernels
    assert len(device.modules) == 3, device.modules
    check(device, keys.astype(np.int32))      # another width: three more modules
    assert sorted(len(m) for m in device.modules) == [1, 1, 1, 1, 3, 3], device.modules
    passes = [m[0] for m in device.modules if len(m) == 1]
    assert len(set(passes)) == 4 and all(e.startswith("xs_radix_onesweep<") for e in passes)


@pytest.mark.parametrize("narrow,narrow_index,sizes", [
    (False, True, (8, 4)), (True, False, (2, 8)), (False, False, (8, 8))])
def test_narrowing_can_be_turned_off(device, monkeypatch, narrow, narrow_index, sizes):
    monkeypatch.setitem(rp.TUNING, "narrow", narrow)
    monkeypatch.setitem(rp.TUNING, "narrow_index", narrow_index)
    keys = np.arange(2 * rp.TILE, dtype=np.uint64)[::-1].copy()
    check(device, keys, np.arange(2 * rp.TILE), key_bits=13)
    assert device.types[2:] == expected(8, sizes[0], 2, sizes[1]), device.types


def test_signed_keys_flip_the_sign_bit(device):
    keys = np.array([5, -1, 0, -128, 127, -1, 3] * 700, dtype=np.int8)
    check(device, keys)
    assert device.ran.count("onesweep") == 1


# ---------------------------------------------------------------- NVRTC
def test_every_instantiation_compiles_with_nvrtc():
    """Every kernel the executor names compiles for sm_90 and sm_80 (no GPU needed)."""
    nv = pytest.importorskip("tests.test_cuda_headers_nvrtc")
    if nv.nvrtc is None:
        pytest.skip("cuda-bindings/nvrtc not importable")
    lines = []
    mb = rp.TUNING["min_blocks"]
    for dtype in ("uint8", "uint16", "uint32", "uint64"):
        k = ks.C_TYPES[dtype]
        lines += [f"template __global__ void xs_radix_or<{k}>(const {k}*, long long, "
                  "unsigned long long*);",
                  f"template __global__ void xs_radix_histogram<{k}>(const {k}*, long long, "
                  "unsigned long long, int, int, unsigned long long*);"]
    wide, narrow = ks.C_TYPES["uint64"], ks.C_TYPES["uint32"]
    exprs = []
    for ct, cs in [(ks.C_TYPES[d],) * 2 for d in ("uint8", "uint16", "uint32", "uint64")] \
            + [(wide, narrow), (wide, ks.C_TYPES["uint8"])]:
        for ci in (ks.C_TYPES["uint32"], ks.C_TYPES["int64"]):
            exprs += [ks._pass_expr(ks._pass_types(pos, ct, cs, ci), rp.ITEMS, mb)
                      for pos in ks.POSITIONS]   # every pass a sort of these types may run
            if (ct, cs) in ((narrow, narrow), (wide, narrow)):   # the value words' code
                exprs += [ks._pass_expr(ks._pass_types(pos, ct, cs, ci), rp.ITEMS,
                                        rp.TUNING["carry_min_blocks"], vb)
                          for pos in ("last", "only") for vb in ks.GATHER_BYTES]
                # the carrying passes: every value word with 64-bit keys of at most 32
                # sorted bits and a 32-bit permutation (the usual case), the 8-byte word
                # with the other key and index types (NVRTC time: about a second each)
                words = ks.GATHER_BYTES if (ct, ci) == (wide, ks.C_TYPES["uint32"]) else (8,)
                exprs += [ks._pass_expr(ks._pass_types(pos, ct, cs, ci),
                                        rp.TUNING["carry_items"],
                                        rp.TUNING["carry_min_blocks"], vb, True)
                          for pos in ks.POSITIONS for vb in words]
    triples = sorted(set(exprs))
    for expr in triples:
        kin, k, kout, iin, iout = (t.strip() for t in expr[expr.index("<") + 1:].split(",")[:5])
        lines.append(f"template __global__ void {expr}(const {kin}*, {kout}*, const {iin}*, "
                     f"{iout}*, long long, unsigned long long, unsigned, unsigned, "
                     "const unsigned long long*, unsigned long long*, unsigned*, unsigned, "
                     "const void*, void*);")
    text = _compile.source("radix_sort.cu") + "\n" + "\n".join(lines) + "\n"
    for arch in ("sm_90", "sm_80"):
        ok, log, ptx = nv.nvrtc_compile(text, arch)
        assert ok, log
        assert "warning" not in log.lower(), log
        for name in ("xs_radix_or", "xs_radix_histogram", "xs_radix_offsets",
                     "xs_radix_onesweep"):
            assert ptx.count(f".entry _Z{len(name)}{name}") >= (1 if name == "xs_radix_offsets"
                                                                 else 4), (arch, name)
        assert ptx.count(".entry _Z17xs_radix_onesweep") == len(triples)
        # the one-sweep pass takes the 14 arguments the executor's Launch packs
        entry = ptx[ptx.index(".entry _Z17xs_radix_onesweep"):]
        params = entry[:entry.index(")")]
        assert params.count(".param") == 14, params


def test_a_sort_prefetches_its_modules(device, monkeypatch):
    """With ``key_bits`` every module is known before the first launch: the prelude and
    each distinct pass compile side by side on the compile threads
    (:func:`xstride._kernels._compile.prefetch`); without, the passes do once the OR
    kernel (in the prelude) has found the bits."""
    from tests.conftest import FakeDevice

    monkeypatch.setattr(_compile, "COMPILE_THREADS", 2)
    monkeypatch.setattr(FakeDevice, "__enter__", lambda self: self, raising=False)
    monkeypatch.setattr(FakeDevice, "__exit__", lambda self, *a: None, raising=False)
    started = []
    real = _compile.prefetch
    monkeypatch.setattr(ks, "prefetch", lambda reqs: started.append(real(reqs)) or started[-1])
    keys = np.arange(2 * rp.TILE, dtype=np.uint64)[::-1].copy()
    check(device, keys, key_bits=13)          # 2 passes: first and last
    assert started == [3] and len(device.modules) == 3, (started, device.modules)
    check(device, keys, key_bits=13)          # compiled: nothing starts
    assert started == [3, 0] and len(device.modules) == 3
    check(device, keys.astype(np.uint32))     # the bits found first: the two passes
    assert started == [3, 0, 2] and len(device.modules) == 6, (started, device.modules)
