"""The algorithms' arguments that are no plain arrays: lists checked for bools at any
depth, and broadcast views, which are copied before any walk reads them (a view far
larger than its memory is named at once by the copy's MemoryError)."""

from __future__ import annotations

import re

import numpy as np
import pytest

import xstride as xp

alg = xp.algorithms
#: more bytes than a 64-bit process can address: allocations fail at once
HUGE = 2**50


@pytest.mark.parametrize("value, want", [
    ([1, 2, True], True), ([[1, 2], [3, np.bool_(0)]], True), ([[1, [2, [3, [False]]]]], True),
    ([[1, 2], 3, [True]], True), ([[1.0, 2], (3, 4)], False), ([], False), ([[], []], False),
    ((1, (2, (3,))), False), ([np.int64(1), np.float32(2)], False)])
def test_bools_found_at_any_depth_of_a_list(value, want):
    from xstride._core.intseq import holds_bool
    assert holds_bool(value) is want


def test_a_long_list_of_points_is_checked_for_bools_to_its_last_leaf():
    from xstride.algorithms._args import _refuse_listed_bools
    rows = np.random.default_rng(0).random((300_000, 3)).tolist()
    _refuse_listed_bools("f", "x", rows, "numbers")
    rows[-1][-1] = True
    with pytest.raises(TypeError, match="it holds a bool"):
        _refuse_listed_bools("f", "x", rows, "numbers")




@pytest.mark.parametrize("call, func, arg", [
    (lambda v, f: alg.run_length_encode(v), "run_length_encode", "keys"),
    (lambda v, f: alg.sort_by_key(v), "sort_by_key", "keys"),
    (lambda v, f: alg.reduce_by_key(v, f), "reduce_by_key", "sorted_keys"),
    (lambda v, f: alg.compact(np.broadcast_to(True, (HUGE,)), v), "compact", "mask"),
    (lambda v, f: alg.bin_offsets(v, 3), "bin_offsets", "sorted_bins"),
    (lambda v, f: alg.morton_tree(v, 3, 4), "morton_tree", "sorted_keys"),
    (lambda v, f: alg.segment_reduce(f, [0, HUGE]), "segment_reduce", "values"),
    (lambda v, f: alg.voxel_downsample(np.broadcast_to(np.float32(1), (HUGE, 3)), 0.1),
     "voxel_downsample", "points"),
])
def test_huge_broadcast_views_are_named_at_once(call, func, arg):
    """A broadcast view far larger than its memory is copied before any walk reads it:
    the copy's MemoryError names the function and the argument at once (sort_by_key,
    bin_offsets and morton_tree ran for minutes; the others raised NumPy's message)."""
    import time
    keys = np.broadcast_to(np.int64(1), (HUGE,))
    vals = np.broadcast_to(np.float32(1), (HUGE,))
    t0 = time.perf_counter()
    with pytest.raises(MemoryError, match=f"^{func}: not enough memory for a copy of the "
                                          f"broadcast view '{arg}'"):
        call(keys, vals)
    assert time.perf_counter() - t0 < 30


def test_small_broadcast_views_give_their_copies_results():
    keys = np.broadcast_to(np.int64(7), (6,))
    vals = np.broadcast_to(np.array([1.0, 2.0, 3.0], np.float32), (6, 3))
    for got, want in zip(alg.reduce_by_key(keys, vals), alg.reduce_by_key(keys.copy(),
                                                                           vals.copy())):
        np.testing.assert_array_equal(got, want)
    for got, want in zip(alg.sort_by_key(keys, vals), alg.sort_by_key(keys.copy(), vals.copy())):
        np.testing.assert_array_equal(got, want)
    mask = np.broadcast_to(np.array([True, False]), (3, 2)).reshape(-1)
    for got, want in zip(alg.compact(mask, vals), alg.compact(mask.copy(), vals.copy())):
        np.testing.assert_array_equal(got, want)


