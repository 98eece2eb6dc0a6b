"""Philox and Morton launch through xstride/_kernels/_launch.py: on the shared stand-in
CuPy (tests/conftest.py) with a stand-in driver that reads the parameter array the way
``cuLaunchKernel`` does and runs the kernel source (``philox.cu``, ``morton.cu``,
compiled for the CPU by g++ with a small shim) on those bytes. Device pointers are host
addresses there, so the emulated kernels read the inputs and write the outputs; the
results must equal the host executors' bit for bit. Also checked: each launch is built
once per key (kind, shape, layouts, device, stream) and later calls only set the slots;
the ``RawKernel.__call__`` fallback runs the same kernels on the same values.

What this cannot show (test_rng_gpu.py, test_morton_gpu.py on a device do): NVRTC's
code, the driver itself, and the shared-memory rows kernel of the Morton keys (its
block-wide ``__syncthreads`` has no sequential emulation; its arguments are checked).
"""

from __future__ import annotations

import ctypes
import re
import shutil
import struct
import subprocess
import types

import numpy as np
import pytest

import xstride as xp
import xstride._kernels._reduce_common as _rc
from xstride import algorithms as alg
from xstride._host import morton as HM
from xstride._host import philox as H
from xstride._kernels import _launch
from xstride._kernels import morton as M
from xstride._kernels import philox as K
from xstride._kernels._compile import include_dir, source
from xstride._kernels._lru import Bounded
from xstride._kernels._prepared import GATE, Store
from xstride._plans.philox import Affine

from tests.conftest import FakeCupyArray

U64 = np.uint64

SHIM = r"""
#include <math.h>
struct xs_dim3 { unsigned int x, y, z; };
static xs_dim3 threadIdx, blockIdx, blockDim, gridDim;
extern "C" void xs_set(unsigned bx, unsigned by, unsigned tx, unsigned ty,
                       unsigned bdx, unsigned bdy, unsigned gdx, unsigned gdy) {
    blockIdx.x = bx; blockIdx.y = by; threadIdx.x = tx; threadIdx.y = ty;
    blockDim.x = bdx; blockDim.y = bdy; gridDim.x = gdx; gridDim.y = gdy;
    blockIdx.z = threadIdx.z = 0; blockDim.z = gridDim.z = 1;
}
#define XS_ON_REQUEST extern "C"
#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(n)
static inline unsigned long long atomicAdd(unsigned long long* p, unsigned long long v) {
    unsigned long long old = *p; *p += v; return old;
}
#define __host__
#define __shared__ static
#define __syncthreads()
struct double2 { double x, y; };
struct float4 { float x, y, z, w; };
struct float2 { float x, y; };
static inline double2 make_double2(double x, double y) { double2 r = {x, y}; return r; }
static inline unsigned long long atomicMin(unsigned long long* p, unsigned long long v) {
    unsigned long long old = *p; if (v < old) *p = v; return old;
}
"""

# parameter kinds: P pointer, Q unsigned long long, q long long, i int, d double
_CT = {"P": ctypes.c_void_p, "Q": ctypes.c_uint64, "q": ctypes.c_int64, "i": ctypes.c_int32,
       "d": ctypes.c_double}
_FMT = {"P": "<Q", "Q": "<Q", "q": "<q", "i": "<i", "d": "<d"}


def signature(name: str) -> str:
    """The C parameter list of a kernel of philox.cu / morton.cu, written out here from
    the sources (one letter per parameter)."""
    if name == "xstride_philox_words_k":
        return "Pq" + "PQqi" * 6 + "iP"
    if name.startswith("xstride_philox_") and name.endswith("_k"):
        return "PPq" + "PQqi" * 3 + "iP"
    if name.startswith("xstride_philox_") and name.endswith("_g2"):
        return "PPqq" + "PQqqi" * 3
    if name.startswith("xstride_philox_"):            # fast and pairs kernels
        return "PPqQQPQ"
    nd = int(name.split("_")[2][-1])
    if name.startswith("xstride_morton_keys"):
        return "Pqqq" + "d" * (2 * nd) + "iPP"
    if name.startswith("xstride_morton_rows"):
        return "Pq" + "d" * (2 * nd) + "iPP"
    if name.startswith("xstride_morton_encode"):
        return "P" * nd + "qP"
    if name.startswith("xstride_morton_decode"):
        return "PqP"
    raise AssertionError(name)


