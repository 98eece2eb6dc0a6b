"""Arrays on another device than the current one, on the CPU with the stand-in CuPy.

xstride's kernels launch on CuPy's current device with the arrays' addresses: an array
of another device would fault (or be read across a peer link). Every executor refuses
it with a ``ValueError`` that names the function, the argument and both devices, before
it allocates or launches anything (``xstride/_kernels/_devices.py``); a prepared call
(``_kernels/_prepared.py``) keys each array's device, so an array of another device
misses it and meets the same refusal. Here: the elementwise engine (``xp.add`` and the
other engine functions), ``xp.sum``/``mean``/``var``, ``xp.argmax``,
``xp.cumulative_sum``, ``xp.fuse`` and the Philox functions.
(tests/test_current_device_algorithms.py: the algorithms.)

The stand-in's ``current.device`` is CuPy's current device; an array is made on a
device with ``FakeCupyArray(host, device=d)``, over the same memory where a test wants
a key that differs in the device alone. Launches are counted at the one launcher
(``_launch.Launch``), allocations by the stand-in.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import xstride as xp
from xstride._core.errors import DeviceError
from xstride._kernels import _elementwise_exec as ex
from xstride._kernels import _reduce_common as _rc
from xstride._kernels import argreductions as _arg
from xstride._kernels import fusion as fx
from xstride._kernels import philox as kphilox
from xstride._kernels import reductions as _red
from xstride._kernels import scans as kscans
from xstride._kernels._launch import Launch
from xstride._kernels._lru import Bounded
from xstride._kernels._prepared import GATE, Store

from tests.conftest import FakeCupyArray, FakeMemory
from tests.test_argreductions_host import fake_args  # noqa: F401 - a fixture
from tests.test_fuse_exec import engine_on_stand_in
from tests.test_reduction_host_path import fake_reductions  # noqa: F401 - a fixture


# ----------------------------------------------------------------------------- set-up
@pytest.fixture
def launches(monkeypatch):
    """Every launch of xstride's one launcher in this test (the kernel of each)."""
    log = []
    real = Launch.__call__

    def record(self, *values, **kw):
        log.append(self.kernel)
        return real(self, *values, **kw)

    monkeypatch.setattr(Launch, "__call__", record)
    return log


@pytest.fixture
def engine(fake_cupy, monkeypatch, launches):
    """The engine (and xp.fuse) compiling through the stand-in's recording RawModule,
    with empty caches."""
    GATE.close()
    yield from engine_on_stand_in(fake_cupy, monkeypatch)


def _fresh(fake_cupy, monkeypatch, module, caches: dict):
    """``module``'s caches (name -> an empty cache) replaced for one test, the prepared
    calls' gate closed (a fixture's body); yields the stand-in module."""
    for name, cache in caches.items():
        monkeypatch.setattr(module, name, cache)
    GATE.close()
    _rc._sm_count.cache_clear()
    yield fake_cupy
    _rc._sm_count.cache_clear()


@pytest.fixture
def scans_on(fake_cupy, monkeypatch, launches):
    """The scans on the stand-in (recording kernels), with empty caches."""
    yield from _fresh(fake_cupy, monkeypatch, kscans,
                      {"_RECIPES": Bounded(512), "_PREPARED": Store(1024)})


@pytest.fixture
def philox_on(fake_cupy, monkeypatch, launches):
    """The Philox executor on the stand-in (recording kernels), with empty caches."""
    yield from _fresh(fake_cupy, monkeypatch, kphilox,
                      {"_LAUNCHES": Bounded(256), "_CALLS": Store(512)})


def on(device, a, dtype=np.float64):
    """A stand-in array on ``device`` holding a copy of ``a``."""
    return FakeCupyArray(np.array(a, dtype=dtype), device=device)


def moved(a, device):
    """``a``'s memory seen as an array of ``device``: every key fact equal but the device."""
    mem = FakeMemory(a.data.mem.ptr, a.data.mem.size, device)
    b = FakeCupyArray(a.host, mem=mem, ptr=a.data.ptr, device=device)
    assert b.data.device_id == b.device.id == device and b.data.ptr == a.data.ptr
    return b


def message(func, arg, device=1, current=0):
    return (rf"^{re.escape(func)}: argument '{re.escape(arg)}' is on device {device}, "
            rf"but device {current} is current .*`with cupy\.cuda\.Device\({device}\):`"
            rf".*move the array to device {current}")


