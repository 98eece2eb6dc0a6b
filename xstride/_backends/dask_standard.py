"""Where ``array_api_compat.dask.array`` (dask's own functions) differs from the array API
standard, in cases a thin check or a rewrite in dask's terms covers.

Each function checks what dask does not, or rewrites the call into dask operations
that give the standard's answer, then calls ``array_api_compat.dask.array``; nothing
is computed. The array API conformance suite found each (docs/conformance.md, "dask
backend"):

- ``matmul`` / ``linalg.matmul``: dask multiplies mismatched inner dimensions of length
  1 and stacks that do not broadcast without an error; the standard requires one
  ("Linear algebra functions", ``matmul``: "should raise an exception").
- ``tensordot`` / ``linalg.tensordot``: dask sums the blocks' products with
  ``sum``'s default dtype (uint32 operands give uint64); the standard's result dtype is
  the promoted one (the sum is cast back: integer wrap-around is the same modulo
  ``2**bits``).
- ``repeat`` with ``axis=None``: dask wants an int axis; the standard repeats the
  flattened array (C order).
- ``expand_dims`` with a tuple of axes: dask raises ``StopIteration`` on a repeated
  axis; the standard an error (``ValueError`` here, as NumPy's).
- ``searchsorted``: dask refuses ``sorter`` and fails on a Python scalar ``x2``;
  ``searchsorted(x1, x2, sorter=s)`` is ``searchsorted(take(x1, s), x2)``, a
  scalar becomes a 0-D array on ``x1``'s chunk backend, and a 0-D ``x2`` is searched
  as one of shape ``(1,)`` (dask's block function fails on 0-D values); an ``x1`` of
  block lengths dask does not know is searched by the sum of its blocks' counts
  (dask's offsets of such blocks gave NaN): ``dask_searchsorted.py``.
- ``take_along_axis``: dask has none (``dask_take_along.py``).
- ``permute_dims``: ``axes`` checked to be a permutation of the axes.
- ``reshape``: ``shape`` checked as NumPy checks it; a reshape dask refuses (blocks that
  would split unevenly) through the flat array.
- ``flip``, ``sort``, ``argsort``, ``diff``: axes checked first (dask's flipped a
  repeated axis twice and raised bare ``IndexError``s out of range and for 0-D arrays);
  ``diff`` of bools by ``not_equal``, as NumPy's; ``searchsorted``'s ``sorter`` checked.
- ``take``: an index out of range raises NumPy's ``IndexError`` when computed.
- ``pow``: integers to a negative integer raise NumPy's ``ValueError``: a scalar exponent
  at the call, a dask array of them when computed (dask's lacked the function's name).
- ``clip``: per block by the chunks' backend's ``clip`` (compat's ``minimum(maximum(x,
  min), max)`` changed a signed zero of ``x`` inside the bounds).
- Lengths dask does not know (after boolean indexing): ``flip`` (``dask_flip.py``),
  ``repeat`` (per block), ``expand_dims`` (an index of ``None``s) and ``clip`` (per
  block; by ``where`` with an array bound) do without them; so does ``flip`` along an
  axis of one block (several blocks in reverse order would pair by position with
  ``x``'s own, their lengths reversed: refused); ``reshape``, ``take`` along
  such an axis, ``diff`` along one, ``roll`` along one (along known axes it joins two
  slices, ``dask_roll.py``) and ``nonzero`` say to call ``compute_chunk_sizes()``.

The linear algebra of stacks of matrices is in ``dask_linalg.py``.
Nothing here imports dask at import time.
"""

from __future__ import annotations

import builtins
import math
import warnings

import numpy as np

from .._chunked import _config as _chunked_config
from .._core.errors import error, type_error, value_error
from .._plans.reduction import normalize_axis, normalize_one_axis
from .axis_errors import check_permute_axes
from .arg_checks import (check_dask_repeats, check_shift, check_sort_args, check_take,
                         sort_descending)
