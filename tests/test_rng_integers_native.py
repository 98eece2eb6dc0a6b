"""``Philox.integers``' first round on the host's compiled loop (``xstride_host_integers``
in philox_host.c, ``xstride/_host/philox_integers.py``) against the array rounds every
backend runs, bit for bit: values, rejections and the generator's counter after."""

import ctypes

import numpy as np
import pytest

from tests.test_rng_native import _env, both, cache_dir, needs_cc, same  # noqa: F401
from xstride import rng
from xstride._host import philox as H
from xstride._host import philox_integers as PI

#: (low, high): small ranges; ranges that reject about half of the candidates (so the
#: later rounds run, with fresh counters); the full int64 and uint64 ranges (r = 2**64)
RANGES = [(0, 10), (-5, 7), (0, 2**63 + 1), (2**63 - 1, 2**64), (-2**63, 2**63),
          (0, 2**64), (2**64 - 3, 2**64), (-2**63, -2**63 + 3)]


@pytest.fixture
def first_rounds(monkeypatch):
    """Counts the first rounds the compiled loop ran (no pass without it)."""
    calls = []
    real = PI._run
    monkeypatch.setattr(PI, "_run", lambda *a: calls.append(a[5]) or real(*a))
    return calls


@needs_cc
@pytest.mark.parametrize("low, high", RANGES)
def test_compiled_first_round_equals_the_array_rounds(low, high, monkeypatch, first_rounds):
    def draws():
        g = rng.Philox(2**64 - 3, stream=2**63 + 9)
        g.advance(2**40)
        a = g.integers(low, high, (3, 1001))
        b = g.integers(low, high, 1)
        return a, b, np.asarray(g.counter)

    got, ref = both(monkeypatch, draws)
    for a, b in zip(got, ref):
        same(a, b)
    assert first_rounds[-2:] == [3003, 1]   # both calls' first rounds were compiled


@needs_cc
def test_rejections_take_fresh_counters_after_the_block(first_rounds, monkeypatch):
    """About half of the candidates of [0, 2**63 + 1) are rejected: a quarter of the
    elements reject both and go on with counters after the block, in index order."""
    n = 4000
    got, ref = both(monkeypatch, lambda: (lambda g: (g.integers(0, 2**63 + 1, n),
                                                     np.asarray(g.counter)))(rng.Philox(5)))
    same(got[0], ref[0])
    assert int(got[1]) == int(ref[1]) > n + n // 8    # the later rounds used counters
    assert (got[0] < np.uint64(2**63 + 1)).all()


@needs_cc
def test_counters_up_to_the_last_one_and_threads(monkeypatch):
    n = 3 * H.NATIVE_CHUNK + 5
    out = {}
    for nt in ("1", "2"):
        monkeypatch.setenv("XSTRIDE_NUM_THREADS", nt)
        g = rng.Philox(11).advance(2**64 - n - 1)   # this call may reach the last counter
        out[nt] = g.integers(0, 1000, n)
    same(out["1"], out["2"])
    monkeypatch.setenv("XSTRIDE_HOST_CC", "none")
    same(out["2"], rng.Philox(11).advance(2**64 - n - 1).integers(0, 1000, n))


@needs_cc
def test_a_library_that_fails_the_check_is_not_used(monkeypatch):
    lib = H._native()
    assert lib is not None
    # (raising=False: the check's answer is set on the library's first use of integers,
    # which no earlier test of this worker may have made: xdist's order varies)
    monkeypatch.setattr(lib, "integers_ok", False, raising=False)
    monkeypatch.setattr(PI, "_run", lambda *a: pytest.fail("the compiled loop ran"))
    monkeypatch.setenv("XSTRIDE_NUM_THREADS", "1")
    got = rng.Philox(4).integers(3, 9, 500)
    monkeypatch.setenv("XSTRIDE_HOST_CC", "none")
    same(got, rng.Philox(4).integers(3, 9, 500))


@needs_cc
def test_the_check_catches_a_wrong_loop(monkeypatch):
    """The first use's check compares the loop with the array rounds: a loop whose
    values or rejections differ is refused."""
    lib = H._native()
    real = lib.integers

    def off_by_one(n, seed, stream, base, r, thresh, out, rejected):
        k = real(n, seed, stream, base, r, thresh, out, rejected)
        np.ctypeslib.as_array((ctypes.c_uint64 * n).from_address(out))[0] += 1
        return k

    monkeypatch.setattr(lib, "integers", off_by_one)
    chunked = lambda fn, m: H._map(fn, m, H.NATIVE_CHUNK)   # noqa: E731
    assert PI._self_check(lib, chunked, H.words) is False
    monkeypatch.setattr(lib, "integers", real)
    assert PI._self_check(lib, chunked, H.words) is True


@needs_cc
@pytest.mark.parametrize("chunks", [1000, 777, 64])
def test_dask_blocks_take_the_compiled_round(chunks, first_rounds, monkeypatch):
    """The dask backend's round one, per block, on the host's compiled loop: the same
    values and counter as the NumPy backend's for any chunking. Round one runs once per
    block at the call (the rejected indices) and again when the result is computed (its
    values are not held in memory between the two)."""
    pytest.importorskip("dask.array")
    import xstride as xp

    monkeypatch.setenv("XSTRIDE_NUM_THREADS", "1")
    g = rng.Philox(8).advance(2**50)
    want = g.integers(0, 2**63 + 1, 3000)       # about half the candidates rejected
    before = len(first_rounds)
    with xp.use_backend("dask", chunks=chunks):
        h = rng.Philox(8).advance(2**50)
        got = h.integers(0, 2**63 + 1, 3000)
    blocks = -(-3000 // chunks)
    assert len(first_rounds) - before == blocks   # each block compiled, at the call
    same(xp.to_numpy(got), want)
    assert int(h.counter) == int(g.counter) > 3000
    assert len(first_rounds) - before == 2 * blocks   # and again with the result
