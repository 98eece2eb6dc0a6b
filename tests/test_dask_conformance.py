"""The dask backend's fixes found by the array API conformance suite (docs/conformance.md,
"dask backend"): each test is a case the suite drew, on dask's local threads."""

from __future__ import annotations

import numpy as np
import pytest

da = pytest.importorskip("dask.array")

import xstride as xp  # noqa: E402


@pytest.fixture(autouse=True)
def _numpy_after():
    yield
    xp.set_backend("numpy")


# --------------------------------------------------------------------- creation
@pytest.mark.parametrize("n_rows, n_cols, k", [
    (3, 4, 0), (3, 4, 1), (1, 9, 8), (2, 5, -1), (4, 3, -1), (5, None, 2), (3, 4, 7),
    (0, 3, 0), (3, 0, 0), (0, 0, 0),
])
@pytest.mark.parametrize("chunks", ["auto", 2, (2, 3), "80B"])
def test_eye_of_any_shape_and_chunks_equals_numpy(n_rows, n_cols, k, chunks):
    """dask's eye(3, M=4) under "auto" chunks declares a column block its graph lacks
    (a ValueError when computed) and refuses per-axis chunks; xstride's gives NumPy's
    values, with the chunks zeros() of that shape gets."""
    with xp.use_backend("dask", chunks=chunks):
        got = xp.eye(n_rows, n_cols, k=k)
        shape = (n_rows, n_rows if n_cols is None else n_cols)
        assert got.chunks == xp.zeros(shape).chunks
    want = np.eye(n_rows, n_cols, k=k)
    assert isinstance(got, da.Array) and got.dtype == want.dtype
    np.testing.assert_array_equal(xp.to_numpy(got), want)


def test_eye_takes_dtype_and_its_own_chunks():
    with xp.use_backend("dask"):
        got = xp.eye(5, 7, k=-2, dtype=xp.int8, chunks=3)
        with pytest.raises(ValueError, match="eye: argument 'chunks'"):
            xp.eye(3, chunks=0)
    assert got.dtype == np.int8 and got.chunks == ((3, 2), (3, 3, 1))
    np.testing.assert_array_equal(xp.to_numpy(got), np.eye(5, 7, k=-2, dtype=np.int8))


@pytest.mark.parametrize("dtype", [object, np.complex64, np.bool_, np.float32, np.uint8])
def test_eye_of_any_dtype_holds_numpys_values(dtype):
    """An object eye held True/False (a bool mask cast to the dtype); NumPy's holds the
    ints 1 and 0, and each block here is made as NumPy makes it, for every dtype."""
    with xp.use_backend("dask", chunks=1):
        got = xp.to_numpy(xp.eye(2, 3, k=1, dtype=dtype, chunks=1))
    want = np.eye(2, 3, k=1, dtype=dtype)
    assert got.dtype == want.dtype
    assert [[(type(v), v) for v in row] for row in got.tolist()] == \
        [[(type(v), v) for v in row] for row in want.tolist()]


def test_eye_of_too_many_elements_is_refused_at_once_and_a_large_one_stays_lazy():
    """eye(2**32) is 2**64 elements: refused like zeros of that shape (dask's eye wrote a
    task for every block and grew until the process was killed); eye(2**29) has 2**34
    blocks under "auto" chunks, one blockwise layer of the aranges of its rows and
    columns, not a graph of 2**34 tasks."""
    from dask.blockwise import Blockwise

    with xp.use_backend("dask"):
        with pytest.raises(ValueError, match=r"eye: argument 'n_rows' .* overflows int64"):
            xp.eye(2**32)
        with pytest.raises(ValueError, match=r"eye: argument 'n_cols' .* overflows int64"):
            xp.eye(2**31, 2**32, dtype=xp.int8)
        big = xp.eye(2**29)
    assert big.shape == (2**29, 2**29) and big.numblocks[0] * big.numblocks[1] >= 2**30
    assert isinstance(big.dask.layers[big.name], Blockwise)
    corner = xp.to_numpy(big[2**29 - 3:, 2**29 - 4:])
    np.testing.assert_array_equal(corner, np.eye(3, 4, k=1))


