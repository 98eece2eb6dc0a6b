"""CudaKernel and CudaStruct without a GPU: argument checks and packing, launch
configuration, compile caching and debug mode (signature parsing:
tests/test_cuda_kernel_signature.py), with the stand-in CuPy array of tests/conftest.py
(it has ``__cuda_array_interface__``) and stand-ins for CuPy's compiler and launcher."""

from __future__ import annotations

import struct
import subprocess
import sys
from types import SimpleNamespace

import numpy as np
import pytest

import xstride as xp
from xstride.cuda import kernel as ck
from xstride._kernels._compile import include_dir
from xstride.cuda._launch_config import Limits
from xstride.cuda import CudaCompileError, CudaKernel, CudaStruct

from tests.conftest import FakeCupyArray

BASE = 0x7F00_0000_0000


def device_array(host: np.ndarray, *, ptr=BASE, **kw) -> FakeCupyArray:
    """The shared stand-in CuPy array over ``host``, at pretend address ``ptr``."""
    return FakeCupyArray(host, ptr=ptr, **kw)


def dev(shape, dtype=np.float32, **kw):
    return device_array(np.zeros(shape, dtype=dtype), **kw)


class FakeFunction:
    def __init__(self, options):
        self.options = options
        self.launches = []

    def __call__(self, grid, block, args, shared_mem=0, stream=None):
        self.launches.append((grid, block, args, shared_mem, stream))


@pytest.fixture
def gpu(monkeypatch):
    """A pretend device 0 with H100-like limits; records builds and launches."""
    state = SimpleNamespace(device=0, builds=[], limits=Limits(), sync_error=None)
    monkeypatch.setattr(ck, "_current_device", lambda: state.device)
    monkeypatch.setattr(ck, "_device_limits", lambda d: state.limits)

    def build(source, options, name):
        fn = FakeFunction(options)
        state.builds.append((source, options, name, fn))
        return fn

    def sync(stream):
        if state.sync_error is not None:
            raise state.sync_error

    monkeypatch.setattr(ck, "_build", build)
    monkeypatch.setattr(ck, "_synchronize", sync)
    monkeypatch.delenv("XSTRIDE_CUDA_DEBUG", raising=False)
    return state


SRC = r"""
#include <xstride/array_view.cuh>
struct Params { long long n; Array2D<float> v; float s; };
extern "C" __global__ void k(const float* __restrict__ x, float* y, Array3D<double> a,
                             CArray2D<int> c, Params p, int i, unsigned int u, float f,
                             bool b, long long q)
{ }
"""


def args_ok(device=0):
    P = CudaStruct("Params", [("n", "long long"), ("v", "Array2D<float>"), ("s", "float")])
    d = dict(device=device)
    return [dev(10, **d), dev(10, **d), dev((2, 3, 4), np.float64, **d),
            dev((3, 5), np.int32, **d), P(n=3, v=dev((2, 2), **d), s=1.5), -7, 7, 2.5, True,
            2**40]


def test_constructor_argument_errors():
    with pytest.raises(TypeError, match="'name'"):
        CudaKernel("__global__ void k() {}", 3)
    with pytest.raises(ValueError, match="not a C identifier"):
        CudaKernel("__global__ void k() {}", "k()")
    with pytest.raises(TypeError, match="'source'"):
        CudaKernel(b"__global__ void k() {}", "k")
    with pytest.raises(TypeError, match="'options'"):
        CudaKernel("__global__ void k() {}", "k", options="-DX")
    with pytest.raises(TypeError, match="'include_dirs'"):
        CudaKernel("__global__ void k() {}", "k", include_dirs="/tmp")
    # a folder that does not exist: named at once, not later as "unknown C type"
    with pytest.raises(ValueError, match="'include_dirs' names '/nonexistent/x', which is not"):
        CudaKernel("__global__ void k() {}", "k", include_dirs=["/nonexistent/x"])
    # an empty or blank name is no folder: it was the current folder, unasked (as an
    # empty option is refused; a new-user probe)
    for blank in ("", "  "):
        with pytest.raises(ValueError, match="'include_dirs' holds the empty or blank item"):
            CudaKernel("__global__ void k() {}", "k", include_dirs=[blank])
    with pytest.raises(TypeError, match="'debug'"):
        CudaKernel("__global__ void k() {}", "k", debug=1)


