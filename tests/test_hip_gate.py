"""The HIP gate on a simulated HIP build: ``compile()`` refuses exactly the three rules
(reduce/scan headers, views of 5+ dimensions, bounds-checked views) and accepts the
rest; ``capabilities()`` and ``xstride.kernel_testing`` report the same table."""

from __future__ import annotations

import re
import sys
from types import SimpleNamespace

import pytest

import xstride.kernel_testing as kt
from xstride.cuda import _device, _hip_rules
from xstride.cuda import kernel as ck
from xstride.cuda._launch_config import Limits
from xstride.cuda import CudaKernel

HIP_PROPS = {
    "id": 0, "name": "AMD Instinct MI250X", "arch": "gfx90a:sramecc+:xnack-",
    "compute_capability": None, "warp_size": 64, "multiprocessors": 110,
    "total_memory_bytes": 64 * 2**30, "max_threads_per_block": 1024,
    "max_grid_size": [2**31 - 1, 65535, 65535], "is_hip": True,
}
CUDA_PROPS = dict(HIP_PROPS, name="NVIDIA H200", arch="sm_90", compute_capability="9.0",
                  warp_size=32, is_hip=False)


def _fake_device(monkeypatch, props):
    builds = []
    monkeypatch.setattr(_device, "is_hip", lambda: props["is_hip"])
    monkeypatch.setattr(_device, "device_properties", lambda device_id=None: dict(props))
    monkeypatch.setattr(ck, "_current_device", lambda: 0)
    monkeypatch.setattr(ck, "_device_limits", lambda d: Limits())
    monkeypatch.setattr(ck, "_build", lambda s, o, n: builds.append((s, o, n)) or
                        (lambda *a, **k: None))
    monkeypatch.delenv("XSTRIDE_CUDA_DEBUG", raising=False)
    return SimpleNamespace(builds=builds)


@pytest.fixture
def hip(monkeypatch):
    """A simulated ROCm/HIP build: is_hip() is true, device properties are AMD's."""
    return _fake_device(monkeypatch, HIP_PROPS)


@pytest.fixture
def cuda(monkeypatch):
    return _fake_device(monkeypatch, CUDA_PROPS)


def _struct_src(ndim: int) -> str:
    return ("#include <xstride/array_view.cuh>\n"
            f"struct Holder {{ long long n; CArray{ndim}D<float> v; }};\n"
            "__global__ void k(Holder h, float* out) {}\n")


