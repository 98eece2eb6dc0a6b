"""The device side of Philox checked on the host: random.cuh compiled by gcc/g++
against the NumPy executor, the fast kernels of the CUDA source compiled by g++ with a
small shim (blockIdx/threadIdx as globals) and run on the CPU with small grids (their
index walks and tails), the counter plans (``xstride._plans.philox``: read modes, and
the grid kernels' folding of broadcasts, ``grid2``, against ``np.broadcast_to``). The
executor's launches of every kernel family, emulated the same way from the bytes of
their parameter arrays, are in test_philox_morton_launch.py. No device needed;
test_rng_gpu.py runs the kernels on one."""

from __future__ import annotations

import ctypes
import math
import re
import shutil
import subprocess

import numpy as np
import pytest

from xstride import rng
from xstride._host import philox as H
from xstride._kernels import philox as K
from xstride._plans import philox as P
from xstride._kernels._compile import include_dir, source

from tests.test_rng import EDGES, M32, U64, bits, rand_u64, read_kat


# ------------------------------------------------------------------ random.cuh with gcc/g++
DRIVER = r"""
#include <xstride/random.cuh>
#include <stdio.h>
#include <string.h>
static unsigned long long b(double d) { unsigned long long u; memcpy(&u, &d, 8); return u; }
int main(void) {
    unsigned long long s, t, c;
    while (scanf("%llx %llx %llx", &s, &t, &c) == 3) {
        xstride_philox4x32_out w = xstride_philox4x32_10(
            (unsigned)c, (unsigned)(c >> 32), (unsigned)t, (unsigned)(t >> 32),
            (unsigned)s, (unsigned)(s >> 32));
        double u0, u1, z0, z1;
        xstride_uniform2(s, t, c, &u0, &u1);
        xstride_normal2(s, t, c, &z0, &z1);
        printf("%x %x %x %x %llx %llx %llx %llx %llx %llx\n", w.w[0], w.w[1], w.w[2], w.w[3],
               b(xstride_uniform(s, t, c)), b(u0), b(u1), b(xstride_normal(s, t, c)),
               b(z0), b(z1));
    }
    return 0;
}
"""


@pytest.fixture(scope="module")
def header_inputs():
    rs = np.random.default_rng(21)
    e = np.array(EDGES, dtype=U64)
    s, t, c = (np.concatenate([x.ravel(), rand_u64(rs, 20000)])
               for x in np.meshgrid(e, e, e, indexing="ij"))
    return s, t, c


@pytest.mark.parametrize("lang", ["c", "c++"])
def test_random_cuh_on_host_compiler_matches_numpy(lang, tmp_path, header_inputs, shared_dir):
    cc = shutil.which("gcc" if lang == "c" else "g++")
    if cc is None:
        pytest.skip(f"no {lang} compiler")
    src = tmp_path / "drv.c"
    src.write_text(DRIVER)
    exe = tmp_path / "drv"
    std = "-std=c99" if lang == "c" else "-std=c++17"
    subprocess.run([cc, "-x", lang, std, "-O2", "-Wall", "-Wextra", "-Werror",
                    "-ffp-contract=off", "-I", include_dir(), str(src), "-o", str(exe), "-lm"],
                   check=True, capture_output=True)
    kat = read_kat(shared_dir)
    ks = (kat[:, 4] | kat[:, 5] << U64(32), kat[:, 2] | kat[:, 3] << U64(32),
          kat[:, 0] | kat[:, 1] << U64(32))
    s, t, c = (np.concatenate([k, x]) for k, x in zip(ks, header_inputs))
    text = "\n".join(f"{a:x} {b:x} {d:x}" for a, b, d in zip(s.tolist(), t.tolist(), c.tolist()))
    out = subprocess.run([str(exe)], input=text, capture_output=True, text=True, check=True)
    got = np.array([[int(v, 16) for v in line.split()] for line in out.stdout.splitlines()],
                   dtype=U64)
    assert got.shape == (s.size, 10)
    np.testing.assert_array_equal(got[: len(kat), :4], kat[:, 6:])
    cw = np.stack([c & U64(M32), c >> U64(32), t & U64(M32), t >> U64(32)], 1).astype(np.uint32)
    np.testing.assert_array_equal(got[:, :4], rng.philox4x32_10(cw, s & U64(M32), s >> U64(32)))
    u0, u1 = rng.philox_uniform2(s, t, c)
    z0, z1 = rng.philox_normal2(s, t, c)
    for j, want in zip(range(4, 10), (u0, u0, u1, z0, z0, z1)):
        np.testing.assert_array_equal(got[:, j], bits(want))


