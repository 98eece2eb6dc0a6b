"""The view steps of ``xp.fuse``'s graph on a :class:`~xstride.layout.Layout`: basic
indexing (:func:`index_layout`: ints, slices, ``None`` and ``...``, NumPy's rules; a key
made hashable by :func:`encode_key` and read back by :func:`decode_key`, ``...``
expanded by :func:`expand_key`) and a reshape that is a view (:func:`reshape_layout`).
:mod:`.fusion` replays them on each call's layouts. Pure Python over Layouts.
"""

from __future__ import annotations

from .._core.errors import error
from ..layout import Layout

__all__ = ["encode_key", "decode_key", "expand_key", "index_layout", "reshape_layout"]


def encode_key(key) -> tuple:
    """A basic index as a hashable tuple: each slice becomes ``("slice", start, stop,
    step)`` (slices are unhashable before Python 3.12); ints, ``None``, ``...`` stay."""
    if not isinstance(key, tuple):
        key = (key,)
    return tuple(("slice", k.start, k.stop, k.step) if isinstance(k, slice) else k
                 for k in key)


def decode_key(key: tuple) -> tuple:
    """The inverse of :func:`encode_key`."""
    return tuple(slice(*k[1:]) if isinstance(k, tuple) else k for k in key)


def expand_key(key, ndim: int) -> tuple:
    """A basic index as a tuple with ``...`` expanded to full slices, for ``ndim`` axes.

    Raises
    ------
    IndexError
        Two ellipses, or more indices than axes.
    """
    if not isinstance(key, tuple):
        key = (key,)
    nell = sum(1 for k in key if k is Ellipsis)
    if nell > 1:
        raise error(IndexError, "fuse", "an index can only have a single ellipsis ('...')")
    used = sum(1 for k in key if k is not None and k is not Ellipsis)
    if used > ndim:
        raise error(IndexError, "fuse", f"too many indices: {used} for {ndim} axes")
    out = []
    for k in key:
        if k is Ellipsis:
            out.extend([slice(None)] * (ndim - used))
        else:
            out.append(k)
    if not nell:
        out.extend([slice(None)] * (ndim - used))
    return tuple(out)


def index_layout(lay: Layout, key) -> Layout:
    """``lay[key]`` for a basic index (ints, slices, ``None``, ``...``; slices may be
    encoded by :func:`encode_key`), NumPy's rules.

    Raises
    ------
    IndexError
        An int out of range, two ellipses, too many indices.
    ValueError
        A zero slice step.
    """
    key = expand_key(decode_key(key) if isinstance(key, tuple) else key, lay.ndim)
    plain = tuple(k for k in key if k is not None)
    out = lay.slice(plain) if plain else lay
    if len(plain) == len(key):
        return out
    # insert the new axes (extent 1, stride 0) where ``None`` stood among the kept axes
    shape, strides = list(out.shape), list(out.strides)
    pos = 0
    for k in key:
        if k is None:
            shape.insert(pos, 1)
            strides.insert(pos, 0)
            pos += 1
        elif isinstance(k, slice):
            pos += 1
    return Layout(tuple(shape), tuple(strides), out.offset, out.itemsize)


def reshape_layout(lay: Layout, shape) -> Layout | None:
    """A view of ``lay`` with ``shape`` (C order, one ``-1`` allowed), or None where the
    reshape needs a copy.

    Groups the old and the new axes into runs of equal element count and checks that
    each old run is contiguous with itself (the test NumPy makes before it copies).

    Raises
    ------
    ValueError
        The sizes differ, or more than one ``-1``.
    """
    shape = [int(n) for n in shape]
    size = lay.size
    if shape.count(-1) > 1:
        raise error(ValueError, "reshape", "can only specify one unknown dimension")
    if -1 in shape:
        known = 1
        for n in shape:
            if n != -1:
                known *= n
        if known == 0 or size % known:
            raise error(ValueError, "reshape", f"cannot reshape {lay.shape} into {tuple(shape)}")
        shape[shape.index(-1)] = size // known
    total = 1
    for n in shape:
        total *= n
    if total != size:
        raise error(ValueError, "reshape", f"cannot reshape {lay.shape} into {tuple(shape)}")
    if size == 0:
        return Layout(tuple(shape), None, lay.offset, lay.itemsize)
    old = [(n, s) for n, s in zip(lay.shape, lay.strides) if n != 1]
    new_strides = [0] * len(shape)
    i = 0
    j = 0
    while j < len(shape):
        if shape[j] == 1:
            j += 1
            continue
        # one run: old axes i..i2 and new axes j..j2 of the same element count
        i2, j2 = i, j
        po, pn = old[i][0], shape[j]
        while po != pn:
            if po < pn:
                i2 += 1
                po *= old[i2][0]
            else:
                j2 += 1
                pn *= shape[j2]
        for a in range(i, i2):
            if old[a][1] != old[a + 1][0] * old[a + 1][1]:
                return None
        step = old[i2][1]
        for b in range(j2, j - 1, -1):
            new_strides[b] = step
            step *= shape[b]
        i, j = i2 + 1, j2 + 1
    return Layout(tuple(shape), tuple(new_strides), lay.offset, lay.itemsize)
