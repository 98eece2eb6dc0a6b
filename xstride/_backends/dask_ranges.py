"""``arange`` of floats (or from floats) and ``linspace`` of real ends on the dask
backend, each element from its global index as NumPy computes it, so the values do not
depend on the chunks.

dask made each block with its own start (``start + offset * step``, then NumPy's
``arange``/``linspace`` of the block), which rounds otherwise than NumPy's one array:
``arange(1, 0, -0.3)`` in chunks of 1 or 2 was off in the last bits from the NumPy
backend's, and ``linspace(1, 0, 4)`` in chunks of 1; into an integer dtype, each
block's start was cast on its own (``arange(0, 5, 1.5, dtype=int64)`` was ``[0, 1, 3,
4]`` in chunks of 1). NumPy's ``arange`` stores
``start`` and ``start + step`` and fills element ``i >= 2`` with ``start + i * delta``
(``delta`` the difference of the two stored values; float16 computed in float32); its
``linspace`` is ``i * step + start`` in the ends' float type (``i / div * delta`` where
the step is 0), the last element ``stop`` with ``endpoint``, floored for an integer
dtype; of complex ends, each part the same with the step ``delta * (1 / div)`` (NumPy's
complex division by the real ``div``).

``arange`` of Python ints of 2**53 and more (no ``dtype``, an integer, float or complex
one) is the NumPy backend's, exact (``arange_checks.wide_plan``; into a float dtype each
exact value rounded once, ``arange_floats.py``). dask's own computed its length in
float64 and its values in int64 (``arange(2**63 - 2, 2**63 + 1)`` wrapped,
``arange(2**63, 2**63 + 3)`` failed with an unnamed "Python int too large to convert to
C long"), and into a float dtype each value from the first two in float64.

Nothing here imports dask at import time.
"""

from __future__ import annotations

import numpy as np

from .._core.sizes import out_of_memory
from .arange_checks import wide_values

__all__ = ["float_arange", "float_linspace", "int_arange"]


def _arange_block(idx, first, second, dt):
    work = np.dtype(np.float32) if dt == np.float16 else dt
    start = work.type(dt.type(first))
    delta = work.type(dt.type(second)) - start
    with np.errstate(invalid="ignore"):   # 0 * inf at the first element, replaced
        out = (start + idx.astype(work) * delta).astype(dt)
    out[idx == 0] = dt.type(first)
    out[idx == 1] = dt.type(second)
    return out


def float_arange(start, step, n: int, dtype, chunks, like):
    """NumPy's ``arange`` of ``n`` elements of ``dtype`` (a float one, or an integer one
    from a float ``start`` or ``step``) from ``start`` by
    ``step``, in ``chunks`` (dask's ``chunks=`` for ``n`` elements; ``like`` is dask's
    ``arange`` of the call, whose meta it keeps)."""
    import dask.array as da

    from dask.array.core import normalize_chunks

    dt = np.dtype(dtype)
    chunks = normalize_chunks(chunks, (n,), dtype=dt)
    idx = da.arange(0, n, 1, chunks=chunks, dtype=np.int64)
    return idx.map_blocks(_arange_block, start, start + step, dt, dtype=dt,
                          meta=like._meta)


def int_arange(start: int, step: int, n: int, dt, chunks):
    """``arange`` of ``n`` values of ``dt`` (integer: wrapped as NumPy's; float or
    complex: each exact value rounded once) from the Python ints
    ``start`` by ``step`` (:func:`~.arange_checks.wide_values` of each block's global
    indices) in ``chunks`` (dask's ``chunks=`` for ``n`` elements)."""
    import dask.array as da

    from dask.array.core import normalize_chunks

    try:   # dask's tuple of block lengths was a bare MemoryError
        chunks = normalize_chunks(chunks, (n,), dtype=dt)
    except MemoryError:
        raise out_of_memory("arange", "the chunks of the result", (n,), dt.itemsize) from None
    idx = da.arange(0, n, 1, chunks=chunks, dtype=np.int64)
    return idx.map_blocks(wide_values, start, step, dt, dtype=dt, meta=np.empty((0,), dt))


def _linspace_block(idx, start, stop, num, div, dt, dtype, endpoint, recip):
    delta = np.subtract(stop, start, dtype=dt)
    y = idx.astype(dt)
    if div > 0:   # a complex step is delta times 1 / div (NumPy's complex division)
        inv = dt.type(1) / dt.type(div)
        step = delta * inv if recip else delta / div
        y = (y * inv if recip else y / div) * delta if step == 0 else y * step
    else:
        y = y * delta
    y = y + dt.type(start)
    if endpoint and num > 1:
        y[idx == num - 1] = stop
    if np.dtype(dtype).kind in "iu":
        y = np.floor(y)
    return y.astype(dtype)


def float_linspace(start, stop, num: int, dtype, endpoint: bool, like,
                   complex_part: bool = False):
    """NumPy's ``linspace`` of real ``start`` and ``stop`` in NumPy blocks of the chunks
    and dtype of ``like`` (dask's ``linspace`` of the call); ``complex_part``: one part
    of a complex ``linspace``, whose step NumPy's complex division makes."""
    import dask.array as da

    dt = np.result_type(start, stop, 1.0)   # NumPy's: the ends' type, made inexact
    div = (num - 1) if endpoint else num
    idx = da.arange(0, num, 1, chunks=like.chunks, dtype=np.int64)
    return idx.map_blocks(_linspace_block, start, stop, num, div, dt, like.dtype,
                          endpoint, complex_part, dtype=like.dtype,
                          meta=np.empty((0,), like.dtype))
