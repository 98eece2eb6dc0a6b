"""GPU tests of ``xs_reduce_rows_group``, fewer than 32 lanes a row
(``_geometry.warp_group``): medium rows (past the staged tile's 192 elements) of many
rows, where a group of 2-16 lanes takes each row and a warp 2-16 rows at once; against
NumPy, with rows starting off a 16-byte boundary, row counts that leave a warp's last
rows empty, a grid that walks the rows more than once, and ``xp.fuse`` (the same
kernel, a generated input) bit for bit against the unfused call. Each case asserts the
group it means to test, so none passes on the one-row warp. The pool is poisoned
(0xFF): an output the kernels do not write shows up."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from tests.test_reductions_gpu import _assert_sum_close

import xstride as xp
from xstride._kernels import _reduce_common as rc
from xstride._kernels._geometry import reduction_geometry, warp_group
from xstride._plans.reduction import plan_array

pytestmark = [pytest.mark.gpu, pytest.mark.usefixtures("poisoned_pool")]


def _expect(group, nrows, rowlen, vec):
    """The group the H200 (132 SMs) takes, the cases' reference; on another device the
    rule's own answer, and a skip where that is the whole warp (no group to test)."""
    if rc.sm_count() == 132:
        return group
    got = warp_group(nrows, rowlen, vec, rc.sm_count())
    if got == 32:
        pytest.skip(f"on a device of {rc.sm_count()} SMs these rows take the whole warp "
                    "(xs_reduce_rows_warp, tested elsewhere), not a group of lanes")
    return got


def _geometry(d):
    """The launch geometry of a reduction of ``d`` over its last axis."""
    plan = plan_array(d, (d.ndim - 1,))
    base = d.data.ptr + plan.offset * d.itemsize
    return reduction_geometry(plan, d.itemsize, rc.sm_count(), base, narrow=True)


def _host(rng, shape, dtype):
    dt = np.dtype(dtype)
    if dt.kind == "b":
        h = rng.random(shape) < 0.998
        h[0] = True
        return h
    if dt.kind == "f":
        return rng.standard_normal(shape).astype(dt)
    return rng.integers(-3, 4, shape).astype(dt)


def _check(cp, f, h, d):
    got = getattr(xp, f)(d, axis=-1)
    want = getattr(np, f)(h, axis=-1)
    assert got.dtype == want.dtype and got.shape == want.shape, (f, got.dtype, want.dtype)
    g = cp.asnumpy(got)
    if f == "sum" and h.dtype.kind == "f":
        _assert_sum_close(g, h, -1)
    elif h.dtype.kind == "f" and f in ("mean", "var", "std"):
        np.testing.assert_allclose(g, want, rtol=1e-4 if h.dtype == np.float32 else 1e-10,
                                   atol=1e-6, err_msg=f"{f} {h.shape}")
    else:
        np.testing.assert_array_equal(g, want, err_msg=f"{f} {h.shape}")


# (shape, dtype, columns taken, group expected)
_CASES = [
    ((20001, 200), "float32", slice(None), 8),    # the (n, 200): 50 words a row
    ((20001, 201), "float32", slice(1, None), 8),  # rows off a 16-byte boundary: scalar heads
    ((30001, 160), "float64", slice(None, None, 2), 16),   # 80 strided elements
    ((60003, 256), "bool", slice(None), 2),       # 16 words: 16 rows a warp
    ((30001, 300), "int32", slice(3, None), 16),  # rows start 12 bytes in, 75 words
    ((25001, 600), "int8", slice(None), 8),       # 38 words of 16 one-byte elements
    ((20001, 120), "int64", slice(None, None, 2), 8),      # 60 strided elements
    ((20001, 200), "float64", slice(None), 16),   # 100 words: 7 a lane of 16
    ((20001, 441), "float32", slice(1, None), 16),  # 110 words, rows 4 bytes in
]


@pytest.mark.parametrize("shape,dtype,cols,group", _CASES)
def test_grouped_rows_against_numpy(cp, shape, dtype, cols, group):
    rng = np.random.default_rng(shape[0])
    full = _host(rng, shape, dtype)
    h, d = full[:, cols], cp.asarray(full)[:, cols]
    geo = _geometry(d)
    group = _expect(group, h.shape[0], h.shape[1], geo.vec)
    assert (geo.kernel, geo.group) == ("rows_group", group), geo
    ops = (("all", "any") if dtype == "bool" else
           ("sum", "max", "min", "mean", "var", "std") if dtype.startswith("float")
           else ("sum", "max", "min"))
    for f in ops:
        _check(cp, f, h, d)


def test_rows_walked_more_than_once(cp):
    """More rows than one pass of the capped grid (32 blocks an SM) takes: each warp
    loops; the last pass leaves some warps' rows past the end."""
    sm = rc.sm_count()
    k = 520                                      # 33 words of int8: 8 lanes, 4 rows a warp
    passes = 32 * sm * 8 * 4
    n = passes + passes // 3 + 5
    h = np.random.default_rng(3).integers(-100, 100, (n, k)).astype(np.int8)
    d = cp.asarray(h)
    geo = _geometry(d)
    assert (geo.kernel, geo.group, geo.grid[0]) == ("rows_group", _expect(8, n, k, 16), 32 * sm), geo
    _check(cp, "max", h, d)
    _check(cp, "sum", h, d)


