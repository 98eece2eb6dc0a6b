"""The "columns_split" scan's plan and launch geometry on the CPU: which layouts take it,
every condition of its choice, the rows its geometry covers, the sizes it refuses, and
the padding that puts a warp on distinct banks (split from tests/test_scans_columns.py,
past 560 lines)."""

from __future__ import annotations

import numpy as np
import pytest

from xstride._kernels._colsplit_geometry import _distinct_banks, colsplit_geometry
from xstride._plans.scan import (COLSPLIT_MAX_COLS, COLSPLIT_MIN_LENGTH, colsplit_ok,
                                 plan_scan)
from xstride.layout import Layout


def _lay(shape, itemsize=4):
    return Layout(shape, itemsize=itemsize)


# ----------------------------------------------------------------------------- plan
@pytest.mark.parametrize("k", [2, 3, 7, 16, COLSPLIT_MAX_COLS])
@pytest.mark.parametrize("include_initial", [False, True])
def test_contiguous_columns_take_columns_split(k, include_initial):
    for n in (COLSPLIT_MIN_LENGTH, 1 << 20, (1 << 20) + 7):
        p = plan_scan(_lay((n, k)), 0, include_initial)
        assert p.strategy == "columns_split", (n, k)
        assert p.kshape == (k,) and p.kstride == (1,) and p.kout == (1,)
        assert p.s_in == k and p.s_out == k and p.length == n
    # negative axis, an offset (a slice of whole rows), 8-byte and 1-byte elements
    assert plan_scan(_lay((1 << 20, k)), 0, False).strategy == "columns_split"
    assert plan_scan(_lay((1 << 20, k)).slice((slice(5, None),)), 0,
                     include_initial).strategy == "columns_split"
    assert plan_scan(_lay((1 << 20, k), 8), 0, False).strategy == "columns_split"
    assert plan_scan(_lay((1 << 20, k), 1), 0, False).strategy == "columns_split"
    # rows reversed (x[::-1]): the same block read from its last row
    rev = _lay((1 << 20, k)).slice((slice(None, None, -1),))
    p = plan_scan(rev, 0, include_initial)
    assert (p.strategy, p.s_in, p.s_out) == ("columns_split", -k, k)


def test_other_layouts_keep_their_strategies():
    n = 1 << 20
    # too short, too wide, k = 1 (flat), and views that are not one contiguous block
    # (too short for columns_split: three series of 4096, cut into chunks; scan_chunks.py)
    assert plan_scan(_lay((COLSPLIT_MIN_LENGTH - 1, 3)), 0, False).strategy == "columns_chunks"
    assert plan_scan(_lay((4096, 3)), 0, True).strategy == "columns_chunks"
    assert plan_scan(_lay((n, COLSPLIT_MAX_COLS + 1)), 0, False).strategy == "columns_chunks"
    assert plan_scan(_lay((n, 1)), 0, False).strategy == "lookback"
    assert plan_scan(_lay((n,)), 0, False).strategy == "lookback"
    colrev = _lay((n, 3)).slice((slice(None), slice(None, None, -1)))
    assert plan_scan(colrev, 0, False).strategy != "columns_split"
    assert plan_scan(_lay((n, 6)).slice((slice(None), slice(None, 3))), 0,
                     False).strategy == "lookback"
    assert plan_scan(_lay((n, 6)).slice((slice(None), slice(None, None, 2))), 0,
                     False).strategy == "lookback"
    assert plan_scan(_lay((2 * n, 3)).slice((slice(None, None, 2),)), 0,
                     False).strategy == "lookback"
    assert plan_scan(_lay((3, n)).permute((1, 0)), 0, False).strategy == "lookback"
    assert plan_scan(_lay((4, n, 3)), 1, False).strategy != "columns_split"
    assert plan_scan(_lay((n, 3)), 1, False).strategy == "tile"


def test_colsplit_ok_needs_every_condition():
    args = ((3,), (1,), (1,), 3, 3, 5000)
    assert colsplit_ok(*args)
    assert colsplit_ok((3,), (1,), (1,), -3, 3, 5000)     # rows reversed
    for i, bad in [(0, (1,)), (0, (33,)), (0, (3, 2)), (1, (2,)), (2, (2,)), (3, 4),
                   (3, -4), (4, 4), (4, -3), (5, 4096)]:
        changed = list(args)
        changed[i] = bad
        assert not colsplit_ok(*changed), (i, bad)


# ----------------------------------------------------------------------------- geometry
@pytest.mark.parametrize("k", [*range(2, 33), 33, 50, 64, 85, 86, 100, 128, 129, 200, 255, 256])
@pytest.mark.parametrize("sizes", [(4, 4), (8, 8), (1, 8), (4, 8)])
def test_geometry_covers_the_rows(k, sizes):
    for n in (1, 4097, 100_003, 1 << 25):
        for sm in (1, 132):
            g = colsplit_geometry(n, k, *sizes, sm)
            assert g.threads == g.m * k <= 256 and g.threads > 256 - k
            assert g.tile_rows == g.m * g.run and g.chunk_rows % g.tile_rows == 0
            assert (g.chunks - 1) * g.chunk_rows < n <= g.chunks * g.chunk_rows
            assert g.chunks <= 4 * sm
            assert 0 <= g.pad < 32
            slots = g.m * (g.run * k + g.pad)
            if sizes[0] == sizes[1]:
                assert g.out_offset == 0 and g.smem == slots * sizes[0]
            else:     # the outputs past the inputs, 16-byte aligned
                assert g.out_offset >= slots * sizes[0] and g.out_offset % 16 == 0
                assert g.smem == g.out_offset + slots * sizes[1]
            assert g.smem + 2 * 256 * 8 <= 48 * 1024    # with the static block-scan buffer


def test_geometry_refuses_bad_sizes():
    with pytest.raises(ValueError, match="colsplit_geometry"):
        colsplit_geometry(100, 1, 4, 4, 132)
    with pytest.raises(ValueError, match="colsplit_geometry"):
        colsplit_geometry(100, 257, 4, 4, 132)
    with pytest.raises(ValueError, match="colsplit_geometry"):
        colsplit_geometry(0, 3, 4, 4, 132)


@pytest.mark.parametrize("k", [*range(2, 33), 33, 50, 64, 85, 86, 100, 128, 129, 200, 255, 256])
def test_padding_puts_a_warp_on_distinct_banks(k):
    """Step i of the runs of the threads of a warp reads distinct positions mod 32 (4-byte
    banks), and of a half-warp distinct positions mod 16 (8-byte elements), the claim
    of the shared-memory layout in scans_columns.cu; the padding is the fewest that
    does, at most 31."""
    for sizes in ((4, 4), (8, 8), (1, 8)):
        g = colsplit_geometry(1 << 20, k, *sizes, 132)
        up = g.run * k + g.pad
        t = np.arange(g.threads)
        j, c = t // k, t % k
        for i in range(g.run):
            p = j * up + i * k + c
            for width in (32, 16):
                for w in range(0, g.threads, width):
                    part = p[w:w + width] % width
                    assert len(set(part)) == len(part), (sizes, i, width, w)
        assert 0 <= g.pad < 32
        assert not any(_distinct_banks(k, g.run * k + q, g.threads) for q in range(g.pad))
    assert colsplit_geometry(1 << 20, 2, 8, 8, 132).pad == 2      # not (-(8 - 1) * 2) % 32
