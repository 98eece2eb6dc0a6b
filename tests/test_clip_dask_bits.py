"""``clip`` on the dask backend is the NumPy backend's bit for bit: each block is clipped
by its backend's ``clip`` (``_backends/dask_standard.py``). compat's
``minimum(maximum(x, min), max)`` gave 0.0 for an ``x`` of -0.0 inside ``[-1.0, 0.0]``,
where NumPy's ``clip`` and the standard ("otherwise ``x_i``") keep -0.0, ``max``'s 0.0
for -1.0 clipped to ``[-0.0, 0.0]``, and for float16 other NaNs and zeros (found by a
user probe of the manipulation functions)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import xstride as xp

da = pytest.importorskip("dask.array")

VALUES = [np.nan, -np.nan, -0.0, 0.0, 1.0, -1.0, -2.0, 2.0, -0.0, 0.5, np.inf, -np.inf]
BOUNDS = [None, -1.0, 0.0, -0.0, 1.0, np.nan]


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16])
@pytest.mark.parametrize("chunks", [1, 5])
def test_dask_clip_equals_the_numpy_backend_bit_for_bit(dtype, chunks):
    x = np.array(VALUES, dtype)
    d = da.from_array(x, chunks=chunks)
    for lo, hi in itertools.product(BOUNDS, BOUNDS):
        want = xp.clip(x, lo, hi)
        got = xp.to_numpy(xp.clip(d, lo, hi))
        assert got.dtype == want.dtype and got.tobytes() == want.tobytes(), (lo, hi, got, want)
        kept = d[xp.ones(d.shape, dtype=xp.bool)]   # lengths dask does not know
        got = xp.to_numpy(xp.clip(kept, lo, hi))
        assert got.tobytes() == want.tobytes(), ("unknown lengths", lo, hi, got, want)


def test_dask_clip_keeps_a_signed_zero_inside_the_bounds():
    got = xp.to_numpy(xp.clip(da.from_array(np.array([-0.0, -1.0, 3.0]), chunks=1), -1.0, 0.0))
    assert np.signbit(got).tolist() == [True, True, False]
    got = xp.to_numpy(xp.clip(da.from_array(np.array([-1.0, 1.0]), chunks=1), -0.0, 0.0))
    assert np.signbit(got).tolist() == [True, False]


def test_dask_clip_of_array_bounds_in_other_chunks_broadcasts_as_numpy():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((6, 7))
    x[0, 0], x[1, 1] = np.nan, -0.0
    lo = rng.standard_normal((6, 7)) - 1
    lo[2, 2] = np.nan
    hi = rng.standard_normal(7) + 1
    got = xp.clip(da.from_array(x, chunks=2), da.from_array(lo, chunks=3),
                  da.from_array(hi, chunks=4))
    want = xp.clip(x, lo, hi)
    assert got.shape == want.shape and xp.to_numpy(got).tobytes() == want.tobytes()
    xi = rng.integers(-100, 100, (6, 7)).astype(np.int8)
    got = xp.clip(da.from_array(xi[0], chunks=2), da.from_array(xi, chunks=3), 50)
    np.testing.assert_array_equal(xp.to_numpy(got), xp.clip(xi[0], xi, 50))
    assert got.dtype == np.int8


def test_dask_clip_of_masked_chunks_keeps_their_mask():
    """numpy.ma chunks: the clip of each block kept its mask before the per-block clip
    (NumPy's ``clip`` of a block's data had dropped it, showing the masked values)."""
    a = np.array([1.0, 2.0, 3.0, -4.0])
    m = da.ma.masked_array(da.from_array(a, chunks=2), mask=[False, True, False, True])
    got = xp.to_numpy(xp.clip(m, 0.0, 1.5))
    assert np.ma.isMaskedArray(got)
    assert np.ma.getmaskarray(got).tolist() == [False, True, False, True]
    assert got.compressed().tolist() == [1.0, 1.5]
    lo = da.ma.masked_array(da.from_array(np.zeros(4), chunks=2), mask=[1, 0, 0, 0])
    got = xp.to_numpy(xp.clip(da.from_array(a, chunks=2), lo, None))
    assert np.ma.getmaskarray(got).tolist() == [True, False, False, False]
    assert got.compressed().tolist() == [2.0, 3.0, 0.0]


def test_an_array_bound_of_unknown_length_beside_a_known_one_says_so():
    """``x`` or an array bound whose length dask does not know (after boolean indexing)
    where the other's is known: dask's broadcast said "clip: shapes (7,) cannot be
    broadcast together" (one shape, no argument); now the array of the unknown length
    is named, with compute_chunk_sizes(). Two of one selection, or a known length of 1,
    still clip."""
    dask_array = pytest.importorskip("dask.array")
    a = np.arange(7.0)
    x = dask_array.from_array(a, chunks=3)
    u = x[x > -1]
    for call, name, other in ((lambda: xp.clip(x, u, 5.0), "min", "x"),
                              (lambda: xp.clip(u, x, 5.0), "x", "min"),
                              (lambda: xp.clip(x, 1.0, u), "max", "x"),
                              (lambda: xp.clip(x, x, u), "max", "x")):
        with pytest.raises(ValueError, match=rf"^clip: argument '{name}' has shape \(nan,\), "
                                             r"with a length dask does not know .* where "
                                             rf"{other} \(7,\) has a known one, .* call "
                                             rf"{name}\.compute_chunk_sizes\(\) first$"):
            call()
    np.testing.assert_array_equal(xp.to_numpy(xp.clip(u, u, 5.0)), np.clip(a, a, 5.0))
    one = dask_array.from_array(np.array([2.0]))
    np.testing.assert_array_equal(xp.to_numpy(xp.clip(u, one, 5.0)), np.clip(a, 2.0, 5.0))
