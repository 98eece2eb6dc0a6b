"""The dask backend's ``linalg.vector_norm`` and ``linalg.matrix_norm``
(xstride/_backends/dask_norms.py): stacks and blocked matrices, integers and bools as
floats, norms of no element as NumPy's, ord and axis checked (split from
tests/test_dask_linalg.py, past 600 lines)."""

from __future__ import annotations

import numpy as np
import pytest

da = pytest.importorskip("dask.array")

import xstride as xp  # noqa: E402
from tests.test_dask_conformance import _numpy_after  # noqa: E402,F401  (autouse fixture)


@pytest.mark.parametrize("shape, chunks", [((2, 3, 4), 2), ((5, 6), 2), ((5, 6), -1)])
@pytest.mark.parametrize("ord", [2, -2, "nuc", "fro", 1, np.inf])
def test_matrix_norm_of_stacks_and_blocked_matrices(shape, chunks, ord):
    """The spectral and nuclear norms from svdvals (dask's refused stacks and matrices
    chunked on both axes); the others dask's; keepdims both ways."""
    a = np.random.default_rng(7).standard_normal(shape)
    for keepdims in (False, True):
        with xp.use_backend("dask", chunks=chunks):
            got = xp.to_numpy(xp.linalg.matrix_norm(xp.asarray(a), ord=ord, keepdims=keepdims))
        want = xp.linalg.matrix_norm(a, ord=ord, keepdims=keepdims)
        assert got.shape == np.shape(want)
        np.testing.assert_allclose(got, want, rtol=1e-12)


@pytest.mark.parametrize("dtype", [np.int16, np.bool_, np.uint8, np.float32])
@pytest.mark.parametrize("norm, ord", [("vector_norm", 1), ("vector_norm", np.inf),
                                       ("vector_norm", 0), ("vector_norm", 2),
                                       ("matrix_norm", 1), ("matrix_norm", -np.inf),
                                       ("matrix_norm", "fro")])
def test_norms_of_integers_and_bools_are_floats(norm, ord, dtype):
    """NumPy's norms cast integers and bools to float64; dask's of ord 1, inf, 0 (and
    matrix_norm's 1, inf) stayed int64."""
    a = np.arange(-6, 18).reshape(2, 3, 4).astype(dtype)
    with xp.use_backend("dask", chunks=2):
        x = xp.asarray(a)
    fn = getattr(xp.linalg, norm)
    got = fn(x, ord=ord)
    want = fn(a, ord=ord)                         # the NumPy backend
    h = xp.to_numpy(got)
    assert got.dtype == h.dtype == want.dtype
    np.testing.assert_allclose(h, want, rtol=1e-6)


@pytest.mark.parametrize("shape", [(3, 0), (0, 3), (2, 3, 0)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_spectral_norm_of_matrices_of_no_element(shape, keepdims):
    """matrix_norm(ord=2) of matrices of no element is NumPy's 0 (dask's max of no
    singular value raised "zero-size array to reduction operation maximum")."""
    a = np.zeros(shape)
    with xp.use_backend("dask", chunks=2):
        x = xp.asarray(a)
    got = xp.to_numpy(xp.linalg.matrix_norm(x, ord=2, keepdims=keepdims))
    want = np.linalg.matrix_norm(a, ord=2, keepdims=keepdims)
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


def _norm_or_error(fn, a, **kw):
    try:
        out = fn(a, **kw)
    except ValueError:
        return ValueError
    return xp.to_numpy(out)


@pytest.mark.parametrize("chunks", [1, -1])
@pytest.mark.parametrize("keepdims", [False, True])
def test_max_and_min_norms_of_no_element_are_numpys(chunks, keepdims):
    """vector_norm with ord +-inf and matrix_norm with ord +-1, +-inf, +-2 over axes of
    no element: NumPy's 0 for a maximum, its ValueError for a minimum, an empty result
    for a stack of no matrix. dask's computed another shape than it declared ((0,) for
    (3,); "cannot reshape array of size 0" with keepdims), or raised unnamed "zero-size
    array to reduction operation" and "Array chunk size or shape is unknown" when
    computed."""
    vectors = [((0, 3), 0), ((0, 3), 1), ((0, 3), None), ((3, 0), 1), ((2, 0, 3), (0, 1)),
               ((2, 0, 3), 2), ((0,), None)]
    for shape, axis in vectors:
        a = np.zeros(shape)
        x = da.from_array(a, chunks=chunks)
        for o in (np.inf, -np.inf):
            want = _norm_or_error(np.linalg.vector_norm, a, axis=axis, ord=o, keepdims=keepdims)
            if want is ValueError:
                with pytest.raises(ValueError, match="^vector_norm: argument 'x' has shape"):
                    xp.linalg.vector_norm(x, axis=axis, ord=o, keepdims=keepdims)
                continue
            got = xp.linalg.vector_norm(x, axis=axis, ord=o, keepdims=keepdims)
            assert got.shape == want.shape, (shape, axis, o)
            assert xp.to_numpy(got).shape == want.shape and got.dtype == want.dtype
            np.testing.assert_array_equal(xp.to_numpy(got), want)
    for shape in ((0, 3), (3, 0), (0, 0), (2, 0, 3), (0, 3, 3), (0, 2, 0)):
        a = np.zeros(shape)
        x = da.from_array(a, chunks=chunks)
        for o in (1, -1, np.inf, -np.inf, 2, -2):
            want = _norm_or_error(np.linalg.matrix_norm, a, ord=o, keepdims=keepdims)
            if want is ValueError:
                with pytest.raises(ValueError, match="^matrix_norm: argument 'x' has shape"):
                    xp.linalg.matrix_norm(x, ord=o, keepdims=keepdims)
                continue
            got = xp.linalg.matrix_norm(x, ord=o, keepdims=keepdims)
            assert got.shape == want.shape, (shape, o)
            assert xp.to_numpy(got).shape == want.shape and got.dtype == want.dtype
            np.testing.assert_array_equal(xp.to_numpy(got), want)


@pytest.mark.parametrize("backend", ["numpy", "dask"])
def test_vector_norm_checks_ord_and_axis(backend):
    """dask's vector_norm raised a TypeError from ``**`` for ord='bad', took ord=1j and
    returned a complex norm, and took axis=[0, 1] as a matrix norm ("SVD based norm not
    implemented"); NumPy's raised a casting error for 1j. One check on both."""
    a = np.ones((2, 3, 4))
    x = a if backend == "numpy" else da.from_array(a, chunks=1)
    for ord in ("bad", "fro", 1j, b"2", [2]):
        with pytest.raises(ValueError, match="^vector_norm: argument 'ord' is"):
            xp.linalg.vector_norm(x, ord=ord)
    with pytest.raises(TypeError, match="^vector_norm: argument 'axis' got list"):
        xp.linalg.vector_norm(x, axis=[0, 1])
    for ord in (None, 1, 0.5, np.float32(3), -np.inf, np.int64(2)):
        np.testing.assert_allclose(xp.to_numpy(xp.linalg.vector_norm(x, axis=(0, 1), ord=ord)),
                                   np.linalg.vector_norm(a, axis=(0, 1), ord=2 if ord is None else ord))
