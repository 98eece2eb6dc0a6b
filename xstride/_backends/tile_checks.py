"""``tile``'s ``repetitions``, one check for the NumPy and dask backends.

The standard's ``tile(x, repetitions, /)`` takes a tuple of counts. NumPy and dask
took a bool as a count (``tile(x, (True, 2))``) and refused the rest with messages
that named no argument, each its own: a float count was "'float' object cannot be
interpreted as an integer" on NumPy and "can't multiply sequence by non-int of type
'float'" on dask, a negative one "negative dimensions are not allowed" and
"Negative `reps` are not allowed.". Here a count of no int (a bool, a float, a str)
is a ``TypeError`` and a negative count a ``ValueError``, both naming
``repetitions``, on both backends. A plain int is taken as NumPy takes it (one count),
and a NumPy array of counts is left to the library.
"""

from __future__ import annotations

import operator

import numpy as np

from .._core.errors import type_error, value_error
from .dask_byteorder import in_dtype
from .dispatch import compat_function, register

__all__ = ["check_repetitions"]


def check_repetitions(repetitions) -> None:
    """``tile``'s ``repetitions``: ints (not bools) of at least 0, in a tuple or a list,
    or one int."""
    if isinstance(repetitions, np.ndarray):
        return
    items = repetitions if isinstance(repetitions, (tuple, list)) else (repetitions,)
    try:
        if any(isinstance(n, (bool, np.bool_)) for n in items):
            raise TypeError
        counts = tuple(operator.index(n) for n in items)
    except TypeError:
        raise type_error("tile", "repetitions", repetitions, "a tuple of ints") from None
    if any(n < 0 for n in counts):
        raise value_error("tile", "repetitions", f"is {counts}: a count is negative; each "
                                                 "count must be at least 0")


def _check_size(x, repetitions) -> None:
    """Counts whose result would hold more elements than int64 counts: a ``ValueError``
    naming ``repetitions`` (NumPy's "array is too big", dask's a ``MemoryError`` with no
    message). A size dask does not know, or an array of counts, is not checked."""
    size = getattr(x, "size", None)
    if isinstance(repetitions, np.ndarray) or size is None or size != size:
        return
    total = int(size)
    for n in repetitions if isinstance(repetitions, (tuple, list)) else (repetitions,):
        total *= operator.index(n)
    if total > np.iinfo(np.int64).max:
        raise value_error("tile", "repetitions", f"is {repetitions}: the result would hold "
                                                 f"{total:,} elements, more than an array "
                                                 "can hold")


def _counts(repetitions) -> bool:
    """Whether ``repetitions`` is the common call's tuple of Python ints of at least 0
    (:func:`check_repetitions` took 1.4 us a call more, 2-core VM)."""
    if repetitions.__class__ is not tuple:
        return False
    for n in repetitions:
        if n.__class__ is not int or n < 0:
            return False
    return True


def _unknown_lengths_tile(x, repetitions, concat):
    """``tile`` of a dask array ``x`` with lengths dask does not know (NaN, after boolean
    indexing) by counts of at least 0: along each axis ``x`` joined to copies of itself by
    ``concat`` (dask's ``concatenate``), whose blocks line up since they are ``x``'s own
    (dask's ``tile`` refused them, "Tried to concatenate arrays with unknown shape",
    along every axis but the first); a count of 0 leaves no element along its axis
    (dask's ``tile`` raised "Can not perform automatic rechunking with unknown (nan)
    chunk sizes"). ``None`` where it does not apply (every length known)."""
    counts = tuple(int(n) for n in repetitions) if isinstance(repetitions, (tuple, list)) \
        else (int(repetitions),)
    if all(n == n for n in x.shape):
        return None
    if len(counts) > x.ndim:
        x = x[(None,) * (len(counts) - x.ndim)]
    counts = (1,) * (x.ndim - len(counts)) + counts
    for axis, n in enumerate(counts):
        if n == 0:   # no element along it, whatever its length: each block cut to none
            x = _none_along(x, axis)
        elif n != 1:
            x = concat([x] * n, axis=axis, allow_unknown_chunksizes=True)
    return x


def _head(block, axis: int):
    return block[(slice(None),) * axis + (slice(0, 0),)]


def _none_along(x, axis: int):
    """Dask ``x`` with no element along ``axis`` (a count of 0 there): each block cut to
    length 0 on that axis (its length need not be known; dask's slice ``[:0]`` refuses
    an unknown one), one block there."""
    chunks = tuple((0,) if a == axis else c for a, c in enumerate(x.chunks))
    first = x.blocks[(slice(None),) * axis + (slice(0, 1),)]
    return first.map_blocks(_head, axis, chunks=chunks, dtype=x.dtype, meta=x._meta)


def _tile_of(backend: str):
    library = []   # compat's tile, looked up on the first call

    def tile(x, repetitions, /):
        """``tile`` of the standard, ``repetitions`` checked first
        (:func:`check_repetitions`)."""
        if not _counts(repetitions):
            check_repetitions(repetitions)
        _check_size(x, repetitions)
        if backend == "dask" and not isinstance(repetitions, np.ndarray):
            tiled = _unknown_lengths_tile(x, repetitions, compat_function(backend, "concat"))
            if tiled is not None:
                return in_dtype(tiled, x.dtype)
        if not library:
            library.append(compat_function(backend, "tile"))
        if backend == "dask":   # dask's concatenates into the native byte order
            return in_dtype(library[0](x, repetitions), getattr(x, "dtype", None))
        return library[0](x, repetitions)
    return tile


for _backend_name in ("numpy", "dask"):
    register("tile", _backend_name)(_tile_of(_backend_name))
del _backend_name
