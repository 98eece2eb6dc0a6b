"""The dask backend's linear algebra (``matmul``, ``tensordot``, ``vecdot``, ``xp.linalg``):
the fixes found by the array API conformance suite (docs/conformance.md, "dask
backend") and by probing, on dask's local threads; the other namespace functions:
tests/test_dask_conformance.py."""

from __future__ import annotations

import re

import numpy as np
import pytest

da = pytest.importorskip("dask.array")

import xstride as xp  # noqa: E402
from tests.test_dask_conformance import _numpy_after  # noqa: E402,F401  (autouse fixture)


# --------------------------------------------------------------------- linear algebra
@pytest.mark.parametrize("s1, s2", [
    ((2, 3), (1, 3)), ((3,), (2, 4)), ((2, 2, 1, 3), (3, 3, 3, 2)), ((3,), ()), ((), (3,)),
])
@pytest.mark.parametrize("name", ["matmul", "linalg.matmul"])
def test_matmul_refuses_what_the_standard_refuses(s1, s2, name):
    """dask multiplies an inner dimension of length 1 into any other and broadcasts
    nothing-matching stacks without an error; the standard asks for one."""
    fn = xp.linalg.matmul if name == "linalg.matmul" else xp.matmul
    with xp.use_backend("dask"):
        x1, x2 = xp.ones(s1), xp.ones(s2)
    with pytest.raises(ValueError, match=r"matmul: .*(0-D|contracted dimension|broadcast)"):
        fn(x1, x2)


@pytest.mark.parametrize("s1, s2", [((2, 3), (3, 4)), ((3,), (3,)), ((4, 1, 2, 3), (5, 3, 2)),
                                    ((3,), (2, 3, 4))])
def test_matmul_of_valid_shapes_equals_numpy(s1, s2):
    rng = np.random.default_rng(0)
    a, b = rng.integers(-4, 5, s1), rng.integers(-4, 5, s2)
    with xp.use_backend("dask", chunks=2):
        got = xp.matmul(xp.asarray(a), xp.asarray(b))
    np.testing.assert_array_equal(xp.to_numpy(got), np.matmul(a, b))


@pytest.mark.parametrize("d1, d2", [(np.uint32, np.uint16), (np.int8, np.int8),
                                    (np.float32, np.float32), (np.int16, np.uint8)])
@pytest.mark.parametrize("axes", [0, 1, ((), ())])
def test_tensordot_has_the_promoted_dtype(d1, d2, axes):
    """dask sums the blocks' products in sum's default dtype (uint32 . uint16 ->
    uint64); the standard's dtype is the promoted one, with NumPy's values."""
    a = np.array([100, 3, 7], dtype=d1)
    b = np.array([120, 2, 9], dtype=d2)
    if axes == ((), ()):
        b = b[:1].reshape(())
    with xp.use_backend("dask", chunks=2):
        x1, x2 = xp.asarray(a), xp.asarray(b)
    for fn in (xp.tensordot, xp.linalg.tensordot):
        got = fn(x1, x2, axes=axes)
        with np.errstate(over="ignore"):
            want = np.tensordot(a, b, axes=axes)
        assert got.dtype == np.result_type(d1, d2)
        np.testing.assert_array_equal(xp.to_numpy(got), want.astype(got.dtype))


@pytest.mark.parametrize("chunks", [1, 2, "auto"])
@pytest.mark.parametrize("axes", [([-2, -1], [0, 1]), ([-1, -2], [1, 0]), ([1, -1], [-2, 1]),
                                  ([2, 1], [-1, 0]), ([-1], [0]), (-1, 0), ((2,), (-2,))])
def test_tensordot_negative_axes(chunks, axes):
    """dask's tensordot contracted the wrong axes for two or more negative ones:
    ``axes=([-2, -1], [0, 1])`` of a (2, 3, 4) and a (3, 4) array gave shape (1,) where
    NumPy's is (2,). The axes are made non-negative before dask is called."""
    a = np.arange(24.).reshape(2, 3, 4)
    b = np.arange(12.).reshape(3, 4) if len(np.atleast_1d(axes[0])) == 2 else np.arange(8.).reshape(4, 2)
    with xp.use_backend("dask", chunks=chunks):
        x1, x2 = xp.asarray(a), xp.asarray(b)
    want = np.tensordot(a, b, axes=axes)
    for fn in (xp.tensordot, xp.linalg.tensordot):
        got = fn(x1, x2, axes=axes)
        assert got.shape == want.shape
        np.testing.assert_array_equal(xp.to_numpy(got), want)


