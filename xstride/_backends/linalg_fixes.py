"""``linalg`` on CuPy where ``array_api_compat.cupy`` differs from the standard.

- ``eig`` returns a named tuple ``EigResult(eigenvalues, eigenvectors)`` of complex
  dtype, and ``eigvals`` a complex array, also for real input whose eigenvalues
  happen to be real (CuPy returns a plain tuple and a real array then).
- ``solve`` takes ``x2`` of shape ``(M,)`` (a vector) or ``(..., M, K)`` with batch
  dimensions broadcast against ``x1``'s, empty matrices included.

Registered for CuPy only: NumPy (through array_api_compat) follows the standard here.

On NumPy (not yet registered for CuPy: not run on a device): ``matrix_rank`` of
empty matrices is 0 (NumPy's reduced an empty
array of singular values and raised), and ``qr`` names a ``mode`` other than
``"reduced"`` and ``"complete"`` (compat's failed building its result from NumPy's
``mode="r"`` output).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from . import select as _backend
from .dispatch import register
from .._core.errors import value_error

__all__ = ["EigResult", "eig", "eigvals", "solve"]


class EigResult(NamedTuple):
    """Result of :func:`eig`: ``eigenvalues`` (..., M) and ``eigenvectors`` (..., M, M)."""

    eigenvalues: object
    eigenvectors: object


def _complex_of(dtype) -> np.dtype:
    return np.result_type(dtype, np.complex64)


def _linalg():
    return _backend.namespace("cupy").linalg


def eig(x, /) -> EigResult:
    """``linalg.eig`` of the standard on CuPy arrays (complex results, named tuple)."""
    w, v = _linalg().eig(x)
    ct = _complex_of(x.dtype)
    return EigResult(w.astype(ct, copy=False), v.astype(ct, copy=False))


def eigvals(x, /):
    """``linalg.eigvals`` of the standard on CuPy arrays (complex result)."""
    return _linalg().eigvals(x).astype(_complex_of(x.dtype), copy=False)


def solve(x1, x2, /):
    """``linalg.solve`` of the standard on CuPy arrays.

    ``x1`` (..., M, M); ``x2`` (M,) is a vector for every matrix of the stack,
    otherwise ``x2`` (..., M, K) with batch dimensions broadcast against ``x1``'s.
    """
    cupy = _backend.array_module("cupy")
    if x1.ndim < 2 or x1.shape[-1] != x1.shape[-2]:
        raise value_error("linalg.solve", "x1", f"must have shape (..., M, M); got {x1.shape}")
    n = x1.shape[-1]
    vector = x2.ndim == 1
    b = x2[:, None] if vector else x2
    if b.ndim < 2 or b.shape[-2] != n:
        raise value_error("linalg.solve", "x2", f"must have shape ({n},) or (..., {n}, K) "
                                                f"for x1 of shape {x1.shape}; got {x2.shape}")
    batch = np.broadcast_shapes(x1.shape[:-2], b.shape[:-2])
    a = cupy.broadcast_to(x1, batch + x1.shape[-2:])
    b = cupy.broadcast_to(b, batch + b.shape[-2:])
    dtype = np.result_type(x1.dtype, x2.dtype)
    if a.size == 0 or b.size == 0:
        res = cupy.empty(b.shape, dtype=dtype)
    else:
        res = _linalg().solve(a, b).astype(dtype, copy=False)
    return res[..., 0] if vector else res


def _matrix_rank_of(backend: str):
    def matrix_rank(x, /, *, rtol=None):
        """``matrix_rank`` of the standard; 0 for matrices with no rows or no columns."""
        ns = _backend.namespace(backend)
        if x.ndim >= 2 and (x.shape[-2] == 0 or x.shape[-1] == 0):
            out = ns.zeros(x.shape[:-2], dtype=ns.int64)
            return out[()] if x.ndim == 2 and backend == "numpy" else out
        return ns.linalg.matrix_rank(x, rtol=rtol)
    return matrix_rank


def _qr_of(backend: str):
    def qr(x, /, *, mode="reduced"):
        """``qr`` of the standard; ``mode`` is ``"reduced"`` or ``"complete"``."""
        if mode not in ("reduced", "complete"):
            raise value_error("qr", "mode", f"must be 'reduced' or 'complete'; got {mode!r}")
        return _backend.namespace(backend).linalg.qr(x, mode=mode)
    return qr


for _fn in (eig, eigvals, solve):
    register(f"linalg.{_fn.__name__}", "cupy")(_fn)
register("linalg.matrix_rank", "numpy")(_matrix_rank_of("numpy"))
register("linalg.qr", "numpy")(_qr_of("numpy"))
del _fn
