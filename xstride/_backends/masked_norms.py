"""``linalg.vector_norm`` and ``linalg.matrix_norm`` of ``numpy.ma`` masked arrays, alike
on the NumPy and dask backends: the masked elements are left out, as ``numpy.ma``'s
reductions (and the namespace's ``sum`` and ``max``) leave them out.

NumPy's norms read a masked array's data alone, the masked elements' values counted,
where the dask backend's (dask's reductions of masked blocks) left them out: the two
backends gave two answers for one array. Here a masked ``x`` (a dask array of masked
chunks) is reduced by the namespace's own ``abs``, ``sum``, ``max``, ``min`` and
``sqrt`` of the backend, whose masked rules are ``numpy.ma``'s: a norm over elements
all masked is masked. The norms that are sums and extremes of the elements
(``vector_norm`` of any ``ord``; ``matrix_norm`` of ``"fro"``, 1, -1, inf and -inf)
so leave the masked elements out; the ones of the singular values (``matrix_norm`` of
2, -2 and ``"nuc"``) cannot, and a masked ``x`` there is a ``TypeError`` naming it
(fill it first), as the matrix products refuse one (``masked_products.py``).
"""

from __future__ import annotations

import math

import numpy as np

from .._core.errors import type_error
from .dispatch import implementation
from .registry import get

__all__ = ["masked_vector_norm", "masked_matrix_norm"]

#: What to pass instead of a masked ``x``, by backend.
_FILLED = {"numpy": "x.filled(0)", "dask": "dask.array.ma.filled(x, 0)"}


def _masked(backend: str, x) -> bool:
    """Whether ``x`` carries a mask and holds an element (a norm of no element is the
    backend's own)."""
    return get(backend).mask_remedy(x) is not None and 0 not in x.shape


def _abs(backend: str, x):
    """``abs(x)`` in NumPy's norms' dtype: integers and bools as float64, complex as
    their real dtype."""
    if x.dtype.kind not in "fc":
        x = implementation(backend, "astype")(x, np.float64)
    return implementation(backend, "abs")(x)


def _is(ord, value) -> bool:
    return not isinstance(ord, (bool, str)) and ord == value


def masked_vector_norm(backend: str, x, axis, keepdims: bool, ord):
    """``vector_norm`` of a masked ``x`` (its arguments checked), the masked elements
    left out; None for an ``x`` without a mask."""
    if not _masked(backend, x):
        return None
    f = lambda name: implementation(backend, name)   # noqa: E731
    a = _abs(backend, x)
    kw = {"axis": axis, "keepdims": keepdims}
    if _is(ord, math.inf):
        return f("max")(a, **kw)
    if _is(ord, -math.inf):
        return f("min")(a, **kw)
    if ord == 0:
        return f("sum")(f("astype")(a != 0, a.dtype), **kw)
    if ord == 1:
        return f("sum")(a, **kw)
    if ord == 2:
        return f("sqrt")(f("sum")(a * a, **kw))
    # pow (numpy.ma's ``**`` made a 0-D array of ``ord``: float32 data to float64)
    return f("pow")(f("sum")(f("pow")(a, ord), **kw), 1.0 / ord)


def masked_matrix_norm(backend: str, x, keepdims: bool, ord):
    """``matrix_norm`` of a masked ``x`` (its arguments checked): of ``"fro"``, 1, -1,
    inf and -inf the masked elements left out; of 2, -2 and ``"nuc"`` a ``TypeError``.
    None for an ``x`` without a mask."""
    if not _masked(backend, x):
        return None
    if ord in (2, -2, "nuc") and not isinstance(ord, bool):
        raise type_error("matrix_norm", "x", x,
                         f"an array without a mask for ord={ord!r} (the singular values "
                         f"do not honour masks: pass {_FILLED[backend]} to count the "
                         "masked elements as 0)")
    f = lambda name: implementation(backend, name)   # noqa: E731
    a = _abs(backend, x)
    if ord is None or ord == "fro":
        return f("sqrt")(f("sum")(a * a, axis=(-2, -1), keepdims=keepdims))
    # 1, -1: the extreme of the columns' sums; inf, -inf: of the rows'
    summed = -2 if ord in (1, -1) else -1
    pick = f("max") if ord > 0 else f("min")
    sums = f("sum")(a, axis=summed, keepdims=keepdims)
    return pick(sums, axis=-1 if not keepdims or summed == -2 else -2, keepdims=keepdims)
