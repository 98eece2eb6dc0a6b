"""The elementwise engine's generated CUDA on the CPU: every variant's source (vectors,
tables of rotations of repeated rows, vector widths, register budgets) and its compile by
NVRTC and nvcc where they are installed (split from tests/test_elementwise_plan.py, past
600 lines)."""

from __future__ import annotations

import re
import shutil
import subprocess

import numpy as np
import pytest

from xstride._plans import elementwise as P
from xstride._kernels._elementwise_source import Operand, kernel_source
from xstride._kernels._elementwise_vectors import vector_unroll, vector_width


_SPECS = [Operand("r", "float", kind="out"), Operand("a", "float", "float"),
          Operand("b", "signed char", "float"), Operand("s", "float", "float", kind="scalar")]


def _variants():
    yield dict(kind="flat", vec=4, bcast=(False, False, True))
    yield dict(kind="flat", vec=1)
    yield dict(kind="rows", vec=4, bcast=(False, True, False), idx32=True)
    yield dict(kind="rows", vec=2, idx32=False, cap=16)
    yield dict(kind="nd", cap=64)
    for ra in (0, 1, 2):
        yield dict(kind="tiled", trans=(False, True, False), cap=4, off32=True, rest_axes=ra,
                   minb=8)
    yield dict(kind="tiled", trans=(False, False, True), cap=16, off32=False, rest32=False,
               rest_axes=2)
    yield dict(kind="tiled", trans=(False, True, True), cap=64, tile=64, off32=True,
               rest_axes=1, minb=6)
    yield dict(kind="rows", vec=1, index_var=True)
    yield dict(kind="rows", vec=1, index_var=True, row_tiles=True, unit=(True, True, False))
    yield dict(kind="rows", vec=4, bcast=(False, True, False), idx32=True, row_tiles=True,
               unit=(True, False, True))
    yield dict(kind="nd", cap=4, row_tiles=True, idx32=True)
    yield dict(kind="rows", vec=1, row_tiles=True, tile_rows=2, unit=(True, True, True))
    yield dict(kind="nd", cap=4, row_tiles=True, tile_rows=3)
    yield dict(kind="rows", vec=2, row_tiles=True, tile_unroll=2, unit=(True, False, True))
    yield dict(kind="nd", cap=4, row_tiles=True, tile_unroll=1, tile_rows=2)
    yield dict(kind="flat2d", vec=4, bcast=(False, False, False), idx32=True,
               indexed=(False, False, True))
    yield dict(kind="flat2d", vec=1, idx32=False, indexed=(False, True, False))
    # vectors of 1- and 2-byte elements: fewer vectors a thread (vector_unroll)
    yield dict(kind="flat", vec=16, bcast=(False, False, True), unroll=1)
    yield dict(kind="rows", vec=8, bcast=(False, True, False), idx32=True, unroll=2)
    yield dict(kind="flat2d", vec=16, idx32=True, indexed=(False, False, True), unroll=1)
    yield dict(kind="flat2d", vec=8, idx32=False, indexed=(False, True, True),
               table=(False, True, False), unroll=1)
    yield dict(kind="rows", vec=16, row_tiles=True, unit=(True, True, True), unroll=1)


def _sources():
    parts = []
    for i, v in enumerate(_variants()):
        src = kernel_source(f"k{i}", v.pop("kind"), _SPECS, "r = xstride_max(a, b) + s;", **v)
        parts.append(src)
    pre = [Operand("z", "double", kind="out", preload=True), Operand("a", "bool", "double")]
    parts.append(kernel_source("kpre", "tiled", pre, "z += a;", trans=(False, True), cap=4,
                               off32=True, rest_axes=1))
    return parts


_U8 = [Operand("out0", "unsigned char", kind="out"), Operand("in0", "unsigned char"),
       Operand("in1", "unsigned char")]


@pytest.mark.parametrize("kind,extra", [
    ("flat", dict(bcast=(False, False, False))),
    ("rows", dict(bcast=(False, False, False), unit=(True, True, True))),
    ("flat2d", dict(indexed=(False, False, True))),
    ("rows", dict(row_tiles=True, unit=(True, True, True))),
])
def test_vectors_of_narrow_elements_take_one_vector_a_thread(kind, extra):
    """uint8 vectors of 16 elements: one vector a thread a step (the loads of 4 kept
    64 bytes a thread in registers of their own); 4-byte vectors keep UNROLL."""
    assert vector_unroll(16) == 1 and vector_unroll(8) == 1 and vector_unroll(4) == 4
    src = kernel_source("k", kind, _U8, "out0 = in0 + in1;", vec=16, idx32=True,
                        unroll=vector_unroll(16), **extra)
    assert "__xs_v1[1];" in src and "__xs_v1[4];" not in src
    src4 = kernel_source("k", kind, _U8, "out0 = in0 + in1;", vec=16, idx32=True, **extra)
    assert "__xs_v1[4];" in src4


