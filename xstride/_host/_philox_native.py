"""Compiled host loops for :mod:`xstride._host.philox` (optional; NumPy is the fallback).

``philox_host.c`` (beside this file) includes ``xstride/random.cuh`` -- the header the
device kernels use -- and exports plain C loops over a chunk of the output. At first
use it is compiled with the system C compiler into a cache directory and loaded with
:mod:`ctypes` (:mod:`._native`: ``XSTRIDE_HOST_CC``, ``XSTRIDE_CACHE_DIR``, the cache's
names and digests); ctypes releases the GIL during a call, so the executor's thread
pool runs the chunks in parallel.

Flags: ``-O2 -fPIC -shared -ffp-contract=off -std=c99`` (plus ``-fpeel-loops`` for
gcc); no ``-ffast-math``, no ``-march=native``: fused multiply-adds would change the
normals' bits, and a shared cache must not hold builds for one CPU only. Any failure
(no compiler, compile or load error) leaves the NumPy path in use and records the
reason; nothing is printed and nothing happens at ``import xstride``.
"""

from __future__ import annotations

import ctypes
import threading
from pathlib import Path

from .._core.errors import error
from . import _config, _native

__all__ = ["FLAGS", "GCC_FLAGS", "Native", "get", "describe", "reason", "reject"]

FLAGS = ("-O2", "-fPIC", "-shared", "-ffp-contract=off", "-std=c99")
#: Added for gcc, whose -O2 keeps the ten Philox rounds as a loop (clang's -O2 unrolls
#: it): complete peeling makes the uniforms about 1.5x faster. Control flow only.
GCC_FLAGS = ("-fpeel-loops",)
_HERE = Path(__file__).resolve().parent
_SOURCE = _HERE / "philox_host.c"

_KINDS = {"uniform": 0, "uniform2": 1, "normal": 2, "normal2": 3}

_lock = threading.Lock()
_states: dict = {}  # (XSTRIDE_HOST_CC, XSTRIDE_CACHE_DIR) -> Native or reason string

_P = ctypes.c_void_p
_I = ctypes.c_longlong
_U = ctypes.c_ulonglong
_U32 = ctypes.c_uint32


class Native:
    """A loaded library: ``philox(kind, n, args, outs)``, ``words(...)`` and
    ``integers(...)``."""

    def __init__(self, lib, compiler: str, path: Path, flags: tuple = FLAGS):
        self.compiler = compiler  # e.g. "gcc 12.2"
        self.path = path
        self.flags = flags
        self.checked = False      # set by xstride._host.philox after its self-check
        f = lib.xstride_host_philox
        f.argtypes = [ctypes.c_int, _I] + [_P, _I, _U, _U] * 3 + [_P, _I, _P, _I]
        f.restype = ctypes.c_int
        self._philox = f
        w = lib.xstride_host_words
        w.argtypes = [_I, _P, _P, _P, _P, _I, _U32, _P, _I, _U32, _P]
        w.restype = None
        self._words = w
        g = lib.xstride_host_integers
        g.argtypes = [_I, _U, _U, _U, _U, _U, ctypes.c_int, _P, _P]
        g.restype = _I
        self._integers = g

    def philox(self, kind, n, args, outs):
        """Evaluate ``kind`` for ``n`` elements.

        ``args``: three ``(address or None, element stride, base, step)`` tuples (seed,
        stream, counter); value ``i`` is ``address[i * stride]`` or ``base + step * i``.
        ``outs``: ``(address, element stride)`` of float64 outputs (one or two).
        """
        o1 = outs[1] if len(outs) > 1 else (None, 0)
        rc = self._philox(_KINDS[kind], n, *args[0], *args[1], *args[2], *outs[0], *o1)
        if rc:  # pragma: no cover - kinds come from this package
            raise error(ValueError, "xstride_host_philox", f"bad kind {kind!r}")

    def words(self, n, cw, k0, k1, out):
        """Raw blocks: ``cw`` four ``(address or None, stride, value)``, keys likewise,
        ``out`` the address of uint32 ``(n, 4)`` C-ordered."""
        ptrs = (ctypes.c_void_p * 4)(*[a for a, _, _ in cw])
        strides = (ctypes.c_longlong * 4)(*[s for _, s, _ in cw])
        base = (ctypes.c_uint32 * 4)(*[v for _, _, v in cw])
        self._words(n, ptrs, strides, base, *k0, *k1, out)


    def integers(self, n, seed, stream, base, r, thresh, out, rejected):
        """The first round of ``Philox.integers`` for ``n`` counters from ``base``
        (``r`` 2**64 for the full range); ``out`` (uint64) and ``rejected`` (int64)
        addresses of ``n`` elements. Returns how many were rejected (their indices,
        in order, at the start of ``rejected``)."""
        full = r >= 1 << 64
        return self._integers(n, seed, stream, base, 0 if full else r, thresh, int(full),
                              out, rejected)


def _build(cc_spec, cache):
    """Compile (or reuse) and load the library; returns Native or a reason string."""
    include = _config.INCLUDE_DIR
    if include is None:
        return "the shipped headers' folder is not set (xstride._host._config.INCLUDE_DIR)"
    got = _native.build("philox_host", _SOURCE, (Path(include) / "xstride" / "random.cuh",),
                        include, cc_spec, cache, FLAGS, GCC_FLAGS,
                        ("xstride_host_philox", "xstride_host_words",
                         "xstride_host_integers"))
    if isinstance(got, str):
        return got
    lib, label, path, flags = got
    try:
        return Native(lib, label, path, flags)
    except AttributeError as e:
        return f"{label}: {path.name} lacks a loop: {e}"


def get():
    """The loaded :class:`Native`, or ``None`` when the NumPy path is used.

    Reads ``XSTRIDE_HOST_CC`` / ``XSTRIDE_CACHE_DIR`` on each call; the outcome for a
    setting is remembered (the compile runs at most once per setting and process).
    """
    state = _state()
    return state if isinstance(state, Native) else None


def _state():
    return _native.state(_states, _lock, _build)


def reject(native: "Native", why: str) -> None:
    """Stop using ``native`` in this process (the NumPy path takes over, ``why`` becomes
    the reason reported by :func:`describe`)."""
    with _lock:
        for key, state in list(_states.items()):
            if state is native:
                _states[key] = why


def describe() -> tuple[bool, str]:
    """``(compiled, text)``: ``(True, "compiled C (gcc 12.2)")`` or
    ``(False, "NumPy ufuncs (<reason>)")``; may trigger the compile."""
    state = _state()
    if isinstance(state, Native):
        return True, f"compiled C ({state.compiler})"
    return False, f"NumPy ufuncs ({state})"


def reason() -> str:
    """Why the NumPy path is used (``""`` when the compiled path is loaded)."""
    state = _state()
    return "" if isinstance(state, Native) else state
