"""``mean``, ``var`` and ``std`` of ``numpy.ma`` masked arrays on the NumPy backend keep
the standard's dtype (``xstride/_plans/masked_moments.py``): numpy.ma's own are float64
(complex128) for float16, float32 and complex64 data, where the dask backend's of
masked chunks and NumPy's of plain arrays keep the precision."""

from __future__ import annotations

import numpy as np
import pytest

import xstride as xp
from xstride.reductions import moment_dtype

DTYPES = ["float16", "float32", "float64", "complex64", "complex128", "int32"]


def _masked(dtype):
    a = (np.arange(12).reshape(3, 4) + 1).astype(dtype)
    return np.ma.masked_array(a, mask=(np.arange(12).reshape(3, 4) % 5) == 0)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("func", ["mean", "var", "std"])
@pytest.mark.parametrize("kw", [{}, {"axis": 1}, {"axis": 0, "keepdims": True}])
def test_the_result_dtype_is_the_standards_and_the_mask_is_kept(dtype, func, kw):
    m = _masked(dtype)
    got = getattr(xp, func)(m, **kw)
    want_dt = moment_dtype(func, np.dtype(dtype), None)
    assert got.dtype == want_dt
    ref = getattr(np.ma, func)(m, **kw)       # numpy.ma's (float64 for narrow data)
    if np.ndim(ref):
        assert isinstance(got, np.ma.MaskedArray)
        np.testing.assert_array_equal(np.ma.getmaskarray(got), np.ma.getmaskarray(ref))
    np.testing.assert_allclose(np.ma.filled(got, 0), np.ma.filled(ref, 0).astype(want_dt),
                               rtol=1e-3 if dtype == "float16" else 1e-6)


def test_as_the_dask_backends_of_masked_chunks():
    da = pytest.importorskip("dask.array")
    m = _masked("float32")
    x = da.ma.masked_array(da.from_array(m.data, chunks=(2, 2)),
                           mask=da.from_array(np.ma.getmaskarray(m), chunks=(2, 2)))
    for func in ("mean", "var", "std"):
        for axis in (None, 1):
            here, there = getattr(xp, func)(m, axis=axis), getattr(xp, func)(x, axis=axis)
            assert here.dtype == there.dtype == np.float32


def test_an_all_masked_reduction_and_a_given_dtype_are_numpy_mas():
    allm = np.ma.masked_array(np.ones(3, np.float32), mask=True)
    assert xp.mean(allm) is np.ma.masked
    assert xp.mean(_masked("float32"), dtype=np.float64).dtype == np.float64
    plain = np.ones(4, np.float32)          # plain arrays: NumPy's own, unchanged
    assert xp.mean(plain).dtype == xp.var(plain, axis=0).dtype == np.float32


@pytest.mark.parametrize("dtype, out", [
    (d, o) for d in ("float32", "int32", "complex64", "float64")
    for o in ("float16", "float32", "complex64", "complex128")
    if np.dtype(d).kind != "c" or np.dtype(o).kind == "c"])   # (a real one is refused)
@pytest.mark.parametrize("func", ["mean", "var", "std"])
def test_a_floating_dtype_argument_is_the_result_dtype(dtype, func, out):
    """numpy.ma's mean/var/std divide by an integer count: ``dtype=float32`` gave
    float64 (complex64 complex128), where NumPy's of a plain array and the dask
    backend's of masked chunks give the dtype asked for."""
    m = _masked(dtype)
    for kw in ({"axis": 1}, {"axis": 0, "keepdims": True}, {}):
        got = getattr(xp, func)(m, dtype=out, **kw)
        plain = getattr(np, func)(m.filled(1), dtype=out, **kw)
        assert got.dtype == plain.dtype == np.dtype(out), (kw, got.dtype)
        ref = getattr(np.ma, func)(m, dtype=out, **kw)
        if np.ndim(ref):
            assert isinstance(got, np.ma.MaskedArray)
            np.testing.assert_array_equal(np.ma.getmaskarray(got), np.ma.getmaskarray(ref))
        np.testing.assert_allclose(np.ma.filled(got, 0), np.ma.filled(ref, 0).astype(out),
                                   rtol=1e-2 if out == "float16" else 1e-6)


@pytest.mark.parametrize("out", ["int8", "int64", "uint16"])
def test_an_integer_dtype_argument_of_mean_is_the_result_dtype(out):
    """numpy.ma's mean divides its sum in that dtype by an integer count: a float64
    quotient, where NumPy's of a plain array and the dask backend's truncate it into
    the dtype asked for (the same values)."""
    data = np.array([[1.5, 2.5, -1.5, 7.9], [-2.5, 3.3, 8.8, 1.0]])
    m = np.ma.masked_array(data, mask=[[0, 1, 0, 0], [0, 0, 0, 1]])
    for kw in ({"axis": 0}, {"axis": 1, "keepdims": True}, {}):
        got = xp.mean(m, dtype=out, **kw)
        assert got.dtype == np.dtype(out), (kw, got.dtype)
        want = np.ma.mean(m, dtype=out, **kw)
        np.testing.assert_array_equal(np.ma.filled(got, 0),
                                      np.ma.filled(want, 0).astype(out))
    assert xp.mean(m, axis=1, dtype=out).tolist() == [
        np.mean(np.array([1.5, -1.5, 7.9]), dtype=out), np.mean(data[1, :3], dtype=out)]


def test_a_bool_dtype_argument_of_mean_is_the_result_dtype():
    """numpy.ma's mean with ``dtype=bool`` gave a float64 quotient (0.5), where NumPy's of
    a plain array and the dask backend's of masked chunks give a bool (any unmasked
    element nonzero): the quotient cast to bool is that value."""
    data = np.array([[0, 3, 0], [0, 0, 5], [0, 0, 0]])
    m = np.ma.masked_array(data, mask=[[0, 0, 0], [0, 0, 1], [1, 0, 0]])
    for kw in ({"axis": 1}, {"axis": 0, "keepdims": True}, {}):
        got = xp.mean(m, dtype=xp.bool, **kw)
        assert got.dtype == np.dtype(bool), (kw, got.dtype)
    assert xp.mean(m, axis=1, dtype=xp.bool).tolist() == [True, False, False]
    assert xp.mean(m, axis=1, dtype=xp.bool).tolist() == [
        np.mean(np.array([0, 3, 0]), dtype=bool), np.mean(np.array([0, 0]), dtype=bool),
        np.mean(np.array([0, 0]), dtype=bool)]
