"""CudaKernel and the shipped headers on a real device: a kernel per header, views of
every rank over strided CuPy arrays, atomics from many threads, structs by value, debug
mode catching an out-of-bounds index, and a header edit forcing a recompile."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import xstride.kernel_testing as kt
from xstride.cuda import CudaCompileError, CudaKernel, CudaStruct

pytestmark = pytest.mark.gpu


def _rng(seed):
    return np.random.default_rng(seed)


# ---------------------------------------------------------------- index.cuh
INDEX_SRC = r"""
#include <xstride/index.cuh>
extern "C" __global__ void fill1(long long* out, long long n) {
    XSTRIDE_KERNEL_1D(i, n);
    out[i] = 3 * i + 1;
}
extern "C" __global__ void fill2(long long* out, long long rows, long long cols) {
    XSTRIDE_KERNEL_2D(r, c, rows, cols);
    out[xstride_c_offset_2d(cols, r, c)] = 1000 * r + c;
}
extern "C" __global__ void fill3(long long* out, long long n0, long long n1, long long n2) {
    XSTRIDE_KERNEL_3D(i, j, k, n0, n1, n2);
    out[xstride_c_offset_3d(n1, n2, i, j, k)] = 10000 * i + 100 * j + k;
}
extern "C" __global__ void loop(long long* out, long long n) {
    XSTRIDE_GRID_STRIDE_LOOP(i, n) { out[i] += i; }
}
"""


def test_index_macros(cp):
    n = 1000
    out = cp.full(n + 5, -1, dtype=cp.int64)
    CudaKernel(INDEX_SRC, "fill1")(out, n, n_threads=n)
    ref = np.full(n + 5, -1)
    ref[:n] = 3 * np.arange(n) + 1
    np.testing.assert_array_equal(cp.asnumpy(out), ref)  # the early return held

    rows, cols = 37, 70
    out2 = cp.full((rows, cols), -1, dtype=cp.int64)
    CudaKernel(INDEX_SRC, "fill2", block=(32, 4))(out2, rows, cols, n_threads=(cols, rows))
    r, c = np.indices((rows, cols))
    np.testing.assert_array_equal(cp.asnumpy(out2), 1000 * r + c)

    shape = (5, 9, 13)
    out3 = cp.full(shape, -1, dtype=cp.int64)
    CudaKernel(INDEX_SRC, "fill3")(out3, *shape, n_threads=shape[::-1], block=(8, 4, 2))
    i, j, k = np.indices(shape)
    np.testing.assert_array_equal(cp.asnumpy(out3), 10000 * i + 100 * j + k)

    n = 100_003
    base = _rng(1).integers(-50, 50, n)
    acc = cp.asarray(base)
    CudaKernel(INDEX_SRC, "loop")(acc, n, grid=3, block=64)  # 192 threads cover n once
    np.testing.assert_array_equal(cp.asnumpy(acc), base + np.arange(n))


# ---------------------------------------------------------------- array_view.cuh
def _views_src(n: int) -> str:
    idx = ", ".join(f"ix[{d}]" for d in range(n))
    return textwrap.dedent(f"""
    #include <xstride/array_view.cuh>
    extern "C" __global__ void copy{n}(Array{n}D<const double> a, CArray{n}D<double> out,
                                       Array{n}D<double> back, long long size) {{
        XSTRIDE_GRID_STRIDE_LOOP(i, size) {{
            out[i] = 2.0 * a.at_flat(i) + 1.0;
            long long ix[{n}];
            xstride_unravel_index(i, {n}, a.shape, ix);
            back({idx}) = a({idx}) - out({idx});
        }}
    }}
    """)


def _strided(cp, n: int, seed: int):
    rng = _rng(seed)
    shape = [3 if d % 4 == 0 else 2 for d in range(n)]
    base = cp.asarray(rng.standard_normal(shape))
    sl = tuple(slice(None, None, -1) if d == 0 else slice(None, None, 2) if s == 3 else
               slice(None) for d, s in enumerate(shape))
    return base[sl].transpose(tuple(int(p) for p in rng.permutation(n)))


@pytest.mark.parametrize("n", range(1, 17))
def test_views_of_every_rank_over_strided_arrays(cp, n):
    if n >= 5 and not kt.high_dim_cuda_views_available():
        pytest.skip("views of 5+ dimensions unavailable here")
    a = _strided(cp, n, seed=n)
    assert not a.flags.c_contiguous or n == 1
    out = cp.full(a.shape, np.nan)
    big = cp.full(a.shape[:-1] + (2 * a.shape[-1],), np.nan)
    back = big[..., ::2][::-1]  # a strided, reversed output view
    k = CudaKernel(_views_src(n), f"copy{n}")
    k(a, out, back, a.size, grid=4, block=32)
    ha = cp.asnumpy(a)
    np.testing.assert_array_equal(cp.asnumpy(out), 2.0 * ha + 1.0)
    np.testing.assert_array_equal(cp.asnumpy(back), ha - (2.0 * ha + 1.0))
    hb = cp.asnumpy(big)
    assert np.isnan(hb[..., 1::2]).all()  # nothing outside the view was written


def test_view_rank_and_dtype_are_checked_on_cupy(cp):
    k = CudaKernel(_views_src(2), "copy2")
    a = cp.zeros((3, 4))
    with pytest.raises(TypeError, match="'a' has 3 dimensions"):
        k(cp.zeros((3, 4, 1)), a, a, 12, n_threads=12)
    with pytest.raises(TypeError, match="'a' has dtype float32"):
        k(a.astype(cp.float32), a, a, 12, n_threads=12)
    with pytest.raises(ValueError, match="'out' is not C-contiguous"):
        k(a, a.T.copy().T, a, 12, n_threads=12)
    with pytest.raises(TypeError, match="host memory"):
        k(cp.asnumpy(a), a, a, 12, n_threads=12)


# ---------------------------------------------------------------- atomic.cuh
ATOMIC_SRC = r"""
#include <xstride/atomic.cuh>
extern "C" __global__ void atoms(const double* w, double* dsum, float* fsum, int* isum,
                                 unsigned int* usum, long long* lsum,
                                 unsigned long long* counter, unsigned long long* olds,
                                 CArray2D<float> h2, CArray3D<int> h3, int* h2p, long long n) {
    XSTRIDE_GRID_STRIDE_LOOP(i, n) {
        xstride_atomic_add(&dsum[i % 7], w[i]);
        xstride_atomic_add(fsum, 1.0f);
        xstride_atomic_add(&isum[i % 5], (int)(i % 3) - 1);
        xstride_atomic_add(usum, 2u);
        xstride_atomic_add(lsum, -(long long)i);
        olds[i] = xstride_atomic_add(counter, 1ULL);
        xstride_atomic_add_at(h2, i % 3, i % 5, 1.0f);
        xstride_atomic_add_at(h3, i % 2, i % 3, i % 4, 2);
        xstride_atomic_add_2d(h2p, 5, i % 3, i % 5, 3);
    }
}
"""


def test_atomics_from_many_threads(cp):
    n = 1 << 18
    i = np.arange(n)
    w = _rng(3).standard_normal(n)
    dsum = cp.zeros(7)
    fsum = cp.zeros(1, cp.float32)
    isum = cp.zeros(5, cp.int32)
    usum = cp.zeros(1, cp.uint32)
    lsum = cp.zeros(1, cp.int64)
    counter = cp.zeros(1, cp.uint64)
    olds = cp.full(n, 2**64 - 1, dtype=cp.uint64)
    h2 = cp.zeros((3, 5), cp.float32)
    h3 = cp.zeros((2, 3, 4), cp.int32)
    h2p = cp.zeros((3, 5), cp.int32)
    CudaKernel(ATOMIC_SRC, "atoms")(cp.asarray(w), dsum, fsum, isum, usum, lsum, counter, olds,
                                    h2, h3, h2p, n, n_threads=n, block=256)
    np.testing.assert_allclose(cp.asnumpy(dsum), np.bincount(i % 7, weights=w), rtol=1e-9,
                               atol=1e-9)
    assert float(fsum[0]) == n
    np.testing.assert_array_equal(cp.asnumpy(isum), np.bincount(i % 5, weights=i % 3 - 1))
    assert int(usum[0]) == 2 * n
    assert int(lsum[0]) == -int(i.sum())
    assert int(counter[0]) == n
    np.testing.assert_array_equal(np.sort(cp.asnumpy(olds)), np.arange(n, dtype=np.uint64))
    ref2 = np.zeros((3, 5))
    np.add.at(ref2, (i % 3, i % 5), 1)
    np.testing.assert_array_equal(cp.asnumpy(h2), ref2)
    np.testing.assert_array_equal(cp.asnumpy(h2p), 3 * ref2)
    ref3 = np.zeros((2, 3, 4))
    np.add.at(ref3, (i % 2, i % 3, i % 4), 2)
    np.testing.assert_array_equal(cp.asnumpy(h3), ref3)


# ---------------------------------------------------------------- structs, scalars
def test_struct_by_value(cp):
    P = CudaStruct("P", [("tag", "char"), ("scale", "double"), ("x", "Array2D<const float>"),
                         ("out", "float*"), ("shift", "int")])
    src = ("#include <xstride/array_view.cuh>\n" + P.declaration() + r"""
