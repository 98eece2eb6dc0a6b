"""The compactions on CuPy (``compaction.cu``), part of the segment executor
(:mod:`.segments` exports ``runs``, ``compact`` and ``bin_offsets``): a reduce-then-scan
over tiles of :data:`TILE` elements (a count a tile, one block scanning the counts,
each tile's rows moved to its offset plus their rank in it), whose record of checks
and count is read back once; the run heads of sorted keys (:func:`runs`, with a light
copy of the heads the count pass staged, launched before the host reads the count);
``compact``; and ``bin_offsets`` in one pass over the bins. Arguments arrive checked
by :mod:`xstride.algorithms.segments`; nothing here imports CuPy at import time.
"""

from __future__ import annotations

from ._compile import on_request
from ._cupy import cupy as _cupy
from ._segment_launch import (I32 as _I32, NONE as _NONE, THREADS as _THREADS,
                              grid_of as _grid, launch as _launch, opt as _opt, ptr,
                              read as _read, read_later as _read_later, record as _record)
from .._core.dtypes import C_TYPES, name_of
from .._plans.segments import RUN_TESTS, longest_bound

__all__ = ["runs", "compact", "bin_offsets", "count_and_scan", "count_and_scan_later", "tiles",
           "COMPACT_SOURCE", "SCAN_TILES"]

COMPACT_SOURCE = "compaction.cu"
TILE = 256 * 16          # XS_SEG_TILE of compaction.cu
_WALK_TILE = 256 * 8     # XS_SEG_WALK_TILE of compaction.cu (bin_offsets' walk)
#: XS_SEG_STAGE of compaction.cu: the run heads a tile of the count pass stages
_STAGE = 256
_SCAN_THREADS = 1024
#: the plain kernels of compaction.cu (``template <int = 0>``: generated only where
#: named); each is a member of the families that launch it, one module of its own
#: (``family_function``), so the tile scan is compiled once for every family
SCAN_TILES = on_request("xs_seg_scan_tiles")
_CLOSE = on_request("xs_seg_close")
_CLOSE_THREADS = 256
#: copy words of each size (rows are moved as raw words)
_WORDS = {8: "unsigned long long", 4: "unsigned int", 2: "unsigned short", 1: "unsigned char"}


