"""The device radix sort's plan (digit places and masks, the carry and its tiles, the
tuning range, bits from the keys' OR, shared memory of a pass) and the public checks of
``key_bits`` (its type and range, keys outside it on the host and on dask), without a
device (split from tests/test_radix_sort_model.py, past 600 lines)."""

from __future__ import annotations

import numpy as np
import pytest

from xstride import algorithms as alg
from xstride._plans import radix_sort as rp


def test_plan_places_and_masks():
    p = rp.plan_radix(10, 8, False, 30)
    assert p.passes == 4 and p.shifts == (0, 8, 16, 24) and p.masks == (255, 255, 255, 63)
    assert p.ntiles == 1 and p.flip == 0 and p.tile == rp.TILE == rp.THREADS * p.items
    p = rp.plan_radix(rp.TILE + 1, 2, True, 16)
    assert p.passes == 2 and p.masks == (255, 255) and p.flip == 0x8000 and p.ntiles == 2
    assert rp.plan_radix(7, 1, False, 0).passes == 0
    assert rp.plan_radix(0, 4, False, 3).ntiles == 0
    assert p.scratch_words == rp.SCRATCH_STATUS + 2 * rp.BINS
    assert rp.SCRATCH_STATUS % 2 == 0   # 16-byte aligned look-back words
    assert rp.SCRATCH_COUNTERS + rp.MAX_PLACES <= rp.SCRATCH_HIST
    with pytest.raises(ValueError, match="plan_radix"):
        rp.plan_radix(1, 4, False, 33)
    with pytest.raises(ValueError, match="58-bit"):
        rp.plan_radix(1 << 58, 8, False, 8)


def test_plan_carry_and_its_tiles():
    """A value array of one word a row rides through every pass of a sort of at most
    ``carry_passes`` passes, on tiles of ``carry_items`` keys a thread; a longer sort
    (or none of values) keeps ``items`` and gathers in its last pass."""
    limit = rp.TUNING["carry_passes"]
    p = rp.plan_radix(10**6, 8, False, 8 * limit, vbytes=8)
    assert p.carry and p.items == rp.TUNING["carry_items"] and p.tile == rp.CARRY_TILE
    assert p.ntiles == -(-10**6 // rp.CARRY_TILE)
    assert [p.pass_min_blocks(last) for last in (False, True)] == [rp.TUNING["carry_min_blocks"]] * 2
    q = rp.plan_radix(10**6, 8, False, 8 * limit + 1, vbytes=8)
    assert not q.carry and q.items == rp.ITEMS and q.tile == rp.TILE
    assert [q.pass_min_blocks(last) for last in (False, True)] == [
        rp.TUNING["min_blocks"], rp.TUNING["carry_min_blocks"]]
    r = rp.plan_radix(10**6, 8, False, 8, vbytes=0)
    assert not r.carry and r.pass_min_blocks(True) == rp.TUNING["min_blocks"]
    assert not rp.plan_radix(10, 8, False, 0, vbytes=4).carry   # no pass: nothing moves
    with pytest.raises(ValueError, match="vbytes=3"):
        rp.plan_radix(10, 8, False, 8, vbytes=3)


def test_plan_tuning_range(monkeypatch):
    monkeypatch.setitem(rp.TUNING, "items", rp.MAX_ITEMS + 1)
    with pytest.raises(ValueError, match="tuning"):
        rp.plan_radix(1, 4, False, 3)


@pytest.mark.parametrize("word,item,signed,bits", [
    (0, 8, False, 0), (1, 8, False, 1), ((1 << 30) - 1, 8, False, 30), (1 << 63, 8, False, 64),
    (1 << 63, 8, True, 64), ((1 << 63) - 1, 8, True, 63), (0x80, 1, True, 8), (0x7F, 1, True, 7),
    (0xFFFF, 2, True, 16), (0x8000, 2, False, 16)])
def test_bits_from_or(word, item, signed, bits):
    assert rp.bits_from_or(word, item, signed) == bits


def test_shared_memory_of_a_pass_fits_the_static_limit():
    # s_buf (tile x 8 B), s_warp (warps x 256 x 4 B), s_start, s_base, s_tile, and
    # the block scan's 3 x 32 words: under the 48 KiB of static shared memory
    total = rp.THREADS * rp.MAX_ITEMS * 8 + (rp.THREADS // 32) * rp.BINS * 4 + rp.BINS * 4 \
        + rp.BINS * 8 + 4 + 3 * 32 * 4
    assert total <= 48 * 1024, total


# ---------------------------------------------------------------- the public checks
@pytest.mark.parametrize("bad", [True, 2.0, "8", np.float64(3)])
def test_key_bits_of_a_bad_type(bad):
    with pytest.raises(TypeError, match="sort_by_key: argument 'key_bits'.*an int or None"):
        alg.sort_by_key(np.arange(3), key_bits=bad)


@pytest.mark.parametrize("dtype,bad", [(np.uint8, 9), (np.int8, 0), (np.int32, 33),
                                       (np.uint64, 65), (np.int64, -1)])
def test_key_bits_out_of_range(dtype, bad):
    width = 8 * np.dtype(dtype).itemsize
    with pytest.raises(ValueError, match=rf"argument 'key_bits' must be in 1\.\.{width} .*"
                                         rf"got {bad}"):
        alg.sort_by_key(np.arange(3, dtype=dtype), key_bits=bad)


@pytest.mark.parametrize("keys,key_bits,first", [
    (np.array([1, 2, 8, 3], np.uint32), 3, 2), (np.array([0, -1], np.int16), 15, 1),
    (np.array([4, 300], np.int64), 8, 1)])
def test_keys_outside_key_bits_on_the_host(keys, key_bits, first):
    with pytest.raises(ValueError, match=rf"argument 'keys' has keys\[{first}\] = "
                                         rf"{keys[first]}, outside \[0, 2\*\*{key_bits}\)"):
        alg.sort_by_key(keys, key_bits=key_bits)


def test_key_bits_on_the_host_sorts_as_without():
    rng = np.random.default_rng(0)
    keys = rng.integers(-50, 50, size=1000).astype(np.int16)
    for kb in (None, 16):
        sk, order, v = alg.sort_by_key(keys, np.arange(1000), key_bits=kb)
        np.testing.assert_array_equal(order, np.argsort(keys, kind="stable"))
        np.testing.assert_array_equal(v, order)
    pos = np.abs(keys).astype(np.uint8)
    for kb in (6, 7, 8, np.int64(6)):
        np.testing.assert_array_equal(alg.sort_by_key(pos, key_bits=kb)[1],
                                      np.argsort(pos, kind="stable"))


def test_key_bits_on_dask_arrays():
    da = pytest.importorskip("dask.array")
    keys = np.array([5, 3, 9, 3, 0], dtype=np.uint16)
    dk = da.from_array(keys, chunks=2)
    sk, order = alg.sort_by_key(dk, key_bits=4)
    assert np.asarray(order.compute()).tolist() == [4, 1, 3, 0, 2]
    with pytest.raises(ValueError, match=r"argument 'key_bits' must be in 1\.\.16"):
        alg.sort_by_key(dk, key_bits=17)
