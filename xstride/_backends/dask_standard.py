"""Where ``array_api_compat.dask.array`` (dask's own functions) differs from the array API
standard, in cases a thin check or a rewrite in dask's terms covers.

Each function checks what dask does not, or rewrites the call into dask operations
that give the standard's answer, then calls ``array_api_compat.dask.array``; nothing
is computed. The array API conformance suite found each (docs/conformance.md, "dask
backend"):

- ``matmul`` / ``linalg.matmul``: dask multiplies mismatched inner dimensions of length
  1 and stacks that do not broadcast without an error; the standard requires one
  ("Linear algebra functions", ``matmul``: "should raise an exception").
- ``tensordot`` / ``linalg.tensordot``: dask sums the blocks' products with
  ``sum``'s default dtype (uint32 operands give uint64); the standard's result dtype is
  the promoted one (the sum is cast back: integer wrap-around is the same modulo
  ``2**bits``).
- ``repeat`` with ``axis=None``: dask wants an int axis; the standard repeats the
  flattened array (C order).
- ``expand_dims`` with a tuple of axes: dask raises ``StopIteration`` on a repeated
  axis; the standard an error (``ValueError`` here, as NumPy's).
- ``searchsorted``: dask refuses ``sorter`` and fails on a Python scalar ``x2``;
  ``searchsorted(x1, x2, sorter=s)`` is ``searchsorted(take(x1, s), x2)``, a
  scalar becomes a 0-D array on ``x1``'s chunk backend, and a 0-D ``x2`` is searched
  as one of shape ``(1,)`` (dask's block function fails on 0-D values).
- ``linalg.svdvals`` and ``linalg.matrix_rank``: compat's call dask's ``svd`` with
  ``full_matrices=True`` (refused by dask) or ``compute_uv=False`` (not a dask
  argument), so they fail on every input. Here each matrix of the stack is made one
  chunk (its last two axes; the stack axes keep their chunks) and the chunk's
  namespace computes its singular values; ``matrix_rank`` counts those above the
  standard's tolerance (``rtol`` times the largest, default ``max(M, N) * eps``).
- ``linalg.cholesky`` (dask's takes one 2-D matrix) and ``linalg.inv`` (dask's needs
  SciPy and one 2-D matrix): per matrix the same way, for stacks of any shape; so
  are ``det``, ``eigvalsh``, ``eigvals``, ``matrix_power`` and ``pinv``, which dask
  lacks (functions of one matrix that return one array: the chunk's namespace
  computes them, the stack stays chunked).

Nothing here imports dask at import time.
"""

from __future__ import annotations

import builtins
import math

import numpy as np

from .._chunked import _config as _chunked_config
from .._core.errors import broadcast_error, value_error
from .._plans.reduction import normalize_axis
from .dispatch import register
from .registry import get

__all__ = ["matmul", "tensordot", "repeat", "expand_dims", "searchsorted", "svdvals",
           "matrix_rank", "cholesky", "inv", "det", "eigvalsh", "eigvals", "matrix_power",
           "pinv"]

_NAME = "dask"


def _ns():
    return get(_NAME).namespace()


def _known(n) -> bool:
    return not (isinstance(n, float) and math.isnan(n))


def matmul(x1, x2, /):
    """``matmul`` of the standard on dask arrays: the standard's shape errors first.

    Raises
    ------
    ValueError
        A 0-D operand; inner dimensions that differ (``x1.shape[-1]`` and
        ``x2.shape[-2]``, or ``x2.shape[0]`` for 1-D ``x2``); stack dimensions that
        do not broadcast.
    """
    if x1.ndim == 0 or x2.ndim == 0:
        arg = "x1" if x1.ndim == 0 else "x2"
        raise value_error("matmul", arg, "is 0-D; matmul takes arrays of at least one "
                                         "dimension")
    k1 = x1.shape[-1]
    k2 = x2.shape[-2] if x2.ndim > 1 else x2.shape[0]
    if _known(k1) and _known(k2) and k1 != k2:
        raise value_error("matmul", "x2", f"has shape {x2.shape}, whose contracted "
                                          f"dimension {k2} differs from the last of x1 "
                                          f"{x1.shape}")
    s1, s2 = x1.shape[:-2], x2.shape[:-2]
    if s1 and s2 and all(_known(n) for n in s1 + s2):
        try:
            np.broadcast_shapes(s1, s2)
        except ValueError:
            raise broadcast_error("matmul", (x1.shape, x2.shape)) from None
    return _ns().matmul(x1, x2)


def tensordot(x1, x2, /, *, axes=2):
    """``tensordot`` of the standard on dask arrays, in the promoted dtype of the two."""
    out = _ns().tensordot(x1, x2, axes=axes)
    want = np.result_type(x1.dtype, x2.dtype)
    return out if out.dtype == want else out.astype(want)


