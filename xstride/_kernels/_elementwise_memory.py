"""Where the engine's arrays lie in memory: byte ranges, and a new output's layout.

:func:`byte_range` (absolute) and :func:`rel_bytes` (from the data pointer) of a view,
the overlap rule of :func:`._elementwise_exec.launch` (:func:`resolve_overlap`: an input
that overlaps an output without being the same view is copied first), and a new
output laid out in its inputs' axis order (:func:`alloc_like_inputs`, the order cached
in ``ORDER_CACHE``, which ``_elementwise_exec.clear_caches`` empties). CuPy arrays are
passed in; nothing imports CuPy.
"""

from __future__ import annotations

from .._plans import elementwise as _plan
from ._lru import Bounded

__all__ = ["byte_range", "rel_bytes", "bstrides", "alloc_layout", "alloc_like_inputs",
           "resolve_overlap", "ORDER_CACHE"]

#: (shape, the inputs' shapes and strides) -> (allocation shape, transpose axes or None)
ORDER_CACHE: dict = Bounded(4096)


def byte_range(a) -> tuple[int, int]:
    """Half-open byte range ``[lo, hi)`` that a CuPy/NumPy view reaches."""
    if a.size == 0:
        return (0, 0)
    ptr = a.data.ptr if hasattr(a.data, "ptr") else a.__array_interface__["data"][0]
    lo, hi = rel_bytes(a)
    return ptr + lo, ptr + hi


def bstrides(shape, a):
    """Byte strides of ``a`` broadcast to ``shape``."""
    nd, ad = len(shape), a.ndim
    out = [0] * (nd - ad)
    for n, an, s in zip(shape[nd - ad:], a.shape, a.strides):
        out.append(s if an == n else 0)
    return out


def alloc_layout(shape, arrays):
    """``(allocation shape, transpose axes or None)`` of a new output in the inputs' order."""
    key = (shape, tuple((a.shape, a.strides) for a in arrays))
    got = ORDER_CACHE.get(key)
    if got is None:
        order = _plan.result_axis_order(shape, [bstrides(shape, a) for a in arrays])
        if order == tuple(range(len(shape))):
            got = (shape, None)
        else:
            inv = [0] * len(order)
            for i, a in enumerate(order):
                inv[a] = i
            got = (tuple(shape[a] for a in order), tuple(inv))
        ORDER_CACHE.put(key, got)
    return got


def alloc_like_inputs(cupy, shape, dtype, arrays, layout=None):
    """A new CuPy array of ``shape``/``dtype`` laid out in the inputs' axis order (K).

    ``layout``: a list that receives ``(allocation shape, transpose axes or None)``.
    """
    ashape, perm = got = alloc_layout(tuple(shape), arrays)
    if layout is not None:
        layout.append(got)
    base = cupy.empty(ashape, dtype=dtype)
    return base if perm is None else base.transpose(perm)


def resolve_overlap(cupy, outs, ins):
    """Copy every input that overlaps an output without being the same view."""
    ranges = [byte_range(o) for o in outs]
    fixed = []
    for x in ins:
        if isinstance(x, cupy.ndarray) and x.size:
            rx = byte_range(x)
            for o, ro in zip(outs, ranges):
                if _plan.ranges_overlap(rx, ro):
                    same = (x.data.ptr == o.data.ptr and x.dtype == o.dtype
                            and x.shape == o.shape and x.strides == o.strides)
                    if not same:
                        x = x.copy()
                        break
        fixed.append(x)
    return fixed


def rel_bytes(a):
    """``(lo, hi)`` byte offsets of what ``a`` reaches, relative to its data pointer."""
    lo = hi = 0
    for n, s in zip(a.shape, a.strides):
        d = (n - 1) * s
        if d < 0:
            lo += d
        else:
            hi += d
    return lo, hi + a.itemsize
