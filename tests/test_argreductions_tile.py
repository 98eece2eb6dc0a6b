"""CPU tests of ``xs_arg_tile`` (argmin/argmax of short rows staged in shared memory):
which rows take it and how many rows a tile holds (:func:`arg_tile_rows`), the launch
path on the stand-in CuPy against NumPy (the kernel's host model is in
``tests/_fake_arg_kernels.py``), and the kernel's NVRTC compile. The GPU's:
``tests/test_argreductions_tile_gpu.py``."""

from __future__ import annotations

import re

import numpy as np
import pytest

import xstride as xp
from xstride._kernels import _reduce_common as rc
from xstride._kernels import argreductions as ka
from xstride._kernels._compile import source
from xstride._plans.argreduction import plan_arg_array

from tests._fake_arg_kernels import fake_args  # noqa: F401 - a fixture
from tests.conftest import FakeCupyArray
from tests.test_cuda_headers_nvrtc import compile_named, nvrtc
from tests.test_reduction_host_path import fake_reductions  # noqa: F401 - a fixture


def _tile_rows(a, axis=1, sm=132):
    plan = plan_arg_array(a, (axis,))
    return ka.arg_tile_rows(plan, a, ka.arg_geometry(plan, sm, a.itemsize))


def test_rows_of_a_tile(monkeypatch):
    """The most rows whose span fits TB bytes, whole blocks of 256 rows; rows too far
    apart or with a whole 32-byte sector between them, rows of many elements, several
    kept axes, columns or a split go elsewhere."""
    monkeypatch.setitem(rc.TUNING, "arg_tile", (16384, 4, 6))
    f4 = np.zeros((100_000, 5), np.float32)
    assert _tile_rows(f4) == 768                       # 819 rows fit 4096 elements
    assert _tile_rows(np.zeros((100_000, 3), np.uint8)) == 5376
    assert _tile_rows(np.zeros((100_000, 16), np.uint64)) == 128   # 2048 elements
    assert _tile_rows(np.zeros((1_000_000, 100), np.bool_)) == 163
    assert _tile_rows(np.zeros((100_000, 100), np.bool_)) == 0     # split in two chunks
    assert _tile_rows(np.zeros((300, 5), np.float32)) == 256       # a block of rows
    assert _tile_rows(np.zeros((100, 5), np.float32)) == 0         # a warp a row
    assert _tile_rows(np.zeros((100_000, 4), np.float32)[:, 1:]) == 1024   # gaps: 4 apart
    assert _tile_rows(np.zeros((100_000, 5), np.float32)[::-1]) == 768
    assert _tile_rows(np.zeros((100_000, 40), np.float32)[:, :3]) == 0     # 160 bytes apart
    assert _tile_rows(np.zeros((100_000, 8), np.float32)[:, :3]) == 512    # a 20-byte gap
    assert _tile_rows(np.zeros((100_000, 16), np.float32)[:, :8]) == 0     # a 32-byte gap
    assert _tile_rows(np.zeros((100_000, 100), np.float32)) == 0   # a warp's rows
    assert _tile_rows(np.zeros((5, 100_000), np.float32), axis=0) == 0     # columns
    assert _tile_rows(np.zeros((5, 100_000), np.float32).T) == 0   # rows side by side
    assert _tile_rows(np.zeros((1000, 5, 3), np.float32), axis=1) == 0     # two kept axes
    monkeypatch.setitem(rc.TUNING, "arg_tile", (8192, 6, 8))
    assert _tile_rows(f4) == 256
    monkeypatch.setitem(rc.TUNING, "arg_tile", 0)
    assert _tile_rows(f4) == 0


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "uint8", "int16",
                                   "uint64", "bool"])
def test_staged_rows_through_the_launch_path(fake_args, monkeypatch, dtype):
    """argmin/argmax(x, axis=1) of rows of 5 and 7 (not whole 16-byte words): the
    dense, offset, reversed, backwards and gapped views take ``xs_arg_tile`` (no other
    kernel), with a grid of at most MINB blocks an SM (one SM here: many tiles a block);
    NumPy's indices, ties first, NaN first, in the first and the prepared call."""
    cp, log = fake_args
    monkeypatch.setattr(rc, "sm_count", lambda: 1)
    rng = np.random.default_rng(np.dtype(dtype).num)
    dt = np.dtype(dtype)
    for k in (5, 7):
        if dt.kind == "b":
            h = rng.random((3001, k)) < 0.3
        else:
            h = rng.integers(0, 3, size=(3001, k)).astype(dt)
            if dt.kind == "f":
                h.ravel()[rng.choice(h.size, 300, replace=False)] = np.nan
        d = FakeCupyArray(h)
        for name, idx in (("dense", np.s_[:3000]), ("offset", np.s_[1:]),
                          ("reversed", np.s_[:, ::-1]), ("backwards", np.s_[::-1]),
                          ("gaps", np.s_[:, 1:])):
            for f in ("argmin", "argmax"):
                before = len(log)
                for _ in range(2):
                    got = getattr(xp, f)(d[idx], axis=1).get()
                    np.testing.assert_array_equal(got, getattr(np, f)(h[idx], axis=1),
                                                  err_msg=f"{name} {f} {k}")
                exprs = {e[0].split("<")[0] for e in log[before:]}
                assert exprs == {"xs_arg_tile"}, (name, exprs)


