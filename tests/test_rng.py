"""Philox4x32-10 on the host: known answers, edges, broadcasting, statistics, the
generator and bad input. The device kernels checked on the host (random.cuh under
gcc, the kernel source emulated, grid2) are in test_rng_kernels_host.py; on a GPU,
test_rng_gpu.py.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import xstride as xp
from xstride import rng
from xstride._host import philox as H

U64 = np.uint64
M32 = 0xFFFFFFFF
EDGES = [0, 1, 2**32 - 1, 2**32, 2**32 + 1, 2**63, 2**64 - 2, 2**64 - 1,
         0xFFFFFFFF00000000, 0x00000001FFFFFFFF, 0xDEADBEEF00000000]


# ------------------------------------------------------------------ reference
def ref_block(c0, c1, c2, c3, k0, k1):
    """Philox4x32-10 on Python ints, written from the paper (independent of xstride)."""
    x = [c0, c1, c2, c3]
    for _ in range(10):
        p0 = 0xD2511F53 * x[0]
        p1 = 0xCD9E8D57 * x[2]
        x = [(p1 >> 32) ^ x[1] ^ k0, p1 & M32, (p0 >> 32) ^ x[3] ^ k1, p0 & M32]
        k0 = (k0 + 0x9E3779B9) & M32
        k1 = (k1 + 0xBB67AE85) & M32
    return x


def ref_uniform2(seed, stream, counter):
    w = ref_block(counter & M32, counter >> 32, stream & M32, stream >> 32, seed & M32, seed >> 32)
    return ((((w[0] << 32) | w[1]) >> 11) * 2.0**-53, (((w[2] << 32) | w[3]) >> 11) * 2.0**-53)


def read_kat(shared_dir):
    rows = []
    for line in (shared_dir / "data" / "philox4x32_10_kat.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            rows.append([int(t, 16) for t in line.split()])
    assert len(rows) >= 3
    return np.array(rows, dtype=U64)


def rand_u64(rs, n):
    return rs.integers(0, 2**64, n, dtype=U64, endpoint=False)


def bits(a):
    return np.ascontiguousarray(a).view(U64)


# ------------------------------------------------------------------ known answers
def test_kat_each_vector(shared_dir):
    for row in read_kat(shared_dir):
        row = [int(v) for v in row]
        got = rng.philox4x32_10(np.array(row[:4], dtype=np.uint32), row[4], row[5])
        assert got.dtype == np.uint32 and got.shape == (4,)
        assert got.tolist() == row[6:]
        assert ref_block(*row[:6]) == row[6:]


def test_kat_batched_with_key_arrays(shared_dir):
    kat = read_kat(shared_dir)
    got = rng.philox4x32_10(kat[:, :4].astype(np.uint32), kat[:, 4], kat[:, 5])
    np.testing.assert_array_equal(got, kat[:, 6:].astype(np.uint32))


def test_kat_through_uniform_mapping(shared_dir):
    # the last KAT as (seed, stream, counter) through the DESIGN.md mapping
    for row in read_kat(shared_dir):
        c = int(row[0]) | int(row[1]) << 32
        t = int(row[2]) | int(row[3]) << 32
        s = int(row[4]) | int(row[5]) << 32
        w = [int(v) for v in row[6:]]
        u0, u1 = rng.philox_uniform2(s, t, np.array([c], dtype=U64))
        assert u0[0] == (((w[0] << 32) | w[1]) >> 11) * 2.0**-53
        assert u1[0] == (((w[2] << 32) | w[3]) >> 11) * 2.0**-53


# ------------------------------------------------------------------ against the reference
def test_random_inputs_match_reference():
    rs = np.random.default_rng(11)
    n = 3000
    s, t, c = rand_u64(rs, n), rand_u64(rs, n), rand_u64(rs, n)
    u = rng.philox_uniform(s, t, c)
    u0, u1 = rng.philox_uniform2(s, t, c)
    np.testing.assert_array_equal(bits(u), bits(u0))
    for i in range(0, n, 7):
        e0, e1 = ref_uniform2(int(s[i]), int(t[i]), int(c[i]))
        assert (u0[i], u1[i]) == (e0, e1)


def test_edges_counter_carry_and_high_bits():
    vals = np.array(EDGES, dtype=U64)
    s, t, c = np.meshgrid(vals, vals, vals, indexing="ij")
    u0, u1 = rng.philox_uniform2(s, t, c)
    for idx in np.ndindex(s.shape):
        assert (u0[idx], u1[idx]) == ref_uniform2(int(s[idx]), int(t[idx]), int(c[idx]))


def test_counters_crossing_2_32_and_up_to_2_64_minus_1():
    for start in (2**32 - 3, 2**64 - 6):
        c = np.arange(6, dtype=U64) + U64(start)
        u = rng.philox_uniform(7, 2**40 + 3, c)
        for i in range(6):
            assert u[i] == ref_uniform2(7, 2**40 + 3, start + i)[0]
        assert len(set(u.tolist())) == 6


def test_keys_differing_only_in_high_bits_differ():
    c = np.arange(1000, dtype=U64)
    a = rng.philox_uniform(5, 0, c)
    b = rng.philox_uniform(5 | (1 << 32), 0, c)
    d = rng.philox_uniform(5 | (1 << 63), 0, c)
    assert (a != b).mean() > 0.99 and (a != d).mean() > 0.99 and (b != d).mean() > 0.99
    assert b[3] == ref_uniform2(5 | (1 << 32), 0, 3)[0]
    # streams too
    e = rng.philox_uniform(5, 1 << 32, c)
    assert (a != e).mean() > 0.99 and e[9] == ref_uniform2(5, 1 << 32, 9)[0]


def test_uniform_never_one_and_max_bits():
    out = np.empty(2)
    H._to_uniform(np.array([2**64 - 1, 0], dtype=U64), out)
    assert out[0] == 1.0 - 2.0**-53 and out[1] == 0.0


# ------------------------------------------------------------------ broadcasting and layout
def test_broadcast_shapes_and_values():
    s = np.array([[1], [2**63 + 5], [9]], dtype=U64)  # (3, 1)
    t = np.array([0, 1, 2**40, 2**64 - 1], dtype=U64)  # (4,)
    u = rng.philox_uniform(s, t, 12345)
    assert u.shape == (3, 4)
    for i, j in np.ndindex(3, 4):
        assert u[i, j] == ref_uniform2(int(s[i, 0]), int(t[j]), 12345)[0]


def test_strided_views_and_dtypes_match_contiguous():
    rs = np.random.default_rng(2)
    c = rand_u64(rs, 4000).reshape(40, 100)
    s = rs.integers(0, 2**31, (100, 40), dtype=np.int64).T  # transposed, signed
    want = rng.philox_uniform(np.ascontiguousarray(s).astype(U64), 3, c)
    np.testing.assert_array_equal(rng.philox_uniform(s, 3, c), want)
    np.testing.assert_array_equal(rng.philox_uniform(s[:, ::-1], 3, c[:, ::-1]), want[:, ::-1])
    small = np.arange(5, dtype=np.uint8)
    np.testing.assert_array_equal(rng.philox_uniform(1, 2, small),
                                  rng.philox_uniform(1, 2, small.astype(U64)))
    assert rng.philox_uniform(1, 2, [3, 4]).tolist() == rng.philox_uniform(1, 2, small[3:]).tolist()
    # a range is a Python sequence of ints, as NumPy reads it
    assert rng.philox_uniform(1, range(2), range(3, 5)).tolist() == \
        rng.philox_uniform(1, [0, 1], [3, 4]).tolist()
    assert rng.philox_normal(range(1), 0, 0).tolist() == rng.philox_normal([0], 0, 0).tolist()


def test_signed_broadcast_views_are_not_materialised():
    """A new-user probe: a signed (int64, int32) broadcast view of counters or words was
    checked for negative values and cast to uint64 at its full broadcast size (twice
    the result's memory; a view too large for memory was NumPy's bare MemoryError about
    a bool array), while rng.md says broadcast inputs are never materialised. The
    checks and the cast now touch the stored elements only; uint64 views always did."""
    import tracemalloc

    shape = (2**10, 2**8, 4)   # 8 MiB of float64 results
    for dt in (np.int64, np.int32, np.uint64):
        view = np.broadcast_to(np.arange(4, dtype=dt) + 7, shape)
        small = rng.philox_uniform(1, 2, view[:2, :3])
        np.testing.assert_array_equal(
            small, rng.philox_uniform(1, 2, np.ascontiguousarray(view[:2, :3]).astype(U64)))
        tracemalloc.start()
        try:
            out = rng.philox_uniform(1, 2, view)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert peak < 1.25 * out.nbytes, (dt, peak, out.nbytes)
        np.testing.assert_array_equal(out[:2, :3], small)
    words = np.broadcast_to(np.array([1, 2, 3, 4], dtype=np.int64), (2**18, 4))
    tracemalloc.start()
    try:
        got = rng.philox4x32_10(words, 5, 6)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1.25 * got.nbytes
    assert (got == rng.philox4x32_10(np.array([1, 2, 3, 4], dtype=np.uint32), 5, 6)).all()
    # the checks still see every stored value of a broadcast view
    with pytest.raises(ValueError, match=r"^philox_uniform: argument 'counter' has negative"):
        rng.philox_uniform(1, 2, np.broadcast_to(np.array([0, -1]), (5, 2)))
    with pytest.raises(ValueError, match=r"^philox4x32_10: argument 'counter_words' has values "
                                         r"above 2\*\*32 - 1"):
        rng.philox4x32_10(np.broadcast_to(np.array([0, 0, 0, 2**32]), (5, 4)), 0, 0)
    # a view whose result cannot exist in memory: the function's MemoryError
    with pytest.raises(MemoryError, match=r"^philox_uniform: not enough memory"):
        rng.philox_uniform(1, 2, np.broadcast_to(np.arange(3), (2**20, 2**20, 3)))


def test_scalars_give_0d_on_numpy_backend():
    with xp.use_backend("numpy"):
        u = rng.philox_uniform(1, 2, 3)
    assert isinstance(u, np.ndarray) and u.shape == () and u == ref_uniform2(1, 2, 3)[0]
    assert rng.philox_uniform(np.uint64(1), np.int8(2), 3) == u


def test_chunks_and_threads_agree(monkeypatch):
    n = 3 * H.CHUNK + 17
    c = np.arange(n, dtype=U64) + U64(2**32 - n // 2)
    monkeypatch.setenv("XSTRIDE_NUM_THREADS", "1")
    one = rng.philox_normal2(77, 5, c)
    monkeypatch.setenv("XSTRIDE_NUM_THREADS", "2")
    two = rng.philox_normal2(77, 5, c)
    np.testing.assert_array_equal(bits(one[0]), bits(two[0]))
    np.testing.assert_array_equal(bits(one[1]), bits(two[1]))
    u = rng.philox_uniform(77, 5, c)
    for i in (0, H.CHUNK - 1, H.CHUNK, 2 * H.CHUNK + 1, n - 1):
        assert u[i] == ref_uniform2(77, 5, int(c[i]))[0]


def test_empty():
    assert rng.philox_uniform(1, 2, np.zeros((0, 3), U64)).shape == (0, 3)
    assert rng.philox4x32_10(np.zeros((0, 4), np.uint32), 0, 0).shape == (0, 4)


# ------------------------------------------------------------------ statistics
def ks_stat(sorted_cdf):
    n = sorted_cdf.size
    i = np.arange(1, n + 1)
    return max((i / n - sorted_cdf).max(), (sorted_cdf - (i - 1) / n).max())


KS_1PCT = 1.6276  # asymptotic Kolmogorov distribution, P(sqrt(n) D > 1.6276) = 0.01


def test_uniform_statistics_1e6():
    n = 10**6
    u = rng.philox_uniform(2026, 11, np.arange(n, dtype=U64))
    assert u.min() >= 0.0 and u.max() < 1.0 and not (u == 1.0).any()
    assert abs(u.mean() - 0.5) < 5 * math.sqrt(1 / 12 / n)
    assert abs(u.var() - 1 / 12) < 5 * math.sqrt(1 / 180 / n)
    assert ks_stat(np.sort(u)) * math.sqrt(n) < KS_1PCT
    u0, u1 = rng.philox_uniform2(2026, 11, np.arange(n, dtype=U64))
    assert abs(np.corrcoef(u0, u1)[0, 1]) < 5 / math.sqrt(n)
    assert ks_stat(np.sort(u1)) * math.sqrt(n) < KS_1PCT


def test_normal_statistics_1e6():
    n = 10**6
    z0, z1 = rng.philox_normal2(99, 3, np.arange(n // 2, dtype=U64))
    z = np.concatenate([z0, z1])
    assert abs(z.mean()) < 5 / math.sqrt(n)
    assert abs(z.var() - 1) < 5 * math.sqrt(2 / n)
    erf = np.frompyfunc(math.erf, 1, 1)
    cdf = 0.5 * (1 + erf(np.sort(z) / math.sqrt(2)).astype(np.float64))
    assert ks_stat(cdf) * math.sqrt(n) < KS_1PCT
    assert abs(np.corrcoef(z0, z1)[0, 1]) < 5 / math.sqrt(n // 2)


@pytest.mark.skipif(np.finfo(np.longdouble).nmant < 60, reason="needs 80-bit long double")
def test_normal_accuracy_within_4_ulps():
    rs = np.random.default_rng(8)
    n = 200_000
    s, t, c = rand_u64(rs, n), rand_u64(rs, n), rand_u64(rs, n)
    u0, u1 = rng.philox_uniform2(s, t, c)
    z0, z1 = rng.philox_normal2(s, t, c)
    L = np.longdouble
    a, b = (u0 * 2.0**53).astype(U64), (u1 * 2.0**53).astype(U64)
    r = np.sqrt(-2 * np.log((L(2) ** 53 - a.astype(L)) / L(2) ** 53))
    q = (b + U64(1 << 50)) >> U64(51)
    f = (b.astype(np.int64) - (q << U64(51)).astype(np.int64)).astype(L) / L(2) ** 51
    al = f * np.longdouble("1.57079632679489661923132169163975144")
    ca, sa, q = np.cos(al), np.sin(al), q & U64(3)
    cos = np.select([q == 0, q == 1, q == 2], [ca, -sa, -ca], sa)
    sin = np.select([q == 0, q == 1, q == 2], [sa, ca, -sa], -ca)
    for got, ref in ((z0, r * cos), (z1, r * sin)):
        ok = ref != 0
        ulps = np.abs((got[ok].astype(L) - ref[ok]) / np.spacing(np.abs(ref[ok].astype(np.float64))))
        assert ulps.max() < 4.0
        assert ulps.max() > 0  # not vacuous: the reference is not identical everywhere


def test_normal_matches_numpy_formula_closely():
    rs = np.random.default_rng(9)
    s, t, c = rand_u64(rs, 10000), 4, rand_u64(rs, 10000)
    u0, u1 = rng.philox_uniform2(s, t, c)
    r = np.sqrt(-2 * np.log1p(-u0))
    z0, z1 = rng.philox_normal2(s, t, c)
    np.testing.assert_allclose(z0, r * np.cos(2 * np.pi * u1), rtol=0, atol=1e-13)
    np.testing.assert_allclose(z1, r * np.sin(2 * np.pi * u1), rtol=0, atol=1e-13)
    np.testing.assert_array_equal(bits(rng.philox_normal(s, t, c)), bits(z0))


# ------------------------------------------------------------------ the generator
def test_generator_counters_and_reproducibility():
    # stream definition: counter j gives values 2j (from w0, w1) and 2j + 1 (w2, w3)
    g = rng.Philox(42, stream=3, backend="numpy")
    a = g.uniform(5)  # counters 0, 1, 2 (the second value of counter 2 is dropped)
    b = g.uniform((2, 3))  # counters 3, 4, 5
    assert g.counter == 6
    u0, u1 = rng.philox_uniform2(42, 3, np.arange(6, dtype=U64))
    pairs = np.stack([u0, u1], axis=1).ravel()
    np.testing.assert_array_equal(a, pairs[:5])
    np.testing.assert_array_equal(b.ravel(), pairs[6:])
    for j in range(6):  # against the paper's block, element by element
        assert (pairs[2 * j], pairs[2 * j + 1]) == ref_uniform2(42, 3, j)
    g.advance(4)
    assert g.uniform() == rng.philox_uniform(42, 3, 10)
    assert g.counter == 11
    h = rng.Philox(42, 3, backend="numpy").advance(10)
    assert h.uniform(()) == rng.philox_uniform(42, 3, 10)
    assert rng.Philox(42, 3, backend="numpy").uniform(0).shape == (0,)


class TaggedPhilox(rng.Philox):
    """A user's subclass with its own constructor and attribute (module level: pickled
    by name)."""

    def __init__(self, tag, seed):
        super().__init__(seed, backend="numpy")
        self.tag = tag


class SlottedPhilox(rng.Philox):
    """A subclass keeping its attributes in ``__slots__`` (one of them private) and
    overriding ``advance``."""

    __slots__ = ("tag", "__hidden")

    def __init__(self, seed):
        super().__init__(seed, backend="numpy")
        self.tag, self.__hidden = "run-2", 7

    def hidden(self):
        return self.__hidden

    def advance(self, n):
        raise AssertionError("a copy is restored without the subclass's advance")


def test_a_subclass_with_slots_copies_its_slots():
    """A review: the copy of a subclass lost its ``__slots__`` attributes (only
    ``vars`` was kept), and restoring called the subclass's ``advance``."""
    import copy
    import pickle

    g = SlottedPhilox(4)
    g.uniform(4)
    for make in (copy.copy, copy.deepcopy, lambda g: pickle.loads(pickle.dumps(g))):
        h = make(g)
        assert type(h) is SlottedPhilox and (h.tag, h.hidden()) == ("run-2", 7)
        assert h.counter == g.counter == 2