REFUSED = {
    "reduce.cuh": ("#include <xstride/reduce.cuh>\n__global__ void k(float* x) {}",
                   {}, "warp_shuffle", "xstride/reduce.cuh"),
    "scan.cuh": ('#include "xstride/scan.cuh"\n__global__ void k(float* x) {}',
                 {}, "warp_shuffle", "xstride/scan.cuh"),
    "scan via user header": ('#include "mine.h"\n__global__ void k(float* x) {}',
                             {"header": "#include <xstride/scan.cuh>\n"}, "warp_shuffle",
                             "mine.h -> xstride/scan.cuh"),
    "Array5D parameter": ("#include <xstride/array_view.cuh>\n"
                          "__global__ void k(float* y, Array5D<float> a) {}",
                          {}, "high_dim_cuda_views", "parameter 'a' (Array5D<float>)"),
    "CArray16D parameter": ("#include <xstride/array_view.cuh>\n"
                            "__global__ void k(CArray16D<const double> a) {}",
                            {}, "high_dim_cuda_views", "16-dimensional view"),
    "xstride_array<T, 7>": ("#include <xstride/array_view.cuh>\n"
                            "__global__ void k(xstride_array<int, 7> a) {}",
                            {}, "high_dim_cuda_views", "7-dimensional"),
    # array members are fields held by value: each element is a view or a complex
    "array of CArray5D in a struct": (
        "#include <xstride/array_view.cuh>\nstruct S { int n; CArray5D<float> v[2]; };\n"
        "__global__ void k(S s) {}", {}, "high_dim_cuda_views",
        "parameter 's' (S) has a struct field with a 5-dimensional view"),
    "array of structs of Array6D in a struct": (
        "#include <xstride/array_view.cuh>\nstruct In { Array6D<float> a; };\n"
        "struct S { In ins[3][2]; };\n__global__ void k(S s) {}", {}, "high_dim_cuda_views",
        "parameter 's' (S) has a struct field with a 6-dimensional view"),
    "array of complex<float> in a struct": (
        "struct S { int n; complex<float> z[2]; };\n__global__ void k(S s) {}", {},
        "complex_struct_fields", "parameter 's' (S) has a complex field"),
    "array of structs of complex<double> in a struct": (
        "struct In { complex<double> z; };\nstruct S { char c; In m[2][2]; };\n"
        "__global__ void k(S s) {}", {}, "complex_struct_fields",
        "parameter 's' (S) has a complex field"),
    "struct field CArray5D": (_struct_src(5), {}, "high_dim_cuda_views",
                              "parameter 'h' (Holder) has a struct field with a 5-dimensional"),
    # views in a struct the parameter's struct holds, where one of the two bodies is not
    # a plain field list, or behind an alias: were compiled on HIP
    "CArray5D in a struct with a method, in a struct": (
        "#include <xstride/array_view.cuh>\n"
        "struct Inner { CArray5D<float> a; __device__ int n() const { return 0; } };\n"
        "struct Outer { Inner i; int n; };\n__global__ void k(Outer o) {}",
        {}, "high_dim_cuda_views", "parameter 'o' (Outer) has a struct field with a 5-dim"),
    "Array6D in a struct, in a struct with a method": (
        "#include <xstride/array_view.cuh>\nstruct In2 { Array6D<float> a; };\n"
        "struct Out2 { In2 i; __device__ int g() const { return 1; } };\n"
        "__global__ void k(Out2 o) {}",
        {}, "high_dim_cuda_views", "6-dimensional view"),
    # a base class's fields were not looked at (compiled on HIP)
    "Array5D in a base class": (
        "#include <xstride/array_view.cuh>\nstruct B { Array5D<float> v; };\n"
        "struct __align__(16) D : public B { int n; };\n__global__ void k(D d) {}",
        {}, "high_dim_cuda_views", "parameter 'd' (D) has a struct field with a 5-dim"),
    "complex in a base class": (
        "struct B { complex<float> z; };\nstruct D : B { int n; };\n__global__ void k(D d) {}",
        {}, "complex_struct_fields", "parameter 'd' (D) has a complex field"),
    "typedef of Array5D in a struct": (
        "#include <xstride/array_view.cuh>\ntypedef Array5D<float> V5;\n"
        "struct S { V5 v; };\n__global__ void k(S s) {}",
        {}, "high_dim_cuda_views", "5-dimensional view"),
    "using alias of xstride_carray<T, 9> in a header's struct": (
        '#include "mine.h"\n__global__ void k(S s) {}',
        {"header": "#include <xstride/array_view.cuh>\n"
                   "using V9 = xstride_carray<double, 9>;\n"
                   "struct S { V9 v; __device__ void f() {} };\n"},
        "high_dim_cuda_views", "9-dimensional view"),
    # an alias named with a letter beyond ASCII was not read as one (compiled on HIP)
    "typedef of Array5D named beyond ASCII": (
        "#include <xstride/array_view.cuh>\ntypedef Array5D<float> Ξ;\n"
        "struct S { Ξ v; };\n__global__ void k(S s) {}",
        {}, "high_dim_cuda_views", "5-dimensional view"),
    # an alias as a parameter's type was an unknown C type; it is the view it names
    "using alias of Array5D as a parameter": (
        "#include <xstride/array_view.cuh>\nusing V5 = Array5D<float>;\n"
        "__global__ void k(V5 a) {}",
        {}, "high_dim_cuda_views", "parameter 'a' (Array5D<float>) takes a 5-dimensional"),
    # an alias of a 5-D view in one #ifdef branch, of a 2-D one in the other: the last
    # was read alone (compiled on HIP with -DBIG)
    "alias of Array5D in one #ifdef branch": (
        "#include <xstride/array_view.cuh>\n#ifdef BIG\ntypedef Array5D<float> V;\n#else\n"
        "typedef Array2D<float> V;\n#endif\nstruct S { V v; };\n__global__ void k(S s) {}",
        {"options": ("-DBIG",)}, "high_dim_cuda_views", "5-dimensional view"),
    # a rank written as a constant was not read (compiled on HIP): it may be 5 or more
    "xstride_array of a constexpr rank in a struct": (
        "#include <xstride/array_view.cuh>\nconstexpr int D = 6;\n"
        "struct S { xstride_array<float, D> v; };\n__global__ void k(S s) {}",
        {}, "high_dim_cuda_views", "a view of rank 'D', which is not an integer literal"),
    "debug=True": ("#include <xstride/array_view.cuh>\n__global__ void k(Array1D<float> a) {}",
                   {"debug": True}, "bounds_check_views", "-DXSTRIDE_BOUNDS_CHECK"),
    "option -D": ("__global__ void k(float* a) {}",
                  {"options": ("-DXSTRIDE_BOUNDS_CHECK",)}, "bounds_check_views",
                  "-DXSTRIDE_BOUNDS_CHECK"),
    # NVRTC's long spelling and the flag and name as two options were compiled on HIP
    "option --define-macro=": ("__global__ void k(float* a) {}",
                               {"options": ("--define-macro=XSTRIDE_BOUNDS_CHECK",)},
                               "bounds_check_views", "--define-macro=XSTRIDE_BOUNDS_CHECK"),
    "-U then -D": ("__global__ void k(float* a) {}",
                   {"options": ("-UXSTRIDE_BOUNDS_CHECK", "-DXSTRIDE_BOUNDS_CHECK")},
                   "bounds_check_views", "-DXSTRIDE_BOUNDS_CHECK"),
    "options -D, name": ("__global__ void k(float* a) {}",
                         {"options": ("-D", "XSTRIDE_BOUNDS_CHECK=1")}, "bounds_check_views",
                         "-D XSTRIDE_BOUNDS_CHECK=1"),
    "options --define-macro, name": ("__global__ void k(float* a) {}",
                                     {"options": ("--define-macro", "XSTRIDE_BOUNDS_CHECK")},
                                     "bounds_check_views",
                                     "--define-macro XSTRIDE_BOUNDS_CHECK"),
    "#define across a line continuation": (
        "#define \\\n  XSTRIDE_BOUNDS_CHECK\n#include <xstride/array_view.cuh>\n"
        "__global__ void k(Array1D<float> a) {}", {}, "bounds_check_views",
        "defines XSTRIDE_BOUNDS_CHECK"),
    "reduce.cuh after '/*' in a // comment": (
        "// old: /* \n#include <xstride/reduce.cuh>\n__global__ void k(float* x) {}\n// */\n",
        {}, "warp_shuffle", "xstride/reduce.cuh"),
    # an #include continued by a backslash-newline was missed (compiled on HIP)
    "reduce.cuh across a line continuation": (
        "#include \\\n  <xstride/reduce.cuh>\n__global__ void k(float* x) {}",
        {}, "warp_shuffle", "xstride/reduce.cuh"),
    "scan.cuh with '#' and 'include' on two lines": (
        '#\\\ninclude "xstride/scan.cuh"\n__global__ void k(float* x) {}',
        {}, "warp_shuffle", "xstride/scan.cuh"),
    # headers NVRTC includes first by an option were not looked at (compiled on HIP)
    "option --pre-include=": ("__global__ void k(float* x) {}",
                              {"options": ("--pre-include=xstride/reduce.cuh",)},
                              "warp_shuffle", "xstride/reduce.cuh"),
    "options -include, header": ("__global__ void k(float* x) {}",
                                 {"options": ("-include", "mine.h"),
                                  "header": "#include <xstride/scan.cuh>\n"},
                                 "warp_shuffle", "mine.h -> xstride/scan.cuh"),
    # a computed include (#include NAME) was not followed (compiled on HIP)
    "reduce.cuh by a computed include": (
        "#define HDR <xstride/reduce.cuh>\n#include HDR\n__global__ void k(float* x) {}",
        {}, "warp_shuffle", "xstride/reduce.cuh"),
    "reduce.cuh by a computed include, CRLF lines": (
        "#define HDR <xstride/reduce.cuh>\r\n#include HDR\r\n__global__ void k(float* x) {}",
        {}, "warp_shuffle", "xstride/reduce.cuh"),
    "scan.cuh by a macro of a later header": (
        '#include "mine.h"\n#define H2 HDR\n#include H2\n__global__ void k(float* x) {}',
        {"header": '#define HDR "xstride/scan.cuh"\n'}, "warp_shuffle", "xstride/scan.cuh"),
    "reduce.cuh by a macro of a -D option": (
        "#include HDR\n__global__ void k(float* x) {}",
        {"options": ("-DHDR=<xstride/reduce.cuh>",)}, "warp_shuffle", "xstride/reduce.cuh"),
    # "%:" is C++'s digraph of "#" (NVRTC reads it so): its directives were not seen
    # (compiled on HIP)
    "reduce.cuh by a digraph %:include": (
        "%:include <xstride/reduce.cuh>\n__global__ void k(float* x) {}",
        {}, "warp_shuffle", "xstride/reduce.cuh"),
    "scan.cuh by a digraph %:define of a computed include": (
        '%:define HDR "xstride/scan.cuh"\n%: include HDR\n__global__ void k(float* x) {}',
        {}, "warp_shuffle", "xstride/scan.cuh"),
    "Array5D behind a digraph %:define in a struct": (
        "#include <xstride/array_view.cuh>\n%:define V5 Array5D<float>\n"
        "struct S { V5 v; };\n__global__ void k(S s) {}",
        {}, "high_dim_cuda_views", "5-dimensional view"),
    "a digraph %:define of XSTRIDE_BOUNDS_CHECK": (
        "%:define XSTRIDE_BOUNDS_CHECK\n#include <xstride/array_view.cuh>\n"
        "__global__ void k(Array1D<float> a) {}", {}, "bounds_check_views",
        "defines XSTRIDE_BOUNDS_CHECK"),
    # a form feed or vertical tab is a blank in a directive line, as NVRTC reads it
    # (the scans took "[ \t]" only: these directives were not seen, compiled on HIP)
    "reduce.cuh by #<form feed>include": (
        "#\finclude <xstride/reduce.cuh>\n__global__ void k(float* x) {}",
        {}, "warp_shuffle", "xstride/reduce.cuh"),
    "scan.cuh by a computed include of vertical tabs": (
        '\v#define\vHDR "xstride/scan.cuh"\n#include\vHDR\v\n__global__ void k(float* x) {}',
        {}, "warp_shuffle", "xstride/scan.cuh"),
    "Array5D behind a #<form feed>define in a struct": (
        "#include <xstride/array_view.cuh>\n\f#\fdefine V5\fArray5D<float>\n"
        "struct S { V5 v; };\n__global__ void k(S s) {}",
        {}, "high_dim_cuda_views", "5-dimensional view"),
    "a #define<form feed>XSTRIDE_BOUNDS_CHECK": (
        "#define\fXSTRIDE_BOUNDS_CHECK\n#include <xstride/array_view.cuh>\n"
        "__global__ void k(Array1D<float> a) {}", {}, "bounds_check_views",
        "defines XSTRIDE_BOUNDS_CHECK"),
    # a /* */ comment that spans lines does not end a directive, as NVRTC reads it
    # (the scans kept the comment's line breaks: these were not seen, compiled on HIP)
    "reduce.cuh by an #include written across a comment's lines": (
        "# /* a\n b */ include /*\n*/ <xstride/reduce.cuh>\n__global__ void k(float* x) {}",
        {}, "warp_shuffle", "xstride/reduce.cuh"),
    "scan.cuh by a computed include whose #define spans a comment": (
        "#define HDR /*\n*/ <xstride/scan.cuh>\n#include HDR\n__global__ void k(float* x) {}",
        {}, "warp_shuffle", "xstride/scan.cuh"),
    "Array5D behind a #define that spans a comment": (
        "#include <xstride/array_view.cuh>\n#define V5 /* a 5-D view\n */ Array5D<float>\n"
        "struct S { V5 v; };\n__global__ void k(S s) {}",
        {}, "high_dim_cuda_views", "5-dimensional view"),
    "a #define of XSTRIDE_BOUNDS_CHECK across a comment's lines": (
        "#define /*\n*/ XSTRIDE_BOUNDS_CHECK\n#include <xstride/array_view.cuh>\n"
        "__global__ void k(Array1D<float> a) {}", {}, "bounds_check_views",
        "defines XSTRIDE_BOUNDS_CHECK"),
    # GCC's #include_next, which NVRTC reads (in the source, an #include): not seen
    "reduce.cuh by an #include_next": (
        "#include_next <xstride/reduce.cuh>\n__global__ void k(float* x) {}",
        {}, "warp_shuffle", "xstride/reduce.cuh"),
    "scan.cuh by a computed %:include_next": (
        "#define HDR <xstride/scan.cuh>\n%:include_next HDR\n__global__ void k(float* x) {}",
        {}, "warp_shuffle", "xstride/scan.cuh"),
    # in a header name '//' is no comment (NVRTC opens xstride//reduce.cuh): the scan
    # cut the name at '//' and followed nothing
    "reduce.cuh by <xstride//reduce.cuh>": (
        "#include <xstride//reduce.cuh>\n__global__ void k(float* x) {}",
        {}, "warp_shuffle", "xstride//reduce.cuh"),
    "scan.cuh by a commented #include_next <xstride//scan.cuh>": (
        "# /* a */ include_next /**/ <xstride//scan.cuh> // b\n__global__ void k(float* x) {}",
        {}, "warp_shuffle", "xstride//scan.cuh"),
    "#define": ("#define XSTRIDE_BOUNDS_CHECK\n#include <xstride/array_view.cuh>\n"
                "__global__ void k(Array1D<float> a) {}", {}, "bounds_check_views",
                "defines XSTRIDE_BOUNDS_CHECK"),
}