def repeat(x, repeats, /, *, axis=None):
    """``repeat`` of the standard on dask arrays; ``axis=None`` repeats the flattened
    array (C order)."""
    ns = _ns()
    if axis is None:
        return ns.repeat(ns.reshape(x, (-1,)), repeats, axis=0)
    return ns.repeat(x, repeats, axis=axis)


def expand_dims(x, /, *, axis=0):
    """``expand_dims`` of the standard on dask arrays; a tuple ``axis`` is checked
    against the result's rank first (``ValueError`` out of range or repeated)."""
    if isinstance(axis, (tuple, list)):
        normalize_axis("expand_dims", tuple(axis), x.ndim + len(axis))
    return _ns().expand_dims(x, axis=axis)


def _host_on(block, *, like):
    """NumPy ``block`` as an array of the chunk backend of ``like``."""
    return get(_NAME).chunk_like(block, like)


def searchsorted(x1, x2, /, *, side="left", sorter=None):
    """``searchsorted`` of the standard on dask arrays: ``sorter`` as a ``take`` of
    ``x1`` first; a Python scalar ``x2`` as a 0-D array; a 0-D ``x2`` as shape (1,)."""
    ns = _ns()
    if sorter is not None:
        x1 = ns.take(x1, sorter, axis=0)
    if not get(_NAME).owns(x2):
        da = get(_NAME).load()
        host = np.asarray(x2)
        x2 = da.from_array(host, chunks=()).map_blocks(
            _host_on, like=x1._meta, dtype=host.dtype,
            meta=get(_NAME).chunk_like(np.empty((0,) * host.ndim, host.dtype), x1._meta))
    if x2.ndim == 0:   # dask's block search writes into its result: one of shape (1,)
        return ns.reshape(ns.searchsorted(x1, ns.reshape(x2, (1,)), side=side), ())
    return ns.searchsorted(x1, x2, side=side)


def _matrix_block(block, rtol=None, *, op, kw):
    """The namespace's ``linalg.<op>`` of one chunk (whole matrices) on its backend
    (``rtol``: a block of per-matrix tolerances, shape ``(..., 1, 1)``, for ``pinv``)."""
    if rtol is not None:
        kw = {**kw, "rtol": rtol[..., 0, 0]}
    return _chunked_config.namespace_function(f"linalg.{op}", block)(block, **kw)


def _real_float(dt) -> np.dtype:
    dt = np.dtype(dt)
    if dt.kind == "c":
        return np.empty(0, dt).real.dtype
    return dt if dt.kind == "f" else np.dtype(np.float64)


def _stack_of_matrices(func: str, x, square: bool) -> None:
    if x.ndim < 2:
        raise value_error(func, "x", f"has shape {x.shape}; expected a stack of matrices "
                                     "(at least 2 dimensions)")
    if square and x.shape[-1] != x.shape[-2]:
        raise value_error(func, "x", f"has shape {x.shape}; expected a stack of square "
                                     "matrices")


def _per_matrix(name: str, x, tail, dtype, rtol=None, **kw):
    """``linalg.<name>`` of every matrix of ``x`` (``(..., M, N)``) by the chunk's
    namespace: the last two axes gathered into one chunk, the stack's chunks kept; the
    result's last axes have the lengths ``tail`` (none, one or two of them). ``rtol``:
    a dask array of per-matrix tolerances (broadcast to the stack)."""
    nd = x.ndim
    x = x.rechunk({nd - 2: -1, nd - 1: -1})
    meta = get(_NAME).chunk_like(np.empty((0,) * (nd - 2 + len(tail)), dtype), x._meta)
    chunks = x.chunks[:-2] + tuple((n,) for n in tail)
    drop = {} if len(tail) == 2 else {"drop_axis": tuple(range(nd - 2 + len(tail), nd))}
    args = [x]
    if rtol is not None:
        ns = _ns()
        r = ns.broadcast_to(rtol, x.shape[:-2])
        r = ns.reshape(r, x.shape[:-2] + (1, 1)).rechunk(x.chunks[:-2] + ((1,), (1,)))
        args.append(r)
    return get(_NAME).load().map_blocks(_matrix_block, *args, op=name, kw=kw,
                                        chunks=chunks, dtype=dtype, meta=meta, **drop)


def svdvals(x, /):
    """``linalg.svdvals`` of the standard on a dask array of shape ``(..., M, N)``:
    ``(..., min(M, N))``, descending, real (``float32`` for ``complex64``). Each
    matrix is gathered into one chunk; the stack keeps its chunks.

    Raises
    ------
    ValueError
        ``x`` has fewer than two dimensions.
    """
    _stack_of_matrices("svdvals", x, False)
    k = builtins.min(x.shape[-2:])
    return _per_matrix("svdvals", x, (k,), _real_float(x.dtype))


def cholesky(x, /, *, upper=False):
    """``linalg.cholesky`` of the standard on a dask array of shape ``(..., M, M)``
    (dask's takes one 2-D matrix only), per matrix as :func:`svdvals`.

    Raises
    ------
    ValueError
        ``x`` is not a stack of square matrices.
    """
    _stack_of_matrices("cholesky", x, True)
    return _per_matrix("cholesky", x, x.shape[-2:], _real_float(x.dtype) if x.dtype.kind
                       != "c" else x.dtype, upper=bool(upper))