def test_a_subclass_copies_and_pickles_as_itself():
    """A new-user probe: ``copy.copy`` of a ``Philox`` subclass gave a plain ``Philox``
    without the subclass's attributes. The copy is of the subclass (its ``__init__`` not
    called, as pickle makes objects), with the attributes it added and the counter."""
    import copy
    import pickle

    g = TaggedPhilox("run-1", 9)
    g.uniform(5)
    for make in (copy.copy, copy.deepcopy, lambda g: pickle.loads(pickle.dumps(g))):
        h = make(g)
        assert type(h) is TaggedPhilox and h.tag == "run-1"
        assert (h.seed, h.stream, h.counter, h.backend) == (9, 0, 3, "numpy")
        np.testing.assert_array_equal(h.uniform(3), copy.copy(g).uniform(3))
    assert repr(g) == "TaggedPhilox(seed=9, stream=0, counter=3, backend='numpy')"
    with pytest.raises(AttributeError, match="^'TaggedPhilox' object has no attribute 'foo'$"):
        g.foo   # noqa: B018 - the subclass named (a review: it said 'Philox')


@pytest.mark.parametrize("backend", ["numpy", "dask"])
def test_generator_copies_and_pickles_continue_the_stream(backend):
    """A new-user probe: ``copy.deepcopy(g)``, ``copy.copy(g)`` and ``pickle`` (a dask
    task's arguments, a checkpoint) raised "cannot pickle 'module' object". A copy holds
    the seed, stream, backend and counter, and draws what the original draws next."""
    import copy
    import pickle

    if backend == "dask":
        pytest.importorskip("dask")
    g = rng.Philox(42, stream=3, backend=backend)
    g.uniform(5)
    g.advance(2**40)
    for make in (copy.copy, copy.deepcopy, lambda g: pickle.loads(pickle.dumps(g))):
        h = make(g)
        assert h is not g and type(h) is rng.Philox
        assert (h.seed, h.stream, h.counter, h.backend) == (42, 3, 3 + 2**40, backend)
        np.testing.assert_array_equal(xp.to_numpy(h.normal((2, 3))),
                                      xp.to_numpy(copy.deepcopy(g).normal((2, 3))))
        assert g.counter == 3 + 2**40          # drawing from a copy leaves g as it was
    nxt = xp.to_numpy(g.integers(-5, 5, 4))
    assert np.array_equal(xp.to_numpy(pickle.loads(pickle.dumps(g)).integers(-5, 5, 4)),
                          xp.to_numpy(rng.Philox(42, 3, backend=backend).advance(g.counter)
                                      .integers(-5, 5, 4)))
    assert nxt.shape == (4,)


