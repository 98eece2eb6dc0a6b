"""Issue 15, items 2, 5, 6, 8 and 12 (Layout, views, out=, Philox): each test failed
before its fix."""

from __future__ import annotations

import numpy as np
import pytest

import xstride as xp
from xstride.layout import Layout


# ---------------------------------------------------------------- 2: Philox state
def _state(g):
    return (g.seed, g.stream, g.counter, g.backend)


@pytest.mark.parametrize("method", ["uniform", "normal"])
@pytest.mark.parametrize("shape", [(2**33, 2**32), 2**62, (2**62, 0), (1,) * 65])
def test_philox_too_large_shape_consumes_nothing(method, shape):
    g = xp.rng.Philox(3, backend="numpy")
    g.uniform(3)
    before = _state(g)
    with pytest.raises(ValueError, match=f"Philox.{method}: argument 'shape'"):
        getattr(g, method)(shape)
    assert _state(g) == before
    ref = xp.rng.Philox(3, backend="numpy")
    ref.uniform(3)
    np.testing.assert_array_equal(g.uniform(5), ref.uniform(5))


def test_philox_integers_that_run_out_mid_rejection_consume_nothing():
    g = xp.rng.Philox(0, backend="numpy").advance(2**64 - 12)
    with pytest.raises(OverflowError, match="Philox.integers: the stream is exhausted"):
        g.integers(0, 2**63 + 1, 10)   # about half the candidates are rejected
    assert g.counter == 2**64 - 12
    with pytest.raises(ValueError, match="Philox.integers: argument 'shape'"):
        g.integers(0, 5, (2**40, 2**40))
    assert g.counter == 2**64 - 12


def test_philox_failure_inside_the_fill_consumes_nothing(monkeypatch):
    """The counter moves only once the result exists (MemoryError, interrupts...)."""
    from xstride.rng import _generator

    g = xp.rng.Philox(1, backend="numpy")

    def boom(*a, **k):
        raise MemoryError("no room")

    monkeypatch.setattr(_generator, "_fill_pairs", boom)
    with pytest.raises(MemoryError):
        g.uniform(10)
    assert g.counter == 0


# ---------------------------------------------------------------- 5: out= with stride 0, length 1
def _stride0_row():
    return np.zeros(3)[None]          # shape (1, 3), strides (0, 8)


def test_length_one_axis_of_stride_zero_is_a_valid_output():
    out = _stride0_row()
    assert out.strides[0] == 0 and not Layout.from_array(out).has_internal_overlap
    assert xp.add(np.ones((1, 3)), 1, out=out) is out
    np.testing.assert_array_equal(out, [[2, 2, 2]])
    xp.negative(np.ones((1, 3)), out=out)
    np.testing.assert_array_equal(out, [[-1, -1, -1]])
    xp.where(np.array([[True, False, True]]), 4.0, 5.0, out=out)
    np.testing.assert_array_equal(out, [[4, 5, 4]])
    xp.copy_into(out, 7.0)
    np.testing.assert_array_equal(out, [[7, 7, 7]])
    with pytest.raises(ValueError, match="add: argument 'out' overlaps itself"):
        xp.add(np.ones((2, 3)), 1,
               out=np.lib.stride_tricks.as_strided(np.zeros(3), (2, 3), (0, 8)))


def test_internal_overlap_in_bytes():
    from xstride.layout import internal_overlap

    assert not internal_overlap((1, 3), (0, 8), 8)
    assert internal_overlap((2, 3), (0, 8), 8)
    assert internal_overlap((3,), (4,), 8)             # 8-byte items 4 bytes apart
    assert not internal_overlap((3,), (3,), 2)         # a record's int16 field
    assert not internal_overlap((3,), (0,), 0)         # items of no size
    assert internal_overlap((2, 3), (3, 2), 1) is False
    assert internal_overlap((2, 3), (3, 2), 2) is True   # offsets 2,3 hold 2-wide items


# ---------------------------------------------------------------- 6: records, zero itemsize
def test_structured_field_output_is_accepted_on_numpy():
    s = np.zeros(4, [("a", "<i2"), ("b", "i1")])
    s["b"] = 9
    assert xp.add(np.arange(4, dtype=np.int16), 1, out=s["a"]) is not None
    np.testing.assert_array_equal(s["a"], [1, 2, 3, 4])
    xp.copy_into(s["a"], np.int16(5) * np.ones(4, np.int16))
    xp.negative(np.ones(4, np.int16), out=s["a"])
    np.testing.assert_array_equal(s["a"], [-1] * 4)
    np.testing.assert_array_equal(s["b"], [9] * 4)