def inv(x, /):
    """``linalg.inv`` of the standard on a dask array of shape ``(..., M, M)`` (dask's
    needs SciPy and one 2-D matrix), per matrix as :func:`svdvals`.

    Raises
    ------
    ValueError
        ``x`` is not a stack of square matrices.
    """
    _stack_of_matrices("inv", x, True)
    return _per_matrix("inv", x, x.shape[-2:], _real_float(x.dtype) if x.dtype.kind
                       != "c" else x.dtype)


def _same_float(x) -> np.dtype:
    return x.dtype if x.dtype.kind == "c" else _real_float(x.dtype)


def det(x, /):
    """``linalg.det`` of the standard on a dask array of shape ``(..., M, M)``: shape
    ``(...)``, per matrix as :func:`svdvals`.

    Raises
    ------
    ValueError
        ``x`` is not a stack of square matrices.
    """
    _stack_of_matrices("det", x, True)
    return _per_matrix("det", x, (), _same_float(x))


def eigvalsh(x, /):
    """``linalg.eigvalsh`` of the standard on a dask array of shape ``(..., M, M)``:
    ``(..., M)``, real, ascending, per matrix as :func:`svdvals`.

    Raises
    ------
    ValueError
        ``x`` is not a stack of square matrices.
    """
    _stack_of_matrices("eigvalsh", x, True)
    return _per_matrix("eigvalsh", x, x.shape[-1:], _real_float(x.dtype))


def eigvals(x, /):
    """``linalg.eigvals`` of the standard on a dask array of shape ``(..., M, M)``:
    ``(..., M)``, complex (``complex64`` for ``float32``), per matrix as
    :func:`svdvals`.

    Raises
    ------
    ValueError
        ``x`` is not a stack of square matrices.
    """
    _stack_of_matrices("eigvals", x, True)
    return _per_matrix("eigvals", x, x.shape[-1:], np.result_type(_same_float(x),
                                                                  np.complex64))


def matrix_power(x, n, /):
    """``linalg.matrix_power`` of the standard on a dask array of shape ``(..., M,
    M)`` and an int ``n`` (negative: of the inverse), per matrix as :func:`svdvals`.

    Raises
    ------
    ValueError
        ``x`` is not a stack of square matrices.
    """
    _stack_of_matrices("matrix_power", x, True)
    dt = x.dtype if n >= 0 else _same_float(x)
    return _per_matrix("matrix_power", x, x.shape[-2:], dt, n=n)


def pinv(x, /, *, rtol=None):
    """``linalg.pinv`` of the standard on a dask array of shape ``(..., M, N)``:
    ``(..., N, M)``; ``rtol`` a float or an array broadcasting to the stack ``(...)``;
    per matrix as :func:`svdvals`.

    Raises
    ------
    ValueError
        ``x`` has fewer than two dimensions.
    """
    _stack_of_matrices("pinv", x, False)
    tail = (x.shape[-1], x.shape[-2])
    if get(_NAME).owns(rtol):
        return _per_matrix("pinv", x, tail, _same_float(x), rtol=rtol)
    return _per_matrix("pinv", x, tail, _same_float(x), **({} if rtol is None
                                                             else {"rtol": rtol}))


def matrix_rank(x, /, *, rtol=None):
    """``linalg.matrix_rank`` of the standard on a dask array of shape ``(..., M, N)``:
    the number of singular values above ``rtol * largest`` (``rtol`` default
    ``max(M, N) * eps`` of the values' dtype), as int64 of shape ``(...)``."""
    ns = _ns()
    s = svdvals(x)
    if s.shape[-1] == 0:
        return ns.zeros(s.shape[:-1], dtype=np.int64, chunks=s.chunks[:-1])
    if rtol is None:
        rtol = builtins.max(x.shape[-2:]) * np.finfo(s.dtype).eps
    elif get(_NAME).owns(rtol):
        rtol = ns.expand_dims(rtol, axis=-1)
    tol = ns.max(s, axis=-1, keepdims=True) * rtol
    return ns.astype(ns.count_nonzero(s > tol, axis=-1), np.int64)


for _q, _fn in (("linalg.svdvals", svdvals), ("linalg.matrix_rank", matrix_rank),
                ("linalg.cholesky", cholesky), ("linalg.inv", inv), ("linalg.det", det),
                ("linalg.eigvalsh", eigvalsh), ("linalg.eigvals", eigvals),
                ("linalg.matrix_power", matrix_power), ("linalg.pinv", pinv),
                ("matmul", matmul), ("linalg.matmul", matmul), ("tensordot", tensordot),
                ("linalg.tensordot", tensordot), ("repeat", repeat),
                ("expand_dims", expand_dims), ("searchsorted", searchsorted)):
    register(_q, _NAME)(_fn)
del _q, _fn
