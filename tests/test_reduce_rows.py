"""CPU tests of the register kernel of short dense rows (``xs_reduce_rowregs``,
``reductions_rows.cu``, chosen by ``_kernels/reduce_rows.py``): which reductions it takes
in place of the staged tile, and a NumPy model of the kernel behind the executor on the
stand-in CuPy of tests/conftest.py (thread g folds rows g * Q .. g * Q + Q - 1; reads
and writes outside the rows fail the test), against NumPy. The GPU's bits against the
staged kernel: tests/test_reductions_tile_gpu.py."""

from __future__ import annotations

import re

import numpy as np
import pytest

import xstride as xp
from xstride._kernels import _reduce_common as rc
from xstride._kernels import reduce_rows
from xstride._kernels._geometry import regs_rows

from tests._fake_var_kernels import finish_model
from tests.conftest import FakeCupyArray
from tests.test_reduction_host_path import FakeKernel
from tests.test_scans_tile_model import _Model, _host

_REGS = re.compile(r"xs_reduce_rowregs<(\d+), ([\w ]+), ([\w ]+), ([\w ]+), (\d+), (\d+), (\d+), "
                   r"(\d+)>")
_CT = {v: k for k, v in rc.CTYPE.items()}
_FOLD = {0: np.add, 1: np.multiply, 2: np.minimum, 3: np.maximum, 5: np.bitwise_and,
         6: np.bitwise_or, 7: np.add}
_IDENTITY = {0: 0, 1: 1, 5: 1, 6: 0, 7: 0}


