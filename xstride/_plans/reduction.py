"""Host-side plans for reductions over any strided layout, and the axis rules of
reductions and scans.

A plan is pure Python (no NumPy or CuPy): it reads a :class:`xstride.layout.Layout`
and an axis selection and decides *what* the device does; the executors in
``xstride/_kernels/reductions.py`` decide nothing but launch it.
See ``docs/reductions.md``.

Reductions
----------
1. Normalize ``axis`` (int, tuple, ``None``; negatives wrap; duplicates raise
   ``ValueError``, out-of-range axes ``numpy.exceptions.AxisError`` (a ``ValueError``
   and an ``IndexError``), as NumPy's; ``axis=()`` reduces nothing).
2. Split the axes into *kept* and *reduced*. The output is allocated in the memory
   order of the input's kept axes (largest stride first, NumPy's "K" order), so kept
   index ``k`` walks the output buffer contiguously and writes are coalesced.
3. Reduced axes may be visited in any order (the operations are commutative), so
   negative strides are flipped, the axes sorted by stride and coalesced; kept axes
   are coalesced in their memory order.
4. Strategy: ``"full"`` (one output element), ``"inner"`` (the reduced run has the
   smallest stride: one warp or several blocks per output element, reading
   contiguous rows), ``"short"`` (as ``"inner"``, but the rows are at most
   :data:`SHORT_ROWLEN` elements and there are at least :data:`SHORT_MIN_ROWS` of
   them: one thread per output element, walking its row in order, neighbouring
   threads on neighbouring rows), ``"outer"`` (a kept axis has the smallest stride:
   one thread per output column, reading coalesced rows, the reduced range split over
   threads and blocks), ``"tile"`` (``"short"`` rows that one kept axis places at
   most ``2 * rowlen`` elements apart, unless rows of 24-48 bytes: a block stages the
   memory of as many rows as fit 32 KiB in shared memory with coalesced loads, then
   folds each row in one thread; also ``"inner"`` rows of 33 to
   :data:`TILE_WIDE_MAX_ROWLEN` contiguous elements of 4 bytes and more, or to
   :data:`TILE_MAX_ROWLEN` narrower ones, too short for a warp each),
   ``"lanes"`` (rows stored one after another, a power of two of 16-byte chunks:
   read as one flat array of chunks, each row's lanes combined by shuffles;
   :func:`lanes_ok`),
   ``"interleave"`` (``"outer"`` over at most 32 contiguous columns of rows of any
   stride at least the column count, e.g. an ``(n, 3)`` array, or ``x[:, :3]`` of an
   ``(n, 7)`` one, over axis 0: read as one flat array of the rows' columns, each
   thread's elements falling in one column), ``"outer"`` plans with a short reduced run and many
   outputs also become ``"short"`` (each thread folds its column, neighbouring
   threads on neighbouring columns), plus the trivial ``"empty"`` (no output element), ``"identity"`` (nothing
   to reduce: the identity) and ``"copy"`` (one element per output: a cast).

Scans: :mod:`xstride._plans.scan`.
"""

from __future__ import annotations

import numbers
import operator
from dataclasses import dataclass, field

from .._core.errors import axis_error, type_error, value_error
from ..layout import Layout

__all__ = [
    "plan_array",
    "SHORT_ROWLEN",
    "SHORT_MIN_ROWS",
    "TILE_BYTES", "TILE_MAX_ROW_BYTES", "TILE_CONFLICT_BYTES", "tile_row_fits",
    "TILE_MAX_ROWLEN", "TILE_WIDE_MAX_ROWLEN",
    "LANES_MAX",
    "lanes_ok",
    "TILE_MIN_ROWS",
    "SHORT_ROW_BYTES",
    "SHORT_VECTOR_ROW_BYTES",
    "INTERLEAVE_MAX_COLS",
    "tile_rows",
    "short_rows_strategy",
    "tile_ok",
    "normalize_axis",
    "normalize_one_axis",
    "normalize_scan_axis",
    "ReductionPlan",
    "plan_reduction",
]

