"""Kernel signatures without a GPU: declarators and named types the C signature
parser reads (pointers to arrays, aliases, enums, the word ``restrict``)."""

from __future__ import annotations

import re

import pytest

from xstride.cuda import CudaKernel


def _params(src: str):
    return [(p.name, p.ctype.kind, p.ctype.text) for p in CudaKernel(src, "k").params]


@pytest.mark.parametrize("decl, name, text, how", [
    ("float x[4][4]", "x", "a 2-dimensional array ('float x[4][4]')",
     "declare it 'float* x' (one bound, 'float x[]', is that pointer) and index it "
     "yourself, or take an 'Array2D<float>' view"),
    ("const double y [][3] [2]", "y", "a 3-dimensional array ('const double y [][3] [2]')",
     "'const double* y'"),
    ("int [2][2]", "arg1", "a 2-dimensional array ('int [2][2]')", "'int* arg1'"),
    ("float (*x)[4]", "x", "a pointer to arrays ('float (*x)[4]')",
     "declare it 'float* x' (one bound, 'float x[]', is that pointer) and index it "
     "yourself, or take an 'Array2D<float>' view"),
    ("const double (* __restrict__ y)[3][2]", "y",
     "a pointer to arrays ('const double (* __restrict__ y)[3][2]')", "'Array3D<const double>'"),
    ("int (*)[2]", "arg1", "a pointer to arrays ('int (*)[2]')", "'int* arg1'"),
    ("float (&r)[4]", "r", "a reference to an array ('float (&r)[4]')", "'Array1D<float>'"),
])
def test_array_parameters_are_named(decl, name, text, how):
    """``float x[4][4]`` was "parameter 1 ('arg1'): unknown C type 'float x[4]'" (the
    first bound read as the pointer, the name taken for a type word), ``float (*x)[4]``
    "unknown C type 'float (*x)': pointers to 'float (' are not supported"; both are
    refused by their name, with what to declare instead."""
    with pytest.raises(ValueError, match=re.escape(
            f"CudaKernel 'k': parameter 1 ({name!r}) is declared as {text}, which is not "
            "supported; a parameter is a scalar, a pointer, an ArrayND<T> / CArrayND<T> view "
            "or a struct: declare it ")) as info:
        CudaKernel(f"__global__ void k(int ok, {decl}) {{}}", "k")
    assert how in str(info.value)


def test_restrict_last_is_the_parameters_name():
    """C++ has no ``restrict``: ``float* restrict`` declares a parameter called
    ``restrict`` (it was dropped as a qualifier, the parameter called ``arg0``). Before a
    name it is still read as the qualifier a ``#define restrict __restrict__`` makes it."""
    assert _params("__global__ void k(float* restrict, int restrict2) {}") == [
        ("restrict", "pointer", "float*"), ("restrict2", "scalar", "int")]
    assert _params("__global__ void k(const double* restrict) {}") == [
        ("restrict", "pointer", "const double*")]
    assert [p.name for p in CudaKernel("__global__ void k(float restrict[]) {}", "k").params] \
        == ["restrict"]
    assert _params("#define restrict __restrict__\n"
                   "__global__ void k(float* restrict x, const int* __restrict__ y) {}") == [
        ("x", "pointer", "float*"), ("y", "pointer", "const int*")]


