"""CPU tests of the scan plans (:mod:`xstride._plans.scan`): the strategy each layout
takes, the short-row scan's tile rows, and an interpreter of the plan against
``xp.cumulative_sum`` over many views (the helpers are the reduction plan tests')."""

from __future__ import annotations

import numpy as np
import pytest

import xstride as xp
from xstride._plans.reduction import SHORT_MIN_ROWS, SHORT_ROWLEN
from xstride._plans.scan import TILE_MAX_SERIES, TILE_MAX_SERIES_SPAN, plan_scan, tile_series_ok
from xstride.layout import Layout
from tests.test_reduction_plan import _lay, _offsets, _views


@pytest.mark.parametrize("length", [1, 2, 3, 7, 16, 31, 32])
@pytest.mark.parametrize("init", [0, 1])
@pytest.mark.parametrize("sizes", [(4, 4), (4, 8), (1, 8), (8, 8), (2, 2)])
def test_scan_tile_rows(length, init, sizes):
    from xstride._kernels._scan_geometry import scan_tile_bytes, scan_tile_loads, scan_tile_rows

    tin, tout = sizes
    rows, off = scan_tile_rows(length, init, tin, tout, 32768)
    for tile in (8192, 16384, 32768):    # the threads' loads cover a tile's whole input
        r, _ = scan_tile_rows(length, init, tin, tout, tile)
        assert r * length <= scan_tile_loads(tile, tin, tout) * 256
        staged = scan_tile_bytes(tile, tin, tout)             # at most 16 loads a thread
        assert staged <= tile and scan_tile_loads(staged, tin, tout) <= 16
        assert staged == tile or scan_tile_loads(staged, tin, tout) == 16
    pad = lambda n: n + n // 32 + 1  # noqa: E731
    assert off % 16 == 0 and off >= pad(rows * length) * tin
    assert off + pad(rows * (length + init)) * tout <= 32768
    off2 = -(-pad((rows + 1) * length) * tin // 16) * 16
    assert off2 + pad((rows + 1) * (length + init)) * tout > 32768   # the most that fit
    with pytest.raises(ValueError, match="does not fit"):
        scan_tile_rows(5000, init, tin, tout, 4096)


def test_scan_strategies():
    assert plan_scan(_lay((1 << 28,)), 0, False).strategy == "lookback"
    assert plan_scan(_lay((409600, 640)), 1, False).strategy == "rows"
    assert plan_scan(_lay((640, 409600)), 0, False).strategy == "columns"
    assert plan_scan(_lay((4, 1 << 20)), 0, False).strategy == "columns"
    assert plan_scan(_lay((3, 1 << 20)), 1, False).strategy == "lookback"
    assert plan_scan(_lay((1 << 20, 3)), 0, False).strategy == "columns_split"
    # short rows, many of them: a thread per row (the warp kernel would idle its
    # lanes), from a staged tile when the rows are dense
    assert plan_scan(_lay((1 << 20, 3)), 1, False).strategy == "tile"
    assert plan_scan(_lay((1 << 20, SHORT_ROWLEN)), 1, True).strategy == "tile"
    assert plan_scan(_lay((64, 1 << 14, 3)), 2, True).strategy == "tile"
    assert plan_scan(_lay((1 << 20, 6)).slice((slice(None), slice(None, 3))), 1,
                     False).strategy == "columns"
    assert plan_scan(_lay((1 << 20, 3)).slice((slice(None, None, -1),)), 1,
                     False).strategy == "columns"
    # rows whose elements are reversed (x[:, ::-1]) are the same dense span: "tile",
    # read from the rows' other ends; reversed rows and elements (x[::-1, ::-1]) not
    p = plan_scan(_lay((1 << 20, 5)).slice((slice(None), slice(None, None, -1))), 1, True)
    assert p.strategy == "tile" and p.s_in == -1 and p.s_out == 1 and p.kstride == (5,)
    assert p.offset == 4 and p.out_strides == (6, 1)
    assert plan_scan(_lay((1 << 20, 5)).slice((slice(None, None, -1), slice(None, None, -1))),
                     1, False).strategy == "columns"
    # C series side by side in dense rows (axis 1 of (m, L, C)): "tile" with the outer
    # rows staged; not when the rows have gaps, the series are strided, or C > 32
    p = plan_scan(_lay((1 << 18, 8, 3)), 1, True)
    assert p.strategy == "tile" and p.kshape == (1 << 18, 3) and p.kstride == (24, 1)
    assert p.s_in == 3 and p.s_out == 3 and p.kout == (27, 1)
    assert plan_scan(_lay((1 << 15, 3, 4, 8)), 2, False).strategy == "tile"
    assert plan_scan(_lay((1 << 18, 8, TILE_MAX_SERIES)), 1, True).strategy == "tile"
    assert plan_scan(_lay((1 << 18, 7, TILE_MAX_SERIES + 1)), 1, False).strategy != "tile"
    assert plan_scan(_lay((1 << 18, 9, TILE_MAX_SERIES)), 1, False).strategy != "tile"
    # series of one element: "columns" with or without the initial element
    assert plan_scan(_lay((1 << 18, 1, 3)), 1, True).strategy == "columns"
    assert plan_scan(_lay((1 << 18, 1, 3)), 1, False).strategy == "columns"
    assert plan_scan(_lay((1 << 18, 8, 3)).slice((slice(None), slice(None, None, 2))), 1,
                     False).strategy == "columns"
    assert plan_scan(_lay((1 << 18, 8, 4)).slice((slice(None), slice(None), slice(0, 3))),
                     1, False).strategy == "columns"
    assert plan_scan(_lay((1 << 18, SHORT_ROWLEN + 1, 3)), 1, False).strategy != "tile"
    assert plan_scan(_lay((8, 8, 3)), 1, False).strategy != "tile"     # too few series


def test_tile_series_ok_needs_every_condition():
    args = ((100, 3), (24, 1), (27, 1), 3, 3, 8, 1)
    assert tile_series_ok(*args)
    assert tile_series_ok((100, 3), (24, 1), (24, 1), 3, 3, 8, 0)
    for i, bad in [(0, (100,)), (0, (100, 1)), (0, (100, 33)), (0, (100, 3, 2)),
                   (1, (24, 2)), (1, (25, 1)), (2, (27, 2)), (2, (24, 1)), (3, 6), (4, 6),
                   (5, 9), (6, 0)]:
        changed = list(args)
        changed[i] = bad
        assert not tile_series_ok(*changed), (i, bad)
    # a series of one element, and rows past TILE_MAX_SERIES_SPAN elements
    assert not tile_series_ok((100, 3), (3, 1), (6, 1), 3, 3, 1, 1)
    assert tile_series_ok((100, 32), (256, 1), (288, 1), 32, 32, 8, 1)
    assert 8 * 32 == TILE_MAX_SERIES_SPAN
    assert not tile_series_ok((100, 32), (288, 1), (320, 1), 32, 32, 9, 1)
    # the longest row of series fits every measured TUNING["scan_tile"] (8, 16, 32 KiB)
    from xstride._kernels._scan_geometry import scan_tile_bytes, scan_tile_rows

    for tile in (8192, 16384, 32768):
        for tin, tout in ((8, 8), (1, 8), (1, 1), (4, 4), (2, 8)):
            rows, _ = scan_tile_rows(TILE_MAX_SERIES_SPAN, TILE_MAX_SERIES, tin, tout,
                                     scan_tile_bytes(tile, tin, tout))
            assert rows >= 1


def _run_scan_plan(base, view, axis, include_initial):
    lay = Layout.from_array(view)
    start = (view.__array_interface__["data"][0] - base.__array_interface__["data"][0])
    lay = lay.replace(offset=start // view.itemsize)
    plan = plan_scan(lay, axis, include_initial)
    size = int(np.prod(plan.out_shape))
    buf = np.full(size, -999, dtype=np.int64)
    init = int(include_initial)
    if plan.strategy not in ("empty", "fill"):
        ki = _offsets(plan.kshape, plan.kstride)
        ko = _offsets(plan.kshape, plan.kout)
        for i, o in zip(ki, ko):
            vals = base[plan.offset + i + np.arange(plan.length) * plan.s_in]
            if init:
                buf[o] = 0
            buf[o + (np.arange(plan.length) + init) * plan.s_out] = np.cumsum(vals)
    elif plan.strategy == "fill":
        buf[:] = 0
    out = np.lib.stride_tricks.as_strided(buf, plan.out_shape,
                                          tuple(s * 8 for s in plan.out_strides))
    return out, plan


@pytest.mark.parametrize("include_initial", [False, True])
def test_scan_plan_matches_numpy(include_initial):
    rng = np.random.default_rng(7)
    base = rng.integers(-50, 50, size=120).astype(np.int64)
    for view in _views(rng, base):
        for axis in range(view.ndim):
            got, plan = _run_scan_plan(base, view, axis, include_initial)
            want = xp.cumulative_sum(view, axis=axis, include_initial=include_initial)
            np.testing.assert_array_equal(got, want)
            # every output element is written exactly once (no -999 left)
            assert not np.any(got == -999)


@pytest.mark.parametrize("nrows,length,steps,group", [
    (1 << 22, 33, 4, 4),       # (n, 33): 16 elements a step, 3 of the 4 steps loaded
    (1 << 22, 64, 4, 4),       # exactly one load of 4 steps
    (1 << 22, 65, 4, 8),
    (1 << 20, 256, 4, 16),     # the longest rows of a group at 4 steps
    (1 << 20, 257, 4, 32),     # a warp a row (xs_scan_rows)
    (1 << 20, 100, 2, 16),     # 2 steps loaded together: twice the lanes
    (3000, 33, 4, 32),         # few rows: doubled up to the warp
    (25344, 33, 4, 4),         # 25344 * 4 lanes fill 24 warps on each of 132 SMs
    (25343, 33, 4, 8),
])
def test_scan_row_group(nrows, length, steps, group):
    """The row scan's lanes a row (``_scan_geometry.scan_row_group``): the fewest that load a
    row in one batch of ``steps`` steps of 4 elements a lane, doubled while the device
    would hold fewer than 24 warps an SM."""
    from xstride._kernels._scan_geometry import scan_row_group

    assert scan_row_group(nrows, length, steps, 132) == group


def test_row_scan_kernels_compile_with_the_packed_parameter_sizes():
    """scans_rows.cu compiles under NVRTC (sm_90) for the types and tunings the executor
    launches: ``xs_scan_rows_group`` with x, out, the descriptor, nrows, length and the
    group; ``xs_scan_rows`` without the group."""
    from tests.test_cuda_headers_nvrtc import compile_named, nvrtc, ptx_param_sizes
    from xstride._kernels import _reduce_common as rc
    from xstride._kernels._compile import source

    if nvrtc is None:
        pytest.skip("cuda-bindings/nvrtc not importable")
    types = ((0, "float", "double", "float"), (1, "int", "long long", "long long"),
             (0, "xs_half", "double", "xs_half"), (0, "bool", "long long", "long long"),
             (0, "double", "double", "double"))
    groups = [f"xs_scan_rows_group<{op}, {t}, {acc}, {out}, {cap}, {minb}, {u}>"
              for op, t, acc, out in types for cap in (1, 4)
              for minb, u in rc.VARIANTS["scan_rows_group"]]
    warps = [f"xs_scan_rows<{op}, {t}, {acc}, {out}, 1, {rc.TUNING['scan_rows']}>"
             for op, t, acc, out in types]
    lowered, ptx = compile_named(source("scans_rows.cu"), groups + warps, "sm_90",
                                 "scans_rows.cu")
    for name in groups + warps:
        sizes = ptx_param_sizes(ptx, lowered[name])
        assert sizes[:2] == [8, 8] and sizes[3:] == [8] * (3 if name in groups else 2), name
