"""Morton keys on the host: the issue's examples, bit layout, round trips, clipping, errors
of memory and of broadcast views (bad arguments: tests/test_morton_bad_input.py)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from xstride import algorithms as alg

UNIT2 = ([0.0, 0.0], [1.0, 1.0])


def cells_of(points, lower, upper, levels):
    keys = alg.morton_keys(np.asarray(points, dtype=np.float64), lower, upper, levels)
    return alg.morton_decode(keys, len(lower)).tolist()


def reference_key(cells, levels):
    """Bit ndim*b + a of the key is bit b of cell a (written out bit by bit)."""
    ndim = len(cells)
    key = 0
    for b in range(levels):
        for a, c in enumerate(cells):
            key |= ((int(c) >> b) & 1) << (ndim * b + a)
    return key


def reference_cell(x, lo, hi, levels):
    scale = np.float64(2.0**levels) / (np.float64(hi) - np.float64(lo))
    c = math.floor((np.float64(x) - np.float64(lo)) * scale)
    return min(max(c, 0), 2**levels - 1)


# --------------------------------------------------------------------- the issue's examples
@pytest.mark.parametrize(
    "point, cell",
    [
        ((0.125, 0.0), [1, 0]),
        ((0.999, 0.5), [7, 4]),
        ((1.0, 1.0), [7, 7]),  # the upper corner lands in the last cell
        ((-5.0, 7.0), [0, 7]),  # outside: the nearest face
        ((0.25, 0.375), [2, 3]),  # exactly on cell boundaries: the upper cell
        ((0.0, 0.0), [0, 0]),
        ((0.124999, 0.875), [0, 7]),
    ],
)
def test_issue_examples_levels3_unit_box(point, cell):
    assert cells_of([point], *UNIT2, 3) == [cell]


def test_issue_example_keys_have_the_documented_bits():
    keys = alg.morton_keys(np.array([[0.125, 0.0], [0.999, 0.5], [1.0, 1.0]]), *UNIT2, 3)
    assert keys.dtype == np.uint64
    assert keys.tolist() == [1, 53, 63]  # (1,0) -> 0b1; (7,4) -> 0b110101; (7,7) -> 0b111111


def test_reversed_axis():
    # lower > upper on axis 0: x = 1 is cell 0, x = 0 is the last cell
    got = cells_of([(1.0, 0.0), (0.875, 0.0), (0.125, 0.0), (0.0, 0.0), (2.0, 0.0), (-1.0, 0.0)],
                   [1.0, 0.0], [0.0, 1.0], 3)
    assert [c[0] for c in got] == [0, 1, 7, 7, 0, 7]
    assert all(c[1] == 0 for c in got)


def test_boundaries_go_to_the_upper_cell_3d():
    pts = [(k / 16, (k + 1) / 16, 1.0 - k / 16) for k in range(16)]
    got = cells_of(pts, [0, 0, 0], [1, 1, 1], 4)
    assert got == [[k, min(k + 1, 15), 15 if k == 0 else 16 - k] for k in range(16)]


def test_clipping_far_outside_and_on_faces():
    pts = [(-1e300, 1e300, 0.5), (2.0, -2.0, 0.5), (1.0, 0.0, 1.0)]
    got = cells_of(pts, [0, 0, 0], [1, 1, 1], 21)
    top = 2**21 - 1
    assert got == [[0, top, 2**20], [top, 0, 2**20], [top, 0, top]]


def test_bit_layout_against_bitwise_reference():
    rng = np.random.default_rng(7)
    for ndim, levels in ((2, 32), (2, 5), (3, 21), (3, 9)):
        cells = rng.integers(0, 2**levels, size=(200, ndim), dtype=np.uint64)
        keys = alg.morton_encode(*cells.T)
        assert keys.tolist() == [reference_key(c, levels) for c in cells]


def test_extreme_cells_round_trip():
    top2, top3 = 2**32 - 1, 2**21 - 1
    assert int(alg.morton_encode(top2, 0)) == 0x5555555555555555
    assert int(alg.morton_encode(0, top2)) == 0xAAAAAAAAAAAAAAAA
    assert int(alg.morton_encode(top2, top2)) == 2**64 - 1
    assert int(alg.morton_encode(top3, 0, 0)) == 0x1249249249249249
    assert int(alg.morton_encode(0, top3, 0)) == 0x2492492492492492
    assert int(alg.morton_encode(0, 0, top3)) == 0x4924924924924924
    assert int(alg.morton_encode(top3, top3, top3)) == 2**63 - 1
    c2 = np.array([[0, 0], [top2, 0], [0, top2], [top2, top2], [1, top2 - 1]], dtype=np.uint64)
    assert (alg.morton_decode(alg.morton_encode(c2[:, 0], c2[:, 1]), 2) == c2).all()
    c3 = np.array([[top3, 0, 0], [0, top3, 0], [0, 0, top3], [top3, top3, top3], [1, 2, top3 - 1]],
                  dtype=np.uint64)
    assert (alg.morton_decode(alg.morton_encode(*c3.T), 3) == c3).all()


def test_round_trip_all_cells_of_a_1024_grid():
    g = np.arange(2**10, dtype=np.int64)
    ix, iy = (a.ravel() for a in np.meshgrid(g, g, indexing="ij"))
    keys = alg.morton_encode(ix, iy)
    assert np.unique(keys).size == 2**20 and int(keys.max()) == 2**20 - 1
    back = alg.morton_decode(keys, 2)
    assert back.shape == (2**20, 2)
    assert (back[:, 0] == ix).all() and (back[:, 1] == iy).all()


def test_round_trip_all_cells_of_a_3d_grid():
    g = np.arange(2**6, dtype=np.int64)
    ix, iy, iz = (a.ravel() for a in np.meshgrid(g, g, g, indexing="ij"))
    keys = alg.morton_encode(ix, iy, iz)
    assert np.array_equal(np.sort(keys), np.arange(2**18, dtype=np.uint64))
    assert (alg.morton_decode(keys, 3) == np.stack([ix, iy, iz], axis=1)).all()


def test_points_at_max_levels_hit_the_extreme_cells():
    pts = np.array([[0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
    keys = alg.morton_keys(pts, *UNIT2, 32)
    assert keys.tolist() == [0xAAAAAAAAAAAAAAAA, 0x5555555555555555, 2**64 - 1]
    keys3 = alg.morton_keys(np.array([[1.0, 1.0, 1.0], [0.0, 0.0, 0.0]]), [0] * 3, [1] * 3, 21)
    assert keys3.tolist() == [2**63 - 1, 0]


def test_dtypes_and_layouts_give_the_same_keys():
    rng = np.random.default_rng(3)
    pts32 = rng.uniform(-2, 3, size=(1000, 3)).astype(np.float32)
    ref = alg.morton_keys(pts32.astype(np.float64), [-1, -1, -1], [2, 2, 2], 12)
    assert np.array_equal(alg.morton_keys(pts32, [-1, -1, -1], [2, 2, 2], 12), ref)
    wide = np.zeros((1000, 5), dtype=np.float64)
    wide[:, 1:4] = pts32
    view = wide[:, 1:4]
    assert not view.flags.c_contiguous
    assert np.array_equal(alg.morton_keys(view, [-1, -1, -1], [2, 2, 2], 12), ref)
    ints = np.array([[0, 1], [3, 2]])
    assert cells_of(ints, [0, 0], [4, 4], 2) == [[0, 1], [3, 2]]
    assert alg.morton_keys(np.empty((0, 2)), *UNIT2, 4).shape == (0,)
    assert alg.morton_keys([[0.5, 0.5]], (0, 0), np.array([1, 1]), 1).tolist() == [3]


def test_chunked_host_path_matches_the_reference():
    rng = np.random.default_rng(11)
    pts = rng.uniform(-0.1, 1.1, size=(70_000, 2))  # more than one 65536-row chunk
    keys = alg.morton_keys(pts, [0, 0], [1, 1], 16)
    for i in (0, 65535, 65536, 69_999):
        cell = [reference_cell(pts[i, a], 0, 1, 16) for a in range(2)]
        assert int(keys[i]) == reference_key(cell, 16)


def test_morton_scales():
    s = alg.morton_scales([0, 0], [2, 4], 3)
    assert s.dtype == np.float64 and s.tolist() == [4.0, 2.0]
    assert alg.morton_scales([1, 0, 0], [0, 1, 0.5], 1).tolist() == [-2.0, 2.0, 4.0]


def test_encode_broadcasts_and_keeps_shape():
    keys = alg.morton_encode(np.arange(4, dtype=np.uint8)[:, None], np.arange(3, dtype=np.int16))
    assert keys.shape == (4, 3) and keys.dtype == np.uint64
    assert keys[3, 2] == reference_key((3, 2), 2)
    assert alg.morton_decode(keys, 2).shape == (4, 3, 2)


# --------------------------------------------------------------------- properties
_coord = st.floats(-4.0, 4.0, allow_nan=False, allow_infinity=False)


@settings(max_examples=60, deadline=None)
@given(
    pts=st.lists(st.tuples(_coord, _coord, _coord), min_size=1, max_size=20),
    lo=st.tuples(_coord, _coord, _coord),
    ext=st.tuples(*[st.floats(0.01, 3.0) | st.floats(-3.0, -0.01)] * 3),
    levels=st.integers(1, 21),
)
def test_keys_decode_to_the_clipped_floor_cell(pts, lo, ext, levels):
    hi = [a + e for a, e in zip(lo, ext)]
    got = cells_of(pts, list(lo), hi, levels)
    want = [[reference_cell(p[a], lo[a], hi[a], levels) for a in range(3)] for p in pts]
    assert got == want


@settings(max_examples=60, deadline=None)
@given(data=st.data(), ndim=st.sampled_from([2, 3]))
def test_encode_decode_round_trip(data, ndim):
    top = 2 ** alg.MAX_MORTON_LEVELS[ndim] - 1
    cells = data.draw(st.lists(st.lists(st.integers(0, top), min_size=ndim, max_size=ndim),
                               min_size=1, max_size=30))
    arr = np.array(cells, dtype=np.uint64)
    keys = alg.morton_encode(*arr.T)
    assert keys.tolist() == [reference_key(c, alg.MAX_MORTON_LEVELS[ndim]) for c in cells]
    assert alg.morton_decode(keys, ndim).tolist() == cells


@settings(max_examples=40, deadline=None)
@given(xs=st.lists(st.floats(0.0, 1.0), min_size=2, max_size=30), levels=st.integers(1, 32))
def test_keys_are_monotonic_along_one_axis(xs, levels):
    xs = sorted(xs)
    pts = np.stack([np.array(xs), np.zeros(len(xs))], axis=1)
    keys = alg.morton_keys(pts, *UNIT2, levels)
    assert (np.diff(keys.astype(np.float64)) >= 0).all()
    assert (keys[1:] >= keys[:-1]).all()


def test_morton_decode_of_scalar_and_nd_keys():
    import xstride as xp

    alg = xp.algorithms
    np.testing.assert_array_equal(alg.morton_decode(alg.morton_encode(3, 1), 2), [3, 1])
    np.testing.assert_array_equal(alg.morton_decode(np.uint64(7), 3), [1, 1, 1])
    np.testing.assert_array_equal(alg.morton_decode(7, 3), [1, 1, 1])
    keys = alg.morton_encode(np.arange(6).reshape(2, 3), np.ones((2, 3), dtype=np.int64))
    cells = alg.morton_decode(keys, 2)
    assert cells.shape == (2, 3, 2)
    np.testing.assert_array_equal(cells[..., 0], np.arange(6).reshape(2, 3))
    np.testing.assert_array_equal(cells[..., 1], 1)


def test_huge_coordinates_clip_without_warnings():
    import warnings

    pos = np.array([[1e308, -1e308, 0.5]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        keys = alg.morton_keys(pos, [0.0] * 3, [1.0] * 3, 21)
    cells = alg.morton_decode(keys, 3)
    np.testing.assert_array_equal(cells, [[2**21 - 1, 0, 2**20]])


def test_integer_lists_are_exact_past_2_63_and_empty_lists_work():
    keys = alg.sort_by_key([3, 2**64 - 1, 5])[0]
    assert keys.dtype == np.uint64 and keys.tolist() == [3, 5, 2**64 - 1]
    assert alg.sort_by_key([])[0].size == 0
    assert alg.morton_encode([], []).size == 0
    assert alg.morton_decode([], 2).shape == (0, 2)
    np.testing.assert_array_equal(alg.morton_decode([2**63 - 1 + 1], 2)[0], [0, 2**31])
    for bad in (None, [1.5], [[1, 2], [3]]):
        with pytest.raises(TypeError, match="expected integers"):
            alg.sort_by_key(bad)
    with pytest.raises(ValueError, match=r"^sort_by_key: argument 'keys' holds -1 and "
                                         r"18446744073709551615: no 64-bit integer type "
                                         r"holds both \(int64 ends at 2\*\*63 - 1, uint64 "
                                         r"starts at 0\)$"):
        alg.sort_by_key([-1, 2**64 - 1])
    with pytest.raises(ValueError, match=r"^run_length_encode: argument 'keys' holds "
                                         r"-9223372036854775809, outside every 64-bit "
                                         r"integer type"):
        alg.run_length_encode([0, -2**63 - 1, 2**64 - 1])


class _NoMemory:
    """An executor whose result allocations fail, as an 8 TiB one does; its other
    functions are the real executor's."""

    def __init__(self, real):
        self.real = real

    def __getattr__(self, name):
        if name not in ("encode", "decode", "bin_offsets"):
            return getattr(self.real, name)

        def fail(*args, **kwargs):
            raise MemoryError("Unable to allocate 8.00 TiB for an array")
        return fail