def test_a_long_list_of_python_ints_is_not_searched_item_by_item(monkeypatch):
    """A list of Python scalars holds no array: the backend search passes it over
    without asking each item (it took about 1 us an item)."""
    from xstride._backends import select
    asked = []
    real = select.backend_of_array
    monkeypatch.setattr(select, "backend_of_array", lambda a: asked.append(a) or real(a))
    keys = list(range(1000, 0, -1))
    got = alg.sort_by_key(keys)
    np.testing.assert_array_equal(got[0], np.arange(1, 1001))
    assert asked == []
    pytest.importorskip("dask.array")
    with xp.use_backend("dask"):   # no array given: the active backend's; an array in a
        assert select.backend_of("f", [("x", [1, 2.0, None, (3,)])]) == "dask"   # list
        assert select.backend_of("f", [("x", [1, np.ones(2)])]) == "numpy"      # is seen


_MASKED_ROW = np.ma.array([0.5, 9.0], mask=[False, True])


@pytest.mark.parametrize("call, func, arg", [
    (lambda: alg.sort_by_key([2, 1], [1.0, np.ma.masked]), "sort_by_key", "values[0]"),
    (lambda: alg.sort_by_key([2, np.ma.masked]), "sort_by_key", "keys"),
    (lambda: alg.segment_reduce([1.0, np.ma.masked, 2.0], [0, 3]), "segment_reduce", "values"),
    (lambda: alg.reduce_by_key([1, 1], [_MASKED_ROW, _MASKED_ROW]), "reduce_by_key", "values"),
    (lambda: alg.compact([True, False], [_MASKED_ROW, _MASKED_ROW]), "compact", "arrays[0]"),
    (lambda: alg.morton_keys([[0.5, 0.5], _MASKED_ROW], [0, 0], [1, 1], 3), "morton_keys",
     "positions"),
    (lambda: alg.morton_keys([[0.5, 0.5]], [0, np.ma.masked], [1, 1], 3), "morton_keys",
     "lower"),
    (lambda: alg.morton_encode([1, np.ma.masked], [0, 0]), "morton_encode", "ix"),
    (lambda: alg.voxel_downsample([[0.5, 0.5], _MASKED_ROW], 1.0), "voxel_downsample",
     "points"),
    (lambda: alg.voxel_downsample([[0.5, 0.5]], [1.0, np.ma.masked]), "voxel_downsample",
     "voxel_size"),
    (lambda: alg.voxel_downsample([[0.5, 0.5]], 1.0, origin=(_MASKED_ROW[1], 0.0)),
     "voxel_downsample", "origin"),
])
def test_lists_holding_masked_arrays_are_refused_as_masked_arrays(call, func, arg):
    """A list holding numpy.ma masked arrays or numpy.ma.masked is the TypeError of a
    masked array: NumPy's conversion read the data under the masks (numpy.ma.masked as
    NaN, with only NumPy's UserWarning; a masked row's hidden 9.0 as a coordinate)."""
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # no conversion of a masked element either
        with pytest.raises(TypeError, match=f"^{func}: argument '{re.escape(arg)}' got .*it "
                                            "holds a "
                                            "numpy.ma masked array or numpy.ma.masked"):
            call()


def test_masked_arrays_are_found_at_any_depth_of_a_list():
    from xstride.algorithms._args import _holds_masked
    assert _holds_masked([[1.0, [2.0, (np.ma.masked,)]]])
    assert _holds_masked(((np.ma.array([1.0]),),))
    assert not _holds_masked([[1.0, [2.0, (np.float32(3),)]], []])


_M = np.ma.array([0, 1], mask=[False, True])
_P = np.ma.array([[0.5, 0.5], [0.1, 0.2]], mask=[[False, False], [False, True]])


