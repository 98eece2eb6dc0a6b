"""GPU tests of the reduction strategies for the (n, k) shapes of particle codes:
"tile" (short rows staged in shared memory, ``xs_reduce_tile``), "interleave" (a
contiguous (n, k) run reduced over its rows, ``xs_reduce_interleave``) and "short"
reached from an "outer" plan (a (k, n) array used as ``.T``), against NumPy.

"tile" folds each row exactly as "short" does, so the two must give the same bits;
the others are compared with NumPy (integers, min and max exactly; float sums within
the bound of docs/reductions.md). The pool is poisoned so that an output the kernels
do not write shows up.
"""

from __future__ import annotations

import array_api_compat.numpy as cnp
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import xstride as xp
from tests.test_reductions_gpu import _assert_sum_close
from xstride._plans import reduction as plan_mod
from xstride._plans.reduction import plan_array

pytestmark = [pytest.mark.gpu, pytest.mark.usefixtures("poisoned_pool")]

_DTYPES = ["float32", "float64", "int64", "int8", "bool", "int16", "uint16"]


def _random(rng, shape, dtype):
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return rng.random(shape) < 0.5
    if dt.kind == "f":
        return (rng.standard_normal(shape) * 3 + 0.5).astype(dt)
    return rng.integers(-5, 6, size=shape).astype(dt)


def _fresh_caches(monkeypatch):
    from xstride._kernels import reductions as red
    from xstride._kernels._lru import Bounded
    from xstride._kernels._prepared import Store

    monkeypatch.setattr(red, "_RECIPES", Bounded(1024))
    monkeypatch.setattr(red, "_CALLS", Store(1024))


def _check(cp, h, x, axis, funcs=("sum", "prod", "min", "max", "mean", "var")):
    for f in funcs:
        got = getattr(xp, f)(x, axis=axis)
        want = getattr(cnp, f)(h, axis=axis)
        assert got.dtype == want.dtype and got.shape == want.shape, (f, got.dtype, want.dtype)
        g = cp.asnumpy(got)
        again = cp.asnumpy(getattr(xp, f)(x, axis=axis))
        assert g.tobytes() == again.tobytes(), f"{f} not deterministic"
        if f in ("min", "max") or (f in ("sum", "prod") and h.dtype.kind != "f"):
            np.testing.assert_array_equal(g, want, err_msg=f)
        elif f == "sum":
            _assert_sum_close(g, h, axis)
        elif f == "prod":
            np.testing.assert_allclose(g, want, rtol=1e-5 if h.dtype == np.float32 else 1e-12)
        else:
            ref = getattr(np, f)(h.astype(np.float64), axis=axis)
            np.testing.assert_allclose(g, ref, rtol=1e-5 if h.dtype == np.float32 else 1e-11,
                                       atol=1e-12, err_msg=f)


