"""Lowered (mangled) names of xstride's template kernels, kept beside CuPy's on-disk
kernel cache, so that a later process loads these kernels instead of compiling them again.

Nearly every internal kernel is a template instance (:func:`._compile.on_request`: a
call compiles only the kernels it launches), built as a ``cupy.RawModule`` with
``name_expressions``. CuPy reads its on-disk cache only for modules built without name
expressions: with them it runs NVRTC again in every process, to learn the lowered names
(``_compile_with_cache_cuda`` in ``cupy/cuda/compiler.py``, CuPy 14.2), 0.1-0.5 s a
kernel. The binary it writes is keyed on the source text, the options and the compiler
(not on the name expressions), and it holds the instances.

So the first compile of a module records the names NVRTC gave its expressions in a small
JSON file, ``<CuPy's cache folder>/xstride-lowered/<key>.json``; a later process that
finds the file builds the module *without* name expressions (CuPy's key is the same: it
loads that binary) and looks its kernels up by their lowered names
(:class:`LoweredModule`). Where the binary has gone (a cleared cache) that look-up
fails: the file is removed and the module compiled again with its name expressions.

The key covers CuPy's version, the NVRTC version, the device's compute capability, the
source, the options and the name expressions; the source given to CuPy ends in a comment
naming the expressions, so that two modules of one file with different instances never
share one binary. Nothing is recorded where CuPy keeps its cache in memory
(``CUPY_CACHE_IN_MEMORY``) or where this CuPy has no cache folder to ask about; a record
that cannot be written or read is ignored (the next process compiles, as before).
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile

__all__ = ["LoweredModule", "build", "instanced_source", "record_dir"]

_FOLDER = "xstride-lowered"


class LoweredModule:
    """A compiled module whose :meth:`get_function` takes the name expressions it was
    compiled with: ``raw`` (a ``cupy.RawModule``) and ``names`` (expression -> name to
    look up in ``raw``: the lowered name for a module built without name expressions,
    the expression itself for one built with them). Kernels looked up are kept; other
    attributes are ``raw``'s."""

    __slots__ = ("raw", "names", "_kernels")

    def __init__(self, raw, names: dict):
        self.raw, self.names, self._kernels = raw, names, {}

    def get_function(self, name: str):
        fn = self._kernels.get(name)
        if fn is None:
            fn = self._kernels[name] = self.raw.get_function(self.names.get(name, name))
        return fn

    def __getattr__(self, attr):
        return getattr(self.raw, attr)


def instanced_source(text: str, name_expressions: tuple) -> str:
    """``text`` plus a last line naming its instances (CuPy's cache key is the text)."""
    return f"{text}\n// xstride instances: {' '.join(name_expressions)}\n"


def record_dir(cupy) -> str | None:
    """Folder of the name records: ``xstride-lowered`` in CuPy's kernel cache folder;
    ``None`` where CuPy keeps its cache in memory or cannot say where it is."""
    if os.environ.get("CUPY_CACHE_IN_MEMORY", "0") not in ("", "0"):
        return None
    get = getattr(getattr(getattr(cupy, "cuda", None), "compiler", None), "get_cache_dir", None)
    if not callable(get):
        return None
    try:
        return os.path.join(get(), _FOLDER)
    except Exception:  # no cache folder: compile every process, as CuPy does
        return None


def _key(cupy, text: str, options: tuple, name_expressions: tuple) -> str | None:
    try:
        nvrtc = cupy.cuda.nvrtc.getVersion()
        arch = cupy.cuda.Device().compute_capability
    except Exception:  # a CuPy that cannot say: no record
        return None
    h = hashlib.sha256()
    for part in (cupy.__version__, repr(tuple(nvrtc)), str(arch), text, *options, "\0",
                 *name_expressions):
        h.update(str(part).encode() + b"\0")
    return h.hexdigest()[:40]


def _read(path: str, name_expressions: tuple) -> dict | None:
    try:
        with open(path, encoding="utf-8") as f:
            names = json.load(f)
    except (OSError, ValueError):
        return None
    ok = isinstance(names, dict) and all(isinstance(names.get(e), str) for e in name_expressions)
    return names if ok else None


def _write(path: str, names: dict) -> None:
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(names, f)
        os.replace(tmp, path)          # whole or not at all, for concurrent processes
    except OSError:
        pass                           # read-only cache: the next process compiles


def _forget(path: str) -> None:
    try:
        os.remove(path)
    except OSError:
        pass


def build(cupy, text: str, options: tuple, name_expressions: tuple) -> LoweredModule:
    """The module of ``text`` with the template instances ``name_expressions``, its first
    kernel looked up (so that a binary missing from CuPy's cache shows here): loaded
    from CuPy's cache by lowered names when recorded, else compiled with the name
    expressions and recorded.

    Raises
    ------
    cupy.cuda.compiler.CompileException
        NVRTC refused the source (as ``cupy.RawModule`` does).
    """
    text = instanced_source(text, name_expressions)
    first = name_expressions[0]
    folder = record_dir(cupy)
    key = _key(cupy, text, options, name_expressions) if folder is not None else None
    path = os.path.join(folder, f"{key}.json") if key is not None else None
    names = _read(path, name_expressions) if path is not None else None
    if names is not None:
        mod = LoweredModule(cupy.RawModule(code=text, options=options), names)
        try:
            mod.get_function(first)
            return mod
        except Exception:  # the binary is gone (cleared cache): compile with the names
            _forget(path)
    raw = cupy.RawModule(code=text, options=options, name_expressions=name_expressions)
    mod = LoweredModule(raw, {})
    mod.get_function(first)
    mapping = getattr(getattr(raw, "module", None), "mapping", None)
    if path is not None and isinstance(mapping, dict):
        found = {e: mapping.get(e) for e in name_expressions}
        if all(isinstance(v, str) for v in found.values()):
            _write(path, found)
    return mod
