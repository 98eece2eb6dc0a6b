"""CudaKernel of a kernel that a using-declaration (``using a::k;``) or a
using-directive (``using namespace a;``) brings into the scope its name is looked up in.
The name was looked up as if no ``using`` were written: ``CudaKernel(src, "k")`` after
``namespace a { __global__ void k(...) } using a::k;`` was refused ("pass its qualified
name"), though NVRTC's name expression ``k`` finds ``a::k`` there, as C++ does. The
lookup now follows them as C++ does ([namespace.udecl], [namespace.udir],
[namespace.qual]), and a name that finds kernels of two namespaces is refused as
ambiguous, naming each and the name that finds it alone.

Each accepted name is checked against NVRTC (cuda-bindings, no GPU): it compiles as a
name expression to the same kernel as the qualified name of the kernel CudaKernel read;
each refused one is refused by NVRTC too. A launch needs a device: the test marked
``gpu``.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from tests.test_cuda_headers_nvrtc import compile_named, nvrtc
from tests.test_cuda_kernel import dev, gpu  # noqa: F401  (the fixture)
from xstride._core.csource import code_only
from xstride.cuda import CudaKernel
from xstride.cuda._namespaces import namespace_blocks
from xstride.cuda._params import parse_signature
from xstride.cuda._using import find_usings

needs_nvrtc = pytest.mark.skipif(nvrtc is None, reason="cuda-bindings/nvrtc not importable")

# three kernels 'k', told apart by their first parameter's type
KA = "__global__ void k(float* x, int n) { if (n) x[0] = 1; }"
KB = "__global__ void k(double* y) {}"
KG = "__global__ void k(int* z) {}"

# (source, name, the qualified name of the kernel it finds, its first parameter's type)
FOUND = [
    (f"namespace a {{ {KA} }} using a::k;", "k", "a::k", "float*"),
    (f"namespace a {{ {KA} }} using a::k;", "::k", "a::k", "float*"),
    (f"namespace a {{ {KA} }} using ::a::k;", "k", "a::k", "float*"),
    (f"namespace a {{ {KA} }} using namespace a;", "k", "a::k", "float*"),
    (f"namespace a {{ {KA} }} using namespace a;", "::k", "a::k", "float*"),
    (f"namespace a {{ namespace b {{ {KB} }} }} using namespace a;", "b::k", "a::b::k",
     "double*"),
    (f"namespace a {{ {KA} }} namespace c {{ using a::k; }}", "c::k", "a::k", "float*"),
    (f"namespace a {{ {KA} }} namespace c {{ using namespace a; }}", "c::k", "a::k", "float*"),
    (f"namespace a {{ namespace b {{ {KB} }} }} namespace c {{ using namespace a::b; }}",
     "c::k", "a::b::k", "double*"),
    (f"namespace a {{ namespace b {{ {KB} }} }} namespace c {{ using namespace a; }}",
     "c::b::k", "a::b::k", "double*"),
    # transitive: a directive nominates a namespace whose directive nominates another
    (f"namespace a {{ {KA} }} namespace b {{ using namespace a; }}\n"
     "namespace c { using namespace b; }", "c::k", "a::k", "float*"),
    (f"namespace a {{ {KA} }} namespace c {{ using a::k; }} using namespace c;", "k", "a::k",
     "float*"),
    (f"namespace a {{ {KA} }} namespace c {{ namespace d {{ using a::k; }} }}\n"
     "using namespace c::d;", "k", "a::k", "float*"),
    (f"namespace a {{ inline namespace v1 {{ {KA} }} }} using a::k;", "k", "a::v1::k",
     "float*"),
    (f"namespace a {{ {KA} }} namespace {{ using a::k; }}", "k", "a::k", "float*"),
    (f"namespace a {{ {KA} }} namespace v {{ inline namespace i {{ using a::k; }} }}", "v::k",
     "a::k", "float*"),
    (f'namespace a {{ {KA} }} extern "C++" {{ using a::k; }}', "k", "a::k", "float*"),
    (f"namespace a {{ {KA} __global__ void m() {{}} }} using a::m, a::k;", "k", "a::k",
     "float*"),
    # the qualifier of a using-declaration is looked up where it is written
    (f"namespace a {{ {KA} }} namespace c {{ namespace a {{ {KB} }} using a::k; }}", "c::k",
     "c::a::k", "double*"),
    (f"namespace a {{ {KA} }} namespace c {{ namespace a {{ }} using ::a::k; }}", "c::k",
     "a::k", "float*"),
    # declared before the using-declaration, defined after it
    (f"namespace a {{ __global__ void k(float*, int); }} using a::k; namespace a {{ {KA} }}",
     "k", "a::k", "float*"),
    # a directive written before the kernel is declared: the name is looked up at the end
    (f"namespace a {{ }} using namespace a; namespace a {{ {KA} }}", "k", "a::k", "float*"),
    # a qualified name: what the namespace declares hides what its directives nominate
    (f"namespace a {{ {KA} }} {KG} using namespace a;", "::k", "::k", "int*"),
    (f"namespace a {{ {KA} }} namespace b {{ {KB} }}\n"
     "namespace c { using a::k; using namespace b; }", "c::k", "a::k", "float*"),
    (f"namespace x {{ namespace b {{ {KA} }} }} namespace b {{ {KB} }} using namespace x;",
     "::b::k", "::b::k", "double*"),
    (f"namespace x {{ namespace b {{ {KA} }} }} using namespace x;", "::b::k", "x::b::k",
     "float*"),
    (f"namespace a {{ {KA} }} namespace b {{ using namespace a; }}\n"
     "namespace a { using namespace b; }", "b::k", "a::k", "float*"),
    (f"namespace {{ {KA} }} {KB}", "::k", "::k", "double*"),
]

# (source, name, where the message says the kernel is, the name it says to pass): a
# using that does not reach the scope the name looks in
NOT_REACHED = [
    (f"namespace a {{ {KA} }} namespace c {{ using namespace a; }}", "k", "in namespace 'a'",
     "a::k"),
    (f"namespace a {{ {KA} }} __device__ void f() {{ using a::k; }}", "k", "in namespace 'a'",
     "a::k"),
    (f"namespace a {{ {KA} }} struct S {{ static __device__ void f() {{ using namespace a; }} "
     "};", "k", "in namespace 'a'", "a::k"),
    (f"namespace a {{ {KA} }} namespace c {{ namespace a {{ }} using a::k; }}", "c::k",
     "in namespace 'a'", "a::k"),
    (f"namespace a {{ {KA} }} namespace b {{ using namespace a; }}\n"
     "namespace a { using namespace b; }", "k", "in namespace 'a'", "a::k"),
]

# (source, name, where the kernels are declared, the names that find each alone)
AMBIGUOUS = [
    (f"namespace a {{ {KA} }} {KG} using namespace a;", "k",
     "at global scope and in namespace 'a'", "name='::k' or name='a::k'"),
    (f"namespace a {{ {KA} }} {KG} using a::k;", "k",
     "at global scope and in namespace 'a'", "name='a::k'"),
    (f"namespace a {{ {KA} }} namespace b {{ {KB} }} using namespace a; using namespace b;",
     "k", "in namespace 'a' and in namespace 'b'", "name='a::k' or name='b::k'"),
    (f"namespace a {{ {KA} }} namespace b {{ {KB} }} namespace c {{ using a::k; using b::k; }}",
     "c::k", "in namespace 'a' and in namespace 'b'", "name='a::k' or name='b::k'"),
    (f"namespace a {{ {KA} }} namespace b {{ {KA} }}\n"
     "namespace c { using namespace a; using namespace b; }", "c::k",
     "in namespace 'a' and in namespace 'b'", "name='a::k' or name='b::k'"),
    (f"namespace a {{ {KA} }} namespace b {{ {KB} }} using a::k; namespace b {{ }}\n"
     "using namespace b;", "k", "in namespace 'a' and in namespace 'b'",
     "name='a::k' or name='b::k'"),
]


@pytest.mark.parametrize("src, name, qualified, first", FOUND)
def test_a_using_brings_the_kernel_into_the_scope_its_name_is_looked_up_in(src, name,
                                                                          qualified, first):
    k = CudaKernel(src, name)
    assert k.name == name and k.signature.name == name
    assert k.params[0].ctype.text == first
    assert parse_signature(src, qualified).params == k.params


def test_the_defect_using_a_k_then_k():
    """Refused before: "no '__global__ void k(...)' at global scope ... pass its
    qualified name (name='a::k')"."""
    src = "namespace a { __global__ void k(float* x, int n) { x[0] = n; } }\nusing a::k;"
    assert [(p.name, p.ctype.text) for p in CudaKernel(src, "k").params] == [
        ("x", "float*"), ("n", "int")]
    src = src.replace("using a::k;", "using namespace a;")
    assert [p.name for p in CudaKernel(src, "k").params] == ["x", "n"]


