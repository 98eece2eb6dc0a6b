"""``broadcast_to`` of a ``numpy.ma`` masked array keeps the mask, broadcast beside the
data, on the NumPy backend and on dask arrays of masked chunks (NumPy's
``broadcast_to``, and dask's per block, returned the data alone)."""

import warnings

import dask.array as da
import numpy as np
import pytest

import xstride as xp

B = np.ma.masked_array(np.arange(4, dtype=np.int16), mask=[0, 1, 0, 1])
C = np.ma.masked_array(np.arange(3.0).reshape(3, 1), mask=[[1], [0], [0]])


@pytest.mark.parametrize("chunks", [None, 1, 3])
@pytest.mark.parametrize("x,shape", [(B, (3, 4)), (B, (2, 1, 4)), (C, (3, 5)), (C, (2, 3, 2))])
def test_broadcast_to_keeps_the_mask(x, shape, chunks):
    arg = x if chunks is None else da.from_array(x, chunks=chunks, asarray=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = xp.broadcast_to(arg, shape)
        if chunks is not None:
            got = got.compute()
    assert isinstance(got, np.ma.MaskedArray)
    assert got.shape == shape and got.dtype == x.dtype
    want_mask = np.broadcast_to(np.ma.getmaskarray(x), shape)
    assert got.mask.tolist() == want_mask.tolist()
    assert got.data.tolist() == np.broadcast_to(x.data, shape).tolist()


def test_broadcast_to_of_masked_numpy_is_a_read_only_view_as_numpy_s():
    got = xp.broadcast_to(B, (3, 4))
    assert not got.data.flags.writeable
    assert np.shares_memory(got.data, B.data)


@pytest.mark.parametrize("chunks", [None, 2])
def test_broadcast_to_of_masked_still_checks_shape(chunks):
    arg = B if chunks is None else da.from_array(B, chunks=chunks, asarray=False)
    with pytest.raises(ValueError, match="broadcast_to: argument 'shape' has the negative"):
        xp.broadcast_to(arg, (-1, 4))


@pytest.mark.parametrize("chunks", [None, 1, 2])
def test_broadcast_arrays_keep_the_masks(chunks):
    plain = np.arange(3.0).reshape(3, 1)
    args = (B, plain, C)
    if chunks is not None:
        args = tuple(da.from_array(v, chunks=chunks, asarray=False) for v in args)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = xp.broadcast_arrays(*args)
        plain_args = tuple(np.ma.getdata(a) if chunks is None else da.ma.getdata(a)
                           for a in args)
        assert type(got) is type(xp.broadcast_arrays(*plain_args))   # as of plain arrays
        got = [g.compute() if chunks is not None else g for g in got]
    shape = (3, 4)
    assert [g.shape for g in got] == [shape] * 3
    assert isinstance(got[0], np.ma.MaskedArray) and isinstance(got[2], np.ma.MaskedArray)
    assert type(got[1]) is np.ndarray
    assert got[0].mask.tolist() == np.broadcast_to(B.mask, shape).tolist()
    assert got[2].mask.tolist() == np.broadcast_to(C.mask, shape).tolist()
    assert got[2].data.tolist() == np.broadcast_to(C.data, shape).tolist()


@pytest.mark.parametrize("chunks", [None, 1, 2])
@pytest.mark.parametrize("indexing", ["xy", "ij"])
def test_meshgrid_grids_keep_the_masks(chunks, indexing):
    plain = np.arange(3.0)
    args = (B, plain)
    if chunks is not None:
        args = tuple(da.from_array(v, chunks=chunks, asarray=False) for v in args)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = xp.meshgrid(*args, indexing=indexing)
        got = [g.compute() if chunks is not None else g for g in got]
    data = np.meshgrid(B.data, plain, indexing=indexing)
    masks = np.meshgrid(B.mask, np.zeros(3, bool), indexing=indexing)
    assert isinstance(got[0], np.ma.MaskedArray) and type(got[1]) is np.ndarray
    assert got[0].mask.tolist() == masks[0].tolist()
    assert got[0].data.tolist() == data[0].tolist()
    assert got[1].tolist() == data[1].tolist()