def _prod(xs) -> int:
    p = 1
    for x in xs:
        p *= x
    return p


# ----------------------------------------------------------------------------- axes
def normalize_axis(func: str, axis, ndim: int, arg: str = "axis") -> tuple[int, ...]:
    """Sorted tuple of the non-negative axes that ``axis`` names.

    Parameters
    ----------
    func : str
        Public function name, for error messages.
    axis : int, tuple of int, or None
        ``None`` names every axis; ``()`` names none. Negative values count from the
        end.
    ndim : int
        Rank of the array.
    arg : str, optional
        The argument's name, for error messages (``"axes"`` for ``permute_dims``).

    Raises
    ------
    TypeError
        ``axis`` or one of its entries is not an integer (bool is refused), or
        ``axis`` is a list (NumPy 2's reductions and scans refuse one too).
    numpy.exceptions.AxisError
        An axis is out of range for ``ndim`` (NumPy's class, a ``ValueError`` and an
        ``IndexError``: every caller, on every backend, raises what NumPy raises).
    ValueError
        An axis is named twice (NumPy's "repeated axis" is a ``ValueError`` too).
    """
    if axis is None:
        return tuple(range(ndim))
    if type(axis) is int and -ndim <= axis < ndim:   # the common call: one axis in range
        return (axis + ndim if axis < 0 else axis,)
    if isinstance(axis, list):   # NumPy 2 and the standard take a tuple, not a list
        raise type_error(func, arg, axis, "an int, a tuple of ints, or None")
    items = axis if isinstance(axis, tuple) else (axis,)
    out = []
    for a in items:
        if isinstance(a, bool):
            raise type_error(func, arg, axis, "an int, a tuple of ints, or None")
        try:
            i = operator.index(a)
        except TypeError:
            raise type_error(func, arg, axis, "an int, a tuple of ints, or None") from None
        if not -ndim <= i < ndim:
            raise axis_error(func, arg, f"{i} is out of range for an array of "
                                      f"{ndim} dimension{'s' if ndim != 1 else ''}")
        i = i + ndim if i < 0 else i
        if i in out:
            raise value_error(func, arg, f"{tuple(items)!r} names axis {i} twice "
                                       "(duplicate axes)")
        out.append(i)
    return tuple(sorted(out))


def normalize_one_axis(func: str, axis, ndim: int, arg: str = "axis") -> int:
    """The one non-negative axis that ``axis``, an int, names: the axis of ``take``,
    ``repeat``, ``vecdot`` (no tuple and no None, which their callers handle first).

    Raises
    ------
    TypeError
        ``axis`` is not an int: a tuple or list (NumPy's said "'tuple' object cannot be
        interpreted as an integer", naming neither function nor argument), a bool,
        None, a float.
    numpy.exceptions.AxisError
        ``axis`` is out of range for ``ndim`` (:func:`normalize_axis`).
    """
    if type(axis) is not int:
        try:
            if isinstance(axis, (bool, tuple, list)):
                raise TypeError
            operator.index(axis)
        except TypeError:
            raise type_error(func, arg, axis, "an int naming one axis") from None
    return normalize_axis(func, axis, ndim, arg)[0]


def normalize_scan_axis(func: str, axis, ndim: int) -> int:
    """The one non-negative axis a cumulative function scans along.

    ``axis=None`` is allowed only for arrays of one dimension (the standard). A 0-D
    array (``ndim`` 0: pass the input's own rank) is scanned as one of shape ``(1,)``,
    as NumPy's ``cumulative_sum`` does (the standard asks for one or more dimensions);
    an axis out of range is named as out of range for a 0-D array.

    Raises
    ------
    TypeError
        ``axis`` is not an int or None.
    numpy.exceptions.AxisError
        ``axis`` is out of range (a ``ValueError`` and an ``IndexError``, as NumPy's).
    ValueError
        ``axis`` is None for ``ndim > 1``.
    """
    zero_d, ndim = ndim == 0, max(ndim, 1)
    if axis is None:
        if ndim != 1:
            raise value_error(func, "axis", f"must be given for an array of {ndim} "
                                            "dimensions (None is allowed only for 1-D)")
        return 0
    if isinstance(axis, bool) or isinstance(axis, (tuple, list)):
        raise type_error(func, "axis", axis, "an int or None")
    try:
        i = operator.index(axis)
    except TypeError:
        raise type_error(func, "axis", axis, "an int or None") from None
    if not -ndim <= i < ndim:
        what = ("a 0-D array (scanned as one of shape (1,): axis 0, -1 or None)" if zero_d
                else f"an array of {ndim} dimension{'s' if ndim != 1 else ''}")
        raise axis_error(func, "axis", f"{i} is out of range for {what}")
    return i + ndim if i < 0 else i


