"""CudaKernel of a kernel declared in a namespace: named by its qualified name (``a::k``),
found by the signature parser inside the namespace blocks (nested, C++17 ``a::b``, inline,
anonymous), and that name handed to the compiler as its name expression. An unqualified
name of such a kernel was accepted at creation and failed at the first launch, in
NVRTC's name map (``identifier "k" is undefined``); it is refused at creation, naming the
namespace and the name to pass.

The names are checked against NVRTC (cuda-bindings, no GPU): each accepted name compiles
as a name expression and its lowered name is an entry of the PTX; each refused one is
refused by NVRTC too, and the name the message suggests compiles. A launch needs a
device: the last test, marked ``gpu``.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from tests.test_cuda_headers_nvrtc import compile_named, nvrtc
from tests.test_cuda_kernel import dev, gpu  # noqa: F401  (the fixture)
from xstride.cuda import CudaKernel
from xstride.cuda._params import parse_signature

needs_nvrtc = pytest.mark.skipif(nvrtc is None, reason="cuda-bindings/nvrtc not importable")

K = "__global__ void k(float* x, int n) { if (n) x[0] = 1; }"

# (source, name): the name finds the kernel, as C++ finds it from global scope
FOUND = [
    (f"namespace a {{ {K} }}", "a::k"),
    (f"namespace a {{ {K} }}", "::a::k"),
    (f'namespace a {{ extern "C" {K} }}', "a::k"),
    (f'extern "C" {{ namespace a {{ {K} }} }}', "a::k"),
    (f"namespace a {{ namespace b {{ {K} }} }}", "a::b::k"),
    (f"namespace a::b {{ {K} }}", "a::b::k"),
    (f"namespace a {{ inline namespace v1 {{ {K} }} }}", "a::k"),
    (f"namespace a {{ inline namespace v1 {{ {K} }} }}", "a::v1::k"),
    (f"namespace {{ {K} }}", "k"),
    (f"namespace a {{ namespace {{ {K} }} }}", "a::k"),
    ("namespace a { __global__ void k(float*, int); }\n"
     "__global__ void a::k(float* x, int n) { x[0] = n; }", "a::k"),
    (f"namespace [[deprecated]] a {{ {K} }}", "a::k"),
    (f"namespace a {{ {K} }}\nnamespace b {{ __global__ void k(double* y) {{}} }}", "a::k"),
]

# kernels at global scope, found as before the namespaces were read (guards; "::k" is new)
AS_BEFORE = [
    (K, "k"),
    (K, "::k"),
    (f'extern "C" {K}', "k"),
    (f"// namespace a {{\n{K}", "k"),
    (f'__constant__ char s[] = "namespace a {{";\n{K}', "k"),
    (f"#define OPEN namespace a {{\n{K}", "k"),
    (f"namespace a {{ }}\n{K}", "k"),
]

# (source, name, the message's namespace part, the name it says to pass)
REFUSED = [
    (f"namespace a {{ {K} }}", "k", "in namespace 'a'", "a::k"),
    (f'namespace a {{ extern "C" {K} }}', "k", "in namespace 'a'", "a::k"),
    (f"namespace a::b {{ {K} }}", "k", "in namespace 'a::b'", "a::b::k"),
    (f"namespace a {{ namespace b {{ {K} }} }}", "a::k", "in namespace 'a::b'", "a::b::k"),
    (f"namespace a {{ inline namespace v1 {{ {K} }} }}", "k", "in namespace 'a::v1'", "a::k"),
    (f"namespace a {{ namespace {{ {K} }} }}", "k",
     "in namespace 'a::(anonymous namespace)'", "a::k"),
    (f"namespace a {{ {K} }}", "b::k", "in namespace 'a'", "a::k"),
    (K, "a::k", "at global scope", "k"),
]


@pytest.mark.parametrize("src, name", FOUND + AS_BEFORE)
def test_a_qualified_name_finds_the_kernel_in_its_namespace(src, name):
    k = CudaKernel(src, name)
    assert k.name == name and k.signature.name == name
    assert [(p.name, p.ctype.text) for p in k.params] in (
        [("x", "float*"), ("n", "int")], [("arg0", "float*"), ("arg1", "int")])


def test_an_unqualified_name_of_a_kernel_in_a_namespace_is_refused_at_creation():
    """The defect: accepted, then NVRTC's 'identifier "k" is undefined' at the first
    launch."""
    with pytest.raises(ValueError, match=r"^CudaKernel 'k': no '__global__ void k\(\.\.\.\)' "
                       r"at global scope in the source; a kernel 'k' is declared in "
                       r"namespace 'a': pass its qualified name \(name='a::k'\)$"):
        CudaKernel("namespace a { __global__ void k(float* x) { x[0] = 1; } }", "k")


@pytest.mark.parametrize("src, name, where, hint", REFUSED)
def test_a_name_that_finds_no_kernel_says_where_the_kernel_is(src, name, where, hint):
    with pytest.raises(ValueError, match=rf"^CudaKernel '{re.escape(name)}': no '__global__ "
                       rf"void {re.escape(name)}\(\.\.\.\)'.* is declared {re.escape(where)}: "
                       rf"pass .*name='{re.escape(hint)}'"):
        CudaKernel(src, name)


def test_a_cxx20_nested_inline_namespace():
    """``namespace a::inline v1 {`` is C++20 (NVRTC takes it with ``-std=c++20`` in
    ``options``): ``a::k`` and ``a::v1::k`` find the kernel, ``k`` does not."""
    src = f"namespace a::inline v1 {{ {K} }}"
    assert CudaKernel(src, "a::k").params[0].ctype.text == "float*"
    assert CudaKernel(src, "a::v1::k").params[0].ctype.text == "float*"
    with pytest.raises(ValueError, match=r"namespace 'a::v1': pass its qualified name "
                       r"\(name='a::k'\)"):
        CudaKernel(src, "k")


def test_kernels_of_one_name_in_two_namespaces():
    src = f"namespace a {{ {K} }}\nnamespace b {{ __global__ void k(double* y) {{}} }}"
    with pytest.raises(ValueError, match=r"declared in namespace 'a' and in namespace 'b': "
                       r"pass the one to launch by its qualified name "
                       r"\(name='a::k' or name='b::k'\)$"):
        CudaKernel(src, "k")
    assert CudaKernel(src, "b::k").params[0].ctype.text == "double*"
    # one at global scope, one in a namespace: each name finds its own (no overload)
    both = f"{K}\nnamespace a {{ __global__ void k(double* y) {{}} }}"
    assert CudaKernel(both, "k").params[0].ctype.text == "float*"
    assert CudaKernel(both, "a::k").params[0].ctype.text == "double*"


def test_template_and_overload_checks_hold_in_a_namespace():
    with pytest.raises(ValueError, match="template kernels"):
        CudaKernel("namespace a { template <class T> __global__ void k(T* x) {} }", "a::k")
    with pytest.raises(ValueError, match="overloads"):
        CudaKernel("namespace a { __global__ void k(int a) {}\n"
                   "__global__ void k(float a) {} }", "a::k")


def test_a_struct_of_the_namespace_is_a_parameter_type():
    k = CudaKernel("namespace a { struct P { float x; int n; };\n"
                   "__global__ void k(P p) {} }", "a::k")
    assert k.params[0].ctype.kind == "struct" and k.params[0].ctype.nbytes == 8


@pytest.mark.parametrize("name", ["a::", "::", "a:: k", "a::int", "a::::k", "a.k", "a::k()"])
def test_a_name_that_is_no_qualified_name_is_refused(name):
    with pytest.raises(ValueError, match=r"argument 'name' .* is not a C identifier or the "
                       r"qualified name of a kernel in a namespace \('a::k'\)"):
        CudaKernel(f"namespace a {{ {K} }}", name)
    with pytest.raises(ValueError, match="is not a C identifier or a qualified name"):
        parse_signature(f"namespace a {{ {K} }}", name)


def test_the_qualified_name_is_the_name_compiled(gpu):  # noqa: F811
    src = f"namespace a {{ inline namespace v1 {{ {K} }} }}"
    CudaKernel(src, "a::k")(dev(4), 1, n_threads=4)
    CudaKernel(src, "a::v1::k").compile()
    assert [name for _, _, name, _ in gpu.builds] == ["a::k", "a::v1::k"]


# ---------------------------------------------------------------- NVRTC (no GPU)
def _entries(ptx: str) -> list[str]:
    return re.findall(r"\.entry\s+(\S+?)\s*\(", ptx)


@needs_nvrtc
@pytest.mark.parametrize("src, name", FOUND + AS_BEFORE)
def test_nvrtc_compiles_each_accepted_name(src, name):
    """The name expression CudaKernel hands the compiler resolves, and its lowered
    (mangled) name is an entry of the module, which is what CuPy looks up."""
    k = CudaKernel(src, name)
    lowered, ptx = compile_named(src, [k.name])
    assert lowered[k.name] in _entries(ptx)


@needs_nvrtc
@pytest.mark.parametrize("src, name, where, hint", REFUSED)
def test_nvrtc_refuses_each_refused_name_and_compiles_the_one_suggested(src, name, where,
                                                                        hint):
    with pytest.raises(AssertionError, match="is undefined|Error in parsing name expression"):
        compile_named(src, [name])
    lowered, ptx = compile_named(src, [CudaKernel(src, hint).name])
    assert lowered[hint] in _entries(ptx)


@needs_nvrtc
def test_nvrtc_lowered_names_of_namespaced_and_global_kernels():
    src = (f'namespace a {{ {K} }}\nnamespace a::b {{ extern "C" __global__ void e() {{}} }}'
           f"\nnamespace {{ __global__ void h() {{}} }}\n__global__ void g() {{}}")
    lowered, _ = compile_named(src, ["a::k", "a::b::e", "h", "g", "::g"])
    assert lowered["a::k"] == "_ZN1a1kEPfi"
    assert lowered["a::b::e"] == "e"            # extern "C": the plain name
    assert lowered["g"] == lowered["::g"] == "_Z1gv"
    assert "_GLOBAL__N_" in lowered["h"]       # anonymous: a name of this compile


# ---------------------------------------------------------------- device
@pytest.mark.gpu
def test_namespaced_kernels_launch(cp):
    src = (f"namespace a {{ inline namespace v1 {{ {K} }} }}\n"
           "namespace b::c { extern \"C\" __global__ void two(float* x) { x[1] = 2; } }\n"
           "namespace { __global__ void three(float* x) { x[2] = 3; } }\n")
    x = cp.zeros(3, dtype=cp.float32)
    CudaKernel(src, "a::k")(x, 1, n_threads=1)
    CudaKernel(src, "b::c::two")(x, n_threads=1)
    CudaKernel(src, "three")(x, n_threads=1)
    np.testing.assert_array_equal(cp.asnumpy(x), [1, 2, 3])
