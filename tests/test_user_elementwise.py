"""xp.cuda.ElementwiseKernel: construction-time argument checks (no GPU needed)."""

from __future__ import annotations

import numpy as np
import pytest

import xstride as xp


@pytest.mark.parametrize("args, arg", [
    ((1, "float32 z", "z = 1", "k"), "in_params"),
    (("float32 x", None, "z = x", "k"), "out_params"),
    (("float32 x", "float32 z", 3, "k"), "operation"),
    (("float32 x", "float32 z", "z = x", None), "name"),
])
def test_non_string_arguments_raise_type_error(args, arg):
    with pytest.raises(TypeError, match=f"ElementwiseKernel: argument '{arg}' got .*; expected a str"):
        xp.cuda.ElementwiseKernel(*args)


def test_bad_name_and_missing_output():
    with pytest.raises(ValueError, match="is not a C identifier"):
        xp.cuda.ElementwiseKernel("float32 x", "float32 z", "z = x", "2bad")
    with pytest.raises(ValueError, match="at least one output parameter"):
        xp.cuda.ElementwiseKernel("float32 x", "", "x", "k")


def test_valid_kernel_records_its_parameters():
    k = xp.cuda.ElementwiseKernel("float32 x, T y", "T z", "z = x + y", "axpy")
    assert k.name == "axpy" and k.operation == "z = x + y"
    assert [p[0] for p in k.in_params] == ["x", "y"]
    assert [p[0] for p in k.out_params] == ["z"]


@pytest.mark.parametrize("params, typ, hint", [
    ("float x", "float", "float32"), ("double x", "double", "float64"),
    ("int x", "int", "int32"), ("unsigned x", "unsigned", None),
    ("size_t x", "size_t", "uint64"), ("int64_t x", "int64_t", "int64"),
    ("half x", "half", "float16"), ("long x", "long", None),
])
def test_a_c_type_name_is_no_placeholder(params, typ, hint):
    """Read as a placeholder, ``float x`` became ``typedef float float;`` in the kernel:
    a compile error on the device instead of an error at construction (CuPy refuses it:
    "Wrong type float")."""
    with pytest.raises(ValueError, match=f"ElementwiseKernel: input parameter '{params}': "
                                         f"'{typ}' is a C type name") as info:
        xp.cuda.ElementwiseKernel(params, "float32 z", "z = x", "k")
    if hint:
        assert str(info.value).endswith(f"write '{hint}'")
    with pytest.raises(ValueError, match=f"output parameter 'float z'"):
        xp.cuda.ElementwiseKernel("float32 x", "float z", "z = x", "k")


@pytest.mark.parametrize("params", ["float32 x,", "float32 x,, T y", ",", " , float32 x"])
def test_an_empty_parameter_is_refused(params):
    """It was skipped (CuPy refuses it: "Syntax error")."""
    with pytest.raises(ValueError, match="ElementwiseKernel: empty input parameter in "):
        xp.cuda.ElementwiseKernel(params, "float32 z", "z = 1", "k")
    assert xp.cuda.ElementwiseKernel(" ", "float32 z", "z = 1", "k").in_params == []


@pytest.mark.parametrize("typ, said, hint", [
    ("flaot32", "neither a NumPy dtype name nor a type placeholder", "float32"),
    ("float32x", "neither a NumPy dtype name nor a type placeholder", "float32"),
    ("qqq", "neither a NumPy dtype name nor a type placeholder", None),
    ("TT", "neither a NumPy dtype name nor a type placeholder", None),
    ("object", "not a dtype name the kernels take", None),
    ("datetime64", "not a dtype name the kernels take", None),
    ("f4", "not a dtype name the kernels take", "float32"),
    (">f8", "not a dtype name the kernels take", "float64"),
    ("i8", "not a dtype name the kernels take", "int64"),
])
def test_a_type_of_several_letters_must_be_a_dtype_name(typ, said, hint):
    """Only one letter is a placeholder, and a longer type must be a dtype's own name
    (CuPy's rule: ``numpy.dtype(t).name == t``). A misspelt name was read as a
    placeholder and bound from the argument, so a float64 array computed in float64
    where the kernel said float32; ``>f8`` would have declared a big-endian output."""
    with pytest.raises(ValueError, match=f"ElementwiseKernel: input parameter '{typ} x': "
                                         f"'{typ}' is {said}") as info:
        xp.cuda.ElementwiseKernel(f"{typ} x", "float32 z", "z = x", "k")
    assert str(info.value).endswith(f"did you mean '{hint}'?") == (hint is not None)


