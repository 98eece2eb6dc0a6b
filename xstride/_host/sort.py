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
- otherwise ``argsort(kind="stable")``: a radix sort for integers of 16 bits or fewer,
  a timsort for wider ones; both keep equal keys in input order.

Both give exactly ``numpy.argsort(keys, kind="stable")`` (tests/test_sort_host.py).

``key_bits`` (checked by the caller) is not needed by NumPy's sort; the keys are
checked against it, so a wrong ``key_bits`` is found on the host (the device sort
trusts it).
"""

from __future__ import annotations

import numpy as np

from .._core.errors import value_error

__all__ = ["sort_by_key", "check_key_bits", "stable_order", "SPLIT"]
#: How the distributed sort (``xstride/_chunked/sample_sort.py``) splits a chunk of
#: this backend among the output partitions: sort it (a packed sort costs less here
#: than a binary search per key among the splitters), then cut it.
SPLIT = "sorted"

_U64 = np.uint64


def _packed(keys: np.ndarray):
    """(sorted_keys, order) by the packed route, or None where the words do not fit."""
    n = keys.shape[0]
    if n < 2 or keys.dtype.itemsize <= 2 or keys.dtype.kind not in "iu":
        return None
    bits = (n - 1).bit_length()
    lo, hi = keys.min(), keys.max()
    span = int(hi) - int(lo)
    if span >> (64 - bits):
        return None
    # keys - lo in uint64: wraps for signed keys below zero, exact as the span fits;
    # every step in place (each pass over n words costs about as much as a tenth of
    # the sort)
    base = _U64(int(lo) % 2**64)
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


def stable_order(keys: np.ndarray) -> tuple:
    """``(keys[order], order)`` with ``order = numpy.argsort(keys, kind="stable")``
    (int64) of checked 1-D integer keys."""
    got = _packed(keys)
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