@pytest.mark.parametrize("n", [1, 2, 7, 2 * H.CHUNK + 3])
def test_generator_uniform_pairs_any_length(n):
    g = rng.Philox(2**64 - 1, stream=2**63 + 5, backend="numpy").advance(2**32 - 3)
    x = g.uniform(n)
    m = (n + 1) // 2
    assert g.counter == 2**32 - 3 + m
    u0, u1 = rng.philox_uniform2(2**64 - 1, 2**63 + 5, np.arange(m, dtype=U64) + U64(2**32 - 3))
    np.testing.assert_array_equal(x, np.stack([u0, u1], axis=1).ravel()[:n])
    assert x.min() >= 0.0 and x.max() < 1.0


def test_generator_normal_pairs():
    g = rng.Philox(1, backend="numpy")
    z = g.normal(5)
    assert g.counter == 3
    z0, z1 = rng.philox_normal2(1, 0, np.arange(3, dtype=U64))
    np.testing.assert_array_equal(z, np.stack([z0, z1], 1).ravel()[:5])
    w = g.normal((2, 2))
    assert g.counter == 5
    z0, z1 = rng.philox_normal2(1, 0, np.arange(3, 5, dtype=U64))
    np.testing.assert_array_equal(w.ravel(), np.stack([z0, z1], 1).ravel())