@pytest.mark.parametrize("kwargs, exc, match", [
    # a set's order (the compiler's order of the options, part of the cache key)
    # changes from one process to the next: accepted before
    ({"options": {"-DA=1", "-DB=2"}}, TypeError, "'options' got set .* in a fixed order"),
    ({"options": frozenset()}, TypeError, "'options' got frozenset"),
    ({"include_dirs": {"/tmp"}}, TypeError, "'include_dirs' got set .* in a fixed order"),
    # an empty option: NVRTC took it for the name of a source file (accepted before)
    ({"options": ["-DA=1", ""]}, ValueError, "'options' holds the empty or blank item ''"),
    ({"options": ("  ",)}, ValueError, "'options' holds the empty or blank item '  '"),
])
def test_options_in_no_fixed_order_or_blank_are_refused(kwargs, exc, match):
    # a dict's keys keep their order: taken (a review: they were refused as a set)
    assert CudaKernel("__global__ void k() {}", "k",
                      options={"-DA=1": 0, "-DB=2": 0}.keys()).options == ("-DA=1", "-DB=2")
    with pytest.raises(exc, match=match):
        CudaKernel("__global__ void k() {}", "k", **kwargs)
    if "options" in kwargs:
        with pytest.raises(exc, match=match):
            xp.cuda.ElementwiseKernel("float32 x", "float32 z", "z = x", "k", **kwargs)
    with pytest.raises(ValueError, match="'block'"):
        CudaKernel("__global__ void k() {}", "k", block=0)
    with pytest.raises(ValueError, match=r"'block' \(2000, 1, 1\) has 2000 threads; "
                                         r"at most 1024"):
        CudaKernel("__global__ void k() {}", "k", block=2000)
    with pytest.raises(ValueError, match="'block' .* has 2048 threads"):
        CudaKernel("__global__ void k() {}", "k", block=(64, 32))


def test_struct_from_an_included_header(tmp_path):
    (tmp_path / "params.h").write_text("struct Box { double lo; double hi; int n; };\n")
    src = '#include "params.h"\n__global__ void k(Box b) {}'
    k = CudaKernel(src, "k", include_dirs=[tmp_path])
    ct = k.params[0].ctype
    assert ct.kind == "struct" and ct.nbytes == 24
    with pytest.raises(ValueError, match="unknown C type 'Box'"):
        CudaKernel(src, "k")  # header not on the search path: Box is unknown


