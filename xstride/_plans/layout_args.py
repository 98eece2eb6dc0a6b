"""The checks of what a :class:`~xstride.layout.Layout` is built from.

Ints (bools and floats refused, NumPy integers taken), sequences of them, shapes (rank,
extents, size and byte size), strides, offsets and item sizes that fit the packed
struct, and the element strides of an array's byte strides: each turned into plain
Python ints or refused with the error naming the argument. ``xstride/layout.py`` builds
its layouts on them. Pure Python.
"""

from __future__ import annotations

import operator

from .._core.errors import error, value_error
from .._core.sizes import INT64_MAX, checked_size

__all__ = ["MAX_NDIM", "INT64_MIN", "INT32_MAX", "as_int", "int_seq", "check_int64",
           "checked_shape", "compact", "layout_fields", "array_fields"]

#: Largest rank a layout may have (NumPy's ``NPY_MAXDIMS`` since 2.0).
MAX_NDIM = 64
INT64_MIN = -(1 << 63)
INT32_MAX = (1 << 31) - 1


def as_int(value, what: str, func: str = "Layout") -> int:
    if isinstance(value, bool) or type(value).__name__ in ("bool", "bool_"):
        # an int to Python, never a size, stride or index (numpy.bool_ too)
        raise error(TypeError, func, f"{what} must be an integer, got bool {value!r}")
    try:
        return operator.index(value)
    except TypeError:
        raise error(TypeError, func, f"{what} must be an integer, got "
                                     f"{type(value).__name__} {value!r}") from None


def int_seq(value, what: str, entry: str, func: str = "Layout", *,
            one_int: bool = True) -> tuple[int, ...]:
    """A tuple of ints from a tuple/list/range of ints or a 1-D integer array (or, with
    ``one_int``, a single int).

    NumPy integers (scalars and 1-D arrays of a signed or unsigned integer dtype) count
    as ints, as ``as_strided`` takes them; bools and floats, also inside arrays, do not.
    """
    expected = ("an int or a sequence of ints" if what == "shape" and one_int else
                "a sequence of ints (or one int, for rank 1)" if one_int else
                "a sequence of ints")
    dtype = getattr(value, "dtype", None)
    ndim = getattr(value, "ndim", None)
    if dtype is not None and ndim is not None and ndim != 0:   # an array (NumPy/CuPy)
        if ndim != 1 or getattr(dtype, "kind", None) not in ("i", "u"):
            raise error(TypeError, func, f"{what} must be {expected}, got an array of dtype "
                                 f"{dtype} with {ndim} dimension(s) (1-D integer arrays are taken)")
        value = value.tolist()
    elif one_int and (isinstance(value, bool) or hasattr(value, "__index__")):
        value = (value,)                                       # one int (bool refused below)
    if not isinstance(value, (tuple, list, range)):
        raise error(TypeError, func, f"{what} must be {expected}, got {type(value).__name__}")
    return tuple(as_int(v, entry, func) for v in value)


def check_int64(value: int, what: str) -> int:
    if value > INT64_MAX or value < INT64_MIN:
        raise error(ValueError, "Layout", f"{what} = {value} does not fit in a signed 64-bit integer")
    return value


def checked_shape(shape, itemsize: int = 1) -> tuple[int, ...]:
    out = int_seq(shape, "shape", "shape entry")
    if len(out) > MAX_NDIM:
        raise value_error("Layout", "shape", f"has rank {len(out)}, more than {MAX_NDIM}")
    # extents >= 0; every extent, the size and the byte size fit in int64
    checked_size("Layout", "shape", out, itemsize)
    return out


def compact(shape: tuple[int, ...]) -> tuple[int, ...]:
    """C-order strides, in elements, of a checked ``shape``; each checked to fit int64
    (``(0, 2**62, 4)`` has one past it)."""
    strides = [0] * len(shape)
    step = 1
    for i in range(len(shape) - 1, -1, -1):
        strides[i] = check_int64(step, "a compact stride")
        step *= max(shape[i], 1)
    return tuple(strides)


def layout_fields(shape, strides, offset, itemsize):
    """``(shape, strides, offset, itemsize)`` of the ``Layout`` constructor's arguments,
    checked (the reachable offsets are checked by the constructor, on the layout)."""
    isz = as_int(itemsize, "itemsize")
    if isz < 1 or isz > INT32_MAX:
        raise error(ValueError, "Layout", f"itemsize must be in 1..{INT32_MAX} (an int32 in "
                                          f"the packed struct), got {isz}")
    shp = checked_shape(shape, isz)
    if strides is None:
        strd = compact(shp)   # each checked to fit int64
    else:
        strd = int_seq(strides, "strides", "stride")
        if len(strd) != len(shp):
            raise error(ValueError, "Layout", f"shape {shp} has rank {len(shp)} but "
                                              f"strides {strd} have rank {len(strd)}")
        if any(not INT64_MIN <= s <= INT64_MAX for s in strd):
            raise value_error("Layout", "strides", f"{strd} has an entry outside int64")
    off = check_int64(as_int(offset, "offset"), "offset")
    return shp, strd, off, isz


def array_fields(a):
    """``(shape, element strides, itemsize)`` of an array's ``shape``, ``strides`` and
    ``itemsize`` (:meth:`Layout.from_array <xstride.layout.Layout.from_array>`)."""
    if not all(hasattr(a, k) for k in ("shape", "strides", "itemsize")):
        raise error(TypeError, "Layout.from_array", f"expected a NumPy or CuPy array, got "
                                 f"{type(a).__name__}")
    itemsize = int(a.itemsize)
    if itemsize < 1:
        raise value_error("Layout.from_array", "a",
                          f"has dtype {getattr(a, 'dtype', '?')} of item size "
                          f"{itemsize}; a Layout describes elements of at least one "
                          "byte (element strides of empty items are undefined)")
    shape = tuple(int(n) for n in a.shape)
    strides = []
    for n, bs in zip(shape, a.strides):
        bs = int(bs)
        if bs % itemsize:
            if n > 1:
                raise error(ValueError, "Layout.from_array", f"byte strides {tuple(a.strides)}"
                            f" are not multiples of the item size {itemsize}")
            bs = 0  # never stepped along; any element stride describes it
        strides.append(bs // itemsize)
    return shape, tuple(strides), itemsize
