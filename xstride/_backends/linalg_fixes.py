"""``linalg`` on CuPy where ``array_api_compat.cupy`` differs from the standard.

- ``eig`` returns a named tuple ``EigResult(eigenvalues, eigenvectors)`` of complex
  dtype, and ``eigvals`` a complex array, also for real input whose eigenvalues
  happen to be real (CuPy returns a plain tuple and a real array then).
- ``solve`` takes ``x2`` of shape ``(M,)`` (a vector) or ``(..., M, K)`` with batch
  dimensions broadcast against ``x1``'s, empty matrices included.

Registered for CuPy only: NumPy (through array_api_compat) follows the standard here.

On NumPy and dask, the standard's shapes of the vector products: ``cross`` takes
vectors of length 3 only along ``axis`` in both operands (NumPy's also crossed vectors
of length 2, returning a 0-D array or a 3-vector; "Linear Algebra Functions",
``cross``: "must have a size of 3"), and ``outer`` 1-D vectors only (both libraries
flattened anything else; "outer": "x1: first one-dimensional input array").

On NumPy and dask, ``solve``'s shapes (``check_solve``: NumPy's errors named no
argument). On NumPy (not yet registered for CuPy: not run on a device): ``rtol`` of
``matrix_rank`` and ``pinv`` is None, a real number or an array of them (``check_rtol``;
a string raised NumPy's unnamed ufunc error), ``matrix_rank`` of
empty matrices is 0 (NumPy's reduced an empty
array of singular values and raised), and ``qr`` names a ``mode`` other than
``"reduced"`` and ``"complete"`` (compat's failed building its result from NumPy's
``mode="r"`` output), and ``pinv`` of integers and bools is float64, as NumPy's (compat's
default ``rtol`` called ``finfo`` of the integer dtype: "data type int64 not inexact").

On NumPy and dask, ``tensordot``'s ``axes`` are checked first (``check_tensordot``):
NumPy took ``axes=-1`` and ``True``, and raised a bare "tuple index out of range" for a
count past the ranks; dask said "('Chunks do not add up to same value', ...)" for
contracted lengths that differ, broadcast a length 1 against any other silently, and
raised an ``AttributeError`` for an axis named twice. The standard: a non-negative int,
two sequences of the same length, contracted axes "must not be broadcasted".
``vector_norm``'s ``axis``, ``keepdims`` and ``ord`` too (``check_vector_norm``), and
``matrix_norm``'s ``x``, ``keepdims`` and ``ord`` (``check_matrix_norm``: ``ord=True``
was the norm of ord 1, ``keepdims=1`` taken as true, a vector NumPy's "axis -2 is out of
bounds"), and
the flags and ints of ``svd`` (``full_matrices``), ``cholesky`` (``upper``),
``matrix_power`` (``n``), ``trace`` and ``diagonal`` (``offset``) (``check_linalg_args``):
both libraries took any truthy ``full_matrices``/``upper`` (``"no"`` as true) and
``True`` as an ``n`` or ``offset`` of 1, and NumPy's ``trace(x, offset=1.0)`` said
"integer argument expected, got float", naming no argument; NumPy's ``trace`` and
``diagonal`` of fewer than two dimensions said "diag requires an array of at least two
dimensions" (``check_matrices``: the dask backend's ``LinAlgError`` naming ``x``).
"""

from __future__ import annotations

import operator
from typing import NamedTuple

import numpy as np

from . import select as _backend
from .arg_checks import check_flag
from .dispatch import register
from .lapack_dtype import check_lapack_dtype
from .linalg_shapes import not_matrices_error, not_square_error
from .masked_norms import masked_matrix_norm, masked_vector_norm
from .masked_products import masked_cross, masked_outer, refuse_masked, refuse_masked_power
from .._core.errors import axis_error, broadcast_error, type_error, value_error
from .._core.intseq import is_index

__all__ = ["EigResult", "eig", "eigvals", "solve", "check_cross", "check_outer",
           "check_tensordot", "check_vector_norm", "check_matrix_norm",
           "check_linalg_args", "check_rtol", "check_solve", "check_matrices"]


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


