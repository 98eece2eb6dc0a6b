"""The HIP gate's reading of struct parameters (the simulated HIP build and helpers of
tests/test_hip_gate.py): structs built with CudaStruct, complex fields, fields behind a
pointer, every definition of a struct, fields behind attributes, spelled by a macro, in
unions, complex of a template parameter (split from tests/test_hip_gate.py, past 600
lines)."""

from __future__ import annotations

import pytest

from xstride.cuda import CudaKernel, CudaStruct

from tests.test_hip_gate import cuda, hip  # noqa: F401 (fixtures)


def test_struct_built_with_cudastruct_is_gated(hip):
    S = CudaStruct("S", [("n", "int"), ("v", "Array5D<double>")])
    src = "#include <xstride/array_view.cuh>\n" + S.declaration() + "\n__global__ void k(S s) {}"
    with pytest.raises(NotImplementedError, match="high_dim_cuda_views"):
        CudaKernel(src, "k").compile()


def test_complex_fields_of_struct_parameters_are_gated(hip):
    """CudaStruct aligns a complex field as CuPy's complex is aligned for CUDA; CuPy's
    ROCm build does not, so on HIP such a struct is refused: a CudaStruct, a struct
    declared in the source, one nested in another, one behind an alias."""
    S = CudaStruct("S", [("c", "char"), ("z", "complex<double>")])
    sources = [
        S.declaration() + "\n__global__ void k(S s) {}",
        "struct T { int n; complex<float> z; };\n__global__ void k(T t) {}",
        "struct I { complex<double> z; };\nstruct O { char c; I i; };\n"
        "__global__ void k(O o) {}",
        "typedef complex<float> cf;\nstruct A { char c; cf z; };\n__global__ void k(A a) {}",
    ]
    for src in sources:
        with pytest.raises(NotImplementedError, match="complex_struct_fields"):
            CudaKernel(src, "k").compile()
    # no complex field, or a complex scalar or pointer parameter: compiled
    accepted = (
        "struct P { int n; float x; };\n__global__ void k(P p, complex<float>* z) {}",
        "__global__ void k(complex<double> z) {}",
        # complex behind a pointer, as a view's elements or in a member function: the
        # struct holds none by value (these were refused)
        "#include <xstride/array_view.cuh>\n"
        "struct Q { complex<float>* p; complex<double> const *q; "
        "Array2D<const complex<float>> v; };\n__global__ void k(Q q) {}",
        "struct M { float re, im; __device__ complex<float> z() const "
        "{ return complex<float>(re, im); } __device__ void set(complex<float> z); };\n"
        "__global__ void k(M m) {}",
        "typedef complex<double>* zp;\nstruct Z { zp p; int n; };\n__global__ void k(Z z) {}",
    )
    for src in accepted:
        CudaKernel(src, "k").compile()
    assert len(hip.builds) == len(accepted)
    # by value beside a member function, or in a struct of its own: refused
    for src in ("struct F { __device__ int f() const { return 0; } complex<float> z; };\n"
                "__global__ void k(F f) {}",
                "struct G { struct { complex<double> z; } in; int n; };\n"
                "__global__ void k(G g) {}"):
        with pytest.raises(NotImplementedError, match="complex_struct_fields"):
            CudaKernel(src, "k").compile()


def test_complex_struct_fields_compile_on_cuda(cuda):
    S = CudaStruct("S", [("c", "char"), ("z", "complex<double>")])
    CudaKernel(S.declaration() + "\n__global__ void k(S s) {}", "k").compile()
    assert len(cuda.builds) == 1


def test_complex_value_declared_after_a_complex_pointer_is_gated(hip):
    """``complex<float> *p, z;`` declares a pointer and a complex by value: the value is
    a complex field (the gate read the whole declaration as pointers and let it
    through); pointers only, ``*p, *q``, stay accepted."""
    for src in ("struct M { complex<float> *p, z; };\n__global__ void k(M m) {}",
                "struct M { int n; complex<double> const *p, z, *q; };\n"
                "__global__ void k(M m) {}"):
        with pytest.raises(NotImplementedError, match="complex_struct_fields"):
            CudaKernel(src, "k").compile()
    CudaKernel("struct M { complex<float> *p, *q; int n, m; };\n__global__ void k(M m) {}",
               "k").compile()
    assert len(hip.builds) == 1


