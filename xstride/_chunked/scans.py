"""``cumulative_sum``/``cumulative_prod`` of dask arrays: the namespace's scan inside
each chunk (xstride's scan kernels in a CuPy chunk), plus a prefix carried across the
chunks along the axis.

dask's ``cumreduction`` (method ``"sequential"``) builds the graph: chunk ``j``'s result
is ``carry_j (op) scan(chunk_j)``, with ``carry_0`` the identity and ``carry_{j+1} =
carry_j (op) last(scan(chunk_j))``; the scans and ``op`` (the namespace's ``add`` or
``multiply``) run on the chunk's backend. Chunks of length 0 along the axis (which
that graph cannot carry past) are merged away first: a rechunk that moves no data.
Integers are exact (wrapping as NumPy's), so chunk-invariant; floating-point values
round per chunk scan and per carry, so they may differ from NumPy's sequential scan in
the last bits. Real floating results of NumPy chunks take the same graph written here
(``_carried``),
exact where the carry has become inf (a product's: 0): a carried inf met a chunk's own
overflowed partial scan (``inf + -inf``, ``0 * inf``) and gave NaN where NumPy's
sequential scan stays inf (0); now a chunk after such a carry is scanned on from it, and
the carry past it comes from a summary of the chunk's non-finite values (docs/dask.md). A float16 result (NumPy chunks) is NumPy's bit for bit instead: its few
bits overflow soon (past 65504: inf), and a carry applied to a chunk's own scan made an
inf come back finite, so each chunk's scan continues from the last scanned row of the
chunk before it (a chain of tasks along the axis; ``_chained``). So is a complex result
(NumPy chunks): its parts do not carry apart (a product mixes them), and a carried
``inf`` or 0 met a chunk's own overflowed scan (``0j * (inf+0j)``) as NaN where NumPy's
scan of ``[1e-200, 1e-200, 1e200, 1e200]`` stays 0. A floating or complex sum carries from ``-0.0`` (the sum's exact
identity: ``-0.0 + x`` is ``x``, a ``-0.0`` too), so a zero keeps its sign across a
chunk boundary as in NumPy's scan (``+0.0 + -0.0`` is ``+0.0``). ``include_initial=True`` puts the identity first. A ``numpy.ma`` chunk's
scan counts its masked elements as the identity and keeps their mask (``numpy.ma``'s
``cumsum``); the carry is its data, so no mask crosses to the next chunk. Lengths dask does
not know along another axis (after boolean indexing): the scanned axis in one chunk,
scanned per block (no carry).

Source: dask's ``dask/array/reductions.py`` (``cumreduction``).
"""

from __future__ import annotations

import math

import dask.array as da
import numpy as np
from dask.array.reductions import cumreduction
from dask.base import tokenize
from dask.highlevelgraph import HighLevelGraph
from dask.utils import apply

from .._core.errors import value_error
from . import _config

__all__ = ["cumulative_sum", "cumulative_prod"]

_OP = {"cumulative_sum": ("add", 0), "cumulative_prod": ("multiply", 1)}


class _ChunkScan:
    """The namespace's scan of one chunk (dask's ``func``: it reads ``__name__`` and
    whether ``dtype`` is a parameter)."""

    def __init__(self, name):
        self.name = self.__name__ = name

    def __call__(self, block, axis, dtype=None):
        return _config.namespace_function(self.name, block)(block, axis=axis, dtype=dtype)


class _Carry:
    """``a (op) b`` on the chunks' backend (dask's ``binop``: ``a`` is always the carried
    prefix, ``b`` the previous chunk's last scanned row or a chunk's scan)."""

    def __init__(self, op):
        self.op = self.__name__ = op

    def __call__(self, a, b):
        if np.ma.isMaskedArray(b):
            # numpy.ma's scan holds the running value under a masked element too (the
            # masked ones counted as the identity), and its mask is x's: the carry is
            # that data, and the result keeps b's mask only (a masked last element of
            # one chunk masked every element of the next)
            data = _config.namespace_function(self.op, b)(np.ma.getdata(a), np.ma.getdata(b))
            return np.ma.masked_array(data, mask=np.ma.getmaskarray(b))
        return _config.namespace_function(self.op, b)(a, b)


def _whole_scan(block, *, scan, axis, scan_dtype, include_initial):
    """The namespace's scan of a block that holds the whole scanned axis."""
    return _config.namespace_function(scan, block)(block, axis=axis, dtype=scan_dtype,
                                                   include_initial=include_initial)