def refused(fake, launches, func, arg, call, device=1, current=0):
    """``call()`` raises the device refusal and launches and allocates nothing."""
    before = len(launches), len(fake.allocations)
    with pytest.raises(ValueError, match=message(func, arg, device, current)) as info:
        call()
    assert isinstance(info.value, DeviceError)
    assert (len(launches), len(fake.allocations)) == before
    return info.value


# ----------------------------------------------------------------------------- the engine
def test_the_message_says_what_to_do(engine, launches):
    a, b = on(0, np.arange(5)), on(1, np.arange(5))
    err = refused(engine, launches, "add", "x2", lambda: xp.add(a, b))
    text = str(err)
    assert "never move arrays between devices" in text and "`x2.copy()`" in text
    assert launches == []


#: (call on a, b (device 0), c (device 1), k (a device-0 mask), function, argument)
ENGINE_CALLS = [
    (lambda a, b, c, k: xp.add(c, b), "add", "x1"),
    (lambda a, b, c, k: xp.add(a, c), "add", "x2"),
    (lambda a, b, c, k: xp.add(a, b, out=c), "add", "out"),
    (lambda a, b, c, k: xp.multiply(a, 2.0, out=c), "multiply", "out"),
    (lambda a, b, c, k: xp.negative(c), "negative", "x"),
    (lambda a, b, c, k: xp.where(moved(k, 1), a, b), "where", "condition"),
    (lambda a, b, c, k: xp.where(k, c, 0.5), "where", "x1"),
    (lambda a, b, c, k: xp.where(k, a, b, out=c), "where", "out"),
    (lambda a, b, c, k: xp.astype(c, np.float32), "astype", "x"),
    (lambda a, b, c, k: xp.copy_into(c, a), "copy_into", "dst"),
    (lambda a, b, c, k: xp.copy_into(a, c), "copy_into", "src"),
]


@pytest.mark.parametrize("call, func, arg", ENGINE_CALLS)
def test_engine_functions_refuse_an_array_of_another_device(engine, launches, call, func, arg):
    a, b, c = on(0, np.arange(6.0)), on(0, np.ones(6)), on(1, np.arange(6.0))
    k = on(0, np.arange(6) % 2, bool)
    refused(engine, launches, func, arg, lambda: call(a, b, c, k))
    assert launches == []


def test_engine_runs_on_the_device_made_current(engine, launches):
    engine.current.device = 1
    a, b = on(1, np.arange(6.0)), on(1, np.ones(6))
    for r in (xp.add(a, b), xp.negative(a), xp.astype(a, np.float32), xp.add(a, b, out=b)):
        assert r.shape == (6,) and r.data.device_id == 1
    assert len(launches) == 4


def test_a_prepared_engine_call_misses_for_arrays_of_another_device(engine, launches):
    a0, b0 = on(0, np.arange(8.0)), on(0, np.ones(8))
    o0 = on(0, np.zeros(8))
    for _ in range(2):
        xp.add(a0, b0)
        xp.negative(a0)
        xp.add(a0, b0, out=o0)
    assert len(launches) == 6 and len(ex.CALLS) == 3
    assert ex.repeat2("add", a0, b0) is not None         # prepared: the repeat hits
    assert ex.repeat1("negative", a0) is not None
    assert ex.repeat("add", (a0, b0), o0) is not None
    n = len(launches)
    # the same memory as arrays of device 1: every key fact equal but the device
    a1, b1, o1 = moved(a0, 1), moved(b0, 1), moved(o0, 1)
    assert ex.repeat2("add", a1, b0) is None and ex.repeat2("add", a0, b1) is None
    assert ex.repeat1("negative", a1) is None
    assert ex.repeat("add", (a0, b0), o1) is None
    assert len(launches) == n
    refused(engine, launches, "add", "x1", lambda: xp.add(a1, b1))
    refused(engine, launches, "add", "x2", lambda: xp.add(a0, b1))
    refused(engine, launches, "negative", "x", lambda: xp.negative(a1))
    refused(engine, launches, "add", "out", lambda: xp.add(a0, b0, out=o1))
    assert len(launches) == n


def test_call_key_holds_each_arrays_device(engine):
    a = on(0, np.arange(4.0))
    k0 = ex.call_key("add", (a, a), a, FakeCupyArray, 0)
    assert ex.call_key("add", (a, moved(a, 1)), a, FakeCupyArray, 0) != k0
    assert ex.call_key("add", (a, a), moved(a, 1), FakeCupyArray, 0) != k0


