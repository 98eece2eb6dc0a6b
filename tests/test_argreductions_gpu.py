"""GPU tests of all, any, argmin and argmax on xstride's kernels, against NumPy on
host copies of the same views.

all/any run as op codes 5/6 of the reduction kernels (every strategy); argmin/argmax
on ``argreductions.cu``. Results must equal NumPy's exactly: ties give the first
occurrence, NaN the first NaN, for every layout (reversed, transposed, sliced,
broadcast views), every strategy (short rows, outer columns, warp rows, split rows
with the combine pass) and run to run. The pool is poisoned (0xFF) so an output the
kernels do not write shows up.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import xstride as xp
from xstride._kernels import _reduce_common as rc
from xstride._kernels.argreductions import pack_desc
from xstride._plans.argreduction import plan_argreduction
from xstride.layout import Layout
from tests.test_reduction_layouts_gpu import axes as axis_sets, views
from tests.test_struct_layouts_gpu import _desc_probe, _probe

pytestmark = [pytest.mark.gpu, pytest.mark.usefixtures("poisoned_pool")]

_DTYPES = ["float32", "float64", "int64", "bool", "int8", "uint16"]
_ARGS = ("argmin", "argmax")


def _data(rng, shape, dtype, *, nan=0.0, ties=True):
    """Random values of ``dtype``: few distinct values (``ties``), a fraction ``nan``
    of NaNs for floats."""
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return rng.random(shape) < 0.5
    if ties:
        a = rng.integers(-4, 5, size=shape)
        if dt.kind == "u":
            a = a + 4
        a = a.astype(dt)
    elif dt.kind == "f":
        a = rng.standard_normal(shape).astype(dt)
    else:
        info = np.iinfo(dt)
        a = rng.integers(max(info.min, -10**6), min(info.max, 10**6), size=shape, dtype=dt)
    if dt.kind == "f" and nan:
        a[rng.random(shape) < nan] = np.nan
    return a


def _make(cp, desc, *, nan, zeros):
    """As tests/test_reduction_layouts_gpu._make, with ties, NaNs and zeros in the
    base buffer (the host view and the device view of one description)."""
    shape, steps, offsets, perm, broadcast, dtype, seed = desc
    rng = np.random.default_rng(seed)
    base_shape = tuple(1 if b else abs(s) * n + o
                       for n, s, o, b in zip(shape, steps, offsets, broadcast))
    host = np.asarray(_data(rng, base_shape, dtype, nan=nan))
    if zeros and host.size and host.dtype.kind != "b":
        host[np.asarray(rng.random(base_shape) < zeros)] = 0
    dev = cp.asarray(host)

    def view(a, lib):
        idx = tuple(slice(None) if b else (slice(o, None, s) if s > 0 else slice(None, None, s))
                    for s, o, b in zip(steps, offsets, broadcast))
        a = a[idx] if idx else a
        a = a[tuple(slice(0, 1 if b else n) for n, b in zip(shape, broadcast))] if shape else a
        a = lib.broadcast_to(a, shape) if any(broadcast) else a
        return a.transpose(perm) if perm else a

    return view(host, np), view(dev, cp)


def _check_arg(cp, f, host, dev, axis, keepdims=False):
    what = f"{f} {host.shape} {host.strides} {host.dtype} axis={axis} keepdims={keepdims}"
    try:
        want = getattr(np, f)(host, axis=axis, keepdims=keepdims)
    except ValueError:
        with pytest.raises(ValueError, match="zero-size axis"):
            getattr(xp, f)(dev, axis=axis, keepdims=keepdims)
        return
    got = getattr(xp, f)(dev, axis=axis, keepdims=keepdims)
    again = getattr(xp, f)(dev, axis=axis, keepdims=keepdims)
    assert got.dtype == np.int64 and got.shape == np.shape(want), what
    g = cp.asnumpy(got)
    np.testing.assert_array_equal(g, want, err_msg=what)
    assert cp.asnumpy(again).tobytes() == g.tobytes(), what


def _check_bool(cp, f, host, dev, axis, keepdims=False):
    what = f"{f} {host.shape} {host.strides} {host.dtype} axis={axis} keepdims={keepdims}"
    want = getattr(np, f)(host, axis=axis, keepdims=keepdims)
    for _ in range(2):   # the second call is the prepared one
        got = getattr(xp, f)(dev, axis=axis, keepdims=keepdims)
        assert got.dtype == np.bool_ and got.shape == np.shape(want), what
        np.testing.assert_array_equal(cp.asnumpy(got), want, err_msg=what)


# ----------------------------------------------------------------------------- random layouts
@settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck))
@given(desc=views(), data=st.data())
def test_argminmax_of_random_layouts(cp, desc, data):
    nan = data.draw(st.sampled_from([0.0, 0.0, 0.02, 0.5, 1.0]), label="nan")
    host, dev = _make(cp, desc, nan=nan, zeros=0.0)
    axis = data.draw(st.sampled_from([None] + list(range(-host.ndim, host.ndim))),
                     label="axis")
    keepdims = data.draw(st.booleans(), label="keepdims")
    for f in _ARGS:
        _check_arg(cp, f, host, dev, axis, keepdims)


@settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck))
@given(desc=views(), data=st.data())
def test_all_any_of_random_layouts(cp, desc, data):
    zeros = data.draw(st.sampled_from([0.0, 0.1, 0.5, 0.97]), label="zeros")
    host, dev = _make(cp, desc, nan=data.draw(st.sampled_from([0.0, 0.3])), zeros=zeros)
    axis = data.draw(axis_sets(host.ndim), label="axis")
    keepdims = data.draw(st.booleans(), label="keepdims")
    for f in ("all", "any"):
        _check_bool(cp, f, host, dev, axis, keepdims)


# ----------------------------------------------------------------------------- particle shapes
def _particle_views(cp, host):
    """(name, host view, device view) of an (n, k) array, its (k, n) transpose of the
    same memory, a (k, n) array used as .T, and reversed and sliced views."""
    dev = cp.asarray(host)
    yield "rows", host, dev
    yield "T", host.T, dev.T
    tr = np.ascontiguousarray(host.T)
    dtr = cp.asarray(tr)
    yield "(k, n).T", tr.T, dtr.T
    yield "reversed", host[::-1, ::-1], dev[::-1, ::-1]
    yield "sliced", host[1::3, 1:], dev[1::3, 1:]


@pytest.mark.parametrize("dtype", _DTYPES)
@pytest.mark.parametrize("k", [1, 2, 3, 4, 5, 8, 16, 33])
@pytest.mark.parametrize("n", [4099, 300_007])
def test_particle_shapes(cp, dtype, k, n):
    rng = np.random.default_rng(k * 7 + n)
    host = _data(rng, (n, k), dtype, nan=0.01)
    for name, h, d in _particle_views(cp, host):
        if h.size == 0:
            continue
        for axis in (None, 0, 1, -1):
            for f in _ARGS:
                _check_arg(cp, f, h, d, axis)
            for f in ("all", "any"):
                _check_bool(cp, f, h, d, axis)
        b = (h != 0) if h.dtype.kind != "b" else h
        db = cp.asarray(np.ascontiguousarray(b))
        for axis in (0, 1):
            _check_bool(cp, "all", b, db, axis)
            _check_bool(cp, "any", b, db, axis)


@pytest.mark.parametrize("dtype", ["int8", "bool", "uint16", "float32"])
@pytest.mark.parametrize("k", [33, 48, 50, 56, 64, 96, 100, 112, 113, 128])
def test_medium_rows_of_narrow_elements(cp, dtype, k):
    """Rows of 33-129 elements over axis 1: 1-byte rows up to 112 elements and 2-byte
    rows up to 56 a thread's (``xs_arg_rowregs`` for whole words of up to 96 bytes,
    the thread walk else), the rest a warp's; dense, offset, reversed and strided
    rows, split rows (few of them) and many, against NumPy with ties."""
    for n in (37, 300_007):
        rng = np.random.default_rng(k + n)
        host = _data(rng, (n + 1, 2 * k), dtype)
        dev = cp.asarray(host)
        for h, d in ((host[:n, :k], dev[:n, :k]), (host[1:, k:], dev[1:, k:]),
                     (host[:n, k - 1::-1], dev[:n, k - 1::-1]),
                     (host[:n, ::2], dev[:n, ::2])):
            for f in _ARGS:
                _check_arg(cp, f, h, d, 1)


# ----------------------------------------------------------------------------- ties and NaN
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n", [1, 2, 7, 31, 32, 33, 1000, 65_537, 2_000_003])
def test_nan_positions_and_ties_in_one_row(cp, dtype, n):
    """NaN first, last, in the middle, several, everywhere; the extreme repeated in
    several chunks of a split row (the first must win); -0.0 against 0.0; inf."""
    rng = np.random.default_rng(n)
    base = rng.integers(-50, 50, n).astype(dtype)
    cases = [base.copy()]
    for pos in ({0}, {n - 1}, {n // 2}, {n // 3, n // 2, n - 1}, set(range(n))):
        a = base.copy()
        a[sorted(pos)] = np.nan
        cases.append(a)
    a = base.copy()
    a[[n // 5, n // 2, n - 1]] = 1000.0          # the max three times, far apart
    a[[n // 4, n - 2]] = -1000.0
    cases.append(a)
    a = np.zeros(n, dtype)
    a[::2] = -0.0
    cases.append(a)
    a = np.full(n, np.inf, dtype)
    a[n // 2:] = -np.inf
    cases.append(a)
    for a in cases:
        d = cp.asarray(a)
        # from the first element, one in (off the 16-byte words of the warp kernel's
        # walk), reversed, strided
        for h, dv in ((a, d), (a[1:], d[1:]), (a[::-1], d[::-1]), (a[::3], d[::3])):
            for f in _ARGS:
                _check_arg(cp, f, h, dv, None)
                _check_arg(cp, f, h, dv, 0)
            for f in ("all", "any"):
                _check_bool(cp, f, h, dv, None)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_all_nan_rows_and_nan_columns(cp, dtype):
    rng = np.random.default_rng(3)
    a = rng.integers(-3, 4, (5000, 7)).astype(dtype)
    a[::7] = np.nan                 # all-NaN rows
    a[:, 3] = np.where(rng.random(5000) < 0.1, np.nan, a[:, 3])
    a[100:4000, 5] = np.nan         # a long NaN run in one column
    for h, d in ((a, cp.asarray(a)), (a.T, cp.asarray(a).T),
                 (np.ascontiguousarray(a.T).T, cp.asarray(np.ascontiguousarray(a.T)).T)):
        for axis in (None, 0, 1):
            for f in _ARGS:
                _check_arg(cp, f, h, d, axis)


@pytest.mark.parametrize("dtype", ["int64", "int8", "uint16", "bool", "int32", "uint64"])
def test_integer_and_bool_extremes(cp, dtype):
    """The type's own lowest/highest values (the kernels' idle-lane identity) must
    still be found at their first position."""
    dt = np.dtype(dtype)
    n = 100_003
    if dt.kind == "b":
        a = np.zeros(n, bool)
        a[[n // 3, n // 2]] = True
    else:
        info = np.iinfo(dt)
        a = np.full(n, info.max, dt)
        a[[n // 2, n - 1]] = info.min
    d = cp.asarray(a)
    for h, dv in ((a, d), (a[::-1], d[::-1]), (a.reshape(-1, 1), d.reshape(-1, 1))):
        for axis in (None, 0):
            for f in _ARGS:
                _check_arg(cp, f, h, dv, axis)
    const = cp.asarray(a[:1]).repeat(n) if dt.kind != "b" else cp.zeros(n, bool)
    for f in _ARGS:
        assert int(getattr(xp, f)(const)) == 0


def test_split_rows_and_outer_columns(cp):
    """Few long rows (split, combined) and few long columns, reversed too."""
    rng = np.random.default_rng(4)
    for shape, axis in (((3, 1_000_003), 1), ((1_000_003, 3), 0), ((9, 200_001), 1),
                        ((200_001, 9), 0), ((4, 5, 100_003), None)):
        h = rng.integers(-20, 21, shape).astype(np.float32)
        d = cp.asarray(h)
        idx = tuple(slice(None, None, -1) for _ in shape)
        t_axis = None if axis is None else h.ndim - 1 - axis
        for hv, dv, ax in ((h, d, axis), (h[idx], d[idx], axis), (h.T, d.T, t_axis)):
            for a in {ax, None}:
                for f in _ARGS:
                    _check_arg(cp, f, hv, dv, a)


@pytest.mark.parametrize("dtype", ["float32", "bool", "int8", "uint8", "uint16", "int32",
                                   "float16"])
def test_rows_side_by_side(cp, monkeypatch, dtype):
    """argmin/argmax over axis 1 of a (k, n) array used as .T (``xs_arg_side``: W rows
    a thread, a 16-byte word a step, 8 rows and 8 bytes for 1-byte rows), forward and
    reversed over k, with ties and NaN (the first NaN wins), and n not a multiple of W
    (the one-thread walk)."""
    from xstride._kernels import argreductions as ka

    real, seen = rc.kernel, []
    monkeypatch.setattr(rc, "kernel", lambda src, expr, partner=None:
                        seen.append(expr) or real(src, expr, partner))
    monkeypatch.setattr(ka, "_RECIPES", type(ka._RECIPES)(64))
    monkeypatch.setattr(ka, "_CALLS", type(ka._CALLS)(64))
    rng = np.random.default_rng(12)
    for k, n in ((3, 1 << 16), (7, 4096 + 16), (5, 4096 + 8), (2, 4096 + 1)):
        if dtype == "bool":
            h = rng.random((k, n)) < 0.5
            h[:, :64] = False                  # rows of no True: index 0
        else:
            h = rng.integers(-3, 4, (k, n)).astype(dtype)
            if dtype in ("float32", "float16"):
                h[k // 2, ::5] = np.nan
                h[:, ::9] = np.nan
        d = cp.asarray(h)
        w = min(16 // h.dtype.itemsize, ka.ARG_SIDE_MOST_ROWS)
        for hv, dv in ((h.T, d.T), (h[::-1].T, d[::-1].T)):
            for f in _ARGS:
                seen.clear()
                _check_arg(cp, f, hv, dv, 1)
                side = [e for e in seen if e.startswith("xs_arg_side")]
                assert bool(side) == (n % w == 0), (k, n, f, seen)
                assert all(e.endswith(f", {w}>") for e in side), (k, n, f, seen)


def test_determinism_run_to_run(cp):
    rng = np.random.default_rng(5)
    h = rng.integers(0, 3, (64, 300_000)).astype(np.float64)
    h[rng.random(h.shape) < 1e-4] = np.nan
    d = cp.asarray(h)
    for axis in (None, 0, 1):
        for f in _ARGS:
            first = cp.asnumpy(getattr(xp, f)(d, axis=axis))
            for _ in range(3):
                assert cp.asnumpy(getattr(xp, f)(d, axis=axis)).tobytes() == first.tobytes()
            np.testing.assert_array_equal(first, getattr(np, f)(h, axis=axis))


# ----------------------------------------------------------------------------- all / any
@pytest.mark.parametrize("dtype", _DTYPES)
def test_all_any_empty_axes_nan_and_signed_zero(cp, dtype):
    dt = np.dtype(dtype)
    e = cp.ones((4, 0, 3), dtype=dt)
    assert cp.asnumpy(xp.all(e, axis=1)).tolist() == [[True] * 3] * 4
    assert cp.asnumpy(xp.any(e, axis=1)).tolist() == [[False] * 3] * 4
    assert bool(xp.all(e)) is True and bool(xp.any(e)) is False
    assert xp.all(e, axis=(0, 2)).shape == (0,)
    assert xp.any(e, axis=1, keepdims=True).shape == (4, 1, 3)
    if dt.kind == "f":
        a = np.array([[np.nan, 1.0], [np.nan, -0.0], [0.0, -0.0]], dt)
        d = cp.asarray(a)
        for axis in (None, 0, 1):
            for f in ("all", "any"):
                _check_bool(cp, f, a, d, axis)


def test_all_any_pick_every_strategy(cp):
    """Every strategy of the reduction plan serves all/any: tile, short, inner (warp
    rows and split rows), outer, interleave, full, copy."""
    from xstride._plans.reduction import plan_array

    rng = np.random.default_rng(6)
    seen = set()
    for shape, axis, transpose in (((40_000, 3), 1, False), ((3, 40_000), 1, True),
                                   ((1000, 500), 1, False), ((2, 3_000_000), 1, False),
                                   ((40_000, 40), 0, False), ((40_000, 5), 0, False),
                                   ((3_000_001,), None, False), ((700, 1), 1, False)):
        h = rng.random(shape) < 0.999
        d = cp.asarray(h)
        if transpose:
            h, d = h.T, d.T
        seen.add(plan_array(h, (axis,) if axis is not None else tuple(range(h.ndim))).strategy)
        for f in ("all", "any"):
            _check_bool(cp, f, h, d, axis)
            _check_bool(cp, f, ~h, ~d, axis)
    assert seen >= {"tile", "short", "inner", "outer", "interleave", "full", "copy"}, seen


# ----------------------------------------------------------------------------- struct layout
@pytest.mark.parametrize("nk,nr", [(2, 3), (5, 1), (0, 2)])
def test_xs_arg_desc(cp, nk, nr):
    """argreductions.cu's descriptor as argreductions.py packs it (pack_desc)."""
    shape = tuple(range(2, 2 + nk + nr))
    lay = Layout(shape, itemsize=4).slice(tuple(slice(None, None, -1) for _ in shape))
    plan = plan_argreduction(lay, tuple(range(nk, nk + nr)))
    ck, cr, desc = pack_desc(plan)
    fields = [("kshape", ck), ("kstride", ck), ("rshape", cr), ("rstride", cr),
              ("rweight", cr), ("nk", 0), ("nr", 0), ("rbase", 0)]
    code = _desc_probe("argreductions.cu", f"xs_arg_desc<{ck}, {cr}>", fields)
    got = _probe(cp, code, "probe", desc.tobytes(), 1 + 2 * ck + 3 * cr + 3)
    b = plan.base
    assert got == [desc.nbytes, *rc.pad(b.kshape, ck, 1), *rc.pad(b.kstride, ck, 0),
                   *rc.pad(plan.rshape, cr, 1), *rc.pad(plan.rstride, cr, 0),
                   *rc.pad(plan.rweight, cr, 0), b.nk, plan.nr, plan.rbase]