def test_repeated_row_of_narrow_elements_reads_a_table_of_its_rotations():
    """"flat2d" with ``table``: the block fills entry c with the row's elements c, c +
    1, ... (mod e0) once, and a vector is one load of entry ``i mod e0``; the other
    indexed operands keep the element walk."""
    ops = _U8 + [Operand("in2", "unsigned char")]
    src = kernel_source("k", "flat2d", ops, "out0 = in0 + in1 + in2;", vec=16, idx32=True,
                        indexed=(False, False, True, True), table=(False, False, True, False),
                        unroll=1)
    assert "__shared__ xstride_vec<unsigned char, 16> __xs_t2[64];" in src
    assert "__xs_v2[u] = __xs_t2[pc[u]];" in src and "__syncthreads();" in src
    assert "__xs_t3" not in src and "__xs_v3[u].v[j] = __xs_p_in2[o];" in src
    # no table without vectors, or where no operand asks for one
    for kw in (dict(vec=1, table=(False, False, True, False)),
               dict(vec=16, table=())):
        src = kernel_source("k", "flat2d", ops, "out0 = in0 + in1 + in2;", idx32=True,
                            indexed=(False, False, True, True), **kw)
        assert "__xs_t2" not in src and "__syncthreads" not in src


class _Arr:
    def __init__(self, dtype, ptr):
        self.itemsize = np.dtype(dtype).itemsize
        self.data = type("D", (), {"ptr": ptr})()


@pytest.mark.parametrize("dtypes,ptrs,kind,want", [
    (("float32", "uint8"), (0, 0), "flat", 4),         # 16 bytes of the widest
    (("float32", "uint8"), (8, 0), "flat", 2),         # float32 only 8-byte aligned
    (("float32", "uint8"), (0, 2), "flat", 2),         # uint8 2-byte aligned
    (("float32", "uint8"), (0, 1), "flat", 1),
    (("uint8", "uint8"), (0, 0), "flat", 16),
    (("uint8", "uint8"), (0, 8), "flat", 8),
    (("float64", "float64"), (0, 0), "flat", 2),
    (("complex128", "int8"), (0, 0), "flat", 1),
    (("uint8", "uint8"), (0, 0), "rows", 4),           # rows of 12 elements: 4 divides 12
])
def test_vector_width_takes_16_bytes_of_the_widest_aligned(dtypes, ptrs, kind, want):
    arrays = [_Arr(d, p) for d, p in zip(dtypes, ptrs)]
    shape = (8, 12) if kind == "rows" else (96,)
    strides = tuple(((12, 1) if kind == "rows" else (1,)) for _ in arrays)
    pl = P.Plan(kind, shape, strides, (0,) * len(arrays))
    assert vector_width(pl, arrays, (False,) * len(arrays)) == want


def test_narrow_vectors_fit_four_blocks_an_sm_in_registers():
    """ptxas of the uint8 and int16 kernels at :func:`vector_unroll`: at most 64
    registers a thread (4 blocks of 256 an SM; with 4 vectors uint8 needed 183)."""
    from tests.test_cuda_headers_nvrtc import nvrtc, nvrtc_compile

    if nvrtc is None:
        pytest.skip("cuda-bindings/nvrtc is not importable here")
    for ctype, vec in (("unsigned char", 16), ("short", 8)):
        ops = [Operand("out0", ctype, kind="out"), Operand("in0", ctype), Operand("in1", ctype)]
        src = kernel_source("k", "rows", ops, "out0 = in0 + in1;", vec=vec, idx32=True,
                            unit=(True, True, True), unroll=vector_unroll(vec))
        ok, log, _ = nvrtc_compile(src, "sm_90", ("--ptxas-options=-v",))
        assert ok, log
        regs = int(re.search(r"Used (\d+) registers", log).group(1))
        assert regs <= 64 and "0 bytes spill stores" in log, log


def test_generated_sources_compile_with_nvrtc():
    """Every path's generated source compiles with NVRTC (cuda-bindings; no GPU)."""
    from tests.test_cuda_headers_nvrtc import assert_compiles, nvrtc

    if nvrtc is None:
        pytest.skip("cuda-bindings/nvrtc is not importable here")
    for src in _sources():
        assert_compiles(src, "sm_90")


def test_generated_sources_compile_with_nvcc(tmp_path):
    nvcc = shutil.which("nvcc")
    if nvcc is None:
        pytest.skip("nvcc is not on PATH")
    from xstride._kernels._compile import include_dir

    for i, src in enumerate(_sources()):
        f = tmp_path / f"k{i}.cu"
        f.write_text(src)
        res = subprocess.run([nvcc, "-std=c++17", "-arch=sm_90", f"-I{include_dir()}", "--ptx",
                              "-o", str(tmp_path / f"k{i}.ptx"), str(f)],
                             capture_output=True, text=True)
        assert res.returncode == 0, res.stderr + src
