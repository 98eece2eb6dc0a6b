"""``xp.cuda.CudaStruct`` without a device: the C layout of a struct against NumPy's
aligned dtype, nesting, a value passed through a kernel's launch (the pretend device of
test_cuda_kernel.py) and the errors of a definition and of a value."""

from __future__ import annotations

import re
import struct

import numpy as np
import pytest

from xstride.cuda import CudaKernel, CudaStruct
from tests.test_cuda_kernel import BASE, dev, gpu  # noqa: F401 (gpu: a fixture)

def test_struct_layout_matches_numpy_aligned_dtype():
    S = CudaStruct("S", [("a", "char"), ("b", "double"), ("c", "int"), ("d", "short"),
                         ("e", "float*"), ("f", "bool")])
    ref = np.dtype([("a", "i1"), ("b", "f8"), ("c", "i4"), ("d", "i2"), ("e", "u8"),
                    ("f", "?")], align=True)
    assert S.itemsize == ref.itemsize == 40
    assert S.offsets == tuple(ref.fields[n][1] for n in "abcdef")
    v = S(a=-1, b=2.5, c=3, d=-4, e=dev(3), f=True)
    got = np.frombuffer(v.tobytes(), dtype=ref)[0]
    assert (got["a"], got["b"], got["c"], got["d"], got["e"], got["f"]) == (-1, 2.5, 3, -4, BASE, True)
    assert v.as_array().size == 1 and v.as_array().tobytes() == v.tobytes()


def test_struct_declaration_and_nesting():
    Inner = CudaStruct("Inner", [("lo", "double"), ("n", "int")])
    Outer = CudaStruct("Outer", [("tag", "char"), ("box", Inner), ("v", "CArray5D<float>")])
    assert Outer.declaration() == (
        "struct Outer {\n    char tag;\n    Inner box;\n    CArray5D<float> v;\n};")
    assert Outer.offsets == (0, 8, 24) and Outer.itemsize == 72
    assert Outer.max_view_ndim == 5 and Inner.max_view_ndim == 0
    val = Outer(tag=1, box=Inner(lo=0.5, n=2), v=dev((1, 1, 1, 2, 3)))
    raw = val.tobytes()
    assert struct.unpack_from("<di", raw, 8) == (0.5, 2)
    assert struct.unpack_from("<Q5q", raw, 24) == (BASE, 1, 1, 1, 2, 3)
    assert "Outer value, 72 bytes" in repr(val)


def test_struct_value_passes_through_kernel(gpu):
    P = CudaStruct("P", [("n", "long long"), ("x", "Array1D<double>")])
    src = P.declaration() + '\n#include <xstride/array_view.cuh>\n__global__ void k(P p) {}'
    src = "#include <xstride/array_view.cuh>\n" + src
    k = CudaKernel(src, "k")
    k(P(n=5, x=dev(4, np.float64)), n_threads=1)
    raw = gpu.builds[0][3].launches[0][2][0].tobytes()
    assert struct.unpack("<qQqq", raw) == (5, BASE, 4, 1)


@pytest.mark.parametrize("make,exc,match", [
    (lambda: CudaStruct(3, [("a", "int")]), TypeError, "'name'"),
    (lambda: CudaStruct("1x", [("a", "int")]), ValueError, "not a valid C identifier"),
    (lambda: CudaStruct("S", []), ValueError, "is empty"),
    (lambda: CudaStruct("S", 5), TypeError, "'fields'"),
    (lambda: CudaStruct("S", [("a", "int"), ("a", "float")]), ValueError, "repeats"),
    (lambda: CudaStruct("S", [("a b", "int")]), ValueError, "field name"),
    (lambda: CudaStruct("S", [("a", "float3")]), ValueError, "unknown C type 'float3'"),
    (lambda: CudaStruct("S", [("a", 4)]), TypeError, "a C type string or a CudaStruct"),
    (lambda: CudaStruct("S", ["a"]), TypeError, "pairs"),
    # a str was read as its characters: "got str 'i'; expected (name, C type) pairs"
    (lambda: CudaStruct("S", "int n"), TypeError, r"^CudaStruct 'S': argument 'fields' got "
                                                  r"str 'int n'; expected a sequence of"),
    (lambda: CudaStruct("S", b"int n"), TypeError, r"argument 'fields' got bytes b'int n'"),
    # struct S { S s; } (another CudaStruct of the same name): was accepted
    (lambda: CudaStruct("S", [("s", CudaStruct("S", [("a", "int")]))]), ValueError,
     "field 's' is a struct 'S' that is or holds a struct named 'S'"),
    (lambda: CudaStruct("S", [("t", CudaStruct("T", [("s", CudaStruct("S", [("a", "int")]))]))]),
     ValueError, "field 't' is a struct 'T' that is or holds a struct named 'S'"),
])
def test_struct_definition_errors(make, exc, match):
    with pytest.raises(exc, match=match):
        make()


