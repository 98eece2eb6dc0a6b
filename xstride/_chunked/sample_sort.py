"""``sort_by_key`` of dask arrays: a sample sort whose every step is a dask task on the
chunks' own backend (NumPy chunks on CPU workers, CuPy chunks on their device).

The graph, for ``P`` input chunks and ``P`` output partitions (submitted at once: the
client waits only for the partition lengths at the end):

1. ``local``: each chunk is sorted by key (stable) by the chunk backend's
   ``sort_by_key`` executor, carrying its global row numbers and values;
2. ``sample``: a few keys of every sorted chunk (evenly spaced, at most ``_SAMPLES``,
   copied to the host); one ``splitters`` task sorts their union and picks ``P - 1``
   splitters; output partition ``j`` takes the keys in ``(s_{j-1}, s_j]``;
3. ``cuts``: each sorted chunk is cut at the splitters (``searchsorted``, ``P + 1``
   host ints); one ``piece`` task per (chunk, partition) slices its rows where the
   chunk lives, so only pieces travel (dask's task shuffle);
4. ``merge``: partition ``j`` concatenates its pieces in chunk order and sorts them by
   key (stable): equal keys come from increasing chunks and, within a chunk,
   increasing rows, so the result is the stable sort, equal to
   ``numpy.argsort(kind="stable")`` for any chunking.

No task ever holds more than one partition. Partition sizes follow the key
distribution: a key repeated more often than ``n / P`` times makes its partition
larger. There are ``P * P`` piece tasks (tiny: views of the sorted chunk): right for
tens to hundreds of chunks, not for tens of thousands. Every device step is
asynchronous but the two copies of ``P + 1`` or ``_SAMPLES`` numbers to the host per
chunk (the sample and the cuts, which the slicing needs as host ints).

Source: the sample sort of W. D. Frazer and A. C. McKellar, "Samplesort: a sampling
approach to minimal storage tree sorting", J. ACM 17(3), 1970; dask's task shuffle
(``dask/dataframe/shuffle.py``: split per input partition, concatenate per output).
"""

from __future__ import annotations

import operator

import dask
import dask.array as da
import numpy as np
from array_api_compat import array_namespace
from dask.base import tokenize
from dask.delayed import Delayed
from dask.highlevelgraph import HighLevelGraph

from . import _config

__all__ = ["sample_sort"]

#: Keys sampled per chunk: with P chunks the splitters are quantiles of 64 P keys,
#: which keeps partitions within a few percent of n / P for any key distribution
#: without long runs of one key.
_SAMPLES = 64


def _local(keys, offset, *values):
    """(sorted keys, their global rows, *values) of one chunk."""
    sk, order, *carried = _config.executor_of("sort", keys).sort_by_key(keys, list(values))
    xp = array_namespace(keys)
    rows = order + xp.asarray(offset, dtype=xp.int64) if offset else order
    return (sk, rows, *carried)


def _sample(local, count: int):
    """Up to ``count`` evenly spaced keys of a sorted chunk, on the host."""
    sk = local[0]
    m = sk.shape[0]
    if m == 0:
        return np.empty(0, dtype=sk.dtype)
    pick = np.unique(np.linspace(0, m - 1, min(m, count)).astype(np.int64))
    return np.asarray(_config.to_host(sk[_config.like(pick, sk)]))