def test_header_constants_match_host_table():
    text = (include_dir() + "/xstride/random.cuh")
    body = open(text).read()
    for name, lit in H.CONSTANTS.items():
        assert lit in body or lit.lstrip("-") in body, name
    # every hex literal of the header is one of the host constants (no stray value)
    lits = set(re.findall(r"-?0x[0-9a-f]\.[0-9a-f]+p[-+]\d+", body))
    known = set(H.CONSTANTS.values())
    assert lits <= known | {"0x1p-53", "0x1p-51"}, lits - known


# ------------------------------------------------------------------ the CUDA kernel, emulated
SHIM = r"""
struct xs_dim3 { unsigned int x, y, z; };
static xs_dim3 threadIdx, blockIdx, blockDim, gridDim;
extern "C" void xs_set(unsigned bx, unsigned tx, unsigned bd, unsigned gd) {
    blockIdx.x = bx; threadIdx.x = tx; blockDim.x = bd; gridDim.x = gd;
    blockIdx.y = threadIdx.y = 0; blockDim.y = gridDim.y = 1;   /* one-dimensional */
}
#define XS_ON_REQUEST extern "C"
#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(n)
static inline unsigned long long atomicAdd(unsigned long long* p, unsigned long long v) {
    unsigned long long old = *p; *p += v; return old;
}
struct double2 { double x, y; };
static inline double2 make_double2(double x, double y) { double2 r = {x, y}; return r; }
"""


@pytest.fixture(scope="module")
def emulated(tmp_path_factory):
    cxx = shutil.which("g++")
    if cxx is None:
        pytest.skip("no C++ compiler")
    d = tmp_path_factory.mktemp("kern")
    (d / "k.cpp").write_text(SHIM + source(K.SOURCE_FILE))
    subprocess.run([cxx, "-std=c++17", "-O1", "-fPIC", "-shared", "-ffp-contract=off",
                    "-I", include_dir(), str(d / "k.cpp"), "-o", str(d / "k.so")],
                   check=True, capture_output=True)
    lib = ctypes.CDLL(str(d / "k.so"))

    def to_c(a):
        if isinstance(a, np.ndarray):
            return ctypes.c_void_p(a.ctypes.data)
        return {np.uint64: ctypes.c_uint64, np.int64: ctypes.c_int64, np.int32: ctypes.c_int32,
                np.uint32: ctypes.c_uint32}[type(a)](a)

    def launch(name, args, grid=3, block=5):
        fn = getattr(lib, name)
        cargs = [to_c(a) for a in args]
        for bx in range(grid):
            for tx in range(block):
                lib.xs_set(bx, tx, block, grid)
                fn(*cargs)

    return launch


def _run_fast(launch, name, n, seed, stream, ctr, start, nout=2, grid=3, block=5):
    outs = [np.full(n, np.nan) for _ in range(nout)]
    ptr = ctr if ctr is not None else outs[0]
    launch(name, [outs[0], outs[-1], np.int64(n), np.uint64(seed), np.uint64(stream), ptr,
                  np.uint64(start)], grid=grid, block=block)
    return outs


