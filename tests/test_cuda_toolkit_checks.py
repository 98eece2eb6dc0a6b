"""The CUDA toolkit's checks without a GPU (issue 15): C source scanning, C type
spellings, value ranges, sequences read once, and argument checks that run before
anything loads CuPy."""

from __future__ import annotations

import re
import time
import sys

import numpy as np
import pytest

import xstride as xp
from xstride import _backends
from xstride._core.csource import code_only, strip_comments
from xstride.cuda import CudaKernel, CudaStruct
from xstride.cuda import kernel as ck
from xstride.cuda._signature import parse_type

from .test_cuda_kernel import dev, device_array as FakeDeviceArray, gpu  # noqa: F401  (fixture)


# ---------------------------------------------------------------- source scanning
@pytest.mark.parametrize("src", [
    # a '/*' inside a '//' comment does not open a block comment
    '// old signature: /* \nextern "C" __global__ void k(float* x) {}\n// */\n',
    # a '//' inside a string literal is not a comment
    '__device__ const char* u = "http://x"; extern "C" __global__ void k(float* x) {}',
    # a "/*" string in an earlier kernel is not a comment
    '__global__ void a(char* s) { s[0] = "/*"[0]; }\n__global__ void k(float* x) {}\n'
    '__global__ void b() { /* */ }',
    # quotes and comment markers in character literals, escapes, raw strings
    "__device__ char q = '\"'; __device__ char e = '\\''; __device__ char c = '/';\n"
    '__device__ const char* r = R"xy(a " // b /* )xy";\n__global__ void k(float* x) {}',
    # a '}' or ')' in a literal does not end the function or the parameter list
    '__device__ const char* t = "}{)("; __global__ void k(float* x) { char c = \'}\'; }',
    # digit separators are not character literals
    "__device__ long long big = 1'000'000; // it's\n__global__ void k(float* x) {}",
])
def test_comment_and_literal_tricks_do_not_hide_the_kernel(src):
    k = CudaKernel(src, "k")
    assert [(p.name, p.ctype.text) for p in k.params] == [("x", "float*")]


def test_a_kernel_inside_a_comment_or_string_is_not_found():
    with pytest.raises(ValueError, match="no '__global__ void k"):
        CudaKernel('const char* s = "__global__ void k(int n) {}";', "k")
    with pytest.raises(ValueError, match="no '__global__ void k"):
        CudaKernel("// x\\\n__global__ void k(int n) {}", "k")  # the comment continues


def test_strip_comments_is_one_left_to_right_scan():
    src = ('a // b /* c\nd "e // f /* g" /* h // i\n */ j \'"\' k \'\\\'\' l\n'
           'm R"(n // o */ p)" q 1\'2 // r')
    assert strip_comments(src) == ('a  \nd "e // f /* g"  \n j \'"\' k \'\\\'\' l\n'
                                   'm R"(n // o */ p)" q 1\'2  ')
    blank = " " * len("e // f /* g")
    assert code_only(src) == ('a  \nd "' + blank + '"  \n j \' \' k \'  \' l\n'
                              'm R"(' + blank + ')" q 1\'2  ')
    assert strip_comments("int/**/x; /* open") == "int x;  "
    assert len(code_only(src)) == len(strip_comments(src))


def test_header_names_are_found_on_their_own_line_and_long_lines_scan_in_linear_time():
    """A new-user probe: a generated kernel of one 250 KB line took 7 s to make, each
    ``<`` (``i < n``) copying its line so far to ask whether it opened an include's
    header name. The names are found as before, on any line."""
    src = ("int a = 1 < 2;\n#include <x//y.h>\n  %:  include/**/<p/*q*/.h> // c\n"
           "int b = a < 3; /* <not//a.h> */\n")
    assert strip_comments(src) == ("int a = 1 < 2;\n#include <x//y.h>\n  %:  include <p/*q*/.h>  \n"
                                   "int b = a < 3;  \n")
    line = "int k(){ " + "if (i < n) x[i] += 1; " * 20000 + "}"
    lines = line.replace("; ", ";\n")
    assert strip_comments(line) == line

    def best(text):
        times = []
        for _ in range(3):
            t0 = time.perf_counter()
            strip_comments(text)
            times.append(time.perf_counter() - t0)
        return min(times)

    # one long line costs what the same text in many lines does (it was 10-20x more)
    assert best(line) < 4 * best(lines) + 0.05


