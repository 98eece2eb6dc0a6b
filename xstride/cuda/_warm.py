"""Compiling ahead: the first calls of a program run side by side, so that the kernels
they compile on first use compile at the same time.

A GPU program's first calls each wait for their kernels' compiles (NVRTC, 0.1-0.5 s a
kernel on the H200 host), one call after another; the calls of a pipeline depend on
each other's results, so nothing overlaps. Calls on stand-in arrays of the same
dtypes, shapes and layouts launch the same kernels: run on threads before the
pipeline, their compiles overlap (CuPy's NVRTC runs outside the GIL), and the
pipeline's own calls then find every kernel compiled. See ``docs/performance.md``
("Cold start").
"""

from __future__ import annotations

import numbers
import os
import threading
import time

from .._core.errors import error, type_error, value_error
from . import _executors
from ._record import wait_for_compiles

__all__ = ["compile_ahead", "GRACE_S"]

#: A call running this long (seconds) on the first thread starts the others, where
#: CuPy's NVRTC compiles cannot be seen (``xstride._kernels._nvrtc_watch``); a load of
#: one kernel from CuPy's on-disk cache takes a few milliseconds.
GRACE_S = 0.05
_POLL_S = 0.002


def compile_ahead(calls, *, threads=None, device=None) -> int:
    """Run ``calls`` side by side on threads, and wait for them.

    The calls start one after another on one thread; the other threads join in when a
    kernel compile starts (an NVRTC run, seen through CuPy's compiler), or, where that
    cannot be seen, when a call runs longer than :data:`GRACE_S`. So a program whose
    kernels are all in CuPy's on-disk cache loads them one after another, which is
    fastest, and one that compiles runs its compiles side by side. Each call is a function of no arguments, typically a library call on stand-in
    arrays (``cupy.zeros`` of the real dtype and shape) whose result is thrown away:
    what it leaves behind are the kernels it compiled, in xstride's and CuPy's kernel
    caches. Kernels that two calls need compile once (xstride's compile of a kernel
    waits for one already under way). The device is synchronised before returning, so
    no stand-in work runs on into the caller's timing.

    Parameters
    ----------
    calls : iterable of callable
        Functions of no arguments, started in this order (put the slowest to compile
        first). An empty iterable runs nothing.
    threads : int, optional
        Most calls running at once (at least 1); default: the CPUs this process may
        run on (at least 2). NVRTC compiles use a CPU each; kernels that are already
        in CuPy's on-disk cache load fastest on one thread (the bunny demo's 27 loaded
        in 0.40 s on 14 threads, 0.20-0.38 s on 8 when all started at once; H200 host,
        16 CPUs, 2026-12-02).
    device : int, optional
        CUDA device the threads make current (CuPy's current device is a per-thread
        setting); default: the caller's current device. Ignored when CuPy is not
        imported (a NumPy program compiles nothing; its calls still run).

    Returns
    -------
    int
        Number of calls run.

    Raises
    ------
    TypeError
        ``calls`` is not iterable, or one of its items is not callable; ``threads`` or
        ``device`` not an int (before anything runs).
    ValueError
        ``threads`` below 1; ``device`` negative, or not a device of this machine (with
        CuPy).
    Exception
        The first call to raise (in the order of ``calls``) has its exception raised
        again here, after every thread has finished; the others' are dropped.

    Examples
    --------
    >>> import numpy as np
    >>> import xstride as xp
    >>> x = np.zeros((1000, 3))
    >>> xp.cuda.compile_ahead([lambda: xp.min(x, axis=0), lambda: xp.sum(x, axis=1)])
    2
    """
    try:
        calls = list(calls)
    except TypeError:
        raise error(TypeError, "compile_ahead", "calls must be an iterable of functions of "
                    f"no arguments; got {type(calls).__name__}") from None
    for i, call in enumerate(calls):
        if not callable(call):
            raise error(TypeError, "compile_ahead", f"calls[{i}] must be a function of no "
                        f"arguments; got {type(call).__name__}")
    if threads is not None:
        if isinstance(threads, bool) or not isinstance(threads, numbers.Integral):
            raise type_error("compile_ahead", "threads", threads, "an int or None")
        if threads < 1:
            raise value_error("compile_ahead", "threads", f"must be at least 1; got {threads}")
    if device is not None:
        if isinstance(device, bool) or not isinstance(device, numbers.Integral):
            raise type_error("compile_ahead", "device", device, "an int (a CUDA device id) or None")
        device = int(device)
        if device < 0:     # no device id on any machine, with CuPy or without
            raise value_error("compile_ahead", "device", f"must be a CUDA device id (>= 0); "
                              f"got {device}")
    cupy = _cupy_if_imported()
    if cupy is not None:
        if device is None:
            device = cupy.cuda.runtime.getDevice()
        count = cupy.cuda.runtime.getDeviceCount()
        if not 0 <= device < count:
            raise value_error("compile_ahead", "device", f"must be a CUDA device id in "
                              f"0..{count - 1}; got {device}")
    errors: list = [None] * len(calls)
    setup: list = []
    order = iter(range(len(calls)))
    lock = threading.Lock()
    begun = [time.perf_counter()]   # when the first thread's call in flight began

    def work(first: bool = False) -> None:
        if cupy is not None:
            # cudaSetDevice, not CuPy's Device(...), which skips it when the id is the
            # thread's default: it also makes the device's context current on this
            # thread, which launches through the driver API need
            try:
                cupy.cuda.runtime.setDevice(device)
            except BaseException as exc:   # this worker runs nothing; the caller raises
                setup.append(exc)
                return
        while True:
            with lock:
                i = next(order, None)
            if i is None:
                return
            if first:
                begun[0] = time.perf_counter()
            try:
                calls[i]()
                if cupy is not None:
                    cupy.cuda.get_current_stream().synchronize()
            except BaseException as exc:   # raised again on the caller's thread
                errors[i] = exc

    count = min(_cpus() if threads is None else int(threads), len(calls))
    compiler = None if cupy is None else _executors.compiler()
    nvrtc = None if compiler is None else compiler.nvrtc_started(cupy)
    workers = [threading.Thread(target=work, args=(True,), name="xstride-ahead-0",
                                daemon=True)] if calls else []
    for t in workers:
        t.start()
    while count > 1 and workers[0].is_alive():
        # one thread until a compile starts: loads from the caches go fastest one
        # after another, compiles side by side
        workers[0].join(_POLL_S)
        if (nvrtc is not None and compiler.nvrtc_started(cupy) > nvrtc
                or time.perf_counter() - begun[0] > GRACE_S):
            more = [threading.Thread(target=work, name=f"xstride-ahead-{k}", daemon=True)
                    for k in range(1, count)]
            for t in more:
                t.start()
            workers += more
            break
    for t in workers:
        t.join()
    wait_for_compiles()   # and what the calls started on xstride's compile threads
    for exc in setup[:1] + errors:
        if exc is not None:
            raise exc
    return len(calls)


def _cupy_if_imported():
    """CuPy, when this process has imported it (a NumPy program never does)."""
    import sys

    return sys.modules.get("cupy")


def _cpus() -> int:
    """CPUs this process may run on (at least 2: a compile and a load side by side)."""
    try:
        n = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        n = os.cpu_count() or 1
    return max(2, n)
