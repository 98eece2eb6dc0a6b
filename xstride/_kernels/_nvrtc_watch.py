"""A count of the NVRTC compiles CuPy has started: what tells a real compile from a load
of CuPy's on-disk kernel cache while it happens.

CuPy compiles a kernel (xstride's through ``cupy.RawModule``, or its own) with
``cupy.cuda.compiler._compile_with_cache_cuda``, which loads the binary from
``CUPY_CACHE_DIR`` when it is there (a few milliseconds) and otherwise calls
``_compile_using_nvrtc_no_warning`` (0.1-0.5 s a kernel on the H200 host). :func:`watch`
wraps that second, private function of CuPy (checked in CuPy 14.2) with a counter;
where a CuPy lacks it, nothing is wrapped and :func:`watch` says so, and callers go by
time alone (:func:`xstride.cuda.compile_ahead`).
"""

from __future__ import annotations

import threading

__all__ = ["watch", "started"]

_HOOK = "_compile_using_nvrtc_no_warning"
_LOCK = threading.Lock()
_COUNT = [0]
_WRAPPERS: dict = {}   # id(compiler module) -> the wrapper installed there


def started() -> int:
    """NVRTC compiles started since the first :func:`watch` (a process-wide count)."""
    return _COUNT[0]


def watch(cupy) -> bool:
    """Count CuPy's NVRTC compiles from now on (idempotent); ``False`` where this CuPy
    has no ``cupy.cuda.compiler._compile_using_nvrtc_no_warning`` to wrap."""
    compiler = getattr(getattr(cupy, "cuda", None), "compiler", None)
    inner = getattr(compiler, _HOOK, None)
    if compiler is None or not callable(inner):
        return False
    with _LOCK:
        if _WRAPPERS.get(id(compiler)) is getattr(compiler, _HOOK):
            return True

        def compile_using_nvrtc(*args, **kwargs):
            with _LOCK:
                _COUNT[0] += 1
            return inner(*args, **kwargs)

        compile_using_nvrtc.__wrapped__ = inner
        setattr(compiler, _HOOK, compile_using_nvrtc)
        _WRAPPERS[id(compiler)] = compile_using_nvrtc
    return True
