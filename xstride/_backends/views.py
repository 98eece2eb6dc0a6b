"""Memory facts of NumPy and CuPy arrays that xstride's views need: the allocation
behind an array, and how a view of it is made.

The buffer a view may reach is the whole underlying allocation:

- NumPy: follow ``a.base`` to the last ndarray (through the holder behind views made
  here, so a view of a view reaches what its source reached, and through NumPy's own
  holder behind ``np.lib.stride_tricks.as_strided`` and ``sliding_window_view``
  views, so theirs reach their source's allocation, not only what the view itself
  spans); if that one's base is a
  buffer object (``bytes``, ``mmap``, ``memoryview``...), the buffer's extent, else the
  bytes the owning array itself reaches; where those leave gaps (an owner imported
  through DLPack or ``__array_interface__`` that is not dense), only its elements
  (:func:`numpy_owner_lattice`): the gaps belong to someone else.
- CuPy (``CupyBackend.buffer_range``): follow ``a.base`` to the array that owns the
  memory and take the bytes it reaches, clipped to the allocation behind the memory
  pointer (``a.data.mem``). The allocation alone is not enough: CuPy's memory pool
  rounds sizes up (to 512 bytes), so ``as_strided(cupy.arange(4), (3,), (2,))`` would
  otherwise pass.
"""

from __future__ import annotations

import numpy as np

from ..layout import INT64_MAX, Layout

__all__ = ["numpy_buffer_range", "numpy_owner_lattice", "on_owner_lattice",
           "numpy_whole_objects", "numpy_objects_dtype", "numpy_field_view",
           "numpy_interface_describes", "numpy_view", "byte_span", "view_byte_strides"]


class _Interface:
    """Holder of an ``__array_interface__`` that keeps the base alive."""

    def __init__(self, interface, base):
        self.__array_interface__ = interface
        self.base = base


#: NumPy's holder of an ``__array_interface__`` behind the views of
#: ``np.lib.stride_tricks.as_strided`` (its ``base`` is the source array).
_NP_HOLDER = type(np.lib.stride_tricks.as_strided(np.zeros(1), (1,), (8,)).base)


def _np_ptr(a) -> int:
    return a.__array_interface__["data"][0]


def _numpy_owner(a):
    """The last ndarray of ``a``'s chain of bases (through the holders of xstride's own
    views and of NumPy's ``as_strided``)."""
    owner = a
    while True:
        held = isinstance(owner.base, (_Interface, _NP_HOLDER))
        nxt = getattr(owner.base, "base", None) if held else owner.base
        if not isinstance(nxt, np.ndarray):
            return owner
        owner = nxt


def numpy_whole_objects(a) -> bool:
    """Whether every element-stride view of NumPy array ``a`` (a dtype holding Python
    objects) inside its buffer reads whole elements of ``a``'s dtype: the buffer is its
    owner's dense elements of that dtype, and ``a`` starts on one of them. A field of a
    structured array (``s['o']``) is not: a view stepping by its item size would read
    the other fields' bytes as object pointers (a crash)."""
    owner = _numpy_owner(a)
    olo, ohi = _np_span(owner)
    return (owner.dtype == a.dtype and ohi - olo == owner.size * a.itemsize
            and numpy_buffer_range(a) == (olo, ohi) and (_np_ptr(a) - olo) % a.itemsize == 0)


def numpy_objects_dtype(a):
    """The dtype holding Python objects behind NumPy array ``a``: ``a``'s own, or that of
    the array owning its buffer (``s['i']``, an int field of records with an object
    field, views memory that holds object references); ``None`` when neither has any."""
    if a.dtype.hasobject:
        return a.dtype
    owner = _numpy_owner(a)
    return owner.dtype if owner.dtype.hasobject else None


def numpy_field_view(a, lay: Layout) -> bool:
    """Whether view ``lay`` of NumPy array ``a``, a dtype without objects over records
    holding them (``s['i']``), reaches only the bytes ``a``'s first element has in its
    record, in whole records: the records dense in their owner, and the view's byte
    offset and the byte stride of each axis it steps along (extent above 1) multiples of
    the record size. Such a view reads and writes the field ``a`` is, never the object
    references beside it (``as_strided(s['i'], (3,), (2,))`` of 16-byte records)."""
    owner = _numpy_owner(a)
    rec = owner.itemsize
    olo, ohi = _np_span(owner)
    if a.dtype.hasobject or rec == 0 or ohi - olo != owner.size * rec:
        return False
    steps = [s * a.itemsize for s, n in zip(lay.strides, lay.shape) if n > 1]
    return (lay.offset * a.itemsize) % rec == 0 and all(s % rec == 0 for s in steps)


