"""Zero-copy strided views (``xp.as_strided``, ``xp.sliding_window_view``) and
``copy_into``, on NumPy and CuPy arrays alike.

Strides and offsets are in **elements** (not bytes). ``xp.permute_dims``,
``xp.broadcast_to`` and basic slicing are views already in NumPy and CuPy; read their
element strides with :meth:`xstride.Layout.from_array`. See ``docs/layout-and-views.md``.
"""

import operator as _operator

import numpy as _np

from . import _backends
from ._backends.views import numpy_whole_objects as _whole_objects
from ._backends.views import numpy_objects_dtype as _objects_dtype
from ._backends.views import numpy_field_view as _field_view
from ._backends.views import numpy_owner_lattice as _owner_lattice
from ._backends.views import on_owner_lattice as _on_owner_lattice
from ._backends.views import numpy_interface_describes as _interface_describes
from .elementwise import _copy_into_checks, _copyto_overlaps, _plain_into
from .elementwise import copy_into_checked as _copy_into_checked
from ._core.errors import error as _error, immutable_error as _immutable_error
from ._core.errors import type_error as _type_error, value_error as _value_error
from ._core.errors import argument_error as _argument_error
from ._core.sizes import checked_extents as _checked_extents, checked_size as _checked_size
from .layout import INT64_MAX as _INT64_MAX, Layout as _Layout, MAX_NDIM as _MAX_NDIM

__all__ = ["as_strided", "sliding_window_view", "copy_into"]


def as_strided(a, shape, strides, *, offset=0):
    """A view of ``a``'s buffer with the given shape, element strides and offset.

    Parameters
    ----------
    a : numpy.ndarray or cupy.ndarray
        Any view of the buffer (dask arrays have none: ``TypeError``); ``offset`` and the reach of the view are relative to
        ``a``'s element 0.
    shape : tuple of int
        Extents of the view, each ``>= 0``: a tuple, list or range of ints, a 1-D
        integer NumPy array, or one int.
    strides : tuple of int
        Strides in elements (any sign), one per axis, in the same forms.
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
        ``a`` is not a NumPy/CuPy array (a dask array included), or shape/strides/offset
        are not integers (a set, dict, bytes or generator is not a shape); a NumPy
        ``a`` whose dtype the array interface cannot describe (``StringDType``).
    ValueError
        Shape and strides differ in rank; a negative extent; a size or offset that
        overflows int64 (an empty shape whose non-zero extents times the item size do,
        NumPy's rule, too); or an element of the view outside the underlying buffer
        (either end, negative strides included); on NumPy, an ``a`` over a buffer
        holding Python objects that is not whole elements of it (a field of a
        structured array with an object field, that field, or another one viewed off
        whole records). An empty view is always accepted.

    Examples
    --------
    >>> import numpy as np
    >>> as_strided(np.arange(5), (5,), (-1,), offset=4)
    array([4, 3, 2, 1, 0])
    >>> as_strided(np.arange(6), (2, 3), (1, 1))
    array([[0, 1, 2],
           [1, 2, 3]])
    """
    return _as_strided(a, shape, strides, offset=offset)