def _filled(block, value, dtype, like):
    return _config.like(np.full(block.shape, value, dtype=dtype), like)


def _carry_identity(name, out_dtype):
    """The carry's start: the op's identity, ``-0.0`` for a floating or complex sum
    (both parts of a complex one), which leaves every value's bits as they are."""
    op, ident = _OP[name]
    if op == "add" and out_dtype.kind == "f":
        return -0.0
    if op == "add" and out_dtype.kind == "c":
        return complex(-0.0, -0.0)
    return ident


def _scan_from(block, carry, *, name, axis, dtype):
    """The namespace's scan of one chunk, continued from ``carry`` (the scanned row
    before the chunk along ``axis``, or None for the first chunk): NumPy's sequential
    scan of the rows ``carry, block`` less the first, so every step rounds as in one
    scan of the whole axis. A ``numpy.ma`` chunk keeps its mask (the carry is data)."""
    scan = _config.namespace_function(name, block)
    if carry is None:
        return scan(block, axis=axis, dtype=dtype)
    if np.ma.isMaskedArray(block):
        joined = np.ma.concatenate([np.ma.masked_array(carry, mask=False),
                                    block.astype(dtype)], axis=axis)
    else:
        joined = np.concatenate([carry, block.astype(dtype)], axis=axis)
    out = scan(joined, axis=axis, dtype=dtype)
    return out[(slice(None),) * axis + (slice(1, None),)]


def _last_row(scanned, *, axis):
    """The last row along ``axis`` of a chunk's scan (its data): the next one's carry."""
    return np.ma.getdata(scanned[(slice(None),) * axis + (slice(-1, None),)])


def _chained(name, x, axis, out_dtype):
    """``name`` of a dask array of NumPy chunks, each chunk's scan continued from the
    last scanned row of the chunk before it along ``axis`` (a chain of tasks along the
    axis, the other axes' blocks side by side): float16 results, which NumPy's scan
    rounds at every step in float16, so that one that overflows to inf stays inf after
    a chunk boundary as in NumPy's scan (the carry of ``cumreduction`` multiplied a
    chunk's own scan: ``1e4 * (6.5 * 1.01 * 0.5)`` was finite after NumPy's inf); and
    complex results, whose parts carry together (``0j * (inf+0j)`` was NaN). The chunks
    along the axis scan one after another, not side by side."""
    token = tokenize(name, x, axis, out_dtype)
    out = f"{name}-chained-{token}"
    last = (out, "last")    # the carries: keys of the same layer (as dask's cumreduction's)
    # the first chunks' carry, None, as a key: every scan task has two dependencies, so
    # dask's linear fusion never renames one into its chunk's task (an ``Alias`` under
    # its key when computed alone, a task inside a larger graph: the distributed
    # scheduler warned of a key sent with two different tasks)
    start = (out, "start")
    dsk = {start: None}
    for idx in np.ndindex(*x.numblocks):
        before = start
        if idx[axis]:
            before = last + idx[:axis] + (idx[axis] - 1,) + idx[axis + 1:]
        dsk[(out,) + idx] = (apply, _scan_from, [(x.name,) + idx, before],
                             {"name": name, "axis": axis, "dtype": out_dtype})
        dsk[last + idx] = (apply, _last_row, [(out,) + idx], {"axis": axis})
    graph = HighLevelGraph.from_collections(out, dsk, dependencies=[x])
    return da.Array(graph, out, x.chunks, dtype=out_dtype, meta=x._meta.astype(out_dtype))


def _fn(name, like):
    return _config.namespace_function(name, like)


def _odd(row, op):
    """Where a carried or scanned row holds a value that a scan cannot continue from by
    one ``op`` (a bool row on the row's backend): non-finite for a sum; zero or
    non-finite for a product (``0 * inf``, ``inf * 0``: NaN where a sequential scan
    stays 0 or inf)."""
    odd = _fn("logical_not", row)(_fn("isfinite", row)(row))
    if op == "multiply":
        odd = _fn("logical_or", row)(odd, _fn("equal", row)(row, 0))
    return odd


def _any(row) -> bool:
    return bool(np.asarray(_config.to_host(row)).any())


def _chunk_scan(block, *, name, axis, dtype):
    return _fn(name, block)(block, axis=axis, dtype=dtype)


