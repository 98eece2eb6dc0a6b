"""as_strided and sliding_window_view on NumPy arrays (CPU); copy_into and the out=
checks: tests/test_views_copy_into.py."""

from __future__ import annotations

import mmap

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import xstride as xp
from xstride.layout import Layout


def test_issue_examples():
    np.testing.assert_array_equal(xp.as_strided(np.arange(5), (5,), (-1,), offset=4),
                                  [4, 3, 2, 1, 0])
    with pytest.raises(ValueError, match="outside the underlying buffer"):
        xp.as_strided(np.arange(4), (3,), (2,))
    np.testing.assert_array_equal(xp.as_strided(np.arange(4), (4,), (-1,), offset=3),
                                  [3, 2, 1, 0])
    assert Layout.from_array(xp.broadcast_to(xp.arange(3), (2, 3))).strides == (0, 1)
    a = np.arange(5)
    xp.subtract(a[1:], a[:-1], out=a[1:])
    np.testing.assert_array_equal(a, [0, 1, 1, 1, 1])
    z = xp.as_strided(np.arange(3), (0, 4), (123, -77))
    assert z.shape == (0, 4) and xp.sum(z) == 0
    assert xp.broadcast_to(z, (2, 0, 4)).shape == (2, 0, 4)


@pytest.mark.parametrize("offset", [2**62, 2**63 - 1, -2**63, -2**61])
def test_empty_view_takes_any_int64_offset(offset):
    """A new-user probe: the docs accept an empty view "whatever its strides and offset",
    but an offset whose byte offset (times the item size) or whose empty span's end
    (``offset - 1``) left int64 was refused ("the lowest reachable byte offset ... does
    not fit")."""
    a = np.arange(10)
    for shape, strides in (((0,), (1,)), ((3, 0), (-2, 5))):
        v = xp.as_strided(a, shape, strides, offset=offset)
        assert v.shape == shape and v.size == 0
        assert v.__array_interface__["data"][0] == a.__array_interface__["data"][0]
    with pytest.raises(ValueError, match="offset"):       # beyond int64 stays refused
        xp.as_strided(a, (0,), (1,), offset=2**63)


@pytest.mark.parametrize("shape, strides, offset", [((2,), (2**62,), 0),
                                                    ((2,), (-2**62,), 9),
                                                    ((3, 2), (1, 2**61), 0)])
def test_a_view_reaching_past_int64_names_strides(shape, strides, offset):
    """A new-user probe: strides whose span (with the shape and offset) leaves int64
    said "as_strided: the end of the highest reachable element in bytes = ... does not
    fit in a signed 64-bit integer", naming no argument; ``strides`` now."""
    with pytest.raises(ValueError, match=rf"^as_strided: argument 'strides' .* with shape "
                                         rf"\({shape[0]},.* and offset {offset} reach too "
                                         r"far: the .* does not fit in a signed 64-bit "
                                         r"integer$"):
        xp.as_strided(np.arange(10), shape, strides, offset=offset)


@pytest.mark.parametrize("offset", [2**62, -2**62])
def test_an_offset_past_int64_in_bytes_names_offset(offset):
    """A new-user probe: an offset whose bytes leave int64 (2**62 elements of 8 bytes)
    was blamed on ``strides``, which a shape of (1,) never uses."""
    with pytest.raises(ValueError, match=rf"^as_strided: argument 'offset' {offset} elements "
                                         r"of 8 bytes are -?\d+ bytes, past int64"):
        xp.as_strided(np.arange(10), (1,), (1,), offset=offset)


