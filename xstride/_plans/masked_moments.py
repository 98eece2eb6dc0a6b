"""The result dtype of ``mean``, ``var`` and ``std`` of a ``numpy.ma`` masked array.

``numpy.ma`` divides the masked sum by an integer count, so its ``mean``, ``var`` and
``std`` of float16, float32 and complex64 data are float64 or complex128, where NumPy's
of plain arrays, the standard and the dask backend (of masked chunks) keep the
precision: ``mean`` keeps a floating or complex dtype, ``var``/``std`` give the real
dtype of its precision. :func:`masked_moment_result` casts such a result to that dtype
(its mask kept); integer data give float64 either way. A floating or complex ``dtype=``
is the result's dtype, as NumPy's of plain arrays (``numpy.ma``'s was float64 or
complex128 for any).
"""

from __future__ import annotations

import sys

import numpy as np

__all__ = ["masked_moment_result"]


def masked_moment_result(func: str, x, res, dtype=None):
    """``res``, the library's ``func`` (``"mean"``, ``"var"``, ``"std"``) of ``x``, in the
    standard's dtype where ``x`` is a ``numpy.ma`` array of floating or complex data, or
    in a floating or complex ``dtype=`` given (NumPy's of a plain array, and the dask
    backend's: ``numpy.ma`` gave float64 for ``dtype=float32``; ``mean``'s integer or
    bool one too); anything else (``var``/``std`` of an integer or bool ``dtype=``, and the
    ``masked`` constant of an all-masked reduction) as it is."""
    ma = sys.modules.get("numpy.ma")   # not imported: nothing is masked
    if ma is None or not isinstance(x, ma.MaskedArray) or res is ma.masked:
        return res
    dt = np.dtype(x.dtype)
    if dtype is not None:
        want = np.dtype(dtype)
        # an integer (or bool) mean casts numpy.ma's quotient of the sum in that dtype,
        # as NumPy's casts its own; var/std of an integer or bool dtype= stay numpy.ma's
        if want.kind not in "fc" and not (func == "mean" and want.kind in "iub"):
            return res
    elif dt.kind not in "fc":
        return res
    else:
        want = dt if func == "mean" else np.empty(0, dt).real.dtype
    got = getattr(res, "dtype", None)
    return res if got is None or got == want else res.astype(want)
