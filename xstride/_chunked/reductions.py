"""Reductions of dask arrays: dask's reduction tree, with the namespace's own function on
every chunk (xstride's kernels on a CuPy chunk, NumPy on a NumPy chunk).

``sum``, ``prod``, ``min``, ``max``, ``all``, ``any`` are one tree each; ``mean`` is a
sum tree divided by the count; ``var``/``std`` are two passes (below). ``argmin``/
``argmax`` (:mod:`.argreductions`) and the scans (:mod:`.scans`) are re-exported here:
the backend's one reductions executor holds every function it replaces.

``xstride.reductions`` checks the arguments (axis normalized, ``keepdims`` a bool,
``dtype`` valid; ``min``/``max`` of an empty selection refused) and calls these in place
of ``array_api_compat.dask.array``'s, whose chunk functions are NumPy's (``numpy.sum``,
which a CuPy chunk answers with CuPy's kernel). The tree is ``dask.array.reduction``:
each chunk reduces its part of the axes (keepdims), groups of partial results are
combined by the same function, the last group gives the result. Floating-point sums
depend on the chunking (partial sums), as with dask's own ``sum``; the NumPy backend's
value is not promised bit for bit. A complex ``prod``'s groups of partial results are
multiplied from the first (:func:`_fold_prod`), not by a second ``prod`` that starts
from ``1+0j`` (which changed the signs of zero parts): one chunk along the reduced axes
gives NumPy's bits; several may give other signs of zero (IEEE signs of zero products
depend on the order, as NumPy's own do on the memory layout).

``mean``: the sum tree in the accumulation dtype (the result's; float32 for float16)
divided by the number of elements of the selection (known from the shape; counted by a
sum tree of ones where dask does not know a chunk's length, and of the elements not
masked where the chunks are ``numpy.ma`` masked arrays, as ``numpy.ma.mean`` counts). An empty selection gives
NaN with a ``RuntimeWarning`` when computed, as NumPy's.

``var``/``std``: two passes, the global mean first (as above, with ``keepdims``), then
a sum tree of the squared deviations ``|x - mean|**2``, each chunk computed by the
namespace's functions, divided by ``max(N - correction, 0)`` (NumPy's ``_var``). No
single-pass moment formula: the result carries only the rounding of the two sums (no
cancellation of ``E[x**2] - E[x]**2``), like NumPy's, in a different summation order.
An integer ``dtype=`` follows NumPy's integer steps (the mean truncated into it, the
squares cast into it one by one, the quotient truncated: :func:`_integer_var`).
``all``/``any`` and the integer sums are exact, so chunk-invariant.

Source: dask's ``dask/array/reductions.py`` (chunk/combine/aggregate tree); NumPy's
``numpy/_core/_methods.py`` (``_mean``, ``_var``: the dtype rules and the divisor).
"""

from __future__ import annotations

import builtins
import functools
import math

import dask.array as da
import numpy as np
from dask.array.utils import meta_from_array

from .._core.errors import argument_error
from .._plans.reduction import empty_axis_error
from . import _config

from .argreductions import argmax, argmin
from .scans import cumulative_prod, cumulative_sum

__all__ = ["sum", "prod", "min", "max", "all", "any", "mean", "var", "std", "argmin",
           "argmax", "cumulative_sum", "cumulative_prod"]


def _part(name, block, axis=None, keepdims=False, dtype=None):
    """``name`` of one chunk (or of a group of partial results) through the namespace
    function of the chunk's backend."""
    if name in ("min", "max"):
        axes = range(block.ndim) if axis is None else axis
        if builtins.any(block.shape[a] == 0 for a in axes):
            # no element to compare (an empty chunk, or a group of empty partials): an
            # empty partial result, which the next step's concatenation drops. It is
            # empty only along the chunk's empty axes and 1 long on its other reduced
            # axes, as the partials of the chunks beside it there (a chunk's length on
            # an axis is its whole slab's, so those are empty along the same axes)
            return block[tuple(slice(0, 0) if block.shape[a] == 0 else slice(0, 1)
                               if a in axes else slice(None) for a in range(block.ndim))]
    # dask hands dtype= to every step; min, max, all and any take none
    kw = {} if dtype is None or name in ("min", "max", "all", "any") else {"dtype": dtype}
    return _config.namespace_function(name, block)(block, axis=axis, keepdims=keepdims, **kw)