def test_empty_view_past_numpys_extent_rule_names_the_argument():
    """A new-user probe: an empty view whose non-zero extents times the item size pass
    2**63 - 1 bytes (``as_strided(a, (0, 2**62, 4), ...)`` of int8) raised NumPy's
    unnamed "array is too big" (NumPy refuses such a shape for any array, an empty one
    too); so did ``sliding_window_view`` of an empty array with long windows. Both name
    the function and the argument now; up to the limit the empty view is made."""
    a = np.arange(3, dtype=np.int8)
    for shape in ((0, 2**62, 4), (2**61, 0, 4), (0, 2**62, 2**62)):
        with pytest.raises(ValueError, match=r"^as_strided: argument 'shape' .* has no "
                                             r"element, but its non-zero extents times the "
                                             r"item size \(1\)"):
            xp.as_strided(a, shape, (1, 1, 1))
    with pytest.raises(ValueError, match=r"item size \(8\)"):
        xp.as_strided(np.arange(3), (0, 2**60, 2), (1, 1, 1))
    assert xp.as_strided(a, (0, 2**61, 3), (1, 1, 1)).shape == (0, 2**61, 3)
    x = np.zeros((0, 2**40), np.int8)
    with pytest.raises(ValueError, match=r"^sliding_window_view: argument 'window_shape' "
                                         r"gives a view of shape \(0, 549755813889, "
                                         r"549755813888\) with no element"):
        xp.sliding_window_view(x, 2**39, axis=1)
    assert xp.sliding_window_view(x, 2**20, axis=1).shape == (0, 2**40 - 2**20 + 1, 2**20)


def test_zero_copy_and_writeable():
    a = np.arange(10.0)
    v = xp.as_strided(a, (3, 3), (3, 1), offset=1)
    v[0, 0] = -1.0
    assert a[1] == -1.0
    assert np.shares_memory(v, a)
    r = xp.as_strided(np.arange(4.0)[::1].copy().__array__(), (2,), (1,))
    assert r.flags.writeable
    ro = np.arange(4.0)
    ro.flags.writeable = False
    assert not xp.as_strided(ro, (2,), (2,)).flags.writeable


@pytest.mark.parametrize("shape, strides, offset", [
    ((5,), (1,), 1),          # past the end
    ((2,), (-1,), 0),         # before the start (negative stride)
    ((2,), (1,), -1),         # negative offset before the buffer
    ((2, 2), (3, -3), 3),
])
def test_out_of_buffer_rejected(shape, strides, offset):
    with pytest.raises(ValueError, match="outside the underlying buffer"):
        xp.as_strided(np.arange(5), shape, strides, offset=offset)


def test_whole_base_reachable_from_a_slice():
    base = np.arange(10)
    v = base[4:6]
    np.testing.assert_array_equal(xp.as_strided(v, (10,), (1,), offset=-4), base)
    with pytest.raises(ValueError, match="outside"):
        xp.as_strided(v, (11,), (1,), offset=-4)
    rev = base[::-1]
    np.testing.assert_array_equal(xp.as_strided(rev, (3,), (-2,), offset=0), [9, 7, 5])


def test_buffer_base_objects():
    buf = bytearray(range(16))
    a = np.frombuffer(buf, dtype=np.uint8)[4:8]
    np.testing.assert_array_equal(xp.as_strided(a, (16,), (1,), offset=-4), np.arange(16))
    with pytest.raises(ValueError, match="outside"):
        xp.as_strided(a, (17,), (1,), offset=-4)
    with mmap.mmap(-1, 32) as m:
        b = np.frombuffer(m, dtype=np.int32)
        assert xp.as_strided(b[2:], (8,), (1,), offset=-2).shape == (8,)
        del b


@pytest.mark.parametrize("args, exc, match", [
    (((2, 2), (1,)), ValueError, "rank"),
    (((-1,), (1,)), ValueError, "negative"),
    (((1 << 40, 1 << 40), (0, 0)), ValueError, "overflows"),
    (((2,), (1 << 62,)), ValueError, "64-bit|outside"),
    ((("a",), (1,)), TypeError, "integers"),
])
def test_bad_arguments(args, exc, match):
    with pytest.raises(exc, match=match):
        xp.as_strided(np.arange(4), *args)


def test_a_float_array_of_strides_is_named_as_given():
    """A new-user probe: ``strides=np.array([1.0])`` was reported as "got tuple
    (array([1.]),)", a tuple the caller never passed."""
    with pytest.raises(TypeError, match=r"^as_strided: argument 'strides' got "
                                        r"numpy\.ndarray\(shape=\(1,\), dtype=float64\); "
                                        r"expected a tuple of integers$"):
        xp.as_strided(np.arange(4), (3,), np.array([1.0]))
    with pytest.raises(TypeError, match=r"^sliding_window_view: argument 'window_shape' got "
                                        r"numpy\.ndarray\(shape=\(1, 1\), dtype=int64\); "):
        xp.sliding_window_view(np.arange(4), np.array([[2]]))


