"""CudaKernel's signature parsing without a GPU: every kind of parameter, scalar types,
views of every rank, syntax variants, unknown types, array bounds, kernel lookup errors,
repeated names, stray commas, C keywords as names, a const after a view type and line
continuations (split from tests/test_cuda_kernel.py, past 600 lines)."""

from __future__ import annotations

import numpy as np
import pytest

from xstride.cuda._params import parse_signature
from xstride.cuda._signature import parse_type
from xstride.cuda import CudaKernel

from tests.test_cuda_kernel import SRC


def test_signature_reads_every_kind():
    k = CudaKernel(SRC, "k")
    got = [(p.name, p.ctype.kind, p.ctype.dtype, p.ctype.ndim, p.ctype.const) for p in k.params]
    assert got == [
        ("x", "pointer", np.float32, 0, True), ("y", "pointer", np.float32, 0, False),
        ("a", "view", np.float64, 3, False), ("c", "cview", np.int32, 2, False),
        ("p", "struct", None, 0, False), ("i", "scalar", np.int32, 0, False),
        ("u", "scalar", np.uint32, 0, False), ("f", "scalar", np.float32, 0, False),
        ("b", "scalar", np.bool_, 0, False), ("q", "scalar", np.int64, 0, False)]
    assert [p.ctype.nbytes for p in k.params] == [8, 8, 56, 24, 56, 4, 4, 4, 1, 8]


@pytest.mark.parametrize("text,dtype", [
    ("char", np.int8), ("signed char", np.int8), ("unsigned char", np.uint8),
    ("short", np.int16), ("unsigned short int", np.uint16), ("int", np.int32),
    ("signed", np.int32), ("unsigned", np.uint32), ("long", np.int64),
    ("unsigned long", np.uint64), ("long long int", np.int64),
    ("unsigned long long", np.uint64), ("long long unsigned", np.uint64),
    ("size_t", np.uint64), ("ptrdiff_t", np.int64), ("int8_t", np.int8),
    ("uint64_t", np.uint64), ("__half", np.float16), ("double", np.float64),
    ("const float", np.float32), ("complex<float>", np.complex64),
    ("thrust::complex<double>", np.complex128),
])
def test_scalar_types(text, dtype):
    ct = parse_type(text)
    assert ct.kind == "scalar" and ct.dtype == np.dtype(dtype)


@pytest.mark.parametrize("n", range(1, 17))
def test_views_of_every_rank(n):
    src = (f'#include <xstride/array_view.cuh>\n__global__ void v(Array{n}D<float> a, '
           f'CArray{n}D<const double> b, xstride_array<int, {n}> c) {{}}')
    k = CudaKernel(src, "v")
    assert [(p.ctype.kind, p.ctype.ndim, p.ctype.nbytes) for p in k.params] == [
        ("view", n, 8 * (1 + 2 * n)), ("cview", n, 8 * (1 + n)), ("view", n, 8 * (1 + 2 * n))]
    assert k.params[1].ctype.const and k.params[2].ctype.dtype == np.int32


def test_signature_syntax_variants():
    src = r"""
    // __global__ void k(int nope);   (a comment: ignored)
    __global__ void k(float*, const float x[], unsigned int, float* const p);
    template <typename T> __device__ T twice(T v) { return v + v; }
    extern "C" {
    __global__ void __launch_bounds__(256) k(float*, const float x[], unsigned int,
                                             float* const p) { }
    }
    """
    k = CudaKernel(src, "k")
    assert [(p.name, p.ctype.kind, p.ctype.const) for p in k.params] == [
        ("arg0", "pointer", False), ("x", "pointer", True), ("arg2", "scalar", False),
        ("p", "pointer", False)]


def test_half_after_a_whole_type_is_a_name():
    """``half`` and ``__half`` are typedef names, not keywords: in ``int half`` the word
    is the parameter's name, as NVRTC reads it. It was taken for the end of the type
    ('unknown C type 'int half''), and a struct field ``int half;`` made its struct one
    of unknown layout (only its name checked)."""
    k = CudaKernel("__global__ void k(float* x, int half, unsigned long __half, half h,\n"
                   "                  const half, __half*) {}", "k")
    assert [(p.name, p.ctype.text) for p in k.params] == [
        ("x", "float*"), ("half", "int"), ("__half", "unsigned long"), ("h", "half"),
        ("arg4", "half"), ("arg5", "__half*")]
    k = CudaKernel("struct P { int half; float __half; };\n__global__ void k(P p) {}", "k")
    assert [(f, c.text) for f, c in k.params[0].ctype.fields] == [("half", "int"),
                                                                   ("__half", "float")]