@pytest.mark.parametrize("backend", ["numpy", "dask"])
@pytest.mark.parametrize("s1, s2, axes, cls, match", [
    ((2, 3, 4), (2, 4, 5), 1, ValueError, "contracts axis 2 of x1 .* \\(length 4\\) with axis 0"),
    ((2, 1), (3, 2), ([1], [0]), ValueError, "lengths must be equal \\(not broadcast\\)"),
    ((2, 3, 4), (4, 5), -1, ValueError, "is -1; expected a count of axes from 0 to 2"),
    ((2, 3, 4), (4, 5), 3, ValueError, "is 3; expected a count"),
    ((2, 3, 4), (4, 5), True, TypeError, "got bool True"),
    ((2, 3, 4), (4, 5), 1.0, TypeError, "got float 1.0"),
    ((2, 3, 4), (4, 4), ([2, 2], [0, 1]), ValueError, "an axis of x1 is named twice"),
    ((2, 3, 4), (4, 5), ([5], [0]), np.exceptions.AxisError,
     r"is \(\[5\], \[0\]\): the axis 5 is out of range for x1"),
    ((2, 3, 4), (4, 5), ([2], [0, 1]), ValueError, "must have the same length"),
])
def test_tensordot_axes_are_checked_first(backend, s1, s2, axes, cls, match):
    """NumPy took axes=-1 and True and raised a bare "tuple index out of range" past the
    ranks; dask said "('Chunks do not add up to same value', ...)" for contracted lengths
    that differ, broadcast a length 1 silently, and raised an AttributeError for an axis
    named twice. Both now raise one error naming tensordot and axes."""
    a, b = np.ones(s1), np.ones(s2)
    if backend == "dask":
        a, b = da.from_array(a, chunks=1), da.from_array(b, chunks=1)
    for fn in (xp.tensordot, xp.linalg.tensordot):
        with pytest.raises(cls, match=f"^tensordot: argument 'axes' {'.*' if cls is ValueError else ''}{match}"):
            fn(a, b, axes=axes)
    good = xp.tensordot(a, b, axes=([-1], [0])) if s1[-1] == s2[0] else None
    if good is not None:
        assert good.shape == np.tensordot(np.ones(s1), np.ones(s2), axes=([-1], [0])).shape


@pytest.mark.parametrize("dtype", [np.float32, np.complex128, np.int8])
@pytest.mark.parametrize("axis", [0, -1])
def test_vecdot_of_unknown_lengths(dtype, axis):
    """Arrays after boolean indexing (lengths dask does not know): compat's vecdot said
    "x1 and x2 must have the same size along the given axis" (nan != nan) or failed to
    broadcast (nan, 2) to (nan, 2); NumPy's values in the promoted dtype."""
    a = (np.arange(12).reshape(6, 2) * 7).astype(dtype)
    if dtype == np.complex128:
        a = a + 1j * a[::-1]
    with xp.use_backend("dask", chunks=2):
        x = xp.asarray(a)
    y = x[xp.real(x[:, 0]) > 1]
    assert y.shape[0] != y.shape[0]
    got = xp.vecdot(y, y, axis=axis)
    want = np.vecdot(a[1:], a[1:], axis=axis)
    h = xp.to_numpy(got)
    assert got.dtype == h.dtype == want.dtype
    np.testing.assert_allclose(h, want, rtol=1e-6)


