"""The elementwise plan: from operand layouts to one loop description, on the host.

Backend neutral (pure Python, no NumPy or CuPy). The CUDA executor
(``xstride/_kernels/elementwise.py``) launches what the plan says; the tests check the
plan on the CPU by replaying it over NumPy buffers (:func:`replay_offsets`).

Steps (``docs/elementwise.md``):

1. broadcast every input to the output shape (array API rules);
2. drop size-1 axes, flip axes on which the first output steps backwards (so it is
   written in ascending address order), and order the axes by the first output's
   ``|stride|`` (largest first), ties broken by the inputs' strides;
3. coalesce: merge neighbouring axes that are contiguous with each other in *every*
   operand;
4. choose the path, in order:

   ``"empty"``  nothing to do (size 0);
   ``"flat"``   one axis left and every operand has stride 0 or 1 on it (the same
                dense layout, or scalars / stride-0 operands): a flat zip;
   ``"tiled"``  an input is transposed relative to the output (its unit-stride axis is
                not the output's inner axis): 32x32 tiles of the two axes through
                shared memory, so both the input and the output are coalesced
                (the grid of the kernel that walks them is the CUDA executor's
                launch geometry, not part of the plan);
   ``"flat2d"`` two axes ``(n, e)``, ``e <= 64``, dense outputs, and inputs read by
                (row, column) that the other paths take without vector loads: a
                row ``(e,)`` broadcast over the n rows (``x + x[0]`` of an
                ``(n, 3)`` array) when e is not a whole number of vectors, or a
                transposed short operand (``x + y.T``, y of shape ``(3, n)``):
                one flat zip of ``n * e`` elements with the flat path's vector
                loads for the dense operands, the others read at
                ``(i div e, i mod e)``;
   ``"rows"``   otherwise, when every operand has stride 0 or 1 on the inner axis:
                contiguous rows, the outer offsets computed once per vector;
   ``"nd"``     the general N-d walk, 64-bit index arithmetic.

Operand 0..nout-1 are outputs; the rest are inputs. Offsets are in elements, relative
to each operand's data pointer (element 0 of the view).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .._core.errors import broadcast_error
from ..layout import Layout

__all__ = ["plan_arrays", "broadcast_shapes", "Plan", "make_plan", "result_axis_order",
           "FLAT2D_MAX", "flat2d_indexed",
           "replay_offsets", "byte_range", "ranges_overlap"]

#: Minimum extent of both tile axes for the tiled path to pay off.
_TILE_MIN = 8
#: Longest row of the ``"flat2d"`` path (short rows, flat over the output).
FLAT2D_MAX = 64


def broadcast_shapes(*shapes, func: str = "broadcast") -> tuple[int, ...]:
    """Broadcast shapes by the array API rules.

    Raises
    ------
    ValueError
        The shapes do not broadcast; the message names every shape.
    """
    nd = max((len(s) for s in shapes), default=0)
    out = [1] * nd
    for s in shapes:
        for i, n in enumerate(s):
            j = nd - len(s) + i
            m = out[j]
            if m == 1:
                out[j] = n
            elif n != 1 and n != m:
                raise broadcast_error(func, shapes)
    return tuple(out)


def result_axis_order(shape, strides_list) -> tuple[int, ...]:
    """Axis order (outermost first) for a new output, NumPy's ``order='K'`` in spirit.

    The first operand that is not broadcast along any axis of extent > 1 decides:
    its axes sorted by decreasing ``|stride|`` (stable, so ties keep C order). With no
    such operand the order is C order.
    """
    nd = len(shape)
    for strides in strides_list:
        if all(s != 0 or n == 1 for n, s in zip(shape, strides)):
            return tuple(sorted(range(nd), key=lambda a: (-abs(strides[a]) if shape[a] != 1
                                                          else 0, a)))
    return tuple(range(nd))


@dataclass(frozen=True)
class Plan:
    """One elementwise loop.

    Attributes
    ----------
    kind : {"empty", "flat", "tiled", "flat2d", "rows", "nd"}
    shape : tuple of int
        Iteration shape after dropping, ordering and coalescing (innermost last).
    strides : tuple of tuple of int
        Per operand, the element strides over ``shape``.
    offsets : tuple of int
        Per operand, the element offset of iteration index 0 from its data pointer.
    nout : int
        Number of outputs (the first operands).
    tile_axis : int or None
        ``"tiled"`` only: the axis of ``shape`` that is paired with the inner axis.
    transposed : tuple of bool
        ``"tiled"`` only: which operands go through shared memory.
    """

    kind: str
    shape: tuple
    strides: tuple
    offsets: tuple
    nout: int = 1
    tile_axis: int | None = None
    transposed: tuple = ()
    #: Number of iterations (the product of ``shape``), computed once.
    size: int = field(default=-1, compare=False)

    def __post_init__(self):
        if self.size < 0:
            n = 1
            for e in self.shape:
                n *= e
            object.__setattr__(self, "size", n)


def plan_arrays(arrays, nout: int, *, keep_order: bool = False,
                allow_tiled: bool = True) -> Plan:
    """:func:`make_plan` over arrays (anything with ``shape``, ``strides`` in bytes and
    ``itemsize``): the first ``nout`` are the outputs, the rest the inputs."""
    lays = [Layout.from_array(a) for a in arrays]
    return make_plan(lays[:nout], lays[nout:], keep_order=keep_order, allow_tiled=allow_tiled)


def make_plan(outs, ins, *, keep_order: bool = False, allow_tiled: bool = True) -> Plan:
    """Plan an elementwise loop over the layouts ``outs`` (outputs) and ``ins``.

    Parameters
    ----------
    outs : sequence of Layout
        Output layouts, all of the same shape (the iteration shape).
    ins : sequence of Layout
        Input layouts; each must broadcast to that shape.
    keep_order : bool
        Keep the C order of the iteration (no reordering, no tiling): for user kernels
        that read the linear index ``i``.
    allow_tiled : bool
        Allow the tiled path.

    Raises
    ------
    ValueError
        An input that does not broadcast to the output shape (message names both).
    """
    shape = tuple(outs[0].shape)
    layouts = list(outs)
    for lay in ins:
        if lay.shape != shape:
            broadcast_shapes(lay.shape, shape, func="elementwise")
            lay = lay.broadcast_to(shape)
        layouts.append(lay)
    nops = len(layouts)
    offsets = [lay.offset for lay in layouts]
    size = 1
    for n in shape:
        size *= n
    if size == 0:
        return Plan("empty", (0,), tuple((1,) for _ in range(nops)), tuple(offsets), len(outs))

    # 1-2. drop size-1 axes; flip axes the first output walks backwards; order axes.
    axes = [a for a, n in enumerate(shape) if n != 1]
    ext = {a: shape[a] for a in axes}
    strd = [{a: lay.strides[a] for a in axes} for lay in layouts]
    if not keep_order:
        for a in axes:
            if strd[0][a] < 0:
                n = ext[a]
                for k in range(nops):
                    offsets[k] += (n - 1) * strd[k][a]
                    strd[k][a] = -strd[k][a]
        axes.sort(key=lambda a: tuple(-abs(strd[k][a]) for k in range(nops)))

    # 3. coalesce neighbours that are contiguous with each other in every operand.
    cshape: list[int] = []
    cstr: list[list[int]] = [[] for _ in range(nops)]
    for a in axes:
        n = ext[a]
        if cshape and all(cstr[k][-1] == n * strd[k][a] for k in range(nops)):
            cshape[-1] *= n
            for k in range(nops):
                cstr[k][-1] = strd[k][a]
        else:
            cshape.append(n)
            for k in range(nops):
                cstr[k].append(strd[k][a])
    if not cshape:  # a single element
        cshape = [1]
        cstr = [[0] for _ in range(nops)]
    shp = tuple(cshape)
    strides = tuple(tuple(s) for s in cstr)
    offs = tuple(offsets)
    nout = len(outs)

    # 4. the path.
    inner_ok = all(s[-1] in (0, 1) for s in strides)
    if len(shp) == 1 and inner_ok:
        return Plan("flat", shp, strides, offs, nout)
    if allow_tiled and not keep_order and len(shp) >= 2 and strides[0][-1] == 1:
        tile = _tile_axis(shp, strides, nout)
        if tile is not None:
            ax, trans = tile
            return Plan("tiled", shp, strides, offs, nout, ax, trans)
    widest = max(lay.itemsize for lay in layouts)
    if not keep_order and _flat2d(shp, strides, nout, widest):
        return Plan("flat2d", shp, strides, offs, nout)
    return Plan("rows" if inner_ok else "nd", shp, strides, offs, nout)


def flat2d_indexed(shape, strides) -> tuple:
    """Per operand of a ``"flat2d"`` plan: read by (row, column) index (True), or
    dense / a scalar, read at the flat index (False)."""
    e = shape[1]
    return tuple((a, b) != (e, 1) and (a, b) != (0, 0) for a, b in strides)


def _flat2d(shape, strides, nout, itemsize: int) -> bool:
    """Short rows with operands that keep the other paths from vector loads: two axes
    ``(n, e)``, ``e`` at most :data:`FLAT2D_MAX`, the outputs dense (strides
    ``(e, 1)``), and at least one input read by (row, column) index — one row repeated
    (``(0, s)``), a transposed or strided view — where either ``e`` is not a whole
    number of 16-byte vectors of the widest operand (``itemsize`` bytes) or such an
    input steps by more than one element along a row (the ``"rows"`` path could not
    take it). The loop is then one flat zip of ``n * e`` elements: dense operands
    with vector loads, the others element by element at ``(i div e, i mod e)``."""
    if len(shape) != 2 or shape[1] > FLAT2D_MAX:
        return False
    e = shape[1]
    if any(s != (e, 1) for s in strides[:nout]):
        return False
    indexed = [s for s, i in zip(strides[nout:], flat2d_indexed(shape, strides[nout:]))
               if i]
    if not indexed:
        return False
    return e % max(16 // itemsize, 1) != 0 or any(abs(b) > 1 for _, b in indexed)


def _tile_axis(shape, strides, nout):
    """The axis to pair with the inner one, and which inputs are transposed, or None."""
    inner = len(shape) - 1
    if shape[inner] < _TILE_MIN:
        return None
    for k in range(nout, len(strides)):
        s = strides[k]
        if abs(s[inner]) <= 1:
            continue
        cands = [a for a in range(inner) if abs(s[a]) == 1 and shape[a] >= _TILE_MIN]
        if cands:
            ax = cands[0]
            trans = tuple(k2 >= nout and abs(strides[k2][ax]) == 1 and abs(strides[k2][inner]) > 1
                          for k2 in range(len(strides)))
            return ax, trans
    return None


def replay_offsets(plan: Plan, k: int) -> list[int]:
    """Element offsets that operand ``k`` visits, in the plan's iteration order.

    A CPU model of the kernels (C order over ``plan.shape``), used by the tests to check
    a plan against NumPy: output offsets and input offsets at the same positions must
    be the ones the original broadcast would pair.
    """
    if plan.kind == "empty":
        return []
    offs = [plan.offsets[k]]
    for n, s in zip(plan.shape, plan.strides[k]):
        offs = [o + i * s for o in offs for i in range(n)]
    return offs


def byte_range(ptr: int, lay: Layout) -> tuple[int, int]:
    """``[first byte, one past the last byte)`` of a view whose element 0 is at ``ptr``."""
    lo, hi = lay.byte_span()
    return ptr + lo, ptr + hi


def ranges_overlap(a: tuple[int, int], b: tuple[int, int]) -> bool:
    """True when two half-open byte ranges share a byte (empty ranges never do)."""
    return a[0] < a[1] and b[0] < b[1] and a[0] < b[1] and b[0] < a[1]