def test_a_macro_in_a_signature_is_named_as_a_macro(tmp_path):
    """A type spelled by a macro (``#define REAL float`` then ``REAL* x``, in the
    source, a header or a ``-D`` option) is not expanded: the parser does not run the
    preprocessor. It was refused as "pointers to 'REAL' are not supported (use a scalar
    pointer or void*)", which sent the user the wrong way; the message says it is a
    macro and what to write instead."""
    (tmp_path / "types.h").write_text("#pragma once\n#define ARGS float* x, int n\n")
    hint = ("is a macro, which the signature parser does not expand (it does not run the "
            "preprocessor); write the type, or name it with a typedef or using alias")
    cases = [
        ("#define REAL float\n__global__ void k(REAL* x) {}", {},
         "parameter 0 ('x'): unknown C type 'REAL*': 'REAL' "),
        ("__global__ void k(int n, const REAL x) {}", {"options": ["-DREAL=double"]},
         "parameter 1 ('x'): unknown C type 'const REAL': 'REAL' "),
        ('#include "types.h"\n__global__ void k(ARGS) {}', {"include_dirs": [tmp_path]},
         "parameter 0 ('arg0'): unknown C type 'ARGS': 'ARGS' "),
        ("#define REAL float\ntypedef REAL real;\n__global__ void k(real* x) {}", {},
         "parameter 0 ('x'): unknown C type 'real*' (read through its aliases as 'REAL *'): "
         "'REAL' "),
    ]
    for src, kw, match in cases:
        with pytest.raises(ValueError) as info:
            CudaKernel(src, "k", **kw)
        assert str(info.value) == "CudaKernel 'k': " + match + hint
    # a more precise reason is kept, the macro named after it
    with pytest.raises(ValueError, match="the view's rank 'D' is not an integer literal; "
                                         "write the rank as a literal \\(or use ArrayND<T>\\); "
                                         "'D' is a macro, which"):
        CudaKernel("#define D 5\n__global__ void k(xstride_array<float, D> a) {}", "k")
    # no macro: the type is unknown, as before
    with pytest.raises(ValueError, match="unknown C type 'REAL\\*': pointers to 'REAL'"):
        CudaKernel("__global__ void k(REAL* x) {}", "k")


def test_no_parameters():
    assert CudaKernel('__global__ void k() {}', "k").params == ()
    assert CudaKernel('__global__ void k(void) {}', "k").params == ()


@pytest.mark.parametrize("decl,match", [
    ("float3 v", "unknown C type 'float3'"),
    ("Unknown* p", "unknown C type"),
    ("float** p", "pointers to pointers"),
    ("float& r", "reference"),
    ("Array17D<float> a", "1 to 16 dimensions"),
    ("Array2D<float3> a", "view element type"),
    ("std::vector<int> v", "unknown C type"),
])
def test_unknown_c_types_are_value_errors(decl, match):
    with pytest.raises(ValueError, match=match) as info:
        CudaKernel(f"__global__ void k(int ok, {decl}) {{}}", "k")
    assert "parameter 1" in str(info.value) and "CudaKernel 'k'" in str(info.value)


def test_one_array_bound_is_a_pointer():
    """``float x[4]`` is C's ``float* x`` (two bounds or more are refused by name:
    tests/test_cuda_signature_types.py)."""
    assert CudaKernel("__global__ void k(float x[4]) {}", "k").params[0].ctype.kind == "pointer"


def test_kernel_lookup_errors():
    with pytest.raises(ValueError, match="no '__global__ void other"):
        CudaKernel("__global__ void k() {}", "other")
    with pytest.raises(ValueError, match="no '__global__ void k"):
        CudaKernel("__device__ void k() {}", "k")
    with pytest.raises(ValueError, match="template kernels"):
        CudaKernel("template <typename T> __global__ void k(T* x) {}", "k")
    with pytest.raises(ValueError, match="overloads"):
        CudaKernel("__global__ void k(int a) {}\n__global__ void k(float a) {}", "k")


