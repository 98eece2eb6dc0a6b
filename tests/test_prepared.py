"""The prepared-call mechanism shared by the CUDA executors (xstride/_kernels/_prepared.py):
its key rules, its store and gate, and that each executor keys by the current device."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import xstride as xp
from xstride._kernels import _prepared
from xstride._kernels._prepared import GATE, Store, args_ok, axis_ok, dtype_ok, flag_ok

from tests.conftest import FakeCupyArray


class Named:   # np.dtype(Named) reads Named.dtype, which may change between calls
    dtype = np.dtype(np.float32)


AXES = [None, 0, -1, 3, (), (0, 1), (0, -1), True, False, 1.0, np.int64(1), (True,), (1.0,),
        (np.int64(0),), [0], "0"]
DTYPES = [None, np.dtype(np.float64), np.dtype(np.float32), np.float32, np.uint16, float, int,
          bool, complex, "float32", "f8", Named, [np.float32], 1, 1.0, True, np.str_("f4")]
FLAGS = [True, False, 1, 0, np.bool_(True), None, "yes"]


def test_key_rules_take_only_unambiguous_arguments():
    """Only values that cannot compare equal to a value of another meaning key a
    prepared call (1 == True == 1.0): the rest take the checked path, which rejects
    them or handles them."""
    assert all(axis_ok(a) for a in (None, 0, -1, (), (0, 1), (2, 0)))
    assert not any(axis_ok(a) for a in (True, 1.0, np.int64(1), (True,), (1.0,),
                                        (np.int64(0),), [0], "0"))
    assert all(dtype_ok(d) for d in (None, np.dtype(np.float64), np.float32, np.uint16,
                                     float, int, bool, complex))
    # a dtype string names one dtype for good (reductions have always keyed these)
    assert dtype_ok("float32") and dtype_ok("f8")
    assert not dtype_ok(np.str_("f4"))                  # str subclasses: the checked path
    assert np.dtype(Named) == np.float32 and not dtype_ok(Named)
    assert not any(dtype_ok(d) for d in ([np.float32], 1, 1.0, True))
    assert flag_ok(True) and flag_ok(False)
    assert not any(flag_ok(f) for f in (1, 0, np.bool_(True), None))
    assert _prepared.PY_SCALARS == {bool, int, float, complex}
    assert np.float64 in _prepared.DTYPE_TYPES and object not in _prepared.DTYPE_TYPES


def test_args_ok_is_the_three_rules_at_once():
    for a, d, f in itertools.product(AXES, DTYPES, FLAGS):
        assert args_ok(a, d, f) == (axis_ok(a) and dtype_ok(d) and flag_ok(f)), (a, d, f)


def test_store_is_bounded_and_opens_the_gate(fake_cupy, monkeypatch):
    monkeypatch.setattr(GATE, "nd", None)
    monkeypatch.setattr(GATE, "getdev", GATE.getdev)
    GATE.close()
    assert GATE.nd is None and GATE.getdev() == -1
    store = Store(2)
    run = store.prepare("a", lambda: 1, fake_cupy)
    assert run() == 1 and store.get("a") is run
    assert GATE.nd is fake_cupy.ndarray
    fake_cupy.current.device = 3
    assert GATE.getdev() == 3
    store.prepare("b", lambda: 2, fake_cupy)
    store.prepare("c", lambda: 3, fake_cupy)
    assert list(store) == ["b", "c"]                     # the oldest went first


def test_elementwise_keys_by_current_device(fake_cupy, monkeypatch):
    """The elementwise prepared calls and launch entries are per current device (the
    compiled kernel is): another device (with arrays of its own) misses and launches
    its own entry."""
    from xstride._kernels import _elementwise_exec as ex

    monkeypatch.setattr(ex, "function", lambda name, *, code=None, options=(), **_:
                        fake_cupy.RawModule(code=code, options=options).get_function(name))
    monkeypatch.setattr(ex, "CACHE", True)
    ex.clear_caches()
    try:
        on = {d: FakeCupyArray(np.arange(8, dtype=np.float32), device=d) for d in (0, 1)}
        fake_cupy.launches.clear()
        for dev in (0, 0, 1, 1, 0):
            fake_cupy.current.device = dev
            assert xp.add(on[dev], on[dev]).shape == (8,)
        assert len(fake_cupy.launches) == 5                  # every call launched
        assert len(ex.CALLS) == 2 and len(ex._launch_cache) == 2
        assert {k[2] for k in ex.CALLS} == {0, 1}
    finally:
        ex.clear_caches()


def test_elementwise_scalar_calls_are_prepared(fake_cupy, monkeypatch):
    """An array and a Python scalar (``add(x, 2.5)``) repeat through the prepared call:
    one key per scalar type (not per value), no checked path on the repeat, and each
    launch takes that call's value; a scalar first (``add(2.5, x)``) keys a call of
    its own."""
    from xstride._kernels import _elementwise_exec as ex

    monkeypatch.setattr(ex, "function", lambda name, *, code=None, options=(), **_:
                        fake_cupy.RawModule(code=code, options=options).get_function(name))
    monkeypatch.setattr(ex, "CACHE", True)
    ex.clear_caches()
    try:
        x = FakeCupyArray(np.arange(8, dtype=np.float32))
        fake_cupy.launches.clear()
        xp.add(x, 2.5)
        checked, prepare = [], ex._prepare
        monkeypatch.setattr(ex, "_prepare", lambda *a, **k: checked.append(a) or prepare(*a, **k))
        for v in (0.5, -7.25, 3.0):
            assert xp.add(x, v).shape == (8,)
            assert float(fake_cupy.launches[-1][3][-1]) == v   # this call's value
        assert xp.multiply(x, 2).dtype == np.float32          # a new key: checked path
        assert len(checked) == 1
        assert len(fake_cupy.launches) == 5                  # every call launched
        assert [k[-1] for k in ex.CALLS] == [float, int]     # by the scalar's type
        assert ex.repeat2("add", x, 1.5) is not None and ex.repeat2("add", 1.5, x) is None
    finally:
        ex.clear_caches()
