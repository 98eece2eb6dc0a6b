"""``asarray``'s ``copy``, checked alike on the NumPy and dask backends.

``copy`` is ``True``, ``False`` or ``None`` (a NumPy bool too), as the standard has it
and as ``reshape``'s and ``astype``'s: NumPy took any value by its truth (``copy=0``
made a view, ``copy=1.0`` a copy) and refused a str with a ``ValueError``, and dask's
``asarray`` of a dask array took any value at all (``copy="yes"``); now a
``TypeError`` naming ``copy`` on both, and so of the NumPy backend's ``from_dlpack``.

The standard's ``copy=False``: "the function must never copy ... and must raise a
``ValueError`` in case a copy would be necessary". dask's ``from_array`` copies every
array it takes (a NumPy or CuPy array, and what NumPy makes of a buffer or a scalar),
so the dask backend's ``asarray(obj, copy=False)`` of anything but a dask array made a
copy silently (writes to the NumPy array were not seen by the dask array); it is a
``ValueError`` naming ``copy``, as the NumPy backend's ``asarray`` of a dask array is.
"""

from __future__ import annotations

import numpy as np

from .._core.errors import type_error, value_error

__all__ = ["check_copy", "check_no_copy"]


def check_copy(copy, func: str = "asarray") -> None:
    """``asarray``'s (or ``func``'s: ``from_dlpack``'s) ``copy``: ``True``, ``False``,
    ``None`` or a NumPy bool."""
    if copy is not None and copy is not True and copy is not False \
            and not isinstance(copy, np.bool_):
        raise type_error(func, "copy", copy, "True, False or None")


def check_no_copy(copy, owned: bool) -> None:
    """The dask backend's ``asarray``: ``copy`` checked (:func:`check_copy`), and
    ``copy=False`` of an ``obj`` that is no dask array (``owned`` false), which
    ``from_array`` copies, a ``ValueError``."""
    check_copy(copy)
    if copy is False and not owned:
        raise value_error("asarray", "copy", "is False, but the dask array copies 'obj' "
                                             "(dask's from_array copies the arrays it "
                                             "takes); pass copy=None or copy=True")
