"""``clip`` by ``numpy.ma`` masked array bounds on the dask backend masks the elements
whose bound is masked, as the NumPy backend does (and ``numpy.ma.clip`` of a masked
``x``) (dask's
broadcast of the bounds against ``x`` dropped their masks)."""

import warnings

import dask.array as da
import numpy as np
import pytest

import xstride as xp

X = np.ma.masked_array(np.arange(9.0).reshape(3, 3) + 1, mask=[[0, 1, 0], [0, 0, 0], [1, 0, 0]])
LO = np.ma.masked_array([1.0, 2, 3], mask=[0, 1, 0])
HI = np.ma.masked_array([[4.0], [5], [6]], mask=[[1], [0], [0]])


@pytest.mark.parametrize("chunks", [1, 2, (2, 3)])
@pytest.mark.parametrize("x,lo,hi", [(X, LO, HI), (X.data, LO, 5.0), (X, None, HI),
                                     (X.data, LO.data, HI)])
def test_clip_by_masked_bounds_as_numpy_backend(x, lo, hi, chunks):
    want = xp.clip(x, lo, hi)   # the NumPy backend: any operand's mask (clip_checks.py)

    def on(v):
        if v is None or np.isscalar(v):
            return v
        return da.from_array(v, chunks=chunks if np.ndim(v) == 2 else 2, asarray=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = xp.clip(on(x), on(lo), on(hi)).compute()
    assert isinstance(got, np.ma.MaskedArray)
    assert got.mask.tolist() == want.mask.tolist()
    assert got.filled(0).tolist() == want.filled(0).tolist()