def test_few_rows_keep_the_full_warp(cp):
    """Few rows: every lane of a warp on one row, ``xs_reduce_rows_warp`` (warp_group
    doubles the group while the rows would leave SMs idle)."""
    h = np.random.default_rng(4).standard_normal((300, 200)).astype(np.float32)
    d = cp.asarray(h)
    geo = _geometry(d)
    assert (geo.kernel, geo.group) == ("rows_warp", 32)
    _check(cp, "sum", h, d)
    _check(cp, "max", h, d)


@pytest.mark.parametrize("dtype,k,group", [("float32", 200, 8), ("int32", 300, 16)])
def test_fused_grouped_rows_keep_the_unfused_bits(cp, dtype, k, group):
    """``xp.fuse`` launches the same kernel with a generated input and the same group:
    the same bits as the reduction of the stored intermediate."""
    rng = np.random.default_rng(5)
    a = cp.asarray((rng.standard_normal((20001, k)) * 50).astype(dtype))
    b = cp.asarray((rng.standard_normal((20001, k)) * 50).astype(dtype))
    geo = _geometry(a * b)
    assert (geo.kernel, geo.group) == ("rows_group", _expect(group, 20001, k, 4))
    fused = xp.fuse(lambda u, v: xp.sum(u * v, axis=1), strict=True)
    cp.testing.assert_array_equal(fused(a, b), xp.sum(a * b, axis=1))
    cp.testing.assert_array_equal(xp.max(a * b + 1, axis=1),
                                  xp.fuse(lambda u, v: xp.max(u * v + 1, axis=1))(a, b))


@st.composite
def _grouped_views(draw):
    """(host view, device view) of rows the group kernels take once any row count may
    have a group: contiguous 4-byte rows of 193-384 elements (past the staged tile;
    16-byte words), or rows of 33-96 elements two apart (element loads), under one or
    two kept axes, some starting off a 16-byte boundary or reversed."""
    dtype = draw(st.sampled_from(["float32", "int32", "float64", "int64"]))
    strided = dtype in ("float64", "int64") or draw(st.booleans())
    k = draw(st.integers(33, 96) if strided else st.integers(193, 384))
    lead = draw(st.sampled_from([(), (2,), (3,)]))
    rows = draw(st.integers(2, 300))
    start = draw(st.integers(0, 1))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    full = _host(rng, lead + (rows, start + (2 * k if strided else k)), dtype)
    cols = slice(start, None, 2) if strided else slice(start, None)
    if not strided and draw(st.booleans()):
        cols = slice(None, start - 1 if start else None, -1)   # reversed rows
    return full, (Ellipsis, cols)


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(drawn=_grouped_views())
def test_grouped_rows_of_random_layouts(cp, tuning, monkeypatch, drawn):
    """Random layouts on the group kernel: ``WARP_GROUP_MIN_WARPS`` 0 gives rows a
    group whatever their count (the kernels' index arithmetic then meets 1-600 rows,
    one or two kept axes, heads off 16-byte boundaries, reversed and strided rows), a
    tuning of their own keeps recipes built before out; each example asserts that the
    group kernels run."""
    import xstride._kernels._geometry as geometry
    from xstride._kernels.argreductions import arg_geometry
    from xstride._plans.argreduction import plan_arg_array

    monkeypatch.setattr(geometry, "WARP_GROUP_MIN_WARPS", 0)
    tuning(rows_group=(4, 2), arg_regs=4)
    full, idx = drawn
    view, d = full[idx], cp.asarray(full)[idx]
    assert d.shape == view.shape and d.strides == view.strides
    geo = _geometry(d)
    assert geo.kernel == "rows_group", (geo, view.shape, view.strides)
    for f in ("sum", "max", "min") + (("mean", "var") if view.dtype.kind == "f" else ()):
        got, want = cp.asnumpy(getattr(xp, f)(d, axis=-1)), getattr(np, f)(view, axis=-1)
        if f == "sum" and view.dtype.kind == "f":
            _assert_sum_close(got, view, -1)
        elif view.dtype.kind == "f" and f in ("mean", "var"):
            np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-6)
        else:
            np.testing.assert_array_equal(got, want, err_msg=f)
    if view.ndim == 2 and view.strides[-1] == view.itemsize:   # argmin/argmax by words
        assert arg_geometry(plan_arg_array(d, (1,)), rc.sm_count(), d.itemsize).kernel == "group"
    for f in ("argmin", "argmax"):
        np.testing.assert_array_equal(cp.asnumpy(getattr(xp, f)(d, axis=-1)),
                                      getattr(np, f)(view, axis=-1), err_msg=f)