def check_rtol(func: str, rtol) -> None:
    """``rtol`` of ``matrix_rank`` and ``pinv``: None, a real number or an array of real
    numbers (a string: dask's raised unnamed "Only length-1 arrays can be converted" or
    a ufunc's type error when computed, NumPy's "ufunc 'multiply' did not contain a loop
    with signature matching types" at the call)."""
    dt = getattr(rtol, "dtype", None)
    if rtol is None or (dt is not None and np.dtype(dt).kind in "biuf") or (
            dt is None and isinstance(rtol, (int, float)) and not isinstance(rtol, bool)):
        return
    raise type_error(func, "rtol", rtol, "None, a real number or an array of real numbers")


def check_solve(x1, x2) -> tuple[int, ...]:
    """``solve``'s shapes: ``x1`` a stack of square matrices ``(..., M, M)``, ``x2`` a
    vector ``(M,)`` or a stack ``(..., M, K)`` whose stack broadcasts against ``x1``'s.
    Returns the broadcast stack shape. NumPy's errors named no argument ("Input operand
    1 has a mismatch in its core dimension 0, with gufunc signature ...", "1-dimensional
    array given", "operands could not be broadcast together with remapped shapes").

    Raises
    ------
    numpy.linalg.LinAlgError
        ``x1`` not a stack of square matrices (NumPy's class, a ``ValueError``).
    ValueError
        ``x2`` 0-D or of another ``M``; stacks that do not broadcast.
    """
    s1, s2 = np.shape(x1), np.shape(x2)   # (np.shape: nested lists, as NumPy's take)
    if len(s1) < 2:
        raise not_matrices_error("solve", "x1", s1)
    if s1[-1] != s1[-2]:
        raise not_square_error("solve", "x1", s1)
    if not s2:
        raise value_error("solve", "x2", "is 0-D; expected a vector (M,) or a stack of "
                                         "matrices (..., M, K)")
    m = s1[-1]
    vector = len(s2) == 1
    if s2[0 if vector else -2] != m:
        raise value_error("solve", "x2", f"has shape {s2}; expected {m} rows, as x1 {s1}")
    try:
        return np.broadcast_shapes(s1[:-2], () if vector else s2[:-2])
    except ValueError:
        raise broadcast_error("solve", (s1, s2)) from None


def _solve_of(backend: str):
    def solve(x1, x2, /):
        """``linalg.solve`` of the standard: the shapes checked first (``check_solve``)."""
        check_solve(x1, x2)
        return _backend.namespace(backend).linalg.solve(x1, x2)
    return solve


def _matrix_rank_of(backend: str):
    def matrix_rank(x, /, *, rtol=None):
        """``matrix_rank`` of the standard; 0 for matrices with no rows or no columns
        (not of float16, which NumPy's linalg refuses, empty or not)."""
        check_rtol("matrix_rank", rtol)
        check_lapack_dtype("matrix_rank", "x", x)
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


