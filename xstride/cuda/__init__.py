"""``xp.cuda``: device facts, user CUDA kernels and the shipped headers.

See ``docs/cuda-kernels.md`` and ``docs/cuda-headers.md``. Importing this module does
not import CuPy.
"""

from ._executors import include_dir as cuda_include_dir
from ._device import capabilities, device_properties, is_hip

__all__ = ["is_hip", "capabilities", "device_properties", "cuda_include_dir"]

# User kernels with checked arguments, struct values passed by value (docs/cuda-kernels.md).
from .kernel import CudaCompileError, CudaKernel  # noqa: E402
from ._struct import CudaStruct  # noqa: E402

__all__ += ["CudaKernel", "CudaStruct", "CudaCompileError"]

# issue 3: CuPy-syntax user elementwise kernels on xstride's engine
from ._elementwise_kernel import ElementwiseKernel  # noqa: E402

__all__ += ["ElementwiseKernel"]

# issue 14, cold start: what a program compiled on first use (docs/performance.md)
from ._record import compile_stats, compiled_kernels, watch_cupy_compiles  # noqa: E402

__all__ += ["compiled_kernels", "compile_stats", "watch_cupy_compiles"]
