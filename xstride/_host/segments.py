"""NumPy executor of the segment primitives (``xstride.algorithms.segments``).

Arguments arrive checked; the dtypes come from ``xstride._plans.segments``. NumPy
folds each non-empty segment with ``ufunc.reduceat`` (one fixed order per call, so the
same bits run to run); empty segments, which ``reduceat`` cannot express, are filled
with the identity afterwards.
"""

from __future__ import annotations

import numpy as np

__all__ = ["offsets_stats", "segment_reduce", "runs", "bin_offsets", "compact"]

_UFUNCS = {"sum": np.add, "prod": np.multiply, "min": np.minimum, "max": np.maximum,
           "mean": np.add}


def offsets_stats(offsets: np.ndarray, n: int) -> tuple[int, int, int, int, int]:
    """``(offsets[0], offsets[-1], first i with offsets[i] < offsets[i-1] or -1, first
    empty segment or -1, longest segment)`` of 1-D integer offsets."""
    o = offsets
    start, end = int(o[0]), int(o[-1])
    if o.shape[0] < 2:
        return start, end, -1, -1, 0
    if o.dtype.kind == "u":   # differences of unsigned offsets would wrap
        bad = np.flatnonzero(o[1:] < o[:-1])
        d = None
    else:
        d = np.diff(o.astype(np.int64, copy=False))
        bad = np.flatnonzero(d < 0)
    if bad.size:
        return start, end, int(bad[0]) + 1, -1, 0
    if d is None:
        d = np.diff(o.astype(np.int64))
    empty = np.flatnonzero(d == 0)
    return start, end, -1, (int(empty[0]) if empty.size else -1), int(d.max())


def segment_reduce(values: np.ndarray, offsets: np.ndarray, op: str, out_dtype: str,
                   acc_dtype: str, max_len: int) -> np.ndarray:
    """The reduction of each segment (see ``xstride.algorithms.segment_reduce``)."""
    offs = offsets.astype(np.int64, copy=False)
    n_seg = offs.shape[0] - 1
    tail = values.shape[1:]
    lengths = np.diff(offs)
    if op == "count":
        counts = lengths.astype(np.int64, copy=False)
        return np.ascontiguousarray(np.broadcast_to(counts.reshape((n_seg,) + (1,) * len(tail)),
                                                    (n_seg,) + tail))
    # min/max/mean of an empty segment: NaN (integers with empty segments are refused
    # before this, so their fill is never seen)
    identity = {"sum": 0, "prod": 1}.get(op, np.nan if np.dtype(acc_dtype).kind == "f" else 0)
    out = np.full((n_seg,) + tail, identity, dtype=acc_dtype)
    nonempty = np.flatnonzero(lengths > 0)
    if nonempty.size:
        acc = values.astype(acc_dtype, copy=False)
        # the start of the next non-empty segment is the end of this one
        out[nonempty] = _UFUNCS[op].reduceat(acc, offs[nonempty], axis=0)
    if op == "mean":
        with np.errstate(invalid="ignore", divide="ignore"):
            div = lengths.reshape((n_seg,) + (1,) * len(tail))
            out = out.astype(np.float64, copy=False) / div
            out[lengths == 0] = np.nan
    return out.astype(out_dtype, copy=False)


def runs(keys: np.ndarray, check_sorted: bool):
    """``(first unsorted position or -1, CSR offsets of the runs (int64), the key of each
    run)``; with ``check_sorted`` and unsorted keys the rest is None."""
    n = keys.shape[0]
    if check_sorted and n > 1:
        bad = np.flatnonzero(keys[1:] < keys[:-1])
        if bad.size:
            return int(bad[0]) + 1, None, None
    heads = np.flatnonzero(keys[1:] != keys[:-1]) + 1
    offsets = np.empty(heads.size + 2 if n else 1, dtype=np.int64)
    if n:
        offsets[0] = 0
        offsets[1:-1] = heads
        offsets[-1] = n
    else:
        offsets[0] = 0
    return -1, offsets, keys[offsets[:-1]]


def bin_offsets(bins: np.ndarray, n_bins: int):
    """``(first unsorted position or -1, first position outside [0, n_bins) or -1,
    offsets int64 (n_bins + 1,) or None)``."""
    if bins.size:
        outside = np.flatnonzero((bins < 0) | (bins >= n_bins)) if bins.dtype.kind == "i" \
            else np.flatnonzero(bins >= n_bins)
        if outside.size:
            return -1, int(outside[0]), None
        bad = np.flatnonzero(bins[1:] < bins[:-1])
        if bad.size:
            return int(bad[0]) + 1, -1, None
    offsets = np.searchsorted(bins, np.arange(n_bins + 1), side="left").astype(np.int64)
    return -1, -1, offsets


def compact(mask: np.ndarray, arrays) -> tuple:
    """Each array's rows where ``mask`` is True (boolean indexing keeps their order)."""
    return tuple(a[mask] for a in arrays)
