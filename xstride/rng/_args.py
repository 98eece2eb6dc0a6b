"""Argument checks, broadcasting and backend dispatch behind ``xstride.rng``."""

from __future__ import annotations

import math

import numpy as np

from .. import _backends
from .._core.errors import error, type_error, value_error
from .._core.intseq import integer_array
from .._core.sizes import INT64_MAX, out_of_memory
from .._plans.elementwise import broadcast_shapes

_U64_MAX = (1 << 64) - 1
_U32_MAX = (1 << 32) - 1


def _check_int(func, name, value, limit, limit_text):
    """A Python int in ``[0, limit]`` or an unsigned integer array (NumPy/CuPy, uint64)."""
    # a NumPy timedelta64 is an np.integer subclass, but a duration: its arrays are
    # refused below, and so is the scalar (its int() is a count of its unit, or fails)
    if isinstance(value, (bool, np.bool_, np.timedelta64)):
        raise type_error(func, name, value, "a non-negative integer or an integer array")
    if isinstance(value, (int, np.integer)):
        v = int(value)
        if v < 0 or v > limit:
            raise value_error(func, name, f"must be an integer in [0, {limit_text}], got {v}")
        return v
    if isinstance(value, (list, tuple, range)):   # Python sequences of ints, as NumPy takes
        try:
            value = integer_array(func, name, value)  # exact, also past 2**63
        except ValueError:
            raise value_error(func, name, f"has values outside [0, {limit_text}]") from None
    be = _backends.of_array(value)
    remedy = None if be is None else be.mask_remedy(value)
    if remedy is not None:   # its masked counters would still draw
        raise type_error(func, name, value, f"an integer array without a mask ({remedy})")
    lost = None if be is None else be.lost_remedy(value)
    if lost is not None:   # dask's compute said "Missing dependency" and a key
        raise value_error(func, name, lost)
    try:
        kind = getattr(getattr(value, "dtype", None), "kind", None)
        shape = getattr(value, "shape", None)
    except Exception:   # a property that raises: no array
        kind = shape = None
    if not isinstance(kind, str) or not isinstance(shape, tuple):
        raise type_error(func, name, value, "a non-negative integer or an integer array")
    if kind not in "iu" or value.dtype.itemsize > 8:
        raise type_error(func, name, value, "an integer array (signed or unsigned integer dtype)")
    if value.size:
        # (dask's reductions over chunks of no element answer wrongly: merged away first)
        stored = _distinct(value if be is None else be.without_empty_chunks(value))
        # (_distinct: a broadcast view's elements once, not its full size)
        if kind == "i" and bool((stored < 0).any()):
            raise value_error(func, name, "has negative values; expected integers in "
                              f"[0, {limit_text}]")
        if limit < _U64_MAX and value.dtype.itemsize * 8 > math.log2(limit + 1):
            if bool((stored > limit).any()):
                raise value_error(func, name, f"has values above {limit_text}")
    return value


def _distinct(value):
    """``value`` with each broadcast axis (stride 0, extent above 1) cut to extent 1:
    the elements a broadcast view stores, once each, so that a check or a cast of them
    allocates what the view holds, not its broadcast size. An array without strides
    (dask) or without such an axis is returned as it is."""
    strides = getattr(value, "strides", None)
    if not isinstance(strides, tuple) or len(strides) != len(value.shape):
        return value
    cut = tuple(slice(0, 1) if st == 0 and n > 1 else slice(None)
                for n, st in zip(value.shape, strides))
    return value[cut] if any(c.stop == 1 for c in cut) else value


def _shape_of(v):
    return () if isinstance(v, int) else tuple(v.shape)


def _known_shape(func, name, v):
    """Refuse a dask array after boolean indexing: its shape is not known yet."""
    if any(isinstance(n, float) and math.isnan(n) for n in _shape_of(v)):
        raise value_error(func, name, "has chunk lengths that dask does not know (as "
                                      "after boolean indexing); call "
                                      f"{name}.compute_chunk_sizes() first")


