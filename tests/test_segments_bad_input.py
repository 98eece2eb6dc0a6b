"""The segment primitives' bad inputs on the NumPy backend (and beside dask and the
stand-in CuPy): offsets, dtypes and shapes, keys and bins, masks, mixed backends,
lists (split from tests/test_segments.py, past 600 lines)."""

from __future__ import annotations

import numpy as np
import pytest

import xstride as xp
from xstride.algorithms import (bin_offsets, compact, reduce_by_key, run_length_encode,
                                segment_reduce)

OPS = ["sum", "prod", "min", "max", "mean", "count"]


@pytest.mark.parametrize("offsets, match", [
    ([1, 2, 4], "offsets.*must start at 0"),
    ([0, 3, 2, 4], r"offsets.*non-decreasing; offsets\[2\] = 2 .* offsets\[1\] = 3"),
    # offsets far apart: their difference would wrap (not a decrease, were it taken)
    ([0, 2**63 - 1, -2, 4], r"non-decreasing; offsets\[2\] = -2 .* offsets\[1\] = 9223"),
    ([0, 2**63 - 1, -2, 1, 0, 4], r"non-decreasing; offsets\[2\] = -2"),
    ([0, 2, 3], "offsets.*must end at n = 4"),
    ([0, 2, 5], "offsets.*must end at n = 4"),
    ([], "offsets.*at least one entry"),
    ([[0, 4]], r"offsets.*shape \(n_segments \+ 1,\)"),
])
def test_segment_reduce_bad_offsets(offsets, match):
    with pytest.raises(ValueError, match=match):
        segment_reduce(np.arange(4.0), np.array(offsets, dtype=np.int64))


def test_segment_reduce_bad_dtypes_and_shapes():
    o = np.array([0, 2])
    for bad in (np.array([True, False]), np.zeros(2, np.float16), np.zeros(2, np.complex64)):
        with pytest.raises(TypeError, match="'values'.*integer, float32 or float64"):
            segment_reduce(bad, o)
    with pytest.raises(TypeError, match="'offsets'.*integer"):
        segment_reduce(np.zeros(2), np.array([0.0, 2.0]))
    with pytest.raises(ValueError, match=r"'values'.*\(n,\) or \(n, k\)"):
        segment_reduce(np.zeros((2, 1, 1)), o)
    with pytest.raises(ValueError, match="'op' must be one of"):
        segment_reduce(np.zeros(2), o, "median")
    with pytest.raises(TypeError, match="'op'"):
        segment_reduce(np.zeros(2), o, None)


def test_segment_reduce_empty_segment_of_integers():
    with pytest.raises(ValueError, match="segment 1 no rows; the min"):
        segment_reduce(np.arange(3), np.array([0, 1, 1, 3]), "min")
    assert segment_reduce(np.arange(3), np.array([0, 1, 1, 3]), "sum").tolist() == [0, 0, 3]


def test_reduce_by_key_bad_input():
    with pytest.raises(ValueError, match="'sorted_keys' must be sorted.*position 3 holds 1, "
                                         "less than 4 at position 2"):
        reduce_by_key(np.array([0, 2, 4, 1, 0]), np.zeros(5))
    with pytest.raises(TypeError, match="'sorted_keys'.*integer"):
        reduce_by_key(np.array([0.0, 1.0]), np.zeros(2))
    with pytest.raises(ValueError, match="'sorted_keys' must be 1-D"):
        reduce_by_key(np.zeros((2, 2), dtype=int), np.zeros(2))
    with pytest.raises(ValueError, match=r"'values' must have shape \(3,\)"):
        reduce_by_key(np.array([0, 1, 2]), np.zeros(2))
    with pytest.raises(ValueError, match="'op'"):
        reduce_by_key(np.array([0, 1]), np.zeros(2), "avg")
    with pytest.raises(TypeError, match="'values'"):
        reduce_by_key(np.array([0, 1]), np.zeros(2, dtype=bool))


@pytest.mark.parametrize("bins, match", [
    ([5, 1], "'sorted_bins' must be sorted"),
    ([-1, 0], "'sorted_bins' holds bin -1 at position 0"),
    ([0, 2**50], "'sorted_bins' holds bin 1125899906842624 at position 1")])
def test_bin_offsets_bad_bins_with_huge_n_bins(bins, match):
    # the 8 PiB offsets were allocated before the bins were checked: a MemoryError
    # instead of the bins' error (which the device path gives)
    with pytest.raises(ValueError, match=match):
        bin_offsets(np.array(bins), 2**50)


def test_run_length_encode_bad_input():
    with pytest.raises(TypeError, match="'keys'.*integer"):
        run_length_encode(np.array([1.0]))
    with pytest.raises(ValueError, match="'keys' must be 1-D"):
        run_length_encode(np.zeros((1, 1), dtype=int))


