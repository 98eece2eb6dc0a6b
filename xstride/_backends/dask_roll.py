"""``roll`` of a dask array along axes of known length when other axes have lengths
dask does not know (after boolean indexing): dask's ``roll`` needed every length and
raised (xstride said to call ``compute_chunk_sizes()``). Rolling an axis of known
length ``n`` by ``s`` is joining ``x``'s last ``s % n`` elements along it to its first
``n - s % n``: two slices of ``x`` itself, whose blocks along the unknown axes line up,
joined by dask's ``concatenate`` told so. Nothing is computed."""

from __future__ import annotations

import math

__all__ = ["roll_along_known"]


def _known(n) -> bool:
    return not (isinstance(n, float) and math.isnan(n))


def roll_along_known(x, shift, axis, concat):
    """``x`` rolled by ``shift`` along ``axis`` (checked; a tuple ``shift`` with a tuple
    ``axis`` of its length), or ``None`` where an axis rolled (or the flattened array,
    ``axis=None``) has a length dask does not know."""
    if axis is None:
        return None
    axes = tuple(axis) if isinstance(axis, (tuple, list)) else (axis,)
    shifts = tuple(shift) if isinstance(shift, (tuple, list)) else (shift,) * len(axes)
    axes = tuple(int(a) % x.ndim for a in axes)
    if not all(_known(x.shape[a]) for a in axes):
        return None
    for s, a in zip(shifts, axes):   # a repeated axis: its shifts add up, as NumPy's
        n = int(x.shape[a])
        cut = n - int(s) % n if n else n
        if 0 < cut < n:
            head = (slice(None),) * a
            x = concat([x[head + (slice(cut, None),)], x[head + (slice(0, cut),)]], axis=a,
                       allow_unknown_chunksizes=True)
    return x