def numpy_interface_describes(a) -> bool:
    """Whether ``__array_interface__``, through which :func:`numpy_view` makes views,
    describes NumPy array ``a``'s dtype: every dtype of NumPy's legacy kinds does; a
    dtype of the newer kind may have no typestr (``StringDType``'s is
    ``'StringDType()'``, which NumPy's own ``as_strided`` cannot read either)."""
    if getattr(type(a.dtype), "_legacy", True):
        return True
    try:
        np.dtype(a.__array_interface__["typestr"])
    except TypeError:
        return False
    return True


def _buffer_of(owner) -> tuple[int, int] | None:
    """``[lo, hi)`` of the buffer object behind ``owner`` (an array whose base is no
    ndarray) where it exposes one holding the owner's span, else None."""
    base = owner.base
    if base is None:
        return None
    try:
        buf = np.frombuffer(base, dtype=np.uint8)
    except (TypeError, ValueError, BufferError):  # base exposes no flat buffer
        return None
    p = _np_ptr(buf) if buf.size else 0
    olo, ohi = _np_span(owner)
    return (p, p + buf.size) if p <= olo and ohi <= p + buf.size else None


def numpy_buffer_range(a) -> tuple[int, int]:
    """``[lo, hi)`` absolute byte addresses of the allocation behind NumPy array ``a``."""
    owner = _numpy_owner(a)   # through ndarray bases and the holders of views
    got = _buffer_of(owner)
    return got if got is not None else _np_span(owner)


def numpy_owner_lattice(a) -> tuple | None:
    """The owner's elements, where they alone bound the memory a view of NumPy array
    ``a`` may reach and leave gaps: the owner (:func:`_numpy_owner`) exposes no buffer
    (imported through DLPack, an ``__array_interface__`` object, a strided memoryview)
    and the bytes between its elements belong to someone else (another field of the
    records, object references). ``(lo, axes, size)``: elements of ``size`` bytes at
    ``lo + sum(i_k * stride_k)``, ``axes`` the ``(stride, extent)`` of each axis that
    steps (zero strides and extents of 1 dropped, axes that continue one another
    merged), by stride ascending, each past the whole reach of the ones below it. None
    where the owner holds no gap (a buffer, a dense owner, overlapping elements) and
    where its axes interleave (a layout no NumPy slice makes: its span, as before)."""
    owner = _numpy_owner(a)
    if owner.base is None or _buffer_of(owner) is not None:
        return None   # (an array with no base owns memory NumPy allocated: dense)
    size = owner.itemsize
    axes: list[tuple[int, int]] = []
    for st, n in sorted((abs(int(st)), int(n)) for n, st in zip(owner.shape, owner.strides)
                        if n > 1 and st):
        if axes and st == axes[-1][0] * axes[-1][1]:
            axes[-1] = (axes[-1][0], axes[-1][1] * n)
        else:
            axes.append((st, n))
    reach, gap = size, False
    for st, n in axes:
        if st < reach:
            return None
        gap = gap or st > reach
        reach += st * (n - 1)
    return (_np_span(owner)[0], tuple(axes), size) if gap else None


def _digits(offset: int, axes) -> tuple[list[int], int] | None:
    """The owner index of byte ``offset`` from its lowest element, by the axes from the
    widest stride down, and the bytes past that element's start; None outside."""
    if offset < 0:
        return None
    digits = []
    for st, n in reversed(axes):
        i, offset = divmod(offset, st)
        if i >= n:
            return None
        digits.append(i)
    return digits[::-1], offset


def _step_digits(step: int, axes, k: int, reach: list[int]) -> list[int] | None:
    """The one way to write byte ``step`` as a sum of ``axes[:k + 1]``'s strides times
    integers of magnitude below their extents, or None (the axes nest: at most one)."""
    if k < 0:
        return [] if step == 0 else None
    st, n = axes[k]
    q = step // st
    for c in (q, q + 1):
        rest = step - c * st
        if abs(c) < n and abs(rest) <= reach[k]:
            got = _step_digits(rest, axes, k - 1, reach)
            if got is not None:
                return got + [c]
    return None


