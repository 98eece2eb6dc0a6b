"""CuPy launchers for Morton keys (``morton.cu``, ``include/xstride/morton.cuh``).

Arguments arrive checked by :mod:`xstride.algorithms`; the scales come from the host
(:func:`xstride.algorithms.morton_scales`), so device keys equal host keys bit for bit.
Nothing here imports CuPy at import time.

Every launch goes through :class:`._launch.Launch`, prepared once per kernel, size,
layout (the strided kernel's row and column strides), ``levels`` and device, and held
in a bounded cache; a call sets the slots: the addresses, and the lower bounds and
scales (``double`` slots, so a call with other bounds reuses the launch).
"""

from __future__ import annotations

from ._compile import kernel
from ._cupy import cupy as _cupy
from ._devices import check as check_devices
from ._launch import Launch, i32, i64, slot64, slot_f64
from ._lru import Bounded
from .._core.errors import argument_error

__all__ = ["keys", "launch", "encode", "decode", "CONTIGUOUS_METHOD"]

_SOURCE = "morton.cu"
_THREADS = 256
_ROWS_PPT = 2  # points per thread of the rows kernel (XS_MK_PPT in morton.cu)
_MAX_BLOCKS = 65535 * 16


#: Prepared launches: (kernel name, n, strides or None, levels or None, device) -> Launch
_LAUNCHES = Bounded(256)