def test_not_an_array_names_only_the_array_types_taken():
    """A new-user probe: both said "numpy.ndarray or cupy.ndarray or dask.ndarray",
    though as_strided refuses dask arrays and dask's type is dask.array.Array."""
    with pytest.raises(TypeError, match=r"^as_strided: argument 'a' got list \[1, 2, 3\]; "
                                        r"expected an array \(numpy\.ndarray or "
                                        r"cupy\.ndarray\)$"):
        xp.as_strided([1, 2, 3], (3,), (1,))
    with pytest.raises(TypeError, match=r"^sliding_window_view: argument 'x' got tuple .*; "
                                        r"expected an array \(numpy\.ndarray, cupy\.ndarray "
                                        r"or dask\.array\.Array\)$"):
        xp.sliding_window_view((1, 2), 2)


@pytest.mark.parametrize("offset, exc, match", [
    (1.0, TypeError, r"^as_strided: argument 'offset' got float 1\.0; expected an int$"),
    (True, TypeError, r"^as_strided: argument 'offset' got bool True; expected an int$"),
    ("1", TypeError, r"^as_strided: argument 'offset' got str '1'; expected an int$"),
    (np.array([], dtype=np.int8), TypeError, r"^as_strided: argument 'offset' got "),
    (np.array([1, 2]), TypeError, r"^as_strided: argument 'offset' got .*; expected an int$"),
    (2**63, ValueError, r"^as_strided: argument 'offset' 9223372036854775808 does not fit "
                        r"in a signed 64-bit integer$"),
    (-2**63 - 1, ValueError, r"^as_strided: argument 'offset' -9223372036854775809 does "),
])
def test_as_strided_bad_offset_names_the_argument(offset, exc, match):
    """The offset's errors were worded "as_strided: offset must be an integer, ..."."""
    with pytest.raises(exc, match=match):
        xp.as_strided(np.arange(4), (2,), (1,), offset=offset)
    assert xp.as_strided(np.arange(4), (2,), (1,), offset=np.int8(2)).tolist() == [2, 3]


@settings(max_examples=120, deadline=None)
@given(st.data())
def test_as_strided_matches_numpy(data):
    n = data.draw(st.integers(1, 30))
    base = np.arange(n, dtype=np.int32)
    rank = data.draw(st.integers(0, 3))
    shape = tuple(data.draw(st.lists(st.integers(0, 4), min_size=rank, max_size=rank)))
    strides = tuple(data.draw(st.lists(st.integers(-5, 5), min_size=rank, max_size=rank)))
    offset = data.draw(st.integers(-3, n + 3))
    lay = Layout(shape, strides, offset, 4)
    lo, hi = lay.span()
    inside = lay.size == 0 or (lo >= 0 and hi < n)
    if not inside:
        with pytest.raises(ValueError, match="outside"):
            xp.as_strided(base, shape, strides, offset=offset)
        return
    v = xp.as_strided(base, shape, strides, offset=offset)
    assert v.shape == shape
    if lay.size:
        idx = np.indices(shape).reshape(rank, -1) if rank else np.zeros((0, 1), int)
        want = base[offset + (np.asarray(strides, dtype=np.int64).reshape(rank, 1) * idx).sum(axis=0)]
        np.testing.assert_array_equal(v.ravel(), want)


def test_sliding_window_view_matches_numpy():
    x = np.arange(24.0).reshape(4, 6)
    for ws, axis in [((2, 3), None), (3, 1), ((2,), (0,)), ((2, 2), (1, -1))]:
        got = xp.sliding_window_view(x, ws, axis)
        want = np.lib.stride_tricks.sliding_window_view(x, ws, axis)
        assert got.shape == want.shape and got.strides == want.strides
        np.testing.assert_array_equal(got, want)
        assert not got.flags.writeable and np.shares_memory(got, x)
    assert xp.sliding_window_view(x, 2, 0, writeable=True).flags.writeable


