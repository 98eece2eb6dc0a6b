"""Layout: element strides, transforms and 64-bit checks, against NumPy's views."""

from __future__ import annotations

import struct

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from xstride.layout import INT64_MAX, MAX_NDIM, Layout, compact_strides


def _offsets(lay: Layout) -> np.ndarray:
    """Every element offset of ``lay`` in C order (brute force)."""
    idx = np.indices(lay.shape).reshape(lay.ndim, -1) if lay.ndim else np.zeros((0, 1), int)
    return lay.offset + (np.asarray(lay.strides, dtype=np.int64)[:, None] * idx).sum(axis=0)


def _view_offsets(base: np.ndarray, view: np.ndarray) -> np.ndarray:
    """Element offsets (relative to base[0]) of every element of a NumPy view."""
    lay = Layout.from_array(view)
    start = (view.__array_interface__["data"][0] - base.__array_interface__["data"][0])
    return _offsets(lay) + start // base.itemsize


@st.composite
def shapes(draw, max_rank=6, max_side=5):
    return tuple(draw(st.lists(st.integers(0, max_side), max_size=max_rank)))


def test_basic_fields_and_compact_strides():
    lay = Layout((2, 3, 4), itemsize=8)
    assert lay.strides == (12, 4, 1) and lay.offset == 0 and lay.size == 24
    assert lay.byte_strides == (96, 32, 8)
    assert compact_strides((2, 0, 3)) == (3, 3, 1)
    assert Layout(()).size == 1 and Layout(()).span() == (0, 0)
    assert lay.is_c_contiguous and lay.is_dense
    assert not lay.permute((2, 0, 1)).is_c_contiguous and lay.permute((2, 0, 1)).is_dense


def test_immutable_and_hashable():
    lay = Layout((2, 3))
    with pytest.raises(AttributeError, match="immutable"):
        lay.shape = (3, 2)
    assert hash(lay) == hash(Layout((2, 3), (3, 1)))
    assert lay == Layout((2, 3), (3, 1)) and lay != Layout((2, 3), (1, 2))


@pytest.mark.parametrize("name", ["_shape", "_strides", "_offset", "_itemsize", "_hash",
                                  "shape"])
def test_attributes_cannot_be_deleted(name):
    """A new-user probe: ``del lay._shape`` (or any slot) succeeded where assignment is
    refused, leaving a Layout whose ``shape`` (or ``hash``) raised AttributeError."""
    lay = Layout((2, 3), (3, 1), 1, 4)
    with pytest.raises(AttributeError, match="Layout is immutable"):
        delattr(lay, name)
    assert lay == Layout((2, 3), (3, 1), 1, 4) and lay.shape == (2, 3) and lay.itemsize == 4
    assert hash(lay) == hash(Layout((2, 3), (3, 1), 1, 4))


def test_pickle_and_copy_keep_the_layout():
    """A new-user probe: pickle.dumps, copy.copy and copy.deepcopy of a Layout raised
    AttributeError 'Layout is immutable' (the default protocol sets the slots)."""
    import copy
    import pickle

    lay = Layout((3, 4), (-4, -1), 11, 8)
    for got in (pickle.loads(pickle.dumps(lay)), copy.copy(lay), copy.deepcopy(lay)):
        assert got == lay and hash(got) == hash(lay) and got.span() == (0, 11)


@pytest.mark.parametrize("args, match", [
    (((2, 3), (1,)), "rank"),
    (((2, -1),), "negative"),
    (((1 << 40, 1 << 40),), "overflows int64"),
    (((3,), (1 << 62,), 0, 4), "64-bit"),
    (((2,), (1,), INT64_MAX), "64-bit"),
    (((1,) * (MAX_NDIM + 1),), "rank 65"),
    (((2,), (1,), 0, 0), "itemsize"),
])
def test_constructor_rejects(args, match):
    with pytest.raises(ValueError, match=match):
        Layout(*args)


def test_constructor_type_errors():
    with pytest.raises(TypeError, match="integer"):
        Layout((2.5,))
    with pytest.raises(TypeError, match="integer"):
        Layout((2,), ("a",))


def test_rank_64_supported():
    lay = Layout((1,) * 62 + (2, 3))
    assert lay.ndim == 64 and lay.coalesce().shape == (6,)
    assert len(lay.pack()) == 16 + 16 * 64