def test_unnamed_parameters_after_const_get_positional_names():
    k = CudaKernel("__global__ void k(float const, float const x, int* const, "
                   "double const* const) {}", "k")
    assert [(p.name, p.ctype.kind) for p in k.params] == [
        ("arg0", "scalar"), ("x", "scalar"), ("arg2", "pointer"), ("arg3", "pointer")]


def test_parameter_attributes_are_not_part_of_the_type():
    """``[[maybe_unused]] float x`` was 'unknown C type '[[maybe_unused]] float'', and
    ``float y __attribute__((unused))`` an unknown type named 'arg1'."""
    k = CudaKernel("__global__ void k([[maybe_unused]] float x, float y __attribute__"
                   "((unused)), const int* __attribute__((aligned(16), unused)) p, "
                   "[[maybe_unused]] double) {}", "k")
    assert [(p.name, p.ctype.text) for p in k.params] == [
        ("x", "float"), ("y", "float"), ("p", "const int*"), ("arg3", "double")]


def test_parameter_and_struct_names_beyond_ascii():
    """C++ identifiers may hold other letters: 'float ξ' was refused as an unknown C
    type 'float ξ' named 'arg0', and a struct 'Pä' of the source as unknown."""
    k = CudaKernel("struct Pä { int n; };\n"
                   "__global__ void k(float ξ, const double* größe, Pä p) {}", "k")
    assert [(p.name, p.ctype.kind, p.ctype.text) for p in k.params] == [
        ("ξ", "scalar", "float"), ("größe", "pointer", "const double*"),
        ("p", "struct", "Pä")]


def test_kernel_struct_and_field_names_beyond_ascii_are_refused():
    """C++ allows letters beyond ASCII in a name and the source parser reads them, but
    NVRTC reads such a letter as an "unrecognized token" (NVRTC 13.5): a kernel named
    'ξ', a CudaStruct 'Ξ' or a field 'größe' were taken and failed only at compile
    time. A name given to xstride is refused at construction, naming the argument."""
    from xstride._core.csource import is_c_identifier

    assert all(is_c_identifier(n) for n in ("ξ", "kξ", "größe", "_ξ", "Ξ1"))   # C++'s rule
    assert not any(is_c_identifier(n) for n in ("1ξ", "ξ-1", "", "int", "٣x"))
    note = r"\(it holds '{}': NVRTC compiles names of ASCII letters, digits and '_' only"
    for name in ("ξ", "a::kξ"):
        with pytest.raises(ValueError, match=r"CudaKernel: argument 'name' '.*' is not a C "
                                             r"identifier NVRTC compiles " + note.format("ξ")):
            CudaKernel("__global__ void k(float* x) {}", name)
    with pytest.raises(ValueError, match=r"CudaStruct: argument 'name' 'Ξ' is not a valid C "
                                         r"identifier " + note.format("Ξ")):
        CudaStruct("Ξ", [("n", "int")])
    with pytest.raises(ValueError, match=r"CudaStruct 'P': argument 'fields' field name "
                                         r"'größe' is not a valid C identifier "
                                         + note.format("ö")):
        CudaStruct("P", [("n", "int"), ("größe", "float")])
    with pytest.raises(ValueError, match="not a C identifier"):
        CudaKernel("__global__ void k() {}", "1ξ")
    # plain ASCII names are taken
    assert CudaStruct("P", [("groesse", "float")]).name == "P"
    assert CudaKernel("__global__ void k_1(float* x) {}", "k_1").name == "k_1"


def test_elementwise_names_beyond_ascii_are_refused():
    import xstride as xp

    note = r"\(it holds 'ξ': NVRTC compiles names of ASCII letters"
    with pytest.raises(ValueError, match=r"ElementwiseKernel: name 'ξ' is not a C "
                                         r"identifier " + note):
        xp.cuda.ElementwiseKernel("float32 x", "float32 z", "z = x", "ξ")
    with pytest.raises(ValueError, match=r"ElementwiseKernel: input parameter name 'ξ' is "
                                         r"not a C identifier NVRTC compiles " + note):
        xp.cuda.ElementwiseKernel("float32 ξ", "float32 z", "z = ξ", "k")


