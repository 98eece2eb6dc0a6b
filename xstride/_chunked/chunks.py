"""The dask backend's ``chunks`` option against the shape of one array.

The option is one value for every array the backend makes (docs/dask.md): ``"auto"``,
an int, a byte size, or a tuple with one entry per axis. A tuple of another length
than the array's rank is not per-axis for that array (dask would read ``(13, 3)`` for
a 1-D array as its block lengths and fail with its own message, naming neither the
function nor the option); :func:`fit_option` says so in the caller's name.

Chunks of no element (``compute_chunk_sizes()`` of a boolean selection, slices and
concatenations leave them): :func:`without_empty_chunks` merges them away. The
namespace's calls do it to every dask argument (``_backends/dask_fixes.py``), the
chunked executors of xstride's extensions to theirs (docs/dask.md).

Block lengths that do not add up to the shape (the option ``((2, 2),)`` for ``zeros(5)``,
a call's own ``chunks=``): :func:`fit_chunks` names the function and the argument (dask's
said "Chunks do not add up to shape" inside its dispatch's message), for the creation
functions and the Philox draws alike.
"""

from __future__ import annotations

import math

import numpy as np

from .._core.errors import value_error

__all__ = ["fit_option", "without_empty_chunks", "chunks_of_no_element", "fit_chunks",
           "lost_blocks", "list_error"]


def lost_blocks(a) -> bool:
    """Whether dask array ``a`` is made of blocks that ``persist()`` left on a
    ``distributed`` cluster whose client has closed since (or that were cancelled): its
    graph holds cancelled futures, whose data is gone (dask's compute then said only
    "Missing dependency" with a key). Looks at the first value of each layer held as a
    dict (a persisted array's blocks are such a layer of futures): one look per layer."""
    import sys

    client_mod = sys.modules.get("distributed.client")
    if client_mod is None:   # distributed never imported: no future exists
        return False
    from dask.highlevelgraph import HighLevelGraph, MaterializedLayer

    future = client_mod.Future
    graph = a.__dask_graph__()
    # other layers (blockwise) would make their tasks to show a value
    layers = ([la.mapping for la in graph.layers.values() if isinstance(la, MaterializedLayer)]
              if isinstance(graph, HighLevelGraph) else [graph])
    for mapping in layers:
        if not isinstance(mapping, dict) or not mapping:
            continue
        first = next(iter(mapping.values()))
        if isinstance(first, future) and (first.status == "cancelled" or getattr(
                first.client, "status", None) in ("closing", "closed")):
            return True
    return False


def without_empty_chunks(a):
    """Dask array ``a`` with its chunks of no element merged away on each axis of a known
    length (the same array, fewer block boundaries; an axis of length 0 keeps one
    chunk), or ``a`` itself when it has none. No element moves: the rechunk only drops
    block boundaries. An array of no element (a known length 0 on some axis) is made
    anew as one block, of the same chunk type. An array without such chunks costs one
    ``0 in chunks`` per axis.

    dask (2026.8) computes wrong answers over such chunks (``flip`` of chunks
    ``((3, 0, 1),)`` is empty), and a graph of several empty blocks and no element
    gave the sample sort more partitions than splitters. Its ``reshape`` (also inside
    ``unique_values``, ``nonzero``, ``roll``, ``repeat``, ``concat(axis=None)``,
    ``vector_norm``) of an array of no element in several blocks of another axis
    (shape ``(2, 0)`` in chunks ``((1, 1), (0,))``) raised "reduce() of empty iterable"
    or its "only supports operations that merge or split existing dimensions evenly".
    """
    chunks = a.chunks
    for c in chunks:
        if 0 in c:
            break
    else:
        return a
    if 0 in a.shape and not any(math.isnan(n) for n in a.shape):
        one = tuple((n,) for n in a.shape)
        if chunks == one:
            return a
        # dask's rechunk returns an array of no element as it is when every axis has
        # length 0, and otherwise makes NumPy blocks: a new array of the chunks' type
        import dask.array as da

        return da.from_array(a._meta.reshape(a.shape), chunks=one, asarray=False)
    new = tuple(c if 0 not in c or len(c) == 1 or math.isnan(n)
                else tuple(b for b in c if b) or (0,)
                for c, n in zip(chunks, a.shape))
    if new == chunks:
        return a
    return a.rechunk(new)


#: The longest axis of an array of no element that dask's block lengths are kept on.
#: dask writes a length per block: ``zeros((0, 2**61, 3), dtype=int8)`` under
#: ``"auto"`` chunks asked for a tuple of 2**34 lengths (a bare ``MemoryError``), and
#: an int ``chunks`` for more. Past it, every axis is one block (no element to spread).
MOST_CHUNKED_EXTENT = 2**20


