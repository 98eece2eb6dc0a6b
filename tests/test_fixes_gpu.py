"""The conformance overrides on CuPy arrays."""

from __future__ import annotations

import numpy as np
import pytest

import xstride as xp

pytestmark = pytest.mark.gpu


def test_full_keeps_negative_zero(cp):
    with xp.use_backend("cupy"):
        a = xp.full((3,), -0.0)
        assert type(a) is cp.ndarray
        assert bool(cp.all(cp.signbit(a)))
        b = xp.full_like(a, -0.0, dtype=xp.float32)
        assert b.dtype == np.float32 and bool(cp.all(cp.signbit(b)))
        c = xp.full((2,), complex(-0.0, -0.0))
        assert bool(cp.all(cp.signbit(c.real))) and bool(cp.all(cp.signbit(c.imag)))
        np.testing.assert_array_equal(xp.to_numpy(xp.full((2, 2), 7.5)), np.full((2, 2), 7.5))


def test_special_cases_on_device(cp):
    x1 = cp.asarray([np.inf, -np.inf, 1.0, -1.0, 3.0, -3.0])
    x2 = cp.asarray([2.0, 2.0, -np.inf, np.inf, -np.inf, np.inf])
    np.testing.assert_array_equal(xp.to_numpy(xp.floor_divide(x1, x2)),
                                  [np.inf, -np.inf, -0.0, -0.0, -0.0, -0.0])
    np.testing.assert_array_equal(xp.to_numpy(xp.remainder(x1[2:], x2[2:])),
                                  [-np.inf, np.inf, -np.inf, np.inf])
    z = cp.asarray([complex(np.inf, 0.0), complex(np.nan, 0.0), complex(-0.0, 0.0)])
    got = xp.to_numpy(xp.expm1(z))
    assert got[0] == complex(np.inf, 0.0)
    assert np.isnan(got[1].real) and got[1].imag == 0.0
    assert got[2] == 0 and not np.signbit(got[2].real)
    assert type(xp.finfo(xp.float32).eps) is float


def test_asarray_of_negative_zero_scalar_keeps_sign(cp):
    with xp.use_backend("cupy"):
        for dtype in (xp.float32, xp.float64):
            a = xp.asarray(-0.0, dtype=dtype)
            assert a.shape == () and a.dtype == dtype and bool(cp.signbit(a))
            assert bool(cp.signbit(xp.asin(a)))  # the standard: asin(-0) is -0
        z = xp.asarray(complex(-0.0, -0.0))
        assert bool(cp.signbit(z.real)) and bool(cp.signbit(z.imag))
        for v in (np.float32(-0.0), np.float64(-0.0), np.asarray(-0.0),
                  np.asarray(-0.0, np.float32)):   # NumPy scalars and 0-d arrays too
            assert bool(cp.signbit(xp.asarray(v))), v
        b = xp.asarray([-0.0, 1.5])
        assert bool(cp.signbit(b[0])) and float(b[1]) == 1.5
        assert float(xp.asarray(2.5)) == 2.5


def test_complex_special_values_on_device(cp):
    z = cp.asarray([complex(np.inf, np.nan), complex(np.nan, np.inf), complex(1.0, 0.5)])
    got = xp.to_numpy(xp.log(z))
    assert got[0].real == np.inf and np.isnan(got[0].imag)
    assert got[1].real == np.inf and np.isnan(got[1].imag)
    np.testing.assert_allclose(got[2], np.log(1.0 + 0.5j), rtol=1e-14)
    t = xp.to_numpy(xp.tanh(cp.asarray([complex(0.0, np.inf), complex(0.0, np.nan)])))
    assert np.all(t.real == 0.0) and np.all(np.isnan(t.imag))
    a = xp.to_numpy(xp.acosh(cp.asarray([complex(0.0, np.nan)])))
    assert np.isnan(a[0].real) and abs(a[0].imag) == np.pi / 2
    r = xp.to_numpy(xp.remainder(cp.asarray([0.0, -0.0]), cp.asarray([-2.0, -2.0])))
    assert np.all(np.signbit(r))