def test_span_negative_and_empty():
    lay = Layout((5,), (-1,), 4)
    assert lay.span() == (0, 4)
    empty = Layout((3, 0), (7, -2), 5)
    lo, hi = empty.span()
    assert hi == lo - 1
    assert empty.byte_span()[0] == empty.byte_span()[1]


def test_slice_matches_numpy_examples():
    a = np.arange(60).reshape(3, 4, 5)
    lay = Layout.from_array(a)
    for ix in [(slice(None, None, -1),), (slice(1, None, 2), slice(None, None, -2)),
               (1, slice(3, 0, -1)), (slice(5, 1),), (-1, -2, slice(None, None, -3))]:
        got = lay.slice(ix)
        assert got.shape == a[ix].shape
        np.testing.assert_array_equal(a.ravel()[_offsets(got)], a[ix].ravel())
    with pytest.raises(ValueError, match="zero"):
        lay.slice((slice(None, None, 0),))
    with pytest.raises(IndexError, match="out of range"):
        lay.slice((3,))
    with pytest.raises(IndexError, match="indices"):
        lay.slice((0, 0, 0, 0))


def test_permute_broadcast_errors():
    lay = Layout((2, 3))
    with pytest.raises(ValueError, match="permutation"):
        lay.permute((0, 0))
    with pytest.raises(ValueError, match=r"\(2, 3\).*\(4, 3\)"):
        lay.broadcast_to((4, 3))
    with pytest.raises(ValueError, match="fewer"):
        lay.broadcast_to((3,))
    assert Layout((3,)).broadcast_to((2, 3)).strides == (0, 1)
    assert Layout((3, 0)).broadcast_to((2, 3, 0)).size == 0


def test_from_array_and_byte_strides():
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4)[:, ::-1, ::2]
    lay = Layout.from_array(a)
    assert lay.strides == (12, -4, 2) and lay.itemsize == 4
    rec = np.zeros(4, dtype=[("a", np.int32), ("b", np.int8)])
    with pytest.raises(ValueError, match="multiples of the item size"):
        Layout.from_array(rec["a"])
    assert Layout.from_array(rec["a"][:1]).shape == (1,)  # size-1: stride unused


def test_broadcast_to_numpy_strides_in_elements():
    import xstride as xp

    b = xp.broadcast_to(xp.arange(3), (2, 3))
    assert Layout.from_array(b).strides == (0, 1)


def test_pack_roundtrip_and_format():
    lay = Layout((2, 3), (-3, 1), 3, 4)
    data = lay.pack(max_ndim=4)
    assert len(data) == 16 + 16 * 4
    off, nd, isz = struct.unpack_from("<qii", data)
    assert (off, nd, isz) == (3, 2, 4)
    assert struct.unpack_from("<4q", data, 16) == (2, 3, 1, 1)
    assert struct.unpack_from("<4q", data, 48) == (-3, 1, 0, 0)
    assert Layout.unpack(data, 4) == lay
    with pytest.raises(ValueError, match="max_ndim"):
        lay.pack(max_ndim=1)


def test_internal_overlap():
    assert Layout((3,), (0,)).has_internal_overlap
    assert not Layout((2, 3), (3, 2)).has_internal_overlap      # interleaved, one-to-one
    assert Layout((3, 2), (1, 1)).has_internal_overlap
    assert not Layout((4, 4), (-4, 1)).has_internal_overlap
    assert not Layout((0, 5), (0, 0)).has_internal_overlap
    # a new-user probe: strides of another rank than shape were zipped away ((3, 3)
    # with strides (1,) answered "no overlap", so an output check passed)
    from xstride.layout import internal_overlap
    with pytest.raises(ValueError, match=r"^internal_overlap: argument 'strides' \(1,\) has "
                                         r"rank 1 but shape \(3, 3\) has rank 2$"):
        internal_overlap((3, 3), (1,))
    assert internal_overlap((3, 3), (1, 1)) and not internal_overlap((3, 3), (24, 8), 8)