def _compile(tmp, name, file):
    cxx = shutil.which("g++")
    if cxx is None:
        pytest.skip("no C++ compiler")
    (tmp / f"{name}.cpp").write_text(SHIM + source(file))
    subprocess.run([cxx, "-std=c++17", "-O1", "-fPIC", "-shared", "-ffp-contract=off",
                    "-I", include_dir(), str(tmp / f"{name}.cpp"), "-o", str(tmp / f"{name}.so")],
                   check=True, capture_output=True)
    return ctypes.CDLL(str(tmp / f"{name}.so"))


@pytest.fixture(scope="module")
def libs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("emu")
    return {K.SOURCE_FILE: _compile(tmp, "philox", K.SOURCE_FILE),
            M._SOURCE: _compile(tmp, "morton", M._SOURCE)}


class Emulator:
    """The compiled kernels (the stand-in ``function`` of philox.py and morton.py) and
    the driver: ``launchKernel`` reads ``len(signature)`` parameters of the kernel's
    sizes from the ``void*`` array and runs every (block, thread) in turn."""

    def __init__(self, libs):
        self.libs, self.by_ptr, self.kernels, self.calls = libs, {}, {}, []
        self.built = []     # (name, file) of every kernel the executors asked for

    def kernel(self, name, file):
        """The stand-in of ``_compile.kernel``: the emulated kernel ``name`` of ``file``
        (declared ``XS_ON_REQUEST``, which the shim makes ``extern "C"``)."""
        assert file in self.libs, (name, file)
        self.built.append((name, file))
        if name not in self.kernels:
            k = types.SimpleNamespace(name=name, file=file)
            k.kernel = types.SimpleNamespace(ptr=0x1000 + len(self.kernels))
            self.kernels[name] = k
            self.by_ptr[k.kernel.ptr] = k
        return self.kernels[name]

    def run(self, k, grid, block, values):
        sig = signature(k.name)
        fn = getattr(self.libs[k.file], k.name)
        fn.argtypes = [_CT[c] for c in sig]
        fn.restype = None
        cargs = [_CT[c](v) for c, v in zip(sig, values)]
        (gx, gy), (bx, by) = grid[:2], block[:2]
        setter = self.libs[k.file].xs_set
        for yb in range(gy):
            for xb in range(gx):
                for yt in range(by):
                    for xt in range(bx):
                        setter(xb, yb, xt, yt, bx, by, gx, gy)
                        fn(*cargs)

    def launchKernel(self, f, gx, gy, gz, bx, by, bz, smem, stream, params, extra):  # noqa: N802
        k = self.by_ptr[f]
        sig = signature(k.name)
        arr = (ctypes.c_void_p * len(sig)).from_address(params)
        values = [struct.unpack(_FMT[c], ctypes.string_at(arr[i], struct.calcsize(_FMT[c])))[0]
                  for i, c in enumerate(sig)]
        assert gz == bz == 1 and smem == 0 and extra == 0
        self.calls.append((k.name, (gx, gy), (bx, by), stream, values))
        self.run(k, (gx, gy), (bx, by), values)


class _Fallback:
    """A kernel without a driver handle: Launch calls it as RawKernel.__call__."""

    def __init__(self, emu, k):
        self.emu, self.k, self.kernel = emu, k, types.SimpleNamespace()

    def __call__(self, grid, block, args, shared_mem=0):
        sig = signature(self.k.name)
        assert len(args) == len(sig) and shared_mem == 0
        for c, a in zip(sig, args):   # NumPy values of the parameter's size
            assert isinstance(a, np.generic) and a.itemsize == struct.calcsize(_FMT[c]), \
                (self.k.name, c, type(a))
        values = [struct.unpack(_FMT[c], a.tobytes())[0] for c, a in zip(sig, args)]
        grid = tuple(grid) + (1,) * (2 - len(grid))
        block = tuple(block) + (1,) * (2 - len(block))
        self.emu.calls.append((self.k.name, grid, block, None, values))
        self.emu.run(self.k, grid, block, values)


