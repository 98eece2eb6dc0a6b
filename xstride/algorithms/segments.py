"""Segment primitives: CSR segment reductions, reduce-by-key, run-length encoding, the
offsets of sorted bins, and stable stream compaction (``xp.algorithms``).

Each function runs on the backend of its array arguments (NumPy → ``xstride._host``,
CuPy → ``xstride._kernels``); dask arrays are refused with ``NotImplementedError``
(compute them first), and so are lists and tuples while dask is the active backend
(they would be its arrays: pass NumPy or CuPy arrays). Results are deterministic: the
same bits run to run on each backend; integer results, integer means included (an
exact sum), are identical on both backends; float sums, products and means are
accumulated in float64 in a fixed order (see :func:`segment_reduce` for the bound
between host and device). See ``docs/segments.md``.

Segments are given CSR-style: ``offsets`` of shape ``(n_segments + 1,)`` with
``offsets[0] == 0``, ``offsets[-1] == n`` and ``offsets`` non-decreasing; segment ``s``
holds rows ``offsets[s]:offsets[s + 1]``.
"""

from __future__ import annotations

import numpy as np

from .. import _backends
from .._core.dtypes import name_of
from .._core.errors import type_error, value_error
from .._core.sizes import out_of_memory
from .._plans.segments import FLOATS, OPS, VALUE_DTYPES, accumulator, result_dtype
from ._args import (_as_array, _int_argument, _dtype_error, _integer_array, _lazy_refusal,
                    _materialized, _refuse_listed_bools, _same_device)

__all__ = ["segment_reduce", "reduce_by_key", "run_length_encode", "bin_offsets", "compact",
           "SEGMENT_OPS"]

#: The reductions of :func:`segment_reduce` and :func:`reduce_by_key`.
SEGMENT_OPS = tuple(OPS)

def _executor(func: str, named):
    # arrays of different backends are the dispatch's mixed-backend TypeError, a dask
    # array beside NumPy ones too (its advice, xstride.to_numpy, runs); arrays of one
    # lazy backend (dask) are refused before any other check
    owners = [_backends.of_array(value) for _, value in named]
    backend = owners[0]
    if backend is None or any(owner is not backend for owner in owners):
        backend = _backends.of(func, named)    # lists, scalars, mixed: the full rules
    if backend.lazy:
        raise _lazy_refusal(func, backend, named)
    ex = backend.executor("segments")
    if ex is None:
        raise _lazy_refusal(func, backend, named)
    _same_device(func, backend, named, "segments")
    return backend, ex


def _op(func: str, op) -> str:
    if not isinstance(op, str):
        raise type_error(func, "op", op, "one of " + ", ".join(repr(o) for o in OPS))
    if op not in OPS:
        raise value_error(func, "op", f"must be one of {', '.join(repr(o) for o in OPS)}; "
                                      f"got {op!r}")
    return op


def _values(func: str, name: str, values, backend, n: int | None = None):
    arr = _as_array(func, name, values, backend)
    allowed = "an integer, float32 or float64 dtype (bool, float16 and complex are not reduced)"
    if name_of(arr.dtype) not in VALUE_DTYPES:
        raise _dtype_error(func, name, values, arr, allowed)
    _refuse_listed_bools(func, name, values, allowed)
    if arr.ndim not in (1, 2):
        raise value_error(func, name, f"must have shape (n,) or (n, k); got {tuple(arr.shape)}")
    if n is not None and arr.shape[0] != n:
        raise value_error(func, name, f"must have shape ({n},) or ({n}, k) to match the "
                                      f"keys of shape ({n},); got {tuple(arr.shape)}")
    return _materialized(func, name, arr)


def _keys(func: str, name: str, keys, backend):
    k = _integer_array(func, name, keys, backend)
    if k.ndim != 1:
        raise value_error(func, name, f"must be 1-D; got shape {tuple(k.shape)}")
    return _materialized(func, name, k)


def _unsorted(func: str, name: str, pos: int, keys, backend) -> ValueError:
    pair = backend.to_host(keys[pos - 1:pos + 1]).tolist()
    return value_error(func, name, f"must be sorted (non-decreasing); position {pos} holds "
                                   f"{pair[1]}, less than {pair[0]} at position {pos - 1}")


def _refuse_empty(func: str, dtype: str, op: str, first_empty: int) -> None:
    if op in ("min", "max", "mean") and dtype not in FLOATS and first_empty >= 0:
        raise value_error(func, "offsets", f"gives segment {first_empty} no rows; the {op} of "
                                           f"an empty segment of {dtype} values is undefined "
                                           "(floats give NaN)")