@pytest.mark.parametrize("args, exc, match", [
    (((-2, 3), (1, 1)), ValueError, r"^internal_overlap: argument 'shape' \(-2, 3\) has a negative extent$"),
    (((2.0, 3), (1, 1)), TypeError, r"^internal_overlap: shape entry must be an integer, got float 2.0$"),
    (((2, 3), (1, True)), TypeError, r"^internal_overlap: stride must be an integer, got bool True$"),
    (((2, 3), (3, 1), -1), ValueError, r"^internal_overlap: argument 'width' must be at least 0, got -1$"),
    (((2, 3), (3, 1), 1.5), TypeError, r"^internal_overlap: width must be an integer, got float 1.5$"),
    ((3, (1,)), TypeError, r"^internal_overlap: shape must be a sequence of ints, got int$"),
])
def test_internal_overlap_refuses_what_is_no_layout(args, exc, match):
    """A new-user probe: negative and float extents answered False (no overlap)."""
    from xstride.layout import internal_overlap
    with pytest.raises(exc, match=match):
        internal_overlap(*args)


@pytest.mark.parametrize("value, exc, match", [
    (0, ValueError, r"^PACK_FORMAT: argument 'max_ndim' must be in \[1, 64\], got 0$"),
    (65, ValueError, r"^PACK_FORMAT: argument 'max_ndim' must be in \[1, 64\], got 65$"),
    (-1, ValueError, r"argument 'max_ndim' must be in"),
    (True, TypeError, r"^PACK_FORMAT: max_ndim must be an integer, got bool True$"),
    ("x", TypeError, r"^PACK_FORMAT: max_ndim must be an integer, got str 'x'$"),
])
def test_pack_format_refuses_a_capacity_pack_refuses(value, exc, match):
    """A new-user probe: ``PACK_FORMAT(-1)`` returned ``'<qii-1q-1q'``, no ``struct``
    format; ``PACK_FORMAT(100)`` one that ``Layout.pack`` refuses."""
    from xstride.layout import PACK_FORMAT
    with pytest.raises(exc, match=match):
        PACK_FORMAT(value)
    assert PACK_FORMAT(1) == "<qii1q1q" and struct.calcsize(PACK_FORMAT()) == 16 + 2 * 8 * 64


def test_check_output_of_no_array_names_the_argument():
    """A new-user probe: a list raised ``AttributeError: 'list' object has no attribute
    'shape'``."""
    from xstride.layout import check_output
    with pytest.raises(TypeError, match=r"^f: argument 'out' got list \[1, 2\]; expected an "
                                        r"array \(with shape, strides and itemsize\)$"):
        check_output("f", "out", [1, 2])


@st.composite
def views(draw):
    shape = draw(shapes(max_rank=4, max_side=4))
    base = np.arange(int(np.prod(shape)), dtype=np.int16).reshape(shape)
    lay = Layout.from_array(base)
    view = base
    ix = []
    for n in shape:
        start = draw(st.one_of(st.none(), st.integers(-n - 1, n + 1)))
        stop = draw(st.one_of(st.none(), st.integers(-n - 1, n + 1)))
        step = draw(st.sampled_from([None, 1, 2, -1, -2, 3]))
        ix.append(slice(start, stop, step))
    ix = tuple(ix)
    view, lay = (view[ix], lay.slice(ix)) if ix else (view, lay)
    perm = draw(st.permutations(range(len(shape))))
    return base, view.transpose(perm), lay.permute(perm)


@settings(max_examples=150, deadline=None)
@given(views())
def test_slice_permute_match_numpy(data):
    base, view, lay = data
    assert lay.shape == view.shape
    if view.size:
        np.testing.assert_array_equal(base.ravel()[_offsets(lay)], view.ravel())
        assert (lay.offset, lay.strides) == (_view_offsets(base, view)[0],
                                             Layout.from_array(view).strides)
    co = lay.coalesce()
    assert co.size == lay.size and co.ndim <= max(lay.ndim, 1)
    if view.size:
        np.testing.assert_array_equal(_offsets(co), _offsets(lay))
        lo, hi = lay.span()
        offs = _offsets(lay)
        assert (lo, hi) == (offs.min(), offs.max())
        dense = len(set(offs.tolist())) == lay.size and hi - lo + 1 == lay.size
        assert lay.is_dense == dense
        assert lay.has_internal_overlap == (len(set(offs.tolist())) != lay.size)
    assert lay.is_c_contiguous == (view.flags.c_contiguous or view.size == 0)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 64).flatmap(lambda r: st.lists(st.integers(1, 2), min_size=r, max_size=r)))
