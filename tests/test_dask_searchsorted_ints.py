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