def _last(name, shape, block, axis=None, keepdims=False):
    """The tree's last step of ``min``/``max``: no element left along a reduced axis
    means the whole selection was empty, which the caller could not see where dask does
    not know the chunks' lengths (after boolean indexing): the ``ValueError`` of an
    empty selection, as NumPy's (not an empty partial result as the answer)."""
    axes = tuple(range(block.ndim)) if axis is None else tuple(axis)
    if builtins.any(block.shape[a] == 0 for a in axes):
        raise empty_axis_error(name, tuple(0 if a in axes and block.shape[a] == 0 else n
                                           for a, n in enumerate(shape)), axes)
    return _part(name, block, axis=axis, keepdims=keepdims)


def _fold_prod(block, axis=None, keepdims=False):
    """The product of a group of complex partial results of ``prod``, multiplied in
    order from the first (C order over the reduced axes), with no identity: NumPy's
    ``prod`` starts from ``1+0j``, and ``(1+0j) * (0-0j)`` is ``0+0j``, so a second
    ``prod`` of one chunk's partial changed the signs of its zero parts (one chunk gave
    another zero than the NumPy backend). ``numpy.ma`` partials (masked elements count as
    1) and groups of no element keep the namespace's ``prod``."""
    axes = tuple(range(block.ndim)) if axis is None else tuple(axis)
    n = math.prod(block.shape[a] for a in axes)
    if n == 0 or np.ma.isMaskedArray(block):
        return _part("prod", block, axis=axis, keepdims=keepdims)
    kept = tuple(a for a in range(block.ndim) if a not in axes)
    flat = block.transpose(axes + kept).reshape((n,) + tuple(block.shape[a] for a in kept))
    out = flat[0:1]
    for k in range(1, n):
        out = out * flat[k:k + 1]
    shape = tuple(1 if a in axes else block.shape[a] for a in range(block.ndim)) \
        if keepdims else tuple(block.shape[a] for a in kept)
    return out.reshape(shape)


def _tree(name, x, axis, keepdims, dtype, out_dtype):
    first = functools.partial(_part, name, dtype=dtype)
    again = functools.partial(_part, name)  # partial results already have out_dtype
    if name == "prod" and out_dtype.kind == "c":
        again = _fold_prod
    last = functools.partial(_last, name, x.shape) if name in ("min", "max") else again
    nd_out = x.ndim if keepdims else x.ndim - (x.ndim if axis is None else len(axis))
    meta = meta_from_array(x._meta, ndim=nd_out, dtype=out_dtype)
    return da.reduction(x, first, last, combine=again, axis=axis, keepdims=keepdims,
                        dtype=out_dtype, concatenate=True, meta=meta, name=f"xstride-{name}")


def _sum_dtype(x, dtype) -> np.dtype:
    """``dtype=``, else the standard's default (the caller's rule, ``default_sum_dtype``):
    bool and signed integers -> int64, unsigned -> uint64, others keep theirs."""
    if dtype is not None:
        return np.dtype(dtype).newbyteorder("=")   # (a '>f8' dtype= computes native)
    if x.dtype.kind in "bi":
        return np.dtype(np.int64)
    # the native byte order: a '>f8' dtype= is refused by NumPy's ufuncs, and NumPy's
    # own sum of '>f8' values is '<f8' (on a little-endian host)
    return np.dtype(np.uint64) if x.dtype.kind == "u" else x.dtype.newbyteorder("=")


def _sum_tree(name, x, axis, keepdims, dtype):
    """``sum``/``prod``'s tree; a float16 result accumulated in float32 and rounded once,
    as NumPy's float16 reduction loops accumulate in float (each chunk's float16 partial
    overflowed: ``sum`` of 60000, 60000, -60000, -60000 in chunks of two was NaN)."""
    out = _sum_dtype(x, dtype)
    if out == np.float16:
        acc = np.dtype(np.float32)
        return _finish(_tree(name, x, axis, keepdims, acc, acc), out)
    return _tree(name, x, axis, keepdims, dtype, out)


def sum(x, /, *, axis=None, keepdims=False, dtype=None):  # noqa: A001 - the standard's name
    """The standard's ``sum`` of a dask array (arguments checked by the caller)."""
    return _sum_tree("sum", x, axis, keepdims, dtype)