def on_owner_lattice(ptr: int, lay: Layout, itemsize: int, lattice) -> bool:
    """Whether every element of view ``lay`` (of ``itemsize``-byte elements from data
    pointer ``ptr``) lies inside one of the owner's elements ``lattice``
    (:func:`numpy_owner_lattice`): its first element's owner index in range, no more
    than ``size - itemsize`` bytes past that element's start, each axis it steps along
    a whole step of owner indices (elements of ``a`` smaller than the owner's, whole
    fractions of them, step inside one too), and the indices the view's box reaches in
    range on every owner axis."""
    lo, axes, size = lattice
    axes = list(axes)
    if itemsize < size and size % itemsize == 0:   # (a .view() of smaller elements)
        axes, size = [(itemsize, size // itemsize)] + axes, itemsize
    first = _digits(ptr + lay.offset * itemsize - lo, axes)
    if first is None or first[1] + itemsize > size:
        return False
    reach = [0] * len(axes)   # reach[k]: most bytes axes[:k] span from an element
    for k in range(1, len(axes)):
        reach[k] = reach[k - 1] + axes[k - 1][0] * (axes[k - 1][1] - 1)
    low, high = list(first[0]), list(first[0])
    for b, n in zip(lay.byte_strides, lay.shape):
        if n < 2:
            continue
        steps = _step_digits(b, axes, len(axes) - 1, reach)
        if steps is None:
            return False
        for k, c in enumerate(steps):
            if c > 0:
                high[k] += c * (n - 1)
            else:
                low[k] += c * (n - 1)
    return min(low) >= 0 and all(h < n for h, (_, n) in zip(high, axes))


def byte_span(a) -> tuple[int, int]:
    """``[lo, hi)`` bytes that ``a`` reaches relative to its data pointer, from its byte
    strides (also for strides that are not whole elements, and items of size 0)."""
    if a.size == 0:
        return 0, 0
    lo = hi = 0
    for n, s in zip(a.shape, a.strides):
        d = (int(n) - 1) * int(s)
        if d < 0:
            lo += d
        else:
            hi += d
    return lo, hi + int(a.itemsize)


def _np_span(a) -> tuple[int, int]:
    p = _np_ptr(a)
    lo, hi = byte_span(a)
    return p + lo, p + hi


def view_byte_strides(lay: Layout) -> tuple[int, ...]:
    """Byte strides of a view. A byte stride past int64 can only belong to an axis that
    is never stepped along (extent 0 or 1, or an empty view: the layout's byte span
    bounds the others); it is given as 0, as NumPy does."""
    return tuple(b if -INT64_MAX - 1 <= b <= INT64_MAX else 0 for b in lay.byte_strides)


def numpy_view(a, lay: Layout):
    """The view of NumPy array ``a`` with layout ``lay`` (offset relative to ``a``'s
    element 0). No bounds check: callers check first (``xstride.views.as_strided``)."""
    bstrides = view_byte_strides(lay)
    off = lay.offset * a.itemsize if lay.size else 0
    iface = dict(a.__array_interface__)
    iface["shape"] = lay.shape
    iface["strides"] = bstrides
    iface["data"] = (_np_ptr(a) + off, not a.flags.writeable)
    iface.pop("mask", None)
    iface.pop("offset", None)
    # the holder keeps the array owning the memory alive, not ``a``: a view of a view of
    # ... holds no chain of the views between (each kept alive, and walked by every
    # later view's bounds check: quadratic time in a loop of ``v = as_strided(v, ...)``)
    view = np.asarray(_Interface(iface, _numpy_owner(a)))
    dt = view.dtype
    if dt != a.dtype or dt.metadata != a.dtype.metadata or dt.type is not a.dtype.type:
        # structured dtypes travel through 'descr', and the interface drops a dtype's
        # metadata (h5py's types) and its scalar type (numpy.record of a recarray's
        # dtype comes back numpy.void, although the two dtypes compare equal)
        view = view.view(a.dtype)
    return view


