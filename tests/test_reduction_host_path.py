"""The CuPy launch path of the reductions on the CPU, with a stand-in CuPy.

First and repeated (prepared) calls must launch what the plan says.
"""

from __future__ import annotations

import ctypes
import re
import types

import numpy as np
import pytest

import xstride as xp
import xstride._kernels._reduce_common as _rc
import xstride._kernels.reductions as _red
import xstride._kernels.var_kernels as _vk
import xstride._kernels.variance as _variance
from xstride._kernels._geometry import reduction_geometry
from xstride._kernels._lru import Bounded
from xstride._kernels._prepared import GATE, Store
from xstride._plans.reduction import normalize_axis, plan_reduction
from xstride.layout import Layout

from tests._fake_var_kernels import finish_model
from tests.conftest import FakeCupyArray, FakeMemoryPointer
from tests.test_reduction_plan import _offsets


# ----------------------------------------------------------------------------- host launch path
# The shared stand-in CuPy (tests/conftest.py): device pointers are host addresses of
# NumPy buffers. Here a "kernel" records what it was launched
# with (name, grid, block, the bytes of every argument) and then does what the real
# kernel does, from those bytes alone: it reads the descriptor, gathers the input
# through the pointer and writes the result through the output pointer. So a test sees
# both the launch and the result, with no GPU.


def _arg_bytes(a, sizes):
    """(bytes, array-or-None) of one kernel argument as CuPy would pass it."""
    if isinstance(a, FakeCupyArray):
        return a.data.ptr.to_bytes(8, "little"), a
    if isinstance(a, FakeMemoryPointer):
        return a.ptr.to_bytes(8, "little"), a.owner
    if isinstance(a, np.ndarray):
        assert a.size == 1
        return a.tobytes(), None
    if isinstance(a, (int, np.integer)):
        return int(a).to_bytes(8, "little", signed=int(a) < 0), None
    raise TypeError(f"unexpected kernel argument {type(a).__name__}")


_EXPR = re.compile(r"xs_reduce_(\w+)<(\d+), ([\w ]+), ([\w ]+), ([\w ]+), (\d+), (\d+), "
                   r"(-?\d+), (\d+), (\d+)(, \d+)?>")
_CT = {v: k for k, v in _rc.CTYPE.items()}
_OPF = {0: np.add, 1: np.multiply, 2: np.minimum, 3: np.maximum, 5: np.bitwise_and,
        6: np.bitwise_or}
#: Kernels launched without partials and counters (x, out, center, desc, nrows, rowlen;
#: "tile" adds the rows it stages per block, "rows_group" the lanes a row).
_ONE_PASS = ("rows_warp", "rows_group", "short", "tile", "lanes")


