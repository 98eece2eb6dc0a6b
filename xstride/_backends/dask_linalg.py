"""The standard's linear algebra of stacks of matrices on dask arrays, one matrix at a
time.

dask's ``linalg`` takes one 2-D matrix (``cholesky``, ``qr``, ``svd``, ``inv``,
``solve``; the last two need SciPy), refuses the standard's defaults (``svd``'s
``full_matrices=True``, ``qr``'s ``mode="complete"``; compat's ``svdvals`` and
``matrix_rank`` ask for them, so they fail on every input) and lacks ``det``,
``slogdet``, ``eigh``, ``eigvalsh``, ``eig``, ``eigvals``, ``matrix_power``, ``pinv``,
``cross``.
Here every matrix of a stack ``(..., M, N)`` is gathered into one chunk (its last two
axes; the stack axes keep their chunks) and the namespace's own function of the
chunk's backend computes it (NumPy's in a NumPy chunk, CuPy's in a CuPy chunk):
one task per block of the stack, nothing computed at the call. Functions that return
a tuple (``eigh``, ``eig``, ``slogdet``, ``qr``, ``svd``) compute it once per block;
each field is then a task that picks it.

A 2-D matrix chunked along one axis only goes to dask's tall-and-skinny (or
short-and-fat) QR where that answers (``qr`` with ``mode="reduced"``, ``svd`` with
``full_matrices=False``, ``svdvals``): no gather. Every other matrix is gathered,
also for ``cholesky``, ``inv`` and ``solve``, whose dask versions need SciPy and
square chunks; for a matrix too large for one worker, call ``dask.array.linalg``. ``matrix_rank`` counts the singular values above the
standard's tolerance (``rtol`` times the largest; default ``max(M, N) * eps``).
``cross`` is dask's elementwise products of the components (no matrix, nothing
gathered). ``vector_norm`` and ``matrix_norm`` are in ``dask_norms.py``.

Source: the standard's "Linear Algebra Extension" (shapes, dtypes, defaults); dask's
``map_blocks`` (one task per block, ``drop_axis``/``chunks`` for the result).
"""

from __future__ import annotations

import builtins
import operator

import numpy as np

from .._chunked import _config as _chunked_config
from .._core.errors import type_error, value_error
from .dask_standard import _unknown_error
from .dispatch import implementation, register
from .linalg_fixes import EigResult, check_cross, check_linalg_args, check_rtol, check_solve
from .lapack_dtype import check_lapack_dtype as _lapack_dtype   # dask's tasks raised later
from .linalg_shapes import not_matrices_error, not_square_error
from .masked_products import refuse_masked_power
from .registry import get

__all__ = ["svdvals", "matrix_rank", "cholesky", "inv", "det", "slogdet", "eigh",
           "eigvalsh", "eig", "eigvals", "matrix_power", "pinv", "qr", "svd", "solve",
           "cross", "trace", "diagonal"]

_NAME = "dask"


def _ns():
    return get(_NAME).namespace()


def _named(op: str, call):
    """``call()``; a ``LinAlgError`` (a singular matrix) raised naming ``op``, as the
    NumPy backend's does (a block's raised the library's bare "Singular matrix" when
    computed)."""
    try:
        return call()
    except Exception as exc:
        text = str(exc)
        if type(exc).__name__ != "LinAlgError" or text.startswith(f"{op}:"):
            raise
        raise type(exc)(f"{op}: {text}") from None


def _block(block, rtol=None, *, op, kw):
    """The namespace's ``linalg.<op>`` of one chunk (whole matrices) on its backend
    (``rtol``: a block of per-matrix tolerances, shape ``(..., 1, 1)``, for ``pinv``)."""
    if rtol is not None:
        kw = {**kw, "rtol": rtol[..., 0, 0]}
    fn = _chunked_config.namespace_function(f"linalg.{op}", block)
    if op == "matrix_power":   # its n is positional-only (the standard's signature)
        return _named(op, lambda: fn(block, kw["n"]))
    return _named(op, lambda: fn(block, **kw))


def _solve_block(a, b):
    return _named("solve", lambda: _chunked_config.namespace_function("linalg.solve", a)(a, b))


def _field(packed, i, pad):
    """Element ``i`` of a block's tuple, with ``pad`` trailing axes of length 1 (a task
    that drops axes would concatenate its input: a tuple is no array)."""
    a = packed[i]
    return a.reshape(a.shape + (1,) * pad)