@pytest.mark.parametrize("fn, call", [
    (alg.morton_scales, lambda: alg.morton_scales(_M.astype(float), [1, 1], 3)),
    (alg.morton_keys, lambda: alg.morton_keys(_P, [0, 0], [1, 1], 3)),
    (alg.morton_encode, lambda: alg.morton_encode(_M, 0)),
    (alg.morton_decode, lambda: alg.morton_decode(_M, 2)),
    (alg.sort_by_key, lambda: alg.sort_by_key(_M)),
    (alg.segment_reduce, lambda: alg.segment_reduce(_M, [0, 2])),
    (alg.reduce_by_key, lambda: alg.reduce_by_key(_M, [1.0, 2.0])),
    (alg.run_length_encode, lambda: alg.run_length_encode(_M)),
    (alg.bin_offsets, lambda: alg.bin_offsets(_M, 2)),
    (alg.compact, lambda: alg.compact([True, False], _M)),
    (alg.voxel_downsample, lambda: alg.voxel_downsample(_P, 1.0)),
    (alg.morton_tree, lambda: alg.morton_tree(_M, 2, 2)),
])
def test_docstrings_name_the_typeerror_of_a_masked_argument(fn, call):
    """Every function refuses a masked argument with a TypeError; its docstring's Raises
    section did not say so (it listed dtypes and backends only)."""
    with pytest.raises(TypeError, match="mask"):
        call()
    text = " ".join(fn.__doc__.split("    TypeError", 1)[1].split("\n    ValueError", 1)[0]
                    .split("\n    NotImplementedError", 1)[0].split())
    assert "a masked array (``numpy.ma``, a dask array of masked chunks, or a list holding " \
           "one or ``numpy.ma.masked``)" in text


_GONE = np.ma.array(3, mask=True)   # a masked 0-d int: a missing value whose data is 3


@pytest.mark.parametrize("call, func, arg", [
    (lambda v: alg.bin_offsets([0, 1], v), "bin_offsets", "n_bins"),
    (lambda v: alg.morton_keys(np.zeros((1, 2)), [0, 0], [1, 1], v), "morton_keys", "levels"),
    (lambda v: alg.morton_encode([1], [1], levels=v), "morton_encode", "levels"),
    (lambda v: alg.morton_decode([1], v), "morton_decode", "ndim"),
    (lambda v: alg.sort_by_key(np.array([3, 1]), key_bits=v), "sort_by_key", "key_bits"),
    (lambda v: alg.morton_tree(np.array([3]), v, 3), "morton_tree", "ndim"),
    (lambda v: alg.morton_tree(np.array([3]), 2, v), "morton_tree", "levels"),
    (lambda v: alg.morton_tree(np.array([3]), 2, 3).nodes(v), "MortonTree.nodes", "level"),
])
def test_masked_int_arguments_are_refused(call, func, arg):
    """A masked 0-d integer array is a missing value: its __index__ read the data under
    the mask, and bin_offsets made 3 bins, morton_keys keys of 3 levels, and so on."""
    with pytest.raises(TypeError, match=rf"^{re.escape(func)}: argument '{arg}' got "
                                        r"numpy.MaskedArray\(shape=\(\), dtype=int64\); expected "
                                        r".*; it is masked"):
        call(_GONE)
    call(np.ma.array(3))   # no mask set: the int it holds


@pytest.mark.parametrize("call", [lambda v: alg.sort_by_key(v),
                                  lambda v: alg.segment_reduce(v, [0, 1]),
                                  lambda v: alg.morton_keys(v, [0, 0, 0], [1, 1, 1], 4)])
def test_a_list_that_holds_itself_is_refused_not_walked_for_ever(call):
    # the walk for numpy.ma masked arrays in lists went a level deeper for ever; NumPy's
    # conversion refuses such a list (deeper than its 64 dimensions)
    import signal

    import numpy.ma  # noqa: F401  (the walk runs once numpy.ma is imported)

    def hung(signum, frame):
        raise AssertionError("the argument check did not end")

    looped = []
    looped.append(looped)
    old = signal.signal(signal.SIGALRM, hung)
    signal.alarm(10)
    try:
        with pytest.raises((TypeError, ValueError)):
            call(looped)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