def _reduce(func: str, ex, values, offsets, op: str, max_len: int, first_empty: int):
    dtype = name_of(values.dtype)
    _refuse_empty(func, dtype, op, first_empty)
    return ex.segment_reduce(values, offsets, op, result_dtype(op, dtype),
                             accumulator(op, dtype), max_len)


def segment_reduce(values, offsets, op="sum"):
    """Reduce each segment of rows given by CSR offsets.

    Parameters
    ----------
    values : array of shape (n,) or (n, k)
        Any integer dtype, float32 or float64 (bool, float16 and complex are refused);
        any strides. Columns are reduced separately.
    offsets : array of shape (n_segments + 1,), integer dtype
        ``offsets[0] == 0``, non-decreasing, ``offsets[-1] == n``; segment ``s`` is rows
        ``offsets[s]:offsets[s + 1]``.
    op : {"sum", "prod", "min", "max", "mean", "count"}

    Returns
    -------
    array of shape (n_segments,) or (n_segments, k)
        On the backend of the inputs. dtype: ``sum``/``prod`` widen integers to int64
        (signed) or uint64 (unsigned) and keep float32/float64; ``min``/``max`` keep the
        values' dtype; ``mean`` gives float64 for integers and keeps float32/float64;
        ``count`` is int64 (the segment's length, in every column). Empty segments give
        the identity: 0 for ``sum``/``count``, 1 for ``prod``, NaN for the ``min``,
        ``max`` and ``mean`` of floats.

    Raises
    ------
    TypeError
        ``values`` of another dtype; ``offsets`` not integers; ``op`` not a str; arrays
        of different backends mixed (a dask array beside NumPy or CuPy ones too); values
        or offsets that are a masked array (``numpy.ma``, a dask array of masked chunks,
        or a list holding one or ``numpy.ma.masked``): its masked elements would be read
        as values.
    ValueError
        ``op`` unknown; ``values`` not 1-D or 2-D; ``offsets`` not 1-D or empty, not
        starting at 0, decreasing (the message names the first position) or not ending
        at n; an empty segment for the ``min``, ``max`` or ``mean`` of integer values
        (undefined; the message names the segment). On CuPy the offsets are checked on
        the device and one 40-byte record is read back.
    NotImplementedError
        dask arrays; lists or tuples while dask is the active backend.
    MemoryError
        An array argument that is a broadcast view (a byte stride of 0) larger than
        memory: such views are copied first, and the copy's error names the
        argument and its size.

    Notes
    -----
    Integers are reduced exactly (sums and products wrap modulo 2**64, as NumPy's do).
    The mean of integers is NumPy's formula, the float64 sum over the count, with the
    sum taken exactly (in 128 bits, which no segment of fewer than 2**63 rows leaves)
    and rounded once to float64 (to nearest, ties to even) before the division: it
    does not wrap, and as integer addition is associative it is the same bits in any
    order. It equals ``np.mean`` of the segment wherever NumPy's float64 sum is exact
    (every partial sum below 2**53 in magnitude, e.g. 32-bit values in segments of
    fewer than 2**21 rows; or equal values such as ``[2**62, 2**62]``); where NumPy's
    sum rounds (64-bit values), ``np.mean`` differs from this mean by at most its own
    error, ``(2m - 1) 2**-53 sum|x| / m`` plus two roundings, while this one is within
    two roundings of the exact mean. Integer results and integer means are
    bit-identical on both backends. Float sums, products and means are accumulated in
    float64 (float32 values too) and rounded once to the result dtype; min and max
    propagate NaN.
    NumPy folds each segment with ``ufunc.reduceat``; the device folds a segment in one
    thread (in row order), or in one warp per segment or per chunk of 4096 rows (each
    lane in row order, the lanes by a fixed binary tree, the chunks in chunk order):
    fixed orders chosen from the data alone, so each backend gives the same bits run to
    run. Host and device float sums of a segment of
    ``m`` rows differ by at most ``2 * (m - 1) * 2**-53 * sum(abs(x))`` before the final
    rounding (Higham, *Accuracy and Stability of Numerical Algorithms*, 2nd ed., §4.2:
    any order of recursive summation errs by at most ``(m - 1) u sum|x|``), which is
    also the bound the tests check; products: ``2 * m * 2**-53 * abs(prod)``. The
    final rounding to the result dtype adds one rounding error: relative for normal
    results, at most the dtype's smallest normal number (``finfo.tiny``) for results
    that underflow into its subnormals (products of many small factors).

    Examples
    --------
    >>> import numpy as np
    >>> import xstride as xp
    >>> xp.algorithms.segment_reduce(np.array([1, 2, 3, 4]), np.array([0, 3, 3, 4]))
    array([6, 0, 4])
    >>> xp.algorithms.segment_reduce(np.array([2**62, 2**62, 7]), np.array([0, 2, 3]), "mean")
    array([4.61168602e+18, 7.00000000e+00])
    """
    func = "segment_reduce"
    backend, ex = _executor(func, [("values", values), ("offsets", offsets)])
    op = _op(func, op)
    vals = _values(func, "values", values, backend)
    offs = _integer_array(func, "offsets", offsets, backend)
    if offs.ndim != 1 or offs.shape[0] < 1:
        raise value_error(func, "offsets", "must have shape (n_segments + 1,) with at least "
                                           f"one entry; got {tuple(offs.shape)}")
    offs = _materialized(func, "offsets", offs)
    n = vals.shape[0]
    dtype = name_of(vals.dtype)
    # the check and the walk in one queue: the walk's result is used only once the
    # offsets pass (on CuPy it runs while the check is read back)
    stats, finish = ex.reduce_checked(vals, offs, op, result_dtype(op, dtype),
                                      accumulator(op, dtype))
    start, end, first_bad, first_empty, _ = stats
    if start != 0:
        raise value_error(func, "offsets", f"must start at 0; got offsets[0] = {start}")
    if first_bad >= 0:
        pair = backend.to_host(offs[first_bad - 1:first_bad + 1]).tolist()
        raise value_error(func, "offsets", f"must be non-decreasing; offsets[{first_bad}] = "
                                           f"{pair[1]} is less than offsets[{first_bad - 1}] "
                                           f"= {pair[0]}")
    if end != n:
        raise value_error(func, "offsets", f"must end at n = {n} (the rows of 'values'); "
                                           f"got offsets[-1] = {end}")
    _refuse_empty(func, dtype, op, first_empty)
    return finish()


