"""GPU tests of the scans of short rows and series on CuPy arrays (strategies "tile"
and "columns": dense rows, reversed rows, series side by side, rows side by side),
against NumPy and against each other's bits. See tests/test_scans_gpu.py for the
bound of float scans (``_scan_bound``)."""

from __future__ import annotations

import array_api_compat.numpy as cnp
import numpy as np
import pytest

import xstride as xp
from tests.test_scans_gpu import _scan_bound

pytestmark = [pytest.mark.gpu, pytest.mark.usefixtures("poisoned_pool")]


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int8", "bool"])
@pytest.mark.parametrize("k", [2, 3, 4, 7, 16, 32])
def test_short_row_scans(cp, dtype, k):
    """(n, k) arrays, their reversed and strided views and a (k, n) array used as .T,
    scanned along the short axis (strategy "columns": one thread per row) with and
    without the initial zero, against NumPy; cumulative_prod too."""
    from xstride._plans.scan import plan_scan
    from xstride.layout import Layout

    rng = np.random.default_rng(40 + k)
    dt = np.dtype(dtype)
    if dt.kind == "b":
        base = rng.random((3001, 2 * k)) < 0.5
    elif dt.kind == "f":
        base = rng.standard_normal((3001, 2 * k)).astype(dt)
    else:
        base = rng.integers(-3, 4, size=(3001, 2 * k)).astype(dt)
    dev = cp.asarray(base)
    tall = np.ascontiguousarray(base[:, :k].T)
    dense = np.ascontiguousarray(base[:, :k])
    views = [(base[:, :k], dev[:, :k]), (base[::-1, k - 1::-1], dev[::-1, k - 1::-1]),
             (base[:, ::2], dev[:, ::2]), (tall.T, cp.asarray(tall).T),
             (dense, cp.asarray(dense)), (dense[7:], cp.asarray(dense)[7:]),
             (dense[:, ::-1], cp.asarray(dense)[:, ::-1]),
             (dense[5:, ::-1], cp.asarray(dense)[5:, ::-1])]
    for h, x in views:
        # rows one after another, their elements forward or reversed
        dense_rows = abs(h.strides[1]) == h.itemsize and h.strides[0] == k * h.itemsize
        assert plan_scan(Layout.from_array(x), 1, False).strategy == \
            ("tile" if dense_rows else "columns")
        for init in (False, True):
            for f in ("cumulative_sum", "cumulative_prod"):
                got = cp.asnumpy(getattr(xp, f)(x, axis=1, include_initial=init))
                want = getattr(cnp, f)(h, axis=1, include_initial=init)
                assert got.dtype == want.dtype and got.shape == want.shape
                if dt.kind == "f" and f == "cumulative_sum":
                    g = (got[:, 1:] if init else got).astype(np.longdouble)
                    exact, bound = _scan_bound(h, 1)
                    assert np.all(np.abs(g - exact) <= bound), k
                    if init:
                        assert np.all(got[:, 0] == 0)
                elif dt.kind == "f":   # a product of at most 32 terms, in float64
                    np.testing.assert_allclose(got, want, rtol=1e-5 if dt == np.float32
                                               else 1e-12, atol=0)
                else:
                    np.testing.assert_array_equal(got, want)
                if dense_rows and h.strides[1] < 0:   # the bits of a contiguous copy's
                    again = getattr(xp, f)(cp.ascontiguousarray(x), axis=1,
                                           include_initial=init)
                    assert got.tobytes() == cp.asnumpy(again).tobytes(), (f, init)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "uint8"])