def test_bin_offsets_bad_input():
    with pytest.raises(ValueError, match="'sorted_bins' holds bin 5 at position 2, outside "
                                         r"\[0, 5\)"):
        bin_offsets(np.array([0, 1, 5]), 5)
    with pytest.raises(ValueError, match="'sorted_bins' holds bin -1 at position 0"):
        bin_offsets(np.array([-1, 1]), 5)
    with pytest.raises(ValueError, match="'sorted_bins' must be sorted.*position 2"):
        bin_offsets(np.array([0, 3, 1]), 5)
    with pytest.raises(ValueError, match="'n_bins' must be >= 0"):
        bin_offsets(np.array([0]), -1)
    # offsets are int64: NumPy's "Maximum allowed size exceeded" named no argument
    with pytest.raises(ValueError, match="'n_bins' must be below 2\\*\\*60 - 1"):
        bin_offsets(np.array([0]), 2**70)
    with pytest.raises(ValueError, match="'n_bins'"):
        bin_offsets(np.array([0]), 2**63 - 1)
    # (n_bins + 1) int64 offsets of more than 2**63 - 1 bytes: NumPy's bare "array is too
    # big" (no function, no argument), and CuPy's byte count wraps around in 64 bits
    for nb in (2**60 - 1, 2**61, 2**62):
        with pytest.raises(ValueError, match=r"^bin_offsets: argument 'n_bins' must be below "
                                             r"2\*\*60 - 1: .* 2\*\*63 - 1 bytes; got \d+$"):
            bin_offsets(np.array([0]), nb)
    for bad in (2.0, True, None):
        with pytest.raises(TypeError, match="'n_bins'"):
            bin_offsets(np.array([0]), bad)
    with pytest.raises(TypeError, match="'sorted_bins'.*integer"):
        bin_offsets(np.array([0.5]), 3)


def test_compact_bad_input():
    with pytest.raises(TypeError, match="'mask'.*bool"):
        compact(np.array([1, 0]), np.zeros(2))
    with pytest.raises(ValueError, match="'mask' must be 1-D"):
        compact(np.zeros((2, 2), dtype=bool), np.zeros(2))
    with pytest.raises(ValueError, match=r"'arrays\[1\]' must have shape \(2, \.\.\.\)"):
        compact(np.array([True, False]), np.zeros(2), np.zeros(3))
    with pytest.raises(ValueError, match=r"'arrays\[0\]'.*got \(\)"):
        compact(np.array([True]), np.float64(1.0))


def test_mixed_backends_are_refused(fake_cupy):
    from tests.conftest import _allocate

    d = _allocate((3,), np.int64, device=0)
    with pytest.raises(TypeError, match="different backends"):
        segment_reduce(np.zeros(3), d)
    with pytest.raises(TypeError, match="different backends"):
        compact(np.ones(3, dtype=bool), d)
    with pytest.raises(TypeError, match="different backends"):
        reduce_by_key(d, np.zeros(3))


def test_dask_arrays_name_what_to_do():
    da = pytest.importorskip("dask.array")
    x = da.zeros(4, chunks=2)
    keys = da.zeros(4, dtype=int, chunks=2)
    # refused before any other check: a bad op, unsorted keys, a bad bin count
    for call in (lambda: segment_reduce(x, da.from_array(np.array([0, 4]))),
                 lambda: segment_reduce(x, da.from_array(np.array([0, 4])), "bogus"),
                 lambda: reduce_by_key(keys, x, op=7),
                 lambda: run_length_encode(keys),
                 lambda: bin_offsets(keys, -1),
                 # n_bins of the wrong type was checked before the dask array (a probe)
                 lambda: bin_offsets(keys, 3.0),
                 lambda: bin_offsets(keys, True),
                 lambda: bin_offsets(keys, "3"),
                 lambda: segment_reduce(x, [0, 4], ["sum"]),
                 lambda: segment_reduce(x.astype(bool), [0.0, 4.0]),
                 lambda: reduce_by_key(keys.astype(float), x[:3], 5),
                 lambda: run_length_encode(keys.reshape(2, 2)),
                 lambda: compact(x, x.reshape(2, 2)),
                 lambda: compact(da.ones(4, dtype=bool, chunks=2), x)):
        with pytest.raises(NotImplementedError, match="not available on the dask backend; "
                                                      "compute the arrays first"):
            call()
    assert xp.algorithms.SEGMENT_OPS == tuple(OPS)


