"""Reductions and scans of dask arrays against the NumPy backend, on dask's local
threads: every reduction and scan is a dask graph of xstride's functions per chunk
(``xstride/_chunked/reductions.py``, ``argreductions.py``, ``scans.py``); ``xp.fuse``
per block is tests/test_dask_fuse.py's.

Integers, booleans and indices compare exactly; floating-point values within
``rtol=1e-12`` (float64: partial sums round in another order than NumPy's pairwise
sum and sequential scan)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

da = pytest.importorskip("dask.array")

import xstride as xp  # noqa: E402

RTOL = 1e-12
CHUNKINGS = [(4, 3, 2), (13, 7, 5), (2, 7, 1), ((6, 0, 7), (7,), (2, 0, 3))]


@pytest.fixture(autouse=True)
def _numpy_after():
    yield
    xp.set_backend("numpy")


def _dask(a, chunks):
    with xp.use_backend("dask"):
        return xp.asarray(a, chunks=chunks)


def _layers(r) -> str:
    return " ".join(str(k) for k in r.dask.layers)


def _same(got, want, exact):
    assert isinstance(got, da.Array)
    out = xp.to_numpy(got)
    assert out.dtype == want.dtype and out.shape == want.shape
    if exact:
        np.testing.assert_array_equal(out, want)
    else:
        np.testing.assert_allclose(out, want, rtol=RTOL, atol=RTOL)


_RNG = np.random.default_rng(7)
_INTS = _RNG.integers(-3, 4, (13, 7, 5)).astype(np.int32)
_FLOATS = _RNG.standard_normal((13, 7, 5))


@pytest.mark.parametrize("chunks", CHUNKINGS)
@pytest.mark.parametrize("name", ["all", "any", "mean", "var", "std", "argmin", "argmax"])
def test_reductions_equal_numpy_for_several_chunkings(name, chunks):
    arg = name.startswith("arg")
    for a in (_INTS, _FLOATS):
        x = _dask(a, chunks)
        exact = arg or name in ("all", "any")
        axes = (None, 0, 1, -1) if arg else (None, 0, (0, 2), -1)
        for axis, keepdims in zip(axes, (False, True, False, True)):
            got = getattr(xp, name)(x, axis=axis, keepdims=keepdims)
            _same(got, getattr(xp, name)(a, axis=axis, keepdims=keepdims), exact)
            # the trees are xstride's (the namespace's function per chunk)
            tree = {"mean": "xstride-sum", "var": "xstride-sum", "std": "xstride-sum"}
            assert tree.get(name, f"xstride-{name}") in _layers(got)


@pytest.mark.parametrize("chunks", CHUNKINGS)
@pytest.mark.parametrize("name", ["cumulative_sum", "cumulative_prod"])
def test_scans_equal_numpy_for_several_chunkings(name, chunks):
    for a in (_INTS, _FLOATS):
        x = _dask(a, chunks)
        for axis, initial in ((0, False), (1, True), (-1, False)):
            got = getattr(xp, name)(x, axis=axis, include_initial=initial)
            assert name in _layers(got)
            _same(got, getattr(xp, name)(a, axis=axis, include_initial=initial),
                  a.dtype.kind != "f")
    b = np.array([True, False, True, True])
    _same(xp.cumulative_sum(_dask(b, 1)), xp.cumulative_sum(b), True)
    _same(xp.cumulative_sum(_dask(_INTS[0, 0], 2), dtype=xp.float32),
          xp.cumulative_sum(_INTS[0, 0], dtype=np.float32), True)
    _same(xp.cumulative_sum(_dask(np.float64(2.0), ())), xp.cumulative_sum(np.float64(2.0)),
          True)
    e = np.zeros((2, 0))
    _same(xp.cumulative_sum(_dask(e, 1), axis=1, include_initial=True),
          xp.cumulative_sum(e, axis=1, include_initial=True), True)


_TIES = np.array([3.0, 1, 5, 1, 5, np.nan, 0, np.nan, 0, 5])


@pytest.mark.parametrize("chunks", [((10,),), ((1,) * 10,), ((3, 0, 2, 5),),
                                    ((5, 0, 0, 5),), ((6, 4),)])
def test_argmin_argmax_first_occurrence_and_first_nan_across_chunks(chunks):
    finite = np.nan_to_num(_TIES, nan=5.0)      # ties of the max and the min across chunks
    for a in (_TIES, finite, finite.astype(np.int16), finite > 2):
        x = _dask(a, chunks)
        for name in ("argmin", "argmax"):
            assert int(xp.to_numpy(getattr(xp, name)(x))) == getattr(np, name)(a)
    # 2-D: the C-order flat index (axis=None) and the index per lane, NaN in some lanes
    m = np.tile(finite, (3, 1))
    m[1, 7] = m[2, 2] = np.nan
    m[2, 8] = np.nan
    x = _dask(m, ((1, 2), chunks[0]))
    for name in ("argmin", "argmax"):
        for axis in (None, 0, 1):
            want = getattr(np, name)(m, axis=axis)
            _same(getattr(xp, name)(x, axis=axis), np.asarray(want, dtype=np.int64), True)


def test_reductions_of_unknown_chunk_lengths_and_empty_selections():
    a = np.arange(10.0)
    x = _dask(a, 3)
    y = x[x > 2]                            # chunk lengths unknown to dask
    assert np.isnan(y.shape[0])
    assert float(xp.to_numpy(xp.mean(y))) == 6.0
    assert abs(float(xp.to_numpy(xp.var(y, correction=1))) - np.var(a[3:], ddof=1)) < 1e-12
    with pytest.raises(ValueError, match=r"argmax: argument 'x' has chunk lengths that "
                                         r"dask does not know .* x.compute_chunk_sizes\(\)"):
        xp.argmax(y)
    assert int(xp.to_numpy(xp.argmax(y.compute_chunk_sizes()))) == 6
    assert int(xp.to_numpy(xp.argmin(y[None, :], axis=0)[0])) == 0
    e = _dask(np.zeros((0, 3)), 2)
    with pytest.warns(RuntimeWarning):
        assert np.isnan(xp.to_numpy(xp.mean(e, axis=0))).all()
    _same(xp.mean(e, axis=1), np.zeros(0), True)
    _same(xp.all(e), np.bool_(True), True)
    _same(xp.any(e, axis=0), np.zeros(3, bool), True)


@pytest.mark.parametrize("chunks", [1, 4, 6])
@pytest.mark.parametrize("name", ["min", "max"])
def test_min_max_of_an_empty_selection_of_unknown_chunk_lengths_raise(name, chunks):
    """After boolean indexing dask does not know the chunks' lengths, so the call cannot
    see an empty selection: computing it raised nothing and gave an empty array of
    shape (0,) for the 0-D result of ``min(e)``; now the ``ValueError`` NumPy raises."""
    x = _dask(np.arange(12.0).reshape(6, 2), (chunks, 2))
    e = x[x[:, 0] > 100]
    assert np.isnan(e.shape[0])
    for axis in (None, 0, (0, 1)):
        with pytest.raises(ValueError, match=rf"{name}: argument 'x' of shape \(0, 2\) has "
                                             r"the zero-size axis 0 .* no identity"):
            xp.to_numpy(getattr(xp, name)(e, axis=axis))
    _same(getattr(xp, name)(e, axis=1), np.zeros(0), True)       # nothing reduced is empty
    m = x[x[:, 0] > 3]
    _same(getattr(xp, name)(m, axis=0, keepdims=True),
          np.array([[4.0, 5.0]]) if name == "min" else np.array([[10.0, 11.0]]), True)


@pytest.mark.parametrize("a, kwargs", [
    (np.arange(7, dtype=np.float32), {}),
    (np.arange(7, dtype=np.float16), {}),
    (np.arange(7, dtype=np.uint8), {}),
    (np.arange(7, dtype=np.int64), {"dtype": np.float32}),
    (np.array([1 + 2j, 3 - 1j, 0.5j, 2]), {}),
    (np.array([True, False, True]), {}),
])
def test_mean_var_std_keep_numpy_dtypes(a, kwargs):
    x = _dask(a, 2)
    for name in ("mean", "var", "std"):
        want = getattr(xp, name)(a, **kwargs)
        got = xp.to_numpy(getattr(xp, name)(x, **kwargs))
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=1e-6 if want.dtype.itemsize <= 4 else RTOL)
    _same(xp.var(x, correction=2), xp.var(a, correction=2), False)


@pytest.mark.parametrize("call", [
    lambda m: m.argmin(m.X, axis=(0, 1)),
    lambda m: m.argmax(m.X[:0], axis=0),
    lambda m: m.argmin(m.X.astype(m.complex128)),
    lambda m: m.all(m.X, keepdims=1),
    lambda m: m.mean(m.X, dtype="S3"),
    lambda m: m.var(m.X, correction="1"),
    lambda m: m.any(m.X, axis=3),
    lambda m: m.cumulative_sum(m.X),
    lambda m: m.cumulative_prod(m.X, axis=0, include_initial=None),
])
def test_errors_are_the_numpy_backends(call):
    class NS:
        pass

    def raised(x):
        ns = NS()
        ns.__dict__.update({k: getattr(xp, k) for k in dir(xp) if not k.startswith("_")})
        ns.X = x
        try:
            call(ns)
        except Exception as exc:   # noqa: BLE001 - compared below
            return type(exc), str(exc).replace("dask.Array", "numpy.ndarray")
        return None

    want = raised(_INTS[:, :, 0])
    assert want is not None
    assert raised(_dask(_INTS[:, :, 0], 4)) == want


def test_every_chunk_step_is_the_namespace_function_of_the_chunks_backend(monkeypatch):
    """The per-chunk work goes through the hook ``namespace_function(name, chunk)`` (on a
    CuPy chunk: xstride's kernels), asked with the chunk itself: the code path is the
    same for NumPy and CuPy chunks but for that lookup."""
    from xstride._chunked import _config

    seen = []
    real = _config.namespace_function

    def spy(name, chunk):
        seen.append((name, type(chunk)))
        return real(name, chunk)

    monkeypatch.setattr(_config, "namespace_function", spy)
    x = _dask(np.arange(10.0), 3)
    for name, step in (("argmin", "argmin"), ("mean", "sum"), ("std", "subtract"),
                       ("all", "all"), ("cumulative_prod", "cumulative_prod"),
                       ("cumulative_sum", "add")):
        seen.clear()
        xp.to_numpy(getattr(xp, name)(x))
        assert (step, np.ndarray) in seen
        # NumPy's whole-array reductions give scalars, which the last steps receive
        assert all(issubclass(t, (np.ndarray, np.generic)) for _, t in seen)


@pytest.mark.parametrize("chunks", [((6, 0, 7), (2, 5), (5,)), ((6, 0, 7), (7,), (2, 0, 3)),
                                    ((13,), (3, 0, 4), (1, 4))])
@pytest.mark.parametrize("name", ["min", "max", "sum", "prod"])
def test_reductions_over_several_axes_with_empty_chunks(name, chunks):
    """An empty chunk's partial min/max is empty along its empty axis only: it is
    concatenated with the partials of the non-empty chunks beside it on the others."""
    x = _dask(_INTS, chunks)
    for axis in (None, (0, 1), (0, 2), (1, 2)):
        for keepdims in (False, True):
            _same(getattr(xp, name)(x, axis=axis, keepdims=keepdims),
                  getattr(xp, name)(_INTS, axis=axis, keepdims=keepdims), True)


@pytest.mark.parametrize("chunks", [2, 5, (1, 3, 2)])
def test_mean_var_std_of_masked_chunks_count_what_is_not_masked(chunks):
    """numpy.ma chunks: the moments divide by the elements not masked, as numpy.ma does
    (every masked element was counted: the mean of [--, 1, --, 3, --, 5] gave 1.5)."""
    a = np.arange(12.0).reshape(6, 2)
    mask = (np.arange(12).reshape(6, 2) % 3) == 0
    m = np.ma.masked_array(a, mask=mask)
    x = da.ma.masked_array(da.from_array(a, chunks=(chunks, 2)),
                           mask=da.from_array(mask, chunks=(chunks, 2)))
    for axis in (None, 0, 1):
        for name, kw in (("mean", {}), ("var", {}), ("std", {"correction": 1})):
            got = xp.to_numpy(getattr(xp, name)(x, axis=axis, **kw))
            want = getattr(np.ma, name)(m, axis=axis, **({"ddof": 1} if kw else {}))
            np.testing.assert_allclose(np.ma.filled(got, np.nan), np.ma.filled(want, np.nan),
                                       rtol=RTOL)
    assert float(xp.to_numpy(xp.mean(x[:, 0]))) == float(np.ma.mean(m[:, 0]))


@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")
@pytest.mark.parametrize("chunks", [1, 3])
def test_std_is_the_root_of_the_variance_in_the_result_dtype(chunks):
    """NumPy's std takes the root of the variance in the result dtype: a float16
    variance past 65504 is inf, and so is the std (the dask backend took the root of
    the float32 variance and cast it: 30540)."""
    a = np.array([1000.0, 2000.0, 65000.0, 60000.0], np.float16)
    got = xp.to_numpy(xp.std(_dask(a, chunks)))
    assert got.dtype == np.float16 and np.isinf(got) and np.isinf(np.std(a))
    b = np.linspace(0, 60, 7, dtype=np.float16)
    _same(xp.std(_dask(b, chunks)), np.std(b), True)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("chunks", [2, 5])
@pytest.mark.parametrize("dtype", [">f2", ">f4", ">f8", ">c16", ">i4", ">u8"])
@pytest.mark.parametrize("name", ["sum", "prod", "min", "max", "mean", "var", "std",
                                  "cumulative_sum", "cumulative_prod"])
def test_big_endian_values_give_the_numpy_backends_result(name, dtype, chunks):
    """Values as read from FITS or HDF5 ('>f8'): the declared and computed dtypes are
    the NumPy backend's (native), not a '>f8' dtype= that NumPy's ufuncs refuse."""
    a = np.arange(1, 6).astype(dtype)
    want = getattr(xp, name)(a)
    got = getattr(xp, name)(_dask(a, chunks))
    assert got.dtype == want.dtype and got.dtype.isnative
    res = xp.to_numpy(got)
    assert res.dtype == want.dtype
    np.testing.assert_allclose(res, want, rtol=1e-3 if a.dtype.itemsize == 2 else RTOL)


@pytest.mark.parametrize("chunks", [1, 2])
def test_float16_variance_sums_its_squares_in_float32(chunks):
    """docs/dask.md: NumPy sums the squared float16 deviations in float16 (80000 > 65504:
    inf); the dask backend sums them in float32, so a variance below 65504 is finite."""
    a = np.array([200, 0, -200], dtype=np.float16)
    with np.errstate(over="ignore"):
        assert np.isinf(xp.var(a))
    got = xp.to_numpy(xp.var(_dask(a, chunks)))
    assert got.dtype == np.float16 and got == np.float16(80000 / 3)


@pytest.mark.parametrize("name", ["cumulative_sum", "cumulative_prod"])
def test_a_big_endian_dtype_argument_of_a_scan_declares_the_native_dtype(name):
    """A review: ``cumulative_sum(x, axis=0, dtype=">f8")`` declared '>f8' and computed
    float64; the NumPy backend's result is float64 (native)."""
    a = np.arange(1.0, 6.0)
    want = getattr(xp, name)(a, axis=0, dtype=">f8")
    got = getattr(xp, name)(_dask(a, 2), axis=0, dtype=">f8")
    assert want.dtype.isnative and got.dtype == want.dtype
    np.testing.assert_array_equal(xp.to_numpy(got), want)


@pytest.mark.parametrize("axis", [1, (), None, 0, (0, 1)])
def test_count_nonzero_keepdims_with_unknown_chunk_lengths(axis):
    """After boolean indexing, ``count_nonzero(..., keepdims=True)`` of an axis it kept
    raised "cannot convert float NaN to integer" (dask's expand_dims of unknown
    chunk lengths); the kept axes are now put back by indexing."""
    a = np.array([[1.0, 0, 2, 0], [5, 6, 0, 0], [7, 0, 0, 8], [0, 1, 1, 1]])
    x = _dask(a, (1, 3))
    m = x[x[:, 1] > -1]
    assert np.isnan(m.shape[0])
    got = xp.to_numpy(xp.count_nonzero(m, axis=axis, keepdims=True))
    want = np.count_nonzero(a, axis=axis, keepdims=True)
    assert got.shape == np.shape(want)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("chunks", [1, (1, 3), 3, (2, 2)])
@pytest.mark.parametrize("dtype", [np.float64, np.int32, np.bool_])
def test_argmin_argmax_of_masked_chunks_skip_what_is_masked(chunks, dtype):
    """numpy.ma chunks: argmin/argmax read the masked elements as numpy.ma does (filled
    with the value that never wins), whatever the chunks. A chunk's masked extreme (the
    masked NaN of row 1, the masked 9 of column 2) was taken: argmax of chunks of one
    element gave 4, numpy.ma's 2."""
    a = np.array([[1.0, 5, 3, 4], [np.nan, 2, 9, 0], [7, 8, 1, 2], [3, 3, 3, 3]])
    mask = np.array([[0, 1, 1, 0], [1, 0, 1, 0], [0, 0, 1, 0], [0, 1, 1, 0]], bool)
    if dtype is not np.float64:
        a = np.nan_to_num(a, nan=6)
    m = np.ma.masked_array(a.astype(dtype), mask=mask)
    x = da.from_array(m, chunks=chunks, asarray=False)
    for name in ("argmin", "argmax"):
        for axis in (None, 0, 1):
            with warnings.catch_warnings():   # (the masked meta's cast warned)
                warnings.simplefilter("error")
                r = getattr(xp, name)(x, axis=axis)
            assert not np.ma.isMaskedArray(r._meta)
            got = xp.to_numpy(r)
            want = getattr(np.ma, name)(m, axis=axis)
            np.testing.assert_array_equal(got, want, err_msg=f"{name} axis={axis}")


@pytest.mark.parametrize("chunks", [1, (1, 3), 3, (2, 2)])
@pytest.mark.parametrize("name", ["cumulative_sum", "cumulative_prod"])
def test_scans_of_masked_chunks_keep_the_mask_of_x(chunks, name):
    """numpy.ma chunks: the scan counts a masked element as the identity and keeps x's
    mask, as numpy.ma's cumsum/cumprod do, whatever the chunks. The carry of a chunk
    whose last element was masked was masked, and masked every element of the next
    chunk (row 0 scanned in chunks of one element was [1, --, --, --])."""
    a = np.array([[1.0, 5, 3, 4], [6, 2, 9, 0], [7, 8, 1, 2], [3, 3, 3, 3]])
    mask = np.array([[0, 1, 0, 0], [1, 0, 1, 0], [0, 0, 1, 1], [0, 1, 1, 0]], bool)
    m = np.ma.masked_array(a, mask=mask)
    x = da.from_array(m, chunks=chunks, asarray=False)
    ma_scan = np.ma.cumsum if name == "cumulative_sum" else np.ma.cumprod
    for axis in (0, 1):
        got = xp.to_numpy(getattr(xp, name)(x, axis=axis))
        want = ma_scan(m, axis=axis)
        np.testing.assert_array_equal(np.ma.getmaskarray(got), mask, err_msg=f"axis={axis}")
        np.testing.assert_array_equal(np.ma.getdata(got), np.ma.getdata(want))


@pytest.mark.parametrize("chunks", [1, 3])
@pytest.mark.parametrize("name", ["var", "std"])
def test_var_std_with_a_complex_dtype_are_complex_as_on_numpy(chunks, name):
    """var/std with a complex dtype= are of that dtype (NumPy's: the real squares summed
    in it; xp.reductions.moment_dtype), of real and complex x alike, as on the NumPy
    backend; the dask backend made them real (float64 for complex128)."""
    a = np.array([[1.0, 2, 4, 7], [3, 3, 9, 1]])
    for x in (a, a + 1j * a[:, ::-1]):
        for dtype in (np.complex128, np.complex64):
            for axis in (None, 1):
                want = getattr(xp, name)(x, axis=axis, dtype=dtype, correction=1)
                got = getattr(xp, name)(_dask(x, chunks), axis=axis, dtype=dtype,
                                        correction=1)
                assert got.dtype == np.dtype(dtype)
                got = xp.to_numpy(got)
                assert got.dtype == np.asarray(want).dtype == np.dtype(dtype)
                np.testing.assert_allclose(got, want, rtol=1e-6)


@pytest.mark.parametrize("dtype", [np.int16, np.bool_])
def test_std_with_an_integer_dtype_is_that_dtype_or_numpys_error(dtype):
    """std with an integer or bool dtype=: the 0-D result is the root truncated into
    it, as on the NumPy backend, and computes to the dtype it declares (the blocks
    were sqrt's float32/float16 under an int16/bool array); an array result is
    NumPy's TypeError (the root cannot be cast into it in place), named at the call."""
    a = np.array([[1.0, 2, 4, 7], [3, 3, 9, 1]])
    x = _dask(a, 1)
    got = xp.std(x, dtype=dtype)
    assert got.dtype == np.dtype(dtype)
    value = xp.to_numpy(got)
    assert value.dtype == np.dtype(dtype) and value == xp.std(a, dtype=dtype)
    for kw in ({"axis": 1}, {"keepdims": True}):
        with pytest.raises(TypeError, match="std"):
            xp.std(a, dtype=dtype, **kw)
        with pytest.raises(TypeError, match=r"std: argument 'dtype' is .*floating dtype"):
            xp.std(x, dtype=dtype, **kw)


@pytest.mark.parametrize("name", ["var", "std"])
def test_var_std_of_bool_x_with_a_bool_dtype_raise_on_both_backends(name):
    """var/std of a bool x with dtype=bool: one TypeError naming dtype on the NumPy and
    dask backends (NumPy's bool subtraction fails; the dask backend answered True). A
    bool dtype= of numeric x stays as it was on both (NumPy's cast, then its var)."""
    a = np.array([True, False, True])
    for x in (a, _dask(a, 2)):
        with pytest.raises(TypeError, match=rf"{name}: argument 'dtype' .*numeric dtype "
                                            r"for x of dtype bool"):
            getattr(xp, name)(x, dtype=xp.bool)
    f = np.array([1.0, 2.0, 4.0])
    want = getattr(xp, name)(f, dtype=xp.bool)
    got = xp.to_numpy(getattr(xp, name)(_dask(f, 2), dtype=xp.bool))
    assert got.dtype == np.asarray(want).dtype == np.bool_ and got == want


@pytest.mark.parametrize("chunks", [1, 2, -1])
@pytest.mark.parametrize("name", ["var", "std"])
def test_var_std_with_an_integer_dtype_take_numpys_steps(chunks, name):
    """An integer dtype=: the mean truncated into it, the squared deviations each cast
    into it, the quotient truncated (NumPy's _var). The dask backend took the mean and
    the squares in floating point: var of [3, -1, 2, 3] with dtype=int64 was 2 (NumPy 3)."""
    cases = [(np.array([3, -1, 2, 3], ">i4"), "i8"),
             (np.array([1.5, -2, 65504, 0], "f2"), "i8"),
             (np.array([2**64 - 1, 2**64 - 2, 1, 0], "u8"), "u8"),
             (np.array([[1.7, -2.2, 3.9], [-0.5, 8.25, 1.0]]), "i2")]
    for a, dtype in cases:
        x = _dask(a, chunks)
        for kwargs in ({}, {"correction": 1}, {"axis": -1}, {"axis": 0, "keepdims": True}):
            if name == "std" and "axis" in kwargs:
                continue   # NumPy's std refuses an integer dtype of an array result
            want = np.asarray(getattr(xp, name)(a, dtype=dtype, **kwargs))
            got = getattr(xp, name)(x, dtype=dtype, **kwargs)
            assert got.dtype == want.dtype == np.dtype(dtype)
            got = xp.to_numpy(got)
            assert got.dtype == want.dtype and np.array_equal(got, want), (a, kwargs)


@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")   # NaN, 0/0: as NumPy's
@pytest.mark.filterwarnings("ignore:divide by zero:RuntimeWarning")
@pytest.mark.filterwarnings("ignore:Degrees of freedom:RuntimeWarning")
@pytest.mark.parametrize("chunks", [1, 2])
@pytest.mark.parametrize("name", ["var", "std"])
def test_var_std_with_a_complex_dtype_divide_in_it_as_numpy(chunks, name):
    """A complex dtype=: the squares' sum divided as a complex number, so a NaN, an
    empty selection (0/0) or a divisor of 0 is NaN in both parts, as on the NumPy
    backend; the dask backend divided the real sum and cast after (imaginary part 0)."""
    cases = [(np.array([1.5, -2, np.nan, 0]), {}), (np.zeros(0, np.float32), {}),
             (np.zeros((2, 0), np.int16), {"axis": 1}), (np.array([1.0, 2, 3]), {"correction": 5})]
    for a, kwargs in cases:
        for dtype in (np.complex128, np.complex64):
            want = np.asarray(getattr(xp, name)(a, dtype=dtype, **kwargs))
            got = xp.to_numpy(getattr(xp, name)(_dask(a, chunks), dtype=dtype, **kwargs))
            assert got.dtype == want.dtype == np.dtype(dtype) and got.shape == want.shape
            for part in (np.real, np.imag):
                np.testing.assert_array_equal(np.isnan(part(got)), np.isnan(part(want)),
                                              err_msg=f"{a}, {kwargs}")
            np.testing.assert_allclose(got, want, rtol=1e-6)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.complex64,
                                   np.complex128])
