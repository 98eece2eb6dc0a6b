"""Compiled host loops: one C file built with the system C compiler into a cache
directory at first use and loaded with :mod:`ctypes` (the builder behind
:mod:`._philox_native` and :mod:`._segments_native`; NumPy is always the fallback).

Environment:

- ``XSTRIDE_HOST_CC``: compiler to use (a name on ``PATH`` or a path); ``none``
  disables the compiled paths. Default: the first of ``cc``, ``gcc``, ``clang`` found.
- ``XSTRIDE_CACHE_DIR``: cache directory (default ``~/.cache/xstride``, also for an
  empty or blank value; surrounding blanks stripped; ``~`` and relative paths are
  resolved when read). A library's name carries a hash of its C
  source, the headers it includes, the compiler path and version, the flags and the
  platform, so a shared cache never serves a stale or foreign build; a ``.sha256``
  file beside it holds the digest of its bytes, and an entry that does not match (cut
  off, altered) is rebuilt instead of loaded.

Any failure (no compiler, compile or load error) is returned as a reason string;
nothing is printed and nothing happens at ``import xstride``.
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

__all__ = ["state", "build", "cache_dir", "Library"]


def cache_dir() -> Path:
    """The cache directory (``XSTRIDE_CACHE_DIR``, else ``~/.cache/xstride``), absolute.

    The value is stripped of surrounding blanks, as ``XSTRIDE_HOST_CC`` is: one that is
    empty or only blanks is unset (it named a folder ``" "`` in the working directory,
    and ``" /tmp/c"`` one under it)."""
    env = os.environ.get("XSTRIDE_CACHE_DIR", "").strip()
    # absolute: ctypes would hand a bare file name (XSTRIDE_CACHE_DIR=.) to dlopen,
    # which then searches the library path instead of the working directory
    return (Path(os.path.abspath(os.path.expanduser(env))) if env
            else Path.home() / ".cache" / "xstride")


def state(states: dict, lock, build_one):
    """The remembered outcome for the current ``(XSTRIDE_HOST_CC, XSTRIDE_CACHE_DIR)``
    in ``states`` (a loaded library's wrapper or a reason string), computed once under
    ``lock`` by ``build_one(cc_spec, cache)``; the compile runs at most once per
    setting and process, and no exception escapes (the NumPy path stays usable)."""
    cc_spec = os.environ.get("XSTRIDE_HOST_CC", "").strip()
    try:
        cache = cache_dir()
    except RuntimeError as e:  # no home directory (say, a container's uid without one)
        cache = f"no cache directory ({e}); set XSTRIDE_CACHE_DIR"
    key = (cc_spec, str(cache))
    got = states.get(key)
    if got is None:
        with lock:
            got = states.get(key)
            if got is None:
                if cc_spec.lower() == "none":
                    got = "disabled by XSTRIDE_HOST_CC=none"
                elif isinstance(cache, str):
                    got = cache
                else:
                    try:
                        got = build_one(cc_spec, cache)
                    except Exception as e:  # never let the fast path break the slow one
                        got = f"unexpected {type(e).__name__}: {e}"
                states[key] = got
    return got


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


def build(stem: str, source: Path, headers: tuple, include, cc_spec: str, cache: Path,
          flags: tuple, gcc_flags: tuple = (), symbols: tuple = ()):
    """Compile ``source`` (or reuse the cached build) and load it.

    Returns ``(ctypes.CDLL, compiler label, library path, flags used)`` or a reason
    string. ``headers``: the files it includes (hashed into the name); ``include``: the
    folder passed as ``-I`` (``None`` when there is none to pass); ``gcc_flags`` are
    added for gcc; ``symbols``: the functions a cached library must export (one that
    lacks any is built again)."""
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
    flags = tuple(flags) + (tuple(gcc_flags) if label.startswith("gcc ") else ())
    try:
        parts = [Path(source).read_bytes()] + [Path(h).read_bytes() for h in headers]
    except OSError as e:
        return f"C source missing: {e}"
    key = hashlib.sha256()
    for part in (*parts, cc.encode(), ver.stdout.encode(), " ".join(flags).encode(),
                 sys.platform.encode(), platform.machine().encode()):
        key.update(part)
        key.update(b"\0")
    target = cache / f"{stem}-{key.hexdigest()[:24]}.so"
    digest = target.with_name(target.name + ".sha256")
    if target.exists() and _intact(target, digest):
        try:
            lib = ctypes.CDLL(str(target))
            if all(hasattr(lib, name) for name in symbols):
                return lib, label, target, flags
        except OSError:
            pass  # a damaged cache entry: build it again below
    try:
        cache.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=cache, prefix=f".{stem}-", suffix=".so")
        os.close(fd)
    except OSError as e:
        return f"cache directory {str(cache)!r} not writable: {e}"
    tmp_digest = None
    try:
        cmd = [cc, *flags, *(("-I", str(include)) if include else ()), str(source), "-o", tmp,
               "-lm"]
        try:
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        except (OSError, subprocess.SubprocessError) as e:
            return f"{label}: compile failed: {type(e).__name__}: {e}"
        if r.returncode != 0:
            err = (r.stderr or r.stdout).strip().splitlines()
            return f"{label}: compile failed (exit {r.returncode}): " + (err[0] if err else "")
        os.chmod(tmp, 0o755)  # mkstemp made it 0600; a shared cache must be readable
        # loaded under its own name before the rename: the loader hands a process the
        # library it already loaded from a path (a damaged entry just tried) again
        try:
            lib = ctypes.CDLL(str(tmp))
        except OSError as e:
            return f"{label}: loading {target.name} failed: {e}"
        fd, tmp_digest = tempfile.mkstemp(dir=cache, prefix=f".{stem}-", suffix=".sha256")
        with os.fdopen(fd, "w") as f:
            f.write(hashlib.sha256(Path(tmp).read_bytes()).hexdigest())
        os.chmod(tmp_digest, 0o644)
        os.replace(tmp_digest, digest)  # atomic: concurrent builders write the same bytes
        os.replace(tmp, target)
    finally:
        for t in (tmp, tmp_digest):
            if t is not None and os.path.exists(t):
                os.unlink(t)
    return lib, label, target, flags


def _intact(target: Path, digest: Path) -> bool:
    """Whether ``target``'s bytes match the SHA-256 written beside it at build time. A
    library cut off in the middle (an interrupted copy, a crash before the data reached
    the disk) can kill the process with SIGBUS when loaded: such entries are rebuilt."""
    try:
        return hashlib.sha256(target.read_bytes()).hexdigest() == digest.read_text().strip()
    except OSError:
        return False


class Library:
    """One C file of loops beside its loader module: :meth:`get` gives the loaded
    library's wrapper (``wrap(ctypes.CDLL, compiler label, path)``) or None, and
    :meth:`reason` why the NumPy path is used (``""`` when loaded); the outcome is
    remembered per ``XSTRIDE_HOST_CC`` / ``XSTRIDE_CACHE_DIR`` setting (:func:`state`).
    A wrapper that lacks a symbol (an ``AttributeError`` of ``wrap``) is a reason."""

    def __init__(self, stem: str, source: Path, flags: tuple, symbols: tuple, wrap):
        self.stem, self.source, self.flags, self.symbols = stem, source, flags, symbols
        self._wrap = wrap
        self._lock = threading.Lock()
        self._states: dict = {}   # (XSTRIDE_HOST_CC, XSTRIDE_CACHE_DIR) -> wrapper or reason

    def _build(self, cc_spec, cache):
        got = build(self.stem, self.source, (), None, cc_spec, cache, self.flags,
                    symbols=self.symbols)
        if isinstance(got, str):
            return got
        lib, label, path, _ = got
        try:
            return self._wrap(lib, label, path)
        except AttributeError as e:
            return f"{label}: {path.name} lacks a loop: {e}"

    def get(self):
        """The loaded loops' wrapper, or ``None`` when the NumPy path is used."""
        got = state(self._states, self._lock, self._build)
        return None if isinstance(got, str) else got

    def reason(self) -> str:
        """Why the NumPy path is used (``""`` when the compiled loops are loaded)."""
        got = state(self._states, self._lock, self._build)
        return got if isinstance(got, str) else ""
