"""The split reductions' kernels run whole on the host, their last block's fold of the
partials included: ``xs_reduce_interleave`` (the flat run of a few columns;
``xs_fold_partials`` stages the partials in shared memory a slab at a time) and
``xs_reduce_cols`` (column tiles; ``xs_fold_chain``, a column a thread, or for V = 1
the tail's own loop), from ``reductions.cu`` compiled by g++ with the host stand-ins
of ``host_cuda/`` (a block's threads as threads meeting at ``__syncthreads``, the
blocks one after another). Their
float sums are compared bit for bit with a NumPy model of the whole order of
additions (each thread's walk, the block's fold, the chunks in order), over grids of
several slabs, columns that leave threads or a tile's threads idle, and strided rows;
each block's threads must meet the same number of ``__syncthreads``, the counters be
back at zero."""

from __future__ import annotations

import ctypes
import faulthandler

import numpy as np
import pytest

import xstride._kernels._reduce_common as _rc

from tests._host_kernels import CXX, aligned, build_dir, build_source

pytestmark = pytest.mark.skipif(CXX is None, reason="g++ (C++20) is not on PATH")

#: (kernel, accumulator, V, B): sums of float32 into float (every order shows in the
#: bits) or double (the launcher's accumulator; stored as double here, so that its bits
#: show too), the element walk and the 16-byte words
_INSTANCES = [("interleave", "float", 1, 32), ("interleave", "float", 1, 3),
              ("interleave", "float", 4, 8), ("interleave", "double", 1, 32),
              ("interleave", "double", 4, 8), ("cols", "float", 1, 8),
              ("cols", "float", 4, 8), ("cols", "double", 4, 3)]
_ARGS = ("const float* x, void* out, void* partials, unsigned* counters, "
         "const void* desc, long long ncols, long long nred, long long chunk, "
         "long long nchunks, int bx, int by, int gx, int gy, int* syncs")
#: the longest one host launch may run (a thread left at a barrier stops the run)
_SECONDS = 120


def _name(inst) -> str:
    return "xs_host_" + "_".join(map(str, inst))


def _entry(inst) -> list:
    """``name(args)``: the kernel on a grid of gx x gy blocks of bx x by threads, blocks
    in the order of blockIdx.y, then blockIdx.x; syncs[block * threads + thread] the
    ``__syncthreads`` that thread met in that block."""
    kernel, acc, v, b = inst
    minb = _rc.TUNING[kernel][0]
    call = (f"xs_reduce_{kernel}<0, float, {acc}, {acc}, 4, 1, {v}, {minb}, {b}>(x, "
            f"({acc}*)out, (const {acc}*)nullptr, ({acc}*)partials, counters, "
            "*(const xs_red_desc<4, 1>*)desc, ncols, nred, chunk, nchunks)")
    return [f'extern "C" void {_name(inst)}({_ARGS}) {{',
            "  const int n = bx * by;",
            "  gridDim.x = (unsigned)gx; gridDim.y = (unsigned)gy; gridDim.z = 1;",
            "  blockDim.x = (unsigned)bx; blockDim.y = (unsigned)by; blockDim.z = 1;",
            "  std::barrier<> bar(n); xs_host_barrier = &bar;",
            "  std::vector<std::unique_ptr<std::barrier<>>> warps;",
            "  for (int w = 0; w < (n + 31) / 32; ++w)",
            "    warps.emplace_back(new std::barrier<>(n - 32 * w < 32 ? n - 32 * w : 32));",
            "  xs_host_warp_bars = warps.data();",
            "  std::vector<std::thread> threads;",
            "  for (int t = 0; t < n; ++t) threads.emplace_back([&, t] {",
            "    threadIdx.x = (unsigned)(t % bx); threadIdx.y = (unsigned)(t / bx);",
            "    threadIdx.z = 0; blockIdx.z = 0;",
            "    for (int g = 0; g < gx * gy; ++g) {",
            "      blockIdx.x = (unsigned)(g % gx); blockIdx.y = (unsigned)(g / gx);",
            f"      const int before = xs_host_syncs; {call};",
            "      syncs[g * n + t] = xs_host_syncs - before;",
            "      bar.arrive_and_wait(); } });",
            "  for (auto& th : threads) th.join();", "}"]


@pytest.fixture(scope="module")
def library(tmp_path_factory):
    lines = [line for inst in _INSTANCES for line in _entry(inst)]
    return build_source(build_dir(tmp_path_factory, "split_fold"), "reductions.cu", lines)