def test_a_sum_scan_keeps_the_sign_of_a_zero_across_chunks(dtype):
    """The carry started at +0.0, so -0.0 + -0.0 across a chunk boundary gave +0.0
    where NumPy's scan (and the same array in one chunk) keeps -0.0."""
    nz = complex(-0.0, -0.0) if np.dtype(dtype).kind == "c" else -0.0
    a = np.array([[nz, nz], [nz, 1.0], [nz, -1.0], [nz, nz]], dtype=dtype)
    for chunks in (1, 2, (3, 1)):
        for axis in (0, 1):
            got = xp.to_numpy(xp.cumulative_sum(_dask(a, chunks), axis=axis))
            want = xp.cumulative_sum(a, axis=axis)
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(got, want)
            assert np.signbit(got.real).tolist() == np.signbit(want.real).tolist()
            assert np.signbit(got.imag).tolist() == np.signbit(want.imag).tolist()
        # include_initial's identity stays +0.0, as NumPy's
        head = xp.to_numpy(xp.cumulative_sum(_dask(a, chunks), axis=0, include_initial=True))
        assert not np.signbit(head[0].real).any()
        want = xp.cumulative_sum(a, axis=0, include_initial=True)
        assert np.signbit(head.real).tolist() == np.signbit(want.real).tolist()