from .join_checks import check_concat_shapes, check_some_arrays
from .diff_checks import check_dask_diff, differences
from .reshape_checks import check_copy, check_shape
from .dask_byteorder import in_dtype
from .dask_flip import flip_unknown
from .dask_roll import roll_along_known
from .dask_unknown_pairs import check_broadcast_pair, check_contracted, known as _known
from .dispatch import implementation, register
from .masked_sort import masked_sort_blocks
from .registry import get
from .linalg_fixes import check_tensordot
from .masked_broadcast import masked_broadcast_arrays
from .masked_products import refuse_masked
from .masked_take import masked_take
from .matmul_checks import matmul_shape_error, vecdot_shape_error, zero_d_error

__all__ = ["matmul", "tensordot", "vecdot", "take", "nonzero", "concat", "clip", "permute_dims", "roll", "flip", "sort", "argsort",
           "diff", "reshape", "repeat", "expand_dims"]

_NAME = "dask"


def _ns():
    return get(_NAME).namespace()


def _unknown_error(func: str, x, what: str) -> ValueError:
    """The error of ``func`` for a dask array ``x`` with lengths dask does not know (after
    boolean indexing) where ``what`` needs them."""
    return value_error(func, "x", f"has shape {x.shape}, with lengths dask does not know "
                                  f"(as after boolean indexing), which {what}; call "
                                  "x.compute_chunk_sizes() first")


def _no_element(x) -> bool:
    """Whether dask array ``x`` has a known length 0 on some axis (and every length
    known)."""
    return 0 in x.shape and all(_known(n) for n in x.shape)


def matmul(x1, x2, /):
    """``matmul`` of the standard on dask arrays: the standard's shape errors first.

    Raises
    ------
    ValueError
        A 0-D operand; inner dimensions that differ (``x1.shape[-1]`` and
        ``x2.shape[-2]``, or ``x2.shape[0]`` for 1-D ``x2``); stack dimensions that
        do not broadcast.
    """
    refuse_masked("matmul", _NAME, x1, x2)   # dask's masks depended on the chunks
    bad = matmul_shape_error(x1, x2)
    if bad is not None:
        raise bad
    if x1.ndim and x2.ndim:
        check_contracted("matmul", x1, x2, [(x1.ndim - 1, max(0, x2.ndim - 2))])
    return _promoted(_ns().matmul(*_half_in_float32(x1, x2)), x1, x2)


def _half_in_float32(x1, x2) -> tuple:
    """Float16 operands as float32 (their product's sums then accumulate in float32 and
    :func:`_promoted` rounds once, as NumPy's float16 loops accumulate in float: dask's
    float16 partial sums, one per chunk of the contracted axis, overflowed to inf)."""
    if np.result_type(x1.dtype, x2.dtype) == np.float16:
        return x1.astype(np.float32), x2.astype(np.float32)
    return x1, x2


def _promoted(out, x1, x2):
    """``out`` in the promoted dtype of ``x1`` and ``x2``: dask's products of small
    integers come back as 64-bit ones. The cast gives the wrapped value NumPy's
    arithmetic in the narrow type gives (the same value modulo 2**bits)."""
    want = np.result_type(x1.dtype, x2.dtype)
    return out if out.dtype == want else out.astype(want)


def tensordot(x1, x2, /, *, axes=2):
    """``tensordot`` of the standard on dask arrays (``axes`` checked first), in the
    promoted dtype of the two."""
    axes = check_tensordot(x1, x2, axes)   # negative axes made non-negative for dask
    refuse_masked("tensordot", _NAME, x1, x2)   # masked_products.py
    if isinstance(axes, tuple):
        check_contracted("tensordot", x1, x2, list(zip(*axes)))
    else:
        check_contracted("tensordot", x1, x2, [(x1.ndim - axes + i, i) for i in range(axes)])
    return _promoted(_ns().tensordot(*_half_in_float32(x1, x2), axes=axes), x1, x2)