# dask's tall-and-skinny QR of a complex (0, 3) matrix casts a complex meta to real
@pytest.mark.filterwarnings("ignore:Casting complex values to real")
@pytest.mark.parametrize("shape", [(4, 3), (3, 5), (2, 3, 4, 4), (1, 1), (0, 3), (2, 0, 3)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64])
def test_svdvals_and_matrix_rank_of_stacks(shape, dtype):
    """compat's svdvals asks dask's svd for full_matrices=True and its matrix_rank for
    compute_uv=False: both failed on every input. Each matrix is one chunk; the
    values are NumPy's, descending; the rank counts those above max(M, N) * eps."""
    rng = np.random.default_rng(1)
    a = rng.standard_normal(shape).astype(dtype)
    if a.ndim == 4:
        a[0, 1, :, 0] = a[0, 1, :, 1]   # one matrix of rank 3
    with xp.use_backend("dask", chunks=2):
        x = xp.asarray(a)
    s = xp.linalg.svdvals(x)
    want = np.linalg.svd(a, compute_uv=False)
    assert s.shape == want.shape and s.dtype == want.dtype
    np.testing.assert_allclose(xp.to_numpy(s), want, rtol=1e-4, atol=1e-5)
    r = xp.linalg.matrix_rank(x)
    want_r = (np.linalg.matrix_rank(a) if a.size else np.zeros(shape[:-2], np.int64))
    assert r.dtype == np.int64
    np.testing.assert_array_equal(xp.to_numpy(r), want_r)


@pytest.mark.parametrize("shape", [(0, 3, 2), (2, 0, 3, 3), (0, 0, 2)])
@pytest.mark.parametrize("rtol", [None, 0.1])
def test_matrix_rank_of_a_stack_of_no_matrix_is_empty(shape, rtol):
    """dask's maximum of the singular values of no matrix raised "zero-size array to
    reduction operation maximum which has no identity" when computed; NumPy's rank is
    an empty int64 array of the stack's shape."""
    a = np.ones(shape)
    with xp.use_backend("dask", chunks=2):
        x = xp.asarray(a)
    r = xp.linalg.matrix_rank(x, rtol=rtol)
    assert r.shape == shape[:-2] and r.dtype == np.int64
    got = xp.to_numpy(r)
    assert got.shape == shape[:-2] and got.dtype == np.int64
    assert xp.to_numpy(xp.linalg.matrix_rank(a, rtol=rtol)).shape == shape[:-2]


def test_matrix_rank_takes_rtol_and_svdvals_refuses_vectors():
    a = np.stack([np.ones((3, 3)), np.diag([1.0, 0.05, 1e-3])])
    with xp.use_backend("dask"):
        x = xp.asarray(a)
        per_matrix = xp.asarray(np.array([0.5, 0.01]))
        with pytest.raises(ValueError, match=r"svdvals: argument 'x' has shape \(3,\)"):
            xp.linalg.svdvals(xp.ones(3))
    assert xp.to_numpy(xp.linalg.matrix_rank(x, rtol=0.01)).tolist() == [1, 2]
    assert xp.to_numpy(xp.linalg.matrix_rank(x, rtol=per_matrix)).tolist() == [1, 2]
    assert xp.to_numpy(xp.linalg.matrix_rank(x)).tolist() == [1, 3]


def _stack(shape, seed=2):
    """Well-conditioned matrices (``a a.T + n I``: symmetric, positive definite)."""
    a = np.random.default_rng(seed).standard_normal(shape)
    n = shape[-1]
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n) if n else a


@pytest.mark.parametrize("shape", [(3, 3), (2, 3, 4, 4), (5, 1, 1), (0, 0), (2, 0, 0)])
@pytest.mark.parametrize("name, kw, sort", [
    ("cholesky", {}, False), ("cholesky", {"upper": True}, False), ("inv", {}, False),
    ("det", {}, False), ("eigvalsh", {}, False), ("eigvals", {}, True),
    ("matrix_power", {"n": 3}, False), ("matrix_power", {"n": -2}, False),
    ("matrix_power", {"n": 0}, False), ("pinv", {}, False), ("pinv", {"rtol": 0.3}, False),
])
def test_functions_of_one_matrix_run_per_matrix_of_a_chunked_stack(shape, name, kw, sort):
    """cholesky (dask: one 2-D matrix), inv (dask: SciPy and one 2-D matrix) and det,
    eigvalsh, eigvals, matrix_power, pinv (not in dask) give NumPy's values for stacks
    whose stack axes are chunked; the stack keeps its chunks."""
    a = _stack(shape)
    with xp.use_backend("dask", chunks=1):
        x = xp.asarray(a)
    args = (kw["n"],) if "n" in kw else ()
    opts = {k: v for k, v in kw.items() if k != "n"}
    got = getattr(xp.linalg, name)(x, *args, **opts)
    want = getattr(xp.linalg, name)(a, *args, **opts)   # the NumPy backend
    assert isinstance(got, da.Array) and got.shape == want.shape and got.dtype == want.dtype
    if 0 not in shape:   # a stack of no element is one block (dask_fixes.without_empty_chunks)
        assert got.chunks[:len(shape) - 2] == x.chunks[:-2]
    h = xp.to_numpy(got)
    if sort:
        h, want = np.sort_complex(h), np.sort_complex(want)
    np.testing.assert_allclose(h, want, rtol=1e-10, atol=1e-12)