# ----------------------------------------------------------------------------- reductions
#: Longest reduced run (elements per output) of the ``"short"`` strategy: up to a
#: warp's width a warp per row gives each lane at most one element, so the warp
#: kernel's per-row work (offset, shuffle tree, one store by lane 0) is all overhead;
#: one thread per row folds the run itself. See docs/reductions.md.
SHORT_ROWLEN = 32
#: Fewest output elements for ``"short"``: one block (256 threads) of the one-thread
#: kernel. Below that the warp kernel gives more threads (and loads) to few rows.
SHORT_MIN_ROWS = 256


#: Bytes of shared memory one block of the ``"tile"`` strategy stages, for the plan's
#: choice (the launch takes its own from ``TUNING["tile"]``).
TILE_BYTES = 32768
#: Contiguous rows of this many bytes stay ``"short"``: on the H200 (CuPy 14.2,
#: 2026-12-01, benchmarks/short_rows.py, n = 2**25 float32) one thread per row read
#: rows of 28-48 bytes at 0.89-0.94 of copy against 0.83-0.89 staged, while staging
#: won below (0.80-0.86 against 0.50-0.78) and above (0.92 against 0.52 at 64 bytes).
#: With ``TUNING["short"]`` (8, 4) one thread per row read 20-byte rows ((n, 5)
#: float32) in 0.91 of the staged time (1.11x CuPy against 1.01x; later that day).
SHORT_ROW_BYTES = (20, 48)
#: The window's end for elements of 4 bytes: rows of 13-15 float32 (52-60 bytes) read
#: 0.88-0.93 of copy one thread per row against 0.79-0.83 staged (H200, CuPy 14.2,
#: 2026-12-05, ``sum`` and ``max(x, axis=1)`` of (n, k), n = 2**25, the same
#: bits); from 68 bytes the two were even (0.78-0.82) and from 80 staging won. 2-byte
#: rows of 52-60 bytes staged read 0.93-0.97 against 0.63-0.70, so they keep 48. On
#: the H100 the same day, rows of 13-15 float32 and int32, 48 -> 60: ``sum``, ``max``,
#: ``mean``, ``prod``, ``all`` and a fused ``sum(x * x)`` 0.80-0.97 -> 0.87-1.01 of
#: copy, ``var`` and ``argmax`` even (0.55-0.93).
SHORT_ROW_BYTES_4 = 60
#: Contiguous rows of this many bytes, a whole number of 16-byte vectors apart, stay
#: ``"short"`` too: one thread per row loading whole vectors read (n, 16) float32 at
#: 1.02 of CuPy's time against 0.91 staged (H200, 2026-12-01); at 128 bytes staging
#: won (1.04 against 0.76 of copy).
SHORT_VECTOR_ROW_BYTES = 64
#: Longest contiguous reduced run of the ``"tile"`` strategy past :data:`SHORT_ROWLEN`
#: (rows of 33 to this many elements, at least :data:`SHORT_MIN_ROWS` of them): a warp
#: per row gives each lane one or two loads and then a five-step shuffle tree per row;
#: staging the rows in shared memory read ``sum(x, axis=1)`` of an (n/32, 96) float32
#: array at 0.82 of copy against 0.26 with the warp kernel (H200, 2026-12-01). From 33
#: to 192 float32 and 33 to 128 float64 staging was faster than the warp in every
#: case measured, and faster than CuPy up to 128 (1.2-2.5x); at 192 float32 CuPy
#: kept ahead of both (0.73x staged, 0.55x the warp). Elements of 4 bytes and more
#: stage only up to :data:`TILE_WIDE_MAX_ROWLEN` since the groups of lanes came.
TILE_MAX_ROWLEN = 192
#: Rows of narrow elements past :data:`TILE_MAX_ROWLEN` of at most this many bytes
#: stage too (1-byte rows up to 512 elements, 2-byte up to 256; :func:`tile_row_fits`):
#: a warp a row of 200 int8 read ``max(x, axis=1)`` at 0.06 of copy and int16 at 0.23
#: (H200, 2026-12-04, 64 MiB arrays; CuPy 0.15 and 0.29), staged at least 0.17 and
#: 0.35 (``sum`` of float16 (n, 200)).
TILE_MAX_ROW_BYTES = 512
#: ... except rows a multiple of this many bytes apart: the 1- and 2-byte tile kernel
#: reads thread t's row from byte t * stride of an unpadded stage, so at a stride of a
#: multiple of 128 bytes the 32 lanes of a warp read one bank (32-way conflicts), of 64
#: bytes two (16-way). Not timed: such rows keep the warp kernel they had.
TILE_CONFLICT_BYTES = 64


