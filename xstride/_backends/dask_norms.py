"""The dask backend's ``linalg.vector_norm`` and ``linalg.matrix_norm``: integers and
bools as float64 (NumPy's dtype; dask's norms of ``ord`` 1 or inf stayed int64), norms
over axes of no element as NumPy's (0 where the norm is a maximum, an error where it is
a minimum), lengths dask does not know (after boolean indexing) by reductions over the
axes themselves, the spectral and nuclear norms from ``dask_linalg.py``'s
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
from .dask_standard import flat
from .dispatch import register
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
    if _is(ord, np.inf):
        return ns.max(a, **kw)
    if _is(ord, -np.inf):
        return ns.min(a, **kw)
    if ord == 0:
        return ns.sum(ns.astype(a != 0, a.dtype), **kw)
    if ord == 1:
        return ns.sum(a, **kw)
    if ord == 2:
        return ns.sqrt(ns.sum(a * a, **kw))
    return ns.sum(a ** ord, **kw) ** (1.0 / ord)


def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):
    """``linalg.vector_norm``: dask's, of integers and bools as float64 (NumPy's dtype);
    of every axis of rows selected by a boolean mask, of them flattened by row blocks
    (dask's ravel of unknown lengths failed), and with ``keepdims`` or a tuple ``axis``
    by reductions over the axes (:func:`_norm_by_reductions`); ``ord`` +-inf over axes of no element as
    NumPy's (0 for inf, an error for -inf)."""
    check_vector_norm(axis, ord, keepdims)
    keepdims = bool(keepdims)
    if (got := masked_vector_norm(_NAME, x, axis, keepdims, ord)) is not None:
        return got   # masked chunks: the masked elements left out, as on NumPy
    if any(n != n for n in x.shape):
        if axis is None and not keepdims and x.ndim > 1:
            x = flat(x)
        elif keepdims or isinstance(axis, tuple):   # compat's reshapes: every length needed
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
    pick = {2: ns.max, -2: ns.min, "nuc": ns.sum}.get(ord) if isinstance(ord, (int, float, str)) \
        and not isinstance(ord, bool) else None
    if pick is None:
        return ns.linalg.matrix_norm(x, keepdims=keepdims, ord=ord)
    sv = svdvals(x)
    if ord == 2 and sv.shape[-1] == 0:   # matrices of no element: NumPy's norm is 0
        pick = ns.sum                    # (dask's max of no value raised)
    out = pick(sv, axis=-1, keepdims=keepdims)
    # (a new axis by indexing: dask's expand_dims reshapes, which needs every length,
    # and raised "cannot convert float NaN to integer" after boolean indexing)
    return out[..., None] if keepdims else out


for _fn in (vector_norm, matrix_norm):
    register(f"linalg.{_fn.__name__}", _NAME)(_fn)
del _fn