def _summary(block, scanned, *, name, axis, dtype):
    """``(last, kinds)`` of a chunk and its own scan: the scan's last row along ``axis``
    (its data), and where that row is odd (:func:`_odd`: the chunk's own partial
    scan overflowed, underflowed or met an inf, a NaN or a zero) the chunk's
    reduction by the kinds of its values, else None. The kinds: a sum of the
    non-finite values alone (finite ones as 0: +-inf, NaN or 0), a product of each
    value's sign, 0, +-inf or NaN: exact, and what a carried inf (product: 0 or inf)
    meets in a sequential scan of the chunk."""
    op, ident = _OP[name]
    last = np.ma.getdata(scanned[(slice(None),) * axis + (slice(-1, None),)])
    if not _any(_odd(last, op)):
        return last, None
    data = np.ma.filled(block, ident) if np.ma.isMaskedArray(block) else block
    data = data.astype(dtype)
    finite = _fn("isfinite", data)(data)
    if op == "add":
        kinds = _fn("where", data)(finite, _fn("zeros_like", data)(data), data)
        return last, _fn("sum", data)(kinds, axis=axis, keepdims=True)
    # a zero as itself (``sign(-0.0)`` is ``+0.0``: a -0.0 of the chunk lost its sign,
    # and the carry past a zero carry with it)
    nonzero = _fn("logical_and", data)(finite, _fn("not_equal", data)(data, 0))
    kinds = _fn("where", data)(nonzero, _fn("sign", data)(data), data)
    return last, _fn("prod", data)(kinds, axis=axis, keepdims=True)


def _next_carry(carry, start, summary, *, op):
    """The carry into the next chunk from ``carry`` (None before the first chunk's
    successor: ``start``, a key that keeps this task from linear fusion) and the chunk's
    :func:`_summary`: ``carry (op) last``, but ``carry (op) kinds`` where the carry is
    odd and the chunk's last row too, which is exact (``inf + kinds``: inf, or NaN
    where the chunk holds a -inf or a NaN; ``0 * kinds``: a signed 0, or NaN)."""
    last, kinds = summary
    if carry is None:
        return last
    joined = _fn(op, last)(carry, last)
    if kinds is None:
        return joined
    return _fn("where", last)(_odd(carry, op), _fn(op, last)(carry, kinds), joined)


def _carried_scan(carry, scanned, block, *, name, axis, dtype):
    """A chunk's result: ``carry (op) scanned`` (its own scan), or where the carry is
    odd (:func:`_odd`), the chunk's scan continued from the carry (:func:`_scan_from`):
    an inf (a product's 0 or inf) carried into a chunk whose own partial scan
    overflowed as well came out NaN where NumPy's sequential scan stays inf (0)."""
    op = _OP[name][0]
    if _any(_odd(carry, op)):
        return _scan_from(block, carry, name=name, axis=axis, dtype=dtype)
    return _Carry(op)(carry, scanned)


def _carried(name, x, axis, out_dtype):
    """``name`` of a dask array of NumPy chunks of real floating dtype in more than one
    chunk along ``axis`` (CuPy chunks keep dask's ``cumreduction``: this graph has not
    yet run on a GPU): each chunk's own scan side by side, a chain of small carry tasks along the
    axis (each from the carry before and the summary of the chunk before:
    :func:`_next_carry`), then each chunk's carried result (:func:`_carried_scan`).
    As dask's ``cumreduction``, and exact where a carry has become inf (a product's 0)."""
    op = _OP[name][0]
    token = tokenize(name, x, axis, out_dtype, "carried")
    out, own, summ, carry = (f"{name}-{part}-{token}"
                             for part in ("carried", "own", "summary", "carry"))
    start = (carry, "start")   # every carry task of two dependencies (no fusion)
    dsk = {start: None}
    kw = {"name": name, "axis": axis, "dtype": out_dtype}
    n = x.numblocks[axis]
    for idx in np.ndindex(*x.numblocks):
        j = idx[axis]
        block = (x.name,) + idx
        if j == 0:   # its own scan is its result
            scanned = (out,) + idx
            dsk[scanned] = (apply, _chunk_scan, [block], kw)
        else:
            scanned = (own,) + idx
            before = idx[:axis] + (j - 1,) + idx[axis + 1:]
            dsk[scanned] = (apply, _chunk_scan, [block], kw)
            dsk[(carry,) + idx] = (apply, _next_carry,
                                   [(carry,) + before if j > 1 else None, start,
                                    (summ,) + before], {"op": op})
            dsk[(out,) + idx] = (apply, _carried_scan,
                                 [(carry,) + idx, scanned, block], kw)
        if j < n - 1:
            dsk[(summ,) + idx] = (apply, _summary, [block, scanned], kw)
    graph = HighLevelGraph.from_collections(out, dsk, dependencies=[x])
    return da.Array(graph, out, x.chunks, dtype=out_dtype,
                    meta=x._meta.astype(out_dtype))


