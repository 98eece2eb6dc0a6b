"""The size rule: an array's element count and byte size fit in a signed 64-bit integer.

One pure function, :func:`checked_size`, used by :class:`xstride.Layout` (every view
xstride makes) and by the CuPy overrides of the creation, broadcasting, reshaping and
repeating functions (``xstride/_backends/size_checks.py``). CuPy multiplies extents in
64-bit C integers and wraps silently (``cupy.zeros((2**32, 2**32, 2))`` has size 0);
Python's integers do not wrap, so the rule is checked here before the library sees the
shape. See DESIGN.md "Layout" and ``docs/layout-and-views.md``.
"""

from __future__ import annotations

from .errors import value_error

__all__ = ["INT64_MAX", "checked_size", "checked_extents", "out_of_memory"]

#: Largest value of a signed 64-bit integer; sizes and offsets must stay within it.
INT64_MAX = (1 << 63) - 1
_LIMIT = "which overflows int64 (at most 2**63 - 1)"


def checked_size(func: str, arg: str, shape: tuple[int, ...], itemsize: int = 1, *,
                 result: bool = False, extents: bool = False) -> int:
    """Element count of ``shape``, refused when it or the byte size overflows int64.

    Parameters
    ----------
    func, arg : str
        The function and the argument named by the error.
    shape : tuple of int
        Python ints (the caller converts); an empty tuple is one element.
    itemsize : int, optional
        Bytes per element; the byte size ``count * itemsize`` is checked too.
    result : bool, optional
        ``shape`` is the shape the argument makes (``tile``'s result), not the
        argument itself; only the wording of the error changes.
    extents : bool, optional
        Also NumPy's rule for an empty ``shape`` (:func:`checked_extents`): the shape
        of an array the caller makes (a creation function's), which NumPy refuses.

    Returns
    -------
    int
        The element count (0 when an extent is 0, whatever the others are).

    Raises
    ------
    ValueError
        An extent is negative or above ``2**63 - 1``, or the element count or the
        byte size is above ``2**63 - 1``.

    Examples
    --------
    >>> checked_size("zeros", "shape", (2, 3), 8)
    6
    >>> checked_size("zeros", "shape", (2**32, 2**32, 2), 8)
    Traceback (most recent call last):
    ...
    ValueError: zeros: argument 'shape' (4294967296, 4294967296, 2) has \
36893488147419103232 elements, which overflows int64 (at most 2**63 - 1)
    """
    what = f"gives a result of shape {shape} with" if result else f"{shape} has"
    size = 1
    for n in shape:
        if n < 0:
            raise value_error(func, arg, f"{what} a negative extent {n}")
        if n > INT64_MAX:
            raise value_error(func, arg, f"{what} an extent {n}, {_LIMIT}")
        size *= n
    if size > INT64_MAX:
        raise value_error(func, arg, f"{what} {size} elements, {_LIMIT}")
    if size * itemsize > INT64_MAX:
        raise value_error(func, arg, f"{what} {size} elements of {itemsize} bytes, "
                                     f"{size * itemsize} bytes in all, {_LIMIT}")
    if extents and not size:
        checked_extents(func, arg, shape, itemsize, result=result)
    return size


def checked_extents(func: str, arg: str, shape: tuple[int, ...], itemsize: int = 1, *,
                    result: bool = False, noun: str = "result") -> None:
    """NumPy's rule for every array, an empty one too: ``itemsize`` times the product of
    the non-zero extents of ``shape`` fits int64 (``numpy.zeros((0, 2**62, 4))`` is its
    bare "array is too big", naming nothing). A shape with elements is not looked at:
    its byte size is :func:`checked_size`'s, which the caller checks first.

    Parameters
    ----------
    func, arg : str
        The function and the argument named by the error.
    shape : tuple of int
        Non-negative Python ints.
    itemsize : int, optional
        Bytes per element.
    result, noun : optional
        ``shape`` is the shape of the ``noun`` the argument makes (``"result"``,
        ``"view"``), not the argument itself; only the wording of the error changes.

    Raises
    ------
    ValueError
        ``shape`` has no element and its non-zero extents times ``itemsize`` are
        above ``2**63 - 1``.

    Examples
    --------
    >>> checked_extents("zeros", "shape", (0, 2**62, 4), 8)
    Traceback (most recent call last):
    ...
    ValueError: zeros: argument 'shape' (0, 4611686018427387904, 4) has no element, but \
its non-zero extents times the item size (8) are 147573952589676412928 bytes, more than \
an array may describe, an empty one too (2**63 - 1; NumPy's rule)
    """
    if 0 not in shape:
        return
    nbytes = itemsize
    for n in shape:
        nbytes *= n or 1
    if nbytes > INT64_MAX:
        what = f"gives a {noun} of shape {shape} with" if result else f"{shape} has"
        raise value_error(func, arg, f"{what} no element, but its non-zero extents times "
                                     f"the item size ({itemsize}) are {nbytes} bytes, more "
                                     "than an array may describe, an empty one too "
                                     "(2**63 - 1; NumPy's rule)")


def out_of_memory(func: str, what: str, shape: tuple[int, ...], itemsize: int) -> MemoryError:
    """``MemoryError`` naming the function and the array it could not allocate: ``what``
    (e.g. ``"the result"``), its shape and its size (the library's own ``MemoryError``
    named neither the function nor what asked for the memory).

    Examples
    --------
    >>> str(out_of_memory("f", "the keys", (2**20, 2**20), 8))
    'f: not enough memory for the keys, shape (1048576, 1048576) (8.00 TiB)'
    """
    nbytes = itemsize
    for n in shape:
        nbytes *= int(n)
    text = f"{nbytes} bytes"
    for power, unit in ((60, "EiB"), (50, "PiB"), (40, "TiB"), (30, "GiB"), (20, "MiB")):
        if nbytes >= 2**power:
            text = f"{nbytes / 2**power:.2f} {unit}"
            break
    return MemoryError(f"{func}: not enough memory for {what}, shape {tuple(shape)} ({text})")