def test_struct_value_errors():
    S = CudaStruct("S", [("n", "int"), ("p", "float*")])
    with pytest.raises(TypeError, match="missing value\\(s\\) for field\\(s\\) p"):
        S(n=1)
    with pytest.raises(TypeError, match=r"^CudaStruct 'S' takes one keyword argument per "
                                        r"field \(n, p\); got 2 positional"):
        S(1, dev(2))      # was CudaStruct.__call__() takes 1 positional argument but 3 ...
    with pytest.raises(TypeError, match="unknown field\\(s\\) q"):
        S(n=1, p=dev(2), q=3)
    with pytest.raises(OverflowError, match="'field n' value 4294967296"):
        S(n=2**32, p=dev(2))
    with pytest.raises(TypeError, match="'field p'.*host memory"):
        S(n=1, p=np.zeros(2, np.float32))
    with pytest.raises(TypeError, match="'field p' has dtype float64"):
        S(n=1, p=dev(2, np.float64))


def test_a_struct_value_is_read_only():
    """``v.n = 5`` on a value was taken silently: a Python attribute beside the packed
    bytes, which the kernel receives unchanged. Assigning or deleting any attribute is
    an AttributeError saying how to make another value; copies and pickles still work."""
    import copy
    import pickle

    S = CudaStruct("S", [("n", "int"), ("x", "float")])
    v = S(n=1, x=2.0)
    before = v.tobytes()
    for change in (lambda: setattr(v, "n", 5), lambda: setattr(v, "struct", S),
                   lambda: delattr(v, "n")):
        with pytest.raises(AttributeError, match=r"^CudaStruct 'S': a value is read-only "
                                                 r"\(its fields were packed when it was "
                                                 r"made\): cannot set '(n|struct)'; make a new "
                                                 r"value, S\(n=\.\.\., x=\.\.\.\)$"):
            change()
    assert v.tobytes() == before and v.struct is S and "n" not in vars(v)
    for other in (copy.copy(v), copy.deepcopy(v), pickle.loads(pickle.dumps(v))):
        assert other.tobytes() == before and other.struct.name == "S"
        with pytest.raises(AttributeError, match="read-only"):
            other.n = 5


def test_complex_fields_are_aligned_to_their_size():
    """CuPy's (and Thrust's) ``complex<T>`` is ``__align__(2 * sizeof(T))`` on the
    device; the layout aligned it like its parts (``char, complex<double>`` put the
    complex at 8 in 24 bytes, where NVRTC puts it at 16 in 32), so a kernel read
    other bytes than the ones packed."""
    S = CudaStruct("S", [("a", "char"), ("z", "complex<double>")])
    assert S.offsets == (0, 16) and S.itemsize == 32
    T = CudaStruct("T", [("n", "int"), ("z", "complex<float>"), ("c", "char")])
    assert T.offsets == (0, 8, 16) and T.itemsize == 24
    raw = T(n=7, z=1.5 - 2j, c=3).tobytes()
    assert struct.unpack_from("<i", raw, 0) == (7,)
    assert struct.unpack_from("<ff", raw, 8) == (1.5, -2.0)
    assert raw[16] == 3


def test_struct_with_alignment_base_or_packing_is_not_a_plain_field_list(gpu):
    """``struct __align__(16) P`` was not found (``unknown C type 'P'``), and the fields
    of ``struct P : Base`` or of a packed struct were checked as if they were its whole
    layout (a CudaStruct with the base's fields refused, one without them accepted):
    their layout is more than the field list, so the struct name is what is checked."""
    base = "struct Base { double d; };\n"
    for head, tail in (("struct __align__(16) P", ";"), ("struct alignas(16) P", ";"),
                       ("struct __attribute__((aligned(16))) P", ";"),
                       ("struct P", " __attribute__((packed));"), ("struct P : Base", ";"),
                       ("typedef struct __align__(8)", " P;"),
                       ("typedef struct", " __attribute__((packed)) P;")):
        src = f"{base}{head} {{ char c; int n; }}{tail}\n__global__ void k(P p) {{}}"
        k = CudaKernel(src, "k")
        ct = k.params[0].ctype
        assert (ct.kind, ct.struct, ct.fields) == ("struct", "P", None), head + tail
        for fields in ([("c", "char"), ("n", "int")],
                       [("d", "double"), ("c", "char"), ("n", "int")]):
            k(CudaStruct("P", fields)(**{f: 1 for f, _ in fields}), n_threads=1)
        with pytest.raises(TypeError, match="argument 'p' is a value of CudaStruct 'Q'"):
            k(CudaStruct("Q", [("c", "char")])(c=1), n_threads=1)
    # attributes that do not change the layout leave a plain field list
    for head in ("struct [[nodiscard]] P", "struct P final"):
        k = CudaKernel(f"{head} {{ char c; int n; }};\n__global__ void k(P p) {{}}", "k")
        assert [f for f, _ in k.params[0].ctype.fields] == ["c", "n"]


def test_a_struct_under_pragma_pack_is_not_a_plain_field_list(gpu):  # noqa: F811
    """Under '#pragma pack(1)' the fields were checked with their natural offsets, so a
    CudaStruct laid out unlike the kernel's struct was accepted without a word."""
    src = ("struct A { char c; int n; };\n#pragma pack(push, 1)\n"
           "struct P { char c; int n; };\n#pragma pack(pop)\nstruct Q { char c; int n; };\n"
           "#pragma pack(2)\nstruct R { char c; int n; };\n"
           "__global__ void k(A a, P p, Q q, R r) {}")
    k = CudaKernel(src, "k")
    assert [p.ctype.fields is None for p in k.params] == [False, True, False, True]
    # a form feed after '#' is a blank, as NVRTC reads it: the packing was not seen
    k = CudaKernel("#\fpragma\fpack(1)\nstruct P { char c; int n; };\n"
                   "__global__ void k(P p) {}", "k")
    assert k.params[0].ctype.fields is None