def check_cross(x1, x2, axis) -> tuple[tuple[int, ...], int]:
    """The broadcast shape of ``cross``'s operands and its non-negative ``axis``.

    Raises
    ------
    TypeError
        Both operands bool (the standard: numeric); ``axis`` not an int (a float, a
        bool, None: was a ``ValueError`` saying it was out of range).
    numpy.exceptions.AxisError
        ``axis`` out of range (a ``ValueError`` and an ``IndexError``, as NumPy's): of
        the broadcast shape, or of an operand of fewer dimensions; or non-negative with
        operands of different ranks (the standard's axis counts from the last, in
        ``[-min(x1.ndim, x2.ndim), -1]``; NumPy's counted it in each operand, dask's in
        the broadcast shape: two answers).
    ValueError
        Shapes that do not broadcast; an operand whose length along ``axis`` is not 3.
    """
    # two bools: NumPy raised its bool-subtract error, dask a bare one for '-'
    if x1.dtype == bool and x2.dtype == bool:
        raise type_error("cross", "x1", x1, "a numeric array (x1 and x2 are both bool, "
                                            "which have no subtraction)")
    try:
        shape = np.broadcast_shapes(x1.shape, x2.shape)
    except ValueError:
        raise broadcast_error("cross", (x1.shape, x2.shape)) from None
    nd = len(shape)
    if not is_index(axis):   # an int, a NumPy integer or a 0-D integer array, as NumPy's
        raise type_error("cross", "axis", axis, "an int naming an axis")
    axis = operator.index(axis)
    if not -nd <= axis < nd:   # NumPy's cross: AxisError, its linalg.cross IndexError
        raise axis_error("cross", "axis", f"is {axis!r}, out of range for the broadcast "
                                          f"shape {shape}")
    ax = axis % nd
    low = min(x1.ndim, x2.ndim)
    both = f"[-{low}, -1]"
    if axis >= 0 and low and x1.ndim != x2.ndim:   # NumPy counts it in each operand (x1's
        # axis 0 of (3, 3) beside (3, 3, 3)), dask's from the broadcast shape's first
        raise axis_error("cross", "axis", f"is {axis}, counted from the first axis of "
                                          f"operands of different ranks (x1 of shape "
                                          f"{tuple(x1.shape)}, x2 of shape "
                                          f"{tuple(x2.shape)}), where it names a different "
                                          "axis in each; give the axis counted from the "
                                          f"last: {'-1' if low == 1 else 'one of ' + both} "
                                          "(the standard's)")
    for name, x in (("x1", x1), ("x2", x2)):
        if ax < nd - x.ndim:   # an axis broadcasting added to x: the standard's is of both
            raise axis_error("cross", "axis", f"is {axis!r}, out of range for the operands: "
                                              f"{name} of shape {tuple(x.shape)} has no such "
                                              "axis (" + (f"an axis of both lies in {both}"
                                                          if low else "a 0-D operand has "
                                                          "no axis") + ")")
    for name, x in (("x1", x1), ("x2", x2)):
        length = x.shape[ax - (nd - x.ndim)]
        if length != 3:
            raise value_error("cross", "axis", f"is {axis}, whose length in {name} of shape "
                                               f"{x.shape} is {length}, not 3")
    return shape, ax


def check_outer(x1, x2) -> None:
    """``outer``'s operands: 1-D vectors."""
    for name, x in (("x1", x1), ("x2", x2)):
        if x.ndim != 1:
            raise value_error("outer", name, f"has shape {tuple(x.shape)}; outer takes "
                                                    "one-dimensional vectors")


def _pinv_of(backend: str):
    def pinv(x, /, *, rtol=None):
        """``pinv`` of the standard; integer and bool matrices as float64 (NumPy's ``pinv``;
        compat's default ``rtol`` asked ``finfo`` of the integer dtype and raised)."""
        check_rtol("pinv", rtol)
        check_lapack_dtype("pinv", "x", x)   # NumPy's took an empty float16 matrix only
        ns = _backend.namespace(backend)
        if x.dtype.kind in "biu":
            x = ns.astype(x, ns.float64)
        return ns.linalg.pinv(x, rtol=rtol)
    return pinv


def check_tensordot(x1, x2, axes):
    """``tensordot``'s ``axes``: a non-negative int no larger than either rank, or two
    sequences of as many distinct axes in range; the contracted lengths equal.

    Returns ``axes`` with the axes of two sequences made non-negative (an int as it is):
    dask's ``tensordot`` contracted the wrong axes for two or more negative ones
    (``axes=([-2, -1], [0, 1])`` of a ``(2, 3, 4)`` and a ``(3, 4)`` array gave shape
    ``(1,)``).

    Raises
    ------
    TypeError
        ``axes`` a bool, a float, or not two sequences of ints.
    numpy.exceptions.AxisError
        An axis out of range (a ``ValueError`` and an ``IndexError``: NumPy's
        ``tensordot`` raised a bare ``IndexError``).
    ValueError
        A negative count or one past a rank; sequences of different lengths; an axis
        named twice; contracted lengths that differ (the standard: "must not be
        broadcasted").
    """
    def ints(v, what):
        items = tuple(v) if isinstance(v, (tuple, list)) else (v,)
        if any(isinstance(i, bool) for i in items):
            raise type_error("tensordot", "axes", axes, what)
        try:
            return tuple(operator.index(i) for i in items)
        except TypeError:
            raise type_error("tensordot", "axes", axes, what) from None

    if isinstance(axes, (tuple, list)):
        if len(axes) != 2:
            raise type_error("tensordot", "axes", axes, "an int or two sequences of axes")
        pairs = [ints(a, "an int or two sequences of ints") for a in axes]
        if len(pairs[0]) != len(pairs[1]):
            raise value_error("tensordot", "axes", f"is {axes!r}: the two sequences must "
                                                   "have the same length")
        for name, x, seq in (("x1", x1, pairs[0]), ("x2", x2, pairs[1])):
            for a in seq:
                if not -x.ndim <= a < x.ndim:   # NumPy's IndexError; AxisError is one
                    raise axis_error("tensordot", "axes", f"is {axes!r}: the axis {a} is "
                                                          f"out of range for {name} of "
                                                          f"{x.ndim} dimensions")
            if len({a % x.ndim for a in seq}) < len(seq):
                raise value_error("tensordot", "axes", f"is {axes!r}: an axis of {name} is "
                                                       "named twice")
        first = [a % x1.ndim for a in pairs[0]]
        second = [a % x2.ndim for a in pairs[1]]
        normalized = (tuple(first), tuple(second))
    else:
        (n,) = ints(axes, "an int or two sequences of ints")
        if n < 0 or n > min(x1.ndim, x2.ndim):
            raise value_error("tensordot", "axes", f"is {n}; expected a count of axes from "
                                                   f"0 to {min(x1.ndim, x2.ndim)} (the "
                                                   "smaller rank of x1 and x2)")
        first, second = list(range(x1.ndim - n, x1.ndim)), list(range(n))
        normalized = axes
    for a, b in zip(first, second):
        m, k = x1.shape[a], x2.shape[b]
        if m == m and k == k and m != k:   # NaN: a length dask does not know
            raise value_error("tensordot", "axes", f"contracts axis {a} of x1 {x1.shape} "
                                                   f"(length {m}) with axis {b} of x2 "
                                                   f"{x2.shape} (length {k}); contracted "
                                                   "lengths must be equal (not broadcast)")
    return normalized


