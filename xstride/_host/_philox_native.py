"""Compiled host loops for :mod:`xstride._host.philox` (optional; NumPy is the fallback).

``philox_host.c`` (beside this file) includes ``xstride/random.cuh`` -- the header the
device kernels use -- and exports plain C loops over a chunk of the output. At first
use it is compiled with the system C compiler into a cache directory and loaded with
:mod:`ctypes`; ctypes releases the GIL during a call, so the executor's thread pool
runs the chunks in parallel.

Environment:

- ``XSTRIDE_HOST_CC``: compiler to use (a name on ``PATH`` or a path); ``none``
  disables the compiled path. Default: the first of ``cc``, ``gcc``, ``clang`` found.
- ``XSTRIDE_CACHE_DIR``: cache directory (default ``~/.cache/xstride``; ``~`` and
  relative paths are resolved when read). The library
  name carries a hash of the C source, the header, the compiler path and version, the
  flags and the platform, so a shared cache never serves a stale or foreign build;
  a ``.sha256`` file beside it holds the digest of its bytes, and an entry that does
  not match (cut off, altered) is rebuilt instead of loaded.

Flags: ``-O2 -fPIC -shared -ffp-contract=off -std=c99`` (plus ``-fpeel-loops`` for
gcc); no ``-ffast-math``, no ``-march=native``: fused multiply-adds would change the
normals' bits, and a shared cache must not hold builds for one CPU only. Any failure
(no compiler, compile or load error) leaves the NumPy path in use and records the
reason; nothing is printed and nothing happens at ``import xstride``.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

from .._core.errors import error
from . import _config

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
    """A loaded library: ``philox(kind, n, args, outs)`` and ``words(...)``."""

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


def _cache_dir() -> Path:
    env = os.environ.get("XSTRIDE_CACHE_DIR")
    # absolute: ctypes would hand a bare file name (XSTRIDE_CACHE_DIR=.) to dlopen,
    # which then searches the library path instead of the working directory
    return (Path(os.path.abspath(os.path.expanduser(env))) if env
            else Path.home() / ".cache" / "xstride")


def _find_compiler(spec):
    if spec:
        return shutil.which(spec) or (spec if os.path.isfile(spec) and os.access(spec, os.X_OK)
                                      else None)
    for name in ("cc", "gcc", "clang"):
        found = shutil.which(name)
        if found:
            return found
    return None


def _compiler_label(cc: str, version_text: str) -> str:
    """``"gcc 12.2"`` / ``"clang 17.0"`` from ``cc --version``'s first line."""
    first = version_text.strip().splitlines()[0] if version_text.strip() else ""
    low = version_text.lower()
    name = ("clang" if "clang" in low else
            "gcc" if "gcc" in low or "free software foundation" in low else Path(cc).name)
    nums = re.findall(r"\b(\d+)\.(\d+)(?:\.\d+)?\b", first)
    return f"{name} {nums[-1][0]}.{nums[-1][1]}" if nums else name


def _build(cc_spec, cache):
    """Compile (or reuse) and load the library; returns Native or a reason string."""
    cc = _find_compiler(cc_spec)
    if cc is None:
        return (f"C compiler {cc_spec!r} not found" if cc_spec
                else "no C compiler found (cc, gcc, clang)")
    try:
        ver = subprocess.run([cc, "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError) as e:
        return f"{cc} --version failed: {type(e).__name__}: {e}"
    if ver.returncode != 0:
        return f"{cc} --version failed (exit {ver.returncode})"
    label = _compiler_label(cc, ver.stdout)
    flags = FLAGS + (GCC_FLAGS if label.startswith("gcc ") else ())
    include = _config.INCLUDE_DIR
    if include is None:
        return "the shipped headers' folder is not set (xstride._host._config.INCLUDE_DIR)"
    header = Path(include) / "xstride" / "random.cuh"
    try:
        src = _SOURCE.read_bytes()
        hdr = header.read_bytes()
    except OSError as e:
        return f"C source missing: {e}"
    key = hashlib.sha256()
    for part in (src, hdr, cc.encode(), ver.stdout.encode(), " ".join(flags).encode(),
                 sys.platform.encode(), platform.machine().encode()):
        key.update(part)
        key.update(b"\0")
    target = cache / f"philox_host-{key.hexdigest()[:24]}.so"
    digest = target.with_name(target.name + ".sha256")
    if target.exists() and _intact(target, digest):
        try:
            return Native(ctypes.CDLL(str(target)), label, target, flags)
        except (OSError, AttributeError):
            pass  # a damaged cache entry: build it again below
    try:
        cache.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=cache, prefix=".philox_host-", suffix=".so")
        os.close(fd)
    except OSError as e:
        return f"cache directory {str(cache)!r} not writable: {e}"
    tmp_digest = None
    try:
        cmd = [cc, *flags, "-I", str(include), str(_SOURCE), "-o", tmp, "-lm"]
        try:
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        except (OSError, subprocess.SubprocessError) as e:
            return f"{label}: compile failed: {type(e).__name__}: {e}"
        if r.returncode != 0:
            err = (r.stderr or r.stdout).strip().splitlines()
            return f"{label}: compile failed (exit {r.returncode}): " + (err[0] if err else "")
        os.chmod(tmp, 0o755)  # mkstemp made it 0600; a shared cache must be readable
        fd, tmp_digest = tempfile.mkstemp(dir=cache, prefix=".philox_host-", suffix=".sha256")
        with os.fdopen(fd, "w") as f:
            f.write(hashlib.sha256(Path(tmp).read_bytes()).hexdigest())
        os.chmod(tmp_digest, 0o644)
        os.replace(tmp_digest, digest)  # atomic: concurrent builders write the same bytes
        os.replace(tmp, target)
    finally:
        for t in (tmp, tmp_digest):
            if t is not None and os.path.exists(t):
                os.unlink(t)
    try:
        return Native(ctypes.CDLL(str(target)), label, target, flags)
    except (OSError, AttributeError) as e:
        return f"{label}: loading {target.name} failed: {e}"


def _intact(target: Path, digest: Path) -> bool:
    """Whether ``target``'s bytes match the SHA-256 written beside it at build time. A
    library cut off in the middle (an interrupted copy, a crash before the data reached
    the disk) can kill the process with SIGBUS when loaded: such entries are rebuilt."""
    try:
        return hashlib.sha256(target.read_bytes()).hexdigest() == digest.read_text().strip()
    except OSError:
        return False


def get():
    """The loaded :class:`Native`, or ``None`` when the NumPy path is used.

    Reads ``XSTRIDE_HOST_CC`` / ``XSTRIDE_CACHE_DIR`` on each call; the outcome for a
    setting is remembered (the compile runs at most once per setting and process).
    """
    state = _state()
    return state if isinstance(state, Native) else None


def _state():
    cc_spec = os.environ.get("XSTRIDE_HOST_CC", "").strip()
    try:
        cache = _cache_dir()
    except RuntimeError as e:  # no home directory (say, a container's uid without one)
        cache = f"no cache directory ({e}); set XSTRIDE_CACHE_DIR"
    key = (cc_spec, str(cache))
    state = _states.get(key)
    if state is None:
        with _lock:
            state = _states.get(key)
            if state is None:
                if cc_spec.lower() == "none":
                    state = "disabled by XSTRIDE_HOST_CC=none"
                elif isinstance(cache, str):
                    state = cache
                else:
                    try:
                        state = _build(cc_spec, cache)
                    except Exception as e:  # never let the fast path break the slow one
                        state = f"unexpected {type(e).__name__}: {e}"
                _states[key] = state
    return state


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
