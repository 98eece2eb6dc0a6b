"""CPU tests of two reduction-plan decisions: ``split_axes`` (when a reduction runs as
two passes) and the rows side by side of the columns and short kernels, and the warp
groups' geometry (a few lanes a row)."""

from __future__ import annotations

import numpy as np
import pytest

from xstride._kernels._geometry import reduction_geometry
from xstride._plans.reduction import plan_reduction
from xstride._plans.reduction_split import SPLIT_MIN_OUTER, SPLIT_MIN_SIZE, split_axes
from xstride.layout import Layout


def _lay(shape, itemsize=4):
    return Layout(shape, itemsize=itemsize)


# ----------------------------------------------------------------- split_axes


def _c_strides(shape):
    out, acc = [], 1
    for n in reversed(shape):
        out.append(acc)
        acc *= n
    return tuple(reversed(out))


@pytest.mark.parametrize("shape, axes, want", [
    ((64, 64, 384, 64), (1, 3), ((1,), (3,))),
    ((64, 64, 384, 64), (0, 3), ((0,), (3,))),
    ((256, 256, 1536), (0, 2), ((0,), (2,))),
    ((64, 64, 384, 64), (0, 1, 3), ((0, 1), (3,))),
    ((64, 64, 384, 64), (2, 3), None),          # a contiguous suffix: one pass
    ((64, 64, 384, 64), (0, 1), None),          # a prefix: columns, one pass
    ((64, 64, 384, 64), (0, 1, 2, 3), None),    # nothing kept
    ((16, 64, 4096), (0, 2), None),             # 16 rows per intermediate element: too few
    ((16, 16, 16), (0, 2), None),               # too small
    ((64, 1, 64, 384, 64), (1, 2, 4), ((2,), (4,))),   # size-1 axes count for nothing
])
def test_split_axes_of_c_ordered_arrays(shape, axes, want):
    assert split_axes(shape, _c_strides(shape), axes) == want