def _scan(name, x, axis, dtype, include_initial, out_dtype):
    op, ident = _OP[name]
    lengths = x.chunks[axis]
    if any(math.isnan(n) for n in lengths):
        # an empty chunk breaks dask's carry between chunks, and an unknown length may
        # be empty: known lengths drop the empty chunks first (below)
        raise value_error(name, "x", "has chunk lengths that dask does not know (as after "
                                     "boolean indexing) along the scanned axis; call "
                                     "x.compute_chunk_sizes() first")
    if any(math.isnan(n) for c in x.chunks for n in c):
        # lengths unknown on another axis (after boolean indexing): dask's carry is an
        # array of those lengths (its full_like failed when computed); the scanned axis,
        # whose lengths are known, in one chunk needs no carry
        x = x.rechunk({axis: -1})
        chunks = x.chunks[:axis] + ((x.shape[axis] + bool(include_initial),),) \
            + x.chunks[axis + 1:]
        return x.map_blocks(_whole_scan, scan=name, axis=axis, scan_dtype=out_dtype,
                            include_initial=include_initial, chunks=chunks,
                            dtype=out_dtype, meta=_config.like(np.empty(
                                (0,) * x.ndim, out_dtype), x._meta))
    if len(lengths) > 1 and 0 in lengths:
        kept = tuple(n for n in lengths if n) or (0,)
        x = x.rechunk({axis: kept})
    if ((out_dtype == np.float16 or out_dtype.kind == "c") and x.numblocks[axis] > 1
            and isinstance(x._meta, np.ndarray)):
        res = _chained(name, x, axis, out_dtype)
    elif (out_dtype.kind == "f" and x.numblocks[axis] > 1
          and isinstance(x._meta, np.ndarray)):
        res = _carried(name, x, axis, out_dtype)
    else:
        res = cumreduction(_ChunkScan(name), _Carry(op), _carry_identity(name, out_dtype),
                           x, axis=axis, dtype=out_dtype, method="sequential")
    if include_initial:
        # the identity's blocks read nothing of x: a slice of x's first row made the
        # blocks of x's merge of empty chunks tasks of two dependents here and of one
        # in a later scan of x, and the scheduler warned of a key sent with two
        # different tasks ("can cause failures and deadlocks")
        shape = tuple(1 if a == axis else n for a, n in enumerate(x.shape))
        first = da.zeros(shape, dtype=x.dtype, chunks=tuple(
            (1,) if a == axis else c for a, c in enumerate(x.chunks)))
        head = first.map_blocks(_filled, ident, out_dtype, like=res._meta, dtype=out_dtype,
                                meta=res._meta)
        res = da.concatenate([head, res], axis=axis)
    return res


def cumulative_sum(x, /, *, axis=None, dtype=None, include_initial=False):
    """The standard's ``cumulative_sum`` of a dask array (``axis`` normalized and a 0-D
    ``x`` reshaped to ``(1,)`` by the caller)."""
    return _scan("cumulative_sum", x, axis, dtype, include_initial, _out(x, dtype))


def cumulative_prod(x, /, *, axis=None, dtype=None, include_initial=False):
    """The standard's ``cumulative_prod`` of a dask array (as ``cumulative_sum``)."""
    return _scan("cumulative_prod", x, axis, dtype, include_initial, _out(x, dtype))


def _out(x, dtype) -> np.dtype:
    """``dtype=``, else the standard's default (bool and signed -> int64, unsigned ->
    uint64, others keep theirs; the caller's ``default_sum_dtype``)."""
    if dtype is not None:
        return np.dtype(dtype).newbyteorder("=")   # (a '>f8' dtype= computes native)
    if x.dtype.kind in "bi":
        return np.dtype(np.int64)
    return np.dtype(np.uint64) if x.dtype.kind == "u" else x.dtype.newbyteorder("=")
