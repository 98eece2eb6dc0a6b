"""The dask backend's manipulation functions on arrays of complex or masked chunks and
of lengths dask does not know (after boolean indexing): no warning at the call, the
masks kept, NumPy's values, and where lengths are needed a clear error saying to call
``compute_chunk_sizes()`` (split from ``test_bad_input_dask_standard.py``)."""

from __future__ import annotations

import re

import numpy as np
import pytest

da = pytest.importorskip("dask.array")

import xstride as xp  # noqa: E402

from tests.test_bad_input_dask_standard import _d, _selected  # noqa: E402


@pytest.fixture(autouse=True)
def _numpy_after():
    yield
    xp.set_backend("numpy")


@pytest.mark.parametrize("name", ["tril", "triu"])
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_triangles_of_complex_chunks_warn_nothing_and_equal_numpy(name, dtype):
    """dask's built its mask by an arange on the complex meta: "ComplexWarning: Casting
    complex values to real discards the imaginary part" at every call."""
    import warnings

    a = (np.arange(30.0) - 3j * np.arange(30.0)).astype(dtype).reshape(2, 3, 5)
    for k in (0, -1, 2):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            got = getattr(xp, name)(_d(a, (1, 2, 2)), k=k)
            h = xp.to_numpy(got)
        want = getattr(np, name)(a, k=k)
        assert got.dtype == h.dtype == want.dtype
        np.testing.assert_array_equal(h, want)


@pytest.mark.parametrize("shape", [(4, 5, 2), (5, 2), (1, 2)])
def test_broadcast_to_of_unknown_lengths_says_to_compute_them(shape):
    """dask's said "cannot broadcast shape (nan, 2) to shape (4, 5, 2)", as if the shapes
    did not broadcast; once computed the lengths broadcast as NumPy's."""
    a, y = _selected()
    with xp.use_backend("dask"):
        with pytest.raises(ValueError, match=r"broadcast_to: argument 'x' has shape \(nan, 2\), "
                                             r"with lengths dask does not know .*broadcast to "
                                             rf"{re.escape(str(shape))} needs; call "
                                             r"x.compute_chunk_sizes\(\) first"):
            xp.broadcast_to(y, shape)
        y.compute_chunk_sizes()
        if shape[-2] == 5:
            got = xp.broadcast_to(y, shape)
            np.testing.assert_array_equal(xp.to_numpy(got), np.broadcast_to(a, shape))


@pytest.mark.parametrize("shape", [(5, 3), (5, 1), (2,), (5, 1, 1)])
def test_broadcast_to_of_unknown_lengths_that_cannot_broadcast(shape):
    """A known length that differs from the target's stays the broadcast error (the
    NumPy backend's text, ``broadcast_errors.py``)."""
    _, y = _selected()
    with xp.use_backend("dask"):
        with pytest.raises(ValueError, match=r"^broadcast_to: shapes \(nan, 2\) and "
                                             rf"{re.escape(str(shape))} cannot be broadcast "
                                             r"together \(into shape\)$"):
            xp.broadcast_to(y, shape)


@pytest.mark.parametrize("axis", [1, -1])
def test_concat_off_unknown_lengths_says_to_compute_them(axis):
    """Rows selected by a mask joined by columns: dask's said "Tried to concatenate
    arrays with unknown shape (nan, 2). Two solutions: 1. Force concatenation pass
    allow_unknown_chunksizes=True", an option xstride's concat does not take (and whose
    blocks dask cannot check line up); along the unknown axis the join still works."""
    a, y = _selected()
    with xp.use_backend("dask"):
        with pytest.raises(ValueError, match=r"concat: argument 'arrays' holds shapes "
                                             r"\(nan, 2\), \(nan, 2\), with lengths dask does "
                                             r"not know .* off the concatenation axis 1, .*"
                                             r"compute_chunk_sizes\(\) on each first"):
            xp.concat([y, y * 2], axis=axis)
        got = xp.concat([y, y * 2], axis=0)
        assert xp.concat([y], axis=axis) is not None
        y.compute_chunk_sizes()
        joined = xp.concat([y, y * 2], axis=axis)
    np.testing.assert_array_equal(xp.to_numpy(got), np.concatenate([a, a * 2], axis=0))
    np.testing.assert_array_equal(xp.to_numpy(joined), np.concatenate([a, a * 2], axis=axis))


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("axis", [None, 0, 1, -1])
def test_take_of_complex_chunks_warns_nothing_and_equals_numpy(dtype, axis):
    """dask's gather declared its int64 block offsets on the complex meta: "ComplexWarning:
    Casting complex values to real discards the imaginary part" at every call."""
    import warnings

    a = (np.arange(6.0) - 2j * np.arange(6.0)).astype(dtype).reshape(2, 3)
    if axis is None:
        a = a[0]
    idx = np.array([0, 1, -1, 0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = xp.take(_d(a, 1), _d(idx, 3), axis=axis)
        h = xp.to_numpy(got)
    want = np.take(a, idx, axis=axis)
    assert got.dtype == h.dtype == want.dtype
    np.testing.assert_array_equal(h, want)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.int32])
