"""``count_nonzero`` of ``numpy.ma`` arrays (NumPy backend) and of masked dask chunks:
masked elements are not counted, and a selection all masked counts 0, an integer, as a
plain array's count does (numpy.ma's own gave its masked constant, a float64)."""

import numpy as np
import pytest

import xstride as xp

CASES = [
    (np.ma.array([1, 2], mask=[1, 1]), None, 0),
    (np.ma.array([1, 0, 2, 3], mask=[1, 0, 0, 1]), None, 1),
    (np.ma.array([[1, 0], [2, 3]], mask=[[0, 0], [1, 1]]), 0, [1, 0]),
    (np.ma.array([[1, 2], [3, 4]], mask=True), 1, [0, 0]),
    (np.ma.array(np.zeros((0, 3))), 0, [0, 0, 0]),
]


def _on(backend, m):
    if backend == "numpy":
        return m
    import dask.array as da

    return da.from_array(m, chunks=1)


@pytest.mark.parametrize("backend", ["numpy", "dask"])
@pytest.mark.parametrize("m, axis, expected", CASES)
@pytest.mark.parametrize("keepdims", [False, True])
def test_masked_elements_are_not_counted(backend, m, axis, expected, keepdims):
    with xp.use_backend(backend):
        r = xp.count_nonzero(_on(backend, m), axis=axis, keepdims=keepdims)
        got = xp.to_numpy(r)
    assert not np.ma.isMaskedArray(got) and got is not np.ma.masked
    assert got.dtype.kind == "i", got.dtype
    want = np.count_nonzero(np.ma.filled(m != 0, False), axis=axis, keepdims=keepdims)
    assert np.array_equal(got, want) and np.array_equal(np.squeeze(got), expected)


def test_the_count_of_a_masked_array_has_a_plain_arrays_type():
    m = np.ma.array([1, 0, 2], mask=[0, 0, 1])
    assert type(xp.count_nonzero(m)) is type(xp.count_nonzero(np.array([1, 0, 0])))