def test_dask_arrays_beside_numpy_ones_are_the_mixed_backend_error():
    """A dask array beside NumPy arrays was told "not available on the dask backend"
    (``NotImplementedError``), also a 0-d one (``compact(mask, dask.array.from_array(
    numpy.asarray(3.0)))``); it is now the mixed-backend ``TypeError`` that the
    dispatch and the other algorithms (``sort_by_key``, ``voxel_downsample``, the
    Morton functions) raise, naming both arguments, before any other check."""
    da = pytest.importorskip("dask.array")
    x = da.zeros(4, chunks=2)
    zero_d = da.from_array(np.asarray(3.0))
    mask = np.ones(4, dtype=bool)
    for call, names in (
            (lambda: compact(mask, zero_d), "mask is numpy, arrays\\[0\\] is dask"),
            (lambda: compact(mask, x), "mask is numpy, arrays\\[0\\] is dask"),
            (lambda: compact(mask, np.zeros(4), zero_d), "arrays\\[1\\] is dask"),
            (lambda: compact(da.from_array(mask), np.zeros(4)), "mask is dask, arrays"),
            (lambda: compact(mask[:3], zero_d), "mask is numpy"),   # before the shapes
            (lambda: segment_reduce(x, np.array([0, 4])), "values is dask, offsets is numpy"),
            (lambda: segment_reduce(x, np.array([0, 4]), "bogus"), "values is dask"),
            (lambda: segment_reduce(np.zeros(4), zero_d), "offsets is dask"),
            (lambda: reduce_by_key(np.zeros(4, dtype=int), x), "values is dask"),
            (lambda: reduce_by_key(zero_d, np.zeros(4)), "sorted_keys is dask")):
        with pytest.raises(TypeError, match=r"^\w+: arrays from different backends cannot be "
                                            rf"mixed \(.*{names}.*\); move them to one "
                                            r"backend first with xstride\.to_numpy"):
            call()
    with pytest.raises(TypeError, match=r"^add: arrays from different backends cannot be "
                                        r"mixed \(x1 is numpy, x2 is dask\)"):
        xp.add(np.zeros(4), zero_d)   # the dispatch's own, for comparison


@pytest.mark.parametrize("call", [
    lambda: segment_reduce([1.0, 2.0, 3.0], [0, 1, 3]),
    lambda: segment_reduce((1.0, 2.0, 3.0), (0, 1, 3), "max"),
    lambda: reduce_by_key([0, 0, 1], [1.0, 2.0, 3.0]),
    lambda: run_length_encode([0, 0, 1]),
    lambda: bin_offsets([0, 0, 1], 2),
    lambda: compact([True, False], [1.0, 2.0]),
])
def test_lists_under_the_dask_backend_are_not_told_to_compute(call):
    """With dask the active backend, lists (which NumPy and CuPy take as their arrays)
    were told to "compute the arrays first", which a list cannot; the error now says
    that lists become arrays of the active backend and to pass NumPy or CuPy arrays.
    The same lists run on the NumPy backend."""
    pytest.importorskip("dask.array")
    with xp.use_backend("dask", chunk_backend="numpy"):
        with pytest.raises(NotImplementedError,
                           match=r"^\w+: not available on the dask backend; lists and tuples are taken as arrays of the active backend \(dask\): pass NumPy or CuPy arrays"):
            call()
    assert isinstance(call(), (np.ndarray, tuple))


def test_a_list_beside_a_dask_array_is_told_to_compute_the_array():
    da = pytest.importorskip("dask.array")
    x = da.ones(4, chunks=2)
    with xp.use_backend("dask", chunk_backend="numpy"):
        for call in (lambda: segment_reduce(x, [0, 4]), lambda: compact([True] * 4, x),
                     lambda: segment_reduce([1.0, 2.0], [x[0], 2])):
            with pytest.raises(NotImplementedError, match="compute the arrays first"):
                call()


def test_a_list_of_arrays_is_told_to_pass_them_one_by_one():
    """A probe: ``compact(mask, [x, v])`` and ``sort_by_key(keys, (x, v))`` said only
    that the shape (2, n, 3) does not match; ``sort_by_key(keys, x, 30)`` that a value
    of shape () does not (``key_bits`` is keyword-only)."""
    m, x, v = np.ones(4, dtype=bool), np.ones((4, 3)), np.zeros((4, 3))
    with pytest.raises(ValueError, match=r"got \(2, 4, 3\); pass each array as an argument "
                                         r"of its own: compact\(mask, x, v\)"):
        compact(m, [x, v])
    keys = np.arange(4, dtype=np.uint64)
    with pytest.raises(ValueError, match=r"pass each array as an argument of its own: "
                                         r"sort_by_key\(keys, x, v\)"):
        xp.algorithms.sort_by_key(keys, (x, v))
    with pytest.raises(ValueError, match=r"got \(2, 4\); pass each array as an argument"):
        xp.algorithms.sort_by_key(keys, [np.ones(4), np.zeros(4)])   # 1-D ones too
    with pytest.raises(ValueError, match=r"got \(\); key_bits is keyword-only"):
        xp.algorithms.sort_by_key(keys, x, 30)
    # n_bins is checked before the bins (docs/segments.md, "Errors"; a review)
    with pytest.raises(ValueError, match="argument 'n_bins' must be >= 0"):
        bin_offsets(np.array([[0]]), -1)
    with pytest.raises(ValueError) as info:   # a plain wrong length gets no hint
        compact(m, np.ones(3))
    assert "argument of its own" not in str(info.value)


@pytest.mark.parametrize("call", [lambda v: segment_reduce(v, [0, 2]),
                                  lambda v: reduce_by_key([1, 1], v)])
def test_bools_in_a_list_of_values_are_refused_as_bool_arrays_are(call):
    """[True, 1] was read as the ints [1, 1] and summed; a bool array is refused."""
    for values in ([True, 1], [[0.5, np.True_], [1.0, 2.0]]):
        with pytest.raises(TypeError, match=r"argument 'values' got list .*bool"):
            call(values)
