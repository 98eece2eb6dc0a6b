"""How many chunks the ``"columns_chunks"`` scan cuts each series into.

The ``"columns"`` scan (a scan over an axis that is not the innermost: one thread per
series, neighbouring threads on neighbouring series, so every step reads and writes
coalesced) has one thread per series. A wide array scanned down its rows has too few
of them to keep the memory busy: ``cumulative_sum(x, axis=0)`` of a (4096, 24576)
float32 array is 24,576 threads, 0.11 of a device copy on the H200 (2026-12-02).
``"columns_chunks"`` cuts every series into ``C`` chunks of ``R = ceil(length / C)``
consecutive elements and runs two launches (``xstride/_kernels/scans_chunks.cu``): the
fold of each chunk, then the scan of each chunk from the fold of the chunks before
it. ``C`` comes from the shape alone, never from the device, so the results have the
same bits on every GPU.
"""

from __future__ import annotations

__all__ = ["TARGET_THREADS", "MIN_LENGTH", "MIN_CHUNK", "MAX_CHUNKS", "CHUNKS_MIN_THREADS",
           "column_chunks"]

#: Threads the chunks aim for (about half of what an H200 holds resident: 132 SMs x
#: 2048 threads), a constant so that the chunking is the same on every device.
TARGET_THREADS = 1 << 17
#: Shortest series that are cut: one thread walks a shorter one in about the time of the
#: second launch the chunks add (a few microseconds).
MIN_LENGTH = 1024
#: Fewest elements of a series per chunk (below, the carry's fold of the chunks before
#: costs more reads than the chunk itself).
MIN_CHUNK = 64
#: Most chunks per series (the second launch folds up to ``C - 1`` partials per thread).
MAX_CHUNKS = 64
#: Fewest threads (series x chunks) for which chunks replace the look-back scan of
#: series longer than 4096 along an outer axis (``plan_scan``). On the H200
#: (2026-12-02) chunks took ``cumulative_sum(x, axis=0)`` of (65536, 2000) float32 from
#: 3.22 to 0.50 ms and of (200000, 200) float32 (12,800 threads) from 2.04 to 0.52 ms;
#: fewer threads were not measured, so they keep the look-back scan.
CHUNKS_MIN_THREADS = 1 << 13


def column_chunks(nseries: int, length: int) -> int:
    """Chunks per series of the ``"columns_chunks"`` scan of ``nseries`` series of
    ``length`` elements: ``min(ceil(TARGET_THREADS / nseries), length // MIN_CHUNK,
    MAX_CHUNKS)``, at least 1; 1 for series shorter than :data:`MIN_LENGTH` (1: the
    plain ``"columns"`` scan is enough).

    >>> column_chunks(24576, 4096)
    6
    >>> column_chunks(1 << 17, 4096)
    1
    >>> column_chunks(100, 1000)
    1
    """
    if nseries < 1 or length < MIN_LENGTH:
        return 1
    want = -(-TARGET_THREADS // nseries)
    return max(1, min(want, length // MIN_CHUNK, MAX_CHUNKS))
