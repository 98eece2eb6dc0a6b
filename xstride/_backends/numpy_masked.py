"""The NumPy backend's ``concat`` and ``stack`` of ``numpy.ma`` masked arrays.

NumPy's ``concatenate`` and ``stack`` join the arrays' data alone: of masked arrays
they returned a masked array of no mask, the elements that were under the masks
shown as values (the dask backend's, of masked chunks, keep the masks). Where one of
``arrays`` is masked (and no ``out=`` or ``dtype=``, NumPy's extensions, is given),
``numpy.ma``'s functions join the data and the masks alike, a plain array's elements
unmasked; the dtype is NumPy's. Other calls are the library's, unchanged.
"""

from __future__ import annotations

import sys

import numpy as np

from .dispatch import compat_function, register

__all__ = ["masked_among", "concat"]


def masked_among(arrays) -> bool:
    """Whether the list or tuple ``arrays`` holds a ``numpy.ma`` masked array (``numpy.ma``
    imported: an array can only be masked once something has imported it)."""
    ma = sys.modules.get("numpy.ma")
    return (ma is not None and isinstance(arrays, (list, tuple))
            and any(isinstance(a, ma.MaskedArray) for a in arrays))


def concat(arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
    """``concat`` of the standard on NumPy arrays; masked arrays keep their masks."""
    if out is None and dtype is None and masked_among(arrays):
        return np.ma.concatenate(arrays, axis=axis)
    return compat_function("numpy", "concat")(arrays, axis, out, dtype=dtype, casting=casting)


register("concat", "numpy")(concat)