def test_linalg_fixes_on_device(cp):
    a = cp.asarray([[2.0, 0.0], [0.0, 3.0]], dtype=cp.float32)
    res = xp.linalg.eig(a)
    assert res.eigenvalues.dtype == np.complex64 and res.eigenvectors.dtype == np.complex64
    np.testing.assert_allclose(np.sort(xp.to_numpy(res.eigenvalues).real), [2.0, 3.0])
    assert xp.linalg.eigvals(a).dtype == np.complex64
    x = xp.linalg.solve(a, cp.asarray([4.0, 9.0], dtype=cp.float32))
    np.testing.assert_allclose(xp.to_numpy(x), [2.0, 3.0], rtol=1e-6)
    stack = cp.stack([a, 2 * a])
    y = xp.linalg.solve(stack, cp.asarray([[4.0], [9.0]], dtype=cp.float32))
    assert y.shape == (2, 2, 1)
    np.testing.assert_allclose(xp.to_numpy(y)[:, :, 0], [[2.0, 3.0], [1.0, 1.5]], rtol=1e-6)
    empty = xp.linalg.solve(cp.empty((0, 0), dtype=cp.float32), cp.empty((0,), dtype=cp.float32))
    assert empty.shape == (0,) and empty.dtype == np.float32
    with pytest.raises(ValueError, match="linalg.solve: argument 'x2'"):
        xp.linalg.solve(a, cp.ones(3, dtype=cp.float32))


def test_from_dlpack_copy_true_copies_on_device(cp):
    a = cp.arange(4.0)
    b = xp.from_dlpack(a, copy=True)
    assert type(b) is cp.ndarray and b.data.ptr != a.data.ptr
    cp.testing.assert_array_equal(a, b)
    c = xp.from_dlpack(a)
    assert c.data.ptr == a.data.ptr  # no copy asked: zero-copy


def test_from_dlpack_accepts_the_arrays_own_device(cp):
    a = cp.arange(3.0)
    b = xp.from_dlpack(a, device=a.device)
    cp.testing.assert_array_equal(a, b)
    c = xp.from_dlpack(a, device=a.device, copy=True)
    assert c.data.ptr != a.data.ptr


@pytest.mark.parametrize("name", ["fftn", "ifftn", "rfftn", "irfftn"])
def test_fft_n_axes_repeated_are_refused_on_device(cp, name):
    """As on NumPy and dask: axes resolving to one axis are a ValueError; distinct
    axes give CuPy's transform (close to NumPy's)."""
    a = np.arange(24.0).reshape(4, 6) + (1j if name in ("ifftn", "irfftn") else 0)
    x = cp.asarray(a)
    for axes in ((0, 0), (1, -1)):
        with pytest.raises(ValueError, match=f"{name}: argument 'axes' names the axis"):
            getattr(xp.fft, name)(x, axes=axes)
    got = getattr(xp.fft, name)(x, axes=(1, 0))
    assert type(got) is cp.ndarray
    np.testing.assert_allclose(xp.to_numpy(got), getattr(np.fft, name)(a, axes=(1, 0)),
                               rtol=1e-10, atol=1e-9)


@pytest.mark.parametrize("dtype", [None, "float64", "float32"])
def test_asarray_copy_of_a_fortran_ordered_array(cp, dtype):
    """``asarray(x.T, copy=True)``: a Fortran-ordered array is copied as its transpose (one
    contiguous copy); the values, a buffer of its own, and another dtype by CuPy's
    conversion."""
    x = cp.arange(3 * 1001, dtype=cp.float64).reshape(1001, 3)
    with xp.use_backend("cupy"):
        got = xp.asarray(x.T, copy=True, dtype=dtype)
    assert got.shape == (3, 1001) and got.dtype == np.dtype(dtype or "float64")
    assert not cp.shares_memory(got, x)
    np.testing.assert_array_equal(cp.asnumpy(got), cp.asnumpy(x).T.astype(got.dtype))
    x[0, 0] = -1.0
    assert float(got[0, 0]) == 0.0
    if dtype in (None, "float64"):
        assert got.flags.f_contiguous
