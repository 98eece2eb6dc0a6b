"""CPU tests of the short-row scans ``xs_scan_tile`` and ``xs_scan_rowregs``
(``scans_short.cu``, strategy "tile"): NumPy models of the kernel's indexing, step by step (the staged span from the
kernel's ``x``, WALK 0 forward rows, 1 reversed rows, 2 series side by side, the
initial element, ragged last tiles, several tiles a block through the grid stride),
run behind the executor on the stand-in CuPy of tests/conftest.py, against NumPy over
many layouts. A read or write outside the span the kernel may touch fails the test."""

from __future__ import annotations

import ctypes
import re

import numpy as np
import pytest

from xstride._kernels import _reduce_common as rc

_CT = {v: k for k, v in rc.CTYPE.items()}
_TILE = re.compile(r"xs_scan_tile<(\d), ([\w ]+), ([\w ]+), ([\w ]+), (\d+), (\d+), (\d+), (\d)>")
_REGS = re.compile(r"xs_scan_rowregs<(\d), ([\w ]+), ([\w ]+), ([\w ]+), (\d+), (\d+), (\d), (\d+)>")


def _host(ptr, count, dtype):
    dtype = np.dtype(dtype)
    return np.frombuffer((ctypes.c_char * (count * dtype.itemsize)).from_address(ptr), dtype)


class _Model:
    """A kernel run on the host from its launch alone; ``self.m`` holds the template
    arguments of its expression, matched by the class's ``PATTERN``."""

    PATTERN: re.Pattern

    def __init__(self, expr, log):
        self.m = self.PATTERN.fullmatch(expr)
        assert self.m, expr
        self.expr, self.log = expr, log

    @property
    def kernel(self):
        return self


class _TileKernel(_Model):
    """xs_scan_tile on the host: block b takes tiles b, b + gridDim.x, ... of
    ``rows_per_tile`` rows; a tile's input is the span of ``nt * L * C`` elements from
    ``x + r0 * kstride[0]``, its output the span of ``nt * (L + init) * C`` from
    ``out + r0 * kout[0]``; series t of a tile is row ``t / C``, position ``t % C``."""

    PATTERN = _TILE

    def __call__(self, grid, block, args, shared_mem=0, **kwargs):
        op = self.m.group(1)
        tin, tacc, tout = (_CT[self.m.group(i)] for i in (2, 3, 4))
        cap, walk = int(self.m.group(5)), int(self.m.group(8))
        x, out, desc, nrows, length, rows, out_offset = args
        d = np.frombuffer(desc.tobytes(), np.int64)
        kshape, kstride, kout = d[:cap], d[cap:2 * cap], d[2 * cap:3 * cap]
        nk, s_in, s_out, init = (int(v) for v in d[3 * cap:3 * cap + 4])
        nrows, L, rows = int(nrows), int(length), int(rows)
        C = int(kshape[1]) if walk == 2 else 1
        assert walk == 2 or nk == 1
        LC, LoC = L * C, (L + init) * C
        # the facts the kernel relies on: dense rows of series in and out
        assert kstride[0] == LC and kout[0] == LoC
        assert s_in == (-1 if walk == 1 else C) and s_out == C
        self.log.append((self.expr, tuple(grid), int(x), nrows, rows))
        xin = _host(int(x), nrows * LC, tin)
        dst = _host(int(out), nrows * LoC, tout)
        written = np.zeros(nrows * LoC, np.int64)
        dj, first = (-C, L - 1) if walk == 1 else (C, 0)
        (nblocks,) = tuple(grid)
        for b in range(nblocks):
            for r0 in range(b * rows, nrows, nblocks * rows):
                nt = min(nrows - r0, rows)
                sx = xin[r0 * LC:r0 * LC + nt * LC].astype(tacc)
                so = np.zeros(nt * LoC, tacc)
                for t in range(nt * C):
                    i, c = divmod(t, C)
                    bi, bo = i * LC + c + first, i * LoC + c
                    if init:
                        so[bo] = 0 if op == "0" else 1
                        bo += C
                    acc = tacc.type(0 if op == "0" else 1)
                    for j in range(L):
                        e = bi + j * dj
                        assert 0 <= e < nt * LC
                        acc = acc + sx[e] if op == "0" else acc * sx[e]
                        so[bo + j * C] = acc
                dst[r0 * LoC:r0 * LoC + nt * LoC] = so.astype(tout)
                written[r0 * LoC:r0 * LoC + nt * LoC] += 1
        assert np.all(written == 1)


