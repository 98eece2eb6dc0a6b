"""The arguments of take, take_along_axis, repeat, roll, iinfo, arange and searchsorted that
the libraries took and the standard refuses, named alike on every backend
(xstride/_backends/arg_checks.py, index_range.py, sorter_checks.py, arange_checks.py;
split from tests/test_fixes.py, past 600 lines)."""

from __future__ import annotations

import numpy as np
import pytest

import xstride as xp


def test_take_repeat_roll_refuse_what_the_standard_refuses():
    """take: axis required past one dimension, integer indices; repeat: integer
    repeats; roll: integer shifts (NumPy flattened, took a bool mask as 0/1 indices,
    truncated 1.5)."""
    a = np.arange(6).reshape(2, 3)
    with pytest.raises(ValueError, match="take: argument 'axis' is required"):
        xp.take(a, np.array([0, 2]))
    with pytest.raises(TypeError, match="take: argument 'indices'"):
        xp.take(np.arange(3), np.array([True, False, True]), axis=0)
    for bad in (1.5, True):
        with pytest.raises(TypeError, match="repeat: argument 'repeats'"):
            xp.repeat(np.arange(3), bad)
    for bad in (1.5, (1, 1.0)):
        with pytest.raises(TypeError, match="roll: argument 'shift'"):
            xp.roll(np.arange(3), bad, axis=0 if not isinstance(bad, tuple) else (0, 0))
    assert xp.take(a, np.array([1]), axis=1).tolist() == [[1], [4]]
    assert xp.take(np.arange(5), np.array([4, 0])).tolist() == [4, 0]
    assert xp.repeat(np.arange(3), np.array([1, 0, 2])).tolist() == [0, 2, 2]
    assert xp.roll(np.arange(4), np.int64(1)).tolist() == [3, 0, 1, 2]


A34 = np.arange(12.0).reshape(3, 4)
I31 = np.zeros((3, 1), dtype=np.int64)


@pytest.mark.parametrize("x, indices, axis, exc, message", [
    (A34, I31, 2, np.exceptions.AxisError,
     "argument 'axis' is 2, out of range for an array of 2 dimensions"),
    (A34, I31, -3, np.exceptions.AxisError, "argument 'axis' is -3, out of range"),
    (A34, I31, 1.0, TypeError, "argument 'axis' got float 1.0; expected an int naming an axis"),
    (A34, I31, None, TypeError, "argument 'axis' got NoneType None; expected an int"),
    (A34, np.zeros(3, dtype=np.int64), 1, ValueError,
     "argument 'indices' has 1 dimension; expected x's 2"),
    (A34, np.zeros((3, 1)), 1, TypeError, "(shape=(3, 1), dtype=float64); expected an "
     "array of an integer dtype"),
    (A34, np.zeros((3, 1), dtype=bool), 1, TypeError, "argument 'indices' got"),
    (A34, [[0]], 1, TypeError, "argument 'indices' got list [[0]]; expected an array"),
    (A34, np.zeros((4, 1), dtype=np.int64), 1, ValueError,
     "shapes (3, 4) and (4, 1) cannot be broadcast together"),
])
@pytest.mark.parametrize("backend", ["numpy", "dask"])
def test_take_along_axis_names_the_bad_argument_on_every_backend(backend, x, indices, axis,
                                                                exc, message):
    """NumPy's own errors named neither take_along_axis nor the argument (``IndexError:
    `indices` must be an integer array``, "shape mismatch: indexing arrays could not be
    broadcast ...", an AttributeError for a list); dask's took float and bool indices."""
    with xp.use_backend(backend):
        x = xp.asarray(x)
        indices = xp.asarray(indices) if isinstance(indices, np.ndarray) else indices
    with pytest.raises(exc) as info:
        xp.take_along_axis(x, indices, axis=axis)
    assert str(info.value).startswith("take_along_axis: ") and message in str(info.value)


@pytest.mark.parametrize("backend", ["numpy", "dask"])
def test_take_index_out_of_range_names_the_function_on_every_backend(backend):
    """NumPy's "index 7 is out of bounds for axis 0 with size 4" named no function on
    the NumPy backend; the dask backend's said "take: ..." (when computed)."""
    with xp.use_backend(backend):
        x = xp.asarray(np.arange(4.0))
        for axis in (None, 0):
            with pytest.raises(IndexError, match=r"^take: index 7 is out of bounds for axis 0 "
                                                 r"with size 4$"):
                xp.to_numpy(xp.take(x, xp.asarray(np.array([1, 7])), axis=axis))
        assert xp.to_numpy(xp.take(x, xp.asarray(np.array([-1])), axis=0)).tolist() == [3.0]


