"""CPU tests of the "columns_chunks" scan (many series scanned over an axis that is not
the innermost, too few for one thread each): the plan's choice and chunk count (from
the shape alone), a NumPy model of the two kernels of ``scans_chunks.cu`` (the same
chunks and combination order) against ``np.cumsum``/``np.cumprod``, the executor's
launches on the stand-in CuPy, and an NVRTC compile of what the executor asks for."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from xstride._kernels import _reduce_common as rc
from xstride._plans.scan import plan_scan
from tests.test_scans_columns import _host
from xstride._plans.scan_chunks import (MAX_CHUNKS, MIN_CHUNK, MIN_LENGTH, TARGET_THREADS,
                                        column_chunks)
from xstride.layout import Layout

_SRC = Path(__file__).resolve().parents[1] / "xstride" / "_kernels" / "scans_chunks.cu"


# ----------------------------------------------------------------------------- plan
def test_chunk_count_comes_from_the_shape():
    assert column_chunks(24576, 4096) == 6            # ceil(2**17 / 24576)
    assert column_chunks(TARGET_THREADS, 4096) == 1   # enough series: one chunk
    assert column_chunks(1, 1 << 20) == MAX_CHUNKS
    assert column_chunks(10, 20 * MIN_CHUNK + 3) == 20  # at least MIN_CHUNK elements each
    assert column_chunks(10, MIN_LENGTH) == MIN_LENGTH // MIN_CHUNK
    assert column_chunks(10, MIN_LENGTH - 1) == 1       # short series: one thread each
    assert column_chunks(0, 5000) == column_chunks(100, 0) == 1


@pytest.mark.parametrize("shape, axis, chunks", [
    ((4096, 24576), 0, 6), ((4096, 100), 0, 64), ((2000, 30, 40), 0, 31),
    ((1500, 7, 9), 0, 23), ((30, 2000, 9), 1, 31), ((4096, 3), 0, 64),
    ((8192, 2000), 0, 64), ((200000, 300), 0, 64), ((65536, 2000), 0, 64),
])
def test_wide_scans_over_an_outer_axis_take_chunks(shape, axis, chunks):
    for include_initial in (False, True):
        p = plan_scan(Layout(shape, itemsize=4), axis, include_initial)
        assert (p.strategy, p.chunks) == ("columns_chunks", chunks), p
        assert p.chunk_rows == -(-shape[axis] // chunks)
        assert (p.chunks - 1) * p.chunk_rows < p.length <= p.chunks * p.chunk_rows


def test_other_scans_keep_their_strategy():
    lay = Layout((4096, 24576), itemsize=4)
    assert plan_scan(lay, 1, False).strategy == "rows"                # innermost axis
    assert plan_scan(Layout((1 << 20, 3), itemsize=4), 0, False).strategy == "columns_split"
    assert plan_scan(Layout((40, 1 << 17), itemsize=4), 0, False).strategy == "columns"
    assert plan_scan(Layout((100, 6000), itemsize=4), 0, False).strategy == "columns"  # short
    # long series, too few of them for CHUNKS_MIN_THREADS, not one contiguous block
    # (which columns_split takes up to COLSPLIT_MAX_COLS columns): the look-back scan
    assert plan_scan(Layout((1 << 20, 33), itemsize=4), 0, False).strategy == "columns_split"
    assert plan_scan(Layout((1 << 24, 100), itemsize=4), 0, False).strategy == "columns_split"
    half = Layout((1 << 20, 66), itemsize=4).slice((slice(None), slice(None, 33)))
    assert plan_scan(half, 0, False).strategy == "lookback"
    half = Layout((1 << 24, 200), itemsize=4).slice((slice(None), slice(None, 100)))
    assert plan_scan(half, 0, False).strategy == "lookback"
    p = plan_scan(Layout((1 << 20, 3), itemsize=4), 1, False)
    assert p.strategy == "tile" and p.chunks == 1


def test_views_are_planned_on_their_layout():
    lay = Layout((4096, 24576), itemsize=4)
    p = plan_scan(lay.slice((slice(None, None, -1), slice(1, None, 2))), 0, False)
    assert p.strategy == "columns_chunks" and p.s_in == -24576 and p.nrows == 12288
    assert p.chunks == column_chunks(12288, 4096)
    p = plan_scan(lay.permute((1, 0)), 1, False)                      # x.T over axis 1
    assert p.strategy == "columns_chunks" and p.s_in == 24576


# ----------------------------------------------------------------------------- the model
def chunk_model(series, chunks, op, acc, init):
    """The two kernels on a host (length, nseries) array: each chunk folded from the
    identity in element order, the carry of chunk c the fold of the partials 0..c-1 in
    chunk order, the chunk scanned from its carry in element order (in ``acc``)."""
    f = np.add if op == "sum" else np.multiply
    ident = 0 if op == "sum" else 1
    a = np.asarray(series).astype(acc)
    length, ns = a.shape
    r = -(-length // chunks)
    start = np.full((1, ns), ident, acc)
    parts = [f.accumulate(np.concatenate([start, a[c * r:(c + 1) * r]]), axis=0)[-1]
             for c in range(chunks)]
    out = np.empty((length + init, ns), acc)
    out[:init] = ident
    for c in range(chunks):
        carry = start[0].copy()
        for j in range(c):
            carry = f(carry, parts[j])
        seg = f.accumulate(np.concatenate([carry[None], a[c * r:(c + 1) * r]]), axis=0)[1:]
        out[init + c * r:init + min(length, (c + 1) * r)] = seg
    return out


@pytest.mark.parametrize("chunks", [1, 2, 5, 64])
def test_model_is_the_scan(chunks):
    rng = np.random.default_rng(3)
    ints = rng.integers(-50, 50, size=(700, 9))
    np.testing.assert_array_equal(chunk_model(ints, chunks, "sum", np.int64, 0),
                                  np.cumsum(ints, axis=0))
    signs = rng.choice([-1, 1], size=(700, 9))
    np.testing.assert_array_equal(chunk_model(signs, chunks, "prod", np.int64, 1)[1:],
                                  np.cumprod(signs, axis=0))
    x = rng.standard_normal((700, 9)).astype(np.float32)
    got = chunk_model(x, chunks, "sum", np.float64, 0).astype(np.float32)
    np.testing.assert_allclose(got, np.cumsum(x.astype(np.float64), axis=0), rtol=1e-5,
                               atol=1e-4)
    if chunks == 1:   # one chunk is the sequential scan
        np.testing.assert_array_equal(chunk_model(x, 1, "sum", np.float64, 0),
                                      np.cumsum(x.astype(np.float64), axis=0))


# ----------------------------------------------------------------------------- NVRTC
def _instantiations():
    out = set()
    for ci, ca, co in (("float", "double", "float"), ("double", "double", "double"),
                       ("long long", "long long", "long long"), ("bool", "long long", "long long"),
                       ("signed char", "long long", "long long"),
                       ("unsigned int", "unsigned long long", "unsigned long long")):
        for op in (0, 1):
            for cap in (4, 16):
                out.add(f"xs_chunks_fold<{op}, {ci}, {ca}, {cap}>")
                out.add(f"xs_chunks_scan<{op}, {ci}, {ca}, {co}, {cap}>")
    return sorted(out)


def test_every_instantiation_compiles_with_nvrtc():
    from tests.test_scans_columns import compile_instantiations

    compile_instantiations(_SRC, _instantiations())


# ----------------------------------------------------------------------------- host launch path
# The stand-in CuPy (tests/conftest.py): device pointers are host addresses. A "kernel"
# records its launch and runs the model from its arguments (a C-contiguous (length,
# nseries) input: series s at column s), so the executor's wiring is checked.
_CT = {v: k for k, v in rc.CTYPE.items()}
_FOLD = re.compile(r"xs_chunks_fold<(\d), ([\w ]+), ([\w ]+), (\d+)>")
_SCAN = re.compile(r"xs_chunks_scan<(\d), ([\w ]+), ([\w ]+), ([\w ]+), (\d+)>")

class _HostKernel:
    def __init__(self, expr, log, init):
        self.expr, self.log, self.init = expr, log, init
        self.fold, self.scan = _FOLD.fullmatch(expr), _SCAN.fullmatch(expr)
        assert self.fold or self.scan, expr

    @property
    def kernel(self):
        return self

    def __call__(self, grid, block, args, shared_mem=0, **kwargs):
        m = self.fold or self.scan
        op = "sum" if m.group(1) == "0" else "prod"
        tin, tacc = _CT[m.group(2)], _CT[m.group(3)]
        ptrs = [int(a) for a in args[:2 if self.fold else 3]]
        nrows, length, chunk = (int(a) for a in args[-3:])
        self.log.append((self.expr, tuple(grid), tuple(block), ptrs, (nrows, length, chunk),
                         shared_mem))
        chunks = grid[1]
        assert grid[0] == -(-nrows // 256) and tuple(block) == (256,)
        x = _host(ptrs[0], length * nrows, tin).reshape(length, nrows)
        if self.fold:
            f = np.add if op == "sum" else np.multiply
            start = np.full((1, nrows), 0 if op == "sum" else 1, tacc)
            parts = _host(ptrs[1], chunks * nrows, tacc).reshape(chunks, nrows)
            for c in range(chunks):
                seg = x[c * chunk:(c + 1) * chunk].astype(tacc)
                parts[c] = f.accumulate(np.concatenate([start, seg]), axis=0)[-1]
        else:
            tout = _CT[m.group(4)]
            got = chunk_model(x, chunks, op, tacc, self.init)
            parts = _host(ptrs[2], chunks * nrows, tacc).reshape(chunks, nrows)
            assert chunk * (chunks - 1) < length <= chunk * chunks
            # the partials the first launch left are the model's
            want = chunk_model(x, chunks, op, tacc, 0)
            ends = [min(length, (c + 1) * chunk) - 1 for c in range(chunks)]
            if op == "sum" and tacc.kind != "f":
                np.testing.assert_array_equal(
                    np.cumsum(parts, axis=0, dtype=tacc), want[ends])
            _host(ptrs[1], (length + self.init) * nrows, tout)[...] = got.astype(tout).reshape(-1)


@pytest.fixture
def fake_chunks(fake_cupy, monkeypatch):
    from xstride._kernels import scans
    from xstride._kernels._lru import Bounded
    from xstride._kernels._prepared import GATE, Store

    log, kernels, init = [], {}, [0]

    def kernel(src, expr, partner=None):
        assert src == "scans_chunks.cu", (src, expr)
        key = (expr, init[0])
        if key not in kernels:
            kernels[key] = _HostKernel(expr, log, init[0])
        return kernels[key]

    monkeypatch.setattr(rc, "kernel", kernel)
    monkeypatch.setattr(scans, "_RECIPES", Bounded(64))
    monkeypatch.setattr(scans, "_PARTIALS", Bounded(64))
    monkeypatch.setattr(scans, "_PREPARED", Store(64))
    GATE.close()
    yield fake_cupy, log, init


@pytest.mark.parametrize("dtype,op", [("int64", "sum"), ("float32", "sum"), ("int8", "sum"),
                                      ("bool", "sum"), ("float64", "prod"), ("int32", "prod")])
@pytest.mark.parametrize("include_initial", [False, True])
def test_executor_launches_both_passes(fake_chunks, dtype, op, include_initial):
    import xstride as xp
    from tests.conftest import FakeCupyArray

    from tests.test_scans_columns import scan_case

    cp, log, init = fake_chunks
    init[0] = int(include_initial)
    length, ns = 1200, 700                      # column_chunks(700, 1200) == 18
    host, want = scan_case((length, ns), dtype, op, include_initial)
    f = getattr(xp, "cumulative_" + op)
    for call in range(2):                  # the first call, then the prepared one
        got = f(FakeCupyArray(host), axis=0, include_initial=include_initial)
        assert got.shape == want.shape and got.dtype == want.dtype
        if host.dtype.kind == "f":
            np.testing.assert_allclose(got.host, want, rtol=1e-6)
        else:
            np.testing.assert_array_equal(got.host, want)
    assert len(log) == 4 and column_chunks(ns, length) == 18
    for i, (expr, grid, block, ptrs, tail, smem) in enumerate(log):
        assert expr.startswith("xs_chunks_fold" if i % 2 == 0 else "xs_chunks_scan")
        assert grid == (3, 18) and tail == (ns, length, 67) and smem == 0
    assert log[0][3][1] == log[1][3][2] == log[2][3][1]    # one scratch, reused
