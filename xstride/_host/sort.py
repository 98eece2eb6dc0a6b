"""NumPy executor for ``sort_by_key``: a stable order of the keys, then gathers.

The stable order comes from one of two exact routes:

- **packed** (integer keys wider than 16 bits whose range ``max - min`` fits in
  ``64 - bits(n - 1)`` bits, as Morton keys of a box and the key range of one
  partition of a distributed sort do): each key becomes the uint64
  ``(key - min) << bits(n - 1) | row``, and NumPy's default (unstable) ``sort`` of
  these distinct words is the stable sort of the keys, because equal keys differ only
  in their row bits. NumPy's default sort of 64-bit integers is vectorised (the
  x86-simd-sort routines where the CPU has AVX2/AVX-512), several times faster than
  ``argsort(kind="stable")``'s timsort; the row bits give ``order`` and the high bits
  give the sorted keys back without a gather.
- **packed twice** (64-bit keys whose range does not fit, for up to 2**32 rows): a
  least-significant-digit sort in two packed sorts. The first sorts the words
  ``low(key - min) << bits(n - 1) | row`` of the range's low ``64 - bits(n - 1)`` bits;
  the second the words ``high(key - min) << bits(n - 1) | position in the first
  order`` of the rest, so that equal high parts stay in the first order: low parts,
  then rows. Two vectorised sorts and three gathers: 242 against 485 ms for
  ``argsort(kind="stable")`` of 2**22 random uint64 keys on the development machine
  (2026-12-04, median of 7).
- otherwise ``argsort(kind="stable")``: a radix sort for integers of 16 bits or fewer,
  a timsort for wider ones; both keep equal keys in input order.

Both give exactly ``numpy.argsort(keys, kind="stable")`` (tests/test_sort_host.py).

``key_bits`` (checked by the caller) is not needed by NumPy's sort; the keys are
checked against it, so a wrong ``key_bits`` is found on the host (the device sort
trusts it).
"""

from __future__ import annotations

import numpy as np

# the distributed sort's grouping of a chunk by partition (its compiled loop, else None)
from .partition import native_status as partition_status, partition

from .._core.errors import value_error

__all__ = ["sort_by_key", "check_key_bits", "stable_order", "partition", "partition_status",
           "ONE_SORT"]
#: Whether the distributed sort sorts every row in one call where all chunks lie in one
#: memory of one thread: no on the host, whose partitions stay at most 2**22 rows
#: (``sample_sort._output_parts``; docs/dask.md).
ONE_SORT = False

_U64 = np.uint64


def _span(keys: np.ndarray):
    """``(row bits, base, range bits)`` of integer keys wider than 16 bits, n >= 2:
    ``bits(n - 1)``, ``min`` as a uint64 (``key - base`` in uint64 wraps for signed keys
    below zero, exact as the range fits 64 bits), ``bits(max - min)``; else None."""
    n = keys.shape[0]
    if n < 2 or keys.dtype.itemsize <= 2 or keys.dtype.kind not in "iu":
        return None
    lo, hi = keys.min(), keys.max()
    return (n - 1).bit_length(), _U64(int(lo) % 2**64), (int(hi) - int(lo)).bit_length()


def _packed(keys: np.ndarray, span=None):
    """(sorted_keys, order) by the packed route, or None where the words do not fit."""
    span = span or _span(keys)
    if span is None or span[2] > 64 - span[0]:
        return None
    bits, base, _ = span
    n = keys.shape[0]
    # every step in place (each pass over n words costs about as much as a tenth of
    # the sort)
    words = keys.astype(_U64)
    words -= base
    words <<= _U64(bits)
    order = np.arange(n, dtype=np.int64)
    words |= order.view(_U64)
    words.sort()
    np.bitwise_and(words, _U64((1 << bits) - 1), out=order.view(_U64))
    words >>= _U64(bits)
    words += base
    return words.astype(keys.dtype, copy=False), order


def _packed_twice(keys: np.ndarray, span=None):
    """(sorted_keys, order) of keys whose range needs more than ``64 - bits`` bits, by
    the low ``64 - bits`` bits of ``key - base`` sorted with the rows, then the high
    bits with the positions in that first order; None where ``2 * bits > 64`` (more
    than 2**32 rows) or the keys take one packed sort."""
    span = span or _span(keys)
    if span is None or span[2] <= 64 - span[0] or 2 * span[0] > 64:
        return None
    bits, base, _ = span
    n = keys.shape[0]
    low = 64 - bits
    rows = np.arange(n, dtype=np.int64).view(_U64)
    row_mask = _U64((1 << bits) - 1)
    shifted = keys.astype(_U64)
    shifted -= base
    words = shifted & _U64((1 << low) - 1)
    words <<= _U64(bits)
    words |= rows
    words.sort()
    first = np.bitwise_and(words, row_mask, out=words).view(np.int64)   # the first order
    words = shifted[first]
    words >>= _U64(low)
    words <<= _U64(bits)
    words |= rows
    words.sort()
    order = first[np.bitwise_and(words, row_mask, out=words).view(np.int64)]
    return keys[order], order


def stable_order(keys: np.ndarray) -> tuple:
    """``(keys[order], order)`` with ``order = numpy.argsort(keys, kind="stable")``
    (int64) of checked 1-D integer keys."""
    span = _span(keys)
    got = _packed(keys, span) or _packed_twice(keys, span)
    if got is not None:
        return got
    order = np.argsort(keys, kind="stable").astype(np.int64, copy=False)
    return keys[order], order


def check_key_bits(keys: np.ndarray, key_bits: int) -> None:
    """Raise ``ValueError`` naming the first key outside ``[0, 2**key_bits)``."""
    if keys.size == 0 or key_bits >= 8 * keys.dtype.itemsize:   # the full width: any key
        return
    top = np.array((1 << key_bits) - 1, dtype=keys.dtype)   # the largest key that fits
    bad = (keys > top) if keys.dtype.kind == "u" else ((keys < 0) | (keys > top))
    if bad.any():
        first = int(np.argmax(bad))
        raise value_error("sort_by_key", "keys", f"has keys[{first}] = {int(keys[first])}, "
                                                 f"outside [0, 2**{key_bits}) given by "
                                                 f"key_bits={key_bits}")


def sort_by_key(keys: np.ndarray, values, key_bits=None) -> tuple:
    """(sorted_keys, order int64, *sorted_values) of checked 1-D keys and (n,)/(n, k) values."""
    if key_bits is not None:
        check_key_bits(keys, key_bits)
    sk, order = stable_order(keys)
    out = [sk, order]
    out.extend(np.take(v, order, axis=0) for v in values)
    return tuple(out)