def test_struct_fields_behind_a_pointer_are_not_gated(hip):
    """A pointer or reference member is 8 bytes whatever it points to: a pointer to a
    5-D view, to an alias of complex, or to a struct holding either is no view or
    complex field (these were refused); the same types held by value still are."""
    av = "#include <xstride/array_view.cuh>\n"
    accepted = (
        av + "struct S { Array5D<float>* p; xstride_array<double, 6> const *q; };\n"
        "__global__ void k(S s) {}",
        av + "typedef Array5D<float> V5;\nstruct S { V5* p; const V5& r; };\n"
        "__global__ void k(S s) {}",
        av + "struct I { CArray6D<int> v; };\nstruct O { const I* i; };\n"
        "__global__ void k(O o) {}",
        "typedef complex<float> cf;\nstruct A { cf* p; };\n__global__ void k(A a) {}",
        av + "typedef complex<float> cf;\nstruct A { Array2D<cf> v; };\n"
        "__global__ void k(A a) {}",
        "struct M { using cf = complex<double>; cf* p; };\n__global__ void k(M m) {}",
        "struct I { complex<float> z; };\nstruct O { I* i; int n; };\n"
        "__global__ void k(O o) {}",
    )
    for src in accepted:
        CudaKernel(src, "k").compile()
    assert len(hip.builds) == len(accepted)
    refused = {
        av + "typedef Array5D<float> V5;\nstruct S { V5* p; V5 v; };\n"
        "__global__ void k(S s) {}": "high_dim_cuda_views",
        av + "struct I { CArray6D<int> v; };\nstruct O { I* p; I i; };\n"
        "__global__ void k(O o) {}": "high_dim_cuda_views",
        "typedef complex<float> cf;\nstruct A { cf *p, z; };\n"
        "__global__ void k(A a) {}": "complex_struct_fields",
        "struct I { complex<float> z; };\nstruct O { I *p, i; };\n"
        "__global__ void k(O o) {}": "complex_struct_fields",
    }
    for src, feature in refused.items():
        with pytest.raises(NotImplementedError, match=feature):
            CudaKernel(src, "k").compile()


def test_a_struct_view_rank_with_a_suffix_is_read(hip):
    """``xstride_array<float, 4u>`` in a struct was refused as a rank "which is not an
    integer literal"; it is the literal 4 (and ``0x5`` is 5, refused as a 5-D view)."""
    av = "#include <xstride/array_view.cuh>\n"
    CudaKernel(av + "struct S { xstride_array<float, 4u> v; };\n__global__ void k(S s) {}",
               "k").compile()
    assert len(hip.builds) == 1
    with pytest.raises(NotImplementedError, match="5-dimensional view"):
        CudaKernel(av + "struct S { xstride_carray<float, 0x5> v; };\n"
                   "__global__ void k(S s) {}", "k").compile()


def test_every_definition_of_a_struct_is_gated(hip, tmp_path):
    """Of a struct defined twice (``#ifdef`` branches, a namespace's beside the global
    one, a header's and the source's), only the first definition's fields were read:
    a 5-D view or a complex field in the other was compiled on HIP."""
    av = "#include <xstride/array_view.cuh>\n"
    refused = {
        av + "#ifndef SMALL\nstruct P { Array2D<float> v; };\n#else\n"
        "struct P { Array5D<float> v; };\n#endif\n": "high_dim_cuda_views",
        av + "namespace n { struct P { float a; }; }\nstruct P { Array5D<float> v; };\n":
            "high_dim_cuda_views",
        "namespace n { struct P { float a; }; }\nstruct P { complex<float> z; };\n":
            "complex_struct_fields",
        '#include "mine.h"\nnamespace n { struct P { complex<double> z; }; }\n':
            "complex_struct_fields",
    }
    (tmp_path / "mine.h").write_text("struct P { float a; };\n")
    for src, feature in refused.items():
        with pytest.raises(NotImplementedError, match=feature):
            CudaKernel(src + "__global__ void k(P p) {}", "k", include_dirs=[tmp_path]).compile()
    CudaKernel(av + "#ifdef A\nstruct P { Array2D<float> v; };\n#else\n"
               "struct P { Array4D<float> v; };\n#endif\n__global__ void k(P p) {}",
               "k").compile()
    assert len(hip.builds) == 1