def test_alias_parameter_types_are_read_as_their_types(tmp_path):
    """``typedef Array4D<float> V; __global__ void k(V a)`` was "unknown C type 'V'":
    aliases of scalars, pointers, views and structs, declared in the source or a
    header, are read as the type they name (through chains of aliases too)."""
    (tmp_path / "types.h").write_text("typedef unsigned long long u64;\n"
                                      "using cfloat_p = const float*;\n")
    k = CudaKernel("#include <xstride/array_view.cuh>\n#include \"types.h\"\n"
                   "typedef Array4D<float> V;\nusing W = CArray2D<const double>;\n"
                   "typedef u64 index_t;\ntypedef float real;\n"
                   "struct S { V v; index_t n; };\ntypedef S S2;\n"
                   "__global__ void k(V a, W b, index_t n, cfloat_p x, const index_t* p,\n"
                   "                  Array3D<real> c, S2 s) {}", "k", include_dirs=[tmp_path])
    got = [(p.name, p.ctype.kind, p.ctype.text, p.ctype.ndim, str(p.ctype.dtype),
            p.ctype.const) for p in k.params]
    assert got == [
        ("a", "view", "Array4D<float>", 4, "float32", False),
        ("b", "cview", "CArray2D<const double>", 2, "float64", True),
        ("n", "scalar", "unsigned long long", 0, "uint64", False),
        ("x", "pointer", "const float*", 0, "float32", True),
        ("p", "pointer", "const unsigned long long *", 0, "uint64", True),
        ("c", "view", "Array3D<float>", 3, "float32", False),
        ("s", "struct", "S", 0, "None", False)]
    # the struct of an alias field is a plain field list, checked field by field
    assert [(f, c.kind) for f, c in k.params[6].ctype.fields] == [("v", "view"), ("n", "scalar")]


def test_a_typedef_of_several_declarators_defines_each_name():
    """``typedef float real, *preal;`` declares two aliases; ``preal`` was read as the
    type ``'float real, *'`` and ``real`` was unknown, as were the names of ``typedef
    struct {...} P, *PP;`` and ``typedef enum {...} E, *PE;`` (all accepted by NVRTC).
    The specifiers are shared, a declarator's ``*`` and its qualifiers are its own; an
    array or function declarator names no type read here."""
    k = CudaKernel("#include <xstride/array_view.cuh>\n"
                   "typedef float real, *preal, * const cpreal, arr4[4], (*fn)(int);\n"
                   "typedef const double cd, *pcd;\ntypedef Array2D<float> V, W;\n"
                   "typedef struct { int n; float x; } P, *PP;\n"
                   "typedef enum { A, B } E, *PE;\nstruct S { int m; };\ntypedef S S1, S2;\n"
                   "__global__ void k(real a, preal b, cpreal c, pcd d, W w, P p, E e,\n"
                   "                  S2 s) {}", "k")
    assert [(p.name, p.ctype.kind, str(p.ctype.dtype), p.ctype.const) for p in k.params] == [
        ("a", "scalar", "float32", False), ("b", "pointer", "float32", False),
        ("c", "pointer", "float32", False), ("d", "pointer", "float64", True),
        ("w", "view", "float32", False), ("p", "struct", "None", False),
        ("e", "scalar", "int32", False), ("s", "struct", "None", False)]
    assert [f for f, _ in k.params[5].ctype.fields] == ["n", "x"]
    for alias in ("arr4", "fn", "PP", "PE"):
        with pytest.raises(ValueError, match=f"parameter 0 \\('x'\\): unknown C type '{alias}'"):
            CudaKernel("typedef float real, arr4[4], (*fn)(int);\n"
                       "typedef struct { int n; } P, *PP;\ntypedef enum { A } E, *PE;\n"
                       f"__global__ void k({alias} x) {{}}", "k")


def test_a_qualified_type_name_is_read_by_its_name():
    """``geo::Box`` (a struct of a namespace named from global scope), ``::size_t`` and
    ``Array2D<geo::real>`` were unknown C types, where NVRTC compiles them; the tables
    of structs and aliases are read without scopes, so a qualified name is the type
    its last part names, as the unqualified one is (and the HIP gate reads the struct)."""
    k = CudaKernel("#include <xstride/array_view.cuh>\n"
                   "namespace geo { struct Box { float lo, hi; }; typedef double real; }\n"
                   "__global__ void k(geo::Box b, const ::geo::Box c, ::size_t n,\n"
                   "                  Array2D<geo::real> a, geo::real* p, ::Array1D<int> v,\n"
                   "                  ::thrust::complex<float> z) {}", "k")
    assert [(p.name, p.ctype.kind, p.ctype.text) for p in k.params] == [
        ("b", "struct", "Box"), ("c", "struct", "Box"), ("n", "scalar", "size_t"),
        ("a", "view", "Array2D<double>"), ("p", "pointer", "double *"),
        ("v", "view", "Array1D<int>"), ("z", "scalar", "complex<float>")]
    assert [f for f, _ in k.params[0].ctype.fields] == ["lo", "hi"]
    # a member of a template instance is no type read here
    with pytest.raises(ValueError, match=re.escape("parameter 0 ('b'): unknown C type 'W<1>::T'")):
        CudaKernel("template <int N> struct W { typedef float T; };\n"
                   "__global__ void k(W<1>::T b) {}", "k")