def _grid(n: int) -> tuple[int]:
    return (max(1, min(_MAX_BLOCKS, (n + _THREADS - 1) // _THREADS)),)


def _prepared(name: str, n: int, layout, levels, build):
    """The cached :class:`Launch` of kernel ``name`` for ``n`` items (``layout``,
    ``levels``: the rest of what its fixed arguments hold); ``build(kernel)`` makes it
    on a miss."""
    key = (name, n, layout, levels, _cupy().cuda.runtime.getDevice())
    launch = _LAUNCHES.get(key)
    if launch is None:
        launch = _LAUNCHES.put(key, build(kernel(name, _SOURCE)))
    return launch


#: Kernel for C-contiguous, 16-byte aligned positions (float32 or float64, 2-D or 3-D):
#: ``"rows"`` (tiles staged in shared memory with vector loads) or ``"strided"``
#: (a strided load per coordinate, the kernel for every other layout). Chosen by
#: benchmarks/morton.py on the H200 (kernel only: 0.505 ms rows vs 0.556 ms strided for
#: 2**26 x 3 float64).
CONTIGUOUS_METHOD = "rows"


def _rows_ok(positions, ndim: int) -> bool:
    """Whether the rows kernel applies: C-contiguous and 16-byte aligned (float32 3-D
    rows stage with 8-byte loads, the others with 16-byte ones: morton.cu's xs_mk_vec).
    Before 2026-12-06 float32 3-D took the strided kernel: 0.42 of copy for 2**24 rows
    on an H100 where float64 read 0.65."""
    return positions.flags.c_contiguous and positions.data.ptr % 16 == 0


def launch(positions, lower, scales, levels: int, out, bad, method=None) -> None:
    """Enqueue the key kernel (no host synchronisation): keys into ``out`` (n,) uint64,
    the first bad row into ``bad`` (1,) uint64 (which the caller sets to 2**64 - 1).

    ``positions`` is a CuPy float32/float64 (n, ndim) array whose strides are multiples
    of its item size. ``method``: ``"rows"``, ``"strided"`` or None
    (:data:`CONTIGUOUS_METHOD` when the rows are contiguous and aligned, else strided).
    """
    n, ndim = positions.shape
    if n == 0:
        return
    suffix = "f64" if positions.dtype.itemsize == 8 else "f32"
    if method is None:
        method = CONTIGUOUS_METHOD if _rows_ok(positions, ndim) else "strided"
    elif method == "rows" and not _rows_ok(positions, ndim):
        raise argument_error(ValueError, "morton.launch", "method",
                             "is 'rows', but the 'rows' kernel needs C-contiguous, 16-byte aligned "
                             "positions")
    levels = int(levels)

    def tail():   # lower bounds, scales (ndim each), levels, keys, bad
        return [slot_f64() for _ in range(2 * ndim)] + [i32(levels), slot64(), slot64()]

    if method == "rows":
        tiles = -(-n // (_THREADS * _ROWS_PPT))
        prepared = _prepared(
            f"xstride_morton_rows{ndim}_{suffix}", n, None, levels,
            lambda k: Launch(k, (max(1, min(_MAX_BLOCKS, tiles)),), (_THREADS,),
                             [slot64(), i64(n)] + tail()))        # positions, n, ...
    else:
        item = positions.dtype.itemsize
        rs, cs = (st // item for st in positions.strides)
        prepared = _prepared(
            f"xstride_morton_keys{ndim}_{suffix}", n, (rs, cs), levels,
            lambda k: Launch(k, _grid(n), (_THREADS,),            # positions, n, rs, cs, ...
                             [slot64(), i64(n), i64(rs), i64(cs)] + tail()))
    prepared(positions.data.ptr, *[float(v) for v in lower], *[float(v) for v in scales],
           out.data.ptr, bad.data.ptr)


def keys(positions, lower, scales, levels: int, method=None):
    """Keys (n,) uint64 of a CuPy (n, ndim) float array; returns (keys, first bad row or -1).

    The first bad row is read back from the device (one 8-byte copy, which waits for the
    kernel): the price of refusing NaN/inf like the host does. The flag starts as
    2**64 - 1 by a byte memset (no fill kernel).
    """
    cupy = _cupy()
    check_devices("morton_keys", (("positions", positions),), cupy)
    n, ndim = positions.shape
    if positions.dtype not in (cupy.float32, cupy.float64):
        positions = positions.astype(cupy.float64)
    item = positions.dtype.itemsize
    if any(s % item for s in positions.strides):
        positions = cupy.ascontiguousarray(positions)
    out = cupy.empty(n, dtype=cupy.uint64)
    if n == 0:
        return out, -1
    bad = cupy.empty(1, dtype=cupy.uint64)
    cupy.cuda.runtime.memsetAsync(bad.data.ptr, 0xFF, 8,
                                  cupy.cuda.get_current_stream().ptr)
    launch(positions, lower, scales, levels, out, bad, method)
    first_bad = int(bad.get()[0])
    return out, (-1 if first_bad >= n else first_bad)


def encode(cells):
    """Keys of CuPy cell arrays (already checked and broadcast to one shape)."""
    cupy = _cupy()
    check_devices("morton_encode", tuple(zip(("ix", "iy", "iz"), cells)), cupy)
    shape = cells[0].shape
    flat = [cupy.ascontiguousarray(c, dtype=cupy.uint64).ravel() for c in cells]
    n = flat[0].size
    out = cupy.empty(n, dtype=cupy.uint64)
    if n:
        k = len(flat)
        launch = _prepared(f"xstride_morton_encode{k}_u64", n, None, None,
                           lambda fn: Launch(fn, _grid(n), (_THREADS,),   # cells, n, keys
                                             [slot64() for _ in range(k)]
                                             + [i64(n), slot64()]))
        launch(*[f.data.ptr for f in flat], out.data.ptr)
    return out.reshape(shape)


def decode(keys_u64, ndim: int):
    """Cells (..., ndim) uint64 of a CuPy uint64 key array."""
    cupy = _cupy()
    check_devices("morton_decode", (("keys", keys_u64),), cupy)
    shape = keys_u64.shape
    flat = cupy.ascontiguousarray(keys_u64).ravel()
    n = flat.size
    out = cupy.empty((n, ndim), dtype=cupy.uint64)
    if n:
        launch = _prepared(f"xstride_morton_decode{ndim}_u64", n, None, None,
                           lambda fn: Launch(fn, _grid(n), (_THREADS,),   # keys, n, cells
                                             [slot64(), i64(n), slot64()]))
        launch(flat.data.ptr, out.data.ptr)
    return out.reshape(shape + (ndim,))


def checked_keys(positions, lower, scales, levels: int):
    """``(keys, first bad row or -1)``: keys and the finiteness check in one pass."""
    return keys(positions, lower, scales, levels)