def test_fields_behind_attributes_with_parentheses_are_gated(hip):
    """An alignment or attribute specifier holding parentheses of its own
    (``alignas(sizeof(double))``, ``__attribute__((aligned(8)))``) before or after a
    field made the gate read the field as a member function and skip it: a 5-D view or
    a complex field so aligned was compiled on HIP. Member functions with attributes
    stay out."""
    av = "#include <xstride/array_view.cuh>\n"
    refused = {
        "struct S { alignas(sizeof(double)) complex<float> z; };": "complex_struct_fields",
        "struct S { __attribute__((aligned(16))) complex<float> z; };":
            "complex_struct_fields",
        "struct S { complex<double> z __attribute__((aligned(16))); int n; };":
            "complex_struct_fields",
        av + "struct S { alignas(alignof(double)) Array5D<float> v; };": "high_dim_cuda_views",
        av + "struct S { __declspec(align(8)) CArray6D<int> v; };": "high_dim_cuda_views",
    }
    for src, feature in refused.items():
        with pytest.raises(NotImplementedError, match=feature):
            CudaKernel(src + "\n__global__ void k(S s) {}", "k").compile()
    CudaKernel(av + "struct S { float a; __attribute__((noinline)) __device__ "
               "complex<float> f(Array5D<float> v) const; [[nodiscard]] __device__ "
               "complex<double> g() const { return complex<double>(); } };\n"
               "__global__ void k(S s) {}", "k").compile()
    assert len(hip.builds) == 1


def test_struct_fields_spelled_by_a_macro_are_gated(hip):
    """A field whose type is an object-like macro (``#define V5 Array5D<float>``, in
    the source, a header or a ``-D`` option) was no view or complex to the gate: it was
    compiled on HIP. A macro that spells a pointer stays accepted; an array size spelled
    by a macro is refused on every build (no integer literal: the layout is unknown)."""
    av = "#include <xstride/array_view.cuh>\n"
    refused = [
        (av + "#define V5 Array5D<float>\nstruct S { V5 v; };", (), "high_dim_cuda_views"),
        ("#define CF complex<float>\nstruct S { int n; CF z; };", (), "complex_struct_fields"),
        ("struct S { CZ z; };", ("-DCZ=complex<double>",), "complex_struct_fields"),
        ("#define CF complex<float>\r\nstruct S { CF z; };", (), "complex_struct_fields"),
    ]
    for src, options, feature in refused:
        with pytest.raises(NotImplementedError, match=feature):
            CudaKernel(src + "\n__global__ void k(S s) {}", "k", options=options).compile()
    CudaKernel(av + "#define CFP complex<float>*\n"
               "struct S { CFP p; float a[5]; Array4D<float> v; };\n__global__ void k(S s) {}",
               "k").compile()
    assert len(hip.builds) == 1
    with pytest.raises(ValueError, match="struct 'S' field 'a' \\('float a\\[N\\]'\\) is an "
                                         "array that has size 'N', which is not an integer"):
        CudaKernel(av + "#define N 5\nstruct S { float a[N]; };\n__global__ void k(S s) {}", "k")


def test_fields_of_a_typedef_of_several_declarators_are_gated(hip):
    """``typedef Array5D<float> V5, *PV5;`` made no alias ``V5`` (the table held
    ``PV5`` as ``'Array5D<float> V5, *'``): a struct field ``V5 v`` or ``cf z`` of
    ``typedef complex<float> *pcf, cf;`` was compiled on HIP. The pointer declarator
    stays a pointer, and ``typedef struct {...} S, *PS;`` is the struct ``S``."""
    av = "#include <xstride/array_view.cuh>\n"
    refused = [
        (av + "typedef Array5D<float> V5, *PV5;\nstruct S { int n; V5 v; };",
         "high_dim_cuda_views"),
        (av + "typedef Array5D<float> V5, *PV5;\n"
         "struct S { V5 v; __device__ int f() const { return 0; } };", "high_dim_cuda_views"),
        ("typedef complex<float> *pcf, cf;\nstruct S { char c; cf z; };",
         "complex_struct_fields"),
        (av + "typedef struct { Array6D<int> v; } S, *PS;", "high_dim_cuda_views"),
    ]
    for src, feature in refused:
        with pytest.raises(NotImplementedError, match=feature):
            CudaKernel(src + "\n__global__ void k(S s) {}", "k").compile()
    CudaKernel(av + "typedef Array5D<float> V5, *PV5;\ntypedef complex<float> cf, *pcf;\n"
               "struct S { PV5 p; pcf q; };\n__global__ void k(S s) {}", "k").compile()
    assert len(hip.builds) == 1


