"""One NVRTC fingerprint per option set in a process, however many threads ask at once.

Before it looks in its on-disk kernel cache, CuPy's ``_compile_with_cache_cuda``
compiles an empty source once per option set (``_preprocess('', options, arch,
backend)``), whose output (the compiler's version lines) enters the cache key, and keeps
it in a dict. The dict is filled only when that compile returns: threads that load
kernels of one option set side by side (:func:`xstride.cuda.compile_ahead`, the compile
threads of :func:`~._compile.prefetch`) all miss it and each run the same compile. On
the H100 host a warm bunny demo ran it ten times, 0.1-0.18 s each on threads side by
side, where one run takes about 14 ms (2026-12-05, docs/performance.md).

:func:`share` wraps that private function of CuPy (checked in CuPy 14.2): for an empty
source, the first caller of an argument set compiles and the others wait for its answer.
A first caller that fails or is interrupted (``KeyboardInterrupt``) answers its slot as it
leaves (a ``finally``): its waiters run the compile themselves and a later call tries again.
Any other source, or arguments that cannot be a dict key, pass through unchanged. Where
a CuPy lacks the function, nothing is wrapped and :func:`share` returns ``False``.
"""

from __future__ import annotations

import threading

__all__ = ["share"]

_HOOK = "_preprocess"
_LOCK = threading.Lock()
_WRAPPERS: dict = {}   # id(compiler module) -> the wrapper installed there


class _Slot:
    """One argument set's answer: set once by the first caller; ``failed`` until its
    value is in (a caller interrupted before or during its run leaves a failed slot)."""

    __slots__ = ("done", "value", "failed")

    def __init__(self):
        self.done = threading.Event()
        self.value = None
        self.failed = True


def share(cupy) -> bool:
    """Share CuPy's empty-source NVRTC preprocess between threads from now on
    (idempotent); ``False`` where ``cupy.cuda.compiler._preprocess`` is missing."""
    compiler = getattr(getattr(cupy, "cuda", None), "compiler", None)
    inner = getattr(compiler, _HOOK, None)
    if compiler is None or not callable(inner):
        return False
    with _LOCK:
        if _WRAPPERS.get(id(compiler)) is inner:
            return True
        slots: dict = {}

        def preprocess(*args, **kwargs):
            if not args or args[0] != "":
                return inner(*args, **kwargs)
            try:
                key = (args, tuple(sorted(kwargs.items())))
                hash(key)
            except TypeError:
                return inner(*args, **kwargs)
            mine = _Slot()
            try:   # from the slot's insertion on: an interrupt anywhere still answers it
                with _LOCK:
                    slot = slots.setdefault(key, mine)
                if slot is mine:
                    mine.value = inner(*args, **kwargs)
                    mine.failed = False
                    return mine.value
            finally:
                mine.done.set()   # first, so that no waiter is left waiting
                if mine.failed:
                    with _LOCK:
                        if slots.get(key) is mine:
                            del slots[key]   # a later call tries again
            slot.done.wait()
            if not slot.failed:
                return slot.value
            return inner(*args, **kwargs)   # its error again, or the run it did not end

        preprocess.__wrapped__ = inner
        setattr(compiler, _HOOK, preprocess)
        _WRAPPERS[id(compiler)] = preprocess
    return True