def prod(x, /, *, axis=None, keepdims=False, dtype=None):
    """The standard's ``prod`` of a dask array (arguments checked by the caller)."""
    return _sum_tree("prod", x, axis, keepdims, dtype)


def min(x, /, *, axis=None, keepdims=False):  # noqa: A001
    """The standard's ``min`` of a dask array (a non-empty selection, checked)."""
    return _tree("min", x, axis, keepdims, None, x.dtype.newbyteorder("="))


def max(x, /, *, axis=None, keepdims=False):  # noqa: A001
    """The standard's ``max`` of a dask array (a non-empty selection, checked)."""
    return _tree("max", x, axis, keepdims, None, x.dtype.newbyteorder("="))


def all(x, /, *, axis=None, keepdims=False):  # noqa: A001
    """The standard's ``all`` of a dask array (an empty selection is True)."""
    return _tree("all", x, axis, keepdims, None, np.dtype(np.bool_))


def any(x, /, *, axis=None, keepdims=False):  # noqa: A001
    """The standard's ``any`` of a dask array (an empty selection is False)."""
    return _tree("any", x, axis, keepdims, None, np.dtype(np.bool_))


# ----------------------------------------------------------------------------- moments
def _real(dt: np.dtype) -> np.dtype:
    """The real dtype of ``dt``'s precision (``dt`` itself where it is not complex)."""
    return np.empty(0, dt).real.dtype if dt.kind == "c" else dt


def _moment_dtypes(x, dtype, real: bool) -> tuple:
    """(result dtype, accumulation dtype) of mean (``real=False``) or var/std: ``dtype=``
    (a complex one too: NumPy's var sums the real squares in it), else floating and
    complex inputs keep theirs and the others give float64 (NumPy's rule); var/std of
    complex values are real; float16 accumulates in float32."""
    if dtype is not None:
        out = np.dtype(dtype)
    elif x.dtype.kind in "fc":
        out = x.dtype.newbyteorder("=")   # (as _sum_dtype)
        if real:
            out = _real(out)
    else:
        out = np.dtype(np.float64)
    acc = np.dtype(np.float32) if out == np.float16 else out
    if acc.kind not in "fc":     # an integer dtype= (NumPy sums in it, then truncates)
        acc = out
    return out, acc


def _axes(x, axis) -> tuple:
    return tuple(range(x.ndim)) if axis is None else tuple(axis)


def _ones(block):
    return _config.like(np.ones(block.shape, dtype=np.int64), block)


def _unmasked(block):
    """1 for each element of a masked chunk that is not masked, else 0 (int64)."""
    return (~np.ma.getmaskarray(block)).astype(np.int64)


def _count(x, axes, keepdims):
    """The number of elements of the selection: an int, or a dask array where a chunk
    length is unknown (NaN) or the chunks are masked arrays (the elements not masked, as
    ``numpy.ma`` counts them)."""
    masked = np.ma.isMaskedArray(x._meta)
    n = math.prod(x.shape[a] for a in axes)
    if not masked and not math.isnan(n):
        return int(n)
    ones = x.map_blocks(_unmasked if masked else _ones, dtype=np.int64,
                        meta=meta_from_array(np.empty((0,) * x.ndim, dtype=np.int64)
                                             if masked else x._meta,
                                             ndim=x.ndim, dtype=np.int64))
    return _tree("sum", ones, axes, keepdims, None, np.dtype(np.int64))


def _finish(res, out):
    return res if res.dtype == out else res.astype(out)


def _mean(x, axis, keepdims, acc):
    axes = _axes(x, axis)
    total = _tree("sum", x, axes, keepdims, acc, acc)
    return total / _count(x, axes, keepdims)


def mean(x, /, *, axis=None, keepdims=False, dtype=None):
    """The standard's ``mean`` of a dask array (arguments checked by the caller)."""
    out, acc = _moment_dtypes(x, dtype, real=False)
    return _finish(_mean(x, axis, keepdims, acc), out)


def _squared_deviation(block, mean_block):
    """``|block - mean|**2`` of one chunk (``block`` cast to the mean's dtype first)
    through the namespace's functions of the chunk's backend."""
    f = functools.partial(_config.namespace_function, chunk=block)
    if block.dtype != mean_block.dtype:
        block = f("astype")(block, mean_block.dtype)
    d = f("subtract")(block, mean_block)
    if d.dtype.kind == "c":
        re, im = f("real")(d), f("imag")(d)
        return f("add")(f("multiply")(re, re), f("multiply")(im, im))
    return f("multiply")(d, d)