@pytest.mark.parametrize("src, kw", [
    # a header that leaves a packing in force packs the includer's structs after it
    ('#include "pack1.h"\nstruct P { char c; int n; };\n', {"include_dirs": True}),
    # a packing in force where a header is included packs the header's structs
    ('#pragma pack(push, 1)\n#include "defp.h"\n#pragma pack(pop)\n', {"include_dirs": True}),
    # a pre-included header's packing reaches every struct of the source
    ("struct P { char c; int n; };\n", {"pre_include": True}),
    # the _Pragma operator, written or behind a macro
    ('_Pragma("pack(1)")\nstruct P { char c; int n; };\n', {}),
    ('#define PACK _Pragma("pack(push, 1)")\nPACK\nstruct P { char c; int n; };\n', {}),
    ('_Pragma(u8"pack(1)")\nstruct P { char c; int n; };\n', {}),
    # a macro of the options that expands to the operator (a review)
    ("PACK\nstruct P { char c; int n; };\n", {"options": ('-DPACK=_Pragma("pack(push, 1)")',)}),
])
def test_a_packing_from_another_file_or_a_pragma_operator_is_in_force(tmp_path, src, kw):
    """A new-user probe: a ``#pragma pack`` in another file (a header, a pre-included
    one) or a ``_Pragma("pack(1)")`` was not seen, and the struct was checked as a
    plain field list at its natural offsets: an 8-byte value was accepted for the
    kernel's 5-byte struct. Its fields are now unchecked (name only), as under a
    ``#pragma pack`` of the source."""
    (tmp_path / "pack1.h").write_text("#pragma pack(push, 1)\n")
    (tmp_path / "defp.h").write_text("struct P { char c; int n; };\n")
    args = {}
    if kw.get("include_dirs"):
        args["include_dirs"] = [tmp_path]
    if kw.get("pre_include"):
        args["options"] = ("-include", str(tmp_path / "pack1.h"))
    if kw.get("options"):
        args["options"] = kw["options"]
    k = CudaKernel(src + "__global__ void k(P p) {}", "k", **args)
    assert k.params[0].ctype.struct == "P" and k.params[0].ctype.fields is None


def test_a_balanced_packing_in_a_header_leaves_other_structs_plain(tmp_path):
    """A header whose ``push`` and ``pop`` enclose its own structs (no ``#include``
    between them) packs nothing else: the source's struct is still checked field by
    field, and ``_Pragma`` of another pragma (``unroll``) is no packing."""
    (tmp_path / "own.h").write_text("#pragma pack(push, 1)\nstruct H { char c; int n; };\n"
                                    "#pragma pack(pop)\n")
    k = CudaKernel('#include "own.h"\nstruct P { char c; int n; };\n'
                   '__global__ void k(P p, H h) { _Pragma("unroll") for (int i = 0; i < 2; ++i) {} }',
                   "k", include_dirs=[tmp_path])
    assert [p.ctype.fields is None for p in k.params] == [False, True]


