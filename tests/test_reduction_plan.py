"""CPU tests of the reduction/scan plans: axis handling, strategies, and the plans'
index arithmetic, checked by interpreting each plan over the raw NumPy buffer (the
same offsets the kernels compute) and comparing with NumPy. ``split_axes`` and the
warp groups' geometry: tests/test_reduction_split_groups.py."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import xstride as xp
from xstride._kernels.reductions import _finish
from xstride._plans.reduction import (SHORT_MIN_ROWS, SHORT_ROW_BYTES, SHORT_ROW_BYTES_4,
                                      SHORT_ROWLEN,
                                      SHORT_VECTOR_ROW_BYTES, TILE_BYTES, TILE_CONFLICT_BYTES,
                                      TILE_MAX_ROW_BYTES, TILE_MAX_ROWLEN, TILE_MIN_ROWS,
                                      TILE_WIDE_MAX_ROWLEN, lanes_ok, normalize_axis,
                                      normalize_scan_axis, plan_reduction, tile_rows)
from xstride._kernels._geometry import (BLOCK_THREADS, INTERLEAVE_MIN_ROUNDS,
                                        SHORT_MAX_BLOCKS, reduction_geometry)
from xstride.layout import Layout


# ----------------------------------------------------------------------------- axes
def test_normalize_axis_forms():
    assert normalize_axis("sum", None, 3) == (0, 1, 2)
    assert normalize_axis("sum", (), 3) == ()
    assert normalize_axis("sum", -1, 3) == (2,)
    assert normalize_axis("sum", (2, -3), 3) == (0, 2)
    assert normalize_axis("sum", np.int64(1), 3) == (1,)
    assert normalize_axis("sum", None, 0) == ()


@pytest.mark.parametrize("axis", [(0, 0), (1, -1), (0, 1, 0)])
def test_normalize_axis_duplicates(axis):
    with pytest.raises(ValueError, match="duplicate axes"):
        normalize_axis("sum", axis, 2)


@pytest.mark.parametrize("axis", [2, -3, (0, 5)])
def test_normalize_axis_out_of_range(axis):
    """NumPy's class, a ValueError and an IndexError (the dask backend's flip, roll,
    expand_dims ... raised a plain ValueError through this function)."""
    with pytest.raises(np.exceptions.AxisError, match="max: argument 'axis' .* out of range"):
        normalize_axis("max", axis, 2)
    with pytest.raises(np.exceptions.AxisError, match="argument 'axes' 2 is out of range"):
        normalize_axis("permute_dims", (0, 2), 2, "axes")


@pytest.mark.parametrize("axis", [1.0, "0", (0, 1.5), True, (True,), [1]])
def test_normalize_axis_type(axis):
    with pytest.raises(TypeError, match="axis"):
        normalize_axis("sum", axis, 2)


def test_normalize_scan_axis():
    assert normalize_scan_axis("cumulative_sum", None, 1) == 0
    assert normalize_scan_axis("cumulative_sum", None, 0) == 0
    assert normalize_scan_axis("cumulative_sum", -1, 3) == 2
    with pytest.raises(ValueError, match="must be given"):
        normalize_scan_axis("cumulative_sum", None, 2)
    with pytest.raises(ValueError, match="out of range"):
        normalize_scan_axis("cumulative_sum", 3, 3)
    with pytest.raises(TypeError, match="axis"):
        normalize_scan_axis("cumulative_sum", (0,), 3)
    with pytest.raises(TypeError, match="axis"):
        normalize_scan_axis("cumulative_sum", 0.0, 3)


# ----------------------------------------------------------------------------- strategies
def _lay(shape, itemsize=4):
    return Layout(shape, itemsize=itemsize)


def test_strategies_of_the_benchmark_cases():
    lay = _lay((640, 640, 640))
    assert plan_reduction(lay, (0, 1, 2)).strategy == "full"
    p0 = plan_reduction(lay, (0,))
    assert (p0.strategy, p0.kshape, p0.kstride, p0.rshape, p0.rstride) == \
        ("outer", (409600,), (1,), (640,), (409600,))
    p2 = plan_reduction(lay, (2,))
    assert (p2.strategy, p2.kshape, p2.rshape, p2.rstride) == ("inner", (409600,), (640,), (1,))
    pt = plan_reduction(lay.permute((2, 0, 1)), (0,))
    # the transposed reduction is the contiguous inner one; output in memory order
    assert (pt.strategy, pt.kshape, pt.kstride, pt.rstride) == ("inner", (409600,), (640,), (1,))
    assert pt.out_order == (0, 1)
    g = reduction_geometry(plan_reduction(lay, (0, 1, 2)), 4, 132)
    assert g.kernel == "rows_block" and g.vec == 4 and g.nchunks * g.chunk >= 640 ** 3
    assert g.chunk % 64 == 0
    assert reduction_geometry(p0, 4, 132, base_address=256).vec == 4
    assert reduction_geometry(p0, 4, 132, base_address=260).vec == 1
    assert reduction_geometry(p2, 8, 132).kernel == "rows_warp"


def test_a_one_block_reduction_loads_scalars():
    """One block (a row of at most 4096 elements): scalar loads, whose instance
    compiles in about half the time; from two blocks on, 16-byte vectors."""
    for n, itemsize, vec in [(3685, 8, 1), (4096, 4, 1), (4097, 4, 4), (4097, 8, 2),
                             (1 << 20, 8, 2)]:
        g = reduction_geometry(plan_reduction(_lay((n,)), (0,)), itemsize, 132)
        assert (g.kernel, g.vec, g.grid[0] == 1) == ("rows_block", vec, vec == 1), n
    two_rows = reduction_geometry(plan_reduction(_lay((2, 5000)), (0, 1)), 4, 132)
    assert two_rows.vec == 4


@pytest.mark.parametrize("itemsize", [1, 2])
def test_narrow_rows_load_vectors_when_asked(itemsize):
    """Long contiguous rows of 1- and 2-byte elements ("inner", "full"): 16-byte
    vectors (16 or 8 elements) with ``narrow`` (the plain reductions), element loads
    without (the fused ones); strided rows and a one-block reduction load elements."""
    for shape, axes, kernel in [((3, 1 << 20), (1,), "rows_block"),
                                ((1 << 22,), (0,), "rows_block"),
                                ((1 << 16, 1000), (1,), "rows_warp")]:
        p = plan_reduction(_lay(shape, itemsize), axes)
        g = reduction_geometry(p, itemsize, 132, narrow=True)
        assert (g.kernel if g.kernel != "rows_group" else "rows_warp", g.vec) == (kernel, 16 // itemsize), shape
        assert reduction_geometry(p, itemsize, 132).vec == 1
    strided = Layout(shape=(3, 1 << 20), strides=(1 << 21, 2),
                     itemsize=itemsize)
    assert reduction_geometry(plan_reduction(strided, (1,)), itemsize, 132,
                              narrow=True).vec == 1
    one_block = plan_reduction(_lay((4096,), itemsize), (0,))
    assert reduction_geometry(one_block, itemsize, 132, narrow=True).vec == 1


# The short-row strategies: one thread per output when the reduced run is short and
# the outputs are many ("tile" when the rows lie close together and a block can stage
# them, else "short"); "interleave" for a contiguous (n, k) run over its rows.
_N = 1 << 25


@pytest.mark.parametrize("k", list(range(2, 17)) + [31, 32])
@pytest.mark.parametrize("itemsize", [1, 4, 8])
def test_short_rows_choose_tile(k, itemsize):
    lay = _lay((_N, k), itemsize)
    p = plan_reduction(lay, (1,))
    lo, hi = SHORT_ROW_BYTES
    hi = SHORT_ROW_BYTES_4 if itemsize == 4 else hi
    if lanes_ok((_N,), (k,), (1,), k, itemsize):
        # a power of two of 16-byte chunks per row (at most LANES_MAX): the lanes kernel
        assert (p.strategy, p.kstride, p.rstride) == ("lanes", (k,), (1,))
        g = reduction_geometry(p, itemsize, 132)
        assert (g.kernel, g.vec, g.block) == ("lanes", 16 // itemsize, (BLOCK_THREADS,))
        assert g.grid == (min(-(-_N * k * itemsize // 16 // BLOCK_THREADS), 32 * 132),)
        assert reduction_geometry(p, itemsize, 132, base_address=8).vec == 1
        return
    if (lo <= k * itemsize <= hi and itemsize > 1) or k * itemsize == SHORT_VECTOR_ROW_BYTES:
        # rows one thread reads as fast as (or faster than) a staged tile
        assert (p.strategy, p.kstride, p.rstride) == ("short", (k,), (1,))
        return
    assert (p.strategy, p.kshape, p.kstride, p.rshape, p.rstride, p.nrows, p.rowlen) == \
        ("tile", (_N,), (k,), (k,), (1,), _N, k)
    # the transposed layout reduced over axis 0 is the same memory walk
    pt = plan_reduction(lay.permute((1, 0)), (0,))
    assert (pt.strategy, pt.kshape, pt.kstride, pt.rshape, pt.rstride) == \
        ("tile", (_N,), (k,), (k,), (1,))
    g = reduction_geometry(p, itemsize, 132)
    rows = tile_rows(k, k, itemsize)
    assert (g.kernel, g.block, g.vec, g.nchunks, g.chunk) == \
        ("tile", (BLOCK_THREADS,), 1, 1, rows)
    assert g.grid == (-(-_N // rows),)
    # the staged span fits the kernel's shared array
    assert (rows - 1) * k + k <= TILE_BYTES // itemsize
    assert rows == TILE_BYTES // (k * itemsize)


def test_short_vector_loads_need_whole_aligned_vectors():
    def vec(shape, itemsize, base, sl=None, axes=(1,)):
        lay = _lay(shape, itemsize)
        if sl is not None:
            lay = lay.slice(sl)
        p = plan_reduction(lay, axes)
        assert p.strategy == "short", p.strategy
        return reduction_geometry(p, itemsize, 132, base_address=base).vec
    n = 1 << 20
    assert SHORT_VECTOR_ROW_BYTES == 64
    # 64-byte rows stored one after another are "lanes" rows (lanes_ok); 16 apart of 20
    sl16 = (slice(None), slice(None, 16))
    assert vec((n, 20), 4, 0, sl16) == 4 and vec((n, 10), 8, 256, (slice(None), slice(None, 8))) == 2
    assert vec((n, 12), 4, 0) == 1                          # 48: scalar
    assert vec((n, 20), 4, 4, sl16) == 1                    # a misaligned base
    assert vec((n, 32), 4, 0, (slice(None), slice(None, 16))) == 4   # rows 128 B apart
    assert vec((n, 20), 4, 0, (slice(None), slice(None, 16))) == 4   # rows 80 B apart
    assert vec((n, 12), 4, 0, (slice(None), slice(None, None, 2))) == 1   # strided rows
    assert vec((n, 12), 2, 0) == 1                          # 2-byte elements: scalar
    # rows of 64 bytes are not staged; 128-byte ones are; stored one after another,
    # 64-byte rows stay one thread's (whole vectors), 128-byte ones take the lanes kernel
    assert plan_reduction(_lay((n, 20), 4).slice(sl16), (1,)).strategy == "short"
    assert plan_reduction(_lay((n, 40), 4).slice((slice(None), slice(None, 32))),
                          (1,)).strategy == "tile"
    assert plan_reduction(_lay((n, 16), 4), (1,)).strategy == "short"
    assert vec((n, 16), 4, 0) == 4 and vec((n, 8), 8, 0) == 2
    assert plan_reduction(_lay((n, 8), 4), (1,)).strategy == "lanes"   # 32-byte rows
    assert plan_reduction(_lay((n, 32), 4), (1,)).strategy == "lanes"
    assert plan_reduction(_lay((n, 72), 4), (1,)).strategy == "tile"    # 18 words: staged
    assert plan_reduction(_lay((n, 128), 4), (1,)).strategy == "inner"  # past 95 elements
    assert plan_reduction(_lay((n, 18), 4).slice((slice(None), slice(None, 16))),
                          (1,)).strategy == "tile"      # rows 72 bytes apart: no vectors


def test_tile_rows_rule():
    assert TILE_BYTES == 32768
    assert tile_rows(3, 3, 4) == 2730            # 8192 elements of 4 bytes
    assert tile_rows(32, 32, 8) == 128           # 4096 elements of 8 bytes
    assert tile_rows(-16, 16, 4) == 512          # reversed rows: the same span
    assert tile_rows(6, 3, 4) == 1365            # every other row: (R - 1) 6 + 3 <= 8192
    assert tile_rows(100, 4, 8) == 41            # (41 - 1) 100 + 4 <= 4096
    assert tile_rows(3, 3, 4, 16384, 256) == 256
    assert TILE_MIN_ROWS == 32


def test_tile_tuning_shapes_the_launch():
    from xstride._kernels._reduce_common import TUNING, VARIANTS

    p = plan_reduction(_lay((1 << 20, 3)), (1,))
    for minb, batch, nbytes, most in [TUNING["tile"]] + VARIANTS["tile"]:
        g = reduction_geometry(p, 4, 132, tile=(nbytes, most))
        assert g.chunk == tile_rows(3, 3, 4, nbytes, most) >= 1
        assert (g.chunk - 1) * 3 + 3 <= nbytes // 4
        assert most == 0 or g.chunk <= most
    assert tile_rows(3, 3, 4, 8192, 256) == 256 and tile_rows(3, 3, 4, 8192, 0) == 682


def test_short_threshold_and_what_it_leaves_alone():
    n = 1 << 20
    assert SHORT_ROWLEN == 32 and SHORT_MIN_ROWS == 256
    # past the short row length, contiguous medium rows are staged too; past
    # TILE_WIDE_MAX_ROWLEN (elements of 4 bytes and more) or TILE_MAX_ROWLEN (narrower
    # ones), or not contiguous, or few of them: the row kernels (a warp or a group a row)
    assert (TILE_WIDE_MAX_ROWLEN, TILE_MAX_ROWLEN) == (95, 192)
    assert plan_reduction(_lay((n, SHORT_ROWLEN + 1)), (1,)).strategy == "tile"
    assert plan_reduction(_lay((n, SHORT_ROWLEN - 1)), (1,)).strategy == "tile"
    assert plan_reduction(_lay((n, SHORT_ROWLEN), 8), (1,)).strategy == "tile"
    assert plan_reduction(_lay((n // 32, 3, 4, 4)), (1, 2, 3)).strategy == "tile"
    assert plan_reduction(_lay((n // 32, 3, 4, 8)), (1, 2, 3)).strategy == "inner"   # 96
    for itemsize in (4, 8):
        assert plan_reduction(_lay((n, TILE_WIDE_MAX_ROWLEN), itemsize),
                              (1,)).strategy == "tile"
        assert plan_reduction(_lay((n, TILE_WIDE_MAX_ROWLEN + 1), itemsize),
                              (1,)).strategy == "inner"
    assert plan_reduction(_lay((n, TILE_MAX_ROWLEN), 2), (1,)).strategy == "tile"
    # rows of narrow elements stage up to TILE_MAX_ROW_BYTES bytes, except rows a
    # multiple of TILE_CONFLICT_BYTES apart (bank conflicts of the unpadded stage)
    assert (TILE_MAX_ROW_BYTES, TILE_CONFLICT_BYTES) == (512, 64)
    for itemsize, most in ((1, 511), (2, 255)):
        assert plan_reduction(_lay((n, most), itemsize), (1,)).strategy == "tile"
        assert plan_reduction(_lay((n, most + 2), itemsize), (1,)).strategy == "inner"
        assert plan_reduction(_lay((n, 200), itemsize), (1,)).strategy == "tile"
    for itemsize, k in ((1, 256), (1, 320), (1, 512), (2, 256), (2, 224)):
        assert plan_reduction(_lay((n, k), itemsize), (1,)).strategy == "inner"
    assert plan_reduction(_lay((n, 192), 1), (1,)).strategy == "tile"   # TILE_MAX_ROWLEN
    assert plan_reduction(_lay((n, 128), 8), (1,)).strategy == "inner"  # 1 KiB: elements
    wide = _lay((n, 400), 1).slice((slice(None), slice(None, 300)))     # 300 of 400 bytes
    assert plan_reduction(wide, (1,)).strategy == "tile"
    wide = _lay((n, 384), 1).slice((slice(None), slice(None, 300)))     # 3 * 128 apart
    assert plan_reduction(wide, (1,)).strategy == "inner"
    assert plan_reduction(_lay((n, 200)).slice((slice(None), slice(None, 96))),
                          (1,)).strategy == "inner"            # rows 200 apart: > 2 * 96
    assert plan_reduction(_lay((n, 96)).slice((slice(None), slice(None, None, 2))),
                          (1,)).strategy == "inner"            # a strided run
    assert plan_reduction(_lay((SHORT_MIN_ROWS - 1, 96)), (1,)).strategy == "inner"
    # few outputs: the warp kernel gives them more threads
    assert plan_reduction(_lay((SHORT_MIN_ROWS - 1, 3)), (1,)).strategy == "inner"
    assert plan_reduction(_lay((SHORT_MIN_ROWS, 3)), (1,)).strategy == "tile"
    assert plan_reduction(_lay((4, 5, 6)), (2,)).strategy == "inner"
    # one element per output is a copy, a single output the full reduction
    assert plan_reduction(_lay((n, 1)), (1,)).strategy == "copy"
    assert plan_reduction(_lay((1, 3)), (1,)).strategy == "full"
    # a kept axis innermost: a contiguous run of few columns interleaves, a short
    # reduced run over many columns is "short" (a thread per column)
    assert plan_reduction(_lay((n, 3)), (0,)).strategy == "interleave"
    assert plan_reduction(_lay((n, 32)), (0,)).strategy == "interleave"
    assert plan_reduction(_lay((n, 33)), (0,)).strategy == "outer"
    assert plan_reduction(_lay((3, n)).permute((1, 0)), (1,)).strategy == "short"
    assert plan_reduction(_lay((3, n)), (0,)).strategy == "short"
    assert plan_reduction(_lay((33, n)), (0,)).strategy == "outer"
    assert plan_reduction(_lay((3, 255)), (0,)).strategy == "outer"
    # contiguous columns of rows further apart interleave too (rows of stride >= the
    # column count); columns that are not contiguous stay outer
    assert plan_reduction(_lay((n, 6)).slice((slice(None), slice(None, 3))), (0,)).strategy \
        == "interleave"
    assert plan_reduction(_lay((n, 3)).slice((slice(None, None, -2), slice(None))),
                          (0,)).strategy == "interleave"
    assert plan_reduction(_lay((n, 6)).slice((slice(None), slice(None, None, 2))),
                          (0,)).strategy == "outer"
    # empty
    assert plan_reduction(_lay((n, 0)), (1,)).strategy == "identity"
    assert plan_reduction(_lay((0, 3)), (1,)).strategy == "empty"


def test_short_strided_and_multi_axis_layouts():
    n = 4096
    # every other row of (n, 3): kept stride 6 = 2 * rowlen, still staged
    p = plan_reduction(_lay((n, 3)).slice((slice(None, None, 2), slice(None))), (1,))
    assert (p.strategy, p.kstride, p.rshape, p.rstride) == ("tile", (6,), (3,), (1,))
    # every third row: more gap than row, one thread per row
    p = plan_reduction(_lay((n, 3)).slice((slice(None, None, 3), slice(None))), (1,))
    assert (p.strategy, p.kstride) == ("short", (9,))
    # reversed rows: the reduced stride is flipped, the offset moves to the row's start
    p = plan_reduction(_lay((n, 3)).slice((slice(None), slice(None, None, -1))), (1,))
    assert (p.strategy, p.rstride, p.offset) == ("tile", (1,), 0)
    # reversed row order: a negative kept stride is staged too
    p = plan_reduction(_lay((n, 3)).slice((slice(None, None, -1), slice(None))), (1,))
    assert (p.strategy, p.kstride) == ("tile", (-3,))
    # every other element of a row: "short"
    p = plan_reduction(_lay((n, 6)).slice((slice(None), slice(None, None, 2))), (1,))
    assert (p.strategy, p.rstride) == ("short", (2,))
    # two reduced axes that do not coalesce: (n, 4, 3)[:, ::2] over (1, 2)
    p = plan_reduction(_lay((n, 4, 3)).slice((slice(None), slice(None, None, 2))), (1, 2))
    assert (p.strategy, p.rshape, p.rstride, p.rowlen) == ("short", (2, 3), (6, 1), 6)
    # two kept axes (n/64, 64, 3) over the last: kept coalesce to one
    p = plan_reduction(_lay((n // 64, 64, 3)), (2,))
    assert (p.strategy, p.kshape, p.rowlen) == ("tile", (n,), 3)
    # two kept axes that do not coalesce: "short"
    p = plan_reduction(_lay((n // 64, 64, 3)).slice((slice(None), slice(None, 32))), (2,))
    assert p.strategy == "short"
    # a middle reduced axis of 3 with the last kept: a thread per output column
    assert plan_reduction(_lay((n, 3, 4)), (1,)).strategy == "short"
    # several leading axes over a contiguous (m, n, 3): one interleaved run
    p = plan_reduction(_lay((64, 64, 3)), (0, 1))
    assert (p.strategy, p.rshape, p.rstride, p.kshape) == ("interleave", (4096,), (3,), (3,))


def test_short_geometry_grid():
    def grid(nrows, k=3):
        lay = _lay((nrows, 2 * k)).slice((slice(None), slice(None, None, 2)))
        return reduction_geometry(plan_reduction(lay, (1,)), 4, 132).grid
    assert grid(256) == (1,)
    assert grid(257) == (2,)
    assert grid(1000) == (4,)
    assert grid(256 * SHORT_MAX_BLOCKS) == (SHORT_MAX_BLOCKS,)
    assert grid(256 * SHORT_MAX_BLOCKS * 4 + 1) == (SHORT_MAX_BLOCKS,)  # grid-stride


@pytest.mark.parametrize("k", [2, 3, 5, 7, 16, 31, 32])
@pytest.mark.parametrize("n", [5, 300, 40_007, 1 << 25])
def test_interleave_geometry(k, n):
    p = plan_reduction(_lay((n, k)), (0,))
    assert p.strategy == "interleave" and p.nrows == k and p.rowlen == n
    g = reduction_geometry(p, 4, 132, resident=8)
    width = g.block[0]
    assert width % k == 0 and width <= BLOCK_THREADS and width > BLOCK_THREADS - k
    assert g.chunk % width == 0 and g.chunk >= INTERLEAVE_MIN_ROUNDS * width
    assert g.nchunks == g.grid[0] == -(-(n * k) // g.chunk)
    assert (g.nchunks - 1) * g.chunk < n * k <= g.nchunks * g.chunk
    assert g.nchunks <= 132 * 8


def test_trivial_strategies():
    assert plan_reduction(_lay((3, 0)), (1,)).strategy == "identity"
    assert plan_reduction(_lay((0, 3)), (1,)).strategy == "empty"
    assert plan_reduction(_lay((3, 4)), ()).strategy == "copy"
    assert plan_reduction(_lay((3, 1)), (1,)).strategy == "copy"
    assert plan_reduction(_lay(()), ()).strategy == "copy"
    with pytest.raises(ValueError, match="launches no kernel"):
        reduction_geometry(plan_reduction(_lay((3, 4)), ()), 4, 132)


def test_negative_strides_are_flipped_and_coalesced():
    lay = _lay((8, 6)).slice((slice(None, None, -1), slice(None, None, -1)))
    p = plan_reduction(lay, (0, 1))
    assert p.strategy == "full" and p.rshape == (48,) and p.rstride == (1,)
    assert p.offset == 0


# ----------------------------------------------------------------------------- interpreters
def _offsets(shape, strides):
    """Element offsets of C-order flat indices over (shape, strides)."""
    off = np.zeros((1,), dtype=np.int64)
    for n, s in zip(shape, strides):
        off = (off[:, None] + np.arange(n, dtype=np.int64)[None, :] * s).reshape(-1)
    return off


_UFUNC = {"sum": np.add, "prod": np.multiply, "min": np.minimum, "max": np.maximum}


def _run_reduction_plan(base, view, axes, op, keepdims=False):
    """Reduce ``view`` (a view of the flat array ``base``) as the kernels would."""
    lay = Layout.from_array(view)
    start = (view.__array_interface__["data"][0] - base.__array_interface__["data"][0])
    lay = lay.replace(offset=start // view.itemsize)
    plan = plan_reduction(lay, axes)
    if plan.strategy == "empty":
        buf = np.empty(0, dtype=view.dtype)
    elif plan.strategy == "copy":
        return None, plan
    else:
        k = _offsets(plan.kshape, plan.kstride)
        r = _offsets(plan.rshape, plan.rstride)
        vals = base[plan.offset + k[:, None] + r[None, :]]
        buf = _UFUNC[op].reduce(vals, axis=1)
    return _finish(buf, plan, view.ndim, keepdims), plan


def _views(rng, base):
    a = base.reshape(6, 5, 4)
    yield a
    yield a.transpose(2, 0, 1)
    yield a[::-1, :, ::-2]
    yield a[1:5, ::-1].transpose(1, 2, 0)
    yield np.broadcast_to(a[:, :1, :], (6, 3, 4))
    yield np.broadcast_to(base[:4].reshape(4, 1), (4, 7))
    yield base[::7]
    yield a[:, 2, :]


_AXES = [None, 0, -1, (0, 1), (1, 2), (0, 2), ()]


@pytest.mark.parametrize("op", ["sum", "max"])
def test_reduction_plan_matches_numpy(op):
    rng = np.random.default_rng(5)
    base = rng.integers(-50, 50, size=120).astype(np.int64)
    for view in _views(rng, base):
        for axis in _AXES:
            try:
                axes = normalize_axis(op, axis, view.ndim)
            except ValueError:
                continue
            for keepdims in (False, True):
                got, plan = _run_reduction_plan(base, view, axes, op, keepdims)
                if got is None:
                    continue
                want = getattr(np, op)(view, axis=axes, keepdims=keepdims)
                assert got.shape == want.shape, (view.strides, axis, plan)
                np.testing.assert_array_equal(got, want)


def test_reduction_output_is_in_numpy_memory_order():
    base = np.arange(24.0)
    view = base.reshape(2, 3, 4).transpose(2, 0, 1)
    got, _ = _run_reduction_plan(base, view, (1,), "sum")
    want = np.sum(view, axis=1)
    np.testing.assert_array_equal(got, want)
    assert got.strides == want.strides


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_reduction_plan_random_layouts(data):
    shape = data.draw(st.lists(st.integers(1, 4), min_size=1, max_size=4))
    base = np.arange(int(np.prod(shape)) * 2, dtype=np.int64) * 3 - 7
    a = base[::2].reshape(shape) if data.draw(st.booleans()) else base[: int(np.prod(shape))].reshape(shape)
    perm = data.draw(st.permutations(range(len(shape))))
    a = a.transpose(perm)
    index = tuple(slice(None, None, data.draw(st.sampled_from([1, -1, 2, -2]))) for _ in shape)
    a = a[index]
    axes = tuple(sorted(data.draw(st.sets(st.integers(0, a.ndim - 1)))))
    got, _ = _run_reduction_plan(base, a, axes, "sum", keepdims=True)
    if got is not None:
        np.testing.assert_array_equal(got, np.sum(a, axis=axes, keepdims=True))


# ----------------------------------------------------------------------------- numpy side
def test_numpy_min_max_empty_errors_name_the_axis():
    with pytest.raises(ValueError, match="zero-size axis 1"):
        xp.max(np.ones((3, 0)), axis=1)
    with pytest.raises(ValueError, match="zero-size axis 0"):
        xp.min(np.ones((0,)))
    assert xp.max(np.ones((0, 3)), axis=1).shape == (0,)
    assert xp.max(np.ones((0, 3)), axis=1, keepdims=True).shape == (0, 1)
    assert np.isnan(xp.max(np.array([1.0, np.nan, 3.0])))
    assert xp.min(np.array([4, -2, 9])) == -2


def test_rows_of_13_to_15_four_byte_elements_are_short_not_staged():
    """Pinned by value (the window test above reads the constants): rows of 52-60 bytes
    of 4-byte elements read one a thread (0.88-0.93 of copy against 0.79-0.83 staged,
    H200), 2-byte rows of those bytes and 4-byte rows of 68 stage."""
    for k in (13, 14, 15):
        assert plan_reduction(_lay((_N, k), 4), (1,)).strategy == "short"
    assert plan_reduction(_lay((_N, 17), 4), (1,)).strategy == "tile"
    assert plan_reduction(_lay((_N, 26), 2), (1,)).strategy == "tile"
    assert plan_reduction(_lay((_N, 12), 4), (1,)).strategy == "short"