def test_pinv_takes_a_tolerance_per_matrix():
    a = np.random.default_rng(3).standard_normal((2, 3, 4, 5))
    r = np.array([0.05, 0.3, 0.9])
    with xp.use_backend("dask", chunks=2):
        x, rtol = xp.asarray(a), xp.asarray(r)
    got = xp.linalg.pinv(x, rtol=rtol)
    assert got.shape == (2, 3, 5, 4)
    np.testing.assert_allclose(xp.to_numpy(got), np.linalg.pinv(a, rtol=r), atol=1e-12)


@pytest.mark.parametrize("backend", ["numpy", "dask"])
def test_pinv_of_integers_and_bools_is_float64_as_numpys(backend):
    """compat's pinv asked ``finfo`` of the integer dtype for its default ``rtol`` and
    raised "data type int64 not inexact" (NumPy's pinv gives float64)."""
    for a in (np.array([[[1, 2], [3, 4]], [[2, 0], [0, 0]]], dtype=np.int32),
              np.array([[[1, 1], [0, 1]], [[1, 0], [0, 0]]], dtype=bool)):
        with xp.use_backend(backend, **({"chunks": 1} if backend == "dask" else {})):
            x = xp.asarray(a)
        for kw in ({}, {"rtol": 0.1}):
            got = xp.linalg.pinv(x, **kw)
            assert got.dtype == np.float64 and got.shape == (2, 2, 2)
            np.testing.assert_allclose(xp.to_numpy(got), np.linalg.pinv(a, **kw), atol=1e-12)


@pytest.mark.parametrize("name, shape", [
    ("cholesky", (2, 3)), ("inv", (3,)), ("det", (2, 2, 3)), ("eigvalsh", (3, 2)),
    ("eigvals", (4,)), ("pinv", (3,)),
])
def test_functions_of_one_matrix_refuse_other_shapes(name, shape):
    with xp.use_backend("dask"):
        x = xp.ones(shape)
    with pytest.raises(ValueError, match=rf"{name}: argument 'x' has shape {re_shape(shape)}; "
                                         r"expected a stack of (square )?matrices"):
        getattr(xp.linalg, name)(x)


@pytest.mark.parametrize("n", [1.0, 2.5, "2", None])
def test_matrix_power_checks_n_at_the_call(n):
    """dask's matrix_power took a float ``n`` and raised NumPy's unnamed "exponent must
    be an integer" only when computed; NumPy's rule (operator.index) holds at the call."""
    x = da.from_array(np.eye(2), chunks=1)
    with pytest.raises(TypeError, match="^matrix_power: argument 'n' got"):
        xp.linalg.matrix_power(x, n)
    np.testing.assert_array_equal(xp.to_numpy(xp.linalg.matrix_power(x, np.int64(2))), np.eye(2))


def re_shape(shape) -> str:
    return str(tuple(shape)).replace("(", r"\(").replace(")", r"\)")