def test_generator_statistics_1e6():
    g = rng.Philox(11, backend="numpy")
    u = g.uniform(10**6)
    assert abs(u.mean() - 0.5) < 5 * math.sqrt(1 / 12 / 10**6)
    assert abs(u.var() - 1 / 12) < 1e-3
    # neighbours (the two halves of one block) are uncorrelated
    assert abs(np.corrcoef(u[0::2], u[1::2])[0, 1]) < 5e-3
    z = g.normal(10**6)
    assert abs(z.mean()) < 5e-3 and abs(z.var() - 1.0) < 5e-3


def test_generator_integers_small_range_unbiased_and_exact():
    g = rng.Philox(7, backend="numpy")
    x = g.integers(10, 13, 300_000)
    assert x.dtype == np.int64 and x.min() == 10 and x.max() == 12
    counts = np.bincount(x - 10)
    assert np.abs(counts - 100_000).max() < 5 * math.sqrt(300_000 * (1 / 3) * (2 / 3))
    # Lemire on the first values, recomputed with Python ints
    g2 = rng.Philox(7, backend="numpy")
    y = g2.integers(10, 13, 4)
    for i in range(4):
        w = ref_block(i, 0, 0, 0, 7, 0)
        v = (w[0] << 32) | w[1]
        assert (v * 3) % 2**64 >= (2**64 - 3) % 3
        assert y[i] == 10 + ((v * 3) >> 64)


