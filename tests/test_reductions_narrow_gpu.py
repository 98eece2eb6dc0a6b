"""GPU tests of two load and store paths of the reductions, against NumPy:

* long contiguous rows of 1- and 2-byte elements read as 16-byte vectors of 16 or 8
  elements by ``xs_reduce_rows_warp`` / ``xs_reduce_rows_block`` (``narrow`` in
  ``_geometry.reduction_geometry``), rows starting on and off a 16-byte boundary,
  split and unsplit;
* rows side by side (``xs_reduce_short`` with ``V < -1``, ``detail/side_rows.cuh``)
  storing a thread's W outputs as 16-byte words, and one by one where they do not fill
  whole words (a narrowing ``dtype=``).

Integers, bool, min and max must match exactly; float sums lie within the bound of
``tests/test_reductions_gpu.py``. The pool is poisoned (0xFF), so an output the
kernels do not write shows up.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.test_reductions_gpu import _assert_sum_close

import xstride as xp

pytestmark = [pytest.mark.gpu, pytest.mark.usefixtures("poisoned_pool")]

_OPS = {"bool": ("all", "any", "sum"), "int8": ("sum", "max", "min"),
        "uint8": ("sum", "max"), "int16": ("sum", "min", "prod"), "uint16": ("max", "sum"),
        "float16": ("max", "min", "sum")}


def _host(rng, shape, dtype):
    dt = np.dtype(dtype)
    if dt.kind == "b":
        h = rng.random(shape) < 0.999          # all() False on a few rows only
        h[0] = True                            # a row (or the first elements) all True
        return h
    if dt.kind == "f":
        return rng.standard_normal(shape).astype(dt)
    return rng.integers(0, 4 if dt == np.int16 else 100, shape).astype(dt)


def _check(cp, f, h, d, axis, **kw):
    got = getattr(xp, f)(d, axis=axis, **kw)
    want = getattr(np, f)(h, axis=axis, **kw)
    assert got.dtype == want.dtype and got.shape == want.shape, (f, got.dtype, want.dtype)
    if h.dtype == np.float32 and f == "sum":
        _assert_sum_close(cp.asnumpy(got), h, axis)
    elif h.dtype == np.float16 and f == "sum":
        # float32 accumulation (the bound of tests/test_reductions_gpu.py at 2**-24),
        # then the float16 result's own rounding
        exact = np.sum(h.astype(np.float64), axis=axis)
        absum = np.sum(np.abs(h.astype(np.float64)), axis=axis)
        n = h.size // max(exact.size, 1)
        bound = (np.ceil(n / 4) + 64) * 2.0 ** -24 * absum + 2.0 ** -11 * np.abs(exact)
        assert np.all(np.abs(cp.asnumpy(got).astype(np.float64) - exact) <= bound)
    else:
        np.testing.assert_array_equal(cp.asnumpy(got), want, err_msg=f"{f} {h.shape} {axis}")


@pytest.mark.parametrize("dtype", list(_OPS))
def test_narrow_rows_by_vectors(cp, dtype):
    """Few long rows (the block kernel, split), many medium rows (the warp kernel), one
    long run (axis None), with heads off the 16-byte boundary (odd row lengths, slices
    from 1 to 15 elements in) and a reversed view."""
    rng = np.random.default_rng(np.dtype(dtype).num)
    h3 = _host(rng, (3, 1_000_003), dtype)
    hm = _host(rng, (2000, 1001), dtype)
    h1 = _host(rng, (2_000_017,), dtype)
    d3, dm, d1 = cp.asarray(h3), cp.asarray(hm), cp.asarray(h1)
    for f in _OPS[dtype]:
        if f == "prod":
            _check(cp, f, h3[:, :40], d3[:, :40], 1)
            continue
        _check(cp, f, h3, d3, 1)
        _check(cp, f, h3[:, 5:], d3[:, 5:], 1)
        _check(cp, f, hm, dm, 1)
        _check(cp, f, hm[:, 3:], dm[:, 3:], -1)
        for s in (slice(None), slice(1, None), slice(15, None), slice(None, None, -1)):
            _check(cp, f, h1[s], d1[s], None)


@pytest.mark.parametrize("dtype", ["bool", "int8", "int16", "int32", "uint8", "float32"])
def test_side_by_side_rows_store_words(cp, dtype):
    """sum/max/all/any/mean of (k, n).T over axis 1: W = 16 / itemsize outputs a thread,
    stored as words (bool 16, int8 into int64 128 bytes, float32 16); a narrowing
    dtype= leaves them one by one."""
    rng = np.random.default_rng(3 + np.dtype(dtype).itemsize)
    for k, n in ((3, 1 << 16), (7, 4096 + 64)):
        h = _host(rng, (k, n), dtype)
        hv, dv = h.T, cp.asarray(h).T
        ops = ("all", "any") if dtype == "bool" else ("sum", "max")
        for f in ops + (("sum",) if dtype == "bool" else ()):
            _check(cp, f, hv, dv, 1)
        if dtype == "float32":
            got = cp.asnumpy(xp.mean(dv, axis=1))
            np.testing.assert_allclose(got, np.mean(hv.astype(np.float64), axis=1),
                                       rtol=1e-6, atol=1e-7)
        if dtype == "int32":
            _check(cp, "sum", hv, dv, 1, dtype=np.int8)
            _check(cp, "sum", hv, dv, 1, dtype=np.int16)
