"""The NumPy backend's walks of short axes (xstride/_host/reductions.py): the same
results as NumPy's functions, and the walk really taken where it is meant to be."""

from __future__ import annotations

import numpy as np
import pytest

import xstride as xp
from xstride._host import reductions as walks

REAL = ["float16", "float32", "float64", "int8", "int32", "int64", "uint8", "uint32",
        "uint64", "bool"]
EXACT = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "bool"]


def _values(rng, shape, dtype, nan=False):
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return rng.random(shape) < 0.7
    if dt.kind == "f":
        x = (rng.standard_normal(shape) * 100).astype(dt)
        if nan:
            x.reshape(-1)[rng.integers(0, x.size, 3)] = np.nan
        return x
    info = np.iinfo(dt)
    return rng.integers(info.min, info.max, size=shape, dtype=dt, endpoint=True)


def _same(got, want):
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)   # NaN where NumPy has NaN


#: (shape, axis, whether min/max of float32 walk it): the columns walk, the
#: side-by-side walk, and what is left to NumPy (a last axis past 48 bytes, a
#: middle axis, rows of one element, small arrays)
CASES = [((8000, 3), 0, True), ((8000, 3), 1, True), ((20000, 1), 0, False),
         ((20000, 1), 1, True), ((2000, 16), 1, False), ((2000, 12), 1, True),
         ((2000, 16), 0, True), ((16384, 2), 0, True),
         ((1200, 17), 1, False), ((700, 64), 0, True), ((300, 8, 8), 0, True),
         ((800, 8, 3), 2, True), ((100, 50, 4), 2, True), ((20000, 2), 1, True),
         ((9, 4000, 3), 1, False), ((5000, 3), 1, False)]
SHAPES = [(shape, axis) for shape, axis, _ in CASES]


@pytest.mark.parametrize("shape, axis, walked", CASES)
def test_cases_take_the_walk_they_are_meant_to(shape, axis, walked):
    x = np.zeros(shape, dtype=np.float32)
    assert (walks.walk_reduction("min", x, axis) is not None) == walked


@pytest.mark.parametrize("shape, axis", SHAPES)
@pytest.mark.parametrize("dtype", REAL)
@pytest.mark.parametrize("name", ["min", "max"])
def test_min_max_equal_numpy(name, dtype, shape, axis):
    x = _values(np.random.default_rng(len(shape) + axis), shape, dtype, nan=True)
    for keepdims in (False, True):
        _same(getattr(xp, name)(x, axis=axis, keepdims=keepdims),
              getattr(np, name)(x, axis=axis, keepdims=keepdims))
    _same(getattr(xp, name)(x, axis=axis - x.ndim), getattr(np, name)(x, axis=axis))


@pytest.mark.parametrize("shape, axis", SHAPES)
@pytest.mark.parametrize("dtype", EXACT)
@pytest.mark.parametrize("name", ["sum", "prod"])
def test_integer_sum_prod_equal_numpy(name, dtype, shape, axis):
    x = _values(np.random.default_rng(3), shape, dtype)
    want = getattr(np, name)(x, axis=axis)
    _same(getattr(xp, name)(x, axis=axis), want)
    _same(getattr(xp, name)(x, axis=axis, keepdims=True),
          getattr(np, name)(x, axis=axis, keepdims=True))
    if np.dtype(dtype).kind != "u":
        _same(getattr(xp, name)(x, axis=axis, dtype=np.int64),
              getattr(np, name)(x, axis=axis, dtype=np.int64))


@pytest.mark.parametrize("shape, axis", SHAPES)
@pytest.mark.parametrize("dtype", EXACT)
@pytest.mark.parametrize("name", ["sum", "prod"])
def test_narrow_integer_dtypes_wrap_as_numpy(name, dtype, shape, axis):
    """``dtype=`` an integer type narrower than 64 bits: the result in that type, its
    sums and products wrapped as NumPy's (the side-by-side walk folds twice, both
    folds in that type)."""
    x = _values(np.random.default_rng(4), shape, dtype)
    # every narrow type NumPy's reduction casts the input to ("same_kind"): a "safe"
    # filter left no type at all for int64 and uint64 inputs, the cases that wrap most
    narrow = [d for d in (np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32)
              if np.can_cast(x.dtype, d, "same_kind")]
    assert len(narrow) >= 3, (dtype, narrow)
    for want_dt in narrow:
        _same(getattr(xp, name)(x, axis=axis, dtype=want_dt),
              getattr(np, name)(x, axis=axis, dtype=want_dt))


