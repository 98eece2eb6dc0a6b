"""``sort_by_key`` of dask arrays whose chunks pandas cannot hold (CuPy): a sample sort
whose every step runs on the chunks' own backend, so CuPy chunks stay on their device.

dask's dataframe shuffle (``sort.py``) moves pandas frames; without cuDF a CuPy chunk
would have to visit the host. Here the shuffle is a graph of dask tasks over the
chunks, each calling the chunk backend's ``sort_by_key`` executor:

1. each chunk is sorted by key (stable), carrying its global row numbers and values;
2. a few keys of every sorted chunk (evenly spaced, 64 at most) go to the client, whose
   sorted union gives ``P - 1`` splitters (``P``: the number of chunks); output
   partition ``j`` takes the keys in ``(s_j, s_{j+1}]``;
3. each sorted chunk is cut at the splitters (``searchsorted``); one task per (chunk,
   partition) slices its piece where the chunk lives, so only pieces travel;
4. partition ``j`` concatenates its pieces in chunk order and sorts them by key
   (stable): equal keys come from increasing chunks and, within a chunk, increasing
   rows, so the result is the stable sort, equal to ``numpy.argsort(kind="stable")``.

No task ever holds more than one partition. Partition sizes follow the key
distribution: a key repeated more often than ``n / P`` times makes its partition
larger. ``P * P`` piece tasks: fine for hundreds of chunks, not for tens of thousands.

Source: the sample sort of W. D. Frazer and A. C. McKellar, "Samplesort: a sampling
approach to minimal storage tree sorting", J. ACM 17(3), 1970.
"""

from __future__ import annotations

import operator

import dask
import dask.array as da
import numpy as np
from array_api_compat import array_namespace

from . import _config

__all__ = ["sample_sort"]

_SAMPLES = 64


def _local(keys, offset, *values):
    """(sorted keys, their global rows, *values) of one chunk."""
    xp = array_namespace(keys)
    rows = xp.arange(keys.shape[0], dtype=xp.int64) + offset
    sk, _, *carried = _config.executor_of("sort", keys).sort_by_key(keys, [rows, *values])
    return (sk, *carried)


def _sample(local, count: int):
    sk = local[0]
    m = sk.shape[0]
    if m == 0:
        return np.empty(0, dtype=sk.dtype)
    pick = np.unique(np.linspace(0, m - 1, min(m, count)).astype(np.int64))
    return np.asarray(_config.to_host(sk[_config.like(pick, sk)]))


def _cuts(local, splitters):
    """``[0, cut_1, ..., cut_{P-1}, m]``: partition ``j`` of the chunk is rows
    ``cut_j .. cut_{j+1} - 1`` (keys in ``(s_j, s_{j+1}]``)."""
    sk = local[0]
    xp = array_namespace(sk)
    inner = xp.searchsorted(sk, _config.like(splitters, sk), side="right")
    return np.concatenate([[0], np.asarray(_config.to_host(inner), dtype=np.int64),
                           [sk.shape[0]]])


def _piece(local, lo: int, hi: int):
    return tuple(a[lo:hi] for a in local)


def _merge(*pieces):
    xp = array_namespace(pieces[0][0])
    cols = [xp.concat([p[c] for p in pieces], axis=0) for c in range(len(pieces[0]))]
    sk, _, *carried = _config.executor_of("sort", cols[0]).sort_by_key(cols[0], cols[1:])
    return (sk, *carried)


def sample_sort(keys, values) -> tuple:
    """(sorted_keys, order int64, *sorted_values) of checked 1-D dask keys and (n,) or
    (n, k) dask values, all persisted; chunks stay on the keys' chunk backend."""
    nparts = keys.numblocks[0]
    rows_of = keys.chunks[0]
    vals = [v.rechunk({0: rows_of} if v.ndim == 1 else {0: rows_of, 1: -1}) for v in values]
    offsets = np.concatenate([[0], np.cumsum(rows_of[:-1], dtype=np.int64)]).astype(int)
    kd = keys.to_delayed().ravel()
    vd = [v.to_delayed().ravel() for v in vals]
    local = dask.persist(*[dask.delayed(_local)(kd[i], int(offsets[i]), *[d[i] for d in vd])
                           for i in range(nparts)])
    samples = dask.compute(*[dask.delayed(_sample)(loc, _SAMPLES) for loc in local])
    sample = np.sort(np.concatenate(samples)) if samples else np.empty(0, keys.dtype)
    splitters = sample[(np.arange(1, nparts) * sample.size) // nparts] if sample.size \
        else np.empty(0, dtype=keys.dtype)
    cuts = np.stack(dask.compute(*[dask.delayed(_cuts)(loc, splitters) for loc in local]))
    sizes = (cuts[:, 1:] - cuts[:, :-1]).sum(axis=0)
    parts = [dask.delayed(_merge)(*[dask.delayed(_piece)(local[i], int(cuts[i, j]),
                                                         int(cuts[i, j + 1]))
                                    for i in range(nparts)])
             for j in range(nparts)]
    like = keys._meta
    columns = [(keys.dtype, (), like),
               (np.dtype(np.int64), (), like.astype(np.int64))]
    columns += [(v.dtype, tuple(v.shape[1:]), v._meta) for v in vals]
    out = []
    for c, (dtype, tail, meta) in enumerate(columns):
        blocks = [da.from_delayed(dask.delayed(operator.getitem)(parts[j], c),
                                  shape=(int(sizes[j]),) + tail, dtype=dtype, meta=meta)
                  for j in range(nparts)]
        out.append(da.concatenate(blocks, axis=0))
    return dask.persist(*out)
