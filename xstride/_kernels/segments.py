"""CuPy executor of the segment primitives: the segment reductions (``segments.cu``)
and, from :mod:`.compaction` and :mod:`.voxel_passes`, the compactions
(``compaction.cu``) and the voxel passes of ``voxel_downsample`` (``voxels.cu``).

Arguments arrive checked by :mod:`xstride.algorithms.segments`; the dtypes come from
``xstride._plans.segments`` and the walk of a reduction from
:func:`xstride._plans.segments.plan_segments`. Nothing here imports CuPy at import
time, and no array is copied to the host: what the host must know (the first bad
offset, the first unsorted key, the number of selected rows) is reduced on the device
into a small record of uint64 that is read back in one copy.

Every launch goes through :class:`._launch.Launch`, prepared once per kernel, grid and
fixed arguments and held in a bounded cache; device addresses are its slots; the
launches and the records' read-back are :mod:`._segment_launch`'s. The
template instances of one call are its family: compiled side by side, one module each
(:func:`~xstride._kernels._compile.family_function`).
"""

from __future__ import annotations

import functools

from ._compile import on_request
from ._cupy import cupy as _cupy
# the device check of a public function's arrays (``check_devices(func, named)``), which
# xstride.algorithms calls before the first of this executor's functions: they take
# arrays without their public names
from ._devices import check as check_devices
from ._segment_launch import (NONE as _NONE, THREADS as _THREADS, grid_of as _grid,
                              launch as _launch, opt as _opt, ptr, read as _read,
                              read_later as _read_later, record as _record, signed as _signed)
from .._core.dtypes import C_TYPES, name_of
from .._plans.segments import INT_MEAN, plan_long, plan_segments
# the compaction passes and the voxel passes of voxel_downsample, on this executor
from .compaction import (COMPACT_SOURCE as _COMPACT_SOURCE, SCAN_TILES as _SCAN_TILES,
                         bin_offsets, compact, count_and_scan as _count_and_scan, runs,
                         tiles as _tiles)
from .voxel_passes import voxel_bounds, voxel_keys

__all__ = ["offsets_stats", "reduce_checked", "segment_reduce", "runs", "bin_offsets", "compact",
           "voxel_bounds", "voxel_keys", "reduce_kernels", "warp_tile", "ptr", "check_devices"]

_WARPS_PER_BLOCK = _THREADS // 32
#: XS_SEG_STAGE_BYTES of segments.cu, less its pad slots (one in 33): what a group of
#: the thread walk can stage
_STAGE_SLOTS_BYTES = 32768 * 32 // 33
#: the fraction of the tile a group fills at the mean segment length (room for groups of
#: longer segments than the mean; 0.9 was 1.1-1.3x as fast as 0.6 on the H200 for
#: Poisson lengths of mean 8-128 rows, 2026-12-01)
_STAGE_FILL = 0.9
#: XS_SEG_STAGE_SEGMENTS of segments.cu
_MAX_PER_BLOCK = 512
#: blocks of the offsets' check (each thread walks its offsets by the grid's stride;
#: each block does one atomic per record entry)
_CHECK_BLOCKS = 1024
_OPCODE = {"sum": 0, "prod": 1, "min": 2, "max": 3, "mean": 0}
#: accumulators that are no NumPy dtype: name -> (C type, (dtype, count) of the words
#: that hold one partial of the long walk)
_WIDE = {INT_MEAN: ("xs_seg_i128", ("int64", 2))}
#: a plain kernel of segments.cu (``template <int = 0>``: generated only where named)
_OFFSETS_STATS = on_request("xs_seg_offsets_stats")


def _int64(cupy, a):
    return cupy.ascontiguousarray(a, dtype=cupy.int64)


#: the sign bit of a 64-bit word
_SIGN = 1 << 63


# ------------------------------------------------------------------ offsets
def _check_words(cupy, offsets, offs):
    """``(words, flipped)``: the int64 words the offsets' check compares. ``offs`` (the
    int64 cast of ``offsets``) itself, but for uint64 offsets their bits with the sign
    bit flipped (``x ^ 2**63`` orders as int64 as ``x`` does as uint64, and keeps every
    difference): their int64 cast makes offsets at or past 2**63 negative, which the
    check named as less than the offsets before them (one more pass, for uint64 only)."""
    if offsets.dtype != cupy.uint64:
        return offs, False
    return cupy.bitwise_xor(offs, cupy.int64(-_SIGN)), True


def _stats_record(offs):
    """Launch the offsets' check into a fresh 5-entry record and return it."""
    m = offs.shape[0]
    rec = _record(5)
    _launch(_OFFSETS_STATS, (_OFFSETS_STATS,), min(_CHECK_BLOCKS, _grid(m)), _THREADS,
            [ptr(offs.data.ptr), m, ptr(rec.data.ptr)])
    return rec


