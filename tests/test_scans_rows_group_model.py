"""CPU tests of the row scans of ``scans_rows.cu`` (strategy "rows"): NumPy models of
``xs_scan_rows_group`` (a group of g lanes a row, 32 / g rows a warp, U steps of 4
elements a lane loaded together, the Kogge-Stone scan of width-g shuffles, the carry
from step to step) and ``xs_scan_rows`` (a warp a row: the same walk with g = 32,
U = 1), transcribed from the kernels lane by lane and run behind the executor on the
stand-in CuPy of tests/conftest.py, so the host's launch (source file, template
arguments, grid, descriptor, the tail of nrows, length and group, the x offset of
reversed rows) is what the model runs.

Every read must be an element of the scanned view, every write inside the output and
each output written exactly once; the outputs must be NumPy's exact cumulative sums
and products (small integers: exact in every accumulator), for every group, every U,
row lengths around every step boundary, rows shorter than a step, a last warp with
rows past the end, several passes of the grid-stride loop, reversed, strided and
broadcast rows, two row axes, and the initial element."""

from __future__ import annotations

import re
import types

import numpy as np
import pytest

import xstride as xp
from xstride._kernels import _reduce_common as rc
from tests.conftest import FakeCupyArray
from tests.test_scans_tile_model import _CT, _host, fake_tile  # noqa: F401 (fixture)

_GROUP = re.compile(r"xs_scan_rows_group<(\d), ([\w ]+), ([\w ]+), ([\w ]+), (\d+), (\d+), (\d+)>")
_WARP = re.compile(r"xs_scan_rows<(\d), ([\w ]+), ([\w ]+), ([\w ]+), (\d+), (\d+)>")


def _offsets(i, shape, stride, nk):
    """``xs_offset<NK>`` (namespace_kernels.cuh) of the row indices ``i``."""
    if nk == 1:
        return i * stride[0]
    off = np.zeros_like(i)
    for d in range(nk - 1, -1, -1):
        q = i // shape[d]
        off += (i - q * shape[d]) * stride[d]
        i = q
    return off