class FakeKernel:
    """A compiled reduction kernel: records each launch, then runs it on the host."""

    execute = True  # False: record only (host timing)

    def __init__(self, expr, log):
        self.expr, self.log = expr, log
        m = _EXPR.fullmatch(expr)
        assert m, expr
        self.name = m.group(1)
        self.op = int(m.group(2))
        self.tin, self.tacc, self.tout = (_CT[m.group(i)] for i in (3, 4, 5))
        self.nkc, self.nrc = int(m.group(6)), int(m.group(7))

    @property
    def kernel(self):
        return self

    def __call__(self, grid, block, args, shared_mem=0, stream=None, **kwargs):
        ndesc = 8 * (2 * self.nkc + 2 * self.nrc + 2)
        if self.name in _ONE_PASS:  # x, out, center, desc, nrows, rowlen[, rows | group]
            sizes = [8, 8, 8, ndesc, 8, 8] + ([8] if self.name in ("tile", "rows_group") else [])
        else:  # x, out, center, partials, counters, desc, nrows, rowlen, chunk, nchunks
            sizes = [8, 8, 8, 8, 8, ndesc, 8, 8, 8, 8]
        decoded = []
        for a, n in zip(args, sizes):
            b, arr = _arg_bytes(a, [n])
            assert len(b) == n, (self.expr, type(a), len(b), n)
            decoded.append((b, arr))
        assert len(args) == len(sizes)
        self.log.append((self.expr, tuple(grid), tuple(block), decoded))
        if self.execute:
            self._run(decoded)

    def _run(self, decoded):
        q = lambda b: int.from_bytes(b, "little", signed=True)  # noqa: E731
        xptr = int.from_bytes(decoded[0][0], "little")
        optr = int.from_bytes(decoded[1][0], "little")
        center = int.from_bytes(decoded[2][0], "little")
        idesc = 3 if self.name in _ONE_PASS else 5
        desc = np.frombuffer(decoded[idesc][0], np.int64)
        c, r = self.nkc, self.nrc
        nk, nr = int(desc[-2]), int(desc[-1])
        kshape, kstride = desc[:nk], desc[c:c + nk]
        rshape, rstride = desc[2 * c:2 * c + nr], desc[2 * c + r:2 * c + r + nr]
        nrows = q(decoded[idesc + 1][0])
        assert nrows == int(np.prod(kshape))
        if self.name == "rows_group":   # lanes a row: a power of two below a warp's
            assert q(decoded[-1][0]) in (1, 2, 4, 8, 16)
        k = _offsets(kshape, kstride)
        rr = _offsets(rshape, rstride)
        idx = k[:, None] + rr[None, :]
        lo, hi = int(idx.min()), int(idx.max())
        isz = self.tin.itemsize
        raw = (ctypes.c_char * ((hi - lo + 1) * isz)).from_address(xptr + lo * isz)
        vals = np.frombuffer(raw, self.tin)[idx - lo]
        if self.op in (5, 6):  # all / any: x != 0 (NaN true) into the 0/1 accumulator
            vals = vals != 0
        vals = vals.astype(self.tacc)
        if center and self.op in (8, 9):   # the shifted moments: (sum d, sum d*d) as complex
            if self.op == 9:   # about each output's first element, read from the input
                assert self.name == "interleave", self.name
                cen = np.frombuffer((ctypes.c_char * (nrows * isz)).from_address(center),
                                    self.tin).astype(np.complex128)
            else:
                cen = np.frombuffer((ctypes.c_char * (nrows * 16)).from_address(center),
                                    np.complex128)
            d = vals.real.astype(np.float64) - cen.real[:, None]
            vals = d + 1j * d * d
        elif center:
            cen = np.frombuffer((ctypes.c_char * (nrows * 8)).from_address(center),
                                self.tacc)
            vals = (vals - cen[:, None]) ** 2
        res = _OPF[self.op if not center and self.op != 7 else 0].reduce(vals, axis=1)
        if self.op == 7:   # the mean: the sum divided once by the count as it is stored
            res = res / vals.shape[1]
        flat = np.lib.stride_tricks.as_strided(
            np.frombuffer((ctypes.c_char * (nrows * self.tout.itemsize)).from_address(
                optr), self.tout), (nrows,), (self.tout.itemsize,))
        flat[...] = res.astype(self.tout)


@pytest.fixture
def fake_reductions(fake_cupy, monkeypatch):
    """The stand-in CuPy with the reduction kernels of this file (recorded, then run on
    the host) and empty caches; yields (module, launch log)."""
    cp = fake_cupy
    log = []
    kernels = {}

    def kernel(src, expr, partner=None):
        if expr not in kernels:
            model = finish_model(expr) if src == "reduce_finish.cu" else FakeKernel
            kernels[expr] = model(expr, log)
        return kernels[expr]

    monkeypatch.setattr(_rc, "kernel", kernel)
    monkeypatch.setattr(_rc, "kernel_resident", lambda src, expr, threads: 4)
    # the kernels of the descriptor only: short dense rows folded in registers
    # (reductions_rows.cu) have their own model, tests/test_reduce_rows.py
    monkeypatch.setitem(_rc.TUNING, "red_regs", 0)
    # one element per output: the stand-in runs no elementwise kernels, so the cast
    # copy is the library's (the engine's copy is tested on the GPU)
    monkeypatch.setattr(_red, "_ew", types.SimpleNamespace(takes=lambda *dtypes: False))
    monkeypatch.setattr(_red, "_RECIPES", Bounded(1024))
    monkeypatch.setattr(_red, "_WORKSPACES", Bounded(1024))
    monkeypatch.setattr(_red, "_CALLS", Store(1024))
    monkeypatch.setattr(_variance, "_CALLS", Store(1024))
    monkeypatch.setattr(_vk, "_FINISH", Bounded(64))
    monkeypatch.setattr(_vk, "_VAR_ROWS", Bounded(256))
    monkeypatch.setattr(_vk, "_CENTERS", Bounded(256))
    GATE.close()
    _rc._sm_count.cache_clear()
    yield cp, log
    _rc._sm_count.cache_clear()