@pytest.fixture(params=["driver", "fallback"])
def emu(request, fake_cupy, libs, monkeypatch):
    """The stand-in CuPy (few SMs, so grids stay small) with the emulated kernels behind
    philox.py and morton.py, and empty launch caches; ``driver``: launches through
    cuLaunchKernel's parameter array, ``fallback``: through RawKernel.__call__."""
    e = Emulator(libs)
    fake_cupy.multiprocessors = 1
    fake_cupy.current.stream = types.SimpleNamespace(ptr=5)
    fake_cupy.cuda.driver = e
    kernel = e.kernel
    if request.param == "fallback":
        def kernel(name, file):  # noqa: F811 - the fallback's kernel objects
            return _Fallback(e, e.kernel(name, file))
    monkeypatch.setattr(K, "kernel", kernel)
    monkeypatch.setattr(M, "kernel", kernel)
    monkeypatch.setattr(K, "_LAUNCHES", Bounded(512))
    monkeypatch.setattr(M, "_LAUNCHES", Bounded(256))
    monkeypatch.setattr(K, "_CALLS", Store(512))
    monkeypatch.setattr(K, "_CUR", (None, None))
    monkeypatch.setattr(GATE, "nd", None)              # restored after the test
    monkeypatch.setattr(GATE, "getdev", GATE.getdev)
    GATE.close()
    _rc._sm_count.cache_clear()
    e.cupy, e.mode = fake_cupy, request.param
    yield e
    _rc._sm_count.cache_clear()
    for prep in list(K._LAUNCHES.values()) + list(M._LAUNCHES.values()):
        launch = prep if isinstance(prep, _launch.Launch) else prep.launch
        name = getattr(launch.kernel, "name", None) or launch.kernel.k.name
        sizes = [ctypes.sizeof(o) if not isinstance(o, ctypes.Array) else -1
                 for o in launch.objs]
        assert sizes == [struct.calcsize(_FMT[c]) for c in signature(name)], name


def dev(a, device=0):
    """A stand-in device array on ``device`` holding a copy of ``a`` (any strides kept:
    a view of a fresh buffer)."""
    a = np.asarray(a)
    if a.base is None:
        return FakeCupyArray(a.copy(order="K"), device=device)
    assert a.base.flags.c_contiguous or a.base.flags.f_contiguous
    base = FakeCupyArray(a.base.copy(order="K"), device=device)   # the base's strides
    off = a.__array_interface__["data"][0] - a.base.__array_interface__["data"][0]
    view = np.ndarray(a.shape, a.dtype, base.host.data, off, a.strides)
    return base._view(view)


def bits(x):
    return np.asarray(x.host if isinstance(x, FakeCupyArray) else x).view(U64)


def rand_u64(rs, *shape):
    return rs.integers(0, 2**64, size=shape, dtype=U64, endpoint=False)


# ------------------------------------------------------------------ Philox
def _cases():
    rs = np.random.default_rng(4)
    c = rand_u64(rs, 6, 10)
    c[0, :3] = [2**64 - 1, 2**32 - 1, 0]
    st = rand_u64(rs, 6, 1)
    yield "flat", [2**63 + 1, 2**33 + 7, c], (6, 10), "_f1"
    yield "affine", [9, 4, Affine(2**64 - 37)], (37,), "_f3"
    yield "grid", [rand_u64(rs, 6)[:, None], st, rand_u64(rs, 10)], (6, 10), "_g2"
    yield "broadcast", [rand_u64(rs, 6, 1), rand_u64(rs, 10), c.T.copy().T], (6, 10), "_g2"
    yield "reversed", [c[::-1, ::2], 5, c[:, 1::2]], (6, 5), "_g2"
    yield "strided", [c[:, None, ::5], 3, rand_u64(rs, 3, 1)], (6, 3, 2), "_k"
    yield "size1", [np.array([[2**64 - 1]], U64), 0, c[0]], (1, 10), "_g2"
    # a lane a column (600 columns: 600 of 640 slots of a step; rows of a block step: 600
    # of 1024), then rows of a block step again (130 columns: 910 of 1024 against 130 of 256)
    yield "wide", [rand_u64(rs, 3, 1), 7, rand_u64(rs, 600)], (3, 600), "_g2"
    yield "rows130", [rand_u64(rs, 5, 1), rand_u64(rs, 130), 11], (5, 130), "_g2"


CASES = list(_cases())


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("fast", [True, False])
def test_real_kinds_match_the_host(emu, case, fast):
    _, vals, shape, family = case
    dvals = [v if isinstance(v, (int, Affine)) else dev(v) for v in vals]
    for kind in ("uniform", "uniform2", "normal", "normal2"):
        got = K._real(kind, *dvals, shape, fast=fast)
        want = getattr(H, kind)(*vals, shape)
        got = got if isinstance(got, tuple) else (got,)
        want = want if isinstance(want, tuple) else (want,)
        for g, w in zip(got, want):
            assert g.shape == shape
            np.testing.assert_array_equal(bits(g), bits(w), err_msg=f"{kind} {emu.mode}")
        name = emu.calls[-1][0]
        assert name.startswith(f"xstride_philox_{kind}_")
        assert name.endswith(family if fast else "_k"), name


