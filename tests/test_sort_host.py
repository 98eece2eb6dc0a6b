"""The host ``sort_by_key`` executor: both routes (packed words, stable argsort) give
exactly NumPy's stable argsort, whatever the dtype, range, duplicates and length."""

from __future__ import annotations

import numpy as np
import pytest

from xstride._host import sort as host_sort

INTS = [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64]


def _check(keys):
    ref = np.argsort(keys, kind="stable")
    sk, order = host_sort.stable_order(keys)
    assert order.dtype == np.int64 and sk.dtype == keys.dtype
    np.testing.assert_array_equal(order, ref)
    np.testing.assert_array_equal(sk, keys[ref])


@pytest.mark.parametrize("dtype", INTS)
@pytest.mark.parametrize("n", [0, 1, 2, 3, 1000])
def test_stable_order_equals_numpy_on_full_range_and_duplicates(dtype, n):
    info = np.iinfo(dtype)
    rng = np.random.default_rng(n)
    full = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
    _check(full)                         # full range: the argsort route for wide types
    few = rng.integers(0, 5, n).astype(dtype)
    _check(few)                          # many duplicates: the packed route
    if n:
        few[::3] = info.max              # a range that needs every bit
        _check(few)
        few[::5] = info.min
        _check(few)


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_packed_route_with_negative_keys(dtype):
    keys = np.random.default_rng(1).integers(-50, 50, 5000).astype(dtype)
    assert host_sort._packed(keys) is not None     # the route taken
    _check(keys)


def test_the_packed_route_is_taken_exactly_when_the_words_fit():
    n = 1 << 10                                      # 10 row bits: a span of 54 bits fits
    keys = np.zeros(n, dtype=np.uint64)
    keys[1] = (1 << 54) - 1
    assert host_sort._packed(keys) is not None
    keys[1] = 1 << 54
    assert host_sort._packed(keys) is None
    _check(keys)
    base = np.uint64(2**63)                          # the span counts, not the values
    keys = base + np.random.default_rng(2).integers(0, 1000, n).astype(np.uint64)
    assert host_sort._packed(keys) is not None
    _check(keys)


def test_sort_by_key_carries_values_of_every_shape():
    rng = np.random.default_rng(3)
    keys = rng.integers(0, 1 << 30, 777).astype(np.uint64)
    vals, labels, empty = rng.random((777, 3)), np.arange(777, dtype=np.int32), np.ones((777, 0))
    sk, order, sv, sl, se = host_sort.sort_by_key(keys, [vals, labels, empty])
    ref = np.argsort(keys, kind="stable")
    np.testing.assert_array_equal(order, ref)
    np.testing.assert_array_equal(sv, vals[ref])
    np.testing.assert_array_equal(sl, labels[ref])
    assert se.shape == (777, 0)


@pytest.mark.parametrize("dtype", [np.int64, np.uint64])
@pytest.mark.parametrize("n", [2, 3, 1000, 4097])
def test_two_packed_sorts_for_64_bit_keys_of_a_wide_range(dtype, n):
    """Keys whose range needs more than ``64 - bits(n - 1)`` bits: the low bits, then the
    high bits, each a packed sort; equal to NumPy's stable argsort with equal high parts
    that differ in the low ones, equal low parts that differ in the high ones, the
    type's ends and exact duplicates."""
    info = np.iinfo(dtype)
    rng = np.random.default_rng(n)
    keys = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
    keys[0], keys[-1] = info.max, info.min        # the whole range, whatever n
    assert host_sort._packed(keys) is None and host_sort._packed_twice(keys) is not None
    _check(keys)
    high = rng.integers(0, 3, n).astype(np.uint64) << np.uint64(60)
    for low in (rng.integers(0, 4, n).astype(np.uint64),
                rng.integers(0, 2**40, n).astype(np.uint64)):
        keys = (high | low).astype(dtype)      # (signed: the top bits make negatives)
        keys[0], keys[-1] = info.min, info.max
        assert host_sort._packed_twice(keys) is not None
        _check(keys)
    keys[n // 2:] = keys[: n - n // 2]         # exact duplicates, across the halves
    _check(keys)


def test_two_packed_sorts_only_where_one_does_not_fit():
    n = 1 << 10
    keys = np.zeros(n, dtype=np.uint64)
    keys[1] = (1 << 54) - 1                    # 54 bits + 10 row bits: one sort
    assert host_sort._packed(keys) is not None and host_sort._packed_twice(keys) is None
    keys[1] = 1 << 54
    assert host_sort._packed(keys) is None and host_sort._packed_twice(keys) is not None
    _check(keys)
