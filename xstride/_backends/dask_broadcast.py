"""``broadcast_to``, ``broadcast_arrays`` and ``meshgrid`` on the dask backend.

- ``broadcast_to``'s shape is checked at the call (dask's took bools, floats, negative
  lengths and sizes past int64, and failed when computed);
- ``broadcast_arrays`` of shapes that do not broadcast is the standard's error (dask's
  said "Chunks do not add up"), and it and ``meshgrid`` say to call
  ``compute_chunk_sizes()`` where dask's broadcast needs lengths it does not know (after
  boolean indexing).

Imported with ``dask_fixes`` (``overrides.py``), before ``masked_broadcast``, which wraps
these. Nothing here imports dask at import time.
"""

from __future__ import annotations

import operator

import numpy as np

from .._core.errors import broadcast_error, value_error
from .._core.sizes import checked_size
from .arg_checks import check_meshgrid, check_unknown_broadcast_to
from .broadcast_errors import known_lengths_conflict
from .dispatch import register
from .registry import get
from .shape_checks import check_length

__all__ = ["broadcast_to", "broadcast_arrays", "meshgrid"]

_NAME = "dask"


def broadcast_to(x, /, shape):
    """``broadcast_to`` on dask, ``shape`` checked at the call as NumPy checks it: ints
    (not bools), non-negative, a size and byte size that fit int64 (dask's took
    ``(True, 12)``, ``(2.0, 12)``, ``(-1, 12)`` and ``(2**60, 12)`` and failed only
    when computed, with NumPy's messages)."""
    try:
        items = tuple(shape)
    except TypeError:   # one int (or not a shape: refused below)
        items = (shape,)
    for n in items:
        check_length("broadcast_to", "shape", n, shape)
    items = tuple(operator.index(n) for n in items)
    checked_size("broadcast_to", "shape", items, getattr(x, "itemsize", 1))
    try:
        return get(_NAME).namespace().broadcast_to(x, items)
    except ValueError:
        check_unknown_broadcast_to(x.shape, items)
        raise


def _broadcast(func: str, arrays, call):
    """``call()``, dask's broadcast of ``arrays`` (``broadcast_arrays``, ``meshgrid``):
    shapes that do not broadcast are the standard's error (dask's said "Chunks do not
    add up to shape"), and where dask's needs lengths it does not know (after boolean
    indexing) the error says to compute them (dask's: "cannot broadcast shape (nan,) to
    shape (nan,)")."""
    shapes = [a.shape for a in arrays]
    if all(n == n for s in shapes for n in s):   # NaN: lengths after boolean indexing
        if func == "broadcast_arrays":
            try:
                np.broadcast_shapes(*shapes)
            except ValueError:
                raise broadcast_error(func, shapes) from None
        return call()
    if func == "broadcast_arrays" and known_lengths_conflict(shapes):
        # (nan, 3) with (4,): no length computed would make them broadcast
        raise broadcast_error(func, shapes)
    try:
        return call()
    except ValueError:
        text = ", ".join(str(s) for s in shapes)
        raise value_error(func, "arrays", f"has shapes {text}, with lengths dask does not "
                                          "know (as after boolean indexing), which its "
                                          "broadcast needs; call x.compute_chunk_sizes() "
                                          "first") from None


def broadcast_arrays(*arrays):
    """``broadcast_arrays`` of the standard on dask arrays (:func:`_broadcast`)."""
    return _broadcast("broadcast_arrays", arrays,
                      lambda: get(_NAME).namespace().broadcast_arrays(*arrays))


def meshgrid(*arrays, indexing="xy"):
    """``meshgrid`` of the standard on dask arrays: each of one dimension, checked first
    (:func:`~xstride._backends.arg_checks.check_meshgrid`; dask's flattened them), then
    :func:`_broadcast`."""
    check_meshgrid(arrays, indexing)
    return _broadcast("meshgrid", arrays,
                      lambda: get(_NAME).namespace().meshgrid(*arrays, indexing=indexing))


register("broadcast_to", _NAME)(broadcast_to)
register("broadcast_arrays", _NAME)(broadcast_arrays)
register("meshgrid", _NAME)(meshgrid)
