"""``sign`` of complex ``numpy.ma`` masked arrays, NumPy backend and dask arrays of
masked chunks: ``x / abs(x)`` of the data, 0 where it is 0, the mask kept (the NumPy
backend's masked ``sign(0)``; dask's dropped the masks and showed the masked
elements' values)."""

import warnings

import dask.array as da
import numpy as np
import pytest

import xstride as xp

X = np.ma.masked_array(np.array([[0, 1 + 1j, 3 - 4j], [2j, 0, -5 + 0j]]),
                       mask=[[0, 1, 0], [1, 0, 0]])


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("chunks", [None, 1, 2])
def test_sign_of_complex_masked_keeps_the_mask(dtype, chunks):
    x = X.astype(dtype)
    arg = x if chunks is None else da.from_array(x, chunks=chunks, asarray=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = xp.sign(arg)
        if chunks is not None:
            got = got.compute()
    assert isinstance(got, np.ma.MaskedArray) and got.dtype == dtype
    assert got.mask.tolist() == X.mask.tolist()
    data = x.data
    plain = xp.sign(data[data != 0])   # the plain backend's quotient, bit for bit
    want = np.zeros_like(data)
    want[data != 0] = plain
    assert got.filled(7).tolist() == np.where(X.mask, 7, want).tolist()


def test_sign_of_real_masked_unchanged():
    x = np.ma.masked_array([1.0, -2.0, 0.0], mask=[0, 1, 0])
    got = xp.sign(x)
    assert got.mask.tolist() == [False, True, False]
    assert got.filled(9).tolist() == [1.0, 9.0, 0.0]
