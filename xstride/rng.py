"""Counter-based random numbers: Philox4x32-10, bit-identical on host and device.

``import xstride as xp``; ``xp.rng.philox_uniform(seed, stream, counter)`` is a pure
function of three 64-bit integers: the same arguments give the same bits on NumPy
and on CuPy, whatever the array shapes, chunking or launch configuration. The
arguments broadcast (NumPy rules). The result lives on the backend of the array
arguments (any CuPy array -> computed by xstride's CUDA kernel); when no argument is
an array (Python ints, NumPy scalars, lists) the active backend
(:func:`xstride.get_backend`) is used.

Mapping (DESIGN.md, "Philox"): counter words = (lo32(counter), hi32(counter),
lo32(stream), hi32(stream)), key = (lo32(seed), hi32(seed)); outputs ``w0..w3``.
``uniform = (((w0 << 32) | w1) >> 11) * 2**-53`` in [0, 1); the second uniform comes
from ``(w2, w3)``. Normals are Box–Muller, ``r = sqrt(-2 log(1 - u0))``,
``theta = 2 pi u1``, computed with a log and sin/cos of xstride's own that use only
IEEE ``+ - * / sqrt``, so normals are bit-identical host vs device too.

See docs/rng.md for the conventions, guarantees and measured accuracy.
"""

from __future__ import annotations

import math

import numpy as np

from . import _backend
from ._errors import type_error, value_error
from ._host import philox as _host

__all__ = [
    "philox4x32_10",
    "philox_uniform",
    "philox_uniform2",
    "philox_normal",
    "philox_normal2",
    "Philox",
]

_U64_MAX = (1 << 64) - 1
_U32_MAX = (1 << 32) - 1


# ------------------------------------------------------------------ argument checks
def _is_cupy(x) -> bool:
    return _backend.backend_of_array(x) == "cupy"


def _check_int(func, name, value, limit, limit_text):
    """A Python int in ``[0, limit]`` or an unsigned integer array (NumPy/CuPy, uint64)."""
    if isinstance(value, (bool, np.bool_)):
        raise type_error(func, name, value, "a non-negative integer or an integer array")
    if isinstance(value, (int, np.integer)):
        v = int(value)
        if v < 0 or v > limit:
            raise value_error(func, name, f"must be an integer in [0, {limit_text}], got {v}")
        return v
    if isinstance(value, (list, tuple)):
        try:
            arr = np.asarray(value)
        except (ValueError, TypeError):
            raise type_error(func, name, value, "an integer array") from None
        if arr.dtype == object:
            items = arr.reshape(-1).tolist()
            if not all(isinstance(i, int) and not isinstance(i, bool) for i in items):
                raise type_error(func, name, value, "an integer array")
            if any(i < 0 or i > limit for i in items):
                raise value_error(func, name, f"has values outside [0, {limit_text}]")
            arr = np.array(items, dtype=np.uint64).reshape(arr.shape)
        value = arr
    kind = getattr(getattr(value, "dtype", None), "kind", None)
    if kind is None or not hasattr(value, "shape"):
        raise type_error(func, name, value, "a non-negative integer or an integer array")
    if kind not in "iu" or value.dtype.itemsize > 8:
        raise type_error(func, name, value, "an integer array (signed or unsigned integer dtype)")
    if value.size:
        if kind == "i" and bool((value < 0).any()):
            raise value_error(func, name, "has negative values; expected integers in "
                              f"[0, {limit_text}]")
        if limit < _U64_MAX and value.dtype.itemsize * 8 > math.log2(limit + 1):
            if bool((value > limit).any()):
                raise value_error(func, name, f"has values above {limit_text}")
    return value


def _shape_of(v):
    return () if isinstance(v, int) else tuple(v.shape)


def _broadcast(func, named):
    try:
        return np.broadcast_shapes(*(_shape_of(v) for _, v in named))
    except ValueError:
        shapes = ", ".join(f"{n} {_shape_of(v)}" for n, v in named)
        raise ValueError(f"{func}: shapes do not broadcast together ({shapes})") from None


