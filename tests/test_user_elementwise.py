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


def test_a_preamble_without_a_hip_rule_is_not_scanned_again():
    k = xp.cuda.ElementwiseKernel("float32 x", "float32 z", "z = f(x)", "k",
                                  preamble="#include <xstride/index.cuh>\n"
                                           "__device__ float f(float v) { return v; }")
    assert k._hip_graph is None
