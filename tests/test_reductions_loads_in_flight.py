"""The loads a thread keeps in flight (the kernels' template argument B) where the
launcher lowers ``TUNING``'s B: which B the launch asks for, on the stand-in CuPy of
tests/test_reduction_host_path.py. B never changes the fold order (so the bits); the
"lanes" kernel runs one pass, its grid sized by the plan and the geometry alone, which
the tests check too."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import xstride as xp
from tests.conftest import FakeCupyArray
from tests.test_reduction_host_path import fake_reductions  # noqa: F401  (fixture)
from xstride._kernels import _reduce_common as rc
from xstride._kernels import reductions
from xstride._kernels._geometry import reduction_geometry
from xstride._plans.reduction import plan_reduction
from xstride.layout import Layout


def _data(shape, dtype):
    rng = np.random.default_rng(3)
    h = rng.standard_normal(shape) * 0.1 + 1
    if np.dtype(dtype).kind == "c":
        h = h + 1j * rng.standard_normal(shape) * 0.1
    return h.astype(dtype)


def _launch(log, func, h, axis):
    """The one reduction launch of ``func(h, axis=axis)``: (expr, grid, block)."""
    n = len(log)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        getattr(xp, func)(FakeCupyArray(h), axis=axis)
    got = [e for e in log[n:] if e[0].startswith("xs_reduce_")]
    assert len(got) == 1, log[n:]
    return got[0][:3]


def _one_pass_grid(x, axis):
    """The grid of a one-pass kernel: the plan's and the geometry's (no resident blocks)."""
    plan = plan_reduction(Layout.from_array(x), (axis,))
    geo = reduction_geometry(plan, x.itemsize, 132, x.data.ptr + plan.offset * x.itemsize,
                             side_by_side=True, words=rc.takes_words(x.dtype, np.float64),
                             narrow=True)
    assert geo.kernel in reductions._ONE_PASS
    return tuple(geo.grid)


@pytest.mark.parametrize("func", ["sum", "prod", "mean", "all", "any"])
def test_the_lanes_kernel_keeps_one_complex_chunk_in_flight(fake_reductions, func):  # noqa: F811
    """``mean(x, axis=1)`` of a complex64 (n, 2): rows of one 16-byte chunk on the
    "lanes" kernel. At ``TUNING["lanes"]``'s 2 chunks in flight ptxas 13 spilled 148
    bytes for the mean (``reductions.COMPLEX_LANES_BATCH``); the launch asks for 1, on
    the grid of the plan."""
    _, log = fake_reductions
    h = _data((4096, 2), np.complex64)
    expr, grid, _ = _launch(log, func, h, 1)
    assert expr.startswith("xs_reduce_lanes<"), expr
    assert expr.endswith(f", 2, {rc.TUNING['lanes'][0]}, {reductions.COMPLEX_LANES_BATCH}>"), expr
    assert reductions.COMPLEX_LANES_BATCH == 1 < rc.TUNING["lanes"][1]
    assert grid == _one_pass_grid(FakeCupyArray(h), 1)


def test_the_lanes_kernel_keeps_its_batch_for_real_elements(fake_reductions):  # noqa: F811
    _, log = fake_reductions
    expr, _, _ = _launch(log, "mean", _data((4096, 2), np.float64), 1)
    assert expr.startswith("xs_reduce_lanes<") and expr.endswith(
        f", {rc.TUNING['lanes'][0]}, {rc.TUNING['lanes'][1]}>"), expr