# ----------------------------------------------------------------------------- xp.fuse
def kinetic(m, v):
    return 0.5 * m * v * v


def test_a_fused_call_refuses_an_array_of_another_device(engine, launches):
    f = xp.fuse(kinetic)
    m, v = on(0, np.ones(16)), on(1, np.arange(16.0))
    refused(engine, launches, "fused function kinetic", "v", lambda: f(m, v))
    # refused again on the second call (nothing was prepared), never run unfused
    refused(engine, launches, "fused function kinetic", "v", lambda: f(m, v))
    assert launches == [] and len(fx.PREPARED) == 0


def test_a_fused_reduction_refuses_before_its_reduction(engine, launches):
    energy = xp.fuse(lambda m, v: 0.5 * xp.sum(m * v * v))
    m, v = on(1, np.ones(16)), on(0, np.arange(16.0))
    refused(engine, launches, "fused function <lambda>", "m", lambda: energy(m, v))
    assert launches == []


def test_a_fused_call_runs_on_the_device_made_current(engine, launches):
    f = xp.fuse(kinetic)
    engine.current.device = 1
    out = f(on(1, np.ones(16)), on(1, np.arange(16.0)))
    assert out.shape == (16,) and out.data.device_id == 1
    assert len(launches) == 1 and len(fx.PREPARED) == 1


def test_a_prepared_fused_call_misses_for_arrays_of_another_device(engine, launches):
    f = xp.fuse(kinetic)
    m0, v0 = on(0, np.ones(16)), on(0, np.arange(16.0))
    f(m0, v0)
    f(m0, v0)
    assert len(launches) == 2 and len(fx.PREPARED) == 1
    assert fx.repeat(f, (m0, v0)) is not None
    m1, v1 = moved(m0, 1), moved(v0, 1)
    assert fx.repeat(f, (m1, v0)) is None and fx.repeat(f, (m0, v1)) is None
    n = len(launches)
    refused(engine, launches, "fused function kinetic", "m", lambda: f(m1, v1))
    refused(engine, launches, "fused function kinetic", "v", lambda: f(m0, v1))
    assert len(launches) == n


# ----------------------------------------------------------------------------- reductions
def test_reductions_refuse_an_array_of_another_device(fake_reductions, launches):
    cp, log = fake_reductions
    x = on(1, np.arange(24.0).reshape(4, 6))
    for func, call in (("sum", lambda: xp.sum(x)), ("sum", lambda: xp.sum(x, axis=1)),
                       ("prod", lambda: xp.prod(x, axis=0)), ("max", lambda: xp.max(x)),
                       ("mean", lambda: xp.mean(x, axis=1)), ("var", lambda: xp.var(x)),
                       ("std", lambda: xp.std(x, axis=0)), ("any", lambda: xp.any(x))):
        refused(cp, launches, func, "x", call)
    assert launches == [] and log == []


def test_reductions_run_on_the_device_made_current(fake_reductions, launches):
    cp, log = fake_reductions
    cp.current.device = 1
    host = np.arange(24.0).reshape(4, 6)
    x = on(1, host)
    np.testing.assert_allclose(xp.sum(x, axis=1).get(), host.sum(axis=1))
    np.testing.assert_allclose(xp.mean(x).get(), host.mean())
    assert len(launches) == len(log) == 2


def test_a_prepared_reduction_misses_for_an_array_of_another_device(fake_reductions, launches):
    cp, log = fake_reductions
    x0 = on(0, np.arange(20000.0))
    xp.sum(x0)
    xp.sum(x0)
    assert _red.repeat("sum", x0, None, None, False) is not None
    n = len(launches)
    x1 = moved(x0, 1)
    assert _red.repeat("sum", x1, None, None, False) is None
    refused(cp, launches, "sum", "x", lambda: xp.sum(x1))
    assert len(launches) == n


def test_argreductions_refuse_an_array_of_another_device(fake_args, launches):
    cp, log = fake_args
    x = on(1, np.arange(24.0).reshape(4, 6))
    refused(cp, launches, "argmax", "x", lambda: xp.argmax(x))
    refused(cp, launches, "argmin", "x", lambda: xp.argmin(x, axis=1))
    assert launches == [] and log == []


