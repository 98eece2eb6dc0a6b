"""GPU tests of the walk over two reduced axes (``xs_walk2``, detail/reduce_ops.cuh):
the element offset moved on by the walk's step (1 in the short kernel, 32 or 256 in
the row kernels, 8 rows in the column kernel) with one carry, against NumPy. The inner
reduced extent is taken below, at and above each step, so the carry (and the whole
extents a step skips) is met at every position. Integers must match exactly; float
sums lie within the bound of ``tests/test_reductions_gpu.py``; the pool is poisoned.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.test_reductions_gpu import _assert_sum_close

import xstride as xp

pytestmark = [pytest.mark.gpu, pytest.mark.usefixtures("poisoned_pool")]


def _check(cp, f, h, d, axis):
    got = cp.asnumpy(getattr(xp, f)(d, axis=axis))
    if f == "sum" and h.dtype == np.float32:
        _assert_sum_close(got, h, axis)
    elif f == "var":
        np.testing.assert_allclose(got, np.var(h.astype(np.float64), axis=axis),
                                   rtol=1e-5, atol=1e-6)
    else:
        np.testing.assert_array_equal(got, getattr(np, f)(h, axis=axis),
                                      err_msg=f"{f} {h.shape} {h.strides} {axis}")


@pytest.mark.parametrize("inner", [2, 3, 7, 8, 9, 31, 33, 255, 257, 1000])
def test_two_reduced_axes_of_every_inner_extent(cp, inner):
    """Two reduced axes that do not merge (checked on the plan), the second of
    ``inner`` elements: kept axes between them (the column kernel), kept axes outside
    (the row kernels, split and not), many short rows (the short kernel), strided and
    reversed views."""
    from xstride._plans.reduction import plan_array

    rng = np.random.default_rng(inner)
    g = rng.integers(-50, 50, (24, 5, inner, 16)).astype(np.int32)
    f = rng.standard_normal((4, 200, inner)).astype(np.float32)
    r = rng.integers(0, 9, (4000, 4, inner)).astype(np.int64)
    b = rng.random((24, 5, inner, 16)) < 0.97
    cases = [(g, lambda a: a, (0, 2)), (g, lambda a: a, (1, 3)),
             (g, lambda a: a[::-1, :, ::-1], (0, 2)), (g, lambda a: a[:, ::2], (1, 3)),
             (f, lambda a: a, (0, 2)), (f, lambda a: a[:, ::3], (0, 2)),
             (r, lambda a: a[:, ::2], (1, 2)), (r, lambda a: a[:, ::-2, ::-1], (1, 2)),
             (b, lambda a: a, (0, 2)), (b, lambda a: a[:, ::2], (1, 3))]
    for h, view, axis in cases:
        hv, dv = view(h), view(cp.asarray(h))
        assert plan_array(hv, axis).nr == 2, (h.shape, hv.strides, axis)
        funcs = ("all", "any") if h.dtype == bool else ("sum", "max") + (
            ("var",) if h.dtype == np.float32 else ())
        for fn in funcs:
            _check(cp, fn, hv, dv, axis)