@pytest.mark.parametrize("shape", [(3, 3), (2, 3, 4, 4), (0, 0), (2, 0, 0)])
def test_functions_that_return_tuples_run_per_matrix(shape):
    """eigh, eig, slogdet (not in dask): named tuples of NumPy's values per matrix."""
    a = _stack(shape)
    with xp.use_backend("dask", chunks=1):
        x = xp.asarray(a)
    w, v = xp.linalg.eigh(x)
    W, V = np.linalg.eigh(a)
    assert type(xp.linalg.eigh(x)).__name__ == "EighResult"
    assert (w.shape, w.dtype, v.shape) == (W.shape, W.dtype, V.shape)
    np.testing.assert_allclose(xp.to_numpy(w), W, atol=1e-10)
    np.testing.assert_allclose(np.abs(xp.to_numpy(v)), np.abs(V), atol=1e-10)
    e = xp.linalg.eig(x)
    assert e.eigenvalues.dtype == e.eigenvectors.dtype == np.complex128
    np.testing.assert_allclose(np.sort_complex(xp.to_numpy(e.eigenvalues)),
                               np.sort_complex(np.linalg.eigvals(a)), atol=1e-10)
    sign, logabs = xp.linalg.slogdet(x)
    S, L = np.linalg.slogdet(a)
    assert sign.shape == S.shape == shape[:-2] and logabs.dtype == L.dtype
    np.testing.assert_allclose(xp.to_numpy(sign), S)
    np.testing.assert_allclose(xp.to_numpy(logabs), L, atol=1e-12)


@pytest.mark.parametrize("shape", [(3, 5), (2, 5, 3), (2, 4, 4), (0, 3)])
@pytest.mark.parametrize("complete", [False, True])
def test_qr_and_svd_take_the_standard_s_modes_for_stacks(shape, complete):
    """dask's qr takes mode='reduced' and its svd full_matrices=False, one 2-D matrix
    each; the standard's defaults are svd's full_matrices=True."""
    a = np.random.default_rng(4).standard_normal(shape)
    with xp.use_backend("dask", chunks=1):
        x = xp.asarray(a)
    q, r = xp.linalg.qr(x, mode="complete" if complete else "reduced")
    Q, R = np.linalg.qr(a, mode="complete" if complete else "reduced")
    assert (q.shape, r.shape) == (Q.shape, R.shape)
    np.testing.assert_allclose(xp.to_numpy(q) @ xp.to_numpy(r), a, atol=1e-12)
    u, s, vh = xp.linalg.svd(x, full_matrices=complete)
    U, S, VH = np.linalg.svd(a, full_matrices=complete)
    assert (u.shape, s.shape, vh.shape) == (U.shape, S.shape, VH.shape)
    np.testing.assert_allclose(xp.to_numpy(s), S, atol=1e-12)
    k = min(shape[-2:])
    np.testing.assert_allclose((xp.to_numpy(u)[..., :k] * xp.to_numpy(s)[..., None, :])
                               @ xp.to_numpy(vh)[..., :k, :], a, atol=1e-12)


def test_a_matrix_split_into_chunks_goes_to_dask_s_blocked_algorithms():
    """A 2-D matrix chunked along one axis is not gathered for qr and svd (reduced):
    dask's tall-and-skinny QR. cholesky gathers it (dask's needs SciPy)."""
    a = np.random.default_rng(5).standard_normal((12, 3))
    with xp.use_backend("dask", chunks=(4, 3)):
        x = xp.asarray(a)
    q, r = xp.linalg.qr(x)
    assert q.chunks == ((4, 4, 4), (3,))
    np.testing.assert_allclose(xp.to_numpy(q) @ xp.to_numpy(r), a, atol=1e-12)
    s = xp.linalg.svdvals(x)
    np.testing.assert_allclose(xp.to_numpy(s), np.linalg.svd(a, compute_uv=False))
    spd = _stack((4, 4))
    with xp.use_backend("dask", chunks=2):
        c = xp.linalg.cholesky(xp.asarray(spd))
    assert c.chunks == ((4,), (4,))
    np.testing.assert_allclose(xp.to_numpy(c), np.linalg.cholesky(spd), atol=1e-12)


@pytest.mark.parametrize("s1, s2", [((3, 3), (3,)), ((2, 3, 3), (3,)), ((3, 3), (2, 4, 3, 2)),
                                    ((2, 1, 3, 3), (5, 3, 1)), ((0, 3, 3), (3, 2))])