_AXES = st.integers(1, 3).flatmap(lambda nd: st.tuples(
    st.lists(st.integers(0, 4), min_size=nd, max_size=nd).map(tuple),
    st.lists(st.tuples(st.integers(-nd, nd - 1), st.integers(0, 4)), min_size=0, max_size=4),
    st.booleans()))


@settings(max_examples=300, deadline=None)
@given(case=_AXES)
def test_sliding_window_view_matches_numpy_with_repeated_axes(case):
    """NumPy applies the windows one after another, so a repeated axis is checked against
    what the earlier windows left: ``(2, 2)`` over axis ``(0, 0)`` of 2 elements is too
    large (xstride gave an empty result), ``(0, 2)`` over 1 element is fine (xstride
    raised). Shapes, windows and axes drawn at random, repeats included, on a reversed
    view too; the same result or both refuse."""
    shape, pairs, flip = case
    x = np.arange(int(np.prod(shape))).reshape(shape)
    if flip:
        x = x[..., ::-1]
    axes = tuple(ax for ax, _ in pairs)
    window = tuple(w for _, w in pairs)
    try:
        want = np.lib.stride_tricks.sliding_window_view(x, window, axes)
    except ValueError as exc:
        assert "larger than input" in str(exc)
        with pytest.raises(ValueError, match=r"^sliding_window_view: argument 'window_shape' "
                                             r".* is larger than the input along axis"):
            xp.sliding_window_view(x, window, axes)
        return
    got = xp.sliding_window_view(x, window, axes)
    assert got.shape == want.shape and got.strides == want.strides
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("n, window, axis, shape", [
    (2, (2, 2), (0, 0), None),          # 2 - 1 = 1 left for the second window of 2
    (1, (0, 2), (0, 0), (1, 0, 2)),     # a window of 0 lengthens the axis to 2
    (3, (2, 2), (0, -1), (1, 2, 2)),
    (3, (2, 2, 2), (0, 0, 0), None),
])
def test_sliding_window_view_repeated_axis_examples(n, window, axis, shape):
    x = np.arange(n)
    if shape is None:
        with pytest.raises(ValueError, match="as the earlier windows on that axis leave it"):
            xp.sliding_window_view(x, window, axis)
        with pytest.raises(ValueError, match="larger than input"):
            np.lib.stride_tricks.sliding_window_view(x, window, axis)
    else:
        got = xp.sliding_window_view(x, window, axis)
        assert got.shape == shape
        np.testing.assert_array_equal(got, np.lib.stride_tricks.sliding_window_view(
            x, window, axis))


@pytest.mark.parametrize("ws, axis, match", [
    (7, 1, "larger"), ((2,), None, "one entry per axis"), ((2, 2), (0,), "as many"),
    (2, 5, "out of range"), (-1, 0, "negative"),
])
def test_sliding_window_errors(ws, axis, match):
    with pytest.raises(ValueError, match=match):
        xp.sliding_window_view(np.zeros((4, 6)), ws, axis)


def test_as_strided_takes_integer_array_shapes():
    v = xp.as_strided(np.arange(6), np.array([2, 3]), np.array([3, 1]))
    np.testing.assert_array_equal(v, np.arange(6).reshape(2, 3))


def test_sliding_window_view_of_a_structured_field():
    """A field of a structured array has byte strides that are not whole elements: no
    element layout describes it, so NumPy's own function makes the view (same shape,
    strides and values; read-only unless asked). Found by a new-user review."""
    rec = np.zeros(5, dtype=[("a", "i4"), ("b", "f8")])
    rec["b"] = np.arange(5.0)
    got = xp.sliding_window_view(rec["b"], 3)
    want = np.lib.stride_tricks.sliding_window_view(rec["b"], 3)
    assert got.shape == want.shape == (3, 3) and got.strides == want.strides
    np.testing.assert_array_equal(got, want)
    assert not got.flags.writeable
    assert np.shares_memory(got, rec)
    w = xp.sliding_window_view(rec["b"], 2, writeable=True)
    w[0, 0] = 7.0
    assert rec["b"][0] == 7.0


