"""The elementwise plan on the CPU: paths, and a model of the kernels' index math.

``_emulate`` decodes the packed ``xstride_ew_params`` exactly as the CUDA kernels do
(outer/rest axes in C order, inner axis, tile axis) and computes ``out = f(inputs)``
over flat NumPy buffers; the result must equal NumPy's on the same views.
"""

from __future__ import annotations

import struct

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from xstride._plans import elementwise as P
from xstride._kernels import _geometry as G
from xstride.layout import Layout


def _unpack(plan):
    cap, data = G.pack_params(plan)
    nops = len(plan.strides)
    n = len(data) // 8
    f = struct.unpack(f"<{n}q", data)
    it = iter(f)
    take = lambda k: [next(it) for _ in range(k)]  # noqa: E731
    total, e0, e1, ndim = take(4)
    return dict(n=total, e0=e0, e1=e1, ndim=ndim, offset=take(nops), s0=take(nops),
                s1=take(nops), shape=take(cap), strides=[take(cap) for _ in range(nops)])


def _outer(p, rows):
    offs = [np.full(rows.shape, p["offset"][k], dtype=np.int64) for k in range(len(p["offset"]))]
    r = rows.copy()
    for d in range(p["ndim"] - 1, -1, -1):
        n = p["shape"][d]
        c = r % n
        r //= n
        for k in range(len(offs)):
            offs[k] += c * p["strides"][k][d]
    return offs


def _emulate(plan):
    """Per operand, the element offsets the kernel touches, in one common order."""
    p = _unpack(plan)
    if plan.kind == "empty":
        return [np.zeros(0, np.int64) for _ in plan.strides]
    if plan.kind == "tiled":
        e0, e1 = p["e0"], p["e1"]
        rest = p["n"] // (e0 * e1)
        r, i1, i0 = np.meshgrid(np.arange(rest), np.arange(e1), np.arange(e0), indexing="ij")
        base = _outer(p, r.ravel())
        return [base[k] + i0.ravel() * p["s0"][k] + i1.ravel() * p["s1"][k]
                for k in range(len(base))]
    e = np.arange(p["n"], dtype=np.int64)
    row, col = e // p["e0"], e % p["e0"]
    base = _outer(p, row)
    return [base[k] + col * p["s0"][k] for k in range(len(base))]


_I32 = 1 << 31


def _emulate_walk(plan, geo):
    """Per operand, the offsets the grid-walk tiled kernel touches (``_tiled_walk_body``).

    Replays the kernel block by block: the block -> tile decomposition, the grid loops,
    the chunks of rest indices, the transposed loads into a shared tile indexed
    ``[ty + u][tx + h]`` and read back ``[tx + h][ty + u]``, and the bounds tests of
    partial tiles. With ``geo.off32`` every partial sum the kernel forms must fit int32.
    """
    p = _unpack(plan)
    nops = len(plan.strides)
    t, ga = geo.tile, geo.ga
    e0, e1 = p["e0"], p["e1"]
    gx, gy, gz = geo.grid
    gb = gx // ga
    ty, tx = np.meshgrid(np.arange(8), np.arange(32), indexing="ij")
    s0, s1 = p["s0"], p["s1"]
    out = [[] for _ in range(nops)]
    seen_tiles = []

    def fits(*vals):
        if geo.off32:
            for v in vals:
                assert np.all(np.abs(v) < _I32), "32-bit offset overflow"

    for bx in range(gx):
        a_in, b_in = bx % ga, bx // ga
        for bz in range(gz):
            for z in range(bz, geo.nz, gz):
                bg, ag = divmod(z, geo.nga)
                i0b, i1b = (ag * ga + a_in) * t, (bg * gb + b_in) * t
                assert i0b < e0 and i1b < e1
                lim0, lim1 = min(e0 - i0b, t), min(e1 - i1b, t)
                td = [(i0b + tx) * s0[k] + (i1b + ty) * s1[k] for k in range(nops)]
                tt = [(i0b + ty) * s0[k] + (i1b + tx) * s1[k] for k in range(nops)]
                fits(*td, *tt)
                for by in range(gy):
                    for rc in range(by, geo.nchunks, gy):
                        r0 = rc * geo.r
                        for rr in range(r0, min(r0 + geo.r, geo.rest)):
                            seen_tiles.append((i0b, i1b, rr))
                            base = _outer(p, np.array([rr]))
                            smem = [np.zeros((t, t + 1), np.int64) for _ in range(nops)]
                            done = [np.zeros((t, t + 1), bool) for _ in range(nops)]
                            for u in range(0, t, 8):
                                for h in range(0, t, 32):
                                    m = (ty + u < lim0) & (tx + h < lim1)
                                    for k in range(nops):
                                        v = base[k][0] + tt[k] + u * s0[k] + h * s1[k]
                                        fits(base[k], v)
                                        smem[k][(ty + u)[m], (tx + h)[m]] = v[m]
                                        done[k][(ty + u)[m], (tx + h)[m]] = True
                            for u in range(0, t, 8):
                                for h in range(0, t, 32):
                                    m = (tx + h < lim0) & (ty + u < lim1)
                                    for k in range(nops):
                                        if plan.transposed[k]:
                                            v = smem[k][(tx + h)[m], (ty + u)[m]]
                                            assert done[k][(tx + h)[m], (ty + u)[m]].all()
                                        else:
                                            v = (base[k][0] + td[k] + u * s1[k] + h * s0[k])[m]
                                            fits(v)
                                        out[k].append(v)
    assert len(seen_tiles) == len(set(seen_tiles))
    return [np.concatenate(o) if o else np.zeros(0, np.int64) for o in out]


