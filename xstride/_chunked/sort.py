"""``sort_by_key`` of dask arrays: a distributed stable sort on dask's own shuffle.

The keys, their global row numbers and the value columns become one
``dask.dataframe`` (one partition per block of the keys), sorted by ``(key, row)`` with
``DataFrame.sort_values``: dask samples the keys' quantiles, shuffles rows between
partitions (on a ``distributed`` cluster, its peer-to-peer shuffle; else the task
shuffle) and sorts each partition. No worker ever holds all rows. Sorting on the row
number as the second column makes the result that of a stable sort, equal to NumPy's
``argsort(kind="stable")`` whatever the chunking. The sorted frame is persisted once
(the shuffle runs once) and cut back into dask arrays of known chunk lengths, which are
persisted together (on a cluster they stay on the workers).

Chunks of another backend than NumPy (CuPy) travel to the host for the shuffle (pandas
frames) and come back to their backend per partition; see ``docs/dask.md``.

Source: dask's ``dask/dataframe`` ``sort_values`` (quantile partitioning and shuffle).
"""

from __future__ import annotations

import functools

import dask
import dask.array as da
import dask.dataframe as dd
import numpy as np

from . import _config

__all__ = ["sort_by_key"]

_KEY, _ROW = "key", "row"


def _host(x):
    """``x`` with NumPy chunks (a no-op for NumPy chunks)."""
    if isinstance(x._meta, np.ndarray):
        return x
    return x.map_blocks(_to_host, dtype=x.dtype, meta=np.empty((0,) * x.ndim, dtype=x.dtype))


def _back(x, like):
    """``x`` (NumPy chunks) with chunks of ``like``'s backend."""
    if isinstance(like, np.ndarray):
        return x
    meta = _config.like(np.empty((0,) * x.ndim, dtype=x.dtype), like)
    return x.map_blocks(functools.partial(_to_like, like=like), dtype=x.dtype, meta=meta)


# module functions (pickled by reference): the hooks are looked up where the task runs
def _to_host(block):
    return _config.to_host(block)


def _to_like(block, like):
    return _config.like(block, like)


def _columns(i: int, v) -> list[str]:
    return [f"v{i}"] if v.ndim == 1 else [f"v{i}_{j}" for j in range(v.shape[1])]


def sort_by_key(keys, values) -> tuple:
    """(sorted_keys, order int64, *sorted_values) of checked 1-D dask keys and (n,) or
    (n, k) dask values; all dask arrays with the chunks' backend of ``keys``."""
    like = keys._meta
    n = keys.shape[0]
    k = _host(keys)
    row = da.arange(n, chunks=k.chunks, dtype=np.int64)
    parts = [dd.from_dask_array(k, columns=_KEY), dd.from_dask_array(row, columns=_ROW)]
    names = []
    for i, v in enumerate(values):
        cols = _columns(i, v)
        names.append(cols)
        if not cols:  # (n, 0): nothing to carry
            continue
        hv = _host(v).rechunk({0: k.chunks[0]} if v.ndim == 1 else {0: k.chunks[0], 1: -1})
        parts.append(dd.from_dask_array(hv, columns=cols if v.ndim == 2 else cols[0]))
    frame = dd.concat(parts, axis=1) if len(parts) > 1 else parts[0]
    ordered = frame.sort_values([_KEY, _ROW]).persist()
    lengths = tuple(int(m) for m in ordered.map_partitions(len).compute())

    def column(cols, dtype, ndim):
        arr = ordered[cols if ndim == 2 else cols[0]].to_dask_array(lengths=lengths)
        return _back(arr.astype(dtype, copy=False), like)

    out = [column([_KEY], keys.dtype, 1), column([_ROW], np.int64, 1)]
    for cols, v in zip(names, values):
        if not cols:
            out.append(_back(da.zeros((n, 0), dtype=v.dtype, chunks=(lengths, 0)), like))
            continue
        out.append(column(cols, v.dtype, v.ndim))
    # one submission of every column (the frame's partitions are cut once per column)
    return dask.persist(*out)