def test_generator_integers_rejection_heavy_range():
    r = 2**63 + 1  # about half of all 64-bit candidates are rejected
    g = rng.Philox(3, backend="numpy")
    x = g.integers(0, r, 2000)
    assert x.dtype == np.uint64
    assert int(x.max()) < r and g.counter > 2000  # rejections consumed extra counters
    again = rng.Philox(3, backend="numpy").integers(0, r, 2000)
    np.testing.assert_array_equal(x, again)
    assert abs(float(x.astype(np.float64).mean()) / r - 0.5) < 0.05


def test_generator_integers_full_and_negative_ranges():
    g = rng.Philox(5, backend="numpy")
    full = g.integers(0, 2**64, 1000)
    assert full.dtype == np.uint64 and full.max() > 2**63
    neg = g.integers(-5, 5, 10000)
    assert neg.min() == -5 and neg.max() == 4
    assert g.integers(4, shape=100).max() == 3
    wide = g.integers(-2**63, 2**63, 100)
    assert wide.dtype == np.int64 and wide.min() < 0 < wide.max()


def test_generator_exhaustion():
    g = rng.Philox(1, backend="numpy").advance(2**64 - 2)
    assert g.uniform(4).shape == (4,)  # two values per counter: the last two counters
    assert g.counter == 2**64
    with pytest.raises(OverflowError, match="exhausted"):
        g.uniform(1)
    with pytest.raises(OverflowError, match="passes 2\\*\\*64"):
        rng.Philox(1, backend="numpy").advance(2**64 + 1)


