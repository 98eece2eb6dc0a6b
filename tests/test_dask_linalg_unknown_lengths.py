"""The dask backend's linear algebra on arrays of lengths dask does not know (after
boolean indexing): a named error where a function needs them, else the NumPy backend's
answer (split from tests/test_dask_linalg.py)."""

from __future__ import annotations

import numpy as np
import pytest

da = pytest.importorskip("dask.array")

import xstride as xp  # noqa: E402
from tests.test_dask_conformance import _numpy_after  # noqa: E402,F401  (autouse fixture)


def _unknown_last(a):
    """``a`` as a dask array whose last axis has lengths dask does not know."""
    x = da.from_array(a, chunks=2)
    return x[..., da.ones(a.shape[-1], dtype=bool, chunks=2)]


@pytest.mark.parametrize("name", ["inv", "det", "cholesky", "eigh", "eigvalsh", "eig",
                                  "eigvals", "slogdet", "svdvals", "svd", "qr", "pinv",
                                  "matrix_rank", "matrix_norm"])
def test_matrices_of_unknown_lengths_say_so(name):
    """A matrix axis of lengths dask does not know (after boolean indexing): the square
    functions said "expected a stack of square matrices" of a square matrix, the others
    raised dask's unnamed "Array chunk sizes are unknown"; now one error naming the
    function and compute_chunk_sizes()."""
    x = _unknown_last(np.eye(3)[None].repeat(2, axis=0))
    with pytest.raises(ValueError, match=rf"^{name}: argument 'x' has shape \(2, 3, nan\), "
                                         "with lengths dask does not know .* "
                                         r"x.compute_chunk_sizes\(\) first"):
        getattr(xp.linalg, name)(x)


def test_solve_of_unknown_lengths_says_so():
    a = np.eye(3)[None].repeat(4, axis=0)
    x = da.from_array(a, chunks=(2, 3, 3))
    stack = x[x[:, 0, 0] > 0]   # (nan, 3, 3): the stacks cannot be broadcast
    with pytest.raises(ValueError, match=r"^solve: argument 'x1' has shape \(nan, 3, 3\), "
                                         "with lengths dask does not know"):
        xp.linalg.solve(stack, x)
    with pytest.raises(ValueError, match=r"^solve: argument 'x2' has shape \(4, 3, nan\)"):
        xp.linalg.solve(x, _unknown_last(a))


@pytest.mark.parametrize("axis", [-1, 0])
def test_cross_of_unknown_lengths_says_so(axis):
    """Lengths dask does not know (after boolean indexing) in a cross operand: NumPy's
    broadcast_shapes raised "'float' object cannot be interpreted as an integer" (a
    TypeError naming no argument); now the ValueError naming it and compute_chunk_sizes."""
    a = np.arange(18.0).reshape(6, 3)
    x = da.from_array(a, chunks=2)
    rows = x[x[:, 0] > -1]   # (nan, 3)
    for x1, x2, name in ((rows, x, "x1"), (x, rows, "x2")):
        with pytest.raises(ValueError, match=rf"^cross: argument '{name}' has shape "
                                             r"\(nan, 3\), with lengths dask does not "
                                             r"know .*\.compute_chunk_sizes\(\) first"):
            xp.linalg.cross(x1, x2, axis=axis)
    rows.compute_chunk_sizes()
    got = xp.to_numpy(xp.linalg.cross(rows, x[::-1]))
    np.testing.assert_array_equal(got, np.cross(a, a[::-1]))


@pytest.mark.parametrize("axis, keepdims", [(None, True), (1, True), (0, True), ((1,), False),
                                            ((0,), False), ((0, 2), True), ((2, 0, 1), False)])
