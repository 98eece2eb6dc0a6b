"""The result dtype of ``mean``, ``var`` and ``std`` of a ``numpy.ma`` masked array.

``numpy.ma`` divides the masked sum by an integer count, so its ``mean``, ``var`` and
``std`` of float16, float32 and complex64 data are float64 or complex128, where NumPy's
of plain arrays, the standard and the dask backend (of masked chunks) keep the
precision: ``mean`` keeps a floating or complex dtype, ``var``/``std`` give the real
dtype of its precision. :func:`masked_moment_result` casts such a result to that dtype
(its mask kept); integer data give float64 either way.
"""

from __future__ import annotations

import sys

import numpy as np

__all__ = ["masked_moment_result"]


def masked_moment_result(func: str, x, res):
    """``res``, the library's ``func`` (``"mean"``, ``"var"``, ``"std"``) of ``x`` without
    ``dtype=``, in the standard's dtype where ``x`` is a ``numpy.ma`` array of floating or
    complex data; anything else (and the ``masked`` constant of an all-masked
    reduction) as it is."""
    ma = sys.modules.get("numpy.ma")   # not imported: nothing is masked
    if ma is None or not isinstance(x, ma.MaskedArray) or res is ma.masked:
        return res
    dt = np.dtype(x.dtype)
    if dt.kind not in "fc":
        return res
    want = dt if func == "mean" else np.empty(0, dt).real.dtype
    got = getattr(res, "dtype", None)
    return res if got is None or got == want else res.astype(want)
