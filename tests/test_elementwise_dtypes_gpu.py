"""The CUDA elementwise engine against NumPy across dtypes: every binary function over
dtype pairs, mixed widths, weak Python scalars, unary functions, ``where``, ``astype``
and ``copy_into`` (H200; layouts and fast paths: test_elementwise_gpu.py)."""

from __future__ import annotations

import numpy as np
import pytest

import xstride as xp
from tests.test_elementwise_gpu import _rand

pytestmark = pytest.mark.gpu

_BINARY = ["add", "subtract", "multiply", "divide", "maximum", "minimum", "equal",
           "not_equal", "less", "less_equal", "greater", "greater_equal", "bitwise_and",
           "bitwise_or", "bitwise_xor", "logical_and", "logical_or", "logical_xor"]
_PAIRS = [("float32", "float64"), ("int8", "uint8"), ("int64", "uint64"), ("bool", "bool"),
          ("int32", "float32")]


@pytest.mark.parametrize("op", _BINARY)
@pytest.mark.parametrize("pair", _PAIRS, ids=lambda p: f"{p[0]}-{p[1]}")
def test_binary_dtypes_match_numpy(cp, op, pair):
    a = _rand((7, 9), pair[0], 11)
    b = _rand((9,), pair[1], 12)
    if pair[1] == "float64":
        b[::3] = np.nan
    np_fn = getattr(np, {"abs": "absolute"}.get(op, op))
    try:
        with np.errstate(all="ignore"):
            want = np_fn(a, b)
    except TypeError:
        with pytest.raises(TypeError):
            getattr(xp, op)(cp.asarray(a), cp.asarray(b))
        return
    got = getattr(xp, op)(cp.asarray(a), cp.asarray(b))
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got.get(), want)


@pytest.mark.parametrize("pair", [("uint8", "float32"), ("bool", "float32"), ("int16", "float32"),
                                  ("float16", "float64"), ("uint8", "float64"),
                                  ("int8", "complex128"), ("float32", "float64")],
                         ids=lambda p: f"{p[0]}-{p[1]}")
def test_mixed_widths_match_numpy(cp, pair):
    """Operands of different widths (vectors of 16 bytes of the widest), flat and by
    rows, each operand's start on and off every alignment (the width halves), odd
    lengths (the flat tail), a repeated row of the wide type, a scalar, a cast;
    bit-equal to NumPy."""
    na, nb = 1 << 13, 1 << 13
    a = _rand(na + 37, pair[0], 31)
    b = _rand(nb + 37, pair[1], 32)
    ga, gb = cp.asarray(a), cp.asarray(b)
    for sa, sb in ((0, 0), (1, 0), (0, 1), (3, 2), (16, 8), (0, 4), (8, 0)):
        for n in (na, na + 5, 29):
            x, y = a[sa:sa + n], b[sb:sb + n]
            gx, gy = ga[sa:sa + n], gb[sb:sb + n]
            np.testing.assert_array_equal(xp.add(gx, gy).get(), x + y)
            np.testing.assert_array_equal(xp.multiply(gy, gx).get(), y * x)
    for k in (3, 4, 16):
        x = a[:(na // k) * k].reshape(-1, k)
        row = b[:k]
        gx = ga[:(na // k) * k].reshape(-1, k)
        np.testing.assert_array_equal(xp.add(gx, gb[:k]).get(), x + row, err_msg=f"k={k}")
        np.testing.assert_array_equal(xp.add(gx, gb[1:k + 1]).get(), x + b[1:k + 1])
    s = np.dtype(pair[1]).type(1.5)
    np.testing.assert_array_equal(xp.multiply(ga, s).get(), a * s)
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(xp.astype(ga, getattr(xp, pair[1])).get(), a.astype(pair[1]))


@pytest.mark.parametrize("op", ["add", "multiply", "less", "maximum", "divide"])
@pytest.mark.parametrize("scalar", [3, -2.5, True])
def test_python_scalars_are_weak(cp, op, scalar):
    for dt in ("int16", "float32", "uint8"):
        a = _rand((5, 6), dt, 13)
        np_fn = getattr(np, op)
        try:
            want = np_fn(a, scalar)
        except (TypeError, OverflowError) as exc:
            with pytest.raises(type(exc)):
                getattr(xp, op)(cp.asarray(a), scalar)
            continue
        got = getattr(xp, op)(cp.asarray(a), scalar)
        got2 = getattr(xp, op)(scalar, cp.asarray(a))
        assert got.dtype == want.dtype, (dt, scalar)
        np.testing.assert_array_equal(got.get(), want)
        np.testing.assert_array_equal(got2.get(), np_fn(scalar, a))


@pytest.mark.parametrize("op", ["negative", "positive", "abs", "square"])
def test_unary(cp, op):
    for dt in ("int8", "float32", "float64", "uint16"):
        a = _rand((6, 5), dt, 14)
        want = getattr(np, {"abs": "absolute"}.get(op, op))(a)
        got = getattr(xp, op)(cp.asarray(a).T)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got.get(), want.T)


def test_where_astype_copy_into(cp):
    c = _rand((8, 9), bool, 15)
    x = _rand((8, 9), np.float32, 16)
    y = _rand((9,), np.float64, 17)
    got = xp.where(cp.asarray(c), cp.asarray(x), cp.asarray(y))
    want = np.where(c, x, y)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got.get(), want)
    np.testing.assert_array_equal(xp.where(cp.asarray(c), cp.asarray(x), 0.5).get(),
                                  np.where(c, x, np.float32(0.5)))
    t = xp.astype(cp.asarray(x).T, np.int16)
    assert t.dtype == np.int16
    np.testing.assert_array_equal(t.get(), x.T.astype(np.int16))
    np.testing.assert_array_equal(xp.astype(cp.asarray(x), np.bool_).get(), x.astype(bool))
    gx = cp.asarray(x)
    assert xp.astype(gx, cp.float32, copy=False) is gx
    d = cp.full((9, 16), cp.nan, cp.float64)
    xp.views.copy_into(d[::-1, ::2], cp.asarray(x).T)
    dn = np.full((9, 16), np.nan)
    dn[::-1, ::2] = x.T
    np.testing.assert_array_equal(d.get(), dn)
    xp.views.copy_into(d, 2)
    assert float(d.min()) == float(d.max()) == 2.0
    with pytest.raises(TypeError, match="same_kind"):
        xp.views.copy_into(cp.zeros(3, cp.int8), cp.ones(3))
    with pytest.raises(ValueError, match="broadcast"):
        xp.views.copy_into(cp.zeros(3), cp.ones(4))
    a = cp.arange(10.0)
    xp.views.copy_into(a[2:], a[:-2])
    np.testing.assert_array_equal(a.get(), [0, 1, 0, 1, 2, 3, 4, 5, 6, 7])