@pytest.mark.parametrize("k", [2, 3, 5, 16, 31, 32])
def test_short_row_scan_tile_gives_the_bits_of_columns(cp, dtype, k):
    """Dense rows (strategy "tile") and the same values in rows with a gap after
    them ("columns") scan to the same bits: both fold each row in order (dense float32
    rows of 5 or more elements through the warp scan over words, which carries a row's
    running value from lane to lane); also 3-D (m, n, k) and the staged tile's many
    tiles per block (grid-stride)."""
    from xstride._plans.scan import plan_scan
    from xstride.layout import Layout

    rng = np.random.default_rng(60 + k)
    dt = np.dtype(dtype)
    shape = (40_001, k + 1)
    base = (rng.standard_normal(shape) * 4).astype(dt) if dt.kind == "f" else \
        rng.integers(0, 5, size=shape).astype(dt)
    gapped = cp.asarray(base)[:, :k]
    dense = cp.ascontiguousarray(gapped)
    assert plan_scan(Layout.from_array(dense), 1, False).strategy == "tile"
    assert plan_scan(Layout.from_array(gapped), 1, False).strategy == "columns"
    for f in ("cumulative_sum", "cumulative_prod"):
        for init in (False, True):
            a = getattr(xp, f)(dense, axis=1, include_initial=init)
            b = getattr(xp, f)(gapped, axis=1, include_initial=init)
            assert a.dtype == b.dtype and a.shape == b.shape
            assert cp.asnumpy(a).tobytes() == cp.asnumpy(b).tobytes(), (f, init)
    # a tile staged past the threads' register loads (NV = 1: the loop after them);
    # two blocks, each taking many tiles (the grid stride, with the next tile's loads
    # in flight), forward and reversed rows
    from xstride._kernels import scans as ks

    want_bits = cp.asnumpy(xp.cumulative_sum(dense, axis=1)).tobytes()
    rev = cp.ascontiguousarray(dense[:, ::-1])[:, ::-1]      # the same values, reversed
    for name, value in (("scan_tile_loads", lambda *a: 1), ("SHORT_MAX_BLOCKS", 2)):
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(ks, name, value)
            mp.setitem(ks.rc.TUNING, "scan_warp", (0, 0))   # the staged tile itself
            ks._RECIPES.clear()
            ks._PREPARED.clear()
            assert cp.asnumpy(xp.cumulative_sum(dense, axis=1)).tobytes() == want_bits, name
            assert cp.asnumpy(xp.cumulative_sum(rev, axis=1)).tobytes() == want_bits, name
    ks._RECIPES.clear()
    ks._PREPARED.clear()
    cube = dense[:40_000].reshape(200, 200, k)
    got = cp.asnumpy(xp.cumulative_sum(cube, axis=2, include_initial=True))
    want = cnp.cumulative_sum(cp.asnumpy(cube), axis=2, include_initial=True)
    assert got.shape == want.shape and got.dtype == want.dtype
    if dt.kind == "f":
        exact, bound = _scan_bound(cp.asnumpy(cube), 2)
        assert np.all(np.abs(got[..., 1:].astype(np.longdouble) - exact) <= bound)
        assert np.all(got[..., 0] == 0)
    else:
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_columns_scan_of_rows_side_by_side_takes_vectors_with_the_same_bits(cp, dtype):
    """"columns" of rows adjacent in memory ((k, n) used as .T, scanned over k): V rows
    per 16-byte access give the bits of one row per thread, for an aligned input, a
    misaligned one (the kernel's own fallback), include_initial and prod; against
    NumPy for the values."""
    from xstride._kernels import _scan_geometry, scans as ks
    from xstride._plans.scan import plan_scan
    from xstride.layout import Layout

    rng = np.random.default_rng(7)
    dt = np.dtype(dtype)
    n = 40_000
    base = (rng.standard_normal((5, n + 4)) * 3).astype(dt) if dt.kind == "f" else \
        rng.integers(-4, 5, size=(5, n + 4)).astype(dt)
    dev = cp.asarray(base)
    views = {"aligned": dev[:, :n].T, "misaligned": dev[:, 1:n + 1].T,
             "k=1": dev[:1, :n].T}
    for name, x in views.items():
        p = plan_scan(Layout.from_array(x), 1, False)
        assert p.strategy == "columns", name
        assert _scan_geometry.columns_vector(p, dt.itemsize, dt.itemsize) == 16 // dt.itemsize
        for f in ("cumulative_sum", "cumulative_prod"):
            for init in (False, True):
                ks._RECIPES.clear()
                ks._PREPARED.clear()
                got = getattr(xp, f)(x, axis=1, include_initial=init)
                with pytest.MonkeyPatch.context() as mp:
                    mp.setattr(ks, "columns_vector", lambda *a: 1)
                    ks._RECIPES.clear()
                    ks._PREPARED.clear()
                    one = getattr(xp, f)(x, axis=1, include_initial=init)
                assert got.dtype == one.dtype and got.shape == one.shape
                assert cp.asnumpy(got).tobytes() == cp.asnumpy(one).tobytes(), (name, f, init)
                want = getattr(cnp, f)(cp.asnumpy(x), axis=1, include_initial=init)
                if dt.kind == "f":
                    np.testing.assert_allclose(cp.asnumpy(got), want, rtol=1e-5, atol=1e-5)
                else:
                    np.testing.assert_array_equal(cp.asnumpy(got), want)
    ks._RECIPES.clear()
    ks._PREPARED.clear()


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "uint8"])
@pytest.mark.parametrize("length,series", [(2, 2), (3, 3), (8, 3), (4, 8), (8, 32), (32, 8), (5, 17)])
def test_short_series_side_by_side_scan_tile(cp, dtype, length, series):
    """C series side by side in dense rows (axis 1 of an (m, L, C) array, strategy
    "tile" with a thread per series) equal NumPy, and give the bits of the same values
    with a gap after each row of series (strategy "columns": the same fold of each
    series in order); with include_initial, sums and products, ragged last tiles and a
    row offset."""
    from xstride._plans.scan import plan_scan
    from xstride.layout import Layout

    rng = np.random.default_rng(1000 * length + series)
    dt = np.dtype(dtype)
    m = 5003
    for f in ("cumulative_sum", "cumulative_prod"):
        if dt.kind == "f":
            base = rng.standard_normal((m, length, series + 1))
            base = (1 + 1e-3 * base if f == "cumulative_prod" else base).astype(dt)
        else:
            base = rng.integers(0, 4, size=(m, length, series + 1)).astype(dt)
        dense = np.ascontiguousarray(base[:, :, :series])
        gap = cp.asarray(base)[:, :, :series]        # the same values, rows with a gap
        for skip in (0, 7):
            h, x, xg = dense[skip:], cp.asarray(dense)[skip:], gap[skip:]
            assert plan_scan(Layout.from_array(x), 1, False).strategy == "tile"
            assert plan_scan(Layout.from_array(xg), 1, False).strategy == "columns"
            for init in (False, True):
                g = cp.asnumpy(getattr(xp, f)(x, axis=1, include_initial=init))
                want = getattr(cnp, f)(h, axis=1, include_initial=init)
                assert g.dtype == want.dtype and g.shape == want.shape
                if dt.kind == "f":
                    np.testing.assert_allclose(g, want, rtol=1e-5 if dt == np.float32
                                               else 1e-12, atol=1e-5)
                else:
                    np.testing.assert_array_equal(g, want)
                # the bits of the one-thread-a-series walk over the same values
                other = cp.asnumpy(getattr(xp, f)(xg, axis=1, include_initial=init))
                assert g.tobytes() == np.ascontiguousarray(other).tobytes(), (f, skip, init)