def vecdot(x1, x2, /, *, axis=-1):
    """``vecdot`` of the standard on dask arrays, in the promoted dtype of the two;
    ``axis`` checked against the rank of each operand (dask's raised a bare ``IndexError``;
    the standard: "on the interval [-N, -1], where N is min(x1.ndim, x2.ndim)").
    Arrays with lengths dask does not know (after boolean indexing) are the sum of
    ``conj(x1) * x2`` along ``axis`` (compat's refused them as of unequal lengths)."""
    if x1.ndim == 0 or x2.ndim == 0:   # (dask's: an AxisError of axis)
        raise zero_d_error("vecdot", x1, x2)
    normalize_one_axis("vecdot", axis, builtins.min(x1.ndim, x2.ndim))   # in both operands
    refuse_masked("vecdot", _NAME, x1, x2)   # masked_products.py
    ns = _ns()
    if all(_known(n) for n in x1.shape + x2.shape):
        bad = vecdot_shape_error(x1, x2, axis)
        if bad is not None:
            raise bad
        return _promoted(ns.vecdot(*_half_in_float32(x1, x2), axis=axis), x1, x2)
    # lengths dask does not know (after boolean indexing): compat's equal-length check
    # (nan != nan) and its broadcast refused them; the products' sum needs no length
    a, b = _half_in_float32(x1, x2)
    return _promoted(ns.sum(ns.multiply(ns.conj(a), b), axis=axis), x1, x2)


def _index_in_range(block, *, n, axis):
    """Block ``block`` of ``take``'s indices, each in ``[-n, n)``: NumPy's ``IndexError``."""
    bad = (block >= n) if block.dtype.kind == "u" else (block < -n) | (block >= n)
    if bool(bad.any()):
        raise error(IndexError, "take", f"index {int(block[bad][0])} is out of bounds for "
                                        f"axis {axis} with size {n}")
    return block


def take(x, indices, /, *, axis=None):
    """``take`` of the standard on dask arrays, its arguments checked first; a 1-D
    ``x`` without ``axis`` along its one axis (dask's wanted an int axis). An index out of
    range raises NumPy's ``IndexError`` when computed (dask's put 0 in its place)."""
    check_take(x, indices, axis)
    got = masked_take(take, x, indices, axis)   # masked indices: elements masked
    if got is not None:
        return got
    ax = 0 if axis is None else axis
    if x.ndim and not _known(x.shape[normalize_one_axis("take", ax, x.ndim)]):
        raise _unknown_error("take", x, "dask's take needs along the axis taken from")
    if x.ndim and get(_NAME).owns(indices):
        ax = normalize_one_axis("take", ax, x.ndim)
        indices = indices.map_blocks(_index_in_range, n=x.shape[ax], axis=ax,
                                     dtype=indices.dtype, meta=indices._meta)
        if x.dtype.kind == "c" or get(_NAME).mask_remedy(x) is not None:
            # dask's gather declares its int64 block offsets on x's meta, cast: at every
            # call "ComplexWarning: Casting complex values to real discards the
            # imaginary part", or for masked chunks "invalid value encountered in cast"
            # (the fill value), of a meta, no element (the values are x's)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
                warnings.simplefilter("ignore", RuntimeWarning)
                return _ns().take(x, indices, axis=ax)
    return _ns().take(x, indices, axis=ax)


def nonzero(x, /):
    """``nonzero`` of the standard on dask arrays; ``x`` of lengths dask does not know
    (after boolean indexing) is an error saying so (dask's: "cannot convert float NaN to
    integer" from its ``arange`` of the indices)."""
    if not all(_known(n) for n in x.shape):
        raise _unknown_error("nonzero", x, "the indices of its elements need")
    if get(_NAME).mask_remedy(x) is not None:
        # masked chunks (numpy.ma): only the elements not masked count, as numpy.ma's
        # nonzero and the NumPy backend's (dask's read the data under the mask)
        x = x.map_blocks(_nonzero_unmasked, dtype=np.bool_, meta=np.empty((0,) * x.ndim, bool))
    return _ns().nonzero(x)


def _nonzero_unmasked(block):
    """A masked block's elements that are nonzero and not masked, as a plain bool block."""
    return np.ma.filled(np.ma.asanyarray(block) != 0, False)


def permute_dims(x, /, axes):
    """``permute_dims`` of the standard on dask arrays; ``axes`` checked first, a
    permutation of ``x``'s axes (dask's said "('Unknown dimension', {2})" for an axis out
    of range, and "object of type 'int' has no len()" for an int, which NumPy takes as
    a tuple of one): out of range ``AxisError``, repeated or missing ``ValueError``."""
    if axes is None:   # NumPy's and dask's: the axes reversed
        return _ns().permute_dims(x, axes)
    items = check_permute_axes(x, axes)   # (axis_errors.py: the NumPy backend's too)
    return _ns().permute_dims(x, items)