ACCEPTED = {
    "plain": ("__global__ void k(float* x, int n) {}", {}),
    # a new-user probe: the options act in order, so a define undone by a later -U
    # leaves the kernel without bounds checks; the gate refused it on HIP
    "-DXSTRIDE_BOUNDS_CHECK undone by -U": (
        "__global__ void k(float* x) {}",
        {"options": ("-DXSTRIDE_BOUNDS_CHECK", "-UXSTRIDE_BOUNDS_CHECK")}),
    "--define-macro undone by -U, name": (
        "__global__ void k(float* x) {}",
        {"options": ("--define-macro=XSTRIDE_BOUNDS_CHECK=1", "-U", "XSTRIDE_BOUNDS_CHECK")}),
    "Array4D + CArray4D": ("#include <xstride/array_view.cuh>\n"
                           "__global__ void k(Array4D<float> a, CArray4D<int> b) {}", {}),
    "struct field CArray4D": (_struct_src(4), {}),
    "arrays of CArray4D, of complex pointers and of floats in a struct": (
        "#include <xstride/array_view.cuh>\nstruct S { CArray4D<float> v[3]; "
        "complex<float>* p[2]; float f[4][4]; };\n__global__ void k(S s) {}", {}),
    "struct of a struct of CArray4D, aliases of Array4D": (
        "#include <xstride/array_view.cuh>\ntypedef Array4D<float> V4;\n"
        "struct In { CArray4D<float> a; V4 b; __device__ int f() const { return 0; } };\n"
        "struct Out { In i; In* self; };\n__global__ void k(Out o) {}", {}),
    "typedef of Array4D as a parameter": (
        "#include <xstride/array_view.cuh>\ntypedef Array4D<float> V4;\n"
        "__global__ void k(V4 a) {}", {}),
    # no data member of a 5-D view type (these were refused): a member function's
    # parameter or result, a static member, a field named like an alias
    "5-D views in member functions and a static member": (
        "#include <xstride/array_view.cuh>\n"
        "struct S { int n; __device__ static void f(Array5D<float> a) {}\n"
        "  __device__ CArray6D<float> g() const; __device__ Array5D<float> operator[](int i);\n"
        "  static Array7D<int> z; };\n__global__ void k(S s) {}", {}),
    "a field named like an alias of a 5-D view": (
        "#include <xstride/array_view.cuh>\ntypedef Array5D<float> V;\n"
        "struct S { int V; float w = sizeof(V); };\n__global__ void k(S s) {}", {}),
    "index/array_view/atomic": ("#include <xstride/index.cuh>\n#include <xstride/atomic.cuh>\n"
                                "__global__ void k(CArray2D<float> a) {}", {}),
    "random/morton": ("#include <xstride/random.cuh>\n#include <xstride/morton.cuh>\n"
                      "__global__ void k(unsigned long long* keys) {}", {}),
    "debug=False explicitly": ("#include <xstride/array_view.cuh>\n"
                               "__global__ void k(Array1D<float> a) {}", {"debug": False}),
    "a comment naming reduce.cuh": ("// #include <xstride/reduce.cuh>\n"
                                    "/* Array5D<float> a */ __global__ void k(float* a) {}", {}),
    "#define in a block comment": ("/*\n#define XSTRIDE_BOUNDS_CHECK\n*/\n"
                                   "#include <xstride/array_view.cuh>\n"
                                   "__global__ void k(Array1D<float> a) {}", {}),
    # a directive after code on a comment's last line is none
    "an #include after code and a comment": (
        "__device__ int a; /* a\n */ int b; #include <xstride/reduce.cuh>\n"
        "__global__ void k(float* a) {}", {}),
    # a comment in a header name is part of the name (NVRTC finds no such file)
    "a comment in a header name": ("#include </*x*/xstride/reduce.cuh>\n"
                                   "__global__ void k(float* a) {}", {}),
    # a raw string's line that reads as an #include was taken for one
    "reduce.cuh in a raw string": ('const char* doc = R"(\n#include <xstride/reduce.cuh>\n)";\n'
                                   "__global__ void k(float* a) {}", {}),
    # a raw string's line that reads as a #define was taken for one
    "#define in a raw string": ('const char* doc = R"(\n#define XSTRIDE_BOUNDS_CHECK\n)";\n'
                                "#include <xstride/array_view.cuh>\n"
                                "__global__ void k(Array1D<float> a) {}", {}),
    "other -D options": ("__global__ void k(float* a) {}",
                         {"options": ("-DXSTRIDE_BOUNDS_CHECKER=1", "-DN=5", "-D", "M",
                                      "--define-macro=XSTRIDE_BOUNDS", "-DXSTRIDE")}),
}