def _ptr(a):
    return ctypes.c_void_p(a.ctypes.data)


def _launch(lib, inst, x, rs, ncols, nred, chunk, nchunks, block, grid):
    """The kernel on ``x`` (rows of stride ``rs`` elements): (out, syncs per block and
    thread, counters after the run)."""
    acc = np.float32 if inst[1] == "float" else np.float64
    desc = _rc.pack_struct(_rc.pad((ncols,), 4, 1), _rc.pad((1,), 4, 0), (nred,), (rs,),
                           tail=(1, 1))
    out = np.full(ncols, np.nan, acc)
    partials = np.full(max(ncols * nchunks, 1), np.nan, acc)
    counters = np.zeros(max(grid[0], 1), np.uint32)
    syncs = np.full((grid[0] * grid[1], block[0] * block[1]), -1, np.intc)
    fn = getattr(lib, _name(inst))
    fn.restype = None
    faulthandler.dump_traceback_later(_SECONDS, exit=True)
    try:
        fn(_ptr(x), _ptr(out), _ptr(partials), _ptr(counters), _ptr(desc),
           *[ctypes.c_longlong(v) for v in (ncols, nred, chunk, nchunks)],
           *[ctypes.c_int(v) for v in (*block, *grid)], _ptr(syncs))
    finally:
        faulthandler.cancel_dump_traceback_later()
    return out, syncs, counters


# ----------------------------------------------------------------------------- the models
def _fold_chunks(partials, acc):
    """The last block's fold: each column over the chunks in order, from 0."""
    f = np.zeros(partials.shape[1], acc)
    for row in partials:
        f = f + row
    return f