def sliding_window_view(x, window_shape, axis=None, *, writeable=False):
    """Sliding windows over ``x`` as a zero-copy view, as NumPy's function of that name.

    Parameters
    ----------
    x : numpy.ndarray, cupy.ndarray or dask.array.Array
        A dask array gets dask's own function (a new, read-only array: no memory to
        view); where its windows are empty or ``x`` is 0-d, a result made by xstride.
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
        Shape ``x.shape`` with each windowed axis shortened by ``window - 1`` (once per
        entry of ``axis`` that names it), then the window axes appended.

    Raises
    ------
    TypeError
        ``x`` is not an array; ``window_shape`` or ``axis`` are not ints;
        ``writeable`` is not a bool; a NumPy ``x`` whose dtype the array interface
        cannot describe (``StringDType``, which NumPy's function refuses too).
    ValueError
        A window larger than its axis, a negative window, ``axis`` out of range
        (``numpy.exceptions.AxisError``, a ``ValueError``, as NumPy raises),
        window_shape/axis of different lengths, or a dask ``x`` whose chunk lengths are
        unknown (``x.compute_chunk_sizes()`` first).

    Notes
    -----
    As NumPy, the windows apply one after another: an axis named twice in ``axis`` is
    checked against, and shortened from, what the earlier windows on it left, so
    ``sliding_window_view(np.arange(2), (2, 2), axis=(0, 0))`` raises and
    ``sliding_window_view(np.arange(1), (0, 2), axis=(0, 0))`` has shape ``(1, 0, 2)``
    (a window of 0 lengthens its axis by one).
    """
    return _sliding_window_view(x, window_shape, axis, writeable=writeable)


def copy_into(dst, src):
    """Copy ``src`` into the existing array ``dst`` (any view), broadcasting ``src``.

    Parameters
    ----------
    dst : numpy.ndarray or cupy.ndarray
        Destination; it must not overlap itself. A dask array (immutable) is a
        ``TypeError``.
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
    When ``src`` and ``dst`` share memory ``src`` is read completely before ``dst`` is
    written, as through a temporary (also where ``numpy.copyto`` is not: a 1-D ``dst``
    and a ``src`` of another stride, which is then copied first). On CuPy arrays this runs on xstride's
    elementwise engine (any layout at memory bandwidth); on NumPy arrays it is
    ``numpy.copyto``.
    """
    if type(dst) is _np.ndarray and type(src) is _np.ndarray:   # one backend, no look
        if not _plain_into(dst, src) or (dst.strides != src.strides
                                         and _copyto_overlaps(dst, src)):
            return _copy_into_checks(_backends.of_array(dst), dst, src)
        try:   # NumPy's copyto answers it as the checks would
            _np.copyto(dst, src, casting="same_kind")
        except (TypeError, ValueError):   # its cast check precedes the copy: ours name it
            return _copy_into_checks(_backends.of_array(dst), dst, src)
        return dst
    return _copy_into_checked(_backends.of("copy_into", [("dst", dst), ("src", src)]),
                              dst, src)


# ----------------------------------------------------------------------------- checks
def _check_array(func, arg, a, *, immutable_too):
    """The backend of array ``a``; the ``TypeError`` for anything else names the array
    types ``func`` takes (those of immutable backends only when ``immutable_too``)."""
    be = _backends.of_array(a)
    if be is None or isinstance(a, _np.generic):
        taken = [b.array_name for b in _backends.each() if immutable_too or not b.immutable]
        raise _type_error(func, arg, a, f"an array ({', '.join(taken[:-1])} or {taken[-1]})"
                         if len(taken) > 1 else f"an array ({taken[0]})")
    return be


def _int_tuple(func, name, value):
    given = value   # the error names what the caller passed
    if isinstance(value, _np.ndarray) and value.ndim == 1 and value.dtype.kind in "iu":
        value = value.tolist()  # NumPy's as_strided takes array shapes too
    elif isinstance(value, int) or hasattr(value, "__index__"):
        value = (value,)
    elif not isinstance(value, (tuple, list, range)):
        # a set or dict iterates in an order of its own, bytes as their byte values
        raise _type_error(func, name, given, "a tuple of integers")
    try:
        out = tuple(int(v.__index__()) if not isinstance(v, int) else v for v in value)
    except (TypeError, AttributeError):
        raise _type_error(func, name, given, "a tuple of integers") from None
    if any(isinstance(v, bool) for v in value):   # True is an int to Python, not a size
        raise _type_error(func, name, given, "a tuple of integers (not bools)")
    return out