extern "C" __global__ void apply(P p, unsigned char flag) {
    XSTRIDE_KERNEL_2D(r, c, p.x.shape[0], p.x.shape[1]);
    p.out[r * p.x.shape[1] + c] = (float)(p.scale * p.x(r, c)) + p.shift + p.tag + flag;
}""")
    x = cp.asarray(_rng(4).standard_normal((40, 30)).astype(np.float32))[::2, ::-3]
    out = cp.full(x.shape, np.nan, dtype=cp.float32)
    k = CudaKernel(src, "apply", block=(16, 8))
    k(P(tag=-3, scale=1.5, x=x, out=out, shift=7), 200, n_threads=x.shape[::-1])
    ref = (1.5 * cp.asnumpy(x).astype(np.float64)).astype(np.float32) + np.float32(7 - 3 + 200)
    np.testing.assert_allclose(cp.asnumpy(out), ref, rtol=1e-6)


def test_compile_error_carries_the_log(cp):
    k = CudaKernel('extern "C" __global__ void broken(float* x) { x[0] = not_declared_xyz; }',
                   "broken")
    with pytest.raises(CudaCompileError, match="not_declared_xyz") as info:
        k.compile()
    assert "not_declared_xyz" in info.value.log


def test_launch_larger_than_the_device_allows(cp):
    k = CudaKernel(INDEX_SRC, "fill1")
    out = cp.zeros(4, cp.int64)
    with pytest.raises(ValueError, match="2048 threads"):
        k(out, 4, n_threads=4, block=2048)
    with pytest.raises(ValueError, match="dimension y is 70000 blocks"):
        k(out, 4, grid=(1, 70000))
    assert k(out, 4, n_threads=0) is None
    np.testing.assert_array_equal(cp.asnumpy(out), 0)


def test_stream_argument(cp):
    s = cp.cuda.Stream(non_blocking=True)
    out = cp.full(300, -1, dtype=cp.int64)
    CudaKernel(INDEX_SRC, "fill1")(out, 300, n_threads=300, stream=s)
    s.synchronize()
    np.testing.assert_array_equal(cp.asnumpy(out), 3 * np.arange(300) + 1)


# ---------------------------------------------------------------- header edit
def test_header_edit_forces_a_recompile(cp, tmp_path):
    hdr = tmp_path / "value.h"
    hdr.write_text("#define XS_TEST_VALUE 1.5f\n")
    src = '#include "value.h"\nextern "C" __global__ void put(float* x) { x[threadIdx.x] = XS_TEST_VALUE; }'
    out = cp.zeros(4, cp.float32)
    k = CudaKernel(src, "put", include_dirs=[tmp_path])
    k(out, n_threads=4)
    assert cp.asnumpy(out).tolist() == [1.5] * 4
    hdr.write_text("#define XS_TEST_VALUE 2.5f\n")
    CudaKernel(src, "put", include_dirs=[tmp_path])(out, n_threads=4)
    assert cp.asnumpy(out).tolist() == [2.5] * 4
    hdr.write_text("#define XS_TEST_VALUE -4.0f\n")
    k.compile()(out, n_threads=4)
    assert cp.asnumpy(out).tolist() == [-4.0] * 4


# ---------------------------------------------------------------- debug mode
DEBUG_SCRIPT = r"""
import cupy as cp
from xstride.cuda import CudaKernel
src = '''
#include <xstride/array_view.cuh>
extern "C" __global__ void shift_oob(Array1D<float> a, long long k) {
    XSTRIDE_KERNEL_1D(i, a.shape[0]);
    a(i + k) = 1.0f;
}'''
kern = CudaKernel(src, "shift_oob")
assert kern.debug, "XSTRIDE_CUDA_DEBUG=1 should turn debug mode on"
a = cp.zeros(100, cp.float32)
kern(a, 0, n_threads=100, block=64)      # in bounds: fine
print("IN_BOUNDS_SUM", float(a.sum()))
try:
    kern(a, 1, n_threads=100, block=64)  # thread 99 writes a(100)
