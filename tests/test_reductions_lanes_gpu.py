"""GPU tests of the "lanes" reduction strategy (``xs_reduce_lanes``): rows stored one
after another, a power of two of 16-byte chunks each, read as one flat array of chunks
and combined per row by shuffles. The association (each lane folds its chunk in
order, then a butterfly over the lanes) is fixed by the row length and the type, so
a NumPy model of it gives the same bits, aligned (16-byte loads) or not (element
loads); every op against NumPy. The pool is poisoned so that an output the kernel
does not write shows up."""

from __future__ import annotations

import numpy as np
import pytest

import xstride as xp
from tests.test_reductions_tile_gpu import _check, _random
from xstride._plans.reduction import plan_array

pytestmark = [pytest.mark.gpu, pytest.mark.usefixtures("poisoned_pool")]


def _model_sum(h):
    """The kernel's sum: float32/float64 rows into a float64 accumulator; lane l of G
    folds elements [l*E, (l+1)*E) in order; then acc[l] += acc[l ^ d], d = G/2 .. 1."""
    e = 16 // h.itemsize
    n, k = h.shape
    g = k // e
    acc = np.zeros((n, g), np.float64)
    chunks = h.reshape(n, g, e).astype(np.float64)
    for j in range(e):
        acc = acc + chunks[:, :, j]
    d = g // 2
    while d:
        acc = acc + acc[:, np.arange(g) ^ d]
        d //= 2
    return acc[:, 0].astype(h.dtype)


# 64-byte rows ((n, 16) of 4-byte types) are one thread's (lanes_ok leaves them "short")
@pytest.mark.parametrize("dtype, ks", [("float32", (4, 8, 32, 64)), ("float64", (2,)),
                                       ("int32", (4, 8, 64)), ("int64", (2,))])
def test_lanes_every_op_and_the_model_bits(cp, dtype, ks):
    rng = np.random.default_rng(31)
    for k in ks:
        for n in (256, 1001, 70_003):
            host = _random(rng, (n, k), dtype)
            x = cp.asarray(host)
            assert plan_array(x, (1,)).strategy == "lanes", (dtype, k)
            _check(cp, host, x, 1)
            if host.dtype.kind == "f":
                got = cp.asnumpy(xp.sum(x, axis=1))
                assert got.tobytes() == _model_sum(host).tobytes(), (dtype, k, n)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_lanes_misaligned_rows_give_the_aligned_bits(cp, dtype):
    """A base 4 or 8 bytes past a 16-byte boundary: element loads, the same fold."""
    rng = np.random.default_rng(32)
    k = 8 if dtype == "float32" else 2
    host = _random(rng, (5001 * k + 1,), dtype)
    buf = cp.asarray(host)
    aligned = buf[:-1].reshape(5001, k)
    shifted = buf[1:].reshape(5001, k)
    assert shifted.data.ptr % 16 != 0
    assert plan_array(shifted, (1,)).strategy == "lanes"
    copy = cp.ascontiguousarray(shifted.copy())
    for f in ("sum", "max", "mean", "var"):
        a = cp.asnumpy(getattr(xp, f)(shifted, axis=1))
        b = cp.asnumpy(getattr(xp, f)(copy, axis=1))
        assert a.tobytes() == b.tobytes(), f
    _check(cp, host[1:].reshape(5001, k), shifted, 1)
    _check(cp, host[:-1].reshape(5001, k), aligned, 1)


def test_lanes_all_any_and_nan(cp):
    rng = np.random.default_rng(33)
    host = _random(rng, (4096, 8), "float32")
    host[5, 3] = np.nan
    host[7] = 0.0
    x = cp.asarray(host)
    assert plan_array(x, (1,)).strategy == "lanes"
    np.testing.assert_array_equal(cp.asnumpy(xp.all(x, axis=1)), np.all(host, axis=1))
    np.testing.assert_array_equal(cp.asnumpy(xp.any(x, axis=1)), np.any(host, axis=1))
    np.testing.assert_array_equal(cp.asnumpy(xp.max(x, axis=1)), np.max(host, axis=1))
    np.testing.assert_array_equal(cp.asnumpy(xp.min(x, axis=1)), np.min(host, axis=1))
    # argmin/argmax of lanes rows run on their own kernels
    np.testing.assert_array_equal(cp.asnumpy(xp.argmax(x, axis=1)), np.argmax(host, axis=1))