def test_a_struct_named_by_its_namespace_is_gated(hip):
    """``geo::S`` was an unknown C type (refused on every build); read as ``S``, its
    fields are what the gate reads."""
    av = "#include <xstride/array_view.cuh>\n"
    for body, feature in (("Array5D<float> v;", "high_dim_cuda_views"),
                          ("complex<double> z;", "complex_struct_fields")):
        with pytest.raises(NotImplementedError, match=feature):
            CudaKernel(av + f"namespace geo {{ struct S {{ int n; {body} }}; }}\n"
                       "__global__ void k(geo::S s) {}", "k").compile()
    assert hip.builds == []


def test_fields_behind_an_alias_template_are_gated(hip):
    """An alias template (``template <class T> using V5 = Array5D<T>;``) was left out
    of the gate's aliases, as the signature parser leaves it out: a field
    ``V5<float> v`` or ``cx<float> z`` (``complex<T>``) was compiled on HIP. A rank
    that is a template parameter (``xstride_array<float, N>``) is not read: refused."""
    av = "#include <xstride/array_view.cuh>\n"
    refused = [
        (av + "template <class T> using V5 = Array5D<T>;\nstruct S { int n; V5<float> v; };",
         "high_dim_cuda_views"),
        (av + "template <int N> using V = xstride_array<float, N>;\nstruct S { V<5> v; };",
         "high_dim_cuda_views"),
        ("template <typename T> using cx = complex<T>;\nstruct S { char c; cx<double> z[2]; };",
         "complex_struct_fields"),
    ]
    for src, feature in refused:
        with pytest.raises(NotImplementedError, match=feature):
            CudaKernel(src + "\n__global__ void k(S s) {}", "k").compile()
    # behind a pointer: 8 bytes, compiled
    CudaKernel(av + "template <class T> using V5 = Array5D<T>;\n"
               "template <typename T> using cx = complex<T>;\n"
               "struct S { V5<float>* p; cx<float>* q; };\n__global__ void k(S s) {}",
               "k").compile()
    assert len(hip.builds) == 1


def test_union_fields_of_struct_parameters_are_gated(hip):
    """A union declared apart (``union U {...};``, ``typedef union {...} U;``) and held
    by a struct parameter holds its members by value: a 5-D view or a complex in it was
    compiled on HIP (an anonymous or inline union was already refused). Behind a
    pointer it stays accepted."""
    av = "#include <xstride/array_view.cuh>\n"
    refused = {
        av + "union U { Array5D<float> a; int b; };\nstruct S { U u; };": "high_dim_cuda_views",
        "union U { complex<float> z; int b; };\nstruct S { union U u; };":
            "complex_struct_fields",
        "typedef union { complex<double> z; long long b; } U;\nstruct S { int n; U u; };":
            "complex_struct_fields",
    }
    for src, feature in refused.items():
        with pytest.raises(NotImplementedError, match=feature):
            CudaKernel(src + "\n__global__ void k(S s) {}", "k").compile()
    CudaKernel("union U { complex<float> z; int b; };\nstruct S { U* u; };\n"
               "__global__ void k(S s) {}", "k").compile()
    assert len(hip.builds) == 1


def test_complex_of_a_template_parameter_is_gated(hip):
    """``template <class T> struct W { complex<T> z; };`` held as ``W<float>`` by a
    struct parameter was compiled on HIP (only ``complex<float>``/``complex<double>``
    spelled out were seen); ``complex<int>`` and a pointer stay accepted."""
    with pytest.raises(NotImplementedError, match="complex_struct_fields"):
        CudaKernel("template <class T> struct W { complex<T> z; };\n"
                   "struct S { int n; W<float> w; };\n__global__ void k(S s) {}", "k").compile()
    CudaKernel("template <class T> struct W { complex<T>* p; complex<int> i; };\n"
               "struct S { W<float> w; };\n__global__ void k(S s) {}", "k").compile()
    assert len(hip.builds) == 1


def test_the_gate_reads_a_struct_of_thousands_of_fields_in_linear_time(hip):
    """A new-user probe: each member searched the whole text before it for a view's
    "<" and counted its parentheses, so a struct of 4,000 fields took 16 s. The gate
    still tells a view's element from a field (the last field decides)."""
    import time

    def gate(nfields, last):
        fields = "".join(f"    complex<float>* p{i}; Array2D<complex<double>> v{i};\n"
                         for i in range(nfields))
        src = ("#include <xstride/array_view.cuh>\nstruct S {\n" + fields + last +
               "};\n__global__ void k(S s) {}")
        k = CudaKernel(src, "k")
        t0 = time.perf_counter()
        try:
            k.compile()
        except NotImplementedError as exc:
            assert "complex_struct_fields" in str(exc)
            return time.perf_counter() - t0, False
        return time.perf_counter() - t0, True

    assert gate(50, "    int n;\n")[1] and not gate(50, "    complex<float> z;\n")[1]
    small = min(gate(200, "    int n;\n")[0] for _ in range(2))
    large = min(gate(2000, "    int n;\n")[0] for _ in range(2))
    assert large < 25 * small + 0.1, (small, large)   # 10x the fields: about 10x the time