def _kernel(src, extra, tmp_path):
    extra = dict(extra)
    header = extra.pop("header", None)
    if header is not None:
        (tmp_path / "mine.h").write_text(header)
        extra["include_dirs"] = [tmp_path]
    return CudaKernel(src, "k", **extra)


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_hip_refuses(hip, tmp_path, case):
    src, extra, feature, detail = REFUSED[case]
    k = _kernel(src, extra, tmp_path)
    with pytest.raises(NotImplementedError, match=f"rule '{feature}'") as info:
        k.compile()
    msg = str(info.value)
    assert "CudaKernel 'k'" in msg and "HIP" in msg and detail in msg
    assert _hip_rules.rule(feature).reason in msg
    assert hip.builds == []


def test_an_include_next_searches_the_folders_after_its_file_s(hip, tmp_path):
    """A wrapper header ``x.h`` of one include folder that includes the next folder's
    ``x.h`` by ``#include_next <x.h>`` (as NVRTC reads it): the second ``x.h``, which
    includes ``xstride/reduce.cuh``, was never read, and the kernel was compiled on
    HIP. The folders before the wrapper's, its own included, are not searched."""
    d1, d2 = tmp_path / "d1", tmp_path / "d2"
    d1.mkdir()
    d2.mkdir()
    (d1 / "x.h").write_text("#include_next <x.h>\n")
    (d2 / "x.h").write_text("#include <xstride/reduce.cuh>\n")
    k = CudaKernel("#include <x.h>\n__global__ void k(float* x) {}", "k", include_dirs=[d1, d2])
    with pytest.raises(NotImplementedError, match=r"x\.h -> x\.h -> xstride/reduce\.cuh"):
        k.compile()
    # the wrapper alone: its #include_next finds nothing after its own folder
    k = CudaKernel("#include <x.h>\n__global__ void k(float* x) {}", "k", include_dirs=[d1])
    assert [e.path for e in k._scan().edges] == [(d1 / "x.h").resolve(), None]
    assert hip.builds == []


