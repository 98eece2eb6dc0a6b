"""``Layout``: the one description of a strided array that host and device code share.

A layout is a shape, strides and an offset, all in **elements**, plus the item size in
bytes. It is pure Python (no NumPy or CuPy import), immutable and hashable, so plans can
be cached on it. Every quantity is checked to fit in a signed 64-bit integer: a shape
whose element count or byte size (the rule of ``xstride._core.sizes``), or a layout
whose reachable offsets, overflow int64 is refused with ``ValueError`` rather than
wrapping silently. Ranks up to :data:`MAX_NDIM` (64, NumPy's limit) are supported.

See ``docs/layout-and-views.md``.
"""

from __future__ import annotations

import operator
import struct

from ._core.errors import error, value_error
from ._core.sizes import INT64_MAX, checked_size  # noqa: F401 (kept importable)
from ._plans.layout_args import (INT64_MIN as _INT64_MIN, MAX_NDIM, array_fields as _array_fields,
                                 as_int as _int, check_int64 as _check_int64,
                                 checked_shape as _checked_shape, compact as _compact,
                                 int_seq as _int_seq, layout_fields as _layout_fields)
from ._plans.overlap import _overlap, check_output, internal_overlap

__all__ = ["Layout", "MAX_NDIM", "INT64_MAX", "compact_strides", "PACK_FORMAT",
           "internal_overlap", "check_output"]



def PACK_FORMAT(max_ndim: int = MAX_NDIM) -> str:
    """``struct`` format of :meth:`Layout.pack` for a given capacity (little-endian).

    It matches ``xstride_layout_t<MAX_NDIM>`` of ``xstride/layout.cuh``:
    ``long long offset; int ndim; int itemsize; long long shape[N]; long long strides[N];``

    Raises
    ------
    TypeError
        ``max_ndim`` is not an int (bool is refused).
    ValueError
        ``max_ndim`` is outside ``[1, 64]`` (C++ has no zero-length arrays).
    """
    max_ndim = _int(max_ndim, "max_ndim", "PACK_FORMAT")
    if not 1 <= max_ndim <= MAX_NDIM:
        raise value_error("PACK_FORMAT", "max_ndim", f"must be in [1, {MAX_NDIM}], got {max_ndim}")
    return f"<qii{max_ndim}q{max_ndim}q"


def compact_strides(shape) -> tuple[int, ...]:
    """C-order (row-major) strides, in elements, of a compact array of ``shape``.

    Examples
    --------
    >>> compact_strides((2, 3, 4))
    (12, 4, 1)

    Raises ``ValueError`` where a stride does not fit int64 (``(0, 2**62, 4)``).
    """
    return _compact(_checked_shape(shape))


