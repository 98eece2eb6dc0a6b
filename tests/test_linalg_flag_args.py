"""The flags and ints of ``xp.linalg`` (``svd``'s ``full_matrices``, ``cholesky``'s
``upper``, ``matrix_power``'s ``n``, ``trace``/``diagonal``'s ``offset``) on the NumPy
and dask backends (``linalg_fixes.check_linalg_args``): both libraries took any truthy
flag and ``True`` as 1."""

import re

import numpy as np
import pytest

import xstride as xp

_RNG = np.random.default_rng(5)
_SQ = _RNG.standard_normal((2, 3, 3))
_SPD = _SQ @ np.swapaxes(_SQ, -1, -2) + 3 * np.eye(3)


def _on(backend, a):
    if backend == "numpy":
        return a
    with xp.use_backend("dask", chunks=1):
        return xp.asarray(a)


@pytest.mark.parametrize("backend", ["numpy", "dask"])
@pytest.mark.parametrize("call, func, arg, expected", [
    (lambda x: xp.linalg.svd(x, full_matrices="no"), "svd", "full_matrices", "a bool"),
    (lambda x: xp.linalg.cholesky(x, upper=1), "cholesky", "upper", "a bool"),
    (lambda x: xp.linalg.matrix_power(x, True), "matrix_power", "n", "an int"),
    (lambda x: xp.linalg.matrix_power(x, 2.0), "matrix_power", "n", "an int"),
    (lambda x: xp.linalg.trace(x, offset=1.0), "trace", "offset", "an int"),
    (lambda x: xp.linalg.trace(x, offset=True), "trace", "offset", "an int"),
    (lambda x: xp.linalg.diagonal(x, offset=True), "diagonal", "offset", "an int"),
])
def test_flag_and_int_arguments_are_refused(backend, call, func, arg, expected):
    with pytest.raises(TypeError, match=rf"^{func}: argument '{arg}' got .*; expected {expected}"):
        call(_on(backend, _SPD))


@pytest.mark.parametrize("backend", ["numpy", "dask"])
@pytest.mark.parametrize("call, want", [
    (lambda x: xp.linalg.svd(x, full_matrices=np.False_).S, np.linalg.svd(_SPD)[1]),
    (lambda x: xp.linalg.cholesky(x, upper=True),
     np.swapaxes(np.linalg.cholesky(_SPD), -1, -2)),
    (lambda x: xp.linalg.matrix_power(x, np.int8(2)), _SPD @ _SPD),   # dask: per block
    (lambda x: xp.linalg.trace(x, offset=np.int64(-1)), np.trace(_SPD, -1, -2, -1)),
    (lambda x: xp.linalg.diagonal(x, offset=1), np.diagonal(_SPD, 1, -2, -1)),
])
def test_valid_flags_and_ints_still_compute(backend, call, want):
    np.testing.assert_allclose(xp.to_numpy(call(_on(backend, _SPD))), want, rtol=1e-10)


@pytest.mark.parametrize("x1, match", [
    (np.ones((3, 2)), r"has shape \(3, 2\); expected a stack of square matrices"),
    (np.ones(3), r"has shape \(3,\); expected a stack of matrices"),
    (np.eye(3, dtype=np.float16), "got .*float16"),
])
def test_dask_solve_names_x1(x1, match):
    """The dask backend's solve said "argument 'x'" of its first argument, which the
    standard (and xstride's signature) names x1."""
    with xp.use_backend("dask", chunks=1):
        a, b = xp.asarray(x1), xp.ones(3)
    with pytest.raises((ValueError, TypeError), match=rf"^solve: argument 'x1' {match}"):
        xp.linalg.solve(a, b)


@pytest.mark.parametrize("backend", ["numpy", "dask"])
@pytest.mark.parametrize("kw, cls, match", [
    ({"ord": True}, TypeError, r"argument 'ord' got bool True; expected 'fro', 'nuc'"),
    ({"ord": np.True_}, TypeError, r"argument 'ord' got .*; expected 'fro', 'nuc'"),
    ({"ord": 3}, ValueError, r"argument 'ord' is 3; expected 'fro', 'nuc', 1, -1, 2, -2"),
    ({"ord": 0}, ValueError, r"argument 'ord' is 0; expected"),
    ({"ord": "bad"}, ValueError, r"argument 'ord' is 'bad'; expected"),
    ({"ord": 1j}, ValueError, r"argument 'ord' is 1j; expected"),
    ({"keepdims": 1}, TypeError, r"argument 'keepdims' got int 1; expected a bool"),
    ({"keepdims": "no"}, TypeError, r"argument 'keepdims' got str 'no'; expected a bool"),
])
def test_matrix_norm_checks_ord_and_keepdims(backend, kw, cls, match):
    """ord=True was the norm of ord 1 and keepdims=1 (or "no") kept the dimensions on
    both backends; NumPy's other orders said "Invalid norm order for matrices.", naming
    no argument."""
    with pytest.raises(cls, match=rf"^matrix_norm: {match}"):
        xp.linalg.matrix_norm(_on(backend, _SPD), **kw)


