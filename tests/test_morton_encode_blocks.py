"""``morton_encode`` on the NumPy backend works in blocks: the keys are the only array of
their size (whole-array temporaries made the peak 4x the keys' memory in 3-D), and the
keys are those of the bit-by-bit rule for any dtype, layout and broadcast."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

from xstride import algorithms as alg
from xstride._host.morton import CHUNK


def bitwise_keys(cells, levels):
    """Bit ndim*b + a of a key is bit b of cell a, one bit at a time (whole arrays)."""
    cells = [np.asarray(c).astype(np.uint64) for c in np.broadcast_arrays(*cells)]
    ndim = len(cells)
    key = np.zeros(cells[0].shape, dtype=np.uint64)
    for b in range(levels):
        for a, c in enumerate(cells):
            bit = (c >> np.uint64(b)) & np.uint64(1)
            key |= bit << np.uint64(ndim * b + a)
    return key


def _peak(fn):
    tracemalloc.start()
    try:
        result = fn()
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("make", [
    lambda rng, n: [rng.integers(0, 2**21, n) for _ in range(3)],                 # int64
    lambda rng, n: [rng.integers(0, 2**21, n).astype(np.uint64) for _ in range(3)],
    lambda rng, n: [np.broadcast_to(rng.integers(0, 2**21, (n // 64, 1), dtype=np.uint64),
                                    (n // 64, 64)),
                    rng.integers(0, 2**21, 64, dtype=np.uint64),
                    np.broadcast_to(np.uint64(5), (n // 64, 64))],                  # views
    lambda rng, n: [rng.integers(0, 2**32, n, dtype=np.uint32) for _ in range(2)],
])
def test_encode_peak_memory_is_about_the_keys(make):
    """A report: 10**7 3-D cells peaked at 320 MB for 80 MB of keys (the spread copy
    of each axis and its scratch, whole arrays, one copy still held while the next was
    made); blocks of ``CHUNK`` elements leave the keys and a few blocks of scratch."""
    n = 2**20
    cells = make(np.random.default_rng(0), n)
    keys, peak = _peak(lambda: alg.morton_encode(*cells))
    assert keys.size == n
    assert peak < 1.5 * keys.nbytes, peak / keys.nbytes
    assert np.array_equal(keys, bitwise_keys(cells, 21 if len(cells) == 3 else 32))


def test_encode_blocks_give_the_bitwise_keys_for_any_layout():
    rng = np.random.default_rng(1)
    n = 3 * CHUNK + 17   # blocks and a short last one
    base = rng.integers(0, 2**21, (n, 4), dtype=np.int64)
    cells = [base[:, 0].astype(np.int32), base[:, 2], base[::-1, 3].astype(np.uint64)]
    assert np.array_equal(alg.morton_encode(*cells), bitwise_keys(cells, 21))
    # a Fortran-ordered input gives Fortran-ordered keys, as its copy did
    grid = rng.integers(0, 2**32, (700, 300), dtype=np.uint64).T
    col = np.broadcast_to(rng.integers(0, 2**32, (300, 1), dtype=np.uint64), (300, 700))
    keys = alg.morton_encode(grid, col)
    assert keys.flags.f_contiguous and keys.shape == (300, 700)
    assert np.array_equal(keys, bitwise_keys([grid, col], 32))
    # 0-d and empty
    assert alg.morton_encode(np.uint8(3), np.int64(2)).shape == ()
    assert int(alg.morton_encode(np.uint8(3), np.int64(2))) == int(bitwise_keys([3, 2], 2))
    empty = alg.morton_encode(np.zeros((0, 4), dtype=np.int16), np.zeros(4, dtype=np.int16))
    assert empty.shape == (0, 4) and empty.dtype == np.uint64


@pytest.mark.parametrize("bad, match", [(-1, r"a negative cell index \(-1\)"),
                                        (2**40, r"cell index 1099511627776, wider than")])
def test_a_bad_cell_is_refused_where_the_broadcast_is_empty(bad, match):
    """A new-user probe: an input broadcast against an empty one skipped its range
    check (``morton_encode([-1], zeros((0, 1)))`` returned no keys); the docstring's
    ``ValueError`` has no exception for an empty result."""
    with pytest.raises(ValueError, match=rf"^morton_encode: argument 'ix' has {match}"):
        alg.morton_encode(np.array([bad]), np.zeros((0, 1), dtype=np.int64))
    assert alg.morton_encode(np.array([5]), np.zeros((0, 1), dtype=np.int64)).shape == (0, 1)


def test_dask_encode_matches_numpy():
    pytest.importorskip("dask.array")
    import xstride as xp

    rng = np.random.default_rng(2)
    host = [rng.integers(0, 2**21, 3 * CHUNK + 5) for _ in range(3)]
    want = alg.morton_encode(*host)
    with xp.use_backend("dask", chunks=CHUNK + 3):
        got = alg.morton_encode(*[xp.asarray(c) for c in host])
        assert np.array_equal(xp.to_numpy(got), want)