@pytest.mark.parametrize("ord", [2, 1, 0, np.inf, -np.inf, 3])
@pytest.mark.parametrize("dtype", [np.float32, np.complex64, np.int32])
def test_vector_norm_of_unknown_lengths_with_keepdims_or_a_tuple_axis(axis, keepdims, ord,
                                                                      dtype):
    """Rows selected by a boolean mask (lengths dask does not know): with keepdims or a
    tuple axis, compat's reshapes raised "cannot convert float NaN to integer"; now the
    NumPy backend's norm, shape and dtype."""
    rng = np.random.default_rng(18)
    a = (rng.standard_normal((6, 3, 2)) * 3).astype(dtype)
    a[0, 0, 0] = 0
    x = da.from_array(a, chunks=2)
    rows = x[da.from_array(np.ones(6, dtype=bool), chunks=2)]   # (nan, 3, 2)
    got = xp.linalg.vector_norm(rows, axis=axis, keepdims=keepdims, ord=ord)
    want = xp.linalg.vector_norm(a, axis=axis, keepdims=keepdims, ord=ord)
    assert got.dtype == want.dtype
    got = got.compute()
    assert (got.shape, got.dtype) == (np.shape(want), want.dtype)
    np.testing.assert_allclose(got, want, rtol=1e-5)


@pytest.mark.parametrize("ord", [2, -2, "nuc", "fro", 1])
def test_matrix_norm_keepdims_of_a_stack_of_unknown_length(ord):
    """The spectral and nuclear norms with keepdims of a stack selected by a boolean mask
    (a stack length dask does not know): expand_dims raised "cannot convert float NaN to
    integer"."""
    a = np.random.default_rng(19).standard_normal((6, 3, 4))
    x = da.from_array(a, chunks=(2, 3, 4))
    stack = x[da.from_array(np.ones(6, dtype=bool), chunks=2)]   # (nan, 3, 4)
    got = xp.linalg.matrix_norm(stack, ord=ord, keepdims=True).compute()
    want = xp.linalg.matrix_norm(a, ord=ord, keepdims=True)
    assert got.shape == want.shape == (6, 1, 1)
    np.testing.assert_allclose(got, want)


def _rows_kept(a, keep):
    x = da.from_array(a, chunks=(1,) + a.shape[1:])
    return x[da.from_array(np.array(keep), chunks=1)]


@pytest.mark.parametrize("call, name, where", [
    (lambda w, v: xp.tensordot(v, v, axes=1), "x2", r"axis 0, contracted with axis 2 of x1 "
                                                    r"\(length 1\)"),
    (lambda w, v: xp.tensordot(w, v, axes=([0], [0])), "x2", "axis 0, contracted with axis 0 "
                                                             r"of x1 \(length 2\)"),
    (lambda w, v: xp.linalg.tensordot(v, w, axes=([0], [0])), "x1",
     r"axis 0, contracted with axis 0 of x2 \(length 2\)"),
    (lambda w, v: xp.matmul(da.ones((3, 4)), v[..., 0]), "x2",
     r"axis 0, contracted with axis 1 of x1 \(length 4\)"),
    (lambda w, v: xp.linalg.matmul(da.ones(4), v[..., 0]), "x2",
     r"axis 0, contracted with axis 0 of x1 \(length 4\)"),
    (lambda w, v: xp.matmul(xp.permute_dims(v[..., 0], (1, 0)), da.ones((2, 3))), "x1",
     r"axis 1, contracted with axis 0 of x2 \(length 2\)"),
])
def test_a_contracted_axis_of_one_unknown_length_says_so(call, name, where):
    """A contracted axis whose length dask does not know, paired with one it knows:
    ``tensordot`` raised "shape-mismatch for sum" when computed and ``matmul`` "Chunks
    must be unchanging along dimensions with missing values", naming no argument; now
    a ``ValueError`` at the call naming the array and compute_chunk_sizes()."""
    w = da.from_array(np.arange(8.0).reshape(2, 4, 1), chunks=(1, 4, 1))
    v = _rows_kept(np.arange(8.0).reshape(2, 4, 1), [True, False])
    with pytest.raises(ValueError, match=rf"argument '{name}' has shape .*: its {where}, has "
                                         "a length dask does not know .* call "
                                         rf"{name}\.compute_chunk_sizes\(\) first$"):
        call(w, v)


