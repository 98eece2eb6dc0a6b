"""xstride's one-sweep radix sort (``radix_sort.cu``) on CuPy against NumPy's stable
argsort: sizes around the tile, every integer dtype, bit counts, duplicates, signed
keys, ``key_bits``, and run-to-run determinism.

A look-back that waits on a tile nobody publishes hangs the device: the module first
sorts in a child process with a time limit (``_smoke``), so a deadlock fails these
tests with a message instead of hanging the run. Failures print the first differing
position, its tile and slot, and how one- and two-pass sorts of the same keys fare.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from xstride import algorithms as alg
from xstride._plans import radix_sort as rp

pytestmark = [pytest.mark.gpu, pytest.mark.xdist_group("radix_sort")]

INT_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
TILE = rp.TILE
SIZES = [0, 1, 2, 31, 32, 33, 255, 256, TILE - 1, TILE, TILE + 1, 2 * TILE - 1, 2 * TILE + 1,
         7 * TILE + 13, (1 << 20) + 3,
         # the tiles of a sort that carries its values (test_sizes_around_the_tile's)
         rp.CARRY_TILE - 1, rp.CARRY_TILE, rp.CARRY_TILE + 1, 2 * rp.CARRY_TILE + 1]
ROOT = Path(__file__).resolve().parents[1]

_SMOKE = textwrap.dedent("""
    import numpy as np, cupy as cp
    from xstride import algorithms as alg
    rng = np.random.default_rng(1)
    for dtype, n, hi in [(np.uint64, (1 << 20) + 3, 1 << 30), (np.int32, 100_003, 1 << 31),
                         (np.uint8, 70_001, 256), (np.uint64, 3 * 3840 + 1, 1 << 64)]:
        keys = rng.integers(0, hi, size=n, dtype=np.uint64).astype(dtype)
        sk, order = alg.sort_by_key(cp.asarray(keys))
        cp.cuda.runtime.deviceSynchronize()
        print(dtype.__name__, n, "ok" if np.array_equal(cp.asnumpy(order),
              np.argsort(keys, kind="stable")) else "WRONG")