def _run(out_view, out_buf, out_start, ins, walk=None):
    """Compute out = sum_k (k+2) * in_k through the plan; ins: (view, buf, start).

    ``walk``: ``(tile, ga, gb, r, max_yz)`` replays the grid-walk tiled kernel
    (tiled plans only) instead of the plain model.
    """
    lays_in = [Layout.from_array(v) for v, _, _ in ins]
    plan = P.make_plan([Layout.from_array(out_view)], lays_in)
    if walk is not None and plan.kind == "tiled":
        t, ga, gb, r, max_yz = walk
        geo = G.tiled_geometry(plan, t, ga, gb, r, max_yz=max_yz)
        offs = _emulate_walk(plan, geo)
    else:
        offs = _emulate(plan)
    acc = np.zeros(len(offs[0]))
    for k, (_, buf, start) in enumerate(ins):
        acc += (k + 2) * buf[start + offs[k + 1]]
    # every output element must be written exactly once
    assert len(np.unique(offs[0])) == out_view.size
    out_buf[out_start + offs[0]] = acc
    return plan


def _start(buf, view):
    return (view.__array_interface__["data"][0] - buf.__array_interface__["data"][0]) // buf.itemsize


@st.composite
def operand_views(draw, shape):
    """A view of ``shape`` (or a broadcastable suffix of it) over a fresh buffer."""
    rank = len(shape)
    keep = draw(st.integers(0, rank))
    sub = list(shape[rank - keep:])
    sub = [1 if draw(st.booleans()) and draw(st.booleans()) else n for n in sub]
    perm = draw(st.permutations(range(len(sub))))
    steps = [draw(st.sampled_from([1, 1, 2, -1, -2])) for _ in sub]
    phys = [sub[a] for a in perm]
    big = [abs(s) * max(n, 1) for s, n in zip([steps[a] for a in perm], phys)]
    buf = np.random.default_rng(len(sub)).standard_normal(int(np.prod(big)) + 3)
    arr = buf[3:].reshape(big) if big else buf[3:4].reshape(())
    ix = tuple(slice(None, None, steps[a]) if steps[a] > 0 else slice(None, None, steps[a])
               for a in perm)
    arr = arr[ix] if ix else arr
    arr = arr[tuple(slice(0, n) for n in phys)] if phys else arr
    inv = np.argsort(perm) if perm else []
    view = arr.transpose(inv) if len(perm) else arr
    assert view.shape == tuple(sub)
    return view, buf, _start(buf, view)


