"""``isin`` of ``numpy.ma`` masked operands, NumPy backend and dask arrays of masked
chunks: ``x2``'s masked elements are no members and the result keeps ``x1``'s mask, as
``numpy.ma.isin`` of two masked arrays answers (the libraries read the data under the
masks: a masked ``x1`` element answered unmasked, a masked ``x2`` element a member)."""

import warnings

import dask.array as da
import numpy as np
import pytest

import xstride as xp

X1 = np.ma.masked_array(np.arange(12, dtype=np.int32).reshape(3, 4),
                        mask=np.arange(12).reshape(3, 4) % 5 == 2)
X2 = np.ma.masked_array([2, 3, 7, 11, 40], mask=[0, 0, 1, 0, 0])


def _on(v, chunks):
    return v if chunks is None else da.from_array(v, chunks=chunks, asarray=False)


def _got(x1, x2, chunks, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = xp.isin(_on(x1, chunks), _on(x2, chunks), **kw)
        return got.compute() if chunks is not None else got


@pytest.mark.parametrize("chunks", [None, 1, 2, 3])
@pytest.mark.parametrize("invert", [False, True])
def test_isin_of_two_masked_arrays_as_numpy_ma(chunks, invert):
    got = _got(X1, X2, chunks, invert=invert)
    want = np.ma.isin(X1, X2)
    if invert:
        want = ~want
    assert isinstance(got, np.ma.MaskedArray) and got.dtype == bool
    assert got.mask.tolist() == X1.mask.tolist()
    assert got.filled(False).tolist() == want.filled(False).tolist()


@pytest.mark.parametrize("chunks", [None, 2])
def test_masked_x2_elements_are_no_members(chunks):
    got = _got(X1.data, X2, chunks)
    assert type(got) is np.ndarray
    assert got.tolist() == np.isin(X1.data, [2, 3, 11, 40]).tolist()   # 7 is masked


@pytest.mark.parametrize("chunks", [None, 2])
def test_masked_x1_keeps_its_mask_against_plain_x2(chunks):
    got = _got(X1, X2.data, chunks)
    assert isinstance(got, np.ma.MaskedArray)
    assert got.mask.tolist() == X1.mask.tolist()
    assert got.filled(False).tolist() == (np.isin(X1.data, X2.data) & ~X1.mask).tolist()
