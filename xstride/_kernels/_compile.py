"""Compilation of xstride's own CUDA sources through CuPy (NVRTC): the one cache of
compiled kernels, per device.

Every internal kernel is reached through :func:`function` (a source file beside this
module, or generated source text, plus a kernel name); compiled modules and their
functions are held in :class:`~xstride._kernels._lru.Bounded` caches keyed by the
current device, the source (file name or text), the options and the name expressions.
User kernels (:class:`xstride.cuda.CudaKernel`) go through :func:`raw_function` (or
:func:`raw_module`), which add nothing but the same bounded, per-device cache.

Each cache miss of :func:`function` and :func:`raw_function` (the only place a kernel
is compiled) is timed and recorded (:mod:`xstride._kernels._compile_log`:
:func:`compiled_kernels`, :func:`compile_totals`, ``XSTRIDE_LOG_KERNELS=1``); a hit
pays nothing for it.
"""

from __future__ import annotations

import functools
import hashlib
import os
import sys
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

from ._cupy import cupy as _cupy
from . import _headers
from ._lru import Bounded
from . import _compile_log
from . import _nvrtc_watch
from . import _preprocess_share

__all__ = ["include_dir", "module_options", "raw_module", "raw_function", "source", "function",
           "kernel", "on_request", "prefetch", "Request", "family_function", "drain",
           "current_device", "clear", "compiled_kernels", "compile_totals", "reset_record",
           "watch_cupy_compiles", "cupy_compiles_watched", "on_cupy_loaded"]

_HERE = Path(__file__).resolve().parent
_INCLUDE = Path(_headers.include_dir())
_DIGEST = "-DXSTRIDE_HEADERS_SHA256="

