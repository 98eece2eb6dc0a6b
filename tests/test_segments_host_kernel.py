"""``xs_seg_thread`` (segments.cu) run on the host: the kernel's own source compiled by
g++ (C++20) with the host stand-ins of ``host_cuda/`` (a block's threads as threads,
the blocks one after another), on values that end where a page no process may read
begins. ``segment_reduce`` queues this walk before the host reads the offsets' check,
so on offsets the check will refuse it must still read no row outside the values: the
kernel clamps every offset into ``[0, n]``. Each run is made in a forked child, so a
read past the values is a failing exit code here, not a crashed test process. The
warp walk ``xs_seg_warp`` runs too, its shuffles on the stand-ins' lanes (builtins.h),
and gives the bits of the walk's model in tests/test_segments_launch.py (the order
tests/test_segments_gpu.py checks the device against)."""

from __future__ import annotations

import ctypes
import mmap
import multiprocessing

import numpy as np
import pytest

from tests._host_kernels import CXX, block_entry, build_dir, build_source

pytestmark = pytest.mark.skipif(CXX is None, reason="g++ (C++20) is not on PATH")

_PAGE = mmap.PAGESIZE
_K = 3
_THREADS = 256


@pytest.fixture(scope="module")
def library(tmp_path_factory):
    build = build_dir(tmp_path_factory, "segments_thread")
    lines = block_entry(
        "xs_host_thread_sum",
        "const float* v, const long long* off, long long n, long long n_seg, long long k, "
        "long long max_rows, long long per_block, float* out",
        "xs_seg_thread<float, float, float, 0, false>(v, off, n, n_seg, k, max_rows, "
        "per_block, out)")
    for tile in ("false", "true"):     # the walk straight from the rows, and through a tile
        lines += block_entry(
            f"xs_host_warp_sum_{tile}",
            "const float* v, const long long* off, long long n, const long long* ids, "
            "long long n_items, long long k, long long chunks, long long chunk_rows, "
            "long long max_rows, float* out, float* part",
            f"xs_seg_warp<float, float, float, 0, false, {tile}>(v, off, n, ids, n_items, k, "
            "chunks, chunk_rows, max_rows, out, part)")
    return build_source(build, "segments.cu", lines)