def _real_float(dt) -> np.dtype:
    """The real floating dtype of ``dt`` (float64 for integers)."""
    dt = np.dtype(dt)
    if dt.kind == "c":
        return np.empty(0, dt).real.dtype
    return dt if dt.kind == "f" else np.dtype(np.float64)


def _float(dt) -> np.dtype:
    """``dt`` if floating or complex, else float64."""
    dt = np.dtype(dt)
    return dt if dt.kind in "fc" else np.dtype(np.float64)


def _complex(dt) -> np.dtype:
    return np.result_type(_float(dt), np.complex64)


def _check(func: str, x, square: bool, lapack: bool = True, arg: str = "x") -> None:
    """``x`` (the argument named ``arg``: ``solve``'s is ``x1``) a stack of matrices
    whose lengths dask knows, square if ``square``, of a dtype LAPACK takes if
    ``lapack``. A shape that is no stack of (square) matrices is NumPy's class,
    ``numpy.linalg.LinAlgError`` (a ``ValueError``), so one ``except`` serves both
    backends."""
    if lapack:
        _lapack_dtype(func, arg, x)
    if x.ndim < 2:   # (linalg_shapes.py: the NumPy backend's error too)
        raise not_matrices_error(func, arg, x.shape)
    if any(n != n for n in x.shape[-2:]):   # NaN: lengths after boolean indexing
        if arg == "x":
            raise _unknown_error(func, x, "its matrices need")
        raise value_error(func, arg, f"has shape {x.shape}, with lengths dask does not know "
                                     f"(as after boolean indexing), which {func} needs; "
                                     f"call {arg}.compute_chunk_sizes() first")
    if square and x.shape[-1] != x.shape[-2]:
        raise not_square_error(func, arg, x.shape)


def _tall_or_wide(x) -> bool:
    """One 2-D matrix in several chunks along one axis only, in blocks dask's
    tall-and-skinny QR takes (one column of blocks, each with at least as many rows as
    the matrix has columns) or its short-and-fat QR takes (one row of blocks, the first
    at least as wide as the matrix is tall). Others (a (4, 10) matrix in (4, 2) blocks,
    which dask refused, or in (2, 10) ones, which failed when computed) are gathered
    per matrix."""
    if x.ndim != 2 or x.numblocks == (1, 1):
        return False
    (rows, cols), (m, n) = x.chunks, x.shape
    if len(cols) == 1:
        return all(r >= n for r in rows)
    if len(rows) == 1:
        return cols[0] >= m
    return False


def _whole(x):
    nd = x.ndim
    return x.rechunk({nd - 2: -1, nd - 1: -1})


def _meta(x, ndim, dtype):
    return get(_NAME).chunk_like(np.empty((0,) * ndim, dtype), x._meta)


def _result(src, func, args, tail, dtype, **kw):
    """``map_blocks(func, *args)`` with the stack chunks of ``src`` (whole matrices)
    and the last axes ``tail``."""
    nd = src.ndim
    out_nd = nd - 2 + len(tail)
    chunks = src.chunks[:-2] + tuple((n,) for n in tail)
    drop = {} if len(tail) == 2 else {"drop_axis": tuple(range(out_nd, nd))}
    return get(_NAME).load().map_blocks(func, *args, chunks=chunks, dtype=dtype,
                                        meta=_meta(src, out_nd, dtype), **drop, **kw)


def _per_matrix(name: str, x, tail, dtype, rtol=None, **kw):
    """``linalg.<name>`` of every matrix of ``x``; the result's last axes are ``tail``
    (none, one or two). ``rtol``: a dask array of tolerances broadcast to the stack."""
    x = _whole(x)
    args = [x]
    if rtol is not None:
        ns = _ns()
        r = ns.reshape(ns.broadcast_to(rtol, x.shape[:-2]), x.shape[:-2] + (1, 1))
        args.append(r.rechunk(x.chunks[:-2] + ((1,), (1,))))
    return _result(x, _block, args, tail, dtype, op=name, kw=kw)


def _per_matrix_tuple(name: str, x, fields, **kw):
    """``linalg.<name>`` (a tuple) of every matrix, computed once per block; ``fields``:
    ``(tail, dtype)`` of each element of the tuple."""
    x = _whole(x)
    packed = x.map_blocks(_block, op=name, kw=kw, dtype=object,
                          meta=np.empty((0,) * x.ndim, dtype=object))
    out = []
    for i, (tail, dt) in enumerate(fields):
        pad = 2 - len(tail)
        f = _result(x, _field, [packed], tuple(tail) + (1,) * pad, dt, i=i, pad=pad)
        out.append(f[(Ellipsis,) + (0,) * pad] if pad else f)
    return tuple(out)