def test_a_repeated_parameter_name_is_refused():
    """It was accepted (NVRTC refuses it at the first launch; the argument checks name
    arguments by their C names)."""
    with pytest.raises(ValueError, match=r"^CudaKernel 'k': parameter 1 repeats the name 'a'"):
        CudaKernel("__global__ void k(int a, float* a) {}", "k")
    k = CudaKernel("__global__ void k(int, int arg1, float b) {}", "k")
    assert [p.name for p in k.params] == ["arg0", "arg1", "b"]


@pytest.mark.parametrize("plist, index", [("int a,", 1), (", int a", 0), ("int a,, int b", 1),
                                           ("int a, /* gone */ , float* b", 1)])
def test_an_empty_parameter_is_a_stray_comma(plist, index):
    """``k(int a,)`` was "parameter 1 ('arg1'): unknown C type ''", an unnamed parameter of
    no type; the empty parameter is named as what it is (NVRTC refuses the source too)."""
    with pytest.raises(ValueError, match=rf"^CudaKernel 'k': parameter {index} is empty "
                                         r"\(a stray comma\)$"):
        CudaKernel(f"__global__ void k({plist}) {{}}", "k")
    assert CudaKernel("__global__ void k( ) {}", "k").params == ()


def test_an_unclosed_parameter_list_names_the_kernel():
    with pytest.raises(ValueError, match=r"^CudaKernel 'k': unbalanced parentheses"):
        CudaKernel("__global__ void k(float* x {}", "k")


def test_parse_signature_direct_label():
    sig = parse_signature("__global__ void f(int a) {}", "f", label="mine")
    assert sig.name == "f" and sig.params[0].name == "a"
    with pytest.raises(ValueError, match="^mine: parameter 0 \\('b'\\): unknown C type 'Foo'"):
        parse_signature("__global__ void f(Foo b) {}", "f", label="mine")


@pytest.mark.parametrize("word", ["int", "float", "struct", "__global__", "return"])
def test_c_keywords_cannot_name_kernels_structs_or_fields(word):
    import xstride as xp

    with pytest.raises(ValueError, match="is not a valid C identifier|is not a C identifier"):
        xp.cuda.CudaStruct(word, [("a", "int")])
    with pytest.raises(ValueError, match="is not a valid C identifier|is not a C identifier"):
        xp.cuda.CudaStruct("S", [(word, "int")])
    with pytest.raises(ValueError, match="is not a C identifier"):
        xp.cuda.CudaKernel(f'extern "C" __global__ void {word}(float* x) {{}}', word)
    with pytest.raises(ValueError, match="is not a C identifier"):
        xp.cuda.ElementwiseKernel("float32 x", "float32 y", "y = x", word)


def test_a_const_after_a_view_type_is_the_parameter_s_own():
    """``Array2D<const float> const a`` (a const parameter, as ``float* const p`` and
    ``Params const p`` are taken) was an unknown C type."""
    src = ("#include <xstride/array_view.cuh>\n__global__ void k(Array2D<const float> const a,"
           " CArray1D<int>const b, xstride_array<double, 3> const c) {}")
    k = CudaKernel(src, "k")
    assert [(p.name, p.ctype.kind, p.ctype.ndim, p.ctype.const) for p in k.params] == [
        ("a", "view", 2, True), ("b", "cview", 1, False), ("c", "view", 3, False)]


def test_line_continuations_join_lines():
    """A backslash-newline joins two lines before C reads anything: ``int \\<newline>
    n`` was an unknown C type 'int \\'."""
    src = ("struct P { long long \\\n n; };\n__global__ void \\\nk(const float* \\\n x, "
           "unsigned \\\r\n int n, P p) {}")
    k = CudaKernel(src, "k")
    assert [(p.name, p.ctype.kind, str(p.ctype.dtype)) for p in k.params] == [
        ("x", "pointer", "float32"), ("n", "scalar", "uint32"), ("p", "struct", "None")]
    assert k.params[2].ctype.fields[0][0] == "n"