def test_argmax_runs_on_the_device_made_current(fake_args, launches):
    cp, log = fake_args
    cp.current.device = 1
    host = np.random.default_rng(2).normal(size=(5, 7))
    got = xp.argmax(on(1, host), axis=1)
    np.testing.assert_array_equal(got.get(), host.argmax(axis=1))
    assert len(log) >= 1 and len(launches) >= 1


def test_a_prepared_argmax_misses_for_an_array_of_another_device(fake_args, launches):
    cp, log = fake_args
    x0 = on(0, np.random.default_rng(3).normal(size=(5, 7)))
    xp.argmax(x0, axis=1)
    xp.argmax(x0, axis=1)
    assert _arg.repeat("argmax", x0, 1, False) is not None
    x1 = moved(x0, 1)
    assert _arg.repeat("argmax", x1, 1, False) is None
    n = len(launches)
    refused(cp, launches, "argmax", "x", lambda: xp.argmax(x1, axis=1))
    assert len(launches) == n


# ----------------------------------------------------------------------------- scans
def test_scans_refuse_an_array_of_another_device(scans_on, launches):
    x = on(1, np.arange(10.0))
    refused(scans_on, launches, "cumulative_sum", "x", lambda: xp.cumulative_sum(x))
    refused(scans_on, launches, "cumulative_prod", "x",
            lambda: xp.cumulative_prod(on(1, np.ones((3, 4))), axis=1))
    assert launches == []


def test_cumulative_sum_runs_on_the_device_made_current(scans_on, launches):
    scans_on.current.device = 1
    r = xp.cumulative_sum(on(1, np.arange(10.0)))
    assert r.shape == (10,) and r.data.device_id == 1 and len(launches) == 1


def test_a_prepared_scan_misses_for_an_array_of_another_device(scans_on, launches):
    x0 = on(0, np.arange(10.0))
    xp.cumulative_sum(x0)
    xp.cumulative_sum(x0)
    assert len(launches) == 2
    assert kscans.repeat("sum", x0, None, None, False) is not None
    x1 = moved(x0, 1)
    assert kscans.repeat("sum", x1, None, None, False) is None
    refused(scans_on, launches, "cumulative_sum", "x", lambda: xp.cumulative_sum(x1))
    assert len(launches) == 3


# ----------------------------------------------------------------------------- Philox
def test_philox_refuses_arrays_of_another_device(philox_on, launches):
    c1 = on(1, np.arange(12), np.uint64)
    refused(philox_on, launches, "philox_uniform", "counter",
            lambda: xp.rng.philox_uniform(7, 0, c1))
    refused(philox_on, launches, "philox_normal2", "seed",
            lambda: xp.rng.philox_normal2(on(1, [3], np.uint64), 0, on(0, np.arange(12),
                                                                        np.uint64)))
    refused(philox_on, launches, "philox4x32_10", "counter_words",
            lambda: xp.rng.philox4x32_10(on(1, np.zeros((3, 4)), np.uint32), 0, 0))
    assert launches == []


def test_philox_runs_on_the_device_made_current(philox_on, launches):
    philox_on.current.device = 1
    u = xp.rng.philox_uniform(7, 0, on(1, np.arange(12), np.uint64))
    assert u.shape == (12,) and u.data.device_id == 1 and len(launches) == 1


def test_a_prepared_philox_call_misses_for_a_counter_of_another_device(philox_on, launches):
    c0 = on(0, np.arange(12), np.uint64)
    xp.rng.philox_uniform(7, 0, c0)
    xp.rng.philox_uniform(7, 0, c0)
    assert kphilox.repeat("uniform", 7, 0, c0) is not None
    c1 = moved(c0, 1)
    assert kphilox.repeat("uniform", 7, 0, c1) is None
    n = len(launches)
    refused(philox_on, launches, "philox_uniform", "counter",
            lambda: xp.rng.philox_uniform(7, 0, c1))
    assert len(launches) == n


# ----------------------------------------------------------------------------- user kernels
def test_a_user_elementwise_kernel_refuses_arrays_of_another_device(engine, launches):
    k = xp.cuda.ElementwiseKernel("T x, T y", "T z", "z = x + y", "pair_sum")
    a, b = on(0, np.arange(6.0)), on(1, np.ones(6))
    refused(engine, launches, "pair_sum", "y", lambda: k(a, b))
    refused(engine, launches, "pair_sum", "z", lambda: k(a, a, b))
    assert launches == []
    engine.current.device = 1
    out = k(b, b)
    assert out.shape == (6,) and out.data.device_id == 1 and len(launches) == 1
