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
    with pytest.raises(TypeError, match=r"items without a mask \(cupy chunks carry no mask: "
                                        r"pass each masked item's .filled\(v\), a dask one's "
                                        r"dask.array.ma.filled\(x, v\)"):
        refuse_masked_chunks("asarray", _items()[:1] + [da.ma.masked_array(np.ones(2))], "cupy")


# --- lists holding dask arrays of masked chunks (masked_asarray.stack_masked_items) ---

def _counted_masked(data, mask, calls, chunks=1):
    """A dask array of masked chunks whose blocks append to ``calls`` when computed."""
    def block(b):
        calls.append(1)
        return b

    x = da.ma.masked_array(np.asarray(data), mask=mask).rechunk(chunks)
    return x.map_blocks(block, dtype=x.dtype, meta=x._meta)


def _dask_items(calls):
    d1 = _counted_masked([1.0, 2.0], [False, True], calls)
    with xp.use_backend("dask", chunks=1):   # masked chunks made by xstride's asarray
        d2 = xp.asarray(np.ma.masked_array([3.0, 4.0], mask=[True, False]))
    return d1, d2


@pytest.mark.parametrize("seq", [list, tuple])
def test_dask_asarray_of_a_list_of_masked_chunks_stacks_their_masks_lazily(seq):
    # NumPy's conversion computed each item and kept its data alone (masks dropped)
    calls = []
    d1, d2 = _dask_items(calls)
    with xp.use_backend("dask", chunks=1):
        got = xp.asarray(seq([d1, d2]))
    assert calls == []   # nothing computed
    assert isinstance(got._meta, np.ma.MaskedArray) and got.dtype == np.float64
    assert got.chunks == ((1, 1), (1, 1))   # the backend's chunks, as of host data
    out = got.compute()
    assert isinstance(out, np.ma.MaskedArray)
    assert out.mask.tolist() == [[False, True], [True, False]]
    assert out.data.tolist() == [[1.0, 2.0], [3.0, 4.0]]
    with xp.use_backend("dask"):
        got = xp.asarray([d1, d2], chunks=(2, 1))
    assert got.chunks == ((2,), (1, 1)) and isinstance(got._meta, np.ma.MaskedArray)


def _mixed_cases(calls):
    d1, d2 = _dask_items(calls)
    m = np.ma.masked_array([7.0, 8.0], mask=[True, False])
    d0 = da.ma.masked_array(np.asarray(9.0), mask=True)
    plain = da.from_array(np.array([5, 6], dtype=np.int32), chunks=1)
    return [   # (obj, its data, its mask) as NumPy's numpy.ma stacks a list's items
        ([d1, plain], [[1, 2], [5, 6]], [[False, True], [False, False]]),  # a plain dask
        ([plain, d1], [[5, 6], [1, 2]], [[False, False], [False, True]]),
        ([d1, m], [[1, 2], [7, 8]], [[False, True], [True, False]]),      # a numpy.ma one
        ([d1, np.array([5, 6])], [[1, 2], [5, 6]], [[False, True], [False, False]]),
        ([[5, 6], d1], [[5, 6], [1, 2]], [[False, False], [False, True]]),  # scalars
        ([[1.0, np.ma.masked], d2], [[1, 0], [3, 4]], [[False, True], [True, False]]),
        ([d1, [d0, 6]], [[1, 2], [9, 6]], [[False, True], [True, False]]),  # 0-D in a row
        ([[d1], (d2,)], [[[1, 2]], [[3, 4]]], [[[False, True]], [[True, False]]]),
        ([[d1, m], [plain, d2]], [[[1, 2], [7, 8]], [[5, 6], [3, 4]]],
         [[[False, True], [True, False]], [[False, False], [True, False]]]),
    ]


@pytest.mark.parametrize("case", range(9))
def test_dask_asarray_of_mixed_lists_with_masked_chunks(case):
    calls = []
    obj, data, mask = _mixed_cases(calls)[case]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # NumPy's (and numpy.ma's) conversion of the masked constant among scalars
        warnings.filterwarnings("ignore", "Warning: converting a masked element to nan")
        with xp.use_backend("dask", chunks=1):
            got = xp.asarray(obj)
        assert calls == []
        assert isinstance(got._meta, np.ma.MaskedArray)
        out = got.compute()
    want = np.asarray(data, dtype=np.float64)   # NumPy's dtype of the items: float64
    assert got.dtype == out.dtype == want.dtype
    assert isinstance(out, np.ma.MaskedArray) and out.mask.tolist() == mask
    kept = ~np.asarray(mask)
    assert out.data[kept].tolist() == want[kept].tolist()


