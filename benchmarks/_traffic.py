"""The memory traffic a strided view costs at least: the bytes of the memory blocks its
elements touch.

A device reads memory in blocks, not elements: a view that skips part of every block
(``(3n,)[::3]``, the rows of ``(n, 16)[:, :8]``) costs the traffic of the blocks it
touches. ``benchmarks/shapes.py`` divides the bytes a case moves by that traffic to
give the case's *traffic bound*: the fraction of copy it reaches when its blocks move
at a copy's speed (1.0 for dense operands). It is an estimate, not a ceiling: a case
that only reads can stream faster than a copy's mix of reads and writes, and read
above it (``(3n,)[::3]``: 0.38 of copy against 0.33 on the H100).

The block is 64 bytes. A 32-byte sector is the unit of the L2 cache, but on the H100
and H200 reading every other sector took as long as reading them all: the rows of
``(n, 16)[:, :8]`` float32 (32 of every 64 bytes, whole aligned sectors) reduced at
0.52-0.55 of copy, where their sectors alone would allow 1.0
(docs/performance.md, the H100 sweep of 2026-12-05 13:07 UTC).
"""

from __future__ import annotations

import functools

import numpy as np

#: Bytes of a memory block (see the module docstring).
BLOCK = 64
#: Elements whose addresses are computed to estimate the blocks of a large view.
SAMPLE = 1 << 16


@functools.lru_cache(maxsize=256)
def _cached(shape: tuple, strides: tuple, itemsize: int, address: int, block: int,
            sample: int) -> float:
    return _touched(shape, strides, itemsize, address, block, sample)


def touched_bytes(shape, strides, itemsize: int, address: int = 0, block: int = BLOCK,
                  sample: int = SAMPLE) -> float:
    """Bytes of the ``block``-byte memory blocks that the elements of a view touch.

    Parameters
    ----------
    shape : tuple of int
        The view's shape.
    strides : tuple of int
        Its strides in bytes (negative for reversed axes).
    itemsize : int
        Bytes of an element.
    address : int
        The address of element 0 (only ``address % block`` matters).
    block, sample : int
        Block size in bytes; at most this many elements' addresses are computed.

    Returns
    -------
    float
        Exact when the view has at most about ``sample`` distinct addresses (axes of
        stride 0 add none). For larger views, the blocks per element of a leading part
        of the view (every inner axis whole where it fits, ``sample`` elements in all)
        times the element count: within ``block / (sample * itemsize)`` of the exact
        count per element for periodic layouts of distinct elements; a view whose
        elements overlap (sliding windows) can be overestimated.

    Raises
    ------
    ValueError
        ``shape`` and ``strides`` of different lengths, a negative extent, or an
        ``itemsize``, ``block`` or ``sample`` below 1.
    """
    shape, strides = tuple(int(n) for n in shape), tuple(int(s) for s in strides)
    return _cached(shape, strides, int(itemsize), int(address) % block if block > 0 else 0,
                   int(block), int(sample))


def _touched(shape, strides, itemsize, address, block, sample) -> float:
    if len(shape) != len(strides):
        raise ValueError(f"shape {tuple(shape)} and strides {tuple(strides)} differ in length")
    if itemsize < 1 or block < 1 or sample < 1:
        raise ValueError(f"itemsize, block and sample must be at least 1, got "
                         f"{itemsize}, {block}, {sample}")
    if any(n < 0 for n in shape):
        raise ValueError(f"negative extent in shape {tuple(shape)}")
    if 0 in shape:
        return 0.0
    # an axis of stride 0 (broadcast) repeats addresses: it touches no other block
    size = int(np.prod([n for n, s in zip(shape, strides) if s], dtype=object))
    # the lowest address, then every axis forward
    base = address + sum((n - 1) * s for n, s in zip(shape, strides) if s < 0)
    axes = sorted(((n, abs(s)) for n, s in zip(shape, strides) if n > 1 and s),
                  key=lambda t: t[1])
    part, taken = [], 1
    for n, s in axes:
        m = min(n, max(1, sample // taken))
        part.append((m, s))
        taken *= m
        if m < n:
            break
    offsets = np.full(1, base % block, dtype=np.int64)
    for m, s in part:
        offsets = (offsets[None, :] + np.arange(m, dtype=np.int64)[:, None] * s).ravel()
    first = offsets // block
    last = (offsets + itemsize - 1) // block
    blocks = np.unique(np.concatenate([first, last])).size
    return blocks * block * (size / taken)


def array_bytes(a, block: int = BLOCK) -> float:
    """:func:`touched_bytes` of a NumPy or CuPy array (its address read from the array)."""
    ptr = getattr(getattr(a, "data", None), "ptr", None)
    if ptr is None:
        ptr = a.__array_interface__["data"][0]
    return touched_bytes(a.shape, a.strides, a.dtype.itemsize, ptr, block)
