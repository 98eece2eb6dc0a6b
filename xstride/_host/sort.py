"""NumPy executor for ``sort_by_key``: a stable argsort of the keys and gathers.

NumPy's ``kind="stable"`` is a radix sort for integers of 16 bits or fewer and a
timsort otherwise; both keep equal keys in input order. ``key_bits`` (checked by the
caller) is not needed by NumPy's sort; the keys are checked against it, so a wrong
``key_bits`` is found on the host (the device sort trusts it).
"""

from __future__ import annotations

import numpy as np

from .._core.errors import value_error

__all__ = ["sort_by_key", "check_key_bits"]


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
    order = np.argsort(keys, kind="stable").astype(np.int64, copy=False)
    out = [keys[order], order]
    out.extend(np.take(v, order, axis=0) for v in values)
    return tuple(out)
