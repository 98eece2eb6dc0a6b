"""The NumPy backend's ``concat`` and ``stack`` of ``numpy.ma`` masked arrays keep the
masks, as the dask backend's of masked chunks do (NumPy's ``concatenate`` and
``stack`` returned a masked array of no mask: the elements under the masks shown)."""

import dask.array as da
import numpy as np
import pytest

import xstride as xp

M = np.ma.masked_array(np.arange(6).reshape(2, 3), mask=[[1, 0, 0], [0, 0, 1]])
P = np.arange(6, 12, dtype=np.int8).reshape(2, 3)   # plain, another dtype


def _same(got, want):
    assert isinstance(got, np.ma.MaskedArray)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert np.ma.getmaskarray(got).tolist() == np.ma.getmaskarray(want).tolist()
    assert np.ma.getdata(got).tolist() == np.ma.getdata(want).tolist()


@pytest.mark.parametrize("call", [
    lambda a, b: xp.concat([a, b]), lambda a, b: xp.concat((b, a), axis=-1),
    lambda a, b: xp.concat([a, b], axis=None), lambda a, b: xp.stack([a, b]),
    lambda a, b: xp.stack([b, a], axis=2), lambda a, b: xp.stack((a, a), axis=-2),
])
def test_masked_arrays_keep_their_masks_as_on_dask(call):
    got = call(M, P)
    want = xp.to_numpy(call(da.from_array(M, chunks=1), da.from_array(P, chunks=1)))
    _same(got, want)
    assert np.ma.getmaskarray(got).any()   # not vacuous: masked elements there


def test_plain_arrays_and_numpy_extensions_are_numpy_s():
    assert type(xp.concat([P, P])) is np.ndarray
    assert xp.concat([np.zeros(1), [1.0]]).tolist() == [0.0, 1.0]
    assert xp.concat([M, P], dtype=np.float32).dtype == np.float32   # NumPy's own
    with pytest.raises(ValueError, match=r"stack: argument 'arrays' holds shapes \(2, 3\) "
                                         r"\(index 0\) and \(1, 3\) \(index 1\)"):
        xp.stack([M, M[:1]])   # numpy.ma's error, named as every backend's (join_checks.py)
