"""Compilation of xstride's own CUDA sources through CuPy (NVRTC), cached per process.

Internal kernels go through :func:`raw_module`; user kernels go through
:class:`xstride.cuda.CudaKernel`, which adds argument checks and the HIP gate.
"""

from __future__ import annotations

import functools
from pathlib import Path

from .._backend import load_cupy

__all__ = ["include_dir", "raw_module"]

_INCLUDE = Path(__file__).resolve().parent / "include"


def include_dir() -> str:
    """Folder that holds ``xstride/*.cuh`` (pass it as ``-I``)."""
    return str(_INCLUDE)


@functools.lru_cache(maxsize=None)
def raw_module(source: str, options: tuple[str, ...] = (), name_expressions: tuple[str, ...] = ()):
    """A ``cupy.RawModule`` for ``source``, compiled once per process and option set.

    ``-std=c++17`` and ``-I<include_dir()>`` are always added. CuPy caches the
    compiled binary per device on its own.
    """
    cupy = load_cupy()
    opts = ("-std=c++17", f"-I{include_dir()}") + tuple(options)
    return cupy.RawModule(code=source, options=opts, name_expressions=name_expressions or None)
