"""``asarray`` of a ``numpy.ma`` masked array keeps the mask, on the NumPy and dask
backends, with the standard's ``copy`` rules and ``dtype`` conversions (NumPy's and
the dask backend's returned the data alone, the masked elements shown as values)."""

import warnings

import dask.array as da
import numpy as np
import pytest

import xstride as xp

MASK = [[False, True, False], [True, False, False]]


def _m(**kw):
    return np.ma.masked_array([[1.5, 2.0, -3.0], [4.0, 5.0, 6.0]], mask=MASK, **kw)


@pytest.mark.parametrize("copy", [None, True])
@pytest.mark.parametrize("dtype", [None, "float32", "int32", "complex128"])
def test_numpy_asarray_of_masked_keeps_the_mask(dtype, copy):
    m = _m(fill_value=1e20)   # a fill value no integer holds: no cast warning
    want = m.data.astype(dtype or m.dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = xp.asarray(m, dtype=None if dtype is None else getattr(xp, dtype), copy=copy)
    assert isinstance(got, np.ma.MaskedArray) and got.dtype == want.dtype
    assert got.mask.tolist() == MASK and got.data.tolist() == want.tolist()
    if copy:   # a copy: data and mask its own
        got[0, 0] = np.ma.masked
        got[1, 0] = 7
        assert m.mask.tolist() == MASK and m.data[1, 0] == 4.0


@pytest.mark.parametrize("copy", [None, False])
def test_numpy_asarray_of_masked_without_a_copy_is_obj(copy):
    m = _m()
    assert xp.asarray(m) is m
    assert xp.asarray(m, copy=copy) is m
    assert xp.asarray(m, dtype=xp.float64, copy=copy) is m


def test_numpy_asarray_of_masked_copy_false_and_another_dtype_raises():
    with pytest.raises(ValueError, match="copy"):
        xp.asarray(_m(), dtype=xp.float32, copy=False)


def test_numpy_asarray_of_masked_keeps_the_fill_value_of_its_dtype():
    got = xp.asarray(_m(fill_value=-9.0), copy=True)
    assert got.fill_value == -9.0 and got.mask.tolist() == MASK


def test_numpy_asarray_of_masked_chunks_computes_the_mask_too():
    d = da.from_array(_m(), chunks=1, asarray=False)
    got = xp.asarray(d)
    assert isinstance(got, np.ma.MaskedArray) and got.mask.tolist() == MASK
    got = xp.asarray(d, dtype=xp.float32)
    assert got.dtype == np.float32 and got.mask.tolist() == MASK


@pytest.mark.parametrize("copy", [None, True])
@pytest.mark.parametrize("dtype", [None, "float32", "int64"])
def test_dask_asarray_of_masked_keeps_the_mask(dtype, copy):
    m = _m()
    with xp.use_backend("dask", chunks=1):
        got = xp.asarray(m, dtype=None if dtype is None else getattr(xp, dtype), copy=copy)
    assert isinstance(got._meta, np.ma.MaskedArray)
    want = m.data.astype(dtype or m.dtype)
    assert got.dtype == want.dtype
    out = got.compute()
    assert isinstance(out, np.ma.MaskedArray) and out.mask.tolist() == MASK
    assert out.data.tolist() == want.tolist()
    assert xp.sum(got).compute() == xp.sum(xp.asarray(m, dtype=got.dtype))


def test_dask_asarray_of_masked_copy_false_raises():
    with xp.use_backend("dask"):
        with pytest.raises(ValueError, match="copy"):
            xp.asarray(_m(), copy=False)


@pytest.mark.parametrize("obj", [[1.0, 2.0], (1, 2), 2.5, 3, np.float32(1.5), np.ones(2)])
@pytest.mark.parametrize("kw", [{}, {"dtype": "float64"}])
def test_numpy_asarray_of_plain_objects_asks_no_mask(monkeypatch, obj, kw):
    # the registry look-up of masked_source cost asarray([1.0, 2.0]) 0.25 us (+50%)
    from xstride._backends import fill_checks

    def asked(o):
        raise AssertionError("masked_source asked of a plain obj")

    monkeypatch.setattr(fill_checks, "masked_source", asked)
    kw = {k: getattr(xp, v) for k, v in kw.items()}
    got = xp.asarray(obj, **kw)
    assert type(got) is np.ndarray and got.tolist() == np.asarray(obj).tolist()


def _items():
    return [np.ma.masked_array([1, 2], mask=[False, True]),
            np.ma.masked_array([3, 4], mask=[True, False])]


STACKED = [[False, True], [True, False]]


@pytest.mark.parametrize("backend", ["numpy", "dask"])
@pytest.mark.parametrize("seq", [list, tuple])
def test_asarray_of_a_list_of_masked_arrays_stacks_their_masks(backend, seq):
    # NumPy's asarray (and the dask backend's, made of it) dropped the items' masks
    obj = seq(_items())
    want = np.ma.asarray(obj)   # numpy.ma's answer for the items of a list
    with xp.use_backend(backend):
        got = xp.asarray(obj)
    if backend == "dask":
        assert isinstance(got._meta, np.ma.MaskedArray)
        got = got.compute()
    assert isinstance(got, np.ma.MaskedArray) and got.dtype == want.dtype
    assert got.mask.tolist() == want.mask.tolist() == STACKED
    assert got.data.tolist() == [[1, 2], [3, 4]]


@pytest.mark.parametrize("backend", ["numpy", "dask"])
def test_asarray_of_nested_and_mixed_masked_items(backend):
    m1, m2 = _items()
    cases = [   # (obj, its mask, whether numpy.ma's asarray (one level's items) agrees)
        ([[m1], [m2]], [[STACKED[0]], [STACKED[1]]], False),        # a level deeper
        ([np.array([5, 6]), m2], [[False, False], STACKED[1]], True),  # a plain item
        ([[5, 6], m1], [[False, False], STACKED[0]], True),            # a list item
        ([[1.0, np.ma.masked], m1], [[False, True], STACKED[0]], False),  # a masked
    ]   # element beside a masked array: its mask kept too
    for obj, mask, same in cases:
        with warnings.catch_warnings():
            # NumPy's (and numpy.ma's) conversion of the masked constant among
            # scalars: "converting a masked element to nan"
            warnings.simplefilter("ignore", UserWarning)
            with xp.use_backend(backend):
                got = xp.asarray(obj, dtype=xp.float32)
            ref = np.ma.asarray(obj, dtype=np.float32)
        if backend == "dask":
            got = got.compute()
        assert isinstance(got, np.ma.MaskedArray), obj
        assert got.dtype == np.float32 and got.mask.tolist() == mask
        assert (np.ma.getmaskarray(ref).tolist() == mask) is same, obj
        kept = ~np.asarray(mask)
        assert got.data[kept].tolist() == ref.data[kept].tolist()


@pytest.mark.parametrize("backend", ["numpy", "dask"])
def test_asarray_of_a_list_of_unmasked_items_stays_plain(backend):
    obj = [np.ma.masked_array([1.0, 2.0]), np.array([3.0, 4.0]), [5.0, 6.0]]
    with xp.use_backend(backend):
        got = xp.asarray(obj)
    if backend == "dask":
        got = got.compute()
    # a masked item without a mask still makes a masked array, all unmasked
    assert isinstance(got, np.ma.MaskedArray) and not got.mask.any()
    with xp.use_backend(backend):
        plain = xp.asarray([[1.0, 2.0], [3.0, 4.0]])
    if backend == "dask":
        assert not isinstance(plain._meta, np.ma.MaskedArray)
        plain = plain.compute()
    assert type(plain) is np.ndarray


@pytest.mark.parametrize("backend", ["numpy", "dask"])
def test_asarray_of_scalars_with_a_masked_element_is_numpys_conversion(backend):
    # the scalars of a list are not looked at (a look at each cost asarray of a list of
    # floats 80%): NumPy's conversion, NaN with its warning (masked_asarray.py)
    with xp.use_backend(backend), pytest.warns(UserWarning, match="masked element to nan"):
        got = xp.asarray([1.0, np.ma.masked, 3.0])
    if backend == "dask":
        got = got.compute()
    assert type(got) is np.ndarray and np.isnan(got[1]) and got[::2].tolist() == [1.0, 3.0]


def test_asarray_of_a_ragged_list_of_masked_items_raises_numpys_error():
    m1, _ = _items()
    with pytest.raises(ValueError, match="inhomogeneous"):
        xp.asarray([m1, np.ma.masked_array([1, 2, 3])])


def test_masked_items_for_chunks_without_masks_are_refused_naming_obj():
    from xstride._backends.masked_asarray import refuse_masked_chunks

    with pytest.raises(TypeError, match=r"asarray: argument 'obj' .*items without a mask "
                                        r"\(cupy chunks carry no mask"):
        refuse_masked_chunks("asarray", _items(), "cupy")