def test_bool_sizes_and_axes_are_refused():
    x = np.arange(6.0)
    with pytest.raises(TypeError, match="as_strided: argument 'shape'.*not bools"):
        xp.as_strided(x, (True,), (1,))
    with pytest.raises(TypeError, match="as_strided: argument 'strides'.*not bools"):
        xp.as_strided(x, (2,), (True,))
    with pytest.raises(TypeError, match="sliding_window_view: argument 'axis'"):
        xp.sliding_window_view(x, 2, axis=True)
    with pytest.raises(TypeError, match="sliding_window_view: argument 'window_shape'"):
        xp.sliding_window_view(x, (True,))


def test_a_view_of_a_view_reaches_what_its_source_reached():
    """as_strided of one of xstride's own views is bounded by the buffer of the array
    it came from, as for NumPy's views (x[:2] reaches all of x); found by a new-user
    review: the holder behind xstride's views used to stop the walk."""
    x = np.arange(10.0)
    y = xp.as_strided(x, (2,), (1,))
    z = xp.as_strided(y, (10,), (1,))
    np.testing.assert_array_equal(z, x)
    assert np.shares_memory(z, x)
    w = xp.sliding_window_view(y, 2)
    np.testing.assert_array_equal(xp.as_strided(w, (5, 2), (2, 1)), x.reshape(5, 2))
    with pytest.raises(ValueError, match="outside the underlying buffer"):
        xp.as_strided(y, (11,), (1,))
    with pytest.raises(ValueError, match="outside the underlying buffer"):
        xp.as_strided(xp.as_strided(x[2:], (3,), (1,)), (3,), (1,), offset=-3)


def test_a_view_of_a_view_holds_the_owner_not_the_views_between():
    """A new-user probe: each view held the array it was made from, so ``v =
    as_strided(v, ...)`` in a loop kept every earlier view alive in one chain, and each
    call's bounds check walked the whole chain (1000 steps 0.14 s, 5000 steps 3 s). A
    view holds the array owning the memory; read-only stays read-only through views."""
    import gc
    import weakref

    x = np.arange(10.0)
    for make in (lambda v: xp.as_strided(v, (10,), (1,)),
                 lambda v: xp.sliding_window_view(v, 1, writeable=True)[:, 0]):
        v = make(x)
        first = weakref.ref(v)
        for _ in range(50):
            v = make(v)
        gc.collect()
        assert first() is None                     # no chain of views kept alive
        v[3] = -1.0
        assert x[3] == -1.0 and np.shares_memory(v, x)
        x[3] = 3.0
    ro = np.frombuffer(bytes(range(16)), np.uint8)[4:]
    v = xp.as_strided(xp.as_strided(ro, (4,), (1,)), (16,), (1,), offset=-4)
    assert not v.flags.writeable and v.tolist() == list(range(16))
    ro = np.arange(6.0)[1:]
    ro.flags.writeable = False
    v = xp.as_strided(xp.as_strided(ro, (2,), (2,)), (6,), (1,), offset=-1)
    assert not v.flags.writeable
    with pytest.raises(ValueError):
        v.flags.writeable = True


def test_numpy_stride_tricks_views_reach_their_source_allocation():
    """A new-user probe: a view made by NumPy's own ``as_strided`` (or
    ``sliding_window_view``) hides its source behind a holder; the buffer search
    stopped there, so a legal view of the whole source was refused and a NumPy view
    already past its source's end let xstride views read outside the allocation."""
    x = np.arange(10.0)
    y = np.lib.stride_tricks.as_strided(x, (2,), (8,))
    np.testing.assert_array_equal(xp.as_strided(y, (10,), (1,)), x)
    w = np.lib.stride_tricks.sliding_window_view(x, 3)
    np.testing.assert_array_equal(xp.as_strided(w, (10,), (1,)), x)
    past = np.lib.stride_tricks.as_strided(x, (20,), (8,))     # NumPy's, past x's end
    with pytest.raises(ValueError, match=r"^as_strided: .*outside the underlying buffer, "
                                         r"which holds elements 0\.\.9"):
        xp.as_strided(past[:1], (20,), (1,))
    with pytest.raises(ValueError, match="outside the underlying buffer"):
        xp.as_strided(past, (20,), (1,))
    np.testing.assert_array_equal(xp.as_strided(past[:1], (10,), (1,)), x)


