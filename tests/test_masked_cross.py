"""``linalg.cross`` of ``numpy.ma`` masked arrays on the NumPy backend masks each
component where a factor of it is masked, as the dask backend's of masked chunks
(NumPy's ``cross`` returned the products of the data alone, masks dropped)."""

import warnings

import dask.array as da
import numpy as np
import pytest

import xstride as xp

A = np.ma.masked_array(np.arange(9.0).reshape(3, 3) + 1, mask=[[0, 1, 0], [0, 0, 0], [1, 0, 0]])
B = np.ma.masked_array(np.arange(9.0).reshape(3, 3)[::-1] * 2, mask=[[0, 0, 0], [0, 1, 0], [0, 0, 0]])


@pytest.mark.parametrize("x1,x2", [(A, B), (A, B.data), (A.data.astype(np.int32), B)])
@pytest.mark.parametrize("axis", [-1, 0])
def test_cross_of_masked_as_the_dask_backend(x1, x2, axis):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = xp.linalg.cross(x1, x2, axis=axis)
        want = xp.linalg.cross(da.from_array(x1, chunks=2, asarray=False),
                               da.from_array(x2, chunks=2, asarray=False), axis=axis).compute()
    assert isinstance(got, np.ma.MaskedArray) and got.dtype == want.dtype
    assert got.mask.tolist() == want.mask.tolist() and got.mask.any()
    assert got.filled(0).tolist() == want.filled(0).tolist()
    plain = np.cross(np.ma.getdata(x1), np.ma.getdata(x2), axis=axis)
    assert got.data[~got.mask].tolist() == plain[~got.mask].tolist()