# ---------------------------------------------------------------- argument checks
def test_good_call_packs_every_argument(gpu):
    k = CudaKernel(SRC, "k")
    args = args_ok()
    k(*args, n_threads=1000, block=256)
    (_, opts, name, fn), = gpu.builds
    assert name == "k"
    (grid, block, values, shared, stream), = fn.launches
    assert grid == (4, 1, 1) and block == (256, 1, 1) and shared == 0 and stream is None
    raw = [v.tobytes() for v in values]
    assert all(v.size == 1 for v in values)  # CuPy passes size-one NumPy arrays by value
    assert raw[0] == struct.pack("<Q", BASE)
    a = args[2].host
    assert raw[2] == struct.pack("<Q6q", BASE, *a.shape, *(s // 8 for s in a.strides))
    assert raw[3] == struct.pack("<Q2q", BASE, 3, 5)
    assert raw[4] == struct.pack("<q", 3) + struct.pack("<Q2q2q", BASE, 2, 2, 2, 1) + \
        struct.pack("<f", 1.5) + b"\0" * 4
    assert raw[5:] == [struct.pack("<i", -7), struct.pack("<I", 7), struct.pack("<f", 2.5),
                       b"\x01", struct.pack("<q", 2**40)]


def test_strided_view_is_packed_in_elements(gpu):
    k = CudaKernel('#include <xstride/array_view.cuh>\n__global__ void k(Array3D<short> a) {}', "k")
    host = np.zeros((5, 6, 8), np.int16)[::-2, 1:, ::4].transpose(2, 0, 1)
    k(device_array(host, ptr=BASE + 64), n_threads=1)
    raw = gpu.builds[0][3].launches[0][2][0].tobytes()
    assert struct.unpack("<Q6q", raw) == (BASE + 64, 2, 3, 5, 4, -96, 8)
    assert host.strides == (8, -192, 16)


def test_wrong_argument_count(gpu):
    k = CudaKernel(SRC, "k")
    with pytest.raises(TypeError, match=r"takes 10 argument\(s\) \(x, y, a, c, p, i, u, f, b, q\), got 9"):
        k(*args_ok()[:-1], n_threads=1)
    assert gpu.builds == []


def _call_with(k, index, value, **kw):
    args = args_ok()
    args[index] = value
    return k(*args, n_threads=kw.pop("n_threads", 1), **kw)


@pytest.mark.parametrize("index,value,exc,match", [
    (0, dev(10, np.float64), TypeError, "'x' has dtype float64; the kernel takes 'const float\\*'"),
    (2, dev((2, 3, 4), np.float32), TypeError, "'a' has dtype float32"),
    (2, dev((2, 3), np.float64), TypeError, "'a' has 2 dimensions"),
    (3, dev((3, 5, 1), np.int32), TypeError, "'c' has 3 dimensions"),
    (0, np.zeros(10, np.float32), TypeError, "'x' got numpy.ndarray.*host memory"),
    (2, np.zeros((2, 3, 4)), TypeError, "'a' got numpy.ndarray.*never copied"),
    (1, [1.0, 2.0], TypeError, "'y' got list"),
    (1, 3.0, TypeError, "'y' got float"),
    (1, device_array(np.zeros((4, 4), np.float32)[:, ::2]), ValueError, "'y' is not C-contiguous"),
    (3, device_array(np.zeros((5, 3), np.int32).T), ValueError, "'c' is not C-contiguous"),
    (1, dev(10, device=1), ValueError, "'y' is on device 1"),
    (1, dev(10, readonly=True), ValueError, "'y' is read-only"),
    (5, 2**31, OverflowError, "'i' value 2147483648 is out of range for C type 'int'"),
    (5, -2**31 - 1, OverflowError, "'i' value"),
    (6, -1, OverflowError, "'u' value -1 is out of range for C type 'unsigned int'"),
    (6, 2**32, OverflowError, "'u'"),
    (9, 2**63, OverflowError, "'q'"),
    (5, 1.5, TypeError, "'i' got float"),
    (5, np.float64(1.0), TypeError, "'i' got"),
    (5, "3", TypeError, "'i' got str"),
    (5, dev(()), TypeError, "device array was passed where the kernel takes a value"),
    (7, 1e39, OverflowError, "'f' value 1e\\+39 is out of range for C type 'float'"),
    (7, "x", TypeError, "'f'"),
    (7, True, TypeError, "'f'"),
    (8, 1, TypeError, "'b' got int"),
    (4, 5, TypeError, "'p' got int.*CudaStruct value of struct 'Params'"),
])
def test_bad_arguments_raise_before_launch(gpu, index, value, exc, match):
    k = CudaKernel(SRC, "k")
    with pytest.raises(exc, match=match):
        _call_with(k, index, value)
    assert gpu.builds == []  # nothing compiled, nothing launched


def test_numpy_array_is_never_copied(gpu):
    k = CudaKernel(SRC, "k")
    host = np.arange(10, dtype=np.float32)
    before = host.copy()
    with pytest.raises(TypeError, match="NumPy array lives in host memory"):
        _call_with(k, 1, host)
    np.testing.assert_array_equal(host, before)


def test_readonly_array_is_fine_for_const(gpu):
    k = CudaKernel(SRC, "k")
    _call_with(k, 0, dev(10, readonly=True))
    assert len(gpu.builds[0][3].launches) == 1


def test_other_struct_or_mismatched_fields(gpu):
    k = CudaKernel(SRC, "k")
    Other = CudaStruct("Other", [("n", "long long")])
    with pytest.raises(TypeError, match="value of CudaStruct 'Other'; the kernel takes struct 'Params'"):
        _call_with(k, 4, Other(n=1))
    Wrong = CudaStruct("Params", [("n", "long long"), ("v", "Array2D<float>"), ("s", "double")])
    with pytest.raises(TypeError, match="has fields .*double s.* declares .*float s"):
        _call_with(k, 4, Wrong(n=1, v=dev((1, 1)), s=0.0))
    P = CudaStruct("Params", [("n", "long long"), ("v", "Array2D<float>"), ("s", "float")])
    with pytest.raises(ValueError, match="'p.v' is on device 2"):
        _call_with(k, 4, P(n=1, v=dev((1, 1), device=2), s=0.0))


# ---------------------------------------------------------------- launch configuration
@pytest.mark.parametrize("kw,exc,match", [
    ({}, TypeError, "exactly one of n_threads= or grid= \\(got neither\\)"),
    ({"n_threads": 4, "grid": 1}, TypeError, "got both"),
    ({"n_threads": -1}, ValueError, "'n_threads' must be >= 0"),
    ({"n_threads": 1.5}, TypeError, "'n_threads'"),
    ({"n_threads": (1, 2, 3, 4)}, ValueError, "1 to 3 dimensions"),
    ({"n_threads": 8, "block": 2048}, ValueError, "2048 threads; at most 1024"),
    ({"n_threads": 8, "block": (32, 32, 2)}, ValueError, "2048 threads"),
    ({"n_threads": 8, "block": 0}, ValueError, "'block' must be >= 1"),
    ({"n_threads": 8, "block": (1, 1, 128)}, ValueError, "dimension z is 128, the device allows at most 64"),
    ({"grid": 2**31}, ValueError, "dimension x is 2147483648 blocks"),
    ({"grid": (1, 65536)}, ValueError, "dimension y is 65536 blocks"),
    # the message named 'grid', which the caller had not passed
    ({"n_threads": 2**31 * 1024}, ValueError, "argument 'n_threads' \\(2199023255552, 1, 1\\) "
     "with block \\(128, 1, 1\\) needs grid \\(17179869184, 1, 1\\): dimension x is "
     "17179869184 blocks.*XSTRIDE_GRID_STRIDE_LOOP"),
    ({"n_threads": (1, 65536 * 8), "block": (32, 8)}, ValueError,
     "argument 'n_threads' .* needs grid \\(1, 65536, 1\\): dimension y is 65536 blocks"),
    ({"n_threads": 8, "shared_mem": 10**7}, ValueError, "'shared_mem' 10000000 bytes exceeds"),
    ({"n_threads": 8, "shared_mem": -1}, ValueError, "'shared_mem' must be >= 0"),
    ({"n_threads": 8, "stream": "s"}, TypeError, "'stream'"),
])
def test_bad_launches_raise_before_launch(gpu, kw, exc, match):
    k = CudaKernel(SRC, "k")
    with pytest.raises(exc, match=match):
        k(*args_ok(), **kw)
    assert gpu.builds == []


def test_device_block_limit_is_honoured(gpu):
    gpu.limits = Limits(max_threads_per_block=256)
    k = CudaKernel(SRC, "k")
    with pytest.raises(ValueError, match="512 threads; at most 256 per block on this device"):
        k(*args_ok(), n_threads=10, block=512)


@pytest.mark.parametrize("kw,grid,block", [
    ({"n_threads": 1}, (1, 1, 1), (128, 1, 1)),
    ({"n_threads": 128}, (1, 1, 1), (128, 1, 1)),
    ({"n_threads": 129}, (2, 1, 1), (128, 1, 1)),
    ({"n_threads": (100, 7), "block": (32, 4)}, (4, 2, 1), (32, 4, 1)),
    ({"n_threads": (5, 6, 7), "block": (2, 2, 2)}, (3, 3, 4), (2, 2, 2)),
    ({"grid": (3, 2), "block": 64}, (3, 2, 1), (64, 1, 1)),
])
def test_grid_is_ceil_of_threads_over_block(gpu, kw, grid, block):
    k = CudaKernel(SRC, "k")
    k(*args_ok(), **kw)
    assert gpu.builds[0][3].launches[0][:2] == (grid, block)


def test_default_block_from_constructor(gpu):
    k = CudaKernel(SRC, "k", block=(16, 8))
    k(*args_ok(), n_threads=(33, 9))
    assert gpu.builds[0][3].launches[0][:2] == ((3, 2, 1), (16, 8, 1))


@pytest.mark.parametrize("kw", [{"n_threads": 0}, {"n_threads": (5, 0)}, {"grid": 0},
                                {"grid": (2, 2, 0)}])
def test_zero_size_launch_checks_and_launches_nothing(gpu, kw):
    k = CudaKernel(SRC, "k")
    assert k(*args_ok(), **kw) is None
    assert gpu.builds == []
    with pytest.raises(OverflowError, match="'i'"):
        _call_with(k, 5, 2**40, **kw)
    with pytest.raises(ValueError, match="2048 threads"):
        k(*args_ok(), block=2048, **kw)


# ---------------------------------------------------------------- compiling
def test_compiles_lazily_once_per_device(gpu):
    k = CudaKernel(SRC, "k")
    assert gpu.builds == []
    k(*args_ok(), n_threads=4)
    k(*args_ok(), n_threads=4)
    assert len(gpu.builds) == 1
    gpu.device = 1
    with pytest.raises(ValueError, match="'x' is on device 0; the kernel launches on device 1"):
        k(*args_ok(), n_threads=4)
    k(*args_ok(device=1), n_threads=4)
    assert len(gpu.builds) == 2
    gpu.device = 0
    k.compile()  # nothing changed: no rebuild
    assert len(gpu.builds) == 2


def test_shipped_include_dir_is_added_once(gpu):
    shipped = include_dir()
    k = CudaKernel(SRC, "k", options=(f"-I{shipped}", "-DFOO=1"), include_dirs=[shipped])
    k.compile()
    opts = gpu.builds[0][1]
    assert f"-I{shipped}" not in opts  # _compile.raw_module adds it exactly once
    assert "-DFOO=1" in opts
    assert any(o.startswith("-DXSTRIDE_HEADERS_SHA256=0x") for o in opts)
    assert xp.cuda.cuda_include_dir() == shipped


def test_header_edit_changes_cache_key_and_recompiles(gpu, tmp_path):
    inc = tmp_path / "inc"
    (inc / "sub").mkdir(parents=True)
    (inc / "outer.h").write_text('#include "sub/inner.h"\n')
    (inc / "sub" / "inner.h").write_text("#define SCALE 2\n#include <xstride/index.cuh>\n")
    src = '#include <outer.h>\n__global__ void k(float* x) { x[0] = SCALE; }'
    k = CudaKernel(src, "k", include_dirs=[inc])
    k.compile()
    k.compile()
    assert len(gpu.builds) == 1
    (inc / "sub" / "inner.h").write_text("#define SCALE 3\n#include <xstride/index.cuh>\n")
    k.compile()
    assert len(gpu.builds) == 2
    key = lambda opts: [o for o in opts if o.startswith("-DXSTRIDE_HEADERS_SHA256")]
    assert key(gpu.builds[0][1]) != key(gpu.builds[1][1])
    # a fresh kernel of the same source gets the new key too
    CudaKernel(src, "k", include_dirs=[inc]).compile()
    assert key(gpu.builds[2][1]) == key(gpu.builds[1][1])


def test_compile_failure_carries_the_log(gpu, monkeypatch):
    class CompileException(Exception):
        def get_message(self):
            return "kernel.cu(3): error: identifier \"oops\" is undefined"

    def failing(source, options, name):
        raise CompileException("nvrtc failed")

    monkeypatch.setattr(ck, "_build", failing)
    k = CudaKernel(SRC, "k")
    with pytest.raises(CudaCompileError, match="(?s)CudaKernel 'k': compilation failed.*oops") as info:
        k.compile()
    assert 'identifier "oops"' in info.value.log and info.value.kernel == "k"


def test_other_build_errors_propagate(gpu, monkeypatch):
    def failing(source, options, name):
        raise RuntimeError("backend 'cupy' is unavailable: no device")

    monkeypatch.setattr(ck, "_build", failing)
    with pytest.raises(RuntimeError, match="unavailable"):
        CudaKernel(SRC, "k").compile()


# ---------------------------------------------------------------- debug mode
def test_debug_adds_bounds_check_and_synchronizes(gpu):
    k = CudaKernel(SRC, "k", debug=True)
    k(*args_ok(), n_threads=300, block=128)
    assert "-DXSTRIDE_BOUNDS_CHECK" in gpu.builds[0][1]
    gpu.sync_error = RuntimeError("cudaErrorLaunchFailure: unspecified launch failure")
    with pytest.raises(RuntimeError, match=r"CudaKernel 'k' failed on the device \(grid=\(3, 1, 1\), "
                                           r"block=\(128, 1, 1\).*unspecified launch failure"):
        k(*args_ok(), n_threads=300, block=128)


def test_debug_from_environment(gpu, monkeypatch):
    monkeypatch.setenv("XSTRIDE_CUDA_DEBUG", "1")
    assert CudaKernel(SRC, "k").debug is True
    assert CudaKernel(SRC, "k", debug=False).debug is False
    monkeypatch.setenv("XSTRIDE_CUDA_DEBUG", "0")
    assert CudaKernel(SRC, "k").debug is False
    k = CudaKernel(SRC, "k")
    k.compile()
    assert "-DXSTRIDE_BOUNDS_CHECK" not in gpu.builds[0][1]


def test_not_debug_does_not_synchronize(gpu):
    gpu.sync_error = RuntimeError("should not be called")
    CudaKernel(SRC, "k")(*args_ok(), n_threads=1)


# ---------------------------------------------------------------- imports
def test_importing_xstride_imports_neither_pytest_nor_cupy():
    code = ("import sys, xstride as xp, xstride.cuda, xstride.kernel_testing as kt\n"
            "kt.warp_shuffle_available\n"
            "assert 'pytest' not in sys.modules, 'pytest imported'\n"
            "assert 'cupy' not in sys.modules, 'cupy imported'\n"
            "print(xp.cuda.CudaKernel.__name__, xp.cuda.CudaStruct.__name__)\n")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert res.stdout.split() == ["CudaKernel", "CudaStruct"]


def test_internal_kernels_key_their_compile_on_header_contents(tmp_path, monkeypatch):
    """xstride's own kernels pass a digest of every shipped header, so CuPy's disk
    cache (keyed on source and options only) never serves a binary built from an
    older header; user kernels' own digest define is left alone."""
    import shutil

    from xstride._kernels import _compile

    src = "#include <xstride/scan.cuh>\n__global__ void k() {}\n"
    opts = _compile.module_options(src, ("-DX=1",))
    assert opts[:3] == ("-std=c++17", f"-I{_compile.include_dir()}", "-DX=1")
    assert opts[3].startswith("-DXSTRIDE_HEADERS_SHA256=0x") and len(opts) == 4
    # a copy of the shipped headers: editing one changes the define of the next
    # process (the digest is computed once a process: a new process is an empty table)
    inc = tmp_path / "include"
    shutil.copytree(_compile.include_dir(), inc)
    monkeypatch.setattr(_compile, "_INCLUDE", inc)
    monkeypatch.setattr(_compile, "_HEADERS_SEEN", {})
    before = _compile.module_options(src)[-1]
    assert before == _compile.module_options(src)[-1]
    reduce_h = inc / "xstride" / "reduce.cuh"     # reached through scan.cuh
    reduce_h.write_text(reduce_h.read_text() + "\n// edited\n")
    assert _compile.module_options(src)[-1] == before          # this process: unchanged
    monkeypatch.setattr(_compile, "_HEADERS_SEEN", {})         # the next process
    edited = _compile.module_options(src)[-1]
    assert edited != before
    # one digest for every shipped header: a header the source does not reach counts
    # too, and every source gets the same options (one CuPy preprocess per process)
    morton_h = inc / "xstride" / "morton.cuh"
    morton_h.write_text(morton_h.read_text() + "\n// edited\n")
    monkeypatch.setattr(_compile, "_HEADERS_SEEN", {})
    assert _compile.module_options(src)[-1] != edited
    assert _compile.module_options("__global__ void k() {}\n") == _compile.module_options(src)
    # the caller's own digest define is kept, not doubled
    user = _compile.module_options(src, ("-DXSTRIDE_HEADERS_SHA256=0xabc",))
    assert [o for o in user if o.startswith("-DXSTRIDE_HEADERS")] == \
        ["-DXSTRIDE_HEADERS_SHA256=0xabc"]


def test_a_computed_include_is_hashed(tmp_path):
    """``#define H "mine.h"`` then ``#include H`` reached no header: an edit of
    ``mine.h`` left the cache key as it was (a stale binary). The macro's header is
    followed, also where a header or a ``-D`` option defines the macro."""
    (tmp_path / "mine.h").write_text("#define SCALE 2\n")
    (tmp_path / "cfg.h").write_text('#define MINE "mine.h"\n')
    sources = {
        '#define H "mine.h"\n#include H\n': (),
        '#include "cfg.h"\n#include MINE\n': (),
        "#include H\n": ("-DH=<mine.h>",),
    }
    for head, options in sources.items():
        (tmp_path / "mine.h").write_text("#define SCALE 2\n")
        k = CudaKernel(head + "__global__ void k(float* x) {}", "k", options=options,
                       include_dirs=[tmp_path])
        before = k._scan()
        assert (tmp_path / "mine.h").resolve() in before.files, head
        (tmp_path / "mine.h").write_text("#define SCALE 3\n")
        assert k._scan().digest != before.digest, head
    # a macro naming no header, or none at all, is left unresolved (not an error)
    k = CudaKernel("#define H 3\n#include H\n#include NOWHERE\n"
                   "__global__ void k(float* x) {}", "k")
    assert k._scan().files == ()