def test_the_refusal_names_the_whole_elements_of_a_buffer_at_a_byte_offset():
    """A new-user probe: a uint16 view one byte into a bytes buffer; the element before
    a[0] would start one byte before the buffer, and the message said the buffer held
    elements -1..3."""
    a = np.frombuffer(bytes(range(10)), np.uint16, count=4, offset=1)
    with pytest.raises(ValueError, match=r"reaches elements -1\.\.-1 relative to a\[0\], "
                                         r"outside the underlying buffer, which holds "
                                         r"elements 0\.\.3 relative"):
        xp.as_strided(a, (1,), (1,), offset=-1)
    np.testing.assert_array_equal(xp.as_strided(a, (4,), (1,)), a)


@pytest.mark.parametrize("bad", [{3, 2}, {3: 0, 2: 0}, b"\x03", bytearray(b"\x03"), "3",
                                 (v for v in (3,))])
def test_shapes_that_are_not_sequences_of_ints_are_refused(bad):
    """A new-user probe: ``as_strided(a, {3, 2}, ...)`` took the set (in its own
    order: shape (2, 3)), ``b"\\x03"`` as shape (3,), and ``sliding_window_view``'s
    ``axis={1, 0}`` reordered the windows; shapes are tuples, lists or ranges of ints
    or 1-D integer arrays, as docs/layout-and-views.md says and Layout checks."""
    a = np.arange(12.0)
    with pytest.raises(TypeError, match=r"^as_strided: argument 'shape' got .*; expected a "
                                        "tuple of integers"):
        xp.as_strided(a, bad, (1,))
    with pytest.raises(TypeError, match=r"^as_strided: argument 'strides' got"):
        xp.as_strided(a, (3,), bad)
    with pytest.raises(TypeError, match=r"^sliding_window_view: argument 'axis' got"):
        xp.sliding_window_view(np.zeros((5, 6)), (1, 4), axis=bad)
    assert xp.as_strided(a, range(3, 4), [2]).tolist() == [0.0, 2.0, 4.0]
    assert xp.as_strided(a, np.array([3]), (np.int64(2),)).tolist() == [0.0, 2.0, 4.0]


@pytest.mark.parametrize("axis", [2, -3, (0, 5)])
def test_sliding_window_view_axis_out_of_range_is_numpys_axis_error(axis):
    """A new-user probe: NumPy raises ``AxisError`` (a ValueError and an IndexError);
    ``except AxisError`` missed xstride's plain ValueError."""
    window = (2, 2) if isinstance(axis, tuple) else 2
    with pytest.raises(np.exceptions.AxisError, match=r"^sliding_window_view: argument "
                                                      r"'axis' -?\d+ is out of range for 2 axes"):
        xp.sliding_window_view(np.ones((4, 6)), window, axis=axis)
    with pytest.raises(np.exceptions.AxisError):
        np.lib.stride_tricks.sliding_window_view(np.ones((4, 6)), window, axis=axis)


def test_byte_strides_get_a_hint_in_elements():
    """A probe: NumPy's ``a.strides`` (bytes) passed as strides only said "outside the
    underlying buffer"; where the strides in elements would fit, the message says so."""
    x = np.arange(10.0).reshape(5, 2)
    with pytest.raises(ValueError, match=r"strides count elements, not bytes \(NumPy's "
                                         r"a.strides are bytes\): strides=\(2, 1\) would fit"):
        xp.as_strided(x, x.shape, x.strides)
    np.testing.assert_array_equal(xp.as_strided(x, x.shape, (2, 1)), x)
    for args in ((np.arange(10.0), (11,), (1,)), (np.arange(10, dtype=np.int8), (20,), (1,))):
        with pytest.raises(ValueError) as info:   # no hint where elements would not fit
            xp.as_strided(*args)
        assert "not bytes" not in str(info.value)


