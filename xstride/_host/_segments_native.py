"""Compiled host loops for :func:`xstride._host.segments.bin_offsets` and the float
sums of :func:`xstride._host.segments.segment_reduce` (optional; NumPy is the
fallback): ``segments_host.c`` beside this file, built and cached by :mod:`._native`
(``XSTRIDE_HOST_CC``, ``XSTRIDE_CACHE_DIR``) at first use.

Flags: ``-O3 -fPIC -shared -std=c99`` (``-O3``: the order and range check is written to
be vectorized, which GCC 12's ``-O2`` does not do; 5.5 against 3.6 ms for 2**22 bins),
no ``-march=native`` (a shared cache must not hold builds for one CPU only).
"""

from __future__ import annotations

import ctypes
import threading
from pathlib import Path

import numpy as np

from . import _native

__all__ = ["FLAGS", "get", "reason"]

FLAGS = ("-O3", "-fPIC", "-shared", "-std=c99")
_SOURCE = Path(__file__).resolve().parent / "segments_host.c"

_lock = threading.Lock()
_states: dict = {}  # (XSTRIDE_HOST_CC, XSTRIDE_CACHE_DIR) -> _Loops or reason string


_BIN_OFFSETS = {np.dtype(np.int64): "xstride_host_bin_offsets_i64",
                np.dtype(np.int32): "xstride_host_bin_offsets_i32"}
_SEGMENT_SUMS = {np.dtype(np.float32): "xstride_host_segment_sums_f32",
                 np.dtype(np.float64): "xstride_host_segment_sums_f64"}


def _bind(lib, name: str, args: list):
    f = getattr(lib, name)
    f.argtypes = args
    f.restype = None
    return f


class _Loops:
    """The loaded library: :meth:`bin_offsets` for int32 and int64 bins,
    :meth:`segment_sums` for float32 and float64 rows."""

    def __init__(self, lib, compiler: str, path: Path):
        self.compiler, self.path = compiler, path
        p, i64 = ctypes.c_void_p, ctypes.c_longlong
        self._fns = {dt: _bind(lib, name, [p, i64, i64, p, p])
                     for dt, name in _BIN_OFFSETS.items()}
        self._sums = {dt: _bind(lib, name, [p, i64, p, i64, p])
                      for dt, name in _SEGMENT_SUMS.items()}

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


    def takes_sums(self, dtype) -> bool:
        """True for the value dtypes :meth:`segment_sums` reads (float32, float64)."""
        return np.dtype(dtype) in self._sums

    def segment_sums(self, values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
        """float64 sums ``(n_segments, k)`` of C-contiguous, aligned ``(n, k)`` float
        rows over checked int64 CSR ``offsets``, row by row from each segment's first
        row (``add.reduceat``'s order for ``k >= 2``); +0.0 for an empty segment."""
        n_seg = offsets.shape[0] - 1
        k = values.shape[1]
        out = np.empty((n_seg, k), dtype=np.float64)
        offsets = np.ascontiguousarray(offsets, dtype=np.int64)
        self._sums[values.dtype](values.ctypes.data, k, offsets.ctypes.data, n_seg,
                                 out.ctypes.data)
        return out


def _build(cc_spec, cache):
    got = _native.build("segments_host", _SOURCE, (), None, cc_spec, cache, FLAGS,
                        symbols=(*_BIN_OFFSETS.values(), *_SEGMENT_SUMS.values()))
    if isinstance(got, str):
        return got
    lib, label, path, _ = got
    try:
        return _Loops(lib, label, path)
    except AttributeError as e:
        return f"{label}: {path.name} lacks a loop: {e}"


def get():
    """The loaded loops, or ``None`` when the NumPy path is used (the outcome for an
    ``XSTRIDE_HOST_CC`` / ``XSTRIDE_CACHE_DIR`` setting is remembered)."""
    state = _native.state(_states, _lock, _build)
    return state if isinstance(state, _Loops) else None


def reason() -> str:
    """Why the NumPy path is used (``""`` when the compiled loop is loaded)."""
    state = _native.state(_states, _lock, _build)
    return "" if isinstance(state, _Loops) else state
