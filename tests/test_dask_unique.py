"""The set functions on dask arrays (``_backends/dask_unique.py``): every NaN a value of
its own, as the standard and the NumPy backend count them, for any chunking."""

from __future__ import annotations

import numpy as np
import pytest

da = pytest.importorskip("dask.array")

import xstride as xp  # noqa: E402

CASES = [
    [2.0, np.nan, 1.0, 2.0, np.nan], [np.nan] * 3, [1.0, 2.0], [[3.0, np.nan], [np.nan, 3.0]],
    np.array([], np.float32), [1 + 1j, complex(np.nan, 0), 1 + 1j], [5, 3, 5], 7.0, np.nan,
    np.arange(10.0)[::-1], [True, False, True],
]


@pytest.mark.parametrize("case", range(len(CASES)))
@pytest.mark.parametrize("chunks", [1, 2, -1])
def test_set_functions_equal_the_numpy_backend(case, chunks):
    host = np.asarray(CASES[case])
    with xp.use_backend("dask", chunks=chunks):
        x = xp.asarray(host)
        values = xp.to_numpy(xp.unique_values(x))
        counts = xp.unique_counts(x)
        inverse = xp.unique_inverse(x)
    want_c, want_i = xp.unique_counts(host), xp.unique_inverse(host)
    np.testing.assert_array_equal(values, xp.unique_values(host))
    np.testing.assert_array_equal(xp.to_numpy(counts.values), want_c.values)
    np.testing.assert_array_equal(xp.to_numpy(counts.counts), want_c.counts)
    np.testing.assert_array_equal(xp.to_numpy(inverse.values), want_i.values)
    got_i = xp.to_numpy(inverse.inverse_indices)
    assert got_i.shape == host.shape and got_i.dtype == np.int64
    np.testing.assert_array_equal(got_i, want_i.inverse_indices)
    assert counts._fields == ("values", "counts")
    assert inverse._fields == ("values", "inverse_indices")


@pytest.mark.parametrize("case", range(len(CASES)))
@pytest.mark.parametrize("chunks", [1, 2, -1])
def test_unique_all_equals_the_numpy_backend(case, chunks):
    """dask's ``unique_all`` failed when computed on an array with NaN: "zero-size array
    to reduction operation minimum which has no identity", for each of its arrays."""
    host = np.asarray(CASES[case])
    with xp.use_backend("dask", chunks=chunks):
        got = xp.unique_all(xp.asarray(host))
    want = xp.unique_all(host)
    assert got._fields == ("values", "indices", "inverse_indices", "counts")
    for name in got._fields:
        g, w = xp.to_numpy(getattr(got, name)), getattr(want, name)
        np.testing.assert_array_equal(g, w, err_msg=name)
        assert g.shape == w.shape and g.dtype == w.dtype, (name, g, w)


def test_unique_all_indices_and_inverse_of_nans_are_their_own():
    """Every NaN is a value of its own: its index is its own flat position, and
    ``values[inverse]`` and ``x.flat[indices]`` give back ``x`` and ``values``."""
    host = np.array([[np.nan, 2.0, 1.0], [2.0, np.nan, np.nan]])
    with xp.use_backend("dask", chunks=(1, 2)):
        got = [xp.to_numpy(a) for a in xp.unique_all(xp.asarray(host))]
    values, indices, inverse, counts = got
    np.testing.assert_array_equal(values, [1.0, 2.0, np.nan, np.nan, np.nan])
    assert indices.tolist() == [2, 1, 0, 4, 5] and counts.tolist() == [1, 2, 1, 1, 1]
    assert inverse.tolist() == [[2, 1, 0], [1, 3, 4]]
    np.testing.assert_array_equal(values[inverse], host)
    np.testing.assert_array_equal(host.reshape(-1)[indices], values)


def test_each_nan_counted_once_and_found_by_its_inverse():
    with xp.use_backend("dask", chunks=2):
        x = xp.asarray(np.array([2.0, np.nan, 1.0]))
        assert xp.to_numpy(xp.unique_counts(x).counts).tolist() == [1, 1, 1]
        assert xp.to_numpy(xp.unique_inverse(x).inverse_indices).tolist() == [1, 2, 0]


@pytest.mark.parametrize("dtype", [np.float64, np.int32])
@pytest.mark.parametrize("name", ["unique_counts", "unique_inverse", "unique_all"])
def test_unknown_lengths_are_a_clear_error(name, dtype):
    """After boolean indexing: dask's unique_counts failed when computed with "'curry'
    object is not subscriptable", unique_inverse and unique_all at the call with
    "cannot convert float NaN to integer"."""
    with xp.use_backend("dask", chunks=2):
        x = xp.asarray(np.array([3, 1, 2, 3, 1, 7], dtype=dtype))
    y = x[x > 1]
    with pytest.raises(ValueError, match=rf"{name}: argument 'x' has shape \(nan,\), with "
                                         r"lengths dask does not know .*compute_chunk_sizes"):
        getattr(xp, name)(y)
    assert xp.to_numpy(xp.unique_values(y)).tolist() == [2, 3, 7]
    y.compute_chunk_sizes()
    got = getattr(xp, name)(y)
    assert xp.to_numpy(got[0]).tolist() == [2, 3, 7]


ZEROS = [
    [0.0, -0.0, np.nan, 1.0, -0.0, np.nan, 0.0, 2.0, -0.0],
    [-0.0, 0.0, 3.0, 0.0, -0.0, np.nan], np.array([0.0, -1.0, -0.0, 0.0], np.float32),
    np.array([-0.0, np.nan, 0.0], np.float16), [[0.0, -0.0], [-0.0, 0.0]], [-0.0, -0.0],
    [complex(0.0, -0.0), complex(-0.0, 0.0), 1j, complex(np.nan, 0.0), 0j],
]