def check_vector_norm(axis, ord, keepdims=False) -> None:
    """``vector_norm``'s ``axis`` (None, an int or a tuple of ints: NumPy refused a list,
    dask took a list of two as a matrix norm, "SVD based norm not implemented"; NumPy
    took ``1.0``, ``True`` and ``"1"`` as axis 1, dask ``1.0`` and ``True``), ``keepdims``
    (a bool: ``"yes"`` was taken as true) and ``ord`` (a real number or +-inf, not a
    bool: ``ord=True`` was the norm of ord 1; dask raised a ``TypeError`` from ``**``
    for a string, and took a complex ``ord``, returning a complex norm)."""
    if isinstance(axis, list) or (axis is not None and not all(
            is_index(a) for a in (axis if isinstance(axis, tuple) else (axis,)))):
        raise type_error("vector_norm", "axis", axis, "None, an int or a tuple of ints")
    check_flag("vector_norm", "keepdims", keepdims)
    if isinstance(ord, (bool, np.bool_)):
        raise type_error("vector_norm", "ord", ord, "a real number (an int, a float, inf or "
                                                    "-inf), not a bool")
    if ord is not None and (isinstance(ord, (str, bytes)) or not isinstance(
            ord, (int, float, np.integer, np.floating))):
        raise value_error("vector_norm", "ord", f"is {ord!r}; expected a real number "
                                                "(an int, a float, inf or -inf)")


def _vector_norm_of(backend: str):
    def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):
        """``vector_norm`` of the standard: ``axis`` and ``ord`` checked first. The
        masked elements of a ``numpy.ma`` array are left out (masked_norms.py)."""
        check_vector_norm(axis, ord, keepdims)
        got = masked_vector_norm(backend, x, axis, bool(keepdims), ord)
        if got is not None:
            return got
        return _backend.namespace(backend).linalg.vector_norm(x, axis=axis,
                                                              keepdims=bool(keepdims), ord=ord)
    return vector_norm


def check_matrices(func: str, x) -> None:
    """``x`` a stack of matrices (at least 2 dimensions): NumPy's ``LinAlgError`` (a
    ``ValueError``) naming ``x``, as the dask backend's (``np.ndim``: a nested list,
    which NumPy's functions take, has no ``.ndim``)."""
    if np.ndim(x) < 2:
        raise not_matrices_error(func, "x", np.shape(x))