_AV = "#include <xstride/array_view.cuh>\n"


@pytest.mark.parametrize("src, options, rule", [
    # an object-like macro defined in #ifdef branches, or again after an #undef: every
    # value counts (only the last was read)
    (_AV + "#ifdef BIG\n#define V Array5D<float>\n#else\n#define V Array2D<float>\n#endif\n"
     "struct S { V v; };\n__global__ void k(S s) {}", ("-DBIG",), "high_dim_cuda_views"),
    ("#ifdef USE_CPLX\n#define ELEM complex<float>\n#else\n#define ELEM float\n#endif\n"
     "struct S { ELEM z[4]; };\n__global__ void k(S s) {}", ("-DUSE_CPLX",),
     "complex_struct_fields"),
    (_AV + "#define V Array5D<float>\nstruct S { V v; };\n#undef V\n#define V Array2D<float>\n"
     "__global__ void k(S s) {}", (), "high_dim_cuda_views"),
    # an array typedef holds its elements by value (it was no alias to the gate)
    (_AV + "typedef Array5D<float> VA[2];\nstruct S { VA v; };\n__global__ void k(S s) {}",
     (), "high_dim_cuda_views"),
    (_AV + "typedef Array5D<float> V5, VA[2];\nstruct S { VA v; };\n__global__ void k(S s) {}",
     (), "high_dim_cuda_views"),
    ("typedef complex<float> CA[2];\nstruct S { CA z; };\n__global__ void k(S s) {}", (),
     "complex_struct_fields"),
    # a computed include whose macro has several definitions: each header counts
    ("#ifndef HDR\n#define HDR <xstride/index.cuh>\n#endif\n#include HDR\n"
     "__global__ void k(float* x) {}", ("-DHDR=<xstride/reduce.cuh>",), "warp_shuffle"),
    ("#ifdef USE_SCAN\n#define HDR <xstride/scan.cuh>\n#else\n#define HDR <xstride/index.cuh>\n"
     "#endif\n#include HDR\n__global__ void k(float* x) {}", ("-DUSE_SCAN",), "warp_shuffle"),
    ("#define HDR <xstride/reduce.cuh>\n#include HDR\n#undef HDR\n"
     "#define HDR <xstride/array_view.cuh>\n#include HDR\n__global__ void k(float* x) {}", (),
     "warp_shuffle"),
])
def test_what_the_preprocessor_may_choose_is_gated(hip, src, options, rule):
    """A new-user probe: a macro or a computed include defined more than once, and an
    array typedef, were read as their last definition or not at all, and kernels that
    use a listed feature passed the gate (the preprocessor is not run: every definition
    counts)."""
    with pytest.raises(NotImplementedError, match=f"rule '{rule}'"):
        CudaKernel(src, "k", options=options).compile()


@pytest.mark.parametrize("src", [
    _AV + "#define V Array2D<float>\nstruct S { V v; };\n__global__ void k(S s) {}",
    _AV + "typedef Array2D<float> VA[2];\nstruct S { VA v; };\n__global__ void k(S s) {}",
    "#define HDR <xstride/index.cuh>\n#include HDR\n__global__ void k(float* x) {}",
])
def test_one_definition_of_no_listed_feature_compiles(hip, src):
    CudaKernel(src, "k").compile()
    assert hip.builds


@pytest.mark.parametrize("src, rule", [
    # the ranks written at the use are literals: read with them (a new-user probe: "rank
    # 'N' ... may be 5 or more" refused the 2- and 3-D views the message asked for)
    ("template <class T, int N> using V = xstride_array<T, N>;\nstruct S { V<float, 3> v; };",
     None),
    ("template <int N> using F = xstride_array<float, N>;\nstruct S { F<2> v; };", None),
    ("template <int N> using F = xstride_array<float, N>;\nstruct S { F<2> a; F<5> v; };",
     "high_dim_cuda_views"),
    # a rank no literal gives (a constant, a default left unread) is refused as before
    ("constexpr int M = 3;\ntemplate <int N> using F = xstride_array<float, N>;\n"
     "struct S { F<M> v; };", "high_dim_cuda_views"),
    ("template <class T, int N = 6> using F = xstride_array<T, N>;\nstruct S { F<float> v; };",
     "high_dim_cuda_views"),
])
def test_an_alias_template_is_read_with_its_arguments(hip, src, rule):
    _verdict(hip, _AV + src, rule)