def reduce_by_key(sorted_keys, values, op="sum"):
    """Reduce the values of each run of equal keys in sorted keys.

    Parameters
    ----------
    sorted_keys : array of shape (n,), integer dtype
        Non-decreasing (e.g. from :func:`sort_by_key`).
    values : array of shape (n,) or (n, k)
        As in :func:`segment_reduce`.
    op : {"sum", "prod", "min", "max", "mean", "count"}

    Returns
    -------
    unique_keys : array of shape (n_unique,), the keys' dtype
        Each distinct key once, in order.
    reduced : array of shape (n_unique,) or (n_unique, k)
        The reduction of the rows of each key, dtype as in :func:`segment_reduce`.

    On CuPy, where every tile of 4096 keys holds at most 256 runs, ``unique_keys`` may be
    a view of a buffer of up to n / 16 entries, one it fills at least 1/8 of
    (docs/segments.md).

    Raises
    ------
    TypeError
        ``sorted_keys`` not integers; ``values`` of a refused dtype; ``op`` not a str;
        arrays of different backends mixed (a dask array beside NumPy or CuPy ones too);
        keys or values that are a masked array (``numpy.ma``, a dask array of masked
        chunks, or a list holding one or ``numpy.ma.masked``): its masked elements would
        be read as values.
    ValueError
        ``op`` unknown; ``sorted_keys`` not 1-D, or not sorted: the message names the
        first position ``i`` with ``keys[i] < keys[i - 1]`` (on CuPy found by a kernel;
        only that index and the two keys are read back); ``values`` of another length.
    NotImplementedError
        dask arrays; lists or tuples while dask is the active backend.
    MemoryError
        An array argument that is a broadcast view (a byte stride of 0) larger than
        memory: such views are copied first, and the copy's error names the
        argument and its size.

    Notes
    -----
    The runs become CSR offsets (the run heads, found by a stable stream compaction)
    and the values are reduced by :func:`segment_reduce`, with its dtypes, order and
    host/device bound.

    Examples
    --------
    >>> import numpy as np
    >>> import xstride as xp
    >>> xp.algorithms.reduce_by_key(np.array([2, 2, 5]), np.array([1.0, 2.0, 4.0]))
    (array([2, 5]), array([3., 4.]))
    """
    func = "reduce_by_key"
    backend, ex = _executor(func, [("sorted_keys", sorted_keys), ("values", values)])
    op = _op(func, op)
    keys = _keys(func, "sorted_keys", sorted_keys, backend)
    vals = _values(func, "values", values, backend, keys.shape[0])
    first_bad, offsets, unique, longest = ex.runs(keys, True)
    if first_bad >= 0:
        raise _unsorted(func, "sorted_keys", first_bad, keys, backend)
    max_len = 0
    if op != "count":
        # the check of the keys bounds the longest run as far as the walks need it;
        # else one pass over the offsets finds it
        max_len = longest if longest is not None else ex.offsets_stats(offsets,
                                                                       keys.shape[0])[4]
    return unique, _reduce(func, ex, vals, offsets, op, max_len, -1)


