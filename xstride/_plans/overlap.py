"""Whether a strided view reaches any memory twice, and the output check built on it.

The test behind :attr:`xstride.Layout.has_internal_overlap` (element strides, width 1)
and behind every output check (``out=`` of the elementwise functions, ``copy_into``'s
``dst``), which runs on an array's byte strides with its item size as the width, so a
field of a structured array is described exactly. Pure Python.
"""

from __future__ import annotations

from .._core.errors import type_error, value_error
from .layout_args import as_int, int_seq

__all__ = ["internal_overlap", "check_output"]


def internal_overlap(shape, strides, width: int = 1) -> bool:
    """True when two different indices reach overlapping elements.

    ``strides`` are in any unit and ``width`` is the extent of one element in that
    unit: element strides with ``width=1`` (:attr:`Layout.has_internal_overlap`), or an
    array's byte strides with ``width=itemsize``, which also describes views whose byte
    strides are not multiples of the item size (a field of a structured array). An
    axis of extent 1 is never stepped along, whatever its stride; elements of width 0
    occupy no memory and never overlap. ``shape`` and ``strides`` of different ranks
    are a ``ValueError``.

    A stride-0 axis of extent > 1 overlaps. Otherwise the axes are sorted by
    ``|stride|`` and each must step past the whole extent of the smaller ones plus one
    element; layouts that fail this sufficient test but might still be one-to-one
    (interleaved strides such as ``(3, 2)`` with shape ``(2, 3)``) are checked exactly
    by enumerating offsets when that is cheap (``size <= 2**20``), else reported as
    overlapping (conservative).

    Raises
    ------
    TypeError
        ``shape`` or ``strides`` is no sequence of ints, or ``width`` no int (bools
        refused).
    ValueError
        An extent or ``width`` is negative, or the ranks differ.
    """
    shape = int_seq(shape, "shape", "shape entry", "internal_overlap", one_int=False)
    strides = int_seq(strides, "strides", "stride", "internal_overlap", one_int=False)
    width = as_int(width, "width", "internal_overlap")
    if any(n < 0 for n in shape):
        raise value_error("internal_overlap", "shape", f"{shape} has a negative extent")
    if width < 0:
        raise value_error("internal_overlap", "width", f"must be at least 0, got {width}")
    return _overlap(shape, strides, width)


def _overlap(shape, strides, width: int) -> bool:
    """:func:`internal_overlap` of checked ints (the output checks' and
    :attr:`Layout.has_internal_overlap`'s, whose ints are checked already)."""
    if len(shape) != len(strides):   # zip() would drop axes: a wrong "no overlap"
        raise value_error("internal_overlap", "strides", f"{tuple(strides)} has rank "
                                                         f"{len(strides)} but shape "
                                                         f"{tuple(shape)} has rank {len(shape)}")
    size = 1
    for n in shape:
        size *= n
    if size <= 1 or width <= 0:
        return False
    pairs = sorted((abs(s), n) for n, s in zip(shape, strides) if n != 1)
    extent = 0  # highest offset reachable by the smaller axes
    ok = True
    for s, n in pairs:
        if s == 0:
            return True
        if s < extent + width:
            ok = False
            break
        extent += s * (n - 1)
    if ok:
        return False
    if size > (1 << 20):
        return True
    seen = {0}
    for s, n in pairs:
        seen = {b + k * s for b in seen for k in range(n)}
    if len(seen) != size:
        return True
    offs = sorted(seen)
    return any(q - p < width for p, q in zip(offs, offs[1:]))


def check_output(func: str, arg: str, a, *, whole_elements: bool = False) -> None:
    """Refuse an output array (``out=``, ``copy_into``'s ``dst``) that overlaps itself.

    The test is :func:`internal_overlap` on ``a``'s byte strides, so a length-1 axis of
    stride 0 is fine and a field of a structured array (byte strides that are not
    multiples of the item size) is described exactly. ``whole_elements``: also refuse
    such byte strides on an axis of extent > 1 (for engines that index in elements).

    Raises
    ------
    ValueError
        Naming ``func`` and ``arg``.
    """
    try:
        shape, bstrides, isz = tuple(a.shape), tuple(int(s) for s in a.strides), int(a.itemsize)
    except (AttributeError, TypeError):
        raise type_error(func, arg, a, "an array (with shape, strides and itemsize)") from None
    if whole_elements and isz and any(n > 1 and s % isz for n, s in zip(shape, bstrides)):
        raise value_error(func, arg, f"has byte strides {bstrides} that are not multiples "
                                     f"of its item size {isz} (a field of a structured "
                                     "array?); this engine indexes whole elements: write "
                                     "into a compact array and copy the field from it")
    if _overlap(shape, bstrides, isz):
        if isz and not any(s % isz for s in bstrides):
            shown = f"element strides {tuple(s // isz for s in bstrides)}"
        else:
            shown = f"byte strides {bstrides}"
        raise value_error(func, arg, f"overlaps itself ({shown} for shape {shape}); "
                                     "outputs must reach each element once")