def _sqrt(block, to):
    """The square root of a block of the variance, in dtype ``to`` (the result's: an
    integer or bool ``dtype=`` truncates the root, as NumPy's ``std`` of a full
    reduction does; ``sqrt`` alone made float blocks of an array declared integer)."""
    root = _config.namespace_function("sqrt", block)(block)
    if root.dtype != to:
        root = _config.namespace_function("astype", root)(root, to)
    return root


def _var(x, axis, correction, keepdims, dtype):
    out, acc = _moment_dtypes(x, dtype, real=True)
    _, macc = _moment_dtypes(x, dtype, real=False)
    axes = _axes(x, axis)
    if out.kind in "iu":
        return _integer_var(x, axes, correction, keepdims, out), out
    m = _mean(x, axes, True, macc)
    # the squares are real (of a complex mean too: |x - mean|**2); summed in acc's
    # precision, cast to out (complex for a complex dtype=, as NumPy's) at the end.
    # (meta built from NumPy: casting a complex meta to a real dtype would warn)
    sq_dt = _real(acc)
    sq = da.map_blocks(_squared_deviation, x, m, dtype=sq_dt,
                       meta=_config.like(np.empty((0,) * x.ndim, dtype=sq_dt), x._meta))
    total = _tree("sum", sq, axes, keepdims, None, sq_dt)
    if acc.kind == "c":
        # NumPy's var sums the real squares into a complex dtype= and divides there: a
        # NaN (or 0/0 of an empty selection) is NaN in both parts, as its complex
        # division makes it (the real quotient cast after gave an imaginary 0)
        total = _finish(total, acc)
    n = _count(x, axes, keepdims)
    div = builtins.max(n - correction, 0) if isinstance(n, int) else da.maximum(n - correction, 0)
    return total / div, out


def _integer_var(x, axes, correction, keepdims, out):
    """var of an integer ``dtype=`` (``out``) in NumPy's steps (``_var``): the mean
    truncated into ``out``, the deviations in the promotion of ``x``'s dtype and
    ``out``, their squares each cast into ``out`` and summed there, the quotient
    truncated. (The mean and the squares' sum in floating point gave 2 where NumPy's
    gives 3 for ``[3, -1, 2, 3]`` and ``dtype=int64``.)"""
    m = _finish(_mean(x, axes, True, out), out)
    dev = np.result_type(x.dtype, out).newbyteorder("=")
    m = _finish(m, dev)
    sq = da.map_blocks(_squared_deviation, x, m, dtype=dev,
                       meta=_config.like(np.empty((0,) * x.ndim, dtype=dev), x._meta))
    total = _tree("sum", sq, axes, keepdims, out, out)
    n = _count(x, axes, keepdims)
    div = builtins.max(n - correction, 0) if isinstance(n, int) else da.maximum(n - correction, 0)
    return total / div


def var(x, /, *, axis=None, correction=0.0, keepdims=False, dtype=None):
    """The standard's ``var`` of a dask array (arguments checked by the caller)."""
    res, out = _var(x, axis, correction, keepdims, dtype)
    return _finish(res, out)


def std(x, /, *, axis=None, correction=0.0, keepdims=False, dtype=None):
    """The standard's ``std`` of a dask array: the square root of ``var`` in the result
    dtype, as NumPy's ``_std`` takes it (a float16 variance past 65504 is inf, and so is
    its root; the root of the wider variance, cast after, was finite)."""
    res, out = _var(x, axis, correction, keepdims, dtype)
    if out.kind not in "fc" and res.ndim:
        # NumPy's std takes the root in place into an array result, which its casting
        # rule refuses for an integer or bool dtype (its 0-D result is truncated)
        raise argument_error(TypeError, "std", "dtype",
                             f"is {out}; the square root of an array result cannot be "
                             f"cast to it (NumPy's std: casting rule 'same_kind'); give a "
                             f"floating dtype, or None")
    res = _finish(res, out)
    return res.map_blocks(_sqrt, to=res.dtype, dtype=res.dtype, meta=res._meta)
