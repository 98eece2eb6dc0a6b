"""NumPy executor of the segment primitives (``xstride.algorithms.segments``).

Arguments arrive checked; the dtypes come from ``xstride._plans.segments``. NumPy
folds each non-empty segment with ``ufunc.reduceat`` (one fixed order per call, so the
same bits run to run); empty segments, which ``reduceat`` cannot express, are filled
with the identity afterwards. The mean of integers is the exact sum of the segment
(:func:`integer_mean`), rounded once to float64, divided by the count.
"""

from __future__ import annotations

import numpy as np

from .._plans.segments import INT_MEAN

__all__ = ["offsets_stats", "reduce_checked", "segment_reduce", "integer_mean", "exact_sums", "runs",
           "first_unsorted", "bin_offsets", "compact", "voxel_bounds", "voxel_keys", "native_status"]

_UFUNCS = {"sum": np.add, "prod": np.multiply, "min": np.minimum, "max": np.maximum,
           "mean": np.add}


def offsets_stats(offsets: np.ndarray, n: int) -> tuple[int, int, int, int, int]:
    """``(offsets[0], offsets[-1], first i with offsets[i] < offsets[i-1] or -1, first
    empty segment or -1, longest segment)`` of 1-D integer offsets."""
    o = offsets
    start, end = int(o[0]), int(o[-1])
    if o.shape[0] < 2:
        return start, end, -1, -1, 0
    # compared, not subtracted: a difference of unsigned offsets, or of int64 offsets
    # far apart (``[0, 2**63 - 1, -2, 3]``), would wrap
    bad = np.flatnonzero(o[1:] < o[:-1])
    if bad.size:
        return start, end, int(bad[0]) + 1, -1, 0
    d = np.diff(o.astype(np.int64, copy=False))
    empty = np.flatnonzero(d == 0)
    return start, end, -1, (int(empty[0]) if empty.size else -1), int(d.max())


def reduce_checked(values: np.ndarray, offsets: np.ndarray, op: str, out_dtype: str,
                   acc_dtype: str):
    """``(offsets_stats(offsets, n), finish)``: ``finish()`` gives
    :func:`segment_reduce`'s result (the device executor starts the walk before the
    check is read back; here the check simply comes first)."""
    stats = offsets_stats(offsets, values.shape[0])
    return stats, lambda: segment_reduce(values, offsets, op, out_dtype, acc_dtype, stats[4])


def segment_reduce(values: np.ndarray, offsets: np.ndarray, op: str, out_dtype: str,
                   acc_dtype: str, max_len: int) -> np.ndarray:
    """The reduction of each segment (see ``xstride.algorithms.segment_reduce``)."""
    offs = offsets.astype(np.int64, copy=False)
    n_seg = offs.shape[0] - 1
    tail = values.shape[1:]
    lengths = np.diff(offs)
    if acc_dtype == INT_MEAN:
        return integer_mean(values, offs)
    if op == "count":
        # a new array (a broadcast view, which ascontiguousarray keeps where it is
        # contiguous already, would be read-only)
        out = np.empty((n_seg,) + tail, dtype=np.int64)
        out[...] = lengths.reshape((n_seg,) + (1,) * len(tail))
        return out
    # min/max/mean of an empty segment: NaN (integers with empty segments are refused
    # before this, so their fill is never seen)
    identity = {"sum": 0, "prod": 1}.get(op, np.nan if np.dtype(acc_dtype).kind == "f" else 0)
    nonempty = np.flatnonzero(lengths > 0)
    if nonempty.size == n_seg and n_seg:
        # every segment holds a row (the runs of sorted keys, the voxels): reduceat's
        # result is the answer, without a fill and a scatter
        out = _reduceat(op, values, offs[:-1], acc_dtype)
    else:
        out = np.full((n_seg,) + tail, identity, dtype=acc_dtype)
        if nonempty.size:
            # the start of the next non-empty segment is the end of this one
            out[nonempty] = _reduceat(op, values, offs[nonempty], acc_dtype)
    if op == "mean":
        with np.errstate(invalid="ignore", divide="ignore"):
            div = lengths.reshape((n_seg,) + (1,) * len(tail))
            out = out.astype(np.float64, copy=False)
            np.divide(out, div, out=out)
            if nonempty.size < n_seg:
                out[lengths == 0] = np.nan
    return out.astype(out_dtype, copy=False)