_ZEROS = np.array([complex(-0.0, 0.0), complex(0.0, -0.0), -1 + 0j, complex(-1, -0.0), 2j,
                   complex(-0.0, -0.0), 0j, -3 + 1j])


def _zero_signs(z):
    z = np.asarray(z).ravel()
    return np.signbit(z.real).tolist(), np.signbit(z.imag).tolist()


@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
@pytest.mark.parametrize("axis, chunks", [(None, (3, 4)), (0, (3, 1)), (1, (1, 4)),
                                          (1, (2, 4)), ((0, 1), (3, 4))])
def test_complex_prod_of_one_chunk_along_the_axes_is_numpys_bits(dtype, axis, chunks):
    """The tree's last step took a second ``prod`` of the one chunk's partial, which
    NumPy starts from ``1+0j``: ``(1+0j) * (0-0j)`` is ``0+0j``, so ``prod([-0+0j,
    -3+1j])`` in one chunk was ``0+0j`` where the NumPy backend's is ``0-0j``. Partials
    are now multiplied from the first: one chunk along the reduced axes gives NumPy's
    bits (several chunks may give other signs of zero: docs/dask.md)."""
    rng = np.random.default_rng(5)
    two = np.array([complex(-0.0, 0.0), -3 + 1j], dtype=dtype)
    assert _zero_signs(xp.prod(two)) == ([False], [True])
    assert _zero_signs(xp.to_numpy(xp.prod(_dask(two, 2)))) == ([False], [True])
    for _ in range(40):
        a = rng.choice(_ZEROS, size=(3, 4)).astype(dtype)
        for keepdims in (False, True):
            want = xp.prod(a, axis=axis, keepdims=keepdims)
            got = xp.to_numpy(xp.prod(_dask(a, chunks), axis=axis, keepdims=keepdims))
            assert got.dtype == want.dtype and got.shape == want.shape
            np.testing.assert_array_equal(got, want)
            assert _zero_signs(got) == _zero_signs(want), (a, keepdims)
    # several chunks along the axes: the values (not the signs of zero) are NumPy's
    a = rng.choice(_ZEROS, size=(3, 4)).astype(dtype)
    np.testing.assert_array_equal(xp.to_numpy(xp.prod(_dask(a, 1), axis=axis)),
                                  xp.prod(a, axis=axis))
    m = np.ma.masked_array(a, mask=np.eye(3, 4, dtype=bool))   # masked elements count as 1
    got = xp.to_numpy(xp.prod(da.from_array(m, chunks=chunks, asarray=False), axis=axis))
    np.testing.assert_array_equal(got, np.ma.prod(m, axis=axis))


