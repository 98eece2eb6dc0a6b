"""The fused kernels' source on the CPU: the body of a traced graph, the operands, and
NVRTC compiling the engine's kernels with it (every path) — no GPU needed.

Rounding: the PTX of a fused ``a * b + c`` holds a rounded multiply and a rounded add,
never a fused multiply-add (the unfused run stores the product between two kernels).
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import xstride as xp
from xstride._kernels._elementwise_source import kernel_source
from xstride._kernels._fusion_source import fused_body, op_expression, operand_specs
from xstride._plans import fusion as fplan
from xstride.layout import Layout

from .conftest import FakeCupyArray
from .test_cuda_headers_nvrtc import assert_compiles, nvrtc

needs_nvrtc = pytest.mark.skipif(nvrtc is None, reason="cuda-bindings/nvrtc not importable")


def graph_of(fn, *arrays):
    return xp.fuse(fn, strict=True).graph(*[FakeCupyArray(a) if isinstance(a, np.ndarray) else a
                                            for a in arrays])


def test_body_of_a_push(fake_cupy):
    x = np.ones((8, 3), np.float32)
    g = graph_of(lambda x, v, dt: (x + v * dt, v * 2), x, x, 0.5)
    body = fused_body(g)
    assert "__fmul_rn(((float)l1), ((float)s0))" in body
    assert "__fadd_rn(((float)l0), ((float)v" in body
    assert body.endswith(f"r0 = v{g.outputs[0]}; r1 = v{g.outputs[1]};")
    specs = operand_specs(g)
    assert [(o.name, o.ctype, o.kind) for o in specs] == [
        ("r0", "float", "out"), ("r1", "float", "out"), ("l0", "float", "in"),
        ("l1", "float", "in"), ("s0", "float", "scalar"), ("s1", "float", "scalar")]


def test_each_intermediate_is_rounded_to_its_dtype(fake_cupy):
    g = graph_of(lambda x, y: (x + y) * 2.5, np.ones(3, np.int8), np.ones(3, np.int8))
    body = fused_body(g)
    # int8 + int8 wraps in int8 (as the stored intermediate does), then the product with
    # the weak 2.5 runs in NumPy's loop for it, float64
    assert "(signed char)((((signed char)l0) + ((signed char)l1)))" in body
    assert g.nodes[g.outputs[0]].loop == ("float64", "float64")
    assert "__dmul_rn(" in body


def test_cupy_operator_expressions():
    assert op_expression("floor_divide", ["int", "int"], ["a", "b"]) == \
        "xstride_fz_floordiv(a, b)"
    assert op_expression("remainder", ["float", "float"], ["a", "b"]) == \
        "(a - xstride_fz_floordiv(a, b) * b)"
    assert op_expression("remainder", ["short", "short"], ["a", "b"]) == \
        "((a - xstride_fz_floordiv(a, b) * b) * (b != 0))"
    assert op_expression("power", ["float", "float"], ["a", "b"]) == "powf(a, b)"
    assert op_expression("power", ["double", "double"], ["a", "b"]) == "pow(a, b)"
    assert op_expression("power", ["int", "int"], ["a", "b"]) == "xstride_fz_ipow(a, b)"
    assert op_expression("left_shift", ["int", "int"], ["a", "b"]) == "(a << b)"
    assert op_expression("reciprocal", ["double"], ["a"]) == "(1 / a)"


def test_expressions_per_function():
    assert op_expression("add", ["float", "float"], ["a", "b"]) == "__fadd_rn(a, b)"
    assert op_expression("subtract", ["double", "double"], ["a", "b"]) == "__dsub_rn(a, b)"
    assert op_expression("square", ["float"], ["a"]) == "__fmul_rn(a, a)"
    assert op_expression("add", ["int", "int"], ["a", "b"]) == "(a + b)"
    assert op_expression("exp", ["float"], ["a"]) == "expf(a)"
    assert op_expression("exp", ["double"], ["a"]) == "exp(a)"
    assert op_expression("atan2", ["float", "float"], ["a", "b"]) == "atan2f(a, b)"
    assert op_expression("bitwise_invert", ["bool"], ["a"]) == "(!a)"
    assert op_expression("bitwise_invert", ["int"], ["a"]) == "(~a)"
    assert op_expression("where", ["bool", "float", "float"], ["c", "a", "b"]) == "(c ? a : b)"
    with pytest.raises(ValueError, match="no C expression"):
        op_expression("matmul", ["float"], ["a"])


def _graphs(fake_cupy):
    f32 = np.ones((8, 40), np.float32)
    f64 = np.ones((40, 8), np.float64)
    i32 = np.ones((8, 40), np.int32)
    return {
        "push": graph_of(lambda x, v, dt: (x + v * dt + 0.5 * v * dt * dt, v * dt), f32, f32, 0.1),
        "math": graph_of(lambda x, y: xp.exp(x) + xp.sqrt(xp.abs(y.T)) * xp.tanh(x) -
                         xp.floor(x) + xp.atan2(x, 1.0) + xp.hypot(x, x) + xp.log1p(xp.abs(x)),
                         f32, f64),
        "ints": graph_of(lambda i, x: (xp.where(i > 2, ~i & 7 | i ^ 1, -i), xp.astype(i, xp.float32)
                                       * x, xp.clip(x, -1, 1), (x > 0) == (i < 3)), i32, f32),
        "np_scalar": graph_of(lambda x, s: x * s + s, f32, np.float64(3.0)),
        "predicates": graph_of(lambda x, i: (xp.isnan(x) | xp.isinf(x) & xp.isfinite(i)
                                             | xp.logical_not(i) | xp.signbit(x)), f32, i32),
        "operators": graph_of(lambda i, x, u, b: (
            i // 3 + i % (i | 1) + i ** 3 + 2 ** i + i ** 2 + i ** 0.5,
            x // 0.5 + x ** 1.5 + x ** 0.5 + x ** -1.0 + x ** 2.0 + 3 ** x,
            u // (u + 1) + u % 7 + (u << 1) + (u >> 2) + u ** 2 + (b ** 2) + (b // b),
            (x.astype(xp.float64) // 2) * 3), i32, f32, np.ones((8, 40), np.uint8),
            np.ones((8, 40), bool)),
    }


@needs_nvrtc
@pytest.mark.parametrize("kind, extra", [
    ("flat", dict(vec=4, bcast=(False,) * 16)), ("flat", dict(vec=1)),
    ("rows", dict(vec=2, bcast=(False,) * 16)), ("nd", dict(idx32=True)),
    ("rows", dict(row_tiles=True, unit=(True, False) * 8, index_var=True)),
    ("rows", dict(unit=(False, True) * 8)), ("nd", dict(row_tiles=True, vec=1)),
    ("tiled", dict(trans=(False, False, True) + (False,) * 13, off32=True)),
])
@pytest.mark.parametrize("case", ["push", "math", "ints", "np_scalar", "predicates",
                                  "operators"])
def test_fused_kernels_compile_on_every_path(fake_cupy, case, kind, extra):
    g = _graphs(fake_cupy)[case]
    specs = operand_specs(g)
    nops = sum(1 for o in specs if o.kind != "scalar")
    if "bcast" in extra:
        extra = dict(extra, bcast=extra["bcast"][:nops])
    if "unit" in extra:
        extra = dict(extra, unit=extra["unit"][:nops])
    if "trans" in extra:
        extra = dict(extra, trans=extra["trans"][:nops])
    src = kernel_source("xs_ew_fused_" + kind, kind, specs, fused_body(g), **extra)
    assert_compiles(src, "sm_90")


@needs_nvrtc
def test_no_fused_multiply_add_in_the_ptx(fake_cupy):
    x = np.ones(64, np.float32)
    g = graph_of(lambda a, b, c: a * b + c, x, x, x)
    src = kernel_source("xs_ew_fused_flat", "flat", operand_specs(g), fused_body(g))
    ptx = assert_compiles(src, "sm_90")
    assert re.search(r"\bmul\.rn\.f32\b", ptx) and re.search(r"\badd\.rn\.f32\b", ptx)
    assert not re.search(r"\bfma\.", ptx), "the product and the sum were contracted"
    # the same body written with plain operators would be contracted (the reason for _rn)
    plain = src.replace("__fmul_rn(((float)l0), ((float)l1))", "((float)l0) * ((float)l1)")
    plain = re.sub(r"__fadd_rn\((.*?), \(\(float\)l2\)\)", r"(\1 + ((float)l2))", plain)
    assert plain != src
    assert re.search(r"\bfma\.rn\.f32\b", assert_compiles(plain, "sm_90"))


def test_graph_replay_matches_numpy_views():
    lay = fplan.index_layout(Layout((5, 6), (6, 1)), (slice(None, None, -2), None, 3))
    a = np.arange(30).reshape(5, 6)
    v = a[::-2, None, 3]
    assert lay.shape == v.shape
    assert [lay.offset + sum(i * s for i, s in zip(idx, lay.strides))
            for idx in np.ndindex(*lay.shape)] == [int(e) for e in v.ravel()]