@pytest.mark.parametrize("src, kw", [
    ("#define ALIGN16 __align__(16)\nstruct P { float a; } ALIGN16;\n", {}),
    ("#define PACKED __attribute__((packed))\nstruct P { char c; int a; } PACKED;\n", {}),
    ("#define AL(n) __align__(n)\nstruct P { float a; } AL(16);\n", {}),
    ("#define ALIGN16 __align__(16)\nstruct ALIGN16 P { float a; };\n", {}),
    ("#define AL(n) alignas(n)\nstruct AL(16) P final { float a; };\n", {}),
    # the macro from the options, or from a header
    ("struct P { float a; } ALIGN16;\n", {"options": ("-DALIGN16=__align__(16)",)}),
    ('#include "align.h"\nstruct ALIGN16 P { float a; };\n', {"include_dirs": True}),
    ("#define AL16 __align__(16)\ntypedef struct AL16 { char c; int n; } P;\n", {}),
    # a definition inside a macro's call or its #define (the portable PACK idiom)
    ("#define PACK(D) D __attribute__((__packed__))\nPACK(struct P { char c; int n; });\n", {}),
    ("#define ALIGNED(n, ...) __VA_ARGS__ __attribute__((aligned(n)))\n"
     "ALIGNED(16, struct P { char c; int n; });\n", {}),
    ("#define DEF(A) struct P { char c; int n; } A;\nDEF(__attribute__((aligned(16))))\n", {}),
    # attributes of nested or spaced parentheses, before the name or after the brace
    ("struct P { char c; int n; } __attribute__((aligned(sizeof(double) * 2)));\n", {}),
    ("struct P { char c; int n; } __attribute__( (aligned(16)) );\n", {}),
    ("struct P { char c; int n; } __attribute__(/*x*/(aligned(16)));\n", {}),
    ("struct P { char c; int n; } __attribute__((packed, aligned(alignof(int)*1)));\n", {}),
    ("struct __attribute__( (aligned(16)) ) P { char c; int n; };\n", {}),
    ("struct alignas((sizeof(double)*2)) P { char c; int n; };\n", {}),
    ("struct [[gnu::aligned(sizeof(int[4]))]] P { char c; int n; };\n", {}),
    # _Pragma of a stringized macro parameter
    ("#define PRAGMA(x) _Pragma(#x)\nPRAGMA(pack(push, 1))\nstruct P { char c; int n; };\n"
     "PRAGMA(pack(pop))\n", {}),
    ("#define STR(x) #x\n#define DO(x) _Pragma(STR(x))\nDO(pack(1))\nstruct P { char c; int n; };\n",
     {}),
    # an alignment on an earlier declaration
    ("struct __attribute__((aligned(16))) P;\nstruct P { char c; int n; };\n", {}),
    ("#define AL16 __align__(16)\nstruct AL16 P;\nstruct P { char c; int n; };\n", {}),
    # a macro in a field's type or name
    ("#ifndef REAL\ntypedef float REAL;\n#endif\nstruct P { char c; REAL a; };\n",
     {"options": ("-DREAL=double",)}),
    ("#define float double\nstruct P { char c; float a; };\n", {}),
    ("#define NAME a __attribute__((aligned(16)))\nstruct P { char c; float NAME; };\n", {}),
    ("#define FLAGS flags : 3\nstruct P { char c; int FLAGS; };\n", {}),
    ("#define x x[2]\nstruct P { char c; float x[4]; };\n", {}),
    ("struct P { char c; float NAME; };\n", {"options": ("-DNAME=a[8]",)}),
    # a field of a packed enum (1 byte, read as a 4-byte int)
    ("enum [[gnu::packed]] E { A, B };\nstruct P { E e; char c; };\n", {}),
])
def test_an_alignment_or_packing_behind_a_macro_is_not_a_plain_field_list(tmp_path, src, kw):
    """New-user probes: ``struct P { float a; } ALIGN16;`` with ``#define ALIGN16
    __align__(16)`` was read as the plain 4-byte field list (a 4-byte value accepted for
    the kernel's 16-byte struct), and so was each source below, which g++ lays out
    otherwise (packed, aligned, or fields of another type or count); ``struct ALIGN16
    P`` was "unknown C type 'P'". A ``#define``d name around or inside the definition,
    an attribute of any parentheses, a definition inside a macro, a ``_Pragma`` of a
    stringized parameter or an alignment on a declaration may change the layout (the
    preprocessor is not run): the name is checked."""
    (tmp_path / "align.h").write_text("#define ALIGN16 __align__(16)\n")
    args = {"include_dirs": [tmp_path]} if kw.get("include_dirs") else dict(kw)
    k = CudaKernel(src + "__global__ void k(P p) {}", "k", **args)
    assert k.params[0].ctype.struct == "P" and k.params[0].ctype.fields is None


def test_a_declarator_or_an_initializer_after_a_struct_is_no_layout():
    """A variable declared after the brace (``} p1;``) leaves the plain field list, and
    ``struct P p {1};`` (a variable's brace initializer) defines no struct ``p``; a
    macro used elsewhere, a plain declaration and a struct in a function's body after a
    call leave it too."""
    k = CudaKernel("#define N 4\n#define SCALE(x) (x)\nstruct P;\n"
                   "struct P { float a; } p1;\nstruct P q {1.0f};\n"
                   "__device__ float f(float v) { struct L { int i; }; return SCALE(v); }\n"
                   "__global__ void k(P p) { float b[N]; }", "k")
    assert [f for f, _ in k.params[0].ctype.fields] == ["a"]
    with pytest.raises(ValueError, match="unknown C type 'q'"):
        CudaKernel("struct P { float a; };\nstruct P q {1.0f};\n__global__ void k(q x) {}", "k")


def test_a_scoped_enum_is_no_struct():
    """'enum class E' was read as a struct E (a CudaStruct value expected for it); it
    is its underlying integer type (tests/test_cuda_signature_types.py)."""
    for head in ("enum class E : int", "enum struct E", "enum  class E"):
        k = CudaKernel(f"{head} {{ A, B }};\n__global__ void k(E e) {{}}", "k")
        assert (k.params[0].ctype.kind, k.params[0].ctype.text) == ("scalar", "int")
    k = CudaKernel("enum class F { A };\nstruct E { int a; };\n__global__ void k(E e) {}", "k")
    assert k.params[0].ctype.struct == "E" and k.params[0].ctype.fields is not None


def test_fields_declared_together_are_checked(gpu):  # noqa: F811
    """``float a, b;`` (and ``float *p, q;``) is a plain field list, but the struct was
    read as one of unknown layout, so a CudaStruct of other field types was accepted
    without a word; each declarator is a field, with its own ``*``."""
    src = ("struct P { float a, b; long long *p, n; };\n"
           "__global__ void k(P p) {}")
    k = CudaKernel(src, "k")
    assert [(f, c.kind, str(c.dtype)) for f, c in k.params[0].ctype.fields] == [
        ("a", "scalar", "float32"), ("b", "scalar", "float32"),
        ("p", "pointer", "int64"), ("n", "scalar", "int64")]
    good = CudaStruct("P", [("a", "float"), ("b", "float"), ("p", "long long*"),
                            ("n", "long long")])
    k(good(a=1, b=2, p=dev(3, np.int64), n=4), n_threads=1)
    bad = CudaStruct("P", [("a", "float"), ("b", "double"), ("p", "long long*"),
                           ("n", "long long")])
    with pytest.raises(TypeError, match=r"argument 'p' is a value of CudaStruct 'P'.*"
                                        r"declares \(float a; float b;"):
        k(bad(a=1, b=2, p=dev(3, np.int64), n=4), n_threads=1)