def chunks_of_no_element(chunks, shape, dtype):
    """``chunks`` (a creation's ``chunks=``, checked) for an array of ``shape``, where
    dask's own normalization would fail: an automatic entry (``"auto"``, a byte size
    such as ``"1 KiB"``) on an array with a length 0 on some axis. dask's
    ``normalize_chunks`` divided by the empty axis' block length (``ZeroDivisionError``
    for ``zeros((0, 200), chunks="1 KiB")``). The other axes are chunked as for a
    length of 1 on each empty axis, which gets one block of no element. An array of no
    element with an axis longer than :data:`MOST_CHUNKED_EXTENT` is one block on every
    axis (NumPy makes ``zeros((0, 2**61, 3), dtype=int8)``; dask's block lengths of it
    ran out of memory) unless ``chunks`` gives block lengths. Any other ``chunks`` is
    returned as it is (dask's answer)."""
    shape = tuple(shape)
    if 0 not in shape:
        return chunks
    entries = chunks if isinstance(chunks, tuple) else (chunks,) * len(shape)
    if len(entries) != len(shape) or any(isinstance(c, tuple) for c in entries):
        return chunks   # block lengths given: dask's answer
    if max(shape) > MOST_CHUNKED_EXTENT:
        return tuple((n,) for n in shape)
    if not any(isinstance(c, str) for c in entries):
        return chunks
    from dask.array.core import normalize_chunks

    ones = tuple(n or 1 for n in shape)
    entries = tuple(1 if n == 0 else c for c, n in zip(entries, shape))
    got = normalize_chunks(entries, ones, dtype=dtype)
    return tuple((0,) if n == 0 else c for c, n in zip(got, shape))


def fit_option(func: str, chunks, shape, own_chunks: bool = True, arg: str | None = None):
    """``chunks``, the backend's option, as an array of ``shape`` (the array ``func``
    makes) takes it: a per-axis tuple of the array's rank as it is; a 1-D array also
    takes a tuple of block lengths that add up to its length, as dask does; a tuple
    longer than the rank gives its leading entries (under ``(1_000_000, 3)`` for
    ``(n, 3)`` positions, the ``(n,)`` masses are chunked by the same rows). Anything
    else (a string, an int) as it is. ``own_chunks``: whether ``func`` takes a
    ``chunks=`` of its own (the creation functions do; the Philox draws do not), which
    the error then offers. ``arg``: the argument of ``func`` (a list) that becomes the
    array, which the error then names (:func:`list_error`).

    Raises
    ------
    ValueError
        A per-axis tuple shorter than the array's rank, naming ``func``, the option's
        value and the array's shape.
    """
    if not isinstance(chunks, tuple):
        return chunks
    shape = tuple(shape)
    if len(chunks) == len(shape):
        return chunks
    if len(shape) == 1 and all(type(c) is int for c in chunks) and sum(chunks) == shape[0]:
        return chunks
    if len(chunks) > len(shape):
        return chunks[:len(shape)]
    what = (f"{len(chunks)} entries, one per axis, but the array has shape {shape}, more "
            "axes")
    if arg is not None:
        raise list_error(func, arg, shape, chunks, what)
    own = "give this call its own chunks= (creation functions), or " if own_chunks else ""
    raise value_error(func, "chunks", f"is the dask backend's option {chunks!r}: {what}; "
                                      f"{own}set the option to 'auto', "
                                      "an int or a byte size for arrays of several ranks")


def list_error(func: str, arg: str, shape, option, what: str) -> ValueError:
    """``ValueError`` of ``func``, which made its argument ``arg`` (a list or tuple) a
    dask array of ``shape`` under the backend's chunks ``option``, which does not fit it
    (``what``). ``func`` takes no ``chunks=``: the way out is an array made by the
    caller or another option."""
    return value_error(func, arg, f"becomes a dask array of shape {tuple(shape)} (the dask "
                                  f"backend is active), which the dask backend's chunks "
                                  f"option {option!r} does not fit: {what}; pass a dask array "
                                  "(xstride.asarray(x, chunks=...)), or set the option to "
                                  "'auto', an int or a byte size")


def fit_chunks(func: str, chunks, shape, dtype, option=None, arg: str | None = None) -> tuple:
    """``chunks`` (a checked ``chunks=``, or the option as :func:`fit_option` gives it)
    normalized by dask for an array of ``shape`` and ``dtype`` (None, or one NumPy does
    not know: as float64), through :func:`chunks_of_no_element`. ``option``: the
    backend's option as set, where ``chunks`` came from it (None: the call's own).
    ``arg``: as for :func:`fit_option` (``chunks`` is then the option's). A
    shape of lengths dask does not know (NaN) gets ``chunks`` as they are.

    Raises
    ------
    ValueError
        Block lengths that do not add up to ``shape``, or another count of entries than
        its axes (dask's "Chunks do not add up to shape", named neither the function
        nor the option), naming ``func``, ``chunks``, the option if it was one and the
        shape, before dask is called.
    """
    shape = tuple(shape)
    if any(n != n for n in shape):
        return chunks
    try:
        dtype = np.dtype(dtype)
    except TypeError:   # the function's own check of dtype answers
        dtype = np.dtype(np.float64)
    from dask.array.core import normalize_chunks

    try:
        return normalize_chunks(chunks_of_no_element(chunks, shape, dtype), shape, dtype=dtype)
    except ValueError as exc:   # block lengths that do not add up to this shape
        if arg is not None:
            raise list_error(func, arg, shape, chunks, str(exc)) from None
        whose = (f"the dask backend's option {option!r}" if option is not None
                 else f"this call's {chunks!r}")
        raise value_error(func, "chunks", f"is {whose}, which does not fit shape {shape}: "
                                          f"{exc}") from None
