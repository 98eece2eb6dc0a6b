"""The argmin/argmax launch geometry (``arg_geometry`` of
``xstride/_kernels/argreductions.py``): which kernel a plan gets (thread, warp,
interleave), its grid, the split of long rows and the combine, the warp kernel's
16-byte words, on the CPU (no GPU)."""

from __future__ import annotations

import xstride._kernels.argreductions as _arg
from xstride._plans.argreduction import plan_argreduction
from xstride.layout import Layout


def _geo(shape, axes, strides=None, itemsize=4, aligned=False):
    lay = Layout(shape, strides, 0, itemsize) if strides else Layout(shape, itemsize=itemsize)
    return _arg.arg_geometry(plan_argreduction(lay, axes), 132, itemsize, aligned)


def test_geometry_picks_the_kernel_from_the_plan():
    n = 1 << 22
    g = _geo((n, 3), (1,))                   # short rows: a thread per row, no split
    assert (g.kernel, g.nchunks, g.combine_grid) == ("thread", 1, 0)
    assert g.grid == n // 256
    g = _geo((n, 3), (1,), strides=(1, n))   # a (3, n) array used as .T: outer
    assert (g.kernel, g.nchunks) == ("thread", 1)
    g = _geo((n, 3), (0,))                   # 3 long columns: the flat run, combined
    assert (g.kernel, g.block, g.nchunks) == ("interleave", 255, g.grid)
    per_sm = _arg.interleave_tuning(4)[0]     # about one wave of its blocks per SM
    assert (per_sm - 1) * 132 < g.grid <= per_sm * 132
    assert 1000 < _geo((n, 3), (0,), itemsize=8).grid <= 8 * 132   # 8-byte elements: 8
    assert g.chunk % 255 == 0 and g.chunk * g.nchunks >= 3 * n > g.chunk * (g.nchunks - 1)
    assert (g.combine_grid, g.combine_threads) == (3, 256)   # 525 chunks: a block a row
    g = _geo((100, 16), (0,))                # a short run: one block, no combine
    assert (g.kernel, g.block, g.nchunks, g.combine_grid) == ("interleave", 256, 1, 0)
    g = _geo((n, 3), (0,), strides=(6, 1))   # rows 6 apart: the flat run of the columns
    assert g.kernel == "interleave" and g.block == 255
    assert g.vec == 1 and _geo((n, 3), (0,), strides=(6, 1), aligned=True).vec == 1
    g = _geo((n, 3), (0,), strides=(6, 2))   # every other column: a thread per column chunk
    assert g.kernel == "thread" and g.nchunks > 1000
    assert (g.combine_grid, g.combine_threads, g.vec) == (3, 256, 1)
    assert g.chunk * g.nchunks >= n > g.chunk * (g.nchunks - 1) and g.chunk >= 64
    g = _geo((1 << 25,), (0,))               # one long row: warps, split
    assert g.kernel == "warp" and g.nchunks == 132 * 64
    assert (g.combine_grid, g.combine_threads, g.vec, g.chunk % 4) == (1, 256, 4, 0)
    assert _geo((n,), (0,)).nchunks == n // 2048        # chunks of at least 2048
    g = _geo((16384, 4096), (1,))            # many long rows: a warp per row
    assert (g.kernel, g.nchunks, g.grid) == ("warp", 1, 16384 // 8)
    assert _geo((1 << 20, 64), (1,)).grid == 32 * 132    # capped: warps loop over rows
    g = _geo((8, 100_000), (1,))
    assert g.kernel == "warp" and 1 < g.nchunks <= -(-100_000 // 2048)
    assert (g.combine_grid, g.combine_threads) == (1, 32)   # a warp a row: 8 rows a block
    # the warp kernel's 16-byte words: one contiguous axis
    assert [_geo((64, 400_000), (1,), itemsize=i).vec for i in (1, 2, 4, 8)] == [16, 8, 4, 2]
    assert _geo((64, 100_000), (1,), strides=(200_000, 2)).vec == 1
    # a row of a few dozen words: a group of lanes (_geometry.warp_group) reads it by
    # words; past WARP_GROUP_MOST_LOADS words the warp, element by element below a
    # batch of four words for every lane
    g = _geo((1 << 20, 64), (1,))
    assert (g.kernel, g.vec, g.group, g.nchunks, g.combine_grid) == ("group", 4, 2, 1, 0)
    assert _geo((1 << 16, 384), (1,)).group == 16
    g = _geo((1 << 16, 511), (1,))
    assert (g.kernel, g.vec) == ("warp", 1)
    assert _geo((1 << 16, 512), (1,)).vec == 4 and _geo((1 << 16, 256), (1,), itemsize=8).vec == 2
    assert _geo((64, 100, 1000), (1, 2)).vec == 4            # (1, 2) merge into one axis
    assert _geo((64, 100, 1000), (1, 2), strides=(200_000, 2000, 1)).vec == 1


def test_medium_rows_of_narrow_elements_are_a_threads_up_to_112_bytes():
    """Rows past SHORT_ROWLEN elements go to a warp's lanes (a group of them: rows of
    a few words) only past THREAD_ROW_MOST_BYTES bytes too: 1-byte rows up to 112 elements and 2-byte rows up
    to 56 stay a thread's (``xs_arg_rowregs`` where whole words), 4-byte rows of 33
    and 8-byte rows of 17-32 keep their kernels."""
    n = 1 << 22
    kinds = {(k, i): _geo((n, k), (1,), itemsize=i).kernel
             for k, i in [(33, 1), (64, 1), (112, 1), (113, 1), (128, 1), (40, 2), (56, 2),
                          (57, 2), (32, 4), (33, 4), (32, 8), (33, 8)]}
    assert kinds == {(33, 1): "thread", (64, 1): "thread", (112, 1): "thread",
                     (113, 1): "group", (128, 1): "group", (40, 2): "thread",
                     (56, 2): "thread", (57, 2): "group", (32, 4): "thread",
                     (33, 4): "group", (32, 8): "thread", (33, 8): "group"}
    assert _arg.THREAD_ROW_MOST_BYTES == 112


def test_interleave_reads_aligned_contiguous_runs_by_words():
    """A contiguous run of 4- or 8-byte elements at a 16-byte boundary: 16-byte words of
    V elements, the block's lanes (threads x V) a multiple of the column count, the chunk
    whole blocks of words; otherwise (misaligned, rows apart, 1- or 2-byte elements)
    the element walk."""
    n = 1 << 22
    for k, size, block in [(3, 4, 255), (4, 4, 256), (6, 4, 255), (16, 4, 256), (5, 4, 255),
                           (3, 8, 255), (2, 8, 256), (12, 8, 252)]:
        g = _geo((n, k), (0,), itemsize=size, aligned=True)
        vec = 16 // size
        assert (g.kernel, g.vec, g.block) == ("interleave", vec, block), (k, size, g)
        assert (g.block * vec) % k == 0 and g.chunk % (g.block * vec) == 0
        assert g.chunk * g.nchunks >= k * n > g.chunk * (g.nchunks - 1)
        per_sm = _arg.interleave_tuning(size)[0]
        assert (per_sm - 1) * 132 < g.grid <= per_sm * 132
        plain = _geo((n, k), (0,), itemsize=size)
        assert (plain.vec, plain.block) == (1, k * (256 // k))
    assert _geo((n, 3), (0,), itemsize=2, aligned=True).vec == 1
    assert _geo((n, 3), (0,), itemsize=1, aligned=True).vec == 1
    assert _geo((100, 16), (0,), aligned=True).nchunks == 1   # a short run: one block