@pytest.mark.parametrize("params, index, name, decl", [
    ("void (*f)(int)", 0, "f", "void (*f)(int)"),
    ("int n, float (* const cb)(float, float)", 1, "cb", "float (* const cb)(float, float)"),
    ("float (*)(float), int n", 0, "arg0", "float (*)(float)"),
    ("int n, float (&g)(float)", 1, "g", "float (&g)(float)"),
])
def test_function_pointer_parameters_are_named(params, index, name, decl):
    """Were "parameter 0 ('arg0'): unknown C type 'void (*f)(int)': pointers to 'void ('
    are not supported"."""
    with pytest.raises(ValueError, match=re.escape(
            f"CudaKernel 'k': parameter {index} ({name!r}): function pointer or reference "
            f"{decl!r} is not a supported parameter type (pass the address as an unsigned "
            "long long")):
        CudaKernel(f"__global__ void k({params}) {{}}", "k")


@pytest.mark.parametrize("ctype, why", [
    # was "pointers to 'Array2D<float' are not supported"
    ("Array2D<float*>", "view element type 'float\\*' is not a known scalar type"),
    ("CArray3D<const double* const>", "view element type 'const double\\* const' is not"),
    ("Array2D<float*>*", "pointers to 'Array2D<float\\*>' are not supported"),
    # was read as Array2D<float>, which array_view.cuh does not declare
    ("Array02D<float>", "unknown C type 'Array02D<float>'$"),
    ("Array0D<float>", "views have 1 to 16 dimensions"),
])
def test_view_spellings_that_are_not_views(ctype, why):
    with pytest.raises(ValueError, match=f"CudaKernel 'k': parameter 0 \\('a'\\): .*{why}"):
        CudaKernel(f"__global__ void k({ctype} a) {{}}", "k")
    with pytest.raises(ValueError, match=f"CudaStruct 'S': field 'a': .*{why}"):
        CudaStruct("S", [("a", ctype)])


# ---------------------------------------------------------------- C type spellings
@pytest.mark.parametrize("ctype,why", [
    ("long long long", "'long' is repeated"),
    ("short long", "'short' and 'long' cannot be combined"),
    ("char int", "'char' and 'int' cannot be combined"),
    ("char short", "'char' and 'short' cannot be combined"),
    ("signed unsigned int", "'signed' and 'unsigned' cannot be combined"),
    ("unsigned unsigned", "'unsigned' is repeated"),
    ("int int", "'int' is repeated"),
    ("const long long long*", "'long' is repeated"),
    ("CArray1D<short long>", "'short' and 'long' cannot be combined"),
])
def test_invalid_integer_spellings_are_refused(ctype, why):
    with pytest.raises(ValueError) as info:
        CudaStruct("S", [("n", "int"), ("bad", ctype)])
    msg = str(info.value)
    assert "CudaStruct 'S'" in msg and "field 'bad'" in msg
    assert f"unknown C type {ctype!r}" in msg and why in msg
    with pytest.raises(ValueError, match=r"parameter 0 \('v'\): unknown C type"):
        CudaKernel(f"__global__ void k({ctype} v) {{}}", "k")


@pytest.mark.parametrize("ctype,dtype", [
    ("long int long", np.int64), ("int long", np.int64), ("short int unsigned", np.uint16),
    ("signed char", np.int8), ("long unsigned long int", np.uint64),
    ("const long long", np.int64),
])
def test_valid_integer_spellings_in_any_order(ctype, dtype):
    assert parse_type(ctype).dtype == np.dtype(dtype)


def test_const_is_a_word_not_a_substring():
    with pytest.raises(ValueError, match="pointers to 'Constants' are not supported"):
        parse_type("Constants*")
    S = CudaKernel("struct P { int a; };\n__global__ void k(P const p) {}", "k")
    assert S.params[0].ctype.kind == "struct"


# ---------------------------------------------------------------- value ranges
@pytest.mark.parametrize("ctype,value", [
    ("complex<float>", 1e39), ("complex<float>", complex(1.0, -1e39)),
    ("complex<float>", np.complex128(1e39)), ("complex<float>", 10**40),
    ("float", 10**400), ("double", -10**400), ("complex<double>", 10**400),
    ("half", 70000.0), ("float", np.longdouble(1e300)),
], ids=lambda v: str(v)[:24])
def test_finite_values_that_would_become_inf_are_refused(ctype, value):
    S = CudaStruct("S", [("v", ctype)])
    with pytest.raises(OverflowError, match=f"CudaStruct 'S': argument 'field v' value .* "
                       f"is out of range for C type '{ctype}'"):
        S(v=value)