@pytest.mark.parametrize("case", range(len(ZEROS)))
@pytest.mark.parametrize("chunks", [1, 2, 3, -1])
def test_signed_zeros_are_one_value_signed_as_the_first_for_any_chunks(case, chunks):
    """-0.0 and 0.0 are one value, as NumPy counts them; its sign is the first zero's
    (NumPy's ``unique_all``: ``values[i]`` is ``x.flat[indices[i]]``) in every set
    function, whatever the chunks (dask's kept the zero its chunks merged first:
    ``0.0`` of ``[0.0, -0.0, ...]`` in chunks of 2 but ``-0.0`` in one chunk)."""
    host = np.asarray(ZEROS[case])
    want = xp.unique_all(host)
    with xp.use_backend("dask", chunks=chunks):
        x = xp.asarray(host)
        got = {"unique_values": (xp.unique_values(x),),
               "unique_counts": xp.unique_counts(x),
               "unique_inverse": xp.unique_inverse(x), "unique_all": xp.unique_all(x)}
    for func, result in got.items():
        values = xp.to_numpy(result[0])
        assert values.dtype == want.values.dtype, func
        assert values.tobytes() == want.values.tobytes(), (func, values, want.values)
        want_f = getattr(xp, func)(host)
        for name in result._fields[1:] if func != "unique_values" else ():
            np.testing.assert_array_equal(xp.to_numpy(getattr(result, name)),
                                          getattr(want_f, name), err_msg=f"{func}.{name}")
    assert want.values.tobytes() == host.reshape(-1)[want.indices].tobytes()


@pytest.mark.parametrize("chunks", [1, 2, -1])
def test_signed_zeros_of_rows_selected_by_a_mask_are_the_first_zero(chunks):
    """``unique_values`` of rows a boolean mask selected (lengths dask does not know),
    flattened by row blocks: the zero value is signed as the first zero kept."""
    host = np.array([[5.0, 1.0], [0.0, -0.0], [-0.0, 0.0], [np.nan, -0.0]])
    keep = np.array([False, True, True, True])
    want = xp.unique_values(host[keep])
    with xp.use_backend("dask", chunks=chunks):
        x = xp.asarray(host)
        rows = x[xp.asarray(keep)]
        assert rows.shape[0] != rows.shape[0]   # NaN: unknown
        got = xp.to_numpy(xp.unique_values(rows))
        got_neg = xp.to_numpy(xp.unique_values(x[xp.asarray(~keep | np.array(
            [False, False, True, False]))]))
    assert got.tobytes() == np.array([0.0, np.nan]).tobytes() and got.shape == want.shape
    np.testing.assert_array_equal(got, want)
    assert got_neg.tobytes() == np.array([-0.0, 1.0, 5.0]).tobytes()   # rows 0 and 2


@pytest.mark.parametrize("name", ["unique_values", "unique_counts", "unique_inverse",
                                  "unique_all"])
@pytest.mark.parametrize("dtype", [np.int32, np.float64])
def test_masked_chunks_are_refused_with_the_remedy(name, dtype):
    """dask's unique read the data under the masks: the masked elements' values were
    listed, counts of 0 given, and unique_all of integers failed when computed
    ("zero-size array to reduction operation minimum"); numpy.ma's (the NumPy
    backend's) gather the masked elements into one masked value."""
    m = np.ma.masked_array(np.array([3, 1, 2, 1, 5, 0], dtype=dtype),
                           mask=[0, 1, 0, 0, 1, 0])
    d = da.from_array(m, chunks=2, asarray=False)
    with pytest.raises(TypeError, match=rf"^{name}: argument 'x' got dask.Array\(shape=\(6,\), "
                                        r".*expected an array without masked chunks \(pass "
                                        r"dask.array.ma.filled\(x, v\)"):
        getattr(xp, name)(d)
    # the remedy runs, and the NumPy masked array keeps numpy.ma's answer
    filled = getattr(xp, name)(da.ma.filled(d, 0))
    want = getattr(xp, name)(m.filled(0))
    got = filled if name == "unique_values" else filled[0]
    want = want if name == "unique_values" else want[0]
    assert xp.to_numpy(got).tolist() == want.tolist()
    masked = getattr(xp, name)(m)
    assert np.ma.is_masked(masked if name == "unique_values" else masked[0])


@pytest.mark.parametrize("dtype", [">i4", ">f8", ">c16", ">u2"])
@pytest.mark.parametrize("chunks", [2, -1])
def test_set_functions_keep_a_big_endian_dtype_as_numpy(dtype, chunks):
    """The values of a big-endian x keep its dtype, bit for bit the NumPy backend's, as
    declared and as computed: dask's unique gave native blocks (declared ``>i4`` for
    integers, native for floating x). The other arrays stay int64."""
    host = np.array([[3, 0, 2], [3, 1, np.nan if dtype[1] in "fc" else 0]], dtype=dtype)
    with xp.use_backend("dask", chunks=chunks):
        x = xp.asarray(host)
    for name in ("unique_values", "unique_counts", "unique_inverse", "unique_all"):
        got, want = getattr(xp, name)(x), getattr(xp, name)(host)
        if name == "unique_values":
            got, want = (got,), (want,)
        for g, w in zip(got, want):
            assert g.dtype == w.dtype, name
            g = xp.to_numpy(g)
            assert g.dtype == w.dtype and g.tobytes() == w.tobytes(), name
    zero_d = np.array(7, dtype=dtype)
    got = xp.to_numpy(xp.unique_values(xp.to_device(zero_d, "dask")))
    assert got.dtype == zero_d.dtype and got.tobytes() == zero_d.reshape(1).tobytes()