def _expected_launch(x, axes, op, out_dtype, acc):
    """(expr, grid, block, descriptor + scalar tail bytes) that the plan asks for,
    computed here from the plan and the geometry alone (resident blocks: the
    fixture's 4; 132 SMs)."""
    plan = plan_reduction(Layout.from_array(x), axes)
    base = x.data.ptr + plan.offset * x.itemsize
    tile = tuple(_rc.TUNING["tile"][2:]) if plan.strategy == "tile" else (0, 0)
    by_words = _rc.takes_words(x.dtype, acc)     # the interleave kernel's 16-byte words
    geo = reduction_geometry(plan, x.itemsize, 132, base, tile=tile, side_by_side=True,
                             words=by_words, narrow=True)
    if geo.kernel not in _ONE_PASS:
        geo = reduction_geometry(plan, x.itemsize, 132, base, resident=4, words=by_words,
                                 narrow=True)
    nkc, nrc = (4 if plan.nk <= 4 else 64), (1 if plan.nr == 1 else 4 if plan.nr <= 4 else 64)
    pad = lambda v, n, f: tuple(v) + (f,) * (n - len(v))  # noqa: E731
    words = (pad(plan.kshape, nkc, 1) + pad(plan.kstride, nkc, 0) + pad(plan.rshape, nrc, 1)
             + pad(plan.rstride, nrc, 0) + (plan.nk, plan.nr, plan.nrows, plan.rowlen))
    if geo.kernel not in _ONE_PASS:
        words += (geo.chunk, geo.nchunks)
    elif geo.kernel == "tile":
        words += (geo.chunk,)
    elif geo.kernel == "rows_group":
        words += (geo.group,)
    if geo.kernel == "interleave" and geo.vec > 1:
        minb, batch = _rc.TUNING["interleave_words"]
        if geo.vec * acc.itemsize > _rc.WORDS_ACC_BYTES:   # 16 int64 accumulators
            batch //= 2
    else:
        minb, batch = _rc.TUNING[geo.kernel][:2]
        if geo.kernel == "tile" and x.itemsize == 8:
            minb = max(minb, 4)        # 8-byte elements staged: 64 registers, 4 blocks
        if (x.itemsize == 1 and geo.kernel in ("interleave", "rows_warp", "rows_group", "rows_block")
                and geo.vec == 1):
            batch = _red.BYTE_BATCH    # 1-byte elements one by one: 32 loads in flight
        elif geo.vec == 16 and acc.itemsize == 8:
            batch = min(batch, _red.WIDE_ACC_BYTE_VECTORS)
        elif x.dtype.kind == "c" and geo.kernel == "interleave":
            batch = min(batch, _red.COMPLEX_BATCH_BYTES // x.itemsize)
        if geo.vec == 16 and geo.kernel in _rc.ROW_BYTE_WORDS:
            minb, batch = _rc.ROW_BYTE_WORDS[geo.kernel]
        elif geo.kernel == "lanes" and x.dtype.kind == "c":
            batch = min(batch, _red.COMPLEX_LANES_BATCH)   # complex64 chunks: 1 in flight
    if geo.vec < 0:
        minb = min(minb, _red.SIDE_BY_SIDE_MINB)
    ops = {"sum": 0, "prod": 1, "min": 2, "max": 3, "all": 5, "any": 6}
    expr = (f"xs_reduce_{geo.kernel}<{ops[op]}, {_rc.CTYPE[x.dtype]}, {_rc.CTYPE[acc]}, "
            f"{_rc.CTYPE[out_dtype]}, {nkc}, {nrc}, {geo.vec}, {minb}, {batch}"
            + (f", {tile[0]}>" if geo.kernel == "tile" else ">"))
    xptr = (x.data.ptr + plan.offset * x.itemsize).to_bytes(8, "little")
    return plan, expr, geo, xptr, b"".join(int(w).to_bytes(8, "little", signed=True)
                                           for w in words)


def _check_launch(entry, x, axes, op, out_dtype, acc, result):
    plan, expr, geo, xptr, tail = _expected_launch(x, axes, op, out_dtype, acc)
    got_expr, grid, block, args = entry
    assert (got_expr, grid, block) == (expr, tuple(geo.grid), tuple(geo.block))
    assert args[0][0] == xptr
    # the output pointer is the result's first element (K order: its lowest address)
    assert int.from_bytes(args[1][0], "little") == result.data.ptr
    assert args[2][0] == bytes(8)  # no center
    split = geo.kernel not in _ONE_PASS and geo.nchunks > 1
    if geo.kernel not in _ONE_PASS:
        if split:
            assert args[3][0] != bytes(8) and args[4][0] != bytes(8)  # workspace addresses
        else:
            assert args[3][0] == args[4][0] == bytes(8)
    n_tail = 5 if geo.kernel not in _ONE_PASS else 4 if geo.kernel in ("tile", "rows_group") else 3
    assert b"".join(b for b, _ in args[-n_tail:]) == tail
    return plan, split


def _layouts():
    rng = np.random.default_rng(11)
    base = rng.standard_normal(3 * 4 * 5 * 6 + 7)
    a = base[7:].reshape(3, 4, 5, 6)
    yield "contiguous", a
    yield "transposed", a.transpose(3, 1, 0, 2)
    yield "negative steps", a[::-1, :, ::-2]
    yield "sliced", a[1:, 1:3, ::2, 1:]
    yield "offset 1-D", base[1:]          # not 16-byte aligned
    yield "reversed 1-D", base[::-1]
    yield "long 1-D (split)", rng.standard_normal(20000)
    yield "2-D outer split", rng.standard_normal((3000, 4))


_CASE_AXES = [None, 0, -1, (0, 1), (1, 2), (0, 2), (2, 0), ()]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.uint8, np.int64])
def test_cached_and_uncached_launches_agree(fake_reductions, dtype):
    """A repeated call (the prepared call) launches exactly what the first call (the
    full planning path) launched and what the plan asks for: the same kernel, grid,
    block and argument bytes, and gives the same result, shape and strides."""
    cp, log = fake_reductions
    n_launch = 0
    for name, view in _layouts():
        if dtype is not np.float64:
            view = (view * 10).astype(dtype)  # a copy: same layout, other dtype
            if name != "contiguous":
                view = np.lib.stride_tricks.as_strided(view, view.shape, view.strides)
        x = FakeCupyArray(view)
        for axis in _CASE_AXES:
            try:
                axes = normalize_axis("sum", axis, view.ndim)
            except ValueError:
                continue
            for keepdims in (False, True):
                for op in ("sum", "max"):
                    f = getattr(xp, op)
                    want = getattr(np, op)(view, axis=axes, keepdims=keepdims)
                    before = len(log)
                    first = f(x, axis=axis, keepdims=keepdims)
                    second = f(x, axis=axis, keepdims=keepdims)
                    third = f(x, axis=axis, keepdims=keepdims)
                    launches = log[before:]
                    for r in (first, second, third):
                        assert r.shape == want.shape and r.dtype == want.dtype
                        if op == "max" or dtype not in (np.float32, np.float64):
                            np.testing.assert_array_equal(r.get(), want)
                        else:
                            ref = np.sum(view.astype(np.float64), axis=axes,
                                         keepdims=keepdims).astype(want.dtype)
                            np.testing.assert_allclose(r.get(), ref, rtol=1e-6, atol=1e-6)
                        assert r.strides == first.strides, (name, axis, keepdims)
                    if not launches:  # copy: no kernel
                        assert int(np.prod([view.shape[a] for a in axes])) <= 1
                        continue
                    assert len(launches) == 3, (name, axis, op)
                    out = np.dtype(want.dtype)
                    acc = _rc.acc_dtype(out) if op == "sum" else _rc.minmax_acc_dtype(out)
                    for entry, r in zip(launches, (first, second, third)):
                        _check_launch(entry, x, axes, op, out, acc, r)
                    # cached vs uncached: identical bytes except the fresh output
                    e0, e1 = launches[0], launches[1]
                    assert e0[:3] == e1[:3]
                    assert [b for b, _ in e0[3][2:]] == [b for b, _ in e1[3][2:]]
                    assert e0[3][0][0] == e1[3][0][0]
                    n_launch += 1
    assert n_launch > 80  # not vacuous: most cases launch a kernel
    assert len(_red._CALLS) > 40


