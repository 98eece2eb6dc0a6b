"""The dask backend's fusion executor: a fused elementwise function run per block.

``xp.fuse`` traces the function (``xstride/fusion``) and hands the graph here. When the
graph is elementwise — every argument read as it is, no view step (slice, transpose,
reshape, ``broadcast_to``) and no read of a concrete shape — and the dask arguments'
chunks line up (equal chunks on every axis they share at full length; an axis of
length 1 in one chunk broadcasts), the result is one ``dask.array.blockwise`` whose
task calls the same fused function on the blocks: inside CuPy chunks that is one fused
kernel per block (the CuPy executor), inside NumPy chunks the function as written.
Nothing is rechunked. Otherwise :func:`run` answers None and the function runs as
written on the dask arrays (dask's operations), as a view across block boundaries
needs.

Several outputs: one blockwise task per block returns the tuple, and each output
takes its item (dask's pattern for functions of several outputs).

Source: dask's ``dask/array/blockwise.py`` (index notation, broadcasting of length-1
blocks) and ``dask/array/gufunc.py`` (a tuple per block, one array per item).
"""

from __future__ import annotations

import operator
import warnings

import dask.array as da
import numpy as np
from dask.array.utils import compute_meta, meta_from_array

from .._core.errors import error
from .._plans.fusion import Load, node_shapes, results, scalar_sources
from .chunks import without_empty_chunks
from ..layout import Layout

__all__ = ["run", "repeat", "arguments"]


def repeat(fused, args):
    """No fast path: every call goes through the checked path (None)."""
    return None


def arguments(args: tuple, kwargs: dict) -> tuple[tuple, dict]:
    """``args`` and ``kwargs`` with each dask array among them without its chunks of no
    element (:func:`without_empty_chunks`), as the namespace's calls take them: the
    fused call and the unfused run (``fn`` as written, dask's operators) see the same
    arrays, and dask's ``x + y`` of chunks ``((1, 0),)`` and ``((3, 2),)`` no longer
    fails ("Chunks do not add up")."""
    args = tuple(without_empty_chunks(a) if _is_dask(a) else a for a in args)
    if kwargs:
        kwargs = {k: without_empty_chunks(v) if _is_dask(v) else v
                  for k, v in kwargs.items()}
    return args, kwargs


def _is_dask(a) -> bool:
    return isinstance(a, da.Array)


def elementwise(graph) -> bool:
    """Whether ``graph`` reads its arguments whole and elementwise (no view step, no
    reduction: a block's reduction is not the array's) and takes no branch on the array
    type (``isinstance(x, da.Array)``: a block is a NumPy or CuPy array, which would
    take the other branch)."""
    if graph.shape_dependent or getattr(graph, "reductions", ()) or \
            getattr(graph, "type_read", False):
        return False
    return all(isinstance(graph.nodes[i], Load) and not graph.nodes[i].views
               for i in graph.loads)


def aligned_chunks(arrays) -> tuple | None:
    """The output chunks of a blockwise call over ``arrays`` (broadcast by NumPy's rule,
    right-aligned), or None where their chunks do not line up without a rechunk, or
    where a length is one dask does not know (NaN, after boolean indexing: one such
    array alone reached the fused run, whose layout of NaN lengths failed)."""
    nd = max(a.ndim for a in arrays)
    out = []
    for d in range(nd):
        length, chunks = 1, (1,)
        for a in arrays:
            k = d - (nd - a.ndim)
            if k < 0:
                continue
            n, c = a.shape[k], a.chunks[k]
            if n != n:
                return None                   # NaN: a length dask does not know
            if n == 1 and len(c) == 1:
                continue                      # broadcasts
            if length == 1:
                length, chunks = n, c
            elif n != length:
                return None                   # no broadcast: the unfused run says why
            elif c != chunks:
                return None                   # would need a rechunk
        out.append(chunks)
    return tuple(out)


def _outputs_span(graph, args, chunks) -> bool:
    """Whether every output has the shape of the blocks' grid ``chunks``: an output that
    reads only some arguments, or only their length-1 axes, is narrower, and per block
    it would fill none of the grid's other blocks (dask would take its blocks for them).
    (Chunks of unknown length, NaN, never line up: :func:`aligned_chunks` is None.)"""
    shape = tuple(sum(c) for c in chunks)
    lays = [Layout(a.shape) if _is_dask(a) else None for a in args]
    shapes, _ = node_shapes(graph, lays, max(graph.outputs) + 1)
    return all(shapes[k] == shape for k in graph.outputs)


