"""``morton_decode`` on the NumPy backend works in blocks: the cells are the only array of
their size (whole-array shifted copies and scratch made the peak 2x the cells' memory in
3-D, 2.5x in 2-D), and the cells are those of the bit-by-bit rule for any layout."""

from __future__ import annotations

import numpy as np
import pytest

from xstride import algorithms as alg
from xstride._host import morton as host_morton
from xstride._host.morton import CHUNK

from tests.test_morton_encode_blocks import _peak   # tracemalloc's peak of a call


def bitwise_cells(keys, ndim):
    """Bit b of cell a is bit ndim*b + a of the key, one bit at a time (whole arrays)."""
    keys = np.asarray(keys).astype(np.uint64)
    cells = np.zeros(keys.shape + (ndim,), dtype=np.uint64)
    for b in range(64 // ndim):
        for a in range(ndim):
            bit = (keys >> np.uint64(ndim * b + a)) & np.uint64(1)
            cells[..., a] |= bit << np.uint64(b)
    return cells


@pytest.mark.parametrize("ndim, dtype, high", [
    (3, np.uint64, 2**63), (2, np.uint64, 2**64), (3, np.int64, 2**63 - 1),
])
def test_decode_peak_memory_is_about_the_cells(ndim, dtype, high):
    """A report: 10**6 3-D keys peaked at 2x the cells' memory (each axis' shifted copy
    of the keys, its compacted copy and a scratch array, whole arrays); blocks of
    ``CHUNK`` keys leave the cells and a few blocks of scratch (int64 keys: and their
    uint64 copy, a third of the cells in 3-D)."""
    n = 2**20
    keys = np.random.default_rng(0).integers(0, high, n, dtype=dtype, endpoint=False)
    cells, peak = _peak(lambda: alg.morton_decode(keys, ndim))
    assert cells.shape == (n, ndim)
    extra = 0 if dtype == np.uint64 else keys.nbytes
    assert peak < 1.15 * cells.nbytes + extra, peak / cells.nbytes
    assert np.array_equal(cells, bitwise_cells(keys, ndim))


@pytest.mark.parametrize("ndim", [2, 3])
def test_decode_blocks_give_the_bitwise_cells_for_any_layout(ndim):
    rng = np.random.default_rng(1)
    high = 2**63 if ndim == 3 else 2**64
    n = 3 * CHUNK + 17   # blocks and a short last one
    base = rng.integers(0, high, (n, 4), dtype=np.uint64, endpoint=False)
    for keys in (base[:, 0], base[::-1, 3], base[::2, 1], base.T[1:3]):   # C, reversed, strided, 2-D
        want = bitwise_cells(keys, ndim)
        assert np.array_equal(alg.morton_decode(keys, ndim), want)
        assert np.array_equal(host_morton.decode(keys, ndim), want)   # the executor's own walk
    # Fortran-ordered keys, more and fewer than a block
    for shape in ((700, 300), (30, 40)):
        keys = np.asfortranarray(rng.integers(0, high, shape, dtype=np.uint64, endpoint=False))
        want = bitwise_cells(keys, ndim)
        assert np.array_equal(alg.morton_decode(keys, ndim), want)
        assert np.array_equal(host_morton.decode(keys, ndim), want)
    # broadcast views: one key repeated, a row of keys repeated
    for keys in (np.broadcast_to(np.uint64(high - 1), (CHUNK + 5,)),
                 np.broadcast_to(base[:CHUNK // 2, 2], (3, CHUNK // 2))):
        assert np.array_equal(alg.morton_decode(keys, ndim), bitwise_cells(keys, ndim))
        assert np.array_equal(host_morton.decode(keys, ndim), bitwise_cells(keys, ndim))
    # small blocks: the last keys of a block, a few keys, one key, 0-d, empty
    for keys in (base[:CHUNK, 0], base[:5, 1], base[:1, 2], base[7, 3], np.uint64(high - 1)):
        assert np.array_equal(alg.morton_decode(keys, ndim), bitwise_cells(keys, ndim))
    zero_d = host_morton.decode(np.asarray(base[7, 3]), ndim)
    assert zero_d.shape == (ndim,) and np.array_equal(zero_d, bitwise_cells(base[7, 3], ndim))
    for empty in (np.zeros(0, dtype=np.uint64), np.zeros((0, 4), dtype=np.int32)):
        cells = alg.morton_decode(empty, ndim)
        assert cells.shape == empty.shape + (ndim,) and cells.dtype == np.uint64
    # encode and decode are inverses across blocks
    cells = rng.integers(0, 2**(64 // ndim), (n, ndim), dtype=np.uint64)
    keys = alg.morton_encode(*[cells[:, a] for a in range(ndim)])
    assert np.array_equal(alg.morton_decode(keys, ndim), cells)


def test_dask_decode_matches_numpy():
    pytest.importorskip("dask.array")
    import xstride as xp

    rng = np.random.default_rng(2)
    host = rng.integers(0, 2**63, 3 * CHUNK + 5, dtype=np.uint64)
    for ndim in (2, 3):
        want = bitwise_cells(host, ndim)
        with xp.use_backend("dask", chunks=CHUNK + 3):
            got = alg.morton_decode(xp.asarray(host), ndim)
            assert np.array_equal(xp.to_numpy(got), want)