def test_representable_values_are_packed_exactly():
    S = CudaStruct("S", [("c", "complex<float>"), ("f", "float"), ("z", "complex<double>")])
    raw = S(c=complex(3e38, -2.5), f=float("inf"), z=np.complex64(1 - 2j)).tobytes()
    c, f, z = np.frombuffer(raw[:8], np.complex64)[0], np.frombuffer(raw[8:12], np.float32)[0], \
        np.frombuffer(raw[16:], np.complex128)[0]
    assert c == np.complex64(complex(3e38, -2.5)) and np.isinf(f) and z == 1 - 2j


def test_bools_are_not_integers():
    S = CudaStruct("S", [("n", "int")])
    with pytest.raises(TypeError, match="'field n' got bool True; expected an integer"):
        S(n=True)


@pytest.mark.parametrize("ctype, expected", [("int", "an integer"), ("float", "a real number"),
                                             ("complex<double>", "a number")])
def test_timedeltas_are_not_numbers(ctype, expected):
    """np.timedelta64 subclasses np.signedinteger: a unitless one was packed as its
    count, one with a unit failed inside int() with a message naming no argument."""
    S = CudaStruct("S", [("n", ctype)])
    for value in (np.timedelta64(3), np.timedelta64(3, "s"), np.timedelta64("NaT")):
        with pytest.raises(TypeError, match=f"'field n' got numpy.timedelta64.*; expected "
                                            f"{expected} for C type '{ctype}'"):
            S(n=value)


# ---------------------------------------------------------------- sequences, once
SRC_K = "__global__ void k(float* x) {}"


def test_options_and_include_dirs_iterators_are_kept(tmp_path):
    (tmp_path / "box.h").write_text("struct Box { double lo; double hi; };\n")
    src = '#include "box.h"\n__global__ void k(Box b) {}'
    k = CudaKernel(src, "k", options=iter(["-DA=1", "-DB=2"]),
                   include_dirs=(d for d in [tmp_path]))
    assert k.options == ("-DA=1", "-DB=2")
    assert k.include_dirs == (str(tmp_path),)
    assert k.params[0].ctype.nbytes == 16  # the header was found through the generator
    assert k.compile_options()[:3] == ("-DA=1", "-DB=2", f"-I{tmp_path}")
    k2 = CudaKernel(src, "k", options=(o for o in [f"-I{tmp_path}"]))
    assert k2.params[0].ctype.kind == "struct"  # -I from a generator is searched too


@pytest.mark.parametrize("kw,given", [
    ({"options": None}, "NoneType None"),
    ({"options": 5}, "int 5"),
    ({"options": b"-DX"}, "bytes"),
    ({"options": ["-DX", 3]}, "item 3 is a int"),
    ({"options": iter(["-DX", None])}, "item None is a NoneType"),
    ({"include_dirs": None}, "NoneType None"),
    ({"include_dirs": [3]}, "item 3 is a int"),
])
def test_bad_options_name_the_function_and_argument(kw, given):
    arg = next(iter(kw))
    with pytest.raises(TypeError, match=f"^CudaKernel 'k': argument '{arg}' got .*{given}"):
        CudaKernel(SRC_K, "k", **kw)


# ---------------------------------------------------------------- checks before CuPy
@pytest.fixture
def no_cupy(monkeypatch):
    """CuPy cannot be imported (whether or not it is installed); the failure is not
    remembered after the test."""
    monkeypatch.setitem(sys.modules, "cupy", None)
    cupy_backend = _backends.get("cupy")
    monkeypatch.setattr(cupy_backend, "failure", cupy_backend.failure)
    monkeypatch.setattr(cupy_backend, "_checked", None)


SRC_CHECKS = ("#include <xstride/array_view.cuh>\n"
              "__global__ void k(const float* x, CArray2D<int> c, int n) {}")


def _good():
    return [dev(4), dev((2, 3), np.int32), 3]


