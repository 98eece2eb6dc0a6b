"""One submission for a graph's arrays and a small value the client needs of it.

``dask.compute`` of a collection ``dask.persist`` already sent to a ``distributed``
cluster submits it again: a new graph of the held futures and a gather through the
scheduler, two more rounds of the client's batched messages (about 25 ms on a local
cluster of one worker, against the value's own few milliseconds). The value is read
from its future instead. Without a ``distributed`` client (dask's threads), ``persist``
computed everything and the value is in the held graph.
"""

from __future__ import annotations

import dask

__all__ = ["persist_reading"]


def persist_reading(arrays, small) -> tuple:
    """``(held arrays, value)``: ``arrays`` (dask collections) and ``small`` (a
    ``Delayed`` of their graph) persisted in one submission; waits for ``small`` only,
    then returns its value (the arrays' tasks may still run).

    The graph goes as the caller built it, not through dask's array optimization,
    which dropped the layers' annotations (the sample sort's placement of its merges,
    one worker in three runs on two workers)."""
    *held, small = dask.persist(*arrays, small, optimize_graph=False)
    return held, _value(small)


def _value(held):
    try:
        from distributed import futures_of
    except ImportError:   # no distributed: dask's own schedulers computed it in persist
        futures = []
    else:
        futures = futures_of(held)
    if len(futures) == 1:
        return futures[0].result()
    return dask.compute(held)[0]
