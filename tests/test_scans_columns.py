"""CPU tests of the "columns_split" scan (a contiguous (n, k) array scanned over its
rows, 2 <= k <= 256): the plan's choice, the launch geometry, a NumPy model of the two
kernels of ``scans_columns.cu`` (the same chunking, thread assignment, shared-memory
positions and combination order) against ``np.cumsum``/``np.cumprod``, and an NVRTC
compile of every instantiation the executor asks for."""

from __future__ import annotations

import ctypes
import re
from pathlib import Path

import numpy as np
import pytest

from xstride._kernels import _reduce_common as rc
from xstride._kernels._colsplit_geometry import colsplit_geometry
from xstride._plans.scan import COLSPLIT_MIN_LENGTH

_SRC = Path(__file__).resolve().parents[1] / "xstride" / "_kernels" / "scans_columns.cu"


# ----------------------------------------------------------------------------- model
def _op(name):
    return (np.add, 0) if name == "sum" else (np.multiply, 1)


def _block_scan(v, op, ident):
    """Hillis-Steele over axis 0 of v (m, k), as xs_colsplit_block_scan: (inclusive,
    exclusive, column totals)."""
    m = v.shape[0]
    cur = v.copy()
    d = 1
    while d < m:
        nxt = cur.copy()
        nxt[d:] = op(cur[:-d], cur[d:])
        cur = nxt
        d <<= 1
    excl = np.concatenate([np.full((1, v.shape[1]), ident, v.dtype), cur[:-1]])
    return cur, excl, cur[-1]


def _fold_pass(flat, n, k, T, chunk_rows, chunks, opname):
    """xs_colsplit_fold over the flat input (already in the accumulator dtype): the
    (chunks, k) partials."""
    op, ident = _op(opname)
    t = np.arange(T)
    partials = np.empty((chunks, k), flat.dtype)
    for b in range(chunks):
        r0, r1 = b * chunk_rows, min((b + 1) * chunk_rows, n)
        acc = np.full(T, ident, flat.dtype)
        for i in range(r0 * k, r1 * k, T):
            lanes = t[i + t < r1 * k]
            assert np.all((i + lanes) % k == lanes % k)        # one column per thread
            acc[lanes] = op(acc[lanes], flat[i + lanes])
        for col in range(k):
            a = flat.dtype.type(ident)
            for u in range(col, T, k):
                a = op(a, acc[u])
            partials[b, col] = a
    return partials


def _scan_pass(flat, partials, n, k, T, L, chunk_rows, pad, init, chunks, opname,
               inplace=True):
    """xs_colsplit_scan: the flat output of (n + init) * k elements. ``inplace``: the
    staged outputs overwrite the staged inputs (one element size), as in the kernel."""
    op, ident = _op(opname)
    acc_dt = flat.dtype
    m, R = T // k, (T // k) * L
    U, up = L * k, L * k + pad
    t = np.arange(T)
    j, c = t // k, t % k
    out = np.full((n + init) * k, -12345, acc_dt)
    if init:
        out[:k] = ident
    # staged positions of elements t + s * T, computed incrementally as in the kernel
    pos = np.empty((L, T), np.int64)
    q, r = t // U, t % U
    for s in range(L):
        pos[s] = q * up + r
        q, r = q + T // U, r + T % U
        q, r = np.where(r >= U, q + 1, q), np.where(r >= U, r - U, r)
    assert len(set(pos.reshape(-1))) == T * L and pos.max() < m * up
    for b in range(chunks):
        r0, r1 = b * chunk_rows, min((b + 1) * chunk_rows, n)
        a = np.full(T, ident, acc_dt)
        for ch in range(b):
            lanes = t[j == ch % m]              # thread (j, c) folds chunks j, j + m, ...
            a[lanes] = op(a[lanes], partials[ch, c[lanes]])
        _, _, total = _block_scan(a.reshape(m, k), op, ident)
        carry = total[c]
        for tr in range(r0, r1, R):
            nt = min(R, r1 - tr)
            ne = nt * k
            smem = np.full(m * up, np.nan)
            for s in range(L):
                f = t + s * T
                ok = f < ne
                smem[pos[s][ok]] = flat[tr * k + f[ok]]
            rows = j[:, None] * L + np.arange(L)[None, :]             # (T, L)
            idx = (j * up + c)[:, None] + np.arange(L)[None, :] * k
            run = np.full(T, ident, acc_dt)
            for i in range(L):                  # the fold of each run
                ok = rows[:, i] < nt
                v = smem[idx[ok, i]]
                assert not np.isnan(v).any()
                run[ok] = op(run[ok], v.astype(acc_dt))
            _, excl, tot = _block_scan(run.reshape(m, k), op, ident)
            acc = op(carry, excl.reshape(-1))
            so = smem if inplace else np.full(m * up, np.nan)
            for i in range(L):                  # the rescan, reading the inputs again
                ok = rows[:, i] < nt
                v = smem[idx[ok, i]]
                assert not np.isnan(v).any()
                acc[ok] = op(acc[ok], v.astype(acc_dt))
                so[idx[ok, i]] = acc[ok]
            carry = op(carry, tot[c])
            for s in range(L):
                f = t + s * T
                ok = f < ne
                out[(tr + init) * k + f[ok]] = so[pos[s][ok]]
    return out


