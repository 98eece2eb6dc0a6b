"""``voxel_downsample``: one point per occupied voxel, the mean of its points, in Morton order.

Composed of xstride's own steps, on the backend of the points (NumPy or CuPy): the
columns' extremes and the first non-finite row (one pass), each point's voxel index in
float64 and its Morton key (one pass; the segment executor's ``voxel_bounds`` and
``voxel_keys``), :func:`~xstride.algorithms.sort_by_key`, then the runs of the sorted
keys (the run compaction of :func:`~xstride.algorithms.run_length_encode`, whose CSR
offsets are used directly) and :func:`~xstride.algorithms.segment_reduce` over the
sorted points. See ``docs/voxels.md``.
"""

from __future__ import annotations

import inspect

import numpy as np

from .. import _backends
from .._core.dtypes import name_of
from .._core.errors import type_error, value_error
from .._plans.segments import accumulator, result_dtype
from ._args import (MAX_MORTON_LEVELS, _as_array, _dtype_error, _host_vector, _lazy_refusal,
                    _real_numbers, _refuse_inexact_numbers, _refuse_listed_bools, _refuse_mask,
                    _same_device, _materialized, _short)

__all__ = ["voxel_downsample"]

_FUNC = "voxel_downsample"


def voxel_downsample(points, voxel_size, *, origin=None):
    """Downsample a point cloud to one point per occupied voxel: the mean of its points.

    Parameters
    ----------
    points : array of shape (n, 2) or (n, 3), floating dtype
        The cloud, one point per row (float16, float32 or float64), NumPy or CuPy;
        any strides. Every coordinate must be finite.
    voxel_size : float or sequence of ndim floats
        Edge length of a voxel, one for every axis or one per axis; positive and finite.
    origin : sequence of ndim floats, optional
        A corner of the voxel grid. Default: the points' minimum corner (the minimum of
        each column). Points below ``origin`` are allowed (negative voxel indices).

    Returns
    -------
    centroids : array of shape (m, ndim), the dtype of ``points``
        One row per occupied voxel: the mean of the points in it, summed in float64 and
        rounded once to the points' dtype (float16 points: to float32 by
        :func:`~xstride.algorithms.segment_reduce`, then to float16). Rows in Morton
        (Z-) order of the voxels.
    counts : array of int64, shape (m,)
        Points per voxel, in the same order; ``counts.sum() == n``.

    Both on the backend of ``points``. ``n == 0`` gives shapes (0, ndim) and (0,). On
    CuPy ``counts`` may be a view of a buffer of up to n / 16 entries, which it fills at
    least 1/8 of (docs/segments.md, the run compaction).

    Raises
    ------
    TypeError
        ``points`` not of dtype float16, float32 or float64 (long double is refused);
        ``voxel_size`` or ``origin`` not ints and floats (bool, complex, str,
        ``Fraction``, ``Decimal`` and long double are refused); arrays of different
        backends mixed (the message names them); ``points``, ``voxel_size`` or
        ``origin`` that is a masked array (``numpy.ma``, a dask array of masked chunks,
        or a list holding one or ``numpy.ma.masked``): its masked elements would be read
        as values.
    NotImplementedError
        ``points`` of a lazy backend (dask): compute them first; a list or tuple while
        dask is the active backend: pass a NumPy or CuPy array.
    ValueError
        ``points`` not of shape (n, 2) or (n, 3), or with a NaN or infinite coordinate
        (the message names the first such row); ``voxel_size`` not positive or not
        finite, or of the wrong length; ``origin`` not finite or of the wrong length;
        more voxels along an axis than a Morton key holds (2**21 per axis in 3-D, 2**32
        in 2-D, counted from the lowest occupied voxel): choose a larger ``voxel_size``;
        coordinates whose distance to the origin overflows float64 (naming ``points``,
        or ``origin`` when one is given).
    MemoryError
        An array argument that is a broadcast view (a byte stride of 0) larger than
        memory: such views are copied first, and the copy's error names the
        argument and its size.

    Notes
    -----
    The voxel of a point ``p`` is ``floor((p - origin) / voxel_size)`` per axis, the
    subtraction and the division each rounded in float64 (float32 points are widened
    first, exactly). Those are correctly rounded IEEE operations on the host and on the
    device, so a point falls in the same voxel on every backend and in a NumPy
    reference that uses the same formula. Voxels are ordered by the Morton key of
    their indices counted from the lowest occupied voxel on each axis, wherever
    ``origin`` lies (with the default origin that voxel is the origin's own).

    Accuracy: per axis, a voxel's centroid differs from any other summation order of
    the same float64 values (e.g. ``np.unique(..., return_inverse=True)`` and
    ``np.bincount(inverse, weights)``, divided by the counts) by at most
    ``(m + 1) * 2**-52 * max|x_i|``, where ``m`` is the voxel's point count and
    ``x_i`` its points' coordinates on that axis (each sum of ``m`` terms is off by at
    most ``(m - 1) * 2**-53 * sum|x_i|``, each division by half an ulp; Higham,
    *Accuracy and Stability of Numerical Algorithms*, 2nd ed., section 4.2). For
    float32 and float16 points add one ulp of the result dtype (the final rounding).
    Results are the same run to run on each backend. A voxel whose float64 sum would
    pass float64's range (points near ``+-1.8e308``) is summed again with its points
    scaled by a power of two, so its centroid is finite, as its points are.

    Voxel indices must fit a Morton key: at most ``2**MAX_MORTON_LEVELS[ndim]``
    voxels per axis between the lowest and highest occupied voxel. A wider span is a
    ``ValueError`` (no wider key: :func:`~xstride.algorithms.sort_by_key` sorts one
    integer key).

    Examples
    --------
    >>> import numpy as np
    >>> import xstride as xp
    >>> pts = np.array([[0.1, 0.1], [0.3, 0.2], [1.5, 0.1]])
    >>> c, n = xp.algorithms.voxel_downsample(pts, 1.0)
    >>> c
    array([[0.2 , 0.15],
           [1.5 , 0.1 ]])
    >>> n
    array([2, 1])
    """
    named = [("points", points), ("voxel_size", voxel_size), ("origin", origin)]
    backend = _backends.of(_FUNC, named)
    if backend.lazy:   # before a list becomes a dask array (the chunks option may not fit it)
        raise _lazy_refusal(_FUNC, backend, named, "compute the points first "
                                                   "(xstride.to_numpy or .compute())")
    pts = _as_array(_FUNC, "points", points, backend)
    allowed = "a floating dtype (float16, float32 or float64)"
    if pts.dtype.kind != "f" or pts.dtype.itemsize > 8:
        # long double too: it would be carried as float32 (segment_reduce refuses it)
        raise _dtype_error(_FUNC, "points", points, pts, allowed)
    _refuse_listed_bools(_FUNC, "points", points, allowed)
    if pts.ndim != 2 or pts.shape[1] not in MAX_MORTON_LEVELS:
        raise value_error(_FUNC, "points", f"must have shape (n, 2) or (n, 3); got {tuple(pts.shape)}")
    pts = _materialized(_FUNC, "points", pts)
    n, ndim = (int(s) for s in pts.shape)
    size = _voxel_size(voxel_size, ndim)
    lo = None if origin is None else _origin(origin, ndim)
    xm = backend.load()   # numpy or cupy itself: no array_api_compat namespace to import
    if n == 0:
        return xm.empty((0, ndim), dtype=pts.dtype), xm.empty((0,), dtype=xm.int64)

    # the points travel in their own dtype (float16 as float32, exactly: segment_reduce
    # takes float32 and float64; a non-native byte order, '>f8' from a FITS or HDF5
    # file, as the native type of its width); the means accumulate in float64 either way
    ex = backend.executor("segments")
    _same_device(_FUNC, backend, [("points", pts)], "segments")
    native = np.dtype(pts.dtype).newbyteorder("=")
    if native in (np.dtype(np.float32), np.dtype(np.float64)):
        carried = pts if pts.dtype == native else pts.astype(native)
    else:
        carried = pts.astype(np.float32)
    # one pass and one read-back: the columns' extremes over the finite rows and the
    # first row that is not finite; they give the default origin and (the voxel index
    # being monotone in the coordinate) the voxel span
    low, high, row = ex.voxel_bounds(carried)
    if row >= 0:
        raise value_error(_FUNC, "points", f"has a NaN or infinite coordinate in row {row} "
                                           f"({np.asarray(backend.to_host(pts[row])).tolist()}); "
                                           "voxels need finite points")
    ends = np.stack([low, high])
    if lo is None:
        lo = ends[0].copy()
    vmin, span = _span(ends, lo, size, origin is not None)

    # the voxel of every point and its Morton key in one pass
    keys = ex.voxel_keys(carried, lo, size, vmin)
    # sort_by_key's executor (the arguments are checked here already); the cells are in
    # [0, span] per axis, so the keys have at most ndim * bit_length(max span) bits: an
    # executor that sorts only the bits that carry information is told so
    sort = backend.executor("sort").sort_by_key
    bits = ndim * max(1, int(span.max()).bit_length())
    kw = {"key_bits": bits} if "key_bits" in inspect.signature(sort).parameters else {}
    sorted_keys, _, sorted_pts = sort(keys, [carried], **kw)
    del keys
    # the runs' CSR offsets straight from the run compaction (no cumulative sum); its
    # check of the (sorted) keys also bounds the longest run as far as the walks need
    # it, so the offsets, valid by construction, go to the executor unchecked
    _, offsets, _, longest, counts = ex.runs(sorted_keys, True, lengths=True)
    if longest is None:
        longest = ex.offsets_stats(offsets, n)[4]
    dtype = name_of(carried.dtype)

    def mean(values):
        return ex.segment_reduce(values, offsets, "mean", result_dtype("mean", dtype),
                                 accumulator("mean", dtype), longest)

    if dtype != "float64" or float(np.abs(ends).max()) < np.finfo(np.float64).max / n:
        means = mean(sorted_pts)
    else:
        # a voxel's float64 sum may pass float64's range (points near +-1.8e308), where
        # its mean does not: those voxels again, their points scaled by 2**-k (exact),
        # so no sum overflows and the mean, scaled back, is the same rounding of the
        # same sum (only the exponent range differs). Known from the extremes on the
        # host: nothing more is done unless some sum can overflow.
        with np.errstate(over="ignore"):
            means = mean(sorted_pts)
        k = n.bit_length()
        scaled = mean(sorted_pts * 2.0**-k) * 2.0**k
        means = xm.where(xm.isfinite(means), means, scaled)
    return means.astype(pts.dtype, copy=False), counts


