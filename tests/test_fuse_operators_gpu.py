"""``xp.fuse`` of CuPy's operators ``//``, ``%``, ``**``, ``<<``, ``>>``, ``divmod`` and
the exact reduction methods on CuPy arrays: bit for bit against the same function run
unfused (CuPy's own ufuncs), on every engine dtype, zero divisors, negative operands
and exponents, and CuPy's ``**`` shortcuts."""

from __future__ import annotations

import numpy as np
import pytest

import xstride as xp

from .test_fuse_reduce_gpu import check

pytestmark = pytest.mark.gpu

_INTS = ["int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"]


def _operands(cp, dt):
    rng = np.random.default_rng(7)
    d = np.dtype(dt)
    if d.kind == "f":
        x = rng.standard_normal((300, 41)) * 20
        y = rng.standard_normal((300, 41)) * 3
        y[0, :5] = 0                      # zero divisors: inf and NaN, as CuPy's
        y[1, :5] = [0.1, -0.1, 1e-30, 7, -7]
    elif d.kind == "b":
        x, y = rng.integers(0, 2, (300, 41)), rng.integers(0, 2, (300, 41))
    else:
        lo = 0 if d.kind == "u" else -120
        x, y = rng.integers(lo, 120, (300, 41)), rng.integers(lo, 9, (300, 41))
        y[0, :5] = 0                      # zero divisors: 0, as CuPy's
    return cp.asarray(x.astype(dt)), cp.asarray(y.astype(dt))


@pytest.mark.parametrize("dt", _INTS + ["float32", "float64", "bool"])
def test_floordiv_mod_divmod(cp, dt):
    x, y = _operands(cp, dt)
    if dt.startswith("float"):
        # float %: CuPy's kernel contracts x - floor(x / y) * y into a fused multiply-add;
        # the fused one does not (yet): it runs unfused, strict refuses it
        check(lambda x, y: (x // y, x // 3), x, y)
        for fn in (lambda x, y: x % y, lambda x, y: divmod(x, y)):
            with pytest.raises(TypeError, match="remainder"):
                xp.fuse(fn, strict=True)(x, y)
        return
    check(lambda x, y: (x // y, x % y), x, y)
    check(lambda x, y: divmod(x, y), x, y)
    if dt != "bool":
        check(lambda x, y: (x // 3, 7 % (x | 1) if dt[0] in "iu" else 7 % x, x % -2
                            if dt[0] != "u" else x % 2), x, y)


@pytest.mark.parametrize("dt", _INTS + ["bool"])
def test_shifts_and_integer_powers(cp, dt):
    x, y = _operands(cp, dt)
    sh = y & 7 if dt != "bool" else y
    if dt[0] == "u":
        check(lambda x, s: (x << s, x >> s, 1 << s, x >> 1), x, sh)
    else:   # signed loops (bool: int8): CuPy's shift by a negative count is the C
        # compiler's choice; they run unfused, strict refuses them
        with pytest.raises(TypeError, match="shift"):
            xp.fuse(lambda x, s: x >> s, strict=True)(x, sh)
    check(lambda x, y: (x ** y, x ** 3, 3 ** y, x ** 2), x, y)   # negative exponents too


@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_float_powers_and_shortcuts(cp, dt):
    x, y = _operands(cp, dt)
    ax = xp.abs(x)
    check(lambda x, y: (x ** y, x ** 3, 2.5 ** y, x ** 1.5), ax, y)
    check(lambda x: (x ** 2, x ** 2.0, x ** 0.5, x ** -1.0, x ** 3.0), ax)


@pytest.mark.parametrize("dt", ["int8", "uint8", "int32", "bool"])
def test_power_shortcuts_on_integers(cp, dt):
    x, _ = _operands(cp, dt)
    x = xp.abs(x) if dt != "bool" else x
    check(lambda x: (x ** 2, x ** 2.0, x ** 0.5, x ** -1.0), x)


def test_exact_reduction_methods(cp):
    x, y = _operands(cp, "int16")
    check(lambda x, y: ((x * y).sum(), (x - y).max(axis=0), (x > y).sum(axis=1),
                        (x + 1).prod(axis=1, dtype=xp.int64), (x | y).min(keepdims=True)),
          x, y)