def _clip_block(xb, lo, hi):
    """One block of :func:`clip`: the clip of the block's own backend (NumPy's or
    CuPy's, as xstride's namespace runs it), with each bound's block or scalar. Masked
    (``numpy.ma``) blocks: their data clipped, the masks kept (any operand's)."""
    masked = [v for v in (xb, lo, hi) if hasattr(v, "mask")]
    if masked:
        out = _clip_block(*(np.ma.getdata(v) if hasattr(v, "mask") else v
                            for v in (xb, lo, hi)))
        mask = np.zeros(out.shape, dtype=bool)
        for v in masked:
            mask = mask | np.ma.getmaskarray(v)
        return np.ma.masked_array(out, mask=mask)
    be = get(_NAME).of_array(xb)
    return implementation(be.name, "clip")(xb, lo, hi)


def clip(x, /, min=None, max=None):   # noqa: A002 (the standard's names)
    """``clip`` of the standard on dask arrays: each block clipped by its backend's
    ``clip`` in xstride's namespace, so the values are the NumPy (CuPy) backend's bit
    for bit, a signed zero and a NaN's bits included (compat's ``minimum(maximum(x,
    min), max)`` gave 0.0 for an ``x`` of -0.0 inside ``[-1.0, 0.0]``, where NumPy's
    ``clip`` and the standard keep ``x_i``; and ``max``'s 0.0 for -1.0 clipped to
    ``[-0.0, 0.0]``). Array bounds are broadcast against ``x`` first. Lengths dask does
    not know (after boolean indexing) with an array bound cannot be broadcast: such an
    ``x`` is clipped by ``where``, with compat's rules: the result has ``x``'s dtype, a
    NaN bound gives NaN, and a Python int bound beyond ``x``'s integer range is none."""
    ns = _ns()
    arrays = [v for v in (min, max) if get(_NAME).owns(v)]
    if not arrays or all(_known(n) for a in (x, *arrays) for n in a.shape):
        if arrays:
            # masked bounds keep their masks (dask's broadcast dropped them)
            x, *bounds = masked_broadcast_arrays(ns.broadcast_arrays, (x, *arrays))
            it = iter(bounds)
            min, max = (next(it) if get(_NAME).owns(v) else v for v in (min, max))  # noqa: A001
        return x.map_blocks(_clip_block, min, max, dtype=x.dtype)
    for name, bound in (("min", min), ("max", max)):
        if get(_NAME).owns(bound):
            check_broadcast_pair("clip", ("x", x), (name, bound))
    out = x
    for bound, beyond, sign in ((min, ns.less, -1), (max, ns.greater, 1)):
        if bound is None:
            continue
        if x.dtype.kind in "iu" and type(bound) is int and (
                bound * sign >= (np.iinfo(x.dtype).max if sign > 0 else
                                 -np.iinfo(x.dtype).min)):
            continue   # compat's: a Python int past x's range is no bound
        b = ns.astype(bound, x.dtype) if get(_NAME).owns(bound) else np.asarray(bound,
                                                                               x.dtype)
        out = ns.where(beyond(out, b) | ns.isnan(b), b, out)
    return out


def roll(x, /, shift, *, axis=None):
    """``roll`` of the standard on dask arrays; ``shift`` and each axis checked first
    (dask's raised a bare ``IndexError`` out of range; an axis may repeat, as NumPy's).
    An int ``shift`` with a tuple ``axis`` shifts every axis named by it, as the
    standard says (dask's wants one shift per axis)."""
    check_shift(shift, axis)
    if axis is not None:
        for a in axis if isinstance(axis, (tuple, list)) else (axis,):
            normalize_axis("roll", a, x.ndim)
        if isinstance(axis, (tuple, list)) and not isinstance(shift, (tuple, list)):
            shift = (int(shift),) * len(axis)
    if _no_element(x):   # dask's concatenates the two slices into chunks of no element
        return x         # and fails reshaping them ("reduce() of empty iterable")
    if not all(_known(n) for n in x.shape):   # the shift's modulo, dask's concatenation
        rolled = roll_along_known(x, shift, axis, _ns().concat)   # axes of known lengths
        if rolled is None:
            raise _unknown_error("roll", x, "dask's roll needs")
        return in_dtype(rolled, x.dtype)
    return in_dtype(_ns().roll(x, shift, axis=axis), x.dtype)   # dask's joins: native