@pytest.mark.parametrize("typ", ["float32", "complex64", "uint8", "bool", "int16"])
def test_dtype_names_name_their_dtype(typ):
    k = xp.cuda.ElementwiseKernel(f"{typ} x, T y", "T z", "z = x + y", "k")
    assert k.in_params[0][2] == np.dtype(typ) and k.in_params[1][2] is None


@pytest.mark.parametrize("preamble, rule, detail", [
    ("#include <xstride/reduce.cuh>\n", "warp_shuffle", "it includes xstride/reduce.cuh"),
    ('#include "xstride/scan.cuh"\n', "warp_shuffle", "it includes xstride/scan.cuh"),
    ("#define XSTRIDE_BOUNDS_CHECK\n#include <xstride/array_view.cuh>\n",
     "bounds_check_views", "its source defines XSTRIDE_BOUNDS_CHECK"),
    # "%:" is C++'s digraph of "#": such a preamble was not scanned at all
    ("%:include <xstride/reduce.cuh>\n", "warp_shuffle", "it includes xstride/reduce.cuh"),
])
def test_a_preamble_that_breaks_a_hip_rule_is_refused_on_hip(monkeypatch, preamble, rule,
                                                             detail):
    """A preamble including reduce.cuh (32-lane shuffles) was compiled on a HIP build,
    which CudaKernel refuses for its source; the call is refused the same way, before
    anything is compiled or launched. On CUDA the gate lets it through."""
    from xstride.cuda import _device, _elementwise_kernel as ek

    launched = []
    monkeypatch.setattr(ek, "load_cupy", lambda: object())
    monkeypatch.setattr(ek._executors, "engine", lambda: launched.append(1))
    monkeypatch.setattr(_device, "is_hip", lambda: True)
    k = xp.cuda.ElementwiseKernel("float32 x", "float32 z", "z = x", "k", preamble=preamble)
    with pytest.raises(NotImplementedError, match=f"ElementwiseKernel 'k' cannot be compiled "
                                                  f"on a HIP \\(ROCm\\) build: rule '{rule}': "
                                                  f"{detail}"):
        k(1.0, size=4)
    assert launched == []
    monkeypatch.setattr(_device, "is_hip", lambda: False)
    with pytest.raises(AttributeError):     # past the gate: the fake CuPy has no ndarray
        k(1.0, size=4)


def test_a_preamble_include_the_scan_cannot_resolve_is_refused_on_hip(monkeypatch):
    """``#include H(reduce)`` of a function-like macro was not seen: the preamble
    reached reduce.cuh on HIP unchecked. It is refused at the call, naming the include."""
    from xstride.cuda import _device, _elementwise_kernel as ek

    monkeypatch.setattr(ek, "load_cupy", lambda: object())
    monkeypatch.setattr(ek._executors, "engine", lambda: None)
    monkeypatch.setattr(_device, "is_hip", lambda: True)
    k = xp.cuda.ElementwiseKernel("float32 x", "float32 z", "z = x", "k",
                                  preamble="#define H(x) <xstride/x.cuh>\n#include H(reduce)\n")
    with pytest.raises(NotImplementedError, match=r"ElementwiseKernel 'k' cannot be checked "
                                                  r"for a HIP .* '#include H\(reduce\)'"):
        k(1.0, size=4)


