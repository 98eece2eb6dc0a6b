"""``xp.algorithms``: Morton (Z-order) keys and a stable ``sort_by_key`` (here and
``sort.py``), the segment primitives (``segments.py``), ``voxel_downsample`` and
``morton_tree``.

Each function runs on the backend of its array arguments (NumPy → ``xstride._host``,
CuPy → ``xstride._kernels``; dask → per-chunk graphs for the Morton functions and
``sort_by_key``, while the segment functions, ``voxel_downsample`` and ``morton_tree``
refuse dask arrays). Scales are always computed on the host in float64, so host and
device keys are bit-identical. See ``docs/morton.md``, ``docs/segments.md`` and
``docs/voxels.md``.

Morton order: G. M. Morton (1966), "A computer oriented geodetic data base and a new
technique in file sequencing", IBM Ltd., Ottawa. ``MAX_MORTON_LEVELS`` is what fits
one uint64 key: 2 x 32 bits in 2-D, 3 x 21 bits in 3-D.

Conventions (DESIGN.md, "Morton"): bit ``ndim*b + a`` of a key is bit ``b`` of the cell
index on axis ``a`` (axis 0 in the lowest bit); ``scale = 2**levels / (upper - lower)``;
cell = ``floor((x - lower) * scale)`` clipped to ``[0, 2**levels - 1]``: a point on a
cell boundary goes to the upper cell, a point outside the box to the nearest face, and
``lower > upper`` reverses the axis.
"""

import numpy as _np

from .. import _backends
from .._core.errors import value_error as _value_error
from .._core.sizes import checked_size as _checked_size, out_of_memory as _out_of_memory
from .._plans.elementwise import broadcast_shapes as _broadcast_shapes

__all__ = [
    "MAX_MORTON_LEVELS",
    "morton_scales",
    "morton_keys",
    "morton_encode",
    "morton_decode",
    "sort_by_key",
    "segment_reduce",
    "reduce_by_key",
    "run_length_encode",
    "bin_offsets",
    "compact",
    "SEGMENT_OPS",
    "voxel_downsample",
    "MortonTree",
    "morton_tree",
]

from ._args import MAX_MORTON_LEVELS  # noqa: E402
from ._args import (_int_argument, _levels, _host_vector, _as_array, _dtype_error,
                    _integer_array, _known_shape, _nonfinite, _refuse_listed_bools,
                    _same_device, _stored)
from .sort import sort_by_key  # noqa: E402
from .segments import (SEGMENT_OPS, bin_offsets, compact, reduce_by_key,  # noqa: E402
                       run_length_encode, segment_reduce)
from .voxels import voxel_downsample  # noqa: E402
from .tree import MortonTree, morton_tree  # noqa: E402


def morton_scales(lower, upper, levels) -> _np.ndarray:
    """Cells per unit length on each axis: ``2**levels / (upper - lower)``, float64.

    Parameters
    ----------
    lower, upper : sequence of 2 or 3 int or float, or array of shape (ndim,)
        Corners of the box. ``lower > upper`` on an axis reverses that axis. The
        numbers of positions: Python ints and floats, NumPy integers and
        float16/32/64 (long double, ``Fraction`` and ``Decimal`` are refused).
    levels : int
        Tree depth, 1..``MAX_MORTON_LEVELS[ndim]``.

    Returns
    -------
    numpy.ndarray of float64, shape (ndim,)
        Always on the host (device kernels receive these values, so host and device
        keys agree bit for bit).

    Raises
    ------
    TypeError
        ``levels`` is not an int; a bound holds something other than ints and floats
        (bool, complex, str, ``Fraction``, ``Decimal``; a long double, which float64
        would round); a bound that is a masked array (``numpy.ma``, a dask array of
        masked chunks, or a list holding one or ``numpy.ma.masked``): its masked
        elements would be read as values.
    ValueError
        Bounds of different lengths or not of length 2 or 3, non-finite bounds,
        ``lower == upper`` on an axis, ``levels`` out of range, an extent
        ``upper - lower`` that overflows float64, or an extent so small that the scale
        overflows.
    """
    return _scales("morton_scales", lower, upper, levels)