def _stats(words: list[int], flipped: bool = False) -> tuple[int, int, int, int, int]:
    """The record of the offsets' check as ``offsets_stats`` gives it; ``flipped``: the
    check read uint64 offsets with their sign bit flipped (:func:`_check_words`)."""
    bad, empty, nlen, start, end = words
    start, end = (start ^ _SIGN, end ^ _SIGN) if flipped else (_signed(start), _signed(end))
    if bad != _NONE:
        return start, end, bad, -1, 0
    return start, end, -1, _opt(empty), (~nlen) & _NONE


def offsets_stats(offsets, n: int) -> tuple[int, int, int, int, int]:
    """``(offsets[0], offsets[-1], first decreasing position or -1, first empty segment or
    -1, longest segment)``: one kernel over the offsets, one 40-byte read."""
    cupy = _cupy()
    words, flipped = _check_words(cupy, offsets, _int64(cupy, offsets))
    return _stats(_read(_stats_record(words)), flipped)


# ------------------------------------------------------------------ segment_reduce
@functools.lru_cache(maxsize=256)
def reduce_kernels(value_dtype: str, op: str, out_dtype: str, acc_dtype: str,
                   tile: bool = False) -> tuple:
    """The name expressions ``(thread, warp, combine)`` of one reduction; ``tile``: the
    warp walk reads through a shared-memory tile (:func:`warp_tile`)."""
    acc = _acc_dtype(value_dtype, op, acc_dtype)
    t, a = C_TYPES[value_dtype], _WIDE[acc][0] if acc in _WIDE else C_TYPES[acc]
    tail = f"{t}, {a}, {C_TYPES[out_dtype]}, {_OPCODE[op]}, {str(op == 'mean').lower()}"
    return (f"xs_seg_thread<{tail}>", f"xs_seg_warp<{tail}, {str(tile).lower()}>",
            f"xs_seg_combine<{tail}>")


def warp_tile(k: int, itemsize: int) -> bool:
    """Whether the warp walk of rows of ``k`` values of ``itemsize`` bytes reads them
    through its warp's shared-memory tile (segments.cu, ``TILE``; docs/performance.md,
    2026-12-06): the columns fit one slab of 32 lanes, the values have 4 or 8 bytes."""
    return k <= 32 and itemsize in (4, 8)


def reduce_checked(values, offsets, op: str, out_dtype: str, acc_dtype: str):
    """:func:`offsets_stats` and :func:`segment_reduce` in one queue: the offsets' check,
    the copy of its record to the host, then the short walk, launched before the host
    waits for the record (the walks clamp every offset to ``[0, n]``, so offsets the
    check will refuse read no row outside ``values``). Returns ``(stats, finish)``:
    ``stats`` as :func:`offsets_stats` gives it; ``finish()``, to be called only when
    the caller accepts those offsets, launches the long walk where a segment needs it
    and returns the result. Saves the host's round trip between the check and the
    walk (about 0.07 of 0.35 ms for 2**26 (n, 3) float32 rows in 2**21 segments)."""
    cupy = _cupy()
    offs = _int64(cupy, offsets)
    words, flipped = _check_words(cupy, offsets, offs)
    wait = _read_later(_stats_record(words))
    try:
        started = None if op == "count" else _short_walk(values, offs, op, out_dtype,
                                                         acc_dtype)
    except BaseException:
        wait()    # the copy lands before its pinned words can go back to CuPy's pool
        raise
    stats = _stats(wait(), flipped)

    def finish():
        if started is None:
            return segment_reduce(values, offs, op, out_dtype, acc_dtype, stats[4])
        return _long_walk(started, stats[4])
    return stats, finish


def segment_reduce(values, offsets, op: str, out_dtype: str, acc_dtype: str, max_len: int):
    """The reduction of each segment: the short walk (one thread or one warp per
    segment) over every segment of at most ``split`` rows, then the long walk (warps
    over fixed chunks, then an in-order combine) over the longer ones, whose indices a
    compaction of the offsets gathers (:mod:`xstride._plans.segments`)."""
    cupy = _cupy()
    offs = _int64(cupy, offsets)
    if op == "count":
        n_seg = offs.shape[0] - 1
        tail = tuple(values.shape[1:])
        lengths = (offs[1:] - offs[:-1]).reshape((n_seg,) + (1,) * len(tail))
        return cupy.ascontiguousarray(cupy.broadcast_to(lengths, (n_seg,) + tail))
    return _long_walk(_short_walk(values, offs, op, out_dtype, acc_dtype), max_len)