def _broadcast(func, named, itemsize=8):
    """The broadcast shape of the arguments, refused when the result (``itemsize``
    bytes per element) could not exist: NumPy's rule, its non-zero extents times
    ``itemsize`` above 2**63 - 1 bytes (so an empty ``(0, 2**62)`` is refused too, as
    ``np.empty`` refuses it, and as ``Philox``'s shapes are)."""
    for name, v in named:
        _known_shape(func, name, v)
    shapes = ", ".join(f"{n} {_shape_of(v)}" for n, v in named)
    try:
        shape = broadcast_shapes(*(_shape_of(v) for _, v in named), func=func)
    except ValueError:
        raise ValueError(f"{func}: shapes do not broadcast together ({shapes})") from None
    size = math.prod(n or 1 for n in shape)   # NumPy counts the non-zero extents
    if size * itemsize > INT64_MAX:   # NumPy's raw "array is too big", or a wrapped size
        values = (f"{size} values" if 0 not in shape
                  else f"no values, but {size} by its non-zero extents")
        raise error(ValueError, func, f"the arguments broadcast to shape {shape} ({shapes}): "
                                      f"{values} of {itemsize} bytes, more than the "
                                      "2**63 - 1 bytes an array may hold")
    return shape


def _on(backend, v, dtype, func, name):
    """``v`` (int or array) as an array of ``dtype`` on ``backend`` (ints stay ints). A
    list made an array of a lazy backend (dask) under a chunks option that does not fit
    it is a ``ValueError`` naming ``func`` and its argument ``name`` (it named
    ``asarray`` and its ``chunks``, which the caller never passed)."""
    if isinstance(v, int):
        return v
    if backend.owns(v):
        stored = _distinct(v)
        if stored is not v and v.dtype != dtype:   # cast the stored elements, view again
            return backend.namespace().broadcast_to(stored.astype(dtype), v.shape)
        return v.astype(dtype, copy=False)
    host = np.asarray(v, dtype=dtype)
    if backend.lazy:
        return backend.asarray(host, func=func, arg=name)
    return backend.asarray(host)


def _backend_of(func, named):
    """Backend of the array arguments as given (NumPy scalars and lists of them do not
    count: :func:`xstride._backends.of_extension`)."""
    return _backends.of_extension(func, named)


def _prepare(func, seed, stream, counter):
    given = (("seed", seed), ("stream", stream), ("counter", counter))
    backend = _backend_of(func, given)
    named = [(name, _check_int(func, name, v, _U64_MAX, "2**64 - 1")) for name, v in given]
    shape = _broadcast(func, named)
    args = [_on(backend, v, np.uint64, func, name) for name, v in named]
    return backend, args, shape


def _dispatch(kind, func, seed, stream, counter):
    if not isinstance(counter, int):
        # a prepared call of the counter's backend first (see _kernels/_prepared.py);
        # None: a miss (or no such executor), the checked path runs
        be = _backends.of_array(counter)
        if be is not None:
            rep = getattr(be.executor("philox"), "repeat", None)
            if rep is not None:
                try:
                    res = rep(kind, seed, stream, counter)
                except MemoryError:   # the checked path allocates again, and names the call
                    res = None
                if res is not None:
                    return res
    backend, (sd, st, ct), shape = _prepare(func, seed, stream, counter)
    try:
        return getattr(backend.executor("philox"), kind)(sd, st, ct, shape)
    except MemoryError:   # the library's message named neither the function nor the result
        what = "the results" if kind.endswith("2") else "the result"
        raise out_of_memory(func, what, shape, 8) from None


def _fill_pairs(kind, backend, seed, stream, start, n, shape):
    """The generator's stream (``kind`` "uniform" or "normal"): ``n`` values from
    counters ``start .. start + ceil(n / 2) - 1``, two per counter; 1-D result, on
    ``backend`` (a Backend object). A lazy backend chunks it so that it reshapes to
    ``shape`` with the rows its creation functions give (its errors name the method,
    ``Philox.<kind>``)."""
    ex = backend.executor("philox")
    if backend.lazy:
        return ex.pairs(kind, seed, stream, start, n, shape=shape, func=f"Philox.{kind}")
    return ex.pairs(kind, seed, stream, start, n)
