"""The CUDA elementwise engine and CuPy views against NumPy on the same data (H200)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import xstride as xp
from xstride.layout import Layout

pytestmark = pytest.mark.gpu


def _rand(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    if dt == np.bool_:
        return rng.random(shape) < 0.5
    if dt.kind in "iu":
        lo, hi = (0, 100) if dt.kind == "u" else (-50, 50)
        return rng.integers(lo, hi, size=shape).astype(dt)
    return rng.standard_normal(shape).astype(dt)


def _kind():
    from xstride._kernels import _elementwise_exec

    return _elementwise_exec.last_kind


# ---------------------------------------------------------------- views on CuPy
def test_issue_examples_cupy(cp):
    a5 = cp.arange(5)
    np.testing.assert_array_equal(xp.as_strided(a5, (5,), (-1,), offset=4).get(), [4, 3, 2, 1, 0])
    with pytest.raises(ValueError, match="outside the underlying buffer"):
        xp.as_strided(cp.arange(4), (3,), (2,))
    np.testing.assert_array_equal(xp.as_strided(cp.arange(4), (4,), (-1,), offset=3).get(),
                                  [3, 2, 1, 0])
    assert Layout.from_array(xp.broadcast_to(cp.arange(3), (2, 3))).strides == (0, 1)
    a = cp.arange(5)
    xp.subtract(a[1:], a[:-1], out=a[1:])
    np.testing.assert_array_equal(a.get(), [0, 1, 1, 1, 1])
    z = xp.as_strided(cp.arange(3.0), (0, 4), (5, -9))
    assert z.shape == (0, 4) and float(xp.sum(z)) == 0.0
    assert xp.add(z, cp.ones(4)).shape == (0, 4)


def test_as_strided_cupy_bounds_and_zero_copy(cp):
    base = cp.arange(10.0)
    v = base[4:6]
    full = xp.as_strided(v, (10,), (1,), offset=-4)
    np.testing.assert_array_equal(full.get(), np.arange(10.0))
    full[0] = -1.0
    assert float(base[0]) == -1.0
    for shape, strides, off in [((11,), (1,), -4), ((2,), (-1,), -4), ((3,), (3,), 1)]:
        with pytest.raises(ValueError, match="outside"):
            xp.as_strided(v, shape, strides, offset=off)
    w = xp.sliding_window_view(cp.arange(6.0), 3)
    np.testing.assert_array_equal(w.get(), np.lib.stride_tricks.sliding_window_view(
        np.arange(6.0), 3))


# ---------------------------------------------------------------- fast paths
N0, N1, N2 = 37, 66, 35  # odd sides: partial tiles and misaligned rows


@pytest.mark.parametrize("case, kind", [
    ("contig", "flat"), ("same_perm", "flat"), ("x_plus_yT", "tiled"),
    ("two_perms", "tiled"), ("row", "flat2d"), ("slice_scalar", "flat2d"),
    ("reverse", "nd"), ("strided_out", "nd"),
])
def test_fast_paths_match_numpy(cp, case, kind):
    x = _rand((N0, N1, N2), np.float32, 1)
    y = _rand((N0, N1, N2), np.float32, 2)
    gx, gy = cp.asarray(x), cp.asarray(y)
    if case == "contig":
        got, want = xp.add(gx, gy), x + y
    elif case == "same_perm":
        got, want = xp.add(gx.transpose(2, 0, 1), gy.transpose(2, 0, 1)), \
            x.transpose(2, 0, 1) + y.transpose(2, 0, 1)
    elif case == "x_plus_yT":
        y2 = _rand((N1, N2, N0), np.float32, 3)
        got, want = xp.add(gx, cp.asarray(y2).transpose(2, 0, 1)), x + y2.transpose(2, 0, 1)
    elif case == "two_perms":
        y2 = _rand((N1, N2, N0), np.float32, 3)
        got = xp.subtract(gx.transpose(2, 0, 1), cp.asarray(y2).transpose(1, 2, 0))
        want = x.transpose(2, 0, 1) - y2.transpose(1, 2, 0)
    elif case == "row":
        r = _rand((N2,), np.float32, 4)
        got, want = xp.add(gx, cp.asarray(r)), x + r
    elif case == "slice_scalar":
        got, want = xp.multiply(gx[:, ::2, :], 2), x[:, ::2, :] * 2
    elif case == "reverse":
        got, want = xp.maximum(gx, gy[::-1, :, ::-1]), np.maximum(x, y[::-1, :, ::-1])
    else:
        out = cp.full((N0, N1, 2 * N2), cp.nan, dtype=cp.float32)
        got = xp.add(gx, gy, out=out[:, :, ::2])
        want = x + y
        assert cp.isnan(out[:, :, 1::2]).all()
    assert _kind() == kind
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got.get(), want)


@pytest.mark.parametrize("cols", [1024, 1030, 4095, 8190, 9000])
@pytest.mark.parametrize("dtype", ["float32", "int64", "uint8"])
def test_long_rows_row_tiles_match_numpy(cp, cols, dtype):
    """Rows of at least 1024 vectors take the row-tiled "rows"/"nd" kernel (a block
    iteration per tile of one row): slices one element off alignment (a Jacobi step's
    operands), a repeated column, a reversed axis, an output given with out=, several
    rows per outer index (3-D); bit-equal to NumPy, for row lengths on and off the tile
    size."""
    from xstride._kernels import _elementwise_exec as ex
    from xstride._kernels._geometry import row_tiles_fit

    u = _rand((7, cols + 2), dtype, 5)
    g = cp.asarray(u)
    col = _rand((5, 1), dtype, 6)
    cases = [
        (lambda: xp.add(g[2:, 1:-1], g[:-2, 2:]), lambda: u[2:, 1:-1] + u[:-2, 2:], ("rows",)),
        (lambda: xp.multiply(g[1:-1, :-2], cp.asarray(col)), lambda: u[1:-1, :-2] * col, ("rows",)),
        (lambda: xp.subtract(g[::-2, 1:-1], g[:4:1, 2:]), lambda: u[::-2, 1:-1] - u[:4, 2:],
         ("rows",)),
        (lambda: xp.maximum(g[:, ::-1][:, 1:-1], g[:, 2:]),
         lambda: np.maximum(u[:, ::-1][:, 1:-1], u[:, 2:]), ("nd", "rows")),
        # one row: a work item's second row is past the end
        (lambda: xp.add(g[3:4, ::-1][:, 1:-1], g[4:5, 2:]),
         lambda: u[3:4, ::-1][:, 1:-1] + u[4:5, 2:], ("nd", "rows")),
    ]
    for run, want, kind in cases:
        got = run()
        assert ex.last_kind in kind
        np.testing.assert_array_equal(got.get(), want(), err_msg=f"cols={cols} {kind}")
    assert row_tiles_fit(cols) == (cols in (1024, 4095, 8190, 9000))   # 1030: a tile 1% full
    out = cp.full((5, 2 * cols), 7, dtype=dtype)
    xp.add(g[2:, 1:-1], g[:-2, 1:-1], out=out[:, ::2])
    np.testing.assert_array_equal(out[:, ::2].get(), u[2:, 1:-1] + u[:-2, 1:-1])
    assert (out[:, 1::2] == 7).all()
    v = _rand((3, 4, cols), dtype, 7)
    gv = cp.asarray(v)
    np.testing.assert_array_equal(xp.add(gv[:, 1:, :], gv[:, :-1, :]).get(),
                                  v[:, 1:, :] + v[:, :-1, :])


@pytest.mark.parametrize("cols", [4100, 5220, 8190, 9000])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64", "uint8"])
def test_row_tiles_shifted_neighbours_match_numpy(cp, cols, dtype):
    """Row tiles over inputs that are one buffer shifted along the row (a stencil's
    left and right neighbours): every shift from -6 to 6, rows whose last tile ends
    inside a warp (5220: a second step of 100 columns; 4100: 4), and a fused stencil of
    four shifted views and a row below, traced and then prepared: bit-equal to NumPy."""
    from xstride._kernels import _elementwise_exec as ex
    from xstride._kernels._geometry import row_tiles_fit

    assert row_tiles_fit(cols)
    u = _rand((6, cols + 12), dtype, 11)
    g = cp.asarray(u)

    def at(a, d):
        return a[1:-1, 6 + d:6 + d + cols]

    for d in range(-6, 7):
        got = xp.add(at(g, 0), at(g, d))
        assert ex.last_kind == "rows"
        np.testing.assert_array_equal(got.get(), at(u, 0) + at(u, d), err_msg=f"d={d}")
    got = xp.subtract(at(g, 3), at(g, -1))
    np.testing.assert_array_equal(got.get(), at(u, 3) - at(u, -1))
    if dtype in ("float32", "float64", "int32"):
        @xp.fuse(strict=True)
        def stencil(a, c):
            return c + (a[1:-1, 7:7 + cols] - a[1:-1, 5:5 + cols]) * 3 + a[2:, 6:6 + cols] \
                - a[1:-1, 4:4 + cols]

        c = at(u, 0)
        want = c + (u[1:-1, 7:7 + cols] - u[1:-1, 5:5 + cols]) * 3 + u[2:, 6:6 + cols] \
            - u[1:-1, 4:4 + cols]
        for _ in range(2):   # the traced call, then the prepared one
            np.testing.assert_array_equal(stencil(g, at(g, 0)).get(), want)


@pytest.mark.parametrize("cols", [205, 300, 510, 1000, 1023])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int16"])
def test_short_row_tiles_match_numpy(cp, cols, dtype):
    """Rows of 205 to 1023 elements: a fused 7-point stencil takes one short tile a step
    (256 or 512 a row, two rows a work item; 300: none fits, the per-vector walk), plain
    calls the per-vector walk (slices of a cube, a broadcast column, out=); bit-equal to
    NumPy and to the unfused run."""
    from xstride._kernels import _elementwise_exec as ex
    from xstride._kernels._geometry import short_row_unroll

    u = _rand((5, 6, cols + 2), dtype, 41)
    g = cp.asarray(u)
    got = xp.add(g[1:-1, 2:, 1:-1], g[1:-1, :-2, 2:])
    assert ex.last_kind in ("rows", "nd")
    np.testing.assert_array_equal(got.get(), u[1:-1, 2:, 1:-1] + u[1:-1, :-2, 2:])
    col = cp.asarray(_rand((4, 1), dtype, 42))
    out = cp.zeros((4, 2 * cols), dtype=dtype)
    xp.multiply(g[0, 1:-1, 1:-1], col, out=out[:, ::2])
    np.testing.assert_array_equal(out[:, ::2].get(), u[0, 1:-1, 1:-1] * col.get())
    assert (out[:, 1::2] == 0).all()
    if dtype != "int16":
        def lap(u, c):
            return c + 3 * (u[2:, 1:-1, 1:-1] + u[:-2, 1:-1, 1:-1] + u[1:-1, 2:, 1:-1]
                            + u[1:-1, :-2, 1:-1] + u[1:-1, 1:-1, 2:] + u[1:-1, 1:-1, :-2]
                            - 6 * c)

        fused = xp.fuse(lap, strict=True)
        c = g[1:-1, 1:-1, 1:-1]
        for _ in range(2):   # traced, then prepared
            np.testing.assert_array_equal(fused(g, c).get(), lap(g, c).get())
    assert short_row_unroll(cols) == {205: 1, 300: 0, 510: 2, 1000: 2, 1023: 2}[cols]


@pytest.mark.parametrize("rows", [2, 3, 8, 9])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32"])
def test_fused_stencil_two_rows_a_work_item_match_the_unfused_run(cp, rows, dtype):
    """A fused call that reads one argument rows apart takes two rows a row tile (the
    last work item half empty for an odd row count): bit-equal to the
    unfused run, plain and 3-D ("nd": rows across the outer index), traced and then
    prepared; a shift along the row alone keeps one row."""
    from xstride._kernels import _elementwise_exec as ex
    from xstride._plans import fusion as fplan

    cols = 4100
    u = _rand((rows + 2, cols + 2), dtype, 31)
    g = cp.asarray(u)

    def jacobi(u, c):
        return c + 3 * (u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2] - 4 * c)

    seen = []
    real = fplan.rows_apart
    fused = xp.fuse(jacobi, strict=True)
    try:
        fplan.rows_apart = lambda *a: seen.append(real(*a)) or seen[-1]
        for _ in range(2):
            got = fused(g, g[1:-1, 1:-1])
            assert ex.last_kind == "rows"
            np.testing.assert_array_equal(got.get(), jacobi(g, g[1:-1, 1:-1]).get())
        w = cp.asarray(_rand((3, rows + 2, cols + 2), dtype, 32))
        stencil = xp.fuse(lambda w: w[:, 2:, 1:-1] - w[:, :-2, 1:-1] * 2, strict=True)
        got = stencil(w[:, :, ::-1])   # reversed rows: "nd", rows across the outer index
        wr = w[:, :, ::-1]
        np.testing.assert_array_equal(got.get(), (wr[:, 2:, 1:-1] - wr[:, :-2, 1:-1] * 2).get())
        shift = xp.fuse(lambda a: a[:, 2:] + a[:, :-2], strict=True)
        np.testing.assert_array_equal(shift(g).get(), (g[:, 2:] + g[:, :-2]).get())
    finally:
        fplan.rows_apart = real
    assert seen == [True, True, False]   # the prepared repeat asks no plan


@pytest.mark.parametrize("dtype", ["float32", "float64", "int8", "int64", "uint16", "uint8",
                                   "float16", "bool"])
def test_flat2d_rows_match_numpy(cp, dtype):
    """x + x[0] and friends on (n, k) arrays: the "flat2d" path (one flat zip, the
    row read at i mod k; 1- and 2-byte rows from the table of the row's rotations)
    for every k that is not a whole number of vectors, with odd n (the flat tail), a
    misaligned base, the row first or second, a scalar beside it, a strided and a
    reversed row, and an output given with out=; bit-equal to NumPy."""
    rng = np.random.default_rng(21)
    dt = np.dtype(dtype)
    seen = set()
    for k in list(range(2, 18)) + [31, 63, 64]:
        base = (rng.standard_normal((1001, k + 1)) * 9).astype(dt)
        for x in (np.ascontiguousarray(base[:, :k]), np.ascontiguousarray(base[:, :k])[1:]):
            g = cp.asarray(x) if x.base is None else cp.asarray(x.base)[1:]
            assert g.strides == x.strides
            row, grow = x[3], g[3]
            cases = [(xp.add(g, grow), x + row), (xp.multiply(grow, g), row * x),
                     (xp.maximum(g, grow), np.maximum(x, row)),
                     (xp.add(g, g[5, ::-1]), x + x[5, ::-1])]
            if dt != np.bool_:
                cases.append((xp.subtract(g, grow), x - row))
            for got, want in cases:
                seen.add(_kind())
                assert got.dtype == want.dtype and got.shape == want.shape
                np.testing.assert_array_equal(got.get(), want, err_msg=f"k={k}")
            srow = cp.asarray(np.repeat(row, 2))[::2]           # a strided row
            np.testing.assert_array_equal(xp.add(g, srow).get(), x + row)
            out = cp.empty_like(g)
            assert xp.add(g, grow, out=out) is out
            np.testing.assert_array_equal(out.get(), x + row)
    assert "flat2d" in seen


@pytest.mark.parametrize("dtype", ["float32", "float64", "int16"])
def test_flat2d_transposed_short_operands_match_numpy(cp, dtype):
    """x + y.T with y of shape (k, n) (the tiled path needs k >= 8): k = 2..7, plain,
    reversed and offset views, two transposed operands, odd n; bit-equal to NumPy."""
    rng = np.random.default_rng(22)
    dt = np.dtype(dtype)
    for k in range(2, 8):
        xh = (rng.standard_normal((1003, k)) * 5).astype(dt)
        yh = (rng.standard_normal((k, 1004)) * 5).astype(dt)
        x, y = cp.asarray(xh), cp.asarray(yh)
        for got, want in ((xp.add(x, y[:, 1:].T), xh + yh[:, 1:].T),
                          (xp.subtract(y[:, :-1].T, x), yh[:, :-1].T - xh),
                          (xp.multiply(x, y[::-1, 1:].T), xh * yh[::-1, 1:].T),
                          (xp.add(y[:, 1:].T, y[:, :-1].T), yh[:, 1:].T + yh[:, :-1].T)):
            np.testing.assert_array_equal(got.get(), want, err_msg=f"k={k}")
        xp.add(x, y[:, 1:].T)
        assert _kind() == "flat2d"


def test_in_place_transposed_and_overlap(cp):
    x = _rand((40, 33, 50), np.float32, 5)
    y = _rand((50, 33, 40), np.float32, 6)
    gx = cp.asarray(x)
    res = xp.add(gx, cp.asarray(y).transpose(2, 1, 0), out=gx)
    assert res is gx and _kind() == "tiled"
    np.testing.assert_array_equal(gx.get(), x + y.transpose(2, 1, 0))
    s = _rand((70, 70), np.float64, 7)
    gs = cp.asarray(s)
    xp.add(gs, gs.T, out=gs)
    np.testing.assert_array_equal(gs.get(), s + s.T)
    a = _rand((1000,), np.int64, 8)
    ga = cp.asarray(a)
    xp.add(ga[1:], ga[:-1], out=ga[1:])
    a[1:] += a[:-1].copy()
    np.testing.assert_array_equal(ga.get(), a)
    b = _rand((1000,), np.float32, 9)
    gb = cp.asarray(b)
    xp.multiply(gb[:-3], gb[3:], out=gb[3:])
    b[3:] = b[:-3] * b[3:]
    np.testing.assert_array_equal(gb.get(), b)


def test_bad_inputs(cp):
    gx = cp.asarray(_rand((4, 5), np.float32))
    with pytest.raises(ValueError, match=r"\(4, 5\) and \(4,\)"):
        xp.add(gx, cp.ones(4, cp.float32))
    with pytest.raises(TypeError, match=r"^subtract: argument 'x1' got cupy\.ndarray\(shape=\(3,\), "
                                        r"dtype=bool\); expected a numeric array"):
        xp.subtract(cp.ones(3, bool), cp.ones(3, bool))
    with pytest.raises(TypeError, match="same_kind"):
        xp.add(gx, gx, out=cp.zeros((4, 5), cp.int32))
    with pytest.raises(ValueError, match="shape"):
        xp.add(gx, gx, out=cp.zeros((5, 4), cp.float32))
    with pytest.raises(TypeError, match="different backends|cupy.ndarray"):
        xp.add(gx, gx, out=np.zeros((4, 5), np.float32))
    with pytest.raises(ValueError, match="overlaps itself"):
        xp.add(gx[0], gx[0], out=xp.as_strided(cp.zeros(5, cp.float32), (5,), (0,)))
    with pytest.raises(ValueError, match="overlaps itself"):
        xp.add(gx, gx, out=xp.as_strided(cp.zeros(20, cp.float32), (4, 5), (1, 1)))
    with pytest.raises(TypeError, match="Python scalar"):
        xp.add(gx, [1, 2])
    with pytest.raises(OverflowError):
        xp.add(cp.arange(3, dtype=cp.uint8), 300)


@pytest.mark.parametrize("name, nin", [("sqrt", 1), ("exp", 1), ("isnan", 1), ("sign", 1),
                                       ("atan2", 2), ("pow", 2), ("hypot", 2)])
def test_library_functions_refuse_an_out_that_overlaps_itself(cp, name, nin):
    """CuPy's own functions (not the engine's) given an ``out`` of one element for five
    indices: the dispatch's check (``_backends/out_overlap.py``), the NumPy backend's
    error, before CuPy writes; a strided ``out`` that reaches each element once is
    taken (tests/test_out_self_overlap.py holds the NumPy backend's sweep)."""
    args = [cp.linspace(0.1, 0.9, 5, dtype=cp.float32)] * nin
    want = getattr(xp, name)(*args)
    buf = cp.zeros(1, want.dtype)
    with pytest.raises(ValueError, match=rf"^{name}: argument 'out' overlaps itself"):
        getattr(xp, name)(*args, out=xp.as_strided(buf, (5,), (0,)))
    assert not bool(buf.any())
    strided = cp.zeros(10, want.dtype)[::2]
    getattr(xp, name)(*args, out=strided)
    np.testing.assert_array_equal(strided.get(), want.get())


# ---------------------------------------------------------------- properties
@st.composite
def strided(draw):
    rank = draw(st.integers(0, 4))
    shape = tuple(draw(st.lists(st.integers(0, 9), min_size=rank, max_size=rank)))
    perm = draw(st.permutations(range(rank)))
    steps = tuple(draw(st.sampled_from([1, 1, 2, -1, -3])) for _ in range(rank))
    bshape = tuple(draw(st.sampled_from([n, 1])) if n else n for n in shape)
    lead = draw(st.integers(0, 1))
    return shape, perm, steps, bshape, lead


def _make_view(cp, shape, perm, steps, seed):
    big = [abs(s) * n for s, n in zip(steps, shape)]
    host = _rand(tuple(big), np.float32, seed)
    v = host[tuple(slice(None, None, s) for s in steps)] if shape else host
    v = v[tuple(slice(0, n) for n in shape)] if shape else v
    dev = cp.asarray(host)
    dv = dev[tuple(slice(None, None, s) for s in steps)] if shape else dev
    dv = dv[tuple(slice(0, n) for n in shape)] if shape else dv
    return (v.transpose(perm), dv.transpose(perm)) if perm else (v, dv)


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(strided())
def test_random_layouts_match_numpy(cp, case):
    shape, perm, steps, bshape, lead = case
    a, ga = _make_view(cp, shape, perm, steps, 21)
    b = _rand(tuple(bshape[i] for i in perm) if perm else bshape, np.float32, 22)
    b = b.reshape((1,) * lead + b.shape)
    want = a - b
    got = xp.subtract(ga, cp.asarray(b))
    np.testing.assert_array_equal(got.get(), want)
    out = cp.full(want.shape, cp.nan, cp.float32)
    xp.subtract(ga, cp.asarray(b), out=out)
    np.testing.assert_array_equal(out.get(), want)


def test_rank_64_and_64bit_index(cp):
    shape = (1,) * 60 + (3, 4, 2, 5)
    x = _rand(shape, np.float64, 30)
    axes = tuple(range(60)) + (63, 61, 62, 60)
    got = xp.add(cp.asarray(x).transpose(axes), 1.0)
    np.testing.assert_array_equal(got.get(), x.transpose(axes) + 1.0)
    n = (1 << 31) + 77
    big = cp.zeros(n, dtype=cp.int8)
    big[-5:] = 3
    res = xp.add(big, 1)
    assert _kind() == "flat"
    assert int(res[0]) == 1 and int(res[-1]) == 4 and int(res[n // 2]) == 1
    del big, res


# ---------------------------------------------------------------- ElementwiseKernel
def test_user_elementwise_kernel(cp):
    k = xp.cuda.ElementwiseKernel("T x, T y", "T z", "z = (x - y) * (x - y)", "sqdiff")
    x = _rand((6, 7), np.float32, 40)
    y = _rand((7,), np.float32, 41)
    got = k(cp.asarray(x).T.T, cp.asarray(y))
    np.testing.assert_allclose(got.get(), (x - y) ** 2, rtol=1e-6)
    idx = xp.cuda.ElementwiseKernel("T x", "int64 z", "z = i", "index")
    np.testing.assert_array_equal(idx(cp.asarray(x).T).get(), np.arange(42).reshape(7, 6))
    acc = xp.cuda.ElementwiseKernel("float32 x", "float32 z", "z += x", "acc")
    z = cp.asarray(_rand((6, 7), np.float32, 42))
    z0 = z.get()
    acc(cp.asarray(x), z)
    np.testing.assert_array_equal(z.get(), z0 + x)
    two = xp.cuda.ElementwiseKernel("T x, float64 s", "T a, float64 b", "a = x * 2; b = x + s", "two")
    ga, gb = two(cp.asarray(x), 0.5)
    np.testing.assert_array_equal(ga.get(), x * 2)
    np.testing.assert_allclose(gb.get(), x.astype(np.float64) + 0.5)
    with pytest.raises(NotImplementedError, match="raw"):
        xp.cuda.ElementwiseKernel("raw T x", "T z", "z = x[i]", "r")
    with pytest.raises(TypeError, match="placeholder"):
        k(cp.asarray(x), cp.asarray(x.astype(np.float64)))
    with pytest.raises(TypeError, match="inputs"):
        k(cp.asarray(x))


def test_tiled_kernel(cp):
    """The tiled path's kernel against NumPy, grid loops included."""
    from xstride._kernels import _elementwise_exec as ex

    saved = ex._MAX_GRID_YZ
    ex._launch_cache.clear()
    try:
        for max_yz in (65535, 2):
            ex._MAX_GRID_YZ = max_yz
            ex._launch_cache.clear()
            # 3-D, one rest axis, partial tiles
            x = _rand((70, 3, 130), np.float32, 50)
            y = _rand((130, 3, 70), np.float32, 51)
            got = xp.add(cp.asarray(x), cp.asarray(y).transpose(2, 1, 0))
            assert _kind() == "tiled"
            np.testing.assert_array_equal(got.get(), x + y.transpose(2, 1, 0))
            # in place, the transposed input overlapping the output: it is copied first
            # (C order), so this runs on the rows path; the values must still be NumPy's
            d = _rand((65, 97), np.float64, 52)
            gd = cp.asarray(d)
            xp.subtract(gd[:, :65], gd[:, :65].T, out=gd[:, :65])
            want = d.copy()
            want[:, :65] = d[:, :65] - d[:, :65].T
            np.testing.assert_array_equal(gd.get(), want)
            # float64 through the tiled path, in place (same view in and out)
            e = _rand((40, 3, 50), np.float64, 65)
            f = _rand((50, 3, 40), np.float64, 66)
            ge = cp.asarray(e)
            xp.add(ge, cp.asarray(f).transpose(2, 1, 0), out=ge)
            assert _kind() == "tiled"
            np.testing.assert_array_equal(ge.get(), e + f.transpose(2, 1, 0))
            # two rest axes (not coalescible), 4-D
            a = _rand((33, 3, 2, 40), np.float32, 53)
            b = _rand((40, 2, 3, 33), np.float32, 54)
            got = xp.multiply(cp.asarray(a), cp.asarray(b).transpose(3, 2, 1, 0))
            assert _kind() == "tiled"
            np.testing.assert_array_equal(got.get(), a * b.transpose(3, 2, 1, 0))
            # two transposed inputs of mixed dtypes into a given output, full tiles
            p_ = _rand((64, 96), np.int16, 55)
            q_ = _rand((64, 96), np.float32, 56)
            out = cp.full((96, 64), cp.nan, cp.float32)
            xp.add(cp.asarray(p_).T, cp.asarray(q_).T, out=out)
            assert _kind() == "tiled"
            np.testing.assert_array_equal(out.get(), p_.T + q_.T)
            # the benchmark's layouts, small: x + y.T(2,0,1) (a coalesced 2-D transpose),
            # x.T(2,0,1) + y.T(1,2,0), x += y.T(2,1,0)
            u = _rand((40, 36, 34), np.float32, 57)
            v = _rand((34, 40, 36), np.float32, 58)
            gu, gv = cp.asarray(u), cp.asarray(v)
            np.testing.assert_array_equal(xp.add(gu, gv.transpose(1, 2, 0)).get(),
                                          u + v.transpose(1, 2, 0))
            assert _kind() == "tiled"
            w = _rand((36, 34, 40), np.float32, 59)
            got = xp.add(gu.transpose(2, 0, 1), cp.asarray(w).transpose(1, 2, 0))
            assert _kind() == "tiled"
            np.testing.assert_array_equal(got.get(), u.transpose(2, 0, 1) + w.transpose(1, 2, 0))
            s_ = _rand((34, 36, 40), np.float32, 60)
            gs = cp.asarray(u.copy())
            xp.add(gs, cp.asarray(s_).transpose(2, 1, 0), out=gs)
            assert _kind() == "tiled"
            np.testing.assert_array_equal(gs.get(), u + s_.transpose(2, 1, 0))
            # bools, and a user kernel whose output is read (preloaded)
            m = _rand((64, 40), bool, 61)
            n_ = _rand((40, 64), bool, 62)
            got = xp.logical_xor(cp.asarray(m), cp.asarray(n_).T)
            assert _kind() == "tiled"
            np.testing.assert_array_equal(got.get(), m ^ n_.T)
            acc = xp.cuda.ElementwiseKernel("float32 x", "float32 z", "z += x", "acc_t")
            z0 = _rand((50, 41), np.float32, 63)
            xs = _rand((41, 50), np.float32, 64)
            gz = cp.asarray(z0)
            acc(cp.asarray(xs).T, gz)
            assert _kind() == "tiled"
            np.testing.assert_array_equal(gz.get(), z0 + xs.T)
    finally:
        ex._MAX_GRID_YZ = saved
        ex._launch_cache.clear()


def test_prepared_calls_allocate_plain_cupy_arrays(cp):
    """A repeat call's new output (made by _cupy.empty_maker, not cupy.ndarray's
    constructor) is an ordinary C-order cupy.ndarray that owns its memory."""
    from xstride._kernels._cupy import empty_maker

    a = cp.arange(12, dtype=cp.float32).reshape(3, 4)
    first, again = xp.add(a, a), xp.add(a, a)
    for r in (first, again):
        assert type(r) is cp.ndarray and r.flags.c_contiguous and r.base is None
        assert r.shape == (3, 4) and r.dtype == cp.float32 and r.device == a.device
    assert bool((again == 2 * a).all())
    assert empty_maker(cp) is not cp.ndarray        # the fast constructor is in use here
    f = xp.fuse(lambda x, y: (x * y, x - y))
    f(a, a)
    p, m = f(a, a)
    assert type(p) is type(m) is cp.ndarray and bool((p == a * a).all()) and bool((m == 0).all())


def test_numpy_scalar_operands_are_strong(cp):
    """NumPy scalars given to the engine's functions on CuPy arrays: their own dtype (NEP
    50, as NumPy's ufuncs), on either side, with and without ``out=``, and in ``where``:
    the dtypes and values NumPy gives."""
    x = _rand((5, 7), "float32", 3)
    g = cp.asarray(x)
    for func in ("add", "subtract", "multiply", "maximum"):
        for s in (np.float32(2.5), np.float64(1e-16), np.int64(3), np.bool_(True),
                  np.int8(-2)):
            for args, gargs in (((x, s), (g, s)), ((s, x), (s, g))):
                want = getattr(np, func)(*args)
                got = getattr(xp, func)(*gargs)
                assert got.dtype == want.dtype, (func, s)
                np.testing.assert_array_equal(got.get(), want)
            out = cp.empty(x.shape, want.dtype)
            assert getattr(xp, func)(g, s, out=out) is out
            np.testing.assert_array_equal(out.get(), getattr(np, func)(x, s))
    got = xp.where(g > 0, g, np.float64(3))
    want = np.where(x > 0, x, np.float64(3))
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got.get(), want)
