"""Compiled host loop for :func:`xstride._host.partition.partition` (optional; NumPy is
the fallback): ``partition_host.c`` beside this file, built and cached by
:mod:`._native` (``XSTRIDE_HOST_CC``, ``XSTRIDE_CACHE_DIR``) at first use.

Flags: ``-O2 -fPIC -shared -std=c99``, no ``-march=native`` (a shared cache must not
hold builds for one CPU only).
"""

from __future__ import annotations

import ctypes
from pathlib import Path

import numpy as np

from . import _native

__all__ = ["FLAGS", "LIBRARY", "get", "reason"]

FLAGS = ("-O2", "-fPIC", "-shared", "-std=c99")
_SOURCE = Path(__file__).resolve().parent / "partition_host.c"
_SYMBOLS = {np.dtype(np.int32): "xstride_host_partition_i32",
            np.dtype(np.uint32): "xstride_host_partition_u32",
            np.dtype(np.int64): "xstride_host_partition_i64",
            np.dtype(np.uint64): "xstride_host_partition_u64"}



class _Loops:
    """The loaded library: :meth:`partition` for native 32- and 64-bit integer keys."""

    def __init__(self, lib, compiler: str, path: Path):
        self.compiler, self.path = compiler, path
        self._fns = {}
        for dt, name in _SYMBOLS.items():
            f = getattr(lib, name)
            f.argtypes = [ctypes.c_void_p, ctypes.c_longlong, ctypes.c_void_p,
                          ctypes.c_longlong, ctypes.c_void_p, ctypes.c_void_p,
                          ctypes.c_void_p, ctypes.c_longlong, ctypes.c_void_p,
                          ctypes.c_void_p, ctypes.c_void_p]
            f.restype = ctypes.c_longlong
            self._fns[dt] = f

    def takes(self, dtype) -> bool:
        """True for the key dtypes the loop reads (native int32, uint32, int64, uint64)."""
        return np.dtype(dtype) in self._fns

    def partition(self, keys, splitters, cuts, order, keys_out, vals_in, vals_out,
                  row_bytes) -> bool:
        """Run the loop on C-contiguous arrays (``partition_host.c``); False where its
        scratch memory could not be had (nothing written)."""
        n_vals = len(vals_in)
        ins = (ctypes.c_void_p * max(n_vals, 1))(*[v.ctypes.data for v in vals_in])
        outs = (ctypes.c_void_p * max(n_vals, 1))(*[v.ctypes.data for v in vals_out])
        rb = np.asarray(row_bytes if n_vals else [0], dtype=np.int64)
        status = self._fns[keys.dtype](
            keys.ctypes.data, keys.shape[0], splitters.ctypes.data, splitters.shape[0],
            cuts.ctypes.data, order.ctypes.data, keys_out.ctypes.data, n_vals, ins, outs,
            rb.ctypes.data)
        return status == 0


#: The library: ``get()`` the loaded loops or None, ``reason()`` why not.
LIBRARY = _native.Library("partition_host", _SOURCE, FLAGS, tuple(_SYMBOLS.values()), _Loops)
get, reason = LIBRARY.get, LIBRARY.reason