def _register_cases():
    """(dtype, out, k) of the rows ``xs_scan_rowregs`` takes: 4-byte rows of 1-12
    elements, 2-byte rows of those and of 16 and 24 (32 and 48 bytes)."""
    from xstride._kernels._scan_geometry import scan_regs_rows

    for dtype, out in [("float32", None), ("int32", "int32"), ("uint32", "uint32"),
                       ("float16", None), ("int16", "int16"), ("uint16", "uint16")]:
        for k in (1, 2, 3, 4, 6, 8, 12, 16, 24):
            size = np.dtype(dtype).itemsize
            if scan_regs_rows(k, size, size):
                yield dtype, out, k


@pytest.mark.parametrize("dtype,out,k", list(_register_cases()))
def test_register_rows_give_the_staged_tiles_bits(cp, monkeypatch, dtype, out, k):
    """Short dense rows of 4- and 2-byte elements scanned in registers (``xs_scan_rowregs``:
    whole 16-byte words, forward and reversed rows, a last group of fewer rows) give
    the bits of the staged tile (``TUNING["scan_regs"] = 0``) for sums and products, at
    each MINB of the knob; the same shape and strides off the 16-byte boundary (a
    prepared call of another key) take the staged tile and give its bits too."""
    from xstride._kernels import _reduce_common as rc
    from xstride._kernels import scans as ks

    rng = np.random.default_rng(70 + k)
    n = 100_003
    dt = np.dtype(dtype)
    h = (rng.standard_normal((n, k)) * 3).astype(dt) if dt.kind == "f" else \
        rng.integers(0, 4, size=(n, k)).astype(dt)
    flat = cp.zeros(n * k + 4, dt)
    flat[:n * k] = cp.asarray(h).ravel()
    flat[1:n * k + 1] = flat[:n * k].copy()
    aligned = flat[1:n * k + 1].copy().reshape(n, k)
    shifted = flat[1:n * k + 1].reshape(n, k)          # an element past a 16-byte boundary
    assert aligned.data.ptr % 16 == 0 and shifted.data.ptr % 16 == dt.itemsize
    views = {"dense": aligned, "reversed": aligned[:, ::-1], "shifted": shifted}

    def run(knob):
        monkeypatch.setitem(rc.TUNING, "scan_regs", knob)
        got = {}
        for name, x in views.items():
            for f in ("cumulative_sum", "cumulative_prod"):
                for _ in range(2):                       # checked, then prepared call
                    got[name, f] = cp.asnumpy(getattr(xp, f)(x, axis=1, dtype=out)).tobytes()
        return got

    want = run(0)
    for knob in rc.VARIANTS["scan_regs"]:
        if knob:
            ks._RECIPES.clear()
            assert run(knob) == want, knob
    # both kernels against NumPy (small integers are exact)
    if dt.kind != "f":
        got = np.frombuffer(want["dense", "cumulative_sum"],
                            np.dtype(out or ("int64" if dt.kind == "i" else "uint64")))
        assert np.array_equal(got.reshape(n, k), np.cumsum(h, axis=1, dtype=got.dtype))
    # the launches: the register kernel for the aligned rows only
    from xstride._kernels._scan_geometry import scan_regs_rows
    assert scan_regs_rows(k, dt.itemsize, dt.itemsize)
    monkeypatch.setitem(rc.TUNING, "scan_regs", 2)
    real, seen = rc.kernel, []
    monkeypatch.setattr(rc, "kernel", lambda src, expr, partner=None:
                        seen.append(expr) or real(src, expr, partner))
    names = {}
    for name, x in views.items():
        ks._RECIPES.clear()
        ks._PREPARED.clear()
        seen.clear()
        xp.cumulative_sum(x, axis=1, dtype=out)
        names[name] = list(seen)
    assert all(len(v) == 1 for v in names.values()), names
    assert all("xs_scan_rowregs" in names[v][0] for v in ("dense", "reversed")), names
    assert "xs_scan_tile" in names["shifted"][0], names