def test_a_user_header_named_like_a_shipped_one_does_not_hide_it(hip, tmp_path):
    """NVRTC is given the shipped ``-I`` before the user's (the compiler layer puts it
    first), so ``<xstride/reduce.cuh>`` is the shipped header even where an include
    folder holds its own ``xstride/reduce.cuh``; the scan searched the user's folder
    first, took that file for the one compiled, and the kernel passed the gate."""
    (tmp_path / "xstride").mkdir()
    (tmp_path / "xstride" / "reduce.cuh").write_text("// a HIP-friendly reduce?\n")
    k = CudaKernel("#include <xstride/reduce.cuh>\n__global__ void k(float* x) {}", "k",
                   include_dirs=[tmp_path])
    with pytest.raises(NotImplementedError, match="rule 'warp_shuffle'"):
        k.compile()
    assert hip.builds == []


@pytest.mark.parametrize("spell", [lambda d: ("--include-path", d), lambda d: (f"-I {d}",),
                                   lambda d: (f"-I  {d}",)],
                         ids=["--include-path DIR", "-I<space>DIR", "-I<spaces>DIR"])
def test_every_spelling_of_an_include_folder_option_is_searched(hip, tmp_path, spell):
    """NVRTC reads ``--include-path`` and the folder as two options, and ``-I DIR`` as
    one; the scan did not (only ``-I DIR`` as two options, ``-IDIR`` and
    ``--include-path=DIR``): the folder's headers were unknown (a struct of one was
    "unknown C type"), unhashed, and a kernel reaching ``xstride/reduce.cuh`` through
    one was compiled on HIP."""
    (tmp_path / "box.h").write_text("#include <xstride/reduce.cuh>\n"
                                    "struct Box { double lo; double hi; };\n")
    k = CudaKernel('#include "box.h"\n__global__ void k(Box b) {}', "k",
                   options=spell(str(tmp_path)))
    assert k.params[0].ctype.nbytes == 16
    with pytest.raises(NotImplementedError, match=r"box\.h -> xstride/reduce\.cuh"):
        k.compile()
    assert hip.builds == []


