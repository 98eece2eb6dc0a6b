"""``sort_by_key`` of dask arrays: a sample sort whose every step is a dask task on the
chunks' own backend (NumPy chunks on CPU workers, CuPy chunks on their device).

The graph, for ``P`` input chunks and ``Q`` output partitions (``Q = P``, or fewer
where the chunks are small: at least one per worker, or per thread where every task
shares one memory, no more than keep 2**22 rows a partition), is submitted at once,
the output columns' tasks with it; the client waits only for the splits' cuts (the
partitions' lengths, which the columns' chunks need), and returns persisted arrays
whose merges may still be running (before, the columns were submitted after the
lengths came back: on a one-worker cluster one more step of the scheduler's batched
messages, docs/performance.md, "Fewer steps for the dask pipeline"):

1. ``sample``: up to ``_SAMPLES`` keys of every chunk, at rows drawn from a generator
   seeded by the chunk's index (the same rows every run), copied to the host; one
   ``splitters`` task sorts their union and picks ``Q - 1`` splitters. Output
   partition ``j`` takes the keys in ``(s_{j-1}, s_j]``. In one memory (below) the
   splitters' task draws the samples itself: one step instead of two (on a cluster of
   one worker each step costs a few milliseconds of the scheduler's batched messages).
2. ``split``: each chunk is split by the splitters, carrying its global row numbers
   and values: each key's partition is found by a binary search among the splitters
   and the rows are grouped by partition with a stable sort of one-byte (or two-byte)
   partition numbers, a single radix pass; the keys inside a group stay in row order.
   On the host a compiled counting sort does both at once where it takes the arrays
   (``xstride/_host/partition.py``, the sort executor's ``partition``; else NumPy's
   search and sort, to the same rows). The full sort is left to the merge alone, so
   each row is sorted once. NumPy chunks were sorted by key and cut until 2026-12-07:
   2**22 rows of 30-bit keys with (m, 3) float64 values in 32 partitions took 0.36-0.40
   s that way, 0.095-0.105 s by the compiled loop and 0.24-0.28 s by NumPy's search and
   sort on the 2-core development machine; the merge, which sorts its pieces from
   scratch either way, the same (docs/performance.md).

   Piece ``j`` of a chunk holds its keys of partition ``j``, equal keys in
   row order, and the cuts come back as ``Q + 1`` host ints (on the device, one small
   copy per chunk); a task per chunk takes them from the split (one memory: the sizes'
   task reads the splits).
3. ``piece``: one task per (chunk, partition) slices its rows where the chunk lives,
   so only pieces travel between workers (dask's task shuffle: ``P * Q`` tiny tasks).
   Where all chunks share one memory (dask's threads or synchronous scheduler, a
   ``distributed`` cluster of one worker) nothing travels, and each merge slices its
   pieces itself: ``Q`` tasks instead of ``P * Q``.
4. ``merge``: partition ``j`` concatenates its pieces in chunk order and sorts them by
   key (stable): equal keys come from increasing chunks and, within a chunk,
   increasing rows, so the result is the stable sort, equal to
   ``numpy.argsort(kind="stable")`` for any chunking.

Where every row goes to one output partition (keys in one chunk, few rows in one
memory of one thread, or any rows in one device's memory of one thread: a dask-cuda
worker, whose executor sorts every row in one call, ``ONE_SORT``), the four steps are
one task that sorts all the chunks with their sort executor; the output's length is the
input's, so the client waits for nothing.

No task ever holds more than one partition (in one memory, a merge reads the chunks
where they are). Partition sizes follow the key distribution: a key repeated more
often than ``n / Q`` times makes its partition larger. Every merge reads every chunk,
so the graph holds ``P * Q`` references: in one memory too, ``Q`` is no larger than
the rows (2**22 a partition) or the threads need (before, ``Q = P`` there: 1,000
chunks of 2 rows took 11 s and 0.8 GB, 5,000 chunks of one row ran out of 23 GB).

Source: the sample sort of W. D. Frazer and A. C. McKellar, "Samplesort: a sampling
approach to minimal storage tree sorting", J. ACM 17(3), 1970; dask's task shuffle
(``dask/dataframe/shuffle.py``: split per input partition, concatenate per output).
"""

