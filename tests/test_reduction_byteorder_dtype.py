"""A ``dtype=`` of the non-native byte order (``numpy.dtype('>f8')`` on a little-endian
host) on every reduction and scan that takes ``dtype``: the same answer on the NumPy and
dask backends, in the native order (a new-user probe: NumPy's ufuncs refused it for
``sum``/``prod`` with "The `dtype` and `signature` arguments to ufuncs only select the
general DType", both backends refused it for ``mean``/``var``/``std``, and the scans and
dask's sums took it)."""

from __future__ import annotations

import numpy as np
import pytest

import xstride as xp

SWAPPED = np.dtype(np.float64).newbyteorder("S")
FUNCS = ["sum", "prod", "mean", "var", "std", "cumulative_sum", "cumulative_prod"]


@pytest.mark.parametrize("backend", ["numpy", "dask"])
@pytest.mark.parametrize("func", FUNCS)
@pytest.mark.parametrize("axis", [None, 1])
def test_a_swapped_dtype_computes_in_the_native_order(backend, func, axis):
    if backend == "dask":
        pytest.importorskip("dask.array")
    a = np.arange(1.0, 7.0).reshape(2, 3)
    if func.startswith("cumulative") and axis is None:
        a = a.reshape(-1)
    want = getattr(xp, func)(a, axis=axis, dtype=np.float64)
    with xp.use_backend(backend):
        got = getattr(xp, func)(xp.asarray(a), axis=axis, dtype=SWAPPED)
        assert got.dtype == np.float64 and got.dtype.isnative
        np.testing.assert_allclose(xp.to_numpy(got), want, rtol=1e-15)