@pytest.mark.parametrize("n", [1, 2, 29, 30, 31, 200])
def test_fast_kernels_emulated_on_cpu(emulated, n):
    """The scalar-seed fast kernels (dense and affine counters), with grid x block x
    unroll smaller and larger than n (so the grid-stride loop and the tails run)."""
    rs = np.random.default_rng(n)
    c = rand_u64(rs, n)
    c[: min(n, 3)] = [2**64 - 1, 2**32 - 1, 0][: min(n, 3)]
    seed, stream = 0xFFFFFFFF00000007, 2**63 + 11
    start = 2**32 - 7
    for kind in ("uniform", "uniform2", "normal", "normal2"):
        want = getattr(H, kind)(seed, stream, c, (n,))
        want_aff = getattr(H, kind)(seed, stream, H.Affine(start), (n,))
        want = want if isinstance(want, tuple) else (want,)
        want_aff = want_aff if isinstance(want_aff, tuple) else (want_aff,)
        for cm, ctr, st, ref in ((1, c, 0, want), (3, None, start, want_aff)):
            got = _run_fast(emulated, f"xstride_philox_{kind}_f{cm}", n, seed, stream, ctr, st)
            for g, w in zip(got, ref):
                np.testing.assert_array_equal(bits(g), bits(w), err_msg=f"{kind} cm={cm}")
    for kind, (name, _) in K._PAIRS.items():
        want = H.pairs(kind, seed, stream, start, n)
        for grid, block in ((1, 1), (3, 5)):
            got = _run_fast(emulated, name, n, seed, stream, None, start, nout=1, grid=grid,
                            block=block)[0]
            np.testing.assert_array_equal(bits(got), bits(want), err_msg=name)


@pytest.mark.parametrize("rows, cols, grid, block", [
    (1, 1, 1, 1), (7, 3, 2, 5), (50, 3, 3, 5), (41, 5, 2, 8), (9, 63, 2, 16),
    (3, 2, 4, 4),   # more blocks than steps
])
def test_grid_kernels_short_rows_emulated_on_cpu(emulated, rows, cols, grid, block):
    """The grid kernels' short-row path (xs_grid2_rows): a (rows, 1) counter column
    and a (1, cols) stream row, as the demo's (n, 3) positions; grids smaller and larger
    than the steps, rows that end inside a step."""
    rs = np.random.default_rng(rows * 100 + cols)
    ctr = rand_u64(rs, rows).reshape(rows, 1)
    ctr[0, 0] = 2**64 - 1
    streams = rand_u64(rs, cols).reshape(1, cols)
    seed = 2**63 + 5
    dummy = np.zeros(1, U64)
    for kind in ("uniform", "uniform2", "normal", "normal2"):
        want = getattr(H, kind)(seed, streams, ctr, (rows, cols))
        want = want if isinstance(want, tuple) else (want,)
        outs = [np.full(rows * cols, np.nan) for _ in range(2)]
        # out0, out1, R, C; seed (scalar), stream p[j], counter p[r]
        emulated(f"xstride_philox_{kind}_g2",
                 [outs[0], outs[1], np.int64(rows), np.int64(cols),
                  dummy, np.uint64(seed), np.int64(0), np.int64(0), np.int32(0),
                  streams, np.uint64(0), np.int64(0), np.int64(1), np.int32(1),
                  ctr, np.uint64(0), np.int64(1), np.int64(0), np.int32(1)],
                 grid=grid, block=block)
        for g, w in zip(outs, want):
            np.testing.assert_array_equal(bits(g), bits(w.ravel()), err_msg=kind)


@pytest.mark.parametrize("cols, short", [
    (1, True), (3, True), (63, True), (64, True), (100, True), (128, True), (129, True),
    (600, False), (1000, True), (1023, True), (1024, False), (5000, False),
])
def test_grid_kernels_take_the_way_that_fills_more_lanes(cols, short):
    """``_grid2_geometry``: the short-row way (one-dimensional blocks of more than C / 4
    lanes, philox.cu's ``xs_grid2_rows``) where a lane a column would leave more of a
    step's slots empty; otherwise two-dimensional blocks, or one block."""
    for rows in (1, 7, 2**28):
        grid, block = K._grid2_geometry(rows, cols, 132)
        takes_rows = len(block) == 1 and len(grid) == 1
        assert takes_rows == (short and True), (rows, cols, grid, block)
        if takes_rows:
            assert cols < 4 * block[0] and grid[0] <= 8 * 132
        else:   # the kernel's test for the short-row way is false, or a single block
            bx, by = block
            gx, gy = grid
            assert by > 1 or gy > 1 or cols >= 4 * bx or (gx, gy) == (1, 1)


