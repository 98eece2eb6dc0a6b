"""``xp.algorithms.sort_by_key``: a stable sort of integer keys carrying value arrays.

The argument checks and the docstring; the sort runs on the keys' backend
(NumPy: ``xstride._host.sort``; CuPy: ``xstride._kernels.sort``, xstride's one-sweep
radix sort; dask: ``xstride._chunked.sort``). See ``docs/morton.md``.
"""

from __future__ import annotations

import numbers

from .. import _backends
from .._core.errors import value_error
from ._args import _as_array, _int_argument, _integer_array, _known_shape, _materialized

__all__ = ["sort_by_key"]



def _key_bits(func: str, key_bits, keys) -> int | None:
    """``key_bits`` checked against the keys' dtype: None, or an int in 1..bits of a key."""
    if key_bits is None:
        return None
    value = _int_argument(func, "key_bits", key_bits, "an int or None")
    width = 8 * keys.dtype.itemsize
    if not 1 <= value <= width:
        raise value_error(func, "key_bits", f"must be in 1..{width} for keys of dtype "
                                            f"{keys.dtype}; got {value}")
    return value


def sort_by_key(keys, *values, key_bits=None):
    """Stable sort of integer keys, carrying any number of value arrays along.

    Parameters
    ----------
    keys : array of shape (n,), any signed or unsigned integer dtype
    *values : arrays of shape (n,) or (n, k), any dtype
        Rows are reordered with the keys.
    key_bits : int, optional
        How many low bits of the keys carry information: every key is in
        ``[0, 2**key_bits)``. An int in ``1..8 * keys.dtype.itemsize``; the full width
        of a signed dtype sorts negative keys too. Keys from
        :func:`~xstride.algorithms.morton_keys` at ``levels`` in ``ndim`` dimensions
        have ``ndim * levels`` bits: pass that and the device sort skips finding it.
        Default (None): found from the keys (on CuPy, the bitwise OR of every key, one
        reduction and one 8-byte read-back; a negative signed key means every bit).
        On NumPy arrays keys outside ``[0, 2**key_bits)`` raise ``ValueError``; on
        CuPy arrays nothing is checked (that would read back from the device), and
        the result of such keys is unspecified (``order`` is still a permutation);
        dask arrays sort whole keys and do not use it (nor check the keys).

    Returns
    -------
    tuple
        ``(sorted_keys, order, *sorted_values)``: ``order`` is int64 (n,) with
        ``sorted_keys == keys[order]``; equal keys keep their input order (stable).
        All on the backend of the inputs; the inputs are not modified. dask inputs
        are sorted at the call (a sample sort whose partitions' lengths are computed
        then; an error the keys' graph raises, such as a NaN position of
        :func:`~xstride.algorithms.morton_keys`, comes from this call) and the results
        are persisted dask arrays.

    Raises
    ------
    TypeError
        ``keys`` not of an integer dtype (bool and floats are refused); ``key_bits`` not
        an int (bool refused) or None; arrays of different backends mixed (NumPy, CuPy,
        dask); keys or values that are a masked array (``numpy.ma``, a dask array of
        masked chunks, or a list holding one or ``numpy.ma.masked``): its masked
        elements would be read as values.
    ValueError
        ``keys`` not 1-D; a value not 1-D or 2-D, or whose length differs from n;
        ``key_bits`` outside ``1..8 * keys.dtype.itemsize``; on NumPy, a key outside
        ``[0, 2**key_bits)`` (the message names its position); dask keys or values
        whose chunk lengths dask does not know (after boolean indexing: the global row
        numbers of ``order`` need them; ``x.compute_chunk_sizes()`` first).
    MemoryError
        An array argument that is a broadcast view (a byte stride of 0) larger than
        memory: such views are copied first, and the copy's error names the
        argument and its size.

    Notes
    -----
    NumPy: NumPy's sort of packed ``(key - min) << bits(n - 1) | row`` words where the
    key range fits (two such sorts, low bits first, for wider 64-bit keys), else
    ``argsort(kind="stable")``; then gathers. CuPy: xstride's least significant digit
    radix sort with one-sweep digit passes and decoupled look-back (A. Adinets and D.
    Merrill, 2022, "Onesweep: A Faster Least Significant Digit Radix Sort for GPUs",
    arXiv:2206.01784): ``ceil(bits / 8)`` passes of 8-bit digits over the keys (moved
    as the narrowest unsigned type that holds ``bits`` bits) and an int64 permutation
    (moved as uint32 between passes when n <= 2**32); the first value array whose rows
    are one 1-, 2-, 4- or 8-byte word (C-contiguous) moves with the keys through every
    pass of a sort of up to four passes, or is gathered by the last pass of a longer
    one; the other values are gathered after it (``cupy.take``). Signed keys are
    sorted with their sign bit flipped. Both are deterministic, and give the same
    ``order`` for the same keys. See ``docs/morton.md``.

    Examples
    --------
    >>> import numpy as np
    >>> import xstride as xp
    >>> keys = np.array([3, 1, 2, 1], dtype=np.uint64)
    >>> sk, order, v = xp.algorithms.sort_by_key(keys, np.array([30, 10, 20, 11]), key_bits=2)
    >>> sk.tolist(), order.tolist(), v.tolist()
    ([1, 1, 2, 3], [1, 3, 2, 0], [10, 11, 20, 30])
    """
    func = "sort_by_key"
    named = [("keys", keys)] + [(f"values[{i}]", v) for i, v in enumerate(values)]
    backend = _backends.of_extension(func, named)
    k = _integer_array(func, "keys", keys, backend)
    if k.ndim != 1:
        raise value_error(func, "keys", f"must be 1-D; got shape {tuple(k.shape)}")
    _known_shape(func, "keys", k)
    k = _materialized(func, "keys", k)
    n = k.shape[0]
    vals = []
    for name, v in named[1:]:
        arr = _as_array(func, name, v, backend)
        if arr.ndim in (1, 2):
            _known_shape(func, name, arr)
        if arr.ndim not in (1, 2) or arr.shape[0] != n:
            hint = ""
            if arr.ndim == 0 and isinstance(v, numbers.Integral):   # sort_by_key(k, x, 30)
                hint = "; key_bits is keyword-only: sort_by_key(keys, *values, key_bits=...)"
            elif (isinstance(v, (list, tuple)) and arr.ndim >= 2
                  and arr.shape[1] == n):                           # (x, v) for x, v
                hint = "; pass each array as an argument of its own: sort_by_key(keys, x, v)"
            raise value_error(func, name, f"must have shape ({n},) or ({n}, k) to match "
                                          f"keys of shape ({n},); got {tuple(arr.shape)}"
                                          + hint)
        vals.append(_materialized(func, name, arr))
    bits = _key_bits(func, key_bits, k)
    return backend.executor("sort").sort_by_key(k, vals, bits)