def test_take_of_masked_chunks_warns_nothing_and_equals_numpy(dtype):
    """dask's gather cast the masked meta (fill value 1e20) to int64 for its block
    offsets: "RuntimeWarning: invalid value encountered in cast" at every call."""
    import warnings

    a = np.ma.masked_array(np.arange(1, 7).astype(dtype), mask=[1, 0, 0, 1, 0, 0])
    idx = np.array([0, 2, -1, 3])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        h = xp.to_numpy(xp.take(da.from_array(a, chunks=2), _d(idx, 3)))
    want = np.take(a, idx)
    assert h.dtype == want.dtype
    assert np.ma.getmaskarray(h).tolist() == np.ma.getmaskarray(want).tolist() == [1, 0, 0, 1]
    assert np.ma.getdata(h).tolist() == np.ma.getdata(want).tolist()


@pytest.mark.parametrize("axis", [0, -2])
def test_unstack_along_an_unknown_length_says_to_compute_it(axis):
    """dask's said "Cannot call len() on object with unknown chunk size", naming neither
    the function nor the argument; along a known axis unstack works."""
    a, y = _selected()
    with xp.use_backend("dask"):
        with pytest.raises(ValueError, match=r"unstack: argument 'x' has shape \(nan, 2\), "
                                             r"with lengths dask does not know .*along axis "
                                             rf"{axis} needs; call x.compute_chunk_sizes\(\)"):
            xp.unstack(y, axis=axis)
        got = xp.unstack(y, axis=1)
    assert len(got) == 2
    for g, w in zip(got, np.unstack(a, axis=1) if hasattr(np, "unstack") else a.T):
        np.testing.assert_array_equal(xp.to_numpy(g), w)


@pytest.mark.parametrize("name", ["tril", "triu"])
@pytest.mark.parametrize("dtype", [np.float64, np.int16, np.complex64, np.bool_])
def test_triangles_of_masked_arrays_keep_the_masks(name, dtype):
    """NumPy's tril/triu (and dask's, per block) select by numpy.where, which returned
    the data of a masked array alone: the masked elements of the kept triangle shown as
    values. The kept elements keep their mask, the zeros are unmasked, on both backends
    (dask's of masked float chunks also warned "invalid value encountered in cast")."""
    import warnings

    a = np.ma.masked_array(np.arange(1, 25).reshape(2, 3, 4).astype(dtype),
                           mask=np.arange(24).reshape(2, 3, 4) % 5 == 0)
    for k in (-1, 0, 2):
        want_data = getattr(np, name)(np.ma.getdata(a), k=k)
        want_mask = getattr(np, name)(np.ma.getmaskarray(a), k=k)
        assert want_mask.any()   # masked elements in the kept triangle
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            lazy = getattr(xp, name)(da.from_array(a, chunks=(1, 2, 3)), k=k)
            for got in (getattr(xp, name)(a, k=k), xp.to_numpy(lazy)):
                assert isinstance(got, np.ma.MaskedArray) and got.dtype == a.dtype
                assert np.ma.getmaskarray(got).tolist() == want_mask.tolist()
                assert np.ma.getdata(got).tolist() == want_data.tolist()