class Layout:
    """Shape, strides and offset (all in elements) and item size (bytes) of a view.

    Parameters
    ----------
    shape : int or sequence of int
        Extents, each ``>= 0``; at most 64 of them. A sequence is a tuple, list or
        range of ints or a 1-D NumPy integer array; NumPy integers count as ints,
        bools (also NumPy's) and floats do not.
    strides : sequence of int, optional
        Element strides, one per axis, any sign. Default: C-contiguous.
    offset : int, optional
        Element offset of index ``(0, ..., 0)`` from the start of the buffer.
    itemsize : int, optional
        Bytes per element (``>= 1``), default 1.

    Raises
    ------
    TypeError
        A non-integer entry.
    ValueError
        Rank above 64, rank mismatch of shape and strides, a negative extent, a
        non-positive itemsize, or a size, byte size (``size * itemsize``), offset, or
        byte extent that overflows int64.

    Notes
    -----
    Instances are immutable and hashable; the methods return new layouts. ``span()``
    of an empty layout is the empty interval ``(offset, offset - 1)``.

    Examples
    --------
    >>> lay = Layout((3, 4), itemsize=4)
    >>> lay.strides
    (4, 1)
    >>> lay.permute((1, 0)).strides
    (1, 4)
    >>> lay.slice((slice(None, None, -1),)).offset
    8
    """

    __slots__ = ("_shape", "_strides", "_offset", "_itemsize", "_hash")

    def __init__(self, shape, strides=None, offset: int = 0, itemsize: int = 1):
        shp, strd, off, isz = _layout_fields(shape, strides, offset, itemsize)
        object.__setattr__(self, "_shape", shp)
        object.__setattr__(self, "_strides", strd)
        object.__setattr__(self, "_offset", off)
        object.__setattr__(self, "_itemsize", isz)
        object.__setattr__(self, "_hash", None)
        lo, hi = self.span()
        _check_int64(lo, "the lowest reachable offset")
        _check_int64(hi, "the highest reachable offset")
        _check_int64(lo * isz, "the lowest reachable byte offset")
        _check_int64((hi + 1) * isz, "the end of the highest reachable element in bytes")

    # ------------------------------------------------------------------ basics
    def __setattr__(self, name, value):
        raise AttributeError("Layout is immutable")

    def __delattr__(self, name):
        # a deleted slot left a Layout whose shape, strides or hash raised AttributeError
        raise AttributeError("Layout is immutable")

    def __reduce__(self):
        # pickle and copy rebuild through the constructor (the default protocol would
        # set the slots one by one, which __setattr__ refuses)
        return (type(self), (self._shape, self._strides, self._offset, self._itemsize))

    @property
    def shape(self) -> tuple[int, ...]:
        """Extents, a tuple of int."""
        return self._shape

    @property
    def strides(self) -> tuple[int, ...]:
        """Strides in elements, a tuple of int."""
        return self._strides

    @property
    def offset(self) -> int:
        """Element offset of the first index from the start of the buffer."""
        return self._offset

    @property
    def itemsize(self) -> int:
        """Bytes per element."""
        return self._itemsize

    @property
    def ndim(self) -> int:
        """Number of axes (0 to 64)."""
        return len(self._shape)

    @property
    def size(self) -> int:
        """Number of elements (product of the shape; 1 for rank 0)."""
        n = 1
        for e in self._shape:
            n *= e
        return n

    @property
    def byte_strides(self) -> tuple[int, ...]:
        """Strides in bytes, as NumPy and CuPy report them."""
        return tuple(s * self._itemsize for s in self._strides)

    def __eq__(self, other):
        if not isinstance(other, Layout):
            return NotImplemented
        return (self._shape, self._strides, self._offset, self._itemsize) == (
            other._shape, other._strides, other._offset, other._itemsize)

    def __hash__(self):
        h = self._hash
        if h is None:
            h = hash((self._shape, self._strides, self._offset, self._itemsize))
            object.__setattr__(self, "_hash", h)
        return h

    def __repr__(self):
        return (f"Layout(shape={self._shape}, strides={self._strides}, "
                f"offset={self._offset}, itemsize={self._itemsize})")

    def replace(self, *, shape=None, strides=None, offset=None, itemsize=None) -> "Layout":
        """A copy with the given fields changed, the others kept (a new shape keeps the strides)."""
        return Layout(self._shape if shape is None else shape,
                      self._strides if strides is None else strides,
                      self._offset if offset is None else offset,
                      self._itemsize if itemsize is None else itemsize)

    # ------------------------------------------------------------------ predicates
    compact_strides = staticmethod(compact_strides)

    @property
    def is_c_contiguous(self) -> bool:
        """True when the strides are the C-order compact strides (size-1 axes ignored).

        An empty layout is C-contiguous, as in NumPy.
        """
        if self.size == 0:
            return True
        step = 1
        for n, s in zip(reversed(self._shape), reversed(self._strides)):
            if n == 1:
                continue
            if s != step:
                return False
            step *= n
        return True

    @property
    def is_dense(self) -> bool:
        """True when the elements fill ``size`` consecutive buffer slots, one each.

        That is, the layout is compact in *some* axis order; strides may be negative
        (a reversed axis is still dense). Size-1 axes are ignored; an empty layout is
        dense.
        """
        if self.size == 0:
            return True
        pairs = sorted((abs(s), n) for n, s in zip(self._shape, self._strides) if n != 1)
        step = 1
        for s, n in pairs:
            if s != step:
                return False
            step *= n
        return True

    @property
    def has_internal_overlap(self) -> bool:
        """True when two different indices reach the same element (exact test).

        A stride-0 axis of extent > 1 overlaps. Otherwise the axes are sorted by
        ``|stride|`` and each must step past the whole extent of the smaller ones;
        layouts that fail this sufficient test but might still be one-to-one
        (interleaved strides such as ``(3, 2)`` with shape ``(2, 3)``) are checked
        exactly by enumerating offsets when that is cheap (``size <= 2**20``), else
        reported as overlapping (conservative).
        """
        return _overlap(self._shape, self._strides, 1)

    # ------------------------------------------------------------------ transforms
    def permute(self, axes) -> "Layout":
        """Reorder the axes: axis ``i`` of the result is axis ``axes[i]`` of ``self``.

        Parameters
        ----------
        axes : sequence of int
            A permutation of ``range(ndim)``; negative entries count from the end.

        Returns
        -------
        Layout
            The same elements: shape and strides reordered, offset and itemsize kept.

        Raises
        ------
        TypeError
            ``axes`` is not a sequence of ints (tuple, list, range, 1-D integer array).
        ValueError
            ``axes`` is not a permutation of ``range(ndim)``.
        """
        nd = self.ndim
        ax = _int_seq(axes, "axes", "axis", "Layout.permute", one_int=False)
        norm = tuple(a + nd if a < 0 else a for a in ax)
        if sorted(norm) != list(range(nd)):
            raise error(ValueError, "Layout.permute", f"{ax} is not a permutation of the {nd} axes")
        return Layout(tuple(self._shape[a] for a in norm),
                      tuple(self._strides[a] for a in norm), self._offset, self._itemsize)

    def broadcast_to(self, shape) -> "Layout":
        """Broadcast to ``shape`` by the array API rules (axes aligned on the right).

        Parameters
        ----------
        shape : int or sequence of int
            The target, as the constructor takes a shape; at least ``ndim`` axes.

        Returns
        -------
        Layout
            Of ``shape``; new leading axes and size-1 axes that grow get stride 0.

        Raises
        ------
        TypeError
            A non-integer entry of ``shape``.
        ValueError
            The shapes do not broadcast (the message names both); a ``shape`` the constructor
            refuses (a negative extent, more than 64 axes, a size or byte size past int64).
        """
        target = _checked_shape(shape)
        nd, td = self.ndim, len(target)
        if td < nd:
            raise error(ValueError, "Layout.broadcast_to", f"cannot broadcast shape {self._shape} "
                                      f"to shape {target} (fewer dimensions)")
        strides = [0] * (td - nd)
        for n, s, t in zip(self._shape, self._strides, target[td - nd:]):
            if n == t:
                strides.append(s)
            elif n == 1:
                strides.append(0)
            else:
                raise error(ValueError, "Layout.broadcast_to", f"cannot broadcast shape {self._shape} "
                                          f"to shape {target}")
        return Layout(target, tuple(strides), self._offset, self._itemsize)

    def slice(self, index) -> "Layout":
        """Basic indexing: a tuple of ``slice`` objects and ints, one per leading axis.

        Parameters
        ----------
        index : slice, int or tuple of them
            Python's slice rules, negative steps included (``slice(None, None, -1)`` reverses an
            axis); an int selects one position and drops its axis; axes not named stay whole.

        Returns
        -------
        Layout
            The view: a slice keeps its axis, an int drops it; the itemsize is kept.

        Raises
        ------
        TypeError
            An index or slice bound that is not an integer (``None``, ``...``, a float).
        IndexError
            An int index out of range, or more indices than axes.
        ValueError
            A zero step.
        """
        if not isinstance(index, tuple):
            index = (index,)
        if len(index) > self.ndim:
            raise IndexError(f"Layout.slice: {len(index)} indices for {self.ndim} axes")
        shape, strides, off = [], [], self._offset
        for ax, (n, s) in enumerate(zip(self._shape, self._strides)):
            if ax >= len(index):
                shape.append(n)
                strides.append(s)
                continue
            ix = index[ax]
            if isinstance(ix, slice):
                for part in (ix.start, ix.stop, ix.step):
                    if part is not None:
                        _int(part, "a slice bound or step")   # TypeError, prefixed
                if ix.step is not None and operator.index(ix.step) == 0:
                    raise error(ValueError, "Layout.slice", "slice step cannot be zero")
                start, stop, step = ix.indices(n)
                length = len(range(start, stop, step))
                if length > 0:
                    off += start * s
                stride = s * step
                if length <= 1 and not _INT64_MIN <= stride * self._itemsize <= INT64_MAX:
                    stride = 0   # never stepped along (NumPy's stride for it too)
                shape.append(length)
                strides.append(stride)
            else:
                i = _int(ix, "index")
                if not -n <= i < n:
                    raise IndexError(f"Layout.slice: index {i} is out of range for axis {ax} "
                                     f"of extent {n}")
                off += (i + n if i < 0 else i) * s
        return Layout(tuple(shape), tuple(strides), off, self._itemsize)

    def squeeze(self) -> "Layout":
        """Drop every axis of extent 1 (keeps the elements and their order)."""
        keep = [(n, s) for n, s in zip(self._shape, self._strides) if n != 1]
        return Layout(tuple(n for n, _ in keep), tuple(s for _, s in keep), self._offset,
                      self._itemsize)

    def coalesce(self) -> "Layout":
        """Fewest axes that visit the same elements in the same (C) order.

        Size-1 axes are dropped, then neighbouring axes ``i, i+1`` merge when
        ``strides[i] == shape[i+1] * strides[i+1]``. Axes are never reordered. An
        empty layout coalesces to shape ``(0,)``; a single element to shape ``()``.

        Examples
        --------
        >>> Layout((2, 3, 4)).coalesce().shape
        (24,)
        >>> Layout((2, 3, 4)).permute((1, 0, 2)).coalesce().shape
        (3, 2, 4)
        """
        if self.size == 0:
            return Layout((0,), (1,), self._offset, self._itemsize)
        shape: list[int] = []
        strides: list[int] = []
        for n, s in zip(self._shape, self._strides):
            if n == 1:
                continue
            if shape and strides[-1] == n * s:
                shape[-1] *= n
                strides[-1] = s
            else:
                shape.append(n)
                strides.append(s)
        return Layout(tuple(shape), tuple(strides), self._offset, self._itemsize)

    # ------------------------------------------------------------------ extent
    def span(self) -> tuple[int, int]:
        """Lowest and highest element offset reachable, ``(lo, hi)``, offset included.

        For an empty layout the empty interval ``(offset, offset - 1)``.
        """
        off = self._offset
        if self.size == 0:
            return off, off - 1
        lo = hi = off
        for n, s in zip(self._shape, self._strides):
            d = (n - 1) * s
            if d < 0:
                lo += d
            else:
                hi += d
        return lo, hi

    def byte_span(self) -> tuple[int, int]:
        """``(first byte, one past the last byte)`` reachable; ``(o, o)`` when empty."""
        lo, hi = self.span()
        if hi < lo:
            return lo * self._itemsize, lo * self._itemsize
        return lo * self._itemsize, (hi + 1) * self._itemsize

    # ------------------------------------------------------------------ device struct
    def pack(self, max_ndim: int = MAX_NDIM) -> bytes:
        """The layout as the fixed-size struct that kernels take by value.

        Parameters
        ----------
        max_ndim : int, optional
            The struct's capacity, from ``max(ndim, 1)`` to 64 (the default).

        Returns
        -------
        bytes
            ``16 + 16 * max_ndim`` bytes, ``xstride_layout_t<max_ndim>`` of ``xstride/layout.cuh``
            (little-endian, 8-byte aligned; :func:`PACK_FORMAT`): ``offset`` (int64), ``ndim``,
            ``itemsize`` (int32), ``shape``, ``strides`` (int64 elements; unused: 1, 0). Pass it
            as a ``__grid_constant__`` kernel parameter; no device allocation is involved.

        Raises
        ------
        TypeError
            ``max_ndim`` is not an int (bool is refused).
        ValueError
            ``max_ndim`` is smaller than the rank (or than 1) or larger than 64.
        """
        max_ndim = _int(max_ndim, "max_ndim", "Layout.pack")
        if not max(self.ndim, 1) <= max_ndim <= MAX_NDIM:  # C++ has no zero-length arrays
            raise error(ValueError, "Layout.pack", f"max_ndim={max_ndim} must lie in "
                                      f"[{max(self.ndim, 1)}, {MAX_NDIM}]")
        pad = max_ndim - self.ndim
        return struct.pack(PACK_FORMAT(max_ndim), self._offset, self.ndim, self._itemsize,
                           *self._shape, *([1] * pad), *self._strides, *([0] * pad))

    @classmethod
    def unpack(cls, data: bytes, max_ndim: int = MAX_NDIM) -> "Layout":
        """Inverse of :meth:`pack`; ``max_ndim`` must be the one ``pack`` was given.

        Parameters
        ----------
        data : bytes-like object
            The packed struct: ``bytes``, ``bytearray``, a ``memoryview`` or any object
            with the buffer protocol (a NumPy array, e.g. ``np.frombuffer(lay.pack(),
            np.uint8)``, an ``array.array``), read as its bytes whatever its format.
        max_ndim : int, optional
            The ``max_ndim`` given to :meth:`pack` (default 64).

        Raises
        ------
        TypeError
            ``data`` is not a bytes-like object (no buffer protocol: a list, a str, a
            CuPy array; or a buffer of Python objects), or ``max_ndim`` is not an int.
        ValueError
            ``max_ndim`` outside ``[1, 64]``; ``data`` is not C-contiguous or not the
            size (in bytes, whatever its format) of a struct packed with ``max_ndim``;
            its ``ndim`` field is out of range, or its fields describe no valid layout
            (checked as the constructor does).
        """
        try:   # len() of a memoryview counts items of its format, not bytes: nbytes below
            view = memoryview(data)
        except (TypeError, ValueError, BufferError):  # ValueError: NumPy's datetime64
            view = None
        if view is None or view.format == "O":
            raise error(TypeError, "Layout.unpack", "expected the bytes of Layout.pack() (a "
                        f"bytes-like object), got {type(data).__name__}"
                        + (" of Python objects" if view is not None else ""))
        max_ndim = _int(max_ndim, "max_ndim", "Layout.unpack")
        if not 1 <= max_ndim <= MAX_NDIM:
            raise value_error("Layout.unpack", "max_ndim", f"must lie in [1, {MAX_NDIM}] "
                                                           f"(as for pack), got {max_ndim}")
        fmt = PACK_FORMAT(max_ndim)
        if not view.c_contiguous:
            raise value_error("Layout.unpack", "data", "is not C-contiguous; pass the bytes "
                                                       "of Layout.pack() as one block")
        if view.nbytes != struct.calcsize(fmt):
            raise error(ValueError, "Layout.unpack", f"{view.nbytes} bytes, but a layout packed with "
                                      f"max_ndim={max_ndim} has {struct.calcsize(fmt)}; pass the "
                                      "max_ndim given to pack()")
        try:
            fields = struct.unpack(fmt, view)
        except (struct.error, TypeError) as exc:   # a memoryview that is not plain bytes
            raise value_error("Layout.unpack", "data", f"cannot be read as the packed "
                                                       f"struct ({exc})") from None
        off, nd, isz = fields[:3]
        if not 0 <= nd <= max_ndim:
            raise error(ValueError, "Layout.unpack", f"the struct's ndim is {nd}, outside "
                                      f"[0, {max_ndim}]; not the bytes of Layout.pack({max_ndim})")
        shape = fields[3:3 + nd]
        strides = fields[3 + max_ndim:3 + max_ndim + nd]
        return cls(shape, strides, off, isz)

    # ------------------------------------------------------------------ arrays
    @classmethod
    def from_array(cls, a) -> "Layout":
        """Layout of a NumPy or CuPy array (anything with shape, strides, itemsize).

        The offset is 0: it is relative to the array's own data pointer.

        Raises
        ------
        TypeError
            ``a`` has no ``shape``, ``strides`` and ``itemsize``.
        ValueError
            A byte stride of an axis of extent > 1 that is not a multiple of the item
            size (such views cannot be described in elements); an item size of 0.
        """
        shape, strides, itemsize = _array_fields(a)
        return cls(shape, strides, 0, itemsize)


def __dir__():
    """What ``dir()`` and tab completion list: the public names, ``__all__`` (the helpers
    this module imports or keeps for xstride's own modules stay importable, unlisted),
    and the private ones."""
    return sorted(set(__all__) | {k for k in globals() if k.startswith("_")})