def _scalars_fit(graph, args) -> bool:
    """Whether this call's by-value scalars convert to their dtypes, as the CuPy
    executor converts them before a launch. A Python int outside its loop dtype (``x *
    300`` of int8 ``x``, traced with a scalar that fit) runs as written (:func:`run`
    raises ``OverflowError``, and the fused function traces the call again, which names
    the value as a first call of it does), where dask
    raises NumPy's ``OverflowError`` at once (or compares by value), not a graph
    whose blocks raise it at ``compute()``. Python arithmetic on the scalars runs here
    as in the unfused run (its errors, ``ZeroDivisionError``, are raised now too)."""
    try:
        with np.errstate(all="ignore"):   # 1e300 into float32 is inf, as the kernel's
            for v, dt in scalar_sources(graph, args):
                np.asarray(v, dtype=dt)
    except OverflowError:
        return False
    return True


def _probe_fails(fused, args) -> bool:
    """Whether ``fn`` raises on one-element NumPy arrays of the arguments' dtypes, as
    dask's operators probe a call (``elemwise``) before building its graph: where that
    fails, dask refuses the unfused call at once (``x ** -1`` of ints: CuPy's rules,
    which the trace follows, take it; NumPy's blocks would raise only at ``compute()``),
    so the call runs as written and gives dask's error."""
    probe = [np.ones((1,) * a.ndim, dtype=a.dtype)
             if _is_dask(a) or isinstance(a, np.ndarray) else a for a in args]
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fused.fn(*probe)
    except Exception:
        return True
    return False


class _PerBlock:
    """The fused function called on one block of each dask argument (the other
    arguments as they are)."""

    def __init__(self, fused, positions, nargs, consts):
        self.fused, self.positions, self.nargs, self.consts = fused, positions, nargs, consts

    def __call__(self, *blocks):
        args = list(self.consts)
        for p, b in zip(self.positions, blocks):
            args[p] = b
        return self.fused(*args)


def run(fused, graph, args, multi):
    """The fused call as a blockwise dask graph, or None (run ``fn`` as written)."""
    if not _scalars_fit(graph, args):   # the caller traces again, naming the value
        raise error(OverflowError, "fuse", "a Python int of this call outside its loop dtype")
    if not elementwise(graph) or _probe_fails(fused, args):
        return None
    args = [without_empty_chunks(a) if _is_dask(a) else a for a in args]
    positions = [p for p, a in enumerate(args) if _is_dask(a)]
    arrays = [args[p] for p in positions]
    if not arrays:
        return None
    chunks = aligned_chunks(arrays)
    if chunks is None or not _outputs_span(graph, args, chunks):
        return None
    nd = len(chunks)
    consts = [None if p in positions else a for p, a in enumerate(args)]
    pairs = []
    for a in arrays:
        pairs += [a, tuple(range(nd - a.ndim, nd))]
    name = getattr(fused.fn, "__name__", "fused")
    func = _PerBlock(fused, positions, len(args), consts)
    # a block returns every place of the function's tuple; one output at several
    # places (``y, y``, ``multi`` its output indices) is one dask array at each
    places = multi if isinstance(multi, tuple) else range(len(graph.outputs))
    # each output's meta is what a block returns (a masked block beside a plain first
    # argument is masked), else the trace's dtype on the first argument's chunk type
    metas = _block_metas(func, arrays, len(places), nd) or \
        [meta_from_array(arrays[0]._meta, ndim=nd, dtype=graph.nodes[graph.outputs[i]].dtype)
         for i in places]
    dtypes = [np.dtype(m.dtype) for m in metas]
    if not multi:
        return da.blockwise(func, tuple(range(nd)), *pairs, dtype=dtypes[0],
                            meta=metas[0], name=f"xstride-fuse-{name}-{_token(args, fused)}")
    both = da.blockwise(func, tuple(range(nd)), *pairs, dtype=dtypes[0], meta=metas[0],
                        name=f"xstride-fuse-{name}-{_token(args, fused)}")
    first = [list(places).index(i) for i in range(len(graph.outputs))]
    return results([both.map_blocks(operator.getitem, k, dtype=dtypes[k], meta=metas[k])
                    for k in first], multi)


def _block_metas(func, arrays, n: int, ndim: int) -> list | None:
    """The metas (type and dtype, ``ndim`` axes) of the ``n`` outputs of a block:
    ``func`` called on the arguments' metas (empty arrays of their chunks' type; dask's
    ``compute_meta``), or None where that call fails. The trace's dtypes follow CuPy's
    rules, which NumPy blocks (the function run as written) do not always share: ``x **
    2`` of a bool array is int64 on CuPy, int8 on NumPy; and a block's type is not
    always the first argument's chunks' (``a + m`` of a plain ``a`` and a masked ``m``
    is masked, which xstride's dask reductions read from the meta)."""
    out = compute_meta(func, None, *arrays)
    out = out if isinstance(out, tuple) else (out,)
    if len(out) != n or not all(hasattr(o, "dtype") for o in out):
        return None
    return [meta_from_array(o, ndim=ndim, dtype=o.dtype) for o in out]


def _token(args, fused) -> str:
    from dask.base import tokenize

    return tokenize(id(fused), fused.fn, *args)
