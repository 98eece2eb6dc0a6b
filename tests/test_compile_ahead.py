"""``xp.cuda.compile_ahead`` (calls run side by side on threads) and the demo's stand-in
calls (``xstride._cli.demo_ahead``), on the host; on the device: tests/test_cold_start_gpu.py."""

from __future__ import annotations

import threading
import time
import types

import numpy as np
import pytest

import xstride as xp
from xstride import _backends
from xstride import algorithms as alg
from xstride._cli import demo_ahead


def test_every_call_runs_once_on_a_thread_of_its_own():
    seen, lock = [], threading.Lock()
    barrier = threading.Barrier(3, timeout=10)   # only passes if all three run at once

    def call(i):
        def f():
            barrier.wait()
            with lock:
                seen.append((i, threading.current_thread().name))
        return f

    assert xp.cuda.compile_ahead((call(i) for i in range(3)), threads=3) == 3
    assert sorted(i for i, _ in seen) == [0, 1, 2]
    names = {name for _, name in seen}
    assert len(names) == 3 and threading.current_thread().name not in names


def test_no_calls_run_nothing():
    assert xp.cuda.compile_ahead([]) == 0


def test_the_first_error_in_call_order_is_raised_after_every_call_ran():
    ran = []
    late = threading.Event()

    def first():
        late.wait(10)          # raises after the second one has raised
        raise ValueError("first")

    def second():
        late.set()
        raise KeyError("second")

    with pytest.raises(ValueError, match="first"):
        xp.cuda.compile_ahead([first, second, lambda: ran.append(1)])
    assert ran == [1]


@pytest.mark.parametrize("calls, needle", [
    (5, "calls must be an iterable of functions of no arguments; got int"),
    ([lambda: 1, "sum"], r"calls\[1\] must be a function of no arguments; got str"),
])
def test_bad_calls_are_refused_before_anything_runs(calls, needle):
    with pytest.raises(TypeError, match=needle):
        xp.cuda.compile_ahead(calls)


def test_nothing_runs_when_one_item_is_not_callable():
    ran = []
    with pytest.raises(TypeError):
        xp.cuda.compile_ahead([lambda: ran.append(1), None])
    assert ran == []


@pytest.mark.parametrize("device", [True, "0", 0.0])
def test_a_device_that_is_no_int_is_refused(device):
    with pytest.raises(TypeError, match="compile_ahead: argument 'device' got .*expected an "
                                        "int"):
        xp.cuda.compile_ahead([], device=device)


def test_a_negative_device_is_refused_also_without_cupy():
    ran = []
    with pytest.raises(ValueError, match=r"compile_ahead: argument 'device' must be a CUDA "
                                         r"device id \(>= 0\); got -1"):
        xp.cuda.compile_ahead([lambda: ran.append(1)], device=-1)
    assert ran == []


@pytest.mark.parametrize("n, ndim, levels, k_level, voxel", [
    (5000, 3, 10, 5, 0.05),
    (3, 3, 10, 5, None),
    (1, 2, 32, 0, None),
    (70000, 3, 21, 21, None),   # tree levels of more nodes than the host summarizes
    (5000, 3, 1, 1, None),      # more points than keys of 3 bits: stand-in keys repeat
    (3000, 2, 5, 2, 0.2),
])
def test_the_demos_stand_in_calls_are_valid_calls(n, ndim, levels, k_level, voxel):
    be = _backends.get("numpy")
    pos = np.random.default_rng(0).random((n, ndim))
    calls = demo_ahead.calls(xp, alg, np, be, pos, ndim, levels, k_level, voxel)
    assert len(calls) >= 10
    assert xp.cuda.compile_ahead(calls) == len(calls)


def test_threads_caps_the_calls_running_at_once_and_keeps_their_order():
    running, most, started = [0], [0], []
    lock = threading.Lock()

    def call(i):
        def f():
            with lock:
                started.append(i)
                running[0] += 1
                most[0] = max(most[0], running[0])
            threading.Event().wait(0.02)
            with lock:
                running[0] -= 1
        return f

    assert xp.cuda.compile_ahead([call(i) for i in range(7)], threads=2) == 7
    assert most[0] <= 2 and sorted(started) == list(range(7))
    assert started[:2] in ([0, 1], [1, 0]) and started[-1] in (5, 6)
    assert xp.cuda.compile_ahead([call(i) for i in range(3)], threads=1) == 3
    assert started[7:] == [0, 1, 2]