@pytest.mark.parametrize("chunks", [1, 2, 3, 4, (5, 5), (3, 0, 7)])
@pytest.mark.parametrize("name", ["cumulative_prod", "cumulative_sum"])
def test_float16_scans_equal_numpys_bits_where_they_overflow(name, chunks):
    """NumPy's float16 scan rounds every step in float16: a product past 65504 is inf and
    stays inf. dask's carry multiplied each chunk's own scan by the prefix, so with
    chunks of 4 ``1e4 * (6.5 * 1.01 * 0.5)`` came back finite after NumPy's inf (and
    a sum rounded in another order); each chunk's scan now continues from the row
    before it, bit for bit NumPy's whatever the chunks."""
    row = ([10, 10, 10, 10, 6.5, 1.01, 0.5, 0.1, 3, 2] if name == "cumulative_prod" else
           [6e4, 3e3, 3e3, -1e4, 0.1, 3.3, -7.7, 1e3, 0.01, 5.5])
    a = np.array([row, row[::-1]], dtype=np.float16).T        # (10, 2): axis 0 chunked
    with np.errstate(over="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for kwargs in ({}, {"include_initial": True}):
            want = getattr(xp, name)(a, axis=0, **kwargs)
            assert np.isinf(want).any()
            got = xp.to_numpy(getattr(xp, name)(_dask(a, (chunks, 1)), axis=0, **kwargs))
            assert got.dtype == np.float16
            np.testing.assert_array_equal(got.view(np.uint16), want.view(np.uint16))
            flat = xp.to_numpy(getattr(xp, name)(_dask(a.T, (1, chunks)), axis=1, **kwargs))
            np.testing.assert_array_equal(flat.view(np.uint16),
                                          getattr(xp, name)(a.T, axis=1, **kwargs).view(np.uint16))
        # float32 and int input scanned in float16 (dtype=), and masked chunks
        wide = a.astype(np.float32)
        got = xp.to_numpy(getattr(xp, name)(_dask(wide, (chunks, 1)), axis=0, dtype=np.float16))
        want = getattr(xp, name)(wide, axis=0, dtype=np.float16)
        np.testing.assert_array_equal(got.view(np.uint16), want.view(np.uint16))
        m = np.ma.masked_array(a, mask=np.arange(20).reshape(10, 2) % 3 == 1)
        x = da.from_array(m, chunks=(chunks, 1), asarray=False)
        got = xp.to_numpy(getattr(xp, name)(x, axis=0))
        want = (np.ma.cumprod if name == "cumulative_prod" else np.ma.cumsum)(m, axis=0)
        np.testing.assert_array_equal(np.ma.getmaskarray(got), np.ma.getmaskarray(m))
        np.testing.assert_array_equal(np.ma.getdata(got).view(np.uint16),
                                      np.ma.getdata(want).view(np.uint16))


@pytest.mark.parametrize("chunks", [1, 2, (2, 3)])
@pytest.mark.parametrize("dtype", [np.int32, np.float64, np.bool_, np.complex64])
def test_nonzero_of_masked_chunks_skips_masked_elements(dtype, chunks):
    """dask's nonzero read the data under the mask (8 indices of this array, where
    ``numpy.ma`` and the NumPy backend give the 6 not masked)."""
    data = np.array([[3, 0, 2, 5], [0, 7, 0, 4], [1, 6, 8, 0]]).astype(dtype)
    mask = np.array([[0, 1, 0, 1], [1, 0, 0, 0], [0, 0, 1, 0]], bool)
    m = np.ma.masked_array(data, mask=mask)
    got = xp.nonzero(da.from_array(m, chunks=chunks, asarray=False))
    want = xp.nonzero(m)
    assert len(got) == len(want) == 2
    for g, w in zip(got, want):
        g = xp.to_numpy(g)
        assert g.dtype == w.dtype
        assert g.tolist() == w.tolist()
    assert len(want[0]) == 6


@pytest.mark.parametrize("name", ["argmin", "argmax"])
@pytest.mark.parametrize("kwargs", [{"axis": 1}, {"axis": -2, "keepdims": True}, {}])
def test_argminmax_over_an_empty_axis_beside_unknown_lengths_is_refused(name, kwargs):
    """After boolean indexing (shape (nan, 0, 3)) the fast path took x.size (NaN) as
    non-zero and skipped the empty-selection check: argmin over the axis of length 0
    gave -1 for every row, where NumPy and the NumPy backend raise ValueError."""
    a = np.ones((4, 0, 3))
    sel = np.array([True, False, True, True])
    x = da.from_array(a, chunks=(2, 1, 1))[da.from_array(sel, chunks=2)]
    assert np.isnan(x.shape[0])
    with pytest.raises(ValueError, match=rf"^{name}: argument 'x' of shape \(nan, 0, 3\) has "
                                         r"the zero-size axis 1 in the reduction"):
        getattr(xp, name)(x, **kwargs)
    with pytest.raises(ValueError, match=rf"^{name}: .* zero-size axis 1"):
        getattr(xp, name)(a[sel], **kwargs)
    # an axis of known, non-zero length beside the unknown one still reduces
    b = np.arange(12.0).reshape(4, 3)
    got = getattr(xp, name)(da.from_array(b, chunks=2)[da.from_array(sel, chunks=2)], axis=1)
    assert xp.to_numpy(got).tolist() == getattr(xp, name)(b[sel], axis=1).tolist()


@pytest.mark.parametrize("axis", [None, (0, 1), 0])
def test_count_nonzero_keepdims_of_all_masked_chunks_keeps_int64(axis):
    """The count of a selection all masked is numpy.ma's masked constant (a float64):
    with keepdims the dask backend indexed it into float64 blocks of an array declared
    int64; the NumPy backend's (numpy.ma's) is an int64 masked array."""
    m = np.ma.masked_array([[1, 0, 2], [3, 4, 0]], mask=True)
    got = xp.count_nonzero(da.from_array(m, chunks=1, asarray=False), axis=axis,
                           keepdims=True)
    want = xp.count_nonzero(m, axis=axis, keepdims=True)
    computed = got.compute()
    assert got.dtype == computed.dtype == want.dtype == np.int64
    assert np.ma.getmaskarray(computed).tolist() == np.ma.getmaskarray(want).tolist()