def _short_walk(values, offs, op: str, out_dtype: str, acc_dtype: str):
    """Launch the walk of every segment of at most the plan's ``split`` rows (its
    choice of thread or warp walk needs only ``n``, the segments and the row's bytes);
    return what :func:`_long_walk` needs: ``(out, v, offs, family, op, acc_dtype)``,
    ``v``/``family`` None where there is nothing to walk."""
    cupy = _cupy()
    n_seg = offs.shape[0] - 1
    tail = tuple(values.shape[1:])
    k = tail[0] if tail else 1
    out = cupy.empty((n_seg,) + tail, dtype=out_dtype)
    if n_seg == 0 or k == 0:
        return out, None, offs, None, op, acc_dtype
    n = values.shape[0]
    v = cupy.ascontiguousarray(values)
    family = reduce_kernels(name_of(values.dtype), op, out_dtype, acc_dtype,
                            warp_tile(k, v.dtype.itemsize))
    plan = plan_segments(n, n_seg, 0, k * v.dtype.itemsize)
    if plan.short == "thread":
        per_block = _per_block(n, n_seg, k, v.dtype.itemsize)
        _launch(family[0], family, _grid(n_seg, per_block), _THREADS,
                [ptr(v.data.ptr), ptr(offs.data.ptr), n, n_seg, k, plan.split, per_block,
                 ptr(out.data.ptr)])
    else:
        _warps(family, v, offs, None, n_seg, k, 1, plan.split, plan.split, out, None)
    return out, v, offs, family, op, acc_dtype


def _long_walk(started, max_len: int):
    """The long walk after :func:`_short_walk`, where the longest segment (``max_len``
    rows) passes the plan's ``split``; returns the result."""
    out, v, offs, family, op, acc_dtype = started
    if v is None:
        return out
    n_seg = offs.shape[0] - 1
    k = out.shape[1] if out.ndim == 2 else 1
    plan = plan_segments(v.shape[0], n_seg, max_len, k * v.dtype.itemsize)
    if plan.long:
        ids = _long_segments(offs, n_seg, plan.split)
        walk = plan_long(ids.shape[0], max_len)
        part = None
        if walk.chunks > 1:
            acc = _acc_dtype(name_of(v.dtype), op, acc_dtype)
            dtype, words = _WIDE[acc][1] if acc in _WIDE else (acc, 1)
            part = _cupy().empty(ids.shape[0] * walk.chunks * k * words, dtype=dtype)
        _warps(family, v, offs, ids, ids.shape[0], k, walk.chunks, walk.chunk_rows,
               max_len, out, part)
    return out


def _per_block(n: int, n_seg: int, k: int, itemsize: int) -> int:
    """Segments a block of the thread walk takes: their rows fill about
    :data:`_STAGE_FILL` of the shared tile at the mean segment length (a group whose
    rows do not fit is read from global memory, to the same result)."""
    mean_bytes = max(1, n * k * itemsize // n_seg)
    return max(1, min(_MAX_PER_BLOCK, int(_STAGE_SLOTS_BYTES * _STAGE_FILL) // mean_bytes))


def _warps(family, v, offs, ids, n_items: int, k: int, chunks: int, chunk_rows: int,
           max_rows: int, out, part) -> None:
    """The warp kernel over ``n_items`` segments (``ids``, or all of them) in ``chunks``
    chunks, and the combine of the chunks when there are several."""
    if n_items == 0:
        return
    warps = n_items * chunks
    idp = ptr(0 if ids is None else ids.data.ptr)
    _launch(family[1], family, _grid(warps, _WARPS_PER_BLOCK), _THREADS,
            [ptr(v.data.ptr), ptr(offs.data.ptr), v.shape[0], idp, n_items, k, chunks, chunk_rows,
             max_rows, ptr(out.data.ptr), ptr(0 if part is None else part.data.ptr)])
    if part is not None:
        _launch(family[2], family, _grid(n_items * k), _THREADS,
                [ptr(part.data.ptr), ptr(offs.data.ptr), idp, n_items, k, chunks, chunk_rows,
                 ptr(out.data.ptr)])


def _long_segments(offs, n_seg: int, split: int):
    """int64 indices of the segments of more than ``split`` rows, in order (a stable
    compaction of the offsets; one 16-byte read)."""
    cupy = _cupy()
    family = ("xs_seg_count<2, long long>", "xs_seg_scatter<2, long long, unsigned char>",
              _SCAN_TILES)
    tile_offsets, _, total = _count_and_scan(2, offs, "long long", n_seg, family, False,
                                             split)
    ids = cupy.empty(total, dtype=cupy.int64)
    if total:
        _launch(family[1], family, _tiles(n_seg), _THREADS,
                [ptr(offs.data.ptr), n_seg, split, ptr(tile_offsets.data.ptr), ptr(0), 0,
                 ptr(0), ptr(ids.data.ptr), ptr(0), ptr(0), 0], _COMPACT_SOURCE)
    return ids


def _acc_dtype(value_dtype: str, op: str, acc_dtype: str) -> str:
    """The dtype of the device accumulator ``A`` (the partials of the warp kernel): the
    plan's accumulator, except that 8- and 16-bit min/max lanes are shuffled as int32
    (CUDA shuffles no narrower type; the values are exact in it)."""
    if op in ("min", "max"):
        return "int32" if value_dtype in ("int8", "int16", "uint8", "uint16") else value_dtype
    return acc_dtype