def test_split_axes_thresholds_and_signs():
    shape = (SPLIT_MIN_OUTER, 64, SPLIT_MIN_SIZE // (SPLIT_MIN_OUTER * 64))
    assert split_axes(shape, _c_strides(shape), (0, 2)) == ((0,), (2,))
    small = (SPLIT_MIN_OUTER - 1,) + shape[1:]
    assert split_axes(small, _c_strides(small), (0, 2)) is None
    neg = tuple(-s for s in _c_strides(shape))     # reversed views: signs ignored
    assert split_axes(shape, neg, (0, 2)) == ((0,), (2,))
    fortran = tuple(reversed(_c_strides(tuple(reversed(shape)))))
    assert split_axes(shape, fortran, (0, 2)) == ((2,), (0,))


def test_columns_vector_takes_rows_side_by_side_only():
    """The "columns" scan moves V rows per 16-byte access only where the rows are
    adjacent in input and output and every step is whole vectors of one size."""
    from xstride._kernels._scan_geometry import columns_vector
    from xstride._plans.scan import plan_scan
    from xstride.layout import Layout

    def v(x, ax, out_size=None):
        p = plan_scan(Layout.from_array(x), ax, False)
        assert p.strategy == "columns"
        return columns_vector(p, x.itemsize, out_size or x.itemsize)

    n = 1 << 12
    assert v(np.zeros((3, n), np.float32).T, 1) == 4
    assert v(np.zeros((5, n), np.float64).T, 1) == 2
    assert v(np.zeros((5, n), np.int64).T, 1) == 2
    assert v(np.zeros((3, n), np.float32).T, 1, out_size=8) == 1     # int32 -> int64 sums
    assert v(np.zeros((3, n), np.int8).T, 1) == 1
    assert v(np.zeros((3, n + 2), np.float32)[:, 1:-1].T, 1) == 1    # a step not whole vectors
    assert v(np.zeros((3, n + 2), np.float32)[:, :-2].T, 1) == 1
    assert v(np.zeros((3, n + 1), np.float32)[:, :-1].T, 1) == 1
    assert v(np.zeros((3, n + 4), np.float32)[:, 1:-3].T, 1) == 4    # alignment: the kernel's
    assert v(np.zeros((3, n - 2), np.float32).T, 1) == 1             # rows not whole vectors
    assert v(np.zeros((n, 6), np.float32)[:, ::2], 1) == 1           # rows not side by side


def test_short_rows_side_by_side_only_where_asked_and_whole():
    """The "short" kernel takes W = 16 // itemsize rows a thread only for the plain
    reductions (``side_by_side``), rows of one kept axis of stride 1 and one reduced
    axis, a row count and reduced stride in whole W, and a 16-byte aligned base."""
    from xstride._kernels._geometry import reduction_geometry
    from xstride._plans.reduction import plan_array

    def vec(x, axes, base=0, side=True):
        p = plan_array(x, axes)
        assert p.strategy == "short"
        return reduction_geometry(p, x.itemsize, 132, base, side_by_side=side).vec

    n = 4096
    assert vec(np.zeros((3, n), np.float32).T, (1,)) == -4
    assert vec(np.zeros((3, n), np.float32).T, (1,), side=False) == 1
    assert vec(np.zeros((3, n), np.float32).T, (1,), base=4) == 1
    assert vec(np.zeros((3, n), np.float64).T, (1,)) == 1               # 8-byte: one a thread
    assert vec(np.zeros((3, n), np.int16).T, (1,)) == -8
    assert vec(np.zeros((3, n), np.bool_).T, (1,)) == -16
    assert vec(np.zeros((3, n + 2), np.float32)[:, :n].T, (1,)) == 1    # stride n + 2
    assert vec(np.zeros((3, n - 2), np.float32).T, (1,)) == 1           # rows not whole W
    assert vec(np.zeros((2, 3, n), np.float32).transpose(2, 0, 1), (1, 2)) == -4  # one run
    assert vec(np.zeros((2, 4, n), np.float32)[:, :3].transpose(2, 0, 1), (1, 2)) == 1
    assert vec(np.zeros((n, 6), np.float32)[:, ::2], (1,)) == 1         # not side by side
    g = reduction_geometry(plan_array(np.zeros((3, n), np.float32).T, (1,)), 4, 132, 0,
                           side_by_side=True)
    assert g.grid == (n // 4 // 256,)                                   # a thread per W rows


# ----------------------------------------------------------------------------- warp groups
@pytest.mark.parametrize("nrows,rowlen,vec,group", [
    (167772, 200, 4, 8),      # (n, 200) float32: 50 words, 7 a lane
    (16777, 2000, 4, 32),     # 500 words: 16 a lane even with 32 lanes
    (65536, 256, 2, 32),      # (n, 256) float64: 128 words, past WARP_GROUP_MOST_LOADS
    (65536, 224, 2, 16),      # (n, 224) float64: 112 words, 7 a lane of 16
    (65536, 226, 2, 32),      # 113 words: the warp
    (65536, 90, 1, 16),       # 90 strided elements: 6 a lane
    (524288, 600, 16, 8),     # (n, 600) int8: 38 words of 16
    (524288, 1000, 16, 32),   # 63 words of 16: past WARP_GROUP_MOST_BYTE_LOADS
    (524288, 256, 16, 2),     # (n, 256) bool: 16 words
    (300, 200, 4, 32),        # few rows: doubled up to the whole warp
    (12672, 200, 4, 8),       # 12672 * 8 lanes fill 24 warps on each of 132 SMs
    (12671, 200, 4, 16),      # ... 12671 * 8 do not
    (1 << 20, 8, 1, 1),       # 8 loads: one lane (rows this short run other kernels)
])
def test_warp_group_gives_each_lane_a_few_loads(nrows, rowlen, vec, group):
    from xstride._kernels._geometry import warp_group

    assert warp_group(nrows, rowlen, vec, 132) == group


def test_rows_warp_geometry_carries_its_group():
    """The launch of (n, 200) float32 rows: 8 lanes a row, a warp for every 4 rows, the
    grid capped at 32 blocks an SM; the one-row warp's launch for few rows."""
    n = (1 << 25) // 200
    g = reduction_geometry(plan_reduction(_lay((n, 200)), (1,)), 4, 132)
    assert (g.kernel, g.group, g.vec) == ("rows_group", 8, 4)
    assert g.grid == (min(-(-(-(-n * 8 // 32)) // 8), 32 * 132),)
    few = reduction_geometry(plan_reduction(_lay((300, 200)), (1,)), 4, 132)
    assert (few.kernel, few.group, few.grid) == ("rows_warp", 32, (38,))


@pytest.mark.parametrize("nrows,group,blocks", [(1000, 8, 3), (37, 4, 1), (5000, 2, 2),
                                                (999, 32, 5), (12, 1, 1)])
def test_rows_warp_lanes_take_every_row_once(nrows, group, blocks):
    """A model of ``xs_reduce_rows_group``'s loop (reductions.cu), lane by lane: each row
    is taken by exactly ``group`` lanes of one warp, lanes 0..group-1 of its group, in
    one pass of that warp; a warp's passes are the same for all its lanes (every lane
    reaches the shuffles), and rows past the end are never stored."""
    threads = 256
    per, step = 32 // group, (blocks * threads >> 5) * (32 // group)
    seen = {}
    for b in range(blocks):
        for w in range(threads // 32):
            passes = set()
            for lane in range(32):
                t = w * 32 + lane
                row = ((b * threads + t) >> 5) * per + lane // group
                count = 0
                while row - lane // group < nrows:
                    if row < nrows:
                        seen.setdefault(row, []).append((b, w, lane % group))
                    row += step
                    count += 1
                passes.add(count)
            assert len(passes) == 1, (b, w, passes)
    assert sorted(seen) == list(range(nrows))
    for row, takers in seen.items():
        assert len({(b, w) for b, w, _ in takers}) == 1, row
        assert sorted(s for _, _, s in takers) == list(range(group)), row