@pytest.mark.parametrize("threads, exc, needle", [
    (0, ValueError, "argument 'threads' must be at least 1; got 0"),
    (-3, ValueError, "must be at least 1; got -3"),
    (2.0, TypeError, "argument 'threads' got float 2.0; expected an int or None"),
    (True, TypeError, "argument 'threads' got bool"),
])
def test_a_bad_thread_count_is_refused(threads, exc, needle):
    with pytest.raises(exc, match=needle):
        xp.cuda.compile_ahead([lambda: 1], threads=threads)


def test_by_default_as_many_calls_run_at_once_as_there_are_cpus(monkeypatch):
    from xstride.cuda import _warm

    monkeypatch.setattr(_warm, "_cpus", lambda: 3)
    running, most, lock = [0], [0], threading.Lock()

    def f():   # slower than the grace: the other threads join
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        threading.Event().wait(4 * _warm.GRACE_S)
        with lock:
            running[0] -= 1

    assert xp.cuda.compile_ahead([f] * 9) == 9
    assert most[0] == 3


def test_with_cupy_a_device_that_does_not_exist_is_refused(fake_cupy):
    ran = []
    with pytest.raises(ValueError, match=r"argument 'device' must be a CUDA device id in "
                                         r"0\.\.1; got 2"):
        xp.cuda.compile_ahead([lambda: ran.append(1)], device=2)
    assert ran == []


def test_with_cupy_each_thread_makes_the_device_current_first(fake_cupy):
    set_to, seen = [], []
    fake_cupy.cuda.runtime.setDevice = set_to.append
    fake_cupy.cuda.get_current_stream = lambda: types.SimpleNamespace(
        synchronize=lambda: seen.append("sync"))
    barrier = threading.Barrier(2, timeout=10)   # the first call waits for the second
    assert xp.cuda.compile_ahead([barrier.wait, barrier.wait], threads=2, device=1) == 2
    assert set_to == [1, 1] and seen == ["sync", "sync"]


def test_quick_calls_run_one_after_another_on_one_thread():
    """Calls that compile nothing (loads from the caches) are fastest one by one."""
    names = []
    calls = [lambda: names.append(threading.current_thread().name)] * 20
    assert xp.cuda.compile_ahead(calls, threads=8) == 20
    assert names == ["xstride-ahead-0"] * 20


def test_an_nvrtc_compile_starts_the_other_threads_at_once(fake_cupy, monkeypatch):
    """CuPy's NVRTC compile (counted by wrapping its private function) starts them long
    before the grace ends (here an hour)."""
    from xstride.cuda import _warm

    monkeypatch.setattr(_warm, "GRACE_S", 3600.0)
    compiled = []
    fake_cupy.cuda.compiler = types.SimpleNamespace(
        _compile_using_nvrtc_no_warning=lambda source, **kw: compiled.append(source))
    fake_cupy.cuda.runtime.setDevice = lambda d: None
    fake_cupy.cuda.get_current_stream = lambda: types.SimpleNamespace(synchronize=lambda: 0)
    barrier = threading.Barrier(2, timeout=10)
    names = []

    def compiling():
        fake_cupy.cuda.compiler._compile_using_nvrtc_no_warning("k", options=())
        barrier.wait()              # passes only once a second thread runs the next call

    def quick():
        names.append(threading.current_thread().name)
        barrier.wait()

    t0 = time.perf_counter()
    assert xp.cuda.compile_ahead([compiling, quick], threads=2) == 2
    assert compiled == ["k"] and names == ["xstride-ahead-1"]
    assert time.perf_counter() - t0 < 5


def test_without_a_compile_to_see_a_slow_call_starts_the_others(monkeypatch):
    from xstride.cuda import _warm

    monkeypatch.setattr(_warm, "GRACE_S", 0.01)
    barrier = threading.Barrier(2, timeout=10)   # passes only with two threads
    assert xp.cuda.compile_ahead([barrier.wait, barrier.wait, lambda: 0], threads=4) == 3


def test_a_failed_device_switch_is_raised_and_runs_nothing(fake_cupy):
    ran = []

    def refuse(d):
        raise RuntimeError("cudaErrorDevicesUnavailable")

    fake_cupy.cuda.runtime.setDevice = refuse
    with pytest.raises(RuntimeError, match="DevicesUnavailable"):
        xp.cuda.compile_ahead([lambda: ran.append(1)], threads=1)
    assert ran == []
