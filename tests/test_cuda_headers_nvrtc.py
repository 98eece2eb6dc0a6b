"""Every shipped header, and a kernel using each of index/array_view/atomic, compiles
with NVRTC for sm_90 and sm_80 -- no GPU needed (cuda-bindings + nvidia-cuda-nvrtc).

The by-value layout of views and structs is checked against the parameter sizes that
NVRTC writes into the PTX, the ABI the driver uses when CudaKernel launches.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from xstride._kernels._compile import include_dir
from xstride.cuda.kernel import CudaKernel

try:
    from cuda.bindings import nvrtc
except Exception as exc:  # not installed (non-x86 Linux), or no libnvrtc found
    nvrtc = None
    _NVRTC_REASON = f"cuda-bindings/nvrtc not importable: {type(exc).__name__}: {exc}"

pytestmark = pytest.mark.skipif(nvrtc is None, reason=globals().get("_NVRTC_REASON", ""))

HEADERS = sorted((Path(include_dir()) / "xstride").glob("*.cuh"))
ARCHS = ("sm_90", "sm_80")


def _check(result, what):
    err = result[0]
    if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
        raise RuntimeError(f"{what}: {err}")
    return result[1:] if len(result) > 1 else None


def nvrtc_compile(source: str, arch: str, options=()) -> tuple[bool, str, str]:
    """Compile ``source``; return (ok, log, ptx)."""
    (prog,) = _check(nvrtc.nvrtcCreateProgram(source.encode(), b"kernel.cu", 0, [], []),
                     "nvrtcCreateProgram")
    try:
        opts = [f"-arch={arch}", "-std=c++17", f"-I{include_dir()}", *options]
        res = nvrtc.nvrtcCompileProgram(prog, len(opts), [o.encode() for o in opts])
        (size,) = _check(nvrtc.nvrtcGetProgramLogSize(prog), "log size")
        # A fresh buffer of at least 2 bytes: CPython shares one object for every
        # 1-byte bytes value, and NVRTC writes into the buffer it is given.
        log = bytes(max(size, 2))
        _check(nvrtc.nvrtcGetProgramLog(prog, log), "log")
        log = log.decode(errors="replace").rstrip("\x00 ")
        if res[0] != nvrtc.nvrtcResult.NVRTC_SUCCESS:
            return False, log, ""
        (size,) = _check(nvrtc.nvrtcGetPTXSize(prog), "ptx size")
        ptx = bytes(max(size, 2))
        _check(nvrtc.nvrtcGetPTX(prog, ptx), "ptx")
        return True, log, ptx.decode(errors="replace")
    finally:
        nvrtc.nvrtcDestroyProgram(prog)


def compile_named(source: str, names, arch: str = "sm_90", name: str = "kernel.cu"):
    """``(lowered names, PTX)`` of ``source`` compiled with the name expressions
    ``names`` (asserting that NVRTC accepts it)."""
    (prog,) = _check(nvrtc.nvrtcCreateProgram(source.encode(), name.encode(), 0, [], []),
                     "create")
    try:
        for n in names:
            _check(nvrtc.nvrtcAddNameExpression(prog, n.encode()), n)
        opts = [f"-arch={arch}", "-std=c++17", f"-I{include_dir()}"]
        res = nvrtc.nvrtcCompileProgram(prog, len(opts), [o.encode() for o in opts])
        (size,) = _check(nvrtc.nvrtcGetProgramLogSize(prog), "log size")
        log = bytes(max(size, 2))
        _check(nvrtc.nvrtcGetProgramLog(prog, log), "log")
        assert res[0] == nvrtc.nvrtcResult.NVRTC_SUCCESS, log.decode(errors="replace")
        lowered = {n: _check(nvrtc.nvrtcGetLoweredName(prog, n.encode()), n)[0].decode()
                   for n in names}
        (size,) = _check(nvrtc.nvrtcGetPTXSize(prog), "ptx size")
        ptx = bytes(max(size, 2))
        _check(nvrtc.nvrtcGetPTX(prog, ptx), "ptx")
        return lowered, ptx.decode(errors="replace")
    finally:
        nvrtc.nvrtcDestroyProgram(prog)


def assert_compiles(source: str, arch: str, options=()) -> str:
    ok, log, ptx = nvrtc_compile(source, arch, options)
    assert ok, f"NVRTC ({arch}, options {list(options)}) rejected:\n{source}\n--- log ---\n{log}"
    return ptx


def ptx_param_sizes(ptx: str, kernel: str) -> list[int]:
    """Bytes of each parameter of ``.entry kernel`` in PTX."""
    m = re.search(r"\.entry\s+" + kernel + r"\s*\((.*?)\)", ptx, re.S)
    assert m, f"no entry {kernel} in PTX"
    sizes = []
    for p in m.group(1).split(","):
        arr = re.search(r"\.b8\s+\w+\[(\d+)\]", p)
        if arr:
            sizes.append(int(arr.group(1)))
        else:
            bits = re.search(r"\.[usfb](8|16|32|64)\s", p + " ")
            sizes.append(int(bits.group(1)) // 8)
    return sizes


def test_shipped_headers_are_found():
    names = {h.name for h in HEADERS}
    assert {"index.cuh", "array_view.cuh", "atomic.cuh"} <= names


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("header", HEADERS, ids=[h.name for h in HEADERS])
def test_every_header_compiles_alone(header, arch):
    src = f'#include <xstride/{header.name}>\nextern "C" __global__ void xstride_touch() {{}}\n'
    assert_compiles(src, arch)
    # twice: include guards
    assert_compiles(f"#include <xstride/{header.name}>\n" + src, arch)


@pytest.mark.parametrize("header", HEADERS, ids=[h.name for h in HEADERS])
def test_no_header_includes_a_standard_header(header):
    for line in header.read_text().splitlines():
        m = re.match(r"\s*#\s*include\s*[<\"]([^>\"]+)[>\"]", line)
        if m:
            assert m.group(1).startswith("xstride/") or m.group(1).endswith(".cuh"), (
                f"{header.name} includes {m.group(1)!r}; NVRTC ships no standard headers")


INDEX_KERNEL = r"""
#include <xstride/index.cuh>
extern "C" __global__ void k1(float* out, long long n) {
    XSTRIDE_KERNEL_1D(i, n);
    out[i] = (float)xstride_ceil_div(i, 3);
}
extern "C" __global__ void k2(float* out, long long rows, long long cols) {
    XSTRIDE_KERNEL_2D(r, c, rows, cols);
    out[xstride_c_offset_2d(cols, r, c)] = 1.0f;
}
extern "C" __global__ void k3(float* out, long long n0, long long n1, long long n2) {
    XSTRIDE_KERNEL_3D(i, j, k, n0, n1, n2);
    out[xstride_c_offset_3d(n1, n2, i, j, k)] = 1.0f;
}
extern "C" __global__ void loop(long long* out, long long n) {
    const long long shape[3] = {2, 3, 4};
    const long long strides[3] = {12, 4, 1};
    XSTRIDE_GRID_STRIDE_LOOP(i, n) {
        long long idx[3];
        xstride_unravel_index(i % 24, 3, shape, idx);
        out[i] = xstride_offset(3, strides, idx) + xstride_ravel_index(3, shape, idx)
               + xstride_flat_to_offset(i % 24, 3, shape, strides) + xstride_size(3, shape);
    }
}
"""

ATOMIC_KERNEL = r"""
#include <xstride/atomic.cuh>
extern "C" __global__ void atoms(double* d, float* f, int* i, unsigned int* u, long long* l,
                                 unsigned long long* ul, CArray2D<float> h2, CArray3D<int> h3,
                                 double* old) {
    XSTRIDE_KERNEL_1D(t, 1);
    old[0] = xstride_atomic_add(d, 1.0);
    xstride_atomic_add(f, 1.0f);
    xstride_atomic_add(i, 1);
    xstride_atomic_add(u, 1u);
    xstride_atomic_add(l, -1LL);
    xstride_atomic_add(ul, 1ULL);
    xstride_atomic_add_2d(h2.data, h2.shape[1], 0, t, 2.0f);
    xstride_atomic_add_3d(h3.data, h3.shape[1], h3.shape[2], 0, 0, t, 3);
    xstride_atomic_add_at(h2, 0, t, 1.0f);
    xstride_atomic_add_at(h3, 0, 0, t, 1);
}
"""


def _views_kernel(n: int) -> str:
    idx = ", ".join(["0"] * (n - 1) + ["i"])
    return (
        "#include <xstride/array_view.cuh>\n"
        f'extern "C" __global__ void views{n}(Array{n}D<float> a, CArray{n}D<const double> b,'
        f" xstride_array<int, {n}> c) {{\n"
        "    XSTRIDE_KERNEL_1D(i, a.shape[" + str(n - 1) + "]);\n"
        f"    a({idx}) = (float)b({idx}) + a.at_flat(i) + (float)b[i];\n"
        f"    c({idx}) = (int)a.size() + c.ndim + (int)b.stride(0);\n"
        "}\n"
    )


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("bounds", [False, True], ids=["plain", "bounds_check"])
def test_kernels_using_each_header_compile(arch, bounds):
    opts = ["-DXSTRIDE_BOUNDS_CHECK"] if bounds else []
    assert_compiles(INDEX_KERNEL, arch, opts)
    assert_compiles(ATOMIC_KERNEL, arch, opts)
    # every N is compiled in test_view_layout_in_ptx_matches_packing; here a spread
    ptx = assert_compiles("".join(_views_kernel(n) for n in (1, 2, 5, 16)), arch, opts)
    # The bounds-checked build prints and traps; the plain one has neither.
    assert ("trap;" in ptx) == bounds
    assert ("vprintf" in ptx) == bounds


def test_view_layout_in_ptx_matches_packing():
    """NVRTC's parameter sizes equal 8*(1+2N) / 8*(1+N) and CudaKernel's packed sizes."""
    src = "".join(_views_kernel(n) for n in range(1, 17))
    ptx = assert_compiles(src, "sm_90")
    for n in range(1, 17):
        sizes = ptx_param_sizes(ptx, f"views{n}")
        assert sizes == [8 * (1 + 2 * n), 8 * (1 + n), 8 * (1 + 2 * n)], (n, sizes)
        k = CudaKernel(src, f"views{n}")
        assert [p.ctype.nbytes for p in k.params] == sizes


def test_mixed_signature_sizes_match_ptx():
    src = r"""