#: (device, file or None, source text or None, options, name expressions) -> RawModule
_MODULES = Bounded(256)
#: module key + (kernel name,) -> RawKernel
_FUNCTIONS = Bounded(1024)
#: function key -> Future of a compile under way (a prefetch, or a call compiling it),
#: or of a prefetch that failed and whose error nobody took yet
_INFLIGHT: dict = {}
_INFLIGHT_LOCK = threading.Lock()
#: Threads that compile prefetched kernels: NVRTC runs outside the GIL in CuPy, so
#: independent kernels compile side by side (on the H200 host six reduction kernels
#: took 0.96 s one after another, 0.34 s on six threads; 2026-12-01).
def _cpus() -> int:
    """CPUs this process may run on (its affinity, where the OS reports it)."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):
        return os.cpu_count() or 1


COMPILE_THREADS = max(1, min(8, _cpus() - 1))
_POOL: ThreadPoolExecutor | None = None


@functools.lru_cache(maxsize=32)
def source(name: str) -> str:
    """Text of a kernel source file (``*.cu``) beside this module."""
    return (_HERE / name).read_text()


def include_dir() -> str:
    """Folder that holds ``xstride/*.cuh`` (pass it as ``-I``)."""
    return str(_INCLUDE)


def module_options(source: str, options: tuple[str, ...] = ()) -> tuple[str, ...]:
    """NVRTC options for one of xstride's own sources.

    ``-std=c++17``, ``-I<include_dir()>``, the caller's ``options``, and
    ``-DXSTRIDE_HEADERS_SHA256=0x<16 hex digits>``: the digest of every header shipped
    in :func:`include_dir` (:func:`headers_digest`). CuPy's on-disk kernel cache keys
    on the source text and the options, not on included files, so without the digest
    an edited header (a new xstride release) could be served a binary compiled from
    the old one. One digest for all headers, not one per source: CuPy runs one NVRTC
    preprocess of an empty file per distinct option set in a process (its compiler
    fingerprint), about 14 ms each on the H200 host, so every module with the same
    options shares one. Options that already carry the define (user kernels, hashed
    over their own include folders too) are kept as they are.
    """
    opts = ("-std=c++17", f"-I{include_dir()}") + tuple(options)
    if any(o.startswith(_DIGEST) for o in options):   # the caller hashed (CudaKernel)
        return opts
    return opts + (f"{_DIGEST}0x{headers_digest()[:16]}",)


_HEADERS_SEEN: dict = {}   # include folder -> digest, computed once a process
_HEADERS_LOCK = threading.Lock()


def headers_digest() -> str:
    """SHA-256 (hex) of every header (``*.cuh``, ``*.h``) under :func:`include_dir`:
    relative paths and bytes, in path order; computed once per process (a header
    edited while a process runs is seen by the next process). Walked for every module
    (time stamps, then the digest), it took 0.59 s summed over the threads of a warm
    bunny demo's 23 loads on the H100 host; computed once, the demo's compile-ahead
    stage went from 0.21-0.25 s to 0.17-0.19 s (2026-12-05)."""
    root = Path(include_dir())
    digest = _HEADERS_SEEN.get(str(root))
    if digest is not None:
        return digest
    with _HEADERS_LOCK:   # threads loading kernels side by side: one walk, not one each
        digest = _HEADERS_SEEN.get(str(root))
        if digest is None:
            files = sorted(p for p in root.rglob("*")
                           if p.suffix in (".cuh", ".h") and p.is_file())
            h = hashlib.sha256()
            for p in files:
                h.update(p.relative_to(root).as_posix().encode() + b"\0" + p.read_bytes()
                         + b"\0")
            digest = _HEADERS_SEEN[str(root)] = h.hexdigest()
    return digest


def current_device() -> int:
    """Id of CuPy's current device."""
    return _cupy().cuda.runtime.getDevice()


def _module(key, text: str, options: tuple, name_expressions: tuple):
    mod = _MODULES.get(key)
    if mod is None:
        _preprocess_share.share(_cupy())   # one NVRTC fingerprint an option set
        mod = _MODULES.put(key, _cupy().RawModule(
            code=text, options=module_options(text, options),
            name_expressions=name_expressions or None))
    return mod


def raw_module(source: str, options: tuple[str, ...] = (), name_expressions: tuple[str, ...] = ()):
    """A ``cupy.RawModule`` of the source text ``source``, compiled once per current
    device and option set (:func:`module_options`), from the bounded cache."""
    options, name_expressions = tuple(options), tuple(name_expressions)
    key = (current_device(), None, source, options, name_expressions)
    return _module(key, source, options, name_expressions)


def raw_function(source: str, options: tuple[str, ...], name: str):
    """The kernel ``name`` of the user source ``source`` (its module from
    :func:`raw_module`), compiled once per current device; a compile is recorded with
    ``kind="user"``."""
    options = tuple(options)
    key = (current_device(), None, source, options, (name,), name)
    fn = _FUNCTIONS.get(key)
    if fn is None:
        fn = _FUNCTIONS.put(key, _compile_log.timed(
            lambda: _module(key[:-1], source, options, (name,)).get_function(name),
            name, f"user {_compile_log.digest(source)}", options, key[0], kind="user"))
    return fn


def _key(name, file, code, options, name_expressions):
    return (current_device(), file, code if file is None else None, tuple(options),
            tuple(name_expressions), name)


def _compile(key):
    """Compile the kernel of a function key (a miss), timed and recorded."""
    name, file, code, options, name_expressions = key[5], key[1], key[2], key[3], key[4]
    text = source(file) if file is not None else code
    origin = file if file is not None else f"generated {_compile_log.digest(text)}"
    return _compile_log.timed(
        lambda: _module(key[:-1], text, options, name_expressions).get_function(name),
        name, origin, options, key[0])


def function(name: str, *, file: str | None = None, code: str | None = None,
             options: tuple[str, ...] = (), name_expressions: tuple[str, ...] = ()):
    """The compiled kernel ``name`` (a ``cupy.RawKernel``) on the current device.

    Parameters
    ----------
    name : str
        Kernel name, or the name expression of a template instantiation (then also
        listed in ``name_expressions``).
    file : str, optional
        A source file beside this module (``"reductions.cu"``); keyed by its name.
    code : str, optional
        Generated source text (exactly one of ``file`` and ``code``); keyed by its text.
    options : tuple of str
        Extra NVRTC options.
    name_expressions : tuple of str
        Template instantiations the module must contain.
    """
    key = _key(name, file, code, options, name_expressions)
    fn = _FUNCTIONS.get(key)
    if fn is not None:
        return fn
    # a miss, the only place an internal kernel compiles (timed and recorded): one
    # compile per key, whoever asks first; the others wait for it (a prefetch, or
    # another thread of the program: dask's threads launching one reduction)
    with _INFLIGHT_LOCK:
        pending = _INFLIGHT.get(key)
        if pending is None:
            fn = _FUNCTIONS.get(key)     # a prefetch may have finished since the first look
            if fn is not None:
                return fn
            mine = _INFLIGHT[key] = Future()
    if pending is not None:              # being compiled: wait for it (or its error)
        try:
            return pending.result()
        except BaseException:            # raised once, here; a later call compiles again
            with _INFLIGHT_LOCK:
                if _INFLIGHT.get(key) is pending:
                    del _INFLIGHT[key]
            raise
    try:
        fn = _FUNCTIONS.put(key, _compile(key))
    except BaseException as exc:
        with _INFLIGHT_LOCK:
            _INFLIGHT.pop(key, None)
        mine.set_exception(exc)          # the callers waiting now get it too
        raise
    with _INFLIGHT_LOCK:
        _INFLIGHT.pop(key, None)
    mine.set_result(fn)
    return fn


def on_request(name: str) -> str:
    """Name expression of a kernel declared ``template <int = 0> __global__ void name(...)``
    in one of xstride's sources: ``name<0>``.

    A source's plain ``extern "C"`` kernels are all generated by every NVRTC run of
    the file; a template is generated only for a module that names it. Declared so,
    a call compiles the kernels it launches, not the whole file (``philox.cu``: 4.4 s
    of NVRTC time in full against about 0.3 s for one kernel, sm_90, 2026-12-01).
    """
    return f"{name}<0>"


def kernel(name: str, file: str):
    """The kernel ``name`` of ``file`` declared for :func:`on_request`, compiled alone."""
    expr = on_request(name)
    return function(expr, file=file, name_expressions=(expr,))


class Request(tuple):
    """A kernel :func:`prefetch` should compile: the arguments of :func:`function`."""

    __slots__ = ()

    def __new__(cls, name: str, *, file: str | None = None, code: str | None = None,
                options: tuple[str, ...] = (), name_expressions: tuple[str, ...] = ()):
        return super().__new__(cls, (name, file, code, tuple(options), tuple(name_expressions)))


def prefetch(requests) -> int:
    """Start compiling, on background threads, the kernels of ``requests`` (an iterable
    of :class:`Request`) that are neither compiled nor being compiled; returns how
    many were started.

    For a call that launches several kernels (a radix sort's passes, a reduction and
    its combine): their compiles run side by side while the first one is awaited. A
    later :func:`function` with the same arguments waits for its compile and raises
    its error, if any. Nothing starts with :data:`COMPILE_THREADS` of 1 (a one-core
    host) or while a compile is itself running on a compile thread.
    """
    global _POOL
    if COMPILE_THREADS < 2 or threading.current_thread().name.startswith("xstride-compile"):
        return 0
    started = 0
    for name, file, code, options, name_expressions in requests:
        key = _key(name, file, code, options, name_expressions)
        if _FUNCTIONS.get(key) is not None:
            continue
        with _INFLIGHT_LOCK:
            if key in _INFLIGHT:
                continue
            if _POOL is None:
                _POOL = ThreadPoolExecutor(COMPILE_THREADS, thread_name_prefix="xstride-compile")
            _INFLIGHT[key] = _POOL.submit(_compile_on_thread, key)
        started += 1
    return started


def family_function(name: str, *, file: str, family: tuple[str, ...]):
    """The kernel ``name``, one of ``family``: the name expressions of ``file`` that one
    call launches (a count pass, a scan, a scatter).

    With :data:`COMPILE_THREADS` of 2 or more each member is a module of its own: the
    first call compiles ``name`` here while the others compile side by side on the
    compile threads (:func:`prefetch`). With fewer (a host of two CPUs or fewer) the
    family is one module, one NVRTC run (the front end parses the source once). On the
    development CPU the segments' count, scan and scatter took 0.54 s of NVRTC time as
    one module, at most 0.25 s each as three (NVRTC 13, sm_90, 2026-12-02).
    """
    if COMPILE_THREADS < 2:
        return function(name, file=file, name_expressions=family)
    prefetch(Request(e, file=file, name_expressions=(e,))
             for e in family if e != name)
    return function(name, file=file, name_expressions=(name,))


def _compile_on_thread(key):
    """A prefetched compile. Done, it leaves the in-flight table; failed, it stays there
    until :func:`function` takes its error (so the error is raised once, not compiled
    a second time)."""
    with _cupy().cuda.Device(key[0]):
        fn = _FUNCTIONS.put(key, _compile(key))
    with _INFLIGHT_LOCK:
        _INFLIGHT.pop(key, None)
    return fn


def drain() -> None:
    """Wait for every compile :func:`prefetch` started (their errors stay for the
    :func:`function` call that asks for the kernel). A step timed for the record
    (``python -m xstride demo``, ``info --kernels``) drains at its end, so that a
    compile it started, a ``max`` beside a ``min``, is counted in it."""
    with _INFLIGHT_LOCK:
        pending = list(_INFLIGHT.values())
    for fut in pending:
        fut.exception()   # waits; never raises the compile's error


def clear() -> None:
    """Forget every compiled module and function (CuPy's own caches stay; the record of
    past compiles too: :func:`reset_record`). Compiles :func:`prefetch` started are
    waited for first and forgotten with the rest (their errors too): one that finished
    after the tables were emptied would put its kernel back. (On a compile thread it
    does not wait: it would wait for its own compile.)"""
    if not threading.current_thread().name.startswith("xstride-compile"):
        drain()
    with _INFLIGHT_LOCK:
        _INFLIGHT.clear()
    _MODULES.clear()
    _FUNCTIONS.clear()


def compiled_kernels() -> list:
    """The compiles recorded in this process, oldest first
    (:class:`~xstride._kernels._compile_log.CompiledKernel`)."""
    return _compile_log.records()


def compile_totals() -> tuple[int, float, float]:
    """``(kernels, seconds, wall seconds)`` of every compile recorded in this process
    (:func:`xstride._kernels._compile_log.totals`)."""
    return _compile_log.totals()


def reset_record() -> None:
    """Forget the record of compiles (the compiled kernels stay cached)."""
    _compile_log.reset()


def watch_cupy_compiles(cupy) -> bool:
    """Record the compiles of CuPy's own kernels as well, from now on; ``False`` where
    the ``cupy`` module offers nothing to wrap (:func:`._compile_log.watch_cupy`)."""
    return _compile_log.watch_cupy(cupy)


def nvrtc_started(cupy) -> int | None:
    """CuPy's NVRTC compiles started in this process (counted from the first call of
    this function: :mod:`._nvrtc_watch`), or ``None`` where this CuPy's cannot be seen."""
    return _nvrtc_watch.started() if _nvrtc_watch.watch(cupy) else None


def on_cupy_loaded(cupy) -> None:
    """Called once by the CuPy backend as it loads: with ``XSTRIDE_LOG_KERNELS=1``,
    CuPy's own compiles are recorded (and logged) from the start; CuPy's NVRTC
    fingerprint of an option set runs once however many threads load kernels
    (:mod:`._preprocess_share`)."""
    _compile_log.watch_if_logging(cupy)
    _preprocess_share.share(cupy)


def cupy_compiles_watched() -> bool:
    """Whether the imported CuPy's own compiles are being recorded."""
    cupy = sys.modules.get("cupy")
    return cupy is not None and _compile_log.cupy_watched(cupy)