def test_a_struct_defined_twice_is_checked_by_name(gpu):  # noqa: F811
    """A struct of one name defined twice (a namespace's beside the global one, or in
    two ``#ifdef`` branches) had its first definition's fields checked: the CudaStruct
    of the struct the kernel takes (``float a``) was refused, and one laid out as the
    other definition (``double a``: 8 bytes for a 4-byte struct) accepted. Which one
    the kernel gets is not known without scopes and the preprocessor: its name is
    what is checked, as for a struct whose layout is more than its field list."""
    for src in ("namespace n { struct P { double a; }; }\nstruct P { float a; };\n",
                "#ifdef BIG\nstruct P { double a; };\n#else\nstruct P { float a; };\n#endif\n",
                "struct O { struct P { double a; } p; };\nstruct P { float a; };\n"):
        k = CudaKernel(src + "__global__ void k(P p) {}", "k")
        assert k.params[0].ctype.fields is None, src
        for ctype in ("float", "double"):
            k(CudaStruct("P", [("a", ctype)])(a=1), n_threads=1)
        with pytest.raises(TypeError, match="argument 'p' is a value of CudaStruct 'Q'"):
            k(CudaStruct("Q", [("a", "float")])(a=1), n_threads=1)
    # the same definition twice (spaced otherwise) is still one plain field list
    k = CudaKernel("#ifdef A\nstruct P { float a; };\n#else\nstruct P {  float  a; };\n"
                   "#endif\n__global__ void k(P p) {}", "k")
    assert [f for f, _ in k.params[0].ctype.fields] == ["a"]
    with pytest.raises(TypeError, match="declares \\(float a\\)"):
        k(CudaStruct("P", [("a", "double")])(a=1), n_threads=1)


def test_a_nested_struct_of_other_fields_is_shown_in_the_message(gpu):  # noqa: F811
    """A value whose nested struct's fields differ from the kernel's was refused with
    the same text on both sides, "(int n; In i), but the kernel's struct 'Out' declares
    (int n; In i)": each nested struct is spelled with its fields."""
    k = CudaKernel("struct In { float a; float* p; };\nstruct Out { int n; In i; };\n"
                   "__global__ void k(Out o) {}", "k")
    In2 = CudaStruct("In", [("a", "double"), ("p", "float*")])
    Out2 = CudaStruct("Out", [("n", "int"), ("i", In2)])
    with pytest.raises(TypeError, match=re.escape(
            "argument 'o' is a value of CudaStruct 'Out', which has fields (int n; In "
            "{double a; float* p} i), but the kernel's struct 'Out' declares (int n; In "
            "{float a; float* p} i)")):
        k(Out2(n=1, i=In2(a=1.0, p=dev(3))), n_threads=1)


def test_an_alignment_after_the_closing_brace_is_not_a_plain_field_list(gpu):  # noqa: F811
    """``struct P { float a; } __align__(16);`` (CUDA's macro after the brace, as
    ``__attribute__((aligned(16)))`` there) was read as the plain 4-byte field list, so a
    CudaStruct of 4 bytes was accepted for a 16-byte struct; ``typedef struct { ... }
    __align__(16) P;`` was "unknown C type 'P'", and so was ``struct
    __builtin_align__(16) P``. Their layout is more than the fields: the name is checked."""
    for src in ("struct P { float a; } __align__(16);\n",
                "typedef struct { float a; } __align__(16) P;\n",
                "struct __builtin_align__(16) P { float a; };\n",
                "struct P { float a; } __attribute__((packed)) __align__(8);\n"):
        k = CudaKernel(src + "__global__ void k(P p, float* out) {}", "k")
        ct = k.params[0].ctype
        assert (ct.kind, ct.struct, ct.fields) == ("struct", "P", None), src
        k(CudaStruct("P", [("a", "float")])(a=1.0), dev(3), n_threads=1)
    # an attribute that is no alignment or packing keeps the plain field list
    k = CudaKernel("struct P { float a; } [[deprecated]];\n__global__ void k(P p) {}", "k")
    assert [f for f, _ in k.params[0].ctype.fields] == ["a"]


