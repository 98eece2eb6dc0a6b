"""Host-side plan of ``argmin``/``argmax`` over any strided layout.

An arg-reduction is a reduction (:func:`xstride._plans.reduction.plan_reduction`
decides the kept side: the output's memory order, the kept axes' descriptor and the
strategy) that must also report *where* its result is: the logical index along the
axis, or the flat C-order index over the whole array for ``axis=None``. The device
walks the reduced elements in memory order (negative strides flipped, axes sorted by
stride and merged), which is not the logical order of a reversed or transposed view.
So each reduced axis of the walk carries, besides its extent and element stride, a
*weight*: how much one step along it moves the logical index. For the walk's flat
index ``j`` with coordinates ``c_d`` (C order over ``rshape``)::

    element offset  = offset(row) + sum_d c_d * rstride[d]
    logical index   = rbase + sum_d c_d * rweight[d]

A flipped axis (negative stride) starts at its last logical element (``rbase`` grows
by ``(n - 1) * weight``) and steps backwards (its weight negated); two neighbouring
axes of the walk merge only when both their strides and their weights are contiguous
(``stride[d] == n[d+1] * stride[d+1]`` and the same for weights), so the mapping stays
exact. :func:`walk_position` evaluates it on the host (the kernels do the same sum),
and the CPU tests compare it with NumPy over random views.

Pure Python (no NumPy or CuPy), as every plan.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass

from .._core.errors import type_error
from ..layout import Layout
from .reduction import ReductionPlan, normalize_axis, plan_reduction

__all__ = ["ArgPlan", "check_arg_axis", "plan_argreduction", "plan_arg_array",
           "walk_position"]


def check_arg_axis(func: str, axis, ndim: int) -> tuple[int, ...]:
    """The normalized axes of ``argmin``/``argmax``: ``axis=None`` names every axis
    (the index is then into the flattened array), an int names one.

    Raises
    ------
    TypeError
        ``axis`` is a tuple or list (the standard's ``axis`` is an int or None), a
        bool, or not an integer.
    numpy.exceptions.AxisError
        ``axis`` is out of range for ``ndim`` (also any axis of a 0-D array); a
        ``ValueError`` and an ``IndexError``, as NumPy's.
    """
    if axis is None or type(axis) is int:   # (a bool's type is bool, not int)
        return normalize_axis(func, axis, ndim)
    if isinstance(axis, bool) or isinstance(axis, (tuple, list)):
        raise type_error(func, "axis", axis, "an int or None (one axis; argmin and "
                                             "argmax take no tuple of axes)")
    try:
        operator.index(axis)
    except TypeError:
        raise type_error(func, "axis", axis, "an int or None") from None
    return normalize_axis(func, axis, ndim)


@dataclass(frozen=True)
class ArgPlan:
    """What ``argmin``/``argmax`` does on the device.

    Attributes
    ----------
    base : ReductionPlan
        The reduction plan of the same layout and axes: strategy, ``axes``,
        ``out_shape``, ``out_order``, the kept descriptor ``kshape``/``kstride``,
        ``nrows``, ``rowlen`` (its reduced descriptor is not used: it drops the
        weights).
    rshape, rstride, rweight : tuple of int
        The walk over the reduced elements of one row, memory order (largest stride
        first): extents, element strides (all ``>= 0``) and logical-index weights
        (negative for flipped axes). Axes of extent 1 are dropped; ``()`` when
        ``rowlen <= 1``.
    rbase : int
        Logical index of the walk's first element (``j = 0``).
    offset : int
        Element offset of the walk's first element of row 0 (the layout's offset plus
        the flips; equal to ``base.offset``).
    """

    base: ReductionPlan
    rshape: tuple
    rstride: tuple
    rweight: tuple
    rbase: int
    offset: int

    @property
    def nr(self) -> int:
        """Number of axes of the walk."""
        return len(self.rshape)


def plan_argreduction(layout: Layout, axes: tuple) -> ArgPlan:
    """Plan ``argmin``/``argmax`` of ``layout`` over the normalized ``axes`` (one axis,
    or every axis for ``axis=None``; any set of axes works, the index is then the flat
    C-order index over the reduced axes).

    Examples
    --------
    >>> from xstride.layout import Layout
    >>> lay = Layout((4, 6), itemsize=4).slice((slice(None), slice(None, None, -1)))
    >>> p = plan_argreduction(lay, (1,))
    >>> p.rshape, p.rstride, p.rweight, p.rbase
    ((6,), (1,), (-1,), 5)
    >>> p = plan_argreduction(Layout((3, 5), itemsize=8).permute((1, 0)), (0, 1))
    >>> p.rshape, p.rstride, p.rweight
    ((3, 5), (5, 1), (1, 3))
    """
    axes = tuple(axes)
    base = plan_reduction(layout, axes)
    shape, strides = layout.shape, layout.strides
    weight = 1
    walk = []
    for a in reversed(axes):           # logical C-order weights over the reduced axes
        walk.append([shape[a], strides[a], weight])
        weight *= shape[a]
    walk.reverse()
    offset, rbase = layout.offset, 0
    steps = []
    for n, s, w in walk:
        if n == 1:
            continue
        if s < 0:                      # start at the last element, step backwards
            offset += (n - 1) * s
            rbase += (n - 1) * w
            s, w = -s, -w
        steps.append((n, s, w))
    steps.sort(key=lambda t: -t[1])    # stable: equal strides keep logical order
    merged: list[list[int]] = []
    for n, s, w in steps:
        if merged and merged[-1][1] == n * s and merged[-1][2] == n * w:
            merged[-1] = [merged[-1][0] * n, s, w]
        else:
            merged.append([n, s, w])
    if base.rowlen <= 1:
        merged = []
    return ArgPlan(base, tuple(m[0] for m in merged), tuple(m[1] for m in merged),
                   tuple(m[2] for m in merged), rbase, offset)


def plan_arg_array(a, axes: tuple) -> ArgPlan:
    """:func:`plan_argreduction` of array ``a`` (anything with ``shape``, byte
    ``strides`` and ``itemsize``) over the normalized ``axes``."""
    return plan_argreduction(Layout.from_array(a), axes)


def walk_position(plan: ArgPlan, j: int) -> tuple[int, int]:
    """``(element offset relative to the row's first element, logical index)`` of the
    walk's flat index ``j`` (``0 <= j < plan.base.rowlen``): the sums the kernels
    form (``xs_arg_pos`` in ``xstride/_kernels/argreductions.cu``)."""
    off, idx = 0, plan.rbase
    for n, s, w in zip(reversed(plan.rshape), reversed(plan.rstride), reversed(plan.rweight)):
        j, c = divmod(j, n)
        off += c * s
        idx += c * w
    return off, idx
