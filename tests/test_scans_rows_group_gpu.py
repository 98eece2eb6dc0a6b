"""GPU tests of the row scan by groups of lanes (``xs_scan_rows_group`` in
``scans_rows.cu``; ``_scan_geometry.scan_row_group`` picks the group): rows of 33-128
elements along the innermost axis (at the default tuning), against NumPy.

Integer data (and integer-valued floats, whose sums are exact) must match exactly;
float32 random data lies within the bound of ``tests/test_scans_gpu.py``
(``_scan_bound``). Each case asserts that the plan takes a group below the warp and
that the call built ``xs_scan_rows_group`` (the ``launched`` fixture), so no case
passes on another kernel. The kernel's indexing is modelled on the CPU in
``tests/test_scans_rows_group_model.py``.
"""

from __future__ import annotations

import array_api_compat.numpy as cnp
import numpy as np
import pytest

import xstride as xp
from xstride._kernels import _reduce_common as rc
from xstride._kernels import scans
from xstride._kernels._scan_geometry import scan_row_group
from xstride._kernels._lru import Bounded
from xstride._kernels._prepared import Store
from xstride._plans.scan import plan_scan
from xstride.layout import Layout
from tests.test_scans_gpu import _scan_bound

pytestmark = [pytest.mark.gpu, pytest.mark.usefixtures("poisoned_pool")]


def _group(d, axis=-1):
    """The plan's strategy and the group of a scan of device array ``d`` over ``axis``."""
    plan = plan_scan(Layout.from_array(d), axis % d.ndim, False, rc.sm_count())
    steps = rc.TUNING["scan_rows_group"][1]
    return plan.strategy, scan_row_group(plan.nrows, plan.length, steps, rc.sm_count())


def _expect(cp, d, axis=-1):
    """Assert that a scan of ``d`` takes the group kernel (a group below 32)."""
    strategy, group = _group(d, axis)
    assert strategy == "rows" and group < 32, (strategy, group, d.shape, d.strides)


@pytest.fixture
def launched(monkeypatch):
    """The template expressions of the scan kernels each call builds (empty recipe and
    prepared-call caches for the test, so that every call builds its own)."""
    exprs = []
    real = rc.kernel

    def kernel(src, expr, *args, **kwargs):
        exprs.append(expr)
        return real(src, expr, *args, **kwargs)

    monkeypatch.setattr(rc, "kernel", kernel)
    monkeypatch.setattr(scans, "_RECIPES", Bounded(64))
    monkeypatch.setattr(scans, "_PREPARED", Store(64))
    return exprs


def _ran_group(launched):
    assert launched and launched[-1].startswith("xs_scan_rows_group<"), launched[-1:]


# (full shape, columns taken, dtype): rows of 33-128 elements
_CASES = [
    # rows 136 bytes apart (dense rows of 33-63 4-byte elements take the warp scan)
    ((40_001, 34), slice(None, 33), "float32"),
    ((40_001, 50), slice(None, None, -1), "int32"),  # reversed rows, into int64
    ((30_001, 64), slice(None), "int64"),
    ((20_001, 101), slice(1, None), "float64"),      # rows starting 8 bytes in
    ((20_001, 256), slice(None, None, 2), "float32"),  # 128 elements two apart
    ((50_001, 40), slice(None), "bool"),             # into int64
    ((30_001, 100), slice(None), "float16"),         # into float16, carried in float64
]


@pytest.mark.parametrize("shape,cols,dtype", _CASES)
@pytest.mark.parametrize("include_initial", [False, True])
def test_grouped_row_scans_against_numpy(cp, launched, shape, cols, dtype, include_initial):
    rng = np.random.default_rng(shape[1])
    full = (rng.random(shape) < 0.5) if dtype == "bool" else \
        rng.integers(-20, 21, size=shape).astype(dtype)
    h, d = full[:, cols], cp.asarray(full)[:, cols]
    _expect(cp, d)
    got = xp.cumulative_sum(d, axis=1, include_initial=include_initial)
    _ran_group(launched)
    want = cnp.cumulative_sum(h, axis=1, include_initial=include_initial)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(cp.asnumpy(got), want)