def test_pairs_match_the_host(emu):
    seed, stream, start = 0xFFFFFFFF00000007, 2**63 + 11, 2**64 - 150
    for kind, (name, _) in K._PAIRS.items():
        for n in (1, 2, 31, 300):
            got = K.pairs(kind, seed, stream, start, n)
            np.testing.assert_array_equal(bits(got), bits(H.pairs(kind, seed, stream, start, n)),
                                          err_msg=f"{name} n={n}")
            assert emu.calls[-1][0] == name


def test_words_match_the_host(emu):
    rs = np.random.default_rng(6)
    cw = rs.integers(0, 2**32, (50, 4), dtype=np.uint32)
    k0 = rs.integers(0, 2**32, 50, dtype=np.uint32)
    k1 = rs.integers(0, 2**32, 50, dtype=np.uint32)
    wide = rs.integers(0, 2**32, (3, 1, 8), dtype=np.uint32)
    for words, key0, key1, shape in (
            (cw, k0, k1, (50,)),
            (np.asfortranarray(cw), k1[::-1], 2**32 - 1, (50,)),     # strided words, int key
            (wide[..., ::2], 7, k0[:5], (3, 5)),                     # broadcast words
            (cw[0], k0[:, None][:7], k1[:3], (7, 3))):               # one counter, keys 2-D
        dk = [k if isinstance(k, int) else dev(k) for k in (key0, key1)]
        got = K.words(dev(words), *dk, shape)
        want = H.words(words, key0, key1, shape, native=False)
        assert got.shape == shape + (4,)
        np.testing.assert_array_equal(got.host, want)


def test_a_launch_is_built_once_and_calls_set_only_the_slots(emu):
    """Equal types and layouts: one prepared launch; each call passes its own output
    and argument addresses and scalar values, the fixed parameters unchanged."""
    rs = np.random.default_rng(8)
    a, b = rand_u64(rs, 4, 6), rand_u64(rs, 4, 6)
    built = len(emu.built)
    outs = [K.uniform(s, 3, dev(c), (4, 6)) for s, c in ((1, a), (2**64 - 1, b))]
    assert len(K._LAUNCHES) == 1 and len(emu.built) == built + 1   # one function lookup
    (n0, g0, b0, s0, v0), (n1, g1, b1, s1, v1) = emu.calls[-2:]
    assert (n0, g0, b0) == (n1, g1, b1) == ("xstride_philox_uniform_f1", (1, 1), (256, 1))
    # out0, out1 (the same), n, seed, stream, counter address, start
    assert v0[:2] == [outs[0].data.ptr] * 2 and v1[:2] == [outs[1].data.ptr] * 2
    assert v0[2] == v1[2] == 24 and (v0[3], v1[3]) == (1, 2**64 - 1) and v0[4] == v1[4] == 3
    assert v0[5] != v1[5] and v0[6] == v1[6] == 0
    for o, s, c in zip(outs, (1, 2**64 - 1), (a, b)):
        np.testing.assert_array_equal(bits(o), bits(H.uniform(s, 3, c, (4, 6))))
    if emu.mode == "driver":
        assert s0 == s1 == 5                                    # the current stream
    # the general kernel holds a geometry array: one launch per stream and device
    x = rand_u64(rs, 4, 7)[:, ::2]           # strided (mode 2): a geometry array
    y = dev(rand_u64(rs, 4))
    for counter in (0, 1):
        K._real("uniform", dev(x), y, counter, (4, 4), fast=False)
    assert len(K._LAUNCHES) == 2
    emu.cupy.current.stream = types.SimpleNamespace(ptr=6)
    K._real("uniform", dev(x), y, 1, (4, 4), fast=False)
    emu.cupy.current.device = 1
    got = K._real("uniform", dev(x, 1), dev(y.host, 1), 1, (4, 4), fast=False)
    np.testing.assert_array_equal(bits(got), bits(H.uniform(x, y.host, 1, (4, 4))))
    assert len(K._LAUNCHES) == 4
    names = [c[0] for c in emu.calls[-4:]]
    assert names == ["xstride_philox_uniform_k"] * 4
    geos = [c[4][-1] for c in emu.calls[-4:]]
    assert geos[0] == geos[1] != geos[2] != geos[3] and 0 not in geos
    # one repeated pairs call: one launch, the start slot set per call
    K.pairs("uniform", 1, 2, 10, 64)
    K.pairs("uniform", 1, 2, 42, 64)
    assert len(K._LAUNCHES) == 5 and [c[4][6] for c in emu.calls[-2:]] == [10, 42]