def flip(x, /, *, axis=None):
    """``flip`` of the standard on dask arrays; ``axis`` checked first (dask's flipped a
    repeated axis twice, as though it was not named; NumPy's raises ``ValueError``)."""
    axes = tuple(range(x.ndim))
    if axis is not None:   # NumPy's flip takes a list of axes too
        axes = normalize_axis("flip", tuple(axis) if isinstance(axis, list) else axis, x.ndim)
    if not all(_known(n) for n in x.shape):   # dask's x[::-1] needs the lengths
        if any(not _known(x.shape[a]) and x.numblocks[a] > 1 for a in axes):
            # the blocks in reverse order have their lengths in reverse order, which dask
            # does not know: paired by position with x's own (x + flip(x)), a block of 1
            # broadcast over one of 4 and gave a wrong answer, whatever its shape
            raise _unknown_error("flip", x, "the flip of several blocks along an axis "
                                            "needs")
        return flip_unknown(x, axes, _ns().flip)
    return _ns().flip(x, axis=axis)


def sort(x, /, *, axis=-1, descending=False, stable=True):
    """``sort`` of the standard on dask arrays; ``axis`` checked first (dask's raised a
    bare ``IndexError`` out of range and for 0-D arrays; None: :func:`_sort_input`)."""
    x, axis = _sort_input("sort", x, axis, descending, stable)
    if get(_NAME).mask_remedy(x) is not None:   # masked last, as on NumPy
        return masked_sort_blocks(x, axis, bool(descending), bool(stable), False)
    if descending and _known(x.shape[axis]):   # (dask's flip needs the length)
        return sort_descending(_ns().flip, _ns().sort, x, axis)
    if descending:   # the axis in one block (_sort_input), sorted by its namespace
        return x.map_blocks(_sorted_block, axis=axis, dtype=x.dtype, meta=x._meta)
    return _ns().sort(x, axis=axis, descending=descending, stable=stable)


def _sorted_block(block, *, axis):
    """A block holding the whole sorted axis in descending order, equal elements in
    order (compat's flip of the ascending sort reversed them: ``[0.0, -0.0]`` gave
    ``[-0.0, 0.0]``, where ``argsort`` gave ``[0, 1]``)."""
    return _chunked_config.namespace_function("sort", block)(
        block, axis=axis, descending=True, stable=True)


def _sort_input(func: str, x, axis, descending, stable) -> tuple:
    """``x`` and ``axis`` of ``sort``/``argsort``, checked; None: the flattened array, as
    on NumPy. Lengths dask does not know (after boolean indexing) off the sorted axis:
    that axis in one chunk already (compat's rechunked the others, which dask refuses).
    Unknown lengths along it are an error saying so, but for a 1-D ``x`` (``unique_values``
    of floats), whose blocks one task joins (dask's rechunk refuses)."""
    if axis is None and hasattr(x, "ndim"):
        x, axis = reshape(x, (-1,)), -1
    check_sort_args(func, x, axis, descending, stable)
    if all(_known(n) for n in x.shape) or x.numblocks[axis] == 1:
        return x, axis
    if not _known(x.shape[axis]):
        if x.ndim == 1:
            return _one_block(x), axis
        raise _unknown_error(func, x, "gathering the sorted axis into one chunk needs")
    return x.rechunk({axis % x.ndim: -1}), axis


def _joined(blocks):
    return _chunked_config.namespace_function("concat", blocks[0])(blocks)


def _one_block(x):
    """1-D dask array ``x`` of unknown block lengths as one block (one task joins them,
    as dask's ``unique`` joins its blocks)."""
    import dask.array as da
    from dask.base import tokenize
    from dask.highlevelgraph import HighLevelGraph

    name = "xstride-one-block-" + tokenize(x)
    dsk = {(name, 0): (_joined, list(x.__dask_keys__()))}
    graph = HighLevelGraph.from_collections(name, dsk, dependencies=[x])
    return da.Array(graph, name, ((math.nan,),), meta=x._meta)