def test_hip_gate_runs_on_zero_size_launches(hip):
    k = CudaKernel("#include <xstride/reduce.cuh>\n__global__ void k(int n) {}", "k")
    with pytest.raises(NotImplementedError, match="rule 'warp_shuffle'"):
        k(3, n_threads=0)
    assert hip.builds == []


@pytest.mark.parametrize("case", sorted(ACCEPTED))
def test_hip_accepts(hip, tmp_path, case):
    src, extra = ACCEPTED[case]
    _kernel(src, extra, tmp_path).compile()
    assert len(hip.builds) == 1


@pytest.mark.parametrize("case", sorted(REFUSED) + sorted(ACCEPTED))
def test_cuda_accepts_everything(cuda, tmp_path, case):
    src, extra = (REFUSED[case][:2] if case in REFUSED else ACCEPTED[case])
    _kernel(src, extra, tmp_path).compile()
    assert len(cuda.builds) == 1


def test_several_rules_are_all_named(hip):
    src = ("#include <xstride/reduce.cuh>\nstruct C { char c; complex<float> z; };\n"
           "__global__ void k(Array6D<float> a, C c) {}")
    with pytest.raises(NotImplementedError) as info:
        CudaKernel(src, "k", debug=True).compile()
    msg = str(info.value)
    assert all(f"'{r.feature}'" in msg for r in _hip_rules.RULES)


def test_capabilities_report_every_rule_on_hip(hip):
    from xstride.cuda import capabilities

    caps = capabilities()
    assert caps["backend"] == "hip" and caps["is_hip"] is True
    assert caps["device"]["warp_size"] == 64
    assert set(caps["features"]) == {r.feature for r in _hip_rules.RULES}
    for r in _hip_rules.RULES:
        assert caps["features"][r.feature] == {"available": False, "reason": r.reason,
                                               "trigger": r.trigger}
    assert not kt.warp_shuffle_available()
    assert not kt.high_dim_cuda_views_available()
    assert not kt.bounds_check_views_available()
    mark = kt.requires_warp_shuffle
    assert mark.mark.name == "skipif" and mark.mark.args == (True,)
    assert "warp_shuffle" in mark.mark.kwargs["reason"] and "64 lanes" in mark.mark.kwargs["reason"]


def test_capabilities_on_cuda(cuda):
    from xstride.cuda import capabilities

    caps = capabilities()
    assert caps["backend"] == "cuda"
    assert all(row == {"available": True, "reason": "", "trigger": r.trigger}
               for r, row in zip(_hip_rules.RULES, caps["features"].values()))
    assert kt.warp_shuffle_available() and kt.high_dim_cuda_views_available()
    assert kt.bounds_check_views_available()
    assert kt.requires_bounds_check_views.mark.args == (False,)


def test_without_a_device_nothing_is_available(monkeypatch):
    def no_device(device_id=None):
        raise RuntimeError("backend 'cupy' is unavailable: no device answers")

    monkeypatch.setattr(_device, "device_properties", no_device)
    assert not kt.feature_available("warp_shuffle")
    reason = kt.requires_high_dim_cuda_views.mark.kwargs["reason"]
    assert "no device" in reason
    from xstride.cuda import capabilities

    rows = capabilities()["features"]
    for r in _hip_rules.RULES:   # what triggers each rule, with or without a device
        assert rows[r.feature] == {"available": False, "reason": "no device",
                                   "trigger": r.trigger}


