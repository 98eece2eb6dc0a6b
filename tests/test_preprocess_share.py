"""``xstride._kernels._preprocess_share``: CuPy's empty-source NVRTC preprocess (its
compiler fingerprint of an option set) runs once however many threads ask at once (a
wrapper of a private function of CuPy, on a stand-in here; on the device: the demo's
compile-ahead stage)."""

from __future__ import annotations

import threading
import time
import types

import pytest

from xstride._kernels import _preprocess_share


def _cupy_with(compiler):
    return types.SimpleNamespace(cuda=types.SimpleNamespace(compiler=compiler))


def _slow_compiler(fail_first: bool = False):
    calls = []
    lock = threading.Lock()

    def _preprocess(source, options, arch, backend):
        with lock:
            calls.append((source, options, arch, backend))
            n = len(calls)
        time.sleep(0.05)            # long enough for every thread to arrive meanwhile
        if fail_first and n == 1:
            raise RuntimeError("nvrtc failed")
        return f"// version of {options}"

    return types.SimpleNamespace(_preprocess=_preprocess), calls


def _side_by_side(fn, n=8):
    results, errors = [None] * n, [None] * n
    start = threading.Barrier(n)

    def run(i):
        start.wait()
        try:
            results[i] = fn()
        except Exception as exc:   # noqa: BLE001 - collected for the assertions
            errors[i] = exc

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results, errors


def test_threads_asking_at_once_share_one_run():
    compiler, calls = _slow_compiler()
    assert _preprocess_share.share(_cupy_with(compiler))
    opts = ("-std=c++17", "-ftz=true")
    results, errors = _side_by_side(lambda: compiler._preprocess("", opts, "90", "nvrtc"))
    assert errors == [None] * 8
    assert results == [f"// version of {opts}"] * 8
    assert len(calls) == 1
    # another option set is a run of its own; the same again is none
    assert compiler._preprocess("", ("-O3",), "90", "nvrtc") == "// version of ('-O3',)"
    assert compiler._preprocess("", opts, "90", "nvrtc") == results[0]
    assert len(calls) == 2


def test_a_source_or_unhashable_arguments_pass_through():
    compiler, calls = _slow_compiler()
    _preprocess_share.share(_cupy_with(compiler))
    for _ in range(2):
        compiler._preprocess("__global__ void k() {}", ("-O3",), "90", "nvrtc")
        compiler._preprocess("", ["-O3"], "90", "nvrtc")      # a list: not a key
    assert len(calls) == 4


def test_a_failed_first_run_is_tried_again_by_each_waiter_and_later():
    compiler, calls = _slow_compiler(fail_first=True)
    _preprocess_share.share(_cupy_with(compiler))
    results, errors = _side_by_side(lambda: compiler._preprocess("", ("-a",), "90", "nvrtc"))
    assert sum(isinstance(e, RuntimeError) for e in errors) == 1
    assert results.count("// version of ('-a',)") == 7
    assert compiler._preprocess("", ("-a",), "90", "nvrtc") == "// version of ('-a',)"


def test_installed_once_and_missing_function_reported():
    compiler, calls = _slow_compiler()
    cupy = _cupy_with(compiler)
    assert _preprocess_share.share(cupy) and _preprocess_share.share(cupy)
    assert compiler._preprocess.__wrapped__.__name__ == "_preprocess"   # not wrapped twice
    assert not _preprocess_share.share(_cupy_with(types.SimpleNamespace()))
    assert not _preprocess_share.share(types.SimpleNamespace())


def test_a_failure_reaches_its_caller():
    compiler, _ = _slow_compiler(fail_first=True)
    _preprocess_share.share(_cupy_with(compiler))
    with pytest.raises(RuntimeError, match="nvrtc failed"):
        compiler._preprocess("", ("-b",), "90", "nvrtc")


class _InterruptOnRelease:
    """The module's lock, raising ``KeyboardInterrupt`` as it is released once armed:
    where CPython delivers a Ctrl-C to the main thread (after the call that releases
    the lock, before the next line)."""

    def __init__(self, lock):
        self._lock, self.armed = lock, False

    def __enter__(self):
        return self._lock.__enter__()

    def __exit__(self, *exc):
        self._lock.__exit__(*exc)
        if self.armed:
            self.armed = False
            raise KeyboardInterrupt


def test_a_first_caller_interrupted_as_it_takes_the_slot_leaves_no_waiter_hanging(
        monkeypatch):
    """A review: a ``KeyboardInterrupt`` of the first caller after its slot was made and
    before its run began left the slot unanswered: every later call of that option set
    (any thread, the interrupted one too) waited for it forever."""
    compiler, calls = _slow_compiler()
    _preprocess_share.share(_cupy_with(compiler))
    lock = _InterruptOnRelease(_preprocess_share._LOCK)
    monkeypatch.setattr(_preprocess_share, "_LOCK", lock)
    lock.armed = True
    with pytest.raises(KeyboardInterrupt):
        compiler._preprocess("", ("-c",), "90", "nvrtc")
    assert not lock.armed and calls == []
    got = []
    later = threading.Thread(target=lambda: got.append(
        compiler._preprocess("", ("-c",), "90", "nvrtc")), daemon=True)
    later.start()
    later.join(timeout=5)
    assert not later.is_alive(), "the next call of the option set waits forever"
    assert got == ["// version of ('-c',)"] and len(calls) == 1