def argsort(x, /, *, axis=-1, descending=False, stable=True):
    """``argsort`` of the standard on dask arrays; ``axis`` checked first, as ``sort``'s."""
    x, axis = _sort_input("argsort", x, axis, descending, stable)
    if get(_NAME).mask_remedy(x) is not None:   # masked last, as on NumPy
        return masked_sort_blocks(x, axis, bool(descending), bool(stable), True)
    # compat's argsort makes its meta by casting x's to int64: a masked meta (numpy.ma)
    # warned "invalid value encountered in cast" of its fill value at the call (and the
    # indices of masked blocks are a plain array), a complex one "ComplexWarning:
    # Casting complex values to real discards the imaginary part". The same blocks go
    # under a plain real meta, which only names the indices' array type
    meta = np.ma.getdata(x._meta) if get(_NAME).mask_remedy(x) is not None else x._meta
    if meta.dtype.kind == "c":
        meta = meta.real
    if meta is not x._meta:
        x = get(_NAME).load().Array(x.dask, x.name, x.chunks, meta=meta)
    return _ns().argsort(x, axis=axis, descending=descending, stable=stable)


def diff(x, /, *, axis=-1, n=1, prepend=None, append=None):
    """``diff`` of the standard on dask arrays: ``x`` of at least one dimension, ``axis``
    and ``n`` checked first (dask's raised a bare ``IndexError`` for a 0-D ``x`` or an
    axis out of range, and took ``n=1.0``), and a length along ``axis`` that dask knows
    (:func:`~xstride._backends.diff_checks.check_dask_diff`); a bool ``x`` (with bool
    ends, or none) differs by ``not_equal``, as NumPy's does (dask's subtracted bools: a
    ``TypeError``); with ends of numbers, by subtraction in the joined dtype, as NumPy's."""
    check_dask_diff(x, axis, n, prepend, append)
    n = differences(x, axis, n, prepend, append)
    ns = _ns()
    masked = [v is not None and getattr(v, "ndim", None) is not None
              and get(_NAME).mask_remedy(v) is not None for v in (prepend, append)]
    if any(s != s for s in x.shape):   # a 0-D end cannot be broadcast to unknown lengths
        masked = [m and v.ndim > 0 for m, v in zip(masked, (prepend, append))]
    one = x.shape[:axis % x.ndim] + (1,) + x.shape[axis % x.ndim + 1:]
    prepend, append = (implementation(_NAME, "broadcast_to")(v, one) if m and v.ndim == 0
                       else v for m, v in zip(masked, (prepend, append)))   # as NumPy's
    pre, post = masked
    if (pre or post) and n:   # dask's asarray of an end (like x's meta) dropped its mask
        parts = [prepend] * pre + [x] + [append] * post
        return diff(ns.concat(parts, axis=axis), axis=axis, n=n,
                    prepend=None if pre else prepend, append=None if post else append)
    # NumPy joins the ends to x first: a bool x with an end of numbers is a diff of
    # numbers (the joined dtype's), not of bools
    joined = np.result_type(x.dtype, *(v.dtype if hasattr(v, "dtype") else np.asarray(v).dtype
                                       for v in (prepend, append) if v is not None))
    if joined != np.bool_ or n == 0:
        return ns.diff(x, axis=axis, n=n, prepend=prepend, append=append)
    ends = {k: (ns.astype(v, np.int8) if get(_NAME).owns(v) else v)
            for k, v in (("prepend", prepend), ("append", append)) if v is not None}
    out = ns.not_equal(ns.diff(ns.astype(x, np.int8), axis=axis, n=1, **ends), 0)
    for _ in range(int(n) - 1):
        out = ns.not_equal(ns.diff(ns.astype(out, np.int8), axis=axis, n=1), 0)
    return out