def test_kernel_testing_agrees_with_the_table():
    for r in _hip_rules.RULES:
        assert callable(getattr(kt, f"{r.feature}_available"))
        assert r.marker == f"requires_{r.feature}" and r.marker in kt.__all__
        # every rule has a trigger
        assert r.headers or r.min_view_ndim or r.bounds_check or r.complex_fields
    assert [r.feature for r in _hip_rules.RULES] == [
        "warp_shuffle", "high_dim_cuda_views", "bounds_check_views", "complex_struct_fields"]
    with pytest.raises(AttributeError, match="requires_nothing"):
        kt.requires_nothing  # noqa: B018
    with pytest.raises(KeyError, match="feature_available: argument 'feature' is an unknown "
                                       "feature 'nothing'; known: warp_shuffle"):
        kt.feature_available("nothing")
    for bad in (3, None, b"warp_shuffle"):   # was a KeyError "unknown feature 3"
        with pytest.raises(TypeError, match="feature_available: argument 'feature' got .*; "
                                            "expected a str, one of: warp_shuffle"):
            kt.feature_available(bad)
    with pytest.raises(KeyError):
        _hip_rules.rule("nothing")


UNRESOLVED = {
    "function-like macro": ("#define H(x) <xstride/x.cuh>\n#include H(reduce)\n", "H(reduce)"),
    "macro of a function-like macro": ("#define H(x) <xstride/x.cuh>\n#define HDR H(scan)\n"
                                       "#include HDR\n", "HDR"),
    "macro defined nowhere": ("#include NOWHERE\n", "NOWHERE"),
}


@pytest.mark.parametrize("case", sorted(UNRESOLVED))
def test_an_include_the_scan_cannot_resolve_is_refused(hip, case):
    """``#define H(x) <xstride/x.cuh>`` then ``#include H(reduce)``: the scan did not
    read the line as an include at all, so the gate did not see ``reduce.cuh`` and the
    kernel was compiled on HIP. An include whose header the scan cannot name is now
    refused, saying which one and to write the header name."""
    head, spec = UNRESOLVED[case]
    k = CudaKernel(head + "__global__ void k(float* x) {}", "k")
    with pytest.raises(NotImplementedError,
                       match=rf"CudaKernel 'k' cannot be checked for a HIP \(ROCm\) build: "
                             rf"the include '#include {re.escape(spec)}' in the source "
                             r"could not be resolved .* Write the header name"):
        k.compile()
    assert hip.builds == []


def test_an_unresolved_include_of_a_header_names_the_header(hip, tmp_path):
    (tmp_path / "mine.h").write_text("#define H(x) <xstride/x.cuh>\n#include H(reduce)\n")
    k = CudaKernel('#include "mine.h"\n__global__ void k(float* x) {}', "k",
                   include_dirs=[tmp_path])
    with pytest.raises(NotImplementedError, match=r"'#include H\(reduce\)' in mine\.h"):
        k.compile()
    assert hip.builds == []


def test_an_object_like_macro_naming_a_shipped_header_is_followed(hip):
    k = CudaKernel("#define HDR <xstride/reduce.cuh>\n#include HDR\n"
                   "__global__ void k(float* x) {}", "k")
    assert k._scan().unresolved == ()
    with pytest.raises(NotImplementedError, match=r"rule 'warp_shuffle'.*\(xstride/reduce\.cuh\)"):
        k.compile()


def test_cuda_compiles_an_include_the_scan_cannot_resolve(cuda):
    """On CUDA the compiler expands the macro; only the digest cannot cover the header."""
    k = CudaKernel("#define H(x) <xstride/x.cuh>\n#include H(reduce)\n"
                   "__global__ void k(float* x) {}", "k")
    assert [e.spec for e in k._scan().unresolved] == ["H(reduce)"]
    k.compile()
    assert len(cuda.builds) == 1


def test_is_hip_answers_alike_whoever_imported_cupy(monkeypatch):
    """A ROCm build of CuPy on a host where no device answers (a login node): is_hip()
    said False before CuPy was imported and True after, where capabilities() says no
    device; now False both ways, and True once a device answers."""
    import types

    from xstride._backends import registry

    runtime = types.SimpleNamespace(is_hip=True, getDeviceCount=lambda: 0)
    fake = types.SimpleNamespace(cuda=types.SimpleNamespace(runtime=runtime))
    backend = registry.get("cupy")
    monkeypatch.setattr(backend, "_checked", None)
    monkeypatch.setitem(sys.modules, "cupy", None)     # not importable: False
    assert _device.is_hip() is False
    monkeypatch.setitem(sys.modules, "cupy", fake)     # imported, no device: False
    assert _device.is_hip() is False
    assert _device.is_hip() is False
    runtime.getDeviceCount = lambda: 1                 # a device answers: the flag
    monkeypatch.setattr(backend.executor("compile"), "on_cupy_loaded", lambda cupy: None)
    assert _device.is_hip() is True


@pytest.mark.parametrize("options", [("--pre-include=mine.h",), ("-include", "mine.h"),
                                     ("-include=mine.h",)])