def _splitters(nparts: int, dtype, *samples):
    """``P - 1`` splitters: evenly spaced quantiles of the union of the samples."""
    sample = np.sort(np.concatenate(samples)) if samples else np.empty(0, dtype)
    if sample.size == 0:
        return np.empty(0, dtype=dtype)
    return sample[(np.arange(1, nparts) * sample.size) // nparts]


def _cuts(local, splitters):
    """``[0, cut_1, ..., cut_{P-1}, m]`` (host int64): partition ``j`` of the chunk is
    rows ``cut_j .. cut_{j+1} - 1`` (keys in ``(s_{j-1}, s_j]``)."""
    sk = local[0]
    m = sk.shape[0]
    if splitters.size == 0 or m == 0:
        return np.array([0] + [m] * (splitters.size + 1), dtype=np.int64)
    xp = array_namespace(sk)
    inner = xp.searchsorted(sk, _config.like(splitters, sk), side="right")
    return np.concatenate([[0], np.asarray(_config.to_host(inner), dtype=np.int64), [m]])


def _piece(local, cuts, j: int):
    """The rows of partition ``j`` of one sorted chunk (views)."""
    lo, hi = int(cuts[j]), int(cuts[j + 1])
    return tuple(a[lo:hi] for a in local)


def _merge(*pieces):
    """One output partition: its pieces in chunk order, sorted by key (stable)."""
    pieces = [p for p in pieces if p[0].shape[0]] or pieces[:1]
    if len(pieces) == 1:   # one chunk gave every row: already sorted
        return pieces[0]
    xp = array_namespace(pieces[0][0])
    cols = [xp.concat([p[c] for p in pieces], axis=0) for c in range(len(pieces[0]))]
    sk, _, *carried = _config.executor_of("sort", cols[0]).sort_by_key(cols[0], cols[1:])
    return (sk, *carried)


def _length(part) -> int:
    return int(part[0].shape[0])


def sample_sort(keys, values) -> tuple:
    """(sorted_keys, order int64, *sorted_values) of checked 1-D dask keys and (n,) or
    (n, k) dask values, all persisted; chunks stay on the keys' chunk backend. The
    output has as many partitions as ``keys`` has chunks.

    The graph is written as one layer of plain tasks (``dask.delayed`` calls would
    merge graphs once per call: seconds for the ``P * P`` pieces of 64 chunks)."""
    nparts = keys.numblocks[0]
    rows_of = keys.chunks[0]
    vals = [v.rechunk({0: rows_of} if v.ndim == 1 else {0: rows_of, 1: -1}) for v in values]
    offsets = np.concatenate([[0], np.cumsum(rows_of[:-1], dtype=np.int64)]).astype(int)
    token = tokenize(keys.name, *[v.name for v in vals])
    local, sample, split, cuts, piece, merge, length = (
        f"sample-sort-{step}-{token}"
        for step in ("local", "sample", "splitters", "cuts", "piece", "merge", "length"))
    kk = keys.__dask_keys__()
    vk = [[row[0] if v.ndim == 2 else row for row in v.__dask_keys__()] for v in vals]
    dsk = {}
    for i in range(nparts):
        dsk[(local, i)] = (_local, kk[i], int(offsets[i])) + tuple(k[i] for k in vk)
        dsk[(sample, i)] = (_sample, (local, i), _SAMPLES)
        dsk[(cuts, i)] = (_cuts, (local, i), (split, 0))
        for j in range(nparts):
            dsk[(piece, i, j)] = (_piece, (local, i), (cuts, i), j)
    dsk[(split, 0)] = (_splitters, nparts, keys.dtype) + tuple((sample, i) for i in range(nparts))
    for j in range(nparts):
        dsk[(merge, j)] = (_merge,) + tuple((piece, i, j) for i in range(nparts))
    graph = HighLevelGraph.from_collections(merge, dsk, dependencies=[keys, *vals])
    parts = dask.persist(*[Delayed((merge, j), graph, layer=merge) for j in range(nparts)])
    # the sort runs in the persist above; the lengths come back as a few ints
    lengths = {(length, j): (_length, (merge, j)) for j in range(nparts)}
    sizes = dask.compute(*[Delayed((length, j), HighLevelGraph.from_collections(
        length, lengths, dependencies=parts), layer=length) for j in range(nparts)])
    like = keys._meta
    columns = [(keys.dtype, (), like),
               (np.dtype(np.int64), (), like.astype(np.int64))]
    columns += [(v.dtype, tuple(v.shape[1:]), v._meta) for v in vals]
    out = []
    for c, (dtype, tail, meta) in enumerate(columns):
        name = f"sample-sort-column{c}-{token}"
        zero = (0,) * len(tail)
        layer = {(name, j) + zero: (operator.getitem, (merge, j), c) for j in range(nparts)}
        chunks = (tuple(sizes),) + tuple((t,) for t in tail)
        out.append(da.Array(HighLevelGraph.from_collections(name, layer, dependencies=parts),
                            name, chunks, dtype=dtype, meta=meta))
    return dask.persist(*out)
