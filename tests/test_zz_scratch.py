import numpy as np, pytest, xstride as xp
from tests.test_cuda_kernel import gpu, dev, device_array, BASE  # noqa
from xstride.cuda import CudaKernel, CudaStruct

CASES = [dict(n_threads=True), dict(n_threads=np.int64(5)), dict(n_threads=np.bool_(True)),
         dict(n_threads=5.0), dict(n_threads=(5,)), dict(n_threads=[5, 2]), dict(n_threads=()),
         dict(grid=(1, 0)), dict(grid=0), dict(grid=np.uint64(3)), dict(n_threads=5, block=np.int32(32)),
         dict(n_threads=5, block=True), dict(n_threads=5, block=(32, True)), dict(n_threads=5, shared_mem=True),
         dict(n_threads=5, shared_mem=1.0), dict(n_threads=5, shared_mem=np.int64(10)), dict(n_threads=2**70),
         dict(n_threads=-0), dict(n_threads=5, block=(0,)), dict(n_threads=5, block=()), dict(n_threads=(1,1,1,1)),
         dict(n_threads=5, stream=0), dict(n_threads=5, stream=None), dict(n_threads=(2**31, 2**17)),
         dict(n_threads=5, shared_mem=49152), dict(n_threads=5, shared_mem=49153), dict(n_threads=5, foo=1)]

@pytest.mark.parametrize("kw", CASES, ids=[repr(c) for c in CASES])
def test_launch(gpu, kw):
    k = CudaKernel("__global__ void k(float* x) {}", "k")
    try:
        k(dev(4), **kw)
        fn = gpu.builds[0][3] if gpu.builds else None
        print("\nOK", kw, fn.launches[-1][:2] if fn and fn.launches else "no launch")
    except Exception as e:
        print("\nERR", kw, type(e).__name__, str(e)[:160])

ARGS = [("float* x", dev(4, np.float32, readonly=True)), ("const float* x", dev(4, np.float32, readonly=True)),
        ("void* x", device_array(np.zeros((4, 4), np.float32)[:, ::2])), ("void* x", dev(4, np.int8)),
        ("const void* x", dev(4, np.int8, readonly=True)), ("void* x", dev(4, np.int8, readonly=True)),
        ("float* x", device_array(np.zeros(0, np.float32), ptr=0)),
        ("float* x", device_array(np.zeros((4, 1), np.float32)[::-1])),
        ("float* x", device_array(np.zeros((1, 4), np.float32)[::-1])),
        ("float* x", device_array(np.zeros(4, np.float32)[::-1])),
        ("Array1D<float> x", device_array(np.zeros(4, np.float32)[::-1])),
        ("CArray1D<float> x", device_array(np.zeros(4, np.float32)[::-1])),
        ("Array1D<float> x", device_array(np.zeros(4, np.float32), ptr=BASE + 2)),
        ("Array2D<float> x", device_array(np.broadcast_to(np.zeros(4, np.float32), (3, 4)))),
        ("CArray2D<float> x", device_array(np.broadcast_to(np.zeros(4, np.float32), (3, 4)))),
        ("CArray2D<float> x", device_array(np.zeros((3, 0), np.float32))),
        ("float* x", device_array(np.zeros(4, ">f4"))),
        ("bool* x", dev(4, np.bool_)), ("bool* x", dev(4, np.uint8)), ("char* x", dev(4, np.uint8)),
        ("unsigned char* x", dev(4, np.int8)), ("long* x", dev(4, np.int64)), ("long long* x", dev(4, np.longlong)),
        ("unsigned long* x", dev(4, np.uint64)), ("size_t* x", dev(4, np.uintp)),
        ("half* x", dev(4, np.float16)), ("complex<float>* x", dev(4, np.complex64)),
        ("complex<double>* x", device_array(np.zeros(4, np.complex128), ptr=BASE + 8)),
        ("float x", np.float32(np.nan)), ("float x", float("inf")), ("float x", 3.4028235e38 * 1.0000001),
        ("float x", 2**128), ("float x", 2**127), ("float x", -2**1024), ("half x", 65504.0), ("half x", 65519.0), ("half x", 65520.0),
        ("half x", np.float32(1e5)), ("double x", 10**400), ("int x", np.uint32(2**31)), ("int x", np.int64(-2**31)),
        ("unsigned x", np.int8(-1)), ("bool x", np.bool_(False)), ("bool x", 0), ("long long x", np.timedelta64(1)),
        ("int x", np.datetime64(1, 's')), ("complex<float> x", 1e39 + 0j), ("complex<float> x", complex(1, 1e39)),
        ("complex<float> x", True), ("complex<float> x", np.float16(1)), ("int x", 3.0), ("float x", 1 + 0j),
        ("float x", "1.0"), ("int x", None), ("int8_t x", 127), ("int8_t x", 128), ("char x", -128), ("char x", 255),
        ("unsigned char x", 255), ("unsigned char x", 256), ("float x", np.longdouble(1e4000)), ("double x", np.longdouble(1e4000)),
        ]

@pytest.mark.parametrize("decl,val", ARGS, ids=[f"{d}|{type(v).__name__}" for d, v in ARGS])
def test_arg(gpu, decl, val):
    try:
        k = CudaKernel(f"#include <xstride/array_view.cuh>\n__global__ void k({decl}) {{}}", "k")
        k(val, n_threads=1)
        raw = gpu.builds[0][3].launches[-1][2][0].tobytes()
        print("\nOK", decl, repr(val)[:40], raw.hex()[:48])
    except Exception as e:
        print("\nERR", decl, repr(val)[:40], type(e).__name__, str(e)[:170])