@pytest.mark.parametrize("backend", ["numpy", "dask"])
def test_exhaustion_by_redraws_names_the_generator_s_counter(backend):
    """``integers`` whose redraws of rejected values pass 2**64 named the counter of the
    redraw round ("counter 18446744073709551608 + 11 counters"), a number the generator
    never showed; the message counts from ``g.counter``, redraws included."""
    start = 2**64 - 45
    g = rng.Philox(9, backend=backend).advance(start)
    with pytest.raises(OverflowError, match=rf"^Philox\.integers: the stream is exhausted "
                                            rf"\(counter {start} \+ \d+ counters > 2\*\*64, "
                                            r"redraws of rejected values included\); nothing "
                                            r"was consumed$"):
        g.integers(0, 2**63 + 1, shape=37)   # about half the values are redrawn
    assert g.counter == start
    with pytest.raises(OverflowError, match=rf"\(counter {start} \+ 46 counters > 2\*\*64\); "):
        g.integers(5, shape=46)              # no redraw: the plain count


def test_seed_and_stream_take_a_0d_integer_array_as_its_int():
    """Philox(np.asarray(5)) was a TypeError "expected a non-negative int", where advance,
    shape and integers take a 0-d integer array as an int; the generator's bits are those
    of the int. Bools and floats, 0-d or not, are still refused with that TypeError."""
    want = rng.Philox(2**64 - 1, 2**63 + 5, backend="numpy").uniform(6)
    for seed, stream in ((np.asarray(2**64 - 1, dtype=np.uint64), np.asarray(2**63 + 5,
                                                                             dtype=np.uint64)),
                         (np.uint64(2**64 - 1), np.asarray(2**63 + 5, dtype=np.uint64))):
        g = rng.Philox(seed, stream, backend="numpy")
        assert type(g.seed) is int and type(g.stream) is int
        assert (g.seed, g.stream) == (2**64 - 1, 2**63 + 5)
        np.testing.assert_array_equal(g.uniform(6), want)
    g = rng.Philox(np.asarray(5, dtype=np.int8), stream=np.asarray(3), backend="numpy")
    assert (g.seed, g.stream) == (5, 3)
    np.testing.assert_array_equal(g.integers(0, 100, 7),
                                  rng.Philox(5, 3, backend="numpy").integers(0, 100, 7))
    with pytest.raises(ValueError, match=r"^Philox: argument 'seed' must be an integer in "
                                         r"\[0, 2\*\*64 - 1\], got -1$"):
        rng.Philox(np.asarray(-1))
    for bad in (True, np.True_, np.asarray(True), 5.0, np.float64(5), np.asarray(5.0),
                np.asarray([5]), "5"):
        for args, name in (((bad,), "seed"), ((1, bad), "stream")):
            with pytest.raises(TypeError, match=rf"^Philox: argument '{name}' got .*; "
                                                r"expected a non-negative int$"):
                rng.Philox(*args, backend="numpy")


