"""complex64/complex128 reductions on the device (``xs_complex``): sum, prod, mean, all
and any of complex arrays and views against NumPy; min/max/argmin/argmax/var/std and
the scans of complex input stay CuPy's (host tests: tests/test_reductions_complex.py)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import xstride as xp
from tests.test_complex_parts_gpu import _check
from tests.test_reductions_half_gpu import _VIEWS, _axes

pytestmark = [pytest.mark.gpu, pytest.mark.usefixtures("poisoned_pool")]
C16 = np.complex128



def _data(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("view", list(_VIEWS))
@pytest.mark.parametrize("func", ["sum", "mean", "prod"])
def test_complex_sums_products_and_means(cp, view, func, dtype):
    shape, make = _VIEWS[view]
    h = _data(shape, dtype, 1)
    if func == "prod":
        h = (h * 0.002 + 1).astype(dtype)
    d, v = make(cp.asarray(h)), make(h)
    for axis in _axes(v.ndim):
        got = cp.asnumpy(getattr(xp, func)(d, axis=axis))
        want = getattr(np, func)(v.astype(C16), axis=axis).astype(dtype)
        assert got.dtype == dtype and got.shape == want.shape
        tol = 2e-6 if dtype == np.complex64 else 1e-12
        scale = np.abs(want).max() if want.size else 1.0
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol * scale)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("func", ["all", "any"])
def test_complex_all_any_with_zeros_and_nan(cp, func, dtype):
    h = _data((2000, 6), dtype, 2)
    h[::3, 1] = 0
    h[5, :] = 0
    h[7, 2] = complex(np.nan, 0)
    h[9, :] = 1j
    d = cp.asarray(h)
    for axis in (None, 0, 1):
        got = cp.asnumpy(getattr(xp, func)(d, axis=axis))
        np.testing.assert_array_equal(got, getattr(np, func)(h, axis=axis))


def test_complex_mean_bits_are_numpys_division_of_the_sum(cp):
    """Smith's division by n + 0i, as NumPy's complex divide: 1/n times each part."""
    h = np.array([[1 + 2j, 3 - 1j, 0.5 + 0.25j]], dtype=C16)
    got = cp.asnumpy(xp.mean(cp.asarray(h), axis=1))
    want = np.array([np.sum(h) / np.complex128(3)])
    assert got.tobytes() == want.tobytes()


def test_complex_max_var_std_and_cumprod_are_cupys_and_arg_refused(cp):
    h = _data((500, 3), np.complex64, 3)
    d = cp.asarray(h)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for func in ("var", "std"):
            got = getattr(xp, func)(d, axis=0)
            assert got.dtype == np.float32
            np.testing.assert_allclose(cp.asnumpy(got), getattr(np, func)(h, axis=0), rtol=1e-5)
    # cumulative_prod stays CuPy's; cumulative_sum is the parts' scan
    # (tests/test_complex_parts_gpu.py)
    np.testing.assert_allclose(cp.asnumpy(xp.cumulative_prod(d[:20], axis=0)),
                               cp.asnumpy(cp.cumprod(d[:20], axis=0)), rtol=1e-5)
    _check(xp.cumulative_sum(d, axis=0), h, 0, False, np.dtype(np.complex64))
    np.testing.assert_array_equal(cp.asnumpy(xp.max(d, axis=1)), np.max(h, axis=1))
    for func in ("argmax", "argmin"):   # the standard's real-valued rule, as before
        with pytest.raises(TypeError, match="real-valued"):
            getattr(xp, func)(d, axis=1)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_reductions_over_an_axis_of_length_one_reduce_from_the_identity(cp, dtype):
    h = _data((3001, 3), dtype, 4)
    h[5, 1] = complex(np.nan, 2)    # NumPy's 1 * x: both parts NaN
    h[6, 1] = complex(-0.0, -1.0)   # 0 + x and 1 * x: +0 real part
    h[7, 1] = complex(1.0, np.inf)  # 1 * x: NaN real part

    def parts(a):                   # NaN payloads aside (the GPU's arithmetic has its own)
        f = a.view(a.real.dtype).copy()
        f[np.isnan(f)] = np.nan
        return f.tobytes()

    for v, axis in [(h[:, 1:2], 1), (h[:, ::2].T[:1], 0), (h[:1], 0)]:
        d = cp.asarray(h)[:, 1:2] if axis == 1 else cp.asarray(np.ascontiguousarray(v))
        for func in ("sum", "prod"):
            got = cp.asnumpy(getattr(xp, func)(d, axis=axis))
            with np.errstate(all="ignore"):
                want = getattr(np, func)(v, axis=axis)
            assert got.dtype == want.dtype and parts(got) == parts(want), func
        np.testing.assert_array_equal(cp.asnumpy(xp.any(d, axis=axis)), np.any(v, axis=axis))
        # the mean of one element: (0 + x) / (1 + 0j), a NaN or infinite part spreading
        got = cp.asnumpy(xp.mean(d, axis=axis))
        with np.errstate(all="ignore"):
            assert parts(got) == parts(np.mean(v, axis=axis))


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_scans_over_an_axis_of_one_element_are_the_elements(cp, dtype):
    h = _data((3001, 3), dtype, 5)
    h[5, 1] = complex(np.nan, 2)
    for v, axis in [(h[:, 1:2], 1), (h[:1], 0)]:
        d = cp.asarray(h)[:, 1:2] if axis == 1 else cp.asarray(np.ascontiguousarray(v))
        for func in ("cumulative_sum", "cumulative_prod"):
            got = cp.asnumpy(getattr(xp, func)(d, axis=axis))
            want = getattr(np, func)(v, axis=axis)
            assert got.dtype == want.dtype and got.tobytes() == want.tobytes(), func
        # cast on the device: a NaN keeps its place and sign, not NumPy's payload
        got = cp.asnumpy(xp.cumulative_sum(d, axis=axis, dtype=np.complex128))
        want = np.cumulative_sum(v, axis=axis, dtype=np.complex128)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
