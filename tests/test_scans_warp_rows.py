"""CPU tests of the warp scan of short dense rows over 16-byte words
(``xs_scan_warprows`` in ``scans_short.cu``, chosen by ``_kernels/scans.py:_warp_rows``):
which scans it takes, and a NumPy model of the kernel, lane by lane and round by round,
run behind the executor on the stand-in CuPy of tests/conftest.py. The model's outputs
must be the bits of each row folded in element order from the identity (NumPy's
``cumsum``/``cumprod`` of the float64 or int64 row, which add in order): that checks the
round count, the row heads, the carries between steps and chunks and the ragged ends.
The GPU test of the kernel against the staged tile is in tests/test_scans_short_gpu.py."""

from __future__ import annotations

import ctypes
import math
import re

import numpy as np
import pytest

import xstride as xp
from xstride._kernels import _reduce_common as rc
from tests.conftest import FakeCupyArray
from tests.test_scans_tile_model import fake_tile  # noqa: F401 (fixture)

_CT = {v: k for k, v in rc.CTYPE.items()}
_WARP = re.compile(r"xs_scan_warprows<(\d), ([\w ]+), ([\w ]+), ([\w ]+), (\d+), (\d+)>")


def _host(ptr, count, dtype):
    dtype = np.dtype(dtype)
    return np.frombuffer((ctypes.c_char * (count * dtype.itemsize)).from_address(ptr), dtype)