@st.composite
def cases(draw):
    rank = draw(st.integers(0, 5))
    shape = tuple(draw(st.lists(st.integers(0, 6), min_size=rank, max_size=rank)))
    nin = draw(st.integers(1, 3))
    ins = [draw(operand_views(shape)) for _ in range(nin)]
    out_v, out_buf, out_s = draw(operand_views(shape).filter(
        lambda t: t[0].shape == shape and not Layout.from_array(t[0]).has_internal_overlap))
    return shape, ins, (out_v, out_buf, out_s)


@settings(max_examples=200, deadline=None)
@given(cases())
def test_plan_matches_numpy(case):
    shape, ins, (out_v, out_buf, out_s) = case
    want = sum((k + 2) * v for k, (v, _, _) in enumerate(ins))
    out_buf[:] = np.nan
    _run(out_v, out_buf, out_s, ins)
    np.testing.assert_array_equal(out_v, np.broadcast_to(want, shape))


@st.composite
def tiled_cases(draw):
    """An output view and inputs of which the first is permuted (often a tiled plan)."""
    rank = draw(st.sampled_from([2, 2, 3, 3, 4]))
    shape = tuple(draw(st.lists(st.sampled_from([1, 3, 8, 9, 32, 33, 40, 64]), min_size=rank,
                                max_size=rank).filter(lambda s: np.prod(s) <= 20000)))
    perm = draw(st.permutations(range(rank)).filter(lambda q: list(q) != sorted(q)))
    steps = [draw(st.sampled_from([1, 1, 1, -1, 2])) for _ in range(rank)]
    big = [abs(steps[a]) * shape[a] for a in perm]
    buf = np.random.default_rng(7).standard_normal(int(np.prod(big)) + 5)
    arr = buf[5:].reshape(big)[tuple(slice(None, None, steps[a]) for a in perm)]
    arr = arr[tuple(slice(0, shape[a]) for a in perm)]
    first = arr.transpose(np.argsort(perm))
    ins = [(first, buf, _start(buf, first))]
    ins += [draw(operand_views(shape)) for _ in range(draw(st.integers(0, 1)))]
    if draw(st.booleans()):
        out_buf = np.zeros(int(np.prod(shape)) + 2)
        out_v = out_buf[2:].reshape(shape)
        out_s = 2
    else:
        out_v, out_buf, out_s = draw(operand_views(shape).filter(
            lambda t: t[0].shape == shape and not Layout.from_array(t[0]).has_internal_overlap))
    walk = (draw(st.sampled_from([32, 32, 64])), draw(st.sampled_from([0, 1, 2, 3])),
            draw(st.sampled_from([0, 1, 2])), draw(st.sampled_from([1, 2, 3, 8])),
            draw(st.sampled_from([1, 2, 65535])))
    return shape, ins, (out_v, out_buf, out_s), walk


@settings(max_examples=60, deadline=None)
@given(tiled_cases())
def test_walk_kernel_model_matches_numpy(case):
    """The grid-walk tiled kernel, replayed on the CPU, gives NumPy's answer."""
    shape, ins, (out_v, out_buf, out_s), walk = case
    want = sum((k + 2) * v for k, (v, _, _) in enumerate(ins))
    out_buf[:] = np.nan
    _run(out_v, out_buf, out_s, ins, walk=walk)
    np.testing.assert_array_equal(out_v, np.broadcast_to(want, shape))


_WALKS = [(32, 0, 0, 1, 65535), (32, 1, 0, 3, 2), (32, 2, 1, 2, 1), (64, 0, 1, 8, 65535)]


