"""When a reduction runs as two passes: :func:`split_axes` (pure Python, shapes and
strides only; the executor is ``xstride/_kernels/reductions.py``). See
docs/reductions.md, "Two passes"."""

from __future__ import annotations

from math import prod as _prod

__all__ = ["SPLIT_MIN_SIZE", "SPLIT_MIN_OUTER", "split_axes"]

#: Fewest elements for which :func:`split_axes` splits a reduction in two ...
SPLIT_MIN_SIZE = 1 << 20
#: ... and fewest rows its first pass folds into each intermediate element (the
#: intermediate, in the accumulator type, is written and read again once: at most
#: 2 * 8 / 4 / 32 = 1/8 more traffic for a float32 sum).
SPLIT_MIN_OUTER = 32


def split_axes(shape, strides, axes) -> tuple | None:
    """``(outer, inner)``: the reduced axes of a reduction worth running as two, or None.

    Reduced axes on both sides of a kept axis in memory (``sum(x, axis=(1, 3))`` of a
    C-ordered 4-D ``x``) do not coalesce: each output's row is a strided walk of short
    contiguous runs (0.25 of a device copy, 0.74 of CuPy's speed, on the H200). Run as
    two, the first pass reduces the ``outer`` axes (those of larger stride than every
    kept axis) as columns over everything inside them, coalesced; the second reduces
    the ``inner`` axes of the compact intermediate as contiguous rows.

    Parameters
    ----------
    shape, strides : tuple of int
        The input's shape and strides (in elements; signs ignored).
    axes : tuple of int
        The normalized reduced axes.

    Returns
    -------
    tuple of (tuple of int, tuple of int), or None
        None unless both sides are non-empty, the input has at least
        :data:`SPLIT_MIN_SIZE` elements and the outer axes hold at least
        :data:`SPLIT_MIN_OUTER` rows per intermediate element.

    >>> split_axes((64, 64, 384, 64), (1572864, 24576, 64, 1), (1, 3))
    ((1,), (3,))
    >>> split_axes((1 << 20, 3), (3, 1), (0, 1)) is None     # nothing kept
    True
    """
    size = _prod(shape)
    kept = [abs(strides[i]) for i in range(len(shape)) if i not in axes and shape[i] > 1]
    if size < SPLIT_MIN_SIZE or not kept:
        return None
    min_k = min(kept)
    red = [i for i in axes if shape[i] > 1]
    outer = tuple(i for i in red if abs(strides[i]) > min_k)
    inner = tuple(i for i in red if abs(strides[i]) < min_k)
    if not outer or not inner or _prod(shape[i] for i in outer) < SPLIT_MIN_OUTER:
        return None
    return outer, inner
