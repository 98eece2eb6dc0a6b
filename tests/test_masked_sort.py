"""``sort`` and ``argsort`` of ``numpy.ma`` masked arrays: the masked elements last in
both directions, after the NaNs, in their order, on the NumPy and dask backends alike
(the descending sort put them first: numpy.ma's order reversed; ascending they were
among the NaNs by index)."""

import dask.array as da
import numpy as np
import pytest

import xstride as xp

NAN = float("nan")
X = np.ma.masked_array([3.0, 1.0, NAN, 2.0, 5.0, 0.0, -0.0, 7.0],
                       mask=[0, 1, 0, 0, 1, 0, 0, 1])


def _on_dask(x, chunks=3):
    return da.from_array(x, chunks=chunks, asarray=False)


@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("backend", ["numpy", "dask"])
def test_argsort_of_masked_puts_the_masked_last(descending, backend):
    x = X if backend == "numpy" else _on_dask(X)
    got = xp.argsort(x, descending=descending)
    got = np.asarray(got.compute() if backend == "dask" else got)
    want = [5, 6, 3, 0, 2] if not descending else [2, 0, 3, 5, 6]
    assert got.tolist() == want + [1, 4, 7]


@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("backend", ["numpy", "dask"])
def test_sort_of_masked_puts_the_masked_last(descending, backend):
    x = X if backend == "numpy" else _on_dask(X)
    got = xp.sort(x, descending=descending)
    got = got.compute() if backend == "dask" else got
    assert isinstance(got, np.ma.MaskedArray)
    assert got.mask.tolist() == [False] * 5 + [True] * 3
    vals = got.data[:5]
    want = np.array([0.0, -0.0, 2.0, 3.0, NAN] if not descending
                    else [NAN, 3.0, 2.0, 0.0, -0.0])
    np.testing.assert_array_equal(vals, want)
    assert np.signbit(vals).tolist() == np.signbit(want).tolist()   # equal ones in order
    assert got.data[5:].tolist() == [1.0, 5.0, 7.0]   # the masked in their order


@pytest.mark.parametrize("axis", [0, 1, -1, None])
@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("dtype", ["int16", "float32", "bool"])
def test_sort_of_masked_agrees_on_numpy_and_dask(axis, descending, dtype):
    rng = np.random.default_rng(7)
    x = np.ma.masked_array(rng.integers(-3, 4, (5, 6)).astype(dtype),
                           mask=rng.random((5, 6)) < 0.3)
    x[0, 0] = np.iinfo(np.int16).max if dtype == "int16" else x[0, 0]
    x.mask[0, 1] = True
    for func in (xp.sort, xp.argsort):
        got = func(x, axis=axis, descending=descending)
        on_dask = func(_on_dask(x, (2, 4)), axis=axis, descending=descending).compute()
        assert np.ma.getdata(got).tolist() == np.ma.getdata(on_dask).tolist()
        assert np.ma.getmaskarray(got).tolist() == np.ma.getmaskarray(on_dask).tolist()
    idx = xp.argsort(x, axis=axis, descending=descending)
    flat = x.reshape(-1) if axis is None else x
    ax = -1 if axis is None else axis
    picked = np.take_along_axis(np.ma.getmaskarray(flat), np.asarray(idx), axis=ax)
    # along the axis: every unmasked element before every masked one
    assert (np.diff(picked.astype(int), axis=ax) >= 0).all()
    assert (xp.sort(x, axis=axis, descending=descending).mask == picked).all()


def test_sort_of_masked_positional_and_keeps_the_fill_value():
    x = np.ma.masked_array([2, 1, 3], mask=[0, 1, 0], fill_value=-7)
    got = xp.sort(x)
    assert got.fill_value == -7 and got.data.tolist()[:2] == [2, 3] and got.mask[2]
    assert xp.argsort(x).tolist() == [0, 2, 1]
