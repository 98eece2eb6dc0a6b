"""``sum``, ``prod``, ``min``, ``max`` of dask arrays: dask's reduction tree, with the
namespace's own function on every chunk (xstride's kernels on a CuPy chunk, NumPy on a
NumPy chunk).

``xstride.reductions`` checks the arguments (axis normalized, ``keepdims`` a bool,
``dtype`` valid; ``min``/``max`` of an empty selection refused) and calls these in place
of ``array_api_compat.dask.array``'s, whose chunk functions are NumPy's (``numpy.sum``,
which a CuPy chunk answers with CuPy's kernel). The tree is ``dask.array.reduction``:
each chunk reduces its part of the axes (keepdims), groups of partial results are
combined by the same function, the last group gives the result. Floating-point sums
depend on the chunking (partial sums), as with dask's own ``sum``; the NumPy backend's
value is not promised bit for bit.

The other reductions and the scans stay dask's (``array_api_compat.dask.array``).
Source: dask's ``dask/array/reductions.py`` (chunk/combine/aggregate tree).
"""

from __future__ import annotations

import functools

import dask.array as da
import numpy as np
from dask.array.utils import meta_from_array

from . import _config

__all__ = ["sum", "prod", "min", "max"]


def _part(name, block, axis=None, keepdims=False, dtype=None):
    """``name`` of one chunk (or of a group of partial results) through the namespace
    function of the chunk's backend."""
    if name in ("min", "max"):
        axes = range(block.ndim) if axis is None else axis
        if any(block.shape[a] == 0 for a in axes):
            # no element to compare (an empty chunk, or a group of empty partials): an
            # empty partial result, which the next step's concatenation drops
            return block[tuple(slice(0, 0) if a in axes else slice(None)
                               for a in range(block.ndim))]
    # dask hands dtype= to every step; min and max take none
    kw = {} if dtype is None or name in ("min", "max") else {"dtype": dtype}
    return _config.namespace_function(name, block)(block, axis=axis, keepdims=keepdims, **kw)


def _tree(name, x, axis, keepdims, dtype, out_dtype):
    first = functools.partial(_part, name, dtype=dtype)
    again = functools.partial(_part, name)  # partial results already have out_dtype
    nd_out = x.ndim if keepdims else x.ndim - (x.ndim if axis is None else len(axis))
    meta = meta_from_array(x._meta, ndim=nd_out, dtype=out_dtype)
    return da.reduction(x, first, again, combine=again, axis=axis, keepdims=keepdims,
                        dtype=out_dtype, concatenate=True, meta=meta, name=f"xstride-{name}")


def _sum_dtype(x, dtype) -> np.dtype:
    """``dtype=``, else the standard's default (the caller's rule, ``default_sum_dtype``):
    bool and signed integers -> int64, unsigned -> uint64, others keep theirs."""
    if dtype is not None:
        return np.dtype(dtype)
    if x.dtype.kind in "bi":
        return np.dtype(np.int64)
    return np.dtype(np.uint64) if x.dtype.kind == "u" else np.dtype(x.dtype)


def sum(x, /, *, axis=None, keepdims=False, dtype=None):  # noqa: A001 - the standard's name
    """The standard's ``sum`` of a dask array (arguments checked by the caller)."""
    return _tree("sum", x, axis, keepdims, dtype, _sum_dtype(x, dtype))


def prod(x, /, *, axis=None, keepdims=False, dtype=None):
    """The standard's ``prod`` of a dask array (arguments checked by the caller)."""
    return _tree("prod", x, axis, keepdims, dtype, _sum_dtype(x, dtype))


def min(x, /, *, axis=None, keepdims=False):  # noqa: A001
    """The standard's ``min`` of a dask array (a non-empty selection, checked)."""
    return _tree("min", x, axis, keepdims, None, x.dtype)


def max(x, /, *, axis=None, keepdims=False):  # noqa: A001
    """The standard's ``max`` of a dask array (a non-empty selection, checked)."""
    return _tree("max", x, axis, keepdims, None, x.dtype)
