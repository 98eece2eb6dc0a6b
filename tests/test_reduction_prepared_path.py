"""The reductions' prepared calls on the CPU (the stand-in CuPy and kernels of
tests/test_reduction_host_path.py): a repeated call hits and confusable axes are
refused, only safe dtypes are keyed, the key follows the tuning, device and stream, and
the split call is prepared (split from tests/test_reduction_host_path.py, past 560
lines)."""

from __future__ import annotations

import types

import numpy as np
import pytest

import xstride as xp
import xstride._kernels._reduce_common as _rc
import xstride._kernels.reductions as _red

from tests.conftest import FakeCupyArray
from tests.test_reduction_host_path import fake_reductions  # noqa: F401  (fixture)


def test_prepared_call_hits_and_refuses_confusable_axes(fake_reductions):
    cp, log = fake_reductions
    x = FakeCupyArray(np.arange(24.0).reshape(4, 6))
    xp.sum(x, axis=1)
    assert len(_red._CALLS) == 1
    np.testing.assert_array_equal(xp.sum(x, axis=1).get(), np.arange(24.0).reshape(4, 6).sum(1))
    assert len(_red._CALLS) == 1  # a hit, nothing new prepared

    def no_planning(*args):
        raise AssertionError("a repeated call planned again")

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_red, "_recipe", no_planning)
        mp.setattr(_red, "plan_array", no_planning)
        np.testing.assert_array_equal(xp.sum(x, axis=1).get(), [15.0, 51.0, 87.0, 123.0])
    for bad in (1.0, True, (True,), (1.0,)):
        with pytest.raises(TypeError, match="axis"):
            xp.sum(x, axis=bad)
    with pytest.raises(ValueError, match="out of range"):
        xp.sum(x, axis=2)
    with pytest.raises(TypeError, match="dtype"):
        xp.sum(x, axis=1, dtype=[1])
    # dtype= spellings: each its own key, same result dtype
    for dt in (np.float32, "float32", np.dtype(np.float32)):
        r = xp.sum(x, axis=1, dtype=dt)
        assert r.dtype == np.float32
        np.testing.assert_array_equal(r.get(), np.arange(24.0).reshape(4, 6).sum(1))
    # keepdims=1 is no bool: refused (issue 15 item 12), never served as True
    with pytest.raises(TypeError, match="sum: argument 'keepdims' got int 1; expected a bool"):
        xp.sum(x, axis=1, keepdims=1)


def test_prepared_call_keys_only_safe_dtypes(fake_reductions, monkeypatch):
    """A ``dtype=`` outside the key rules (``_prepared.dtype_ok``: a class whose
    ``dtype`` attribute may change) runs the checked path every time and is never
    prepared; a dtype string is prepared once."""
    cp, log = fake_reductions

    class Named:
        dtype = np.dtype(np.float32)

    planned = []
    real = _red._recipe
    monkeypatch.setattr(_red, "_recipe", lambda *a: planned.append(a[3]) or real(*a))
    x = FakeCupyArray(np.arange(24.0).reshape(4, 6))
    for dt in (Named, Named, "float32", "float32", np.float32, np.float32):
        r = xp.sum(x, axis=1, dtype=dt)
        assert r.dtype == np.float32
        np.testing.assert_array_equal(r.get(), np.arange(24.0).reshape(4, 6).sum(1))
    assert len(planned) == 4                      # Named twice, the others once each
    assert sorted(str(k[5]) for k in _red._CALLS) == ["<class 'numpy.float32'>", "float32"]


def test_prepared_call_follows_tuning_device_and_stream(fake_reductions, monkeypatch):
    cp, log = fake_reductions
    x = FakeCupyArray(np.random.default_rng(3).standard_normal(20000))
    xp.sum(x)
    xp.sum(x)
    assert log[-1][0] == log[-2][0] and "rows_block" in log[-1][0]
    ws0 = (log[-1][3][3][0], log[-1][3][4][0])  # partials, counters of stream 0
    # another stream: another workspace
    cp.current.stream = types.SimpleNamespace(ptr=77)
    xp.sum(x)
    assert (log[-1][3][3][0], log[-1][3][4][0]) != ws0
    assert set(_red._WORKSPACES) == {(0, 0), (0, 77)}
    cp.current.stream = types.SimpleNamespace(ptr=0)
    xp.sum(x)
    assert (log[-1][3][3][0], log[-1][3][4][0]) == ws0
    # a tuning change is a new key and a new kernel
    monkeypatch.setitem(_rc.TUNING, "rows_block", (4, 4))
    r = xp.sum(x)
    assert ", 4, 4>" in log[-1][0]
    np.testing.assert_allclose(r.get(), x.get().sum(), rtol=1e-12)
    # another current device (with an array of its own): another key
    n = len(_red._CALLS)
    cp.current.device = 1
    x1 = FakeCupyArray(x.get(), device=1)
    xp.sum(x1)
    assert len(_red._CALLS) == n + 1
    xp.sum(x1)
    assert len(_red._CALLS) == n + 1


@pytest.mark.parametrize("func, dtype, axes", [("sum", np.float32, (1, 3)),
                                               ("max", np.float32, (0, 3)),
                                               ("mean", np.float64, (0, 2)),
                                               ("any", np.bool_, (1, 3))])
def test_split_call_is_prepared(fake_reductions, monkeypatch, func, dtype, axes):
    """A reduction that runs as two passes (``split_axes``) leaves one prepared call of
    both passes: the repeat launches the same two kernels on the same grids, plans
    nothing, and gives the same bits."""
    cp, log = fake_reductions
    rng = np.random.default_rng(3)
    shape = (64, 48, 512) if len(axes) == 2 and axes == (0, 2) else (32, 32, 48, 32)
    h = (rng.random(shape) < 0.5 if dtype is np.bool_
         else rng.standard_normal(shape).astype(dtype))
    x = FakeCupyArray(h)
    for keepdims in (False, True):
        before = len(log)
        first = getattr(xp, func)(x, axis=axes, keepdims=keepdims)
        launches = [(e[0], e[1]) for e in log[before:]]
        assert len(launches) == 2, launches   # the two passes
        calls, recipe = [], _red._recipe
        monkeypatch.setattr(_red, "_recipe", lambda *a, **k: calls.append(a))
        again = getattr(xp, func)(x, axis=axes, keepdims=keepdims)
        monkeypatch.setattr(_red, "_recipe", recipe)
        assert calls == []   # the prepared call: no recipe, no plan
        assert [(e[0], e[1]) for e in log[before + 2:]] == launches
        assert again.shape == first.shape and again.dtype == first.dtype
        assert again.get().tobytes() == first.get().tobytes()
        wide = h if dtype is np.bool_ else h.astype(np.float64)
        want = getattr(np, func)(wide, axis=axes, keepdims=keepdims)
        np.testing.assert_allclose(again.get(), want, rtol=1e-6)
    if func in ("sum", "mean"):   # dtype= is part of the key: each call keeps its own
        for _ in range(2):
            f8 = getattr(xp, func)(x, axis=axes, dtype=np.float64)
            assert f8.dtype == np.float64
            np.testing.assert_allclose(f8.get(), getattr(np, func)(
                h.astype(np.float64), axis=axes), rtol=1e-12)
            assert getattr(xp, func)(x, axis=axes).dtype == first.dtype