@pytest.mark.parametrize("dtype,out", [("float32", None), ("int32", "int32"), ("uint32", "uint32"),
                                       ("float64", None), ("int32", None)])
@pytest.mark.parametrize("k", [2, 5, 7, 9, 13, 16, 24, 31, 32])
def test_warp_rows_give_the_staged_tiles_bits(cp, monkeypatch, dtype, out, k):
    """Short dense rows of 4-byte elements scanned by warps over 16-byte words
    (``xs_scan_warprows``: row heads, carries from lane to lane and from step to step, a
    ragged last word) give the bits of the staged tile (``TUNING["scan_warp"] = (0,
    0)``) for sums and products, at each variant of the knob, in the checked and the
    prepared call; the same rows off the 16-byte boundary, and 8-byte rows or outputs,
    take the staged tile."""
    from xstride._kernels import _reduce_common as rc
    from xstride._kernels import scans as ks

    dt = np.dtype(dtype)
    p = 16 // dt.itemsize
    rng = np.random.default_rng(90 + k)
    n = 100_003
    h = (rng.standard_normal((n, k)) * 3).astype(dt) if dt.kind == "f" else \
        rng.integers(-2, 4, size=(n, k)).astype(dt)
    flat = cp.zeros(n * k + p, dt)
    flat[1:n * k + 1] = cp.asarray(h).ravel()
    aligned = flat[1:n * k + 1].copy().reshape(n, k)
    shifted = flat[1:n * k + 1].reshape(n, k)           # one element past the boundary
    assert aligned.data.ptr % 16 == 0 and shifted.data.ptr % 16 != 0

    def run(knob):
        monkeypatch.setitem(rc.TUNING, "scan_warp", knob)
        ks._RECIPES.clear()
        ks._PREPARED.clear()
        got = {}
        for f in ("cumulative_sum", "cumulative_prod"):
            calls = [cp.asnumpy(getattr(xp, f)(aligned, axis=1, dtype=out)).tobytes()
                     for _ in range(2)]                 # checked, then prepared call
            assert calls[0] == calls[1], (knob, f)
            got[f] = calls[0]
        return got

    want = run((0, 0))
    for knob in rc.VARIANTS["scan_warp"]:
        if knob[1]:
            assert run(knob) == want, knob
    out_dt = xp.cumulative_sum(aligned[:1], axis=1, dtype=out).dtype
    if dt.kind != "f":
        got = np.frombuffer(want["cumulative_sum"], out_dt)
        assert np.array_equal(got.reshape(n, k), np.cumsum(h, axis=1, dtype=got.dtype))
    # the launches: the warp scan for the aligned rows (unless the register scan takes
    # them), the staged tile off the boundary
    from xstride._kernels._scan_geometry import scan_regs_rows

    monkeypatch.setitem(rc.TUNING, "scan_warp", (4, 4))
    real, seen = rc.kernel, []
    monkeypatch.setattr(rc, "kernel", lambda src, expr, partner=None:
                        seen.append(expr) or real(src, expr, partner))
    names = {}
    for name, x in (("aligned", aligned), ("shifted", shifted)):
        ks._RECIPES.clear()
        ks._PREPARED.clear()
        seen.clear()
        xp.cumulative_sum(x, axis=1, dtype=out)
        names[name] = list(seen)
    regs = dt.itemsize == 4 and scan_regs_rows(k, 4, out_dt.itemsize)
    # 8-byte rows or outputs: the staged tile
    warp = dt.itemsize == out_dt.itemsize == 4 and k >= p and not regs
    assert ("xs_scan_rowregs" if regs else "xs_scan_warprows" if warp else "xs_scan_tile") \
        in names["aligned"][0], names
    assert "xs_scan_tile" in names["shifted"][0], names