def test_stack_of_different_unknown_lengths_says_to_compute_them():
    """dask's said "Stacked arrays must have the same shape. The first array had shape
    (nan, 2), while array 2 has shape (nan, 2)", shapes that read the same."""
    a, y = _selected()
    x = _d(np.arange(12.0).reshape(6, 2), 2)
    other = x[x[:, 1] < 10]   # rows 0..4: lengths (nan, 2) of another selection
    with xp.use_backend("dask"):
        with pytest.raises(ValueError, match=r"stack: argument 'arrays' holds shapes \(nan, 2\), "
                                             r"\(nan, 2\), with lengths dask does not know .*"
                                             r"compute_chunk_sizes\(\) on each first"):
            xp.stack([y, other], axis=1)
        with pytest.raises(ValueError, match=r"stack: argument 'arrays' holds shapes "
                                             r"\(nan, 2\) \(index 0\) and \(5, 3\)"):
            xp.stack([y, xp.ones((5, 3))])   # a known length differs: join_checks.py
        y.compute_chunk_sizes()
        other.compute_chunk_sizes()
        got = xp.stack([y, other], axis=1)
    np.testing.assert_array_equal(xp.to_numpy(got), np.stack([a, np.arange(10.0).reshape(5, 2)],
                                                             axis=1))


@pytest.mark.parametrize("shift, axis", [(1, 1), (-1, -1), (3, 1), ((1, 1), (1, -1)), (0, 1)])
def test_roll_along_a_known_axis_of_rows_selected_by_a_mask(shift, axis):
    """dask's roll needed every length: rolling the columns of rows selected by a mask
    raised (its error said to call compute_chunk_sizes()); the two slices along the
    known axis are joined, NumPy's values."""
    a = np.arange(30.0).reshape(6, 5)
    x = _d(a, (2, 2))
    y = x[x[:, 0] > 6]
    with xp.use_backend("dask"):
        got = xp.roll(y, shift, axis=axis)
    want = np.roll(a[2:], shift, axis=axis)
    h = xp.to_numpy(got)
    assert got.dtype == h.dtype == want.dtype
    np.testing.assert_array_equal(h, want)


@pytest.mark.parametrize("dtype", [">i4", ">f8", ">c8"])
@pytest.mark.parametrize("selected", [False, True])
def test_repeat_and_tile_keep_a_big_endian_dtype_as_numpy(dtype, selected):
    """NumPy's repeat and tile keep a big-endian x's dtype; dask's concatenate made the
    dask backend's native (a ``>i4`` x gave int32), also for lengths it does not know."""
    host = np.array([[1, 2, 3], [4, 5, 6]], dtype=dtype)
    with xp.use_backend("dask", chunks=1):
        x = xp.asarray(host)
    if selected:   # the rows of lengths dask does not know
        x, host = x[xp.real(x[:, 0]) > 0], host[np.real(host[:, 0]) > 0]
    for name, call in (("repeat", lambda a: xp.repeat(a, 2)),
                       ("repeat axis", lambda a: xp.repeat(a, 2, axis=1)),
                       ("tile", lambda a: xp.tile(a, (2, 1)))):
        want, got = call(host), call(x)
        assert want.dtype == got.dtype == np.dtype(dtype), name
        got = xp.to_numpy(got)
        assert got.dtype == want.dtype and got.tobytes() == want.tobytes(), name


@pytest.mark.parametrize("dtype", [">i4", ">f8"])
def test_roll_keeps_a_big_endian_dtype_as_numpy(dtype):
    """dask's roll joins two slices with concatenate, which made a ``>i4`` x int32 (the
    NumPy backend keeps ``>i4``): along one axis, several, all, of a 0-D x and along
    an axis of known length beside unknown ones."""
    host = np.array([[1, 2, 3], [4, 5, 6]], dtype=dtype)
    with xp.use_backend("dask", chunks=1):
        x = xp.asarray(host)
        zero_d = xp.asarray(np.array(7, dtype=dtype))
    cases = [(x, host, {}), (x, host, {"axis": 1}), (x, host, {"axis": (0, 1)}),
             (zero_d, np.array(7, dtype=dtype), {}),
             (x[x[:, 0] > 1], host[host[:, 0] > 1], {"axis": 1})]
    for got_x, want_x, kwargs in cases:
        want, got = xp.roll(want_x, 1, **kwargs), xp.roll(got_x, 1, **kwargs)
        assert want.dtype == got.dtype == np.dtype(dtype), kwargs
        got = xp.to_numpy(got)
        assert got.dtype == want.dtype and got.tobytes() == want.tobytes(), kwargs