#: Longest rows of elements of 4 bytes and more that stage: since the row kernels
#: read a row of a few dozen 16-byte words by a group of lanes (``xs_reduce_rows_group``)
#: they led the tile from 96 elements (H200, 2026-12-04, 2**27 elements, ``sum`` / ``max``
#: over axis 1, fraction of copy, staged -> row kernel): float32 (n, 96) 0.80 / 0.78 ->
#: 0.90 / 0.91, (n, 112) 0.72 -> 0.92 / 0.90, (n, 128) 0.76 / 0.72 -> 0.97 / 0.88, (n,
#: 136) 0.75 -> 0.88 / 0.86, (n, 150) 0.67 / 0.69 -> 0.79 / 0.78, (n, 176) 0.70 -> 0.90,
#: (n, 192) 0.68 -> 0.94 / 0.95 (CuPy's sum 0.82), int32 (n, 128) 0.74 / 0.82 -> 0.96 /
#: 0.98, (n, 192) 0.68 / 0.77 -> 0.95 / 0.97, float64 (n, 128) 0.90 / 0.83 -> 1.00 /
#: 0.94, int64 (n, 128) 0.91 / 0.93 -> 1.00 / 0.98; even (within 0.03) at float32 (n,
#: 100) and (n, 120), float64 (n, 96), (n, 160), (n, 192), int64 (n, 96). Below 96 the
#: tile kept rows it led (float32 (n, 64) ``max`` 0.87 against 0.82, float64 (n, 64)
#: 0.95 against 0.90, float64 (n, 50) ``sum`` 0.81 against 0.77) beside ones it lost
#: (float64 (n, 48) 0.84 against 0.94, (n, 80) 0.80 against 0.93): not changed.
TILE_WIDE_MAX_ROWLEN = 95


def tile_row_fits(kstride, rowlen: int, itemsize: int) -> bool:
    """Whether rows of ``rowlen`` elements ``kstride[0]`` apart may stage: elements of
    4 bytes and more up to :data:`TILE_WIDE_MAX_ROWLEN`; narrower ones up to
    :data:`TILE_MAX_ROWLEN` elements, or rows of at most :data:`TILE_MAX_ROW_BYTES`
    whose stride is not a multiple of :data:`TILE_CONFLICT_BYTES` bytes."""
    if itemsize >= 4:
        return rowlen <= TILE_WIDE_MAX_ROWLEN
    if rowlen <= TILE_MAX_ROWLEN:
        return True
    stride = abs(kstride[0]) * itemsize if len(kstride) == 1 else 0
    return (rowlen * itemsize <= TILE_MAX_ROW_BYTES and stride > 0
            and stride % TILE_CONFLICT_BYTES != 0)