# ----------------------------------------------------------------------------- one array
def svdvals(x, /):
    """``linalg.svdvals``: ``(..., min(M, N))`` singular values, descending, real.

    Raises
    ------
    ValueError
        ``x`` has fewer than two dimensions.
    """
    _check("svdvals", x, False)
    if _tall_or_wide(x):
        return _ns().linalg.svd(x, full_matrices=False)[1]
    return _per_matrix("svdvals", x, (builtins.min(x.shape[-2:]),), _real_float(x.dtype))


def matrix_rank(x, /, *, rtol=None):
    """``linalg.matrix_rank``: int64 ``(...)``, the singular values above ``rtol`` times
    the largest (``rtol`` a float or an array broadcasting to ``(...)``)."""
    _check("matrix_rank", x, False)   # named as matrix_rank, not svdvals
    check_rtol("matrix_rank", rtol)
    ns = _ns()
    s = svdvals(x)
    if 0 in s.shape:   # no singular value, or a stack of no matrix (dask's max of an
        # empty stack raised "zero-size array to reduction operation maximum" when
        # computed)
        return ns.zeros(s.shape[:-1], dtype=np.int64, chunks=s.chunks[:-1])
    if rtol is None:
        rtol = builtins.max(x.shape[-2:]) * np.finfo(s.dtype).eps
    elif get(_NAME).owns(rtol):
        rtol = ns.expand_dims(rtol, axis=-1)
    # xstride's max: dask's of a block of no matrix (a stack a boolean mask left none
    # of) raised "zero-size array to reduction operation maximum" when computed
    tol = implementation(_NAME, "max")(s, axis=-1, keepdims=True) * rtol
    return ns.astype(ns.count_nonzero(s > tol, axis=-1), np.int64)


def cholesky(x, /, *, upper=False):
    """``linalg.cholesky`` of ``(..., M, M)``.

    Raises
    ------
    ValueError
        ``x`` is not a stack of square matrices.
    """
    check_linalg_args("cholesky", upper)
    _check("cholesky", x, True)
    return _per_matrix("cholesky", x, x.shape[-2:], _float(x.dtype), upper=bool(upper))


def _of_square(name: str, tail, dtype_of, returns: str):
    """``linalg.<name>`` of a stack of square matrices ``(..., M, M)``, per matrix;
    ``tail(M)`` is the shape each matrix gives, ``dtype_of`` the result dtype's rule."""
    def fn(x, /):
        _check(name, x, True)
        return _per_matrix(name, x, tail(x.shape[-1]), dtype_of(x.dtype))
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"``linalg.{name}`` of ``(..., M, M)``: {returns}.\n\n    Raises\n    ------\n"
                  "    ValueError\n        ``x`` is not a stack of square matrices.\n    ")
    return fn


inv = _of_square("inv", lambda m: (m, m), _float, "``(..., M, M)``")
det = _of_square("det", lambda m: (), _float, "shape ``(...)``")
eigvalsh = _of_square("eigvalsh", lambda m: (m,), _real_float, "``(..., M)``, real, ascending")
eigvals = _of_square("eigvals", lambda m: (m,), _complex, "``(..., M)``, complex")


def matrix_power(x, n, /):
    """``linalg.matrix_power`` of ``(..., M, M)`` and an int ``n`` (negative: of the
    inverse).

    Raises
    ------
    TypeError
        ``n`` is not an int (``operator.index``), or ``n`` is negative and ``x`` is
        float16 (NumPy's ``inv`` refuses it).
    ValueError
        ``x`` is not a stack of square matrices.
    """
    _check("matrix_power", x, True, lapack=False)
    refuse_masked_power("dask", x)   # products of masked chunks: masked_products.py
    check_linalg_args("matrix_power", n)   # a bool too (operator.index takes True)
    try:   # NumPy's rule (operator.index), checked at the call: dask's task raised
        n = operator.index(n)   # NumPy's unnamed "exponent must be an integer" when computed
    except TypeError:
        raise type_error("matrix_power", "n", n, "an int (the exponent)") from None
    if n < 0:   # NumPy's inverts first: LAPACK's dtypes (a float16 task raised when computed)
        _lapack_dtype("matrix_power", "x", x)
    return _per_matrix("matrix_power", x, x.shape[-2:],
                       x.dtype if n >= 0 else _float(x.dtype), n=n)