def tiles(n: int) -> int:
    return -(-n // TILE)


def count_and_scan(flag: int, src, key_type: str, n: int, family: tuple, check: bool,
                    thr: int = 0, longer: list | None = None, stage: list | None = None):
    """Passes 1 and 2: the exclusive offsets of the tiles (int64 (n_tiles,)), the first
    unsorted position (or -1) and the total, from one record read back (see
    :func:`count_and_scan_later`)."""
    tile_offsets, _, finish = count_and_scan_later(flag, src, key_type, n, family, check,
                                                    thr, longer, stage)
    return (tile_offsets,) + finish()


def count_and_scan_later(flag: int, src, key_type: str, n: int, family: tuple, check: bool,
                          thr: int = 0, longer: list | None = None,
                          stage: list | None = None):
    """Launch passes 1 and 2 and queue the copy of their record; return ``(tile
    offsets, record, finish)``: the exclusive offsets of the tiles (int64 (n_tiles,)),
    the record on the device (``[first unsorted, total, over1, over2, staged]``, for
    kernels launched before the host reads it) and ``finish()``, which waits for the
    record's copy and gives ``(first unsorted position or -1, total)``. With ``check``
    (keys) the count pass also tests whether a run is longer than each of
    :data:`RUN_TESTS`; ``finish`` puts the two answers in ``longer``. ``stage``: a list
    of the run heads' (positions, keys) slots, :data:`_STAGE` a tile (flag 1 only), to
    which ``finish`` appends whether every tile staged its heads."""
    cupy = _cupy()
    n_tiles = tiles(n)
    counts = cupy.empty(n_tiles, dtype=cupy.int64)
    rec = _record(5)
    if flag == 1 and check:
        thr = RUN_TESTS[0] | (RUN_TESTS[1] << 32)
    _launch(f"xs_seg_count<{flag}, {key_type}>", family, n_tiles, _THREADS,
            [ptr(src.data.ptr), n, thr, ptr(counts.data.ptr), _I32(int(check)),
             ptr(rec.data.ptr)]
            + ([ptr(0), ptr(0)] if stage is None
               else [ptr(stage[0].data.ptr), ptr(stage[1].data.ptr)]), COMPACT_SOURCE)
    _launch(SCAN_TILES, family, 1, _SCAN_THREADS,
            [ptr(counts.data.ptr), n_tiles, ptr(rec.data.ptr)], COMPACT_SOURCE)
    wait = _read_later(rec)

    def finish():
        bad, total, over1, over2, staged = wait()
        if longer is not None:
            longer[:] = [over1 == 0, over2 == 0]
        if stage is not None:   # whether every tile staged its heads (at most _STAGE of them)
            stage.append(staged != 0)
        return _opt(bad), total
    return counts, rec, finish


#: a speculative result of :func:`runs` is handed out as a view of its buffer (of
#: :data:`_STAGE` entries a tile) where it fills at least this fraction of it; a
#: shorter one is copied, so that a few long runs do not keep a buffer of n / 16
#: entries alive
_VIEW_FILL = 1 / 8


def runs(keys, check_sorted: bool, lengths: bool = False):
    """``(first unsorted position or -1, CSR offsets of the runs (int64), the key of each
    run, longest)``: the run heads by a stable compaction; with ``check_sorted`` the
    count pass also finds the first position whose key is less than its predecessor,
    and ``longest`` is :func:`~xstride._plans.segments.longest_bound` of whether a run
    is longer than each of ``RUN_TESTS`` (None without ``check_sorted``: not known).
    With ``lengths`` a fifth entry: each run's length (int64).

    The count pass stages the heads of every tile of at most :data:`_STAGE` runs. The
    copy of the staged heads to their place and the close of the offsets are launched
    before the host reads the count, into buffers of :data:`_STAGE` entries a tile, and
    read the total from the device: where every tile staged (runs of 16 keys or more
    on average in each tile), the device goes from the count to the next kernel of the
    caller without waiting for the host's round trip. The results are then the
    buffers' first entries (views, or copies where they fill less than
    :data:`_VIEW_FILL` of them). Otherwise the buffers go back unused and the scatter
    moves the heads: the staged ones, and those of the other tiles read again."""
    cupy = _cupy()
    n = keys.shape[0]
    if n == 0:
        empty = (-1, cupy.zeros(1, dtype=cupy.int64), cupy.empty(0, dtype=keys.dtype), 0)
        return empty + (cupy.empty(0, dtype=cupy.int64),) if lengths else empty
    k = cupy.ascontiguousarray(keys)
    kt, word = C_TYPES[name_of(k.dtype)], _WORDS[k.dtype.itemsize]
    copy = f"xs_seg_copy_staged<{word}>"
    family = (f"xs_seg_count<1, {kt}>", f"xs_seg_scatter<1, {kt}, {word}>", SCAN_TILES,
              _CLOSE, copy)
    n_tiles = tiles(n)
    longer = [True, True]
    # the heads of tiles of at most _STAGE runs wait here (written by the count pass):
    # the copy (or the scatter) moves them instead of reading the keys a second time
    try:
        stage = [cupy.empty(n_tiles * _STAGE, dtype=cupy.int64),
                 cupy.empty(n_tiles * _STAGE, dtype=k.dtype)]
    except MemoryError:   # 1/16 of the keys and their positions: then read them again
        stage = None
    tile_offsets, rec, finish = count_and_scan_later(1, k, kt, n, family, check_sorted,
                                                     longer=longer, stage=stage)
    try:
        ahead = None if stage is None else _copy_staged_ahead(k, n, n_tiles, family,
                                                              tile_offsets, rec, stage, lengths)
    except BaseException:
        finish()   # the record's copy lands before its pinned words go back to CuPy's pool
        raise
    bad, total = finish()
    if bad >= 0:
        return (bad, None, None, None) + ((None,) if lengths else ())
    longest = longest_bound(tuple(longer)) if check_sorted else None
    if ahead is not None and stage[2]:
        offsets, unique, counts = ahead
        fits = total >= _VIEW_FILL * unique.shape[0]
        unique, counts = (None if a is None else a[:total] if fits else _head(a, total)
                          for a in (unique, counts))
        found = (-1, offsets[:total + 1], unique, longest)
        return found + (counts,) if lengths else found
    offsets = cupy.empty(total + 1, dtype=cupy.int64)
    unique = cupy.empty(total, dtype=k.dtype)
    _launch(family[1], family, n_tiles, _THREADS,
            [ptr(k.data.ptr), n, 0, ptr(tile_offsets.data.ptr), ptr(k.data.ptr), 1,
             ptr(unique.data.ptr), ptr(offsets.data.ptr)]
            + ([ptr(0), ptr(0), 0] if stage is None
               else [ptr(stage[0].data.ptr), ptr(stage[1].data.ptr), total]),
            COMPACT_SOURCE)
    counts = cupy.empty(total, dtype=cupy.int64) if lengths else None
    # offsets[total] = n (and the lengths): not a CuPy fill and subtract, two more
    # kernels a first call would compile one after another
    _launch(_CLOSE, family, _grid(total if lengths else 1, _CLOSE_THREADS), _CLOSE_THREADS,
            [ptr(offsets.data.ptr), total, n, ptr(0 if counts is None else counts.data.ptr),
             ptr(0)], COMPACT_SOURCE)
    found = (-1, offsets, unique, longest)
    return found + (counts,) if lengths else found


def _head(a, count: int):
    """The first ``count`` entries of the 1-D ``a`` in an array of their own: one copy
    queued on the stream (``cudaMemcpyAsync``, no kernel)."""
    cupy = _cupy()
    out = cupy.empty(count, dtype=a.dtype)
    if count:
        rt = cupy.cuda.runtime
        rt.memcpyAsync(out.data.ptr, a.data.ptr, count * a.itemsize, rt.memcpyDeviceToDevice,
                       cupy.cuda.get_current_stream().ptr)
    return out


def _copy_staged_ahead(k, n: int, n_tiles: int, family: tuple, tile_offsets, rec, stage,
                       lengths: bool):
    """Launch the copy of the staged heads and the close of the offsets (with the
    lengths) into buffers for the most runs a staged count gives (:data:`_STAGE` a
    tile, at most ``n``), both reading the total from the record ``rec`` on the
    device; ``(offsets, unique, lengths or None)``, or None where the buffers do not
    fit (the host then sizes them after the count)."""
    cupy = _cupy()
    cap = min(n, n_tiles * _STAGE)
    try:
        offsets = cupy.empty(cap + 1, dtype=cupy.int64)
        unique = cupy.empty(cap, dtype=k.dtype)
        counts = cupy.empty(cap, dtype=cupy.int64) if lengths else None
    except MemoryError:
        return None
    _launch(family[4], family, n_tiles, _THREADS,
            [ptr(tile_offsets.data.ptr), n_tiles, ptr(rec.data.ptr), ptr(stage[0].data.ptr),
             ptr(stage[1].data.ptr), ptr(unique.data.ptr), ptr(offsets.data.ptr)],
            COMPACT_SOURCE)
    _launch(_CLOSE, family, _grid(cap if lengths else 1, _CLOSE_THREADS), _CLOSE_THREADS,
            [ptr(offsets.data.ptr), 0, n, ptr(0 if counts is None else counts.data.ptr),
             ptr(rec.data.ptr)], COMPACT_SOURCE)
    return offsets, unique, counts


def _word(row_bytes: int) -> int:
    return next(w for w in _WORDS if row_bytes % w == 0)


def compact(mask, arrays) -> tuple:
    """Each array's rows where ``mask`` is True, in order: one count pass over the mask,
    one scan of the tile counts, one scatter pass per array."""
    cupy = _cupy()
    n = mask.shape[0]
    if n == 0:
        return tuple(cupy.empty((0,) + tuple(a.shape[1:]), dtype=a.dtype) for a in arrays)
    m = cupy.ascontiguousarray(mask)
    family = ("xs_seg_count<0, unsigned char>", SCAN_TILES) + tuple(
        f"xs_seg_scatter<0, unsigned char, {w}>" for w in _WORDS.values())
    tile_offsets, _, total = count_and_scan(0, m, "unsigned char", n, family, False)
    out = []
    for a in arrays:
        res = cupy.empty((total,) + tuple(a.shape[1:]), dtype=a.dtype)
        out.append(res)
        row_bytes = a.dtype.itemsize * (res.size // total if total else 0)
        if total == 0 or row_bytes == 0:
            continue
        src = cupy.ascontiguousarray(a)
        w = _word(row_bytes)
        _launch(f"xs_seg_scatter<0, unsigned char, {_WORDS[w]}>", family, tiles(n), _THREADS,
                [ptr(m.data.ptr), n, 0, ptr(tile_offsets.data.ptr), ptr(src.data.ptr),
                 row_bytes // w, ptr(res.data.ptr), ptr(0), ptr(0), ptr(0), 0], COMPACT_SOURCE)
    return tuple(out)


# ------------------------------------------------------------------ bin_offsets
def bin_offsets(bins, n_bins: int):
    """``(first unsorted position or -1, first position outside [0, n_bins) or -1,
    offsets int64 (n_bins + 1,) or None)``: one pass over the bins that checks them and
    writes every offset (only checks them where the offsets do not fit: MemoryError
    after) (each element the offsets of the bins from its predecessor's
    to its own), one 24-byte read-back; where some gap between neighbouring bins is
    longer than the pass writes (``XS_SEG_GAP`` of segments.cu), a second kernel, one
    thread per offset, each a binary search of the bins."""
    cupy = _cupy()
    n = bins.shape[0]
    b = cupy.ascontiguousarray(bins)
    kt = C_TYPES[name_of(b.dtype)]
    family = (f"xs_seg_bins_walk<{kt}>", f"xs_seg_bins_fill<{kt}>")
    try:
        out = cupy.empty(n_bins + 1, dtype=cupy.int64)
    except MemoryError:   # bad bins are named before the offsets' size
        out = None
    rec = _record(3)
    _launch(family[0], family, -(-(n + 1) // _WALK_TILE), _THREADS,
            [ptr(b.data.ptr), n, n_bins, ptr(0 if out is None else out.data.ptr),
             ptr(rec.data.ptr)], COMPACT_SOURCE)
    bad, outside, gaps_written = _read(rec)
    if outside != _NONE:
        return -1, outside, None
    if bad != _NONE:
        return bad, -1, None
    if out is None:
        raise MemoryError
    if gaps_written != _NONE:
        _launch(family[1], family, _grid(n_bins + 1), _THREADS,
                [ptr(b.data.ptr), n, n_bins, ptr(out.data.ptr)], COMPACT_SOURCE)
    return -1, -1, out
