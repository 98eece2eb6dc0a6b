"""Complex CuPy arrays as real arrays of their parts, in place: an array of shape ``S``
and strides ``T`` is the real array of shape ``S + (2,)`` and strides ``T + (p,)``
(``p`` the itemsize of a part; NumPy's layout puts the real part first). The
operations that treat the two parts apart -- a sum, a cumulative sum, an addition --
run on the real kernels through it (``scans.complex_sum``, the ``"copy"`` plan of
``reductions``, the engine's ``add`` and ``subtract``)."""

from __future__ import annotations

import numpy as np

from ._cupy import cupy as _cupy

__all__ = ["PART", "parts", "from_parts"]

#: A complex dtype -> the dtype of its real and imaginary parts.
PART = {np.dtype(np.complex64): np.dtype(np.float32),
        np.dtype(np.complex128): np.dtype(np.float64)}


def parts(x):
    """The real array of shape ``x.shape + (2,)`` that views the parts of the complex
    CuPy array ``x`` (no copy)."""
    part = PART[np.dtype(x.dtype)]
    return _cupy().ndarray(x.shape + (2,), part, memptr=x.data,
                           strides=x.strides + (part.itemsize,))


def from_parts(res, dtype: np.dtype):
    """The complex array of ``dtype`` whose parts are the real CuPy array ``res`` of
    shape ``S + (2,)`` (of the parts' dtype): a view where each pair lies side by side
    and every other axis steps by whole pairs, else a view of a C-ordered copy."""
    cp = _cupy()
    pair = 2 * res.itemsize
    if res.strides[-1] != res.itemsize or any(
            n > 1 and st % pair for n, st in zip(res.shape[:-1], res.strides[:-1])):
        res = cp.ascontiguousarray(res)
    strides = tuple(st if n > 1 else pair for n, st in zip(res.shape[:-1], res.strides[:-1]))
    return cp.ndarray(res.shape[:-1], dtype, memptr=res.data, strides=strides)