@pytest.mark.parametrize("backend", ["numpy", "dask"])
def test_take_along_axis_index_out_of_range_names_the_function(backend):
    with xp.use_backend(backend, **({"chunks": 2} if backend == "dask" else {})):
        x, indices = xp.asarray(A34), xp.asarray(np.full((3, 1), 7))
        with pytest.raises(IndexError, match=r"^take_along_axis: index 7 is out of bounds "
                                             r"for axis 1 with size 4"):
            xp.to_numpy(xp.take_along_axis(x, indices, axis=1))
        assert xp.to_numpy(xp.take_along_axis(x, indices - 8, axis=1)).tolist() == \
            [[3.0], [7.0], [11.0]]


def test_roll_tuple_shift_needs_a_tuple_axis_of_its_length():
    """"roll": "If shift is a tuple, then axis must be a tuple of the same size". NumPy
    broadcast the two and summed the shifts of a repeated axis: (1, 1) with axis (0,)
    rolled axis 0 by 2 (a no-op on 2 rows), and without axis rolled the flat array by 2."""
    a = np.arange(6).reshape(2, 3)
    for shift, axis in (((1, 1), (0,)), ((1, 1), None), ((1, 2), 0), ((1,), (0, 1))):
        with pytest.raises(ValueError, match="roll: argument 'shift' has"):
            xp.roll(a, shift, axis=axis)
    assert xp.roll(a, (1, 1), axis=(0, 1)).tolist() == [[5, 3, 4], [2, 0, 1]]
    assert xp.roll(a, 1, axis=(0, 1)).tolist() == [[5, 3, 4], [2, 0, 1]]
    assert xp.roll(a, [1, 1], axis=[0, 1]).tolist() == [[5, 3, 4], [2, 0, 1]]


def test_repeat_takes_uint64_repeats():
    """"repeat": an array of repeats of any integer dtype; NumPy's refused uint64 ("Cannot
    cast array data from dtype('uint64') to dtype('int64') according to the rule 'safe'")."""
    got = xp.repeat(np.arange(3), np.array([1, 0, 2], dtype=np.uint64))
    assert got.tolist() == [0, 2, 2]
    got = xp.repeat(np.arange(4).reshape(2, 2), np.array([2, 1], dtype=np.uint64), axis=0)
    assert got.tolist() == [[0, 1], [0, 1], [2, 3]]
    with pytest.raises(ValueError, match="repeat: argument 'repeats' holds 18446744073709551615"):
        xp.repeat(np.arange(2), np.array([1, 2**64 - 1], dtype=np.uint64))


def test_iinfo_names_a_dtype_that_is_no_integer_dtype():
    """compat's iinfo retried ``type.dtype`` after NumPy refused: a float dtype was
    "Invalid integer data type 'O'." (the class's dtype descriptor), None an AttributeError."""
    for bad in (xp.float32, xp.bool, np.ones(2), "float64"):
        with pytest.raises(ValueError, match="iinfo: argument 'type' is (float32|bool|float64); "
                                             "expected an integer dtype or array"):
            xp.iinfo(bad)
    for bad in (None, 3, "foo"):
        with pytest.raises(TypeError, match="iinfo: argument 'type' got"):
            xp.iinfo(bad)
    assert (xp.iinfo(xp.int8).min, xp.iinfo(xp.int8).max, xp.iinfo(xp.int8).bits) == (-128, 127, 8)
    assert xp.iinfo(np.ones(2, np.uint16)).max == 65535
    assert xp.iinfo("int32").dtype == np.int32


def test_arange_names_a_zero_step():
    """NumPy's raised a bare ``ZeroDivisionError: division by zero`` (dask's the same,
    wrapped in its dispatch message)."""
    for args in ((0, 5, 0), (0.0, 1.0, 0.0), (0, 5, np.int64(0))):
        with pytest.raises(ValueError, match="arange: argument 'step' is 0"):
            xp.arange(*args)
    with xp.use_backend("dask"):
        with pytest.raises(ValueError, match="arange: argument 'step' is 0"):
            xp.arange(0, 5, 0)


def test_arange_of_python_ints_past_int64():
    """NumPy made float64 of them: arange(2**63, 2**63 + 3) was three equal values,
    arange(2**63) and arange(-1, 2**63 + 1) empty, arange(0, 5, 2**70) an object array.
    Values uint64 holds are uint64 (as asarray(2**63) and full's fill); a length past
    int64 or values no integer dtype holds are refused."""
    got = xp.arange(2**63, 2**63 + 3)
    assert got.dtype == np.uint64 and got.tolist() == [2**63, 2**63 + 1, 2**63 + 2]
    got = xp.arange(2**63 + 5, 2**63, -2)
    assert got.dtype == np.uint64 and got.tolist() == [2**63 + 5, 2**63 + 3, 2**63 + 1]
    assert xp.arange(2**64 - 2, 2**64).tolist() == [2**64 - 2, 2**64 - 1]
    got = xp.arange(0, 5, 2**70)
    assert got.dtype == np.int64 and got.tolist() == [0]
    assert xp.arange(2**63, 0).dtype == np.int64 and xp.arange(2**63, 0).size == 0
    for args in ((2**63,), (-1, 2**63 + 1)):
        with pytest.raises(ValueError, match="arange: argument 'stop' gives "):
            xp.arange(*args)
    for args in ((-2**63 - 2, -2**63 + 1), (-1, 2**64, 2**63 + 1)):
        with pytest.raises(OverflowError, match="arange: argument '(start|stop)' gives values"):
            xp.arange(*args)
    assert xp.arange(2**63 - 3, 2**63 - 1).dtype == np.int64   # within int64: as before


