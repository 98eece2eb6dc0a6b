"""``clip`` on CuPy arrays (``xstride._backends.clip_checks``): the same values, dtype and
shape as the NumPy backend's, for integer and floating ``x``, scalar, array and missing
bounds, NaN in ``x`` and in a bound, and ``min > max``."""

from __future__ import annotations

import numpy as np
import pytest

import xstride as xp

pytestmark = pytest.mark.gpu

NAN = float("nan")


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int64", "float32", "float64"])
@pytest.mark.parametrize("bounds", [
    (None, None), (-3, None), (None, 4), (-3, 4), (5, 2), (True, 1),
    ("array", 4), (-2, "array"), ("array", "array"), ("wide", None)])
def test_clip_matches_the_numpy_backend(cp, dtype, bounds):
    rng = np.random.default_rng(7)
    x = (rng.integers(-9, 10, size=(4, 5)) if dtype[0] != "u"
         else rng.integers(0, 10, size=(4, 5))).astype(dtype)

    def bound(v, i):
        if v == "array":
            return rng.integers(-4, 5, size=(5,)).astype(dtype) if dtype[0] != "u" else \
                rng.integers(0, 5, size=(5,)).astype(dtype)
        if v == "wide":                        # broadcasts x to a larger result
            return np.zeros((3, 4, 5), dtype)
        return v
    lo, hi = (bound(v, i) for i, v in enumerate(bounds))
    with xp.use_backend("numpy"):
        want = xp.clip(x, lo, hi)
    got = xp.clip(cp.asarray(x), *(cp.asarray(v) if isinstance(v, np.ndarray) else v
                                   for v in (lo, hi)))
    assert type(got) is cp.ndarray and got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(cp.asnumpy(got), want)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_clip_of_nan_gives_nan_as_numpy(cp, dtype):
    x = np.array([NAN, -1.0, 0.5, 7.0], dtype)
    for lo, hi in [(0.0, 1.0), (NAN, 1.0), (0.0, NAN), (NAN, None), (None, NAN),
                   (np.array([NAN, 0, 0, NAN], dtype), 2.0)]:
        want = np.clip(x, lo, hi) if lo is not None or hi is not None else x
        got = xp.clip(cp.asarray(x), cp.asarray(lo) if isinstance(lo, np.ndarray) else lo,
                      hi)
        assert got.dtype == x.dtype
        np.testing.assert_array_equal(cp.asnumpy(got), want.astype(dtype))


def test_clip_returns_a_new_array(cp):
    x = cp.arange(5, dtype=cp.float32)
    for got in (xp.clip(x), xp.clip(x, 1.0), xp.clip(x, None, 2.0)):
        assert got.data.ptr != x.data.ptr


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_clip_passes_a_nan_of_x_through_bit_for_bit(cp, dtype):
    """A NaN of ``x`` comes out with its own bits (sign and payload), as NumPy's clip and
    the fused ``clip`` give it (two launches of ``maximum`` and ``minimum`` did not)."""
    x = np.array([NAN, -NAN, 3.0, -3.0], dtype)
    bits = x.view(f"u{x.itemsize}")
    bits[0] |= 1                                           # a payload
    for lo, hi in [(-1.0, 1.0), (-1.0, None), (None, 1.0)]:
        got = cp.asnumpy(xp.clip(cp.asarray(x), lo, hi))
        want = np.clip(x, lo, hi)
        assert got.tobytes() == want.tobytes(), (lo, hi, got.view(bits.dtype),
                                                 want.view(bits.dtype))