def test_a_result_too_large_for_memory_is_named(monkeypatch):
    """A new-user probe: ``morton_encode`` of a (2**20, 1) column and a (1, 2**20) row
    (2**40 keys) ran for minutes with no word (the range checks read the broadcast
    views), then NumPy's MemoryError named no function; ``bin_offsets(b, 2**39)`` and
    ``morton_decode`` of 2**36 broadcast keys raised NumPy's too."""
    import time

    from xstride import _backends

    be = _backends.get("numpy")
    real = type(be).executor
    monkeypatch.setattr(type(be), "executor", lambda self, kind: _NoMemory(real(self, kind)))
    t0 = time.perf_counter()
    with pytest.raises(MemoryError, match=r"^morton_encode: not enough memory for the "
                                          r"keys, shape \(1048576, 1048576\) \(8\.00 TiB\)"):
        alg.morton_encode(np.arange(2**20)[:, None], np.arange(2**20)[None, :])
    assert time.perf_counter() - t0 < 5      # the checks read 2 * 2**20 values, not 2**40
    with pytest.raises(ValueError, match=r"^morton_encode: argument 'iy' has a negative"):
        alg.morton_encode(np.arange(2**20)[:, None], np.array([[3, -1]]))
    with pytest.raises(MemoryError, match=r"^bin_offsets: not enough memory for the "
                                          r"offsets, shape \(549755813889,\) \(4\.00 TiB\)"):
        alg.bin_offsets(np.array([0, 1]), 2**39)
    with pytest.raises(MemoryError, match=r"^morton_decode: not enough memory for the "
                                          r"cells, shape \(68719476736, 3\) \(1\.50 TiB\)"):
        alg.morton_decode(np.broadcast_to(np.uint64(1), (2**36,)), 3)