def check_span(lower, upper, voxel_size) -> None:
    """:func:`voxel_downsample`'s check that the voxel grid fits a Morton key, for
    points whose columns' minima and maxima are ``lower`` and ``upper`` (the default
    origin, ``lower``), without the points: the same ``ValueError``, with the same
    message (``voxel_size`` checked as there). The demo calls it once its bounding box
    is known, before its keys, sort and tree run."""
    low = np.asarray(lower, dtype=np.float64)
    ends = np.stack([low, np.asarray(upper, dtype=np.float64)])
    _span(ends, low.copy(), _voxel_size(voxel_size, int(low.size)), False)


def _span(ends, lo, size, origin_given: bool):
    """``(vmin, span)``: the lowest voxel and the voxel span per axis (float64) of points
    whose columns' extremes are the rows of ``ends`` (2, ndim), for the origin ``lo``;
    ``ValueError`` where a coordinate less the origin overflows float64 or the span
    passes a Morton key's ``2**MAX_MORTON_LEVELS[ndim]``."""
    ndim = int(ends.shape[1])
    # floor((p - origin) / size) is monotone in p: the voxel span from the extremes
    with np.errstate(over="ignore", invalid="ignore"):
        offsets = ends - lo
        vmin = np.floor(offsets[0] / size)
        vmax = np.floor(offsets[1] / size)
        span = vmax - vmin
    top = MAX_MORTON_LEVELS[ndim]
    for axis in range(ndim):
        if not np.isfinite(offsets[:, axis]).all():   # p - origin past float64's range
            where = (f"on axis {axis} (points {ends[0][axis]:.6g} to "
                     f"{ends[1][axis]:.6g}, origin {lo[axis]:.6g})")
            if not origin_given:
                raise value_error(_FUNC, "points", "spans more than float64 holds: its "
                                                   f"coordinates less the origin overflow {where}")
            raise value_error(_FUNC, "origin", "is too far from the points: their "
                                               f"coordinates less it overflow float64 {where}")
        if not (np.isfinite(span[axis]) and span[axis] < 2.0**top):
            raise value_error(_FUNC, "voxel_size", f"gives {_count(span[axis])} voxels on axis "
                                                   f"{axis} (points {ends[0][axis]:.6g} to "
                                                   f"{ends[1][axis]:.6g}, voxel size "
                                                   f"{float(size[axis])!r}); a {ndim}-D Morton key "
                                                   f"holds at most 2**{top}: choose a larger "
                                                   "voxel_size"
                                                   + ("" if not origin_given else
                                                      " or an origin nearer the points"))
    return vmin, span


