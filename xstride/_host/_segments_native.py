"""Compiled host loop for :func:`xstride._host.segments.bin_offsets` (optional; NumPy
is the fallback): ``segments_host.c`` beside this file, built and cached by
:mod:`._native` (``XSTRIDE_HOST_CC``, ``XSTRIDE_CACHE_DIR``) at first use.

Flags: ``-O3 -fPIC -shared -std=c99`` (``-O3``: the order and range check is written to
be vectorized, which GCC 12's ``-O2`` does not do; 5.5 against 3.6 ms for 2**22 bins),
no ``-march=native`` (a shared cache must not hold builds for one CPU only).
"""

from __future__ import annotations

import ctypes
from pathlib import Path

import numpy as np

from . import _native

__all__ = ["FLAGS", "LIBRARY", "get", "reason"]

FLAGS = ("-O3", "-fPIC", "-shared", "-std=c99")
_SOURCE = Path(__file__).resolve().parent / "segments_host.c"



class _Loops:
    """The loaded library: :meth:`bin_offsets` for int32 and int64 bins."""

    def __init__(self, lib, compiler: str, path: Path):
        self.compiler, self.path = compiler, path
        self._fns = {}
        for dt, name in ((np.dtype(np.int64), "xstride_host_bin_offsets_i64"),
                         (np.dtype(np.int32), "xstride_host_bin_offsets_i32")):
            f = getattr(lib, name)
            f.argtypes = [ctypes.c_void_p, ctypes.c_longlong, ctypes.c_longlong,
                          ctypes.c_void_p, ctypes.c_void_p]
            f.restype = None
            self._fns[dt] = f

    def takes(self, dtype) -> bool:
        """True for the bin dtypes the loop reads (int32, int64)."""
        return np.dtype(dtype) in self._fns

    def bin_offsets(self, bins: np.ndarray, n_bins: int, offsets: np.ndarray) -> tuple:
        """``(first unsorted position or -1, first position outside [0, n_bins) or -1)``
        of C-contiguous ``bins``; ``offsets`` (int64, ``n_bins + 1``) filled when both
        are -1 (the pass stops at the first bin outside the range)."""
        found = np.empty(2, dtype=np.int64)
        self._fns[bins.dtype](bins.ctypes.data, bins.shape[0], n_bins, offsets.ctypes.data,
                              found.ctypes.data)
        return int(found[0]), int(found[1])


#: The library: ``get()`` the loaded loops or None, ``reason()`` why not.
LIBRARY = _native.Library("segments_host", _SOURCE, FLAGS,
                          ("xstride_host_bin_offsets_i64", "xstride_host_bin_offsets_i32"),
                          _Loops)
get, reason = LIBRARY.get, LIBRARY.reason