def test_broadcast_views_are_range_checked_by_the_elements_they_hold(monkeypatch):
    """A new-user probe: Morton functions of a broadcast view of a few elements
    (``np.broadcast_to(np.uint32(1), (2**40,))``) hung: the range checks (and
    ``morton_keys``' finite check) walked every repeat of the view before the keys'
    allocation could fail. They read the elements the view holds; the MemoryError
    names the function and the size at once."""
    import time

    from xstride import _backends
    from xstride._host import morton as host_morton

    be = _backends.get("numpy")
    real = type(be).executor
    monkeypatch.setattr(type(be), "executor", lambda self, kind: _NoMemory(real(self, kind)))

    def no_keys(*args, **kwargs):
        raise MemoryError("Unable to allocate 8.00 TiB for an array")
    monkeypatch.setattr(host_morton, "keys", no_keys)
    t0 = time.perf_counter()
    with pytest.raises(MemoryError, match=r"^morton_encode: not enough memory for the "
                                          r"keys, shape \(68719476736,\) \(512\.00 GiB\)"):
        alg.morton_encode(np.broadcast_to(np.uint32(1), (2**36,)), 1)
    with pytest.raises(MemoryError, match=r"^morton_encode: not enough memory for the "
                                          r"keys, shape \(65536, 1048576\)"):
        alg.morton_encode(np.broadcast_to(np.arange(2**20, dtype=np.uint32), (2**16, 2**20)), 3)
    with pytest.raises(MemoryError, match=r"^morton_decode: not enough memory for the "
                                          r"cells, shape \(68719476736, 2\) \(1\.00 TiB\)"):
        alg.morton_decode(np.broadcast_to(np.uint64(5), (2**36,)), 2)
    with pytest.raises(MemoryError, match=r"^morton_keys: not enough memory for the "
                                          r"keys, shape \(1073741824,\) \(8\.00 GiB\)"):
        alg.morton_keys(np.broadcast_to(np.array([0.5, 0.1, 0.2]), (2**30, 3)),
                        [0, 0, 0], [1, 1, 1], 5)
    assert time.perf_counter() - t0 < 30     # the views' 2**36 repeats (minutes) are not read
    # the range checks still see every value the view holds
    with pytest.raises(ValueError, match=r"^morton_encode: argument 'ix' has cell index "
                                         r"8589934592"):
        alg.morton_encode(np.broadcast_to(np.array([3, 2**33]), (2**36, 2)), 1)
    with pytest.raises(ValueError, match=r"^morton_decode: argument 'keys' has a negative key "
                                         r"\(-1\)"):
        alg.morton_decode(np.broadcast_to(np.array([[4], [-1]]), (2, 2**36)), 2)
    with pytest.raises(ValueError, match=r"^morton_decode: argument 'keys' has a key with bit "
                                         r"63 set"):
        alg.morton_decode(np.broadcast_to(np.array([[4], [2**63]], np.uint64), (2, 2**36)), 3)
    with pytest.raises(ValueError, match=r"^morton_keys: argument 'positions' has a NaN .* "
                                         r"in row 0"):
        alg.morton_keys(np.broadcast_to(np.array([0.5, np.nan]), (2**36, 2)), [0, 0], [1, 1], 5)
    assert time.perf_counter() - t0 < 30
    monkeypatch.undo()
    # and small views give the keys and cells of their copies
    ix = np.broadcast_to(np.array([5, 7]), (3, 2))
    iy = np.array([[1], [2], [3]])
    assert alg.morton_encode(ix, iy).tolist() == alg.morton_encode(ix.copy(), iy).tolist()
    assert (alg.morton_decode(ix, 3).tolist() == alg.morton_decode(ix.copy(), 3).tolist())
    pos = np.broadcast_to(np.array([0.5, 0.25, 0.125]), (4, 3))
    assert (alg.morton_keys(pos, [0] * 3, [1] * 3, 4).tolist()
            == alg.morton_keys(pos.copy(), [0] * 3, [1] * 3, 4).tolist())


def test_numpy_bounds_go_with_positions_of_any_backend():
    """A probe: the bounds are host parameters, yet NumPy-array bounds beside dask
    positions were the mixed-backend TypeError (a list worked). Bounds of another
    non-NumPy backend than the positions' are still refused."""
    da = pytest.importorskip("dask.array")
    import xstride as xp

    host = np.random.default_rng(5).random((300, 3))
    want = xp.algorithms.morton_keys(host, [0, 0, 0], [1, 1, 1], 5)
    with xp.use_backend("dask", chunks=100):
        pos = xp.asarray(host)
        for lo, hi in ((np.zeros(3), np.ones(3)), (np.zeros(3), [1, 1, 1]),
                       (xp.zeros(3), xp.ones(3))):
            got = xp.algorithms.morton_keys(pos, lo, hi, 5)
            assert isinstance(got, da.Array)
            np.testing.assert_array_equal(xp.to_numpy(got), want)
    with pytest.raises(TypeError, match="positions is numpy, lower is dask"):
        xp.algorithms.morton_keys(host, da.zeros(3), [1, 1, 1], 5)
