"""``full`` and ``full_like`` of a 0-D dask array ``fill_value`` on the dask backend.

dask's functions handed the fill, a dask array, to NumPy's ``full`` inside every
block's task as a plain object, not as a dependency of the graph: each block computed
the fill's graph again (on a cluster, a compute inside a task) and NumPy's
``copyto`` warned "The `numpy.copyto` function is not implemented by Dask array"
(a ``FutureWarning``) per block. Here the function makes its array of a scalar fill of
the fill's dtype (the result's dtype, shape and chunks as it gives them; ``full``
without ``dtype`` takes the fill's, as NumPy's ``full`` of a 0-D array does), then each
block is set to the fill's one block, a dependency (``map_blocks``; a masked block's
data, its mask kept). Other fills go to the function as they are.
"""

from __future__ import annotations

import functools
import sys

__all__ = ["with_array_fill"]


def _filled(block, fill):
    """``block``'s copy set to ``fill`` (a 0-D chunk), cast as NumPy's ``full`` casts; a
    masked block's data set, its mask kept (as NumPy's ``full_like`` of a masked array)."""
    out = block.copy()
    ma = sys.modules.get("numpy.ma")   # not imported: no block is masked
    if ma is not None and isinstance(out, ma.MaskedArray):
        ma.getdata(out)[...] = fill
    else:
        out[...] = fill
    return out


def with_array_fill(fn):
    """``fn`` (the dask backend's ``full`` or ``full_like``, whose ``fill_value`` is the
    second argument) taking a 0-D dask array fill as a dependency of its graph."""

    @functools.wraps(fn)
    def impl(*args, **kwargs):
        fill = args[1] if len(args) > 1 else kwargs.get("fill_value")
        if not (hasattr(fill, "dask") and getattr(fill, "ndim", None) == 0):
            return fn(*args, **kwargs)
        if fn.__name__ == "full" and kwargs.get("dtype") is None:
            kwargs["dtype"] = fill.dtype
        scalar = fill.dtype.type(0)
        if len(args) > 1:
            args = args[:1] + (scalar,) + args[2:]
        else:
            kwargs["fill_value"] = scalar
        out = fn(*args, **kwargs)
        return out.map_blocks(_filled, fill, dtype=out.dtype)

    return impl