def test_a_preamble_without_a_hip_rule_is_not_scanned_again():
    k = xp.cuda.ElementwiseKernel("float32 x", "float32 z", "z = f(x)", "k",
                                  preamble="#include <xstride/index.cuh>\n"
                                           "__device__ float f(float v) { return v; }")
    assert k._hip_graph is None


# ------------------------------------------------ options and the user's own headers
@pytest.fixture
def compiles(fake_cupy, monkeypatch):
    """The engine compiling through the real compile cache (``_compile.function``) on
    the stand-in CuPy; yields the options of every module CuPy was asked to build."""
    from xstride._kernels import _compile, _elementwise_exec as ex
    from xstride._kernels._prepared import GATE

    built = []
    make = fake_cupy.RawModule

    def raw_module(code=None, options=(), **kwargs):
        built.append(tuple(options))
        return make(code=code, options=options, **kwargs)

    monkeypatch.setattr(fake_cupy, "RawModule", raw_module, raising=False)
    monkeypatch.setattr(ex, "CACHE", True)
    monkeypatch.setattr(GATE, "nd", None)
    monkeypatch.setattr(GATE, "getdev", GATE.getdev)
    ex.clear_caches()
    _compile.clear()
    yield built
    ex.clear_caches()
    _compile.clear()


def _digests(opts):
    return [o for o in opts if o.startswith("-DXSTRIDE_HEADERS_SHA256=0x")]


def test_an_edited_user_header_changes_the_options_handed_to_cupy(compiles, tmp_path):
    """The ``options`` were accepted and dropped: a preamble including a header of an
    ``-I`` folder never saw the folder, and CuPy's cache key (source text and options)
    did not change when the header did. Now the options reach NVRTC with the digest
    of the headers the preamble reaches, as a CudaKernel's do."""
    from tests.conftest import FakeCupyArray

    inc = tmp_path / "inc"
    inc.mkdir()
    (inc / "scale.h").write_text("#define SCALE 2.0f\n")

    def run():
        k = xp.cuda.ElementwiseKernel("float32 x", "float32 z", "z = x * SCALE", "scaled",
                                      preamble='#include "scale.h"\n',
                                      options=[f"-I{inc}", "-DEXTRA=1"])
        k(FakeCupyArray(np.arange(4, dtype=np.float32)))
        return k

    k = run()
    assert k.options == (f"-I{inc}", "-DEXTRA=1")
    (first,) = compiles
    assert f"-I{inc}" in first and "-DEXTRA=1" in first and len(_digests(first)) == 1
    run()                                   # same header: the same key, no compile
    assert len(compiles) == 1
    (inc / "scale.h").write_text("#define SCALE 3.0f\n")
    run()                                   # edited header: new options, compiled again
    assert len(compiles) == 2 and _digests(compiles[1]) != _digests(first)
    assert [o for o in compiles[1] if o not in _digests(compiles[1])] == \
        [o for o in first if o not in _digests(first)]


def test_the_own_digest_covers_the_shipped_headers_too(compiles, tmp_path, monkeypatch):
    """Options that carry the digest define get none of the compiler layer's, so the
    user's digest must change with a shipped header as well (the engine includes
    them)."""
    from xstride._kernels import _compile
    from tests.conftest import FakeCupyArray

    (tmp_path / "h.h").write_text("#define ONE 1\n")
    make = lambda: xp.cuda.ElementwiseKernel(  # noqa: E731
        "float32 x", "float32 z", "z = x + ONE", "plus_one", preamble="#include <h.h>\n",
        options=(f"-I{tmp_path}",))
    make()(FakeCupyArray(np.arange(3, dtype=np.float32)))
    monkeypatch.setattr(_compile, "headers_digest", lambda: "f" * 64)
    make()(FakeCupyArray(np.arange(3, dtype=np.float32)))
    assert len(compiles) == 2 and _digests(compiles[0]) != _digests(compiles[1])