def _check_itemsize(func, arg, a):
    if a.itemsize < 1:
        raise _value_error(func, arg, f"has dtype {a.dtype} of item size 0; element strides "
                                     "and offsets cannot describe items of no size")


def _check_describable(func, arg, a):
    """A NumPy array whose dtype the array interface cannot describe (``StringDType``)
    has no strided view: NumPy's ``as_strided`` fails on it with an unnamed
    ``TypeError``; this one names the function and the argument."""
    if isinstance(a, _np.ndarray) and not _interface_describes(a):
        raise _argument_error(TypeError, func, arg, f"has dtype {a.dtype}, which NumPy's "
                              "array interface cannot describe, so no strided view of it "
                              "can be made (NumPy's as_strided cannot either); convert it "
                              f"to a fixed-width dtype first (numpy.array({arg}.tolist()) "
                              "for strings)")


def _view_layout(func, shape, strides, offset, itemsize):
    """The checked Layout of a view; errors name ``func``; the view's byte size must fit
    int64 (NumPy's and CuPy's limit on ``nbytes``), checked here on every backend."""
    try:
        lay = _Layout(shape, strides, offset, itemsize)
    except ValueError as exc:
        text = str(exc).removeprefix('Layout: ')
        if "reachable" in text and func == "as_strided" and not (
                -_INT64_MAX - 1 <= offset * itemsize <= _INT64_MAX):   # the offset alone
            raise _value_error(func, "offset", f"{offset} elements of {itemsize} bytes are "
                                               f"{offset * itemsize} bytes, past int64: no "
                                               "buffer holds that element") from None
        if "reachable" in text and func == "as_strided":   # its span leaves int64
            raise _value_error(func, "strides", f"{tuple(strides)} with shape {tuple(shape)} "
                                                f"and offset {offset} reach too far: {text}"
                               ) from None
        raise _error(ValueError, func, text) from None
    except TypeError as exc:
        raise _error(TypeError, func, f"{str(exc).removeprefix('Layout: ')}") from None
    if lay.size * itemsize > _INT64_MAX:
        raise _value_error(func, "shape", f"{lay.shape} has {lay.size} elements of "
                                         f"{itemsize} bytes: {lay.size * itemsize} bytes, "
                                         "more than an array may hold (2**63 - 1)")
    return lay


def _check_empty_extents(func, arg, shape, itemsize: int, *, result=False) -> None:
    """NumPy's rule for every array, an empty one too (``_core/sizes.checked_extents``:
    ``numpy.empty((0, 2**62, 4), numpy.int8)`` is "array is too big", naming nothing).
    For a shape with elements it is the byte size, which the size rule checks; checked
    on every backend, as that rule is."""
    _checked_extents(func, arg, tuple(shape), itemsize, result=result, noun="view")