@pytest.mark.parametrize("src, name, where, hint", NOT_REACHED)
def test_a_using_that_does_not_reach_the_name_s_scope_is_not_followed(src, name, where,
                                                                      hint):
    with pytest.raises(ValueError, match=rf"^CudaKernel '{re.escape(name)}': no '__global__ "
                       rf"void {re.escape(name)}\(\.\.\.\)'.* is declared {re.escape(where)}: "
                       rf"pass .*name='{re.escape(hint)}'"):
        CudaKernel(src, name)


@pytest.mark.parametrize("src, name, declared, names", AMBIGUOUS)
def test_a_name_that_finds_kernels_of_two_namespaces_is_refused_as_ambiguous(src, name,
                                                                            declared, names):
    with pytest.raises(ValueError, match=rf"^CudaKernel '{re.escape(name)}': "
                       rf"'{re.escape(name)}' is ambiguous: it finds the kernels 'k' declared "
                       rf"{re.escape(declared)} \(.*\), which the compiler refuses as "
                       rf"ambiguous: pass the name of the one to launch "
                       rf"\({re.escape(names)}\)"):
        CudaKernel(src, name)


def test_an_ambiguous_kernel_that_no_name_finds_alone_says_so():
    """A kernel of an inline namespace beside one of its enclosing namespace (no using
    at all): ``a::k`` finds both, and only the inline one has a name of its own; before,
    both were read as one kernel's overloads."""
    src = f"namespace a {{ {KA} }} namespace a {{ inline namespace v {{ {KB} }} }}"
    with pytest.raises(ValueError, match=r"'a::k' is ambiguous: it finds the kernels 'k' "
                       r"declared in namespace 'a' and in namespace 'a::v' .*: pass the name "
                       r"of the one to launch \(name='a::v::k'\); no name finds the one "
                       r"declared in namespace 'a' alone: rename it$"):
        CudaKernel(src, "a::k")
    assert CudaKernel(src, "a::v::k").params[0].ctype.text == "double*"
    # an anonymous namespace's kernel beside a global one: '::k' is the global one
    src = f"namespace {{ {KA} }} {KG}"
    with pytest.raises(ValueError, match=r"'k' is ambiguous: .* declared at global scope and "
                       r"in namespace '\(anonymous namespace\)' .*\(name='::k'\); no name "
                       r"finds the one declared in namespace '\(anonymous namespace\)' alone"):
        CudaKernel(src, "k")
    assert CudaKernel(src, "::k").params[0].ctype.text == "int*"


