"""sort_by_key on the host: stability, key dtypes, values of shape (n,) and (n, k), errors."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import xstride as xp
from xstride.algorithms import sort_by_key

INT_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]


def test_stable_with_many_duplicates():
    rng = np.random.default_rng(0)
    keys = rng.integers(0, 5, size=1000).astype(np.uint64)
    sk, order, vals = sort_by_key(keys, np.arange(1000))
    assert (sk[1:] >= sk[:-1]).all()
    assert np.array_equal(sk, keys[order])
    assert np.array_equal(vals, order)
    for k in range(5):  # equal keys keep their input order
        run = order[sk == k]
        assert run.size > 100 and (np.diff(run) > 0).all()


@pytest.mark.parametrize("dtype", INT_DTYPES)
def test_every_integer_dtype(dtype):
    info = np.iinfo(dtype)
    rng = np.random.default_rng(int(info.bits))
    keys = rng.integers(info.min, info.max, size=500, endpoint=True, dtype=dtype)
    keys[:4] = [info.min, info.max, info.min, info.max]
    sk, order = sort_by_key(keys)
    assert sk.dtype == dtype and order.dtype == np.int64
    assert np.array_equal(order, np.argsort(keys, kind="stable"))
    assert sk[0] == info.min and sk[-1] == info.max
    assert list(order[:2]) == [0, 2]  # the two minima, in input order


def test_values_1d_and_2d_and_several():
    keys = np.array([3, 1, 2, 1, 0], dtype=np.int32)
    v1 = np.array([30.0, 10.0, 20.0, 11.0, 0.0])
    v2 = np.arange(10).reshape(5, 2)
    v3 = np.array(list("abcde"))
    sk, order, s1, s2, s3 = sort_by_key(keys, v1, v2, v3)
    assert sk.tolist() == [0, 1, 1, 2, 3]
    assert order.tolist() == [4, 1, 3, 2, 0]
    assert s1.tolist() == [0.0, 10.0, 11.0, 20.0, 30.0]
    assert s2.tolist() == [[8, 9], [2, 3], [6, 7], [4, 5], [0, 1]]
    assert s3.tolist() == list("ebdca")
    assert keys.tolist() == [3, 1, 2, 1, 0]  # inputs untouched


def test_strided_inputs_lists_and_edge_sizes():
    base = np.array([5, 0, 4, 0, 3, 0, 2, 0], dtype=np.int64)
    sk, order = sort_by_key(base[::2])
    assert sk.tolist() == [2, 3, 4, 5] and order.tolist() == [3, 2, 1, 0]
    sk, order, v = sort_by_key([2, 1], [7, 8])
    assert sk.tolist() == [1, 2] and v.tolist() == [8, 7]
    sk, order, v = sort_by_key(np.zeros(0, dtype=np.uint8), np.zeros((0, 3)))
    assert sk.shape == (0,) and order.shape == (0,) and v.shape == (0, 3)
    sk, order = sort_by_key(np.array([9], dtype=np.uint64))
    assert sk.tolist() == [9] and order.tolist() == [0]


@settings(max_examples=50, deadline=None)
@given(keys=st.lists(st.integers(-(2**63), 2**63 - 1), max_size=60))
def test_matches_a_stable_python_sort(keys):
    arr = np.array(keys, dtype=np.int64)
    sk, order = sort_by_key(arr)
    want = sorted(range(len(keys)), key=lambda i: keys[i])  # Python's sort is stable
    assert order.tolist() == want
    assert sk.tolist() == sorted(keys)


@pytest.mark.parametrize("keys", [np.array([1.0, 2.0]), np.array([True, False]),
                                  np.array(["a", "b"])])
def test_keys_of_non_integer_dtype(keys):
    with pytest.raises(TypeError, match="sort_by_key: argument 'keys'.*integer dtype"):
        sort_by_key(keys)


@pytest.mark.parametrize("keys", [np.zeros((2, 2), dtype=np.int64), np.int64(3)])
def test_keys_not_1d(keys):
    with pytest.raises(ValueError, match="sort_by_key: argument 'keys' must be 1-D"):
        sort_by_key(keys)


@pytest.mark.parametrize("value", [np.zeros(4), np.zeros((4, 2)), np.zeros((3, 2, 2)), np.float64(1)])
def test_values_of_bad_shape(value):
    with pytest.raises(ValueError, match=r"argument 'values\[1\]' must have shape \(3,\) or \(3, k\)"):
        sort_by_key(np.arange(3), np.zeros(3), value)


def test_memmap_inputs_give_plain_arrays(tmp_path):
    """A NumPy subclass in (np.memmap) comes out as plain ndarrays, as the README says."""
    keys = np.lib.format.open_memmap(tmp_path / "k.npy", mode="w+", dtype=np.int32, shape=(5,))
    keys[:] = [3, 1, 2, 1, 0]
    vals = np.lib.format.open_memmap(tmp_path / "v.npy", mode="w+", dtype=np.float64,
                                     shape=(5, 2))
    vals[:] = np.arange(10.0).reshape(5, 2)
    out = sort_by_key(keys, vals)
    assert all(type(a) is np.ndarray for a in out), [type(a) for a in out]
    np.testing.assert_array_equal(out[0], [0, 1, 1, 2, 3])
    np.testing.assert_array_equal(out[1], [4, 1, 3, 2, 0])
    np.testing.assert_array_equal(out[2], vals[[4, 1, 3, 2, 0]])


def _masked(a):
    a = np.asarray(a)
    return np.ma.masked_array(a, mask=np.zeros(a.shape, bool))


@pytest.mark.parametrize("call", [
    lambda A: A.morton_keys(_masked(np.zeros((4, 3))), [0, 0, 0], [1, 1, 1], 4),
    lambda A: A.morton_encode(_masked([1, 2]), np.array([0, 1]), levels=4),
    lambda A: A.morton_decode(_masked(np.array([1, 2], np.uint64)), 2),
    lambda A: A.sort_by_key(_masked([3, 1, 2])),
    lambda A: A.sort_by_key(np.array([3, 1, 2]), _masked([1.0, 2.0, 3.0])),
    lambda A: A.segment_reduce(_masked(np.arange(4.0)), np.array([0, 2, 4]), "sum"),
    lambda A: A.reduce_by_key(np.array([0, 0, 1, 1]), _masked(np.arange(4.0)), "sum"),
    lambda A: A.run_length_encode(_masked([0, 0, 1])),
    lambda A: A.bin_offsets(_masked([0, 0, 1]), 3),
    lambda A: A.compact(_masked(np.array([True, False, True])), np.arange(3.0)),
    lambda A: A.compact(np.array([True, False, True]), _masked(np.arange(3.0))),
    lambda A: A.voxel_downsample(_masked(np.random.default_rng(0).random((10, 3))), 0.5),
    lambda A: A.morton_tree(_masked(np.array([0, 1, 2], np.uint64)), 3, 2),
], ids=["morton_keys", "morton_encode", "morton_decode", "sort_keys", "sort_values",
        "segment_reduce", "reduce_by_key", "run_length_encode", "bin_offsets",
        "compact_mask", "compact_array", "voxel_downsample", "morton_tree"])
def test_masked_arrays_are_refused(call):
    """A masked array's plain view would drop the mask and count the masked elements:
    every algorithm refuses it and says what to pass instead."""
    with pytest.raises(TypeError, match="without a mask"):
        call(xp.algorithms)


_PARTLY = np.ma.masked_array([0.0, 5.0], mask=[False, True])


@pytest.mark.parametrize("call, name", [
    (lambda A: A.morton_keys(np.full((2, 2), 0.5), _PARTLY, [1, 1], 2), "lower"),
    (lambda A: A.morton_scales([0, 0], _PARTLY + 6, 2), "upper"),
    (lambda A: A.voxel_downsample(np.full((2, 2), 0.5), _PARTLY + 1), "voxel_size"),
    (lambda A: A.voxel_downsample(np.full((2, 2), 0.5), 1.0, origin=_PARTLY), "origin"),
])
def test_masked_bounds_and_sizes_are_refused(call, name):
    """A masked bound, voxel size or origin: its masked entries were read (the 5.0
    under the mask of ``lower`` made a reversed box), as a masked array is not."""
    with pytest.raises(TypeError, match=f"argument '{name}'.*without a mask"):
        call(xp.algorithms)


def _dask_masked(a):
    da = pytest.importorskip("dask.array")
    a = np.asarray(a)
    return da.ma.masked_array(da.from_array(a, chunks=2), mask=np.zeros(a.shape, bool))


@pytest.mark.parametrize("call", [
    lambda A: A.morton_keys(_dask_masked(np.zeros((4, 3))), [0, 0, 0], [1, 1, 1], 4),
    lambda A: A.morton_encode(_dask_masked([1, 2]), _dask_masked([0, 1]), levels=4),
    lambda A: A.morton_decode(_dask_masked(np.array([1, 2], np.uint64)), 2),
    lambda A: A.sort_by_key(_dask_masked([3, 1, 2])),
    lambda A: A.sort_by_key(_dask_masked([3, 1, 2]).map_blocks(np.ma.getdata),
                            _dask_masked([1.0, 2.0, 3.0])),
], ids=["morton_keys", "morton_encode", "morton_decode", "sort_keys", "sort_values"])
def test_dask_arrays_of_masked_chunks_are_refused(call):
    """dask arrays of masked chunks (``dask.array.ma``), as the NumPy backend refuses a
    masked array (they were taken, the masked elements counted: a masked NaN row got a
    key instead of the NaN error)."""
    with pytest.raises(TypeError, match=r"without a mask \(pass dask\.array\.ma\.filled"):
        call(xp.algorithms)
