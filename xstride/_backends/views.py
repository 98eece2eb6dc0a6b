"""Zero-copy strided views on NumPy and CuPy buffers, bounds-checked against the base.

The buffer a view may reach is the whole underlying allocation:

- NumPy: follow ``a.base`` to the last ndarray (through the holder behind views made
  here, so a view of a view reaches what its source reached); if that one's base is a buffer object
  (``bytes``, ``mmap``, ``memoryview``...), the buffer's extent, else the bytes the
  owning array itself reaches.
- CuPy: follow ``a.base`` to the array that owns the memory and take the bytes it
  reaches, clipped to the allocation behind the memory pointer (``a.data.mem``). The
  allocation alone is not enough: CuPy's memory pool rounds sizes up (to 512 bytes),
  so ``as_strided(cupy.arange(4), (3,), (2,))`` would otherwise pass.

A view is accepted when every element it can reach lies inside that range (its
:meth:`~xstride.layout.Layout.byte_span`, negative strides included).
"""

from __future__ import annotations

import numpy as np

from .select import backend_of_array, load_cupy
from .._core.errors import type_error, value_error
from .._core.sizes import checked_size
from ..layout import Layout

__all__ = ["as_strided", "sliding_window_view", "buffer_range", "make_view"]


class _Interface:
    """Holder of an ``__array_interface__`` that keeps the base alive."""

    def __init__(self, interface, base):
        self.__array_interface__ = interface
        self.base = base


def _np_ptr(a) -> int:
    return a.__array_interface__["data"][0]


def buffer_range(a) -> tuple[int, int]:
    """``[lo, hi)`` absolute byte addresses of the allocation behind array ``a``."""
    if backend_of_array(a) == "cupy":
        owner = a
        while owner.base is not None and backend_of_array(owner.base) == "cupy":
            owner = owner.base
        mem = a.data.mem
        olo, ohi = Layout.from_array(owner).byte_span()
        optr = owner.data.ptr
        return max(mem.ptr, optr + olo), min(mem.ptr + mem.size, optr + ohi)
    owner = a
    while True:   # through ndarray bases, and through the holders of xstride's own views
        nxt = owner.base.base if isinstance(owner.base, _Interface) else owner.base
        if not isinstance(nxt, np.ndarray):
            break
        owner = nxt
    base = owner.base
    if base is not None:
        try:
            buf = np.frombuffer(base, dtype=np.uint8)
            p = _np_ptr(buf) if buf.size else 0
            lo, hi = p, p + buf.size
            olo, ohi = _np_span(owner)
            if lo <= olo and ohi <= hi:
                return lo, hi
        except (TypeError, ValueError, BufferError):  # base exposes no buffer:
            pass                                       # the owner's own span below
    return _np_span(owner)


def _np_span(a) -> tuple[int, int]:
    p = _np_ptr(a)
    lay = Layout.from_array(a)
    lo, hi = lay.byte_span()
    return p + lo, p + hi


def make_view(a, lay: Layout):
    """The view of ``a`` with layout ``lay`` (offset relative to ``a``'s element 0).

    No bounds check: callers check first (:func:`as_strided`).
    """
    if backend_of_array(a) == "cupy":
        cupy = load_cupy()
        off = lay.offset * a.itemsize if lay.size else 0
        mem = a.data.mem
        memptr = cupy.cuda.MemoryPointer(mem, a.data.ptr - mem.ptr + off)
        return cupy.ndarray(lay.shape, dtype=a.dtype, memptr=memptr, strides=lay.byte_strides)
    off = lay.offset * a.itemsize if lay.size else 0
    iface = dict(a.__array_interface__)
    iface["shape"] = lay.shape
    iface["strides"] = lay.byte_strides
    iface["data"] = (_np_ptr(a) + off, not a.flags.writeable)
    iface.pop("mask", None)
    iface.pop("offset", None)
    view = np.asarray(_Interface(iface, a))
    if view.dtype != a.dtype:  # structured dtypes travel through 'descr'
        view = view.view(a.dtype)
    return view


def _check_array(func, a):
    b = backend_of_array(a)
    if b is None or isinstance(a, np.generic):
        raise type_error(func, "a" if func == "as_strided" else "x", a,
                         "a numpy.ndarray or cupy.ndarray")
    return b


