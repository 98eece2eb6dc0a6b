"""``xp.cuda``: device facts, user CUDA kernels and the shipped headers.

See ``docs/cuda-kernels.md`` and ``docs/cuda-headers.md``. Importing this module does
not import CuPy, nor any of its own parts: each name is imported on first access (the
demo reads ``compile_stats`` per stage and needs none of the kernel toolkit).
"""

from __future__ import annotations

import importlib as _importlib

#: public name -> (module of this package, its name there)
_NAMES = {
    "is_hip": ("_device", "is_hip"),
    "capabilities": ("_device", "capabilities"),
    "device_properties": ("_device", "device_properties"),
    "cuda_include_dir": ("_executors", "include_dir"),
    # User kernels with checked arguments, struct values passed by value
    # (docs/cuda-kernels.md).
    "CudaKernel": ("kernel", "CudaKernel"),
    "CudaCompileError": ("kernel", "CudaCompileError"),
    "CudaStruct": ("_struct", "CudaStruct"),
    # issue 3: CuPy-syntax user elementwise kernels on xstride's engine
    "ElementwiseKernel": ("_elementwise_kernel", "ElementwiseKernel"),
    # issue 14, cold start: what a program compiled on first use (docs/performance.md)
    "compiled_kernels": ("_record", "compiled_kernels"),
    "compile_stats": ("_record", "compile_stats"),
    "watch_cupy_compiles": ("_record", "watch_cupy_compiles"),
    "wait_for_compiles": ("_record", "wait_for_compiles"),
    "compile_ahead": ("_warm", "compile_ahead"),
}

__all__ = ["is_hip", "capabilities", "device_properties", "cuda_include_dir", "CudaKernel",
           "CudaStruct", "CudaCompileError", "ElementwiseKernel", "compiled_kernels",
           "compile_stats", "watch_cupy_compiles", "wait_for_compiles", "compile_ahead"]


def __getattr__(name: str):
    where = _NAMES.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(_importlib.import_module(f"{__name__}.{where[0]}"), where[1])
    globals()[name] = value
    return value


def __dir__():
    """What ``dir()`` and tab completion list: ``__all__`` (made or not) and the private
    names; a submodule imported by a name's first use is not listed."""
    return sorted(set(__all__) | {k for k in globals() if k.startswith("_")})
