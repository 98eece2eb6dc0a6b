"""Property tests on the GPU: reductions and scans of random layouts against NumPy.

Hypothesis draws a view (rank 0-4, permuted, negative and non-unit steps, an offset,
broadcast axes; now and then a long axis, which takes the split and look-back
strategies), a dtype, an axis set and keepdims, and compares every reduction and both
scans with ``array_api_compat.numpy`` on the same view: integers exactly, floats
within the bounds stated in docs/reductions.md.
"""

from __future__ import annotations

import warnings

import array_api_compat.numpy as cnp
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import xstride as xp
from tests.test_reductions_gpu import _assert_sum_close
from tests.test_scans_gpu import _scan_bound

pytestmark = [pytest.mark.gpu, pytest.mark.usefixtures("poisoned_pool")]

_DTYPES = ["int8", "int32", "int64", "uint16", "bool", "float32", "float64"]
#: shapes with one long axis (split reductions, look-back scans), before permutation
_LONG = [(20_011,), (3, 9_001), (9_001, 3), (2, 2, 5_003)]


@st.composite
def views(draw):
    """(shape, steps, offsets, perm, broadcast, dtype, seed): a view description."""
    if draw(st.integers(0, 4)) == 0:
        shape = draw(st.sampled_from(_LONG))
    else:
        rank = draw(st.integers(0, 4))
        shape = tuple(draw(st.lists(st.sampled_from([0, 1, 2, 3, 5, 9, 33]),
                                    min_size=rank, max_size=rank)))
    rank = len(shape)
    steps = tuple(draw(st.sampled_from([1, 1, 2, -1, -3])) for _ in range(rank))
    offsets = tuple(draw(st.integers(0, 1)) for _ in range(rank))
    perm = tuple(draw(st.permutations(range(rank))))
    broadcast = tuple(draw(st.booleans()) and n > 1 and sum(shape) < 200 for n in shape)
    return shape, steps, offsets, perm, broadcast, draw(st.sampled_from(_DTYPES)), draw(
        st.integers(0, 2**16))


def _make(cp, desc):
    """The host view and the device view of one description (same element layout)."""
    shape, steps, offsets, perm, broadcast, dtype, seed = desc
    rng = np.random.default_rng(seed)
    base_shape = tuple(1 if b else abs(s) * n + o
                       for n, s, o, b in zip(shape, steps, offsets, broadcast))
    dt = np.dtype(dtype)
    if dt.kind == "b":
        host = rng.random(base_shape) < 0.5
    elif dt.kind == "f":
        host = (rng.standard_normal(base_shape) * 3 + 0.25).astype(dt)
    else:
        info = np.iinfo(dt)
        host = rng.integers(max(info.min, -50), min(info.max, 50), size=base_shape, dtype=dt)
    host = np.asarray(host)
    dev = cp.asarray(host)

    def view(a, lib):
        idx = tuple(slice(None) if b else (slice(o, None, s) if s > 0 else slice(None, None, s))
                    for s, o, b in zip(steps, offsets, broadcast))
        a = a[idx] if idx else a
        a = a[tuple(slice(0, 1 if b else n) for n, b in zip(shape, broadcast))] if shape else a
        a = lib.broadcast_to(a, shape) if any(broadcast) else a
        return a.transpose(perm) if perm else a

    return view(host, np), view(dev, cp)


@st.composite
def axes(draw, ndim):
    kind = draw(st.integers(0, 3))
    if kind == 0 or ndim == 0:
        return draw(st.sampled_from([None, ()]))
    picked = draw(st.lists(st.integers(0, ndim - 1), unique=True, min_size=1, max_size=ndim))
    picked = [a - ndim if draw(st.booleans()) else a for a in picked]
    return picked[0] if kind == 1 else tuple(picked)


def _compare(got, want, host, axis, keepdims, what):
    assert got.shape == want.shape and got.dtype == want.dtype, what
    if want.dtype.kind != "f":
        np.testing.assert_array_equal(got, want, err_msg=what)
    elif what.startswith("sum"):
        _assert_sum_close(got, host, axis, keepdims)
    else:
        rtol = 1e-4 if want.dtype == np.float32 else 1e-10
        np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol, err_msg=what)