@pytest.mark.parametrize("dtype", ["float32", "int32", "int8", "bool", "uint16", "float16"])
@pytest.mark.parametrize("k", [2, 3, 4, 12, 16, 24, 32])
def test_register_rows_of_argminmax_gpu(cp, monkeypatch, dtype, k):
    """Short dense rows in registers (``xs_arg_rowregs``, 16-byte words, a last group
    of fewer rows) give NumPy's first occurrence of the extreme, or of the first NaN,
    at each MINB of ``TUNING["arg_regs"]`` and with it off, for rows on and off the
    16-byte boundary and reversed rows, in the first and the prepared call."""
    from xstride._kernels import argreductions as ka
    from xstride._kernels._geometry import regs_rows

    rng = np.random.default_rng(300 + k)
    dt = np.dtype(dtype)
    n = 100_003
    if dt.kind == "f":
        h = rng.integers(-2, 3, size=(n + 4, k)).astype(dt)
        h.ravel()[rng.choice(h.size, h.size // 50, replace=False)] = np.nan
    elif dt.kind == "b":
        h = rng.random((n + 4, k)) < 0.2
    else:
        h = rng.integers(0, 3, size=(n + 4, k)).astype(dt)
    d = cp.asarray(h)
    views = {"dense": (h[:n], d[:n]), "offset": (h[1:n + 1], d[1:n + 1]),
             "reversed": (h[:n, ::-1], d[:n, ::-1])}
    real, seen = rc.kernel, []
    monkeypatch.setattr(rc, "kernel", lambda src, expr, partner=None:
                        seen.append(expr) or real(src, expr, partner))
    taken = set()
    for knob in rc.VARIANTS["arg_regs"]:
        monkeypatch.setitem(rc.TUNING, "arg_regs", knob)
        for name, (hv, x) in views.items():
            for f in ("argmin", "argmax"):
                want = getattr(np, f)(hv, axis=1)
                ka._RECIPES.clear()
                ka._CALLS.clear()
                seen.clear()
                for _ in range(2):
                    got = cp.asnumpy(getattr(xp, f)(x, axis=1))
                    assert np.array_equal(got, want), (knob, name, f)
                if any(e.startswith("xs_arg_rowregs") for e in seen):
                    taken.add((knob, name))
    q = regs_rows(k, dt.itemsize)
    regs = bool(q) and q <= 4
    if not q and k * dt.itemsize % 16 == 0:     # one row of whole words a thread
        regs = k * dt.itemsize <= ka.ARG_ONE_ROW_MOST_BYTES      # (k <= 32: thread rows)
    assert taken == ({(v, "dense") for v in rc.VARIANTS["arg_regs"] if v}
                     | ({(v, "offset") for v in rc.VARIANTS["arg_regs"] if v}
                        if k * dt.itemsize % 16 == 0 else set()) if regs else set()), taken
