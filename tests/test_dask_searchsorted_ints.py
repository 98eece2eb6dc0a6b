"""dask ``searchsorted`` of a Python int ``x2`` past ``x1``'s integer dtype, as the NumPy
backend answers it (a new-user probe: ``np.asarray(2**64)`` made an object array, which
the check refused as "dask.Array(shape=(1,), dtype=object)", an array never given)."""

from __future__ import annotations

import numpy as np
import pytest

da = pytest.importorskip("dask.array")

import xstride as xp  # noqa: E402


@pytest.mark.parametrize("dtype", [np.uint64, np.uint8, np.int8, np.int64])
@pytest.mark.parametrize("value", [2**64, 2**70, 300, -300, -1, -(2**70)])
@pytest.mark.parametrize("side", ["left", "right"])
@pytest.mark.parametrize("chunks", [1, 2])
def test_a_python_int_past_the_dtype_is_numpy_s_answer(dtype, value, side, chunks):
    x1 = np.array([0, 1, 2, 100], dtype)
    want = xp.searchsorted(x1, value, side=side)   # the NumPy backend's
    assert int(want) == (0 if value < 0 else 4)
    with xp.use_backend("dask"):
        got = xp.searchsorted(xp.asarray(x1, chunks=chunks), value, side=side)
        out = xp.to_numpy(got)
    assert out.shape == () and int(out) == int(want)


# (no NaN: NumPy compares a Python int past int64 with the elements as Python objects,
# where its binary search takes a NaN for a value at most 10**400 on side "right")
_FLOATS = np.array([-np.inf, -1e300, -1e30, -float(2**64), 0.5, 1.5, 2.0**64, 1e30,
                    float(10**40), 2.0**200, 1e300, np.inf])


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16, np.bool_])
@pytest.mark.parametrize("value", [2**64, 10**40, 2**200, 10**400, -(2**63) - 1, -(10**40),
                                   -(10**400), -(2**64), 2**64 + 1])
@pytest.mark.parametrize("side", ["left", "right"])
def test_a_python_int_past_int64_in_floats_or_bools_is_numpy_s_answer(dtype, value, side):
    """Past int64 and uint64 ``np.asarray`` made an object array, refused as an ``x2``
    of dtype object (a new-user probe); now the int is rounded to ``x1``'s dtype and the
    side chosen so that the count is NumPy's exact comparison's (``10**40`` lies just
    below ``float(10**40)``: "right" counts that element out)."""
    with np.errstate(over="ignore"):
        x1 = np.sort(_FLOATS.astype(dtype) if dtype is not np.bool_
                     else np.array([False, True, True]))
    want = int(xp.searchsorted(x1, value, side=side))   # the NumPy backend's
    with xp.use_backend("dask"):
        out = xp.to_numpy(xp.searchsorted(xp.asarray(x1, chunks=2), value, side=side))
    assert out.shape == () and int(out) == want


def test_the_exact_comparison_case_is_in_the_sweep():
    x1 = np.sort(_FLOATS)
    assert int(xp.searchsorted(x1, 10**40, side="right")) == 8   # before float(10**40)
    # and ints a float holds exactly (a review: "left" counted the equal element)
    assert int(xp.searchsorted(x1, 2**64, side="left")) == 6
    assert int(xp.searchsorted(x1, 2**64, side="right")) == 7
