"""The pure Philox functions of ``xstride.rng`` (see the package docstring)."""

from __future__ import annotations

import numpy as np

from .._core.errors import type_error, value_error
from .._core.sizes import out_of_memory
from ._args import _U32_MAX, _backend_of, _broadcast, _check_int, _dispatch, _known_shape, _on

__all__ = [
    "philox4x32_10",
    "philox_uniform",
    "philox_uniform2",
    "philox_normal",
    "philox_normal2",
]



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
    MemoryError
        The output words do not fit in memory (the message gives their shape and size).

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
    _known_shape(func, "counter_words", cw)   # before its slice [..., 0] is named
    if cw.ndim == 0 or cw.shape[-1] != 4:
        raise value_error(func, "counter_words",
                          f"must have shape (..., 4), got {tuple(cw.shape)}")
    k0 = _check_int(func, "key0", key0, _U32_MAX, "2**32 - 1")
    k1 = _check_int(func, "key1", key1, _U32_MAX, "2**32 - 1")
    shape = _broadcast(func, [("counter_words[..., 0]", cw[..., 0]), ("key0", k0), ("key1", k1)],
                       16)   # four uint32 words per element
    cw, k0, k1 = (_on(backend, v, np.uint32, func, name)
                  for name, v in (("counter_words", cw), ("key0", k0), ("key1", k1)))
    try:
        return backend.executor("philox").words(cw, k0, k1, shape)
    except MemoryError:   # the library's message named neither the function nor the words
        raise out_of_memory(func, "the output words", tuple(shape) + (4,), 4) from None


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
    MemoryError
        The result does not fit in memory (the message names the function and gives
        the result's shape and size).

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

    ``u0`` equals ``philox_uniform(seed, stream, counter)``; ``u1`` is made the same way
    from the other two output words of the same Philox4x32-10 block, so one block gives
    both (the generator :class:`Philox` draws its uniforms this way).

    Parameters
    ----------
    seed, stream, counter : int or integer array
        Values in ``[0, 2**64 - 1]``; they broadcast together (NumPy rules). Python
        ints, NumPy integers, lists of ints, or NumPy, CuPy or dask arrays of a signed
        or unsigned integer dtype (no masked arrays).

    Returns
    -------
    tuple of two arrays of float64, each of the broadcast shape
        ``u0 = (((w0 << 32) | w1) >> 11) * 2**-53`` and ``u1 = (((w2 << 32) | w3) >>
        11) * 2**-53``: multiples of ``2**-53`` in ``[0, 1 - 2**-53]`` (never 1.0). On the
        backend of the array arguments, else on the active backend (0-D arrays for
        scalar arguments). Bit-identical on NumPy and CuPy.

    Raises
    ------
    TypeError
        An argument is a float, bool, string, masked array or an array of a
        non-integer dtype; arrays of two backends are mixed. The message names the
        argument.
    ValueError
        A value is negative or above ``2**64 - 1`` (the message names the argument);
        the shapes do not broadcast, or broadcast to more than ``2**63 - 1`` bytes of
        results; a dask argument has chunk lengths dask does not know.
    MemoryError
        The result does not fit in memory (the message names the function and gives
        the result's shape and size).

    Notes
    -----
    Salmon, Moraes, Dror, Shaw, "Parallel random numbers: as easy as 1, 2, 3", SC'11
    (see :func:`philox4x32_10`); the mapping of seed, stream and counter to key and
    counter words is in the package docstring and docs/rng.md.
    """
    return _dispatch("uniform2", "philox_uniform2", seed, stream, counter)


def philox_normal(seed, stream, counter):
    """Standard normal float64 per counter: Box–Muller ``r cos(theta)``.

    ``r = sqrt(-2 log(1 - u0))``, ``theta = 2 pi u1`` with ``(u0, u1)`` from
    :func:`philox_uniform2`. ``1 - u0`` is exact and never 0, so ``r`` is finite: at
    most ``sqrt(2 * 53 ln 2)``, about 8.57, the largest magnitude of a value.

    Parameters
    ----------
    seed, stream, counter : int or integer array
        As in :func:`philox_uniform2`: values in ``[0, 2**64 - 1]`` that broadcast
        together.

    Returns
    -------
    array of float64, broadcast shape
        One standard normal per ``(seed, stream, counter)``, on the backend of the array
        arguments, else on the active backend (a 0-D array for scalar arguments).
        Bit-identical on NumPy and CuPy (log and sin/cos built from IEEE ``+ - * /
        sqrt`` only, in one fixed order; docs/rng.md gives the accuracy against
        ``numpy.log``/``numpy.cos``).

    Raises
    ------
    TypeError
        An argument is a float, bool, string, masked array or an array of a
        non-integer dtype; arrays of two backends are mixed. The message names the
        argument.
    ValueError
        A value is negative or above ``2**64 - 1`` (the message names the argument);
        the shapes do not broadcast, or broadcast to more than ``2**63 - 1`` bytes of
        results; a dask argument has chunk lengths dask does not know.
    MemoryError
        The result does not fit in memory (the message names the function and gives
        the result's shape and size).

    Notes
    -----
    Box, G. E. P. and Muller, M. E. (1958), "A note on the generation of random
    normal deviates", Ann. Math. Statist. 29(2), 610-611. The log is ``2 atanh(s)`` on
    the mantissa of ``1 - u0`` (its Taylor series to ``s**21``), sin and cos Taylor
    series after an exact reduction of ``4 u1`` (docs/rng.md).
    """
    return _dispatch("normal", "philox_normal", seed, stream, counter)


def philox_normal2(seed, stream, counter):
    """Two independent standard normals per counter: ``(r cos(theta), r sin(theta))``.

    The Box–Muller pair of :func:`philox_normal` (``r`` and ``theta`` from the two
    uniforms of :func:`philox_uniform2`); the first array equals
    :func:`philox_normal`. The generator :class:`Philox` draws its normals this way.

    Parameters
    ----------
    seed, stream, counter : int or integer array
        As in :func:`philox_uniform2`: values in ``[0, 2**64 - 1]`` that broadcast
        together.

    Returns
    -------
    tuple of two arrays of float64, each of the broadcast shape
        ``(z0, z1)``, each of magnitude at most about 8.57 (:func:`philox_normal`), on the
        backend of the array arguments, else on the active backend (0-D arrays for
        scalar arguments). Bit-identical on NumPy and CuPy.

    Raises
    ------
    TypeError
        An argument is a float, bool, string, masked array or an array of a
        non-integer dtype; arrays of two backends are mixed. The message names the
        argument.
    ValueError
        A value is negative or above ``2**64 - 1`` (the message names the argument);
        the shapes do not broadcast, or broadcast to more than ``2**63 - 1`` bytes of
        results; a dask argument has chunk lengths dask does not know.
    MemoryError
        The result does not fit in memory (the message names the function and gives
        the result's shape and size).

    Notes
    -----
    Box and Muller (1958), as for :func:`philox_normal`.
    """
    return _dispatch("normal2", "philox_normal2", seed, stream, counter)