class Guarded:
    """``rows`` (n, k) float32 rows that end at a page with no access and follow NaNs, in
    memory a forked child shares with this process (``MAP_SHARED``); ``out`` beside
    them."""

    def __init__(self, values: np.ndarray, n_seg: int):
        k = values.shape[1]
        nbytes = values.nbytes
        pages = -(-nbytes // _PAGE) + 1
        self.map = mmap.mmap(-1, (pages + 1) * _PAGE)      # shared, anonymous
        base = ctypes.addressof(ctypes.c_char.from_buffer(self.map))
        guard = base + pages * _PAGE
        libc = ctypes.CDLL(None, use_errno=True)
        libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
        assert libc.mprotect(ctypes.c_void_p(guard), _PAGE, 0) == 0   # PROT_NONE
        start = guard - nbytes
        # before the rows: NaN (a row read there would make its sum NaN)
        np.frombuffer(self.map, np.float32, (start - base) // 4)[...] = np.nan
        self.rows = np.frombuffer(self.map, np.float32, values.size,
                                  start - base).reshape(values.shape)
        self.rows[...] = values
        self.out_map = mmap.mmap(-1, max(4 * n_seg * k, 1))
        self.out = np.frombuffer(self.out_map, np.float32, n_seg * k).reshape(n_seg, k)


def _in_child(run) -> int:
    """The exit code of a forked child that calls ``run`` (0: it returned; -11: it read
    the guard page)."""
    child = multiprocessing.get_context("fork").Process(target=run)
    child.start()
    child.join(120)
    return child.exitcode


def _walk(lib, g: Guarded, offsets, max_rows: int, per_block: int) -> int:
    """The thread walk of ``g``'s rows over ``offsets``, in a child (its exit code)."""
    off = np.ascontiguousarray(offsets, dtype=np.int64)
    n, n_seg = g.rows.shape[0], off.shape[0] - 1
    groups = -(-n_seg // per_block)

    def run():
        fn = lib.xs_host_thread_sum
        fn.restype = None
        fn(ctypes.c_void_p(g.rows.ctypes.data), ctypes.c_void_p(off.ctypes.data),
           ctypes.c_longlong(n), ctypes.c_longlong(n_seg), ctypes.c_longlong(_K),
           ctypes.c_longlong(max_rows), ctypes.c_longlong(per_block),
           ctypes.c_void_p(g.out.ctypes.data), ctypes.c_int(_THREADS), ctypes.c_int(groups))
    return _in_child(run)


def _warp_walk(lib, g: Guarded, offsets, max_rows: int, blocks: int, tile: bool = True) -> int:
    """The warp walk (a warp a segment, one chunk) of ``g``'s rows, in a child; ``tile``:
    through the warp's tile (which k > 32 leaves unused)."""
    off = np.ascontiguousarray(offsets, dtype=np.int64)
    n, k = g.rows.shape
    n_seg = off.shape[0] - 1

    def run():
        fn = getattr(lib, f"xs_host_warp_sum_{str(tile).lower()}")
        fn.restype = None
        fn(ctypes.c_void_p(g.rows.ctypes.data), ctypes.c_void_p(off.ctypes.data),
           ctypes.c_longlong(n), ctypes.c_void_p(0), ctypes.c_longlong(n_seg),
           ctypes.c_longlong(k), ctypes.c_longlong(1), ctypes.c_longlong(max_rows),
           ctypes.c_longlong(max_rows), ctypes.c_void_p(g.out.ctypes.data), ctypes.c_void_p(0),
           ctypes.c_int(_THREADS), ctypes.c_int(blocks))
    return _in_child(run)


@pytest.mark.parametrize("per_block", [2, 512])     # groups staged, and one group unstaged
def test_thread_walk_on_valid_offsets_matches_numpy(library, per_block):
    rng = np.random.default_rng(1)
    lens = rng.integers(0, 9, size=40)
    offs = np.concatenate([[0], np.cumsum(lens)])
    n = int(offs[-1])
    g = Guarded(rng.normal(size=(n, _K)).astype(np.float32), 40)
    assert _walk(library, g, offs, 256, per_block) == 0
    want = np.stack([g.rows[a:b].astype(np.float64).sum(axis=0) for a, b in
                     zip(offs[:-1], offs[1:])])
    np.testing.assert_allclose(g.out, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("per_block", [1, 3, 512])
@pytest.mark.parametrize("bad", [
    lambda n: [0, n + 5, 2, n],                # past the rows, then back
    lambda n: [0, 2**40, -2**40, n],            # far outside both ways
    lambda n: [-3, 4, n + 1],                   # before the first row, past the last
    lambda n: [0, n - 2, n + 7],                # the last segment runs into the guard
])
def test_thread_walk_reads_no_row_outside_on_refused_offsets(library, per_block, bad):
    n = 50
    offs = bad(n)
    g = Guarded(np.ones((n, _K), np.float32), len(offs) - 1)
    assert _walk(library, g, offs, 256, per_block) == 0, \
        f"the walk read outside the rows on offsets {offs}"
    # each segment sums the rows of its offsets clamped into [0, n] (ones: its length)
    c = np.clip(np.asarray(offs, dtype=np.int64), 0, n)
    lens = np.maximum(c[1:] - c[:-1], 0).astype(np.float32)
    np.testing.assert_array_equal(g.out, np.repeat(lens[:, None], _K, axis=1))


@pytest.mark.parametrize("k", [1, 3, 7, 33])
@pytest.mark.parametrize("blocks", [1, 2])       # the grid's stride, and every warp once
# segments of up to 40 rows: one piece of a warp's tile; of up to 3000: several pieces
# (1024 rows a piece of one float32 column, 340 of three, 144 of seven)
@pytest.mark.parametrize("longest", [40, 3000])
@pytest.mark.parametrize("tile", [False, True])
def test_warp_walk_gives_the_model_s_bits(library, k, blocks, longest, tile):
    from tests.test_segments_launch import m_warp
    rng = np.random.default_rng(k)
    lens = rng.integers(0, longest, size=23)
    offs = np.concatenate([[0], np.cumsum(lens)]).astype(np.int64)
    n = int(offs[-1])
    g = Guarded(rng.normal(size=(n, k)).astype(np.float32), 23)
    assert _warp_walk(library, g, offs, 4096, blocks, tile) == 0
    want = np.zeros((23, k), np.float32)
    m_warp("xs_seg_warp<float, float, float, 0, false>", (blocks,), g.rows.ctypes.data,
           offs.ctypes.data, n, 0, 23, k, 1, 4096, 4096, want.ctypes.data, 0)
    np.testing.assert_array_equal(g.out, want)
    np.testing.assert_allclose(g.out, np.add.reduceat(g.rows.astype(np.float64), offs[:-1])
                               * (lens > 0)[:, None], rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("bad", [
    lambda n: [0, n + 5, 2, n],
    lambda n: [0, 2**40, -2**40, n],
    lambda n: [-3, 4, n + 1],
    lambda n: [0, n - 2, n + 7],
])
@pytest.mark.parametrize("tile", [False, True])
def test_warp_walk_reads_no_row_outside_on_refused_offsets(library, bad, tile):
    n = 50
    offs = bad(n)
    g = Guarded(np.ones((n, _K), np.float32), len(offs) - 1)
    assert _warp_walk(library, g, offs, 4096, 1, tile) == 0, \
        f"the warp walk read outside the rows on offsets {offs}"
    c = np.clip(np.asarray(offs, dtype=np.int64), 0, n)
    lens = np.maximum(c[1:] - c[:-1], 0).astype(np.float32)
    np.testing.assert_array_equal(g.out, np.repeat(lens[:, None], _K, axis=1))
