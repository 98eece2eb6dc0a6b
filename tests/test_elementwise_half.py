"""float16 on the elementwise engine, on the host: the operands' stored and computed C
types (``xs_half`` stored, float computed, scalars passed as float, casts straight to
``xs_half``), every path's generated source over float16 operands compiled by NVRTC,
and the executor taking float16 (not ``xp.fuse`` and user kernels yet). On the device:
tests/test_elementwise_half_gpu.py."""

from __future__ import annotations

import numpy as np
import pytest

from tests.test_elementwise_source import _variants
from xstride._kernels import _elementwise_exec as ex
from xstride._kernels import elementwise, fusion
from xstride._kernels._elementwise_source import Operand, kernel_source

H = np.dtype(np.float16)


def test_float16_operands_are_stored_as_bits_and_computed_in_float():
    assert ex.operand("a", H, H) == Operand("a", "xs_half", "float")
    assert ex.operand("r", H, kind="out") == Operand("r", "xs_half", "xs_half", "out")
    assert ex.operand("s", H, H, kind="scalar") == Operand("s", "float", "float", "scalar")
    # a float16 input of a float32 loop: loaded as its bits, widened exactly
    assert ex.operand("a", H, np.float32) == Operand("a", "xs_half", "float")
    # a cast: float64 straight to xs_half (one rounding, not through float)
    assert ex.operand("a", np.float64, H, cast=True) == Operand("a", "double", "xs_half")


def test_the_engine_takes_float16_fusion_and_user_kernels_do_not_yet():
    assert elementwise.takes(H, H) and H in elementwise.DTYPES
    assert H not in fusion.DTYPES


def test_every_path_compiles_over_float16_operands():
    from tests.test_cuda_headers_nvrtc import assert_compiles, nvrtc

    if nvrtc is None:
        pytest.skip("cuda-bindings/nvrtc is not importable here")
    specs = [ex.operand("r", H, kind="out"), ex.operand("a", H, H), ex.operand("b", H, H),
             ex.operand("s", H, H, kind="scalar")]
    for i, v in enumerate(_variants()):
        src = kernel_source(f"h{i}", v.pop("kind"), specs,
                            "r = (xs_half)(xstride_max(a, b) * s + xstride_abs(a));", **v)
        assert "#include <xstride/detail/half.cuh>" in src
        ptx = assert_compiles(src, "sm_90")
        assert "cvt.rn.f16.f32" in ptx
    cast = [ex.operand("r", H, kind="out"), ex.operand("a", np.float64, H, cast=True)]
    ptx = assert_compiles(kernel_source("hc", "flat", cast, "r = a;", vec=1), "sm_90")
    assert "cvt.rn.f16.f64" in ptx and "cvt.rn.f32.f64" not in ptx


def test_sources_without_float16_do_not_include_the_half_header():
    specs = [ex.operand("r", np.float32, kind="out"), ex.operand("a", np.float32, np.float32)]
    assert "half.cuh" not in kernel_source("f", "flat", specs, "r = a;", vec=1)


def test_float16_calls_reach_the_engine_with_the_scalar_as_a_float(fake_cupy):
    """On the stand-in CuPy: ``add`` of float16 arrays and ``multiply`` by a Python
    scalar launch the engine's kernels (xs_half operands; the scalar a float of the
    float16 value), not the library's."""
    import xstride as xp
    from tests.conftest import FakeCupyArray
    from tests.test_elementwise_host_path import _engine_on

    with _engine_on(fake_cupy):
        a = FakeCupyArray(np.arange(12, dtype=H).reshape(4, 3))
        xp.add(a, a)
        xp.multiply(a, 0.1)
    launches = fake_cupy.launches
    assert len(launches) == 2 and all(k.name.startswith("xs_ew_") for k, *_ in launches)
    assert all("xs_half" in k.source and "half.cuh" in k.source for k, *_ in launches)
    scalars = [v for v in launches[1][3] if isinstance(v, (float, np.floating))]
    assert scalars and float(scalars[0]) == float(np.float16(0.1))