def test_a_const_alias_of_a_pointer_is_a_const_pointer_not_a_const_pointee():
    """``const P`` with ``P`` = ``float*`` is ``float* const``: the kernel may write
    through it, so it must not take a read-only array as ``const float*`` would."""
    k = CudaKernel("typedef float* P;\ntypedef const float cf;\n"
                   "__global__ void k(const P a, P const b, cf* c) {}", "k")
    assert [(p.ctype.kind, p.ctype.const) for p in k.params] == [
        ("pointer", False), ("pointer", False), ("pointer", True)]


@pytest.mark.parametrize("src, match", [
    ("typedef Foo V;\n__global__ void k(V a) {}",
     "parameter 0 ('a'): unknown C type 'V' (read through its aliases as 'Foo')"),
    ("typedef float* P;\n__global__ void k(P* a) {}",
     "parameter 0 ('a'): unknown C type 'P*' (read through its aliases as 'float* *'): "
     "pointers to pointers are not supported"),
    ("#include <xstride/array_view.cuh>\ntypedef Array4D<float> V;\n__global__ void k(V* a) {}",
     "pointers to 'Array4D<float>' are not supported"),
])
def test_an_alias_of_an_unsupported_type_says_what_it_names(src, match):
    with pytest.raises(ValueError, match=re.escape(match)) as info:
        CudaKernel(src, "k")
    assert str(info.value).startswith("CudaKernel 'k': parameter 0 ('a'): unknown C type ")


@pytest.mark.parametrize("src, name", [
    ("#ifdef USE_DOUBLE\ntypedef double real;\n#else\ntypedef float real;\n#endif\n"
     "__global__ void k(real a) {}", "real"),
    # a typedef of a struct's scope beside the global one
    ("typedef float real;\nstruct Acc { typedef double real; real v; };\n"
     "__global__ void k(real a) {}", "real"),
    # behind another alias, and in the header and the source
    ('#include "real.h"\nusing real = double;\ntypedef const real* in_t;\n'
     "__global__ void k(in_t a) {}", "real"),
])
def test_an_alias_defined_as_two_types_is_refused_by_name(tmp_path, src, name):
    """An alias defined twice (``#ifdef`` branches, which the parser does not evaluate,
    or two scopes) was read as its last definition: with ``-DUSE_DOUBLE`` a ``real``
    parameter was packed as a 4-byte float where the kernel takes a double."""
    (tmp_path / "real.h").write_text("typedef float real;\n")
    with pytest.raises(ValueError, match=re.escape(
            "CudaKernel 'k': parameter 0 ('a'): type ")) as info:
        CudaKernel(src, "k", options=("-DUSE_DOUBLE",), include_dirs=[tmp_path])
    msg = str(info.value)
    assert f"{name!r}" in msg and "defined more than once, as " in msg \
        and "'double'" in msg and "'float'" in msg and "give each definition its own name" in msg


@pytest.mark.parametrize("src", [
    "typedef double real;\n__device__ float f() { typedef float real; return 0; }\n",
    "typedef double real;\n",   # the kernel's own body below holds the other
    "using real = double;\nauto g = [](int a) { using real = float; return a; };\n",
])
def test_an_alias_inside_a_function_body_is_local(src):
    """A new-user probe: a ``typedef`` (or ``using``) inside a function's body made the
    global alias of its name "defined more than once" and the kernel was refused; it
    names nothing seen from namespace scope, where the parameter's type is read."""
    k = CudaKernel(src + "__global__ void k(real x) { typedef float real; real y = x; }", "k")
    assert str(k.params[0].ctype.dtype) == "float64"