@pytest.mark.parametrize("change,kw,exc,match", [
    (lambda a: a[:-1], {}, TypeError, r"takes 3 argument\(s\) \(x, c, n\), got 2"),
    (lambda a: a + [1], {}, TypeError, r"takes 3 argument\(s\)"),
    (lambda a: [np.zeros(4, np.float32)] + a[1:], {}, TypeError, "'x' got numpy.ndarray"),
    (lambda a: [dev(4, np.float64)] + a[1:], {}, TypeError, "'x' has dtype float64"),
    (lambda a: [a[0], dev((3,), np.int32), a[2]], {}, TypeError, "'c' has 1 dimensions"),
    (lambda a: [a[0], FakeDeviceArray(np.zeros((3, 2), np.int32).T), a[2]], {}, ValueError,
     "'c' is not C-contiguous"),
    (lambda a: a[:2] + [2**31], {}, OverflowError, "'n' value 2147483648 is out of range"),
    (lambda a: a[:2] + [1.5], {}, TypeError, "'n' got float"),
    (lambda a: a, {"n_threads": 4, "grid": 1}, TypeError, "exactly one of"),
    (lambda a: a, {"n_threads": None}, TypeError, "exactly one of"),
    (lambda a: a, {"n_threads": -1}, ValueError, "'n_threads' must be >= 0"),
    (lambda a: a, {"n_threads": 4, "block": 2048}, ValueError, "2048 threads"),
    (lambda a: a, {"n_threads": None, "grid": (1, 1, 1, 1)}, ValueError, "'grid' must have 1 to 3"),
    (lambda a: a, {"n_threads": 4, "shared_mem": -1}, ValueError, "'shared_mem'"),
    (lambda a: a, {"n_threads": 4, "stream": 7}, TypeError, "'stream'"),
    # was CudaKernel.__call__() got an unexpected keyword argument 'n'
    (lambda a: a[:2], {"n": 3}, TypeError, r"takes its arguments by position \(x, c, n\); "
                                            "got keyword argument\\(s\\) n"),
])
def test_argument_checks_need_no_cupy(no_cupy, change, kw, exc, match):
    k = CudaKernel(SRC_CHECKS, "k")
    kw = {"n_threads": 4, **kw}
    with pytest.raises(exc, match=f"^CudaKernel 'k'.*{match}"):
        k(*change(_good()), **kw)
    assert sys.modules["cupy"] is None  # nothing tried to replace the blocked import


def test_issue_example_wrong_count_with_a_numpy_array(no_cupy):
    k = CudaKernel(SRC_CHECKS, "k")
    with pytest.raises(TypeError, match=r"takes 3 argument\(s\) \(x, c, n\), got 1"):
        k(np.zeros(3, np.float32), n_threads=3)
    with pytest.raises(TypeError, match="a NumPy array lives in host memory"):
        k(np.zeros(3, np.float32), dev((2, 3), np.int32), 3, n_threads=3)


def test_a_correct_call_without_cupy_reports_the_missing_device(no_cupy):
    k = CudaKernel(SRC_CHECKS, "k")
    with pytest.raises(RuntimeError, match="backend 'cupy' is unavailable"):
        k(*_good(), n_threads=4)


def test_device_limits_and_device_still_checked_after(gpu):  # noqa: F811
    from xstride.cuda._launch_config import Limits

    k = CudaKernel(SRC_CHECKS, "k")
    gpu.limits = Limits(max_grid_dims=(8, 1, 1), max_shared_mem=100)
    with pytest.raises(ValueError, match="at most 8"):
        k(*_good(), grid=9)
    with pytest.raises(ValueError, match="exceeds the device's 100 bytes"):
        k(*_good(), n_threads=4, shared_mem=101)
    args = _good()
    args[1] = dev((2, 3), np.int32, device=1)
    with pytest.raises(ValueError, match="'c' is on device 1"):
        k(*args, n_threads=4)
    assert gpu.builds == []
    k(*_good(), n_threads=4, shared_mem=100)
    assert len(gpu.builds) == 1


