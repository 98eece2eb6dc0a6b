"""The dask backend's ``linalg.vector_norm`` and ``linalg.matrix_norm``: integers and
bools as float64 (NumPy's dtype; dask's norms of ``ord`` 1 or inf stayed int64), norms
over axes of no element as NumPy's (0 where the norm is a maximum, an error where it is
a minimum), lengths dask does not know (after boolean indexing) by xstride's
reductions over the axes themselves (vector norms, and the matrix norms of a stack of
unknown length), the spectral and nuclear norms from ``dask_linalg.py``'s
:func:`~xstride._backends.dask_linalg.svdvals` (dask's refused stacks and matrices
chunked on both axes), and ``numpy.ma`` masked chunks by ``masked_norms.py``.
Registered here; imported on the first lookup after ``dask_linalg.py``
(``overrides.py``).
"""

from __future__ import annotations

import numpy as np
from numpy.lib.array_utils import normalize_axis_tuple

from .._core.errors import value_error
from .dask_linalg import _NAME, _check, _ns, svdvals
from .dispatch import implementation, register
from .linalg_fixes import check_matrix_norm, check_vector_norm
from .masked_norms import masked_matrix_norm, masked_vector_norm

__all__ = ["vector_norm", "matrix_norm"]


def _inexact(x):
    """``x``, or for integers and bools ``x`` as float64: the norms are NumPy's
    (``numpy.linalg.norm`` casts them; dask's norms of ``ord`` 1 or inf stayed int64)."""
    return x if x.dtype.kind in "fc" else _ns().astype(x, np.float64)


def _of_no_element(func: str, x, axes, ord, minimum: bool, keepdims: bool):
    """The norm of ``ord`` over ``axes`` of ``x``, none of which holds an element (a
    known length 0 among them): NumPy's 0 where the norm is a maximum (the sum of
    nothing: 0, in the result's shape and dtype), NumPy's error where it is a minimum.
    dask's maximum and minimum of no element computed another shape than they declared
    (``(0,)`` for ``(3,)``) or raised unnamed when computed."""
    if minimum:
        raise value_error(func, "x", f"has shape {x.shape}, with no element along the axes "
                                     f"{axes} the norm of ord={ord!r} takes the minimum of "
                                     "(a minimum of no value has no identity)")
    ns = _ns()
    return ns.sum(ns.abs(_inexact(x)), axis=axes, keepdims=keepdims)


def _reduce(name: str):
    """The dask backend's own reduction ``name`` (``sum``, ``max``, ``min``): dask's
    ``max``/``min`` of a block of no row (rows a boolean mask left none of) raised
    "zero-size array to reduction operation maximum" when computed; xstride's skip it."""
    return implementation(_NAME, name)


def _is(ord, *values) -> bool:
    return not isinstance(ord, (bool, str)) and isinstance(ord, (int, float)) and ord in values


def _norm_by_reductions(x, axis, ord, keepdims: bool):
    """The vector norm of ``ord`` over ``axis`` of ``x``, a dask array with lengths dask
    does not know (after boolean indexing), by reductions over the axes themselves:
    compat's moved the axes into one and reshaped (and reshaped for ``keepdims``), which
    needs every length ("cannot convert float NaN to integer")."""
    ns = _ns()
    axes = normalize_axis_tuple(range(x.ndim) if axis is None else axis, x.ndim)
    a = ns.abs(_inexact(x))   # real: float32 of float32 and complex64, as NumPy's norm
    kw = {"axis": axes, "keepdims": keepdims}
    total = _reduce("sum")
    if _is(ord, np.inf):
        return _reduce("max")(a, **kw)
    if _is(ord, -np.inf):
        return _reduce("min")(a, **kw)
    if ord == 0:
        return total(ns.astype(a != 0, a.dtype), **kw)
    if ord == 1:
        return total(a, **kw)
    if ord == 2:
        return ns.sqrt(total(a * a, **kw))
    return total(a ** ord, **kw) ** (1.0 / ord)


def _matrix_norm_by_reductions(x, ord, keepdims: bool):
    """The matrix norms of ``ord`` 1, -1, inf, -inf and ``"fro"`` of ``x``, a dask array
    whose stack lengths dask does not know (after boolean indexing), by reductions over
    the matrix axes: compat's reshaped, which needs every length."""
    ns = _ns()
    a = ns.abs(x)
    if ord == "fro":
        out = ns.sqrt(_reduce("sum")(a * a, axis=(-2, -1)))
    else:   # 1, -1: the columns' sums; inf, -inf: the rows'
        lines = _reduce("sum")(a, axis=-2 if _is(ord, 1, -1) else -1)
        out = _reduce("max" if ord > 0 else "min")(lines, axis=-1)
    # (a new axis by indexing: dask's expand_dims reshapes, which needs every length)
    return out[..., None, None] if keepdims else out


