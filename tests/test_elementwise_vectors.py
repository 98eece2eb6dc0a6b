"""What the engine hands the kernel for 1- and 2-byte operands (the stand-in CuPy, no
GPU; it records launches and runs nothing, so the values are the GPU tests'): one
vector a thread a step (``_elementwise_vectors.vector_unroll``), the grid sized for
it, and a repeated short row read from a table of its rotations (``row_tables``), in
plain and fused calls."""

from __future__ import annotations

import numpy as np
import pytest

import xstride as xp
from xstride._kernels import _elementwise_exec as ex

from .conftest import FakeCupyArray
from .test_fuse_exec import engine_on_stand_in


@pytest.fixture
def engine(fake_cupy, monkeypatch):
    yield from engine_on_stand_in(fake_cupy, monkeypatch)


def _last(engine):
    kernel, grid, block, args = engine.launches[-1]
    return kernel.source, tuple(np.ravel(grid)), tuple(np.ravel(block))


@pytest.mark.parametrize("dtype,vec", [("uint8", 16), ("bool", 16), ("int16", 8),
                                       ("float16", 8)])
def test_a_repeated_row_of_narrow_elements_reads_the_table(engine, dtype, vec):
    h = (np.arange(3000) % 7).astype(dtype).reshape(1000, 3)
    x = FakeCupyArray(h)
    out = xp.add(x, x[3])
    assert ex.last_kind == "flat2d" and out.shape == (1000, 3)
    src, grid, block = _last(engine)
    assert "__xs_t2[" in src and "__xs_v2[u] = __xs_t2[pc[u]];" in src
    assert "__xs_v1[1];" in src and "__xs_v1[4];" not in src     # one vector a thread
    assert block == (256,) and grid == (-(-(3000 // vec) // 256),)


def test_four_byte_rows_keep_four_vectors_and_the_element_walk(engine):
    h = np.arange(3000, dtype=np.float32).reshape(1000, 3)
    x = FakeCupyArray(h)
    xp.add(x, x[3])
    src, grid, _ = _last(engine)
    assert "__xs_t" not in src and "__xs_v1[4];" in src
    assert grid == (-(-(3000 // 4) // 1024),)


def test_flat_narrow_operands_take_one_vector_a_thread(engine):
    a = FakeCupyArray(np.arange(1 << 16, dtype=np.uint8))
    b = FakeCupyArray(np.ones(1 << 16, dtype=np.uint8))
    xp.add(a, b)
    src, grid, _ = _last(engine)
    assert ex.last_kind == "flat" and "xstride_vec<unsigned char, 16> __xs_v1[1];" in src
    assert grid == ((1 << 16) // 16 // 256,)


def test_fused_stencil_short_row_tiles_take_one_vector_a_thread(engine):
    """A fused stencil on rows of 500 uint8 vectors: the short row tiles of one step of
    256 vectors, one a thread (two held 210 registers)."""
    h = (np.arange(64 * 8032) % 5).astype(np.uint8).reshape(64, 8032)
    u = FakeCupyArray(h)
    f = xp.fuse(lambda u: u[1:-1, 16:8016] + u[:-2, 16:8016] + u[2:, 16:8016])
    assert f(u).shape == (62, 8000)
    src, _, _ = _last(engine)
    assert "__xs_v1[1];" in src and "__xs_v1[2];" not in src
