"""GPU tests of the two-pass reduction (``split_axes``): reduced axes on both sides of a
kept axis, against NumPy. Integers, min, max, all and any exactly; float sums within
the bound of docs/reductions.md; deterministic run to run; no prepared call of a
pass answers a later call of other dtypes. The pool is poisoned so that an output the
kernels do not write shows up."""

from __future__ import annotations

import array_api_compat.numpy as cnp
import numpy as np
import pytest

import xstride as xp
from tests.test_reductions_gpu import _assert_sum_close
from xstride._plans.reduction_split import split_axes

pytestmark = [pytest.mark.gpu, pytest.mark.usefixtures("poisoned_pool")]

CASES = [((32, 32, 48, 32), (1, 3)), ((32, 32, 48, 32), (0, 3)), ((64, 48, 512), (0, 2)),
         ((16, 32, 48, 64), (0, 1, 3)), ((32, 16, 64, 40), (0, 2, 3))]


def _random(rng, shape, dtype):
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return rng.random(shape) < 0.9
    if dt.kind == "f":
        return (rng.standard_normal(shape) * 3 + 0.5).astype(dt)
    return rng.integers(-50, 51, size=shape).astype(dt)


@pytest.mark.parametrize("shape, axes", CASES)
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64", "bool"])
def test_split_reductions_equal_numpy(cp, shape, axes, dtype):
    rng = np.random.default_rng(len(shape) * 7 + sum(axes))
    h = _random(rng, shape, dtype)
    x = cp.asarray(h)
    assert split_axes(x.shape, tuple(s // x.itemsize for s in x.strides), axes) is not None
    funcs = ("all", "any") if dtype == "bool" else ("sum", "mean", "min", "max", "all", "any")
    for f in funcs:
        for keepdims in (False, True):
            got = getattr(xp, f)(x, axis=axes, keepdims=keepdims)
            want = getattr(cnp, f)(h, axis=axes, keepdims=keepdims)
            assert got.dtype == want.dtype and got.shape == want.shape, (f, got.dtype)
            g = cp.asnumpy(got)
            again = cp.asnumpy(getattr(xp, f)(x, axis=axes, keepdims=keepdims))
            assert g.tobytes() == again.tobytes(), f"{f} not deterministic"
            if f == "sum" and h.dtype.kind == "f":
                _assert_sum_close(g, h, axes, keepdims)
            elif f == "mean":   # float64 means of means: within a few ulp of NumPy's
                rtol = 1e-6 if h.dtype == np.float32 else 1e-12
                np.testing.assert_allclose(g, want, rtol=rtol, atol=rtol, err_msg=f)
            else:
                np.testing.assert_array_equal(g, want, err_msg=f)


def test_split_of_reversed_and_strided_views(cp):
    rng = np.random.default_rng(5)
    h = rng.standard_normal((40, 40, 25, 64)).astype(np.float32)
    x = cp.asarray(h)
    for hv, xv, axes in [(h[::-1, :, :, ::-1], x[::-1, :, :, ::-1], (0, 3)),
                         (h[:, ::2], x[:, ::2], (0, 3)),
                         (np.transpose(h, (1, 0, 2, 3)), cp.transpose(x, (1, 0, 2, 3)), (1, 3))]:
        assert split_axes(xv.shape, tuple(s // xv.itemsize for s in xv.strides), axes)
        _assert_sum_close(cp.asnumpy(xp.sum(xv, axis=axes)), hv, axes)
        np.testing.assert_array_equal(cp.asnumpy(xp.max(xv, axis=axes)), hv.max(axis=axes))


def test_a_pass_is_not_kept_for_later_calls(cp):
    """The first pass sums float32 into float64 over axis 1 with keepdims: a user's
    ``sum(x, axis=1, keepdims=True)`` of the same array is float32 all the same."""
    x = cp.asarray(np.random.default_rng(1).standard_normal((32, 32, 48, 32)).astype(np.float32))
    for _ in range(3):
        xp.sum(x, axis=(1, 3))
    for _ in range(3):
        one = xp.sum(x, axis=1, keepdims=True)
        assert one.dtype == np.float32 and one.shape == (32, 1, 48, 32)
    y = cp.zeros((32, 1, 48, 32), dtype=cp.float64)
    for _ in range(3):
        two = xp.sum(y, axis=(1, 3))
        assert two.dtype == np.float64