#include <xstride/array_view.cuh>
struct Params { long long n; Array2D<float> v; float s; CArray5D<double> w; char c; };
struct Small { char a; double b; int c; };
extern "C" __global__ void mixed(const float* __restrict__ x, Params p, unsigned int u,
        bool b, Small s, double d, short h, unsigned char uc, void* w, long long q,
        int* y, CArray16D<unsigned long long> big) { }
"""
    ptx = assert_compiles(src, "sm_90")
    k = CudaKernel(src, "mixed")
    assert [p.ctype.nbytes for p in k.params] == ptx_param_sizes(ptx, "mixed")
    assert k.params[1].ctype.nbytes == 8 + 40 + 8 + 48 + 8


def test_compile_failure_reports_the_log():
    ok, log, _ = nvrtc_compile('extern "C" __global__ void bad() { undefined_thing(); }', "sm_90")
    assert not ok
    assert "undefined_thing" in log


_DOC = Path(__file__).resolve().parent.parent / "docs" / "cuda-headers.md"


def _doc_kernels() -> list[str]:
    """The ```cpp blocks of docs/cuda-headers.md that define a kernel."""
    blocks = re.findall(r"```cpp\n(.*?)```", _DOC.read_text(encoding="utf-8"), re.S)
    return [b for b in blocks if "__global__" in b]


def test_the_header_docs_kernels_compile_as_written():
    """A docs probe: five of the page's six kernels named the headers' macros without
    including a header (CudaKernel includes none), so they failed to compile as written."""
    kernels = _doc_kernels()
    assert len(kernels) >= 6
    for src in kernels:
        ok, log, _ = nvrtc_compile(src, "sm_90")
        assert ok, f"{src}\n{log}"


def test_the_include_scan_reads_the_headers_nvrtc_compiles(tmp_path):
    """The scan (the cache key's digest, the HIP gate) searched ``include_dirs`` before
    the shipped folder, as the docs said, but the compiler layer gives NVRTC the
    shipped ``-I`` first: for a user folder holding its own ``xstride/index.cuh`` the
    scan read the user's header while NVRTC compiled the shipped one (so a HIP
    kernel reaching the shipped ``xstride/reduce.cuh`` that way passed the gate)."""
    from xstride._kernels._compile import module_options

    opt_dir, user_dir = tmp_path / "opt", tmp_path / "user"
    for d in (opt_dir, user_dir):
        (d / "xstride").mkdir(parents=True)
        (d / "xstride" / "index.cuh").write_text('#error "a user folder\'s index.cuh"\n')
    (opt_dir / "mine.h").write_text("#define FROM_OPTIONS 1\n")
    (user_dir / "mine.h").write_text('#error "include_dirs searched before the -I option"\n')
    src = ('#include <xstride/index.cuh>\n#include "mine.h"\n'
           'extern "C" __global__ void k(float* x) { x[0] = FROM_OPTIONS; }\n')
    k = CudaKernel(src, "k", options=(f"-I{opt_dir}",), include_dirs=[user_dir])
    graph = k._scan()
    assert graph.files == ((Path(include_dir()) / "xstride" / "index.cuh").resolve(),
                           (opt_dir / "mine.h").resolve())
    ok, log, _ = nvrtc_compile(src, "sm_90", module_options(src, k.compile_options(graph.digest)))
    assert ok, log