def _count(span) -> str:
    if not np.isfinite(span):
        return "too many"
    if span >= 2.0**53:
        return f"about {span:.3g}"
    return f"{int(span) + 1:,}"


def _voxel_size(value, ndim: int) -> np.ndarray:
    """``voxel_size`` as ``ndim`` positive finite float64 values on the host."""
    be = _backends.of_array(value)
    _refuse_mask(_FUNC, "voxel_size", value, be)
    if be is not None and not isinstance(value, np.generic):
        value = be.to_host(value)
    _refuse_inexact_numbers(_FUNC, "voxel_size", value, value,
                            f"a positive real number or {ndim} of them")
    if value is None or isinstance(value, (str, bytes)) or not _real_numbers(value) or (
            isinstance(value, (list, tuple))
            and any(isinstance(v, (bool, np.bool_)) for v in value)):
        raise type_error(_FUNC, "voxel_size", value, f"a positive real number or {ndim} of them")
    try:
        arr = np.asarray(value, dtype=np.float64)
    except OverflowError:
        raise value_error(_FUNC, "voxel_size", f"must be finite; {_short(value)} does not "
                                               "fit a float64") from None
    except (TypeError, ValueError):
        raise type_error(_FUNC, "voxel_size", value,
                         f"a positive real number or {ndim} of them") from None
    given = arr.item() if arr.ndim == 0 else arr.tolist()   # the messages show it as given
    if arr.ndim == 0:
        arr = np.full(ndim, arr)
    if arr.shape != (ndim,):
        raise value_error(_FUNC, "voxel_size", f"must be one number or {ndim} (one per axis of "
                                               f"the points); got shape {arr.shape}")
    if not np.isfinite(arr).all():
        raise value_error(_FUNC, "voxel_size", f"must be finite; got {given}")
    if not (arr > 0).all():
        raise value_error(_FUNC, "voxel_size", f"must be positive; got {given}")
    return arr


def _origin(value, ndim: int) -> np.ndarray:
    if isinstance(value, (str, bytes)):
        raise type_error(_FUNC, "origin", value, f"a sequence of {ndim} real numbers")
    lo = _host_vector(_FUNC, "origin", value, str(ndim))
    if lo.shape != (ndim,):
        raise value_error(_FUNC, "origin", f"must have {ndim} entries (one per axis of the "
                                           f"points); got {lo.size}")
    return lo