def test_an_alias_after_a_block_that_never_closes_is_global():
    """A review: two function heads in ``#ifdef`` branches share one body, so one
    ``{`` never closes; the rest of the text was taken for that function's body and
    a global ``typedef`` after it was no alias ("unknown C type 'real'")."""
    head = ("#ifdef USE_LONG\n__device__ long g(long a) {\n#else\n__device__ int g(int a) {\n"
            "#endif\n  return a;\n}\n")
    k = CudaKernel(head + "typedef double real;\n__global__ void k(real x) {}", "k")
    assert str(k.params[0].ctype.dtype) == "float64"


def test_an_alias_defined_twice_as_one_type_is_read():
    """Two definitions of one type, spelled alike or not, are that type."""
    k = CudaKernel("#if A\ntypedef unsigned int u32;\n#else\ntypedef unsigned u32;\n#endif\n"
                   "typedef float real;\ntypedef  float  real;\n"
                   "__global__ void k(u32 n, const real* x) {}", "k")
    assert [(p.ctype.kind, str(p.ctype.dtype)) for p in k.params] == [
        ("scalar", "uint32"), ("pointer", "float32")]


@pytest.mark.parametrize("src", [
    "#ifdef WIDE\nenum class E : long long { A };\n#else\nenum class E : char { A };\n#endif\n",
    "enum E : long long { A };\nnamespace n { enum class E : char { B }; }\n",
    "struct S { enum E : short { A }; };\nenum E { B };\n",
    "#ifdef X\ntypedef enum : char { A } E;\n#else\ntypedef enum { B } E;\n#endif\n",
])
def test_an_enum_defined_with_two_underlying_types_is_refused_by_name(src):
    """An enum defined twice with other underlying types (``#ifdef`` branches, another
    scope) was read as its last definition, silently: with ``-DWIDE`` a ``char`` was
    packed where the kernel takes 8 bytes. As an alias defined as two types, it is a
    ``ValueError`` naming the enum and both types; one type twice is that type."""
    with pytest.raises(ValueError, match=re.escape(
            "CudaKernel 'k': parameter 0 ('e'): type 'E' is defined more than once, as ")):
        CudaKernel(src + "__global__ void k(E e) {}", "k", options=("-DWIDE",))
    k = CudaKernel("enum class E : char;\n#ifdef X\nenum class E : char { A };\n#else\n"
                   "enum class E : char { B };\n#endif\n__global__ void k(E e) {}", "k")
    assert str(k.params[0].ctype.dtype) == "int8"


@pytest.mark.parametrize("src, other", [
    ("#ifdef X\nstruct T { int a; };\n#else\ntypedef long long T;\n#endif\n", "'long long'"),
    ("#ifdef X\ntypedef double T;\n#else\nstruct T { float a; };\n#endif\n", "'double'"),
    ("#ifdef X\nstruct T { int a; };\n#else\nenum T : char { A };\n#endif\n", "'char'"),
])
def test_a_struct_and_an_alias_of_one_name_are_refused_by_name(src, other):
    """A struct in one ``#ifdef`` branch and an alias (or enum) of its name in the other
    was read as the alias, silently: compiled with ``-DX`` the kernel takes the struct,
    and the value was packed as the alias's type (8 bytes for a 4-byte struct). Which one
    the kernel takes is not known here: a ``ValueError`` naming both."""
    with pytest.raises(ValueError, match=re.escape(
            "CudaKernel 'k': parameter 0 ('t'): type 'T' is defined more than once, as ")) \
            as info:
        CudaKernel(src + "__global__ void k(T t) {}", "k", options=("-DX",))
    assert other in str(info.value) and "'struct T'" in str(info.value)
    # the C idioms that name the struct itself stay the struct
    for src in ("typedef struct T T;\nstruct T { int a; };\n",
                "struct T { int a; };\nnamespace n { using T = ::T; }\n"):
        (p,) = CudaKernel(src + "__global__ void k(T t) {}", "k").params
        assert (p.ctype.kind, p.ctype.struct, [f for f, _ in p.ctype.fields]) == \
            ("struct", "T", ["a"])


