"""``count_nonzero`` on the NumPy and dask backends: ``x`` an array (NumPy's counted a
list, None as 0 and a str as 1), ``keepdims`` a bool, ``axis`` checked as the
reductions' (dask's took a list); ``numpy.ma`` masked elements not counted (NumPy's
counted the data under the mask; ``numpy.ma``'s gave its masked constant for a selection
all masked); dask's ``keepdims`` by indexing (its ``expand_dims`` refused unknown chunk
lengths); on NumPy a count of every element is NumPy's scalar whatever the ``axis`` that
asks for it (compat's was a 0-D array for ``axis=None`` only). Imported on the first
lookup with the other fixes (``overrides.py``).
"""

from __future__ import annotations

import sys

import numpy as np

from .._core.errors import type_error
from .._plans.reduction import normalize_axis
from .arg_checks import _masked, check_flag
from .dispatch import compat_function, register

__all__ = []


def _unmasked_nonzero(block):
    """A plain bool array: where ``block`` (a ``numpy.ma`` array, or a plain one) is
    nonzero and not masked."""
    ma = sys.modules.get("numpy.ma")
    if ma is None or not isinstance(block, ma.MaskedArray):
        return block != 0
    return ma.filled(block != 0, False)


def _count_nonzero_of(backend: str):
    def count_nonzero(x, /, *, axis=None, keepdims=False):
        """``count_nonzero``: ``keepdims`` a bool (passed on as a Python bool: NumPy's
        refused a NumPy bool), ``axis`` checked as the reductions' (dask's took a list);
        dask's keepdims by indexing (its expand_dims refused unknown chunk lengths)."""
        if not (hasattr(x, "ndim") and hasattr(x, "dtype")):
            # a list, a tuple, a Python scalar, None: refused as the reductions refuse
            # them (NumPy's counted them as arrays, None as 0 and a str as 1; dask's made
            # a dask array of a list)
            raise type_error("count_nonzero", "x", x, f"an array of the {backend} backend "
                                                      "(xstride.asarray(x) makes one)")
        check_flag("count_nonzero", "keepdims", keepdims)
        axes = normalize_axis("count_nonzero", axis, x.ndim)
        if _masked(x) or _masked(getattr(x, "_meta", None)):
            # masked elements are not counted: the count is of a plain bool array, the
            # mask read as False (NumPy's count of every element read the data under the
            # mask; numpy.ma's counts over axes gave its masked constant, a float64, for
            # a selection all masked, where the count is 0)
            x = (_unmasked_nonzero(x) if backend == "numpy"
                 else x.map_blocks(_unmasked_nonzero, dtype=np.bool_,
                                   meta=np.empty((0,) * x.ndim, np.bool_)))
        if keepdims and backend == "dask":
            r = compat_function(backend, "count_nonzero")(x, axis=axis)
            return r[tuple(None if a in axes else slice(None) for a in range(x.ndim))]
        r = compat_function(backend, "count_nonzero")(x, axis=axis, keepdims=bool(keepdims))
        if backend == "numpy" and not keepdims and type(r) is np.ndarray and r.ndim == 0:
            # the count of every element as NumPy's scalar, as NumPy's own count and a
            # count over all axes named one by one give it (compat's was a 0-D array
            # for axis=None only)
            return r[()]
        return r
    return count_nonzero


for _backend_name in ("numpy", "dask"):
    register("count_nonzero", _backend_name)(_count_nonzero_of(_backend_name))
del _backend_name