@pytest.mark.parametrize("src, rule", [
    # a nested type declared, or held behind a pointer, holds nothing in the struct (a
    # new-user probe: these were refused)
    (_AV + "struct S { struct In { Array5D<float> v; }; int n; };", None),
    (_AV + "struct S { struct In { Array5D<float> v; }; In* p; };", None),
    ("struct S { struct In { complex<float> z; }; In* p; };", None),
    # a member of the nested type held by value is its fields, as before
    (_AV + "struct S { struct In { Array5D<float> v; } in; };", "high_dim_cuda_views"),
    (_AV + "struct S { struct In { Array5D<float> v; }; In in; };", "high_dim_cuda_views"),
    (_AV + "struct S { struct { Array5D<float> v; } s; };", "high_dim_cuda_views"),
    ("struct S { struct In { complex<float> z; }; In a; };", "complex_struct_fields"),
])
def test_a_nested_type_counts_only_where_a_member_holds_it(hip, src, rule):
    _verdict(hip, src, rule)


def _verdict(hip, structs: str, rule, options=()) -> None:
    """A kernel taking ``S`` of ``structs``: compiled where ``rule`` is None, else
    refused by that rule."""
    k = CudaKernel(structs + "\n__global__ void k(S s) {}", "k", options=options)
    if rule is None:
        k.compile()
        assert hip.builds
    else:
        with pytest.raises(NotImplementedError, match=f"rule '{rule}'"):
            k.compile()


@pytest.mark.parametrize("src, options, rule", [
    # a field spelled by a function-like macro's call was read as a member function's
    # declaration and passed the gate (a new-user probe)
    (_AV + "#define V5(T) Array5D<T>\nstruct S { V5(float) v; };", (), "high_dim_cuda_views"),
    ("#define CPLX(T) complex<T>\nstruct S { int n; CPLX(float) z; };", (),
     "complex_struct_fields"),
    (_AV + "struct S { V5(float) v; };", ("-DV5(T)=Array5D<T>",), "high_dim_cuda_views"),
    (_AV + "#ifdef BIG\n#define V(T) Array5D<T>\n#else\n#define V(T) Array2D<T>\n#endif\n"
     "struct S { V(float) v; };", (), "high_dim_cuda_views"),
    # the call's value holds no listed feature, or is behind a pointer; a macro called in a
    # member function's body is no field
    (_AV + "#define V2(T) Array2D<T>\nstruct S { V2(float) v; };", (), None),
    (_AV + "#define V5(T) Array5D<T>\nstruct S { V5(float)* v; };", (), None),
    (_AV + "#define CHECK(x) (void)(x)\n"
     "struct S { int n; __device__ int f() const { CHECK(n); return n; } };", (), None),
    # a member function with a trailing return type or noexcept(...): its body's locals
    # are no fields (the gate found only "...) const {" bodies)
    ("struct S { int n; __device__ auto f() const noexcept(true) -> complex<float> "
     "{ complex<float> z; return z; } };", (), None),
])
def test_a_field_spelled_by_a_function_like_macro_is_read(hip, src, options, rule):
    _verdict(hip, src, rule, options)


@pytest.mark.parametrize("src, rule", [
    (_AV + "#define ALIGN16 __align__(16)\nstruct ALIGN16 S { Array5D<float> v; };",
     "high_dim_cuda_views"),
    ("#define ALIGN16 __align__(16)\nstruct ALIGN16 S { int n; complex<float> z; };",
     "complex_struct_fields"),
    (_AV + "#define ALIGN16 __align__(16)\nstruct ALIGN16 S { Array2D<float> v; };", None),
])
def test_a_struct_named_after_an_alignment_macro_is_read(hip, src, rule):
    """``struct ALIGN16 S {...}`` was not found ("unknown C type 'S'" for every kernel
    taking it); a name ``#define``d between ``struct`` and the struct's own is now read
    as a macro, and the gate reads the struct's fields."""
    _verdict(hip, src, rule)