# ---------------------------------------------------------------- ElementwiseKernel
def test_elementwise_kernel_checks_need_no_cupy(no_cupy):
    k = xp.cuda.ElementwiseKernel("T x, float32 y", "T z", "z = x + y", "axpy")
    with pytest.raises(TypeError, match="axpy: takes 2 inputs"):
        k(np.zeros(3))
    with pytest.raises(TypeError, match="axpy: argument 'x' got numpy.ndarray"):
        k(np.zeros(3), 1.0)
    with pytest.raises(TypeError, match="axpy: argument 'y' got list"):
        k(dev(3), [1.0])
    with pytest.raises(TypeError, match="axpy: argument 'z' got numpy.ndarray"):
        k(dev(3), 1.0, np.zeros(3))
    with pytest.raises(TypeError, match="axpy: argument 'size' got str"):
        k(1.0, 2.0, size="3")
    with pytest.raises(TypeError, match="axpy: argument 'size' got float 3.0"):
        k(1.0, 2.0, size=3.0)
    # a negative size was a TypeError "expected None or an int >= 0"; NumPy's
    # np.empty(-1) is a ValueError
    for size in (-1, np.int64(-5)):
        with pytest.raises(ValueError, match=rf"^axpy: argument 'size' must be >= 0 \(a "
                                             rf"number of elements\); got {int(size)}$"):
            k(1.0, 2.0, size=size)
    # past int64: handed to CuPy's allocation unchecked
    with pytest.raises(ValueError, match=r"^axpy: argument 'size' is 1180591620717411303424, "
                                         r"which overflows int64 \(at most 2\*\*63 - 1\)$"):
        k(1.0, 2.0, size=2**70)
    with pytest.raises(TypeError, match="axpy: argument 'stream' got int"):
        k(dev(3), 1.0, stream=3)
    with pytest.raises(RuntimeError, match="backend 'cupy' is unavailable"):
        k(dev(3), 1.0)


def test_elementwise_kernel_takes_a_python_complex_scalar(no_cupy):
    """``k(1 + 2j, 2.0)`` was refused, "argument 'x' got complex (1+2j); expected a
    cupy.ndarray or a scalar", while ``np.complex128(1 + 2j)`` passed (CuPy's
    ElementwiseKernel takes both): a Python complex passes the checks like a float, to
    the CuPy step (unavailable here)."""
    k = xp.cuda.ElementwiseKernel("T x, float32 y", "T z", "z = x + y", "axpy")
    for x in (1 + 2j, np.complex128(1 + 2j), 1.5):
        with pytest.raises(RuntimeError, match="backend 'cupy' is unavailable"):
            k(x, 2.0)
    with pytest.raises(TypeError, match="axpy: argument 'x' got str"):
        k("1+2j", 2.0)


def test_elementwise_kernel_index_use_ignores_comments_and_literals():
    mk = xp.cuda.ElementwiseKernel
    assert not mk("T x", "T z", "z = x; // i is unused", "k")._uses_i
    assert not mk("T x", "T z", "z = x + 'i' /* i */", "k")._uses_i
    assert mk("T x", "T z", "z = x + i; // i", "k")._uses_i


# ---------------------------------------------------------------- CudaStruct fields
@pytest.mark.parametrize("source_field,struct_field", [
    ("float *out;", ("out", "float*")),                  # the C habit of '*' by the name
    ("float* __restrict__ out;", ("out", "float *")),
    ("float const* out;", ("out", "const float*")),
    ("Array2D<const float> out;", ("out", "Array2D<float const>")),
    ("long long int n;", ("n", "long long")),
    ("unsigned n;", ("n", "unsigned int")),
])
def test_a_struct_field_matches_however_its_type_is_spelled(no_cupy, source_field, struct_field):
    """The fields were compared as spelled: a struct written with 'float *out;' refused
    the CudaStruct of "float*" (the same type) with a TypeError at launch."""
    k = CudaKernel("#include <xstride/array_view.cuh>\nstruct P { " + source_field
                   + " };\n__global__ void k(P p) {}", "k")
    P = CudaStruct("P", [struct_field])
    value = {"out": dev((2, 2)) if "Array" in struct_field[1] else dev(4), "n": 3}
    with pytest.raises(RuntimeError, match="backend 'cupy' is unavailable"):
        k(P(**{struct_field[0]: value[struct_field[0]]}), n_threads=1)


def test_a_struct_field_of_another_type_is_still_refused(no_cupy):
    k = CudaKernel("struct P { float *out; int n; };\n__global__ void k(P p) {}", "k")
    for out, dtype, n in (("double*", np.float64, "int"), ("const float*", np.float32, "int"),
                          ("float*", np.float32, "unsigned int")):
        value = CudaStruct("P", [("out", out), ("n", n)])(out=dev(4, dtype), n=1)
        with pytest.raises(TypeError, match="but the kernel's struct 'P' declares"):
            k(value, n_threads=1)