def pinv(x, /, *, rtol=None):
    """``linalg.pinv`` of ``(..., M, N)``: ``(..., N, M)``; ``rtol`` a float or an
    array broadcasting to ``(...)``.

    Raises
    ------
    ValueError
        ``x`` has fewer than two dimensions.
    """
    _check("pinv", x, False)
    check_rtol("pinv", rtol)
    if x.dtype.kind in "biu":   # NumPy's pinv of integers, bools: float64 (compat's raised)
        x = _ns().astype(x, np.float64)
    tail = (x.shape[-1], x.shape[-2])
    if get(_NAME).owns(rtol):
        return _per_matrix("pinv", x, tail, _float(x.dtype), rtol=rtol)
    return _per_matrix("pinv", x, tail, _float(x.dtype),
                       **({} if rtol is None else {"rtol": rtol}))


# ----------------------------------------------------------------------------- tuples
def eigh(x, /):
    """``linalg.eigh`` of ``(..., M, M)``: ``(eigenvalues (..., M) real, eigenvectors
    (..., M, M))``.

    Raises
    ------
    ValueError
        ``x`` is not a stack of square matrices.
    """
    _check("eigh", x, True)
    m = x.shape[-1]
    w, v = _per_matrix_tuple("eigh", x, (((m,), _real_float(x.dtype)),
                                         ((m, m), _float(x.dtype))))
    return _ns().linalg.EighResult(w, v)


def eig(x, /):
    """``linalg.eig`` of ``(..., M, M)``: complex ``(eigenvalues (..., M), eigenvectors
    (..., M, M))``.

    Raises
    ------
    ValueError
        ``x`` is not a stack of square matrices.
    """
    _check("eig", x, True)
    m, ct = x.shape[-1], _complex(x.dtype)
    w, v = _per_matrix_tuple("eig", x, (((m,), ct), ((m, m), ct)))
    return EigResult(w, v)


def slogdet(x, /):
    """``linalg.slogdet`` of ``(..., M, M)``: ``(sign (...), logabsdet (...) real)``.

    Raises
    ------
    ValueError
        ``x`` is not a stack of square matrices.
    """
    _check("slogdet", x, True)
    sign, logabs = _per_matrix_tuple("slogdet", x, (((), _float(x.dtype)),
                                                    ((), _real_float(x.dtype))))
    return _ns().linalg.SlogdetResult(sign, logabs)


def qr(x, /, *, mode="reduced"):
    """``linalg.qr`` of ``(..., M, N)``: ``Q (..., M, K)``, ``R (..., K, N)`` with ``K =
    min(M, N)`` (``mode="reduced"``) or ``K = M`` (``"complete"``).

    Raises
    ------
    ValueError
        ``x`` has fewer than two dimensions; ``mode`` is neither.
    """
    _check("qr", x, False)
    if mode not in ("reduced", "complete"):
        raise value_error("qr", "mode", f"is {mode!r}; expected 'reduced' or 'complete'")
    if mode == "reduced" and _tall_or_wide(x):
        ns = _ns()
        q, r = ns.linalg.qr(x)
        if x.dtype.kind == "c" and len(x.chunks[1]) > 1:   # short-and-fat: dask's R of the
            # columns after the first block is Q.T @ A, where it is Q^H @ A (Q @ R != x)
            c0 = x.chunks[1][0]
            rest = ns.matmul(ns.matrix_transpose(ns.conj(q)), x[:, c0:])
            r = ns.concatenate([r[:, :c0], rest], axis=1)
        return ns.linalg.QRResult(q, r)
    m, n = x.shape[-2:]
    k = builtins.min(m, n) if mode == "reduced" else m
    dt = _float(x.dtype)
    q, r = _per_matrix_tuple("qr", x, (((m, k), dt), ((k, n), dt)), mode=mode)
    return _ns().linalg.QRResult(q, r)


def svd(x, /, *, full_matrices=True):
    """``linalg.svd`` of ``(..., M, N)``: ``U``, ``S (..., K)``, ``Vh`` with ``K =
    min(M, N)``; ``U (..., M, M)``, ``Vh (..., N, N)`` when ``full_matrices`` (the
    standard's default), else ``(..., M, K)``, ``(..., K, N)``.

    Raises
    ------
    ValueError
        ``x`` has fewer than two dimensions.
    """
    check_linalg_args("svd", full_matrices)
    _check("svd", x, False)
    if not full_matrices and _tall_or_wide(x):   # compat's: dask's plain tuple (no .U)
        return _ns().linalg.SVDResult(*_ns().linalg.svd(x, full_matrices=False))
    m, n = x.shape[-2:]
    k = builtins.min(m, n)
    dt = _float(x.dtype)
    shapes = ((m, m), (n, n)) if full_matrices else ((m, k), (k, n))
    u, s, vh = _per_matrix_tuple("svd", x, ((shapes[0], dt), ((k,), _real_float(dt)),
                                            (shapes[1], dt)),
                                 full_matrices=bool(full_matrices))
    return _ns().linalg.SVDResult(u, s, vh)


