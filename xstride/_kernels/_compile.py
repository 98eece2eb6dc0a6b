"""Compilation of xstride's own CUDA sources through CuPy (NVRTC), cached per process.

Internal kernels go through :func:`raw_module`; user kernels go through
:class:`xstride.cuda.CudaKernel`, which adds argument checks and the HIP gate.
"""

from __future__ import annotations

import functools
from pathlib import Path

from .._backends.select import load_cupy
from ._includes import scan_includes

__all__ = ["include_dir", "module_options", "raw_module", "source"]

_HERE = Path(__file__).resolve().parent
_INCLUDE = _HERE / "include"
_DIGEST = "-DXSTRIDE_HEADERS_SHA256="


@functools.lru_cache(maxsize=None)
def source(name: str) -> str:
    """Text of a kernel source file (``*.cu``) beside this module (a handful of files)."""
    return (_HERE / name).read_text()


def include_dir() -> str:
    """Folder that holds ``xstride/*.cuh`` (pass it as ``-I``)."""
    return str(_INCLUDE)


def module_options(source: str, options: tuple[str, ...] = ()) -> tuple[str, ...]:
    """NVRTC options for one of xstride's own sources.

    ``-std=c++17``, ``-I<include_dir()>``, the caller's ``options``, and
    ``-DXSTRIDE_HEADERS_SHA256=0x<16 hex digits>``: the digest of every header the
    source reaches (:func:`xstride._kernels._includes.scan_includes`). CuPy's on-disk
    kernel cache keys on the source text and the options, not on included files, so
    without the digest an edited header (a new xstride release) could be served a
    binary compiled from the old one. Options that already carry the define (user
    kernels, hashed over their own include folders too) are kept as they are.
    """
    opts = ("-std=c++17", f"-I{include_dir()}") + tuple(options)
    if any(o.startswith(_DIGEST) for o in options):   # the caller hashed (CudaKernel)
        return opts
    digest = scan_includes(source, [include_dir()]).digest
    return opts + (f"{_DIGEST}0x{digest[:16]}",)


@functools.lru_cache(maxsize=None)
def raw_module(source: str, options: tuple[str, ...] = (), name_expressions: tuple[str, ...] = ()):
    """A ``cupy.RawModule`` for ``source``, compiled once per process and option set
    (:func:`module_options`); CuPy caches the binary per device on its own."""
    cupy = load_cupy()
    return cupy.RawModule(code=source, options=module_options(source, options),
                          name_expressions=name_expressions or None)
