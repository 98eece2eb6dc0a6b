"""The input dtype of the reductions' public dtype rules (``xp.reductions``'s
``default_sum_dtype`` and ``moment_dtype``).

They read ``dt.kind`` of a NumPy dtype: given a dtype of the namespace (``xp.int8``, a
type, as the standard's dtype objects are on NumPy) they raised ``AttributeError``, and
a datetime, object or str dtype came back as its own sum's dtype. :func:`input_dtype`
takes what ``numpy.dtype`` takes (but None, which it reads as float64) and refuses
anything that is not a bool or numeric dtype with a ``TypeError`` naming ``dt``.
:func:`refuse_bool_deviations` is ``var``'s and ``std``'s rule for a bool ``dtype=``
of bool ``x``, one ``TypeError`` on every backend.
"""

from __future__ import annotations

import numpy as np

from .._core.errors import type_error

__all__ = ["input_dtype", "refuse_bool_deviations"]

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


def refuse_bool_deviations(func: str, x_dtype, dtype, dt: np.dtype) -> None:
    """``var``/``std`` (``func``) of a bool ``x`` with a bool ``dtype=`` (``dt``): a
    ``TypeError`` naming ``dtype``. The deviations from the mean are taken in ``dtype``,
    and NumPy refuses to subtract bools: the NumPy backend raised NumPy's error ("numpy
    boolean subtract ... is not supported") where the dask backend answered ``True``.
    A bool ``dtype=`` of a numeric ``x`` stays NumPy's (its values are cast first)."""
    if (func in ("var", "std") and dt.kind == "b" and x_dtype is not None
            and np.dtype(x_dtype).kind == "b"):
        raise type_error(func, "dtype", dtype, "a numeric dtype for x of dtype bool (the "
                                               "deviations from the mean are taken in "
                                               "dtype, and bools have no subtraction)")
