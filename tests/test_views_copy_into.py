"""``copy_into`` and the ``out=`` checks on the NumPy backend: casts, overlap, read-only
views, Python and NumPy ints out of range, lists that do not cast, and errors naming
the function (split from tests/test_views.py, past 600 lines)."""

from __future__ import annotations

import re

import numpy as np
import pytest

import xstride as xp


def test_copy_into_numpy():
    d = np.zeros((3, 4))
    xp.views.copy_into(d[::-1, ::2], np.arange(2.0))
    np.testing.assert_array_equal(d[:, ::2], np.tile([0.0, 1.0], (3, 1)))
    a = np.arange(6.0)
    xp.views.copy_into(a[1:], a[:-1])
    np.testing.assert_array_equal(a, [0, 0, 1, 2, 3, 4])
    with pytest.raises(TypeError):
        xp.views.copy_into(np.zeros(3, np.int8), np.ones(3))
    with pytest.raises(ValueError, match="broadcast"):
        xp.views.copy_into(np.zeros(3), np.ones(4))
    with pytest.raises(ValueError, match="overlaps itself"):
        xp.views.copy_into(xp.as_strided(np.zeros(3), (3,), (0,)), 1.0)


def test_out_checks_numpy():
    x = np.arange(6.0).reshape(2, 3)
    with pytest.raises(ValueError, match="overlaps itself"):
        xp.add(x, x, out=xp.as_strided(np.zeros(6), (2, 3), (1, 1)))
    with pytest.raises(ValueError, match="shape"):
        xp.add(x, x, out=np.zeros(6))
    with pytest.raises(TypeError):
        xp.add(x, x, out=np.zeros((2, 3), np.int32))
    with pytest.raises(TypeError, match="an array of the numpy backend"):
        xp.add(x, x, out=[0] * 6)
    y = x.copy()
    xp.add(y, y.T.T, out=y)
    np.testing.assert_array_equal(y, 2 * x)
    s = np.arange(9.0).reshape(3, 3)
    xp.add(s, s.T, out=s)
    base = np.arange(9.0).reshape(3, 3)
    np.testing.assert_array_equal(s, base + base.T)
    w = np.zeros(3)
    xp.where(np.array([True, False, True]), 1.0, np.arange(3.0), out=w)
    np.testing.assert_array_equal(w, [1.0, 1.0, 1.0])


def test_self_overlapping_numpy_view_is_read_only():
    base = np.arange(6.0)
    v = xp.as_strided(base, (3, 2), (1, 1))  # v[0,1] and v[1,0] are one element
    assert not v.flags.writeable
    np.testing.assert_array_equal(v, [[0, 1], [1, 2], [2, 3]])
    with pytest.raises(ValueError, match="read-only"):
        v[0, 0] = 5.0
    w = xp.as_strided(base, (3,), (2,))  # no overlap: writeable like its base
    assert w.flags.writeable
    w[:] = -1.0
    np.testing.assert_array_equal(base, [-1, 1, -1, 3, -1, 5])


def test_copy_into_and_out_errors_name_the_function():
    with pytest.raises(TypeError, match="copy_into: cannot copy float64 into dst of dtype int32"):
        xp.copy_into(np.zeros(3, np.int32), np.ones(3))
    with pytest.raises(ValueError, match="copy_into: argument 'dst' is read-only"):
        xp.copy_into(np.frombuffer(bytes(16)), 1.0)
    with pytest.raises(ValueError, match="add: argument 'out' is read-only"):
        xp.add(np.ones(2), 1.0, out=np.frombuffer(bytes(16)))
    with pytest.raises(ValueError, match=r"element strides \(1, 1\)"):
        xp.add(np.ones((2, 2)), 1.0, out=np.lib.stride_tricks.as_strided(
            np.zeros(4), (2, 2), (8, 8)))
    with pytest.raises(TypeError, match="copy_into: cannot copy float64 into dst of dtype int32 \\(same_kind rule\\)"):
        xp.copy_into(np.zeros(3, np.int32), 1.5)


def test_copy_into_a_python_int_out_of_range():
    with pytest.raises(OverflowError, match="copy_into: src 300 does not fit dst's dtype int8"):
        xp.copy_into(np.zeros(3, np.int8), 300)
    with pytest.raises(OverflowError, match="copy_into: src .* int64"):
        xp.copy_into(np.zeros(3, np.int64), 2**70)
    # a huge int is described in a few words, not its 600 digits
    with pytest.raises(OverflowError, match=r"copy_into: src int 1148130695\d+\.\.\. does") as e:
        xp.copy_into(np.zeros(3), 2**2000)
    assert len(str(e.value)) < 200
    np.testing.assert_array_equal(xp.copy_into(np.zeros(3, np.int8), 127), [127] * 3)


@pytest.mark.parametrize("src, kind", [([np.int64(-1), 1], "int64"), (["a", "b"], "<U1"),
                                       ([1.5, 2], "float64")])
