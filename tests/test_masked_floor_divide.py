"""``floor_divide`` of floating ``numpy.ma`` masked arrays keeps the masks, on the NumPy
backend and on dask arrays of masked chunks (the fix of its infinite cases selected by
``where``, which returned the data alone: the masked elements shown as values)."""

import warnings

import dask.array as da
import numpy as np
import pytest

import xstride as xp

X = np.ma.masked_array([7.0, 2, -3, -1, 9, 5], mask=[0, 0, 0, 1, 0, 0])
Y = np.ma.masked_array([2.0, 0, 2, 2, 4, -np.inf], mask=[0, 1, 0, 0, 0, 0])


@pytest.mark.parametrize("chunks", [None, 1, 4])
@pytest.mark.parametrize("x1,x2", [(X, Y), (X, 2.0), (X.data, Y), (X.astype(np.float32), 3)])
def test_floor_divide_of_masked_floats_keeps_the_masks(x1, x2, chunks):
    want = np.ma.floor_divide(x1, x2)
    on = (lambda v: v) if chunks is None else (
        lambda v: v if np.isscalar(v) else da.from_array(v, chunks=chunks, asarray=False))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)   # NumPy's of the data under masks
        plain_args = tuple(np.ma.getdata(v) if np.ma.isMaskedArray(v) else v for v in (x1, x2))
        got = xp.floor_divide(on(x1), on(x2))
        if chunks is not None:
            got = got.compute()
    assert isinstance(got, np.ma.MaskedArray)
    assert got.mask.tolist() == np.ma.getmaskarray(want).tolist()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        plain = xp.floor_divide(*plain_args)   # the standard's values (5 // -inf is -0.0)
    assert got.dtype == plain.dtype
    assert got.filled(0).tolist() == np.where(got.mask, 0, plain).tolist()