def _model(x, opname, init, sm):
    """The two kernels of scans_columns.cu on a host (n, k) array, step by step."""
    n, k = x.shape
    acc_dt = np.float64 if x.dtype.kind == "f" else np.int64
    g = colsplit_geometry(n, k, x.itemsize, x.itemsize, sm)
    flat = x.reshape(-1).astype(acc_dt)
    partials = _fold_pass(flat, n, k, g.threads, g.chunk_rows, g.chunks, opname)
    out = _scan_pass(flat, partials, n, k, g.threads, g.run, g.chunk_rows, g.pad, init,
                     g.chunks, opname)
    return out.reshape(n + init, k)


@pytest.mark.parametrize("k", [2, 3, 5, 8, 13, 16, 31, 32, 33, 64, 100, 129, 200, 256])
@pytest.mark.parametrize("init", [0, 1])
def test_model_matches_cumsum_exactly(k, init):
    """Integers: the model's indexing gives np.cumsum exactly, over several chunks
    (sm_count 1 and 2), ragged last tiles and ragged last chunks."""
    rng = np.random.default_rng(k)
    for n, sm in ((COLSPLIT_MIN_LENGTH, 1), (9001, 2), (30_011, 1)):
        x = rng.integers(-1000, 1000, size=(n, k))
        want = np.cumsum(x, axis=0)
        if init:
            want = np.concatenate([np.zeros((1, k), want.dtype), want])
        got = _model(x, "sum", init, sm)
        np.testing.assert_array_equal(got, want, err_msg=f"n={n} k={k}")


@pytest.mark.parametrize("k", [3, 16])
def test_model_prod_and_float64(k):
    rng = np.random.default_rng(7)
    x = rng.integers(-1, 2, size=(6007, k)) | 1           # +-1: exact products
    np.testing.assert_array_equal(_model(x, "prod", 0, 2), np.cumprod(x, axis=0))
    got = _model(x, "prod", 1, 2)
    assert np.all(got[0] == 1)
    np.testing.assert_array_equal(got[1:], np.cumprod(x, axis=0))
    f = rng.standard_normal((7001, k))
    np.testing.assert_allclose(_model(f, "sum", 0, 3), np.cumsum(f, axis=0),
                               rtol=1e-9, atol=1e-9)


# ----------------------------------------------------------------------------- NVRTC
def _instantiations():
    """The executor's expressions for each input dtype (sum and prod) with its default
    result dtype and a float64 result."""
    from xstride._core import dtypes

    out = set()
    for name in ("float32", "float64", "int64", "int32", "int8", "uint8", "bool"):
        tin = np.dtype(name)
        results = {tin if tin.kind in "fc" else np.dtype(np.int64), np.dtype(np.float64)}
        if tin.kind == "u":
            results.add(np.dtype(np.uint64))
        for tout in results:
            acc = rc.acc_dtype(tout)
            ci, ca, co = rc.CTYPE[tin], rc.CTYPE[acc], rc.CTYPE[tout]
            run = colsplit_geometry(1 << 20, 3, tin.itemsize, tout.itemsize, 132).run
            for op in (0, 1):
                out.add(f"xs_colsplit_fold<{op}, {ci}, {ca}>")
                out.add(f"xs_colsplit_scan<{op}, {ci}, {ca}, {co}, {run}, 4>")
    assert dtypes.C_TYPES          # the table the executor reads
    return sorted(out)


def test_every_instantiation_compiles_with_nvrtc():
    exprs = _instantiations()
    assert len(exprs) >= 20
    compile_instantiations(_SRC, exprs)