@pytest.mark.parametrize("call, want", [
    (lambda v: alg.sort_by_key([1, 0], v)[2], [5, 2**63 + 1]),
    (lambda v: alg.segment_reduce(v, [0, 1, 2], "max"), [2**63 + 1, 5]),
    (lambda v: alg.reduce_by_key([3, 4], v)[1], [2**63 + 1, 5]),
    (lambda v: alg.compact([True, True], v)[0], [2**63 + 1, 5]),
])
def test_listed_ints_past_int64_stay_exact_as_values(call, want):
    """NumPy makes ``[2**63 + 1, 5]`` float64 (2**63 + 1 rounds to 2**63); as keys the
    list was exact, as values it was rounded in silence: both are uint64 now."""
    got = call([2**63 + 1, 5])
    assert got.dtype == np.uint64
    assert [int(v) for v in got] == want


@pytest.mark.parametrize("values, match", [
    ([-1, 2**63 + 1], "no 64-bit integer type holds both"),
    ([2**64, 1], "outside every 64-bit integer type"),
])
def test_listed_ints_no_64_bit_type_holds_are_refused_as_values(values, match):
    with pytest.raises(ValueError, match=rf"sort_by_key: argument 'values\[0\]' .*{match}"):
        alg.sort_by_key([1, 0], values)


def test_listed_floats_and_ints_stay_float64_values():
    got = alg.sort_by_key([1, 0], [1.5, 2**63 + 1])[2]
    assert got.dtype == np.float64
    np.testing.assert_array_equal(got, [2.0**63, 1.5])


@pytest.mark.parametrize("call, arg", [
    (lambda a: alg.sort_by_key([a, a]), "keys"),
    (lambda a: alg.morton_encode([a], [1]), "ix"),
    (lambda a: alg.morton_decode([a], 2), "keys"),
])
def test_a_list_of_dask_integers_is_refused_as_a_list_of_arrays(call, arg):
    """The message said the list held no integers (a 0-d dask array of int64 is one)."""
    da = pytest.importorskip("dask.array")
    with pytest.raises(TypeError, match=rf"argument '{arg}' .*it holds a dask array, which "
                                        r"a list does not take: pass one array"):
        call(da.from_array(np.array(3)))


@pytest.mark.parametrize("call, func, arg", [
    (lambda v: alg.segment_reduce(v, [0, 3], "count"), "segment_reduce", "values"),
    (lambda v: alg.sort_by_key([3, 2, 1], v), "sort_by_key", "values\\[0\\]"),
    (lambda v: alg.compact([True, False, True], v), "compact", "arrays\\[0\\]"),
    (lambda v: alg.reduce_by_key([1, 1, 2], v), "reduce_by_key", "values"),
])
@pytest.mark.parametrize("dtype", ["Float64", "Int64"])
def test_pandas_missing_values_are_refused_as_masked_arrays_are(call, func, arg, dtype):
    """A nullable pandas column's NA was read as NaN (a ``count`` counted it) or made
    the column float64; the pandas mask is refused as ``numpy.ma``'s is."""
    pd = pytest.importorskip("pandas")
    for v in (pd.Series([1, None, 2], dtype=dtype), pd.array([1, None, 2], dtype=dtype)):
        with pytest.raises(TypeError, match=rf"{func}: argument '{arg}' .*holds pandas.NA"):
            call(v)
    full = pd.Series([1, 5, 2], dtype=dtype)   # no NA: taken as its values
    got, want = call(full), call(full.to_numpy())
    for g, w in zip(*(r if isinstance(r, tuple) else (r,) for r in (got, want))):
        np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("item", [np.float64(1.0), np.bool_(True)])
def test_a_listed_numpy_scalar_that_is_no_integer_is_named_as_no_integer(item):
    """NumPy scalars have a ``shape``: they were taken for arrays of another library."""
    with pytest.raises(TypeError, match=r"expected integers \(a list of ints or an integer "
                                        r"array\)$"):
        xp.rng.philox_uniform([item], 0, 0)