def _integers_first_reference(seed, stream, start, n, r, thresh):
    """Philox.integers' first round in Python ints: (values or None where rejected)."""
    ctr = [(start + i) % 2**64 for i in range(n)]
    cw = np.array([[c & M32, c >> 32, stream & M32, stream >> 32] for c in ctr], np.uint32)
    w = rng.philox4x32_10(cw, seed & M32, seed >> 32).astype(object)
    out = []
    for row in w:
        got = None
        for a, b in ((0, 1), (2, 3)):
            x = (int(row[a]) << 32) | int(row[b])
            if r == 2**64:
                got = x
                break
            if (x * r) % 2**64 >= thresh:
                got = (x * r) >> 64
                break
        out.append(got)
    return out


@pytest.mark.parametrize("r, cap", [(7, 50), (2**63 + 1, 50), (2**63 + 1, 3), (2**64, 50),
                                    (3 * 2**62, 50)])
def test_integers_first_round_emulated_on_cpu(emulated, r, cap):
    """``xstride_philox_integers_first``: each element's value where a candidate is
    accepted, the rejected elements counted, at most ``cap`` of their indices written
    (the device executor sorts them and runs again where ``cap`` was too small)."""
    seed, stream, start, n = 2**64 - 3, 2**40 + 9, 2**64 - 20, 50
    thresh = 0 if r == 2**64 else (2**64 - r) % r
    want = _integers_first_reference(seed, stream, start, n, r, thresh)
    out = np.zeros(n, U64)
    rej = np.full(n, -1, np.int64)
    count = np.zeros(1, U64)
    emulated("xstride_philox_integers_first",
             [out, np.int64(n), U64(seed), U64(stream), U64(start),
              U64(0 if r == 2**64 else r), U64(thresh), np.int32(r == 2**64), rej,
              np.int64(cap), count], grid=3, block=5)
    rejected = [i for i, v in enumerate(want) if v is None]
    assert int(count[0]) == len(rejected)
    written = rej[rej >= 0].tolist()
    if len(rejected) <= cap:
        assert sorted(written) == rejected
    else:
        assert len(written) == cap and set(written) <= set(rejected)
    for i, v in enumerate(want):
        if v is not None:
            assert int(out[i]) == v, i
    if r == 2**63 + 1:
        assert rejected   # the heavy-rejection case rejects some elements


def test_kernel_plan_modes():
    shape = (6, 10)
    c = np.zeros(shape, U64)
    modes, geo = P.plan([3, H.Affine(5), ((6, 10), (10, 1))], shape)
    assert [m[0] for m in modes] == [0, 3, 1] and modes[2][2] == 1 and geo == []
    modes, geo = P.plan([((6, 1), (1, 1)), ((1,), (1,)), ((6, 10), (-10, -1))], shape)
    assert [m[0] for m in modes] == [2, 1, 1] and modes[1][2] == 0 and modes[2][2] == -1
    assert geo == [6, 10, 1, 0, 0, 0, 0, 0]
    modes, _ = P.plan([((6, 10), (40, 4))], shape)  # counter words of a dense (..., 4)
    assert modes[0] == (1, 0, 4)
    del c


def test_grid2_folds_broadcasts_to_two_axes():
    """The device grid path: broadcast layouts that fold to rows x columns, with each
    argument's (row, column) element strides; layouts that do not fold give None."""
    # (R, 1) streams x (C,) counters, scalar seed
    assert P.grid2([7, ((4, 1), (1, 1)), ((5,), (1,))], (4, 5)) == (4, 5, [None, (1, 0), (0, 1)])
    # everything dense over (2, 3, 4): one row of 24
    d = ((2, 3, 4), (12, 4, 1))
    assert P.grid2([d, d, 3], (2, 3, 4)) == (1, 24, [(0, 1), (0, 1), None])
    # (2, 1, 4) streams over a (2, 3, 4) output do not fold the middle axis away
    assert P.grid2([1, ((2, 1, 4), (4, 4, 1)), ((2, 3, 4), (12, 4, 1))], (2, 3, 4)) is None
    # (3, 4) counters under (2, 3, 4): rows of 12, counters repeat every row
    assert P.grid2([1, 2, ((3, 4), (4, 1))], (2, 3, 4)) == (2, 12, [None, None, (0, 1)])
    # size-1 axes are dropped; a reversed array keeps its negative strides
    assert P.grid2([((1, 6), (6, -1)), 0, 0], (1, 6)) == (1, 6, [(0, -1), None, None])
    # Affine counters are the fast kernels' business
    assert P.grid2([1, 2, H.Affine(3)], (5,)) is None
    # 0-d output
    assert P.grid2([1, 2, 3], ()) == (1, 1, [None, None, None])