def _int_tuple(func, name, value):
    if isinstance(value, np.ndarray) and value.ndim == 1 and value.dtype.kind in "iu":
        value = value.tolist()  # NumPy's as_strided takes array shapes too
    elif isinstance(value, int) or hasattr(value, "__index__"):
        value = (value,)
    try:
        out = tuple(int(v.__index__()) if not isinstance(v, int) else v for v in value)
    except (TypeError, AttributeError):
        raise type_error(func, name, value, "a tuple of integers") from None
    if any(isinstance(v, bool) for v in value):   # True is an int to Python, not a size
        raise type_error(func, name, value, "a tuple of integers (not bools)")
    return out


def as_strided(a, shape, strides, *, offset=0):
    """View of ``a``'s buffer with the given shape, element strides and element offset."""
    _check_array("as_strided", a)
    shape = _int_tuple("as_strided", "shape", shape)
    strides = _int_tuple("as_strided", "strides", strides)
    if len(shape) != len(strides):
        raise value_error("as_strided", "strides", f"{strides} has rank {len(strides)} but "
                                                    f"shape {shape} has rank {len(shape)}")
    for n in shape:
        if n < 0:
            raise value_error("as_strided", "shape", f"{shape} has a negative extent {n}")
    try:
        lay = Layout(shape, strides, offset, a.itemsize)
    except ValueError as exc:
        raise ValueError(f"as_strided: {str(exc).removeprefix('Layout: ')}") from None
    except TypeError as exc:
        raise TypeError(f"as_strided: {str(exc).removeprefix('Layout: ')}") from None
    if lay.size:
        blo, bhi = buffer_range(a)
        ptr = a.data.ptr if backend_of_array(a) == "cupy" else _np_ptr(a)
        vlo, vhi = lay.byte_span()
        if ptr + vlo < blo or ptr + vhi > bhi:
            lo, hi = lay.span()
            raise ValueError(
                f"as_strided: the view (shape {shape}, strides {strides}, offset {offset}) "
                f"reaches elements {lo}..{hi} relative to a[0], outside the underlying buffer, "
                f"which holds elements {(blo - ptr) // a.itemsize}.."
                f"{(bhi - ptr) // a.itemsize - 1} relative to a[0]")
    view = make_view(a, lay)
    if isinstance(view, np.ndarray) and lay.has_internal_overlap:
        # two indices reach one element: allowed for reading only (CuPy arrays have
        # no read-only flag; xstride's outputs refuse such views on both backends)
        view.flags.writeable = False
    return view


def sliding_window_view(x, window_shape, axis=None, *, writeable=False):
    """Sliding windows of ``x`` as a zero-copy view (NumPy's semantics)."""
    b = _check_array("sliding_window_view", x)
    window = _int_tuple("sliding_window_view", "window_shape", window_shape)
    if any(w < 0 for w in window):
        raise value_error("sliding_window_view", "window_shape",
                          f"{window} has a negative entry")
    if axis is None:
        if len(window) != x.ndim:
            raise value_error("sliding_window_view", "window_shape",
                              f"{window} must have one entry per axis of x ({x.ndim}) "
                              "when axis is None")
        axes = tuple(range(x.ndim))
    else:
        axes = _int_tuple("sliding_window_view", "axis", axis)
        if len(axes) != len(window):
            raise value_error("sliding_window_view", "axis",
                              f"{axes} must have as many entries as window_shape {window}")
        norm = []
        for ax in axes:
            if not -x.ndim <= ax < x.ndim:
                raise value_error("sliding_window_view", "axis",
                                  f"{ax} is out of range for {x.ndim} axes")
            norm.append(ax % x.ndim)
        axes = tuple(norm)
    if any(st % x.itemsize for st in x.strides):
        # byte strides that are not whole elements (a field of a structured array):
        # no element Layout describes x, so NumPy's own function makes the view
        if b == "numpy":
            return np.lib.stride_tricks.sliding_window_view(x, window, axes,
                                                            writeable=writeable)
        raise value_error("sliding_window_view", "x",
                          f"has byte strides {tuple(x.strides)} that are not multiples of "
                          f"its itemsize {x.itemsize}")
    base = Layout.from_array(x)
    shape = list(base.shape)
    for ax, w in zip(axes, window):
        if shape[ax] < w:
            raise value_error("sliding_window_view", "window_shape",
                              f"{window} is larger than the input along axis {ax} "
                              f"(shape {tuple(x.shape)})")
        shape[ax] -= w - 1
    shape += list(window)
    checked_size("sliding_window_view", "window_shape", tuple(shape), x.itemsize, result=True)
    strides = list(base.strides) + [base.strides[ax] for ax in axes]
    view = make_view(x, Layout(tuple(shape), tuple(strides), 0, x.itemsize))
    if b == "numpy" and not writeable:
        view.flags.writeable = False
    return view