def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):
    """``linalg.vector_norm``: dask's, of integers and bools as float64 (NumPy's dtype);
    of an array with lengths dask does not know (rows selected by a boolean mask), by
    xstride's reductions over the axes (:func:`_norm_by_reductions`: dask's ravel and
    reshape need the lengths, and its max of a block of no row failed); ``ord`` +-inf
    over axes of no element as NumPy's (0 for inf, an error for -inf)."""
    check_vector_norm(axis, ord, keepdims)
    keepdims = bool(keepdims)
    if (got := masked_vector_norm(_NAME, x, axis, keepdims, ord)) is not None:
        return got   # masked chunks: the masked elements left out, as on NumPy
    if any(n != n for n in x.shape):
        # compat's reshapes (every length needed), and its max/min fail on a block of no
        # row: every norm by xstride's reductions over the axes
        return _norm_by_reductions(x, axis, ord, keepdims)
    if _is(ord, np.inf, -np.inf):
        axes = tuple(range(x.ndim)) if axis is None else axis
        items = axes if isinstance(axes, tuple) else (axes,)
        if 0 in x.shape and all(isinstance(a, (int, np.integer)) and not isinstance(a, bool)
                                and -x.ndim <= a < x.ndim for a in items):
            # a minimum over no element raises; a result of no element is empty
            empty = any(x.shape[a] == 0 for a in items)
            return _of_no_element("vector_norm", x, axes, ord, empty and ord < 0, keepdims)
    return _ns().linalg.vector_norm(_inexact(x), axis=axis, keepdims=keepdims, ord=ord)


def matrix_norm(x, /, *, keepdims=False, ord="fro"):
    """``linalg.matrix_norm`` of ``(..., M, N)``: the spectral norms (``ord`` 2 and -2)
    and the nuclear norm (``"nuc"``) from :func:`svdvals` (dask's refused stacks and
    matrices chunked on both axes), the others dask's; integers and bools as float64.
    Of matrices of no element, ``ord`` 1, inf and 2 are NumPy's 0, and -1, -inf, -2 its
    error where the minimum is over no value (dask's computed another shape than it
    declared, or raised unnamed when computed); a stack of no matrix is empty.

    Raises
    ------
    ValueError
        ``x`` has fewer than two dimensions.
    """
    ord = check_matrix_norm(x, ord, keepdims)
    keepdims = bool(keepdims)
    if (got := masked_matrix_norm(_NAME, x, keepdims, ord)) is not None:
        return got   # masked chunks: as on NumPy (masked_norms.py)
    _check("matrix_norm", x, False, lapack=ord in (2, -2, "nuc"))
    ns = _ns()
    x = _inexact(x)
    m, n = x.shape[-2:]
    if 0 in x.shape and _is(ord, 1, -1, np.inf, -np.inf, 2, -2):
        # NumPy's: the maximum of no value is 0 (ord 1, inf), the minimum of none raises
        # (ord -1 over no column, -inf over no row, -2 of no singular value); a stack of
        # no matrix is an empty result
        small = {-1: n == 0, -np.inf: m == 0, -2: m == 0 or n == 0}.get(ord, False)
        if small or 0 in x.shape[:-2] or (ord != 2 and ord > 0):
            return _of_no_element("matrix_norm", x, (-2, -1), ord, small, keepdims)
    name = {2: "max", -2: "min", "nuc": "sum"}.get(ord) if isinstance(ord, (int, float, str)) \
        and not isinstance(ord, bool) else None
    if name is None:
        if any(v != v for v in x.shape[:-2]):   # stack lengths dask does not know
            return _matrix_norm_by_reductions(x, ord, keepdims)
        return ns.linalg.matrix_norm(x, keepdims=keepdims, ord=ord)
    sv = svdvals(x)
    pick = _reduce(name)
    if ord == 2 and sv.shape[-1] == 0:   # matrices of no element: NumPy's norm is 0
        pick = _reduce("sum")            # (dask's max of no value raised)
    out = pick(sv, axis=-1, keepdims=keepdims)
    # (a new axis by indexing: dask's expand_dims reshapes, which needs every length,
    # and raised "cannot convert float NaN to integer" after boolean indexing)
    return out[..., None] if keepdims else out


for _fn in (vector_norm, matrix_norm):
    register(f"linalg.{_fn.__name__}", _NAME)(_fn)
del _fn
