"""``linalg.outer`` of ``numpy.ma`` masked vectors keeps the masks (each product masked
where a factor is), on the NumPy backend and on dask arrays of masked chunks (NumPy's
``outer``, and dask's per block, returned the products of the data alone)."""

import warnings

import dask.array as da
import numpy as np
import pytest

import xstride as xp

V = np.ma.masked_array(np.array([1.0, 2, 3], np.float32), mask=[0, 1, 0])
W = np.ma.masked_array(np.array([4, 5, 6, 7], np.int8), mask=[0, 0, 1, 0])


@pytest.mark.parametrize("chunks", [None, 1, 2])
@pytest.mark.parametrize("x1,x2", [(V, W), (V, W.data), (W.data, V), (W, W)])
def test_outer_of_masked_vectors_masks_their_products(x1, x2, chunks):
    want_dtype = xp.linalg.outer(np.ma.getdata(x1), np.ma.getdata(x2)).dtype
    a, b = (x1, x2) if chunks is None else (da.from_array(v, chunks=chunks, asarray=False)
                                             for v in (x1, x2))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = xp.linalg.outer(a, b)
        if chunks is not None:
            got = got.compute()
    assert isinstance(got, np.ma.MaskedArray) and got.dtype == want_dtype
    mask = np.ma.getmaskarray(x1)[:, None] | np.ma.getmaskarray(x2)[None, :]
    assert got.mask.tolist() == mask.tolist()
    data = np.outer(np.ma.getdata(x1), np.ma.getdata(x2)).astype(want_dtype)
    assert got.filled(0).tolist() == np.where(mask, 0, data).tolist()