def test_advance_takes_a_0d_integer_array_as_its_int():
    """advance refused ``np.asarray(5)`` (a TypeError "expected a non-negative int"),
    where ``shape`` and ``integers`` take a 0-d integer array as an int; bools and
    floats, 0-d or not, are still refused with that TypeError."""
    for n in (np.asarray(5), np.asarray(5, dtype=np.uint8), np.int64(5), np.uint64(5), 5):
        g = rng.Philox(42, 3, backend="numpy").advance(n)
        assert g.counter == 5 and type(g.counter) is int
        assert g.uniform() == rng.philox_uniform(42, 3, 5)
    big = rng.Philox(1, backend="numpy").advance(np.asarray(2**64 - 2, dtype=np.uint64))
    assert big.counter == 2**64 - 2
    with pytest.raises(ValueError, match=r"^Philox\.advance: argument 'n' must be "
                                         r"non-negative, got -1$"):
        rng.Philox(1, backend="numpy").advance(np.asarray(-1))
    with pytest.raises(OverflowError, match="passes 2\\*\\*64"):
        big.advance(np.asarray(3, dtype=np.int8))
    for bad in (True, np.True_, np.asarray(True), 5.0, np.float64(5), np.asarray(5.0),
                np.asarray([5]), "5"):
        g = rng.Philox(1, backend="numpy")
        with pytest.raises(TypeError, match=r"^Philox\.advance: argument 'n' got .*; "
                                            r"expected a non-negative int$"):
            g.advance(bad)
        assert g.counter == 0