def test_array_members_are_read_and_checked(gpu):  # noqa: F811
    """A struct with an array member (``float x[4]``) was read as one of unknown layout,
    so only its name was checked: an 8-byte CudaStruct value launched into the 20-byte
    struct (garbage on the device). Array members are read with C's layout (element
    alignment, count * element size, several bounds) and a value is checked field by
    field, extents and element types included."""
    src = ("struct In { char c; double d; };\n"
           "struct P { float x[4]; int n; };\n"
           "struct Q { char c; double m[3][3]; In ins[2]; short s[3]; float *ps[2], f; };\n"
           "__global__ void k(P p, Q q) {}")
    k = CudaKernel(src, "k")
    p, q = (prm.ctype for prm in k.params)
    assert [(f, c.text, c.nbytes) for f, c in p.fields] == [("x", "float[4]", 16), ("n", "int", 4)]
    assert (p.nbytes, p.alignment) == (20, 4)
    assert [(f, c.kind, c.shape) for f, c in q.fields] == [
        ("c", "scalar", ()), ("m", "array", (3, 3)), ("ins", "array", (2,)),
        ("s", "array", (3,)), ("ps", "array", (2,)), ("f", "scalar", ())]
    # char at 0, double[3][3] at 8 (72), In[2] at 80 (2 * 16), short[3] at 112 (6),
    # float*[2] at 120 (16), float at 136: 140, padded to 144
    assert (q.nbytes, q.alignment) == (144, 8)
    In = CudaStruct("In", [("c", "char"), ("d", "double")])
    P = CudaStruct("P", [("x", "float[4]"), ("n", "int")])
    Q = CudaStruct("Q", [("c", "char"), ("m", "double", (3, 3)), ("ins", In, 2),
                         ("s", "short[3]"), ("ps", "float*[2]"), ("f", "float")])
    assert Q.offsets == (0, 8, 80, 112, 120, 136) and Q.itemsize == 144
    m = np.arange(9.0).reshape(3, 3)
    k(P(x=[1, 2, 3, 4], n=5), Q(c=1, m=m, ins=[In(c=2, d=0.5), In(c=3, d=1.5)],
                                s=(-1, 2, -3), ps=[dev(3, ptr=BASE), dev(3, ptr=BASE + 64)],
                                f=2.5), n_threads=1)
    rp, rq = (a.tobytes() for a in gpu.builds[0][3].launches[0][2])
    assert struct.unpack("<4fi", rp) == (1, 2, 3, 4, 5)
    assert struct.unpack_from("<9d", rq, 8) == tuple(range(9))
    assert struct.unpack_from("<b7xdb7xd", rq, 80) == (2, 0.5, 3, 1.5)
    assert struct.unpack_from("<3h2xQQf", rq, 112) == (-1, 2, -3, BASE, BASE + 64, 2.5)
    # the 8-byte value of a struct P { float x; int n; } was launched without a word
    for fields, x, declared in (
            ([("x", "float"), ("n", "int")], 0, "float x; int n"),
            ([("x", "float[2]"), ("n", "int")], [0, 0], "float x[2]; int n"),
            ([("x", "int[4]"), ("n", "int")], [0] * 4, "int x[4]; int n"),
            ([("x", "float", (2, 2)), ("n", "int")], np.zeros((2, 2)), "float x[2][2]; int n")):
        value = CudaStruct("P", fields)(x=x, n=0)
        with pytest.raises(TypeError, match=re.escape(
                f"argument 'p' is a value of CudaStruct 'P', which has fields ({declared}), "
                "but the kernel's struct 'P' declares (float x[4]; int n)")):
            k(value, Q(c=1, m=m, ins=[In(c=2, d=0.5)] * 2, s=[0] * 3, ps=[dev(3)] * 2, f=0),
              n_threads=1)
    # a pointer element on another device is named by its index
    with pytest.raises(ValueError, match=r"'q\.ps\[1\]' is on device 1"):
        k(P(x=[0] * 4, n=0), Q(c=1, m=m, ins=[In(c=2, d=0.5)] * 2, s=[0] * 3,
                               ps=[dev(3), dev(3, device=1)], f=0), n_threads=1)


@pytest.mark.parametrize("body,match", [
    ("int n : 3;", r"struct 'P' field 'n' is a bit-field \('int n : 3'\), which is not "
                   r"supported: how bit-fields are packed .* is implementation-defined"
                   r".*declare a whole integer field \(e\.g\. 'int n;'\)"),
    ("float a; unsigned int flags : 4, mode : 2;", r"struct 'P' field 'flags' is a bit-field"),
    ("float a; unsigned : 0; int b;", r"struct 'P' has an unnamed field that is a bit-field "
                                      r"\('unsigned : 0'\)"),
    ("float x[N]; int n;", r"struct 'P' field 'x' \('float x\[N\]'\) is an array that has size "
                           r"'N', which is not an integer literal \(the parser does not run the "
                           r"preprocessor or evaluate constants\).*'float x\[4\]'"),
    ("static constexpr int M = 4; float x[M];", r"field 'x' .* has size 'M'"),
    ("float m[3][2 * 2];", r"field 'm' \('float m\[3\]\[2 \* 2\]'\) .* size '2 \* 2'"),
    ("int n, x[SIZE];", r"field 'x' \('int x\[SIZE\]'\) is an array that has size 'SIZE'"),
    ("int n; float x[];", r"field 'x' \('float x\[\]'\) is an array that has no size "
                          r"\(a flexible array member\)"),
    ("float x[0];", r"field 'x' \('float x\[0\]'\) is an array that has size 0"),
    ("In in; int n;", r"^CudaKernel 'k': parameter 0 \('p'\): struct 'In' field 'b' is a "
                      r"bit-field"),
    ("In ins[2];", r"struct 'In' field 'b' is a bit-field"),
])
def test_bit_fields_and_arrays_of_unknown_size_are_refused(body, match):
    """A bit-field or an array whose size is no integer literal made the struct one of
    unknown layout, checked by name only (a bit-field silently truncated, an array
    launched into a struct of another size). The kernel is refused at construction
    with a ValueError naming the parameter, the struct and the field."""
    src = (f"#define N 4\n#define SIZE 8\nstruct In {{ int a; int b : 1; }};\n"
           f"struct P {{ {body} }};\n__global__ void k(P p) {{}}")
    with pytest.raises(ValueError, match=match):
        CudaKernel(src, "k")


