"""GPU tests of the "columns_chunks" scan (many series scanned over an outer axis, cut
into chunks; ``scans_chunks.cu``): bit for bit the NumPy model of its two kernels
(``tests/test_scans_chunks.py``), integers equal to NumPy, floats within the bound of
docs/reductions.md, views (reversed, sliced, transposed, a middle axis of three) and
``include_initial``."""

from __future__ import annotations

import numpy as np
import pytest

import xstride as xp
from xstride._plans.scan import plan_scan
from xstride.layout import Layout
from tests.test_reductions_gpu import _random
from tests.test_scans_chunks import chunk_model
from tests.test_scans_columns_gpu import _check

pytestmark = [pytest.mark.gpu, pytest.mark.usefixtures("poisoned_pool")]

_ACC = {"float32": np.float64, "float64": np.float64, "int64": np.int64, "int32": np.int64,
        "int8": np.int64, "bool": np.int64, "uint32": np.uint64}


def _plan(x, axis, ii=False):
    return plan_scan(Layout.from_array(x), axis, ii)


def _series(h, axis):
    """The host input as (length, nseries) in the plan's series order (memory order)."""
    moved = np.moveaxis(h, axis, 0)
    return moved.reshape(moved.shape[0], -1)


@pytest.mark.parametrize("dt", ["float32", "float64", "int64", "int32", "int8", "bool",
                                "uint32"])
@pytest.mark.parametrize("shape", [(4096, 3000), (1500, 7, 9), (1024, 20000), (4096, 3),
                                   (20000, 700)])
def test_sum_is_the_model_bit_for_bit(cp, dt, shape):
    rng = np.random.default_rng(len(shape) + shape[-1])
    h = _random(rng, shape, dt)
    x = cp.asarray(h)
    p = _plan(x, 0)
    assert p.strategy == "columns_chunks" and p.chunks > 1
    for ii in (False, True):
        got = xp.cumulative_sum(x, axis=0, include_initial=ii)
        want_dt = np.asarray(got.get()).dtype
        model = chunk_model(_series(h, 0), p.chunks, "sum", _ACC[dt], int(ii))
        want = model.astype(want_dt).reshape((shape[0] + int(ii),) + shape[1:])
        np.testing.assert_array_equal(got.get(), want)
        _check(got, h, 0, ii, f"{shape} {dt} include_initial={ii}")
        again = xp.cumulative_sum(x, axis=0, include_initial=ii)   # the prepared call
        assert bool((again == got).all())


@pytest.mark.parametrize("dt", ["float64", "int64", "int32"])
def test_prod_is_the_model(cp, dt):
    rng = np.random.default_rng(7)
    h = (rng.integers(-1, 2, size=(1100, 2000)) | 1).astype(dt)
    if dt == "float64":
        h = h * rng.choice([0.5, 1.0, 2.0], size=h.shape)
    x = cp.asarray(h)
    p = _plan(x, 0)
    assert p.strategy == "columns_chunks"
    got = xp.cumulative_prod(x, axis=0).get()
    want = chunk_model(h, p.chunks, "prod", _ACC[dt], 0).astype(got.dtype)
    np.testing.assert_array_equal(got, want)
    if dt != "float64":
        np.testing.assert_array_equal(got, np.cumprod(h, axis=0, dtype=got.dtype))


@pytest.mark.parametrize("view", ["reversed", "columns", "transposed", "middle", "offset"])
def test_views(cp, view):
    rng = np.random.default_rng(11)
    base = _random(rng, (2048, 4000), "float32")
    x0 = cp.asarray(base)
    h, x, axis = {
        "reversed": (base[::-1], x0[::-1], 0),
        "columns": (base[:, 1::3], x0[:, 1::3], 0),
        "transposed": (base.T, x0.T, 1),
        "middle": (base.reshape(2, 1024, 4000), x0.reshape(2, 1024, 4000), 1),
        "offset": (base[5:, 7:], x0[5:, 7:], 0),
    }[view]
    p = _plan(x, axis)
    assert p.strategy == "columns_chunks", p
    for ii in (False, True):
        got = xp.cumulative_sum(x, axis=axis, include_initial=ii)
        _check(got, np.ascontiguousarray(h), axis, ii, f"{view} include_initial={ii}")