def run_length_encode(keys):
    """Runs of equal consecutive keys: each run's key and length.

    Parameters
    ----------
    keys : array of shape (n,), integer dtype
        Any order (a key that comes back after another one starts a new run).

    Returns
    -------
    unique_keys : array of shape (n_runs,), the keys' dtype
        The key of each run, in order (sorted keys: each distinct key once).
    counts : array of int64, shape (n_runs,)
        The length of each run; ``counts.sum() == n``.

    On CuPy, where every tile of 4096 keys holds at most 256 runs, both may be views of
    buffers of up to n / 16 entries, which they fill at least 1/8 of (docs/segments.md).

    Raises
    ------
    TypeError
        ``keys`` not of an integer dtype; ``keys`` that are a masked array
        (``numpy.ma``, a dask array of masked chunks, or a list holding one or
        ``numpy.ma.masked``): its masked elements would be read as values.
    ValueError
        ``keys`` not 1-D.
    NotImplementedError
        dask arrays; lists or tuples while dask is the active backend.
    MemoryError
        An array argument that is a broadcast view (a byte stride of 0) larger than
        memory: such views are copied first, and the copy's error names the
        argument and its size.

    Examples
    --------
    >>> import numpy as np
    >>> import xstride as xp
    >>> xp.algorithms.run_length_encode(np.array([7, 7, 3, 7]))
    (array([7, 3, 7]), array([2, 1, 1]))
    """
    func = "run_length_encode"
    backend, ex = _executor(func, [("keys", keys)])
    k = _keys(func, "keys", keys, backend)
    _, _, unique, _, counts = ex.runs(k, False, lengths=True)
    return unique, counts


def bin_offsets(sorted_bins, n_bins):
    """CSR offsets of sorted bin indices: bin ``b`` holds ``offsets[b]:offsets[b + 1]``.

    Parameters
    ----------
    sorted_bins : array of shape (n,), integer dtype
        Non-decreasing bin indices in ``[0, n_bins)`` (cell lists of sorted particle
        codes).
    n_bins : int
        Number of bins, ``>= 0``.

    Returns
    -------
    array of int64, shape (n_bins + 1,)
        ``offsets[b]`` is the number of entries below bin ``b`` (empty bins repeat the
        offset); ``offsets[0] == 0`` and ``offsets[n_bins] == n``.

    Raises
    ------
    TypeError
        ``sorted_bins`` not integers; ``n_bins`` not an int; ``sorted_bins`` that are a
        masked array (``numpy.ma``, a dask array of masked chunks, or a list holding one
        or ``numpy.ma.masked``): its masked elements would be read as values.
    ValueError
        ``n_bins`` negative or not below 2**60 - 1 (the int64 offsets would exceed
        2**63 - 1 bytes); ``sorted_bins`` not 1-D, holding a bin outside
        ``[0, n_bins)`` (the message names the first such position) or not sorted (the
        first position ``i`` with ``bins[i] < bins[i - 1]``). On CuPy both checks run
        on the device; one 24-byte record is read back.
    MemoryError
        The ``(n_bins + 1,)`` offsets do not fit in memory (the message gives their
        size).
        Also an array argument that is a broadcast view larger than memory (it is
        copied first; the copy's error names the argument).
    NotImplementedError
        dask arrays; lists or tuples while dask is the active backend.

    Examples
    --------
    >>> import numpy as np
    >>> import xstride as xp
    >>> xp.algorithms.bin_offsets(np.array([0, 0, 2]), 4)
    array([0, 2, 2, 3, 3])
    """
    func = "bin_offsets"
    backend, ex = _executor(func, [("sorted_bins", sorted_bins)])  # dask refused first
    nb = _int_argument(func, "n_bins", n_bins, "an int")
    if nb < 0:
        raise value_error(func, "n_bins", f"must be >= 0; got {nb}")
    if (nb + 1) * 8 > 2**63 - 1:  # the (nb + 1,) int64 offsets: an array's byte limit
        raise value_error(func, "n_bins", "must be below 2**60 - 1: the offsets, (n_bins + 1) "
                                          "int64, may hold at most 2**63 - 1 bytes; "
                                          f"got {nb}")
    bins = _keys(func, "sorted_bins", sorted_bins, backend)   # n_bins first (docs/segments.md)
    try:
        first_unsorted, first_outside, offsets = ex.bin_offsets(bins, nb)
    except MemoryError:
        raise out_of_memory(func, "the offsets", (nb + 1,), 8) from None
    if first_outside >= 0:
        value = backend.to_host(bins[first_outside:first_outside + 1]).tolist()[0]
        raise value_error(func, "sorted_bins", f"holds bin {value} at position {first_outside},"
                                               f" outside [0, {nb}) (n_bins = {nb})")
    if first_unsorted >= 0:
        raise _unsorted(func, "sorted_bins", first_unsorted, bins, backend)
    return offsets


