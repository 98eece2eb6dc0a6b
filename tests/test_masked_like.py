"""``empty_like``, ``zeros_like``, ``ones_like`` and ``full_like`` of ``numpy.ma`` masked
arrays agree on the NumPy and dask backends, as NumPy's: a masked array with ``x``'s mask
copied and its fill value (the dask backend's gave plain chunks, the mask dropped)."""

import warnings

import dask.array as da
import numpy as np
import pytest

import xstride as xp

MASK = [[False, True, False], [True, False, False]]


def _m(dtype=np.float64):
    return np.ma.masked_array(np.array([[1.5, 2.0, -3.0], [4.0, 5.0, 6.0]], dtype=dtype),
                              mask=MASK, fill_value=7)


def _call(name, x, **kw):
    return (getattr(xp, name)(x, 5, **kw) if name == "full_like"
            else getattr(xp, name)(x, **kw))


def _on(backend, m, chunks=(1, 2)):
    return m if backend == "numpy" else da.from_array(m, chunks=chunks, asarray=False)


def _computed(got):
    if hasattr(got, "compute"):
        assert isinstance(got._meta, np.ma.MaskedArray)
        got = got.compute()
    return got


NAMES = ["empty_like", "zeros_like", "ones_like", "full_like"]


@pytest.mark.parametrize("backend", ["numpy", "dask"])
@pytest.mark.parametrize("dtype", [None, "float32", "int32"])
@pytest.mark.parametrize("name", NAMES)
def test_like_of_masked_keeps_the_mask_as_numpy(name, dtype, backend):
    m = _m()
    kw = {} if dtype is None else {"dtype": getattr(xp, dtype)}
    np_kw = {} if dtype is None else {"dtype": dtype}
    want = (np.full_like(m, 5, **np_kw) if name == "full_like"
            else getattr(np, name)(m, **np_kw))   # NumPy's own answer
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = _computed(_call(name, _on(backend, m), **kw))
    assert isinstance(got, np.ma.MaskedArray) and isinstance(want, np.ma.MaskedArray)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert got.mask.tolist() == want.mask.tolist() == MASK
    assert got.fill_value == want.fill_value == 7
    if name != "empty_like":
        assert got.data.tolist() == want.data.tolist()


@pytest.mark.parametrize("name", NAMES)
def test_like_of_masked_has_a_mask_of_its_own(name):
    m = _m()
    got = _call(name, m)
    got[0, 0] = np.ma.masked
    got[0, 1] = 3   # unmasks that element of got only
    assert m.mask.tolist() == MASK and m.data[0, 0] == 1.5


@pytest.mark.parametrize("name", NAMES)
def test_dask_like_of_masked_with_chunks_and_order(name):
    m = _m()
    with xp.use_backend("dask"):
        got = _call(name, _on("dask", m), chunks=(2, 1), order="F")
    assert got.chunks == ((2,), (1, 1, 1))
    assert _computed(got).mask.tolist() == MASK


@pytest.mark.parametrize("backend", ["numpy", "dask"])
@pytest.mark.parametrize("name", NAMES)
def test_like_of_masked_with_a_shape(name, backend):
    m = _m()
    # of x's size: x's mask reshaped (C order), as NumPy's; of another: none masked
    got = _computed(_call(name, _on(backend, m), shape=(3, 2)))
    assert isinstance(got, np.ma.MaskedArray) and got.shape == (3, 2)
    assert got.mask.tolist() == np.reshape(MASK, (3, 2)).tolist()
    got = _computed(_call(name, _on(backend, m), shape=(4,)))
    want = _call(name, m, shape=(4,))
    assert isinstance(got, np.ma.MaskedArray) and got.shape == (4,)
    assert not np.ma.getmaskarray(got).any() and not np.ma.getmaskarray(want).any()
    assert got.fill_value == want.fill_value == 7
    if name != "empty_like":
        assert got.data.tolist() == want.data.tolist()


def test_dask_full_like_of_masked_with_a_0d_dask_fill_keeps_the_mask():
    fill = da.from_array(np.array(2.5))
    with xp.use_backend("dask"):
        got = _computed(xp.full_like(_on("dask", _m()), fill))
    assert got.mask.tolist() == MASK and got.data.tolist() == [[2.5] * 3] * 2


@pytest.mark.parametrize("name", NAMES)
def test_dask_like_of_plain_chunks_stays_plain(name):
    x = da.from_array(np.ones((2, 3)), chunks=2)
    with xp.use_backend("dask"):
        got = _call(name, x)
    assert not isinstance(got._meta, np.ma.MaskedArray)
    assert type(got.compute()) is np.ndarray


def test_dask_like_of_masked_with_a_bad_device_names_it():
    with xp.use_backend("dask"):
        with pytest.raises(ValueError, match="zeros_like: argument 'device' is 'gpu'"):
            xp.zeros_like(_on("dask", _m()), device="gpu")