def _byte_strides_hint(strides, itemsize: int, shape, offset: int, first: int,
                       last: int) -> str:
    """A hint where ``strides`` look like NumPy's byte strides (``a.strides``): each a
    multiple of the item size, and in elements the view would fit the buffer."""
    if itemsize < 2 or any(s % itemsize for s in strides):
        return ""
    lo = hi = offset
    for n, s in zip(shape, strides):
        step = (n - 1) * (s // itemsize)
        lo, hi = lo + min(0, step), hi + max(0, step)
    if first <= lo and hi <= last:
        in_elements = tuple(s // itemsize for s in strides)
        return (f"; strides count elements, not bytes (NumPy's a.strides are bytes): "
                f"strides={in_elements} would fit")
    return ""


def _as_strided(a, shape, strides, *, offset=0):
    be = _check_array("as_strided", "a", a, immutable_too=False)
    if be.immutable:
        raise _immutable_error("as_strided", "a", a, be.name, "use the library's own "
                              "functions (reshape, broadcast_to, slicing, "
                              "sliding_window_view), which make new arrays")
    _check_itemsize("as_strided", "a", a)
    _check_describable("as_strided", "a", a)
    shape = _int_tuple("as_strided", "shape", shape)
    strides = _int_tuple("as_strided", "strides", strides)
    if len(shape) != len(strides):
        raise _value_error("as_strided", "strides", f"{strides} has rank {len(strides)} but "
                                                    f"shape {shape} has rank {len(shape)}")
    for n in shape:
        if n < 0:
            raise _value_error("as_strided", "shape", f"{shape} has a negative extent {n}")
    if isinstance(offset, (bool, _np.bool_)):
        raise _type_error("as_strided", "offset", offset, "an int")
    try:
        offset = _operator.index(offset)
    except TypeError:   # also NumPy's for an array that is not one integer
        raise _type_error("as_strided", "offset", offset, "an int") from None
    if not -_INT64_MAX - 1 <= offset <= _INT64_MAX:
        raise _value_error("as_strided", "offset", f"{offset} does not fit in a signed "
                                                  "64-bit integer")
    # an empty view reaches nothing and starts at a's pointer: its offset (checked to fit
    # int64 above) plays no part, and its byte offset or empty span may leave int64
    empty = 0 in shape
    lay = _view_layout("as_strided", shape, strides, 0 if empty else offset, a.itemsize)
    if empty:
        _check_empty_extents("as_strided", "shape", lay.shape, a.itemsize)
    if not empty:
        held = _objects_dtype(a) if isinstance(a, _np.ndarray) else None
        if held is not None and not _whole_objects(a) and not _field_view(a, lay):
            # an object field, or a plain field beside one viewed across records' other
            # bytes: a view stepping by its item size reads other bytes as references,
            # or writes over them (a crash); whole records of a plain field are its own
            holds = ("holding Python objects" if held == a.dtype else
                     f"over a buffer holding Python objects (dtype {held})")
            raise _value_error("as_strided", "a", f"has dtype {a.dtype} {holds} and is not a "
                              "whole-element view of an array of that dtype (a field of a "
                              "structured array?): a view stepping by its item size could "
                              "read or write other bytes as object references; view the "
                              "whole records and take the field from that view")
        blo, bhi = be.buffer_range(a)
        ptr = be.data_ptr(a)
        vlo, vhi = lay.byte_span()
        if ptr + vlo < blo or ptr + vhi > bhi:
            lo, hi = lay.span()
            # the buffer's whole elements: a buffer that starts or ends inside an
            # element (a view made at a byte offset) does not hold that element
            first, last = -((ptr - blo) // a.itemsize), (bhi - ptr) // a.itemsize - 1
            raise _error(
                ValueError, "as_strided", f"the view (shape {shape}, strides {strides}, offset {offset}) "
                f"reaches elements {lo}..{hi} relative to a[0], outside the underlying buffer, "
                f"which holds elements {first}..{last} relative to a[0]"
                + _byte_strides_hint(strides, a.itemsize, shape, offset, first, last))
        grid = _owner_lattice(a) if isinstance(a, _np.ndarray) else None
        if grid is not None and not _on_owner_lattice(ptr, lay, a.itemsize, grid):
            raise _value_error("as_strided", "a", "views memory known only through a strided "
                               "array (imported by DLPack, a memoryview or "
                               "__array_interface__), whose gaps belong to other data; the "
                               f"view (shape {shape}, strides {strides}, offset {offset}) "
                               "reaches bytes between its elements. Step on whole elements "
                               "of that array, or copy it first (xp.asarray(a, copy=True))")
    view = be.make_view(a, lay)
    if be.readonly_views and lay.has_internal_overlap:
        # two indices reach one element: allowed for reading only (CuPy arrays have
        # no read-only flag; xstride's outputs refuse such views on both backends)
        view.flags.writeable = False
    return view


def _sliding_window_view(x, window_shape, axis=None, *, writeable=False):
    be = _check_array("sliding_window_view", "x", x, immutable_too=True)
    if not isinstance(writeable, (bool, _np.bool_)):
        raise _type_error("sliding_window_view", "writeable", writeable, "True or False")
    writeable = bool(writeable)
    window = _int_tuple("sliding_window_view", "window_shape", window_shape)
    if any(w < 0 for w in window):
        raise _value_error("sliding_window_view", "window_shape",
                          f"{window} has a negative entry")
    if axis is None:
        if len(window) != x.ndim:
            raise _value_error("sliding_window_view", "window_shape",
                              f"{window} must have one entry per axis of x ({x.ndim}) "
                              "when axis is None")
        axes = tuple(range(x.ndim))
    else:
        axes = _int_tuple("sliding_window_view", "axis", axis)
        if len(axes) != len(window):
            raise _value_error("sliding_window_view", "axis",
                              f"{axes} must have as many entries as window_shape {window}")
        norm = []
        for ax in axes:
            if not -x.ndim <= ax < x.ndim:   # NumPy's AxisError (a ValueError, as before)
                raise _argument_error(_np.exceptions.AxisError, "sliding_window_view", "axis",
                                      f"{ax} is out of range for {x.ndim} axes")
            norm.append(ax % x.ndim)
        axes = tuple(norm)
    if any(n != n for n in x.shape):   # NaN: a dask array after boolean indexing
        raise _value_error("sliding_window_view", "x", "has chunk lengths that dask does not "
                                                      "know (as after boolean indexing); call "
                                                      "x.compute_chunk_sizes() first")
    # NumPy's rule: the windows apply one after another, so a repeated axis is checked
    # against what the earlier windows on it left (a window of 0 lengthens the axis by 1)
    shape = list(x.shape)
    for ax, w in zip(axes, window):
        if shape[ax] < w:
            left = "" if shape[ax] == x.shape[ax] else \
                f" as the earlier windows on that axis leave it ({shape[ax]})"
            raise _value_error("sliding_window_view", "window_shape",
                              f"{window} is larger than the input along axis {ax}{left} "
                              f"(shape {tuple(x.shape)})")
        shape[ax] -= w - 1
    shape += list(window)
    if len(shape) > _MAX_NDIM:   # dask's failed in NumPy, naming no function
        raise _value_error("sliding_window_view", "window_shape",
                          f"gives a result of rank {len(shape)} ({x.ndim} axes of x and "
                          f"{len(window)} window axes), more than {_MAX_NDIM}")
    # the size rule on every backend (dask's function would build a graph of any size)
    _checked_size("sliding_window_view", "window_shape", tuple(shape), x.itemsize, result=True)
    _check_empty_extents("sliding_window_view", "window_shape", tuple(shape), x.itemsize,
                         result=True)
    _check_describable("sliding_window_view", "x", x)
    if be.immutable:  # no memory to view: the library's function makes a new array
        if writeable:
            raise _immutable_error("sliding_window_view", "writeable", writeable, be.name,
                                  "its windows are read-only; call with writeable=False")
        return be.library_sliding_window_view(x, window, axes, writeable)
    if x.itemsize == 0 or any(st % x.itemsize for st in x.strides):
        # items of no size, or byte strides that are not whole elements (a field of a
        # structured array): no element Layout describes x; the library's own function
        # makes the view where it has one
        view = be.library_sliding_window_view(x, window, axes, writeable)
        if view is not None:
            return view
        _check_itemsize("sliding_window_view", "x", x)
        raise _value_error("sliding_window_view", "x",
                          f"has byte strides {tuple(x.strides)} that are not multiples of "
                          f"its itemsize {x.itemsize}")
    base = _Layout.from_array(x)
    strides = list(base.strides) + [base.strides[ax] for ax in axes]
    view = be.make_view(x, _view_layout("sliding_window_view", tuple(shape), tuple(strides),
                                        0, x.itemsize))
    if be.readonly_views and not writeable:
        view.flags.writeable = False
    return view
