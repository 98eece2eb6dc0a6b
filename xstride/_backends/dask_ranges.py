"""``arange`` of floats on the dask backend, each element from its global index as
NumPy computes it, so the values do not depend on the chunks.

dask made each block with its own start (``start + offset * step``, then NumPy's
``arange`` of the block), which rounds otherwise than NumPy's one array:
``arange(1, 0, -0.3)`` in chunks of 1 or 2 was off in the last bits from the NumPy
backend's. NumPy's ``arange`` stores ``start`` and ``start + step`` and fills element
``i >= 2`` with ``start + i * delta`` (``delta`` the difference of the two stored
values; float16 computed in float32).

Nothing here imports dask at import time.
"""

from __future__ import annotations

import numpy as np

__all__ = ["float_arange"]


def _arange_block(idx, first, second, dt):
    work = np.dtype(np.float32) if dt == np.float16 else dt
    start = work.type(dt.type(first))
    delta = work.type(dt.type(second)) - start
    out = (start + idx.astype(work) * delta).astype(dt)
    out[idx == 0] = dt.type(first)
    out[idx == 1] = dt.type(second)
    return out


def float_arange(start, step, n: int, dtype, chunks, like):
    """NumPy's ``arange`` of ``n`` elements of the float ``dtype`` from ``start`` by
    ``step``, in ``chunks`` (the blocks of ``like``, dask's ``arange`` of the call)."""
    import dask.array as da

    dt = np.dtype(dtype)
    idx = da.arange(0, n, 1, chunks=chunks, dtype=np.int64)
    return idx.map_blocks(_arange_block, start, start + step, dt, dtype=dt,
                          meta=like._meta)