#: Fewest rows one staged tile must hold for ``"tile"``.
TILE_MIN_ROWS = 32
#: Most columns of the ``"interleave"`` strategy (``k`` contiguous columns of rows of
#: any stride of at least ``k``, reduced over the rows: an ``(n, k)`` array, or
#: ``x[:, :k]`` of a wider one): one thread's column is fixed when the block width is
#: a multiple of ``k``; up to a warp's width.
INTERLEAVE_MAX_COLS = 32


def tile_rows(kstride: int, rowlen: int, itemsize: int, tile_bytes: int = TILE_BYTES,
              max_rows: int = 0) -> int:
    """Rows one ``"tile"`` block stages: as many as fit ``tile_bytes`` with the span
    ``(R - 1) * |kstride| + rowlen`` (each thread folds every 256th of them), at most
    ``max_rows`` (0: no limit)."""
    cap = tile_bytes // itemsize
    rows = max(0, (cap - rowlen) // max(abs(kstride), 1) + 1)
    return min(rows, max_rows) if max_rows > 0 else rows


def tile_ok(kshape, kstride, rstride, rowlen: int, itemsize: int) -> bool:
    """The ``"tile"`` kernel takes short rows that one kept axis places at most
    ``2 * rowlen`` elements apart (the staged span wastes at most half its loads) with
    the reduced run contiguous, when a tile holds at least :data:`TILE_MIN_ROWS`
    rows."""
    return (len(kshape) == 1 and len(rstride) == 1 and rstride[0] == 1
            and 0 < abs(kstride[0]) <= 2 * rowlen
            and tile_rows(kstride[0], rowlen, itemsize) >= TILE_MIN_ROWS)


#: Most lanes per row of the ``"lanes"`` strategy, per item size in bytes (a row is
#: ``lanes * 16 / itemsize`` elements; lanes a power of two). On the H200 (2026-12-01,
#: 2**25 float32 elements) the lanes kernel read ``sum(x, axis=1)`` of (n, 4), (n, 8),
#: (n, 16), (n, 32), (n, 64) at 0.97, 0.96, 0.94, 0.91, 0.88 of copy, against 0.76,
#: 0.86, 0.92, 0.77, 0.77 for the strategies before it (CuPy: 0.92, 0.87, 0.94, 0.32,
#: 0.51); for float64 only (n, 2) gained (0.98 against 0.95).
LANES_MAX = {4: 16, 8: 1}


def lanes_ok(kshape, kstride, rstride, rowlen: int, itemsize: int) -> bool:
    """The ``"lanes"`` kernel takes rows stored one after another (one kept axis of
    stride ``rowlen``, the reduced run of stride 1) of a whole number of 16-byte
    chunks, a power of two of them, at most :data:`LANES_MAX` for the item size,
    except rows of :data:`SHORT_VECTOR_ROW_BYTES` (one thread per row loading whole
    vectors read (n, 16) float32 at 0.99-1.07 of CuPy's time for sum, max and prod,
    against 0.94-1.00 with lanes; H200, 2026-12-01, ``TUNING["short"]`` (8, 4))."""
    nbytes = rowlen * itemsize
    lanes = nbytes // 16
    return (itemsize in LANES_MAX and nbytes != SHORT_VECTOR_ROW_BYTES
            and len(kshape) == 1 and len(rstride) == 1
            and rstride[0] == 1 and kstride[0] == rowlen and nbytes % 16 == 0
            and 1 <= lanes <= LANES_MAX[itemsize] and lanes & (lanes - 1) == 0)


def short_rows_strategy(kshape, kstride, rstride, rowlen: int, itemsize: int) -> str:
    """``"tile"`` or ``"short"`` for an ``"inner"`` plan whose rows
    are short (at most :data:`SHORT_ROWLEN` elements, at least :data:`SHORT_MIN_ROWS`
    rows): ``"tile"`` where :func:`tile_ok`, except rows of :data:`SHORT_ROW_BYTES`
    of elements wider than a byte and rows of :data:`SHORT_VECTOR_ROW_BYTES` a whole
    number of vectors apart (one thread per row reads those as fast or faster); else
    ``"short"``. 1-byte rows in the window stage: the tile kernel loads them as
    16-byte words, which read ``all(x, axis=1)`` of (n, 24) bool and ``sum`` of (n, 24)
    int8 in 0.80 and 0.73 of one thread's time per row (H200, 2026-12-01, n = 2**25;
    (n, 32) bool alike, 1.06)."""
    lo, hi = SHORT_ROW_BYTES
    if itemsize == 4:
        hi = SHORT_ROW_BYTES_4
    nbytes = rowlen * itemsize
    vector_rows = (nbytes == SHORT_VECTOR_ROW_BYTES and len(kstride) == 1
                   and (kstride[0] * itemsize) % 16 == 0)
    window = lo <= nbytes <= hi and itemsize > 1
    if not window and not vector_rows and tile_ok(kshape, kstride, rstride, rowlen, itemsize):
        return "tile"
    return "short"


@dataclass(frozen=True)
class ReductionPlan:
    """What a reduction does on the device.

    Attributes
    ----------
    strategy : {"full", "inner", "short", "tile", "outer", "interleave", "empty", "identity",
                "copy"}
    axes : tuple of int
        The reduced axes (normalized).
    out_shape : tuple of int
        Logical output shape without ``keepdims`` (kept axes in logical order).
    out_order : tuple of int
        Positions in ``out_shape`` listed in the output's memory order (outermost
        first). The output buffer is compact in this order.
    kshape, kstride : tuple of int
        Kept axes after coalescing, memory order, input element strides. Kept index
        ``k`` (C order over ``kshape``) is the output's flat buffer index.
    rshape, rstride : tuple of int
        Reduced axes after flipping negative strides, sorting by stride (largest
        first) and coalescing; all strides ``>= 0``.
    offset : int
        Element offset of the first element of row 0 (the layout's offset plus the
        flips).
    nrows, rowlen : int
        Number of output elements and of elements reduced into each.
    """

    strategy: str
    axes: tuple
    out_shape: tuple
    out_order: tuple
    kshape: tuple
    kstride: tuple
    rshape: tuple
    rstride: tuple
    offset: int
    nrows: int
    rowlen: int

    #: ``len(kshape)`` and ``len(rshape)``, computed once.
    nk: int = field(init=False, compare=False)
    nr: int = field(init=False, compare=False)

    def __post_init__(self):
        object.__setattr__(self, "nk", len(self.kshape))
        object.__setattr__(self, "nr", len(self.rshape))

    @property
    def inner_contiguous(self) -> bool:
        """The elements of each row are one contiguous run (stride 1)."""
        return self.nr == 1 and self.rstride[0] == 1


def plan_array(a, axes: tuple) -> ReductionPlan:
    """:func:`plan_reduction` of array ``a`` (anything with ``shape``, byte ``strides``
    and ``itemsize``) over the normalized ``axes``."""
    return plan_reduction(Layout.from_array(a), axes)


def plan_reduction(layout: Layout, axes: tuple) -> ReductionPlan:
    """Plan a reduction of ``layout`` over the normalized ``axes``.

    Parameters
    ----------
    layout : Layout
        The input view (strides and offset in elements).
    axes : tuple of int
        Output of :func:`normalize_axis`.

    Examples
    --------
    >>> from xstride.layout import Layout
    >>> p = plan_reduction(Layout((4, 5, 6), itemsize=4), (2,))
    >>> p.strategy, p.kshape, p.rshape
    ('inner', (20,), (6,))
    >>> plan_reduction(Layout((4, 5, 6), itemsize=4), (0,)).strategy
    'interleave'
    >>> plan_reduction(Layout((40, 5, 60), itemsize=4), (0,)).strategy
    'outer'
    >>> plan_reduction(Layout((1 << 20, 3), itemsize=4), (1,)).strategy
    'tile'
    >>> plan_reduction(Layout((1 << 20, 3), itemsize=4), (0,)).strategy
    'interleave'
    >>> plan_reduction(Layout((3, 1 << 20), itemsize=4).permute((1, 0)), (1,)).strategy
    'short'
    """
    shape, strides = layout.shape, layout.strides
    axes = tuple(axes)
    kept = [(i, shape[i], strides[i]) for i in range(len(shape)) if i not in axes]
    red = [(shape[i], strides[i]) for i in axes]
    nrows = _prod(n for _, n, _ in kept)
    rowlen = _prod(n for n, _ in red)
    out_shape = tuple(n for _, n, _ in kept)
    # memory order of the output: kept axes by |stride|, largest first (stable)
    order = sorted(range(len(kept)), key=lambda j: -abs(kept[j][2]))
    out_order = tuple(order)

    offset = layout.offset
    flipped = []
    for n, s in red:
        if n > 1 and s < 0:
            offset += (n - 1) * s
            s = -s
        flipped.append((n, s))
    flipped.sort(key=lambda t: -t[1])

    if nrows == 0 or rowlen == 0:
        strategy = "empty" if nrows == 0 else "identity"
        return ReductionPlan(strategy, axes, out_shape, out_order, (), (), (), (), offset,
                             nrows, rowlen)

    klay = Layout(tuple(kept[j][1] for j in order), tuple(kept[j][2] for j in order),
                  0, layout.itemsize).coalesce()
    rlay = Layout(tuple(n for n, _ in flipped), tuple(s for _, s in flipped),
                  0, layout.itemsize).coalesce()
    kshape, kstride = klay.shape, klay.strides
    rshape, rstride = rlay.shape, rlay.strides
    if rowlen == 1:
        strategy = "copy"
    elif nrows == 1:
        strategy = "full"
    else:
        min_r = min(rstride) if rstride else 0
        min_k = min(abs(s) for s in kstride) if kstride else 0
        strategy = "inner" if min_r < min_k else "outer"
        short = rowlen <= SHORT_ROWLEN and nrows >= SHORT_MIN_ROWS
        if (strategy == "inner" and nrows >= SHORT_MIN_ROWS
                and lanes_ok(kshape, kstride, rstride, rowlen, layout.itemsize)):
            strategy = "lanes"
        elif strategy == "inner" and short:
            strategy = short_rows_strategy(kshape, kstride, rstride, rowlen,
                                           layout.itemsize)
        elif (strategy == "inner" and nrows >= SHORT_MIN_ROWS
              and tile_row_fits(kstride, rowlen, layout.itemsize)
              and tile_ok(kshape, kstride, rstride, rowlen, layout.itemsize)):
            strategy = "tile"
        elif strategy == "outer":
            if (len(kstride) == 1 and kstride[0] == 1 and len(rstride) == 1
                    and rstride[0] >= nrows and nrows <= INTERLEAVE_MAX_COLS):
                strategy = "interleave"
            elif short:
                strategy = "short"
    return ReductionPlan(strategy, axes, out_shape, out_order, kshape, kstride, rshape,
                         rstride, offset, nrows, rowlen)


# ----------------------------------------------------------------------------- argument rules
def empty_axis_error(func: str, shape, axes) -> ValueError:
    """The ``ValueError`` of ``min``/``max`` over an empty selection (no identity)."""
    empty = [a for a in axes if shape[a] == 0]
    return value_error(
        func, "x", f"of shape {tuple(shape)} has the zero-size axis {empty[0]} in the "
                   f"reduction over axis={axes}; {func} of an empty selection has no "
                   "identity")


def check_correction(func: str, correction) -> None:
    """``correction`` of ``var``/``std`` must be a real number (not bool, not complex):
    ``TypeError`` otherwise. NumPy real scalars count (``numbers.Real``); NumPy's
    ``bool_`` is not one. An integer outside the int64 range is a ``ValueError``
    (NumPy's ``ddof`` is a C long: its ``OverflowError`` named no argument)."""
    if isinstance(correction, bool) or not isinstance(correction, numbers.Real):
        raise type_error(func, "correction", correction, "a real number")
    if isinstance(correction, numbers.Integral) and not -2**63 <= int(correction) < 2**63:
        raise value_error(func, "correction", f"is {int(correction)}; an integer must fit "
                          "in int64 (a float is taken as it is)")