def test_zero_d_and_empty_launch_nothing(fake_reductions):
    cp, log = fake_reductions
    z = FakeCupyArray(np.array(3.5, dtype=np.float32))
    for _ in range(2):
        r = xp.sum(z)
        assert r.shape == () and r.get() == np.float32(3.5) and r.dtype == np.float32
        r = xp.sum(z, keepdims=True)
        assert r.shape == () and r.get() == np.float32(3.5)
    e = FakeCupyArray(np.ones((3, 0), dtype=np.float32))
    for _ in range(2):
        assert xp.sum(e).get() == 0
        assert xp.sum(e, axis=0).shape == (0,)
        assert xp.sum(e, axis=1, keepdims=True).get().tolist() == [[0.0]] * 3
        with pytest.raises(ValueError, match="zero-size axis 1"):
            xp.max(e, axis=1)
    # no kernel; the 0-d calls (one element: a copy) are prepared, the empty ones not
    assert log == [] and len(_red._CALLS) == 2
    assert all(isinstance(run.__self__, _red._CopyCall) for run in _red._CALLS.values())


def test_moments_through_the_launch_path(fake_reductions):
    """mean/var/std share the recipe launch (with a center for var): values as NumPy."""
    rng = np.random.default_rng(4)
    a = rng.standard_normal((5, 6, 7)) + 3.0
    for view in (a, a.transpose(2, 0, 1)[:, ::-1], a[1:, :, ::3]):
        x = FakeCupyArray(view)
        for axis in (None, 0, (1, 2), -1):
            for _ in range(2):
                np.testing.assert_allclose(xp.mean(x, axis=axis).get(),
                                           np.mean(view, axis=axis), rtol=1e-12)
                np.testing.assert_allclose(xp.var(x, axis=axis, correction=1).get(),
                                           np.var(view, axis=axis, ddof=1), rtol=1e-12)
                np.testing.assert_allclose(xp.std(x, axis=axis, keepdims=True).get(),
                                           np.std(view, axis=axis, keepdims=True),
                                           rtol=1e-12)


