"""The input dtype of the reductions' public dtype rules (``xp.reductions``'s
``default_sum_dtype`` and ``moment_dtype``).

They read ``dt.kind`` of a NumPy dtype: given a dtype of the namespace (``xp.int8``, a
type, as the standard's dtype objects are on NumPy) they raised ``AttributeError``, and
a datetime, object or str dtype came back as its own sum's dtype. :func:`input_dtype`
takes what ``numpy.dtype`` takes (but None, which it reads as float64) and refuses
anything that is not a bool or numeric dtype with a ``TypeError`` naming ``dt``.
"""

from __future__ import annotations

import numpy as np

from .._core.errors import type_error

__all__ = ["input_dtype"]

_NUMERIC = "biufc"


def input_dtype(func: str, dt) -> np.dtype:
    """``dt`` as a NumPy dtype of a bool or numeric kind, else a ``TypeError`` of
    ``func`` naming ``dt``."""
    try:
        out = dt if isinstance(dt, np.dtype) else None if dt is None else np.dtype(dt)
    except (TypeError, ValueError):   # ValueError: np.dtype(("i4", -1)), bad offsets
        out = None
    if out is None or out.kind not in _NUMERIC:
        raise type_error(func, "dt", dt, "a bool or numeric dtype of the namespace")
    return out