def test_general_kernel_without_strided_arguments_passes_no_geometry(emu):
    c = dev(rand_u64(np.random.default_rng(2), 5))
    K._real("normal", 1, 2, c, (5,), fast=False)
    values = emu.calls[-1][4]
    # out0, out1, n, 3 x (address, scalar, lin, mode), ndim, geo
    assert values[2] == 5 and values[3:15:4] == [values[0]] * 2 + [c.data.ptr]
    assert values[4:15:4] == [1, 2, 0] and values[6:15:4] == [0, 0, 1]
    assert values[15:] == [0, 0]


# ------------------------------------------------------------------ Morton
def _points(n, ndim, dtype, seed=1):
    p = np.random.default_rng(seed).uniform(-0.2, 1.2, (n, ndim)).astype(dtype)
    p[:4] = [[1.0] * ndim, [0.0] * ndim, [0.5] * ndim, [0.999] * ndim]
    return p


@pytest.mark.parametrize("ndim", [2, 3])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_morton_keys_strided_match_the_host(emu, ndim, dtype):
    lower, upper = [0.0, 1.0, 0.0][:ndim], [1.0, 0.0, 0.75][:ndim]
    pts = _points(600, ndim, dtype)
    wide = np.zeros((600, 5), dtype)
    wide[:, 1:1 + ndim] = pts
    for levels in (3, alg.MAX_MORTON_LEVELS[ndim]):
        scales = alg.morton_scales(lower, upper, levels)
        want = alg.morton_keys(pts, lower, upper, levels)
        suffix = "f64" if dtype == np.float64 else "f32"
        for view in (pts, wide[:, 1:1 + ndim], pts[::-1]):
            got, bad = M.keys(dev(view), np.asarray(lower), scales, levels, method="strided")
            assert bad == -1
            np.testing.assert_array_equal(got.host, alg.morton_keys(view, lower, upper, levels))
            assert emu.calls[-1][0] == f"xstride_morton_keys{ndim}_{suffix}"
        np.testing.assert_array_equal(got.host, want[::-1])
    bad_pts = pts.copy()
    bad_pts[321, ndim - 1] = np.nan
    bad_pts[400, 0] = np.inf
    scales = alg.morton_scales(lower, upper, 5)
    assert M.keys(dev(bad_pts), np.asarray(lower), scales, 5, method="strided")[1] == 321


def test_morton_launches_are_reused_with_new_bounds(emu):
    """One launch per (kernel, n, layout, levels, device): other bounds and addresses
    fill the double and pointer slots."""
    pts = _points(512, 3, np.float64)
    for lower, upper in (([0, 0, 0], [1, 1, 1]), ([-0.5, 0.25, 0], [2, 1, 0.5])):
        lo = np.asarray(lower, np.float64)
        scales = alg.morton_scales(lower, upper, 10)
        d = dev(pts)
        out = emu.cupy.empty(512, np.uint64)
        badflag = emu.cupy.full(1, 2**64 - 1, np.uint64)
        if emu.mode == "driver":   # the rows kernel: arguments only (no emulation)
            emu.run = lambda *a: None
            M.launch(d, lo, scales, 10, out, badflag, method="rows")
            name, grid, block, _, values = emu.calls[-1]
            assert (name, grid, block) == ("xstride_morton_rows3_f64", (1, 1), (256, 1))
            assert values == [d.data.ptr, 512, *lo.tolist(), *np.asarray(scales).tolist(), 10,
                              out.data.ptr, badflag.data.ptr]
            del emu.run
        M.launch(d, lo, scales, 10, out, badflag, method="strided")
        values = emu.calls[-1][4]
        assert values[:4] == [d.data.ptr, 512, 3, 1]
        assert values[4:10] == [*lo.tolist(), *np.asarray(scales).tolist()]
        np.testing.assert_array_equal(out.host, alg.morton_keys(pts, lower, upper, 10))
    assert len(M._LAUNCHES) == (2 if emu.mode == "driver" else 1)
    M.launch(dev(pts), lo, scales, 11, emu.cupy.empty(512, np.uint64), badflag,
             method="strided")
    assert len(M._LAUNCHES) == (3 if emu.mode == "driver" else 2)     # levels is fixed