def test_high_rank_coalesce(shape):
    lay = Layout(tuple(shape))
    co = lay.coalesce()
    assert co.size == lay.size and co.ndim <= 1
    assert lay.broadcast_to((3,) + tuple(shape)).strides[0] == 0 if len(shape) < 64 else True


def test_layout_bad_arguments_raise_clear_errors():
    from xstride.layout import Layout, compact_strides

    with pytest.raises(TypeError, match="Layout: shape must be an int or a sequence"):
        Layout(None)
    with pytest.raises(TypeError, match="Layout: shape must be an int or a sequence"):
        compact_strides(None)
    with pytest.raises(TypeError, match="Layout: strides must be a sequence"):
        Layout((2,), strides="ab")
    with pytest.raises(TypeError, match="Layout.from_array: expected a NumPy or CuPy array"):
        Layout.from_array([1, 2])
    lay = Layout((3, 4), (-4, -1), offset=11, itemsize=8)
    with pytest.raises(ValueError, match="pass the max_ndim given to pack"):
        Layout.unpack(lay.pack(4))
    assert Layout.unpack(lay.pack(4), 4) == lay


def test_pack_unpack_and_permute_edges():
    import struct

    from xstride.layout import Layout

    with pytest.raises(ValueError, match=r"max_ndim=0 must lie in \[1, 64\]"):
        Layout(()).pack(0)
    assert Layout.unpack(Layout(()).pack(1), 1) == Layout(())
    with pytest.raises(TypeError, match="Layout.unpack: expected the bytes"):
        Layout.unpack(None)
    # a new-user probe: the size check counted a memoryview's items, not its bytes (a
    # memoryview of the packed words as int64 was "6 bytes"), and a strided memoryview
    # reached struct.unpack's BufferError
    lay = Layout((3, 4), (-4, -1), 11, 8)
    words = np.frombuffer(lay.pack(2), dtype=np.int64)
    assert Layout.unpack(memoryview(words), 2) == lay
    assert Layout.unpack(memoryview(words.view(np.uint8).reshape(6, 8)), 2) == lay
    with pytest.raises(ValueError, match=r"Layout.unpack: 24 bytes, but a layout packed with "
                                         r"max_ndim=2 has 48"):
        Layout.unpack(memoryview(words[:3]), 2)
    with pytest.raises(ValueError, match=r"^Layout.unpack: argument 'data' is not C-contiguous"):
        Layout.unpack(memoryview(np.repeat(words, 2)[::2]), 2)
    bad = struct.pack("<qii", 0, -1, 4) + bytes(16 * 64)
    with pytest.raises(ValueError, match="the struct's ndim is -1"):
        Layout.unpack(bad)
    with pytest.raises(TypeError, match="Layout.permute: axes must be a sequence"):
        Layout((2, 3)).permute(None)
    with pytest.raises(TypeError, match="Layout.permute: axes must be a sequence"):
        Layout((2, 3)).permute(1)


def test_unpack_takes_any_bytes_like_object():
    """The docstring promised a TypeError for "not a bytes-like object", but a NumPy
    array (bytes-like: it has the buffer protocol) was refused as "expected the bytes of
    Layout.pack()"; any object with the buffer protocol is read as its bytes."""
    import array

    from xstride.layout import Layout

    lay = Layout((3, 4), (-4, -1), 11, 8)
    packed = lay.pack(2)
    assert Layout.unpack(np.frombuffer(packed, np.uint8), 2) == lay
    assert Layout.unpack(np.frombuffer(packed, np.int64).reshape(2, 3), 2) == lay
    assert Layout.unpack(array.array("q", packed), 2) == lay
    with pytest.raises(ValueError, match=r"^Layout.unpack: 48 bytes, but a layout packed "
                                         r"with max_ndim=64 has 1040"):
        Layout.unpack(np.zeros(48, np.uint8))
    with pytest.raises(ValueError, match=r"^Layout.unpack: argument 'data' is not C-contiguous"):
        Layout.unpack(np.frombuffer(packed * 2, np.int64)[::2], 2)
    for bad, what in [([1, 2], "list"), ("ab", "str"), (np.zeros(6, "M8[s]"), "ndarray"),
                      (np.array([0] * 6, dtype=object), "ndarray of Python objects")]:
        with pytest.raises(TypeError, match=rf"^Layout.unpack: expected the bytes of "
                                            rf"Layout.pack\(\) \(a bytes-like object\), "
                                            rf"got {what}$"):
            Layout.unpack(bad, 2)


