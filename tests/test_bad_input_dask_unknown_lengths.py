"""The standard's functions on dask arrays with lengths dask does not know (rows selected
by a boolean mask): a clear error where a function needs them, the answer where it does
not, sorts, triangles and flattening calls of selected rows (split from
tests/test_bad_input_dask_standard.py, past 600 lines)."""

from __future__ import annotations

import numpy as np
import pytest

da = pytest.importorskip("dask.array")

import xstride as xp  # noqa: E402

from tests.test_bad_input_dask_standard import _d, _numpy_after  # noqa: E402,F401


def _selected():
    """Rows 1..5 of a (6, 2) array, selected by a boolean mask: lengths (nan, 2)."""
    a = np.arange(12.0).reshape(6, 2)
    x = _d(a, 2)
    return a[1:], x[x[:, 0] > 1]


@pytest.mark.parametrize("name, call, match", [
    ("take", lambda y: xp.take(y, xp.asarray([0, 1]), axis=0), "dask's take needs"),
    ("roll", lambda y: xp.roll(y, 1, axis=0), "dask's roll needs"),
    ("roll", lambda y: xp.roll(y, (1, 1), axis=(1, 0)), "dask's roll needs"),
    ("roll", lambda y: xp.roll(y, 1), "dask's roll needs"),
    ("nonzero", lambda y: xp.nonzero(y), "the indices of its elements need"),
])
def test_unknown_lengths_are_a_clear_error(name, call, match):
    """dask's said "cannot convert float NaN to integer" (roll, nonzero) or "Slicing an
    array with unknown chunks with a dask.array of ints is not supported" (take),
    naming neither the function nor the argument."""
    _, y = _selected()
    with xp.use_backend("dask"):
        with pytest.raises(ValueError, match=rf"{name}: argument 'x' has shape \(nan, 2\), "
                                             rf"with lengths dask does not know .*{match}.*"
                                             r"compute_chunk_sizes\(\) first"):
            call(y)


@pytest.mark.parametrize("call", [
    lambda v: xp.repeat(v, 3, axis=0), lambda v: xp.repeat(v, 2, axis=1),
    lambda v: xp.repeat(v[:, 0], 2), lambda v: xp.expand_dims(v, axis=0),
    lambda v: xp.expand_dims(v, axis=-1), lambda v: xp.expand_dims(v, axis=(0, 2)),
    lambda v: xp.moveaxis(xp.expand_dims(v, axis=1), 0, -1),
    lambda v: xp.take(v, xp.asarray([1, 1, 0]), axis=1),
    lambda v: xp.clip(v, 3, 8), lambda v: xp.clip(v, None, 4.5),
    lambda v: xp.clip(xp.astype(v, xp.int8), -1000, 7), lambda v: xp.clip(v, xp.max(v, axis=0) - 4, None),
    lambda v: xp.cumulative_sum(v, axis=1), lambda v: xp.cumulative_sum(v, axis=-1,
                                                                         include_initial=True),
    lambda v: xp.cumulative_prod(xp.astype(v, xp.int16), axis=1, dtype=xp.float32),
])
def test_unknown_lengths_where_they_are_not_needed(call):
    """repeat, expand_dims, clip and scans along a known axis of arrays after boolean
    indexing: dask's reshaped (or counted) and said "cannot convert float NaN to
    integer", compat's clip "'float' object cannot be interpreted as an integer", and
    the scan's carry failed when computed; NumPy's values."""
    a, y = _selected()
    with xp.use_backend("dask"):
        got = call(y)
    want = call(a)
    h = xp.to_numpy(got)
    assert got.dtype == h.dtype == want.dtype
    np.testing.assert_array_equal(h, want)


@pytest.mark.parametrize("axis", [1, -1])
def test_repeat_along_a_known_axis_in_several_blocks_of_unknown_rows(axis):
    """dask's repeat joins the pieces of an axis in several blocks with concatenate,
    which refused the unknown lengths of the rows: "Tried to concatenate arrays with
    unknown shape (nan, 2)", naming an option xstride's repeat does not take."""
    a = np.arange(24.0).reshape(6, 4)
    x = _d(a, (2, 1))
    y = x[x[:, 0] > 1]
    with xp.use_backend("dask"):
        got = xp.repeat(y, 3, axis=axis)
    want = np.repeat(a[1:], 3, axis=axis)
    h = xp.to_numpy(got)
    assert got.dtype == h.dtype == want.dtype
    np.testing.assert_array_equal(h, want)