# --------------------------------------------------------------------- elementwise
@pytest.mark.filterwarnings("ignore:.* encountered in:RuntimeWarning")   # log(-0), acosh(0.5)
@pytest.mark.parametrize("name", ["expm1", "log", "log1p", "tanh", "acosh"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_complex_fixed_functions_take_real_dask_arrays(name, dtype):
    """The complex special-value fixes send real input to the namespace's function by
    the standard's name: dask.array has no ``acosh`` (an AttributeError before)."""
    a = np.array([np.nan, 0.5, 1.0, 2.0, np.inf, -0.0], dtype=dtype)
    with xp.use_backend("dask", chunks=2):
        x = xp.asarray(a)
    got = getattr(xp, name)(x)
    with np.errstate(all="ignore"):
        want = getattr(np, {"acosh": "arccosh"}.get(name, name))(a)
    assert isinstance(got, da.Array) and got.dtype == want.dtype
    np.testing.assert_array_equal(xp.to_numpy(got), want)
    np.testing.assert_array_equal(np.signbit(xp.to_numpy(got)), np.signbit(want))


@pytest.mark.parametrize("start, stop, num", [
    (1.3142647449350737e+119, 1.5, 212), (0.0, 1.0, 10), (-3.0, 7.1, 2), (2.5, 2.5, 5),
])
@pytest.mark.parametrize("chunks", ["auto", 3, "trailing empty"])
def test_linspace_ends_exactly_at_stop(start, stop, num, chunks):
    """dask's linspace computes its last element as start + (num - 1) * step; the
    standard (and NumPy) end at stop exactly. endpoint=False is dask's unchanged."""
    if chunks == "trailing empty":   # the last element in the block before an empty one
        chunks = ((num - 1, 1, 0),) if num > 1 else "auto"
    with xp.use_backend("dask", chunks=chunks):
        got = xp.linspace(start, stop, num)
        open_ = xp.linspace(start, stop, num, endpoint=False)
        one = xp.linspace(start, stop, 1, chunks=-1)
    h = xp.to_numpy(got)
    assert h.shape == (num,) and h[0] == start and h[-1] == stop
    np.testing.assert_allclose(h, np.linspace(start, stop, num), rtol=1e-12)
    np.testing.assert_allclose(xp.to_numpy(open_), np.linspace(start, stop, num,
                                                                endpoint=False), rtol=1e-12)
    assert xp.to_numpy(one).tolist() == [start]


# --------------------------------------------------------------------- manipulation
def test_repeat_without_axis_repeats_the_flattened_array():
    a = np.arange(6).reshape(2, 3)
    with xp.use_backend("dask", chunks=1):
        x = xp.asarray(a)
    for kw in ({}, {"axis": None}):
        got = xp.repeat(x, 2, **kw)
        np.testing.assert_array_equal(xp.to_numpy(got), np.repeat(a, 2))
    np.testing.assert_array_equal(xp.to_numpy(xp.repeat(x, 3, axis=1)), np.repeat(a, 3, axis=1))


def test_repeat_refuses_an_array_of_counts_naming_the_argument():
    """dask's repeat takes one count; an array of counts was its bare
    NotImplementedError "Only integer valued repeats supported", naming nothing."""
    with xp.use_backend("dask", chunks=2):
        x = xp.asarray(np.arange(3))
        counts = xp.asarray(np.array([1, 2, 1]))
    with pytest.raises(NotImplementedError, match=r"repeat: argument 'repeats' got "
                                                  r"dask\.Array.*one count \(an int\)"):
        xp.repeat(x, counts)
    np.testing.assert_array_equal(xp.to_numpy(xp.repeat(x, np.int64(2))),
                                  np.repeat(np.arange(3), 2))


@pytest.mark.parametrize("axis, match", [
    ((0, 0), "names axis 0 twice"), ((0, 5, 3, 0), "out of range|twice"), ((1, -3), "twice"),
    ((0, 4), "4 is out of range for an array of 4 dimensions"),
])
def test_expand_dims_checks_a_tuple_of_axes(axis, match):
    """dask raised StopIteration on a repeated axis."""
    with xp.use_backend("dask"):
        x = xp.zeros((2, 3))
    with pytest.raises(ValueError, match=rf"expand_dims: argument 'axis' .*({match})"):
        xp.expand_dims(x, axis=axis)
    assert xp.expand_dims(x, axis=(0, -1)).shape == (1, 2, 3, 1)
    assert xp.expand_dims(x, axis=1).shape == (2, 1, 3)


# --------------------------------------------------------------------- searching
@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted_takes_a_sorter_and_scalars(side):
    """dask refuses sorter= and fails on a Python scalar or a 0-D x2."""
    a = np.array([5, 1, 3, 3, 9], dtype=np.int16)
    v = np.array([[0, 3], [4, 10]], dtype=np.int16)
    order = np.argsort(a, kind="stable")
    with xp.use_backend("dask", chunks=2):
        x1, x2, s = xp.asarray(a), xp.asarray(v), xp.asarray(order)
        srt = xp.asarray(np.sort(a))
        zero_d = xp.asarray(np.int16(3))
    got = xp.searchsorted(x1, x2, side=side, sorter=s)
    np.testing.assert_array_equal(xp.to_numpy(got), np.searchsorted(a, v, side=side,
                                                                     sorter=order))
    for scalar in (3, zero_d):
        got = xp.searchsorted(srt, scalar, side=side)
        assert got.shape == () and got.dtype == np.int64
        assert int(got) == np.searchsorted(np.sort(a), 3, side=side)


@pytest.mark.parametrize("side", ["left", "right"])
@pytest.mark.parametrize("values", [[1.0, 2.0], [[0.5, 3.0], [9.0, -1.0]], [], (2.0,)])
def test_searchsorted_takes_a_list_x2_as_the_numpy_backend_does(side, values):
    """A review: a Python list x2 beside a dask x1 raised dask's "Chunks and shape must
    be of the same length/dimension. Got chunks=(), shape=(2,)"; the NumPy backend takes
    it (NumPy's answer), so the dask backend gives the same."""
    a = np.array([0.0, 1.0, 2.0, 2.0, 3.0])
    with xp.use_backend("dask", chunks=2):
        x1 = xp.asarray(a)
    got = xp.searchsorted(x1, values, side=side)
    assert isinstance(got, da.Array)
    want = xp.searchsorted(xp.asarray(a), values, side=side)   # the NumPy backend's
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_array_equal(xp.to_numpy(got), want)


@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted_of_unknown_block_lengths(side):
    """A sorted x1 after boolean indexing (block lengths dask does not know): dask's
    added its blocks' offsets from those lengths and gave float NaN for every value past
    the first block; NumPy's int64 indices."""
    a = np.array([0.0, 1, 2, 2, 3, 5, 5, 8, 13, 21])
    v = np.array([[2.0, -3, 9], [5, 30, 0.5]])
    with xp.use_backend("dask", chunks=3):
        x = xp.asarray(np.concatenate([a, [-1.0, -1.0]]))
        v1 = xp.asarray(v, chunks=(1, 2))
    y = x[x > -1]
    assert any(n != n for n in y.shape)
    got = xp.searchsorted(y, v1, side=side)
    h = xp.to_numpy(got)
    assert got.dtype == h.dtype == np.int64 and h.shape == (2, 3)
    np.testing.assert_array_equal(h, np.searchsorted(a, v, side=side))
    assert int(xp.searchsorted(y, 5.0, side=side)) == np.searchsorted(a, 5.0, side=side)
    none = y[y > 100]
    assert xp.to_numpy(xp.searchsorted(none, v1, side=side)).tolist() == [[0] * 3] * 2


@pytest.mark.parametrize("side", ["left", "right"])
@pytest.mark.parametrize("keep", [[False] * 4, [True, True, False, True],
                                  [True, False, False, True], [False, False, True, True]])
@pytest.mark.parametrize("tail", [(2,), (0,), (3, 2)])
def test_searchsorted_of_values_of_unknown_block_lengths(side, keep, tail):
    """Values ``x2`` of two or more dimensions selected by a mask (block lengths dask
    does not know), some blocks left empty: dask's search gave a result of shape
    ``(2, 0)`` for values of ``(0, 2)`` (no error) and "could not broadcast input array
    from shape (1,0) into shape (1,2)" where one block of values held no row."""
    a = np.array([0.0, 1.5, 3.5, 3.5, 8.0])
    vals = np.arange(4 * int(np.prod(tail)), dtype=np.float64).reshape((4,) + tail) / 2
    with xp.use_backend("dask", chunks=2):
        x1 = xp.asarray(a)
        v = xp.asarray(vals)[xp.asarray(np.array(keep))]
    assert v.shape[0] != v.shape[0]
    got = xp.to_numpy(xp.searchsorted(x1, v, side=side))
    want = np.searchsorted(a, vals[np.array(keep)], side=side)
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)



@pytest.mark.parametrize("axis", [None, 0, -1, (0, 2), [1, 2]])
def test_flip_of_unknown_block_lengths(axis):
    """A user probe: ``flip`` of particles selected by a mask (block lengths dask does
    not know) raised dask's "Arrays chunk sizes are unknown". Along an axis of one
    block, reversing the block needs no length: NumPy's answer, also beside the array
    itself. Along several blocks the reversed lengths paired with ``x``'s by position
    (``y + flip(y)`` was wrong): refused, saying to compute the lengths."""
    a = np.arange(60.0).reshape(10, 3, 2)
    keep = a[:, 0, 0] % 4 != 0
    want = np.flip(a[keep], axis=axis)
    with xp.use_backend("dask", chunks=(10, 2, 1)):
        x, m = xp.asarray(a), xp.asarray(keep)
    y = x[m]
    assert any(n != n for n in y.shape) and y.numblocks[0] == 1
    got = xp.flip(y, axis=axis)
    np.testing.assert_array_equal(xp.to_numpy(got), want)
    np.testing.assert_array_equal(xp.to_numpy(y + got), a[keep] + want)
    assert xp.to_numpy(xp.flip(y[y[:, 0, 0] > 100], axis=axis)).shape == (0, 3, 2)
    with xp.use_backend("dask", chunks=(3, 2, 1)):
        x, m = xp.asarray(a), xp.asarray(keep, chunks=4)
    y = x[m]
    flips_rows = axis is None or 0 in np.atleast_1d(axis) % 3
    if flips_rows:
        with pytest.raises(ValueError, match=r"flip: argument 'x' .*lengths dask does not "
                                             r"know .*compute_chunk_sizes\(\)"):
            xp.flip(y, axis=axis)
        y.compute_chunk_sizes()
    got = xp.flip(y, axis=axis)
    np.testing.assert_array_equal(xp.to_numpy(got), want)
    np.testing.assert_array_equal(xp.to_numpy(y + got), a[keep] + want)


# --------------------------------------------------------------------- indexing
@pytest.mark.parametrize("x_shape, i_shape, axis", [
    ((5, 7, 3), (5, 4, 1), 1), ((5, 7, 3), (5, 7, 3), -1), ((6,), (0,), 0), ((4, 1), (4, 9), 1),
])
def test_take_along_axis_equals_the_numpy_backend(x_shape, i_shape, axis):
    """dask has no take_along_axis: x's axis is gathered, indices keep their chunks
    (negative indices count from the end, as NumPy's)."""
    rng = np.random.default_rng(8)
    a = rng.standard_normal(x_shape)
    n = x_shape[axis]
    i = rng.integers(-n, n, i_shape)
    with xp.use_backend("dask", chunks=2):
        x, idx = xp.asarray(a), xp.asarray(i)
    got = xp.take_along_axis(x, idx, axis=axis)
    want = xp.take_along_axis(a, i, axis=axis)   # the NumPy backend
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_array_equal(xp.to_numpy(got), want)
    assert got.chunks[axis] == idx.chunks[axis] or 0 in got.shape


@pytest.mark.parametrize("i_shape, axis, match", [
    ((3,), 0, "argument 'indices' has 1 dimension; expected x's 2"),
    ((3, 4), 2, "argument 'axis' is 2, out of range"),
    ((2, 4), 1, r"shapes \(3, 4\) and \(2, 4\) cannot be broadcast"),
])
def test_take_along_axis_refuses_other_shapes(i_shape, axis, match):
    with xp.use_backend("dask"):
        x, idx = xp.ones((3, 4)), xp.zeros(i_shape, dtype=xp.int64)
    with pytest.raises(ValueError, match=rf"take_along_axis: {match}"):
        xp.take_along_axis(x, idx, axis=axis)


def _selected(a, chunks=2):
    """``a`` as a dask array of rows selected by a mask: its first axis of lengths dask
    does not know."""
    with xp.use_backend("dask", chunks=chunks):
        x = xp.asarray(a)
    return x[x.reshape((x.shape[0], -1))[:, 0] >= 0] if x.ndim > 1 else x[x >= 0]


@pytest.mark.parametrize("x_shape, i_shape, axis, arg", [
    ((6,), (2,), 0, "x"), ((6, 4), (6, 1), 1, "x"), ((6, 4), (1, 4), 0, "x"),
    (None, (6, 1), 1, "indices"), (None, (6, 1), 0, "indices"),
])
def test_take_along_axis_names_lengths_dask_does_not_know(x_shape, i_shape, axis, arg):
    """After boolean indexing: x's unknown lengths were dask's "Array chunk sizes are
    unknown" along the axis and a TypeError ("'float' object cannot be interpreted as
    an integer") off it, indices' off the axis (or along it, broadcast) a broadcast
    error of NaN shapes."""
    with xp.use_backend("dask", chunks=2):
        if arg == "x":
            x, idx = _selected(np.arange(float(np.prod(x_shape))).reshape(x_shape)), \
                xp.zeros(i_shape, dtype=xp.int64)
        else:
            x, idx = xp.ones((3, 4)), _selected(np.zeros(i_shape, dtype=np.int64))
    with pytest.raises(ValueError, match=rf"^take_along_axis: argument '{arg}' has shape "
                                         r"\(nan,.*lengths dask does not know .*; call "
                                         rf"{arg}.compute_chunk_sizes\(\) first$"):
        xp.take_along_axis(x, idx, axis=axis)


def test_take_along_axis_keeps_unknown_lengths_of_indices_along_the_axis():
    a, i = np.arange(12.0).reshape(3, 4), np.arange(24).reshape(6, 4) % 3
    with xp.use_backend("dask", chunks=2):
        x = xp.asarray(a)
    got = xp.take_along_axis(x, _selected(i), axis=0)
    np.testing.assert_array_equal(xp.to_numpy(got), np.take_along_axis(a, i, axis=0))


@pytest.mark.parametrize("shape", [(0,), (0, 3), (3, 0), (2, 0, 2)])
@pytest.mark.parametrize("chunks", [1, -1])
def test_searchsorted_of_no_value(shape, chunks):
    """dask's declared x2's shape but computed another ((1, 0) for (0, 3)); NumPy's
    result is an empty int64 array of x2's shape."""
    with xp.use_backend("dask", chunks=2):
        x1 = xp.asarray(np.array([1.0, 2.0, 3.0]))
    got = xp.searchsorted(x1, da.from_array(np.zeros(shape), chunks=chunks))
    h = xp.to_numpy(got)
    assert got.shape == h.shape == shape and h.dtype == np.int64


# --------------------------------------------------------------------- data type functions
@pytest.mark.parametrize("x", [da.ones(4, chunks=2, dtype=np.float32),
                               da.ones(4, chunks=2, dtype=np.float32).sum()])
def test_can_cast_of_a_dask_array_asks_its_dtype_quietly(x):
    """compat's can_cast is numpy.can_cast, which reached a dask array through
    __array_function__: dask's FutureWarning that the call "may stop working"."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert xp.can_cast(x, xp.float64) is True
        assert xp.can_cast(x, xp.int8) is False
        assert xp.can_cast(x.dtype, xp.float16) is False


@pytest.mark.parametrize("x", [da.ones(4, chunks=2, dtype=np.float32),
                               da.ones(4, chunks=2).sum()])
def test_isdtype_refuses_a_dask_array_as_numpy_arrays_are(x):
    """The standard's isdtype takes a dtype; NumPy's refuses an array, dask's answered
    for its dtype."""
    with pytest.raises(TypeError):
        xp.isdtype(np.ones(2, np.float32), "real floating")
    with pytest.raises(TypeError, match=r"isdtype: argument 'dtype' got dask\.Array.*; "
                                        r"expected a dtype \(an array's \.dtype\)"):
        xp.isdtype(x, "real floating")
    assert xp.isdtype(x.dtype, "real floating") and not xp.isdtype(x.dtype, "integral")
    assert xp.isdtype(x.dtype, ("integral", xp.float32, xp.float64))


@pytest.mark.parametrize("backend", ["numpy", "dask"])
@pytest.mark.parametrize("dtype, kind, error", [
    ("float32", "real floating", TypeError),              # a string is no dtype
    (np.dtype(np.float32), (("real floating",),), TypeError),   # a nested tuple
    (np.dtype(np.float32), 5, TypeError),                  # a kind of no dtype or name
    (np.dtype(np.float32), (np.float32, "x"), ValueError),  # an unknown name in a tuple
    (np.dtype(np.float32), "floating", ValueError),
])
def test_isdtype_refuses_what_numpy_refuses_on_every_backend(backend, dtype, kind, error):
    """The dask backend's isdtype (compat's) took a string dtype, answered False for an
    int or a nested tuple kind and True for ``(float32, 'x')``; it refuses each as the
    NumPy backend's does."""
    with xp.use_backend(backend):
        with pytest.raises(error, match="^isdtype: "):
            xp.isdtype(dtype, kind)
        assert xp.isdtype(np.dtype(np.float32), ("integral", xp.float32))
