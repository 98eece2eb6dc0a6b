"""The host grouping of one chunk's rows by output partition, for the dask backend's
sample sort (``xstride/_chunked/sample_sort.py``, step 2, "split"): the compiled
counting sort of ``partition_host.c`` where it takes the arrays, else None (the sample
sort then groups by NumPy: a binary search per key among the splitters and a stable
sort of the partition numbers, the same rows in the same order).

2**22 rows of 30-bit uint64 keys with (m, 3) float64 values in 32 partitions, on the
2-core development machine (2026-12-07): see docs/performance.md, "The sample sort's
split on the host".
"""

from __future__ import annotations

import numpy as np

__all__ = ["partition", "native_status"]


def partition(keys: np.ndarray, splitters: np.ndarray, values) -> tuple | None:
    """``(cuts, keys, order, *values)``: the rows of ``keys`` (n,) and of each array of
    ``values`` ((n,) or (n, k), any dtype without Python objects) grouped by partition,
    partition ``j`` holding the keys in ``(splitters[j - 1], splitters[j]]``, each group
    in row order (stable); ``cuts`` (int64, ``splitters.size + 2``) the groups' bounds,
    ``order`` (int64) the input row of each output row. None where the compiled loop is
    not loaded (no C compiler, ``XSTRIDE_HOST_CC=none``) or does not take these arrays:
    keys of another dtype than native int32/uint32/int64/uint64, splitters of another
    dtype than the keys', values of objects or of another row count than the keys, or
    more than 2**32 - 1 splitters."""
    from . import _partition_native   # not at import: the first call builds it

    dt = keys.dtype
    if (splitters.dtype != dt or not dt.isnative or splitters.size >= 2**32 - 1
            or any(v.dtype.hasobject for v in values)):
        return None
    loops = _partition_native.get()
    if loops is None or not loops.takes(dt):
        return None
    m = keys.shape[0]
    if any(v.shape[:1] != (m,) for v in values):
        return None   # rows of another count: NumPy's way names the mismatch
    # the loop loads keys and splitters as their C type (aligned); it copies value rows
    # as bytes (any alignment)
    keys = np.require(keys, requirements=("C", "A"))
    splitters = np.require(splitters, requirements=("C", "A"))
    vals = [np.ascontiguousarray(v) for v in values]
    cuts = np.empty(splitters.size + 2, dtype=np.int64)
    order = np.empty(m, dtype=np.int64)
    keys_out = np.empty(m, dtype=dt)
    outs = [np.empty(v.shape, dtype=v.dtype) for v in vals]
    row_bytes = [v.dtype.itemsize * int(np.prod(v.shape[1:], dtype=np.int64)) for v in vals]
    if not loops.partition(keys, splitters, cuts, order, keys_out, vals, outs, row_bytes):
        return None   # no scratch memory for the loop: NumPy's way, which needs as much
    return (cuts, keys_out, order, *outs)


def native_status() -> dict:
    """Capability row of the compiled grouping: ``available``, ``reason`` (why not, else
    ``""``) and ``path`` (``"compiled C (gcc 12.2)"`` or ``"NumPy (<reason>)"``). May
    trigger the compile."""
    from . import _partition_native

    loops = _partition_native.get()
    if loops is not None:
        return {"available": True, "reason": "", "path": f"compiled C ({loops.compiler})"}
    why = _partition_native.reason()
    return {"available": False, "reason": why, "path": f"NumPy ({why})"}