class _RowRegsKernel(_Model):
    """xs_scan_rowregs on the host: thread g = block * 256 + lane takes rows
    ``[g * Q, g * Q + Q)`` (fewer at the end) of L elements, read from ``x + g * Q * L``
    (each row from its end when REV) and written forward at ``out + g * Q * L``; with
    whole 16-byte words a thread when the host launches it on aligned addresses."""

    PATTERN = _REGS

    def __call__(self, grid, block, args, shared_mem=0, **kwargs):
        op = self.m.group(1)
        tin, tacc, tout = (_CT[self.m.group(i)] for i in (2, 3, 4))
        L, Q, rev = int(self.m.group(5)), int(self.m.group(6)), int(self.m.group(7))
        assert tin.itemsize == 4 and (Q * L) % 4 == 0 and tuple(block) == (256,)
        assert shared_mem == 0
        x, out, nrows = (int(a) for a in args)
        # the host launches it only where every full group's words are aligned
        assert x % 16 == 0 and out % 16 == 0, (x, out)
        (nblocks,) = tuple(grid)
        threads = nblocks * 256
        assert threads * Q >= nrows > (threads - 256) * Q, (grid, nrows, Q)
        self.log.append((self.expr, tuple(grid), x, nrows, Q))
        xin = _host(x, nrows * L, tin).reshape(nrows, L).astype(tacc)
        if rev:
            xin = xin[:, ::-1]
        acc = (np.cumsum if op == "0" else np.cumprod)(xin, axis=1)   # in element order
        _host(out, nrows * L, tout)[:] = acc.astype(tout).ravel()


def _model(expr, log):
    return (_RowRegsKernel if expr.startswith("xs_scan_rowregs") else _TileKernel)(expr, log)


@pytest.fixture
def fake_tile(fake_cupy, monkeypatch):
    from xstride._kernels import scans
    from xstride._kernels._lru import Bounded
    from xstride._kernels._prepared import GATE, Store

    log = []
    # the warp scan over 16-byte words off: its model is in tests/test_scans_warp_rows.py
    monkeypatch.setitem(rc.TUNING, "scan_warp", (0, 0))
    monkeypatch.setattr(rc, "kernel", lambda src, expr, partner=None: _model(expr, log))
    monkeypatch.setattr(scans, "_RECIPES", Bounded(64))
    monkeypatch.setattr(scans, "_PREPARED", Store(64))
    GATE.close()
    rc._sm_count.cache_clear()
    yield scans, log
    rc._sm_count.cache_clear()


def _layouts(rng, dtype):
    """(name, base, view of the base, scan axis, WALK): dense rows, reversed rows, series
    side by side, with row offsets, over small integers in ``dtype``."""
    for k in (1, 2, 3, 7, 16, 32):
        a = rng.integers(-9, 10, size=(301, k)).astype(dtype)
        yield f"dense {k}", a, lambda v: v, 1, 0
        yield f"dense {k} [5:]", a, lambda v: v[5:], 1, 0
        if k > 1:
            yield f"reversed {k}", a, lambda v: v[:, ::-1], 1, 1
            yield f"reversed {k} [3:]", a, lambda v: v[3:, ::-1], 1, 1
    for L, C in ((2, 2), (3, 3), (8, 3), (4, 8), (8, 32), (32, 8), (5, 17)):
        a = rng.integers(-9, 10, size=(280, L, C)).astype(dtype)
        yield f"series {L}x{C}", a, lambda v: v, 1, 2
        yield f"series {L}x{C} [7:]", a, lambda v: v[7:], 1, 2
    b = rng.integers(-9, 10, size=(4, 80, 5, 3)).astype(dtype)
    yield "series in 4-D", b, lambda v: v, 2, 2