def test_zero_itemsize_dtypes_give_results_or_clear_errors():
    z = np.empty((4, 2), dtype=[])
    assert z.itemsize == 0
    got = xp.sliding_window_view(z, (2, 1))
    assert got.shape == np.lib.stride_tricks.sliding_window_view(z, (2, 1)).shape
    assert xp.copy_into(z, np.empty((4, 2), dtype=[])) is z
    with pytest.raises(ValueError, match="Layout.from_array: argument 'a' .* item size 0"):
        Layout.from_array(z)
    with pytest.raises(ValueError, match="as_strided: argument 'a' .* item size 0"):
        xp.as_strided(z, (2,), (1,))


def test_cuda_output_check_refuses_a_field_naming_function_and_argument():
    """The CuPy path's check (pure Python): the engine indexes whole elements."""
    from xstride.layout import check_output

    s = np.zeros(4, [("a", "<i2"), ("b", "i1")])
    with pytest.raises(ValueError, match="add: argument 'out' has byte strides"):
        check_output("add", "out", s["a"], whole_elements=True)
    check_output("add", "out", s["a"])            # NumPy: accepted
    check_output("add", "out", _stride0_row(), whole_elements=True)


# ---------------------------------------------------------------- 8: Layout takes NumPy ints
def test_layout_takes_integer_arrays_and_numpy_ints():
    assert Layout(np.array([2, 3])) == Layout((2, 3))
    assert Layout(np.array([2, 3], np.uint8), np.array([3, 1])) == Layout((2, 3))
    assert Layout(np.int64(4)) == Layout((4,))
    assert Layout((2, 3)).permute(np.array([1, 0])) == Layout((2, 3)).permute((1, 0))
    assert Layout((2, 3)).broadcast_to(np.array([4, 2, 3])).shape == (4, 2, 3)
    for bad in (np.array([True, False]), np.array([2.0, 3.0]), np.ones((1, 2), int)):
        with pytest.raises(TypeError, match="Layout: shape must be"):
            Layout(bad)
    with pytest.raises(TypeError, match="Layout.permute: axes must be"):
        Layout((2, 3)).permute(np.array([1.0, 0.0]))
    with pytest.raises(TypeError, match="got bool"):
        Layout((np.True_, 2))


def test_slice_with_a_huge_step_of_length_one():
    got = Layout((3, 3), itemsize=8).slice(slice(None, None, 2**62))
    assert got.shape == (1, 3)
    ref = np.zeros((3, 3))[::2**62]
    assert got.byte_strides == ref.strides
    assert Layout((3, 3)).slice((slice(None), slice(None, None, -2**62))).shape == (3, 1)
    assert Layout((5,)).slice(slice(None, None, 5)).strides == (5,)   # as NumPy


# ---------------------------------------------------------------- 12: xstride's own errors
def test_as_strided_view_too_big_for_any_array():
    with pytest.raises(ValueError, match=r"as_strided: argument 'shape' .*2\*\*63 - 1"):
        xp.as_strided(np.arange(10), (2**60,), (0,))
    with pytest.raises(ValueError, match="as_strided: argument 'shape'"):
        xp.as_strided(np.ones((1, 1)), (1, 2**62), (0, 0))
    v = xp.as_strided(np.arange(10), (1,), (2**62,))   # never stepped along
    assert v.shape == (1,) and v[0] == 0


def test_sliding_window_view_too_big_names_the_function():
    x = np.broadcast_to(np.ones(1), (2**40,))
    with pytest.raises(ValueError, match="sliding_window_view: "):
        xp.sliding_window_view(x, 2**39)


def test_layout_unpack_bad_max_ndim():
    with pytest.raises(ValueError, match="Layout.unpack: argument 'max_ndim' must lie in"):
        Layout.unpack(b"", -1)
    with pytest.raises(ValueError, match="Layout.unpack: argument 'max_ndim'"):
        Layout.unpack(b"", 65)
    with pytest.raises(TypeError, match="Layout.unpack: max_ndim must be an integer"):
        Layout.unpack(b"", "4")