class _WarpRowsKernel:
    """xs_scan_warprows on the host from its launch alone: warp c of the grid takes
    chunks c, c + warps, ...; a step's 32 lanes are NumPy vectors; every read and write
    is bounds-checked and every output written once."""

    def __init__(self, expr, log):
        self.m = _WARP.fullmatch(expr)
        assert self.m, expr
        self.expr, self.log = expr, log

    @property
    def kernel(self):
        return self

    def __call__(self, grid, block, args, shared_mem=0, **kwargs):
        op = int(self.m.group(1))
        tin, tacc, tout = (_CT[self.m.group(i)] for i in (2, 3, 4))
        u_steps = int(self.m.group(5))
        assert tuple(block) == (256,) and shared_mem == 0
        x, out, total, chunk_words, L, rounds = (int(a) for a in args)
        assert x % 16 == 0 and out % 16 == 0, (x, out)
        p = 16 // tin.itemsize
        # the host's facts: a chunk starts on a row head and is whole passes of the loop
        assert L >= p and (chunk_words * p) % L == 0 and chunk_words % (32 * u_steps) == 0
        assert rounds == (L - 1) // p
        self.log.append((self.expr, tuple(grid), x, total, L))
        xin = _host(x, total, tin)
        dst = _host(out, total, tout)
        written = np.zeros(total, np.int64)
        ident = tacc.type(1 if op == 1 else 0)

        def fold(a, b):
            return a * b if op == 1 else a + b

        nwords = -(-total // p)
        nchunks = -(-nwords // chunk_words)
        (nblocks,) = tuple(grid)
        nwarps = nblocks * 8
        assert nwarps >= nchunks > nwarps - 8, (grid, nchunks)   # a chunk a warp
        lanes = np.arange(32)
        with np.errstate(over="ignore", invalid="ignore"):
            for c in range(nchunks):
                w0 = c * chunk_words
                w1 = min(w0 + chunk_words, nwords)
                carry = ident
                col = (lanes * p) % L
                for s in range(w0, w1, 32 * u_steps):
                    for u in range(u_steps):
                        w = s + u * 32 + lanes
                        e = w[:, None] * p + np.arange(p)
                        live = (w < w1)[:, None] & (e < total)
                        v = np.where(live, xin[np.minimum(e, total - 1)], 0).astype(tacc)
                        h = np.where(col == 0, 0, L - col)
                        end = np.full(32, ident, tacc)
                        for i in range(p):
                            end = np.where(i >= h, fold(end, v[:, i]), end)
                        for _ in range(rounds):
                            left = np.concatenate([end[:1], end[:-1]])   # __shfl_up
                            a = np.where(lanes == 0, carry, left).astype(tacc)
                            for i in range(p):
                                a = fold(a, v[:, i])
                            end = np.where(h >= p, a, end)
                        left = np.concatenate([end[:1], end[:-1]])
                        a = np.where(lanes == 0, carry, left).astype(tacc)
                        o = np.empty((32, p), tacc)
                        for i in range(p):
                            a = fold(np.where(h == i, ident, a).astype(tacc), v[:, i])
                            o[:, i] = a
                        carry = end[31]
                        dst[e[live]] = o[live].astype(tout)
                        written[e[live]] += 1
                        col = col + (32 * p) % L
                        col = np.where(col >= L, col - L, col)
        assert np.all(written == 1)


@pytest.fixture
def fake_warp(fake_tile, monkeypatch):
    """tests/test_scans_tile_model.py's stand-in with the warp scan on (its default
    tuning) and modelled here."""
    from tests.test_scans_tile_model import _model

    scans, log = fake_tile
    monkeypatch.setitem(rc.TUNING, "scan_warp", (4, 4))
    monkeypatch.setattr(rc, "kernel", lambda src, expr, partner=None: (
        _WarpRowsKernel(expr, log) if expr.startswith("xs_scan_warprows") else _model(expr, log)))
    return scans, log


def _aligned(h):
    """``h`` in a FakeCupyArray whose data starts on a 16-byte boundary."""
    x = FakeCupyArray(h)
    assert x.data.ptr % 16 == 0
    return x


def _rows(rng, dt, n, k):
    """Rows whose float sums depend on the order of their adds (values over 60 binary
    orders of magnitude: float64 rounds), or small integers."""
    if dt.kind == "f":
        h = (rng.standard_normal((n, k)) * 2.0 ** rng.integers(-30, 30, (n, k))).astype(dt)
        fwd = np.cumsum(h.astype(np.float64), axis=1)[:, -1]
        rev = np.cumsum(h[:, ::-1].astype(np.float64), axis=1)[:, -1]
        assert k < 4 or np.count_nonzero(fwd != rev) > n // 25   # the order shows
        return h
    return rng.integers(-3 if dt.kind == "i" else 0, 4, size=(n, k)).astype(dt)


def _check_lengths(scans, log, monkeypatch, dt, out, lengths, expect):
    """Sums and products of rows of each length through the executor, the checked and
    the prepared call each against NumPy's in-order fold; the lengths whose launch was
    ``expect`` (a kernel name prefix)."""
    rng = np.random.default_rng(dt.itemsize + len(lengths))
    taken = set()
    for k in lengths:
        for n in (257, 333, 1003):
            # chunks of the fewest whole rows and passes: many chunks a call at 1003 rows
            monkeypatch.setattr(scans, "WARP_ROWS_MIN_WORDS", 1 if n == 1003 else 2048)
            h = _rows(rng, dt, n, k)
            for f, npf in (("cumulative_sum", np.cumsum), ("cumulative_prod", np.cumprod)):
                if f == "cumulative_prod" and n != 333:
                    continue
                hv = h if dt.kind == "f" or f == "cumulative_sum" else np.sign(h).astype(dt)
                if f == "cumulative_prod" and dt.kind == "f":
                    hv = (1 + rng.standard_normal(h.shape) / 8).astype(dt)
                before = len(log)
                got = [getattr(xp, f)(_aligned(hv), axis=1, dtype=out)    # checked,
                       for _ in range(2)]                                # then prepared
                assert len(log) == before + 2 and log[-1][0] == log[-2][0]
                if log[-1][0].startswith(expect):
                    taken.add(k)
                acc = np.float64 if got[0].dtype.kind == "f" else got[0].dtype
                want = npf(hv.astype(acc), axis=1).astype(got[0].dtype)
                for g in got:
                    assert g.host.tobytes() == want.tobytes(), (k, n, f)
    return taken


@pytest.mark.parametrize("tuning", [(4, 4), (2, 4), (8, 2)])
@pytest.mark.parametrize("dtype,out", [("float32", None), ("int32", "int32"),
                                       ("uint32", "uint32")])
def test_warp_rows_model_gives_the_row_order_bits(fake_warp, monkeypatch, tuning, dtype, out):
    """Dense rows of 4-byte elements into 4-byte outputs, of every length from 4 to 32
    that the register scan does not take, go to xs_scan_warprows; through the
    executor's launch its model gives each row folded in element order (the staged
    tile's bits), in the checked and the prepared call: float sums whose bits show the
    order of their adds and float products bit for bit against NumPy's in-order float64
    fold, integers exactly, row counts that leave a ragged last word, step and chunk,
    many chunks a call (the plan gives "tile" from 256 rows on); the other tunings on a
    few lengths."""
    scans, log = fake_warp
    monkeypatch.setitem(rc.TUNING, "scan_warp", tuning)
    lengths = range(4, 33) if tuning == (4, 4) else (5, 9, 16, 31)
    taken = _check_lengths(scans, log, monkeypatch, np.dtype(dtype), out, lengths,
                           "xs_scan_warprows")
    # rows of 4, 6, 8, 12: the register scan
    assert taken == set(lengths) - {4, 6, 8, 12}, sorted(taken)
    warp = [e[0] for e in log if e[0].startswith("xs_scan_warprows")]
    assert warp and all(e.endswith(f", {tuning[0]}, {tuning[1]}>") for e in warp)


def test_warp_rows_take_every_length_with_the_register_scan_off(fake_warp, monkeypatch):
    """With ``TUNING["scan_regs"] = 0`` rows of 4, 6, 8, 12 reach the warp scan too,
    rows of 4 with no round (every word a row), and keep the row order's bits."""
    scans, log = fake_warp
    monkeypatch.setitem(rc.TUNING, "scan_regs", 0)
    for dtype, out in (("float32", None), ("int32", "int32")):
        taken = _check_lengths(scans, log, monkeypatch, np.dtype(dtype), out, (4, 6, 8, 12),
                               "xs_scan_warprows")
        assert taken == {4, 6, 8, 12}, (dtype, sorted(taken))


def test_warp_rows_refuse_what_they_do_not_take(fake_warp, monkeypatch):
    """Reversed rows, the initial element, rows off the 16-byte boundary, rows shorter
    than a word, 8-byte elements or outputs (the staged tile reads them at 0.90-0.97 of
    a copy, the warp scan at 0.75-0.89, H200), 1- and 2-byte elements and the knob at
    (0, 0) stay on the staged tile (or the register scan), with NumPy's values."""
    scans, log = fake_warp
    rng = np.random.default_rng(5)
    h = rng.integers(0, 4, size=(500, 7)).astype(np.int32)
    base = FakeCupyArray(np.concatenate([h.ravel(), np.zeros(7, np.int32)]))
    xp.cumulative_sum(_aligned(h), axis=1, dtype=np.int32)
    assert log[-1][0].startswith("xs_scan_warprows")          # what the cases change
    i32 = {"dtype": np.int32}                     # 4-byte outputs: only the layout refuses
    cases = {
        "reversed": (_aligned(h)[:, ::-1], i32),
        "initial": (_aligned(h), {"include_initial": True, **i32}),
        "off the boundary": (base[1:3501].reshape(500, 7), i32),
        "float64": (_aligned(h.astype(np.float64)), {}),
        "int64": (_aligned(h.astype(np.int64)), {}),
        "int16": (_aligned(h.astype(np.int16)), {}),
        "uint8": (_aligned(h.astype(np.uint8)), {}),
        "float16": (_aligned(h.astype(np.float16)), {}),
        "rows of 3": (_aligned(h[:, :3].copy()), i32),   # the register scan off below
        "int32 into int64": (_aligned(h), {}),
        "float32 into float64": (_aligned(h.astype(np.float32)), {"dtype": np.float64}),
    }
    monkeypatch.setitem(rc.TUNING, "scan_regs", 0)
    for name, (x, kw) in cases.items():
        got = xp.cumulative_sum(x, axis=1, **kw)
        assert not log[-1][0].startswith("xs_scan_warprows"), (name, log[-1][0])
        want = np.cumsum(np.asarray(x.host, np.float64), axis=1)
        if kw.get("include_initial"):
            want = np.concatenate([np.zeros((500, 1)), want], axis=1)
        np.testing.assert_array_equal(np.asarray(got.host, np.float64), want, err_msg=name)
    monkeypatch.setitem(rc.TUNING, "scan_warp", (0, 0))
    xp.cumulative_sum(_aligned(h), axis=1, dtype=np.int32)
    assert log[-1][0].startswith("xs_scan_tile")


@pytest.mark.parametrize("dtype,out", [("float32", None), ("int32", "int32")])
def test_warp_rows_take_rows_of_33_to_63_elements_from_the_rows_plan(fake_warp, monkeypatch,
                                                                       dtype, out):
    """Dense rows of 33 to ``WARP_ROWS_LONGEST`` (63) 4-byte elements, which the plans
    give to ``"rows"`` (a group of lanes a row: 0.35-0.56 of a copy for float32 L = 33,
    40, 50 on the H200), go to xs_scan_warprows (0.68-0.78) with the row order's bits."""
    scans, log = fake_warp
    assert scans.WARP_ROWS_LONGEST == 63
    lengths = (33, 34, 37, 40, 47, 50, 61, 63) if dtype == "float32" else (33, 50, 63)
    taken = _check_lengths(scans, log, monkeypatch, np.dtype(dtype), out, lengths,
                           "xs_scan_warprows")
    assert taken == set(lengths), sorted(taken)


def test_warp_rows_leave_other_rows_plans_to_the_rows_kernels():
    """Rows of 64 and 100 elements (faster on the rows kernels: 0.73 and 0.57 of a copy
    against 0.61 and 0.45), 8-byte outputs, rows that are not one after another, the
    initial element and reversed rows stay ``"rows"`` plans' own."""
    from xstride._kernels import scans
    from xstride._plans.scan import plan_scan
    from xstride.layout import Layout

    f4, f8 = np.dtype(np.float32), np.dtype(np.float64)

    def warp(layout, tin=f4, tout=f4, init=False):
        plan = plan_scan(layout, 1, init)
        assert plan.strategy == "rows", plan
        return scans._warp_rows(plan, tin, tout, True)

    assert warp(Layout((300, 50), itemsize=4)) is not None
    assert warp(Layout((300, 33), itemsize=4)) is not None
    for L in (64, 100):
        assert warp(Layout((300, L), itemsize=4)) is None, L
    assert warp(Layout((300, 50), itemsize=4), tout=f8) is None
    assert warp(Layout((300, 50), itemsize=4), init=True) is None
    assert warp(Layout((300, 60), itemsize=4).slice((slice(None), slice(0, 50)))) is None
    assert warp(Layout((300, 50), itemsize=4).slice((slice(None), slice(None, None, -1)))) \
        is None


@pytest.mark.parametrize("L", range(1, 40))
def test_warp_rows_rounds_cover_every_headless_run(L, monkeypatch):
    """The host's round count (``_warp_rows``: ``(L - 1) // P``) is the longest run of
    lanes without a row head that rows of L elements leave in 16-byte words of P = 4
    elements, for every alignment of a row in a word (counted here from the row heads'
    positions); rows shorter than a word are not the warp scan's."""
    from xstride._kernels import scans
    from xstride._plans.scan import plan_scan
    from xstride.layout import Layout

    monkeypatch.setitem(rc.TUNING, "scan_warp", (4, 4))
    f4, p = np.dtype(np.float32), 4
    warp = scans._warp_rows(plan_scan(Layout((300, L), itemsize=4), 1, False), f4, f4, True)
    if L < p:
        assert warp is None, (L, warp)
        return
    assert warp is not None, L
    span = math.lcm(L, p) * 32
    heads = np.zeros(span // p, bool)
    heads[np.arange(0, span, L) // p] = True
    longest = run = 0
    for has in heads:
        run = 0 if has else run + 1
        longest = max(longest, run)
    assert longest == warp[2], (L, warp)


def test_warp_rows_kernels_compile_with_the_packed_parameter_sizes():
    """xs_scan_warprows compiles under NVRTC (sm_90) for the types and tunings the
    executor launches, with its six 8-byte parameters: x, out, total, chunk words,
    row length, rounds."""
    from tests.test_cuda_headers_nvrtc import compile_named, nvrtc, ptx_param_sizes
    from xstride._kernels._compile import source

    if nvrtc is None:
        pytest.skip("cuda-bindings/nvrtc not importable")
    names = [f"xs_scan_warprows<{op}, {t}, {acc}, {t}, {u}, {minb}>"
             for op, t, acc in ((0, "float", "double"), (1, "float", "double"),
                                (0, "int", "long long"),
                                (1, "unsigned int", "unsigned long long"))
             for u, minb in rc.VARIANTS["scan_warp"] if minb]
    lowered, ptx = compile_named(source("scans_short.cu"), names, "sm_90", "scans_short.cu")
    for name in names:
        assert ptx_param_sizes(ptx, lowered[name]) == [8] * 6, name
