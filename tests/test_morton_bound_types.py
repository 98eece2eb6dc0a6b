"""The numbers a Morton bound (and a voxel origin or size) takes are those positions take:
Python ints and floats, NumPy integers and float16/32/64. A long double bound was
rounded to float64 in silence (long-double positions are refused) and a ``Fraction``
taken while a ``Decimal`` was refused: both are refused now, on NumPy and dask."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest

from xstride import algorithms as alg

LD = np.longdouble
wide_long_double = pytest.mark.skipif(np.dtype(LD).itemsize <= 8,
                                      reason="long double is float64 on this platform")
PTS = np.random.default_rng(0).uniform(-0.5, 1.5, size=(40, 3))
LONG_DOUBLE = r"long double is refused, not rounded to float64"


def _long_double_bounds():
    return [[LD(0), 0, 0], np.zeros(3, dtype=LD),
            np.zeros(3, dtype=np.dtype(LD).newbyteorder()), LD(0)]


@wide_long_double
@pytest.mark.parametrize("which", ["lower", "upper"])
@pytest.mark.parametrize("index", range(4))
def test_long_double_bounds_are_refused_as_long_double_positions_are(which, index):
    bound = _long_double_bounds()[index]
    if which == "upper":
        bound = bound + 1 if not isinstance(bound, list) else [LD(1), 1, 1]
    lo, hi = (bound, [1, 1, 1]) if which == "lower" else ([0, 0, 0], bound)
    with pytest.raises(TypeError, match=rf"^morton_keys: argument '{which}' got .*; expected "
                                        rf"a sequence of 2 or 3 real numbers \(int or float, "
                                        rf"or NumPy integer, float16, float32 or float64\); "
                                        rf"{LONG_DOUBLE}$"):
        alg.morton_keys(PTS, lo, hi, 8)
    with pytest.raises(TypeError, match=rf"^morton_scales: argument '{which}'.*{LONG_DOUBLE}"):
        alg.morton_scales(lo, hi, 8)
    # the rule the bound follows is the positions' one
    with pytest.raises(TypeError, match=r"^morton_keys: argument 'positions'.*float128|"
                                        r"^morton_keys: argument 'positions'.*float96"):
        alg.morton_keys(PTS.astype(LD), [0, 0, 0], [1, 1, 1], 8)


@pytest.mark.parametrize("number, name", [(Fraction(1, 4), "Fraction"),
                                          (Decimal("0.25"), "Decimal")])
def test_fraction_and_decimal_bounds_are_refused_alike(number, name):
    """``Fraction`` bounds were taken (rounded to float64) and ``Decimal`` ones refused;
    as positions, neither is taken."""
    with pytest.raises(TypeError, match=rf"^morton_keys: argument 'lower' got list .*; "
                                        rf"expected a sequence of 2 or 3 real numbers "
                                        rf"\(int or float, .*\); it holds a {name}$"):
        alg.morton_keys(PTS, [number, 0, 0], [1, 1, 1], 8)
    with pytest.raises(TypeError, match=rf"^morton_scales: argument 'upper'.*it holds a {name}$"):
        alg.morton_scales([0, 0], (1, number + 1), 8)
    with pytest.raises(TypeError, match=rf"^morton_scales: argument 'lower'.*it is a {name}$"):
        alg.morton_scales(number, [1, 1], 8)
    with pytest.raises(TypeError, match=r"^morton_keys: argument 'positions'"):
        alg.morton_keys([[number, 0, 0]], [0, 0, 0], [1, 1, 1], 8)


def test_ints_floats_and_numpy_numbers_of_float64_or_less_are_taken():
    want = alg.morton_keys(PTS, [-0.5, 0.0, 0.0], [1.0, 1.0, 1.0], 8)
    for lo in ([-0.5, 0, np.int8(0)], [np.float16(-0.5), np.float32(0), np.float64(0)],
               np.array([-0.5, 0, 0], dtype=np.float16), (np.uint64(0) - 0.5, 0, 0)):
        assert np.array_equal(alg.morton_keys(PTS, lo, np.ones(3, dtype=np.int64), 8), want)
    # a Python int past int64 is an int (made float64, as before)
    assert alg.morton_scales([0, 0], [2**70, 1], 1).tolist() == [2.0 / 2**70, 2.0]


@pytest.mark.parametrize("lo", [
    pytest.param(lambda: [LD(0), 0, 0], marks=wide_long_double, id="long-double-scalar"),
    pytest.param(lambda: np.zeros(3, dtype=LD), marks=wide_long_double, id="long-double-array"),
    pytest.param(lambda: [Fraction(0), 0, 0], id="Fraction"),
    pytest.param(lambda: [Decimal(0), 0, 0], id="Decimal"),
])
def test_dask_positions_refuse_the_same_bounds(lo):
    pytest.importorskip("dask.array")
    import xstride as xp

    with xp.use_backend("dask", chunks=16):
        pos = xp.asarray(PTS)
        with pytest.raises(TypeError, match=r"^morton_keys: argument 'lower' got .*\(int or "
                                            r"float, or NumPy integer, float16, float32 or "
                                            r"float64\); (long double|it holds)"):
            alg.morton_keys(pos, lo(), [1, 1, 1], 8)
        ok = alg.morton_keys(pos, [0, 0, 0], [1, 1, 1], 8)
        assert np.array_equal(xp.to_numpy(ok), alg.morton_keys(PTS, [0, 0, 0], [1, 1, 1], 8))


@wide_long_double
def test_dask_long_double_bound_array_is_refused():
    da = pytest.importorskip("dask.array")
    import xstride as xp

    with xp.use_backend("dask", chunks=16):
        pos = xp.asarray(PTS)
        with pytest.raises(TypeError, match=rf"^morton_keys: argument 'upper'.*{LONG_DOUBLE}"):
            alg.morton_keys(pos, [0, 0, 0], da.ones(3, dtype=LD), 8)


@pytest.mark.parametrize("arg, value, what", [
    ("voxel_size", Fraction(1, 2), "it is a Fraction"),
    ("voxel_size", [0.5, Decimal("0.5"), 0.5], "it holds a Decimal"),
    ("origin", [Fraction(0), 0, 0], "it holds a Fraction"),
    pytest.param("voxel_size", LD(0.5), LONG_DOUBLE, marks=wide_long_double, id="size-ld"),
    pytest.param("origin", np.zeros(3, dtype=LD), LONG_DOUBLE, marks=wide_long_double,
                 id="origin-ld"),
])
def test_voxel_size_and_origin_follow_the_same_rule(arg, value, what):
    kwargs = {"voxel_size": 0.5, arg: value}
    with pytest.raises(TypeError, match=rf"^voxel_downsample: argument '{arg}'.*{what}$"):
        alg.voxel_downsample(PTS, **kwargs)