@pytest.mark.parametrize("tuning", [(32768, None), (8192, 2), (16384, 1)])
@pytest.mark.parametrize("dtype", ["int64", "float64", "int8"])
def test_tile_model_matches_numpy(fake_tile, monkeypatch, tuning, dtype):
    """Every layout the plan gives the tile scan, through the executor's pointer, launch
    and grid, equals NumPy's cumulative sums and products exactly (small integers),
    with and without the initial element; ``SHORT_MAX_BLOCKS`` cut to 1 or 2 blocks
    makes each block take several tiles (the grid stride)."""
    import xstride as xp
    from tests.conftest import FakeCupyArray

    scans, log = fake_tile
    tile_bytes, most_blocks = tuning
    monkeypatch.setitem(rc.TUNING, "scan_tile", tile_bytes)
    if most_blocks is not None:
        monkeypatch.setattr(scans, "SHORT_MAX_BLOCKS", most_blocks)
    rng = np.random.default_rng(tile_bytes)
    for name, base, view, axis, walk in _layouts(rng, dtype):
        signs = np.where(base < 0, -1, 1).astype(dtype)       # products of +-1
        for init in (False, True):
            for f in ("cumulative_sum", "cumulative_prod"):
                hv = view(base if f == "cumulative_sum" else signs)
                got = getattr(xp, f)(FakeCupyArray(hv), axis=axis, include_initial=init)
                expr = log[-1][0]
                assert expr.endswith(f", {walk}>"), (name, expr)
                if most_blocks is not None:
                    assert log[-1][1] == (min(-(-log[-1][3] // log[-1][4]), most_blocks),)
                wide = hv.astype(np.float64 if hv.dtype.kind == "f" else np.int64)
                want = getattr(np, "cumsum" if f == "cumulative_sum" else "cumprod")(
                    wide, axis=axis)
                if init:
                    shape = list(want.shape)
                    shape[axis] = 1
                    first = np.zeros(shape, want.dtype) + (f == "cumulative_prod")
                    want = np.concatenate([first, want], axis=axis)
                assert got.shape == want.shape, name
                np.testing.assert_array_equal(np.asarray(got.host, np.float64),
                                              want.astype(np.float64),
                                              err_msg=f"{name} {f} init={init}")


@pytest.mark.parametrize("knob", [0, 4, 2])
@pytest.mark.parametrize("dtype,out", [("float32", None), ("int32", None), ("int32", "int32"),
                                       ("uint32", "uint32")])
def test_register_rows_model_matches_numpy(fake_tile, monkeypatch, knob, dtype, out):
    """Short dense rows of 4-byte elements on 16-byte boundaries, forward or reversed,
    without the initial element, go to xs_scan_rowregs with Q = 4 / gcd(L, 4) rows a
    thread when they hold at most 48 bytes a thread and the outputs have 4 bytes too
    (``TUNING["scan_regs"]`` not 0); every other layout to the staged tile. Both
    equal NumPy exactly (small integers), also with a last, shorter group of rows."""
    import xstride as xp
    from tests.conftest import FakeCupyArray
    from xstride._kernels._scan_geometry import scan_regs_rows

    scans, log = fake_tile
    monkeypatch.setitem(rc.TUNING, "scan_regs", knob)
    rng = np.random.default_rng(knob + len(dtype))
    taken = 0
    for k in (1, 2, 3, 4, 5, 6, 8, 12, 16):
        for rows in (263, 1001):
            base = rng.integers(0, 3, size=(rows + 6, k)).astype(dtype)
            for name, hv in (("dense", base), ("reversed", base[:, ::-1]),
                             ("offset", base[5:]), ("offset reversed", base[2:, ::-1])):
                for init in (False, True):
                    for f, npf in (("cumulative_sum", np.cumsum), ("cumulative_prod", np.cumprod)):
                        x = FakeCupyArray(hv)
                        got = getattr(xp, f)(x, axis=1, include_initial=init, dtype=out)
                        expr = log[-1][0]
                        low = x.data.ptr - ((k - 1) * hv.itemsize if hv.strides[1] < 0 else 0)
                        out_size = np.dtype(out or ("int64" if dtype == "int32" else
                                                    "uint64" if dtype == "uint32" else dtype)).itemsize
                        q = scan_regs_rows(k, 4, out_size)
                        want_regs = bool(knob and q and not init and low % 16 == 0)
                        assert expr.startswith("xs_scan_rowregs" if want_regs else "xs_scan_tile"), \
                            (name, k, rows, init, expr, low % 16)
                        if want_regs:
                            taken += 1
                            assert expr.endswith(f", {k}, {q}, {int(hv.strides[1] < 0)}, {knob}>"), expr
                        wide = hv.astype(np.int64 if dtype == "int32" else np.uint64)
                        want = npf(wide, axis=1)
                        if init:
                            want = np.concatenate([np.full((want.shape[0], 1), f == "cumulative_prod",
                                                           want.dtype), want], axis=1)
                        np.testing.assert_array_equal(np.asarray(got.host).astype(want.dtype), want,
                                                      err_msg=f"{name} k={k} rows={rows} {f} {init}")
    takes = knob and (dtype == "float32" or out is not None)   # into 8 bytes: staged
    assert (taken > 50) if takes else (taken == 0), taken