""")


@pytest.fixture(scope="module", autouse=True)
def _smoke():
    """Sort a few arrays in a child process, with a time limit: a look-back deadlock
    (or a device fault) fails every test here with its output, instead of hanging."""
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    try:
        done = subprocess.run([sys.executable, "-c", _SMOKE], capture_output=True, text=True,
                              timeout=300, cwd=str(ROOT), env=env)
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"the radix sort did not finish within 300 s in a child process "
                    f"(look-back deadlock?); its output so far:\n{exc.stdout}\n{exc.stderr}")
    if done.returncode != 0:
        pytest.fail(f"the radix sort failed in a child process (rc {done.returncode}):\n"
                    f"{done.stdout}\n{done.stderr[-4000:]}")
    print("smoke:", done.stdout)


@pytest.fixture
def poisoned(cp):
    """Fill a large pool block with 0xFF and free it, so fresh outputs start as garbage."""
    junk = cp.full(1 << 28, 0xFF, dtype=cp.uint8)
    del junk
    return cp


def _diagnose(cp, keys: np.ndarray, key_bits) -> str:
    """Extra facts for a failure: does a one-pass (low byte) and a two-pass (low 16
    bits) sort of the same keys come out right?"""
    lines = []
    u = keys.view(f"u{keys.dtype.itemsize}").astype(np.uint64)
    for bits in (8, 16):
        if bits > 8 * keys.dtype.itemsize:
            continue
        low = (u & np.uint64((1 << bits) - 1)).astype(np.uint64)
        try:
            got = cp.asnumpy(alg.sort_by_key(cp.asarray(low), key_bits=bits)[1])
        except Exception as exc:   # a diagnosis must not hide the failure it explains
            lines.append(f"  sort of the low {bits} bits raised {type(exc).__name__}: {exc}")
            continue
        want = np.argsort(low, kind="stable")
        bad = np.flatnonzero(got != want)
        lines.append(f"  {bits // 8}-pass sort of the low {bits} bits: "
                     + ("ok" if bad.size == 0 else
                        f"{bad.size} wrong, first at {bad[0]} (tile {bad[0] // TILE})"))
    want = np.argsort(keys, kind="stable")
    for name, tuning in [("keys not narrowed", {"narrow": False}),
                         ("permutation not narrowed", {"narrow_index": False}),
                         ("1 key per thread", {"items": 1}),
                         ("min_blocks 1", {"min_blocks": 1})]:
        saved = dict(rp.TUNING)
        rp.TUNING.update(tuning)
        try:
            got = cp.asnumpy(alg.sort_by_key(cp.asarray(keys), key_bits=key_bits)[1])
            bad = np.flatnonzero(got != want)
            lines.append(f"  the same sort, {name}: " + ("ok" if bad.size == 0 else
                         f"{bad.size} wrong, first at {bad[0]}"))
        except Exception as exc:   # a diagnosis must not hide the failure it explains
            lines.append(f"  the same sort, {name}: raised {type(exc).__name__}: {exc}")
        finally:
            rp.TUNING.clear()
            rp.TUNING.update(saved)
    return "\n".join(lines)


def check(cp, keys: np.ndarray, *values, key_bits=None, label=""):
    """sort_by_key on the device == NumPy's stable argsort (order, keys, values); a
    failure says where and how."""
    dev = cp.asarray(keys)
    got = alg.sort_by_key(dev, *[cp.asarray(v) for v in values], key_bits=key_bits)
    n = keys.shape[0]
    want_order = np.argsort(keys, kind="stable")
    order = cp.asnumpy(got[1])
    assert got[1].dtype == np.int64 and got[0].dtype == keys.dtype, (got[0].dtype, got[1].dtype)
    assert len(got) == 2 + len(values)
    if not np.array_equal(order, want_order):
        bad = np.flatnonzero(order != want_order)
        i = int(bad[0])
        lo, hi = max(0, i - 2), min(n, i + 3)
        perm = np.bincount(order[(order >= 0) & (order < n)], minlength=n)
        gk = keys[np.clip(order, 0, n - 1)]
        decreasing = np.flatnonzero(gk[1:] < gk[:-1])
        pytest.fail(
            f"{label} n={n} dtype={keys.dtype} key_bits={key_bits} tile={TILE}: "
            f"{bad.size} positions of order differ; first at {i} (tile {i // TILE}, slot "
            f"{i % TILE}); got order[{lo}:{hi}] = {order[lo:hi].tolist()}, want "
            f"{want_order[lo:hi].tolist()}; keys there got "
            f"{keys[np.clip(order[lo:hi], 0, n - 1)].tolist()}, want "
            f"{keys[want_order[lo:hi]].tolist()}; order is a permutation: "
            f"{bool((perm == 1).all())}; positions where the got keys decrease: "
            f"{decreasing.size} (first {decreasing[:3].tolist()})\n"
            + _diagnose(cp, keys, key_bits))
    np.testing.assert_array_equal(cp.asnumpy(got[0]), keys[want_order], err_msg=label)
    for g, v in zip(got[2:], values):
        np.testing.assert_array_equal(cp.asnumpy(g), np.take(v, want_order, axis=0),
                                      err_msg=label)
    np.testing.assert_array_equal(cp.asnumpy(dev), keys, err_msg=f"{label}: keys modified")


def draw_keys(rng, dtype, n: int, bits: int, dups: bool, negative: bool) -> np.ndarray:
    """n keys of ``dtype`` below 2**bits (a few distinct values when ``dups``; negative
    ones too when ``negative`` and the dtype is signed)."""
    info = np.iinfo(dtype)
    top = min(bits, info.bits - (info.min < 0))
    if dups:
        pool = rng.integers(0, 2**top, size=5, dtype=np.uint64, endpoint=False)
        keys = pool[rng.integers(0, 5, size=n)].astype(dtype)
    else:
        keys = rng.integers(0, 2**top, size=n, dtype=np.uint64, endpoint=False).astype(dtype)
    if negative and info.min < 0 and n:
        neg = rng.random(n) < 0.5
        keys[neg] = rng.integers(info.min, 0, size=int(neg.sum()), dtype=dtype)
        keys[0] = info.min
    return keys


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(n=st.one_of(st.sampled_from(SIZES), st.integers(0, 40_000)),
       dtype=st.sampled_from(INT_DTYPES), bits=st.integers(1, 64), dups=st.booleans(),
       negative=st.booleans(), pass_bits=st.booleans(), seed=st.integers(0, 2**32 - 1))
def test_matches_numpy_stable_argsort(cp, n, dtype, bits, dups, negative, pass_bits, seed):
    rng = np.random.default_rng(seed)
    keys = draw_keys(rng, dtype, n, bits, dups, negative)
    width = 8 * np.dtype(dtype).itemsize
    key_bits = None
    if pass_bits:   # the promise sort_by_key checks on the host: keys in [0, 2**key_bits)
        key_bits = width if (keys < 0).any() else max(1, min(bits, width))
        if key_bits < width and n and int(keys.max()) >> key_bits:
            key_bits = width
    check(cp, keys, np.arange(n, dtype=np.int64), key_bits=key_bits,
          label=f"seed={seed} bits={bits} dups={dups} negative={negative}")


@pytest.mark.parametrize("n", SIZES)
def test_sizes_around_the_tile(poisoned, n):
    cp = poisoned
    rng = np.random.default_rng(n)
    keys = rng.integers(0, max(2, n // 50), size=n).astype(np.uint64)   # many duplicates
    check(cp, keys, np.arange(n, dtype=np.int64), rng.normal(size=(n, 3)).astype(np.float32),
          label="sizes")


@pytest.mark.parametrize("dtype", INT_DTYPES)
def test_every_dtype_full_range(poisoned, dtype):
    cp = poisoned
    info = np.iinfo(dtype)
    rng = np.random.default_rng(int(info.bits) + (info.min < 0))
    n = 3 * TILE + 77
    keys = rng.integers(info.min, info.max, size=n, endpoint=True, dtype=dtype)
    keys[:4] = [info.max, info.min, info.max, info.min]
    check(cp, keys, rng.normal(size=n), label="full range")
    check(cp, keys, key_bits=info.bits, label="full range, key_bits=width")


@pytest.mark.parametrize("key_bits", [1, 7, 8, 9, 15, 16, 17, 24, 30, 31, 32, 33, 48, 63, 64])
def test_key_bits(poisoned, key_bits):
    cp = poisoned
    rng = np.random.default_rng(key_bits)
    n = 250_001
    keys = rng.integers(0, 2**key_bits, size=n, dtype=np.uint64, endpoint=False)
    check(cp, keys, key_bits=key_bits, label="key_bits given")
    check(cp, keys, label="key_bits found")


def test_keys_wider_than_key_bits_still_give_a_permutation(cp):
    # a broken promise (keys outside [0, 2**key_bits)) is not checked on the device and
    # its result is unspecified, but the order stays a permutation: gathers by it stay
    # in bounds
    rng = np.random.default_rng(3)
    keys = rng.integers(0, 2**20, size=50_000, dtype=np.uint64)
    _, order, v = alg.sort_by_key(cp.asarray(keys), cp.arange(50_000), key_bits=12)
    got = cp.asnumpy(order)
    assert np.array_equal(np.sort(got), np.arange(50_000)), "order is not a permutation"
    np.testing.assert_array_equal(cp.asnumpy(v), got)


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.int64])
def test_signed_keys(poisoned, dtype):
    cp = poisoned
    info = np.iinfo(dtype)
    rng = np.random.default_rng(info.bits)
    n = 200_003
    cases = {
        "all negative": rng.integers(info.min, 0, size=n, dtype=dtype),
        "mixed": rng.integers(info.min, info.max, size=n, endpoint=True, dtype=dtype),
        "around zero": rng.integers(-3, 4, size=n).astype(dtype),
        "non-negative": rng.integers(0, info.max, size=n, dtype=dtype),
    }
    for name, keys in cases.items():
        check(cp, keys, np.arange(n, dtype=np.int64), label=name)


def test_key_shapes(poisoned):
    cp = poisoned
    rng = np.random.default_rng(99)
    n = 1_000_003
    cases = {
        "morton30": alg.morton_keys(rng.uniform(size=(n, 3)), [0] * 3, [1] * 3, 10),
        "all_equal": np.full(n, 12345, dtype=np.uint64),
        "all_zero": np.zeros(n, dtype=np.uint32),
        "high_bits_only": rng.integers(0, 4, size=n).astype(np.uint64) << np.uint64(60),
        "presorted": np.arange(n, dtype=np.uint64),
        "reversed": np.arange(n, dtype=np.int32)[::-1].copy(),
        "one_per_tile_differs": (np.arange(n) % TILE == 0).astype(np.uint16),
    }
    for name, keys in cases.items():
        check(cp, keys, np.arange(n, dtype=np.int64), label=name)
    morton = cases["morton30"]
    check(cp, morton, np.arange(n, dtype=np.int64), key_bits=30, label="morton30 key_bits=30")


def test_large_and_deterministic(poisoned):
    cp = poisoned
    rng = np.random.default_rng(7)
    n = (1 << 24) + 3
    keys = rng.integers(0, 1 << 30, size=n, dtype=np.uint64)
    keys[rng.random(n) < 0.3] = 12345   # a heavy duplicate
    dev = cp.asarray(keys)
    vals = cp.arange(n, dtype=cp.int64)
    first = alg.sort_by_key(dev, vals, key_bits=30)
    want = np.argsort(keys, kind="stable")
    got = cp.asnumpy(first[1])
    bad = np.flatnonzero(got != want)
    assert bad.size == 0, (f"{bad.size} wrong, first at {bad[:1]} (tile {bad[:1] // TILE})\n"
                           + _diagnose(cp, keys, 30))
    for rep in range(3):
        again = alg.sort_by_key(dev, vals, key_bits=30 if rep % 2 else None)
        for a, b in zip(first, again):
            assert bool((a == b).all()), f"repeat {rep} differs from the first run"


def test_strided_keys_values_2d_and_empty(poisoned):
    cp = poisoned
    rng = np.random.default_rng(5)
    base = rng.integers(-1000, 1000, size=40_000).astype(np.int64)
    got = alg.sort_by_key(cp.asarray(base)[::2], cp.asarray(rng.normal(size=(20_000, 5))))
    np.testing.assert_array_equal(cp.asnumpy(got[1]), np.argsort(base[::2], kind="stable"))
    empty = alg.sort_by_key(cp.zeros(0, dtype=cp.uint32), cp.zeros((0, 2)), key_bits=3)
    assert [a.shape for a in empty] == [(0,), (0,), (0, 2)]
    one = alg.sort_by_key(cp.asarray(np.array([-5], dtype=np.int8)))
    assert cp.asnumpy(one[0]).tolist() == [-5] and cp.asnumpy(one[1]).tolist() == [0]


@pytest.mark.parametrize("vdtype,k", [(np.int8, 1), (np.float16, 1), (np.float32, 1),
                                      (np.int64, 1), (np.complex64, 1), (np.float32, 2),
                                      (np.uint16, 4), (np.bool_, 8)])
@pytest.mark.parametrize("bits", [8, 30, 64])
def test_one_word_rows_ride_in_the_passes(poisoned, vdtype, k, bits):
    """Value rows of one 1-, 2-, 4- or 8-byte word ride in the sort's passes (carried
    through each of the one and four passes of 8 and 30 bits, gathered by the last of
    the eight passes of 64 bits): their bits (NaN payloads included) are those of
    NumPy's gather; the rows after them, and rows of other sizes, are gathered by
    ``take``."""
    cp = poisoned
    rng = np.random.default_rng(bits + k)
    n = 9 * TILE + 17
    keys = rng.integers(0, 2**bits, size=n, dtype=np.uint64, endpoint=False)
    keys[rng.random(n) < 0.2] = 3   # duplicates: stability shows in the values
    raw = rng.integers(0, 256, size=(n, k * np.dtype(vdtype).itemsize), dtype=np.uint8)
    v = raw.view(vdtype).reshape(n, k) if k > 1 else raw.view(vdtype).reshape(n)
    if vdtype == np.bool_:
        v = v.view(np.uint8) & 1 != 0
    check(cp, keys, v, v[::-1].copy(), rng.normal(size=(n, 3)), key_bits=bits,
          label=f"{np.dtype(vdtype)} x {k}")
    want = np.argsort(keys, kind="stable")
    sk, order, gv = alg.sort_by_key(cp.asarray(keys), cp.asarray(v), key_bits=bits)
    assert gv.dtype == v.dtype and gv.shape == v.shape
    np.testing.assert_array_equal(cp.asnumpy(gv).view(np.uint8), v[want].view(np.uint8))


def test_bits_found_from_the_keys(cp):
    from xstride._kernels import sort as ks

    rng = np.random.default_rng(11)
    for dtype in INT_DTYPES:
        for top in (0, 1, 5, 8 * np.dtype(dtype).itemsize - 1):
            keys = rng.integers(0, 2**top, size=10_001, dtype=np.uint64,
                                endpoint=False).astype(dtype)
            u = cp.asarray(keys).view(f"u{keys.dtype.itemsize}")
            scratch = cp.zeros(rp.SCRATCH_STATUS, dtype=cp.uint64)
            want = rp.bits_from_or(int(np.bitwise_or.reduce(keys.view(u.dtype).astype(np.uint64))),
                                   keys.dtype.itemsize, keys.dtype.kind == "i")
            assert ks.key_bits_of(u, keys.dtype.kind == "i", scratch) == want, (dtype, top)
    neg = cp.asarray(np.array([3, -1, 2], dtype=np.int16))
    scratch = cp.zeros(rp.SCRATCH_STATUS, dtype=cp.uint64)
    assert ks.key_bits_of(neg.view(cp.uint16), True, scratch) == 16


def _median_ms(cp, fn, reps: int = 7) -> float:
    fn()
    cp.cuda.get_current_stream().synchronize()
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    times = []
    for _ in range(reps):
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, stop))
    return float(np.median(times))


def test_speed_against_cupy_argsort_and_gathers(cp):
    """The issue's targets at 2**26 keys + an int64 payload: Morton keys of 30 bits at
    least 2x CuPy's argsort + gathers, random 64-bit keys at least 1.0x. Other tests
    may share the device meanwhile, so only a gross miss fails (below 1.0x and 0.7x);
    the numbers are reported as a warning either way (see benchmarks/sort.py for the
    measurement of record)."""
    n = 1 << 26
    rng = cp.random.default_rng(5)
    m30 = alg.morton_keys(rng.random((n, 3)), [0.0] * 3, [1.0] * 3, 10)
    r64 = rng.integers(0, 2**63, size=n, dtype=cp.int64).view(cp.uint64) * cp.uint64(2)
    payload = cp.arange(n, dtype=cp.int64)
    lines, ratios = [], {}
    for name, keys, bits in [("morton30 key_bits=30", m30, 30), ("morton30 found", m30, None),
                             ("random64", r64, None)]:
        def ours(keys=keys, bits=bits):
            return alg.sort_by_key(keys, payload, key_bits=bits)

        def theirs(keys=keys):
            order = cp.argsort(keys)
            return keys[order], payload[order]

        got, want = ours(), theirs()
        same = bool((got[0] == want[0]).all() and (got[2] == want[1]).all())
        t_ours, t_theirs = _median_ms(cp, ours), _median_ms(cp, theirs)
        ratios[name] = t_theirs / t_ours
        lines.append(f"{name}: xstride {t_ours:.3f} ms, cupy argsort+gathers {t_theirs:.3f} ms, "
                     f"{ratios[name]:.2f}x{'' if same else ' MISMATCH'}")
        assert same, lines[-1]
    report = "radix sort speed at 2**26 + int64 payload (targets 2x, 2x, 1x): " + "; ".join(lines)
    import warnings

    warnings.warn(report, stacklevel=1)
    assert ratios["morton30 key_bits=30"] >= 1.0 and ratios["random64"] >= 0.7, report