def compile_instantiations(path: Path, exprs) -> None:
    """NVRTC compiles the kernel source ``path`` with every name expression of
    ``exprs`` (sm_90, the shipped include folder), and lowers each; skips the test
    where ``cuda.bindings.nvrtc`` is not importable. Through
    ``test_cuda_headers_nvrtc.compile_named``, whose buffers for NVRTC's log are fresh
    objects: this helper's ``b" " * size`` was CPython's shared 1-byte object when the
    log was empty, and NVRTC's NUL in it made every later ``b" "`` a ``b"\\x00"`` in the
    test process (plyfile then read header spaces as NULs)."""
    from tests.test_cuda_headers_nvrtc import compile_named, nvrtc

    if nvrtc is None:
        pytest.skip("cuda.bindings.nvrtc is not importable")
    lowered, _ = compile_named(path.read_text(), list(exprs), name=path.name)
    assert all(lowered[e] for e in exprs)


# ----------------------------------------------------------------------------- host launch path
# The stand-in CuPy (tests/conftest.py): device pointers are host addresses. A "kernel"
# records its launch and then runs the model pass above from its arguments alone, so
# the executor's wiring (argument order, scratch, grid, block, shared memory) is checked
# against the kernels' signatures with no GPU.
_CT = {v: k for k, v in rc.CTYPE.items()}
_FOLD = re.compile(r"xs_colsplit_fold<(\d), ([\w ]+), ([\w ]+)>")
_SCAN = re.compile(r"xs_colsplit_scan<(\d), ([\w ]+), ([\w ]+), ([\w ]+), (\d+), (\d+)>")


def _host(ptr, count, dtype):
    dtype = np.dtype(dtype)
    return np.frombuffer((ctypes.c_char * (count * dtype.itemsize)).from_address(ptr), dtype)


def _rows(x, n, k, rs, dtype):
    """The kernels' input in scan order, flat: row r of k elements at x + r * rs
    elements (rs = k forward, -k reversed: the rows of x[::-1])."""
    assert rs in (k, -k), (rs, k)
    first = x + (n - 1) * rs * np.dtype(dtype).itemsize if rs < 0 else x
    rows = _host(first, n * k, dtype).reshape(n, k)
    return (rows[::-1] if rs < 0 else rows).reshape(-1)