def _on(backend, v, dtype):
    """``v`` (int or array) as an array of ``dtype`` on ``backend`` (ints stay ints)."""
    if isinstance(v, int):
        return v
    xp = _backend.array_module(backend)
    if backend == "cupy" and not _is_cupy(v):
        return xp.asarray(np.asarray(v, dtype=dtype))
    return v.astype(dtype, copy=False)


def _backend_of(func, named):
    """Backend of the array arguments as given (NumPy scalars and lists do not count)."""
    return _backend.backend_of(func, [(n, v) for n, v in named if not isinstance(v, np.generic)])


def _prepare(func, seed, stream, counter):
    given = (("seed", seed), ("stream", stream), ("counter", counter))
    backend = _backend_of(func, given)
    named = [(name, _check_int(func, name, v, _U64_MAX, "2**64 - 1")) for name, v in given]
    shape = _broadcast(func, named)
    args = [_on(backend, v, np.uint64) for _, v in named]
    return backend, args, shape


def _dispatch(kind, func, seed, stream, counter):
    backend, (sd, st, ct), shape = _prepare(func, seed, stream, counter)
    if backend == "cupy":
        from ._kernels import philox as dev

        return getattr(dev, kind)(sd, st, ct, shape)
    return getattr(_host, kind)(sd, st, ct, shape)


def _fill(kind, backend, seed, stream, start, n):
    """``kind`` for counters ``start .. start + n - 1`` (never materialised); 1-D result.

    Internal entry of :class:`Philox`: ``seed``/``stream`` are checked ints and
    ``start + n <= 2**64``.
    """
    args = (seed, stream, _host.Affine(start), (n,))
    if backend == "cupy":
        from ._kernels import philox as dev

        return getattr(dev, kind)(*args)
    return getattr(_host, kind)(*args)


def _fill_pairs(kind, backend, seed, stream, start, n):
    """The generator's stream (``kind`` "uniform" or "normal"): ``n`` values from
    counters ``start .. start + ceil(n / 2) - 1``, two per counter; 1-D result."""
    if backend == "cupy":
        from ._kernels import philox as dev

        return dev.pairs(kind, seed, stream, start, n)
    return _host.pairs(kind, seed, stream, start, n)


# ------------------------------------------------------------------ public functions
def philox4x32_10(counter_words, key0, key1):
    """The Philox4x32-10 block function, four 32-bit words in, four out.

    Parameters
    ----------
    counter_words : array of unsigned/signed integers, shape (..., 4)
        Counter words ``c0..c3``, each in ``[0, 2**32 - 1]`` (NumPy or CuPy array, or
        a nested list of ints).
    key0, key1 : int or integer array
        Key words in ``[0, 2**32 - 1]``; broadcast against ``counter_words[..., 0]``.

    Returns
    -------
    array of uint32, shape (broadcast shape, 4)
        Output words ``w0..w3``, on the backend of the array arguments.

    Raises
    ------
    TypeError
        ``counter_words`` has a floating (or other non-integer) dtype; a key is not an
        integer; NumPy and CuPy arrays are mixed.
    ValueError
        The last axis of ``counter_words`` is not 4; a word or key is negative or above
        ``2**32 - 1``; the shapes do not broadcast.

    Notes
    -----
    Salmon, Moraes, Dror, Shaw, "Parallel random numbers: as easy as 1, 2, 3", SC'11:
    multipliers 0xD2511F53 and 0xCD9E8D57, Weyl key increments 0x9E3779B9 and
    0xBB67AE85, ten rounds (the first with the unbumped key). Known answers:
    Random123's ``kat_vectors``.

    Examples
    --------
    >>> import numpy as np, xstride as xp
    >>> w = xp.rng.philox4x32_10(np.zeros(4, np.uint32), 0, 0)
    >>> [hex(int(x)) for x in w]
    ['0x6627e8d5', '0xe169c58d', '0xbc57ac4c', '0x9b00dbd8']
    """
    func = "philox4x32_10"
    backend = _backend_of(func, (("counter_words", counter_words), ("key0", key0), ("key1", key1)))
    if isinstance(counter_words, (int, float, bool, np.generic)):
        raise type_error(func, "counter_words", counter_words, "an integer array of shape (..., 4)")
    cw = _check_int(func, "counter_words", counter_words, _U32_MAX, "2**32 - 1")
    if cw.ndim == 0 or cw.shape[-1] != 4:
        raise value_error(func, "counter_words",
                          f"must have shape (..., 4), got {tuple(cw.shape)}")
    k0 = _check_int(func, "key0", key0, _U32_MAX, "2**32 - 1")
    k1 = _check_int(func, "key1", key1, _U32_MAX, "2**32 - 1")
    shape = _broadcast(func, [("counter_words[..., 0]", cw[..., 0]), ("key0", k0), ("key1", k1)])
    cw, k0, k1 = (_on(backend, v, np.uint32) for v in (cw, k0, k1))
    if backend == "cupy":
        from ._kernels import philox as dev

        return dev.words(cw, k0, k1, shape)
    return _host.words(cw, k0, k1, shape)


