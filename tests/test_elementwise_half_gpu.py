"""float16 on the elementwise engine, on the device: every engine function of float16
arrays and views, with Python scalars, broadcast rows and mixed dtypes, ``where``,
casts and copies, bit for bit NumPy's (its float16 loops compute in float32 and round
once, as the engine does; NaN compared as NaN). Host tests:
tests/test_elementwise_half.py."""

from __future__ import annotations

import numpy as np
import pytest

import xstride as xp
from xstride._core.ufuncs import ENGINE_UFUNCS

pytestmark = [pytest.mark.gpu, pytest.mark.usefixtures("poisoned_pool")]
H = np.float16
_SPECIAL = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 6e-8, -6e-8, 65504, -65504, 1e-4,
                     0.1, 2049, 1.0, -1.0, 3.0], dtype=H)
_FLOAT_OPS = [n for n in ENGINE_UFUNCS if not n.startswith("bitwise")]


def _same(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape
    if got.dtype.kind == "f":
        nan = np.isnan(want)
        assert np.array_equal(np.isnan(got), nan)
        assert np.array_equal(got[~nan].view(np.uint16), want[~nan].view(np.uint16))
    else:
        assert np.array_equal(got, want)


def _data(shape, seed):
    rng = np.random.default_rng(seed)
    h = (rng.standard_normal(shape) * rng.choice([1e-3, 1, 300], size=shape)).astype(H)
    flat = h.reshape(-1)
    flat[: _SPECIAL.size] = _SPECIAL[: flat.size]
    rng.shuffle(flat)
    return h


@pytest.mark.parametrize("name", _FLOAT_OPS)
def test_every_engine_function_of_float16_arrays_views_and_broadcasts(cp, name):
    arity = ENGINE_UFUNCS[name][0]
    f, g = getattr(xp, name), getattr(np, {"abs": "absolute"}.get(name, name))
    a, b = _data((4099, 3), 1), _data((4099, 3), 2)
    row = _data((3,), 3)
    da, db, drow = cp.asarray(a), cp.asarray(b), cp.asarray(row)
    with np.errstate(all="ignore"):
        if arity == 1:
            for d, h in [(da, a), (da.T, a.T), (da[::-2], a[::-2])]:
                _same(cp.asnumpy(f(d)), g(h))
            return
        for (d1, h1), (d2, h2) in [((da, a), (db, b)), ((da, a), (drow, row)),
                                   ((da.T, a.T), (db[::-1].T, b[::-1].T)),
                                   ((da[:, :1], a[:, :1]), (drow, row))]:
            _same(cp.asnumpy(f(d1, d2)), g(h1, h2))
        for s in (0.1, 2, -3.5, 1e6):   # weak Python scalars: cast to float16 first
            _same(cp.asnumpy(f(da, s)), g(a, s))


@pytest.mark.parametrize("other", [np.float32, np.int8, np.int16, np.bool_, np.float64])
def test_float16_with_other_dtypes_promotes_as_numpy(cp, other):
    a = _data((2000, 4), 4)
    o = (np.random.default_rng(5).standard_normal((2000, 4)) * 50).astype(other)
    with np.errstate(all="ignore"):
        for name in ("add", "multiply", "divide", "less", "maximum"):
            got = getattr(xp, name)(cp.asarray(a), cp.asarray(o))
            _same(cp.asnumpy(got), getattr(np, name)(a, o))


def test_where_casts_and_copies_of_float16(cp):
    a, b = _data((3001, 5), 6), _data((3001, 5), 7)
    c = np.random.default_rng(8).random((3001, 5)) < 0.5
    _same(cp.asnumpy(xp.where(cp.asarray(c), cp.asarray(a), cp.asarray(b))), np.where(c, a, b))
    # float64 values where rounding through float32 first would differ (double rounding)
    d = np.array([1 + 2.0**-11 + 2.0**-40, 2049.0000001, 65519.99, 65520.0, 1e-9, -3e-8,
                  np.nan, np.inf] * 100, dtype=np.float64)
    with np.errstate(over="ignore"):
        _same(cp.asnumpy(xp.astype(cp.asarray(d), xp.float16)), d.astype(H))
        for dt in (np.float32, np.float64, np.int32, np.int8, np.bool_):
            with np.errstate(invalid="ignore"):
                want = a.astype(dt)
            got = cp.asnumpy(xp.astype(cp.asarray(a), dt))
            if dt in (np.int32, np.int8):      # NaN/inf to integers: undefined in both
                ok = np.isfinite(a) & (np.abs(a) < 100)
                got, want = got[ok], want[ok]
            _same(got, want)
    dst = cp.zeros((3001, 5), dtype=H)
    xp.copy_into(dst, cp.asarray(d[:5]).astype(cp.float32).reshape(1, 5))
    with np.errstate(over="ignore"):
        _same(cp.asnumpy(dst), np.broadcast_to(d[:5].astype(np.float32).astype(H), (3001, 5)))


def test_user_kernels_still_refuse_float16(cp):
    k = xp.cuda.ElementwiseKernel("T x", "T y", "y = x * 2", "h2")
    with pytest.raises(TypeError, match="float16"):
        k(cp.ones(4, dtype=H))
