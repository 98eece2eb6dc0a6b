"""Philox on the device: known answers and bit-identity with the host (NumPy) executor.

Every comparison is bit for bit (``view(uint64)``), uniforms and normals alike. Inputs
are fresh random 64-bit values (the seed of the input generator is printed, so a
failure can be replayed) plus the edge values of test_rng.py.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

import xstride as xp
from xstride import rng

pytestmark = pytest.mark.gpu

U64 = np.uint64
U32 = np.uint32
EDGES = [0, 1, 2**32 - 1, 2**32, 2**32 + 1, 2**63, 2**64 - 2, 2**64 - 1,
         0xFFFFFFFF00000000, 0x00000001FFFFFFFF, 0xDEADBEEF00000000]


def fresh_rng():
    seed = int.from_bytes(os.urandom(8), "little")
    print(f"input seed {seed:#x}")
    return np.random.default_rng(seed)


def rand_u64(rs, n):
    return rs.integers(0, 2**64, n, dtype=U64, endpoint=False)


# The three vectors of ../shared/data/philox4x32_10_kat.txt (Random123 kat_vectors),
# used when that folder does not travel to the device machine.
KAT_INLINE = """
00000000 00000000 00000000 00000000 00000000 00000000 6627e8d5 e169c58d bc57ac4c 9b00dbd8
ffffffff ffffffff ffffffff ffffffff ffffffff ffffffff 408f276d 41c83b0e a20bc7c6 6d5451fd
243f6a88 85a308d3 13198a2e 03707344 a4093822 299f31d0 d16cfe09 94fdcceb 5001e420 24126ea1
"""


@pytest.fixture
def kat():
    path = Path(os.environ.get("XSTRIDE_SHARED", Path(__file__).resolve().parents[2] / "shared"))
    path = path / "data" / "philox4x32_10_kat.txt"
    text = path.read_text() if path.is_file() else KAT_INLINE
    rows = [[int(t, 16) for t in line.split()]
            for line in text.splitlines() if line.strip() and not line.startswith("#")]
    assert len(rows) >= 3
    return np.array(rows, dtype=U64)


def poison(cp, nbytes):
    """Fill pool memory with NaN bytes, then free it, so fresh outputs start poisoned."""
    a = cp.full(nbytes // 8 + 1, cp.nan)
    cp.cuda.get_current_stream().synchronize()
    del a


def same_bits(cp, dev, host, what):
    assert isinstance(dev, cp.ndarray), what
    d = cp.asnumpy(dev)
    assert d.shape == host.shape and d.dtype == host.dtype, what
    bad = np.ascontiguousarray(d).view(np.uint8).reshape(d.size, -1) != \
        np.ascontiguousarray(host).view(np.uint8).reshape(host.size, -1)
    nbad = int(bad.any(axis=1).sum()) if d.size else 0
    assert nbad == 0, f"{what}: {nbad} of {d.size} values differ"


def max_ulps(a, b):
    """Largest distance in units in the last place between two float64 arrays."""
    x = np.ascontiguousarray(a).view(np.int64)
    y = np.ascontiguousarray(b).view(np.int64)
    # map the sign-magnitude bit patterns onto a monotone integer line
    x = np.where(x < 0, np.int64(-(2**63)) - x, x)
    y = np.where(y < 0, np.int64(-(2**63)) - y, y)
    return int(np.abs(x - y).max()) if x.size else 0


# ------------------------------------------------------------------ known answers
def test_kat_on_device(cp, kat):
    poison(cp, 1 << 20)
    got = rng.philox4x32_10(cp.asarray(kat[:, :4].astype(U32)), cp.asarray(kat[:, 4]),
                            cp.asarray(kat[:, 5]))
    same_bits(cp, got, kat[:, 6:].astype(U32), "KAT batched")
    for row in kat.tolist():
        got = rng.philox4x32_10(cp.asarray(np.array(row[:4], U32)), row[4], row[5])
        assert cp.asnumpy(got).tolist() == row[6:]
    s = kat[:, 4] | kat[:, 5] << U64(32)
    t = kat[:, 2] | kat[:, 3] << U64(32)
    c = kat[:, 0] | kat[:, 1] << U64(32)
    u0, u1 = rng.philox_uniform2(cp.asarray(s), cp.asarray(t), cp.asarray(c))
    w = kat[:, 6:]
    np.testing.assert_array_equal(cp.asnumpy(u0), ((w[:, 0] << U64(32) | w[:, 1]) >> U64(11))
                                  .astype(np.float64) * 2.0**-53)
    np.testing.assert_array_equal(cp.asnumpy(u1), ((w[:, 2] << U64(32) | w[:, 3]) >> U64(11))
                                  .astype(np.float64) * 2.0**-53)


# ------------------------------------------------------------------ bit identity
def test_1e7_uniforms_bit_identical(cp):
    rs = fresh_rng()
    e = np.array(EDGES, dtype=U64)
    grid = [g.ravel() for g in np.meshgrid(e, e, e, indexing="ij")]
    n = 10**7
    s, t, c = (np.concatenate([g, rand_u64(rs, n)]) for g in grid)
    host = rng.philox_uniform(s, t, c)
    poison(cp, host.nbytes)
    dev = rng.philox_uniform(cp.asarray(s), cp.asarray(t), cp.asarray(c))
    same_bits(cp, dev, host, "1e7 uniforms")
    assert host.max() < 1.0 and host.min() >= 0.0


def test_scalar_keys_and_counter_carries(cp):
    rs = fresh_rng()
    for start in (2**32 - 2**19, 2**64 - 2**20):
        c = np.arange(2**20, dtype=U64) + U64(start)
        for seed, stream in ((int(rand_u64(rs, 1)[0]), 2**63 + 7), (0xFFFFFFFF00000001, 0),
                             (1, 0xFFFFFFFF00000000)):
            host = rng.philox_uniform(seed, stream, c)
            poison(cp, host.nbytes)
            same_bits(cp, rng.philox_uniform(seed, stream, cp.asarray(c)), host,
                      f"uniform start={start:#x} seed={seed:#x}")
    # key words differing only in the high bits give different streams on the device too
    c = cp.arange(4096, dtype=cp.uint64)
    a, b = rng.philox_uniform(5, 0, c), rng.philox_uniform(5 | 1 << 32, 0, c)
    assert float((a != b).mean()) > 0.99


@pytest.mark.parametrize("kind", ["uniform2", "normal", "normal2"])
def test_other_kinds_bit_identical(cp, kind):
    rs = fresh_rng()
    e = np.array(EDGES, dtype=U64)
    grid = [g.ravel() for g in np.meshgrid(e, e, e, indexing="ij")]
    n = 2 * 10**6
    s, t, c = (np.concatenate([g, rand_u64(rs, n)]) for g in grid)
    f = getattr(rng, f"philox_{kind}")
    host = f(s, t, c)
    poison(cp, 2 * s.size * 8)
    dev = f(cp.asarray(s), cp.asarray(t), cp.asarray(c))
    host = host if isinstance(host, tuple) else (host,)
    dev = dev if isinstance(dev, tuple) else (dev,)
    for i, (d, h) in enumerate(zip(dev, host)):
        ulps = max_ulps(cp.asnumpy(d), h)
        print(f"{kind}[{i}]: largest host-device difference {ulps} ulps")
        same_bits(cp, d, h, f"{kind}[{i}]")


def layouts(m, c, s_col, t_row, i32):
    """The same argument layouts built on NumPy (m=np) or CuPy (m=cp)."""
    C, S, T, I = m.asarray(c), m.asarray(s_col), m.asarray(t_row), m.asarray(i32)
    return [
        (S, T, C),  # (30, 1) x (100,) x (30, 100)
        (S, 7, m.asfortranarray(C)),  # Fortran-ordered counters
        (C[::-1, ::3], T[::3], 2**64 - 1),  # negative and step strides
        (m.asarray(np.array([[2**63]], U64)), (T >> m.uint64(2)).astype(m.int64), C[:, ::-1]),
        (I, np.uint8(3), m.asfortranarray(C)),  # int32 seeds, NumPy scalar stream
    ]


def test_broadcast_and_strided_layouts(cp):
    rs = fresh_rng()
    base = (rand_u64(rs, 3000).reshape(30, 100), rand_u64(rs, 30).reshape(30, 1),
            rand_u64(rs, 100), rs.integers(0, 2**31, (30, 100), dtype=np.int32))
    for k, (h, d) in enumerate(zip(layouts(np, *base), layouts(cp, *base))):
        host = rng.philox_normal2(*h)
        poison(cp, 2 * 3000 * 8)
        dev = rng.philox_normal2(*d)
        for i in range(2):
            same_bits(cp, dev[i], host[i], f"layout case {k} [{i}]")
        same_bits(cp, rng.philox_uniform(*d), rng.philox_uniform(*h), f"uniform layout {k}")


def test_words_on_device(cp):
    rs = fresh_rng()
    cw = rs.integers(0, 2**32, (5000, 4), dtype=U32)
    k0 = rs.integers(0, 2**32, 5000, dtype=U32)
    host = rng.philox4x32_10(cw, k0, 0xFFFFFFFF)
    dcw = cp.asarray(cw)
    same_bits(cp, rng.philox4x32_10(dcw, cp.asarray(k0), 0xFFFFFFFF), host, "words")
    same_bits(cp, rng.philox4x32_10(cp.asfortranarray(dcw), cp.asarray(k0), 0xFFFFFFFF), host,
              "words, Fortran-ordered counter words")
    host_b = rng.philox4x32_10(cw[:7, None, :], k0[None, :9], k0[:9])
    same_bits(cp, rng.philox4x32_10(dcw[:7, None, :], cp.asarray(k0[None, :9]),
                                    cp.asarray(k0[:9])), host_b, "words, broadcast keys")


# ------------------------------------------------------------------ the generator
def test_generator_same_numbers_on_both_backends(cp):
    seed = int.from_bytes(os.urandom(8), "little")
    print(f"generator seed {seed:#x}")
    h = rng.Philox(seed, stream=2**40 + 1, backend="numpy")
    d = rng.Philox(seed, stream=2**40 + 1, backend="cupy")
    for call in (lambda g: g.uniform((1000, 3)), lambda g: g.normal(1001),
                 lambda g: g.integers(10, 13, 5000), lambda g: g.integers(0, 2**63 + 1, 3000),
                 lambda g: g.advance(2**32 - 5).uniform(10),
                 lambda g: g.integers(-2**63, 2**63, 100)):
        a, b = call(h), call(d)
        same_bits(cp, b, a, "generator")
        assert h.counter == d.counter


@pytest.mark.parametrize("room", [None, 1])
def test_generator_integers_first_round_on_the_device(cp, monkeypatch, room):
    """Philox.integers' first round in one kernel (xstride_philox_integers_first): the
    host's numbers and counter for a small range, a range that rejects a quarter of the
    elements twice, the full range and a shape of particles; ``room`` 1 leaves too little
    room for the rejected indices, and the kernel runs again."""
    from xstride._kernels import philox as K

    if room is not None:
        monkeypatch.setattr(K, "_rejection_room", lambda n, thresh: room)
    seed = int.from_bytes(os.urandom(8), "little")
    print(f"generator seed {seed:#x}")
    for low, high, shape in ((0, 100, (300_001, 3)), (0, 2**63 + 1, 200_000),
                             (-2**63, 2**63, 1000), (5, 6, 7)):
        h = rng.Philox(seed, stream=3, backend="numpy").advance(2**64 - 3 * 10**6)
        d = rng.Philox(seed, stream=3, backend="cupy").advance(2**64 - 3 * 10**6)
        same_bits(cp, d.integers(low, high, shape), h.integers(low, high, shape),
                  f"integers [{low}, {high})")
        assert h.counter == d.counter


@pytest.mark.parametrize("kind", ["uniform", "uniform2", "normal", "normal2"])
def test_fast_kernels_scalar_keys(cp, kind):
    """Scalar seed and stream with dense counters (the fast kernels) against the host
    and against the general kernel, bit for bit."""
    from xstride._kernels import philox as K

    rs = fresh_rng()
    n = 4 * 10**6 + 3
    c = rand_u64(rs, n)
    c[:len(EDGES)] = EDGES
    seed, stream = int(rand_u64(rs, 1)[0]) | 1 << 63, 0xFFFFFFFF00000001
    f = getattr(rng, f"philox_{kind}")
    host = f(seed, stream, c)
    host = host if isinstance(host, tuple) else (host,)
    dc = cp.asarray(c)
    poison(cp, 2 * n * 8)
    fast = f(seed, stream, dc)
    fast = fast if isinstance(fast, tuple) else (fast,)
    general = K._real(kind, seed, stream, dc, (n,), fast=False)
    general = general if isinstance(general, tuple) else (general,)
    for i, (a, b, h) in enumerate(zip(fast, general, host)):
        same_bits(cp, a, h, f"fast {kind}[{i}]")
        same_bits(cp, b, h, f"general {kind}[{i}]")
    # 2-D dense counters take the fast path too; a strided view the general one
    c2 = dc[: 2000 * 3].reshape(2000, 3)
    for view in (c2, c2[::2, ::-1]):
        got = f(seed, stream, view)
        want = f(seed, stream, cp.asnumpy(view))
        got = got if isinstance(got, tuple) else (got,)
        want = want if isinstance(want, tuple) else (want,)
        for a, h in zip(got, want):
            same_bits(cp, a, h, f"{kind} 2-D counters")


@pytest.mark.parametrize("kind", ["uniform", "normal"])
def test_generator_pairs_every_variant(cp, kind):
    """The generator's stream (two values per counter) on the device, odd and even
    lengths, a start just below 2**32 and one near 2**64."""
    from xstride._kernels import philox as K

    seed = int.from_bytes(os.urandom(8), "little")
    print(f"pairs seed {seed:#x}")
    big = 10**7 + 1 if kind == "uniform" else 2 * 10**6 + 1
    for n, start in ((big, 2**32 - 12345), (1, 0), (2, 5), (513, 2**64 - 257),
                     (256 * 4 * 3 + 1, 7)):
        host = H_pairs(kind, seed, 2**40 + 3, start, n)
        poison(cp, 8 * n + 64)
        dev = K.pairs(kind, seed, 2**40 + 3, start, n)
        same_bits(cp, dev, host, f"{kind} pairs n={n} start={start:#x}")
    g = rng.Philox(seed, stream=9, backend="cupy").advance(2**32 - 3)
    x = getattr(g, kind)((3, 1001))
    assert g.counter == 2**32 - 3 + (3 * 1001 + 1) // 2
    h = getattr(rng.Philox(seed, stream=9, backend="numpy").advance(2**32 - 3), kind)((3, 1001))
    same_bits(cp, x, h, f"generator {kind} (3, 1001)")


def H_pairs(kind, seed, stream, start, n):
    from xstride._host import philox as H

    return H.pairs(kind, seed, stream, start, n)


def test_python_ints_follow_active_backend(cp):
    with xp.use_backend("cupy"):
        u = rng.philox_uniform(1, 2, 3)
        v = rng.philox_uniform(1, 2, [3, 4])
        g = rng.Philox(9)
        assert g.backend == "cupy"
    assert isinstance(u, cp.ndarray) and isinstance(v, cp.ndarray)
    assert float(u) == float(rng.philox_uniform(1, 2, 3))
    assert isinstance(rng.philox_uniform(np.uint64(1), 2, cp.arange(3, dtype=cp.uint64)),
                      cp.ndarray)
    assert rng.philox_uniform(1, 2, cp.zeros((0, 2), cp.uint64)).shape == (0, 2)


def test_device_bad_input(cp):
    with pytest.raises(TypeError, match="different backends"):
        rng.philox_uniform(cp.arange(3, dtype=cp.uint64), 0, np.arange(3, dtype=U64))
    with pytest.raises(TypeError, match="'counter'"):
        rng.philox_uniform(1, 2, cp.arange(3, dtype=cp.float64))
    with pytest.raises(ValueError, match="'stream'"):
        rng.philox_normal(1, cp.asarray([1, -1]), 3)
    with pytest.raises(ValueError, match="broadcast"):
        rng.philox_uniform(cp.zeros(3, cp.uint64), 0, cp.zeros(4, cp.uint64))
    with pytest.raises(TypeError, match="'counter_words'"):
        rng.philox4x32_10(cp.zeros((2, 4), cp.float32), 0, 0)
    with pytest.raises(ValueError, match="'counter_words'"):
        rng.philox4x32_10(cp.full((2, 4), 2**32, cp.uint64), 0, 0)


@pytest.mark.parametrize("kind", ["uniform", "uniform2", "normal", "normal2"])
def test_grid_path_streams_by_counters(cp, kind):
    """Broadcast arguments that fold to rows x columns (the grid kernels): per-row seeds
    and streams against per-column counters with high bits set, a transposed counter
    view, and a 3-D layout that does not fold (general kernel), all bit-identical to
    the host."""
    rs = fresh_rng()
    f = getattr(rng, f"philox_{kind}")
    seeds = rand_u64(rs, 300).reshape(300, 1)
    streams = rand_u64(rs, 300).reshape(300, 1)
    ctr = rand_u64(rs, 1000)
    ctr2 = rand_u64(rs, 2 * 1000).reshape(1000, 2)
    cases = [(seeds, streams, ctr), (12345, streams, ctr), (seeds, 2**64 - 1, ctr2.T[:1]),
             (seeds[:5, :, None], streams[:2], ctr2.T)]    # (5, 2, 1000): does not fold
    for k, (s, t, c) in enumerate(cases):
        host = f(s, t, c)
        poison(cp, 8 * 300 * 1000 * 2)
        dev = f(*(cp.asarray(v) if isinstance(v, np.ndarray) else v for v in (s, t, c)))
        if kind.endswith("2"):
            for i in range(2):
                same_bits(cp, dev[i], host[i], f"{kind} case {k} [{i}]")
        else:
            same_bits(cp, dev, host, f"{kind} case {k}")


@pytest.mark.parametrize("kind", ["uniform", "uniform2", "normal", "normal2"])
@pytest.mark.parametrize("rows, cols", [(400_003, 3), (1, 3), (7, 1), (20_001, 63),
                                        (3_001, 130), (2_001, 600), (1_001, 1000)])
def test_grid_path_short_and_wide_rows(cp, kind, rows, cols):
    """(rows, 1) counters x (1, cols) streams, the demo's (n, 3) positions among them:
    rows of a block step with a lane an output (short rows; 400,003 rows of 3 are more
    steps than the grid has blocks, the last step cut short) or a lane a column (600),
    bit-identical to the host."""
    rs = fresh_rng()
    f = getattr(rng, f"philox_{kind}")
    ctr = rand_u64(rs, rows).reshape(rows, 1)
    ctr[0, 0] = 2**64 - 1
    streams = rand_u64(rs, cols).reshape(1, cols)
    host = f(2**63 + 9, streams, ctr)
    poison(cp, 16 * rows * cols)
    dev = f(2**63 + 9, cp.asarray(streams), cp.asarray(ctr))
    for i, (d, h) in enumerate(zip(*((dev, host) if kind.endswith("2") else ((dev,), (host,))))):
        assert d.shape == (rows, cols)
        same_bits(cp, d, h, f"{kind} ({rows}, {cols}) [{i}]")


@pytest.mark.parametrize("kind", ["uniform", "uniform2", "normal", "normal2"])
def test_prepared_repeat_bit_identical(cp, kind):
    """A repeated call (int seed and stream, uint64 counter of a prepared layout) goes
    through the executor's ``repeat`` (xstride/_kernels/_prepared.py) and gives the
    host's bits; a seed out of range still raises the checked path's error."""
    from xstride._kernels import philox as K
    rs = fresh_rng()
    func = getattr(rng, f"philox_{kind}")
    c = rand_u64(rs, (3, 1000))
    views = [lambda a: a, lambda a: a[::-1, 1::3], lambda a: a.reshape(3, 10, 100)[:, ::3, ::2]]
    for view in views:
        func(1, 2, view(cp.asarray(c)))                  # checked path: prepares
        for seed, stream in ((2**64 - 1, 0), (int(rs.integers(2**63)), 2**63 + 5)):
            d = view(cp.asarray(c))                      # a device view of that layout
            hit = K.repeat(kind, seed, stream, d)
            assert hit is not None
            want = getattr(rng, f"philox_{kind}")(seed, stream, view(c))
            got = func(seed, stream, d)
            for h, g, w in zip(*(x if isinstance(x, tuple) else (x,)
                                 for x in (hit, got, want))):
                np.testing.assert_array_equal(cp.asnumpy(h).view(U64), w.view(U64))
                np.testing.assert_array_equal(cp.asnumpy(g).view(U64), w.view(U64))
    d = cp.asarray(c)
    for seed in (-1, 2**64):
        assert K.repeat(kind, seed, 2, d) is None
        with pytest.raises(ValueError, match="seed"):
            func(seed, 2, d)


def test_philox_takes_integer_like_shapes_on_the_device():
    """A 0-d integer array is a shape on CuPy too, with the numbers of the int shape."""
    for method in ("uniform", "normal"):
        got = getattr(rng.Philox(5, backend="cupy"), method)(np.array(3))
        want = getattr(rng.Philox(5, backend="numpy"), method)(3)
        assert got.shape == (3,)
        np.testing.assert_array_equal(xp.to_numpy(got).view(U64), want.view(U64))
    got = rng.Philox(5, backend="cupy").integers(0, 9, shape=(np.array(2), np.int8(3)))
    want = rng.Philox(5, backend="numpy").integers(0, 9, shape=(2, 3))
    np.testing.assert_array_equal(xp.to_numpy(got), want)
