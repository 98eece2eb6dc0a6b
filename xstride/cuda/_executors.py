"""The CUDA executors the toolkit drives, reached through the backend object whose
executors compile CUDA kernels (the toolkit never imports ``xstride._kernels``)."""

from __future__ import annotations

from .. import _backends

__all__ = ["compiler", "compiler_imported", "engine", "include_dir"]


def compiler():
    """The compile executor: NVRTC through CuPy, one compiled-kernel cache per device."""
    return _backends.kernel_backend().executor("compile")


def compiler_imported() -> bool:
    """Whether the compile executor has been imported: until it is, no kernel has been
    compiled or recorded in this process (its record lives there)."""
    return _backends.kernel_backend().executor_imported("compile")


def engine():
    """The elementwise engine's executor (plans, kernel sources, launches)."""
    return _backends.kernel_backend().executor("engine")


def include_dir() -> str:
    """Folder that holds the shipped ``xstride/*.cuh`` headers (pass it as ``-I``)."""
    return compiler().include_dir()
