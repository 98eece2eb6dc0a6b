"""NumPy executor for ``sort_by_key``: a stable argsort of the keys and gathers.

NumPy's ``kind="stable"`` is a radix sort for integers of 16 bits or fewer and a
timsort otherwise; both keep equal keys in input order.
"""

from __future__ import annotations

import numpy as np

__all__ = ["sort_by_key"]


def sort_by_key(keys: np.ndarray, values) -> tuple:
    """(sorted_keys, order int64, *sorted_values) of checked 1-D keys and (n,)/(n, k) values."""
    order = np.argsort(keys, kind="stable").astype(np.int64, copy=False)
    out = [keys[order], order]
    out.extend(np.take(v, order, axis=0) for v in values)
    return tuple(out)
