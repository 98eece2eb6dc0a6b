"""The compiled grouping of a chunk by partition (``xstride/_host/partition_host.c``,
built by ``_partition_native.py``, called by ``xstride/_host/partition.py``) against
NumPy's way (a binary search per key, a stable sort of the partition numbers): the same
cuts, rows, keys and values; the arrays it refuses (None: the sample sort then groups
by NumPy); and the distributed sort equal to NumPy's stable sort with and without it."""

from __future__ import annotations


import dask.array as da
import numpy as np
import pytest

import xstride as xp
from xstride._chunked import sample_sort as ss
from xstride._host import _partition_native as PN
from xstride._host.partition import partition

from tests._host_cc import HAVE_CC, host_cc_cache, needs_cc  # noqa: F401 (a fixture)

pytestmark = pytest.mark.usefixtures("host_cc_cache")


def _reference(keys, splitters, values):
    part = np.searchsorted(splitters, keys, side="left")
    order = np.argsort(part, kind="stable")
    cuts = np.concatenate([[0], np.cumsum(np.bincount(part, minlength=splitters.size + 1))])
    return (cuts, keys[order], order, *[v[order] for v in values])


def _check(keys, splitters, values):
    got = partition(keys, splitters, values)
    assert got is not None, PN.reason()
    want = _reference(keys, splitters, values)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_array_equal(g, w)
    assert got[0].dtype == np.int64 and got[2].dtype == np.int64


@needs_cc
@pytest.mark.parametrize("dtype", ["int32", "uint32", "int64", "uint64"])
@pytest.mark.parametrize("m, n_split", [(0, 3), (1, 0), (1, 1), (15, 2), (16, 5), (17, 5),
                                        (1000, 0), (1000, 1), (1000, 31), (3000, 299),
                                        (40_000, 1000)])
def test_the_loop_groups_as_numpy_does(dtype, m, n_split):
    """Duplicate keys (and keys equal to splitters: partition j takes (s[j-1], s[j]]),
    repeated splitters, row counts around the loop's 16 keys searched side by side, the
    extremes of the dtype; values of 1, 2, 4, 8, 12, 16, 24, 32 and other row sizes."""
    rng = np.random.default_rng(m * 7 + n_split)
    info = np.iinfo(dtype)
    keys = rng.integers(0, 60, m).astype(dtype)
    if m > 2:
        keys[:2] = [info.min, info.max]
    pool = np.concatenate([keys, rng.integers(0, 60, max(n_split, 1)).astype(dtype)])
    splitters = np.sort(rng.choice(pool, n_split)).astype(dtype)
    values = [rng.random((m, 3)), rng.integers(-9, 9, m).astype(np.int8),
              rng.random((m, 2)).astype(np.float32), rng.random(m).astype(">f4"),
              rng.integers(0, 9, (m, 5)).astype(np.int16), rng.random((m, 0)),
              rng.random((m, 2)) + 1j, rng.random((m, 4)), rng.integers(0, 9, (m, 2, 2)),
              rng.integers(0, 2, m).astype(bool), np.arange(m, dtype=np.int16)]
    _check(keys, splitters, values)


@needs_cc
def test_strided_and_unaligned_arrays_are_read_as_they_are():
    rng = np.random.default_rng(3)
    keys = rng.integers(0, 100, 2001).astype(np.int64)[::2]           # strided keys
    splitters = np.array([10, 50, 50, 90], dtype=np.int64)
    raw = np.zeros(1001 * 8 + 1, dtype=np.uint8)[1:].view(np.float64)  # unaligned rows
    raw[:] = rng.random(1001)
    assert not raw.flags.aligned
    values = [rng.random((1001, 3))[:, ::2], np.asfortranarray(rng.random((1001, 4))), raw]
    _check(keys, splitters, values)