# ---------------------------------------------------------------- declarations
@pytest.mark.parametrize("source, name", [
    ("__device__ void k(int a) {}\n__global__ void k(float* x) {}", "k"),
    ("__global__ void k(float* x) {}\n__host__ __device__ int k(int a) { return a; }", "k"),
    ("template <typename T> __device__ T k(T a) { return a; }\n"
     "__global__ void k(float* x) {}", "k"),
    ("__device__ void k(int);\n__global__ void k(float* x) {}", "k"),
    ("namespace a { __device__ void k(int) {} __global__ void k(float* x) {} }", "a::k"),
    # a review: a block that never closes (two heads in #ifdef branches sharing one body)
    # hid what follows it, and a macro call before extern "C" { } hid its functions
    ("#ifdef USE_LONG\n__device__ long g(long a) {\n#else\n__device__ int g(int a) {\n"
     "#endif\n  return a;\n}\n__device__ void k(int a) {}\n__global__ void k(float* x) {}", "k"),
    ('#define DECL(x)\nDECL(foo)\nextern "C" { __device__ void k(int a) {} }\n'
     "__global__ void k(float* x) {}", "k"),
])
def test_a_device_function_of_the_kernel_s_name_is_refused(source, name):
    """A new-user probe: a ``__device__`` function of the kernel's name beside it was
    accepted, and NVRTC then failed with "cannot determine which instance of
    overloaded function" at the first launch."""
    with pytest.raises(ValueError, match=r"a __device__ function '" + re.escape(name)
                       + r"' is declared beside the kernel: .*overloads are not supported"):
        CudaKernel(source, name)


@pytest.mark.parametrize("source", [
    "namespace b { __device__ void k(int a) {} }\n__global__ void k(float* x) {}",
    "__device__ float kk(float a) { return a; }\n__global__ void k(float* x) { x[0] = kk(1.f); }",
    "__device__ void f(float* x) { x[0] = 1.f; }\n__global__ void k(float* x) { f(x); }",
    # a struct's member function of the kernel's name is no overload of it (a new-user
    # probe: these were refused as "declared beside the kernel")
    "struct S { __device__ void k(int) {} };\n__global__ void k(float* x) {}",
    "struct S { static __device__ void k(int) {} };\n__global__ void k(float* x) {}",
    "template <class T> struct S { __device__ T k() const { return T(); } };\n"
    "__global__ void k(float* x) {}",
    "__global__ void k(float* x) { struct L { __device__ void k() {} }; }",
])
def test_device_functions_of_other_names_or_scopes_are_taken(source):
    assert [p.name for p in CudaKernel(source, "k").params] == ["x"]


@pytest.mark.parametrize("declaration", [
    "__global__ void k(float*, int);",             # unnamed, as prototypes often are
    "__global__ void k(float* y, int m);",         # other names
    "__global__ void k(float *x, int n);",         # other spacing
    "__global__ void k(float* __restrict__ x, const int n);",
])
def test_a_declaration_before_the_definition_is_no_overload(declaration):
    """A prototype whose parameter list was not spelled as the definition's was refused as
    "declared with different parameter lists (overloads are not supported)"; the
    parameters and their names are the definition's."""
    for src in (declaration + "\n__global__ void k(float* x, int n) {}",
                "__global__ void k(float* x, int n) {}\n" + declaration):
        k = CudaKernel(src, "k")
        assert [(p.name, p.ctype.kind, p.ctype.dtype) for p in k.params] == \
            [("x", "pointer", np.float32), ("n", "scalar", np.int32)]
    with pytest.raises(ValueError, match="overloads are not supported"):
        CudaKernel(declaration + "\n__global__ void k(double* x, int n) {}", "k")


def test_a_missing_cupy_names_what_to_install(no_cupy):
    """The message said "No module named 'cupy'" and nothing about installing it (the
    dask backend's names its extra)."""
    k = CudaKernel(SRC_CHECKS, "k")
    with pytest.raises(RuntimeError) as info:
        k(*_good(), n_threads=4)
    msg = str(info.value)
    assert msg.startswith("CudaKernel 'k': backend 'cupy' is unavailable: CuPy could not be "
                          "imported: ")
    assert "pip install 'xstride[cuda13]'" in msg and "'xstride[cuda12]'" in msg
    assert xp.cuda.capabilities()["reason"].endswith("a ROCm build of CuPy)")