def test_a_preamble_of_shipped_headers_keeps_the_shared_option_set(compiles):
    """Without a header of its own, a kernel keeps the compiler layer's option set
    (one digest of the shipped headers, shared with xstride's own kernels)."""
    from xstride._kernels import _compile
    from tests.conftest import FakeCupyArray

    k = xp.cuda.ElementwiseKernel("float32 x", "float32 z", "z = x", "copy1",
                                  preamble="#include <xstride/index.cuh>\n")
    k(FakeCupyArray(np.arange(3, dtype=np.float32)))
    (opts,) = compiles
    assert opts == _compile.module_options("")


@pytest.mark.parametrize("options", ["-I/tmp", None, ["-DA=1", 3]])
def test_options_must_be_a_sequence_of_str(options):
    with pytest.raises(TypeError, match="ElementwiseKernel 'k'.*'options'.*a sequence of str"):
        xp.cuda.ElementwiseKernel("float32 x", "float32 z", "z = x", "k", options=options)


@pytest.mark.parametrize("typ, value, exc, match", [
    ("int8", 300, OverflowError, "value 300 is out of range for its dtype int8"),
    ("uint8", -1, OverflowError, "value -1 is out of range for its dtype uint8"),
    ("int32", 2**40, OverflowError, "value 1099511627776 is out of range for its dtype int32"),
    ("uint64", -1, OverflowError, "value -1 is out of range for its dtype uint64"),
    ("int16", float("nan"), ValueError, "value nan cannot be converted to its dtype int16"),
    ("int16", float("inf"), OverflowError, "value inf is out of range for its dtype int16"),
])
def test_a_python_scalar_out_of_its_parameter_s_range_is_refused(compiles, fake_cupy, typ,
                                                                 value, exc, match):
    """A Python int for a parameter of a narrower integer dtype was cast (300 into int8
    ran the kernel with 44, -1 into uint8 with 255); CuPy's kernels store it by NumPy's
    assignment, which raises. Nothing is launched; a value that fits still runs."""
    from tests.conftest import FakeCupyArray

    k = xp.cuda.ElementwiseKernel(f"float32 x, {typ} y", "float32 z", "z = x + y", "k")
    x = FakeCupyArray(np.arange(4, dtype=np.float32))
    with pytest.raises(exc, match=f"k: argument 'y' {match}"):
        k(x, value)
    assert fake_cupy.launches == []
    k(x, 100)                      # in range: launched
    k(x, 1.5)                      # a float for an integer dtype: truncated, as CuPy does
    k(x, np.int64(300) if typ != "uint64" else np.int64(-1))   # a NumPy scalar: cast
    assert len(fake_cupy.launches) == 3


def test_a_numpy_argument_says_the_kernel_runs_on_a_gpu():
    """A docs probe on a CPU: a NumPy array was refused as "expected a cupy.ndarray or a
    scalar", which did not say why (a user kernel runs on a GPU) or what to do."""
    k = xp.cuda.ElementwiseKernel("T x", "T z", "z = x + x", "dbl")
    with pytest.raises(TypeError, match=r"argument 'x' got numpy.ndarray.*a user kernel "
                                        r"runs on a GPU: move a NumPy array there with "
                                        r"xstride.to_device or cupy.asarray"):
        k(np.arange(3, dtype=np.float32))


@pytest.mark.parametrize("params", ["raw float32 x", "raw T x", "const raw float32 x"])
def test_raw_parameters_are_refused(params):
    """``raw`` before the type (CuPy's keyword) is refused: the engine has no raw
    parameters."""
    with pytest.raises(NotImplementedError, match="'raw' parameters .* are not supported"):
        xp.cuda.ElementwiseKernel(params, "float32 z", "z = 1", "k")


@pytest.mark.parametrize("params, out", [("float32 raw", "float32 z"),
                                         ("float32 x", "T raw")])
def test_a_parameter_named_raw_is_a_parameter(params, out):
    """``raw`` is a keyword only before the type, as CuPy reads it; a parameter may be
    named ``raw`` (it was refused as a raw parameter)."""
    k = xp.cuda.ElementwiseKernel(params, out, "z = 1", "k")
    assert "raw" in [p[0] for p in k.in_params + k.out_params]