@pytest.mark.parametrize("decl, ctype, dtype", [
    ("enum class E { A, B };", "int", "int32"),            # scoped: int by the standard
    ("enum struct E : unsigned char { A, B };", "unsigned char", "uint8"),
    ("enum E : short { A };", "short", "int16"),
    ("enum class E : long long;", "long long", "int64"),   # an opaque declaration
    ("enum E { A, B, C };", "int", "int32"),               # literals in int's range
    ("enum E { A = -5, B = 0x10u, C };", "int", "int32"),
    ("typedef enum { A, B } E;", "int", "int32"),
    ("typedef enum : char { A, B } E;", "char", "int8"),
    ("enum E { A = 01, B = 02, C = 010 };", "int", "int32"),      # octal literals
    ("enum E { A = 0b101, B = -0x7fffffffL, C = -2147483648 };", "int", "int32"),
    # C's idiom: the typedef names the enum itself (was refused as of unknown size)
    ("enum E { A, B };\ntypedef enum E E;", "int", "int32"),
    ("enum class F : short { A };\ntypedef enum F E;", "short", "int16"),
    ("enum class F : unsigned char { A };\nusing E = enum F;", "unsigned char", "uint8"),
])
def test_an_enum_parameter_is_its_underlying_integer_type(decl, ctype, dtype):
    """An enum parameter was "unknown C type 'E'": an enum whose underlying type is
    certain is passed as that type (a Python int)."""
    k = CudaKernel(decl + "\n__global__ void k(E e, const E* p, enum E f) {}", "k")
    assert [(p.ctype.kind, p.ctype.text.replace(" *", "*"), str(p.ctype.dtype))
            for p in k.params] == [("scalar", ctype, dtype),
                                   ("pointer", f"const {ctype}*", dtype),
                                   ("scalar", ctype, dtype)]


def test_an_unnamed_elaborated_enum_parameter_is_read():
    """``enum E`` written with its keyword and no name (a declaration's parameter, as
    ``struct S`` is) was read as a parameter named ``E`` of the type ``enum``:
    "parameter 1 ('E'): unknown C type 'enum'", where NVRTC compiles it."""
    k = CudaKernel("enum class E : short { A };\n"
                   "__global__ void k(float* x, enum E, const enum E, enum E*) {}", "k")
    assert [(p.name, p.ctype.kind, str(p.ctype.dtype)) for p in k.params] == [
        ("x", "pointer", "float32"), ("arg1", "scalar", "int16"),
        ("arg2", "scalar", "int16"), ("arg3", "pointer", "int16")]


@pytest.mark.parametrize("decl", [
    "enum E { A = 1 << 3, B };",            # an expression: not read
    "enum E { A = 0x7fffffff, B };",        # B = 2**31: unsigned int or long
    "typedef enum { A = 5000000000 } E;",
    "enum E;",
    # a minus before an unsigned literal wraps (-0x80000000 is 2**31, -1u 2**32 - 1):
    # beside -1 the enum needs 8 bytes, not int's 4
    "enum E { A = -1, B = -0x80000000 };",
    "enum E { A = -1, B = -1u };",
    "enum E { A = 08 };",                   # no octal literal: not read
    # a packing or alignment attribute (a new-user probe: read as a 4-byte int, where g++
    # gives the packed enum 1 byte)
    "enum [[gnu::packed]] E { A, B };",
    "enum E { A, B } __attribute__((packed));",
    "enum E { A, B } __attribute__((aligned(8)));",
    "enum E { A, B } __attribute__((aligned(sizeof(int) * 2)));",
    "enum E { A, B } __attribute__( (packed) );",
])
def test_an_enum_of_unknown_size_is_refused_by_name(decl):
    """An unscoped enum without a fixed underlying type has the size the compiler picks
    for its values: refused, saying what to write, where its values do not prove it."""
    with pytest.raises(ValueError, match=re.escape(
            "CudaKernel 'k': parameter 0 ('e'): enum 'E' has no fixed underlying type")) as info:
        CudaKernel(decl + "\n__global__ void k(E e) {}", "k")
    assert "'enum E : int { ... }'" in str(info.value) and "underlying integer type (int)" \
        in str(info.value)


