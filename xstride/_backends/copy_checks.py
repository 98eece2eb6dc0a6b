"""``asarray``'s ``copy`` on the dask backend.

The standard's ``copy=False``: "the function must never copy ... and must raise a
``ValueError`` in case a copy would be necessary". dask's ``from_array`` copies every
array it takes (a NumPy or CuPy array, and what NumPy makes of a buffer or a scalar),
so ``asarray(obj, copy=False)`` of anything but a dask array made a copy silently
(writes to the NumPy array were not seen by the dask array); it is a ``ValueError``
naming ``copy``, as the NumPy backend's ``asarray`` of a dask array is.
"""

from __future__ import annotations

from .._core.errors import value_error

__all__ = ["check_no_copy"]


def check_no_copy(copy, owned: bool) -> None:
    """The dask backend's ``asarray``: ``copy=False`` of an ``obj`` that is no dask array
    (``owned`` false), which ``from_array`` copies, a ``ValueError``."""
    if copy is False and not owned:
        raise value_error("asarray", "copy", "is False, but the dask array copies 'obj' "
                                             "(dask's from_array copies the arrays it "
                                             "takes); pass copy=None or copy=True")
