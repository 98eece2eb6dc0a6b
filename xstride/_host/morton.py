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


def _compact_steps(ndim: int):
    """The last spreading mask, then the (shift, mask) steps of compacting: the
    spreading steps backwards, each shift with the mask of the step before it (the
    low bits' mask last)."""
    steps = _STEPS[ndim]
    masks = [m for _, m in steps[:-1]][::-1] + [_LOW[ndim]]
    return steps[-1][1], tuple((_U(shift), m) for (shift, _), m in zip(steps[::-1], masks))


_COMPACT = {nd: _compact_steps(nd) for nd in _STEPS}
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


def interleave(acc: np.ndarray, cell: np.ndarray, axis: int, ndim: int) -> None:
    """Put the bits of uint64 cells ``cell`` (scratch: spread in place) at axis ``axis``
    of the keys ``acc``: axis 0 sets the keys, the others are or-ed in."""
    spread(cell, ndim)
    if axis == 0:
        acc[...] = cell
    else:
        np.left_shift(cell, _U(axis), out=cell)
        np.bitwise_or(acc, cell, out=acc)


def compact(v: np.ndarray, ndim: int) -> np.ndarray:
    """Inverse of :func:`spread` on a uint64 array (new array): bit ndim*b -> bit b."""
    out = np.array(v, dtype=np.uint64, copy=True)
    return _compact_in_place(out, ndim, np.empty_like(out))


def _compact_in_place(v: np.ndarray, ndim: int, tmp: np.ndarray) -> np.ndarray:
    """:func:`compact` on ``v`` itself (writable uint64); ``tmp``: scratch of its shape."""
    first, steps = _COMPACT[ndim]
    np.bitwise_and(v, first, out=v)
    for shift, mask in steps:
        np.right_shift(v, shift, out=tmp)
        np.bitwise_or(v, tmp, out=v)
        np.bitwise_and(v, mask, out=v)
    return v


def _blocks(inputs, outputs, scratch: int):
    """Walk arrays of one shape together in blocks of at most ``CHUNK`` elements (a
    buffered ``np.nditer``, memory order): yields ``(input blocks, output blocks,
    scratch blocks)``, the scratch ``scratch`` uint64 arrays of the blocks' shape.
    Outputs are written back as the walk moves on; nothing but the outputs has the
    arrays' size. Up to ``CHUNK`` elements, one block: the arrays as they are."""
    size = outputs[0].size
    if size == 0:
        return
    if size <= CHUNK:   # one block: the arrays themselves (an nditer costs 2-4 us)
        buf = np.empty((scratch,) + outputs[0].shape, dtype=np.uint64)
        yield inputs, outputs, [buf[i, ...] for i in range(scratch)]
        return
    ops = list(inputs) + list(outputs)
    it = np.nditer(ops, flags=["external_loop", "buffered", "zerosize_ok"],
                   op_flags=[["readonly"]] * len(inputs) + [["writeonly"]] * len(outputs),
                   order="K", buffersize=CHUNK)
    buf = np.empty((scratch, min(size, CHUNK)), dtype=np.uint64)
    with it:
        for blocks in it:
            m = blocks[0].shape[0]
            if m > buf.shape[1]:   # not expected: blocks of buffersize at most
                buf = np.empty((scratch, m), dtype=np.uint64)
            yield blocks[:len(inputs)], blocks[len(inputs):], buf[:, :m]


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
        interleave(acc, cc, a, ndim)


def encode(cells) -> np.ndarray:
    """Keys of checked integer cell arrays (already broadcast to one shape; any integer
    dtype, values in range). Blocks of at most ``CHUNK`` elements, so that the only
    array of the result's size is the result (whole-array temporaries made the peak
    4x the keys' memory in 3-D); the result has the layout of ``cells[0]``'s copy."""
    ndim = len(cells)
    out = np.empty_like(cells[0], dtype=np.uint64, subok=False)
    for parts, (acc,), (cc,) in _blocks(cells, [out], 1):
        for a, part in enumerate(parts):
            np.copyto(cc, part, casting="unsafe")   # checked: 0 <= cell < 2**levels
            interleave(acc, cc, a, ndim)
    return out


def decode(keys_u64: np.ndarray, ndim: int) -> np.ndarray:
    """Cells (..., ndim) uint64 of a uint64 key array. Blocks of at most ``CHUNK``
    keys (the walk of :func:`encode`), so that the cells are the only array of their
    size (whole-array shifted copies and scratch made the peak 2x the cells' memory)."""
    out = np.empty(keys_u64.shape + (ndim,), dtype=np.uint64)
    columns = [out[..., a] for a in range(ndim)]
    for (k,), cols, (cc, tmp) in _blocks([keys_u64], columns, 2):
        for a, col in enumerate(cols):
            np.right_shift(k, _U(a), out=cc)
            col[...] = _compact_in_place(cc, ndim, tmp)
    return out


def checked_keys(positions: np.ndarray, lower, scales, levels: int):
    """``(keys, -1)``, or ``(None, row)`` with the first row that holds a NaN or an
    infinity (checked first, so a bad input costs no key computation)."""
    bad = first_nonfinite_row(positions)
    if bad >= 0:
        return None, bad
    return keys(positions, lower, scales, levels), -1