def test_solve_broadcasts_stacks_and_takes_a_vector(s1, s2):
    a = _stack(s1)
    b = np.random.default_rng(6).standard_normal(s2)
    with xp.use_backend("dask", chunks=(1,) * (len(s1) - 2) + (-1, -1)):
        x1 = xp.asarray(a)
    with xp.use_backend("dask", chunks=1):
        x2 = xp.asarray(b)
    got = xp.linalg.solve(x1, x2)
    want = xp.linalg.solve(a, b)   # the NumPy backend (vector and broadcast rules)
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_allclose(xp.to_numpy(got), want, atol=1e-12)


@pytest.mark.parametrize("backend", ["numpy", "dask"])
@pytest.mark.parametrize("x1_shape, x2_shape, cls, match", [
    ((4, 3, 3), (), ValueError, "argument 'x2' is 0-D"),
    ((4, 3, 3), (4,), ValueError, r"argument 'x2' has shape \(4,\); expected 3 rows"),
    ((4, 3, 3), (4, 3), ValueError, r"argument 'x2' has shape \(4, 3\); expected 3 rows"),
    ((4, 3, 3), (2, 3, 1), ValueError, r"shapes \(4, 3, 3\) and \(2, 3, 1\) cannot be "
                                       "broadcast"),
    ((3,), (3,), np.linalg.LinAlgError, r"argument 'x1' has shape \(3,\); expected a stack "
                                        "of matrices"),
    ((3, 2), (3,), np.linalg.LinAlgError, r"argument 'x1' has shape \(3, 2\); expected a "
                                          "stack of square matrices"),
])
def test_solve_refuses_other_shapes(backend, x1_shape, x2_shape, cls, match):
    """The NumPy backend's errors named no argument ("Input operand 1 has a mismatch in
    its core dimension 0, with gufunc signature ...", "1-dimensional array given",
    "operands could not be broadcast together with remapped shapes"): both backends
    now raise one check's (linalg_fixes.check_solve)."""
    a = _stack(x1_shape) if x1_shape == (4, 3, 3) else np.ones(x1_shape)
    with xp.use_backend(backend):
        x1, x2 = xp.asarray(a), xp.ones(x2_shape)
    with pytest.raises(cls, match=rf"^solve: {match}"):
        xp.linalg.solve(x1, x2)


def test_cross_is_elementwise_products_of_the_components():
    rng = np.random.default_rng(7)
    a = rng.integers(-100, 100, (5, 3, 1)).astype(np.int16)
    b = rng.integers(-100, 100, (5, 3, 4)).astype(np.int8)
    with xp.use_backend("dask", chunks=2):
        x1, x2 = xp.asarray(a), xp.asarray(b)
    got = xp.linalg.cross(x1, x2, axis=-2)
    want = np.cross(np.broadcast_to(a, (5, 3, 4)), b, axis=-2)
    assert got.dtype == want.dtype == np.int16
    np.testing.assert_array_equal(xp.to_numpy(got), want)
    f1, f2 = rng.standard_normal((4, 3)), rng.standard_normal(3)
    np.testing.assert_allclose(xp.to_numpy(xp.linalg.cross(xp.asarray(f1), xp.asarray(f2))),
                               np.cross(f1, f2))


@pytest.mark.parametrize("s1, s2, axis, match", [
    ((4, 3), (4, 2), -1, r"shapes \(4, 3\) and \(4, 2\) cannot be broadcast"),
    ((4, 3), (4, 3), 2, "argument 'axis' is 2, out of range"),
    ((3, 4), (3, 4), -1, "argument 'axis' is -1, whose length .* is 4, not 3"),
])
def test_cross_refuses_other_shapes(s1, s2, axis, match):
    with xp.use_backend("dask"):
        x1, x2 = xp.ones(s1), xp.ones(s2)
    with pytest.raises(ValueError, match=rf"cross: {match}"):
        xp.linalg.cross(x1, x2, axis=axis)


@pytest.mark.parametrize("name", ["slogdet", "eigh", "eig", "qr", "svd"])
def test_tuple_functions_refuse_other_shapes(name):
    with xp.use_backend("dask"):
        x = xp.ones((3,) if name in ("qr", "svd") else (2, 3))
    with pytest.raises(ValueError, match=rf"{name}: argument 'x' has shape"):
        getattr(xp.linalg, name)(x)


