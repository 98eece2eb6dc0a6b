"""GPU tests of ``xs_arg_group``: argmin/argmax over rows of one contiguous axis of a
few dozen 16-byte words, a group of 1-16 lanes a row (``_geometry.warp_group``),
against NumPy: ties (the first occurrence must win across the lanes of a group and
the words of a lane), NaN (the first NaN), rows off a 16-byte boundary (elements before
the first word and after the last one by one), row counts that leave a warp's last
slots empty, and a grid that walks the rows more than once. Each case asserts that
the group kernel runs with the group it means to test. The pool is poisoned (0xFF):
an output the kernel does not write shows up."""

from __future__ import annotations

import numpy as np
import pytest

from tests.test_reductions_warp_group_gpu import _expect

import xstride as xp
from xstride._kernels import _reduce_common as rc
from xstride._kernels.argreductions import arg_geometry
from xstride._plans.argreduction import plan_arg_array

pytestmark = [pytest.mark.gpu, pytest.mark.usefixtures("poisoned_pool")]


def _geometry(d):
    return arg_geometry(plan_arg_array(d, (1,)), rc.sm_count(), d.itemsize)



def _values(rng, shape, dtype):
    """Few distinct values (ties in every row), NaNs in 1 % of float elements."""
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return rng.random(shape) < 0.02
    a = rng.integers(0 if dt.kind == "u" else -6, 7, size=shape).astype(dt)
    if dt.kind == "f":
        a[rng.random(shape) < 0.01] = np.nan
    return a


def _check(cp, h, d):
    for f in ("argmin", "argmax"):
        got = cp.asnumpy(getattr(xp, f)(d, axis=1))
        np.testing.assert_array_equal(got, getattr(np, f)(h, axis=1), err_msg=f"{f} {h.shape}")


# (rows, columns, dtype, first column, group expected)
_CASES = [
    (20_001, 200, "int32", 0, 8),      # 50 words a row
    (20_001, 201, "int32", 1, 8),      # rows start 4 bytes in: a head element by element
    (60_003, 256, "bool", 0, 2),       # 16 words: 16 rows a warp
    (30_001, 300, "float32", 3, 16),   # 75 words, NaNs
    (40_001, 64, "float32", 0, 4),     # 16 words
    (40_001, 33, "float64", 0, 4),     # 17 words (rows 264 bytes apart)
    (50_001, 600, "int8", 0, 8),       # 38 words of 16
    (110_001, 113, "uint8", 0, 1),     # 8 words: a lane a row
    (30_001, 300, "float16", 0, 8),    # 38 words of 8
    (40_001, 100, "int64", 0, 8),      # 50 words
    (20_001, 200, "float64", 0, 16),   # 100 words: 7 a lane of 16
    (20_001, 801, "float16", 1, 16),   # 100 words of 8, rows 2 bytes in
]


@pytest.mark.parametrize("n,k,dtype,start,group", _CASES)
def test_group_rows_against_numpy(cp, n, k, dtype, start, group):
    rng = np.random.default_rng(k + n)
    full = _values(rng, (n, k), dtype)
    h, d = full[:, start:], cp.asarray(full)[:, start:]
    geo = _geometry(d)
    assert (geo.kernel, geo.group) == ("group", _expect(group, h.shape[0], h.shape[1],
                                                        16 // h.itemsize)), geo
    _check(cp, h, d)


def test_group_rows_extremes_at_the_ends_of_lanes(cp):
    """The extreme (several times, and NaN) at the first and last element of a row,
    at each lane's first and last word, and only in the head before the first word."""
    n, k = 40_000, 201
    h = np.zeros((n, k), np.float32)
    rng = np.random.default_rng(7)
    cols = rng.integers(0, k, size=(n, 3))
    h[np.arange(n)[:, None], cols] = 5.0
    h[::7, -1] = 9.0
    h[1::7, 0] = 9.0
    h[2::7, [4, 100, 200]] = np.nan
    h[3::7, 1:] = -1.0          # row tails all below the head's 0.0
    d = cp.asarray(h)
    v = d[:, 1:]                # starts 4 bytes in: elements 0-2 before the first word
    assert _geometry(v).kernel == "group"
    _check(cp, h[:, 1:], v)
    assert _geometry(d).kernel == "group"
    _check(cp, h, d)


def test_group_rows_walked_more_than_once(cp):
    """More rows than one pass of the capped grid takes (a lane a row of 128 bool,
    32 rows a warp): the warps loop, and the last pass leaves slots past the end."""
    sm = rc.sm_count()
    passes = 32 * sm * 8 * 32
    n = passes + passes // 5 + 3
    h = np.random.default_rng(9).random((n, 128)) < 0.03
    d = cp.asarray(h)
    geo = _geometry(d)
    assert (geo.kernel, geo.group, geo.grid) == ("group", _expect(1, n, 128, 16), 32 * sm), geo
    _check(cp, h, d)
