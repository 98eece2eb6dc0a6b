"""The last block's folds of a split reduction's partials (xstride/detail/
fold_partials.cuh), run on the host: the header as ``reductions.cu`` includes it,
compiled by g++ with the host stand-ins of ``host_cuda/`` (a block's threads as
threads, ``__syncthreads`` a barrier). ``xs_fold_partials`` (the "interleave" kernel's)
stages the partials through shared memory a slab at a time, ``xs_fold_chain`` (the
column kernel's) folds a column a thread with several loads in flight; each result
must be the bits of a plain loop over the chunks in order, for one slab and for many,
whatever the block size."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest

from tests._host_kernels import CXX, block_entry, build_dir, build_source

pytestmark = pytest.mark.skipif(CXX is None, reason="g++ (C++20) is not on PATH")

_CASES = {"sum_f32": ("float", 0), "sum_f64": ("double", 0), "max_f32": ("float", 3)}


@pytest.fixture(scope="module")
def library(tmp_path_factory):
    build = build_dir(tmp_path_factory, "fold_partials")
    lines = []
    for name, (ctype, op) in _CASES.items():
        lines += block_entry(
            f"xs_host_fold_{name}",
            f"const {ctype}* p, {ctype}* out, long long ncols, long long nchunks",
            f"{{ xs_op_of<{op}>::type op; const {ctype} f = xs_fold_partials(p, ncols, "
            f"nchunks, op); if ((long long)threadIdx.x < ncols) out[threadIdx.x] = f; }}")
        lines += block_entry(
            f"xs_host_chain_{name}",
            f"const {ctype}* p, {ctype}* out, long long ncols, long long nchunks",
            f"{{ xs_op_of<{op}>::type op; if ((long long)threadIdx.x < ncols) "
            f"out[threadIdx.x] = xs_fold_chain(p + threadIdx.x, ncols, nchunks, op); }}")
    return build_source(build, "reductions.cu", lines)


def _fold(lib, name, p, block, entry="fold"):
    nchunks, ncols = p.shape
    out = np.full(ncols, np.nan, dtype=p.dtype)
    fn = getattr(lib, f"xs_host_{entry}_{name}")
    fn.restype = None
    fn(ctypes.c_void_p(p.ctypes.data), ctypes.c_void_p(out.ctypes.data),
       ctypes.c_longlong(ncols), ctypes.c_longlong(nchunks), ctypes.c_int(block),
       ctypes.c_int(1))
    return out


def _serial(p, op):
    """The loop the fold replaces: each column folded over the chunks in order."""
    f = np.zeros(p.shape[1], p.dtype) if op == 0 else np.full(p.shape[1], -np.inf, p.dtype)
    for row in p:
        f = f + row if op == 0 else np.where(np.isnan(f) | (f >= row) & ~np.isnan(row), f, row)
    return f


@pytest.mark.parametrize("entry", ["fold", "chain"])
@pytest.mark.parametrize("name", list(_CASES))
@pytest.mark.parametrize("ncols, nchunks, block", [
    (3, 264, 255),     # (n, 3) on 132 SMs: one slab of float, one of double
    (3, 1000, 255),    # several slabs
    (32, 300, 256),    # 32 columns: a slab holds 32 (float) or 16 (double) chunks
    (5, 7, 64),        # fewer partials than threads
    (1, 2049, 96),     # one column, a block that is no multiple of the slab
    (17, 129, 255),
])
def test_fold_is_the_loop_over_the_chunks_in_order(library, entry, name, ncols, nchunks,
                                                    block):
    """``fold``: xs_fold_partials (the interleave kernel's, staged through shared memory);
    ``chain``: xs_fold_chain (the column kernel's, a column a thread, loads in flight)."""
    ctype, op = _CASES[name]
    dt = np.float32 if ctype == "float" else np.float64
    rng = np.random.default_rng(ncols * 1000 + nchunks)
    # magnitudes 2**-20 .. 2**20 apart: a sum in any other order rounds differently
    p = (rng.standard_normal((nchunks, ncols)) * 2.0 ** rng.integers(-20, 21, (nchunks, ncols))
         ).astype(dt)
    if op == 3:
        p[rng.integers(0, nchunks, 3), rng.integers(0, ncols, 3)] = np.nan
    got = _fold(library, name, p, block, entry)
    want = _serial(p, op)
    assert got.tobytes() == want.tobytes(), (got, want)
    if op == 0 and nchunks > 100:   # the check can fail: another order gives other bits
        assert _serial(p[::-1], op).tobytes() != want.tobytes()