def reshape(x, /, shape, *, copy=None):
    """``reshape`` of the standard on dask arrays. ``copy=False`` asks for no copy of
    the data: a dask array holds none (its reshape is a step of the task graph), so it
    is the reshape of ``copy=None`` (compat's set the result's ``shape``, which dask's
    arrays refuse).

    ``shape`` is checked as NumPy checks it. A reshape dask refuses because the blocks
    would split unevenly (``(2, 3)`` in blocks ``(1, 2)`` to ``(3, 2)``: its
    ``NotImplementedError``) goes through the flat array: dask merges every axis into
    one, then splits it, rechunking as it needs.

    Raises
    ------
    TypeError
        ``shape`` not an int or a tuple of ints; ``copy`` not a bool or None.
    ValueError
        ``shape`` with more than one -1, or whose elements are not ``x``'s; ``x`` with
        lengths dask does not know (after boolean indexing) where dask needs them.
    """
    check_copy(copy)
    shape = check_shape(x, shape)
    ns = _ns()
    copy = True if copy is not None and copy else None   # False: as None (above)
    if shape == (-1,) and x.ndim > 1 and all(_known(n) for n in x.shape[1:]):
        return flat(x)
    try:
        try:
            return ns.reshape(x, shape, copy=copy)
        except NotImplementedError:
            if x.ndim < 2 or len(shape) < 2:
                raise
            return ns.reshape(ns.reshape(x, (-1,), copy=copy), shape, copy=copy)
    except (ValueError, TypeError, NotImplementedError) as exc:
        if all(_known(n) for n in x.shape):
            raise
        raise _unknown_error("reshape", x, "dask's reshape needs") from exc


def _flat_block(block):
    return block.reshape(-1)


def flat(x):
    """``x`` (a dask array of lengths dask does not know on its first axis only, after
    boolean indexing of rows) flattened in C order: each row block flattened, the other
    axes gathered into one chunk first (dask's reshape needs every length)."""
    if not all(_known(n) for n in x.shape):
        x = x.rechunk({a: -1 for a in range(1, x.ndim)})
    if all(_known(n) for n in x.shape):
        return _ns().reshape(x, (-1,))
    row = math.prod(x.shape[1:])
    return x.map_blocks(_flat_block, chunks=(tuple(n * row for n in x.chunks[0]),),
                        drop_axis=tuple(range(1, x.ndim)), dtype=x.dtype,
                        meta=x._meta.reshape(-1))


def concat(arrays, /, *, axis=0):
    """``concat`` of the standard on dask arrays; with ``axis=None``, arrays of rows
    selected by a boolean mask (lengths unknown on the first axis) are flattened per
    row block (compat's ravel said "cannot convert float NaN to integer")."""
    check_some_arrays("concat", arrays)   # (dask's: "Need array(s) to concatenate")
    if axis is None and any(not all(_known(n) for n in a.shape) for a in arrays
                            if get(_NAME).owns(a)):
        arrays, axis = [reshape(a, (-1,)) if get(_NAME).owns(a) else a
                        for a in arrays], 0
    arrays = check_concat_shapes(arrays, axis)
    shapes = [getattr(a, "shape", None) for a in arrays]
    if (isinstance(axis, (int, np.integer)) and not isinstance(axis, bool) and len(arrays) > 1
            and None not in shapes and len({len(t) for t in shapes}) == 1
            and -len(shapes[0]) <= axis < len(shapes[0])):
        ax = int(axis) % len(shapes[0])
        if not all(_known(n) for t in shapes for d, n in enumerate(t) if d != ax):
            # dask's: "Tried to concatenate arrays with unknown shape", naming its
            # allow_unknown_chunksizes, which joins blocks it cannot check line up
            raise value_error("concat", "arrays", f"holds shapes {', '.join(map(str, shapes))}, "
                                                  "with lengths dask does not know (as after "
                                                  "boolean indexing) off the concatenation axis "
                                                  f"{ax}, which the join needs; call "
                                                  "x.compute_chunk_sizes() on each first")
    return _ns().concat(arrays, axis=axis)   # dask's: no message