def _reduceat(op: str, values: np.ndarray, starts: np.ndarray, acc_dtype: str) -> np.ndarray:
    """``ufunc.reduceat`` of ``values`` in ``acc_dtype`` at the segment ``starts``: a
    widening that is exact (float32 to float64, a narrower integer to int64) runs in
    the loop, element by element, as the cast array would; others cast first."""
    acc = np.dtype(acc_dtype)
    if values.dtype == acc or not np.can_cast(values.dtype, acc, "safe"):
        return _UFUNCS[op].reduceat(values.astype(acc, copy=False), starts, axis=0)
    return _UFUNCS[op].reduceat(values, starts, axis=0, dtype=acc)


#: rows per piece of the exact sums (:func:`exact_sums`, which :func:`integer_mean`
#: uses): 32-bit limbs of fewer than 2**31 rows sum exactly in int64 (longer segments
#: are cut into pieces, joined exactly)
LIMB_ROWS = 2**31 - 1


def integer_mean(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """float64 means (n_segments,) or (n_segments, k) of integer values (n,) or (n, k)
    over int64 CSR ``offsets`` without empty segments: ``float64(S) / m`` with ``S``
    the exact sum of the segment's ``m`` rows, rounded once (to nearest, ties to even).

    The same rule as the device's ``xs_seg_i128`` (``segments.cu``), so the two agree
    bit for bit. Where no sum can leave int64 (by the dtype and the longest segment for
    values of at most 32 bits, else by the values' extremes), the int64 sums are exact
    and NumPy's cast rounds them once; otherwise :func:`exact_sums`.
    """
    n_seg = offsets.shape[0] - 1
    tail = values.shape[1:]
    lengths = np.diff(offsets)
    out = np.empty((n_seg,) + tail, dtype=np.float64)
    if n_seg == 0:
        return out
    longest = int(lengths.max())
    div = lengths.reshape((n_seg,) + (1,) * len(tail)).astype(np.float64)
    bits = 8 * values.dtype.itemsize
    if bits <= 32 and longest <= 2**(63 - bits):   # |S| <= m * 2**bits
        fits = True
    else:
        big = max(-int(values.min()), int(values.max())) if values.size else 0
        fits = big * longest < 2**63
    if fits:
        sums = np.add.reduceat(values.astype(np.int64, copy=False), offsets[:-1], axis=0)
        np.copyto(out, sums, casting="unsafe")
    else:
        out[...] = exact_sums(values, offsets)
    return np.divide(out, div, out=out)


def exact_sums(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """The sum of each non-empty segment (int64 offsets) of integer values, exact, then
    rounded once to float64 (to nearest, ties to even).

    Each value is split into its low 32 bits and the rest (``x = hi * 2**32 + lo``);
    the limbs of pieces of at most :data:`LIMB_ROWS` rows are summed in int64 (exact)
    and renormalised to ``S = H * 2**32 + L`` with ``0 <= L < 2**32``; ``S`` is rounded
    as ``Hh * 2**53 + (Hl * 2**32 + L)`` (``Hh = H >> 21``, ``Hl = H mod 2**21``): two
    float64 terms that are exact, so their float64 sum is ``S`` rounded once. Pieces of
    a longer segment are joined as Python ints, which ``float()`` rounds correctly.
    """
    n_seg = offsets.shape[0] - 1
    tail = values.shape[1:]
    lengths = np.diff(offsets)
    signed = values.dtype.kind == "i"
    v = values.astype(np.int64 if signed else np.uint64, copy=False)
    lo = (v & 0xFFFFFFFF).astype(np.int64)
    hi = (v >> 32).astype(np.int64)         # arithmetic for int64: in [-2**31, 2**32)
    del v
    # the cuts: every segment start, and every LIMB_ROWS rows within a longer segment
    pieces = np.maximum(-(-lengths // LIMB_ROWS), 1)
    first = np.concatenate([[0], np.cumsum(pieces)[:-1]])   # the first piece of each
    long = bool((pieces > 1).any())
    cuts = offsets[:-1]
    if long:
        owner = np.repeat(np.arange(n_seg), pieces)
        cuts = cuts[owner] + (np.arange(owner.size) - first[owner]) * LIMB_ROWS
    H = np.add.reduceat(hi, cuts, axis=0)
    L = np.add.reduceat(lo, cuts, axis=0)
    del hi, lo
    H += L >> 32
    L &= 0xFFFFFFFF
    rounded = (H >> 21).astype(np.float64) * 2.0**53
    rounded += (((H & 0x1FFFFF) << 32) | L).astype(np.float64)
    if not long:
        return rounded
    out = rounded[first]
    width = int(np.prod(tail, dtype=np.int64))
    flat, Hf, Lf = out.reshape(n_seg, width), H.reshape(-1, width), L.reshape(-1, width)
    for s in np.flatnonzero(pieces > 1).tolist():
        for c in range(width):
            total = sum(int(Hf[p, c]) * 2**32 + int(Lf[p, c])
                        for p in range(int(first[s]), int(first[s] + pieces[s])))
            flat[s, c] = float(total)
    return out


def runs(keys: np.ndarray, check_sorted: bool, lengths: bool = False):
    """``(first unsorted position or -1, CSR offsets of the runs (int64), the key of each
    run, the longest run)``; with ``check_sorted`` and unsorted keys the rest is None.
    With ``lengths`` a fifth entry: each run's length (int64)."""
    n = keys.shape[0]
    if check_sorted and n > 1:
        bad = np.flatnonzero(keys[1:] < keys[:-1])
        if bad.size:
            return (int(bad[0]) + 1, None, None, None) + ((None,) if lengths else ())
    heads = np.flatnonzero(keys[1:] != keys[:-1]) + 1
    offsets = np.empty(heads.size + 2 if n else 1, dtype=np.int64)
    if n:
        offsets[0] = 0
        offsets[1:-1] = heads
        offsets[-1] = n
    else:
        offsets[0] = 0
    counts = np.diff(offsets)
    found = (-1, offsets, keys[offsets[:-1]], int(counts.max(initial=0)))
    return found + (counts,) if lengths else found


def bin_offsets(bins: np.ndarray, n_bins: int):
    """``(first unsorted position or -1, first position outside [0, n_bins) or -1,
    offsets int64 (n_bins + 1,) or None)``.

    Sorted bins are outside the range only at their ends, so the whole-array range
    test runs only for unsorted bins (whose outside position is reported first). With
    the compiled loop (:func:`_compiled`: int32/int64 bins, at least
    :data:`NATIVE_MIN_POINTS_PER_BIN` points a bin, more bins than the search below
    takes) the checks and the offsets are one pass. Else the
    offsets are a binary search of every bin's start where ``n_bins * log2(n)`` is at
    most ``n / 8`` (:data:`SEARCH_FRACTION`); else, with at least
    :data:`BLOCK_SEARCH_FRACTION` points a bin, the same search block by block with the
    order check (:func:`_blocked_offsets`); else the running sum of ``bincount``, one
    pass over the bins.
    """
    n = bins.shape[0]
    if n == 0:
        return -1, -1, np.zeros(n_bins + 1, dtype=np.int64)
    loops = _compiled(bins, n_bins)
    if loops is not None:
        # one pass: the checks and the offsets (allocated first: n_bins is at most
        # n / 2 here, so a bad n_bins cannot ask for a huge array)
        offsets = np.empty(n_bins + 1, dtype=np.int64)
        unsorted, outside = loops.bin_offsets(bins, n_bins, offsets)
        if outside >= 0:
            return -1, outside, None
        return (unsorted, -1, None) if unsorted >= 0 else (-1, -1, offsets)
    if ((n_bins + 1) * BLOCK_SEARCH_FRACTION <= n < (n_bins + 1) * max(1, n.bit_length())
            * SEARCH_FRACTION and np.iinfo(bins.dtype).max >= n_bins
            and (bins.dtype.kind == "u" or bins[0] >= 0) and bins[-1] < n_bins):
        offsets = _blocked_offsets(bins, n_bins)
        if offsets is not None:
            return -1, -1, offsets
    unsorted = first_unsorted(bins)
    if unsorted >= 0:
        outside = np.flatnonzero((bins < 0) | (bins >= n_bins)) if bins.dtype.kind == "i" \
            else np.flatnonzero(bins >= n_bins)
        return (-1, int(outside[0]), None) if outside.size else (unsorted, -1, None)
    if bins.dtype.kind == "i" and bins[0] < 0:
        return -1, 0, None
    if bins[-1] >= n_bins:
        return -1, int(np.searchsorted(bins, n_bins, side="left")), None
    # allocated once the bins are checked: bad bins with a huge n_bins get their own
    # error, not a MemoryError
    offsets = np.zeros(n_bins + 1, dtype=np.int64)
    if ((n_bins + 1) * max(1, n.bit_length()) * SEARCH_FRACTION <= n
            and np.iinfo(bins.dtype).max >= n_bins):
        # the starts of bins 0 .. n_bins, in the bins' own dtype (no cast of the bins)
        offsets[:] = np.searchsorted(bins, np.arange(n_bins + 1, dtype=bins.dtype))
        return -1, -1, offsets
    # in [0, n_bins) with n_bins < 2**63: uint64 bins as int64 unchanged (bincount
    # casts only safely)
    if bins.dtype.kind == "u" and bins.dtype.itemsize == 8:
        bins = bins.astype(np.int64)
    counts = np.bincount(bins, minlength=n_bins)
    np.cumsum(counts, out=offsets[1:])
    return -1, -1, offsets


#: Fewest points a bin for the compiled pass of :func:`bin_offsets` (and more bins than
#: the whole-array search takes): the offsets are allocated before the bins are checked,
#: so ``n_bins`` must not ask for more than the bins' own size. Development machine (2
#: cores), 2026-12-04, 2**22 sorted int64 bins, best of 9, the block-by-block pass
#: against ``cumsum(bincount)`` (the NumPy path adds the order check): 65,536 bins 3.2 /
#: 7.4 ms, 262,144 3.6 / 6.9, 2**21 5.9 / 15.6, 2**22 - 1 10.5 / 25.4 (the NumPy path
#: 29.9); the whole-array search wins up to about 20,000 bins (16,384: 1.1 ms and the
#: order check). The pass before it (a branch a run) lost at a point a bin (31.0 / 27.1)
#: and was taken from two.
NATIVE_MIN_POINTS_PER_BIN = 1
#: Fewest points for the compiled pass: the first call in a process runs ``cc
#: --version`` (about 15 ms) and, with an empty cache, the compile.
NATIVE_MIN_POINTS = 1 << 14


def _compiled(bins: np.ndarray, n_bins: int):
    """The compiled loop of :mod:`._segments_native` for these bins (C-contiguous and
    aligned int32 or int64, at least :data:`NATIVE_MIN_POINTS` of them and
    :data:`NATIVE_MIN_POINTS_PER_BIN` a bin, too many bins for the whole-array
    search), or ``None``: the NumPy compositions."""
    n = bins.shape[0]
    if (bins.dtype not in (np.int64, np.int32) or not bins.flags.c_contiguous
            or not bins.flags.aligned or n < NATIVE_MIN_POINTS
            or n < NATIVE_MIN_POINTS_PER_BIN * (n_bins + 1)
            or (n_bins + 1) * max(1, n.bit_length()) * SEARCH_FRACTION <= n):
        return None
    from . import _segments_native   # not at import: the first call builds it
    loops = _segments_native.get()
    return loops if loops is not None and loops.takes(bins.dtype) else None


def native_status() -> dict:
    """Capability row of :func:`bin_offsets`' compiled pass: ``available``, ``reason``
    (why not, else ``""``) and ``path`` (``"compiled C (gcc 12.2)"`` or
    ``"NumPy (<reason>)"``). May trigger the compile."""
    from . import _segments_native

    loops = _segments_native.get()
    if loops is not None:
        return {"available": True, "reason": "", "path": f"compiled C ({loops.compiler})"}
    why = _segments_native.reason()
    return {"available": False, "reason": why, "path": f"NumPy ({why})"}


#: :func:`bin_offsets` searches each bin's start where ``n_bins * log2(n)`` times this
#: is at most ``n``: a search step (a cache miss in the bins) costs about eight counted
#: elements. Development machine, 2026-12-03, 2**22 sorted int64 bins, best of 11,
#: search against ``cumsum(bincount)``: 4096 bins 0.34 / 6.0 ms, 8192 1.3 / 6.0, 16384
#: 4.6 / 6.8, 32768 8.9 / 7.6, 65536 17.2 / 9.1 (2 took the search up to about 90,000
#: bins).
SEARCH_FRACTION = 8

#: elements per block of :func:`first_unsorted` and :func:`_blocked_offsets`: a
#: block's comparison and searches stay in cache
_SORT_BLOCK = 1 << 16

#: :func:`bin_offsets` checks and searches block by block (:func:`_blocked_offsets`)
#: where there are at least this many bins per point (and too many bins for one
#: search of the whole array, :data:`SEARCH_FRACTION`). Development machine,
#: 2026-12-04, sorted int64 bins, best of 9, blocked against check plus
#: ``cumsum(bincount)`` (the NumPy composition ``cumsum(bincount)`` alone beside):
#: 2**22 points in 65,536 bins 6.1 / 12.6 ms (9.8), 2**24 in 262,144 bins 24.3 / 49.9
#: (38.9), 2**22 in 262,144 12.3 / 12.9 (9.6); 2**22 in 2**20 bins 31.8 / 15.1 (12.1):
#: a search step per bin then costs more than counting the points.
BLOCK_SEARCH_FRACTION = 32


def _blocked_offsets(bins: np.ndarray, n_bins: int):
    """The offsets of sorted ``bins`` whose ends lie in ``[0, n_bins)`` (checked by the
    caller), from one walk of blocks of :data:`_SORT_BLOCK`: each block's order is
    checked, then the starts of the bins its last value closes are searched in it,
    while it is in cache. None when a block is out of order (or reaches past the last
    bin, which only an unsorted array can): the caller's whole check then names the
    position."""
    n = bins.shape[0]
    offsets = np.empty(n_bins + 1, dtype=np.int64)
    done = int(bins[0])            # the bins whose starts are written: 0 .. done
    offsets[:done + 1] = 0
    for start in range(0, n, _SORT_BLOCK):
        stop = min(n, start + _SORT_BLOCK)
        block = bins[start:stop]
        if (start and block[0] < bins[start - 1]) or (block[1:] < block[:-1]).any():
            return None
        last = int(block[-1])
        if last >= n_bins:
            return None
        if last > done:
            keys = np.arange(done + 1, last + 1, dtype=bins.dtype)
            offsets[done + 1:last + 1] = np.searchsorted(block, keys)
            offsets[done + 1:last + 1] += start
            done = last
    offsets[done + 1:] = n
    return offsets


def first_unsorted(keys: np.ndarray) -> int:
    """The first ``i`` with ``keys[i] < keys[i - 1]`` of 1-D keys, or -1."""
    n = keys.shape[0]
    for start in range(1, n, _SORT_BLOCK):
        stop = min(n, start + _SORT_BLOCK)
        if (keys[start:stop] < keys[start - 1:stop - 1]).any():
            bad = np.flatnonzero(keys[start:stop] < keys[start - 1:stop - 1])
            return start + int(bad[0])
    return -1


def compact(mask: np.ndarray, arrays) -> tuple:
    """Each array's rows where ``mask`` is True, in their order: the kept rows' indices
    once, then a gather per array (boolean indexing finds them again for every array,
    and its branch per row runs about 3x slower than ``take`` on a random mask)."""
    rows = np.flatnonzero(mask)
    return tuple(np.take(a, rows, axis=0) for a in arrays)


def voxel_bounds(points: np.ndarray):
    """``(lowest corner, highest corner, first row with a NaN or infinite coordinate or
    -1)`` of float points (n >= 1, ndim), the corners as float64 (n, ndim) minima and
    maxima column by column (NumPy's axis-0 reduction of (n, 3) walks 3-element rows)."""
    cols = [points[:, axis] for axis in range(points.shape[1])]
    lo = np.array([c.min() for c in cols], dtype=np.float64)
    hi = np.array([c.max() for c in cols], dtype=np.float64)
    if np.isfinite(lo).all() and np.isfinite(hi).all():
        return lo, hi, -1
    bad = np.logical_not(np.all(np.isfinite(points), axis=1))
    return lo, hi, int(np.argmax(bad))


def voxel_keys(points: np.ndarray, origin, size, vmin) -> np.ndarray:
    """uint64 Morton keys (n,) of the voxels ``floor((p - origin) / size) - vmin`` of
    float points (n, ndim), each operation rounded in float64 (the host checked that
    every cell fits a key). Blocks of rows, so that the float64 and uint64 scratch
    stays in cache (3x faster than whole columns at 2**22 points)."""
    from .morton import CHUNK, interleave

    n, ndim = points.shape
    out = np.empty(n, dtype=np.uint64)
    q = np.empty(min(n, CHUNK), dtype=np.float64)
    cell = np.empty(min(n, CHUNK), dtype=np.uint64)
    for start in range(0, n, CHUNK):
        stop = min(n, start + CHUNK)
        qq, cc, keys = q[:stop - start], cell[:stop - start], out[start:stop]
        for axis in range(ndim):
            np.subtract(points[start:stop, axis], float(origin[axis]), out=qq, dtype=np.float64)
            np.divide(qq, float(size[axis]), out=qq)
            if vmin[axis] != 0.0:
                # floor first: q - vmin could round up across an integer
                np.floor(qq, out=qq)
                np.subtract(qq, float(vmin[axis]), out=qq)
            # every q >= 0 here (vmin is the floor of the smallest): the cast's
            # truncation is the floor
            np.copyto(cc, qq, casting="unsafe")
            interleave(keys, cc, axis, ndim)
    return out
