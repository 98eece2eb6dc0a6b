"""The NumPy backend's ``concat``, ``stack``, ``tril`` and ``triu`` of ``numpy.ma``
masked arrays.

NumPy's ``concatenate`` and ``stack`` join the arrays' data alone: of masked arrays
they returned a masked array of no mask, the elements that were under the masks
shown as values (the dask backend's, of masked chunks, keep the masks). Where one of
``arrays`` is masked (and no ``out=`` or ``dtype=``, NumPy's extensions, is given),
``numpy.ma``'s functions join the data and the masks alike, a plain array's elements
unmasked; the dtype is NumPy's. Other calls are the library's, unchanged.

NumPy's ``tril`` and ``triu`` select by ``numpy.where``, which returns the data of a
masked array alone, the masked elements of the kept triangle shown as values (on the
dask backend too, per block): :func:`masked_triangle` selects by ``numpy.ma.where``,
the kept elements' mask kept, the zeros unmasked.

NumPy's ``diff`` with ``prepend`` or ``append`` joins them to ``x`` by ``concatenate``,
which dropped the masks: the differences were of the data under the masks, with no
mask at all (without ends, and on dask, each difference is masked where one of its
two elements is). :func:`masked_diff` joins them by ``numpy.ma.concatenate`` first.
"""

from __future__ import annotations

import sys

import numpy as np

from .dispatch import compat_function, register
from .join_checks import check_concat_shapes, check_some_arrays

__all__ = ["masked_among", "concat", "masked_triangle", "triangle_block", "masked_diff"]


def masked_among(arrays) -> bool:
    """Whether the list or tuple ``arrays`` holds a ``numpy.ma`` masked array (``numpy.ma``
    imported: an array can only be masked once something has imported it)."""
    ma = sys.modules.get("numpy.ma")
    return (ma is not None and isinstance(arrays, (list, tuple))
            and any(isinstance(a, ma.MaskedArray) for a in arrays))


def concat(arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
    """``concat`` of the standard on NumPy arrays; masked arrays keep their masks. On
    NumPy's ``ValueError``, no array or shapes that differ off ``axis`` are the dask
    backend's error (``join_checks.py``)."""
    try:
        if out is None and dtype is None and masked_among(arrays):
            return np.ma.concatenate(arrays, axis=axis)
        return compat_function("numpy", "concat")(arrays, axis, out, dtype=dtype,
                                                  casting=casting)
    except (ValueError, TypeError):   # the dask backend's words (join_checks.py)
        check_some_arrays("concat", arrays)
        check_concat_shapes(arrays, axis)
        raise


def triangle_block(keep, x, *, lower: bool):
    """``x`` (a masked array, ``(..., M, N)``) where ``keep`` (``(M, N)`` bools) holds
    for ``tril`` (``lower``), where it does not for ``triu``, else an unmasked 0."""
    zero = np.zeros(1, x.dtype)
    return np.ma.where(keep, x, zero) if lower else np.ma.where(keep, zero, x)


def masked_triangle(x, k: int, *, lower: bool):
    """``tril(x, k=k)`` (``lower``) or ``triu(x, k=k)`` of a masked NumPy array."""
    rows, cols = x.shape[-2:]
    return triangle_block(np.tri(rows, cols, k if lower else k - 1, dtype=bool), x,
                          lower=lower)


def masked_diff(x, axis: int, n: int, ends: dict):
    """``diff`` of NumPy ``x`` (checked, ``n`` at least 1) with ``ends`` (``prepend``
    and ``append`` given) where one of them or ``x`` is masked; None otherwise."""
    ma = sys.modules.get("numpy.ma")   # not imported: nothing is masked
    if n == 0 or ma is None:
        return None
    masked = ma.MaskedArray   # no list, no generator: NumPy's diff with an end is ~7 us
    if not (isinstance(x, masked) or isinstance(ends.get("prepend"), masked)
            or isinstance(ends.get("append"), masked)):
        return None
    ax = axis % x.ndim
    one = x.shape[:ax] + (1,) + x.shape[ax + 1:]   # a scalar end, broadcast (NumPy's)
    ma = np.ma
    parts = [v if np.ndim(v) else ma.masked_array(np.broadcast_to(ma.getdata(v), one),
                                                  mask=np.broadcast_to(ma.getmaskarray(v),
                                                                       one))
             for v in (ends.get("prepend"), x, ends.get("append")) if v is not None]
    return np.diff(ma.concatenate(parts, axis=ax), n=n, axis=ax)


register("concat", "numpy")(concat)