class _HostKernel:
    def __init__(self, expr, log):
        self.expr, self.log = expr, log
        self.fold = _FOLD.fullmatch(expr)
        self.scan = _SCAN.fullmatch(expr)
        assert self.fold or self.scan, expr

    @property
    def kernel(self):
        return self

    def __call__(self, grid, block, args, shared_mem=0, **kwargs):
        vals = [int(a) for a in args]
        self.log.append((self.expr, tuple(grid), tuple(block), vals, shared_mem))
        (chunks,), (threads,) = tuple(grid), tuple(block)
        if self.fold:
            op = "sum" if self.fold.group(1) == "0" else "prod"
            tin, tacc = _CT[self.fold.group(2)], _CT[self.fold.group(3)]
            x, part, n, k, chunk, rs = vals
            flat = _rows(x, n, k, rs, tin).astype(tacc)
            got = _fold_pass(flat, n, k, threads, chunk, chunks, op)
            _host(part, chunks * k, tacc)[...] = got.reshape(-1)
        else:
            op = "sum" if self.scan.group(1) == "0" else "prod"
            tin, tacc, tout = (_CT[self.scan.group(i)] for i in (2, 3, 4))
            run = int(self.scan.group(5))
            x, out, part, n, k, chunk, pad, out_offset, init, rs = vals
            slots = (threads // k) * (run * k + pad)
            if tin.itemsize == tout.itemsize:   # in place: each thread its own slots
                assert out_offset == 0 and shared_mem == slots * tin.itemsize
            else:                               # apart: no thread clobbers inputs
                assert out_offset >= slots * tin.itemsize and out_offset % 16 == 0
                assert shared_mem == out_offset + slots * tout.itemsize
            flat = _rows(x, n, k, rs, tin).astype(tacc)
            partials = _host(part, chunks * k, tacc).reshape(chunks, k)
            got = _scan_pass(flat, partials, n, k, threads, run, chunk, pad, init, chunks, op,
                             inplace=out_offset == 0)
            _host(out, (n + init) * k, tout)[...] = got.astype(tout)


@pytest.fixture
def fake_scans(fake_cupy, monkeypatch):
    from xstride._kernels import scans
    from xstride._kernels._lru import Bounded
    from xstride._kernels._prepared import GATE, Store

    log, kernels = [], {}

    def kernel(src, expr, partner=None):
        assert src == "scans_columns.cu", (src, expr)
        if expr not in kernels:
            kernels[expr] = _HostKernel(expr, log)
        return kernels[expr]

    fake_cupy.multiprocessors = 2          # several chunks on small arrays
    monkeypatch.setattr(rc, "kernel", kernel)
    monkeypatch.setattr(scans, "_RECIPES", Bounded(64))
    monkeypatch.setattr(scans, "_PARTIALS", Bounded(64))
    monkeypatch.setattr(scans, "_PREPARED", Store(64))
    GATE.close()
    rc._sm_count.cache_clear()
    yield fake_cupy, log
    rc._sm_count.cache_clear()


def scan_case(shape, dtype, op, include_initial):
    """A host (n, k) input of small integers (odd ones for a product: no overflow, no
    zero) and its NumPy scan over axis 0, with the identity row first when
    ``include_initial``."""
    rng = np.random.default_rng(5)
    if dtype == "bool":
        host = rng.random(shape) < 0.5
    elif op == "prod":
        host = (rng.integers(-1, 2, size=shape) | 1).astype(dtype)
    else:
        host = rng.integers(-100, 100, size=shape).astype(dtype)
    want = getattr(np, "cumsum" if op == "sum" else "cumprod")(
        host, axis=0, dtype=np.int64 if host.dtype.kind in "bi" else None)
    if include_initial:
        ident = np.full((1,) + shape[1:], 0 if op == "sum" else 1, want.dtype)
        want = np.concatenate([ident, want])
    return host, want


@pytest.mark.parametrize("dtype,op", [("int64", "sum"), ("float32", "sum"), ("int8", "sum"),
                                      ("bool", "sum"), ("float64", "prod"), ("int32", "prod")])
@pytest.mark.parametrize("include_initial", [False, True])
def test_executor_launches_both_passes(fake_scans, dtype, op, include_initial):
    import xstride as xp
    from tests.conftest import FakeCupyArray

    cp, log = fake_scans
    n, k = 9001, 5
    host, want = scan_case((n, k), dtype, op, include_initial)
    f = getattr(xp, "cumulative_" + op)
    for call in range(2):                  # the first call, then the prepared one
        got = f(FakeCupyArray(host), axis=0, include_initial=include_initial)
        assert got.shape == want.shape and got.dtype == want.dtype
        np.testing.assert_array_equal(got.host, want)
    assert len(log) == 4
    g = colsplit_geometry(n, k, host.itemsize, want.itemsize, 2)
    for i, (expr, grid, block, vals, smem) in enumerate(log):
        assert expr.startswith("xs_colsplit_fold" if i % 2 == 0 else "xs_colsplit_scan")
        assert grid == (g.chunks,) and block == (g.threads,) and g.chunks > 2
        assert vals[2 if i % 2 == 0 else 3:][:3] == [n, k, g.chunk_rows]
    assert log[0][3][1] == log[1][3][2] == log[2][3][1]    # one scratch, reused
    assert log[1][3][-4:] == [g.pad, g.out_offset, int(include_initial), k]
    assert log[0][3][-1] == k                               # rows forward
    assert log[1][4] == g.smem


@pytest.mark.parametrize("dtype,op", [("float32", "sum"), ("int64", "sum"), ("int32", "prod")])
@pytest.mark.parametrize("include_initial", [False, True])
def test_reversed_rows_are_read_from_the_last(fake_scans, dtype, op, include_initial):
    """x[::-1] of a contiguous (n, k): the same two launches with the row stride -k
    (the host model reads row r at x - r * k), the output forward; NumPy's values."""
    import xstride as xp
    from tests.conftest import FakeCupyArray

    cp, log = fake_scans
    n, k = 9001, 3
    host, _ = scan_case((n, k), dtype, op, include_initial)
    view = host[::-1]
    want = getattr(np, "cumsum" if op == "sum" else "cumprod")(
        view, axis=0, dtype=np.int64 if host.dtype.kind in "bi" else None)
    if include_initial:
        want = np.concatenate([np.full((1, k), 0 if op == "sum" else 1, want.dtype), want])
    f = getattr(xp, "cumulative_" + op)
    got = f(FakeCupyArray(host)[::-1], axis=0, include_initial=include_initial)
    np.testing.assert_array_equal(got.host, want)
    assert [e[0].split("<")[0] for e in log] == ["xs_colsplit_fold", "xs_colsplit_scan"]
    assert log[0][3][-1] == log[1][3][-1] == -k


def test_columns_and_tile_scans_name_their_vectors_and_loads(fake_cupy, monkeypatch):
    """The "columns" scan of rows side by side compiles with V = 16 // itemsize rows a
    thread and a grid of nrows / (256 V) blocks, rows not whole vectors with V = 1; the
    short-row scan of narrow elements stages at most 16 loads a thread (NV 16, a
    smaller tile)."""
    import types

    import xstride as xp
    from xstride._kernels import scans
    from xstride._kernels._lru import Bounded
    from xstride._kernels._prepared import GATE, Store
    from tests.conftest import FakeCupyArray

    log = []

    class Recorder:
        def __init__(self, expr):
            self.expr = expr

        @property
        def kernel(self):
            return self

        def __call__(self, grid, block, args, shared_mem=0, **kwargs):
            log.append((self.expr, tuple(grid), int(args[0])))

    fake_cupy.multiprocessors = 132
    # outputs in the input's memory order: only the launch is looked at here
    monkeypatch.setattr(fake_cupy, "lib", types.SimpleNamespace(stride_tricks=types.SimpleNamespace(
        as_strided=lambda buf, shape, strides: buf)), raising=False)
    monkeypatch.setattr(rc, "kernel", lambda src, expr, partner=None: Recorder(expr))
    monkeypatch.setattr(scans, "_RECIPES", Bounded(64))
    monkeypatch.setattr(scans, "_PREPARED", Store(64))
    GATE.close()
    rc._sm_count.cache_clear()
    try:
        n = 1 << 16
        cases = [(np.zeros((3, n), np.float32).T, 1, None,
                  "xs_scan_columns<0, float, double, float, 4, 4>", (n // 1024,)),
                 (np.zeros((3, n), np.float64).T, 1, None,
                  "xs_scan_columns<0, double, double, double, 4, 2>", (n // 512,)),
                 (np.zeros((3, n + 2), np.float32)[:, 1:n + 1].T, 1, None,
                  "xs_scan_columns<0, float, double, float, 4, 1>", (n // 256,)),
                 (np.zeros((n, 3), np.int8), 1, np.int8,
                  "xs_scan_tile<0, signed char, long long, signed char, 4, 16, 8192, 0>", None),
                 # 4 rows of 3 a thread in registers (48 bytes: 3 whole words)
                 (np.zeros((n, 3), np.float32), 1, None,
                  "xs_scan_rowregs<0, float, double, float, 3, 4, 0, 2>", (n // 1024,)),
                 (np.zeros((n, 6), np.float32)[:, ::-1], 1, None,
                  "xs_scan_rowregs<0, float, double, float, 6, 2, 1, 2>", (n // 512,)),
                 (np.zeros((n, 4), np.int32), 1, np.int32,
                  "xs_scan_rowregs<0, int, long long, int, 4, 1, 0, 2>", (n // 256,)),
                 # int32 into int64: staged
                 (np.zeros((n, 4), np.int32), 1, None,
                  "xs_scan_tile<0, int, long long, long long, 4, 11, 32768, 0>", None),
                 # 64 bytes a thread: a warp over 16-byte words, a chunk of 2048 words
                 # a warp, 8 warps a block
                 (np.zeros((n, 16), np.float32), 1, None,
                  "xs_scan_warprows<0, float, double, float, 4, 4>", (n * 4 // 2048 // 8,)),
                 # off the 16-byte boundary: staged
                 (np.zeros((n + 1, 3), np.float32)[1:], 1, None,
                  "xs_scan_tile<0, float, double, float, 4, 16, 32768, 0>", None),
                 (np.zeros((n, 5), np.float32)[:, ::-1], 1, None,
                  "xs_scan_tile<0, float, double, float, 4, 16, 32768, 1>", None),
                 (np.zeros((n, 5), np.float64)[3:, ::-1], 1, None,
                  "xs_scan_tile<0, double, double, double, 4, 8, 32768, 1>", None),
                 # 3 series side by side in rows of 8 x 3: n / 8 outer rows, 165 a tile
                 (np.zeros((n // 8, 8, 3), np.float32), 1, None,
                  "xs_scan_tile<0, float, double, float, 4, 16, 32768, 2>",
                  (-(-(n // 8) // 165),))]
        for h, axis, dtype, expr, grid in cases:
            x = FakeCupyArray(h)
            xp.cumulative_sum(x, axis=axis, dtype=dtype)
            assert log[-1][0] == expr
            if grid is not None:
                assert log[-1][1] == grid
            # the kernel's x: the first element, or the lowest address of the first
            # row when its elements are reversed (the tile is read from its other end)
            low = x.data.ptr - (h.shape[1] - 1) * h.itemsize if h.strides[1] < 0 else x.data.ptr
            assert log[-1][2] == low
    finally:
        rc._sm_count.cache_clear()
