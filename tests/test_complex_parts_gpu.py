"""GPU tests of the complex operations that run on the real kernels through the parts of
the array (``_kernels/complex_parts.py``: shape ``x.shape + (2,)``, no copy):
``cumulative_sum`` on the scan kernels (``scans.complex_sum``), each part within the
bound of a real scan (``_scan_bound``, tests/test_scans_gpu.py), on every layout of the
sweep; ``sum`` over axes of one element (``0 + x`` on the engine), NumPy's bits."""

from __future__ import annotations

import numpy as np
import pytest

import xstride as xp
from tests.test_scans_gpu import _scan_bound

pytestmark = [pytest.mark.gpu, pytest.mark.usefixtures("poisoned_pool")]


def _complex(rng, shape, dtype):
    part = np.float32 if dtype == "complex64" else np.float64
    return (rng.standard_normal(shape).astype(part)
            + 1j * rng.standard_normal(shape).astype(part)).astype(dtype)


def _check(got, h, axis, include_initial, out_dtype):
    """``got`` (a CuPy result) against the exact scan of host array ``h``, part by part."""
    got = got.get()
    assert got.dtype == out_dtype
    part = np.float32 if out_dtype == np.complex64 else np.float64
    for name in ("real", "imag"):
        hp = getattr(h, name).astype(part)
        exact, bound = _scan_bound(hp, axis)
        if include_initial:
            shape = list(exact.shape)
            shape[axis] = 1
            exact = np.concatenate([np.zeros(shape, exact.dtype), exact], axis=axis)
            bound = np.concatenate([np.zeros(shape, bound.dtype), bound], axis=axis)
        gp = getattr(got, name).astype(np.longdouble)
        assert gp.shape == exact.shape
        assert np.all(np.abs(gp - exact) <= bound), name


def _kernel_ran(part_dtype, shape) -> bool:
    """Whether the scans' recipe cache holds a scan of the parts' real array."""
    from xstride._kernels import scans

    return any(k[0] == tuple(shape) + (2,) and k[2] == part_dtype
               for k in list(scans._RECIPES.keys()))


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("include_initial", [False, True])
def test_complex_cumulative_sum_every_layout(cp, dtype, include_initial):
    """(n,), (n, k) over either axis, (k, n) used as .T, reversed and strided views:
    each part within the real scan's bound, on the kernels."""
    rng = np.random.default_rng(7)
    n = 3001
    part = np.dtype(np.float32 if dtype == "complex64" else np.float64)
    cases = []
    for k in (1, 3, 5, 16):
        h = _complex(rng, (n, k), dtype)
        d = cp.asarray(h)
        t = np.ascontiguousarray(h.T)
        cases += [(h, d), (h[::-1], d[::-1]), (t.T, cp.asarray(t).T)]
        if k > 2:
            cases += [(h[:, ::2], d[:, ::2]), (h[:, ::-1], d[:, ::-1])]
    h1 = _complex(rng, (50_000,), dtype)
    cases += [(h1, cp.asarray(h1)), (h1[::-3], cp.asarray(h1)[::-3])]
    for h, d in cases:
        for axis in range(h.ndim):
            from xstride._kernels import scans

            scans._RECIPES.clear()
            got = xp.cumulative_sum(d, axis=axis, include_initial=include_initial)
            _check(got, h, axis, include_initial, np.dtype(dtype))
            if h.shape[axis] > 1 or include_initial:
                assert _kernel_ran(part, d.shape), (h.shape, h.strides, axis)


def test_complex_cumulative_sum_dtype_broadcast_and_edges(cp):
    """complex64 scanned into complex128; a broadcast input (an axis of stride 0); a
    0-D array, an empty one and an axis of one element; complex cumulative_prod stays
    the library's and agrees with NumPy."""
    rng = np.random.default_rng(8)
    h = _complex(rng, (2000, 3), "complex64")
    d = cp.asarray(h)
    got = xp.cumulative_sum(d, axis=0, dtype=xp.complex128)
    _check(got, h.astype(np.complex128), 0, False, np.dtype(np.complex128))
    row = _complex(rng, (3,), "complex64")
    for axis in (0, 1):
        b = cp.broadcast_to(cp.asarray(row), (1000, 3))
        got = xp.cumulative_sum(b, axis=axis)
        _check(got, np.broadcast_to(row, (1000, 3)), axis, False, np.dtype(np.complex64))
    z = cp.asarray(np.complex64(1.5 - 2j))
    assert xp.cumulative_sum(z).get().tolist() == [1.5 - 2j]
    empty = xp.cumulative_sum(cp.zeros((0, 3), cp.complex64), axis=0)
    assert empty.shape == (0, 3) and empty.dtype == cp.complex64
    one = xp.cumulative_sum(d[:, :1], axis=1)
    assert np.array_equal(one.get(), h[:, :1])
    p = xp.cumulative_prod(d[:50] / 2, axis=0)
    np.testing.assert_allclose(p.get(), np.cumprod(h[:50] / 2, axis=0), rtol=1e-4, atol=1e-30)