def _order_dependent(host, axis, keepdims):
    """Where the float64 product of ``host`` over ``axis`` can be NaN, 0 or inf by the
    order of its products: its factors above 1 multiply past float64's largest and
    those below 1 (a 0 among them) below its smallest."""
    with np.errstate(divide="ignore"):
        logs = np.log2(np.abs(host.astype(np.float64)))
    big = np.sum(np.where(logs > 0, logs, 0), axis=axis, keepdims=keepdims)
    small = np.sum(np.where(logs < 0, logs, 0), axis=axis, keepdims=keepdims)
    return np.asarray((big >= 1024) & (small <= -1074))


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(desc=views(), data=st.data())
def test_reductions_of_random_layouts(cp, desc, data):
    host, dev = _make(cp, desc)
    axis = data.draw(axes(host.ndim), label="axis")
    keepdims = data.draw(st.booleans(), label="keepdims")
    empty = host.size == 0 or (axis is not None and any(
        host.shape[a] == 0 for a in ((axis,) if isinstance(axis, int) else axis)))
    for f in ("sum", "prod", "min", "max", "mean", "var", "std"):
        if f in ("mean", "var", "std") and host.dtype.kind != "f":
            continue
        what = f"{f} {desc} axis={axis} keepdims={keepdims}"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            try:
                want = getattr(cnp, f)(host, axis=axis, keepdims=keepdims)
            except ValueError:
                assert f in ("min", "max") and empty, what
                with pytest.raises(ValueError, match="zero-size axis"):
                    getattr(xp, f)(dev, axis=axis, keepdims=keepdims)
                continue
            if f == "prod" and host.dtype.kind == "f":
                # float products are carried in float64 and rounded once (NumPy's
                # float32 product can overflow midway where the result is finite)
                got = cp.asnumpy(getattr(xp, f)(dev, axis=axis, keepdims=keepdims))
                wide = np.prod(host.astype(np.float64), axis=axis, keepdims=keepdims)
                want = np.asarray(want)
                assert got.shape == want.shape and got.dtype == want.dtype, what
                # where the float64 product of the factors above 1 overflows and that of
                # those below 1 underflows (or a factor is 0), the result depends on the
                # order of the products: inf * 0 is NaN, 0 * inf too, and a tree's order
                # is not NumPy's; such a result may be NaN, 0 or inf
                torn = _order_dependent(host, axis, keepdims)
                assert np.all(~np.isfinite(got[torn]) | (got[torn] == 0)), what
                np.testing.assert_allclose(got[~torn], wide.astype(want.dtype)[~torn],
                                           rtol=1e-6, atol=0, err_msg=what)
                continue
            got = cp.asnumpy(getattr(xp, f)(dev, axis=axis, keepdims=keepdims))
        _compare(got, np.asarray(want), host, axis, keepdims, what)


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(desc=views(), data=st.data())
def test_scans_of_random_layouts(cp, desc, data):
    host, dev = _make(cp, desc)
    if host.ndim == 0:
        axis = None
    else:
        axis = data.draw(st.integers(-host.ndim, host.ndim - 1), label="axis")
        if host.ndim == 1 and data.draw(st.booleans(), label="None"):
            axis = None
    ii = data.draw(st.booleans(), label="include_initial")
    what = f"{desc} axis={axis} include_initial={ii}"
    for f in ("cumulative_sum", "cumulative_prod"):
        h = host
        if f == "cumulative_prod" and host.dtype.kind == "f":
            h = (1 + 1e-3 * host.astype(np.float64)).astype(host.dtype)   # stays finite
        d = cp.asarray(np.ascontiguousarray(h)) if h is not host else dev
        # a 0-d array scans as one of shape (1,) (array_api_compat fails on 0-d
        # with include_initial)
        want = getattr(cnp, f)(h.reshape(1) if h.ndim == 0 else h, axis=axis,
                               include_initial=ii)
        got = cp.asnumpy(getattr(xp, f)(d, axis=axis, include_initial=ii))
        assert got.shape == want.shape and got.dtype == want.dtype, (f, what)
        if want.dtype.kind != "f":
            np.testing.assert_array_equal(got, want, err_msg=f"{f} {what}")
        elif f == "cumulative_prod":
            rtol = 1e-4 if want.dtype == np.float32 else 1e-11
            np.testing.assert_allclose(got, want, rtol=rtol, err_msg=f"{f} {what}")
        elif want.size:
            ax = 0 if axis is None else axis % max(h.ndim, 1)
            hh = h.reshape(1) if h.ndim == 0 else h
            exact, bound = _scan_bound(hh, ax)
            core = got.take(np.arange(int(ii), got.shape[ax]), axis=ax).astype(np.longdouble)
            assert np.all(np.abs(core - exact) <= bound), (f, what)
            if ii:
                assert np.all(got.take([0], axis=ax) == 0), (f, what)