except RuntimeError as exc:
    print("RAISED", exc)
else:
    print("NO_ERROR")
"""


def test_debug_mode_turns_out_of_bounds_into_an_exception(cp, tmp_path):
    if not kt.bounds_check_views_available():
        pytest.skip("bounds-checked views unavailable here")
    script = tmp_path / "oob.py"
    script.write_text(DEBUG_SCRIPT)
    env = dict(os.environ, XSTRIDE_CUDA_DEBUG="1")
    # a subprocess: the trap leaves the CUDA context unusable
    res = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         env=env, timeout=120)
    out = res.stdout + res.stderr
    assert "IN_BOUNDS_SUM 100.0" in out, out
    assert "RAISED CudaKernel 'shift_oob' failed on the device (grid=(2, 1, 1), " \
           "block=(64, 1, 1)" in out, out
    assert "NO_ERROR" not in out


# ---------------------------------------------------------------- enums and aliases
ENUM_SRC = r"""
enum class Small : unsigned char { A = 1, B = 200 };
enum Flags { R = 01, W = 02, X = 010 };
enum class Wide : long long { Big = 1 };
typedef double real;
using index_t = unsigned short;
extern "C" __global__ void echo(Small s, Flags f, Wide w, real r, index_t i, signed char c,
                                double* out) {
    out[0] = (double)(unsigned char)s; out[1] = (double)f; out[2] = (double)(long long)w;
    out[3] = r; out[4] = (double)i; out[5] = (double)c;
}
"""


def test_enum_and_alias_parameters_arrive_with_their_sizes(cp):
    """Each enum and alias parameter is packed as its underlying type: a 1-byte enum
    beside a 4-byte one and an 8-byte one, a double alias, a 2-byte alias; a wrong size
    would shift every later parameter."""
    k = CudaKernel(ENUM_SRC, "echo")
    out = cp.zeros(6, dtype=cp.float64)
    k(200, 8, 2**40 + 3, 0.1, 65535, -7, out, grid=1, block=1)
    np.testing.assert_array_equal(out.get(), [200, 8, 2**40 + 3, 0.1, 65535, -7])