from __future__ import annotations

import operator
import os

import dask
import dask.array as da
import numpy as np
from array_api_compat import array_namespace
from dask.base import tokenize
from dask.delayed import Delayed
from dask.highlevelgraph import HighLevelGraph, MaterializedLayer

from . import _config
from .held import persist_reading

__all__ = ["sample_sort", "one_memory"]

#: Keys sampled per chunk: with P chunks the splitters are quantiles of 64 P keys,
#: which keeps partitions near n / P for keys without long runs of one value.
_SAMPLES = 64

#: Rows an output partition of a cluster's sort holds at least, where the input chunks
#: are smaller (:func:`_output_parts`).
_PARTITION_ROWS = 2**22


def _output_parts(nparts: int, rows: int, workers: int) -> int:
    """How many output partitions a sort over ``workers`` (a cluster's workers, or the
    threads of one memory: :func:`_local_threads`) makes of ``nparts`` input chunks of
    ``rows`` rows in all: one per input chunk, but no more than keep
    :data:`_PARTITION_ROWS` rows a partition, and no fewer than one per worker. The
    piece tasks (or, in one memory, the merges' references to the chunks) are ``nparts``
    times as many: the bunny's 35,947 points in 400 chunks made 160,000 of them for one
    merge of 90 rows each."""
    return max(1, min(nparts, max(workers, -(-rows // _PARTITION_ROWS))))


def _local_threads(collection) -> int:
    """How many tasks of ``collection`` run at once where they all share one memory
    (:func:`one_memory`): 1 under dask's synchronous scheduler, the single worker's
    threads on a ``distributed`` client, else the threaded pool's (``num_workers``,
    else the CPUs)."""
    import dask.local

    if dask.base.get_scheduler(collections=[collection]) is dask.local.get_sync:
        return 1
    client = _client_of(collection)
    if client is not None:
        info = _worker_info(client)
        return max(1, sum(int(w.get("nthreads", 1)) for w in info.values()))
    return dask.config.get("num_workers", None) or os.cpu_count() or 1


def _sample(keys, index: int, count: int):
    """Up to ``count`` keys of a chunk at rows drawn by a generator seeded by ``index``
    (evenly spaced rows would alias with periodic keys), on the host."""
    m = keys.shape[0]
    if m == 0:
        return np.empty(0, dtype=keys.dtype)
    pick = np.sort(np.random.default_rng(index).choice(m, min(m, count), replace=False))
    return np.asarray(_config.to_host(keys[_config.like(pick.astype(np.int64), keys)]))


def _splitters(nparts: int, dtype, *samples):
    """``P - 1`` splitters: evenly spaced quantiles of the union of the samples."""
    sample = np.sort(np.concatenate(samples)) if samples else np.empty(0, dtype)
    if sample.size == 0:
        return np.empty(0, dtype=dtype)
    return sample[(np.arange(1, nparts) * sample.size) // nparts]


def _splitters_of_chunks(nparts: int, dtype, count: int, *chunks):
    """:func:`_splitters` of the chunks' samples, drawn here (one memory: the task reads
    every chunk where it is, one step instead of a sample task per chunk and then the
    splitters)."""
    return _splitters(nparts, dtype, *[_sample(c, i, count) for i, c in enumerate(chunks)])


def _rows(order, offset: int):
    """Global rows: ``offset`` added as a Python int (a kernel argument on the device;
    a 0-d device array would be a host-to-device copy, which waits for the stream)."""
    return order + offset if offset else order


def _split(keys, offset: int, splitters, *values):
    """``(cuts, keys, rows, *values)`` of one chunk, reordered so that rows
    ``cuts[j] .. cuts[j+1] - 1`` are its keys of partition ``j`` (equal keys in row
    order, every group in row order); ``cuts`` is a host int64 array ``[0, ..., m]`` of
    ``P + 1`` entries."""
    m = keys.shape[0]
    xp = array_namespace(keys)
    if splitters.size == 0 or m == 0:   # one partition: rows stay as they are
        cuts = np.array([0] + [m] * (splitters.size + 1), dtype=np.int64)
        return (cuts, keys, _rows(xp.arange(m, dtype=xp.int64), offset), *values)
    ex = _config.executor_of("sort", keys)
    compiled = getattr(ex, "partition", None)   # the host's C loop, where it takes them
    got = None if compiled is None else compiled(keys, splitters, list(values))
    if got is not None:
        cuts, sk, order, *carried = got
        return (cuts, sk, _rows(order, offset), *carried)
    part = xp.searchsorted(_config.like(splitters, keys), keys, side="left")
    small = xp.uint8 if splitters.size < 2**8 else (
        xp.uint16 if splitters.size < 2**16 else xp.uint32)
    gp, order, sk, *carried = ex.sort_by_key(xp.astype(part, small), [keys, *values])
    inner = xp.searchsorted(gp, xp.arange(1, splitters.size + 1, dtype=small), side="left")
    cuts = np.concatenate([[0], np.asarray(_config.to_host(inner), dtype=np.int64), [m]])
    return (cuts, sk, _rows(order, offset), *carried)


def _piece(split, j: int):
    """The rows of partition ``j`` of one split chunk (views)."""
    cuts = split[0]
    lo, hi = int(cuts[j]), int(cuts[j + 1])
    return tuple(a[lo:hi] for a in split[1:])


def _concat(xp, parts):
    """The parts one after another, in their own dtype (byte order included)."""
    out = xp.concat(parts, axis=0)
    return out if out.dtype == parts[0].dtype else xp.astype(out, parts[0].dtype)


def _merge(*pieces):
    """One output partition: its pieces in chunk order, sorted by key (stable)."""
    pieces = [p for p in pieces if p[0].shape[0]] or pieces[:1]
    xp = array_namespace(pieces[0][0])
    # NumPy's concatenate makes big-endian pieces ('>u8' keys, '>f8' values from a FITS
    # or HDF5 file) native: cast back to the pieces' dtype, the columns' declared one
    cols = [_concat(xp, [p[c] for p in pieces]) for c in range(len(pieces[0]))]
    sk, _, *carried = _config.executor_of("sort", cols[0]).sort_by_key(cols[0], cols[1:])
    return (sk, *carried)


def _merge_in_place(j: int, *splits):
    """:func:`_merge` of partition ``j`` sliced from the split chunks themselves (one
    memory: nothing travels)."""
    return _merge(*[_piece(s, j) for s in splits])


def _cuts(split):
    """The host cuts of one split chunk: its rows of partition ``j`` are
    ``cuts[j] .. cuts[j + 1] - 1``."""
    return split[0]


def _sizes(*cuts) -> list:
    """The output partitions' lengths (Python ints) from every split chunk's cuts."""
    return [int(v) for v in np.sum([np.diff(c) for c in cuts], axis=0)]


def _sizes_of_splits(*splits) -> list:
    """:func:`_sizes` read from the split chunks themselves (one memory: nothing
    travels, so no task of its own per chunk's cuts)."""
    return _sizes(*[_cuts(s) for s in splits])


def _client_of(collection):
    """The ``distributed`` client that would compute ``collection``, or None (dask's
    threads or synchronous scheduler)."""
    get = dask.base.get_scheduler(collections=[collection])
    client = getattr(get, "__self__", None)
    return client if getattr(client, "scheduler_info", None) is not None else None


def _worker_info(client) -> dict:
    """``{address: info}`` of the client's workers; {} where the scheduler cannot answer
    now. A local cluster's own record (``client.cluster.scheduler_info``, which the
    cluster keeps current from the scheduler's stream of worker events) where it has
    workers, else the scheduler's answer: a round trip of a few milliseconds, which the
    sort made twice (on a local cluster of two workers the demo's sort stage went from
    82-88 to 73-80 ms without them)."""
    record = getattr(getattr(client, "cluster", None), "scheduler_info", None)
    if isinstance(record, dict) and record.get("workers"):
        return dict(record["workers"])
    try:
        return dict(client.scheduler_info().get("workers", {}))
    except Exception:  # a client that cannot answer now
        return {}


def _workers(client) -> list:
    """The client's workers' addresses, sorted; [] where the scheduler cannot answer now."""
    return sorted(_worker_info(client))


def one_memory(collection) -> bool:
    """Whether every task of ``collection`` would run in this process's memory or on a
    single ``distributed`` worker (dask's threads or synchronous scheduler, a client
    of one worker): then pieces need no tasks of their own."""
    import dask.local
    import dask.threaded

    get = dask.base.get_scheduler(collections=[collection])
    if get in (dask.threaded.get, dask.local.get_sync):
        return True
    client = _client_of(collection)
    return client is not None and len(_workers(client)) == 1


def _placement(workers: list, nparts: int):
    """Layer annotations that ask for merge ``j`` on worker ``j mod W`` (the workers
    sorted by address), other workers allowed: each worker merges ``P / W``
    partitions. Left to the scheduler, merges that all become ready at once (every
    split feeds every merge) land unevenly (3 and 5 of 8 on 2 workers), and the merge
    phase lasts as long as the busiest worker's share. None without workers."""
    if not workers:
        return None
    return {"workers": lambda key: [workers[key[1] % len(workers)]],
            "allow_other_workers": True}


def _optimized(a):
    """``a`` with the graph dask's compute of ``a`` alone sends; ``a`` itself where that
    graph lacks its own chunks (a persisted array's: its chunks are the client's
    futures, which dask's optimization leaves out, and the sort's tasks would take
    their keys for plain tuples)."""
    opt, = dask.optimize(a)
    first = opt.__dask_keys__()
    while isinstance(first, list):
        first = first[0]
    return opt if first in opt.__dask_graph__() else a


def sample_sort(keys, values) -> tuple:
    """(sorted_keys, order int64, *sorted_values) of checked 1-D dask keys and (n,) or
    (n, k) dask values, all persisted; chunks stay on the keys' chunk backend. The
    output has as many partitions as ``keys`` has chunks, less those of no row (fewer
    where the chunks are small: :func:`_output_parts`).

    The graph is written as one layer of plain tasks (``dask.delayed`` calls would
    merge graphs once per call: seconds for the ``P * P`` pieces of 64 chunks)."""
    # each input's graph as dask's compute of that array sends it (optimized alone, as
    # ``xp.to_numpy(a)`` would): a later compute of the same arrays then sends each key
    # with the task the sort sent (their unoptimized graphs inside the sort's made a
    # distributed scheduler see one key with two tasks, and warn of failures and
    # deadlocks)
    keys = _optimized(keys)
    values = [_optimized(v) for v in values]
    nparts = keys.numblocks[0]
    rows_of = keys.chunks[0]
    vals = [v.rechunk({0: rows_of} if v.ndim == 1 else {0: rows_of, 1: -1}) for v in values]
    offsets = np.concatenate([[0], np.cumsum(rows_of[:-1], dtype=np.int64)]).astype(int)
    kk = keys.__dask_keys__()
    vk = [[row[0] if v.ndim == 2 else row for row in v.__dask_keys__()] for v in vals]
    if nparts == 1:   # before the cluster is asked for its workers (a round trip)
        return _one_partition(keys, vals, kk, vk)
    in_place = one_memory(keys)
    workers, nworkers = [], 0
    if in_place:   # each merge reads every chunk: P * Q references, not P * P
        nworkers = _local_threads(keys)
    else:
        client = _client_of(keys)
        if client is not None:
            workers = _workers(client)
            nworkers = len(workers)
        else:   # dask's process pool: its processes (num_workers, else the CPUs)
            nworkers = dask.config.get("num_workers", None) or os.cpu_count() or 1
    # output partitions: one per chunk, but fewer where the chunks are small (the pieces
    # are nparts * nout tasks; in one memory each of the nout merges names every chunk)
    nout = _output_parts(nparts, int(sum(rows_of)), nworkers)
    if in_place and nworkers == 1 and _config.executor_of("sort", keys._meta).ONE_SORT:
        nout = 1   # one device of one thread: one sort of every row (its executor's ONE_SORT)
    if nout == 1:   # every row goes to one partition: one task sorts them all
        return _one_partition(keys, vals, kk, vk)
    # the names hold what shapes the graph besides the inputs (the partitions, and
    # whether pieces are tasks): a sort of the same arrays on a cluster whose workers
    # changed since, while the first sort's persisted results were held, reused that
    # sort's splitters, merges and sizes under the same keys (an IndexError)
    token = tokenize(keys.name, *[v.name for v in vals], nout, in_place)
    sample, split_at, split, piece, merge, length, total = (
        f"sample-sort-{step}-{token}"
        for step in ("sample", "splitters", "split", "piece", "merge", "length", "sizes"))
    dsk = {}
    for i in range(nparts):
        dsk[(split, i)] = (_split, kk[i], int(offsets[i]), (split_at, 0)) \
            + tuple(k[i] for k in vk)
    if in_place:   # the splitters' task samples every chunk where it lies
        dsk[(split_at, 0)] = (_splitters_of_chunks, nout, keys.dtype, _SAMPLES) + tuple(kk)
    else:   # a sample task per chunk (a few keys travel, not the chunks)
        for i in range(nparts):
            dsk[(sample, i)] = (_sample, kk[i], i, _SAMPLES)
        dsk[(split_at, 0)] = (_splitters, nout, keys.dtype) \
            + tuple((sample, i) for i in range(nparts))
    merges = {}
    placement = None
    if in_place:
        for j in range(nout):
            merges[(merge, j)] = (_merge_in_place, j) \
                + tuple((split, i) for i in range(nparts))
    else:
        for i in range(nparts):
            for j in range(nout):
                dsk[(piece, i, j)] = (_piece, (split, i), j)
        for j in range(nout):
            merges[(merge, j)] = (_merge,) \
                + tuple((piece, i, j) for i in range(nparts))
        placement = _placement(workers, nout)
    # the partitions' lengths come back as the splits' cuts (P + 1 host ints a chunk),
    # known once the splits end while the merges still run
    # (one task adds them up: a Delayed per chunk made dask cull and order the graph
    # once per chunk, P * P steps)
    # (in one memory the sizes' task reads the splits themselves: one step fewer)
    body = HighLevelGraph.from_collections(split, dsk, dependencies=[keys, *vals])
    layers = {**body.layers, merge: MaterializedLayer(merges, annotations=placement)}
    deps = {**body.dependencies, merge: {split}}
    if in_place:
        layers[total] = {(total, 0): (_sizes_of_splits,) + tuple((split, i)
                                                               for i in range(nparts))}
        deps[total] = {split}
    else:
        cuts = {(length, i): (_cuts, (split, i)) for i in range(nparts)}
        layers[length] = MaterializedLayer(cuts)
        layers[total] = {(total, 0): (_sizes,) + tuple(cuts)}
        deps.update({length: {split}, total: {length}})
    # each output column's task per partition goes in with the merges (an item of the
    # merge's tuple, no copy), so no step waits for the client after the sizes come back
    unknown = _columns(layers, deps, merge, token, keys, vals, (np.nan,) * nout)
    graph = unknown[0].dask
    held, sizes = persist_reading(unknown, Delayed((total, 0), graph, layer=total))
    # partitions of no row (keys of one value fill one) are left out of the columns:
    # dask computes wrong answers over chunks of no element (docs/dask.md)
    kept = [j for j in range(nout) if sizes[j]] or [0]
    out = [da.Array(h.dask, h.name, (tuple(sizes),) + h.chunks[1:], dtype=h.dtype,
                    meta=h._meta) for h in held]
    if len(kept) == nout:
        return tuple(out)
    return dask.persist(*[_renumbered(a, kept) for a in out])


def _columns(layers: dict, deps: dict, merge: str, token: str, keys, vals, lengths: tuple):
    """The output columns (keys, order, values) as dask arrays of partitions of
    ``lengths`` rows (NaN: not known yet), column ``c`` of partition ``j`` the item ``c``
    of the task ``(merge, j)``; ``layers`` and ``deps`` (the graph up to the merges)
    gain the columns' layers."""
    like = keys._meta
    columns = [(keys.dtype, (), like), (np.dtype(np.int64), (), like.astype(np.int64))]
    columns += [(v.dtype, tuple(v.shape[1:]), v._meta) for v in vals]
    names = [f"sample-sort-column{c}-{token}" for c in range(len(columns))]
    for c, (name, (_, tail, _)) in enumerate(zip(names, columns)):
        zero = (0,) * len(tail)
        layers[name] = MaterializedLayer({(name, j) + zero: (operator.getitem, (merge, j), c)
                                          for j in range(len(lengths))})
        deps[name] = {merge}
    graph = HighLevelGraph(layers, deps)
    return [da.Array(graph, name, (lengths,) + tuple((t,) for t in tail), dtype=dtype,
                     meta=meta) for name, (dtype, tail, meta) in zip(names, columns)]


def _sort_all(nparts: int, *blocks):
    """``(sorted keys, order, *sorted values)`` of ``nparts`` chunks of keys and of each
    value (``blocks``: the keys' chunks, then each value's), joined in chunk order and
    sorted by the chunks' sort executor (stable: the order is the global rows')."""
    cols = [blocks[c:c + nparts] for c in range(0, len(blocks), nparts)]
    if nparts > 1:
        xp = array_namespace(cols[0][0])
        cols = [[_concat(xp, list(parts))] for parts in cols]
    keys, *values = (parts[0] for parts in cols)
    return tuple(_config.executor_of("sort", keys).sort_by_key(keys, list(values)))


def _one_partition(keys, vals, key_chunks, value_chunks) -> tuple:
    """:func:`sample_sort` where every row goes to one output partition (keys in one
    chunk, few rows in one memory of one thread, :func:`_output_parts`, or one device's
    memory of one thread, the executor's ``ONE_SORT``): one task
    sorts all the chunks, the output's length is the input's, and the client waits for
    nothing (the sample sort's splitters, split and merge were three steps on the
    cluster, and its lengths a round trip)."""
    nparts = len(key_chunks)
    token = tokenize(keys.name, *[v.name for v in vals], "one partition")
    merge = f"sample-sort-merge-{token}"
    blocks = tuple(key_chunks) + tuple(b for chunks in value_chunks for b in chunks)
    body = HighLevelGraph.from_collections(
        merge, {(merge, 0): (_sort_all, nparts) + blocks}, dependencies=[keys, *vals])
    layers, deps = dict(body.layers), dict(body.dependencies)
    columns = _columns(layers, deps, merge, token, keys, vals, (int(keys.shape[0]),))
    return dask.persist(*columns, optimize_graph=False)


def _renumbered(a, kept: list):
    """``a`` of known chunks with its chunks ``kept`` (in order) as chunks ``0, 1, ...``
    of a new array (a task a chunk that passes the held chunk on)."""
    name = f"{a.name}-kept-{tokenize(kept)}"
    zero = (0,) * (a.ndim - 1)
    layer = {(name, i) + zero: (_same, (a.name, j) + zero) for i, j in enumerate(kept)}
    return da.Array(HighLevelGraph.from_collections(name, layer, dependencies=[a]), name,
                    (tuple(a.chunks[0][j] for j in kept),) + a.chunks[1:], dtype=a.dtype,
                    meta=a._meta)


def _same(chunk):
    return chunk