@pytest.mark.parametrize("ndim", [2, 3])
def test_morton_encode_decode_match_the_host(emu, ndim):
    rs = np.random.default_rng(ndim)
    cells = [rs.integers(0, 2**(64 // ndim), (7, 9), dtype=U64) for _ in range(ndim)]
    cells[0] = cells[0].T.copy().T                 # a Fortran-ordered input
    got = M.encode([dev(c) for c in cells])
    want = HM.encode(cells)
    np.testing.assert_array_equal(got.host, want)
    assert emu.calls[-1][0] == f"xstride_morton_encode{ndim}_u64"
    back = M.decode(dev(want[:, ::2]), ndim)
    np.testing.assert_array_equal(back.host, HM.decode(want[:, ::2], ndim))
    assert emu.calls[-1][0] == f"xstride_morton_decode{ndim}_u64"
    M.encode([dev(c) for c in cells])
    assert len(M._LAUNCHES) == 2


# ------------------------------------------------ byte strides of partial elements
@pytest.fixture
def no_launch(fake_cupy, monkeypatch):
    """The Philox executor on the stand-in with empty caches; every kernel lookup and
    launch is recorded (none may happen in these tests)."""
    monkeypatch.setattr(K, "_LAUNCHES", Bounded(256))
    monkeypatch.setattr(K, "_CALLS", Store(512))
    monkeypatch.setattr(GATE, "nd", None)
    monkeypatch.setattr(GATE, "getdev", GATE.getdev)
    done = []
    monkeypatch.setattr(K, "kernel", lambda name, file: done.append(name))
    monkeypatch.setattr(_launch.Launch, "__call__", lambda self, *a, **k: done.append(self))
    return fake_cupy, done


def _odd(host, shape, strides):
    """A stand-in CuPy array over ``host`` with these byte strides (``as_strided``)."""
    return FakeCupyArray(np.lib.stride_tricks.as_strided(host, shape, strides))


@pytest.mark.parametrize("kind", ["uniform", "uniform2", "normal", "normal2"])
@pytest.mark.parametrize("arg", ["seed", "stream", "counter"])
def test_a_stride_of_partial_elements_is_refused_before_anything_runs(no_launch, kind, arg):
    """``s // itemsize`` turned a uint64 array of 12-byte strides into element strides
    of 1: the kernels read elements 0, 1, 2 where the array holds the words at bytes
    0, 12, 24, without a word. Refused, naming the argument, before any allocation,
    kernel lookup or launch (the prepared call misses such a layout: never prepared)."""
    fake, done = no_launch
    host = np.arange(16, dtype=np.uint64)
    args = {"seed": 7, "stream": 0, "counter": FakeCupyArray(np.arange(3, dtype=np.uint64))}
    args[arg] = _odd(host, (3,), (12,))
    func = getattr(xp.rng, f"philox_{kind}")
    before = len(fake.allocations)
    with pytest.raises(ValueError, match=rf"^philox_{kind}: argument '{arg}' has byte strides "
                                         rf"\(12,\) that are not multiples of its item size 8 "
                                         rf"\(for shape \(3,\)\).*build the array from whole elements"):
        func(args["seed"], args["stream"], args["counter"])
    assert done == [] and len(fake.allocations) == before


def test_a_partial_stride_on_an_axis_of_one_element_is_read_as_it_is(no_launch):
    """A stride the kernels never step (an axis of extent 1) is no error."""
    fake, done = no_launch
    counter = _odd(np.arange(16, dtype=np.uint64), (1, 3), (12, 8))
    xp.rng.philox_uniform(7, 0, counter)
    assert done                              # looked up and launched


@pytest.mark.parametrize("arg, shape, strides", [
    ("counter_words", (2, 4), (16, 3)),     # words 3 bytes apart: misaligned reads
    ("counter_words", (2, 4), (18, 4)),     # rows 18 bytes apart
    ("key0", (2,), (6,)),
])
def test_philox4x32_10_refuses_partial_element_strides(no_launch, arg, shape, strides):
    fake, done = no_launch
    args = {"counter_words": FakeCupyArray(np.zeros((2, 4), dtype=np.uint32)), "key0": 1,
            "key1": 2}
    args[arg] = _odd(np.zeros(64, dtype=np.uint32), shape, strides)
    with pytest.raises(ValueError, match=rf"^philox4x32_10: argument '{arg}' has byte strides "
                                         rf"{re.escape(str(strides))} that are not multiples "
                                         "of its item size 4"):
        xp.rng.philox4x32_10(args["counter_words"], args["key0"], args["key1"])
    assert done == []
