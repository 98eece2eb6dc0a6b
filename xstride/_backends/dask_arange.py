"""``arange`` on the dask backend: the arguments and values dask's function gets wrong.

- a ``step`` of None is 1, NumPy's default (:func:`arange_step`);
- ints into an integer dtype narrower than int64 are made in int64 and cast, with
  NumPy's ``OverflowError`` at the call (:func:`narrow_arange`);
- Python ints of 2**53 or more give the NumPy backend's exact values whatever the chunks
  (:func:`wide_arange`).

``dask_fixes.py``'s ``arange`` calls them; nothing here imports dask at import time.
"""

from __future__ import annotations

import numpy as np

from .._core.sizes import out_of_memory
from .._chunked.chunks import fit_chunks, fit_option
from .arange_checks import arange_args, wide_ints, wide_plan
from .dask import check_chunks
from .dask_ranges import int_arange
from .registry import get

__all__ = ["arange_step", "narrow_arange", "wide_arange"]

_NAME = "dask"


def arange_step(args, kwargs):
    """``arange``'s arguments with a ``step`` of None as 1, NumPy's default (dask's
    computed ``stop - start`` over None and failed with a ``TypeError``)."""
    if len(args) > 2 and args[2] is None:
        args = args[:2] + (1,) + args[3:]
    if "step" in kwargs and kwargs["step"] is None:
        kwargs = dict(kwargs, step=1)
    return args, kwargs


def narrow_arange(args, kwargs, shape):
    """For ``arange`` of ints into an integer dtype other than int64: NumPy's error for
    the call raised now (a ``start``, or of two values or more a ``start + step``,
    outside the dtype: ``OverflowError``; uint64's came when computed), and
    ``kwargs`` changed to make the values in int64, in the chunks the narrow dtype gets;
    the narrow dtype is returned, to cast to (wrapping as NumPy's ``arange`` wraps: the
    same values). dask made each chunk with its own start, so a chunk starting past the
    dtype's range failed when computed and the result depended on the chunks. None
    where nothing changes."""
    dtype = kwargs.get("dtype")
    if dtype is None or shape is None:
        return None
    try:
        dt = np.dtype(dtype)
    except TypeError:
        return None
    start, stop, step = arange_args(args, kwargs)
    if dt.kind not in "iu" or dt == np.int64 or not all(
            isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))
            for v in (start, stop, step)) or step == 0:
        return None
    np.arange(start, int(start) + min(shape[0], 2) * int(step), step, dtype=dt)   # NumPy's
    from dask.array.core import normalize_chunks

    kwargs["chunks"] = normalize_chunks(kwargs["chunks"], shape, dtype=dt)
    kwargs["dtype"] = np.int64
    return dt


def wide_arange(args, kwargs):
    """``arange`` of Python ints, one of 2**53 or more, of no ``dtype``, an integer one
    or a float or complex one of float64 at most: the NumPy backend's exact values
    (``arange_checks.wide_plan``; into a float dtype each exact value rounded once,
    ``arange_floats.py``) from each block's global indices, whatever the chunks; None
    for another call."""
    ints = arange_args(args, kwargs)
    if not wide_ints(ints) or set(kwargs) - {"start", "stop", "step", "dtype", "device",
                                             "chunks"}:
        return None
    plan = wide_plan(*ints, kwargs.get("dtype"))
    if plan is None:
        return None
    be = get(_NAME)
    be.namespace().arange(0, device=kwargs.get("device"))   # compat's check of the device
    opts = be.options()
    n, dt = plan
    own = kwargs.get("chunks") is not None
    chunks = check_chunks("arange", kwargs["chunks"]) if own else opts.chunks
    try:   # dask's tuple of block lengths was a bare MemoryError
        if not own:
            chunks = fit_option("arange", chunks, (n,))
        fit_chunks("arange", chunks, (n,), dt, option=None if own else opts.chunks)
    except MemoryError:
        raise out_of_memory("arange", "the chunks of the result", (n,), dt.itemsize) from None
    return be.on_chunks(int_arange(ints[0], ints[2], n, dt, chunks), opts)
