"""The dask backend on a ``distributed.LocalCluster`` of 2 worker processes: cases a
new user's probes found (scheduler warnings, errors after the cluster closed), each
against the NumPy backend.

Reuses ``test_dask_cluster.py``'s module fixture (one cluster per module, always
closed) and its ``xdist_group``, so both modules run on one pytest-xdist worker.
"""

from __future__ import annotations

import logging

import numpy as np
import pytest

dask = pytest.importorskip("dask")
distributed = pytest.importorskip("distributed")

import xstride as xp  # noqa: E402

from .test_dask_cluster import _numpy_after, client  # noqa: E402, F401  (fixtures)

pytestmark = pytest.mark.xdist_group("dask-cluster")


class _SchedulerWarnings(logging.Handler):
    """The messages ``distributed.scheduler`` logs in this process while installed."""

    def __init__(self):
        super().__init__()
        self.seen = []

    def emit(self, record):
        self.seen.append(record.getMessage())

    def __enter__(self):
        logging.getLogger("distributed.scheduler").addHandler(self)
        return self

    def __exit__(self, *exc):
        logging.getLogger("distributed.scheduler").removeHandler(self)


def test_scan_with_initial_then_without_sends_each_key_with_one_task(client):
    """A probe: ``cumulative_sum(x, include_initial=True)`` sliced the first row of x's
    merge of empty chunks, so a later ``cumulative_sum(x)`` sent the merge's keys with
    other tasks and the scheduler warned of "different `run_spec`" ("can cause failures
    and deadlocks")."""
    a = np.arange(12, dtype=np.int32).reshape(6, 2)
    with xp.use_backend("dask"):
        d = xp.asarray(a, chunks=((1, 0, 5), (2,)))
    with _SchedulerWarnings() as caught:
        first = xp.to_numpy(xp.cumulative_sum(d, axis=0, include_initial=True))
        second = xp.to_numpy(xp.cumulative_sum(d, axis=0))
    assert not [m for m in caught.seen if "run_spec" in m], caught.seen
    np.testing.assert_array_equal(first, xp.cumulative_sum(a, axis=0, include_initial=True))
    np.testing.assert_array_equal(second, xp.cumulative_sum(a, axis=0))