@pytest.mark.parametrize("backend", ["numpy", "dask"])
@pytest.mark.parametrize("method", ["uniform", "normal", "integers"])
def test_generator_shared_by_threads_never_repeats_a_block(backend, method, monkeypatch):
    """Two threads drawing from one generator both read the counter before either
    stored it, and got the same numbers (4 threads x 20 draws of 200,000 uniforms: 20
    distinct blocks of 80, the counter a quarter of the counters handed out). A call now
    holds the generator from reading the counter to storing it, as NumPy's does: the two
    draws are the stream's two consecutive blocks, in either order."""
    import threading

    if backend == "dask":
        pytest.importorskip("dask")
    draw = {"uniform": lambda g: g.uniform(5), "normal": lambda g: g.normal((2, 3)),
            "integers": lambda g: g.integers(2**63 + 1, shape=7)}[method]  # rejections
    # every draw checks its room once it has read the counter: there, wait (up to 1 s)
    # for the other thread to arrive, which it can only while the first holds nothing
    barrier = threading.Barrier(2)
    real = rng.Philox._check_room

    def meet(func, start, n, origin=None):
        try:
            barrier.wait(timeout=1)
        except threading.BrokenBarrierError:
            pass
        return real(func, start, n, origin)

    monkeypatch.setattr(rng.Philox, "_check_room", staticmethod(meet))
    g = rng.Philox(9, 4, backend=backend)
    got = []
    threads = [threading.Thread(target=lambda: got.append(xp.to_numpy(draw(g))))
               for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    monkeypatch.undo()
    ref = rng.Philox(9, 4, backend=backend)
    want = [xp.to_numpy(draw(ref)), xp.to_numpy(draw(ref))]
    assert len(got) == 2 and g.counter == ref.counter
    assert sorted(a.tobytes() for a in got) == sorted(a.tobytes() for a in want)
    assert want[0].tobytes() != want[1].tobytes()