def test_extents_strides_and_itemsize_that_pack_cannot_hold_are_refused():
    """An empty shape's other extents, its compact strides and the itemsize must fit
    the packed struct (int64 extents and strides, int32 itemsize): ValueError at
    construction, never a struct.error from pack() (found by a new-user review)."""
    with pytest.raises(ValueError, match="an extent .* overflows int64"):
        Layout((0, 2**70))
    with pytest.raises(ValueError, match="compact stride"):
        Layout((0, 2**62, 4))
    with pytest.raises(ValueError, match="itemsize must be in 1..2147483647"):
        Layout((1,), itemsize=2**31)
    lay = Layout((0, 2**40), itemsize=2**31 - 1)
    assert lay.size == 0 and len(lay.pack()) > 0
    assert Layout((0, 2**62)).strides == (2**62, 1)


def test_bools_and_non_integer_slice_parts_are_refused():
    """True is an int to Python but never a size, stride, axis or index here (as in
    the reductions' axis check); a float slice part gets Layout's own message."""
    with pytest.raises(TypeError, match="shape entry must be an integer, got bool"):
        Layout((True, 2))
    with pytest.raises(TypeError, match="stride must be an integer, got bool"):
        Layout((2,), (True,))
    with pytest.raises(TypeError, match="got bool"):
        Layout((3, 2)).permute([True, False])
    with pytest.raises(TypeError, match="Layout: a slice bound or step must be an integer"):
        Layout((4,)).slice(slice(0, 4, 1.5))
    with pytest.raises(TypeError, match="Layout: a slice bound or step"):
        Layout((4,)).slice(slice(0.5, None))
    assert Layout((4,)).slice(slice(np.int64(1), None, np.int64(2))).shape == (2,)


def test_replace_changes_only_the_fields_given():
    lay = Layout((3,), (2,), 1, 8)
    # a new shape kept no strides: Layout((3,), (2,)).replace(shape=(2,)) had stride 1
    assert lay.replace(shape=(2,)) == Layout((2,), (2,), 1, 8)
    assert lay.replace(offset=0) == Layout((3,), (2,), 0, 8)
    assert lay.replace(shape=(2, 5), strides=(10, 2)) == Layout((2, 5), (10, 2), 1, 8)
    with pytest.raises(ValueError, match="rank"):
        lay.replace(shape=(2, 5))


def test_compact_strides_past_int64_are_refused_as_layout_refuses_them():
    """``compact_strides((0, 2**62, 4))`` returned ``(2**64, 4, 1)`` although
    ``Layout`` of that shape is refused: a compact stride past int64."""
    from xstride.layout import compact_strides

    with pytest.raises(ValueError, match=r"compact stride = 18446744073709551616 does not "
                                         r"fit in a signed 64-bit integer"):
        compact_strides((0, 2**62, 4))
    assert compact_strides((0, 2**60, 4)) == (2**62, 4, 1)


def test_rank_and_stride_errors_name_the_argument():
    """A new-user probe: ``as_strided(a, (1,) * 65, (0,) * 65)`` said "rank 65 exceeds the
    maximum of 64" and a stride of 2**63 "a stride = 9223372036854775808 does not fit",
    naming neither ``shape`` nor ``strides`` (NumPy's as_strided names neither either)."""
    import numpy as np
    import xstride as xp

    for call, func in [(lambda: Layout((1,) * 65), "Layout"),
                       (lambda: Layout((1,)).broadcast_to((1,) * 65), "Layout"),
                       (lambda: xp.as_strided(np.zeros(3), (1,) * 65, (0,) * 65), "as_strided")]:
        with pytest.raises(ValueError, match=rf"^{func}: argument 'shape' has rank 65, more "
                                             r"than 64$"):
            call()
    for call, func in [(lambda: Layout((2,), (-2**63 - 1,)), "Layout"),
                       (lambda: xp.as_strided(np.zeros(3), (1,), (2**63,)), "as_strided")]:
        with pytest.raises(ValueError, match=rf"^{func}: argument 'strides' \(-?\d+,\) has an "
                                             r"entry outside int64$"):
            call()
    assert Layout((1,), (-2**63,)).strides == (-2**63,)    # int64's ends are taken
