"""The record of kernel compiles: what a program compiled on first use, and how long it took.

:mod:`xstride._kernels._compile` calls :func:`timed` around the only code that can
compile (a miss of its per-device cache: ``cupy.RawModule`` plus ``get_function``), so a
repeat call pays nothing for the record. Each miss appends one :class:`CompiledKernel`
and adds to the running totals (:func:`totals`); with ``XSTRIDE_LOG_KERNELS=1`` it also
prints one line on stderr as it happens.

CuPy compiles its own kernels too (operators and functions on CuPy arrays, fancy
indexing, ``cupy.ElementwiseKernel``). :func:`watch_cupy` wraps CuPy's module compiler
(``cupy.cuda.compiler._compile_module_with_cache``, a private function of CuPy; nothing
is wrapped where it is absent) so that those compiles are recorded as well, with
``kind="library"``; compiles that xstride started are recorded once, as xstride's.

Neither route can tell a real NVRTC compile from a load of CuPy's on-disk kernel cache
(``CUPY_CACHE_DIR``): ``seconds`` is the wall time of either, so an entry of a few
milliseconds is most likely a cache load.
"""

from __future__ import annotations

import hashlib
import os
import re
import sys
import threading
import time
from collections import deque
from typing import NamedTuple

from .._core.settings import env_flag

__all__ = ["CompiledKernel", "ENV", "timed", "records", "totals", "reset", "log_enabled",
           "watch_cupy", "watch_if_logging", "cupy_watched", "digest"]

#: The environment switch: ``1`` prints one line per compile on stderr.
ENV = "XSTRIDE_LOG_KERNELS"
#: Most entries :func:`records` keeps (the oldest are dropped; :func:`totals` counts all).
MAX_RECORDS = 10_000


class CompiledKernel(NamedTuple):
    """One compile (a miss of a compiled-kernel cache).

    Attributes
    ----------
    name : str
        Kernel name or template name expression (``"k_reduce<float, 3>"``); for CuPy's
        own kernels the ``__global__`` names found in the source, joined by ``,``.
    source : str
        The source file beside ``xstride/_kernels`` (``"reductions.cu"``), or
        ``"generated <12 hex digits>"`` (the SHA-256 of generated source text), or
        ``"user <...>"`` for :class:`xstride.cuda.CudaKernel`, ``"library <...>"`` for CuPy's own.
    options : str
        12 hex digits of the SHA-256 of the NVRTC options (equal digests: equal options).
    seconds : float
        Wall time of module creation plus ``get_function`` (an NVRTC compile, or a load
        from CuPy's on-disk cache: the two cannot be told apart here).
    device : int
        The device it was compiled for (-1 where not known).
    kind : str
        ``"xstride"`` (xstride's own kernels), ``"user"`` (``CudaKernel``) or
        ``"library"`` (CuPy's own).
    """

    name: str
    source: str
    options: str
    seconds: float
    device: int
    kind: str


_LOCK = threading.Lock()
_RECORDS: deque = deque(maxlen=MAX_RECORDS)
_TOTALS = [0, 0.0]       # kernels, seconds (every compile since start or reset)
#: compiles running now, when the current stretch of compiling began, and the wall
#: seconds of the stretches that ended: the union of the compiles' intervals
_BUSY = [0, 0.0, 0.0]
_INSIDE = threading.local()   # set while xstride compiles: CuPy's hook then records nothing


def digest(text) -> str:
    """12 hex digits of the SHA-256 of ``text`` (a str, or a tuple of str joined by NUL)."""
    if not isinstance(text, str):
        text = "\0".join(text)
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def log_enabled() -> bool:
    """Whether ``XSTRIDE_LOG_KERNELS`` asks for a line per compile (read at each compile).

    Raises
    ------
    ValueError
        The variable holds anything but 1/true/yes/on or 0/false/no/off/empty
        (case-insensitive).
    """
    return env_flag(ENV, "print one line per kernel compile on stderr")


def _after_fork_in_child() -> None:
    """A forked child runs none of its parent's compiles: its own lock, nothing busy."""
    global _LOCK
    _LOCK = threading.Lock()
    _BUSY[0] = 0


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def _begin() -> None:
    with _LOCK:
        if _BUSY[0] == 0:
            _BUSY[1] = time.perf_counter()
        _BUSY[0] += 1


def _end() -> None:
    with _LOCK:
        _BUSY[0] -= 1
        if _BUSY[0] == 0:
            _BUSY[2] += time.perf_counter() - _BUSY[1]


def _add(entry: CompiledKernel, log: bool) -> None:
    with _LOCK:
        _RECORDS.append(entry)
        _TOTALS[0] += 1
        _TOTALS[1] += entry.seconds
    if log:
        if entry.kind != "library":   # from now on, CuPy's own compiles are logged too
            watch_cupy(sys.modules.get("cupy"))
        print(f"xstride: compiled {entry.kind} kernel {entry.name} ({entry.source}, options "
              f"{entry.options}, device {entry.device}) in {entry.seconds:.3f} s",
              file=sys.stderr, flush=True)