def _grid2_case(rs):
    """Random output shape and three sources: ints or views (transposed, sliced with
    steps of +-1/+-2, size-1 and missing leading axes, a real zero stride) of an
    ``arange`` buffer, so an element's value is its index in the buffer. Returns
    ``(shape, sources for grid2, [(view, buffer) or None])``."""
    nd = int(rs.integers(0, 6))
    shape = tuple(int(rs.choice([0, 1, 2, 3, 4])) if rs.random() < 0.05 else
                  int(rs.choice([1, 1, 2, 3, 4])) for _ in range(nd))
    srcs, views = [], []
    for _ in range(3):
        if rs.random() < 0.2:
            srcs.append(int(rs.integers(0, 2**64, dtype=U64)))
            views.append(None)
            continue
        k = int(rs.integers(0, nd + 1))
        ashape = [1 if rs.random() < 0.3 else s for s in shape[nd - k:]]
        steps = [int(rs.choice([1, 2, -1, -2])) for _ in ashape]
        big = [s * abs(st) + int(rs.integers(0, 2)) for s, st in zip(ashape, steps)]
        perm = rs.permutation(len(big))
        buf = np.arange(math.prod(big), dtype=np.int64)
        v = buf.reshape([big[p] for p in perm]).transpose(np.argsort(perm))
        v = v[tuple(slice(None, None, st) for st in steps) + (Ellipsis,)]  # 0-d stays a view
        v = v[tuple(slice(0, s) for s in ashape) + (Ellipsis,)]
        if v.ndim and rs.random() < 0.1:
            v = np.lib.stride_tricks.as_strided(v[..., :1], v.shape, v.strides[:-1] + (0,))
        assert v.shape == tuple(ashape) and (v.size == 0 or np.shares_memory(v, buf))
        srcs.append((v.shape, tuple(s // 8 for s in v.strides)))
        views.append((v, buf))
    return shape, srcs, views


def test_grid2_brute_force_against_broadcast_views():
    """Every fold grid2 returns addresses exactly the elements of the broadcast view, in
    C order (checked through an ``arange`` buffer, so equal values mean equal elements);
    and grid2 says None only when no R x C affine layout reads all sources."""
    rs = np.random.default_rng(20261130)
    folded = refused = 0
    for _ in range(4000):
        shape, srcs, views = _grid2_case(rs)
        n = math.prod(shape)
        got = P.grid2(srcs, shape)
        if got is None:
            refused += 1
            # buffer indices of the broadcast view's elements, in C order
            offsets = [None if w is None else np.broadcast_to(w[0], shape).reshape(-1)
                       for w in views]
            for R in (r for r in range(1, n + 1) if n % r == 0):
                C = n // R
                fits = True
                for o in offsets:
                    if o is None:
                        continue
                    g = o.reshape(R, C).astype(np.int64)
                    rs_ = g[1, 0] - g[0, 0] if R > 1 else 0
                    cs_ = g[0, 1] - g[0, 0] if C > 1 else 0
                    fits &= np.array_equal(g, g[0, 0] + rs_ * np.arange(R)[:, None]
                                           + cs_ * np.arange(C))
                assert not fits, (shape, srcs, R, C)
            continue
        folded += 1
        R, C, sts = got
        assert R * C == n and (R >= 1 and C >= 1 or n == 0), (shape, srcs, got)
        for w, st in zip(views, sts):
            if w is None:
                assert st is None
                continue
            v, buf = w
            if n == 0:
                continue
            idx = int(v.reshape(-1)[0]) + st[0] * np.arange(R)[:, None] + st[1] * np.arange(C)
            assert idx.min() >= 0 and idx.max() < buf.size, (shape, v.strides, got)
            np.testing.assert_array_equal(buf[idx.reshape(-1)],
                                          np.broadcast_to(v, shape).reshape(-1),
                                          err_msg=f"shape {shape}, source {v.shape}, {got}")
    assert folded > 2000 and refused > 100
