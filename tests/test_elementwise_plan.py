"""The elementwise plan on the CPU: paths, and a model of the kernels' index math.

``_emulate`` decodes the packed ``xstride_ew_params`` exactly as the CUDA kernels do
(outer/rest axes in C order, inner axis, tile axis) and computes ``out = f(inputs)``
over flat NumPy buffers; the result must equal NumPy's on the same views.
"""

from __future__ import annotations

import math
import shutil
import struct
import subprocess

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from xstride import _elementwise_plan as P
from xstride._kernels._elementwise_source import Operand, kernel_source
from xstride.layout import Layout


def _unpack(plan):
    cap, data = P.pack_params(plan)
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
        geo = P.tiled_geometry(plan, t, ga, gb, r, max_yz=max_yz)
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
    g = P.tiled_geometry(plan)                      # whole rows of tiles: order 0, 1, rest
    assert (g.ga, g.gb, g.nga, g.nz, g.rest, g.nchunks) == (20, 20, 1, 1, 640, 640)
    assert g.grid == (400, 640, 1) and g.off32
    g = P.tiled_geometry(plan, ga=0, gb=1, r=4)     # order 0, rest, 1 and 4 rest per block
    assert g.grid == (20, 160, 20) and (g.nga, g.nz) == (1, 20)
    g = P.tiled_geometry(plan, ga=8, gb=3)          # largest divisors of 20 not above
    assert (g.ga, g.gb, g.nga, g.nz) == (5, 2, 4, 40) and g.grid == (10, 640, 40)
    assert P.tiled_geometry(plan, r=1, max_yz=7).grid == (400, 7, 1)
    # x + y.transpose(2, 0, 1) coalesces to a 2-D transpose (640 x 409600)
    flat = P.make_plan([lay(x)], [lay(x), lay(x.transpose(2, 0, 1))])
    assert flat.shape == (640, 409600) and flat.tile_axis == 0
    g = P.tiled_geometry(flat, ga=1000, gb=8)
    assert (g.ga, g.gb, g.nga, g.nz, g.rest) == (800, 5, 16, 64, 1)
    assert g.grid == (4000, 1, 64)
    # 32-bit offsets only while every offset a thread forms (partial tiles too) fits
    n = 1 << 16
    near = P.make_plan([Layout((n, 8), (8, 1))], [Layout((n, 8), (1, n))])
    assert near.kind == "tiled" and P.tiled_geometry(near).off32
    far = P.make_plan([Layout((n, 8), (8, 1))], [Layout((n, 8), (1, (1 << 31) // 8))])
    assert far.kind == "tiled" and not P.tiled_geometry(far).off32


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
    assert P.make_plan([Layout((2, 3))], [Layout((3,)), Layout((3,))]).kind == "rows"
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
    assert P.pack_params(big)[0] == 64


def test_overlap_helpers():
    assert P.ranges_overlap((0, 8), (4, 12)) and not P.ranges_overlap((0, 8), (8, 16))
    assert not P.ranges_overlap((0, 0), (0, 8))
    assert P.byte_range(100, Layout((3,), (-1,), 2, 4)) == (100, 112)


# ------------------------------------------------------------------ generated CUDA
_SPECS = [Operand("r", "float", kind="out"), Operand("a", "float", "float"),
          Operand("b", "signed char", "float"), Operand("s", "float", "float", kind="scalar")]


def _variants():
    yield dict(kind="flat", vec=4, bcast=(False, False, True))
    yield dict(kind="flat", vec=1)
    yield dict(kind="rows", vec=4, bcast=(False, True, False), idx32=True)
    yield dict(kind="rows", vec=2, idx32=False, cap=16)
    yield dict(kind="nd", cap=64)
    yield dict(kind="tiled", trans=(False, True, False), cap=4, impl="legacy")
    yield dict(kind="tiled", trans=(False, True, True), cap=64, impl="legacy", tile=32)
    for ra in (0, 1, 2):
        yield dict(kind="tiled", trans=(False, True, False), cap=4, off32=True, rest_axes=ra,
                   minb=8)
    yield dict(kind="tiled", trans=(False, False, True), cap=16, off32=False, rest32=False,
               rest_axes=2)
    yield dict(kind="tiled", trans=(False, True, True), cap=64, tile=64, off32=True,
               rest_axes=1, minb=6)
    yield dict(kind="rows", vec=1, index_var=True)


def test_generated_sources_compile_with_nvcc(tmp_path):
    nvcc = shutil.which("nvcc")
    if nvcc is None:
        pytest.skip("nvcc is not on PATH")
    from xstride._kernels._compile import include_dir

    parts = []
    for i, v in enumerate(_variants()):
        src = kernel_source(f"k{i}", v.pop("kind"), _SPECS, "r = xstride_max(a, b) + s;", **v)
        parts.append(src)
    pre = [Operand("z", "double", kind="out", preload=True), Operand("a", "bool", "double")]
    parts.append(kernel_source("kpre", "tiled", pre, "z += a;", trans=(False, True), cap=4,
                               off32=True, rest_axes=1))
    for i, src in enumerate(parts):
        f = tmp_path / f"k{i}.cu"
        f.write_text(src)
        res = subprocess.run([nvcc, "-std=c++17", "-arch=sm_90", f"-I{include_dir()}", "--ptx",
                              "-o", str(tmp_path / f"k{i}.ptx"), str(f)],
                             capture_output=True, text=True)
        assert res.returncode == 0, res.stderr + src


# ------------------------------------------------------------------ host path, fake CuPy
# A NumPy-backed stand-in for the parts of CuPy the launch path touches: arrays with
# ``.data.ptr``/``.data.mem``, shape/strides/dtype, ``empty`` from a 512-byte aligned
# arena (as CuPy's memory pool), and a RawModule whose kernels record their launches.
# It checks that the call cache (``_elementwise_exec.run_cached``) launches exactly
# what the uncached path launches, and it times the host path (``python -m
# tests.test_elementwise_plan``).

class _FakePtr:
    __slots__ = ("ptr", "mem")

    def __init__(self, ptr, mem):
        self.ptr, self.mem = ptr, mem


class _FakeArray:
    __slots__ = ("_a", "shape", "strides", "dtype", "size", "itemsize", "ndim", "data")

    def __init__(self, a, mem=None, ptr=None):
        self._a = a
        self.shape, self.strides, self.dtype = a.shape, a.strides, a.dtype
        self.size, self.itemsize, self.ndim = a.size, a.itemsize, a.ndim
        self.data = _FakePtr(a.__array_interface__["data"][0] if ptr is None else ptr, mem)

    def copy(self):
        return _fake_wrap(np.ascontiguousarray(self._a).copy())

    def transpose(self, *axes):
        if len(axes) == 1 and not isinstance(axes[0], int):
            axes = axes[0]
        return _FakeArray(self._a.transpose(*axes), self.data.mem)

    @property
    def T(self):
        return _FakeArray(self._a.T, self.data.mem)

    def __getitem__(self, ix):
        return _FakeArray(self._a[ix], self.data.mem)


class _Arena:
    """Bump allocator over one host buffer, 512-byte aligned like CuPy's pool."""

    def __init__(self, nbytes=1 << 22):
        raw = np.zeros(nbytes + 512, np.uint8)
        start = (-raw.__array_interface__["data"][0]) % 512
        self.buf = raw[start:start + nbytes]
        self.ptr = self.buf.__array_interface__["data"][0]
        self.pos = 0
        self.misalign = 0  # bytes added to the next misalign_n allocations (tests)
        self.misalign_n = 0

    def empty(self, shape, dtype=np.float64):
        dt = dtype if type(dtype) is not type else np.dtype(dtype)
        dt = np.dtype(dt)
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        n = math.prod(shape) * dt.itemsize
        if self.pos + n + 1024 > len(self.buf):
            self.pos = 0
        at = self.pos
        if self.misalign_n:
            at += self.misalign
            self.misalign_n -= 1
        self.pos = -(-(at + max(n, 1)) // 512) * 512
        return _FakeArray(np.ndarray(shape, dt, self.buf, at), self, self.ptr + at)


_ARENA = _Arena()


def _fake_wrap(a):
    """A fake device array holding a copy of ``a`` (C order, in the arena)."""
    out = _ARENA.empty(a.shape, a.dtype)
    out._a[...] = a
    return out


class _FakeKernel:
    def __init__(self, name, source, log):
        self.name, self.source, self.log = name, source, log

    def __call__(self, grid, block, args):
        self.log.append((self, grid, block, args))


class _FakeCupy:
    """The ``cupy`` module as far as the elementwise launch path is concerned."""

    ndarray = _FakeArray

    def __init__(self):
        self.launches = []
        self.cuda = type("cuda", (), {})()
        self.cuda.runtime = type("runtime", (), {"getDeviceCount": staticmethod(lambda: 1)})()

    def empty(self, shape, dtype=np.float64):
        return _ARENA.empty(shape, dtype)

    def raw_module(self, source, options=(), name_expressions=()):
        log = self.launches
        return type("RawModule", (), {"get_function": lambda _s, name:
                                      _FakeKernel(name, source, log)})()


def _install_fake_cupy():
    """Put the fake in ``sys.modules`` and the executor; returns (fake, undo)."""
    import sys

    from xstride._kernels import _elementwise_exec as ex

    fake = _FakeCupy()
    saved = sys.modules.get("cupy"), ex.raw_module, ex.CACHE
    sys.modules["cupy"] = fake
    ex.raw_module = fake.raw_module
    ex.clear_caches()

    def undo():
        mod, ex.raw_module, ex.CACHE = saved
        if mod is None:
            sys.modules.pop("cupy", None)
        else:
            sys.modules["cupy"] = mod
        ex.clear_caches()

    return fake, undo


@pytest.fixture
def fake_cp():
    fake, undo = _install_fake_cupy()
    try:
        yield fake
    finally:
        undo()


def _norm_arg(v, inputs):
    """A comparable description of one kernel argument."""
    if isinstance(v, _FakeArray):
        for i, x in enumerate(inputs):
            if v is x:
                return ("input", i)
        # a fresh output or a copy of an overlapping input: layout, alignment, values
        return ("array", v.shape, v.strides, v.dtype.str, v.data.ptr % 16,
                np.ascontiguousarray(v._a).tobytes())
    if isinstance(v, np.ndarray):  # the packed parameter struct
        return ("struct", v.dtype.str, v.tobytes())
    if isinstance(v, np.generic):
        return ("scalar", v.dtype.str, v.tobytes())
    raise AssertionError(f"unexpected kernel argument {type(v).__name__}")


def _norm_launch(rec, inputs, out):
    fn, grid, block, args = rec
    norm = []
    for v in args:
        if v is out:
            norm.append(("out",))
        else:
            norm.append(_norm_arg(v, inputs))
    return (fn.name, fn.source, tuple(grid), tuple(block), tuple(norm))


def _one_call(fake, call, inputs):
    """Run ``call()``; return (normalized launches, path, result layout)."""
    from xstride._kernels import _elementwise_exec as ex

    fake.launches.clear()
    ex.last_kind = None
    res = call()
    launches = [_norm_launch(r, inputs, res) for r in fake.launches]
    fake.launches.clear()
    return launches, ex.last_kind, (res.shape, res.strides, res.dtype.str)


def _buf(shape, dtype=np.float32, shift=0):
    """A fake array of fresh random values, ``shift`` elements past a 512-byte boundary."""
    dt = np.dtype(dtype)
    n = int(np.prod(shape))
    base = _ARENA.empty((n + shift,), dt)
    base._a[...] = np.random.default_rng(n + shift).standard_normal(n + shift).astype(dt)
    return _FakeArray(base._a[shift:].reshape(shape), _ARENA)


def _cases(cp):
    """(label, function of the fake module, inputs) of many layouts and functions."""
    from xstride._kernels import elementwise as ew

    i8 = np.int8
    a = _buf((8,))
    x = _buf((16, 16))
    y = _buf((16, 16))
    cube = _buf((9, 10, 11))
    cube_t = _buf((11, 9, 10)).transpose((1, 2, 0))
    row = _buf((16,))
    wide = _buf((16, 32))
    neg = _buf((24,))[::-1]
    zero_d = _buf(())
    empty = _buf((0, 3))
    mis = _buf((64,), shift=1)
    ints = _buf((16, 16), i8)
    flags = _FakeArray(np.asarray(_buf((16, 16))._a > 0), _ARENA)
    big = _buf((40, 3, 50))
    big_t = _buf((50, 3, 40)).transpose((2, 1, 0))
    out_x = _buf((16, 16))
    out_t = _buf((16, 16)).T
    scratch = _buf((40,))
    def add(*v, **k):
        return lambda: ew.ufunc_call("add", v, **k)

    yt, xt, ot = y.T, x.T, out_x.T
    wide2, neg2, neg1 = wide[:, ::2], neg[::2], neg[1::2]
    mis1, mis2 = mis[:60], mis[4:]
    s1, s2 = scratch[:39], scratch[1:]
    yield "contiguous", add(a, a), [a]
    yield "2-D", add(x, y), [x, y]
    yield "transposed (tiled)", add(x, yt), [x, yt]
    yield "3-D permuted (tiled)", add(cube, cube_t), [cube, cube_t]
    yield "tiled, two rest axes", add(big, big_t), [big, big_t]
    yield "broadcast row", add(x, row), [x, row]
    yield "broadcast 0-d", add(x, zero_d), [x, zero_d]
    yield "sliced", add(wide2, x), [wide2, x]
    yield "negative strides", add(neg2, neg1), [neg2, neg1]
    yield "0-d", add(zero_d, zero_d), [zero_d]
    yield "empty", add(empty, empty), [empty]
    yield "misaligned", add(mis1, mis2), [mis1, mis2]
    yield "python float", add(x, 1.5), [x]
    yield "python int, int8", add(ints, 3), [ints]
    yield "mixed dtypes", add(ints, xt), [ints, xt]
    yield "unary", lambda: ew.ufunc_call("negative", (cube_t,)), [cube_t]
    yield "comparison", lambda: ew.ufunc_call("less", (x, yt)), [x, yt]
    yield "out= given", add(x, y, out=out_x), [x, y, out_x]
    yield "out= transposed", add(x, y, out=out_t), [x, y, out_t]
    yield "in place, same view", add(out_x, yt, out=out_x), [out_x, yt]
    yield "in place, shifted (copy)", add(s1, s2, out=s2), [s1, s2]
    yield "in place, transposed (copy)", add(out_x, ot, out=out_x), [out_x, ot]
    yield "where", lambda: ew.where(flags, x, yt), [flags, x, yt]
    yield "where scalars", lambda: ew.where(flags, 2, x), [flags, x]
    yield "where out=", lambda: ew.where(flags, x, 0.5, out=out_t), [flags, x, out_t]
    yield "astype", lambda: ew.astype(cube_t, np.float64), [cube_t]
    yield "astype int8", lambda: ew.astype(xt, i8), [xt]
    yield "copy_into", lambda: ew.copy_into(out_t, y), [out_t, y]
    yield "copy_into scalar", lambda: ew.copy_into(out_x, 7), [out_x]
    yield "copy_into broadcast", lambda: ew.copy_into(out_x, row), [out_x, row]


@pytest.mark.parametrize("label", [c[0] for c in _cases(_FakeCupy())])
def test_call_cache_launches_what_the_uncached_path_launches(fake_cp, label, monkeypatch):
    """Same kernel, grid, block and arguments with the call cache, on a hit, and without."""
    from xstride._kernels import _elementwise_exec as ex

    case = {c[0]: c for c in _cases(fake_cp)}[label]
    _, call, inputs = case
    prepared = []
    real_prepare = ex._prepare
    monkeypatch.setattr(ex, "_prepare", lambda *a: prepared.append(1) or real_prepare(*a))

    ex.CACHE = False
    ref = [_one_call(fake_cp, call, inputs) for _ in range(2)]
    assert len(prepared) == 2                      # uncached: planned every time
    assert ref[0] == ref[1]
    ex.CACHE = True
    ex.clear_caches()
    first = _one_call(fake_cp, call, inputs)
    n_prep = len(prepared)
    hits = [_one_call(fake_cp, call, inputs) for _ in range(3)]
    assert first == ref[0]
    for h in hits:
        assert h == ref[0]
    launches, kind, _ = ref[0]
    if kind == "empty":
        assert launches == []
    else:
        assert len(launches) == 1 and launches[0][0].startswith("xs_ew_")
    copies = any(a[0] == "array" for a in launches[0][4] if a != ("out",)) if launches else False
    if "(copy)" in label:
        assert copies                               # the overlapping input was copied
        assert len(prepared) == n_prep              # its launch entry is still cached
    else:
        assert not copies
        assert len(prepared) == n_prep              # hits: no planning at all
        assert len(ex._calls) == 1                  # served by the call cache


def test_call_cache_rechecks_overlap_per_call(fake_cp):
    """Layouts that hit the cache but whose pointers now overlap take the copy path."""
    from xstride._kernels import _elementwise_exec as ex
    from xstride._kernels import elementwise as ew

    buf = _buf((64,))
    ex.CACHE = True
    disjoint = (buf[0:16], buf[16:32], buf[32:48])
    ew.ufunc_call("add", disjoint[1:], out=disjoint[0])
    assert len(ex._calls) == 1
    # same dtypes, shapes, strides and pointers modulo 16: the same key
    out, x, z = buf[8:24], buf[16:32], buf[32:48]
    assert ex.call_key("add", (x, z), out, _FakeArray) in ex._calls
    got = _one_call(fake_cp, lambda: ew.ufunc_call("add", (x, z), out=out), [x, z])
    ex.CACHE = False
    want = _one_call(fake_cp, lambda: ew.ufunc_call("add", (x, z), out=out), [x, z])
    assert got == want
    args = got[0][0][4]
    assert args[2][0] == "array" and args[3] == ("input", 1)  # x copied, the other not
    # the same view in and out overlaps but needs no copy
    ex.CACHE = True
    v, w = buf[48:64], buf[0:16]
    assert ex.call_key("add", (v, w), v, _FakeArray) in ex._calls
    hit = _one_call(fake_cp, lambda: ew.ufunc_call("add", (v, w), out=v), [v, w])
    assert hit[0][0][4][1:] == (("out",), ("out",), ("input", 1))


def test_call_cache_rechecks_output_alignment(fake_cp):
    """A fresh output whose pointer modulo 16 differs from the cached one is a miss."""
    from xstride._kernels import _elementwise_exec as ex
    from xstride._kernels import elementwise as ew

    x = _buf((64,))
    ex.CACHE = True
    aligned = _one_call(fake_cp, lambda: ew.ufunc_call("add", (x, x)), [x])
    assert "p.n / 4" in aligned[0][0][1]        # 4-wide vectors
    # the cached call allocates a misaligned output: a miss; the uncached path that
    # follows allocates again (misaligned too here) and plans for it
    _ARENA.misalign, _ARENA.misalign_n = 4, 2
    mis = _one_call(fake_cp, lambda: ew.ufunc_call("add", (x, x)), [x])
    assert _ARENA.misalign_n == 0
    ex.CACHE = False
    _ARENA.misalign, _ARENA.misalign_n = 4, 1
    want = _one_call(fake_cp, lambda: ew.ufunc_call("add", (x, x)), [x])
    assert mis == want and mis[0] != aligned[0]  # another vector width: another kernel
    assert "p.n / 4" not in mis[0][0][1]
    ex.CACHE = True
    assert _one_call(fake_cp, lambda: ew.ufunc_call("add", (x, x)), [x]) == aligned


def test_call_cache_keys_and_switches(fake_cp):
    from xstride._kernels import _elementwise_exec as ex
    from xstride._kernels import elementwise as ew

    x, y = _buf((8,)), _buf((8,))
    k = ex.call_key("add", (x, y), None, _FakeArray)
    assert k == ("add", ex.tiled_variant, ex._MAX_GRID_YZ, None,
                 x.dtype, (8,), (4,), x.data.ptr % 16, y.dtype, (8,), (4,), y.data.ptr % 16)
    assert ex.call_key("add", (x, 2), None, _FakeArray)[-1] is int
    assert ex.call_key("add", (x, True), None, _FakeArray)[-1] is bool
    assert ex.call_key("add", (x, np.float32(2)), None, _FakeArray) is None
    assert ex.call_key("add", (x, y), np.zeros(8), _FakeArray) is None
    ex.CACHE = True
    ew.ufunc_call("add", (x, y))
    assert len(ex._calls) == 1 and len(ex._launch_cache) == 1
    ex._launch_cache.clear()                    # what tests/benchmarks do after a change
    assert len(ex._calls) == 0
    # errors are never cached: the same bad call raises every time
    bad = _buf((3,))
    for _ in range(2):
        with pytest.raises(ValueError, match="cannot be broadcast"):
            ew.ufunc_call("add", (x, bad))
        with pytest.raises(ValueError, match="expected the broadcast shape"):
            ew.ufunc_call("add", (x, y), out=_buf((4,)))
        with pytest.raises(OverflowError):
            ew.ufunc_call("add", (_FakeArray(np.zeros(4, np.int8)), 300))
    with pytest.raises(TypeError, match="same_kind"):
        ew.ufunc_call("add", (x, y), out=_FakeArray(np.zeros(8, np.int32)))
    ew.ufunc_call("add", (_FakeArray(np.zeros(4, np.int8)), 3))
    with pytest.raises(OverflowError):           # a hit converts each value again
        ew.ufunc_call("add", (_FakeArray(np.zeros(4, np.int8)), 300))


def test_cache_switch_from_environment():
    import os
    import subprocess
    import sys

    code = "from xstride._kernels import _elementwise_exec as ex; print(ex.CACHE)"
    for val, want in (("0", "False"), ("1", "True")):
        env = dict(os.environ, XSTRIDE_EW_CACHE=val)
        res = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                             text=True, check=True)
        assert res.stdout.strip() == want


def host_cost(number=20000, repeat=7):
    """Per-call host time (us, best of ``repeat``) on the fake CuPy, cache on and off."""
    import timeit

    from xstride._kernels import _elementwise_exec as ex
    from xstride._kernels import elementwise as ew

    fake, undo = _install_fake_cupy()
    try:
        a, b, o = _buf((8,)), _buf((8,)), _buf((8,))
        x, y = _buf((64, 64)), _buf((64, 64))
        flags = _FakeArray(np.asarray(a._a > 0), _ARENA)
        cases = [("add(a, b), 8 elements", lambda: ew.ufunc_call("add", (a, b))),
                 ("add(a, b, out=o)", lambda: ew.ufunc_call("add", (a, b), out=o)),
                 ("add(a, 1.5)", lambda: ew.ufunc_call("add", (a, 1.5))),
                 ("add(x, y.T), 64x64 tiled", lambda: ew.ufunc_call("add", (x, y.T))),
                 ("where(c, a, b)", lambda: ew.where(flags, a, b)),
                 ("astype(a, float64)", lambda: ew.astype(a, np.float64)),
                 ("fake cupy.empty(8) alone", lambda: fake.empty((8,), np.float32))]
        rows = []
        for name, fn in cases:
            t = {}
            for on in (False, True):
                ex.CACHE = on
                fn()
                fake.launches.clear()
                best = min(timeit.repeat(fn, number=number // (10 if not on else 1),
                                         repeat=repeat))
                t[on] = best / (number // (10 if not on else 1)) * 1e6
                fake.launches.clear()
            rows.append((name, t[False], t[True]))
        return rows
    finally:
        undo()


if __name__ == "__main__":
    for name, off, on in host_cost():
        print(f"{name:28s} uncached {off:7.2f} us   cached {on:6.2f} us")