def _scales(func: str, lower, upper, levels) -> _np.ndarray:
    """:func:`morton_scales`, its errors naming ``func`` (the function the user called)."""
    lo = _host_vector(func, "lower", lower)
    hi = _host_vector(func, "upper", upper)
    if lo.shape != hi.shape:
        raise _value_error(func, "upper", f"has {hi.size} entries but 'lower' has {lo.size}")
    if lo.size not in MAX_MORTON_LEVELS:
        raise _value_error(func, "lower", f"must have 2 or 3 entries (one per axis); got {lo.size}")
    lv = _levels(func, levels, lo.size)
    with _np.errstate(over="ignore"):
        extent = hi - lo
    for axis in range(lo.size):
        if extent[axis] == 0.0:
            # bounds are float64: distinct ints past 2**53 (2**60, 2**60 + 1) round to one
            rounded = ("; both are taken as float64, which rounds integers beyond 2**53"
                       if abs(lo[axis]) >= 2.0**53 else "")
            raise _value_error(func, "upper", f"equals 'lower' on axis {axis} ({float(lo[axis])!r}"
                                             f"{rounded}); the box must have a nonzero "
                                             "extent on every axis")
    with _np.errstate(over="ignore", divide="ignore"):
        scales = _np.float64(2.0**lv) / extent
    for axis in range(lo.size):
        if not _np.isfinite(extent[axis]):
            raise _value_error(func, "upper", f"gives a box extent {extent.tolist()}: upper - "
                                             f"lower overflows float64 on axis {axis}; rescale "
                                             "the coordinates")
        if not _np.isfinite(scales[axis]):
            raise _value_error(func, "upper", f"gives a box extent {extent.tolist()} so small "
                                             "that the scale 2**levels / (upper - lower) "
                                             f"overflows float64 on axis {axis}")
    return scales


def morton_keys(positions, lower, upper, levels):
    """Morton (Z-order) keys of points in a box.

    Parameters
    ----------
    positions : array of shape (n, 2) or (n, 3), real dtype
        Points, one per row: float32/float64 (float16 and integers are converted to
        float64; long double is refused).
        NumPy or CuPy, any strides; or dask (each row block keyed on its chunks'
        backend, lazily).
    lower, upper : sequence or array of shape (ndim,)
        The box (see :func:`morton_scales`).
    levels : int
        Cells per axis are ``2**levels``; 1..32 in 2-D, 1..21 in 3-D.

    Returns
    -------
    array of uint64, shape (n,)
        On the backend of ``positions``. Bit ``ndim*b + a`` is bit ``b`` of the cell
        index on axis ``a``; a key has ``ndim * levels`` bits (every key is below
        ``2**(ndim * levels)``): sort them with
        ``sort_by_key(keys, ..., key_bits=ndim * levels)``, and the device sort runs
        ``ceil(ndim * levels / 8)`` digit passes without looking at the keys first.

    Raises
    ------
    TypeError
        ``positions`` is not a float16/32/64 or integer array (bool, complex and long
        double are refused); bounds not ints and floats (as for :func:`morton_scales`);
        ``levels`` not an int; arrays of different backends mixed (NumPy, CuPy, dask;
        NumPy bounds go with positions of any backend); positions or a bound that is a
        masked array (``numpy.ma``, a dask array of masked chunks, or a list holding one
        or ``numpy.ma.masked``): its masked elements would be read as values.
    ValueError
        ``positions`` not of shape (n, 2) or (n, 3); bounds of the wrong length;
        ``lower == upper`` on an axis; ``levels`` out of range; a NaN or infinite
        coordinate (the message names the first bad row). On CuPy the check reads one
        8-byte value back from the device; on dask it is raised when the keys are
        computed (naming the first bad row of the whole array), not at the call.
    MemoryError
        The keys do not fit in memory (a broadcast view of positions; the message gives
        their shape and size).

    Notes
    -----
    Cell = ``floor((x - lower) * scale)`` clipped to ``[0, 2**levels - 1]``, the
    subtraction and product rounded separately in float64. Points on a cell boundary
    go to the upper cell, ``x == upper`` to the last cell, points outside the box to
    the nearest face.

    Examples
    --------
    >>> import xstride as xp
    >>> xp.algorithms.morton_keys([[0.125, 0.0]], [0, 0], [1, 1], 3)
    array([1], dtype=uint64)
    """
    func = "morton_keys"
    # the bounds are host parameters: NumPy arrays pass beside positions of any backend
    # (a list of positions takes the backend of array bounds)
    named = [("positions", positions)]
    host_ok = _backends.of_array(positions) is not None
    named += [(name, b) for name, b in (("lower", lower), ("upper", upper))
              if not (host_ok and isinstance(b, (_np.ndarray, _np.generic)))]
    backend = _backends.of_extension(func, named)
    pos = _as_array(func, "positions", positions, backend)
    allowed = "a float16, float32, float64 or integer dtype"
    # long double is refused, not rounded to float64 in silence (no device holds it)
    if pos.dtype.kind not in "fiu" or (pos.dtype.kind == "f" and pos.dtype.itemsize > 8):
        raise _dtype_error(func, "positions", positions, pos, allowed)
    _refuse_listed_bools(func, "positions", positions, allowed)
    if pos.ndim != 2 or pos.shape[1] not in MAX_MORTON_LEVELS:
        # a dask array's unknown column count (``x[:, mask]``) is NaN
        unknown = pos.ndim == 2 and pos.shape[1] != pos.shape[1]
        raise _value_error(func, "positions", f"must have shape (n, 2) or (n, 3); got "
                           f"{tuple(pos.shape)}" + ("; its columns are not known: call "
                           "positions.compute_chunk_sizes() first" if unknown else ""))
    ndim = pos.shape[1]
    lo = _host_vector(func, "lower", lower)
    hi = _host_vector(func, "upper", upper)
    if lo.size != ndim or hi.size != ndim:
        raise _value_error(func, "lower", f"and 'upper' must have {ndim} entries to match "
                                         f"positions of shape {tuple(pos.shape)}; got "
                                         f"{lo.size} and {hi.size}")
    lv = _levels(func, levels, ndim)
    scales = _scales(func, lo, hi, lv)
    try:
        keys, bad = backend.executor("morton").checked_keys(pos, lo, scales, lv)
    except MemoryError:   # a broadcast view of positions: far more rows than its memory
        raise _out_of_memory(func, "the keys", (int(pos.shape[0]),), 8) from None
    if bad >= 0:
        raise _nonfinite(func, bad, backend.to_host(pos[bad]))
    return keys


