"""``where`` of ``numpy.ma`` masked operands keeps ``numpy.ma``'s masks on the NumPy
backend and on dask arrays of masked chunks (NumPy's ``where``, and dask's per block,
returned the data alone: the elements under the masks shown as values)."""

import warnings

import dask.array as da
import numpy as np
import pytest

import xstride as xp

X = np.ma.masked_array(np.arange(12, dtype=np.float32).reshape(3, 4) - 5,
                       mask=np.arange(12).reshape(3, 4) % 5 == 1)
Y = np.ma.masked_array(np.arange(4.0) + 10, mask=[0, 1, 0, 0])
C = np.ma.masked_array(np.arange(12).reshape(3, 4) % 3 == 0,
                       mask=np.arange(12).reshape(3, 4) == 4)


def _check(got, data, mask, dtype):
    if hasattr(got, "compute"):
        got = got.compute()
    assert isinstance(got, np.ma.MaskedArray)
    assert got.dtype == dtype
    assert np.ma.getmaskarray(got).tolist() == np.asarray(mask).tolist()
    assert np.where(mask, 0, np.ma.getdata(got)).tolist() == np.where(mask, 0, data).tolist()


def _on(backend, v, chunks):
    return v if backend == "numpy" or np.isscalar(v) else da.from_array(v, chunks=chunks,
                                                                         asarray=False)


@pytest.mark.parametrize("backend,chunks", [("numpy", None), ("dask", 1), ("dask", 2),
                                            ("dask", (2, 3))])
@pytest.mark.parametrize("args", [(C, X, Y), (C, X, 0.0), (C.data, 1, Y), (C, 1, 2)])
def test_where_of_masked_operands_keeps_numpy_ma_masks(backend, chunks, args):
    want = np.ma.where(*args)
    dtype = np.where(*(np.ma.getdata(v) if np.ma.isMaskedArray(v) else v for v in args)).dtype
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = xp.where(*(_on(backend, v, chunks if np.ndim(v) == 2 else 2) for v in args))
        _check(got, np.ma.getdata(want), np.ma.getmaskarray(want), dtype)


def test_where_keeps_a_python_scalar_weak_beside_masked_float32():
    for x in (X, da.from_array(X, chunks=2, asarray=False)):
        assert xp.where(x > 0, x, 2.0).dtype == np.float32