@pytest.mark.parametrize("src", ["__global__ void k(enum Mode m) {}",
                                 "typedef int X;\n__global__ void k(enum Mode m) {}"])
def test_an_enum_declared_nowhere_read_is_an_unknown_type(src):
    """``enum Mode m`` of an enum the parser finds no declaration of (a header it does not
    read) was said to have "no fixed underlying type and an enumerator that is not an
    int literal" when the source held no alias, "unknown C type" when it held one."""
    with pytest.raises(ValueError) as info:
        CudaKernel("#include <mylib.h>\n" + src, "k")
    assert str(info.value) == "CudaKernel 'k': parameter 0 ('m'): unknown C type 'enum Mode'"


def test_an_enum_with_octal_literals_beside_a_kernel_is_read():
    """An enumerator written in octal (``A = 01``) stopped every CudaKernel whose source
    or headers held it with Python's "invalid literal for int() with base 0: '01'",
    even where no parameter took the enum."""
    src = "enum Flags { READ = 01, WRITE = 02, BAD = 09 };\n__global__ void k(float* x) {}"
    assert [p.ctype.text for p in CudaKernel(src, "k").params] == ["float*"]


def test_a_view_rank_that_is_no_literal_says_so():
    """``xstride_array<float, D>`` was a bare "unknown C type": the parser reads the
    rank as written (no constant or macro is evaluated) and says to write a literal."""
    with pytest.raises(ValueError, match=re.escape(
            "CudaKernel 'k': parameter 0 ('a'): unknown C type 'xstride_array<float, D>': "
            "the view's rank 'D' is not an integer literal; write the rank as a literal")):
        CudaKernel("#define D 3\n__global__ void k(xstride_array<float, D> a) {}", "k")


def test_a_view_rank_is_any_integer_literal():
    """``xstride_array<float, 4u>`` (or ``0x5``, ``1'0``) is a rank C++ reads as an
    integer, but the parser took only decimal digits and said the rank "is not an
    integer literal"; an invalid literal (``08``) is still a ValueError."""
    src = ("__global__ void k(xstride_array<float, 4u> a, xstride_carray<int, 0x5> b, "
           "xstride_array<double, 1'0> c) {}")
    assert _params(src) == [("a", "view", "Array4D<float>"), ("b", "cview", "CArray5D<int>"),
                            ("c", "view", "Array10D<double>")]
    with pytest.raises(ValueError, match="the view's rank '08' is not a valid integer literal"):
        CudaKernel("__global__ void k(xstride_array<float, 08> a) {}", "k")


def test_a_comparison_or_shift_in_a_default_argument_keeps_every_parameter():
    """``int n = 1 < 2, int m = 0`` was split as if ``<`` opened a template: ``n`` and
    ``m`` were read as one parameter, so the kernel was launched with one argument
    fewer than it takes. In a default value ``<`` and ``>`` are operators."""
    for default in ("1 < 2", "8 >> 1", "(4 > 3)", "std::max<int>(1, 2)"):
        src = f"__global__ void k(float* x, int n = {default}, Array2D<float> m = {{}}) {{}}"
        assert _params(src) == [("x", "pointer", "float*"), ("n", "scalar", "int"),
                                ("m", "view", "Array2D<float>")], default
    src = "struct P { int a = 1 < 2, b; };\n__global__ void k(P p) {}"
    assert [f for f, _ in CudaKernel(src, "k").params[0].ctype.fields] == ["a", "b"]
