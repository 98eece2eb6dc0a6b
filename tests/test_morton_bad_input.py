"""Morton keys' bad input on the host: positions of a bad shape, dtype or type (a str,
a list of non-numbers or of bools), levels out of range or of no int, bounds that are
equal (also after float64's rounding), mismatched, of a bad type, holding a bool or not
finite, non-finite positions, cells that ``morton_encode`` refuses, keys that
``morton_decode`` refuses (split from tests/test_morton.py, past 570 lines)."""

from __future__ import annotations

import numpy as np
import pytest

from xstride import algorithms as alg


@pytest.mark.parametrize("shape", [(5,), (5, 1), (5, 4), (2, 3, 3), ()])
def test_positions_of_bad_shape(shape):
    with pytest.raises(ValueError, match=r"morton_keys: argument 'positions' must have shape \(n, 2\) or \(n, 3\)"):
        alg.morton_keys(np.zeros(shape), [0, 0], [1, 1], 3)


@pytest.mark.parametrize("levels, ndim", [(0, 2), (33, 2), (22, 3), (-1, 3)])
def test_levels_out_of_range(levels, ndim):
    with pytest.raises(ValueError, match=rf"argument 'levels' must be in 1\.\.{alg.MAX_MORTON_LEVELS[ndim]}"):
        alg.morton_keys(np.zeros((2, ndim)), [0] * ndim, [1] * ndim, levels)


@pytest.mark.parametrize("levels", [2.0, True, "3", None])
def test_levels_not_an_int(levels):
    with pytest.raises(TypeError, match="argument 'levels'"):
        alg.morton_keys(np.zeros((2, 2)), [0, 0], [1, 1], levels)


def test_lower_equal_upper():
    with pytest.raises(ValueError, match="equals 'lower' on axis 1"):
        alg.morton_keys(np.zeros((2, 3)), [0, 1, 0], [1, 1, 1], 3)
    # the message names the function called and the bound as a plain number
    with pytest.raises(ValueError, match=r"^morton_keys: argument 'upper' equals 'lower' on "
                                         r"axis 0 \(1\.0\)"):
        alg.morton_keys(np.zeros((2, 3)), [1, 0, 0], [1, 1, 1], 3)
    with pytest.raises(ValueError, match=r"^morton_scales: .* on axis 0 \(1\.0\)"):
        alg.morton_scales([1, 0], [1, 1], 3)


def test_distinct_integer_bounds_that_float64_makes_equal_say_so():
    """Bounds are float64: 2**60 and 2**60 + 1 are one number there. The message said
    only that 'upper' equals 'lower' (1.152921504606847e+18), which the caller's
    distinct ints did not; it names the rounding. Bounds below 2**53 say nothing more."""
    with pytest.raises(ValueError, match=r"^morton_keys: argument 'upper' equals 'lower' on "
                                         r"axis 1 \(1\.152921504606847e\+18; both are taken "
                                         r"as float64, which rounds integers beyond 2\*\*53\)"):
        alg.morton_keys(np.zeros((2, 2)), [0, 2**60], [1, 2**60 + 1], 3)
    with pytest.raises(ValueError, match=r"on axis 1 \(0\.5\); the box"):
        alg.morton_scales([0, 0.5], [1, 0.5], 3)


@pytest.mark.parametrize("bound", [[True, 0, 0], (0.0, np.True_, 0.0), [[True], 0, 0]])
def test_bounds_holding_a_bool(bound):
    # NumPy reads [True, 0, 0] as the ints [1, 0, 0]; a bool is not a coordinate
    with pytest.raises(TypeError, match="argument 'lower'"):
        alg.morton_keys(np.zeros((2, 3)), bound, [2, 2, 2], 3)
    with pytest.raises(TypeError, match="argument 'upper'"):
        alg.morton_scales([-1, -1, -1], bound, 3)


@pytest.mark.parametrize("lower, upper", [([0, 0, 0], [1, 1]), ([0, 0], [1, 1, 1]), ([0], [1])])
def test_mismatched_bounds(lower, upper):
    with pytest.raises(ValueError, match="must have 2 entries|must have 3 entries|has 3 entries|has 2 entries"):
        alg.morton_keys(np.zeros((2, 2)), lower, upper, 3)


