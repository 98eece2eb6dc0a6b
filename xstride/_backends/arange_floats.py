"""The float values of ``arange`` of Python ints past 2**53: each exact integer
``start + i * step`` rounded once to the dtype, whatever the magnitudes.

NumPy's ``arange`` computes such values in float64 from ``start`` and the difference of
its first two stored values (``arange(2**53, 2**53 + 4, dtype=float64)`` gave four equal
values). Here, with ``k`` the trailing zero bits common to ``start`` and ``step``, the
values over ``2**k`` are exact integers; where they lie in ``[-2**63, 2**64)`` their
words (modulo 2**64, in uint64) are split into two halves, each exact in float64, whose
float64 sum is the value rounded to nearest; otherwise (rare: more than 64 significant
bits) each value is a Python int, whose ``float()`` is rounded to nearest. Into float32
and float16 the float64 is first made *round-to-odd* (the residual's sign nudges an even
result one step towards the value), so that the one cast after it rounds as a direct
rounding of the exact value would (53 bits is at least the dtype's precision + 2).

Source: IEEE 754 addition rounds the exact sum of its operands; round-to-odd before a
narrower rounding (Boldo and Melquiond, "When double rounding is odd", 2005).
"""

from __future__ import annotations

import numpy as np

__all__ = ["float_values"]

_LOW = np.uint64(2**32 - 1)
_HIGH = np.uint64(2**64 - 2**32)


def _trailing_zeros(v: int) -> int:
    return (v & -v).bit_length() - 1


def _negative(idx, s: int, t: int):
    """Where ``s + idx * t < 0`` (``idx`` int64 or uint64, ``t`` not zero)."""
    if t > 0:   # i < ceil(-s / t)
        first = -(s // t)
        return idx < first if 0 < first <= 2**63 - 1 else np.full(idx.shape, first > 0)
    last = s // -t   # i > floor(s / -t)
    return idx > last if 0 <= last < 2**63 - 1 else np.full(idx.shape, last < 0)


def _words_to_float(idx, s: int, t: int):
    """``(nearest, residual sign)`` in float64 of ``s + idx * t``, all in [-2**63, 2**64):
    the two halves of each word (the high one signed where the value is negative)."""
    words = idx.astype(np.uint64)
    words *= np.uint64(t % 2**64)
    words += np.uint64(s % 2**64)
    high_words = words & _HIGH
    high = high_words.astype(np.float64)
    neg = _negative(idx, s, t)
    if neg.any():
        high[neg] = high_words[neg].view(np.int64).astype(np.float64)
    low = (words & _LOW).astype(np.float64)
    nearest = high + low
    return nearest, np.sign((high - nearest) + low)   # exact: |high| >= 2**32 > low, or 0


#: Elements of a slice of :func:`_ints_to_float` (its Python ints: about 180 bytes each)
_SLICE = 1 << 14


def _ints_to_float(idx, s: int, t: int):
    """The same of values of more than 64 bits: each a Python int, :data:`_SLICE` of
    them at a time (an object array of the whole took 180 bytes an element)."""
    flat = idx.reshape(-1)
    nearest = np.empty(flat.shape, np.float64)
    residual = np.empty(flat.shape, np.float64)
    to_int = np.frompyfunc(int, 1, 1)
    for lo in range(0, flat.size, _SLICE):
        exact = flat[lo:lo + _SLICE].astype(object) * t + s
        near = exact.astype(np.float64)
        nearest[lo:lo + _SLICE] = near
        residual[lo:lo + _SLICE] = np.sign(exact - to_int(near)).astype(np.float64)
    return nearest.reshape(idx.shape), residual.reshape(idx.shape)


def float_values(idx, start: int, step: int, dt):
    """Elements ``idx`` (their global indices, ints) of ``arange`` from the Python ints
    ``start`` by ``step`` (not zero) into the float or complex dtype ``dt``, each the
    exact value rounded once to ``dt``'s precision (values past float64 are the caller's
    to refuse)."""
    dt = np.dtype(dt)
    real = np.empty(0, dt).real.dtype
    if idx.size == 0:
        return np.empty(idx.shape, dt)
    k = _trailing_zeros(step) if start == 0 else min(_trailing_zeros(start),
                                                     _trailing_zeros(step))
    s, t = start >> k, step >> k
    ends = (s + int(idx.min()) * t, s + int(idx.max()) * t)
    if -2**63 <= min(ends) and max(ends) < 2**64:
        nearest, residual = _words_to_float(idx, s, t)
    else:
        nearest, residual = _ints_to_float(idx, s, t)
    if real.itemsize < 8:   # round-to-odd, so that the cast below rounds once
        even = (nearest.view(np.uint64) & np.uint64(1)) == 0
        nudge = even & (residual != 0)
        nearest[nudge] = np.nextafter(nearest[nudge], residual[nudge] * np.inf)
    with np.errstate(over="ignore"):   # past float64: scaled to inf, refused before
        values = np.ldexp(nearest, k)
    # past float32/float16: inf, with the overflow warning of NumPy's cast, as NumPy's
    # arange gives it
    return values.astype(dt)
