"""``linalg.vector_norm`` and ``linalg.matrix_norm`` of ``numpy.ma`` masked arrays: the
masked elements left out on the NumPy and dask backends alike (NumPy's read the data
under the mask, dask's per block left them out), a norm of elements all masked masked;
the norms of the singular values refuse a masked ``x`` on both."""

import math
import warnings

import dask.array as da
import numpy as np
import pytest

import xstride as xp

DATA = (np.arange(24.0).reshape(2, 3, 4) - 11) / 3
MASK = np.arange(24).reshape(2, 3, 4) % 5 == 1
MASK[1, 2] = True   # a row all masked


def _x(dtype="float64"):
    return np.ma.masked_array(DATA.astype(dtype) if dtype != "int32" else
                              (DATA * 3).astype(dtype), mask=MASK)


def _same(got_np, got_dask):
    got_dask = got_dask.compute()
    assert np.ma.getmaskarray(got_np).tolist() == np.ma.getmaskarray(got_dask).tolist()
    assert np.shape(got_np) == np.shape(got_dask)
    assert np.asarray(got_np).dtype == np.asarray(got_dask).dtype
    np.testing.assert_allclose(np.ma.filled(got_np, 0), np.ma.filled(got_dask, 0),
                               rtol=1e-5)


@pytest.mark.parametrize("dtype", ["float64", "float32", "int32", "complex64"])
@pytest.mark.parametrize("ord", [2, 1, 0, 3, -1, math.inf, -math.inf])
@pytest.mark.parametrize("axis", [None, -1, 1, (0, 2)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_vector_norm_of_masked_agrees_on_numpy_and_dask(dtype, ord, axis, keepdims):
    x = _x(dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)   # 1/0 of ord -1 at a zero
        got = xp.linalg.vector_norm(x, axis=axis, keepdims=keepdims, ord=ord)
        on_dask = xp.linalg.vector_norm(da.from_array(x, chunks=(1, 2, 3), asarray=False),
                                        axis=axis, keepdims=keepdims, ord=ord)
        _same(got, on_dask)


def test_vector_norm_of_masked_leaves_the_masked_elements_out():
    x = _x()
    got = xp.linalg.vector_norm(x, axis=-1)
    for i in range(2):
        for j in range(3):
            kept = x[i, j].compressed()
            if kept.size:
                assert got[i, j] == pytest.approx(np.sqrt(np.sum(kept * kept)))
            else:
                assert got.mask[i, j]
    assert xp.linalg.vector_norm(x, ord=math.inf) == np.abs(x.compressed()).max()
    assert xp.linalg.vector_norm(x, ord=0) == np.count_nonzero(x.compressed())


@pytest.mark.parametrize("ord", ["fro", 1, -1, math.inf, -math.inf])
@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("dtype", ["float64", "int32", "complex64"])
def test_matrix_norm_of_masked_agrees_on_numpy_and_dask(ord, keepdims, dtype):
    x = _x(dtype)
    got = xp.linalg.matrix_norm(x, keepdims=keepdims, ord=ord)
    on_dask = xp.linalg.matrix_norm(da.from_array(x, chunks=(1, 2, 3), asarray=False),
                                    keepdims=keepdims, ord=ord)
    _same(got, on_dask)
    assert np.shape(got) == ((2, 1, 1) if keepdims else (2,))


def test_matrix_norm_of_masked_leaves_the_masked_elements_out():
    x = _x()
    a = np.abs(x)
    fro = xp.linalg.matrix_norm(x)
    one = xp.linalg.matrix_norm(x, ord=1)
    inf = xp.linalg.matrix_norm(x, ord=-math.inf)
    for i in range(2):
        assert fro[i] == pytest.approx(np.sqrt(np.sum(x[i].compressed() ** 2)))
        assert one[i] == pytest.approx(a[i].sum(axis=0).max())
        assert inf[i] == pytest.approx(a[i].sum(axis=1).min())   # the masked row left out


@pytest.mark.parametrize("ord", [2, -2, "nuc"])
def test_matrix_norm_of_masked_by_singular_values_raises(ord):
    x = _x()
    with pytest.raises(TypeError, match=r"matrix_norm: argument 'x'.*x\.filled\(0\)"):
        xp.linalg.matrix_norm(x, ord=ord)
    with pytest.raises(TypeError, match=r"matrix_norm: argument 'x'.*ma\.filled\(x, 0\)"):
        xp.linalg.matrix_norm(da.from_array(x, chunks=2, asarray=False), ord=ord)


def test_norms_of_unmasked_arrays_unchanged():
    assert xp.linalg.vector_norm(DATA) == pytest.approx(np.linalg.norm(DATA.ravel()))
    assert xp.linalg.matrix_norm(DATA, ord=2).tolist() == pytest.approx(
        np.linalg.norm(DATA, ord=2, axis=(-2, -1)).tolist())