def test_searchsorted_names_an_x1_of_other_than_one_dimension():
    """NumPy's said "object too deep for desired array" (2-D) or "object of too small
    depth" (0-D); dask's "Input array a must be one dimensional"."""
    for x1 in (np.arange(6).reshape(2, 3), np.asarray(3)):
        with pytest.raises(ValueError, match="searchsorted: argument 'x1' has shape "):
            xp.searchsorted(x1, np.asarray([2]))
        with xp.use_backend("dask"):
            with pytest.raises(ValueError, match="searchsorted: argument 'x1' has shape "):
                xp.searchsorted(xp.asarray(x1), xp.asarray([2]))
    assert xp.searchsorted(np.asarray([1, 2, 3]), np.asarray([2]), side="right").tolist() == [2]


@pytest.mark.parametrize("sorter, bad", [([0, 5], 5), ([0, 2], 2), ([-1, 0], -1),
                                         ([0, -1], -1), ([-3, 5], -3)])
def test_searchsorted_names_a_sorter_index_out_of_range(sorter, bad):
    """NumPy's search refuses an index it reads with its unnamed "Sorter index out of
    range."; a ``ValueError`` naming ``sorter`` and the index now, for a list, a NumPy
    array and one of another integer dtype (``x2`` of 0.5 and 1.5: the search reads
    both indices of ``sorter``)."""
    x1, x2 = np.asarray([1.0, 2.0]), np.asarray([0.5, 1.5])
    match = f"^searchsorted: argument 'sorter' holds the index {bad}, out of range for x1 of 2"
    for s in (sorter, np.asarray(sorter), np.asarray(sorter, np.int8)):
        with pytest.raises(ValueError, match=match):
            xp.searchsorted(x1, x2, sorter=s)
    assert xp.searchsorted(x1, x2, sorter=np.asarray([0, 1], np.uint8)).tolist() == [0, 1]
    assert xp.searchsorted(np.asarray([2.0, 1.0]), x2, sorter=[1, 0]).tolist() == [0, 1]
    assert xp.searchsorted(np.asarray([]), x2, sorter=np.asarray([], np.intp)).tolist() == [0, 0]


def test_searchsorted_on_numpy_reads_only_the_sorter_indices_its_search_reads(monkeypatch):
    """No scan of every index before the search (it made each call O(len(x1)): 10 values
    in 10**6 took 580 us against 2): an index the search never reads is left as NumPy
    leaves it (``[-1, 0]`` for 1.5 reads only index 1: NumPy's answer, 2), and the scan
    that names a bad index runs on the error's path only."""
    from xstride._backends import arg_checks

    x1 = np.asarray([1.0, 2.0])
    assert xp.searchsorted(x1, np.asarray([1.5]), sorter=[-1, 0]).tolist() == \
        np.searchsorted(x1, [1.5], sorter=np.asarray([-1, 0])).tolist() == [2]
    scans = []
    real = arg_checks.check_sorter_range
    monkeypatch.setattr(arg_checks, "check_sorter_range",
                        lambda s, n: scans.append(n) or real(s, n))
    big = np.arange(1000.0)
    assert xp.searchsorted(big, np.asarray([3.5]), sorter=np.arange(1000)).tolist() == [4]
    assert scans == []
    bad = np.arange(1000)
    bad[500] = 1000                                  # the search's first read
    with pytest.raises(ValueError, match="argument 'sorter' holds the index 1000"):
        xp.searchsorted(big, np.asarray([3.5]), sorter=bad)
    assert scans == [1000]


@pytest.mark.parametrize("backend", ["numpy", "dask"])
def test_searchsorted_takes_a_uint64_sorter_on_numpy_as_on_dask(backend):
    """A uint64 ``sorter`` (an integer dtype, as check_sorter asks) was NumPy's unnamed
    "could not parse sorter argument" on the NumPy backend and an answer on dask; its
    values checked in range, it is cast to intp. One out of range is still named."""
    with xp.use_backend(backend):
        x1, x2 = xp.asarray([3.0, 1.0, 2.0]), xp.asarray([1.5, 2.5])
        s = xp.asarray(np.asarray([1, 2, 0], np.uint64))
        for side, want in (("left", [1, 2]), ("right", [1, 2])):
            assert xp.to_numpy(xp.searchsorted(x1, x2, side=side, sorter=s)).tolist() == want
        with pytest.raises(ValueError, match="^searchsorted: argument 'sorter' holds the "
                                             "index 3, out of range for x1 of 3"):
            xp.to_numpy(xp.searchsorted(x1, x2, sorter=xp.asarray(np.asarray([1, 3, 0],
                                                                               np.uint64))))
