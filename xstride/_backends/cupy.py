"""The CuPy backend: device arrays; xstride's CUDA executors (``xstride._kernels``).

CuPy is imported only when a user selects this backend, asks for a CUDA facility,
or hands xstride a CuPy array (then ``cupy`` is in ``sys.modules`` already).
"""

from __future__ import annotations

import sys

from .._core.errors import backend_unavailable_error
from ._base import Backend
from .views import byte_span, view_byte_strides

__all__ = ["CupyBackend"]


class CupyBackend(Backend):
    """CuPy arrays on an NVIDIA GPU (or AMD, through CuPy's ROCm build)."""

    name = "cupy"
    array_name = "cupy.ndarray"
    library = "cupy"
    compat_module = "array_api_compat.cupy"
    executors = {
        "elementwise": "xstride._kernels.elementwise",
        "reductions": "xstride._kernels.reductions",
        "variance": "xstride._kernels.variance",
        "argreductions": "xstride._kernels.argreductions",
        "scans": "xstride._kernels.scans",
        "philox": "xstride._kernels.philox",
        "morton": "xstride._kernels.morton",
        "sort": "xstride._kernels.sort",
        "segments": "xstride._kernels.segments",
        "tree": "xstride._kernels.tree",
        "compile": "xstride._kernels._compile",
        "engine": "xstride._kernels._elementwise_exec",
        "fusion": "xstride._kernels.fusion",
    }

    def __init__(self):
        super().__init__()
        self.failure: str | None = None
        self._checked = None

    def owns(self, a) -> bool:
        mod = sys.modules.get("cupy")
        return mod is not None and isinstance(a, mod.ndarray)

    def array_type(self):
        mod = sys.modules.get("cupy")
        return None if mod is None else getattr(mod, "ndarray", None)

    def load(self):
        """Import CuPy and check that a device answers.

        Raises
        ------
        RuntimeError
            CuPy is not installed, fails to import, or no device answers; the message
            carries the import error or the driver's message.
        """
        mod = self._checked
        if mod is not None and sys.modules.get("cupy") is mod:
            return mod
        try:
            import cupy
        except Exception as exc:  # ImportError, or a broken CUDA install raising anything
            self.failure = f"CuPy could not be imported: {type(exc).__name__}: {exc}"
            if isinstance(exc, ImportError) and exc.name == "cupy":   # not installed
                self.failure += (" (install CuPy through an extra: pip install "
                                 "'xstride[cuda13]' for CUDA 13 or 'xstride[cuda12]' for "
                                 "CUDA 12; on ROCm, a ROCm build of CuPy)")
            raise backend_unavailable_error("cupy", self.failure) from None
        try:
            count = cupy.cuda.runtime.getDeviceCount()
        except Exception as exc:  # CUDARuntimeError and friends
            self.failure = f"no device answers: {type(exc).__name__}: {exc}"
            raise backend_unavailable_error("cupy", self.failure) from None
        if count < 1:
            self.failure = "no device answers: the runtime reports 0 devices"
            raise backend_unavailable_error("cupy", self.failure)
        self.failure = None
        self._checked = cupy
        self.executor("compile").on_cupy_loaded(cupy)  # XSTRIDE_LOG_KERNELS=1: CuPy's too
        return cupy

    compiles_kernels = True

    def synchronize(self) -> None:
        self.load().cuda.get_current_stream().synchronize()

    def version(self) -> str | None:
        try:
            return str(self.load().__version__)
        except RuntimeError:  # imported, but no device: its version still says something
            mod = sys.modules.get("cupy")
            return None if mod is None else getattr(mod, "__version__", None)

    def start_device_init(self) -> None:
        """The CUDA driver's ``cuInit`` and device 0's primary context on a thread
        (:mod:`xstride._backends.driver_init`), unless CuPy is already imported: then
        there is no import left to overlap, and the process may work on another device
        than 0 (``cupy.cuda.Device(1).use()``), where a context on device 0 would only
        take that GPU's memory."""
        if self._checked is None and "cupy" not in sys.modules:
            from . import driver_init

            driver_init.start()

    def runtime_versions(self) -> dict:
        """``cuda_runtime``, ``cuda_driver`` and ``hip_runtime`` (None where absent)."""
        out = {"cuda_runtime": None, "cuda_driver": None, "hip_runtime": None}
        try:
            rt = self.load().cuda.runtime
        except RuntimeError:
            return out
        hip = bool(getattr(rt, "is_hip", False))
        key = "hip_runtime" if hip else "cuda_runtime"
        out[key] = _format_version(rt.runtimeGetVersion(), hip)
        try:
            out["cuda_driver"] = _format_version(rt.driverGetVersion(), hip)
        except Exception:  # some HIP builds do not report a driver version
            out["cuda_driver"] = None
        return out

    def data_ptr(self, a) -> int:
        return a.data.ptr

    def buffer_range(self, a) -> tuple[int, int]:
        owner = a
        while owner.base is not None and self.owns(owner.base):
            owner = owner.base
        mem = a.data.mem
        olo, ohi = byte_span(owner)
        optr = owner.data.ptr
        return max(mem.ptr, optr + olo), min(mem.ptr + mem.size, optr + ohi)

    def make_view(self, a, layout):
        cupy = self.load()
        off = layout.offset * a.itemsize if layout.size else 0
        mem = a.data.mem
        memptr = cupy.cuda.MemoryPointer(mem, a.data.ptr - mem.ptr + off)
        return cupy.ndarray(layout.shape, dtype=a.dtype, memptr=memptr,
                            strides=view_byte_strides(layout))

    def to_host(self, a):
        return a.get()


def _format_version(v: int, hip: bool) -> str:
    if hip:
        return f"{v // 10_000_000}.{(v // 100_000) % 100}.{v % 100_000}"
    return f"{v // 1000}.{(v % 1000) // 10}"