@pytest.mark.parametrize("shape, blocks", [((4, 10), (4, 2)), ((4, 10), (2, 10)),
                                           ((10, 4), (10, 2)), ((10, 4), (2, 4)),
                                           ((40, 3), (8, 3)), ((3, 40), (3, 8))])
@pytest.mark.parametrize("mode", ["reduced", "complete"])
def test_qr_of_one_matrix_in_blocks_along_one_axis(shape, blocks, mode):
    """Blocks dask's tall-and-skinny or short-and-fat QR does not take (a wide matrix
    in column blocks narrower than it is tall, or in row blocks) are factored per
    matrix; those it takes still go to it."""
    a = np.random.default_rng(6).standard_normal(shape)
    with xp.use_backend("dask"):
        x = xp.asarray(a).rechunk(blocks)
        q, r = xp.linalg.qr(x, mode=mode)
        q, r = xp.to_numpy(q), xp.to_numpy(r)
    Q, R = np.linalg.qr(a, mode=mode)
    assert (q.shape, r.shape) == (Q.shape, R.shape)
    np.testing.assert_allclose(q @ r, a, atol=1e-12)
    np.testing.assert_allclose(q.T @ q, np.eye(q.shape[1]), atol=1e-12)


@pytest.mark.parametrize("blocks", [(3, 4), (3, 5), (3, 3)])
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_qr_of_a_complex_wide_matrix_in_column_blocks(blocks, dtype):
    """dask's short-and-fat QR took R's columns after the first block as Q.T @ A (the
    transpose, not the conjugate transpose), so Q @ R was not x for complex x."""
    rng = np.random.default_rng(16)
    a = (rng.standard_normal((3, 12)) + 1j * rng.standard_normal((3, 12))).astype(dtype)
    with xp.use_backend("dask"):
        q, r = xp.linalg.qr(xp.asarray(a).rechunk(blocks))
        assert (q.dtype, r.dtype) == (dtype, dtype)
        q, r = xp.to_numpy(q), xp.to_numpy(r)
    tol = 1e-4 if dtype == np.complex64 else 1e-12
    np.testing.assert_allclose(q @ r, a, atol=tol)
    np.testing.assert_allclose(q.conj().T @ q, np.eye(3), atol=tol)
    np.testing.assert_array_equal(np.tril(r, -1), 0)


@pytest.mark.parametrize("s1, s2, axis", [((2, 3, 4), (3, 4), -3), ((2, 3, 4), (3, 4), 2),
                                          ((2, 3, 4), (4,), -2), ((4,), (2, 3, 4), 1)])
def test_vecdot_axis_in_range_of_both_operands(s1, s2, axis):
    """An axis past the rank of the smaller operand: NumPy's AxisError; dask's vecdot
    raised a bare "tuple index out of range". The standard: axis in [-N, -1] with
    N = min(x1.ndim, x2.ndim)."""
    x1, x2 = da.ones(s1, chunks=1), da.ones(s2, chunks=1)
    with pytest.raises(ValueError, match="^vecdot: argument 'axis'"):
        xp.vecdot(x1, x2, axis=axis)
    with pytest.raises(ValueError):
        np.vecdot(np.ones(s1), np.ones(s2), axis=axis)
    got = xp.vecdot(x1, x2, axis=-1)
    np.testing.assert_array_equal(xp.to_numpy(got), np.vecdot(np.ones(s1), np.ones(s2)))


@pytest.mark.parametrize("backend", ["numpy", "dask"])
@pytest.mark.parametrize("name", ["pinv", "matrix_rank"])
def test_rtol_not_a_real_number_is_refused_at_the_call(name, backend):
    """dask's took rtol='a' and raised "Only length-1 arrays can be converted" or, for
    pinv, NumPy's unnamed ufunc type error when computed; NumPy's raised "ufunc
    'multiply' did not contain a loop with signature matching types", naming no
    argument."""
    a = np.random.default_rng(1).standard_normal((2, 3, 3))
    wrap = (lambda v: v) if backend == "numpy" else (lambda v: da.from_array(v, chunks=1))
    x = wrap(a)
    for bad in ("a", 1j, [0.1], wrap(np.array(["a", "b"]))):
        with pytest.raises(TypeError, match=f"^{name}: argument 'rtol' got"):
            getattr(xp.linalg, name)(x, rtol=bad)
    for good in (0.5, 1, np.float32(0.1), wrap(np.array([0.1, 0.9]))):
        want = getattr(np.linalg, name)(a, rtol=np.asarray(good))
        np.testing.assert_allclose(xp.to_numpy(getattr(xp.linalg, name)(x, rtol=good)), want,
                                   atol=1e-12)