class _RowsKernel:
    """Both row kernels on the host from their launch alone. ``ctx["allowed"]``: the
    byte addresses of the elements of the scanned view (set by the test)."""

    def __init__(self, src, expr, log, ctx):
        m = _GROUP.fullmatch(expr) or _WARP.fullmatch(expr)
        assert m, expr
        assert src == "scans_rows.cu", (src, expr)
        self.grouped = expr.startswith("xs_scan_rows_group<")
        self.op = int(m.group(1))
        self.tin, self.tacc, self.tout = (_CT[m.group(i)] for i in (2, 3, 4))
        self.cap = int(m.group(5))
        self.u_steps = int(m.group(7)) if self.grouped else 1
        self.expr, self.log, self.ctx = expr, log, ctx

    @property
    def kernel(self):
        return self

    def __call__(self, grid, block, args, shared_mem=0, **kwargs):
        assert tuple(block) == (256,) and shared_mem == 0
        if self.grouped:
            x, out, desc, nrows, length, group = args
            g = int(group)
            assert g in (1, 2, 4, 8, 16), g
        else:
            x, out, desc, nrows, length = args
            g = 32
        x, out, nrows, length = int(x), int(out), int(nrows), int(length)
        cap, U, tin, tacc, tout = self.cap, self.u_steps, self.tin, self.tacc, self.tout
        d = np.frombuffer(desc.tobytes(), np.int64)
        kshape, kstride, kout = d[:cap], d[cap:2 * cap], d[2 * cap:3 * cap]
        nk, s_in, s_out, init = (int(v) for v in d[3 * cap:3 * cap + 4])
        assert 1 <= nk <= cap and length > 0
        (nblocks,) = tuple(grid)
        self.log.append((self.expr, (nblocks,), nrows, length, g))
        ident = tacc.type(1 if self.op == 1 else 0)

        def op(a, b):
            return (a * b if self.op == 1 else a + b).astype(tacc)

        nelems = nrows * (length + init)
        dst = _host(out, nelems, tout)
        written = np.zeros(nelems, np.int64)
        allowed = self.ctx["allowed"]
        isz = tin.itemsize
        per, span = 32 // g, 4 * g
        nwarps = nblocks * 256 >> 5
        step = nwarps * per
        lane = np.arange(32)
        sub = lane & (g - 1)
        npass = 0
        for first in range(0, nrows, step):   # the grid-stride loop, all warps at once
            npass += 1
            row0 = first + np.arange(nwarps)[:, None] * per            # (W, 1) uniform
            row0 = row0[row0[:, 0] < nrows]                            # warps in the loop
            row = row0 + lane // g                                     # (W, 32)
            n = np.where(row < nrows, length, 0)
            live_row = n > 0
            r = np.where(live_row, row, 0)
            p = _offsets(r, kshape, kstride, nk)
            q = _offsets(r, kshape, kout, nk)
            if init:
                head = live_row & (sub == 0)
                dst[q[head]] = np.asarray(ident).astype(tout)
                written[q[head]] += 1
            q = q + init * s_out
            carry = np.full(row.shape, ident, tacc)
            for base in range(0, length, U * span):
                v = []
                for u in range(U):                                     # xs_load_row
                    k = base + u * span + sub * 4                      # (32,)
                    e = k[None, :, None] + np.arange(4)                # (1, 32, 4)
                    ok = e < n[:, :, None]
                    addr = x + (p[:, :, None] + e * s_in) * isz
                    a = addr[ok]
                    if a.size:
                        assert np.isin(a, allowed).all(), "a read outside the view"
                        lo = int(a.min())
                        got = _host(lo, (int(a.max()) - lo) // isz + 1, tin)
                        vals = np.full(ok.shape, ident, tacc)
                        vals[ok] = got[(a - lo) // isz].astype(tacc)
                    else:
                        vals = np.full(ok.shape, ident, tacc)
                    v.append(vals)
                for u in range(U):
                    if base + u * span >= length:
                        break
                    w = v[u]
                    for j in range(1, 4):
                        w[..., j] = op(w[..., j - 1], w[..., j])
                    # xs_group_scan: __shfl_up_sync(v, o, width g) reads lane - o of
                    # the same group, else the lane's own value
                    incl = w[..., 3].copy()
                    o = 1
                    while o < 32 and o < g:
                        src = np.where(sub >= o, lane - o, lane)
                        t = incl[:, src]
                        incl = np.where(sub >= o, op(t, incl), incl)
                        o <<= 1
                    left = incl[:, np.where(sub >= 1, lane - 1, lane)]
                    total = incl[:, (lane & ~(g - 1)) + g - 1]
                    pre = op(carry, np.where(sub == 0, ident, left))
                    k = base + u * span + sub * 4
                    for j in range(4):                                  # xs_store_row
                        kj = k + j
                        ok = kj[None, :] < n
                        off = (q + kj * s_out)[ok]
                        assert ((off >= 0) & (off < nelems)).all(), "a write outside out"
                        dst[off] = op(pre, w[..., j])[ok].astype(tout)
                        np.add.at(written, off, 1)
                    carry = op(carry, total)
        self.log[-1] += (npass,)
        assert (written == 1).all(), "an output not written exactly once"


@pytest.fixture
def fake_rows(fake_tile, fake_cupy, monkeypatch):
    """The stand-in CuPy of tests/test_scans_tile_model.py with the row kernels modelled
    here, on a device of ``fake_cupy.multiprocessors`` SMs (few: groups below a warp and
    several passes of the grid-stride loop from a few thousand rows)."""
    scans, log = fake_tile
    ctx = {"allowed": np.empty(0, np.int64)}
    from tests.test_scans_tile_model import _model

    def kernel(src, expr, partner=None):
        if expr.startswith("xs_scan_rows"):
            return _RowsKernel(src, expr, log, ctx)
        return _model(expr, log)

    monkeypatch.setattr(rc, "kernel", kernel)
    if not hasattr(fake_cupy, "lib"):   # outputs not in C order: CuPy's as_strided view
        def as_strided(buf, shape, strides):
            return FakeCupyArray(shape, buf.dtype, memptr=buf.data, strides=strides)
        monkeypatch.setattr(fake_cupy, "lib", types.SimpleNamespace(
            stride_tricks=types.SimpleNamespace(as_strided=as_strided)), raising=False)
    fake_cupy.multiprocessors = 1
    rc._sm_count.cache_clear()
    return scans, log, ctx


def _addresses(h):
    """Byte addresses of every element of the NumPy view ``h``."""
    ptr = h.__array_interface__["data"][0]
    idx = np.indices(h.shape).reshape(h.ndim, -1)
    return ptr + np.asarray(h.strides, np.int64) @ idx


def _want(h, f, axis, init):
    wide = h.astype(np.float64 if h.dtype.kind == "f" else np.int64)
    want = (np.cumsum if f == "cumulative_sum" else np.cumprod)(wide, axis=axis)
    if init:
        shape = list(want.shape)
        shape[axis] = 1
        want = np.concatenate([np.zeros(shape, want.dtype) + (f == "cumulative_prod"), want],
                              axis=axis)
    return want


def _check(log, ctx, h, axis=-1, dtype=None):
    """Both scans of ``h`` (sums of small integers, products of their signs), with and
    without the initial element, against NumPy; the launches' log entries."""
    seen = []
    signs = np.where(h < 0, -1, 1).astype(h.dtype) if h.dtype != np.bool_ else h
    for f, v in (("cumulative_sum", h), ("cumulative_prod", signs)):
        ctx["allowed"] = _addresses(v)
        for init in (False, True):
            before = len(log)
            got = getattr(xp, f)(FakeCupyArray(v), axis=axis, include_initial=init,
                                 dtype=dtype)
            assert len(log) == before + 1 and log[-1][0].startswith("xs_scan_rows"), log[-1:]
            seen.append(log[-1])
            want = _want(v, f, axis, init)
            assert got.shape == want.shape
            np.testing.assert_array_equal(np.asarray(got.host, np.float64),
                                          want.astype(np.float64),
                                          err_msg=f"{f} init={init} {log[-1]}")
    return seen


_LENGTHS = (1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33, 47, 63, 64, 65, 100, 127, 128,
            129, 200, 257)


@pytest.mark.parametrize("u_steps", [1, 2, 3, 4])
@pytest.mark.parametrize("group", [1, 2, 4, 8, 16])
def test_every_group_and_step_count_matches_numpy(fake_rows, monkeypatch, group, u_steps):
    """The group forced (``scan_row_group`` patched) for rows of every length around the
    step boundaries 4, 4g and 4gU: 37 rows (a last warp with rows past the end for
    every g > 1), forward, starting off a 16-byte boundary, reversed and strided."""
    scans, log, ctx = fake_rows
    monkeypatch.setitem(rc.TUNING, "scan_rows_group", (4, u_steps))
    monkeypatch.setattr(scans, "scan_row_group", lambda *a: group)
    rng = np.random.default_rng(group * 10 + u_steps)
    for L in _LENGTHS:
        a = rng.integers(-3, 4, size=(38, 2 * L + 1)).astype(np.int32)
        for h in (a[:37, :L], a[1:, 1:L + 1], a[:37, L - 1::-1] if L > 1 else a[:37, :1],
                  a[:37, ::2][:, :L], a[:37, ::-2][:, :L]):
            for expr, grid, nrows, length, g, npass in _check(log, ctx, h):
                assert expr.startswith("xs_scan_rows_group<") and expr.endswith(f", {u_steps}>")
                assert (nrows, length, g) == (37, L, group)


@pytest.mark.parametrize("dtype,out", [("float32", None), ("int64", None), ("float64", None),
                                       ("int8", None), ("float16", None), ("uint16", "uint32"),
                                       ("int32", "int32")])
def test_dtypes_and_row_axes(fake_rows, monkeypatch, dtype, out):
    """Other element and output types (the vector loads and stores take 4- and 8-byte
    ones), two row axes (one sliced, one reversed) and broadcast rows (stride 0)."""
    scans, log, ctx = fake_rows
    monkeypatch.setattr(scans, "scan_row_group", lambda *a: 8)
    rng = np.random.default_rng(len(dtype))
    lo = 0 if dtype.startswith("u") else -3
    full = rng.integers(lo, 4, size=(9, 14, 41)).astype(dtype)
    for h in (full[:, 1::2], full[::-1, ::3, 2:], full.transpose(1, 0, 2)):
        _check(log, ctx, h, dtype=out)
    col = rng.integers(lo, 4, size=(40, 1)).astype(dtype)
    _check(log, ctx, np.broadcast_to(col, (40, 50)), dtype=out)


def test_the_host_group_and_the_grid_walk(fake_rows):
    """The executor's own choice on a device of one SM: ``scan_row_group`` below a warp
    for enough rows (and the group kernel then), the warp kernel for few rows or long
    ones; a grid capped at 32 blocks walks the rows in several passes."""
    from xstride._kernels._scan_geometry import scan_row_group

    scans, log, ctx = fake_rows
    u = rc.TUNING["scan_rows_group"][1]
    rng = np.random.default_rng(3)
    passes = set()
    for n, L in ((3000, 33), (5000, 40), (2100, 64), (1000, 100), (300, 128), (200, 20),
                 (64, 50), (700, 129), (9000, 35)):
        h = rng.integers(-3, 4, size=(n, L)).astype(np.float32)
        g = scan_row_group(n, L, u, 1)
        for expr, grid, nrows, length, got_g, npass in _check(log, ctx, h):
            assert got_g == g and expr.startswith(
                "xs_scan_rows_group<" if g < 32 else "xs_scan_rows<"), (n, L, g, expr)
            assert grid[0] == min(-(-(-(-n * g // 32)) // 8), 32)
            passes.add(npass)
    assert max(passes) >= 3, passes           # not vacuous: the grid-stride loop ran


def test_gpu_cases_take_the_group_kernel_on_132_sms(fake_cupy):
    """The cases of tests/test_scans_rows_group_gpu.py take the group kernel at the
    default tuning on a device of 132 SMs (as each asserts before it runs)."""
    from tests import test_scans_rows_group_gpu as gpu
    from xstride._kernels._scan_geometry import scan_row_group
    from xstride._plans.scan import plan_scan
    from xstride.layout import Layout

    u = rc.TUNING["scan_rows_group"][1]
    for shape, cols, dtype in gpu._CASES:
        h = np.zeros(shape, dtype)[:, cols]
        plan = plan_scan(Layout.from_array(FakeCupyArray(h)), 1, False, 132)
        assert plan.strategy == "rows"
        assert scan_row_group(plan.nrows, plan.length, u, 132) < 32, (shape, cols, dtype)