def test_narrow_integer_dtypes_of_the_issue_report():
    """Column sums of an (n, 2) array past the walk's size wrap in the asked type."""
    ones = np.ones((10000, 2), dtype=bool)
    _same(xp.sum(ones, axis=0, dtype=np.int8), np.sum(ones, axis=0, dtype=np.int8))
    big = np.full((10000, 2), 2 ** 20, dtype=np.int32)
    _same(xp.sum(big, axis=0, dtype=np.int32), np.sum(big, axis=0, dtype=np.int32))
    threes = np.full((10000, 2), 3, dtype=np.int8)
    _same(xp.prod(threes, axis=0, dtype=np.int8), np.prod(threes, axis=0, dtype=np.int8))


@pytest.mark.parametrize("shape, axis", SHAPES)
@pytest.mark.parametrize("name", ["all", "any"])
def test_all_any_equal_numpy(name, shape, axis):
    rng = np.random.default_rng(5)
    for p in (0.0, 0.02, 0.98, 1.0):   # every row decided by one element, or none
        x = rng.random(shape) < p
        _same(getattr(xp, name)(x, axis=axis), getattr(np, name)(x, axis=axis))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_columns_walk_keeps_numpy_bits_of_signed_zeros(dtype):
    # rows of zeros of both signs: NumPy's order gives one sign per row; the columns
    # walk performs the same comparisons in the same order
    rng = np.random.default_rng(7)
    x = np.where(rng.random((8192, 3)) < 0.5, -0.0, 0.0).astype(dtype)
    for name in ("min", "max"):
        got, want = getattr(xp, name)(x, axis=1), getattr(np, name)(x, axis=1)
        assert np.array_equal(np.signbit(got), np.signbit(want))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "uint64"])
@pytest.mark.parametrize("k", [2, 3, 4])
@pytest.mark.parametrize("name", ["cumulative_sum", "cumulative_prod"])
def test_scans_of_short_rows_keep_numpy_bits(name, k, dtype):
    rng = np.random.default_rng(k)
    x = _values(rng, (9000, k), dtype)
    if np.dtype(dtype).kind == "f":
        x = x / 37   # values whose sums round
    want = getattr(np, name)(x, axis=1)
    got = getattr(xp, name)(x, axis=1)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert got.tobytes() == want.tobytes()
    assert walks.walk_scan(name, x, 1) is not None   # the walk ran, not NumPy's scan
    x3 = x.reshape(2, 4500, k)
    assert getattr(xp, name)(x3, axis=-1).tobytes() == getattr(np, name)(x3, axis=-1).tobytes()


def test_views_and_other_layouts_equal_numpy():
    rng = np.random.default_rng(11)
    base = _values(rng, (6000, 8), "float32", nan=True)
    for x in (base[::2], base[:, ::-1], base[:, :3], base.T, base[::-1, 1:4],
              np.asfortranarray(base)):
        for axis in range(x.ndim):
            for name in ("min", "max"):
                _same(getattr(xp, name)(x, axis=axis), getattr(np, name)(x, axis=axis))
    ints = _values(rng, (6000, 4), "int32")
    for x in (ints[::3], ints[:, ::-1], ints.T):
        for axis in range(x.ndim):
            _same(xp.sum(x, axis=axis), np.sum(x, axis=axis))
            _same(xp.cumulative_sum(x, axis=axis), np.cumulative_sum(x, axis=axis))


