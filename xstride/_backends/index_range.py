"""Indices of a 64-bit unsigned dtype past ``intp``'s range, for the NumPy backend's
``take`` and ``take_along_axis``: NumPy casts such indices to ``intp`` unchecked, so
``2**64 - 1`` became ``-1`` and took the last element (``2**63 + 1`` was refused as the
index ``-9223372036854775807``). No array has that many elements along an axis: each
such index is out of range, NumPy's ``IndexError`` naming it as given (the dask
backend's ``take`` raised it so when computed)."""

from __future__ import annotations

import numpy as np

from .._core.errors import error

__all__ = ["check_unsigned_indices"]

_INTP_MAX = np.iinfo(np.intp).max


def check_unsigned_indices(func: str, indices, n: int, axis: int) -> None:
    """Raise NumPy's ``IndexError`` (first index out of range, in ``indices``'s C
    order) where an unsigned ``indices`` of 64 bits holds a value past ``intp``'s range
    (a ``max`` over them; call only for an unsigned dtype)."""
    if indices.dtype.itemsize < 8 or not indices.size or int(indices.max()) <= _INTP_MAX:
        return
    first = int(indices[indices >= n].flat[0])
    raise error(IndexError, func, f"index {first} is out of bounds for axis {axis} with "
                                  f"size {n}")