# ----------------------------------------------------------------------------- two operands
def _all_known(func: str, x1, x2) -> None:
    """Every length of ``x1`` and ``x2`` known to dask (not after boolean indexing): the
    operands are broadcast against each other."""
    for name, x in (("x1", x1), ("x2", x2)):
        if any(n != n for n in x.shape):
            raise value_error(func, name, f"has shape {x.shape}, with lengths dask does "
                                          "not know (as after boolean indexing), which "
                                          f"{func} needs; call {name}.compute_chunk_sizes() "
                                          "first")


def solve(x1, x2, /):
    """``linalg.solve``: ``x1 (..., M, M)``, ``x2 (..., M, K)`` or a vector ``(M,)``;
    the stacks broadcast, the result is ``(..., M, K)`` (``(..., M)`` for a vector).

    Raises
    ------
    ValueError
        ``x1`` not a stack of square matrices; ``x2`` 0-D or of another ``M``; stacks
        that do not broadcast.
    """
    _check("solve", x1, True, arg="x1")
    _lapack_dtype("solve", "x2", x2)
    _all_known("solve", x1, x2)   # the stacks are broadcast: every length needed
    stack = check_solve(x1, x2)
    m = x1.shape[-1]
    vector = x2.ndim == 1
    ns = _ns()
    b = ns.reshape(x2, (m, 1)) if vector else x2
    a = _whole(ns.broadcast_to(x1, stack + (m, m)))
    b = ns.broadcast_to(b, stack + b.shape[-2:]).rechunk(a.chunks[:-2] + (-1, -1))
    dt = np.result_type(_float(x1.dtype), _float(x2.dtype))
    out = _result(a, _solve_block, [a, b], (m, b.shape[-1]), dt)
    return out[..., 0] if vector else out


# ----------------------------------------------------------------------------- vectors
def cross(x1, x2, /, *, axis=-1):
    """``linalg.cross`` of two dask arrays broadcasting to one shape whose ``axis`` has
    length 3: the components by dask's elementwise products (``a1 b2 - a2 b1``, ...) in
    the promoted dtype (integers wrap as NumPy's ``cross``), nothing gathered.

    Raises
    ------
    ValueError
        Shapes that do not broadcast; ``axis`` out of range; an operand not of length
        3 along it (``linalg_fixes.check_cross``); a length dask does not know (after
        boolean indexing: "'float' object cannot be interpreted as an integer" before).
    """
    ns = _ns()
    _all_known("cross", x1, x2)   # (NumPy's broadcast_shapes raised an unnamed TypeError)
    shape, ax = check_cross(x1, x2, axis)
    nd = len(shape)
    dt = np.result_type(x1.dtype, x2.dtype)
    a = ns.astype(ns.broadcast_to(x1, shape), dt)
    b = ns.astype(ns.broadcast_to(x2, shape), dt)
    pick = [tuple(slice(None) if d != ax else i for d in range(nd)) for i in range(3)]
    a0, a1, a2 = (a[k] for k in pick)
    b0, b1, b2 = (b[k] for k in pick)
    return ns.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], axis=ax)


def trace(x, /, *, offset=0, dtype=None):
    """dask's ``trace``; matrix axes of lengths dask does not know (after boolean
    indexing) are the error saying to compute them (dask's: "not enough values to
    unpack (expected 1, got 0)")."""
    check_linalg_args("trace", offset)
    _check("trace", x, square=False, lapack=False)
    return _ns().linalg.trace(x, offset=offset, dtype=dtype)


def diagonal(x, /, *, offset=0):
    """dask's ``diagonal``; matrix axes of unknown lengths as for :func:`trace`."""
    check_linalg_args("diagonal", offset)
    _check("diagonal", x, square=False, lapack=False)
    return _ns().linalg.diagonal(x, offset=offset)


for _fn in (svdvals, matrix_rank, cholesky, inv, det, slogdet, eigh, eigvalsh, eig, eigvals,
            matrix_power, pinv, qr, svd, solve, cross, trace, diagonal):
    register(f"linalg.{_fn.__name__}", _NAME)(_fn)
del _fn