@pytest.mark.parametrize("name", ["sort", "argsort"])
def test_sort_of_unknown_lengths(name):
    """Along an axis of known length: compat's rechunk of the other axes to "auto" was
    refused by dask ("Can not perform automatic rechunking with unknown (nan) chunk
    sizes"); a 1-D array of unknown length in several blocks (``sort(unique_values(x))``
    of floats) is joined into one block (dask's "Array chunk sizes are unknown");
    along the unknown axis of a matrix, an error saying to compute the lengths."""
    a, y = _selected()
    fn = getattr(xp, name)
    with xp.use_backend("dask"):
        got = fn(y[:, ::-1], axis=1, descending=True)
        with pytest.raises(ValueError, match=rf"{name}: argument 'x' has shape \(nan, 2\), "
                                             r"with lengths dask does not know .*sorted axis"):
            fn(y, axis=0)
        o = _d(np.arange(6.0)[::-1], -1)
        one = o[o > 1]                                        # (nan,) in one chunk: sorts
        np.testing.assert_array_equal(xp.to_numpy(fn(one)), fn(np.arange(2.0, 6.0)[::-1]))
        v = np.array([5.0, np.nan, 1, 3, 3, 0, 7, 2])
        d = _d(v, 3)
        several = d[d != 3]                                   # (nan,) in three blocks
        assert several.numblocks == (3,)
        for kw in ({}, {"descending": True}):
            np.testing.assert_array_equal(xp.to_numpy(fn(several, **kw)), fn(v[v != 3], **kw))
        u = xp.unique_values(d)                               # values, then the NaNs
        assert u.numblocks[0] > 1
        np.testing.assert_array_equal(xp.to_numpy(xp.sort(u)), np.unique(v))
    want = fn(a[:, ::-1], axis=1, descending=True)
    h = xp.to_numpy(got)
    assert h.dtype == want.dtype
    np.testing.assert_array_equal(h, want)


@pytest.mark.parametrize("call", [
    lambda v: xp.reshape(v, (-1,)), lambda v: xp.reshape(xp.stack([v, v], axis=1), (-1,)),
    lambda v: xp.unique_values(v), lambda v: xp.linalg.vector_norm(v),
    lambda v: xp.linalg.vector_norm(v, ord=1),
])
def test_rows_selected_by_a_mask_flatten(call):
    """Rows selected by a boolean mask (lengths unknown on the first axis only) flatten
    by row blocks: dask's ravel said "cannot convert float NaN to integer" (also inside
    unique_values and vector_norm over every axis)."""
    a, y = _selected()
    with xp.use_backend("dask"):
        got = call(y)
    want = call(a)
    h = xp.to_numpy(got)
    assert h.dtype == want.dtype
    np.testing.assert_allclose(np.sort(h, axis=None), np.sort(want, axis=None))


@pytest.mark.parametrize("name", ["tril", "triu"])
def test_triangles_of_unknown_lengths_are_a_clear_error(name):
    """dask's said "An error occurred while calling the arange method ... cannot convert
    float NaN to integer"; a stack of unknown length keeps working."""
    a, y = _selected()
    with xp.use_backend("dask"):
        with pytest.raises(ValueError, match=rf"{name}: argument 'x' has shape \(nan, 2\), "
                                             "with lengths dask does not know"):
            getattr(xp, name)(y)
        got = getattr(xp, name)(xp.stack([y, y], axis=1))      # (nan, 2, 2)
    want = getattr(np, name)(np.stack([a, a], axis=1))
    np.testing.assert_array_equal(xp.to_numpy(got), want)


@pytest.mark.parametrize("call", [
    lambda v: xp.repeat(v, 2), lambda v: xp.concat([v, v[:, ::-1]], axis=None),
    lambda v: xp.concat((v, v), axis=0),
])
def test_flattening_calls_of_rows_selected_by_a_mask(call):
    """repeat and concat without an axis flatten: compat's ravel said "cannot convert
    float NaN to integer" for rows selected by a mask."""
    a, y = _selected()
    with xp.use_backend("dask"):
        got = call(y)
    np.testing.assert_array_equal(xp.to_numpy(got), call(a))


@pytest.mark.parametrize("call, name", [
    (lambda y, k: xp.add(y[:, 0], k), "x1"),
    (lambda y, k: xp.add(k, y[:, 0]), "x2"),
    (lambda y, k: xp.maximum(y[:, 0], k), "x1"),
    (lambda y, k: xp.where(y[:, 0] > 3, y[:, 0], k), "condition"),
    (lambda y, k: xp.atan2(y[:, 0], k), "x1"),
])
def test_an_elementwise_call_beside_a_known_length_says_to_compute_the_lengths(call, name):
    """A new-user probe: ``add`` of a selection (nan,) and an array of 5 raised
    "'float' object cannot be interpreted as an integer" (the error text's own
    broadcast of the NaN length), naming nothing."""
    _, y = _selected()
    with xp.use_backend("dask"):
        k = xp.asarray(np.arange(5.0))   # the selection's length, unknown to dask
        with pytest.raises(ValueError, match=rf"^\w+: argument '{name}' has shape \(nan,\), "
                                             r"with lengths dask does not know .*"
                                             r"compute_chunk_sizes\(\) first"):
            xp.to_numpy(call(y, k))
        y.compute_chunk_sizes()
        np.testing.assert_array_equal(xp.to_numpy(xp.add(y[:, 0], k)),
                                      np.arange(2.0, 12.0, 2.0) + np.arange(5.0))


def test_known_lengths_that_differ_beside_an_unknown_one_are_the_broadcast_error():
    _, y = _selected()
    with xp.use_backend("dask"):
        with pytest.raises(ValueError, match=r"^add: shapes \(nan, 2\) and \(3,\) cannot be "
                                             "broadcast together"):
            xp.add(y, xp.asarray(np.arange(3.0)))