@needs_cc
def test_unaligned_keys_and_splitters_are_aligned_first(monkeypatch):
    """A review: ``ascontiguousarray`` keeps a contiguous but unaligned array as it is,
    and the loop loaded such keys and splitters as int64 (undefined behaviour in C);
    they are copied to aligned memory first. Unaligned value rows are copied as bytes."""
    rng = np.random.default_rng(9)
    keys = np.zeros(8 * 1001 + 1, np.uint8)[1:].view(np.int64)
    keys[:] = rng.integers(-50, 50, 1001)
    spl = np.zeros(8 * 4 + 1, np.uint8)[1:].view(np.int64)
    spl[:] = [-20, 0, 0, 30]
    assert not keys.flags.aligned and not spl.flags.aligned
    seen = []
    real = PN._Loops.partition
    monkeypatch.setattr(PN._Loops, "partition",
                        lambda self, k, s, *a: seen.append((k.flags.aligned, s.flags.aligned))
                        or real(self, k, s, *a))
    _check(keys, spl, [rng.random((1001, 2))])
    assert seen == [(True, True)]


def test_values_of_another_row_count_are_none():
    """The loop reads ``keys.shape[0]`` rows of every value array: one with fewer rows is
    not handed to it (NumPy's way then names the mismatch)."""
    keys = np.arange(10, dtype=np.int64)
    assert partition(keys, np.array([3], dtype=np.int64), [np.zeros(9)]) is None


@pytest.mark.parametrize("keys, splitters, values", [
    (np.arange(10, dtype=np.int16), np.array([3], dtype=np.int16), []),
    (np.arange(10, dtype=">i8"), np.array([3], dtype=">i8"), []),
    (np.arange(10, dtype=np.int64), np.array([3], dtype=np.int32), []),
    (np.arange(10, dtype=np.int64), np.array([3], dtype=np.int64),
     [np.array(list("abcdefghij"), dtype=object)]),
])
def test_what_the_loop_does_not_take_is_none(keys, splitters, values):
    """Keys of another dtype than native 32- and 64-bit integers, splitters of another
    dtype, values of Python objects: None, and the sample sort groups by NumPy."""
    assert partition(keys, splitters, values) is None


def test_without_a_compiler_it_is_none(monkeypatch):
    monkeypatch.setenv("XSTRIDE_HOST_CC", "none")
    assert partition(np.arange(5, dtype=np.int64), np.array([2], dtype=np.int64), []) is None
    assert PN.reason()


@pytest.mark.parametrize("compiled", [True, False])
@pytest.mark.parametrize("memory", [True, False])
def test_the_sample_sort_is_the_stable_sort_with_and_without_the_loop(monkeypatch, compiled,
                                                                      memory):
    """The split takes the loop where it is loaded (counted) and NumPy's way without a
    compiler: the same stable sort, duplicate keys and object values included."""
    if compiled and not HAVE_CC:
        pytest.skip("no C compiler (cc, gcc, clang) on PATH")
    if not compiled:
        monkeypatch.setenv("XSTRIDE_HOST_CC", "none")
    monkeypatch.setattr(ss, "one_memory", lambda collection: memory)
    monkeypatch.setattr(ss, "_PARTITION_ROWS", 10)   # an output partition per chunk
    calls = []
    real = ss._config.executor_of("sort", np.zeros(1)).partition
    monkeypatch.setattr(ss._config.executor_of("sort", np.zeros(1)), "partition",
                        lambda *a: calls.append(real(*a)) or calls[-1])
    rng = np.random.default_rng(11)
    keys = rng.integers(-20, 20, 3000).astype(np.int64)
    vals = rng.random((3000, 3))
    names = np.array([f"p{i}" for i in range(3000)], dtype=object)
    want = np.argsort(keys, kind="stable")
    with xp.use_backend("dask", chunk_backend="numpy"):
        for extra in ([], [names]):
            got = xp.algorithms.sort_by_key(
                da.from_array(keys, chunks=700), da.from_array(vals, chunks=(700, 3)),
                *[da.from_array(e, chunks=700) for e in extra])
            np.testing.assert_array_equal(xp.to_numpy(got[0]), keys[want])
            np.testing.assert_array_equal(xp.to_numpy(got[1]), want)
            np.testing.assert_array_equal(xp.to_numpy(got[2]), vals[want])
            if extra:
                assert list(xp.to_numpy(got[3])) == list(names[want])
    taken = [c for c in calls if c is not None]
    assert (len(taken) > 0) == compiled, calls
    assert any(c is None for c in calls)   # the object values' sort: NumPy's way