def compact(mask, *arrays):
    """Stable stream compaction: the rows of each array where ``mask`` is True.

    Parameters
    ----------
    mask : array of bool, shape (n,)
        Or a list of bools (an empty list is an empty mask).
    *arrays : arrays of shape (n, ...), any dtype
        Each is compacted along axis 0, in order (``a[mask]`` for each).

    Returns
    -------
    tuple
        One array per input array, shape ``(mask.sum(),) + a.shape[1:]``, its dtype, on
        the backend of the inputs; rows keep their order. No arrays: ``()``.

    Raises
    ------
    TypeError
        ``mask`` not of dtype bool; arrays of different backends mixed (a dask array
        beside NumPy or CuPy ones too); a mask or array that is a masked array
        (``numpy.ma``, a dask array of masked chunks, or a list holding one or
        ``numpy.ma.masked``): its masked elements would be read as values.
    ValueError
        ``mask`` not 1-D; an array that is 0-d or whose length differs from the mask's.
    NotImplementedError
        dask arrays; lists or tuples while dask is the active backend.
    MemoryError
        An array argument that is a broadcast view (a byte stride of 0) larger than
        memory: such views are copied first, and the copy's error names the
        argument and its size.

    Notes
    -----
    NumPy: boolean indexing. CuPy: a reduce-then-scan compaction (Merrill & Garland,
    "Single-pass Parallel Prefix Scan with Decoupled Look-back", NVIDIA NVR-2016-002,
    §2 describes the reduce-then-scan baseline): one pass counts the selected rows of
    each tile of 4096, a single block scans the counts, and one pass per array writes
    each selected row at its tile's offset plus its rank in the tile; one 8-byte count
    is read back to size the results.

    Examples
    --------
    >>> import numpy as np
    >>> import xstride as xp
    >>> xp.algorithms.compact(np.array([True, False, True]), np.array([1, 2, 3]))
    (array([1, 3]),)
    """
    func = "compact"
    named = [("mask", mask)] + [(f"arrays[{i}]", a) for i, a in enumerate(arrays)]
    backend, ex = _executor(func, named)
    m = _as_array(func, "mask", mask, backend)
    if isinstance(mask, (list, tuple)) and len(mask) == 0:
        m = backend.asarray(np.zeros(0, dtype=bool))   # NumPy makes [] float64
    if m.dtype.kind != "b":
        raise _dtype_error(func, "mask", mask, m, "an array of dtype bool")
    if m.ndim != 1:
        raise value_error(func, "mask", f"must be 1-D; got shape {tuple(m.shape)}")
    m = _materialized(func, "mask", m)
    n = m.shape[0]
    arrs = []
    for name, a in named[1:]:
        arr = _as_array(func, name, a, backend)
        if arr.ndim < 1 or arr.shape[0] != n:
            hint = ("; pass each array as an argument of its own: compact(mask, x, v)"
                    if isinstance(a, (list, tuple)) and arr.ndim >= 2 and arr.shape[1] == n
                    else "")
            raise value_error(func, name, f"must have shape ({n}, ...) to match the mask of "
                                          f"shape ({n},); got {tuple(arr.shape)}{hint}")
        arrs.append(_materialized(func, name, arr))
    return ex.compact(m, arrs)