def timed(build, name: str, source: str, options, device: int, kind: str = "xstride"):
    """``build()`` (a compile), recorded as one :class:`CompiledKernel`; returns its result.

    Nothing is recorded when ``build`` raises. CuPy's compiles inside ``build`` are not
    recorded a second time (see :func:`watch_cupy`).

    Raises
    ------
    ValueError
        ``XSTRIDE_LOG_KERNELS`` holds a value that is no switch (before anything compiles).
    """
    log = log_enabled()
    outer = getattr(_INSIDE, "on", False)
    _INSIDE.on = True
    _begin()
    t0 = time.perf_counter()
    try:
        result = build()
    finally:
        _INSIDE.on = outer
        _end()
    seconds = time.perf_counter() - t0
    _add(CompiledKernel(str(name), source, digest(tuple(options)), seconds, int(device), kind),
         log)
    return result


def records() -> list[CompiledKernel]:
    """The compiles recorded so far, oldest first (at most :data:`MAX_RECORDS`)."""
    with _LOCK:
        return list(_RECORDS)


def totals() -> tuple[int, float, float]:
    """``(kernels, seconds, wall seconds)`` of every compile recorded since the start (or
    :func:`reset`): ``seconds`` adds up each compile's time, ``wall seconds`` counts the
    time during which at least one compile ran (compiles side by side, on the compile
    threads, overlap), up to now. A compile that raised adds to the wall time only; a
    compile running across :func:`reset` adds its whole time to ``seconds`` and its
    time after the reset to the wall time."""
    with _LOCK:
        now = time.perf_counter()
        wall = _BUSY[2] + (now - _BUSY[1] if _BUSY[0] else 0.0)
        return _TOTALS[0], _TOTALS[1], wall


def reset() -> None:
    """Forget the record and the totals (the compiled kernels stay cached)."""
    with _LOCK:
        _RECORDS.clear()
        _TOTALS[0], _TOTALS[1] = 0, 0.0
        _BUSY[1], _BUSY[2] = time.perf_counter(), 0.0


# --------------------------------------------------------------------- CuPy's own kernels
_BOUNDS = r"(?:__launch_bounds__\s*\([^)]*\)\s*)?"
_GLOBAL = re.compile(rf"__global__\s+{_BOUNDS}void\s+{_BOUNDS}([A-Za-z_]\w*)")
_HOOK = "_compile_module_with_cache"
_WATCHED: dict = {}   # id(compiler module) -> the wrapper installed there


def _cupy_compile_name(source, kwargs) -> str:
    exprs = kwargs.get("name_expressions")
    if exprs:
        return ",".join(str(e) for e in exprs)
    names = _GLOBAL.findall(source) if isinstance(source, str) else []
    return ",".join(dict.fromkeys(names)) or "?"


def _device(cupy) -> int:
    try:
        return int(cupy.cuda.runtime.getDevice())
    except Exception:  # a record must never fail a compile that worked
        return -1


def watch_cupy(cupy) -> bool:
    """Record CuPy's own compiles from now on (idempotent); ``False`` where this CuPy has
    no ``cupy.cuda.compiler._compile_module_with_cache`` to wrap.

    The wrapper calls CuPy's function unchanged and times it; it records nothing while
    xstride itself compiles (that compile is recorded once, by :func:`timed`).
    """
    compiler = getattr(getattr(cupy, "cuda", None), "compiler", None)
    inner = getattr(compiler, _HOOK, None)
    if compiler is None or not callable(inner):
        return False
    if _WATCHED.get(id(compiler)) is inner:
        return True

    def compile_module_with_cache(source, options=(), *args, **kwargs):
        if getattr(_INSIDE, "on", False):
            return inner(source, options, *args, **kwargs)
        _begin()
        t0 = time.perf_counter()
        try:
            result = inner(source, options, *args, **kwargs)
        finally:
            _end()
        text = source if isinstance(source, str) else ""
        opts = tuple(str(o) for o in options) if isinstance(options, (tuple, list)) else ()
        _add(CompiledKernel(_cupy_compile_name(source, kwargs), f"library {digest(text)}",
                            digest(opts), time.perf_counter() - t0, _device(cupy), "library"),
             _log_quietly())
        return result

    compile_module_with_cache.__wrapped__ = inner
    setattr(compiler, _HOOK, compile_module_with_cache)
    _WATCHED[id(compiler)] = compile_module_with_cache
    return True


def _log_quietly() -> bool:
    """:func:`log_enabled`, with a bad value taken as off: xstride's next compile reports
    it; CuPy's own compiles and loading CuPy never fail for it."""
    try:
        return log_enabled()
    except ValueError:
        return False


def watch_if_logging(cupy) -> bool:
    """:func:`watch_cupy` when ``XSTRIDE_LOG_KERNELS`` is on (called as CuPy loads)."""
    return _log_quietly() and watch_cupy(cupy)


def cupy_watched(cupy) -> bool:
    """Whether :func:`watch_cupy` is recording the compiles of this ``cupy`` module."""
    compiler = getattr(getattr(cupy, "cuda", None), "compiler", None)
    return compiler is not None and _WATCHED.get(id(compiler)) is getattr(compiler, _HOOK, None)
