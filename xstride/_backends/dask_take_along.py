"""``take_along_axis`` on dask arrays (dask has none): ``x``'s axis is gathered into one
chunk (as compat's ``sort`` gathers the sorted axis), ``indices`` keeps its chunks, and
each block is the chunk's namespace's ``take_along_axis``. Lengths dask does not know
(after boolean indexing) are named where the gather or the broadcast needs them: in
``x``, and in ``indices`` off the axis (along it, where ``indices`` needs no broadcast,
they keep). Nothing here imports dask at import time.
"""

from __future__ import annotations

import numpy as np

from .._chunked import _config as _chunked_config
from .._core.errors import value_error
from .arg_checks import check_take_along_axis
from .dask_standard import _known, _ns, _unknown_error
from .dispatch import register
from .registry import get

__all__ = ["take_along_axis"]

_NAME = "dask"


def _take_block(x, indices, *, axis):
    """One block of ``take_along_axis``: the chunk's namespace's function (on NumPy
    chunks xstride's, whose ``IndexError`` for an index out of range names it)."""
    return _chunked_config.namespace_function("take_along_axis", x)(x, indices, axis=axis)


def _unknown_indices(indices, where: str) -> ValueError:
    """``take_along_axis``'s error for ``indices`` of lengths dask does not know ``where``
    its broadcast against ``x`` needs them."""
    return value_error("take_along_axis", "indices",
                       f"has shape {indices.shape}, with lengths dask does not know (as "
                       f"after boolean indexing) {where}, which its broadcast against x "
                       "needs; call indices.compute_chunk_sizes() first")


def take_along_axis(x, indices, /, *, axis=-1):
    """``take_along_axis`` of the standard on dask arrays (dask has none): ``x`` and
    ``indices`` broadcast on every axis but ``axis``; ``x``'s ``axis`` is gathered
    into one chunk (as compat's ``sort`` does), ``indices`` keeps its chunks along it,
    and each block is the chunk's namespace's ``take_along_axis``.

    Raises
    ------
    TypeError
        ``x`` not an array, ``indices`` not an array of an integer dtype, ``axis`` not
        an int (:func:`~xstride._backends.arg_checks.check_take_along_axis`, the NumPy
        backend's checks).
    ValueError
        ``indices`` of another rank; ``axis`` out of range (``AxisError``); shapes
        that do not broadcast on the other axes.
        Lengths dask does not know (after boolean indexing) in ``x``, or in
        ``indices`` off ``axis`` (along it too where ``indices`` is broadcast): the
        gather and the broadcast need them (dask's rechunk said "Array chunk sizes are
        unknown", the broadcast check "'float' object cannot be interpreted as an
        integer", a ``TypeError``).
    IndexError
        When computed, an index out of range.
    """
    ax = check_take_along_axis(x, indices, axis)
    if not all(_known(n) for n in x.shape):
        raise _unknown_error("take_along_axis", x, "its gather along the axis and its "
                                                   "broadcast against indices need")
    nd = x.ndim
    ns = _ns()
    off = [i for i in range(nd) if i != ax]
    if not all(_known(indices.shape[i]) for i in off):
        raise _unknown_indices(indices, f"off axis {ax}")

    def but_axis(shape):
        return shape[:ax] + (1,) + shape[ax + 1:]

    rest = np.broadcast_shapes(but_axis(x.shape), but_axis(indices.shape))
    xb = ns.broadcast_to(x, rest[:ax] + (x.shape[ax],) + rest[ax + 1:]).rechunk({ax: -1})
    ib = indices   # unknown lengths along axis (after boolean indexing) keep, unbroadcast
    if any(indices.shape[i] != rest[i] for i in off):
        if not _known(indices.shape[ax]):
            raise _unknown_indices(indices, f"along axis {ax}")
        ib = ns.broadcast_to(indices, rest[:ax] + (indices.shape[ax],) + rest[ax + 1:])
    ib = ib.rechunk(xb.chunks[:ax] + (ib.chunks[ax],) + xb.chunks[ax + 1:])
    letters = "abcdefghijklmnopqrstuvwx"[:nd]
    x_ind = letters[:ax] + "z" + letters[ax + 1:]
    i_ind = letters[:ax] + "y" + letters[ax + 1:]
    da = get(_NAME).load()
    meta = get(_NAME).chunk_like(np.empty((0,) * nd, x.dtype), x._meta)
    return da.blockwise(_take_block, i_ind, xb, x_ind, ib, i_ind, axis=ax, dtype=x.dtype,
                        concatenate=True, meta=meta)


register("take_along_axis", _NAME)(take_along_axis)