def test_a_namespace_that_a_directive_makes_ambiguous_is_refused():
    src = f"namespace x {{ namespace b {{ {KA} }} }} namespace b {{ {KB} }} using namespace x;"
    with pytest.raises(ValueError, match=r"^CudaKernel 'b::k': 'b' is ambiguous: it names "
                       r"namespace 'b' and namespace 'x::b' \(a using-directive brings a "
                       r"namespace into the scope a name looks in\); write the namespace from "
                       r"global scope, name='::b::k' or name='::x::b::k'$"):
        CudaKernel(src, "b::k")
    assert CudaKernel(src, "x::b::k").params[0].ctype.text == "float*"


def test_a_using_declaration_before_the_kernel_is_refused():
    """C++ refuses it ("namespace a has no member k"); it was read as if absent, and the
    compiler refused the source at the first launch."""
    src = f"namespace a {{ }} using a::k; namespace a {{ {KA} }}"
    with pytest.raises(ValueError, match=r"^CudaKernel 'k': 'using a::k;' comes before any "
                       r"declaration of a kernel 'k' in namespace 'a', which C\+\+ refuses "
                       r"\(a using-declaration names what is declared above it\): declare the "
                       r"kernel before it$"):
        CudaKernel(src, "k")
    assert CudaKernel(src, "a::k").params[0].ctype.text == "float*"


