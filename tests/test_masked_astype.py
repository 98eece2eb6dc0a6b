"""``astype`` of a dask array of ``numpy.ma`` masked chunks: no "invalid value
encountered in cast" from the blocks' fill value (a float ``1e+20`` cast into an
integer dtype, once a block when computed), the mask kept, the answer the NumPy
backend's."""

import warnings

import dask.array as da
import numpy as np
import pytest

import xstride as xp

X = np.ma.masked_array(np.arange(12.0).reshape(3, 4) - 5,
                       mask=np.arange(12).reshape(3, 4) % 5 == 1)


@pytest.mark.parametrize("chunks", [1, 2, (2, 3)])
@pytest.mark.parametrize("dtype", ["int8", "int32", "uint16", "float32", "bool",
                                   "complex64"])
def test_astype_of_masked_chunks_warns_nothing_and_keeps_the_mask(dtype, chunks):
    arr = da.from_array(X, chunks=chunks, asarray=False)
    want = xp.astype(X, getattr(xp, dtype))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = xp.astype(arr, getattr(xp, dtype))
        assert got.dtype == want.dtype and isinstance(got._meta, np.ma.MaskedArray)
        got = got.compute()
    assert isinstance(got, np.ma.MaskedArray) and got.dtype == want.dtype
    assert got.mask.tolist() == want.mask.tolist()
    assert got.filled(0).tolist() == want.filled(0).tolist()


def test_astype_of_masked_chunks_copy_false_of_its_dtype_is_x():
    arr = da.from_array(X, chunks=2, asarray=False)
    assert xp.astype(arr, xp.float64, copy=False) is arr