def test_grouped_row_scans_of_random_floats_within_the_bound(cp, launched):
    rng = np.random.default_rng(5)
    h = rng.standard_normal((30_001, 77)).astype(np.float32)
    d = cp.asarray(h)
    _expect(cp, d)
    got = cp.asnumpy(xp.cumulative_sum(d, axis=1)).astype(np.longdouble)
    _ran_group(launched)
    exact, bound = _scan_bound(h, 1)
    assert np.all(np.abs(got - exact) <= bound)
    # the same bits run to run
    again = cp.asnumpy(xp.cumulative_sum(d, axis=1)).astype(np.longdouble)
    np.testing.assert_array_equal(got, again)


def test_grouped_row_products(cp, launched):
    rng = np.random.default_rng(6)
    h = rng.choice(np.array([-1, 1, 1, 2], np.int64), size=(20_001, 45))
    d = cp.asarray(h)
    _expect(cp, d)
    np.testing.assert_array_equal(cp.asnumpy(xp.cumulative_prod(d, axis=1)),
                                  np.cumprod(h, axis=1))
    _ran_group(launched)


def test_grouped_rows_under_two_row_axes_and_the_grid_walk(cp, launched):
    """Rows of a 3-D array (two row axes: the middle one sliced, so they do not merge)
    and more rows than one pass of the capped grid covers (32 blocks an SM of 8 warps,
    32 / group rows each)."""
    rng = np.random.default_rng(7)
    full = rng.integers(-9, 10, size=(600, 70, 41)).astype(np.int32)
    h, d = full[:, :35], cp.asarray(full)[:, :35]
    _expect(cp, d)
    plan = plan_scan(Layout.from_array(d), 2, False, rc.sm_count())
    assert plan.nk == 2, plan
    np.testing.assert_array_equal(cp.asnumpy(xp.cumulative_sum(d, axis=-1)),
                                  np.cumsum(h, axis=-1))
    _ran_group(launched)
    n = 32 * rc.sm_count() * 8 * (32 // 8) + 1001     # past one grid's rows at group 8
    h = rng.integers(-9, 10, size=(n, 33)).astype(np.int32)   # into int64: no warp scan
    d = cp.asarray(h)
    assert _group(d) == ("rows", 8)
    np.testing.assert_array_equal(cp.asnumpy(xp.cumulative_sum(d, axis=1)),
                                  np.cumsum(h, axis=1))
    _ran_group(launched)


def test_few_rows_keep_the_warp(cp, launched):
    """Rows too few to fill the device double their group up to the warp
    (``xs_scan_rows``), which scans them as before."""
    h = np.random.default_rng(8).integers(-9, 10, size=(300, 60)).astype(np.float64)
    d = cp.asarray(h)
    assert _group(d) == ("rows", 32)
    np.testing.assert_array_equal(cp.asnumpy(xp.cumulative_sum(d, axis=1)),
                                  np.cumsum(h, axis=1))
    assert launched[-1].startswith("xs_scan_rows<"), launched[-1]


@pytest.mark.parametrize("knob", rc.VARIANTS["scan_rows_group"])
def test_every_tuning_of_the_group_scan(cp, tuning, launched, knob):
    tuning(scan_rows_group=knob)
    rng = np.random.default_rng(9)
    for k in (33, 40, 60):
        # rows k + 1 elements apart: dense rows of 33-63 4-byte elements take the warp scan
        full = rng.integers(-50, 51, size=(40_001, k + 1)).astype(np.float32)
        h, d = full[:, :k], cp.asarray(full)[:, :k]
        _expect(cp, d)
        np.testing.assert_array_equal(cp.asnumpy(xp.cumulative_sum(d, axis=1)),
                                      np.cumsum(h, axis=1))
        _ran_group(launched)
        assert launched[-1].endswith(f", {knob[0]}, {knob[1]}>"), launched[-1]