def morton_encode(ix, iy, iz=None, *, levels=None):
    """Morton keys of integer cell indices.

    Parameters
    ----------
    ix, iy : array_like of int
        Cell indices on axes 0 and 1 (broadcast together).
    iz : array_like of int, optional
        Cell indices on axis 2 (3-D keys); omit for 2-D keys.
    levels : int, optional
        Cells must fit ``levels`` bits (be below ``2**levels``); a cell of ``2**levels``
        or more raises ``ValueError``. Default ``MAX_MORTON_LEVELS[ndim]``.

    Returns
    -------
    array of uint64
        Broadcast shape of the inputs, on their backend (the active backend when none
        is an array).

    Raises
    ------
    TypeError
        A non-integer (or bool) input; arrays of different backends mixed (NumPy, CuPy,
        dask); an input that is a masked array (``numpy.ma``, a dask array of masked
        chunks, or a list holding one or ``numpy.ma.masked``): its masked elements would
        be read as values.
    ValueError
        A negative cell, or a cell of ``2**levels`` or more (a cell wider than the
        level limit: 32 bits in 2-D, 21 bits in 3-D; nothing is truncated); shapes
        that do not broadcast; ``levels`` out of range; dask arrays whose chunk
        lengths dask does not know (``x.compute_chunk_sizes()`` first).
    MemoryError
        The broadcast keys do not fit in memory (the message gives their shape and
        size; the range checks read the inputs before broadcasting, and of an input
        that is a broadcast view the elements it holds, so this comes at once).

    Examples
    --------
    >>> import xstride as xp
    >>> xp.algorithms.morton_encode([7], [4])
    array([53], dtype=uint64)
    """
    func = "morton_encode"
    named = [("ix", ix), ("iy", iy)] + ([("iz", iz)] if iz is not None else [])
    ndim = len(named)
    backend = _backends.of_extension(func, named)
    _same_device(func, backend, named)   # before the range checks' reductions
    xp = backend.load()
    cells = [_integer_array(func, name, value, backend) for name, value in named]
    for (name, _), c in zip(named, cells):
        _known_shape(func, name, c)
    lv = MAX_MORTON_LEVELS[ndim] if levels is None else _levels(func, levels, ndim)
    shapes = [tuple(int(n) for n in c.shape) for c in cells]
    for i, (name, _) in enumerate(named):
        # name the first argument that does not broadcast with those before it, or
        # whose broadcasting makes more uint64 keys than an array may hold
        try:
            shape = _broadcast_shapes(*shapes[:i + 1], func=func)
        except ValueError:
            text = ", ".join(f"{n} {s}" for (n, _), s in zip(named, shapes))
            raise _value_error(func, name, f"does not broadcast with the others "
                                           f"({text})") from None
        _checked_size(func, name, shape, 8, result=True)
    # the range checks read each input as given, not its broadcast view (an (n, 1)
    # column and a (1, n) row: n values each, not n * n), and of an input that is itself
    # a broadcast view only the elements it holds (_stored); an input's cells are
    # checked where the broadcast is empty too (the docstring's rule has no exception)
    for (name, _), c in zip(named, cells):
        if c.size == 0:
            continue
        c = _stored(c)
        if c.dtype.kind == "i" and int(c.min()) < 0:
            raise _value_error(func, name, f"has a negative cell index ({int(c.min())})")
        top = int(c.max())
        if top >= 2**lv:
            raise _value_error(func, name, f"has cell index {top}, wider than the {lv}-bit "
                                          f"limit of {ndim}-D keys at levels={lv} "
                                          f"(max {2**lv - 1})")
    try:
        return backend.executor("morton").encode(xp.broadcast_arrays(*cells))
    except MemoryError:
        raise _out_of_memory(func, "the keys", shape, 8) from None