def test_walks_taken_where_meant():
    x = np.zeros((1 << 15, 3), dtype=np.float32)
    assert walks.walk_reduction("min", x, 1) is not None       # columns
    assert walks.walk_reduction("max", x, 0) is not None       # side by side
    assert walks.walk_reduction("sum", x.astype(np.int32), 0) is not None
    assert walks.walk_reduction("all", x < 1, 1) is not None
    assert walks.walk_reduction("sum", x, 1) is not None       # float rows below 8
    # not taken: float sums of 8 or more (NumPy's pairwise order) or over the first
    # axis, small arrays, long last axes, rows of a non-contiguous array read side by
    # side, byte-swapped data
    assert walks.walk_reduction("sum", np.zeros((4096, 8), np.float32), 1) is None
    assert walks.walk_reduction("sum", x, 0) is None
    assert walks.walk_reduction("sum", x.astype(np.float16), 1) is None
    assert walks.walk_reduction("min", x[:100], 1) is None
    assert walks.walk_reduction("min", np.zeros((2000, 40), np.float32), 1) is None
    assert walks.walk_reduction("min", np.zeros((4000, 6), np.float64), 1) is not None
    assert walks.walk_reduction("min", np.zeros((4000, 7), np.float64), 1) is None  # 56 B
    assert walks.walk_reduction("min", x[::2], 0) is None
    # a (k, n) array used as .T: NumPy already walks its long runs
    assert walks.walk_reduction("min", np.zeros((3, 1 << 15), np.float32).T, 1) is None
    assert walks.walk_reduction("min", x[::2], 1) is not None
    assert walks.walk_reduction("min", x[:, ::-1], 1) is not None
    assert walks.walk_reduction("min", x.astype(">f4"), 1) is None
    assert walks.walk_reduction("sum", x.astype(np.int32), 1, dtype=np.int8) is None
    assert walks.walk_scan("cumulative_sum", x.astype(np.int32), 1) is None   # int64 result


def test_other_keywords_and_byte_orders_go_to_numpy():
    rng = np.random.default_rng(13)
    x = _values(rng, (8192, 3), "int32")
    _same(xp.sum(x, axis=1, dtype=np.float64), np.sum(x, axis=1, dtype=np.float64))
    _same(xp.sum(x, axis=0, dtype=np.int16), np.sum(x, axis=0, dtype=np.int16))
    _same(xp.max(x, axis=1, initial=5), np.max(x, axis=1, initial=5))
    big = x.astype(">i4")
    _same(xp.min(big, axis=1), np.min(big, axis=1))
    _same(xp.sum(big, axis=0), np.sum(big, axis=0))
    f = x.astype(np.float32)
    _same(xp.cumulative_sum(f, axis=1, include_initial=True),
          np.cumulative_sum(f, axis=1, include_initial=True))
    _same(xp.cumulative_sum(f, axis=1, dtype=np.float64),
          np.cumulative_sum(f, axis=1, dtype=np.float64))


def test_bad_input_still_refused_before_the_walk():
    x = np.zeros((8192, 3), dtype=np.float32)
    with pytest.raises(ValueError, match="axis"):
        xp.min(x, axis=2)
    with pytest.raises(TypeError, match="keepdims"):
        xp.max(x, axis=0, keepdims="yes")
    with pytest.raises(ValueError, match="empty"):
        xp.min(np.zeros((0, 3), np.float32), axis=0)
    with pytest.raises(TypeError):
        xp.sum([[1, 2, 3]] * 10000, axis=1)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("k", range(1, 10))
def test_float_row_sums_keep_numpy_bits(dtype, k):
    rng = np.random.default_rng(k)
    x = (rng.standard_normal((20000, k)) * rng.choice([1e-3, 1.0, 1e5], (20000, k))).astype(dtype)
    x[::7] = -0.0   # rows of negative zeros: NumPy's sum starts at +0.0
    for axis in (1, -1):
        got, want = xp.sum(x, axis=axis), np.sum(x, axis=axis)
        assert got.dtype == want.dtype and got.tobytes() == want.tobytes()
    assert (walks.walk_reduction("sum", x, 1) is not None) == (k < walks.PAIRWISE)
    _same(xp.sum(x, axis=1, dtype=np.float64), np.sum(x, axis=1, dtype=np.float64))


def test_float_row_sums_left_to_numpy_where_its_order_differs(monkeypatch):
    assert walks._float_sums_match()   # this NumPy adds short rows sequentially
    monkeypatch.setattr(walks, "_FLOAT_SUMS", [False])
    x = np.ones((8192, 3), np.float32)
    assert walks.walk_reduction("sum", x, 1) is None
    _same(xp.sum(x, axis=1), np.sum(x, axis=1))