def repeat(x, repeats, /, *, axis=None):
    """``repeat`` of the standard on dask arrays; ``axis=None`` repeats the flattened
    array (C order); ``repeats`` checked first (one int: no array of counts)."""
    check_dask_repeats(x, repeats, axis)
    ns = _ns()
    if _no_element(x):   # dask's fails on an empty axis: "Need array(s) to concatenate"
        if axis is None:
            return ns.reshape(x, (0,))
        ax = normalize_one_axis("repeat", axis, x.ndim)
        if x.shape[ax] == 0:
            return x
    if axis is None:
        x, axis = reshape(x, (-1,)), 0   # rows of unknown lengths: flattened per block
    ax = normalize_one_axis("repeat", axis, x.ndim)
    if not all(_known(n) for n in x.shape) and isinstance(repeats, (int, np.integer)):
        # dask's needs the lengths (of the other axes too: it joins the repeated pieces
        # of an axis in several blocks with concatenate, which refuses unknown lengths);
        # each block repeated on its own is the same array
        chunks = x.chunks[:ax] + (tuple(n * repeats for n in x.chunks[ax]),) + x.chunks[ax + 1:]
        return x.map_blocks(_repeat_block, int(repeats), ax, chunks=chunks, dtype=x.dtype)
    return in_dtype(ns.repeat(x, repeats, axis=axis), x.dtype)   # dask's: native


def _repeat_block(block, repeats, axis):
    return block.repeat(repeats, axis=axis)


def expand_dims(x, /, axis=0):
    """``expand_dims`` of the standard on dask arrays; ``axis`` checked against the
    result's rank first (out of range ``AxisError``, repeated ``ValueError``)."""
    if isinstance(axis, (tuple, list)):
        new = normalize_axis("expand_dims", tuple(axis), x.ndim + len(axis))
    else:
        new = normalize_axis("expand_dims", axis, x.ndim + 1)
    if not all(_known(n) for n in x.shape):   # dask's reshapes, which needs the lengths
        return x[tuple(None if i in new else slice(None) for i in range(x.ndim + len(new)))]
    return _ns().expand_dims(x, axis=axis)


_NEGATIVE_POWER = "Integers to negative integer powers are not allowed."


def _no_negative_power(block):
    """Block ``block`` of ``pow``'s signed integer exponents, none negative: else NumPy's
    ``ValueError``, named as the NumPy backend names it (a masked block's data too, as
    ``numpy.ma.power`` raises for them)."""
    if bool((np.ma.getdata(block) < 0).any()):
        raise error(ValueError, "pow", _NEGATIVE_POWER)
    return block


def pow(x1, x2, /):  # noqa: A001 - the standard's name
    """``pow`` of the standard on dask arrays: an integer or bool array to an integer scalar
    raises at the call what NumPy raises for one element of its dtype (a negative
    exponent: ``ValueError``; a Python int outside an unsigned dtype: ``OverflowError``),
    where dask's dtype inference turned it into a ``TypeError`` ("Parameters of such
    types are not supported by power"). A dask array of signed integer exponents (NumPy
    chunks) with an integer result raises the NumPy backend's ``ValueError`` ("pow:
    Integers to negative integer powers are not allowed.") when computed, where one
    is negative (dask's had no "pow: ")."""
    if (isinstance(x2, (int, np.integer)) and not isinstance(x2, (bool, np.bool_))
            and getattr(getattr(x1, "dtype", None), "kind", "-") in ("i", "u", "b")):
        np.power(np.ones(1, dtype=x1.dtype), x2)   # NumPy's error, if any
    got = _ns().pow(x1, x2)
    if (got.dtype.kind in "iu" and get(_NAME).owns(x2) and x2.dtype.kind == "i"
            and isinstance(x2._meta, np.ndarray) and got.size != 0):
        # (CuPy's power takes negative exponents, as the CuPy backend's: unchecked)
        checked = x2.map_blocks(_no_negative_power, dtype=x2.dtype, meta=x2._meta)
        got = _ns().pow(x1, checked)
    return got


for _q, _fn in (("pow", pow), ("matmul", matmul), ("linalg.matmul", matmul), ("tensordot", tensordot),
                ("linalg.tensordot", tensordot), ("vecdot", vecdot),
                ("linalg.vecdot", vecdot), ("take", take), ("nonzero", nonzero), ("concat", concat), ("clip", clip), ("permute_dims", permute_dims), ("roll", roll),
                ("reshape", reshape), ("repeat", repeat), ("flip", flip), ("sort", sort),
                ("argsort", argsort), ("diff", diff),
                ("expand_dims", expand_dims)):
    register(_q, _NAME)(_fn)
del _q, _fn