@pytest.mark.parametrize("dtype", ["float32", "int64", "complex128"])
def test_dask_asarray_of_masked_chunks_items_into_a_dtype(dtype):
    calls = []
    d1, d2 = _dask_items(calls)
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # no fill value cast warning
        with xp.use_backend("dask", chunks=1):
            got = xp.asarray([d1, [5, 6], d2], dtype=getattr(xp, dtype))
        out = got.compute()
    assert calls == [1, 1]   # d1's blocks, computed once, by compute only
    assert got.dtype == out.dtype == np.dtype(dtype)
    assert out.mask.tolist() == [[False, True], [False, False], [True, False]]
    assert out.data[[0, 1, 2], [0, 0, 1]].tolist() == [1, 5, 4]


def test_dask_asarray_of_masked_chunks_items_copies_the_host_items():
    # NumPy's array of a list is a copy: the lazy result does not see later writes to
    # its host items (dask's from_array copies them)
    d1, _ = _dask_items([])
    m = np.ma.masked_array([7.0, 8.0], mask=[True, False])
    a = np.array([5.0, 6.0])
    with xp.use_backend("dask"):
        got = xp.asarray([d1, m, a])
    m[1] = np.ma.masked
    a[0] = m.data[0] = -1.0
    out = got.compute()
    assert out.mask.tolist() == [[False, True], [True, False], [False, False]]
    assert out.data[1:].tolist() == [[7.0, 8.0], [5.0, 6.0]]


def test_dask_asarray_of_masked_chunks_items_keeps_numpys_promotion():
    i8 = da.ma.masked_array(np.array([1, 2], np.int8), mask=[True, False])
    u8 = da.from_array(np.array([3, 4], np.uint64))
    with xp.use_backend("dask"):
        assert xp.asarray([i8, [1, 2]]).dtype == np.int64   # a list's Python ints
        assert xp.asarray([i8, u8]).dtype == np.float64
        got = xp.asarray([i8, np.ones(2, np.float32)])
    want = np.asarray([np.ones(2, np.int8), np.ones(2, np.float32)]).dtype   # float32
    assert got.dtype == want == got.compute().dtype
    assert got.compute().mask.tolist() == [[True, False], [False, False]]


def test_dask_asarray_of_masked_chunks_items_refuses_what_it_cannot_stack_lazily():
    calls = []
    d1, d2 = _dask_items(calls)
    d3 = da.ma.masked_array(np.arange(3.0), mask=[True, False, False])
    with xp.use_backend("dask"):
        with pytest.raises(ValueError, match=r"asarray: argument 'obj' has an inhomogeneous "
                                             r"shape after 1 dimensions.*\(2,\) and \(3,\)"):
            xp.asarray([d1, d3])
        with pytest.raises(ValueError, match=r"after 1 dimensions: the detected shape was "
                                             r"\(2,\) \+ an inhomogeneous part"):
            xp.asarray([[d1], [d2, d2]])   # NumPy's words for its ragged lists
        with pytest.raises(ValueError, match=r"after 2 dimensions: the detected shape was "
                                             r"\(2, 2\) \+"):
            xp.asarray([[d1, d2], [d2, d3]])
        with pytest.raises(ValueError, match=r"inhomogeneous"):
            xp.asarray([d1, 5.0])
        unknown = d3[da.ma.getdata(d3) > 0]   # lengths dask does not know
        with pytest.raises(ValueError, match=r"asarray: argument 'obj' holds a dask array of "
                                             r"shape \(nan,\), with lengths dask does not know"
                                             r".*compute_chunk_sizes"):
            xp.asarray([d1, unknown])
    assert calls == []


