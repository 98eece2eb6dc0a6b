"""``vecdot`` and ``count_nonzero`` on the CuPy backend (xstride/_backends/cupy_products.py):
equal to NumPy's over particle shapes, broadcasts, axes and dtypes, NaN counted as
nonzero, and the same errors as the other backends for bad arguments."""

from __future__ import annotations

import numpy as np
import pytest

import xstride as xp

pytestmark = [pytest.mark.gpu, pytest.mark.usefixtures("on_cupy")]

cp = pytest.importorskip("cupy")


def _rand(rs, shape, dtype):
    dtype = np.dtype(dtype)
    if dtype.kind == "c":
        return (rs.standard_normal(shape) + 1j * rs.standard_normal(shape)).astype(dtype)
    if dtype.kind in "iu":
        return rs.integers(0, 50, shape).astype(dtype)
    return rs.standard_normal(shape).astype(dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128", "int32",
                                   "int64", "uint8"])
@pytest.mark.parametrize("s1, s2, axis", [
    ((100_003, 3), (100_003, 3), -1), ((5, 3), (3,), -1), ((7, 1, 4), (5, 4), -1),
    ((4, 6), (4, 6), -2), ((2, 3, 4), (3, 4), -2), ((1000,), (1000,), -1), ((0, 3), (0, 3), -1),
    ((3, 3), (3,), 0), ((2, 3, 3), (3, 3), 1), ((3, 4), (3,), 0),   # each operand's own axis
])
def test_vecdot_equals_numpy(dtype, s1, s2, axis):
    rs = np.random.default_rng(len(s1) * 10 + len(s2))
    a, b = _rand(rs, s1, dtype), _rand(rs, s2, dtype)
    got = xp.vecdot(cp.asarray(a), cp.asarray(b), axis=axis)
    want = np.vecdot(a, b, axis=axis)
    assert isinstance(got, cp.ndarray) and got.dtype == want.dtype and got.shape == want.shape
    if dtype in ("float32", "complex64"):
        np.testing.assert_allclose(cp.asnumpy(got), want, rtol=1e-5, atol=1e-4)
    elif dtype in ("float64", "complex128"):
        np.testing.assert_allclose(cp.asnumpy(got), want, rtol=1e-12, atol=1e-10)
    else:   # integers: exact, wrapping as NumPy's
        np.testing.assert_array_equal(cp.asnumpy(got), want)


def test_vecdot_of_booleans_is_the_librarys():
    """Outside the standard (numeric operands): array_api_compat's CuPy ``vecdot``, as
    before (a count of the pairs both true, where NumPy's is their logical or)."""
    import array_api_compat.cupy as compat

    a = cp.asarray([[True, False, True], [False, False, True]])
    got = xp.vecdot(a, a)
    want = compat.vecdot(a, a)
    assert got.dtype == want.dtype and cp.asnumpy(got).tolist() == cp.asnumpy(want).tolist()


@pytest.mark.parametrize("call, cls, match", [
    (lambda: xp.vecdot(cp.ones((4, 3)), cp.ones((4, 2))), ValueError, r"^vecdot: argument 'x2'"),
    (lambda: xp.vecdot(cp.ones((4, 3)), cp.ones((5, 3))), ValueError, r"^vecdot: "),
    (lambda: xp.vecdot(cp.ones(()), cp.ones(3)), ValueError, r"^vecdot: "),
    (lambda: xp.vecdot(cp.ones((4, 3)), cp.ones(3), axis=-2), Exception, r"^vecdot: argument 'axis'"),
    (lambda: xp.vecdot(cp.ones((4, 3)), cp.ones((4, 3)), axis=1.0), TypeError,
     r"^vecdot: argument 'axis'"),
])
def test_vecdot_bad_arguments(call, cls, match):
    with pytest.raises(cls, match=match):
        call()


@pytest.mark.parametrize("dtype", ["bool", "float32", "float64", "int8", "uint64", "complex64"])
@pytest.mark.parametrize("shape, axis", [
    ((300_001, 3), 0), ((300_001, 3), 1), ((300_001, 3), None), ((4, 5, 6), (0, 2)),
    ((4, 5, 6), -1), ((0, 3), 0), ((0, 3), 1), ((), None),
])
@pytest.mark.parametrize("keepdims", [False, True])
def test_count_nonzero_equals_numpy(dtype, shape, axis, keepdims):
    rs = np.random.default_rng(7)
    x = (rs.random(shape) < 0.3).astype(dtype) if dtype != "complex64" else \
        ((rs.random(shape) < 0.3) * 1j).astype(dtype)
    if dtype.startswith("float") and x.size:
        x.reshape(-1)[::7] = np.nan   # NaN is nonzero
    got = xp.count_nonzero(cp.asarray(x), axis=axis, keepdims=keepdims)
    want = np.count_nonzero(x, axis=axis, keepdims=keepdims)
    assert isinstance(got, cp.ndarray) and got.dtype == np.int64
    assert cp.asnumpy(got).tolist() == np.asarray(want).tolist()


@pytest.mark.parametrize("call, cls, match", [
    (lambda: xp.count_nonzero([1, 0, 2]), TypeError, r"^count_nonzero: argument 'x' got list"),
    (lambda: xp.count_nonzero(cp.ones((2, 3)), axis=[0]), TypeError,
     r"^count_nonzero: argument 'axis' got list \[0\]"),
    (lambda: xp.count_nonzero(cp.ones((2, 3)), axis=(0, 0)), ValueError,
     r"^count_nonzero: argument 'axis' \(0, 0\) names axis 0 twice"),
    (lambda: xp.count_nonzero(cp.ones((2, 3)), axis=2), Exception,
     r"^count_nonzero: argument 'axis'"),
    (lambda: xp.count_nonzero(cp.ones((2, 3)), keepdims="yes"), TypeError,
     r"^count_nonzero: argument 'keepdims'"),
])
def test_count_nonzero_bad_arguments(call, cls, match):
    with pytest.raises(cls, match=match):
        call()