@pytest.mark.parametrize("func, shape", [("det", (3,)), ("inv", (2, 3)), ("cholesky", (4,)),
                                         ("slogdet", (2, 3))])
def test_a_shape_that_is_no_stack_of_matrices_is_numpys_linalg_error(func, shape):
    """NumPy raises ``LinAlgError`` here, dask raised a plain ``ValueError``: an
    ``except numpy.linalg.LinAlgError`` caught one backend's error and not the other's.
    Both are ``LinAlgError`` (a ``ValueError``) now."""
    for backend, make in (("numpy", np.ones), ("dask", lambda s: da.ones(s, chunks=2))):
        with xp.use_backend(backend):
            with pytest.raises(np.linalg.LinAlgError, match=rf"^{func}: "):
                getattr(xp.linalg, func)(make(shape))


@pytest.mark.parametrize("shape, blocks", [((12, 3), (4, 3)), ((3, 12), (3, 4)),
                                           ((12, 3), 2)])
def test_tuples_of_blocked_matrices_have_the_standard_s_fields(shape, blocks):
    """svd (full_matrices=False) of a matrix dask's tall-and-skinny (short-and-fat) QR
    takes returned dask's plain tuple, with no .U, .S, .Vh (a gathered matrix, or the
    NumPy backend, gave the named tuple)."""
    a = np.random.default_rng(17).standard_normal(shape)
    x = da.from_array(a, chunks=blocks)
    usv = xp.linalg.svd(x, full_matrices=False)
    assert (usv.U, usv.S, usv.Vh) == tuple(usv)
    np.testing.assert_allclose(xp.to_numpy(usv.S), np.linalg.svd(a, compute_uv=False))
    u, s, vh = (xp.to_numpy(t) for t in usv)
    np.testing.assert_allclose((u * s) @ vh, a, atol=1e-12)
    qr = xp.linalg.qr(x)
    assert (qr.Q, qr.R) == tuple(qr)


_SQUARE_ONLY = ["cholesky", "det", "eigh", "eigvalsh", "eig", "eigvals", "inv", "slogdet",
                "matrix_power"]
_ANY_MATRIX = ["matrix_rank", "pinv", "qr", "svd", "svdvals"]


@pytest.mark.parametrize("name, shape", [
    (name, shape) for name in _SQUARE_ONLY + _ANY_MATRIX
    for shape in [(), (3,), (2, 3), (4, 2, 3)]
    if len(shape) < 2 or name in _SQUARE_ONLY])   # (the others take matrices not square)
def test_no_stack_of_square_matrices_is_one_error_on_both_backends(name, shape):
    """NumPy's linalg said "1-dimensional array given. Array must be at least
    two-dimensional" and "Last 2 dimensions of the array must be square", naming no
    argument; the dask backend's check names ``x`` and its shape, now on both backends
    (``linalg_shapes.py``, on NumPy's error only)."""
    what = ("a stack of matrices \\(at least 2 dimensions\\)" if len(shape) < 2
            else "a stack of square matrices")
    msg = rf"^{name}: argument 'x' has shape {re.escape(str(shape))}; expected {what}$"
    got = []
    for backend in ("numpy", "dask"):
        with xp.use_backend(backend):
            x = xp.asarray(np.arange(float(np.prod(shape))).reshape(shape))   # () too: a
            # new-user probe, NumPy's pinv of a 0-D array said "max() arg is an empty
            # sequence"
            call = getattr(xp.linalg, name)
            with pytest.raises(np.linalg.LinAlgError, match=msg) as exc:
                out = call(x, 2) if name == "matrix_power" else call(x)
                xp.to_numpy(out[0] if isinstance(out, tuple) else out)
        got.append(str(exc.value))
    assert got[0] == got[1]