# ----------------------------------------------------------------------------- tile
@pytest.mark.parametrize("dtype", _DTYPES)
def test_tile_gives_the_bits_of_short(cp, monkeypatch, dtype):
    """Every k of 2..32, contiguous, strided rows and reversed rows: "tile" and
    "short" (forced by a tile threshold no plan meets) agree bit for bit."""
    rng = np.random.default_rng(5)
    staged = 0
    for k in range(2, 33):
        host = _random(rng, (3001, k), dtype)
        dev = cp.asarray(host)
        views = [(dev, host), (dev[::-1, ::-1], host[::-1, ::-1]), (dev[3:, 1:], host[3:, 1:])]
        if k > 3:
            views.append((dev[:, : k // 2 + 1], host[:, : k // 2 + 1]))  # gaps < rowlen
        for x, h in views:
            strategy = plan_array(x, (1,)).strategy
            if strategy != "tile":   # one element per row, rows of SHORT_ROW_BYTES,
                assert strategy in ("copy", "short", "lanes"), strategy   # 16-byte chunks
                continue
            staged += 1
            got = {f: cp.asnumpy(getattr(xp, f)(x, axis=1)) for f in ("sum", "min", "var")}
            with monkeypatch.context() as m:
                m.setattr(plan_mod, "TILE_MIN_ROWS", 1 << 30)
                _fresh_caches(m)
                assert plan_array(x, (1,)).strategy == "short"
                for f, g in got.items():
                    s = cp.asnumpy(getattr(xp, f)(x, axis=1))
                    assert g.tobytes() == s.tobytes(), (k, f, x.strides)
            _check(cp, h, x, 1, ("sum", "max"))
    assert staged >= 40, staged


@pytest.mark.parametrize("dtype", _DTYPES)
def test_tile_many_tiles_and_small_tiles(cp, dtype):
    """More tiles than blocks (grid-stride), a partial last tile, and rows of 8-byte
    elements where a tile holds fewer than 256 rows."""
    rng = np.random.default_rng(6)
    for shape in [(70_001, 3), (5_000, 32), (257, 16), (256, 2)]:
        host = _random(rng, shape, dtype)
        x = cp.asarray(host)
        assert plan_array(x, (1,)).strategy in ("tile", "short", "lanes")
        _check(cp, host, x, 1)


@pytest.mark.parametrize("dtype", ["int8", "bool", "uint8", "int16", "float16", "uint16"])
@pytest.mark.parametrize("k", [193, 200, 256, 300, 512, 513])
def test_tile_medium_rows_of_narrow_elements(cp, dtype, k):
    """Rows of 193-513 narrow elements over axis 1: staged up to TILE_MAX_ROW_BYTES
    (1-byte rows of 512 elements, 2-byte of 256) unless a multiple of
    TILE_CONFLICT_BYTES apart, the warp per row else; dense, offset and reversed rows
    against NumPy (integers exactly), every op."""
    rng = np.random.default_rng(k)
    host = _random(rng, (4099, k + 3), dtype)
    dev = cp.asarray(host)
    isz = np.dtype(dtype).itemsize
    for x, h in ((dev[:, :k], host[:, :k]), (dev[1:, 3:], host[1:, 3:]),
                 (dev[:, k - 1::-1], host[:, k - 1::-1])):
        strategy = plan_array(x, (1,)).strategy
        assert strategy == ("tile" if plan_mod.tile_row_fits((x.strides[0] // isz,), k, isz)
                            else "inner")
        if h.dtype.kind == "b":
            for f in ("all", "any", "max", "sum"):
                np.testing.assert_array_equal(cp.asnumpy(getattr(xp, f)(x, axis=1)),
                                              getattr(cnp, f)(h, axis=1), err_msg=f)
        else:
            _check(cp, h, x, 1, ("min", "max") if dtype == "float16"
                   else ("sum", "prod", "min", "max", "mean", "var"))


def test_tile_variants(cp, tuning):
    """Every tile size and row limit of VARIANTS["tile"] gives the default's bits."""
    from xstride._kernels._reduce_common import VARIANTS

    rng = np.random.default_rng(12)
    hosts = [_random(rng, (9001, k), dt) for k in (2, 3, 5, 7, 16, 32)
             for dt in ("float32", "float64", "int8", "int16")]
    hosts = [h for h in hosts if plan_array(h, (1,)).strategy == "tile"]
    assert len(hosts) >= 9
    want = [cp.asnumpy(xp.sum(cp.asarray(h), axis=1)) for h in hosts]
    for value in VARIANTS["tile"]:
        tuning(tile=value)
        for h, w in zip(hosts, want):
            x = cp.asarray(h)
            assert plan_array(x, (1,)).strategy == "tile"
            assert cp.asnumpy(xp.sum(x, axis=1)).tobytes() == w.tobytes(), (value, h.shape)
            _check(cp, h, x, 1, ("max", "mean"))


def test_tile_grid_stride(cp, monkeypatch):
    """The staged tile (its register kernel off) with two blocks taking every tile."""
    from xstride._kernels import _geometry
    from xstride._kernels import _reduce_common as rc
    from xstride._kernels import reductions as red

    monkeypatch.setattr(_geometry, "SHORT_MAX_BLOCKS", 2)
    monkeypatch.setitem(rc.TUNING, "red_regs", 0)
    _fresh_caches(monkeypatch)
    host = _random(np.random.default_rng(1), (20_011, 3), "float32")   # rows of 12 bytes
    x = cp.asarray(host)
    rec = red._recipe("sum", x, 1, "sum", np.dtype(np.float64), np.dtype(np.float64))
    assert rec.kind == "tile" and rec.grid == (2,)
    _check(cp, host, x, 1)


# ----------------------------------------------------------------------------- interleave
@pytest.mark.parametrize("dtype", _DTYPES)
def test_interleave_every_width(cp, dtype):
    rng = np.random.default_rng(7)
    for k in range(2, 33):
        for n in (5, 300, 40_007):     # one block; one block, many rounds; many blocks
            host = _random(rng, (n, k), dtype)
            x = cp.asarray(host)
            assert plan_array(x, (0,)).strategy == "interleave"
            _check(cp, host, x, 0, ("sum", "min", "max", "var") if k % 4 else
                   ("sum", "prod", "min", "max", "mean", "var"))


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint8", "int16", "float16", "float32",
                                   "int32", "float64", "int64"])
def test_interleave_words(cp, monkeypatch, dtype):
    """The word walk (a contiguous (n, k) at a 16-byte address): every k of 2..32 and
    run lengths that end in a partial word, one block and many, the run and its
    row-reversed view; exact against NumPy where the order cannot matter (integer sums
    and products, min, max, all, any), float sums within the bound, means and var
    within a tolerance; the same run one element in (no 16-byte address) reads element
    by element and agrees; and the word walk agrees bit for bit with the element walk
    (forced) where the order cannot matter."""
    from xstride._kernels import _geometry

    rng = np.random.default_rng(11)
    dt = np.dtype(dtype)
    # float16 var/std are the library's (their squares in float16, as NumPy's)
    funcs = ("all", "any") if dt.kind == "b" else ("sum", "min", "max", "mean") + \
        (("var",) if dt != np.float16 else ()) + (("prod",) if dt.kind in "iu" else ())
    exact = ("all", "any") if dt.kind == "b" else \
        ("min", "max") + (("sum", "prod") if dt.kind in "iu" else ())
    for k in range(2, 33):
        for n in (7, 301, 40_009):
            host = _random(rng, (n * k + 1,), dtype)
            dev = cp.asarray(host)
            for off in (0, 1):
                h = host[off:off + n * k].reshape(n, k)
                d = dev[off:off + n * k].reshape(n, k)
                for x, hv in ((d, h), (d[::-1], h[::-1])):
                    plan = plan_array(x, (0,))
                    assert plan.strategy == "interleave"
                    vec = _geometry.interleave_words(plan, dt.itemsize,
                                                     x.data.ptr + plan.offset * dt.itemsize)
                    assert vec == (1 if off else 16 // dt.itemsize)
                    for f in funcs:
                        got = cp.asnumpy(getattr(xp, f)(x, axis=0))
                        msg = f"{f} k={k} n={n} off={off}"
                        if f in exact:
                            np.testing.assert_array_equal(got, getattr(np, f)(hv, axis=0),
                                                          err_msg=msg)
                        elif f == "sum" and dt != np.float16:
                            _assert_sum_close(got, hv, 0)
                        else:
                            want = getattr(np, f)(hv.astype(np.float64), axis=0)
                            np.testing.assert_allclose(
                                got, want, rtol=2e-3 if dt == np.float16 else
                                1e-5 if dt == np.float32 else 1e-11, atol=1e-12, err_msg=msg)
    host = _random(rng, (12_347, 3), dtype)
    x = cp.asarray(host)
    if dt.itemsize == 1:   # 256 * 16 complex128 lanes would not fit: the element walk
        got = cp.asnumpy(xp.sum(x, axis=0, dtype=xp.complex128))
        np.testing.assert_array_equal(got, np.sum(host, axis=0, dtype=np.complex128))
    first = {f: cp.asnumpy(getattr(xp, f)(x, axis=0)) for f in exact}
    _fresh_caches(monkeypatch)
    monkeypatch.setattr(_geometry, "interleave_words", lambda plan, itemsize, base: 1)
    for f in exact:
        np.testing.assert_array_equal(cp.asnumpy(getattr(xp, f)(x, axis=0)), first[f])


def test_interleave_reduces_several_leading_axes(cp):
    rng = np.random.default_rng(8)
    host = _random(rng, (64, 1000, 3), "float32")
    x = cp.asarray(host)
    assert plan_array(x, (0, 1)).strategy == "interleave"
    _check(cp, host, x, (0, 1))
    got = xp.sum(x, axis=(0, 1), keepdims=True)
    assert got.shape == (1, 1, 3)


def test_interleave_int64_exact_and_many_blocks(cp):
    host = np.full((300_001, 3), (1 << 60) + 1, dtype=np.int64)
    host[::2, 1] = -(1 << 60)
    x = cp.asarray(host)
    assert plan_array(x, (0,)).strategy == "interleave"
    np.testing.assert_array_equal(cp.asnumpy(xp.sum(x, axis=0)), np.sum(host, axis=0))


def test_interleave_nan(cp):
    host = _random(np.random.default_rng(2), (10_000, 3), "float32")
    host[7777, 1] = np.nan
    x = cp.asarray(host)
    for f in ("sum", "min", "max"):
        got = cp.asnumpy(getattr(xp, f)(x, axis=0))
        np.testing.assert_array_equal(np.isnan(got), [False, True, False], err_msg=f)


# ----------------------------------------------------------------------------- outer -> short
@pytest.mark.parametrize("dtype", _DTYPES)
def test_transposed_short_rows(cp, dtype):
    """(k, n) arrays used as .T (and reversed) reduced over their short axis."""
    rng = np.random.default_rng(9)
    for k in (2, 3, 4, 7, 16, 32):
        host = _random(rng, (k, 5003), dtype)
        dev = cp.asarray(host)
        for x, h in ((dev.T, host.T), (dev[::-1].T, host[::-1].T), (dev[:, ::-1].T, host[:, ::-1].T)):
            assert plan_array(x, (1,)).strategy == "short"
            _check(cp, h, x, 1)


# ----------------------------------------------------------------------------- random
@st.composite
def _particle_views(draw):
    n = draw(st.sampled_from([1, 2, 255, 256, 1000, 4099, 33_333]))
    k = draw(st.integers(1, 33))
    order = draw(st.sampled_from(["nk", "kn"]))            # (n, k) or a (k, n) as .T
    rev = draw(st.sampled_from([(1, 1), (-1, 1), (1, -1), (-1, -1)]))
    start = draw(st.integers(0, 1))
    dtype = draw(st.sampled_from(["float32", "float64", "int64", "uint16", "bool"]))
    axis = draw(st.sampled_from([0, 1, -1, None, (0, 1)]))
    return n, k, order, rev, start, dtype, axis, draw(st.integers(0, 2**16))


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(_particle_views())
def test_particle_shapes_against_numpy(cp, desc):
    n, k, order, rev, start, dtype, axis, seed = desc
    rng = np.random.default_rng(seed)
    shape = (n + start, k + start) if order == "nk" else (k + start, n + start)
    base = _random(rng, shape, dtype)

    def view(a):
        a = a[start:, start:]
        a = a if order == "nk" else a.T
        return a[::rev[0], ::rev[1]]

    host, x = view(base), view(cp.asarray(base))
    assert x.shape == host.shape and x.strides == host.strides
    _check(cp, host, x, axis, ("sum", "min", "max"))


# ----------------------------------------------------------------------------- short, vectors
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
def test_short_vector_loads_give_the_bits_of_scalar_loads(cp, dtype):
    """Rows of whole 16-byte vectors at an aligned address load whole vectors; the
    same rows one element off alignment load scalars; both fold each row in order,
    so the bits agree, and agree with NumPy (integers, min/max) or its bound (sums)."""
    from xstride._kernels._geometry import reduction_geometry

    rng = np.random.default_rng(13)
    per = 16 // np.dtype(dtype).itemsize
    for k in (4 * per,):     # rows of SHORT_VECTOR_ROW_BYTES (64), a vector apart (rows
        w = k + per          # stored one after another would be "lanes" rows)
        flat = _random(rng, (4099 * w + 1,), dtype)
        dflat = cp.asarray(flat)
        aligned = dflat[:-1].reshape(4099, w)[:, :k]
        shifted = dflat[1:].reshape(4099, w)[:, :k]
        vecs = []
        for x in (aligned, shifted):
            p = plan_array(x, (1,))
            assert p.strategy == "short"
            vecs.append(reduction_geometry(p, x.itemsize, 132,
                                           x.data.ptr + p.offset * x.itemsize).vec)
        assert vecs == [per, 1], vecs
        a = cp.asnumpy(xp.sum(aligned, axis=1))
        moved = cp.zeros((4099, w), dtype=dtype)
        moved[:, :k] = shifted                  # the same values, aligned, the same layout
        b = cp.asnumpy(xp.sum(moved[:, :k], axis=1))
        c = cp.asnumpy(xp.sum(dflat[:-1].reshape(4099, w)[:, :k], axis=1))
        assert a.tobytes() == c.tobytes()
        host = flat[1:].reshape(4099, w)[:, :k]
        s1 = cp.asnumpy(xp.sum(shifted, axis=1))
        assert s1.tobytes() == b.tobytes()
        _check(cp, host, shifted, 1, ("sum", "max", "var"))
        _check(cp, flat[:-1].reshape(4099, w)[:, :k], aligned, 1, ("sum", "min", "mean"))


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint8"])
def test_tile_byte_words_at_every_offset(cp, dtype):
    """1-byte elements stage the 16-byte words that hold a tile's span: views that start
    at every offset within a word, reversed rows, rows with gaps, partial last tiles,
    all/any and the sums as NumPy's (against the element path of "short")."""
    rng = np.random.default_rng(41)
    base = (rng.random(16 + 3 * 70_003) < 0.7) if dtype == "bool" else \
        rng.integers(0, 4, 16 + 3 * 70_003).astype(dtype)
    dev = cp.asarray(base)
    seen = 0
    for shift in range(16):
        n = 70_003 - (shift % 3)
        h = base[shift:shift + 3 * n].reshape(n, 3)
        x = dev[shift:shift + 3 * n].reshape(n, 3)
        for hv, xv in ((h, x), (h[::-1], x[::-1]), (h[:, :2], x[:, :2])):
            if plan_array(xv, (1,)).strategy != "tile":
                continue
            seen += 1
            np.testing.assert_array_equal(xp.all(xv, axis=1).get(), hv.all(axis=1))
            np.testing.assert_array_equal(xp.any(xv, axis=1).get(), hv.any(axis=1))
            np.testing.assert_array_equal(xp.sum(xv, axis=1).get(), cnp.sum(hv, axis=1))
            np.testing.assert_array_equal(xp.max(xv, axis=1).get(), hv.max(axis=1))
    assert seen >= 40


@pytest.mark.parametrize("dtype", ["float32", "int32", "uint8", "bool", "int16", "float16"])
@pytest.mark.parametrize("k", [2, 3, 4, 6, 8, 12, 16, 24, 32, 64, 128, 192])
def test_register_rows_give_the_staged_tiles_bits(cp, monkeypatch, dtype, k):
    """Short dense rows folded in registers (``xs_reduce_rowregs``, 16-byte words, a last
    group of fewer rows, reversed rows, float rows whose halves cancel) give the bits of
    the plan's own kernel (the staged tile, "lanes" or "short"; ``TUNING["red_regs"] =
    0``) for every op at each MINB of the knob, in the first and
    the prepared call; the same shape off the 16-byte boundary stays staged and right."""
    from xstride._kernels import _reduce_common as rc
    rng = np.random.default_rng(90 + k)
    n = 50_003
    dt = np.dtype(dtype)
    h = _random(rng, (n + 1, k), dt)
    if dt.kind == "f" and k >= 4:
        # rows whose second half cancels: a float sum depends on the fold's order (a
        # "lanes" plan's two halves, then their sum), so the bits below test it
        big = 2.0 ** (14 if dt == np.float16 else 60)
        h[::97, 0], h[::97, k // 2], h[::97, k // 2 + 1] = 1, big, -big
    flat = cp.asarray(h).ravel()
    aligned = flat[:n * k].reshape(n, k)
    shifted = flat[k:].reshape(n, k)              # k elements on: off the boundary for odd k
    views = {"dense": aligned, "reversed": aligned[:, ::-1], "shifted": shifted}
    ops = ["sum", "min", "max", "all", "any"] + ([] if dt.kind == "b" else ["prod", "mean"])

    def run(knob):
        monkeypatch.setitem(rc.TUNING, "red_regs", knob)
        _fresh_caches(monkeypatch)
        return {(v, op, i): cp.asnumpy(getattr(xp, op)(x, axis=1)).tobytes()
                for v, x in views.items() for op in ops for i in range(2)}

    want = run(0)
    for knob in rc.VARIANTS["red_regs"]:
        if knob:
            assert run(knob) == want, knob
    # the staged kernel (and so the register one) against NumPy
    hv = cp.asnumpy(aligned)
    for op in ("min", "max", "all", "any"):
        got = np.frombuffer(want["dense", op, 0], getattr(np, op)(hv[:1], axis=1).dtype)
        assert np.array_equal(got, getattr(np, op)(hv, axis=1)), op
    # which kernel ran: registers for the aligned rows where 16-byte words hold them
    from xstride._kernels import reduce_rows
    from xstride._kernels import reductions as red
    monkeypatch.setitem(rc.TUNING, "red_regs", 4)
    for name, x in views.items():
        _fresh_caches(monkeypatch)
        xp.max(x, axis=1)                       # outputs of the input's size
        (rec,) = red._RECIPES.values()
        base = x.data.ptr + rec.plan.offset * dt.itemsize
        regs = reduce_rows.rows_q(plan_array(x, (1,)), x, "max", frozenset(), base, dt) > 0
        assert regs == (bool(reduce_rows.regs_q(k, dt.itemsize)) and base % 16 == 0 and (
            rec.plan.strategy in ("tile", "short")
            or rec.plan.strategy == "lanes" and k * dt.itemsize == 32)), (name, k)
        assert (rec.kind == "rowregs") == regs, (name, rec.kind)
