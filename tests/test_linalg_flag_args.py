"""The flags and ints of ``xp.linalg`` (``svd``'s ``full_matrices``, ``cholesky``'s
``upper``, ``matrix_power``'s ``n``, ``trace``/``diagonal``'s ``offset``) on the NumPy
and dask backends (``linalg_fixes.check_linalg_args``): both libraries took any truthy
flag and ``True`` as 1."""

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