def _short_cases():
    rng = np.random.default_rng(4)
    host = rng.standard_normal((1000, 6))
    tall = rng.standard_normal((3, 1000))
    # (kernel, host view, axis)
    pairs = np.ascontiguousarray(host[:, :2])   # rows of one 16-byte chunk
    yield "lanes", pairs, 1
    yield "lanes", pairs.T, 0
    yield "tile", np.ascontiguousarray(rng.standard_normal((1000, 7))), 1   # 56-byte rows
    yield "short", host[:, :3], 1    # rows of 24 bytes (SHORT_ROW_BYTES)
    yield "short", host[:, ::2], 1
    yield "short", tall.T, 1
    yield "interleave", np.ascontiguousarray(host[:, :3]), 0
    yield "interleave", host[:333], 0
    yield "interleave", host[::-2, 1:4], 0      # 3 columns of rows 12 elements apart


@pytest.mark.parametrize("case", range(9))
def test_short_rows_launch_their_kernels(fake_reductions, case):
    """Rows of at most 32 elements, many of them ("lanes", "tile", "short") and contiguous runs
    of a few columns ("interleave"): the kernel the plan names with its argument list
    (one-pass for "short" and "tile", with the workspace for "interleave"), for sum/max
    and var (one pass of ``xs_var_rows`` over rows of many, the two passes of the
    reductions and the finish over the few columns of "interleave"), first and
    prepared calls alike."""
    cp, log = fake_reductions
    kernel, h, axis = list(_short_cases())[case]
    x = FakeCupyArray(h)   # the same strides as the host view
    assert x.strides == h.strides
    for _ in range(2):
        before = len(log)
        r = xp.sum(x, axis=axis)
        np.testing.assert_allclose(r.get(), h.sum(axis=axis), rtol=1e-12)
        _check_launch(log[-1], x, (axis,), "sum", np.dtype(np.float64),
                      np.dtype(np.float64), r)
        r = xp.max(x, axis=axis)
        np.testing.assert_array_equal(r.get(), h.max(axis=axis))
        v = xp.var(x, axis=axis)
        np.testing.assert_allclose(v.get(), h.var(axis=axis), rtol=1e-12)
        s = xp.std(x, axis=axis, correction=1)
        np.testing.assert_allclose(s.get(), h.std(axis=axis, ddof=1), rtol=1e-12)
        names = [e[0].split("<")[0] for e in log[before:]]
        if kernel == "interleave":
            # sum, max, var's two passes, then its finish (ss / dof into float64); std's
            assert names == [f"xs_reduce_{kernel}"] * 4 + ["xs_var_finish"] + [
                f"xs_reduce_{kernel}"] * 2 + ["xs_var_finish"], names
            assert log[-1][0] == "xs_var_finish<double, true>"
            assert log[-2][0].startswith(f"xs_reduce_{kernel}<4, double, double, double")
            assert log[-2][3][2][0] != bytes(8)   # var's second pass has its center
        else:
            # sum, max, then var and std each in one kernel, 16-byte vectors where the
            # rows are contiguous, aligned and whole vectors long
            assert names == [f"xs_reduce_{kernel}"] * 2 + ["xs_var_rows"] * 2, names
            other = h.strides[1 - axis]
            vec = 2 if (h.strides[axis] == 8 and h.shape[axis] % 2 == 0 and other % 16 == 0
                        and x.data.ptr % 16 == 0) else 1
            rmax = max(4, 1 << (h.shape[axis] - 1).bit_length())
            minb = _rc.TUNING["var_rows"][0 if rmax == 4 else 1]
            q = max(1, _rc.TUNING["var_rows"][2] * 4 // rmax)
            tail = f"{minb}, {q}>"
            assert log[-2][0] == f"xs_var_rows<double, double, 4, {rmax}, {vec}, false, {tail}"
            assert log[-1][0] == f"xs_var_rows<double, double, 4, {rmax}, {vec}, true, {tail}"
            # Q rows a thread: the grid covers the rows Q at a time
            assert log[-1][1] == (-(-(h.size // h.shape[axis]) // (256 * q)),)
            assert np.frombuffer(log[-1][3][5], np.float64)[0] == h.shape[axis] - 1


@pytest.mark.parametrize("dtype", ["float32", "bool"])
def test_short_rows_side_by_side_launch_w_rows_a_thread(fake_reductions, dtype):
    """Rows that lie side by side ((3, n) float32 or bool used as .T): the "short"
    kernel with W = 16 // itemsize rows a thread (vec -W), MINB capped at
    SIDE_BY_SIDE_MINB, a thread per W rows in the grid; first and prepared calls."""
    cp, log = fake_reductions
    rng = np.random.default_rng(5)
    h = (rng.standard_normal((3, 1024)).astype(np.float32) if dtype == "float32"
         else rng.random((3, 1024)) < 0.5).T
    x = FakeCupyArray(h)
    w = 16 // h.itemsize
    op, out, acc = (("sum", np.float32, np.float64) if dtype == "float32"
                    else ("any", np.bool_, np.int32))
    for _ in range(2):
        r = getattr(xp, op)(x, axis=1)
        want = h.astype(np.float64).sum(axis=1) if dtype == "float32" else h.any(axis=1)
        np.testing.assert_allclose(r.get(), want, rtol=1e-6)
        _check_launch(log[-1], x, (1,), op, np.dtype(out), np.dtype(acc), r)
        expr, grid = log[-1][0], log[-1][1]
        assert f", -{w}, {_red.SIDE_BY_SIDE_MINB}, " in expr and grid == (-(-1024 // w // 256),)
