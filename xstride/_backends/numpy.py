"""The NumPy backend: host arrays; NumPy computes, ``xstride._host`` adds what it lacks."""

from __future__ import annotations

import sys

import numpy as np

from .._host import _config as _host_config
from .._kernels._headers import include_dir
from ._base import Backend
from .views import numpy_buffer_range, numpy_view

__all__ = ["NumpyBackend"]

# The host Philox loops compile against the shipped random.cuh (one definition of the
# rounds for host and device); the headers belong to the CUDA executors.
_host_config.INCLUDE_DIR = include_dir()


class NumpyBackend(Backend):
    """NumPy arrays (and NumPy scalars) on the CPU."""

    name = "numpy"
    array_name = "numpy.ndarray"
    library = "numpy"
    compat_module = "array_api_compat.numpy"
    executors = {
        "elementwise": "xstride._host.elementwise",
        "philox": "xstride._host.philox",
        "morton": "xstride._host.morton",
        "sort": "xstride._host.sort",
        "segments": "xstride._host.segments",
        "reductions": "xstride._host.reductions",
        "tree": "xstride._host.tree",
    }
    readonly_views = True

    def owns(self, a) -> bool:
        return isinstance(a, (np.ndarray, np.generic))

    def array_type(self):
        return np.ndarray

    def mask_remedy(self, a) -> str | None:
        # np.ma is imported on first access (60 ms where bytecode is not cached): an
        # array can only be masked once something else has imported it
        ma = sys.modules.get("numpy.ma")
        if ma is not None and isinstance(a, ma.MaskedArray):
            return "pass x.filled(v) or x.compressed()"
        return None

    def load(self):
        return np

    def version(self) -> str | None:
        return np.__version__

    def asarray(self, value, dtype=None):
        return np.asarray(value, dtype=dtype)

    def data_ptr(self, a) -> int:
        return a.__array_interface__["data"][0]

    def buffer_range(self, a) -> tuple[int, int]:
        return numpy_buffer_range(a)

    def make_view(self, a, layout):
        return numpy_view(a, layout)

    def library_sliding_window_view(self, x, window, axes, writeable):
        return np.lib.stride_tricks.sliding_window_view(x, window, axes, writeable=writeable)

    def to_host(self, a):
        return a