def test_a_pre_include_in_the_current_folder_is_scanned(hip, tmp_path, monkeypatch, options):
    """NVRTC finds a pre-include's relative name in the current folder before any
    ``-I`` folder (libnvrtc 13): a new-user probe's ``./mine.h`` reaching scan.cuh was
    read by the compiler and by no scan (compiled on HIP, and an edit of it left the
    cache key as it was). Where an ``-I`` folder holds a ``mine.h`` too, the current
    folder's is the one scanned, as compiled."""
    here, other = tmp_path / "here", tmp_path / "other"
    here.mkdir(), other.mkdir()
    (here / "mine.h").write_text("#include <xstride/scan.cuh>\n#define SCALE 2.0f\n")
    (other / "mine.h").write_text("#define SCALE 3.0f\n")
    monkeypatch.chdir(here)
    k = CudaKernel("__global__ void k(float* x) { x[0] = SCALE; }", "k", options=options,
                   include_dirs=[other])
    assert [p.name for p in k._scan().files][:1] == ["mine.h"]
    assert k._scan().files[0].parent == here.resolve()
    with pytest.raises(NotImplementedError, match="rule 'warp_shuffle'"):
        k.compile()
    assert hip.builds == []


def test_an_edited_pre_include_in_the_current_folder_changes_the_options(cuda, tmp_path,
                                                                         monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mine.h").write_text("#define SCALE 2.0f\n")
    k = CudaKernel("__global__ void k(float* x) { x[0] = SCALE; }", "k",
                   options=["--pre-include=mine.h"])
    before = k.compile_options(k._scan().digest)
    (tmp_path / "mine.h").write_text("#define SCALE 3.0f\n")
    assert k.compile_options(k._scan().digest) != before


@pytest.mark.parametrize("digest, exc", [(5, TypeError), (b"ab", TypeError),
                                         ("xyz", ValueError), ("12 34", ValueError)])
def test_compile_options_checks_its_digest(digest, exc):
    k = CudaKernel("__global__ void k(float* x) {}", "k")
    with pytest.raises(exc, match=r"compile_options: argument 'digest'"):
        k.compile_options(digest)
    assert k.compile_options("0123abcdef")[-1].endswith("0x0123abcdef")


def test_a_compile_error_names_every_option_the_compiler_got(cuda, monkeypatch):
    """``CudaCompileError.options`` and its message hold the compiler layer's
    ``-std=c++17`` and shipped ``-I`` too (a new-user probe: they held the kernel's own
    options only, so the build could not be repeated from them)."""
    class CompileException(Exception):
        def get_message(self):
            return "k.cu(1): error: oops"

    def fail(source, options, name):
        raise CompileException()

    monkeypatch.setattr(ck, "_build", fail)
    k = CudaKernel("__global__ void k(float* x) { oops; }", "k", options=["-DA=1"])
    with pytest.raises(ck.CudaCompileError) as info:
        k.compile()
    opts = info.value.options
    assert opts[:2] == ("-std=c++17", f"-I{ck._executors.include_dir()}")
    assert "-DA=1" in opts and any(o.startswith("-DXSTRIDE_HEADERS_SHA256=") for o in opts)
    assert " ".join(opts) in str(info.value) and info.value.log == "k.cu(1): error: oops"


def test_a_pre_include_is_pinned_when_the_kernel_is_made(cuda, tmp_path, monkeypatch):
    """A review: a ``chdir`` between the kernel's making and its compile made the
    signature read ``float`` from one ``real.h`` while the scan and NVRTC read ``double``
    from another; the current folder's header is now named by its absolute path in the
    kernel's options, so every later step reads that one."""
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir(), b.mkdir()
    (a / "real.h").write_text("typedef float real;\n")
    (b / "real.h").write_text("typedef double real;\n")
    monkeypatch.chdir(a)
    k = CudaKernel("__global__ void k(real s) { }", "k", options=["--pre-include=real.h"])
    assert k.options == (f"--pre-include={(a / 'real.h').resolve()}",)
    monkeypatch.chdir(b)
    k.compile()
    assert k._scan().files[0] == (a / "real.h").resolve()
    assert cuda.builds[-1][1][0] == f"--pre-include={(a / 'real.h').resolve()}"
    assert len(k._pack([1.5])[0]) == 4


def test_pre_includes_with_the_current_folder_removed(cuda, tmp_path, monkeypatch):
    """A review: ``Path.cwd()`` of a removed folder raised ``FileNotFoundError`` for
    every kernel with a pre-include, absolute ones too."""
    inc, gone = tmp_path / "inc", tmp_path / "gone"
    inc.mkdir(), gone.mkdir()
    (inc / "mine.h").write_text("#define SCALE 2.0f\n")
    monkeypatch.chdir(gone)
    gone.rmdir()
    src = "__global__ void k(float* x) { x[0] = SCALE; }"
    for opts, dirs in ([[f"--pre-include={inc / 'mine.h'}"], []],
                       [["-include", "mine.h"], [inc]]):
        k = CudaKernel(src, "k", options=opts, include_dirs=dirs)
        assert [p.name for p in k._scan().files] == ["mine.h"]