def test_struct_array_fields(gpu):  # noqa: F811
    """A CudaStruct array field, spelled as C's type (``"float[4]"``) or NumPy's
    ``(name, type, shape)``: its C declaration, layout and packing from nested lists or
    a NumPy array, each element checked as a field of the element type."""
    A = CudaStruct("A", [("c", "char"), ("m", "float[2][3]"), ("z", "complex<double>", 2),
                         ("k", "long long", (1,))])
    assert A.declaration() == ("struct A {\n    char c;\n    float m[2][3];\n"
                               "    complex<double> z[2];\n    long long k[1];\n};")
    assert A.offsets == (0, 4, 32, 64) and A.itemsize == 80 and A.ctype.alignment == 16
    assert "m: float[2][3]" in repr(A)
    rows = [[1, 2, 3], [4, 5, 6]]
    for m in (rows, tuple(map(tuple, rows)), np.array(rows, np.int16),
              [np.array(r, np.float64) for r in rows]):
        raw = A(c=7, m=m, z=[1 + 2j, -3], k=[9]).tobytes()
        assert struct.unpack_from("<b3x6f4x4d", raw) == (7, 1, 2, 3, 4, 5, 6, 1, 2, -3, 0)
        assert struct.unpack_from("<q", raw, 64) == (9,)
    Box = CudaStruct("Box", [("v", "CArray2D<float>[2]"), ("n", "int")])
    assert Box.max_view_ndim == 2 and Box.itemsize == 56
    Outer = CudaStruct("Outer", [("b", Box, 2)])
    assert Outer.max_view_ndim == 2 and Outer.itemsize == 112
    assert Outer.declaration() == "struct Outer {\n    Box b[2];\n};"


@pytest.mark.parametrize("make,exc,match", [
    (lambda: CudaStruct("S", [("x", "float[N]")]), ValueError,
     r"field 'x' has type 'float\[N\]', whose array size 'N' is not a positive integer"),
    (lambda: CudaStruct("S", [("x", "float[0]")]), ValueError, r"array size '0' is not a"),
    (lambda: CudaStruct("S", [("x", "float[]")]), ValueError, r"array size '' is not a"),
    (lambda: CudaStruct("S", [("x", "float", 0)]), ValueError,
     r"field 'x' has shape 0; an array field's extents are at least 1"),
    (lambda: CudaStruct("S", [("x", "float", (2, -1))]), ValueError, r"shape \(2, -1\)"),
    (lambda: CudaStruct("S", [("x", "float", "4")]), TypeError,
     r"argument 'fields\['x'\]' got str '4'; expected an array shape"),
    (lambda: CudaStruct("S", [("x", "float", ())]), TypeError, r"expected an array shape"),
    (lambda: CudaStruct("S", [("x", "float", True)]), TypeError, r"expected an array shape"),
    (lambda: CudaStruct("S", [("x", "float[2]", 3)]), ValueError,
     r"field 'x' gives its array bounds twice \('float\[2\]' and shape 3\)"),
    (lambda: CudaStruct("S", [("x", "float", 2, 3)]), TypeError,
     r"or \(name, C type, shape\) for an array field"),
    (lambda: CudaStruct("S", [("x", "float3[2]")]), ValueError, r"unknown C type 'float3'"),
])
def test_struct_array_field_definition_errors(make, exc, match):
    with pytest.raises(exc, match=match):
        make()


def test_struct_array_field_value_errors():
    S = CudaStruct("S", [("x", "int[2][2]")])
    for value, exc, match in (
            ([[1, 2], [3]], ValueError, r"argument 'field x\[1\]' has 1 element\(s\); the "
                                        r"field 'int\[2\]\[2\]' has 2 along axis 1"),
            ([1, 2, 3, 4], ValueError, r"argument 'field x' has 4 element\(s\); the field "
                                       r"'int\[2\]\[2\]' has 2 along axis 0"),
            ([1, 2], TypeError, r"argument 'field x\[0\]' got int 1; expected a "
                                r"sequence of shape \(2, 2\)"),
            (np.zeros((2, 3), np.int32), ValueError, r"argument 'field x' has shape \(2, 3\); "
                                                     r"the field 'int\[2\]\[2\]' has shape"),
            (5, TypeError, r"argument 'field x' got int 5; expected a sequence"),
            ("ab", TypeError, r"argument 'field x' got str 'ab'"),
            (dev((2, 2), np.int32), TypeError, r"an array field is passed by value: give its "
                                               r"values from the host"),
            ([[1, 2], [3, 1.5]], TypeError, r"argument 'field x\[1\]\[1\]' got float 1\.5; "
                                            r"expected an integer for C type 'int'"),
            (np.array([[1, 2], [3, 2**40]]), OverflowError, r"'field x\[1\]\[1\]' value "
                                                            r"1099511627776 is out of range")):
        with pytest.raises(exc, match=match):
            S(x=value)
    In = CudaStruct("In", [("a", "int")])
    T = CudaStruct("T", [("ins", In, 2)])
    with pytest.raises(TypeError, match=r"argument 'field ins\[1\]' got int 3; expected a "
                                        r"CudaStruct value of struct 'In'"):
        T(ins=[In(a=1), 3])
    with pytest.raises(TypeError, match=r"argument 'field ins' got numpy\.ndarray"):
        T(ins=np.array([In(a=1), In(a=2)], dtype=object))


