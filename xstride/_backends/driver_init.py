"""The CUDA driver's initialisation begun on a background thread.

A fresh process that will use CuPy spends about 0.2 s in the driver before its first
allocation (on the H200 host: ``cuInit`` 0.10 s inside ``getDeviceCount``, the primary
context 0.12 s inside the first ``cupy.empty``; docs/performance.md, "A fresh
process on the host"). Neither needs CuPy: the driver library ``libcuda.so.1`` answers
through ``ctypes``, which releases the GIL for the call, so a thread can do both while
the main thread imports CuPy (about 0.25 s there). CuPy's runtime then finds the
driver initialised and device 0's primary context (the one it uses) already made.

The context is retained for the life of the process (the runtime retains the same
one); where the library is missing (no NVIDIA driver, a ROCm machine) or a call fails,
nothing happens and CuPy reports whatever is wrong as it always did.

The thread is no daemon: the interpreter's exit waits for it, so that the process never
ends (the C library's exit running the driver's own teardown) while the thread is
still inside ``cuInit`` or the context's creation (a command that fails at once, a
missing CuPy). The wait is what CuPy's own first call would have spent in the driver.
"""

from __future__ import annotations

import ctypes
import os
import threading

__all__ = ["start", "wait"]

#: The driver library's name on Linux (the soname every NVIDIA driver install provides).
LIBRARY = "libcuda.so.1"

_lock = threading.Lock()
_thread: threading.Thread | None = None
#: What the thread found: None until it ends, then ``"ok"`` or why it stopped.
outcome: str | None = None


def _forget() -> None:
    """In a forked child: no thread of this process has started anything (the parent's
    thread is not in the child, and CUDA does not carry across a fork)."""
    global _lock, _thread, outcome
    _lock, _thread, outcome = threading.Lock(), None, None


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget)


def _init(load=ctypes.CDLL) -> str:
    """``cuInit(0)`` and a retain of device 0's primary context; what happened."""
    try:
        lib = load(LIBRARY)
    except OSError:
        return "no driver library"
    if lib.cuInit(0) != 0:
        return "cuInit failed"
    device = ctypes.c_int()
    if lib.cuDeviceGet(ctypes.byref(device), 0) != 0:
        return "no device 0"
    context = ctypes.c_void_p()
    if lib.cuDevicePrimaryCtxRetain(ctypes.byref(context), device) != 0:
        return "no primary context"
    return "ok"


def _run(load) -> None:
    global outcome
    try:
        outcome = _init(load)
    except Exception as exc:  # a driver that is not what ctypes expects: leave it to CuPy
        outcome = f"{type(exc).__name__}: {exc}"


def start(load=ctypes.CDLL) -> threading.Thread:
    """Begin the initialisation on a thread (once a process), which the interpreter's
    exit waits for; return the thread.

    ``load`` opens the library (``ctypes.CDLL``; tests hand a stand-in)."""
    global _thread
    with _lock:
        if _thread is None:
            _thread = threading.Thread(target=_run, args=(load,), name="xstride-driver-init",
                                       daemon=False)
            _thread.start()
        return _thread


def wait(timeout: float | None = None) -> str | None:
    """Wait for a started initialisation; its :data:`outcome` (None if never started)."""
    thread = _thread
    if thread is not None:
        thread.join(timeout)
    return outcome