def test_copy_into_a_list_that_does_not_cast_names_src(src, kind):
    """A new-user probe: a list whose values do not cast to ``dst`` by the same_kind
    rule raised NumPy's "Cannot cast array data from dtype('int64') ...", naming
    copy_into but not the argument."""
    dst = np.zeros(2, np.uint8)
    with pytest.raises(TypeError, match=rf"^copy_into: argument 'src' got list .*; expected "
                                        rf"values that cast to dst's dtype uint8 by the "
                                        rf"same_kind rule \(these are {kind}\)"):
        xp.copy_into(dst, src)
    assert dst.tolist() == [0, 0]


@pytest.mark.parametrize("dtype, src", [(np.int8, [1, 300]), (np.int16, (7, 40000)),
                                        (np.uint8, [[2**64 - 1], [2**63]])])
def test_copy_into_a_list_of_python_ints_out_of_range_raises(dtype, src):
    """A new-user probe: ``copy_into(int8_array, 300)`` raised OverflowError but
    ``copy_into(int8_array, [1, 300])`` wrote ``[1, 44]``: the list became int64 and the
    same_kind cast wrapped it. Python ints in a list are as weak as a scalar."""
    dst = np.zeros((2, 2) if isinstance(src[0], list) else 2, dtype)
    with pytest.raises(OverflowError, match=r"^copy_into: src .* does not fit dst's dtype "):
        xp.copy_into(dst, src)
    assert not dst.any()
    assert xp.copy_into(np.zeros(2, np.int8), [1, 127]).tolist() == [1, 127]
    assert xp.copy_into(np.zeros(2, np.int8), np.array([1, 300])).tolist() == [1, 44]


def test_copy_into_a_list_of_numpy_ints_casts_as_their_array_does():
    """Only Python ints in a list are weak: NumPy integer scalars out of dst's range are
    cast by same_kind as their array (or one of them alone) is, not refused with
    "Python integer 300 out of bounds" (NumPy's asarray says so for them too)."""
    want = xp.copy_into(np.zeros(2, np.int8), np.array([300, 1])).tolist()
    assert xp.copy_into(np.zeros(1, np.int8), np.int64(300)).tolist() == want[:1]
    for src in ([np.int64(300), 1], (np.int64(300), np.int16(1))):
        assert xp.copy_into(np.zeros(2, np.int8), src).tolist() == want
    dst = np.zeros(2, np.int8)
    with pytest.raises(OverflowError, match=r"^copy_into: src .* \(Python integer 300 out of "
                                            r"bounds for int8\)"):
        xp.copy_into(dst, [np.int64(1), 300])
    assert not dst.any()


def _as_if_through_a_temporary(buf, dst_of, src_of):
    """``buf`` after copying ``src_of(buf)`` into ``dst_of(buf)`` through a copy of src."""
    want = buf.copy()
    np.copyto(dst_of(want), src_of(want).copy(), casting="same_kind")
    return want


@pytest.mark.parametrize("dst_of, src_of", [
    (lambda b: b[1:5], lambda b: b[0:12:3]),            # contiguous dst (the shortcut)
    (lambda b: b[0:8:2], lambda b: b[1:5]),             # strided dst (the checked path)
    (lambda b: b[9::-3], lambda b: b[6::-2]),           # both reversed, other steps
    (lambda b: b, lambda b: np.lib.stride_tricks.as_strided(    # one element of dst,
        b.view(np.int32)[b.itemsize // 4:], (12,), (0,))),      # stride 0, other dtype
], ids=["shortcut", "strided", "reversed", "broadcast-element"])
def test_copy_into_overlapping_1d_views_reads_src_first(dst_of, src_of):
    """A new-user probe: ``copy_into`` of overlapping 1-D views with different strides
    was ``numpy.copyto``'s answer, which copies ``src`` first only for a ``dst`` of two
    or more axes: ``copy_into(a[1:5], a[0:12:3])`` gave ``[0, 0, 3, 3, 9, 5]`` where
    reading ``src`` before writing gives ``[0, 0, 3, 6, 9, 5]`` (and CuPy's engine)."""
    for dtype in (np.int64, np.float32):
        buf = np.arange(12, dtype=dtype)
        want = _as_if_through_a_temporary(buf, dst_of, src_of)
        got = xp.copy_into(dst_of(buf), src_of(buf))
        assert np.shares_memory(got, buf)
        assert buf.tobytes() == want.tobytes(), (buf, want)


def test_copy_into_a_strided_src_overlapping_a_1d_dst_example():
    buf = np.arange(12)
    xp.copy_into(buf[1:5], buf[0:12:3])
    assert buf[:6].tolist() == [0, 0, 3, 6, 9, 5]   # copyto's: [0, 0, 3, 3, 9, 5]


@pytest.mark.parametrize("src_shape, dst_shape", [((4,), (3,)), ((3, 2), (2, 3)), ((2, 3), (3,))])
def test_shapes_that_do_not_fit_dst_name_it_alike(src_shape, dst_shape):
    """Shapes that broadcast nowhere said "cannot be broadcast together" without the
    "(into dst)" of shapes that broadcast past ``dst``: one message for both (a new-user
    probe)."""
    with pytest.raises(ValueError, match=re.escape(
            f"copy_into: shapes {src_shape} and {dst_shape} cannot be broadcast together "
            "(into dst)")):
        xp.copy_into(np.zeros(dst_shape), np.ones(src_shape))
