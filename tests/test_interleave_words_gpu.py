"""GPU tests of the "interleave" kernels' 16-byte word walks over one contiguous run of
a few columns (``x`` of shape (n, k) reduced over axis 0): argmin/argmax by words of 4-
and 8-byte elements (``xs_arg_interleave``, V > 1: each element its own lane) and
all/any of 1-byte elements by words of 16 (``xs_interleave_words``), against
NumPy: ties, NaNs, reversed rows, misaligned starts (the element walks), bytes other
than 0 and 1."""

from __future__ import annotations

import numpy as np
import pytest

import xstride as xp
import xstride._kernels._reduce_common as rc
from xstride._kernels import argreductions as ka
from xstride._plans.argreduction import plan_arg_array

pytestmark = [pytest.mark.gpu, pytest.mark.usefixtures("poisoned_pool")]


@pytest.mark.parametrize("dtype", ["float32", "int32", "float64", "int64"])
def test_arg_words_match_numpy(cp, dtype):
    rng = np.random.default_rng(4)
    words = 0
    for k in (2, 3, 4, 5, 6, 8, 12, 16):
        for n in (100_003, 2_000_001 // k):
            h = rng.integers(-40, 41, size=(n, k)).astype(dtype)     # ties in every column
            if h.dtype.kind == "f":
                h[rng.integers(0, n, 5), rng.integers(0, k, 5)] = np.nan
                h[:, 0] = np.nan if k > 2 else h[:, 0]             # a column of NaNs
            x = cp.asarray(h)
            for hv, xv in ((h, x), (h[::-1], x[::-1]), (h[1:], x[1:]), (h[4:], x[4:])):
                plan = plan_arg_array(xv, (0,))
                aligned = (xv.data.ptr + plan.offset * xv.itemsize) % 16 == 0
                geo = ka.arg_geometry(plan, rc.sm_count(), xv.itemsize, aligned)
                assert geo.kernel == "interleave" and (geo.vec > 1) == aligned
                words += geo.vec > 1
                for f in ("argmin", "argmax"):
                    np.testing.assert_array_equal(getattr(xp, f)(xv, axis=0).get(),
                                                  getattr(np, f)(hv, axis=0),
                                                  f"{f} {dtype} {hv.shape} {hv.strides}")
    assert words >= 16


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int8"])
def test_all_any_of_byte_columns_by_words(cp, dtype):
    rng = np.random.default_rng(6)
    for k in (1, 2, 3, 5, 7, 16, 31):
        for n in (50_001, 1_500_003 // k):
            if dtype == "bool":
                h = rng.random((n, k)) < 0.999
            else:   # bytes 1, 2, 127, 128, 255 (-1, -128 as int8) are all true
                h = rng.choice(np.array([1, 2, 127, 128, 255], np.uint8), size=(n, k))
                h = h.view(dtype)
                h[rng.integers(0, n, 2), :] = 0
            h[:, 0] = True if dtype == "bool" else 3         # a column all true
            if k > 1:
                h[n // 2, 1] = 0                              # one false in column 1
            if k > 2:
                h[:, 2] = 0                                   # a column all false
            x = cp.asarray(h)
            for hv, xv in ((h, x), (h[::-1], x[::-1]), (h[1:], x[1:]), (h[16:], x[16:])):
                for f in ("all", "any"):
                    np.testing.assert_array_equal(getattr(xp, f)(xv, axis=0).get(),
                                                  getattr(np, f)(hv, axis=0),
                                                  f"{f} {dtype} {hv.shape} {hv.strides}")