def test_contracted_axes_both_unknown_or_both_known_still_run():
    a = np.arange(24.0).reshape(4, 3, 2)
    keep = [True, False, True, True]
    v = _rows_kept(a, keep)
    got = xp.to_numpy(xp.tensordot(v, v, axes=([0], [0])))
    np.testing.assert_allclose(got, np.tensordot(a[keep], a[keep], axes=([0], [0])))
    m = v[:, :, 0]                      # (nan, 3)
    got = xp.to_numpy(xp.matmul(m, da.ones((3, 2))))
    np.testing.assert_allclose(got, a[keep][:, :, 0] @ np.ones((3, 2)))


@pytest.mark.parametrize("axis", [-1, 0, None, (0, 1)])
@pytest.mark.parametrize("ord", [np.inf, -np.inf, 1, 2, 0, 3])
@pytest.mark.parametrize("keepdims", [False, True])
def test_vector_norm_after_a_mask_that_empties_a_block(axis, ord, keepdims):
    """A new-user probe: rows a boolean mask left none of in a block: compat's max of
    that block raised "zero-size array to reduction operation maximum" (ord +-inf over
    the rows' own axis), its concatenation another error over axis 0; every norm of
    unknown lengths is now xstride's reductions over the axes."""
    a = np.array([[1., -2.], [3., 4.]])
    rows = da.from_array(a, chunks=1)[da.from_array(np.array([True, False]), chunks=1)]
    got = xp.linalg.vector_norm(rows, axis=axis, ord=ord, keepdims=keepdims).compute()
    want = np.linalg.vector_norm(a[:1], axis=axis, ord=ord, keepdims=keepdims)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want)


@pytest.mark.parametrize("ord", [1, -1, np.inf, -np.inf, "fro", 2, -2, "nuc"])
@pytest.mark.parametrize("keepdims", [False, True])
def test_matrix_norm_and_rank_after_a_mask_that_empties_a_block(ord, keepdims):
    """A new-user probe: a stack a boolean mask left no matrix of in a block: ord 1, -1,
    +-2 and ``matrix_rank`` raised "zero-size array to reduction operation maximum", ord
    +-inf dask's "Array chunk size or shape is unknown"."""
    a = np.stack([2 * np.eye(2), np.eye(2)])
    a[0, 0, 1] = -3.0
    stack = da.from_array(a, chunks=1)[da.from_array(np.array([True, False]), chunks=1)]
    got = xp.linalg.matrix_norm(stack, ord=ord, keepdims=keepdims).compute()
    want = np.linalg.matrix_norm(a[:1], ord=ord, keepdims=keepdims)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want)
    assert xp.linalg.matrix_rank(stack).compute().tolist() == [2]


@pytest.mark.parametrize("func, args, text", [
    ("inv", lambda z: (z,), "Singular matrix"),
    ("solve", lambda z: (z, z), "Singular matrix"),
    ("matrix_power", lambda z: (z, -1), "Singular matrix"),
    ("cholesky", lambda z: (z,), "Matrix is not positive definite"),
])
def test_a_singular_matrix_is_named_by_its_function_on_dask(func, args, text):
    """A new-user probe: a block's ``LinAlgError`` was the library's bare "Singular
    matrix" when computed; the NumPy backend's says "inv: Singular matrix"."""
    z = np.zeros((2, 2, 2))
    for backend_args in (args(z), args(da.from_array(z, chunks=1))):
        with pytest.raises(np.linalg.LinAlgError, match=rf"^{func}: {text}"):
            out = getattr(xp.linalg, func)(*backend_args)
            getattr(out, "compute", lambda: out)()
