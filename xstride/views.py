"""Zero-copy strided views (``xp.as_strided``, ``xp.sliding_window_view``) and
``copy_into``, on NumPy and CuPy arrays alike.

Strides and offsets are in **elements** (not bytes). ``xp.permute_dims``,
``xp.broadcast_to`` and basic slicing are views already in NumPy and CuPy; read their
element strides with :meth:`xstride.Layout.from_array`. See ``docs/layout-and-views.md``.
"""

from __future__ import annotations

from ._backends import views as _views
from ._backends.select import backend_of
from .layout import check_output

__all__ = ["as_strided", "sliding_window_view", "copy_into"]


def as_strided(a, shape, strides, *, offset=0):
    """A view of ``a``'s buffer with the given shape, element strides and offset.

    Parameters
    ----------
    a : numpy.ndarray or cupy.ndarray
        Any view of the buffer; ``offset`` and the reach of the view are relative to
        ``a``'s element 0.
    shape : tuple of int
        Extents of the view, each ``>= 0``.
    strides : tuple of int
        Strides in elements (any sign), one per axis.
    offset : int, optional
        Element offset of the view's first element from ``a``'s element 0.

    Returns
    -------
    ndarray
        A view (no copy) of the same backend and dtype as ``a``; writeable when ``a``
        is, except that a NumPy view that overlaps itself (two indices, one element)
        is returned read-only. CuPy arrays have no read-only flag: there, such views
        are refused as outputs by xstride's elementwise functions and ``copy_into``.

    Raises
    ------
    TypeError
        ``a`` is not a NumPy/CuPy array, or shape/strides/offset are not integers.
    ValueError
        Shape and strides differ in rank; a negative extent; a size or offset that
        overflows int64; or an element of the view outside the underlying buffer
        (either end, negative strides included). An empty view is always accepted.

    Examples
    --------
    >>> import numpy as np
    >>> as_strided(np.arange(5), (5,), (-1,), offset=4)
    array([4, 3, 2, 1, 0])
    >>> as_strided(np.arange(6), (2, 3), (1, 1))
    array([[0, 1, 2],
           [1, 2, 3]])
    """
    return _views.as_strided(a, shape, strides, offset=offset)


def sliding_window_view(x, window_shape, axis=None, *, writeable=False):
    """Sliding windows over ``x`` as a zero-copy view, as NumPy's function of that name.

    Parameters
    ----------
    x : numpy.ndarray or cupy.ndarray
    window_shape : int or tuple of int
        Window extent per windowed axis.
    axis : int or tuple of int, optional
        Axes the windows slide along (all axes when omitted).
    writeable : bool, optional
        NumPy only: make the view writeable (default read-only, as NumPy). CuPy has
        no read-only flag; its views are writeable.

    Returns
    -------
    ndarray
        Shape ``x.shape`` with each windowed axis shortened by ``window - 1``, then the
        window axes appended.

    Raises
    ------
    TypeError
        ``x`` is not an array; ``window_shape`` or ``axis`` are not ints;
        ``writeable`` is not a bool.
    ValueError
        A window larger than its axis, a negative window, ``axis`` out of range, or
        window_shape/axis of different lengths.
    """
    return _views.sliding_window_view(x, window_shape, axis, writeable=writeable)


def copy_into(dst, src):
    """Copy ``src`` into the existing array ``dst`` (any view), broadcasting ``src``.

    Parameters
    ----------
    dst : numpy.ndarray or cupy.ndarray
        Destination; it must not overlap itself.
    src : array of the same backend, or a Python scalar
        Broadcast to ``dst.shape``; cast with NumPy's ``same_kind`` rule.

    Returns
    -------
    ndarray
        ``dst``.

    Raises
    ------
    TypeError
        Mixed backends, a cast that is not ``same_kind``, or a non-array ``dst``.
    ValueError
        ``src`` does not broadcast to ``dst.shape``, or ``dst`` overlaps itself (two
        indices reach overlapping bytes; a length-1 axis of stride 0 does not). On
        CuPy, also a ``dst`` whose byte strides are not multiples of its item size (a
        field of a structured array), which xstride's engine cannot index; NumPy
        accepts such a ``dst``.
    OverflowError
        A Python integer ``src`` outside the range of ``dst``'s dtype (NumPy).

    Notes
    -----
    When ``src`` and ``dst`` share memory the result is NumPy's: ``src`` is read
    completely before ``dst`` is written. On CuPy arrays this runs on xstride's
    elementwise engine (any layout at memory bandwidth); on NumPy arrays it is
    ``numpy.copyto``.
    """
    b = backend_of("copy_into", [("dst", dst), ("src", src)])
    if b == "cupy":
        isz = getattr(dst, "itemsize", 0)
        if isz and any(s % isz for s in getattr(dst, "strides", ())):
            # a record's field: the engine indexes whole elements (the error names dst)
            check_output("copy_into", "dst", dst, whole_elements=True)
        from ._kernels.elementwise import copy_into as impl

        return impl(dst, src)
    from ._host.elementwise import copy_into as impl

    return impl(dst, src)