def test_complex_cumulative_sum_bad_input(cp):
    """The checks run before the complex path: a bad axis, a bool include_initial."""
    d = cp.zeros((10, 3), cp.complex64)
    with pytest.raises(ValueError, match="axis"):
        xp.cumulative_sum(d, axis=2)
    with pytest.raises(TypeError, match="include_initial"):
        xp.cumulative_sum(d, axis=0, include_initial="yes")


def _same_values_and_zero_signs(got, want):
    """Equal values part by part (NaN where NaN: a GPU's NaN has its own bits) and the
    same sign of every zero."""
    assert got.dtype == want.dtype and got.shape == want.shape
    for name in ("real", "imag"):
        g, w = getattr(got, name), getattr(want, name)
        np.testing.assert_array_equal(g, w)
        assert np.array_equal(np.signbit(g) & (g == 0), np.signbit(w) & (w == 0)), name


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_sum_of_one_element_is_numpys(cp, dtype):
    """sum over an axis of one element is ``0 + x``, each part: NumPy's values, -0.0
    parts made +0.0, NaN and infinities kept; also on a strided view, with keepdims, and for
    a 0-D result; mean and prod of the same arrays agree with NumPy too."""
    rng = np.random.default_rng(9)
    h = _complex(rng, (5000, 1), dtype)
    part = h.real.dtype.type
    h[:4, 0] = [complex(-0.0, -0.0), complex(np.nan, -0.0), complex(-np.inf, 1.0),
                complex(1.0, np.nan)]
    h.real[4:8, 0] = part(-0.0)
    d = cp.asarray(h)
    for hv, dv, axis in ((h, d, 1), (h[::3], d[::3], 1), (h.T, d.T, 0), (h[:1, 0], d[:1, 0], 0)):
        for keepdims in (False, True):
            got = xp.sum(dv, axis=axis, keepdims=keepdims).get()
            want = np.sum(hv, axis=axis, keepdims=keepdims)
            again = xp.sum(dv, axis=axis, keepdims=keepdims).get()   # the prepared call
            for res in (got, again):
                _same_values_and_zero_signs(res, want)
    np.testing.assert_array_equal(xp.mean(d[8:], axis=1).get(), np.mean(h[8:], axis=1))
    np.testing.assert_array_equal(xp.prod(d[8:], axis=1).get(), np.prod(h[8:], axis=1))
    wide = xp.sum(d, axis=1, dtype=xp.complex128).get() if dtype == "complex64" else None
    if wide is not None:
        np.testing.assert_array_equal(wide, np.sum(h, axis=1, dtype=np.complex128))


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_add_and_subtract_on_the_parts(cp, monkeypatch, dtype):
    """``add``/``subtract`` of complex arrays on the engine over their parts: NumPy's
    values on broadcast rows, transposed and reversed views, ``out=`` (also the input
    itself, with a row of it as the other operand), at the default size limit and, with
    the limit lowered, on small arrays; the engine ran, not the library, except where an
    array's last axis is not its innermost."""
    from xstride._kernels import _elementwise_exec as ex
    from xstride._kernels import elementwise as ew

    rng = np.random.default_rng(10)
    big = _complex(rng, (ew.PARTWISE_MIN // 4, 4), dtype)
    d = cp.asarray(big)
    for func in ("add", "subtract"):
        ex.last_kind = None
        got = getattr(xp, func)(d, d[0])
        assert ex.last_kind is not None
        assert np.array_equal(got.get(), getattr(np, func)(big, big[0]))
    monkeypatch.setattr(ew, "PARTWISE_MIN", 1)
    h = _complex(rng, (3001, 5), dtype)
    d = cp.asarray(h)
    # (a, b on the host, on the device, on the engine): a last axis that is not the
    # innermost (arrays used as .T) stays the library's
    pairs = [(h, h[0], d, d[0], True), (h.T, h.T[::-1], d.T, d.T[::-1], False),
             (h[::-2], h[1::2][:1], d[::-2], d[1::2][:1], True),
             (h[:, :1], h[0], d[:, :1], d[0], True),
             (h[::-1, ::-1], h[3], d[::-1, ::-1], d[3], True)]
    for func in ("add", "subtract"):
        for ha, hb, da, db, engine in pairs:
            ex.last_kind = None
            got = getattr(xp, func)(da, db)
            assert (ex.last_kind is not None) == engine
            want = getattr(np, func)(ha, hb)
            assert got.dtype == want.dtype and np.array_equal(got.get(), want)
        out = cp.asarray(h)
        assert getattr(xp, func)(out, out[0], out=out) is out
        assert np.array_equal(out.get(), getattr(np, func)(h, h[0]))
