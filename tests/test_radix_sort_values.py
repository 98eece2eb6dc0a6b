"""The value arrays that move in the device radix sort's own passes (carried through
every pass, or gathered by the last), on the played model of
tests/test_radix_sort_model.py (its ``device`` fixture and ``check``): which arrays
move, in which passes, on which tiles, and the way out when the carried buffers do not
fit. tests/test_radix_sort_gpu.py checks the CUDA code on the device.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.test_radix_sort_model import check, device  # noqa: F401 (fixture)
from xstride._plans import radix_sort as rp


@pytest.mark.parametrize("n", [rp.CARRY_TILE - 1, rp.CARRY_TILE, rp.CARRY_TILE + 1,
                               3 * rp.CARRY_TILE + 7])
def test_carried_values_around_the_carry_tile(device, n):
    rng = np.random.default_rng(n)
    keys = rng.integers(0, max(2, n // 40), size=n).astype(np.uint32)
    check(device, keys, rng.normal(size=n), rng.normal(size=(n, 2)))
    assert set(device.carried) == {True} and device.gathers == [8] * len(device.gathers)


@pytest.mark.parametrize("refuse", ["carried", "scratch"])
def test_carrying_sort_without_room_gathers(device, monkeypatch, refuse):
    """When a buffer of the carrying sort does not fit (its carried values' first
    buffer, or its scratch), the gathering sort, which needs less, runs instead: the
    last pass gathers, on tiles of ``items`` keys, with the same result."""
    from xstride._kernels._cupy import cupy
    rng = np.random.default_rng(11)
    n = 2 * rp.CARRY_TILE + 3
    keys = rng.integers(0, 1 << 24, size=n).astype(np.uint32)   # three passes
    payload = rng.integers(-2**40, 2**40, size=n)
    fake = cupy()
    # the first request of n 8-byte words is the carried values' first buffer
    name, size = (("empty", n) if refuse == "carried" else
                  ("zeros", rp.plan_radix(n, 4, False, 24, vbytes=8).scratch_words))
    real, refused = getattr(fake, name), []

    def no_room(shape, dtype=float, *args, **kwargs):
        if not refused and shape == size and np.dtype(dtype) == np.uint64:
            refused.append(shape)
            raise MemoryError("out of memory")
        return real(shape, dtype, *args, **kwargs)
    monkeypatch.setattr(fake, name, no_room)
    check(device, keys, payload, key_bits=24)
    assert refused == [size]
    assert device.carried == [False] * 3 and device.gathers == [0, 0, 8]
    assert device.ran.count("onesweep") == 3


@pytest.mark.parametrize("vdtype,k", [(np.int8, 1), (np.float16, 1), (np.float32, 1),
                                      (np.int64, 1), (np.complex64, 1), (np.float32, 2),
                                      (np.uint16, 4), (bool, 8)])
@pytest.mark.parametrize("carry_passes", [0, 2])
def test_one_word_rows_ride_in_the_passes(device, vdtype, k, carry_passes, monkeypatch):
    """The first value array whose rows are one word of 1, 2, 4 or 8 bytes moves in the
    sort's own passes (VBYTES): through every pass (CARRY) when the sort has at most
    ``carry_passes`` passes, else gathered by the last pass; the rest by ``take``; the
    bits are those of a gather either way."""
    monkeypatch.setitem(rp.TUNING, "carry_passes", carry_passes)
    rng = np.random.default_rng(k)
    n = 5 * rp.TILE + 11
    keys = rng.integers(0, 3000, size=n).astype(np.uint32)   # 12 bits: two passes
    raw = rng.integers(0, 256, size=(n, k * np.dtype(vdtype).itemsize), dtype=np.uint8)
    v = raw.view(vdtype).reshape(n, k) if k > 1 else raw.view(vdtype).reshape(n)
    wide = rng.normal(size=(n, 3))
    check(device, keys, wide, v, v[::-1].copy())
    word = np.dtype(vdtype).itemsize * k
    if carry_passes:
        assert device.gathers == [word, word] and device.carried == [True, True]
    else:
        assert device.gathers == [0, word] and device.carried == [False, False]


def test_carry_follows_the_number_of_passes(device, monkeypatch):
    """At the default tuning a sort of up to ``carry_passes`` passes carries its values
    through each of them; a longer sort gathers them in its last pass."""
    rng = np.random.default_rng(7)
    n = 3 * rp.TILE + 5
    limit = rp.TUNING["carry_passes"]
    keys = rng.integers(0, 1 << (8 * limit), size=n, dtype=np.uint64)
    payload = rng.integers(-2**40, 2**40, size=n)
    check(device, keys, payload, key_bits=8 * limit)
    assert device.carried == [True] * limit and device.gathers == [8] * limit
    device.carried.clear()
    device.gathers.clear()
    check(device, keys, payload, key_bits=8 * limit + 1)
    assert device.carried == [False] * (limit + 1)
    assert device.gathers == [0] * limit + [8]


def test_rows_not_one_word_are_taken(device):
    rng = np.random.default_rng(3)
    n = 2 * rp.TILE + 1
    keys = rng.integers(0, 1 << 20, size=n).astype(np.int64)
    base = rng.normal(size=(n, 4)).astype(np.float32)
    # 16-byte rows, 12-byte rows, a strided column: none is one word in memory
    check(device, keys, base, base[:, :3].copy(), base[:, 1])
    assert set(device.gathers) == {0}


@pytest.mark.parametrize("carry_passes", [0, 1])
def test_one_pass_moves_values_too(device, carry_passes, monkeypatch):
    monkeypatch.setitem(rp.TUNING, "carry_passes", carry_passes)
    rng = np.random.default_rng(4)
    n = 3 * rp.TILE
    keys = rng.integers(0, 200, size=n).astype(np.uint8)
    got = check(device, keys, np.arange(n, dtype=np.int64) * 3)
    assert device.gathers == [8] and got[2].dtype == np.int64
    assert device.carried == [bool(carry_passes)]
