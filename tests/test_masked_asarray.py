"""``asarray`` of a ``numpy.ma`` masked array keeps the mask, on the NumPy and dask
backends, with the standard's ``copy`` rules and ``dtype`` conversions (NumPy's and
the dask backend's returned the data alone, the masked elements shown as values)."""

import warnings

import dask.array as da
import numpy as np
import pytest

import xstride as xp

MASK = [[False, True, False], [True, False, False]]


def _m(**kw):
    return np.ma.masked_array([[1.5, 2.0, -3.0], [4.0, 5.0, 6.0]], mask=MASK, **kw)


@pytest.mark.parametrize("copy", [None, True])
@pytest.mark.parametrize("dtype", [None, "float32", "int32", "complex128"])
def test_numpy_asarray_of_masked_keeps_the_mask(dtype, copy):
    m = _m(fill_value=1e20)   # a fill value no integer holds: no cast warning
    want = m.data.astype(dtype or m.dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = xp.asarray(m, dtype=None if dtype is None else getattr(xp, dtype), copy=copy)
    assert isinstance(got, np.ma.MaskedArray) and got.dtype == want.dtype
    assert got.mask.tolist() == MASK and got.data.tolist() == want.tolist()
    if copy:   # a copy: data and mask its own
        got[0, 0] = np.ma.masked
        got[1, 0] = 7
        assert m.mask.tolist() == MASK and m.data[1, 0] == 4.0


@pytest.mark.parametrize("copy", [None, False])
def test_numpy_asarray_of_masked_without_a_copy_is_obj(copy):
    m = _m()
    assert xp.asarray(m) is m
    assert xp.asarray(m, copy=copy) is m
    assert xp.asarray(m, dtype=xp.float64, copy=copy) is m


def test_numpy_asarray_of_masked_copy_false_and_another_dtype_raises():
    with pytest.raises(ValueError, match="copy"):
        xp.asarray(_m(), dtype=xp.float32, copy=False)


def test_numpy_asarray_of_masked_keeps_the_fill_value_of_its_dtype():
    got = xp.asarray(_m(fill_value=-9.0), copy=True)
    assert got.fill_value == -9.0 and got.mask.tolist() == MASK


def test_numpy_asarray_of_masked_chunks_computes_the_mask_too():
    d = da.from_array(_m(), chunks=1, asarray=False)
    got = xp.asarray(d)
    assert isinstance(got, np.ma.MaskedArray) and got.mask.tolist() == MASK
    got = xp.asarray(d, dtype=xp.float32)
    assert got.dtype == np.float32 and got.mask.tolist() == MASK


@pytest.mark.parametrize("copy", [None, True])
@pytest.mark.parametrize("dtype", [None, "float32", "int64"])
def test_dask_asarray_of_masked_keeps_the_mask(dtype, copy):
    m = _m()
    with xp.use_backend("dask", chunks=1):
        got = xp.asarray(m, dtype=None if dtype is None else getattr(xp, dtype), copy=copy)
    assert isinstance(got._meta, np.ma.MaskedArray)
    want = m.data.astype(dtype or m.dtype)
    assert got.dtype == want.dtype
    out = got.compute()
    assert isinstance(out, np.ma.MaskedArray) and out.mask.tolist() == MASK
    assert out.data.tolist() == want.tolist()
    assert xp.sum(got).compute() == xp.sum(xp.asarray(m, dtype=got.dtype))


def test_dask_asarray_of_masked_copy_false_raises():
    with xp.use_backend("dask"):
        with pytest.raises(ValueError, match="copy"):
            xp.asarray(_m(), copy=False)


@pytest.mark.parametrize("obj", [[1.0, 2.0], (1, 2), 2.5, 3, np.float32(1.5), np.ones(2)])
@pytest.mark.parametrize("kw", [{}, {"dtype": "float64"}])
def test_numpy_asarray_of_plain_objects_asks_no_mask(monkeypatch, obj, kw):
    # the registry look-up of masked_source cost asarray([1.0, 2.0]) 0.25 us (+50%)
    from xstride._backends import fill_checks

    def asked(o):
        raise AssertionError("masked_source asked of a plain obj")

    monkeypatch.setattr(fill_checks, "masked_source", asked)
    kw = {k: getattr(xp, v) for k, v in kw.items()}
    got = xp.asarray(obj, **kw)
    assert type(got) is np.ndarray and got.tolist() == np.asarray(obj).tolist()