@pytest.mark.parametrize("dtype,out", [("float32", None), ("int32", "int32")])
@pytest.mark.parametrize("k", [33, 40, 50, 63, 64])
def test_rows_of_33_to_63_elements_take_the_warp_scan(cp, monkeypatch, dtype, out, k):
    """Dense rows of 33 to 63 4-byte elements (a ``"rows"`` plan) run xs_scan_warprows,
    rows of 64 the rows kernels; either way each output is the row folded in element
    order (float32: NumPy's float64 ``cumsum`` rounded once; int32: exact), in the
    checked and the prepared call."""
    from xstride._kernels import _reduce_common as rc
    from xstride._kernels import scans as ks

    dt = np.dtype(dtype)
    rng = np.random.default_rng(k)
    n = 50_001
    h = (rng.standard_normal((n, k)) * 2.0 ** rng.integers(-20, 20, (n, k))).astype(dt) \
        if dt.kind == "f" else rng.integers(-2, 4, size=(n, k)).astype(dt)
    x = cp.asarray(h)
    assert x.data.ptr % 16 == 0
    real, seen = rc.kernel, []
    monkeypatch.setattr(rc, "kernel", lambda src, expr, partner=None:
                        seen.append(expr) or real(src, expr, partner))
    ks._RECIPES.clear()
    ks._PREPARED.clear()
    got = [cp.asnumpy(xp.cumulative_sum(x, axis=1, dtype=out)) for _ in range(2)]
    assert ("xs_scan_warprows" in seen[0]) == (k <= ks.WARP_ROWS_LONGEST), seen
    acc = np.float64 if dt.kind == "f" else np.int32
    want = np.cumsum(h.astype(acc), axis=1).astype(got[0].dtype)
    for g in got:
        assert g.tobytes() == want.tobytes()
