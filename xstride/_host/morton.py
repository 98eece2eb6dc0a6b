"""NumPy executor for Morton (Z-order) keys: bit spreading with magic masks on uint64.

Arguments arrive checked by :mod:`xstride.algorithms`. The bit convention and the cell
rule are those of ``morton.cuh`` (bit ``ndim*b + a`` of a key is bit ``b`` of the cell on
axis ``a``; cell = ``floor((x - lower) * scale)`` clipped to ``[0, 2**levels - 1]``); the
operations are the same IEEE double operations in the same order, so host and device
keys are bit-identical for the same scales.

Keys are computed in chunks of rows so that the temporaries stay in cache.
"""

from __future__ import annotations

import numpy as np

__all__ = ["CHUNK", "spread", "compact", "keys", "encode", "decode", "first_nonfinite_row"]

_U = np.uint64
# (shift, mask) steps of the spreading sequence; compacting runs them backwards.
_SPREAD2 = (
    (16, _U(0x0000FFFF0000FFFF)),
    (8, _U(0x00FF00FF00FF00FF)),
    (4, _U(0x0F0F0F0F0F0F0F0F)),
    (2, _U(0x3333333333333333)),
    (1, _U(0x5555555555555555)),
)
_SPREAD3 = (
    (32, _U(0x001F00000000FFFF)),
    (16, _U(0x001F0000FF0000FF)),
    (8, _U(0x100F00F00F00F00F)),
    (4, _U(0x10C30C30C30C30C3)),
    (2, _U(0x1249249249249249)),
)
_LOW = {2: _U(0x00000000FFFFFFFF), 3: _U(0x00000000001FFFFF)}
_STEPS = {2: _SPREAD2, 3: _SPREAD3}
#: rows per block of the key loops: their scratch stays in cache
CHUNK = 1 << 16


def spread(v: np.ndarray, ndim: int) -> np.ndarray:
    """Spread the low 32 (2-D) or 21 (3-D) bits of uint64 ``v``: bit b -> bit ndim*b.

    Works in place on ``v`` (which must be a writable uint64 array) and returns it.
    """
    np.bitwise_and(v, _LOW[ndim], out=v)
    tmp = np.empty_like(v)
    for shift, mask in _STEPS[ndim]:
        np.left_shift(v, _U(shift), out=tmp)
        np.bitwise_or(v, tmp, out=v)
        np.bitwise_and(v, mask, out=v)
    return v


def compact(v: np.ndarray, ndim: int) -> np.ndarray:
    """Inverse of :func:`spread` on a uint64 array (new array): bit ndim*b -> bit b."""
    steps = _STEPS[ndim]
    out = np.bitwise_and(v, steps[-1][1])
    tmp = np.empty_like(out)
    masks = [m for _, m in steps[:-1]][::-1] + [_LOW[ndim]]
    for (shift, _), mask in zip(steps[::-1], masks):
        np.right_shift(out, _U(shift), out=tmp)
        np.bitwise_or(out, tmp, out=out)
        np.bitwise_and(out, mask, out=out)
    return out


def first_nonfinite_row(positions: np.ndarray) -> int:
    """Index of the first row with a NaN or infinite coordinate, or -1. Rows of byte
    stride 0 (a broadcast view, ``broadcast_to(row, (n, 3))``) are one row, read once."""
    if positions.shape[0] > 1 and positions.strides[0] == 0:
        positions = positions[:1]
    for start in range(0, positions.shape[0], CHUNK):
        block = positions[start:start + CHUNK]
        # the whole block first, flat (contiguous: one fast pass); rows only if it fails
        if np.isfinite(block.reshape(-1)).all():
            continue
        ok = np.isfinite(block).all(axis=1)
        return start + int(np.flatnonzero(~ok)[0])
    return -1


def keys(positions: np.ndarray, lower: np.ndarray, scales: np.ndarray, levels: int) -> np.ndarray:
    """Morton keys of checked, finite positions (n, ndim); lower and scales float64 (ndim,)."""
    n, ndim = positions.shape
    out = np.empty(n, dtype=np.uint64)
    max_cell = float(2**levels - 1)
    t = np.empty(min(n, CHUNK), dtype=np.float64)
    cell = np.empty(min(n, CHUNK), dtype=np.uint64)
    with np.errstate(over="ignore", invalid="ignore"):  # huge |x| * scale -> ±inf, clipped
        for start in range(0, n, CHUNK):
            _keys_chunk(positions, lower, scales, ndim, max_cell, start, min(n, start + CHUNK),
                        t, cell, out)
    return out


def _keys_chunk(positions, lower, scales, ndim, max_cell, start, stop, t, cell, out):
    """Keys of rows ``start:stop`` into ``out`` (``t``, ``cell``: scratch of chunk size)."""
    m = stop - start
    tt, cc, acc = t[:m], cell[:m], out[start:stop]
    for a in range(ndim):
        # Same rounding steps as xstride_morton_cell: (x - lower) then * scale.
        np.subtract(positions[start:stop, a], lower[a], out=tt, dtype=np.float64)
        np.multiply(tt, scales[a], out=tt)
        np.floor(tt, out=tt)
        np.clip(tt, 0.0, max_cell, out=tt)
        cc[...] = tt  # exact: integral values below 2**32
        spread(cc, ndim)
        if a == 0:
            acc[...] = cc
        else:
            np.left_shift(cc, _U(a), out=cc)
            np.bitwise_or(acc, cc, out=acc)


def encode(cells) -> np.ndarray:
    """Keys of checked integer cell arrays (already broadcast to one shape; any integer
    dtype, values in range). Blocks of at most ``CHUNK`` elements, so that the only
    array of the result's size is the result (whole-array temporaries made the peak
    4x the keys' memory in 3-D); the result has the layout of ``cells[0]``'s copy."""
    ndim = len(cells)
    out = np.empty_like(cells[0], dtype=np.uint64, subok=False)
    if out.size == 0:
        return out
    it = np.nditer(list(cells) + [out], flags=["external_loop", "buffered", "zerosize_ok"],
                   op_flags=[["readonly"]] * ndim + [["writeonly"]], order="K",
                   buffersize=CHUNK)
    cell = np.empty(min(out.size, CHUNK), dtype=np.uint64)
    with it:
        for *parts, acc in it:
            if acc.shape[0] > cell.shape[0]:   # not expected: blocks of buffersize at most
                cell = np.empty(acc.shape[0], dtype=np.uint64)
            cc = cell[:acc.shape[0]]
            for a, part in enumerate(parts):
                np.copyto(cc, part, casting="unsafe")   # checked: 0 <= cell < 2**levels
                spread(cc, ndim)
                if a == 0:
                    acc[...] = cc
                else:
                    np.left_shift(cc, _U(a), out=cc)
                    np.bitwise_or(acc, cc, out=acc)
    return out


def decode(keys_u64: np.ndarray, ndim: int) -> np.ndarray:
    """Cells (..., ndim) uint64 of a uint64 key array."""
    out = np.empty(keys_u64.shape + (ndim,), dtype=np.uint64)
    for a in range(ndim):
        out[..., a] = compact(np.right_shift(keys_u64, _U(a)), ndim)
    return out


def checked_keys(positions: np.ndarray, lower, scales, levels: int):
    """``(keys, -1)``, or ``(None, row)`` with the first row that holds a NaN or an
    infinity (checked first, so a bad input costs no key computation)."""
    bad = first_nonfinite_row(positions)
    if bad >= 0:
        return None, bad
    return keys(positions, lower, scales, levels), -1