@pytest.mark.parametrize("backend", ["numpy", "dask"])
def test_matrix_norm_of_a_vector_names_x_and_valid_orders_compute(backend):
    """NumPy's matrix_norm of a vector said "axis -2 is out of bounds for array of
    dimension 1"; both backends now raise NumPy's LinAlgError (a ValueError) naming x.
    dask's took ord=np.int64(2) for its own spectral norm, "not implemented for ndim > 2"."""
    with pytest.raises(np.linalg.LinAlgError,
                       match=r"^matrix_norm: argument 'x' has shape \(3,\); expected a stack"):
        xp.linalg.matrix_norm(_on(backend, np.ones(3)))
    x = _on(backend, _SPD)
    for o in ("fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf, None, 1.0, np.int64(2),
              np.float64(-np.inf)):
        for keepdims in (False, True, np.True_):
            want = np.linalg.matrix_norm(_SPD, ord="fro" if o is None else o,
                                         keepdims=bool(keepdims))
            got = xp.linalg.matrix_norm(x, ord=o, keepdims=keepdims)
            assert got.shape == want.shape
            np.testing.assert_allclose(xp.to_numpy(got), want, rtol=1e-10)
    # a nested list (NumPy's matrix_norm took one): refused on every backend
    with pytest.raises(TypeError, match="^matrix_norm: argument 'x' got list"):
        xp.linalg.matrix_norm([[3.0, 0.0], [0.0, 4.0]])


@pytest.mark.parametrize("backend", ["numpy", "dask"])
@pytest.mark.parametrize("offset", [2**70, -2**70, 2**63, 3, -2, 2, -1])
def test_trace_and_diagonal_take_any_offset(backend, offset):
    """A new-user probe: an offset past a C long was NumPy's unnamed "Python int too
    large to convert to C long" where dask's gave the empty diagonal. Past the matrix
    the diagonal is empty and the trace 0, as NumPy's of the nearest offset there."""
    x = np.arange(12.0).reshape(2, 2, 3)
    near = max(-2, min(offset, 3))
    got_t = xp.to_numpy(xp.linalg.trace(_on(backend, x), offset=offset))
    got_d = xp.to_numpy(xp.linalg.diagonal(_on(backend, x), offset=offset))
    np.testing.assert_array_equal(got_t, np.trace(x, near, -2, -1))
    np.testing.assert_array_equal(got_d, np.diagonal(x, near, -2, -1))
    assert got_d.shape == np.diagonal(x, near, -2, -1).shape


@pytest.mark.parametrize("backend", ["numpy", "dask"])
@pytest.mark.parametrize("func", ["trace", "diagonal"])
@pytest.mark.parametrize("shape", [(3,), ()])
def test_trace_and_diagonal_of_no_matrix_name_x(backend, func, shape):
    """NumPy's said "diag requires an array of at least two dimensions", naming no
    argument (and a function the caller did not call); the dask backend's LinAlgError
    naming x on both."""
    with pytest.raises(np.linalg.LinAlgError,
                       match=rf"^{func}: argument 'x' has shape {re.escape(str(shape))}; "
                             "expected a stack of matrices"):
        getattr(xp.linalg, func)(_on(backend, np.ones(shape)))


@pytest.mark.parametrize("func", ["det", "inv", "eigvalsh"])
def test_det_inv_eigvalsh_name_their_array_x(func):
    """NumPy's det, inv and eigvalsh name their array ``a``: the namespace's signature
    was NumPy's, and a list given on dask was "argument 'a'"; the standard's ``x``."""
    import inspect

    fn = getattr(xp.linalg, func)
    assert list(inspect.signature(fn).parameters)[0] == "x"
    with xp.use_backend("dask"):
        with pytest.raises(TypeError, match=rf"{func}: argument 'x' got list"):
            fn([[1.0, 0.0], [0.0, 1.0]])
    with pytest.raises(TypeError, match=r"unexpected keyword argument 'a'|required "
                                        r"positional argument: 'x'"):
        fn(a=_SPD)   # the standard's x is positional-only; NumPy's took a=
    np.testing.assert_allclose(fn(_SPD), getattr(np.linalg, func)(_SPD))
    with xp.use_backend("dask", chunks=1):
        got = xp.to_numpy(fn(xp.asarray(_SPD)))
    np.testing.assert_allclose(got, getattr(np.linalg, func)(_SPD))