def morton_decode(keys, ndim):
    """Cell indices of Morton keys (inverse of :func:`morton_encode`).

    Parameters
    ----------
    keys : array of int, any shape
        Keys as made by :func:`morton_keys` / :func:`morton_encode`.
    ndim : {2, 3}

    Returns
    -------
    array of uint64, shape ``keys.shape + (ndim,)``
        Column ``a`` holds the cell index on axis ``a``.

    Raises
    ------
    TypeError
        ``keys`` not of an integer dtype; ``ndim`` not an int; ``keys`` that are a
        masked array (``numpy.ma``, a dask array of masked chunks, or a list holding one
        or ``numpy.ma.masked``): its masked elements would be read as values.
    ValueError
        ``ndim`` not 2 or 3; a negative key; a 3-D key with bit 63 set (3-D keys have
        63 bits); dask keys whose chunk lengths dask does not know
        (``keys.compute_chunk_sizes()`` first).
    MemoryError
        The ``keys.shape + (ndim,)`` cells do not fit in memory (the message gives
        their shape and size).
    """
    func = "morton_decode"
    nd = _int_argument(func, "ndim", ndim, "2 or 3")
    if nd not in MAX_MORTON_LEVELS:
        raise _value_error(func, "ndim", f"must be 2 or 3; got {nd}")
    backend = _backends.of_extension(func, [("keys", keys)])
    _same_device(func, backend, [("keys", keys)])   # before the range checks' reductions
    arr = _integer_array(func, "keys", keys, backend)
    _known_shape(func, "keys", arr)
    # the result holds ndim uint64 words a key (a broadcast view of keys may be far
    # larger than its memory)
    _checked_size(func, "keys", tuple(int(n) for n in arr.shape) + (nd,), 8, result=True)
    # the range checks read the elements keys hold, not a broadcast view's repeats
    held = _stored(arr)
    if arr.size and arr.dtype.kind == "i" and int(held.min()) < 0:
        raise _value_error(func, "keys", f"has a negative key ({int(held.min())})")
    # bit 63: only unsigned keys can hold it (signed ones are non-negative here), and
    # their max needs no conversion (an int64 array converted here and again below
    # cost a full-size copy on the device)
    top = int(held.max()) if nd == 3 and arr.size and arr.dtype.kind == "u" else 0
    if top >> 63:
        raise _value_error(func, "keys", f"has a key with bit 63 set ({top}); "
                                        "3-D keys have 63 bits")
    try:   # a broadcast view's keys are copied here: their MemoryError is the cells'
        u = arr.astype(_np.uint64, copy=False)
        if backend.lazy and arr.size == 0:
            u = u.rechunk(-1)   # dask cannot reshape an array of no element in several chunks
        flat = u.reshape(-1)  # the executors work on 1-D keys; 0-d keys too
        cells = backend.executor("morton").decode(flat, nd)
    except MemoryError:
        raise _out_of_memory(func, "the cells", tuple(arr.shape) + (nd,), 8) from None
    return cells.reshape(tuple(u.shape) + (nd,))