def test_as_strided_of_an_object_field_is_refused():
    """A new-user probe: ``as_strided(s['o'], (3,), (1,))`` of a structured array with an
    int field beside the object field stepped by 8 bytes, reading the int field's bytes
    as object references: the bounds-checked view crashed the interpreter when shown."""
    s = np.zeros(3, dtype=[("a", "i8"), ("o", "O")])
    s["a"] = 12345
    s["o"] = ["x", "y", "z"]
    for shape, strides, offset in [((3,), (1,), 0), ((2,), (2,), 0), ((1,), (1,), -1)]:
        with pytest.raises(ValueError, match=r"as_strided: argument 'a' has dtype object "
                                             r"holding Python objects .* structured array"):
            xp.as_strided(s["o"], shape, strides, offset=offset)
    assert xp.as_strided(s["o"], (0,), (1,)).shape == (0,)    # an empty view reads nothing
    # whole records, and views of object arrays, read whole elements: taken
    assert xp.as_strided(s, (2,), (2,))["o"].tolist() == ["x", "z"]
    o = np.array(["p", "q", "r", "s", "t", "u"], dtype=object)
    assert xp.as_strided(o[1:], (3,), (-1,), offset=2).tolist() == ["s", "r", "q"]
    t = o.reshape(2, 3).T[::-1]
    assert xp.as_strided(t, (6,), (1,), offset=-2).tolist() == list("pqrstu")
    assert xp.as_strided(xp.as_strided(o, (2,), (3,)), (6,), (1,)).tolist() == list("pqrstu")
    with pytest.raises(ValueError, match="outside the underlying buffer"):
        xp.as_strided(o, (7,), (1,))


def test_views_keep_the_dtype_metadata():
    """A new-user probe: the views came through ``__array_interface__``, which drops a
    dtype's metadata (h5py marks its string and reference types so), so ``as_strided``
    and ``sliding_window_view`` of such an array had a plain dtype, where NumPy's
    functions of those names, slicing and ``broadcast_to`` keep it."""
    for dt in (np.dtype("f8", metadata={"k": 1}),
               np.dtype([("a", "i4"), ("b", "f8")], metadata={"k": 2})):
        a = np.zeros(6, dtype=dt)
        for v in (xp.as_strided(a, (3,), (2,)), xp.as_strided(a, (2,), (-1,), offset=1),
                  xp.sliding_window_view(a, 2), xp.sliding_window_view(a, 2, writeable=True)):
            assert v.dtype == dt and v.dtype.metadata == dt.metadata
            assert np.shares_memory(v, a)


def test_as_strided_of_a_field_beside_an_object_field_is_refused():
    """A new-user probe: ``as_strided(s['i'], (6,), (1,), offset=-1)`` of records with an
    object field beside the int field gave a writeable int64 view of the object
    references; writing it and then showing ``s`` crashed the interpreter."""
    s = np.zeros(3, dtype=[("o", "O"), ("i", "i8")])
    s["o"] = ["x", "y", "z"]
    s["i"] = [1, 2, 3]
    for a, shape, strides, offset in [(s["i"], (6,), (1,), -1), (s["i"], (3,), (1,), 0),
                                      (s["i"], (1,), (1,), 1), (s["i"][::-1], (2,), (1,), 0),
                                      (xp.as_strided(s["i"], (3,), (2,)), (1,), (1,), 1)]:
        with pytest.raises(ValueError, match=r"as_strided: argument 'a' has dtype .* over a "
                                             r"buffer holding Python objects \(dtype .*\) .* "
                                             r"structured array.*whole records"):
            xp.as_strided(a, shape, strides, offset=offset)
    assert s["o"].tolist() == ["x", "y", "z"] and s["i"].tolist() == [1, 2, 3]
    assert xp.as_strided(s["i"], (0,), (1,)).shape == (0,)    # an empty view reaches nothing
    assert s["o"].tolist() == ["x", "y", "z"] and s["i"].tolist() == [1, 2, 3]
    # the documented way: whole records, then the field
    v = xp.as_strided(s, (2,), (2,))["i"]
    assert v.tolist() == [1, 3] and v.flags.writeable
    # an int field of records without objects is viewed as before
    t = np.zeros(3, dtype=[("f", "f8"), ("i", "i8")])
    t["i"] = [4, 5, 6]
    assert xp.as_strided(t["i"], (3,), (2,)).tolist() == [4, 5, 6]


