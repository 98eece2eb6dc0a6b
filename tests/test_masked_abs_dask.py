"""``abs`` of a dask array of complex ``numpy.ma`` masked chunks: no "ComplexWarning:
Casting complex values to real discards the imaginary part" when computed (each
block's real result kept its complex fill value, which dask's join of the blocks set
on the whole), the answer the NumPy backend's."""

import warnings

import dask.array as da
import numpy as np
import pytest

import xstride as xp

X = np.ma.masked_array((np.arange(12) + 1j * np.arange(12)[::-1]).reshape(3, 4),
                       mask=np.arange(12).reshape(3, 4) % 5 == 3)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("chunks", [1, 2, (3, 2)])
def test_abs_of_complex_masked_chunks_warns_nothing(dtype, chunks):
    x = X.astype(dtype)
    want = xp.abs(x)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = xp.abs(da.from_array(x, chunks=chunks, asarray=False))
        assert got.dtype == want.dtype
        got = got.compute()
    assert isinstance(got, np.ma.MaskedArray) and got.dtype == want.dtype
    assert got.mask.tolist() == x.mask.tolist()
    np.testing.assert_array_equal(got.filled(0), want.filled(0))
