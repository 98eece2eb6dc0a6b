"""float16 ``sum`` and ``prod`` on dask as NumPy's: accumulated in float32, rounded to
float16 once (NumPy's float16 reduction loops accumulate in float). A new-user probe:
each chunk's float16 partial overflowed, so ``sum`` of 60000, 60000, -60000, -60000 in
chunks of two was NaN and ``prod`` of 300, 300, 1/300, 1/300 inf, where NumPy's are 0
and 1."""

from __future__ import annotations

import numpy as np
import pytest

da = pytest.importorskip("dask.array")

import xstride as xp  # noqa: E402

BIG = np.array([60000, 60000, -60000, -60000], dtype=np.float16)
SMALL = np.array([300, 300, 1 / 300, 1 / 300], dtype=np.float16)


@pytest.mark.parametrize("chunks", [1, 2, 3, 4])
@pytest.mark.parametrize("name, a, want", [("sum", BIG, 0.0), ("prod", SMALL, 1.0)])
def test_a_partial_past_float16_s_range_does_not_overflow(name, a, want, chunks):
    assert getattr(np, name)(a) == want   # NumPy's answer
    with xp.use_backend("dask"):
        got = getattr(xp, name)(xp.asarray(a, chunks=chunks))
        assert got.dtype == np.float16
        out = xp.to_numpy(got)
    assert out.dtype == np.float16 and float(out) == pytest.approx(want, abs=1e-3)


def test_float16_sums_along_an_axis_and_with_dtype_are_numpy_s():
    rng = np.random.default_rng(3)
    a = rng.uniform(-1000, 1000, (40, 30)).astype(np.float16)
    with xp.use_backend("dask"):
        x = xp.asarray(a, chunks=(7, 11))
        for axis in (0, 1, None):
            got = xp.to_numpy(xp.sum(x, axis=axis))
            # the exact sum rounded once (NumPy's own rounds at each row along axis 0 of
            # a C-ordered array: its outer loop adds into float16; several units off)
            exact = np.sum(a.astype(np.float64), axis=axis)
            assert got.dtype == np.float16
            np.testing.assert_allclose(got.astype(np.float64), exact, rtol=1e-3, atol=0.5)
        got = xp.to_numpy(xp.sum(x, dtype=xp.float32))   # dtype= given: that dtype
        assert got.dtype == np.float32
        np.testing.assert_allclose(got, np.sum(a, dtype=np.float32), rtol=1e-5)
    with xp.use_backend("dask"), pytest.warns(RuntimeWarning, match="overflow"):
        big = xp.to_numpy(xp.sum(xp.asarray(BIG.reshape(2, 2), chunks=1), axis=1))
    assert np.isinf(big).all()   # a row sum past float16 is inf, as NumPy's


@pytest.mark.parametrize("chunks", [1, 2, 3])
def test_float16_matmul_and_vecdot_accumulate_in_float32(chunks):
    """A new-user probe: dask's ``matmul``/``vecdot`` of float16 added one float16
    partial per chunk of the contracted axis, so 60000 + 60000 - 60000 was inf (NumPy's
    60000); now as NumPy's, bit for bit on random float16 matrices."""
    a = np.array([[60000, 60000, -60000]], np.float16)
    b = np.ones((3, 1), np.float16)
    rng = np.random.default_rng(0)
    m1 = rng.uniform(-10, 10, (5, 40)).astype(np.float16)
    m2 = rng.uniform(-10, 10, (40, 3)).astype(np.float16)
    with xp.use_backend("dask"):
        got = xp.matmul(xp.asarray(a, chunks=chunks), xp.asarray(b, chunks=chunks))
        assert got.dtype == np.float16 and xp.to_numpy(got).tolist() == [[60000.0]]
        dot = xp.vecdot(xp.asarray(a[0], chunks=chunks), xp.asarray(b[:, 0], chunks=chunks))
        assert dot.dtype == np.float16 and float(xp.to_numpy(dot)) == 60000.0
        got = xp.to_numpy(xp.matmul(xp.asarray(m1, chunks=7 * chunks),
                                    xp.asarray(m2, chunks=7 * chunks)))
    np.testing.assert_array_equal(got, np.matmul(m1, m2))


def test_float16_tensordot_accumulates_in_float32():
    """A review: dask's float16 ``tensordot`` still added float16 partials (NaN)."""
    h = np.array([[6e4, 6e4, -6e4, -6e4]], np.float16)
    ones = np.ones((4, 1), np.float16)
    assert np.tensordot(h, ones, axes=1).tolist() == [[0.0]]
    with xp.use_backend("dask"):
        for f in (xp.tensordot, xp.linalg.tensordot):
            got = f(xp.asarray(h, chunks=(1, 2)), xp.asarray(ones, chunks=(2, 1)), axes=1)
            assert got.dtype == np.float16 and xp.to_numpy(got).tolist() == [[0.0]]