@pytest.mark.parametrize("walk", _WALKS)
@pytest.mark.parametrize("case", ["3d", "2d_full", "4d", "coalesced"])
def test_walk_kernel_model_fixed_cases(case, walk):
    """Fixed tiled layouts (rest axes 0, 1, 2; full and partial tiles; grid loops)."""
    rng = np.random.default_rng(3)
    if case == "3d":
        a, b = rng.standard_normal((40, 9, 70)), rng.standard_normal((70, 9, 40))
        views = [a, b.transpose(2, 1, 0)]
    elif case == "2d_full":
        a = rng.standard_normal((64, 64))
        views = [a, a.T.copy().T[::-1, :]]
    elif case == "4d":
        a = rng.standard_normal((33, 3, 2, 40))
        views = [a, rng.standard_normal((40, 2, 3, 33)).transpose(3, 2, 1, 0)]
    else:
        a = rng.standard_normal((8, 9, 40))
        views = [rng.standard_normal((9, 40, 8)).transpose(2, 0, 1), a]
    out_buf = np.full(views[0].size, np.nan)
    out_v = out_buf.reshape(views[0].shape)
    ins = []
    for v in views:
        base = v.base if v.base is not None else v
        buf = base.reshape(-1)
        ins.append((v, buf, _start(buf, v)))
    plan = _run(out_v, out_buf, 0, ins, walk=walk)
    assert plan.kind == "tiled"
    assert len(plan.shape) - 2 == {"3d": 1, "2d_full": 0, "4d": 2, "coalesced": 0}[case]
    want = sum((k + 2) * v for k, v in enumerate(views))
    np.testing.assert_array_equal(out_v, want)