def test_mismatched_bounds_in_scales():
    with pytest.raises(ValueError, match="'upper' has 3 entries but 'lower' has 2"):
        alg.morton_scales([0, 0], [1, 1, 1], 3)
    with pytest.raises(ValueError, match="must have 2 or 3 entries"):
        alg.morton_scales([0] * 4, [1] * 4, 3)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_nonfinite_positions_name_the_first_bad_row(bad):
    pts = np.zeros((100_000, 3))
    pts[70_001, 2] = bad  # in the second chunk
    pts[90_000, 0] = bad
    with pytest.raises(ValueError, match=r"argument 'positions' has a NaN or infinite coordinate in row 70001 "):
        alg.morton_keys(pts, [0, 0, 0], [1, 1, 1], 5)


def test_nonfinite_bounds_and_overflowing_scale():
    with pytest.raises(ValueError, match="argument 'lower' must be finite"):
        alg.morton_keys(np.zeros((1, 2)), [np.nan, 0], [1, 1], 3)
    with pytest.raises(ValueError, match=r"extent \[1e-320, 1\.0\] so small that the scale "
                                         r"2\*\*levels / \(upper - lower\) overflows float64 "
                                         r"on axis 0$"):
        alg.morton_scales([0, 0], [1e-320, 1], 21)
    # a new-user probe: the scale of an infinite extent is 0, which the message called
    # "not finite"; it is the extent that overflows
    with pytest.raises(ValueError, match=r"^morton_scales: argument 'upper' gives a box extent "
                                         r"\[inf, 1\.0\]: upper - lower overflows float64 on "
                                         r"axis 0; rescale the coordinates$"):
        alg.morton_scales([-1e308, 0], [1e308, 1], 3)
    with pytest.raises(ValueError, match=r"^morton_keys: .* overflows float64 on axis 1"):
        alg.morton_keys(np.zeros((1, 2)), [0, 1e308], [1, -1e308], 3)


@pytest.mark.parametrize("dtype", [np.bool_, np.complex128, object]
                         + ([np.longdouble] if np.dtype(np.longdouble).itemsize > 8 else []))
def test_positions_of_bad_dtype(dtype):
    with pytest.raises(TypeError, match="argument 'positions'.*expected a float16, float32, "
                                        "float64 or integer dtype"):
        alg.morton_keys(np.zeros((2, 2), dtype=dtype), [0, 0], [1, 1], 3)


def test_float16_positions_are_keyed_as_float64():
    pos = np.array([[0.5, 0.25], [0.125, 1.0]], dtype=np.float16)
    assert alg.morton_keys(pos, [0, 0], [1, 1], 3).tolist() == \
        alg.morton_keys(pos.astype(np.float64), [0, 0], [1, 1], 3).tolist()


def test_bounds_of_bad_type():
    with pytest.raises(TypeError, match="argument 'lower'"):
        alg.morton_keys(np.zeros((2, 2)), ["a", "b"], [1, 1], 3)
    with pytest.raises(ValueError, match="argument 'upper' must be a sequence"):
        alg.morton_keys(np.zeros((2, 2)), [0, 0], [[1, 1]], 3)


def test_encode_refuses_cells_wider_than_the_limit():
    with pytest.raises(ValueError, match=r"argument 'iy' has cell index 4294967296, wider than the 32-bit"):
        alg.morton_encode(0, 2**32)
    with pytest.raises(ValueError, match="argument 'iz' has cell index 2097152, wider than the 21-bit"):
        alg.morton_encode([0, 1], [0, 1], [5, 2**21])
    with pytest.raises(ValueError, match="wider than the 3-bit limit"):
        alg.morton_encode([7, 8], 0, levels=3)
    with pytest.raises(ValueError, match=r"argument 'ix' holds 2\*\*70|argument 'ix' holds "
                                         r"1180591620717411303424, outside every 64-bit"):
        alg.morton_encode(2**70, 0)
    with pytest.raises(ValueError, match="wider than"):
        alg.morton_encode(np.array([2**64 - 1], dtype=np.uint64), 0)


def test_encode_levels_docstring_states_the_bound_it_checks():
    """A docs probe: ``levels``' entry said "Refuse cells of ``levels`` bits or more",
    but a cell of exactly ``levels`` bits (3 at ``levels=2``) is taken; what is refused
    is a cell of ``2**levels`` or more, as docs/morton.md says."""
    entry = alg.morton_encode.__doc__.split("levels : int, optional")[1].split("Returns")[0]
    assert "bits or more" not in entry and "2**levels" in entry
    assert alg.morton_encode([3], [3], levels=2).tolist() == [15]
    with pytest.raises(ValueError, match=r"argument 'ix' has cell index 4, wider than the "
                                         r"2-bit limit"):
        alg.morton_encode([4], [3], levels=2)