def test_dask_asarray_of_masked_chunks_beside_chunks_of_another_library_is_refused():
    class Meta(np.lib.mixins.NDArrayOperatorsMixin):   # chunks of no NumPy array
        def __init__(self, a):
            self.a = a
            self.shape, self.dtype, self.ndim = a.shape, a.dtype, a.ndim

        def __getitem__(self, key):
            return Meta(self.a[key])

        def __array__(self, dtype=None, copy=None):
            return self.a

    d1, _ = _dask_items([])
    other = da.from_array(np.ones(2), chunks=1).map_blocks(Meta, meta=Meta(np.ones((0,))))
    with xp.use_backend("dask"):
        with pytest.raises(TypeError, match=r"asarray: argument 'obj' got list .*expected "
                                            r"dask arrays of NumPy chunks beside its masked ones"):
            xp.asarray([d1, other])


def test_dask_asarray_of_a_list_of_0d_masked_chunks_is_numpys_conversion():
    # the innermost level of a list is not looked at, as on the NumPy backend (whose
    # asarray([m0, 1.0]) of 0-D numpy.ma items is NumPy's conversion), whatever the order
    d0 = da.ma.masked_array(np.asarray(9.0), mask=True)
    m1, _ = _items()
    for obj in ([d0, 1.0], [1.0, d0], [d0, d0]):
        with xp.use_backend("dask"):
            got = xp.asarray(obj)
        assert not isinstance(got._meta, np.ma.MaskedArray)
    with pytest.warns(UserWarning, match="masked element to nan"):
        assert type(xp.asarray([np.ma.masked_array(9.0, mask=True), 1.0])) is np.ndarray
    calls = []
    plain = da.from_array(np.array([5.0, 6.0]), chunks=1).map_blocks(
        lambda b: calls.append(1) or b, dtype=np.float64, meta=np.empty((0,)))
    for obj in ([m1, [d0, 1]], [m1, plain], [[m1, [d0, 1]]]):
        # a masked result (a numpy.ma item) with dask items: stacked lazily, the
        # 0-D item's mask kept too, as numpy.ma keeps a masked element's
        with xp.use_backend("dask"):
            got = xp.asarray(obj)
        assert isinstance(got._meta, np.ma.MaskedArray) and calls == []
    assert got.compute().mask.tolist() == [[[False, True], [True, False]]]
    with xp.use_backend("dask"):
        got = xp.asarray([m1, [d0, 1]]).compute()
    assert got.mask.tolist() == [[False, True], [True, False]]


def test_numpy_asarray_of_a_list_holding_masked_chunks_stacks_their_masks():
    # NumPy's conversion computed each dask item into its data alone (masks dropped)
    d1 = da.ma.masked_array(np.array([1.0, 2.0]), mask=[False, True]).rechunk(1)
    d2 = da.ma.masked_array(np.array([3, 4], np.int32), mask=[True, False])
    m = np.ma.masked_array([7.0, 8.0], mask=[True, False])
    cases = [
        ([d1, d2], [[False, True], [True, False]]),
        ((d1, m), [[False, True], [True, False]]),
        ([d1, [5, 6], np.ones(2)], [[False, True], [False, False], [False, False]]),
        ([[d1], [d2]], [[[False, True]], [[True, False]]]),
    ]
    for obj, mask in cases:
        with xp.use_backend("numpy"):
            got = xp.asarray(obj)
            typed = xp.asarray(obj, dtype=xp.float32)
        assert isinstance(got, np.ma.MaskedArray) and got.dtype == np.float64
        assert got.mask.tolist() == typed.mask.tolist() == mask
        assert typed.dtype == np.float32
        kept = ~np.asarray(mask)
        assert got.data[kept].tolist() == np.asarray(obj)[kept].tolist()


@pytest.mark.parametrize("convert", [
    xp.to_numpy,
    lambda a: xp.to_device(a, "numpy"),
    lambda a: xp.to_device(a, "cpu"),
    lambda a: xp.to_numpy(xp.to_device(a, "dask")),
])
def test_to_numpy_and_to_device_of_a_list_of_masked_arrays_keep_the_masks(convert):
    """A new-user probe: ``to_numpy([m, m])`` made NumPy's array of the items' data
    alone (``sum`` 12.0 where ``asarray([m, m]).sum()`` is 8.0)."""
    m = np.ma.masked_array([1.0, 2.0, 3.0], mask=[0, 1, 0])
    got = convert([m, m])
    assert np.ma.isMaskedArray(got)
    np.testing.assert_array_equal(np.ma.getmaskarray(got), [[0, 1, 0], [0, 1, 0]])
    assert float(got.sum()) == 8.0