def test_walk_geometry():
    x = np.zeros((640, 640, 640), np.float32)
    lay = Layout.from_array
    plan = P.make_plan([lay(x)], [lay(x), lay(x.transpose(2, 1, 0))])
    assert plan.kind == "tiled" and plan.shape == (640, 640, 640) and plan.tile_axis == 0
    g = G.tiled_geometry(plan)                      # whole rows of tiles: order 0, 1, rest
    assert (g.ga, g.gb, g.nga, g.nz, g.rest, g.nchunks) == (20, 20, 1, 1, 640, 640)
    assert g.grid == (400, 640, 1) and g.off32
    g = G.tiled_geometry(plan, ga=0, gb=1, r=4)     # order 0, rest, 1 and 4 rest per block
    assert g.grid == (20, 160, 20) and (g.nga, g.nz) == (1, 20)
    g = G.tiled_geometry(plan, ga=8, gb=3)          # largest divisors of 20 not above
    assert (g.ga, g.gb, g.nga, g.nz) == (5, 2, 4, 40) and g.grid == (10, 640, 40)
    assert G.tiled_geometry(plan, r=1, max_yz=7).grid == (400, 7, 1)
    # x + y.transpose(2, 0, 1) coalesces to a 2-D transpose (640 x 409600)
    flat = P.make_plan([lay(x)], [lay(x), lay(x.transpose(2, 0, 1))])
    assert flat.shape == (640, 409600) and flat.tile_axis == 0
    g = G.tiled_geometry(flat, ga=1000, gb=8)
    assert (g.ga, g.gb, g.nga, g.nz, g.rest) == (800, 5, 16, 64, 1)
    assert g.grid == (4000, 1, 64)
    # 32-bit offsets only while every offset a thread forms (partial tiles too) fits
    n = 1 << 16
    near = P.make_plan([Layout((n, 8), (8, 1))], [Layout((n, 8), (1, n))])
    assert near.kind == "tiled" and G.tiled_geometry(near).off32
    far = P.make_plan([Layout((n, 8), (8, 1))], [Layout((n, 8), (1, (1 << 31) // 8))])
    assert far.kind == "tiled" and not G.tiled_geometry(far).off32


def test_paths_of_the_benchmark_cases():
    n = 16
    x = np.zeros((n, n, n), np.float32)
    lay = lambda a: Layout.from_array(a)  # noqa: E731
    xt = x.transpose(2, 0, 1)
    assert P.make_plan([lay(x)], [lay(x), lay(x)]).kind == "flat"
    plan = P.make_plan([lay(np.zeros((n, n, n), np.float32))], [lay(x), lay(xt)])
    assert plan.kind == "tiled" and plan.transposed == (False, False, True)
    # same permutation and an output in the inputs' order (NumPy's K order): flat
    order = P.result_axis_order(xt.shape, [xt.strides])
    out = np.empty([xt.shape[a] for a in order], np.float32).transpose(np.argsort(order))
    assert P.make_plan([lay(out)], [lay(xt), lay(xt)]).kind == "flat"
    row = np.zeros(n, np.float32)
    assert P.make_plan([lay(x)], [lay(x), lay(row)]).kind == "rows"
    sl = np.zeros((n, 2 * n, n), np.float32)[:, ::2, :]
    plan = P.make_plan([lay(np.zeros((n, n, n), np.float32))], [lay(sl)])
    assert plan.kind == "rows" and plan.shape == (n * n, n)
    assert P.make_plan([lay(x)], [lay(x.transpose(2, 1, 0))]).kind == "tiled"
    assert P.make_plan([lay(x[:, :, ::2])], [lay(x[:, :, ::2])]).kind == "nd"
    assert P.make_plan([lay(np.zeros((0, 3)))], [lay(np.zeros((0, 3)))]).kind == "empty"
    one = P.make_plan([lay(np.zeros((1, 1)))], [lay(np.zeros(()))])
    assert one.kind == "flat" and one.size == 1


def test_flat2d_path_for_short_rows():
    """x + x[0] and x + y.T of (n, k) arrays: one flat zip, the repeated row or the
    transposed operand read at (i div k, i mod k), when the other paths would take
    them without vector loads; the replayed offsets pair elements as the broadcast
    does."""
    lay = Layout.from_array
    for k in (1, 2, 3, 5, 6, 7, 9, 13, 15, 17, 33, 63, 64, 65):
        x = np.arange(50 * k, dtype=np.float32).reshape(50, k)
        plan = P.make_plan([lay(np.empty_like(x))], [lay(x), lay(x[0])])
        want = ("flat" if k == 1 else "rows" if k % 4 == 0 or k > P.FLAT2D_MAX
                else "flat2d")
        assert plan.kind == want, (k, plan.kind)
        if plan.kind == "flat2d":
            assert plan.shape == (50, k) and plan.strides == ((k, 1), (k, 1), (0, 1))
            assert P.flat2d_indexed(plan.shape, plan.strides) == (False, False, True)
            assert P.replay_offsets(plan, 2) == [j for _ in range(50) for j in range(k)]
    x = np.zeros((50, 3))                       # float64: 2 per vector, 3 is odd
    assert P.make_plan([lay(x)], [lay(x), lay(x[0])]).kind == "flat2d"
    x = np.zeros((50, 6))                       # float64: 3 vectors of 2
    assert P.make_plan([lay(x)], [lay(x), lay(x[0])]).kind == "rows"
    x = np.zeros((50, 3), np.float32)
    # a scalar and a strided row; a strided or column-broadcast input too
    assert P.make_plan([lay(x)], [lay(x), lay(np.zeros(6, np.float32)[::2]),
                                   lay(np.zeros((), np.float32))]).kind == "flat2d"
    assert P.make_plan([lay(x)], [lay(np.zeros((50, 6), np.float32)[:, ::2]),
                                   lay(x[0])]).kind == "flat2d"
    assert P.make_plan([lay(x)], [lay(x), lay(x[:, :1])]).kind == "flat2d"
    # a transposed short operand: (n, 4) + (4, n).T, which the tiled path cannot take
    # (an inner extent under 8) and the rows path cannot either (inner stride n)
    y = np.zeros((4, 50), np.float32)
    x4 = np.zeros((50, 4), np.float32)
    plan = P.make_plan([lay(x4)], [lay(x4), lay(y.T)])
    assert plan.kind == "flat2d" and plan.strides[2] == (1, 50)
    assert P.replay_offsets(plan, 2) == [r + 50 * c for r in range(50) for c in range(4)]
    # the output must be dense; the tiled path keeps transposes of 8 or more
    assert P.make_plan([lay(np.zeros((50, 6), np.float32)[:, :3])],
                       [lay(x), lay(x[0])]).kind != "flat2d"
    x16 = np.zeros((50, 16), np.float32)
    assert P.make_plan([lay(x16)], [lay(x16), lay(np.zeros((16, 50), np.float32).T)]
                       ).kind == "tiled"
    # user kernels that read the C-order index keep their order
    assert P.make_plan([lay(x)], [lay(x), lay(x[0])], keep_order=True).kind == "rows"


def test_keep_order_does_not_reorder():
    x = np.zeros((4, 5)).T
    plan = P.make_plan([Layout.from_array(x)], [], keep_order=True)
    assert plan.kind == "nd" and plan.shape == (5, 4)
    assert P.replay_offsets(plan, 0) == [i + 5 * j for i in range(5) for j in range(4)]


def test_negative_output_strides_are_flipped():
    buf = np.zeros(10)
    out = buf[::-1]
    plan = P.make_plan([Layout.from_array(out)], [Layout.from_array(np.zeros(10)[::-1])])
    assert plan.kind == "flat" and plan.strides[0] == (1,) and plan.offsets[0] == -9
    assert plan.strides[1] == (1,) and plan.offsets[1] == -9
    mixed = P.make_plan([Layout.from_array(out)], [Layout.from_array(np.zeros(10))])
    assert mixed.kind == "nd" and mixed.strides[1] == (-1,) and mixed.offsets[1] == 9


def test_broadcast_shapes_errors_name_both():
    assert P.broadcast_shapes((3, 1), (1, 4), ()) == (3, 4)
    with pytest.raises(ValueError, match=r"add: shapes \(2, 3\) and \(4,\)"):
        P.broadcast_shapes((2, 3), (4,), func="add")
    assert P.make_plan([Layout((2, 3))], [Layout((3,)), Layout((3,))]).kind == "flat2d"
    with pytest.raises(ValueError, match=r"\(2,\).*\(2, 3\)"):
        P.make_plan([Layout((2, 3))], [Layout((2,))])


def test_rank_64_plan():
    shape = (1,) * 60 + (2, 3, 2, 2)
    x = np.zeros(shape)
    xt = x.transpose(tuple(range(60)) + (63, 61, 62, 60))
    out = np.zeros(xt.shape)
    plan = P.make_plan([Layout.from_array(out)], [Layout.from_array(xt)])
    offs = _emulate(plan)
    src = np.arange(x.size, dtype=float)
    np.testing.assert_array_equal(src[offs[1]][np.argsort(offs[0])],
                                  src.reshape(shape).transpose(
                                      tuple(range(60)) + (63, 61, 62, 60)).ravel())
    big = P.make_plan([Layout((2,) * 40, tuple(3 ** i for i in range(40)))], [])
    assert G.pack_params(big)[0] == 64


def test_overlap_helpers():
    assert P.ranges_overlap((0, 8), (4, 12)) and not P.ranges_overlap((0, 8), (8, 16))
    assert not P.ranges_overlap((0, 0), (0, 8))
    assert P.byte_range(100, Layout((3,), (-1,), 2, 4)) == (100, 112)


def test_short_row_tiles_fit():
    """Rows of 128 to 1023 vectors take one tile of 256 or 512 a step where the last
    tile leaves at most a fifth of its threads idle; longer rows take the long tiles."""
    from xstride._kernels._geometry import row_tiles_fit, short_row_unroll

    assert [short_row_unroll(n) for n in (127, 128, 205, 256, 300, 409, 410, 510, 512, 1000,
                                           1023, 1024)] == [0, 0, 1, 1, 0, 0, 2, 2, 2, 2, 2, 0]
    assert row_tiles_fit(1024) and not row_tiles_fit(1023)


def test_short_row_tiles_only_for_fused_calls_that_read_rows_apart():
    """Long rows take the long tiles in every call; rows of 205-1023 vectors take the
    short tiles only in a fused call that reads one argument rows apart (a stencil);
    plain calls on such rows keep the per-vector walk (measured faster for them)."""
    from xstride._kernels._geometry import row_tiles_choice

    assert row_tiles_choice(8190, 256, 4, False) == (True, 0)
    assert row_tiles_choice(8190, 256, 4, True) == (True, 0)
    assert row_tiles_choice(510, 256, 4, True) == (True, 2)
    assert row_tiles_choice(205, 256, 4, True) == (True, 1)
    assert row_tiles_choice(510, 256, 4, False) == (False, 0)
    assert row_tiles_choice(300, 256, 4, True) == (False, 0)
    assert row_tiles_choice(100, 256, 4, True) == (False, 0)
