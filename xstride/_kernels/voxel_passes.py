"""The voxel passes of ``voxel_downsample`` on CuPy (``voxels.cu``): the points' bounds
and first non-finite row in one pass, and each point's voxel as a Morton key. Part of
the segment executor (:mod:`.segments` exports both); arguments arrive checked by
:mod:`xstride.algorithms.voxels`. Nothing here imports CuPy at import time.
"""

from __future__ import annotations

import struct

import numpy as np

from ._cupy import cupy as _cupy
from ._segment_launch import (THREADS as _THREADS, grid_of as _grid, launch as _launch,
                              opt as _opt, ptr, read as _read, record as _record)
from .._core.dtypes import C_TYPES, name_of

__all__ = ["voxel_bounds", "voxel_keys"]

_VOX_SOURCE = "voxels.cu"
#: blocks of the bounds pass (each thread folds its points in registers, each block
#: does 2 * ndim + 1 global atomics)
_VOX_BLOCKS = 1024
_VOX_ITEMS = 4      # XS_VOX_ITEMS of voxels.cu: points a thread step


def _elements(a):
    """``(a, (row stride, column stride))`` of a 2-D CuPy array, strides in elements (a
    copy where a stride is not a whole number of elements)."""
    if any(int(s) % a.dtype.itemsize for s in a.strides):
        a = _cupy().ascontiguousarray(a)
    return a, tuple(int(s) // a.dtype.itemsize for s in a.strides)


def voxel_bounds(points):
    """``(lowest corner, highest corner, first row with a NaN or infinite coordinate or
    -1)`` of float32/float64 points (n >= 1, ndim): the corners as float64 host arrays
    over the finite rows. One pass over the points (any strides), one read of
    ``2 * ndim + 1`` words."""
    n, d = (int(s) for s in points.shape)
    points, (rs, cs) = _elements(points)
    rec = _record(2 * d + 1)
    t = C_TYPES[name_of(points.dtype)]
    name = f"xs_vox_bounds<{t}, {d}>"
    _launch(name, (name,), min(_VOX_BLOCKS, _grid(n)), _THREADS,
            [ptr(points.data.ptr), n, rs, cs, ptr(rec.data.ptr)], _VOX_SOURCE)
    words = np.array(_read(rec), dtype=np.uint64)
    lo = _from_ordered(words[:d])
    hi = _from_ordered(~words[d:2 * d])
    return lo, hi, _opt(int(words[2 * d]))


def _from_ordered(u):
    """Doubles from their ordered keys (the inverse of ``xs_vox_ordered``)."""
    top = np.uint64(1 << 63)
    bits = np.where(u & top, u ^ top, ~u)
    return bits.view(np.float64)


def _bits(x: float) -> int:
    """The bit pattern of a float64 as a signed 64-bit int (a ``long long`` argument)."""
    return struct.unpack("<q", struct.pack("<d", float(x)))[0]


def voxel_keys(points, origin, size, vmin):
    """uint64 Morton keys (n,) of the voxels ``floor((p - origin) / size) - vmin`` of
    float32/float64 points (n, ndim), one thread per point; ``origin``, ``size`` and
    ``vmin`` are float64 host arrays (the host checked that the cells fit a key)."""
    cupy = _cupy()
    n, d = (int(s) for s in points.shape)
    keys = cupy.empty(n, dtype=cupy.uint64)
    if n == 0:
        return keys
    points, (rs, cs) = _elements(points)
    pad = [0.0] * (3 - d)
    fixed = [_bits(v) for group in (origin, size, vmin) for v in list(group) + pad]
    name = f"xs_vox_keys<{C_TYPES[name_of(points.dtype)]}, {d}>"
    _launch(name, (name,), _grid(n, _THREADS * _VOX_ITEMS), _THREADS,
            [ptr(points.data.ptr), n, rs, cs, *fixed, ptr(keys.data.ptr)], _VOX_SOURCE)
    return keys
