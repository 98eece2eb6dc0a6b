"""The CUDA driver's initialisation on a background thread (xstride/_backends/driver_init.py):
what it does with a driver library that answers, fails or is missing (stand-ins for
``ctypes.CDLL``; no GPU needed), and that only the CuPy backend starts it."""

import ctypes
import os
import subprocess
import sys

import pytest

from xstride._backends import driver_init, registry


class FakeDriver:
    """``libcuda.so.1`` as far as the thread calls it; ``fail``: the call that fails."""

    def __init__(self, fail=None):
        self.fail, self.calls = fail, []

    def _call(self, name, result=None):
        def fn(*args):
            self.calls.append(name)
            if result is not None:
                ctypes.cast(args[0], ctypes.POINTER(type(result))).contents.value = result.value
            return 1 if name == self.fail else 0
        return fn

    def __getattr__(self, name):
        return {"cuInit": self._call("cuInit"),
                "cuDeviceGet": self._call("cuDeviceGet", ctypes.c_int(0)),
                "cuDevicePrimaryCtxRetain": self._call("cuDevicePrimaryCtxRetain")}[name]


def _in_a_fresh_process(code: str) -> str:
    """``code`` run by a new interpreter; its stdout (it must end with status 0). The
    interpreter starts on the default backend: under ``XSTRIDE_BACKEND=cupy`` (``make
    test-gpu``) ``import xstride`` imports CuPy, and the thread is rightly not started."""
    env = {k: v for k, v in os.environ.items() if k != "XSTRIDE_BACKEND"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture
def fresh(monkeypatch):
    """A process in which the thread has not been started."""
    monkeypatch.setattr(driver_init, "_thread", None)
    monkeypatch.setattr(driver_init, "outcome", None)


def test_answering_driver_is_initialised_and_the_context_retained(fresh):
    lib = FakeDriver()
    driver_init.start(lambda name: lib).join()
    assert driver_init.wait() == "ok"
    assert lib.calls == ["cuInit", "cuDeviceGet", "cuDevicePrimaryCtxRetain"]


@pytest.mark.parametrize("fail, outcome, calls", [
    ("cuInit", "cuInit failed", 1),
    ("cuDeviceGet", "no device 0", 2),
    ("cuDevicePrimaryCtxRetain", "no primary context", 3),
])
def test_a_failing_call_stops_the_thread_quietly(fresh, fail, outcome, calls):
    lib = FakeDriver(fail)
    driver_init.start(lambda name: lib)
    assert driver_init.wait() == outcome
    assert len(lib.calls) == calls


def test_missing_library_does_nothing(fresh):
    def load(name):
        assert name == "libcuda.so.1"
        raise OSError(f"{name}: cannot open shared object file")
    driver_init.start(load)
    assert driver_init.wait() == "no driver library"


def test_unexpected_error_is_recorded_not_raised(fresh):
    def load(name):
        raise AttributeError("undefined symbol: cuInit")
    driver_init.start(load)
    assert driver_init.wait() == "AttributeError: undefined symbol: cuInit"


def test_started_once_a_process(fresh):
    lib = FakeDriver()
    first = driver_init.start(lambda name: lib)
    second = driver_init.start(lambda name: lib)
    assert first is second
    driver_init.wait()
    assert lib.calls.count("cuInit") == 1


def test_the_process_does_not_end_while_the_thread_is_in_the_driver():
    """A process that ends at once (a command refused, CuPy missing) waits for the
    thread: with a daemon thread, exit's teardown of the driver raced a cuInit or a
    context's creation still running (here a stand-in driver whose calls take 0.1 s each)."""
    code = ("import ctypes, sys, time\n"
            "from xstride._backends import driver_init\n"
            "class Slow:\n"
            "    def __getattr__(self, name):\n"
            "        def call(*args):\n"
            "            time.sleep(0.1)\n"
            "            if name == 'cuDevicePrimaryCtxRetain':\n"
            "                sys.stdout.write('retained\\n'); sys.stdout.flush()\n"
            "            return 0\n"
            "        return call\n"
            "driver_init.start(lambda name: Slow())\n")
    assert _in_a_fresh_process(code) == "retained\n"


def test_wait_before_any_start_is_none(fresh):
    assert driver_init.wait() is None


def test_only_the_cupy_backend_starts_it(fresh, monkeypatch):
    started = []
    monkeypatch.setattr(driver_init, "start", lambda: started.append(True))
    registry.get("numpy").start_device_init()
    registry.get("dask").start_device_init()
    assert started == []
    cupy_backend = registry.get("cupy")
    monkeypatch.setattr(cupy_backend, "_checked", None)
    monkeypatch.delitem(sys.modules, "cupy", raising=False)   # a GPU session imported it
    cupy_backend.start_device_init()
    assert started == [True]


def test_cupy_backend_already_loaded_starts_nothing(fresh, monkeypatch):
    started = []
    monkeypatch.setattr(driver_init, "start", lambda: started.append(True))
    cupy_backend = registry.get("cupy")
    monkeypatch.setattr(cupy_backend, "_checked", object())
    cupy_backend.start_device_init()
    assert started == []


def test_cupy_imported_by_the_process_starts_nothing(fresh, monkeypatch):
    """CuPy imported outside xstride (the backend not loaded yet): no import is left to
    overlap, and the process may use another device than 0."""
    import types

    started = []
    monkeypatch.setattr(driver_init, "start", lambda: started.append(True))
    monkeypatch.setitem(sys.modules, "cupy", types.ModuleType("cupy"))
    cupy_backend = registry.get("cupy")
    monkeypatch.setattr(cupy_backend, "_checked", None)
    cupy_backend.start_device_init()
    assert started == []


def test_demo_starts_it_for_its_backend_before_the_load(monkeypatch):
    from types import SimpleNamespace

    from xstride._cli import demo

    seen = []
    backend = registry.get("numpy")
    monkeypatch.setattr(type(backend), "start_device_init", lambda self: seen.append("start"))

    def load(self):
        seen.append("load")
        raise RuntimeError("stop here")
    monkeypatch.setattr(type(backend), "load", load)
    args = SimpleNamespace(backend="numpy", points=None, n=10, levels=3, level_stats=2,
                           seed=0, voxel=None, out=None, plot=None, json=False)
    assert demo.run(args) == 2
    assert seen == ["start", "load"]


@pytest.mark.parametrize("option", [{"n": 0}, {"seed": -1}, {"voxel": -1.0}])
def test_a_bad_demo_option_starts_no_driver(monkeypatch, capsys, option):
    """A command refused for its options ends at once: it began the driver's start
    (cuInit and a context on device 0) and could end while the thread was inside it."""
    from types import SimpleNamespace

    from xstride._backends.cupy import CupyBackend
    from xstride._cli import demo

    started = []
    monkeypatch.setattr(CupyBackend, "start_device_init", lambda self: started.append(self))
    args = dict(backend="cupy", points=None, n=10, levels=3, level_stats=2, seed=0,
                voxel=None, out=None, plot=None, json=False)
    args.update(option)
    assert demo.run(SimpleNamespace(**args)) == 2
    assert "xstride demo: error: --" in capsys.readouterr().err
    assert started == []


@pytest.mark.gpu
def test_real_driver_in_a_fresh_process():
    """On a CUDA machine the thread initialises the driver and retains device 0's
    primary context, and CuPy works on after it (a fresh process: CuPy not loaded)."""
    code = ("from xstride._backends import driver_init, registry\n"
            "registry.get('cupy').start_device_init()\n"
            "import cupy\n"
            "print(driver_init.wait(60))\n"
            "print(int((cupy.arange(5) * 2).sum()))\n")
    outcome, total = _in_a_fresh_process(code).split()
    if outcome == "no driver library":   # a ROCm build of CuPy: nothing to start
        assert total == "20"
        return
    assert (outcome, total) == ("ok", "20")


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="needs os.fork")
def test_a_forked_child_starts_afresh(fresh):
    """The parent's thread and outcome are not the child's: a child forked after the
    start sees none (it would otherwise wait on a thread it does not have)."""
    import os

    lib = FakeDriver()
    driver_init.start(lambda name: lib).join()
    assert driver_init.outcome == "ok"
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:   # the child: report what it sees, then leave at once
        os.close(read)
        os.write(write, repr((driver_init._thread, driver_init.outcome)).encode())
        os._exit(0)
    os.close(write)
    seen = os.read(read, 200).decode()
    os.close(read)
    os.waitpid(pid, 0)
    assert seen == "(None, None)"
    assert driver_init.outcome == "ok"   # the parent keeps its own