@pytest.mark.parametrize("fields, size", [
    ([("x", "float", (2**62,))], "18,446,744,073,709,551,616"),
    ([("x", "float[8192]")], "32,768"),
    ([("n", "int"), ("x", "double[4095]")], "32,768"),
    # extents whose product passes 2**63 wrapped in int64: (2**32, 2**32) chars laid out
    # 1 byte, and (2**32 + 1, 2**32 - 1) chars -1 bytes, which put 'n' at offset 0 too
    ([("x", "char", (2**32, 2**32))], "18,446,744,073,709,551,616"),
    ([("x", "char", (2**32 + 1, 2**32 - 1)), ("n", "int")], "18,446,744,073,709,551,620"),
    ([("x", "char[4294967296][4294967296]")], "18,446,744,073,709,551,616"),
])
def test_a_struct_past_the_parameter_limit_is_refused(fields, size):
    """A struct larger than a kernel's parameters may hold cannot be passed by value;
    an array field of 2**62 floats was accepted, with an itemsize of 2**64."""
    from xstride.cuda._struct import PARAM_BYTES

    assert PARAM_BYTES == 32764
    with pytest.raises(ValueError, match=rf"^CudaStruct 'Z': argument 'fields' lays out a struct "
                                         rf"of {size} bytes, more than a kernel's parameters "
                                         r"may hold \(32,764 bytes"):
        CudaStruct("Z", fields)


def test_a_struct_at_the_parameter_limit_is_taken():
    assert CudaStruct("Z", [("x", "float[8191]")]).itemsize == 32764


def test_numpy_integers_give_an_array_field_shape():
    S = CudaStruct("S", [("m", "double", (np.int64(3), np.int32(2)))])
    assert S.itemsize == 48 and "double m[3][2];" in S.declaration()
    with pytest.raises(TypeError, match="an array shape"):
        CudaStruct("S", [("m", "double", (np.bool_(True),))])


def test_a_launch_walks_no_scalar_array_field(monkeypatch):
    """The device check of every launch walked each element of an array field of
    numbers (about 2 ms for a ``float[8000]``), though numbers live on no device; only
    array fields of pointers, views or structs are walked."""
    from xstride.cuda import _args

    In = CudaStruct("In", [("a", "float")])
    S = CudaStruct("S", [("n", "int"), ("x", "float[8000]"), ("m", "short", (2, 3)),
                         ("ins", In, 2)])
    v = S(n=1, x=np.zeros(8000, np.float32), m=[[1, 2, 3], [4, 5, 6]], ins=[In(a=1), In(a=2)])
    walked = []
    real = _args.array_items
    monkeypatch.setattr(_args, "array_items",
                        lambda ct, *a: walked.append(ct.text) or real(ct, *a))
    v.check_device(0, "k", "p")
    assert walked == ["In[2]"]


def test_the_struct_type_given_for_a_value_says_to_call_it():
    """A ``CudaStruct`` (the type) passed where a value of it is expected read "got
    CudaStruct CudaStruct('P', ...)" with no hint; the message now says to call it."""
    P = CudaStruct("P", [("x", "float"), ("n", "int")])
    hint = (r"expected a CudaStruct value of struct 'P' \(this is the struct type 'P', not "
            r"a value of it: call it to make one, P\(x=\.\.\., n=\.\.\.\)\)")
    k = CudaKernel(P.declaration() + "__global__ void k(P p) {}", "k")
    with pytest.raises(TypeError, match=r"CudaKernel 'k': argument 'p' got CudaStruct .*" + hint):
        k(P, n_threads=1)
    O = CudaStruct("O", [("p", P), ("m", "int")])
    with pytest.raises(TypeError, match=r"CudaStruct 'O': argument 'field p' .*" + hint):
        O(p=P, m=1)
    # another kind of wrong object gets no such hint
    with pytest.raises(TypeError, match=r"expected a CudaStruct value of struct 'P'$"):
        k(3, n_threads=1)


def test_a_vector_type_field_is_checked_by_name_and_its_array_spelling_in_full():
    """docs/cuda-kernels.md: a plain body with a field the parser does not read (a
    ``float3``) is checked by its name only (a new-user probe passed a 4-byte value for
    a 16-byte struct); ``float v[3]`` in its place makes the whole body checked."""
    vec = CudaKernel("struct P { float3 v; int n; };\n__global__ void k(P p) {}", "k")
    assert vec.params[0].ctype.fields is None
    arr = CudaKernel("struct P { float v[3]; int n; };\n__global__ void k(P p) {}", "k")
    assert [f for f, _ in arr.params[0].ctype.fields] == ["v", "n"]
    with pytest.raises(TypeError, match=r"declares \(float v\[3\]; int n\)"):
        arr._pack((CudaStruct("P", [("n", "int")])(n=1),))
    packed = arr._pack((CudaStruct("P", [("v", "float[3]"), ("n", "int")])(v=[1, 2, 3], n=4),))
    assert packed is not None