#: ``matrix_norm``'s orders (None: NumPy's ``"fro"``)
_MATRIX_ORDS = ("fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf)


def check_matrix_norm(x, ord, keepdims):
    """``matrix_norm``'s ``x`` (a stack of matrices: NumPy's said "axis -2 is out of
    bounds" for a vector), ``keepdims`` (a bool: ``1`` and ``"no"`` were taken as true)
    and ``ord`` (one of the standard's: ``True`` was the norm of ord 1; another value
    NumPy's "Invalid norm order for matrices.", naming no argument).

    Returns ``ord``, a NumPy number as a Python one (dask's took ``np.int64(2)`` for its
    own spectral norm: "SVD based norm not implemented for ndim > 2")."""
    check_flag("matrix_norm", "keepdims", keepdims)
    if isinstance(ord, (bool, np.bool_)):
        raise type_error("matrix_norm", "ord", ord, "'fro', 'nuc', 1, -1, 2, -2, inf or "
                                                    "-inf, not a bool")
    if ord is not None and not (
            (isinstance(ord, str) and ord in ("fro", "nuc"))
            or (isinstance(ord, (int, float, np.integer, np.floating))
                and ord in _MATRIX_ORDS[2:])):
        raise value_error("matrix_norm", "ord", f"is {ord!r}; expected 'fro', 'nuc', 1, -1, "
                                                "2, -2, inf or -inf")
    check_matrices("matrix_norm", x)
    return ord.item() if isinstance(ord, (np.integer, np.floating)) else ord


def _matrix_norm_of(backend: str):
    def matrix_norm(x, /, *, keepdims=False, ord="fro"):
        """``matrix_norm`` of the standard: ``x``, ``keepdims`` and ``ord`` checked first.
        The masked elements of a ``numpy.ma`` array are left out (``ord`` 'fro', 1,
        -1, inf, -inf); of 2, -2 and 'nuc' one is a ``TypeError`` (masked_norms.py)."""
        ord = check_matrix_norm(x, ord, keepdims)
        got = masked_matrix_norm(backend, x, bool(keepdims), ord)
        if got is not None:
            return got
        return _backend.namespace(backend).linalg.matrix_norm(x, keepdims=bool(keepdims),
                                                              ord=ord)
    return matrix_norm


#: the flags (a bool) and ints (no bool) of the linalg functions, by function
_FLAGS = {"svd": "full_matrices", "cholesky": "upper"}
_INTS = {"matrix_power": ("n", "an int (the exponent)"),
         "trace": ("offset", "an int (the diagonal's offset)"),
         "diagonal": ("offset", "an int (the diagonal's offset)")}


def check_linalg_args(func: str, value) -> None:
    """The flag or int argument of ``linalg.<func>`` (``_FLAGS``, ``_INTS``): a bool for a
    flag (NumPy's and dask's took any truthy value), an int that is no bool for an int
    (``True`` was 1; a float NumPy's unnamed "integer argument expected")."""
    if func in _FLAGS:
        check_flag(func, _FLAGS[func], value)
    elif func in _INTS and not is_index(value):
        raise type_error(func, _INTS[func][0], value, _INTS[func][1])


def _svd_of(backend: str):
    def svd(x, /, *, full_matrices=True):
        """``linalg.svd`` of the standard; ``full_matrices`` a bool, checked first."""
        check_linalg_args("svd", full_matrices)
        return _backend.namespace(backend).linalg.svd(x, full_matrices=full_matrices)
    return svd


def _cholesky_of(backend: str):
    def cholesky(x, /, *, upper=False):
        """``linalg.cholesky`` of the standard; ``upper`` a bool, checked first."""
        check_linalg_args("cholesky", upper)
        return _backend.namespace(backend).linalg.cholesky(x, upper=upper)
    return cholesky


def _matrix_power_of(backend: str):
    def matrix_power(x, n, /):
        """``linalg.matrix_power`` of the standard; ``n`` an int, checked first; a
        masked ``x`` refused (``masked_products.py``)."""
        check_linalg_args("matrix_power", n)
        if backend == "numpy":
            refuse_masked_power("numpy", x)
        return _backend.namespace(backend).linalg.matrix_power(x, n)
    return matrix_power


def _within_reach(x, offset):
    """``offset`` of ``trace``/``diagonal`` clamped to ``[-rows, cols]`` of ``x``'s
    matrices: past either end the diagonal has no element, whatever the offset (NumPy's
    C long refused ``2**70`` with an unnamed ``OverflowError`` where dask's gave the
    empty diagonal). Lengths dask does not know leave it as it is."""
    rows, cols = x.shape[-2], x.shape[-1]
    if rows != rows or cols != cols:
        return offset
    return max(-int(rows), min(int(offset), int(cols)))


def _trace_of(backend: str):
    def trace(x, /, *, offset=0, dtype=None):
        """``linalg.trace`` of the standard; ``offset`` an int, checked first."""
        check_linalg_args("trace", offset)
        check_matrices("trace", x)   # NumPy's: "diag requires an array of at least two ..."
        return _backend.namespace(backend).linalg.trace(x, offset=_within_reach(x, offset),
                                                        dtype=dtype)
    return trace


def _diagonal_of(backend: str):
    def diagonal(x, /, *, offset=0):
        """``linalg.diagonal`` of the standard; ``offset`` an int, checked first."""
        check_linalg_args("diagonal", offset)
        check_matrices("diagonal", x)
        return _backend.namespace(backend).linalg.diagonal(x, offset=_within_reach(x, offset))
    return diagonal


def _tensordot_of(backend: str):
    def tensordot(x1, x2, /, *, axes=2):
        """``tensordot`` of the standard: ``axes`` checked first (``check_tensordot``)."""
        check_tensordot(x1, x2, axes)
        refuse_masked("tensordot", backend, x1, x2)   # NumPy's read the masked data
        return _backend.namespace(backend).tensordot(x1, x2, axes=axes)
    return tensordot


def _cross_of(backend: str):
    def cross(x1, x2, /, *, axis=-1):
        """``cross`` of the standard: vectors of length 3 along ``axis``, checked first."""
        shape, ax = check_cross(x1, x2, axis)
        got = masked_cross(x1, x2, shape, ax)   # masks kept (NumPy's dropped them)
        return _backend.namespace(backend).linalg.cross(x1, x2, axis=axis) if got is None else got
    return cross


def _outer_of(backend: str):
    def outer(x1, x2, /):
        """``outer`` of the standard: two 1-D vectors, checked first."""
        check_outer(x1, x2)
        got = masked_outer(backend, x1, x2)   # masks kept (NumPy's dropped them)
        return _backend.namespace(backend).linalg.outer(x1, x2) if got is None else got
    return outer


def _det(x, /):
    """``linalg.det`` of the standard (NumPy's own)."""
    return np.linalg.det(x)


def _inv(x, /):
    """``linalg.inv`` of the standard (NumPy's own)."""
    return np.linalg.inv(x)


def _eigvalsh(x, /, **kwargs):
    """``linalg.eigvalsh`` of the standard (NumPy's own; its ``UPLO`` by keyword)."""
    return np.linalg.eigvalsh(x, **kwargs)


for _fn in (eig, eigvals, solve):
    register(f"linalg.{_fn.__name__}", "cupy")(_fn)
# NumPy's det, inv and eigvalsh name their array ``a``: the namespace's signature, and its
# messages (a list given on dask: "argument 'a'"), were NumPy's. The standard's ``x``
# here; a call without keywords still goes straight to NumPy's function.
for _name, _fn in (("det", _det), ("inv", _inv), ("eigvalsh", _eigvalsh)):
    _fn.__name__ = _fn.__qualname__ = _name
    register(f"linalg.{_name}", "numpy", positional=getattr(np.linalg, _name))(_fn)
register("linalg.matrix_rank", "numpy")(_matrix_rank_of("numpy"))
register("linalg.solve", "numpy")(_solve_of("numpy"))
register("linalg.qr", "numpy")(_qr_of("numpy"))
register("linalg.pinv", "numpy")(_pinv_of("numpy"))
for _q in ("tensordot", "linalg.tensordot"):
    register(_q, "numpy")(_tensordot_of("numpy"))
register("linalg.cross", "numpy")(_cross_of("numpy"))
register("linalg.vector_norm", "numpy")(_vector_norm_of("numpy"))
register("linalg.matrix_norm", "numpy")(_matrix_norm_of("numpy"))
for _make in (_svd_of, _cholesky_of, _matrix_power_of, _trace_of, _diagonal_of):
    _fn = _make("numpy")
    register(f"linalg.{_fn.__name__}", "numpy")(_fn)
for _backend_name in ("numpy", "dask"):
    register("linalg.outer", _backend_name)(_outer_of(_backend_name))
del _fn, _backend_name, _q, _make, _name