def test_views_of_a_string_dtype_array_name_the_argument():
    """A new-user probe: ``as_strided`` and ``sliding_window_view`` of a NumPy 2
    ``StringDType`` array raised NumPy's "data type 'StringDType()' not understood",
    naming neither the function nor the argument (the array interface has no typestr
    for that dtype; NumPy's own functions fail so too)."""
    s = np.array(["alpha", "b" * 40, "c", "dd"], dtype=np.dtypes.StringDType())
    for call, arg in [(lambda: xp.as_strided(s, (2,), (2,)), "a"),
                      (lambda: xp.as_strided(s, (0,), (1,)), "a"),
                      (lambda: xp.sliding_window_view(s, 2), "x"),
                      (lambda: xp.sliding_window_view(s, 2, writeable=True), "x")]:
        with pytest.raises(TypeError, match=rf"^\w+: argument '{arg}' has dtype StringDType\(\), "
                                            r"which NumPy's array interface cannot describe.*"
                                            r"numpy\.array\(\w\.tolist\(\)\)"):
            call()
    assert s.tolist() == ["alpha", "b" * 40, "c", "dd"]
    # the fixed-width conversion the message names is viewed
    u = np.array(s.tolist())
    assert xp.as_strided(u, (2,), (2,)).tolist() == ["alpha", "c"]
    assert xp.sliding_window_view(u, 3).shape == (2, 3)


def test_as_strided_of_a_field_beside_an_object_field_in_whole_records():
    """A view of the int field ``s['i']`` of records with an object field that steps by
    whole records (2 int64s of a 16-byte record) reaches only that field's bytes, as
    ``s['i']`` itself does: viewed as NumPy's ``as_strided`` views it (it was refused
    with every other view of that field, even one element of ``s['i'][::-1]``)."""
    s = np.zeros(3, dtype=[("o", "O"), ("i", "i8")])
    s["o"] = ["x", "y", "z"]
    s["i"] = [1, 2, 3]
    assert xp.as_strided(s["i"], (3,), (2,)).tolist() == [1, 2, 3]
    assert xp.as_strided(s["i"][::-1], (1,), (1,)).tolist() == [3]
    assert xp.as_strided(s["i"], (2, 2), (2, 2)).tolist() == [[1, 2], [2, 3]]   # windows
    v = xp.as_strided(s["i"], (3,), (2,))
    assert v.flags.writeable
    v[2] = 30
    assert xp.as_strided(s["i"][1:], (1, 2), (0, 2)).tolist() == [[2, 30]]
    assert s["o"].tolist() == ["x", "y", "z"] and s["i"].tolist() == [1, 2, 30]
    t = np.zeros(2, dtype=[("o", "O"), ("i", "i4")])   # 12-byte records: 3 int32s each
    t["i"] = [7, 8]
    assert xp.as_strided(t["i"], (2,), (3,)).tolist() == [7, 8]
    with pytest.raises(ValueError, match=r"as_strided: argument 'a' has dtype int32 over"):
        xp.as_strided(t["i"], (2,), (1,))


def test_a_masked_array_is_viewed_as_its_data():
    """docs/layout-and-views.md: the view of a numpy.ma array is a plain ndarray of its
    data (NumPy's subok=False); the mask viewed the same way keeps it."""
    m = np.ma.array([1, 2, 3, 4], mask=[0, 1, 0, 1])
    v = xp.as_strided(m, (2,), (2,))
    assert type(v) is np.ndarray
    np.testing.assert_array_equal(v, [1, 3])
    np.testing.assert_array_equal(xp.as_strided(np.ma.getmaskarray(m), (2,), (2,)),
                                  [False, False])
    w = xp.sliding_window_view(m, 2)
    assert type(w) is np.ndarray
    np.testing.assert_array_equal(w, [[1, 2], [2, 3], [3, 4]])
