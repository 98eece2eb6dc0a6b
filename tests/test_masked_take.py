"""``take`` by ``numpy.ma`` masked indices: the elements taken by a masked index are
masked, its value never read, with one answer on the NumPy backend and on dask
arrays of masked chunks, of a masked or a plain ``x`` (dask's gather read the index
under the mask and showed that element; NumPy's checks refused a masked index out of
range)."""

import warnings

import dask.array as da
import numpy as np
import pytest

import xstride as xp

X = np.ma.masked_array([[3.0, 1, 2, 5, 1], [0, 9, 9, 4, 2]],
                       mask=[[0, 1, 0, 0, 0], [1, 0, 0, 1, 0]])
IDX = np.ma.masked_array([0, 2, 40, 1, -1], mask=[0, 1, 1, 0, 0])


def _take(x, idx, chunks, **kw):
    if chunks is not None:
        x = da.from_array(x, chunks=chunks, asarray=False)
        idx = da.from_array(idx, chunks=chunks, asarray=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = xp.take(x, idx, **kw)
        return got.compute() if chunks is not None else got


@pytest.mark.parametrize("chunks", [None, 1, 2, 3])
@pytest.mark.parametrize("masked_x", [True, False])
def test_take_by_masked_indices_masks_their_elements(chunks, masked_x):
    x = X if masked_x else X.data
    got = _take(x, IDX, chunks, axis=1)
    plain = IDX.filled(0)
    want_mask = np.ma.getmaskarray(x)[:, plain] | IDX.mask[None, :]
    assert isinstance(got, np.ma.MaskedArray) and got.dtype == X.dtype
    assert got.mask.tolist() == want_mask.tolist()
    assert got.filled(-7).tolist() == np.where(want_mask, -7, X.data[:, plain]).tolist()


@pytest.mark.parametrize("chunks", [None, 2])
def test_take_by_masked_indices_along_axis_0_and_of_1d(chunks):
    idx = np.ma.masked_array([1, 7, 0], mask=[0, 1, 0])
    got = _take(X, idx, chunks, axis=0)
    assert got.mask.tolist() == [X.mask[1].tolist(), [True] * 5, X.mask[0].tolist()]
    got = _take(X.data[0], IDX, chunks)
    assert got.mask.tolist() == IDX.mask.tolist()
    assert got.compressed().tolist() == [3.0, 1.0, 1.0]