def _interleave_model(flat, ncols, chunk, nchunks, bd, v, acc):
    """Every addition of xs_reduce_interleave's sum in order (flat: the run's elements
    as acc): per block, each thread's walk (V = 1: elements begin + t + u * bd; V > 1:
    words begin / V + t + u * bd, a lane an element, the partial last word by thread
    nw % bd), the block's fold per column, then the chunks in order."""
    total = flat.size
    partials = np.zeros((nchunks, ncols), acc)
    for blk in range(nchunks):
        begin, end = blk * chunk, min((blk + 1) * chunk, total)
        if v == 1:
            t = np.arange(bd)
            a = np.zeros(bd, acc)
            for u in range(-(-(end - begin) // bd)):
                i = begin + t + u * bd
                ok = i < end
                a[ok] = a[ok] + flat[i[ok]]
            for g in range(bd // ncols):
                partials[blk] = partials[blk] + a[g * ncols:(g + 1) * ncols]
            continue
        lanes = np.zeros(bd * v, acc)          # lane t * V + j: thread t's element j
        nw = (end - begin) // v
        for u in range(-(-nw // bd)):
            w = np.arange(bd) + u * bd
            ok = np.repeat(w < nw, v)
            e = begin + (np.repeat(w, v) * v + np.tile(np.arange(v), bd))
            lanes[ok] = lanes[ok] + flat[e[ok]]
        t = nw % bd
        for j in range(min(v, end - begin - nw * v)):
            lanes[t * v + j] = lanes[t * v + j] + flat[begin + nw * v + j]
        span = (bd // ncols) * ncols           # G groups of ncols lanes
        groups = np.zeros(span, acc)
        for k in range(0, bd * v, span):
            part = lanes[k:k + span]
            groups[:part.size] = groups[:part.size] + part
        for k in range(bd // ncols):
            partials[blk] = partials[blk] + groups[k * ncols:(k + 1) * ncols]
    return partials, _fold_chunks(partials, acc)


def _cols_model(x2, chunk, nchunks, acc):
    """xs_reduce_cols' sum in order (x2: the (nred, ncols) rows as acc): thread row ty
    of chunk c folds rows c * chunk + ty, + 8, ...; the block folds rows 0..7 from row
    0's total, then the chunks in order."""
    nred = x2.shape[0]
    partials = np.zeros((nchunks, x2.shape[1]), acc)
    for c in range(nchunks):
        r0, r1 = c * chunk, min((c + 1) * chunk, nred)
        by_ty = []
        for ty in range(8):
            a = np.zeros(x2.shape[1], acc)
            for r in range(r0 + ty, r1, 8):
                a = a + x2[r]
            by_ty.append(a)
        s = by_ty[0]
        for a in by_ty[1:]:
            s = s + a
        partials[c] = s
    return partials, _fold_chunks(partials, acc)


def _data(rng, shape):
    """float32 of magnitudes 2**-12 .. 2**12 apart: a sum in another order rounds otherwise."""
    return (rng.standard_normal(shape) * 2.0 ** rng.integers(-12, 13, shape)).astype(np.float32)


# ----------------------------------------------------------------------------- interleave
_RUNS = [
    (32, 40, 2, 0, 32),      # 32 chunks a slab of float (16 of double): two slabs (three)
    (32, 100, 1, 37, 32),    # four slabs (seven), the last block's chunk cut short
    (3, 700, 1, 5, 3),       # 255 threads a block; 341 chunks a slab of float: three slabs
    (7, 90, 2, 11, 7),       # 252 threads; the run's last word partial
    (6, 50, 1, 0, 6),        # V = 4: 255 threads, 42 groups of 6 lanes
]


@pytest.mark.parametrize("inst, ncols, grid, rounds, extra, stride", [
    (inst, *run) for inst in _INSTANCES if inst[0] == "interleave" for run in _RUNS] + [
    (inst, 5, 60, 1, 3, 9) for inst in _INSTANCES   # rows 9 apart: the element walk
    if inst[0] == "interleave" and inst[2] == 1])
def test_interleave_kernel_is_its_model_bit_for_bit(library, inst, ncols, grid, rounds,
                                                    extra, stride):
    """(ncols, blocks, block-widths of elements a block, elements of the last block's
    chunk (0: a whole one), the rows' stride)."""
    _, acc_c, v, _ = inst
    acc = np.float32 if acc_c == "float" else np.float64
    m = ncols // np.gcd(ncols, v)
    bd = m * (256 // m)                  # the launcher's block (_geometry, "interleave")
    chunk = rounds * bd * v
    total = chunk * (grid - 1) + (extra or chunk)
    total -= total % ncols
    nred = total // ncols
    nchunks = -(-total // chunk)
    rng = np.random.default_rng(ncols * 1000 + grid)
    x = aligned(_data(rng, (nred, stride)))
    out, syncs, counters = _launch(library, inst, x, stride, ncols, nred, chunk, nchunks,
                                   (bd, 1), (nchunks, 1))
    flat = x[:, :ncols].reshape(-1).astype(acc)
    partials, f = _interleave_model(flat, ncols, chunk, nchunks, bd, v, acc)
    assert out.tobytes() == f.tobytes(), (out, f)
    # the order shows in the bits: the chunks summed last to first give others
    assert _fold_chunks(partials[::-1], acc).tobytes() != f.tobytes()
    assert (counters == 0).all()
    # every thread of a block meets as many barriers; the last block two a slab more
    per = (4096 // np.dtype(acc).itemsize) // ncols
    assert (syncs == syncs[:, :1]).all(), "a block's threads met different barriers"
    last = syncs[:, 0].argmax()
    assert syncs[last, 0] - np.delete(syncs[:, 0], last).max() == 2 * -(-nchunks // per)


# ----------------------------------------------------------------------------- columns
@pytest.mark.parametrize("inst", [i for i in _INSTANCES if i[0] == "cols"])
@pytest.mark.parametrize("ncols, nred, nchunks", [
    (40, 1000, 21),     # V = 1: two tiles, 8 active threads in the second; V = 4: one, 10
    (100, 517, 9),      # V = 4: 25 of 32 threads active; the last chunk cut short
    (256, 300, 3),      # whole tiles
])
def test_cols_kernel_is_its_model_bit_for_bit(library, inst, ncols, nred, nchunks):
    _, acc_c, v, _ = inst
    acc = np.float32 if acc_c == "float" else np.float64
    chunk = -(-nred // nchunks)
    nchunks = -(-nred // chunk)
    tiles = -(-ncols // (32 * v))
    rng = np.random.default_rng(ncols + nred)
    x = aligned(_data(rng, (nred, ncols)))
    out, syncs, counters = _launch(library, inst, x, ncols, ncols, nred, chunk, nchunks,
                                   (32, 8), (tiles, nchunks))
    partials, f = _cols_model(x.astype(acc), chunk, nchunks, acc)
    assert out.tobytes() == f.tobytes(), (out, f)
    assert _fold_chunks(partials[::-1], acc).tobytes() != f.tobytes()
    assert (counters == 0).all()
    assert (syncs == syncs[:, :1]).all(), "a block's threads met different barriers"