def philox_uniform(seed, stream, counter):
    """Uniform float64 in [0, 1), one per (seed, stream, counter).

    Parameters
    ----------
    seed, stream, counter : int or integer array
        Values in ``[0, 2**64 - 1]``; they broadcast together (NumPy rules).

    Returns
    -------
    array of float64, broadcast shape
        ``(((w0 << 32) | w1) >> 11) * 2**-53``: multiples of ``2**-53`` in
        ``[0, 1 - 2**-53]`` (never 1.0). On the backend of the array arguments, else
        on the active backend. Bit-identical on NumPy and CuPy.

    Raises
    ------
    TypeError
        An argument is a float, bool, string or non-integer array; NumPy and CuPy
        arrays are mixed. The message names the argument.
    ValueError
        A value is negative or above ``2**64 - 1`` (message names the argument);
        the shapes do not broadcast.

    Examples
    --------
    >>> import numpy as np, xstride as xp
    >>> u = xp.rng.philox_uniform(42, 0, np.arange(4, dtype=np.uint64))
    >>> u.shape, bool((u >= 0).all() and (u < 1).all())
    ((4,), True)
    """
    return _dispatch("uniform", "philox_uniform", seed, stream, counter)


def philox_uniform2(seed, stream, counter):
    """Two uniform float64 per counter: ``(u0, u1)`` from ``(w0, w1)`` and ``(w2, w3)``.

    Same parameters, errors and guarantees as :func:`philox_uniform`; ``u0`` equals
    ``philox_uniform(seed, stream, counter)``.

    Returns
    -------
    tuple of two float64 arrays of the broadcast shape
    """
    return _dispatch("uniform2", "philox_uniform2", seed, stream, counter)


def philox_normal(seed, stream, counter):
    """Standard normal float64 per counter: Box–Muller ``r cos(theta)``.

    ``r = sqrt(-2 log(1 - u0))``, ``theta = 2 pi u1`` with ``(u0, u1)`` from
    :func:`philox_uniform2`. Same parameters and errors as :func:`philox_uniform`.

    Returns
    -------
    array of float64, broadcast shape
        Bit-identical on NumPy and CuPy (log and sin/cos built from IEEE
        ``+ - * / sqrt`` only, in one fixed order; docs/rng.md gives the accuracy
        against ``numpy.log``/``numpy.cos``).
    """
    return _dispatch("normal", "philox_normal", seed, stream, counter)


def philox_normal2(seed, stream, counter):
    """Two independent standard normals per counter: ``(r cos(theta), r sin(theta))``.

    Same parameters and errors as :func:`philox_uniform`; the first array equals
    :func:`philox_normal`.

    Returns
    -------
    tuple of two float64 arrays of the broadcast shape
    """
    return _dispatch("normal2", "philox_normal2", seed, stream, counter)


from ._philox_generator import Philox  # noqa: E402  (the convenience generator)
