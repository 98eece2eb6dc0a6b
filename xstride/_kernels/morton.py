"""CuPy launchers for Morton keys (``morton.cu``, ``include/xstride/morton.cuh``).

Arguments arrive checked by :mod:`xstride.algorithms`; the scales come from the host
(:func:`xstride.algorithms.morton_scales`), so device keys equal host keys bit for bit.
Nothing here imports CuPy at import time.
"""

from __future__ import annotations

import functools
from pathlib import Path

from .._backend import load_cupy
from ._compile import raw_module

__all__ = ["keys", "encode", "decode"]

_SOURCE = Path(__file__).with_name("morton.cu")
_THREADS = 256
_MAX_BLOCKS = 65535 * 16


@functools.lru_cache(maxsize=None)
def _source() -> str:
    return _SOURCE.read_text()


def _module():
    return raw_module(_source())


def _grid(n: int) -> tuple[int]:
    return (max(1, min(_MAX_BLOCKS, (n + _THREADS - 1) // _THREADS)),)


def keys(positions, lower, scales, levels: int):
    """Keys (n,) uint64 of a CuPy (n, ndim) float array; returns (keys, first bad row or -1).

    The first bad row is read back from the device (one 8-byte copy, which waits for the
    kernel): the price of refusing NaN/inf like the host does.
    """
    cupy = load_cupy()
    import numpy as np

    n, ndim = positions.shape
    if positions.dtype not in (cupy.float32, cupy.float64):
        positions = positions.astype(cupy.float64)
    item = positions.dtype.itemsize
    if any(s % item for s in positions.strides):
        positions = cupy.ascontiguousarray(positions)
    rs, cs = (s // item for s in positions.strides)
    out = cupy.empty(n, dtype=cupy.uint64)
    bad = cupy.full(1, np.uint64(2**64 - 1), dtype=cupy.uint64)
    if n == 0:
        return out, -1
    suffix = "f64" if positions.dtype == cupy.float64 else "f32"
    kernel = _module().get_function(f"xstride_morton_keys{ndim}_{suffix}")
    args = [positions, np.int64(n), np.int64(rs), np.int64(cs)]
    args += [np.float64(v) for v in lower] + [np.float64(v) for v in scales]
    args += [np.int32(levels), out, bad]
    kernel(_grid(n), (_THREADS,), tuple(args))
    first_bad = int(bad.get()[0])
    return out, (-1 if first_bad >= n else first_bad)


def encode(cells):
    """Keys of CuPy cell arrays (already checked and broadcast to one shape)."""
    cupy = load_cupy()
    import numpy as np

    shape = cells[0].shape
    flat = [cupy.ascontiguousarray(c, dtype=cupy.uint64).ravel() for c in cells]
    n = flat[0].size
    out = cupy.empty(n, dtype=cupy.uint64)
    if n:
        kernel = _module().get_function(f"xstride_morton_encode{len(cells)}_u64")
        kernel(_grid(n), (_THREADS,), (*flat, np.int64(n), out))
    return out.reshape(shape)


def decode(keys_u64, ndim: int):
    """Cells (..., ndim) uint64 of a CuPy uint64 key array."""
    cupy = load_cupy()
    import numpy as np

    shape = keys_u64.shape
    flat = cupy.ascontiguousarray(keys_u64).ravel()
    n = flat.size
    out = cupy.empty((n, ndim), dtype=cupy.uint64)
    if n:
        kernel = _module().get_function(f"xstride_morton_decode{ndim}_u64")
        kernel(_grid(n), (_THREADS,), (flat, np.int64(n), out))
    return out.reshape(shape + (ndim,))