def test_a_using_of_what_the_source_does_not_declare_adds_nothing():
    """``using namespace std;``, a namespace of a header: the kernel at global scope is
    found as without it, and a kernel in a namespace still needs its qualified name."""
    src = f"using namespace std;\nusing cooperative_groups::thread_block;\n{KG}"
    assert CudaKernel(src, "k").params[0].ctype.text == "int*"
    with pytest.raises(ValueError, match=r"declared in namespace 'a': pass its qualified "
                       r"name \(name='a::k'\)"):
        CudaKernel(f"using namespace std; namespace a {{ {KA} }}", "k")


def test_a_kernel_of_a_global_anonymous_namespace_is_said_to_be_there():
    """The message named it 'at global scope'; it is in the anonymous namespace."""
    with pytest.raises(ValueError, match=r"a kernel 'k' is declared in namespace "
                       r"'\(anonymous namespace\)': pass name='k'$"):
        CudaKernel(f"namespace {{ {KA} }}", "a::k")


def test_find_usings_reads_what_is_written_at_namespace_scope():
    src = ("// using namespace c1;\n"
           "#define U using namespace c2;\n"
           '__constant__ char s[] = "using namespace c3;";\n'
           "using namespace a;\n"
           "namespace n { using ::b::k, c::d::k; using T = a::x; }\n"
           "using enum E; using typename a::b;\n"
           "struct S { using B::f; };\n"
           "__device__ void f() { using namespace z; }\n"
           'extern "C" { using namespace e; }\n')
    text = code_only(src)
    got = [(u.at, u.directive, u.absolute, u.path) for u in
           find_usings(text, namespace_blocks(text))]
    assert got == [((), True, False, ("a",)),
                   (("n",), False, True, ("b", "k")),
                   (("n",), False, False, ("c", "d", "k")),
                   ((), True, False, ("e",))]


def test_the_name_as_written_is_the_name_compiled(gpu):  # noqa: F811
    """The compiler resolves the name through the using itself: CudaKernel hands it
    over as written (as a name expression), not the qualified name it read."""
    src = f"namespace a {{ {KA} }} using a::k;"
    CudaKernel(src, "k")(dev(4), 1, n_threads=4)
    assert [name for _, _, name, _ in gpu.builds] == ["k"]


# ---------------------------------------------------------------- NVRTC (no GPU)
def _entries(ptx: str) -> list[str]:
    return re.findall(r"\.entry\s+(\S+?)\s*\(", ptx)


@needs_nvrtc
@pytest.mark.parametrize("src, name, qualified, first", FOUND)
def test_nvrtc_finds_the_same_kernel_by_each_accepted_name(src, name, qualified, first):
    lowered, ptx = compile_named(src, [CudaKernel(src, name).name, qualified])
    assert lowered[name] == lowered[qualified] and lowered[name] in _entries(ptx)


@needs_nvrtc
@pytest.mark.parametrize("src, name", [c[:2] for c in NOT_REACHED + AMBIGUOUS] + [
    (f"namespace x {{ namespace b {{ {KA} }} }} namespace b {{ {KB} }} using namespace x;",
     "b::k"),
    (f"namespace a {{ }} using a::k; namespace a {{ {KA} }}", "a::k"),
    (f"namespace a {{ {KA} }} namespace a {{ inline namespace v {{ {KB} }} }}", "a::k"),
    (f"namespace {{ {KA} }} {KG}", "k")])
def test_nvrtc_refuses_each_refused_name(src, name):
    with pytest.raises(AssertionError, match="is undefined|is ambiguous|cannot determine which "
                       "instance|has no member|host functions are not allowed"):
        compile_named(src, [name])


# ---------------------------------------------------------------- device
@pytest.mark.gpu
def test_kernels_brought_in_by_usings_launch(cp):
    src = ("namespace a { __global__ void one(float* x) { x[0] = 1; } }\n"
           "using a::one;\n"
           "namespace b { __global__ void two(float* x) { x[1] = 2; } }\n"
           "namespace c { using namespace b; }\n"
           "using namespace c;\n"
           "namespace d { __global__ void three(float* x) { x[2] = 3; } }\n"
           "namespace e { using d::three; }\n")
    x = cp.zeros(3, dtype=cp.float32)
    CudaKernel(src, "one")(x, n_threads=1)
    CudaKernel(src, "two")(x, n_threads=1)
    CudaKernel(src, "e::three")(x, n_threads=1)
    np.testing.assert_array_equal(cp.asnumpy(x), [1, 2, 3])
