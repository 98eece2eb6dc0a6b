"""all, any, argmin and argmax on the CPU: the arg-reduction plan's index mapping
against NumPy over random views, the CuPy launch path with a stand-in CuPy (the
kernels of ``tests/_fake_arg_kernels.py``, run on the host from the bytes they are
launched with), and every argument error on both backends (the launch geometry:
tests/test_argreductions_geometry.py).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import xstride as xp
import xstride._kernels._reduce_common as _rc
import xstride._kernels.argreductions as _arg
from xstride._plans.argreduction import check_arg_axis, plan_arg_array, walk_position
from xstride._plans.reduction import plan_reduction
from xstride.layout import Layout

from tests._fake_arg_kernels import _better, fake_args  # noqa: F401 - a fixture
from tests.conftest import FakeCupyArray
from tests.test_reduction_host_path import fake_reductions  # noqa: F401 - a fixture
from tests.test_reduction_plan import _offsets


# ----------------------------------------------------------------------------- random views
@st.composite
def views(draw, max_rank=4):
    """(base buffer of unique ids, a NumPy view of it): slices with steps of either
    sign, a permutation, now and then a broadcast axis."""
    rank = draw(st.integers(0, max_rank))
    shape = tuple(draw(st.lists(st.sampled_from([1, 2, 3, 4, 7]), min_size=rank,
                                max_size=rank)))
    steps = tuple(draw(st.sampled_from([1, 2, -1, -2])) for _ in range(rank))
    offs = tuple(draw(st.integers(0, 1)) for _ in range(rank))
    full = tuple(abs(s) * n + o for n, s, o in zip(shape, steps, offs))
    base = np.arange(math.prod(full), dtype=np.int64)
    a = base.reshape(full)
    if rank:
        a = a[tuple(slice(o, None, abs(s)) for s, o in zip(steps, offs))]
        a = a[tuple(slice(0, n) for n in shape)]
        a = a[tuple(slice(None, None, -1) if s < 0 else slice(None) for s in steps)]
    if rank and draw(st.booleans()):
        b = draw(st.integers(0, rank - 1))
        a = np.broadcast_to(a[tuple(slice(0, 1) if i == b else slice(None)
                                    for i in range(rank))], a.shape)
    perm = tuple(draw(st.permutations(range(rank))))
    a = a.transpose(perm) if perm else a
    return base, a


def _row_offsets(plan):
    base = plan.base
    return _offsets(np.array(base.kshape, np.int64), np.array(base.kstride, np.int64)) \
        if base.nk else np.zeros(1, np.int64)


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(v=views(), data=st.data())
def test_walk_gives_the_logical_index(v, data):
    """For every row and every step j of the walk, the element the kernels read
    (offset + row offset + walk offset) is the element at the logical index the walk
    reports: for axis=None the view's C-order flat index; for one axis, the row read
    in index order is a row of the view along that axis."""
    buf, a = v
    addr0 = (a.__array_interface__["data"][0] - buf.__array_interface__["data"][0]) // 8
    axis = data.draw(st.sampled_from([None] + list(range(a.ndim))), label="axis")
    axes = check_arg_axis("argmax", axis, a.ndim)
    plan = plan_arg_array(a, axes)
    assert plan.offset == plan_reduction(Layout.from_array(a), axes).offset
    base = plan.base
    if base.rowlen == 0 or base.nrows == 0:
        return
    if base.rowlen == 1:
        assert plan.rshape == ()
    rows = _row_offsets(plan)
    assert len(rows) == base.nrows
    if axis is None:
        flat = a.ravel()
    else:
        along = np.moveaxis(a, axis, -1).reshape(-1, a.shape[axis])
        firsts = {}
        for r in along:   # rows of a broadcast view repeat: any equal row will do
            firsts.setdefault(tuple(r), True)
    for k in range(base.nrows):
        seq = np.full(base.rowlen, -1, np.int64)
        for j in range(base.rowlen):
            off, idx = walk_position(plan, j)
            assert 0 <= idx < base.rowlen
            assert seq[idx] == -1, "two steps of the walk report one index"
            seq[idx] = buf[addr0 + plan.offset + rows[k] + off]
        if axis is None:
            np.testing.assert_array_equal(seq, flat)
        else:
            assert tuple(seq) in firsts, (a.shape, a.strides, axis, seq)


def test_walk_of_reversed_and_transposed_views():
    a = np.arange(60.0).reshape(3, 4, 5)
    for v in (a[::-1], a[:, ::-1, ::-2], a.transpose(2, 0, 1), a.T[::-1], a[1:, ::2, 1:4]):
        plan = plan_arg_array(v, tuple(range(v.ndim)))
        ids = np.array([v.ravel()[walk_position(plan, j)[1]] for j in range(v.size)])
        base = a.ravel()
        start = (v.__array_interface__["data"][0] - a.__array_interface__["data"][0]) // 8
        got = np.array([base[start + plan.offset + walk_position(plan, j)[0]]
                        for j in range(v.size)])
        np.testing.assert_array_equal(got, ids)


def test_walk_merges_only_where_the_index_stays_exact():
    a = np.zeros((6, 8), np.float32)
    p = plan_arg_array(a, (0, 1))
    assert (p.rshape, p.rstride, p.rweight, p.rbase) == ((48,), (1,), (1,), 0)
    p = plan_arg_array(a[::-1, ::-1], (0, 1))
    assert (p.rshape, p.rstride, p.rweight, p.rbase) == ((48,), (1,), (-1,), 47)
    p = plan_arg_array(a.T, (0, 1))          # memory order is not logical order
    assert p.rshape == (6, 8) and p.rstride == (8, 1) and p.rweight == (1, 6)
    p = plan_arg_array(a, (1,))
    assert (p.rshape, p.rstride, p.rweight, p.rbase) == ((8,), (1,), (1,), 0)
    assert plan_arg_array(a[:, :1], (1,)).rshape == ()


# ----------------------------------------------------------------------------- the launch path
def _host_views(rng, dtype):
    dt = np.dtype(dtype)
    if dt.kind == "f":
        a = rng.integers(-3, 4, size=(6, 7, 5)).astype(dt)      # many ties
        a.ravel()[rng.choice(a.size, 12, replace=False)] = np.nan
        a[1, 2, :] = np.nan                                       # an all-NaN row
    elif dt.kind == "b":
        a = rng.random((6, 7, 5)) < 0.3
        a[2] = False
    else:
        a = rng.integers(0, 4, size=(6, 7, 5)).astype(dt)
    yield a
    yield a[::-1, :, ::-2]
    yield a.transpose(2, 0, 1)
    yield a.T[1:, ::-1]
    yield a[:, 3]
    yield np.broadcast_to(a[:, :1], (6, 4, 5))
    yield a.reshape(-1)[::-1]
    yield a.reshape(42, 5)            # axis 0: a flat run of 5 columns ("interleave")
    yield a.reshape(42, 5)[::-1]
    yield a.reshape(42, 5)[::-2, 1:4]  # 3 columns of rows 10 elements apart
    yield np.concatenate([a.reshape(70, 3)] * 5, axis=1)[:, :15]   # 255-thread blocks


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bool", "int8", "uint16"])
def test_argminmax_through_the_launch_path(fake_args, dtype):
    cp, log = fake_args
    rng = np.random.default_rng(7)
    n = 0
    for h in _host_views(rng, dtype):
        x = FakeCupyArray(h)
        for axis in [None] + list(range(-h.ndim, h.ndim)):
            for keepdims in (False, True):
                for f in ("argmin", "argmax"):
                    want = getattr(np, f)(h, axis=axis, keepdims=keepdims)
                    got = getattr(xp, f)(x, axis=axis, keepdims=keepdims)
                    assert got.dtype == np.int64 and got.shape == np.shape(want), (f, axis)
                    np.testing.assert_array_equal(got.get(), want,
                                                  err_msg=f"{f} {h.shape} {h.strides} {axis}")
                    n += 1
    assert n > 100 and len(log) > 50
    assert {e[0].split("<")[0] for e in log} >= {"xs_arg_thread", "xs_arg_warp",
                                                 "xs_arg_interleave"}


def test_long_rows_are_split_and_combined(fake_args):
    cp, log = fake_args
    rng = np.random.default_rng(8)
    for h, axis in ((rng.integers(0, 50, 20_000).astype(np.float32), None),
                    (rng.integers(0, 50, (3000, 3)).astype(np.float64), 0),
                    (rng.integers(0, 50, (3, 3000)).T.astype(np.int64), 0),
                    (rng.integers(0, 50, (3000, 15)).astype(np.float32), 0)):
        h[h.shape[0] // 2] = np.nan if h.dtype.kind == "f" else h[h.shape[0] // 2]
        x = FakeCupyArray(h)
        for f in ("argmin", "argmax"):
            before = len(log)
            np.testing.assert_array_equal(getattr(xp, f)(x, axis=axis).get(),
                                          getattr(np, f)(h, axis=axis))
            names = [e[0].split("<")[0] for e in log[before:]]
            assert names[-1] == "xs_arg_combine" and len(names) == 2, names


def test_no_kernel_for_one_element_rows_and_empty_outputs(fake_args):
    cp, log = fake_args
    for h, axis in ((np.ones((5, 1)), 1), (np.array(2.5), None), (np.ones((0, 3)), 1),
                    (np.ones((4, 0)), 0)):
        got = xp.argmax(FakeCupyArray(h), axis=axis)
        want = np.argmax(h, axis=axis)
        assert got.shape == np.shape(want) and got.dtype == np.int64
        np.testing.assert_array_equal(got.get(), want)
    assert log == []


# ----------------------------------------------------------------------------- all / any
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bool", "int8", "uint16"])
def test_all_any_through_the_launch_path(fake_reductions, dtype):
    cp, log = fake_reductions
    rng = np.random.default_rng(9)
    dt = np.dtype(dtype)
    h = (rng.random((30, 7, 5)) < 0.8).astype(dt)
    if dt.kind == "f":
        h[h == 0] = -0.0
        h.ravel()[rng.choice(h.size, 40)] = np.nan              # NaN is true
        h[3, :, :] = np.nan
    h[4] = 1
    h[5] = 0
    n = 0
    for v in (h, h[::-1, :, ::-2], h.transpose(2, 0, 1), h[:, 3], h.reshape(-1)[::-1],
              np.ones((2, 0, 3), dt), np.ones((0, 4), dt)):
        x = FakeCupyArray(v)
        for axis in (None, 0, -1, (0, 1), ()):
            if isinstance(axis, tuple) and len(axis) > v.ndim:
                continue
            for keepdims in (False, True):
                for f in ("all", "any"):
                    want = getattr(np, f)(v, axis=axis, keepdims=keepdims)
                    for _ in range(2):   # the second is the prepared call
                        got = getattr(xp, f)(x, axis=axis, keepdims=keepdims)
                        assert got.dtype == np.bool_ and got.shape == np.shape(want)
                        np.testing.assert_array_equal(got.get(), want,
                                                      err_msg=f"{f} {v.shape} {axis}")
                        n += 1
    assert n > 100
    exprs = {e[0] for e in log}
    assert any(e.startswith("xs_reduce_") and "<5, " in e for e in exprs)
    assert any("<6, " in e and ", int, bool," in e for e in exprs)


def test_all_any_of_empty_axes_are_the_identities(fake_reductions):
    cp, log = fake_reductions
    x = FakeCupyArray(np.ones((3, 0), np.float32))
    assert xp.all(x, axis=1).get().tolist() == [True] * 3
    assert xp.any(x, axis=1).get().tolist() == [False] * 3
    assert xp.all(x).get() == np.True_ and xp.any(x).get() == np.False_
    assert xp.all(x, axis=0).shape == (0,)
    assert log == []


# ----------------------------------------------------------------------------- argument errors
@pytest.mark.parametrize("f", ["argmin", "argmax"])
def test_argminmax_argument_errors(fake_args, f):
    fn = getattr(xp, f)
    for a in (np.arange(12.0).reshape(3, 4), FakeCupyArray(np.arange(12.0).reshape(3, 4))):
        with pytest.raises(TypeError, match=f"{f}: argument 'axis' got tuple .*no tuple"):
            fn(a, axis=(0,))
        with pytest.raises(TypeError, match=f"{f}: argument 'axis' got list"):
            fn(a, axis=[1])
        with pytest.raises(TypeError, match=f"{f}: argument 'axis' got bool"):
            fn(a, axis=True)
        with pytest.raises(TypeError, match=f"{f}: argument 'axis' got float"):
            fn(a, axis=1.0)
        with pytest.raises(ValueError, match=f"{f}: argument 'axis' 2 is out of range"):
            fn(a, axis=2)
        with pytest.raises(ValueError, match="-3 is out of range"):
            fn(a, axis=-3)
        with pytest.raises(TypeError, match=f"{f}: argument 'keepdims' got int 1"):
            fn(a, axis=0, keepdims=1)
    for empty, axis, bad in ((np.ones((3, 0)), 1, 1), (np.ones((0, 3)), None, 0),
                             (np.ones((0, 0)), 0, 0), (np.ones(0), None, 0)):
        for a in (empty, FakeCupyArray(empty)):
            with pytest.raises(ValueError, match=f"{f}: argument 'x' of shape .* has the "
                                                 f"zero-size axis {bad}"):
                fn(a, axis=axis)
    for a in (np.ones(3, np.complex128), FakeCupyArray(np.ones(3, np.complex64))):
        with pytest.raises(TypeError, match=f"{f}: argument 'x' got .*complex.*real-valued"):
            fn(a)
    with pytest.raises(ValueError, match="out of range for an array of 0 dimensions"):
        fn(np.array(1.0), axis=0)
    with pytest.raises(TypeError, match=f"{f}: argument 'x' got list"):
        fn([1, 2, 3])
    with pytest.raises(TypeError, match="bool or numeric"):
        fn(FakeCupyArray(np.array(["a", "b"])))


@pytest.mark.parametrize("f", ["all", "any"])
def test_all_any_argument_errors(fake_reductions, f):
    fn = getattr(xp, f)
    for a in (np.arange(12.0).reshape(3, 4), FakeCupyArray(np.arange(12.0).reshape(3, 4))):
        with pytest.raises(TypeError, match=f"{f}: argument 'axis' got float"):
            fn(a, axis=1.0)
        with pytest.raises(TypeError, match=f"{f}: argument 'axis' got bool"):
            fn(a, axis=True)
        with pytest.raises(ValueError, match=f"{f}: argument 'axis' 2 is out of range"):
            fn(a, axis=2)
        with pytest.raises(ValueError, match="names axis 0 twice"):
            fn(a, axis=(0, -2))
        with pytest.raises(TypeError, match=f"{f}: argument 'keepdims' got int 1"):
            fn(a, keepdims=1)
    with pytest.raises(TypeError, match=f"{f}: argument 'x' got list"):
        fn([True], axis=0)


def test_numpy_backend_keeps_numpy_results():
    a = np.array([[1.0, np.nan, 3.0], [0.0, -0.0, 2.0]])
    assert type(xp.argmax(a)) is np.intp or np.isscalar(xp.argmax(a))
    assert xp.argmax(a) == 1 and xp.argmin(a, axis=1).tolist() == [1, 0]
    assert xp.all(a, axis=1).tolist() == [True, False]
    assert xp.any(a[1]).item() is True
    assert xp.argmax(a, axis=-1, keepdims=True).shape == (2, 1)
    assert xp.argmax(np.float64(3.0)) == 0


def test_prepared_argminmax_calls(fake_args, monkeypatch):
    """A repeated call is one lookup and a launch (no checks, no plan), with the same
    result; values that only look equal (True for 1, 1.0, numpy ints) are not served
    by it, and a call that raised prepared nothing."""
    cp, log = fake_args
    h = np.random.default_rng(1).integers(0, 5, (300, 7)).astype(np.float32)
    x = FakeCupyArray(h[::-1])
    want = np.argmax(h[::-1], axis=1, keepdims=True)
    np.testing.assert_array_equal(xp.argmax(x, axis=1, keepdims=True).get(), want)
    assert len(_arg._CALLS) == 1

    def no_planning(*args):
        raise AssertionError("a repeated call planned again")

    before = len(log)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_arg, "_recipe", no_planning)
        mp.setattr(_arg, "plan_arg_array", no_planning)
        for _ in range(2):
            np.testing.assert_array_equal(xp.argmax(x, axis=1, keepdims=True).get(), want)
        with pytest.raises(AssertionError, match="planned again"):
            xp.argmax(x, axis=np.int64(1), keepdims=True)     # no key: the checked path
    assert len(log) == before + 2
    with pytest.raises(TypeError, match="axis"):
        xp.argmax(x, axis=True, keepdims=True)
    with pytest.raises(TypeError, match="keepdims"):
        xp.argmax(x, axis=1, keepdims=1)
    with pytest.raises(ValueError, match="zero-size"):
        xp.argmin(FakeCupyArray(np.ones((2, 0))), axis=1)
    np.testing.assert_array_equal(xp.argmin(x).get(), np.argmin(h[::-1]))
    np.testing.assert_array_equal(xp.argmin(x).get(), np.argmin(h[::-1]))
    assert sorted((k[0], str(k[4])) for k in _arg._CALLS) == [("argmax", "1"),
                                                                ("argmin", "None")]


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(v=views(), data=st.data())
def test_random_views_through_the_launch_path(fake_args, v, data):
    """Random views (reversed, strided, permuted, broadcast) with ties and NaNs through
    the whole CuPy path (plan, descriptor bytes, geometry, stand-in kernels, the
    result's shape and order) against NumPy."""
    buf, a = v
    dtype = data.draw(st.sampled_from(["float32", "float64", "int8", "uint16", "bool"]))
    vals = (buf * 7919) % 5
    if dtype == "bool":
        vals = vals > 2
    else:
        vals = vals.astype(dtype)
        if vals.dtype.kind == "f":
            vals[(buf * 31) % 17 == 3] = np.nan
    view = np.lib.stride_tricks.as_strided(
        vals[(a.__array_interface__["data"][0] - buf.__array_interface__["data"][0]) // 8:],
        a.shape, tuple(s // 8 * vals.itemsize for s in a.strides))
    x = FakeCupyArray(view)
    axis = data.draw(st.sampled_from([None] + list(range(-a.ndim, a.ndim))), label="axis")
    keepdims = data.draw(st.booleans(), label="keepdims")
    for f in ("argmin", "argmax"):
        try:
            want = getattr(np, f)(view, axis=axis, keepdims=keepdims)
        except ValueError:
            with pytest.raises(ValueError, match="zero-size axis"):
                getattr(xp, f)(x, axis=axis, keepdims=keepdims)
            continue
        for _ in range(2):
            got = getattr(xp, f)(x, axis=axis, keepdims=keepdims)
            assert got.shape == np.shape(want) and got.dtype == np.int64
            np.testing.assert_array_equal(got.get(), want, err_msg=f"{f} {a.shape} {axis}")


@pytest.mark.parametrize("knob", [0, 6])
@pytest.mark.parametrize("dtype", ["float32", "int8", "bool", "float64", "float16"])
def test_register_rows_of_argminmax(fake_args, monkeypatch, knob, dtype):
    """Short dense rows read forward whose first row is on a 16-byte boundary go to
    ``xs_arg_rowregs`` (at most 4 rows of at most 48 bytes a thread: rows of 1-byte
    elements need a length with 4 of them in whole words; or one row of whole words of
    at most ARG_ONE_ROW_MOST_BYTES) when ``TUNING["arg_regs"]``
    is not 0; reversed rows, rows off the boundary and 8-byte elements keep the
    one-thread walk. Both give NumPy's first occurrence of the extreme or of the
    first NaN, also with a last, shorter group of rows and in the prepared call."""
    from xstride._kernels._geometry import regs_rows

    cp, log = fake_args
    monkeypatch.setitem(_rc.TUNING, "arg_regs", knob)
    rng = np.random.default_rng(knob + len(dtype))
    dt = np.dtype(dtype)
    taken = 0
    for k in (2, 3, 4, 12, 16, 24, 32, 48, 64):   # 48, 64: medium rows
        n = 263
        if dt.kind == "f":
            a = rng.integers(-2, 3, size=(n + 4, k)).astype(dt)          # many ties
            a.ravel()[rng.choice(a.size, 300, replace=False)] = np.nan
        elif dt.kind == "b":
            a = rng.random((n + 4, k)) < 0.3
        else:
            a = rng.integers(0, 3, size=(n + 4, k)).astype(dt)
        for name, h in (("dense", a[:n]), ("offset", a[1:n + 1]), ("reversed", a[:n, ::-1])):
            x = FakeCupyArray(h)
            q = regs_rows(k, dt.itemsize) if dt.itemsize <= 4 else 0
            if not q and dt.itemsize <= 4 and (k * dt.itemsize) % 16 == 0:
                q = int(k * dt.itemsize <= _arg.ARG_ONE_ROW_MOST_BYTES)   # one row
            want_regs = bool(knob and q and q <= 4 and name != "reversed"
                             and x.data.ptr % 16 == 0)
            for f in ("argmin", "argmax"):
                for _ in range(2):
                    before = len(log)
                    got = getattr(xp, f)(x, axis=1)
                    assert len(log) == before + 1
                    assert log[-1][0].startswith("xs_arg_rowregs" if want_regs else "xs_arg_"), \
                        (name, k, log[-1][0])
                    if not want_regs:
                        assert not log[-1][0].startswith("xs_arg_rowregs")
                    taken += want_regs
                    np.testing.assert_array_equal(got.get(), getattr(np, f)(h, axis=1),
                                                  err_msg=f"{name} k={k} {f}")
    if knob and dt.itemsize <= 4:
        assert taken >= 8, taken
    else:
        assert taken == 0