def test_encode_refuses_negative_and_non_integer_cells():
    with pytest.raises(ValueError, match="argument 'ix' has a negative cell index"):
        alg.morton_encode([-1, 2], [0, 0])
    with pytest.raises(TypeError, match="argument 'iy'.*expected integers"):
        alg.morton_encode([1], [1.0])
    with pytest.raises(TypeError, match="argument 'ix'.*integer dtype"):
        alg.morton_encode(np.array([True]), [1])
    with pytest.raises(ValueError, match=r"argument 'iy' does not broadcast"):
        alg.morton_encode([1, 2], [1, 2, 3])
    # broadcast views whose uint64 keys no array can hold (NumPy's bare "array is too
    # big", or "does not broadcast" for shapes that do)
    wide = np.broadcast_to(np.uint32(0), (1, 2**31))
    with pytest.raises(ValueError, match=r"argument 'iy' gives a result of shape "
                                         r"\(2147483648, 2147483648\) with .*overflows int64"):
        alg.morton_encode(np.broadcast_to(np.uint32(0), (2**31, 1)), wide)
    with pytest.raises(ValueError, match=r"argument 'ix' gives a result of shape "
                                         r"\(2305843009213693952,\)"):
        alg.morton_encode(np.broadcast_to(np.uint8(0), (2**61,)), 0)
    # and decoded cells of such a view: ndim uint64 words a key
    with pytest.raises(ValueError, match=r"morton_decode: argument 'keys' gives a result of "
                                         r"shape \(576460752303423488, 2\)"):
        alg.morton_decode(np.broadcast_to(np.uint64(1), (2**59,)), 2)
    # the argument named is the one that does not fit the others (it was always 'iy')
    with pytest.raises(ValueError, match=r"argument 'iz' does not broadcast with the others "
                                         r"\(ix \(2,\), iy \(2,\), iz \(3,\)\)"):
        alg.morton_encode([1, 2], [1, 2], [1, 2, 3])
    with pytest.raises(ValueError, match="argument 'levels' must be in 1..21"):
        alg.morton_encode(1, 1, 1, levels=22)


def test_decode_bad_input():
    with pytest.raises(ValueError, match="argument 'ndim' must be 2 or 3; got 4"):
        alg.morton_decode(np.zeros(2, dtype=np.uint64), 4)
    with pytest.raises(TypeError, match="argument 'ndim'"):
        alg.morton_decode(np.zeros(2, dtype=np.uint64), 2.0)
    with pytest.raises(ValueError, match="argument 'keys' has a negative key"):
        alg.morton_decode(np.array([3, -1]), 2)
    with pytest.raises(ValueError, match="bit 63 set"):
        alg.morton_decode(np.array([2**63], dtype=np.uint64), 3)
    with pytest.raises(TypeError, match="argument 'keys'.*integer dtype"):
        alg.morton_decode(np.array([1.0]), 2)


def test_scales_bounds_must_be_sequences():
    with pytest.raises(TypeError, match="argument 'lower' got NoneType None"):
        alg.morton_scales(None, [1, 1], 3)
    with pytest.raises(TypeError, match="one per axis"):
        alg.morton_scales(0, 1, 3)


@pytest.mark.parametrize("positions", ["abc", [["a", "b"]], [[1j, 2]]])
def test_positions_not_an_array_named_as_given(positions):
    """A str or a list of non-numbers is named as the caller passed it (the message
    described a 0-d str array the caller never made)."""
    with pytest.raises(TypeError, match=rf"^morton_keys: argument 'positions' got "
                                        rf"{type(positions).__name__} .*float64 or "
                                        r"integer dtype \(as an array it has dtype"):
        alg.morton_keys(positions, [0, 0], [1, 1], 3)


def test_bools_in_a_list_of_positions_are_refused():
    """[[True, 0.5]] was read as [[1.0, 0.5]], where bool positions are refused (and
    bools in a list of bounds)."""
    with pytest.raises(TypeError, match=r"^morton_keys: argument 'positions' got list .*bool"):
        alg.morton_keys([[True, 0.5]], [0, 0], [1, 1], 3)


def test_max_morton_levels_is_read_only():
    """The level checks read ``MAX_MORTON_LEVELS``: user code cannot widen it."""
    with pytest.raises(TypeError):
        alg.MAX_MORTON_LEVELS[3] = 40
    assert dict(alg.MAX_MORTON_LEVELS) == {2: 32, 3: 21}