class _RowRegs(_Model):
    """xs_reduce_rowregs on the host, from its launch alone."""

    PATTERN = _REGS

    def __call__(self, grid, block, args, shared_mem=0, **kwargs):
        op = int(self.m.group(1))
        tin, tacc, tout = (_CT[self.m.group(i)] for i in (2, 3, 4))
        L, Q, C = int(self.m.group(5)), int(self.m.group(6)), int(self.m.group(7))
        assert C in (1, 2) and L % C == 0
        most = 48 if Q > 1 else reduce_rows.ONE_ROW_MOST_BYTES[tin.itemsize]
        assert (Q * L * tin.itemsize) % 16 == 0 and Q * L * tin.itemsize <= most
        assert tuple(block) == (256,) and shared_mem == 0
        x, out, center, nrows = (int(np.asarray(a).reshape(-1)[0]) if not isinstance(a, int)
                                 else a for a in args)
        assert center == 0
        # full groups load 16-byte words and store Q outputs as words: aligned
        assert x % 16 == 0 and out % 16 == 0, (x, out)
        (nblocks,) = tuple(grid)
        assert nblocks * 256 * Q >= nrows > (nblocks - 1) * 256 * Q
        self.log.append((self.expr, tuple(grid), x, nrows))
        rows = _host(x, nrows * L, tin).reshape(nrows, L)
        if op in (5, 6):
            rows = rows != 0
        parts = []
        for c in range(C):       # each of C parts in element order, in Tacc; then combined
            lo, hi = c * (L // C), (c + 1) * (L // C)
            acc = rows[:, lo].astype(tacc) if op in (2, 3) else \
                np.full(nrows, _IDENTITY[op], tacc)
            for j in range(lo if op not in (2, 3) else lo + 1, hi):
                acc = _FOLD[op](acc, rows[:, j].astype(tacc))
            parts.append(acc)
        acc = parts[0] if C == 1 else _FOLD[op](parts[0], parts[1])
        if op == 7:
            acc = acc / tacc.type(L)
        _host(out, nrows, tout)[:] = acc.astype(tout)


@pytest.fixture
def fake_rows(fake_cupy, monkeypatch):
    from xstride._kernels import reductions as red
    from xstride._kernels import var_kernels as vk
    from xstride._kernels import variance
    from xstride._kernels._lru import Bounded
    from xstride._kernels._prepared import GATE, Store

    log = []
    kernels = {}

    def kernel(src, expr, partner=None):
        if expr not in kernels:
            model = (_RowRegs if src == "reductions_rows.cu" else
                     finish_model(expr) if src == "reduce_finish.cu" else FakeKernel)
            kernels[expr] = model(expr, log)
        return kernels[expr]

    monkeypatch.setattr(rc, "kernel", kernel)
    monkeypatch.setattr(rc, "kernel_resident", lambda src, expr, threads: 4)
    monkeypatch.setattr(red, "_RECIPES", Bounded(256))
    monkeypatch.setattr(red, "_CALLS", Store(256))
    monkeypatch.setattr(variance, "_CALLS", Store(256))
    monkeypatch.setattr(vk, "_FINISH", Bounded(64))
    monkeypatch.setattr(vk, "_VAR_ROWS", Bounded(64))
    monkeypatch.setattr(vk, "_CENTERS", Bounded(64))
    GATE.close()
    rc._sm_count.cache_clear()
    yield log
    rc._sm_count.cache_clear()


_OPS = ("sum", "prod", "min", "max", "mean", "all", "any")


@pytest.mark.parametrize("knob", [0, 4, 2])
@pytest.mark.parametrize("dtype", ["float32", "int32", "uint8", "bool", "int16", "float16",
                                   "float64"])
def test_register_rows_launch_and_values(fake_rows, monkeypatch, knob, dtype):
    """Dense rows of 1-, 2- and 4-byte elements of the "tile", "lanes" (32
    bytes only) and "short" plans whose first row is on a 16-byte boundary and whose
    Q = 16 / gcd(k * itemsize, 16) rows hold at most 48 bytes in (or one row of whole
    16-byte words up to ``ONE_ROW_MOST_BYTES``) and at most 32 bytes of outputs go to ``xs_reduce_rowregs`` when ``TUNING["red_regs"]`` is not 0, for
    every op but var's; rows off the boundary, wider elements and the knob at 0 stay on
    the plan's kernel. Both give NumPy's values (exactly for integers and bool), in the
    first and the repeated (prepared) call, also with a last, shorter group of rows."""
    from xstride._plans.reduction import plan_array

    log = fake_rows
    monkeypatch.setitem(rc.TUNING, "red_regs", knob)
    dt = np.dtype(dtype)
    rng = np.random.default_rng(knob + dt.itemsize)
    taken = 0
    for k in (2, 3, 4, 5, 6, 8, 12, 16, 24, 32, 64, 96, 128, 192):
        for n in (263, 1001):
            if dt.kind == "b":
                base = rng.random((n + 2, k)) < 0.8
            elif dt.kind == "f":
                base = rng.standard_normal((n + 2, k)).astype(dt)
            else:
                base = rng.integers(0, 3, size=(n + 2, k)).astype(dt)
            for name, hv in (("dense", base[:n]), ("offset", base[1:n + 1])):
                x = FakeCupyArray(hv)
                strategy = plan_array(hv, (1,)).strategy
                staged = strategy in ("tile", "lanes", "short")
                c = 2 if strategy == "lanes" and k * dt.itemsize == 32 else 1
                q = reduce_rows.regs_q(k, dt.itemsize) if dt.itemsize <= 4 else 0
                for op in _OPS:
                    if dt.kind == "b" and op in ("prod", "mean"):
                        continue
                    out_size = getattr(np, op)(hv[:1], axis=1).dtype.itemsize
                    want_regs = bool(knob and q and staged and x.data.ptr % 16 == 0
                                     and q * out_size <= 32
                                     and (strategy != "lanes" or k * dt.itemsize == 32))
                    for _ in range(2):                    # checked, then prepared
                        before = len(log)
                        got = getattr(xp, op)(x, axis=1)
                        if not staged:
                            continue
                        assert len(log) == before + 1
                        expr = log[-1][0]
                        assert expr.startswith("xs_reduce_")
                        assert expr.startswith("xs_reduce_rowregs") == want_regs, \
                            (name, k, op, expr)
                        if want_regs:
                            assert expr.endswith(f", {k}, {q}, {c}, {knob}>"), expr
                            taken += 1
                    want = getattr(np, op)(hv, axis=1)
                    if dt.kind == "f" and op in ("sum", "prod", "mean"):
                        exact = getattr(np, op)(hv.astype(np.float64), axis=1)
                        np.testing.assert_allclose(got.get(), exact.astype(dt), rtol=2e-6,
                                                   err_msg=f"{name} k={k} {op}")
                    else:
                        np.testing.assert_array_equal(got.get(), want,
                                                      err_msg=f"{name} k={k} {op}")
    if knob and dt.itemsize <= 4:
        assert taken > 20, taken
    else:
        assert taken == 0


@pytest.mark.parametrize("dtype", ["float32", "int32"])
def test_rows_of_two_lanes_fold_as_two_halves(fake_rows, monkeypatch, dtype):
    """Rows of eight 4-byte elements (the "lanes" plan's two 16-byte chunks) are folded
    as two halves, then combined, as xs_reduce_lanes folds them: a float32 row whose
    second half cancels sums to its first half's value (element order in float64 would
    lose the 1 to 2**60); other plans' rows fold whole."""
    from xstride._kernels import reduce_rows
    from xstride._plans.reduction import plan_array

    monkeypatch.setitem(rc.TUNING, "red_regs", 4)
    log = fake_rows
    h = np.zeros((1000, 8), dtype)
    big = 2 ** 60 if dtype == "float32" else 2 ** 30
    h[:, 0], h[:, 4], h[:, 5] = 1, big, -big
    plan = plan_array(h, (1,))
    assert plan.strategy == "lanes" and reduce_rows.chunks(plan, 4) == 2
    got = xp.sum(FakeCupyArray(h), axis=1)
    assert log[-1][0].endswith(", 8, 1, 2, 4>"), log[-1][0]
    assert np.array_equal(got.get(), np.ones(1000, got.dtype))
    for k in (4, 6, 12):
        p = plan_array(np.zeros((1000, k), dtype), (1,))
        assert reduce_rows.chunks(p, 4) == 1, (k, p.strategy)
    # a "lanes" row of one chunk stays on xs_reduce_lanes
    p4 = plan_array(np.zeros((1000, 4), dtype), (1,))
    assert p4.strategy == "lanes"
    assert reduce_rows.rows_q(p4, FakeCupyArray(np.zeros((1000, 4), dtype)), "sum",
                              frozenset(), 0, np.dtype(dtype)) == 0


def test_register_rows_refuse_var_and_views(fake_rows, monkeypatch):
    """var/std of short rows never reach the register kernel (xs_var_rows takes them);
    rows off the 16-byte boundary and every other row stay staged; reversed rows are
    taken (the plan folds each from its lowest address, as the staged kernel does)."""
    from xstride._kernels import reduce_rows

    monkeypatch.setitem(rc.TUNING, "red_regs", 4)
    log = fake_rows
    base = np.arange(2 * 3000 * 3, dtype=np.float32).reshape(6000, 3)
    from xstride._plans.reduction import plan_array

    x = FakeCupyArray(base[:3000])
    plan = plan_array(base[:3000], (1,))
    assert plan.strategy == "tile"
    f4, f8 = np.dtype(np.float32), np.dtype(np.float64)
    assert reduce_rows.rows_q(plan, x, "sum", frozenset({"sumsq", "moments"}), 0, f4) == 4
    for op in ("sumsq", "moments"):
        assert reduce_rows.rows_q(plan, x, op, frozenset({"sumsq", "moments"}), 0, f4) == 0
    assert reduce_rows.rows_q(plan, x, "sum", frozenset(), 4, f4) == 0      # off the boundary
    assert reduce_rows.rows_q(plan, x, "mean", frozenset(), 0, f8) == 4     # 32 bytes out
    b = FakeCupyArray(np.zeros((3000, 3), bool))                          # 16 rows: 128 bytes
    pb = plan_array(b, (1,))
    assert reduce_rows.rows_q(pb, b, "sum", frozenset(), 0, np.dtype(np.int64)) == 0
    assert reduce_rows.rows_q(pb, b, "any", frozenset(), 0, np.dtype(bool)) == 16
    # rows past 48 bytes, one a thread, of whole 16-byte words: up to 96 bytes of 4-byte
    # elements (float32 (n, 16), (n, 24)), 192 of 1- and 2-byte ones; float32 (n, 5) (80
    # bytes for 4 rows), float32 (n, 40), int16 (n, 104) stay staged
    u1, i2 = np.dtype(np.uint8), np.dtype(np.int16)
    for k, dt, q in ((16, f4, 1), (24, f4, 1), (40, f4, 0), (5, f4, 0), (32, i2, 1),
                     (96, i2, 1), (104, i2, 0), (64, u1, 1), (128, u1, 1), (192, u1, 1),
                     (5, u1, 0)):
        h = np.zeros((3000, k), dt)
        p = plan_array(h, (1,))
        assert reduce_rows.rows_q(p, FakeCupyArray(h), "max", frozenset(), 0, dt) == (
            q if p.strategy in ("tile", "short") else 0), (k, dt, p.strategy)
        assert reduce_rows.regs_q(k, dt.itemsize) == q, (k, dt)
    # reversed rows: the plan reads each row from its lowest address, as the tile does
    p = plan_array(base[:, ::-1], (1,))
    assert reduce_rows.rows_q(p, FakeCupyArray(base[:, ::-1]), "sum", frozenset(), 0, f4) == 4
    p = plan_array(base[::2], (1,))                     # every other row: staged
    assert p.strategy == "tile"
    assert reduce_rows.rows_q(p, FakeCupyArray(base[::2]), "sum", frozenset(), 0, f4) == 0
    xp.var(x, axis=1)
    xp.std(FakeCupyArray(np.ones((3000, 3), np.int32)), axis=1)    # the mean's recipe first
    assert not any(e[0].startswith("xs_reduce_rowregs") for e in log)


def test_register_kernels_compile_with_the_packed_parameter_sizes():
    """The three register kernels of short dense rows compile under NVRTC (sm_90) for
    the element types, row lengths and row counts the executors launch, with the
    parameters they pack: x, out[, center], nrows, each 8 bytes."""
    from tests.test_cuda_headers_nvrtc import compile_named, nvrtc, ptx_param_sizes
    from xstride._kernels._compile import source

    if nvrtc is None:
        pytest.skip("cuda-bindings/nvrtc not importable")
    q_of = reduce_rows.regs_q
    red = [f"xs_reduce_rowregs<{op}, {t}, {acc}, {out}, {k}, {q_of(k, size)}, "
           f"{2 if size == 4 and k == 8 else 1}, 4>"   # C = 2: a "lanes" row of 32 bytes
           for op, t, acc, out, size in ((0, "float", "double", "float", 4),
                                         (7, "float", "double", "float", 4),
                                         (3, "short", "int", "short", 2),
                                         (5, "bool", "int", "bool", 1),
                                         (0, "unsigned char", "unsigned long long",
                                          "unsigned long long", 1),
                                         (0, "int", "long long", "long long", 4))
           for k in (2, 3, 4, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192)
           if 0 < q_of(k, size) * {"float": 4, "short": 2, "bool": 1, "unsigned long long": 8,
                                   "long long": 8}[out] <= 32]
    arg = [f"xs_arg_rowregs<{mx}, {t}, {acc}, {k}, {regs_rows(k, size)}, 6>"
           for mx, t, acc, size in ((0, "float", "float", 4), (1, "signed char", "int", 1),
                                    (1, "unsigned short", "unsigned int", 2))
           for k in (3, 4, 12, 16) if 0 < regs_rows(k, size) <= 4]
    scan = [f"xs_scan_rowregs<{op}, {t}, {acc}, {t}, {k}, {regs_rows(k, 4)}, {rev}, 2>"
            for op, t, acc in ((0, "float", "double"), (1, "int", "long long"))
            for k in (1, 2, 3, 6, 12) for rev in (0, 1)]
    assert len(red) > 15 and len(arg) > 6 and len(scan) == 20
    for file, names, params in (("reductions_rows.cu", red, 4), ("argreductions.cu", arg, 3),
                                ("scans_short.cu", scan, 3)):
        lowered, ptx = compile_named(source(file), names, "sm_90", file)
        for name in names:
            assert ptx_param_sizes(ptx, lowered[name]) == [8] * params, name
