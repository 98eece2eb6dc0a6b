"""The NumPy backend's ``out=`` shortcut (``elementwise._plain_into``): plain arrays of
one shape go straight to NumPy's ufunc (or ``copyto``); anything it refuses, and every
other call, takes the checked path. Results and errors must be the checked path's."""

from __future__ import annotations

import numpy as np
import pytest

import xstride as xp
from xstride import elementwise
from xstride._core.ufuncs import ENGINE_UFUNCS


def _operands(name, dt):
    rng = np.random.default_rng(1)
    if name.startswith("bitwise") or dt.kind in "iu":
        return [rng.integers(1, 9, (4, 5)).astype(dt) for _ in range(2)]
    return [rng.random((4, 5)).astype(dt) + 0.5 for _ in range(2)]


@pytest.mark.parametrize("name, dt", [
    (n, d) for n in sorted(ENGINE_UFUNCS) for d in (np.float32, np.float64, np.int64)
    if not (n.startswith("bitwise") and d is not np.int64)])   # no bitwise float loop
def test_the_shortcut_gives_numpys_result_in_place_and_overlapping(name, dt):
    nin, dt = ENGINE_UFUNCS[name][0], np.dtype(dt)
    args = _operands(name, dt)[:nin]
    uf = getattr(np, {"abs": "absolute"}.get(name, name))
    want = uf(*args)
    out = np.empty(want.shape, want.dtype)
    assert elementwise._plain_into(out, *args)
    assert getattr(xp, name)(*args, out=out) is out
    np.testing.assert_array_equal(out, want)
    if want.dtype == args[0].dtype:      # out is an input: read before any write
        x = args[0].copy()
        getattr(xp, name)(x, *args[1:], out=x)
        np.testing.assert_array_equal(x, want)
    fortran = np.asfortranarray(np.empty(want.shape, want.dtype))
    np.testing.assert_array_equal(getattr(xp, name)(*args, out=fortran), want)


def test_what_numpy_refuses_gets_the_checked_paths_error():
    a = np.ones((2, 3))
    with pytest.raises(TypeError, match=r"^divide: argument 'out'.*same_kind"):
        xp.divide(a, a, out=np.empty((2, 3), np.int64))       # NumPy's UFuncTypeError
    ro = np.empty((2, 3))
    ro.flags.writeable = False
    with pytest.raises(ValueError, match=r"^add: argument 'out' is read-only"):
        xp.add(a, a, out=ro)
    with pytest.raises(TypeError, match=r"^negative: "):
        xp.negative(np.ones(3, bool), out=np.empty(3, bool))  # no bool loop
    with pytest.raises(ValueError, match="overlaps itself"):  # not contiguous: checked
        xp.add(a, a, out=np.lib.stride_tricks.as_strided(np.zeros(3), (2, 3), (0, 8)))
    with pytest.raises(ValueError, match="expected the broadcast shape"):
        xp.add(a, a, out=np.empty((1, 2, 3)))                 # shapes differ: checked
    with pytest.raises(TypeError, match=r"^add: argument 'out' got tuple"):
        xp.add(a, a, out=(np.empty((2, 3)),))                 # NumPy's tuple form: one array
    assert not elementwise._plain_into(np.empty(3, "U1"), np.ones(3))


def test_copy_into_shortcut_and_its_errors():
    src = np.arange(6.0).reshape(2, 3)
    dst = np.empty((2, 3), np.float32)
    assert xp.copy_into(dst, src) is dst
    np.testing.assert_array_equal(dst, src)
    with pytest.raises(TypeError, match=r"^copy_into: cannot copy float64 into dst of dtype "
                                        r"int64 \(same_kind rule\)"):
        xp.copy_into(np.empty((2, 3), np.int64), src)
    ro = np.empty((2, 3))
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        xp.copy_into(ro, src)


def test_copy_into_shortcut_leaves_the_rest_to_the_checks():
    src = np.arange(3.0)
    with pytest.raises(ValueError, match="overlaps itself"):    # not contiguous: checked
        xp.copy_into(np.lib.stride_tricks.as_strided(np.zeros(3), (2, 3), (0, 8)), src)
    with pytest.raises(ValueError, match=r"^copy_into: .*broadcast"):
        xp.copy_into(np.empty(3), np.arange(4.0))              # shapes differ: checked
    dst = np.zeros(3, object)                                  # not numeric: checked,
    assert xp.copy_into(dst, src) is dst                       # copied as NumPy does
    assert dst.tolist() == [0.0, 1.0, 2.0]
    strided = np.zeros(6)[::2]                                 # not contiguous, no overlap
    assert xp.copy_into(strided, src) is strided
    np.testing.assert_array_equal(strided, src)
