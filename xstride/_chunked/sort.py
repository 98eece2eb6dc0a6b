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

Chunks of another backend than NumPy (CuPy), which pandas cannot hold, take the sample
sort of :mod:`.sample_sort` instead: the same result, every step on the chunks' own
backend (their device). See ``docs/dask.md``.

Source: dask's ``dask/dataframe`` ``sort_values`` (quantile partitioning and shuffle).
"""

from __future__ import annotations

import dask
import dask.array as da
import dask.dataframe as dd
import numpy as np

from .sample_sort import sample_sort

__all__ = ["sort_by_key"]

_KEY, _ROW = "key", "row"


def _columns(i: int, v) -> list[str]:
    return [f"v{i}"] if v.ndim == 1 else [f"v{i}_{j}" for j in range(v.shape[1])]


def sort_by_key(keys, values, key_bits=None) -> tuple:
    """(sorted_keys, order int64, *sorted_values) of checked 1-D dask keys and (n,) or
    (n, k) dask values; all dask arrays with the chunks' backend of ``keys``.
    ``key_bits`` (checked by the caller) is not used: the shuffle compares whole keys,
    and the keys are not checked against it (that would compute them)."""
    like = keys._meta
    if not isinstance(like, np.ndarray):  # CuPy chunks: the sort stays on the device
        return sample_sort(keys, values)
    n = keys.shape[0]
    k = keys
    row = da.arange(n, chunks=k.chunks, dtype=np.int64)
    parts = [dd.from_dask_array(k, columns=_KEY), dd.from_dask_array(row, columns=_ROW)]
    names = []
    for i, v in enumerate(values):
        cols = _columns(i, v)
        names.append(cols)
        if not cols:  # (n, 0): nothing to carry
            continue
        hv = v.rechunk({0: k.chunks[0]} if v.ndim == 1 else {0: k.chunks[0], 1: -1})
        parts.append(dd.from_dask_array(hv, columns=cols if v.ndim == 2 else cols[0]))
    frame = dd.concat(parts, axis=1) if len(parts) > 1 else parts[0]
    ordered = frame.sort_values([_KEY, _ROW]).persist()
    lengths = tuple(int(m) for m in ordered.map_partitions(len).compute())

    def column(cols, dtype, ndim):
        arr = ordered[cols if ndim == 2 else cols[0]].to_dask_array(lengths=lengths)
        return arr.astype(dtype, copy=False)

    out = [column([_KEY], keys.dtype, 1), column([_ROW], np.int64, 1)]
    for cols, v in zip(names, values):
        if not cols:
            out.append(da.zeros((n, 0), dtype=v.dtype, chunks=(lengths, 0)))
            continue
        out.append(column(cols, v.dtype, v.ndim))
    # one submission of every column (the frame's partitions are cut once per column)
    return dask.persist(*out)