@pytest.mark.parametrize("dtype", ["float32", "uint8", "float64", "int16", "bool"])
def test_overlapping_gapped_and_many_tiles(fake_args, monkeypatch, dtype):
    """Rows that overlap (``as_strided`` windows: 1 to k - 1 elements apart) or leave
    gaps of less than a 32-byte sector, forward and backwards, at spans of 8192 bytes
    on one SM: blocks that take several tiles each, the model reading every element
    where the kernel's staged words put it. A gap of a whole sector goes to the thread
    kernel; so does a span knob that is not a multiple of 16."""
    cp, log = fake_args
    monkeypatch.setattr(rc, "sm_count", lambda: 1)
    monkeypatch.setitem(rc.TUNING, "arg_tile", (8192, 6, 8))
    dt = np.dtype(dtype)
    rng = np.random.default_rng(40 + dt.num)
    n, k = 20_000, 6
    for ks in (1, 3, 5, 6, 7, 6 + 31 // dt.itemsize, 6 + 32 // dt.itemsize):
        flat = rng.random((n - 1) * ks + k + 16) < 0.3 if dt.kind == "b" else \
            rng.integers(-2, 3, (n - 1) * ks + k + 16).astype(dt)
        if dt.kind == "f":
            flat[::11] = np.nan
        h = np.lib.stride_tricks.as_strided(flat[3:], shape=(n, k),
                                            strides=(ks * dt.itemsize, dt.itemsize))
        dv = FakeCupyArray(h)
        tile = (ks - k) * dt.itemsize < 32
        for hv, v in ((h, dv), (h[::-1], dv[::-1])):
            for f in ("argmin", "argmax"):
                before = len(log)
                np.testing.assert_array_equal(getattr(xp, f)(v, axis=1).get(),
                                              getattr(np, f)(hv, axis=1), err_msg=f"{ks} {f}")
                names = {e[0].split("<")[0] for e in log[before:]}
                assert names == ({"xs_arg_tile"} if tile else {"xs_arg_thread"}), (ks, names)
    monkeypatch.setitem(rc.TUNING, "arg_tile", (16383, 4, 6))
    before = len(log)
    h = rng.integers(0, 3, (3000, 5)).astype(dt)
    np.testing.assert_array_equal(xp.argmax(FakeCupyArray(h), axis=1).get(),
                                  np.argmax(h, axis=1))
    assert {e[0].split("<")[0] for e in log[before:]} == {"xs_arg_thread"}


def test_rows_in_registers_stay_there(fake_args):
    """Rows the register kernels take (float32 rows of 3 on a 16-byte boundary; (k,
    n).T rows side by side) do not go to the tile."""
    cp, log = fake_args
    h = np.arange(3 * 4096, dtype=np.float32).reshape(4096, 3)
    xp.argmax(FakeCupyArray(h), axis=1)
    xp.argmax(FakeCupyArray(np.ascontiguousarray(h.T)).T, axis=1)
    assert [e[0].split("<")[0] for e in log] == ["xs_arg_rowregs", "xs_arg_side"]


@pytest.mark.skipif(nvrtc is None, reason="cuda-bindings/nvrtc not importable")
def test_tile_kernel_compiles_with_asynchronous_copies():
    names = [f"xs_arg_tile<{m}, {t}, {a}, {tb}, {minb}>" for m in (0, 1)
             for t, a in (("float", "float"), ("unsigned char", "unsigned int"),
                          ("xs_half", "float"), ("unsigned long long", "unsigned long long"))
             for tb, minb in ((16384, 4), (8192, 6))]
    lowered, ptx = compile_named(source("argreductions.cu"), names, "sm_90",
                                 "argreductions.cu")
    assert len(re.findall(r"\.entry\s+_Z11xs_arg_tile", ptx)) == len(names)
    assert "cp.async.cg.shared.global" in ptx and "cp.async.wait_group 1" in ptx
