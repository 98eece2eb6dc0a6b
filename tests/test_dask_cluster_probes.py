"""The dask backend on a ``distributed.LocalCluster`` of 2 worker processes: cases a
new user's probes found (scheduler warnings, errors after the cluster closed), each
against the NumPy backend.

Reuses ``test_dask_cluster.py``'s module fixture (one cluster per module, always
closed) and its ``xdist_group``, so both modules run on one pytest-xdist worker.
"""

from __future__ import annotations

import logging
import re
import time

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


@pytest.mark.parametrize("dtype, columns", [(np.int32, (2,)), (np.float16, (1, 1))])
def test_scan_with_initial_then_without_sends_each_key_with_one_task(client, dtype, columns):
    """A probe: ``cumulative_sum(x, include_initial=True)`` sliced the first row of x's
    merge of empty chunks, so a later ``cumulative_sum(x)`` sent the merge's keys with
    other tasks and the scheduler warned of "different `run_spec`" ("can cause failures
    and deadlocks"). float16: the chain of chunk scans (``_chunked/scans.py``), whose
    first chunks' tasks dask's linear fusion would rename when computed alone."""
    a = np.arange(12, dtype=dtype).reshape(6, 2)
    with xp.use_backend("dask"):
        d = xp.asarray(a, chunks=((1, 0, 5), columns))
    with _SchedulerWarnings() as caught:
        first = xp.to_numpy(xp.cumulative_sum(d, axis=0, include_initial=True))
        second = xp.to_numpy(xp.cumulative_sum(d, axis=0))
    assert not [m for m in caught.seen if "run_spec" in m], caught.seen
    np.testing.assert_array_equal(first, xp.cumulative_sum(a, axis=0, include_initial=True))
    np.testing.assert_array_equal(second, xp.cumulative_sum(a, axis=0))


def test_arrays_persisted_by_a_closed_client_are_a_clear_error():
    """A probe: blocks persisted on a cluster whose client has closed since are gone,
    and ``to_numpy`` (also of a result made from them), ``sort_by_key``, the Morton and
    Philox functions raised dask's "Missing dependency ('array-…', 3, 0) for dependents
    {…}"; now a ``ValueError`` naming the function and the argument."""
    keys_np = np.arange(40, dtype=np.uint64)[::-1].copy()
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster, set_as_default=False) as gone:
        with xp.use_backend("dask", chunks=10):
            keys = gone.persist(xp.asarray(keys_np))
            pos = gone.persist(xp.asarray(np.zeros((40, 3))))
    said = "holds blocks persisted on a dask cluster that are gone (their client has closed"
    calls = [
        ("to_numpy", "a", lambda: xp.to_numpy(keys)),
        ("to_numpy", "a", lambda: xp.to_numpy(xp.sum(pos))),
        ("to_device", "a", lambda: xp.to_device(pos, "numpy")),
        ("sort_by_key", "keys", lambda: xp.algorithms.sort_by_key(keys)),
        ("sort_by_key", "values[0]", lambda: xp.algorithms.sort_by_key(
            xp.asarray(keys_np), pos)),
        ("morton_keys", "positions", lambda: xp.algorithms.morton_keys(pos, [0] * 3, [1] * 3, 4)),
        ("morton_encode", "ix", lambda: xp.algorithms.morton_encode(keys, keys)),
        ("morton_decode", "keys", lambda: xp.algorithms.morton_decode(keys, 2)),
        ("philox_uniform", "counter", lambda: xp.rng.philox_uniform(1, 0, keys)),
    ]
    for func, arg, call in calls:
        expected = "^" + re.escape(f"{func}: argument '{arg}' {said}")
        with pytest.raises(ValueError, match=expected), xp.use_backend("dask", chunks=10):
            call()
    # arrays of no persisted block still compute (on the threads, without a client)
    with xp.use_backend("dask", chunks=10):
        fresh = xp.algorithms.sort_by_key(xp.asarray(keys_np))[0]
    np.testing.assert_array_equal(xp.to_numpy(fresh), np.sort(keys_np))


def _slow_block(block):
    time.sleep(1)
    return block


def test_demo_cluster_that_loses_all_its_workers_is_an_error_not_a_hang():
    """A probe: ``demo --backend dask --points bunny.ply --chunks 90`` (400 chunks, the
    sort's 160,000 piece tasks) on a busy 2-core machine made the scheduler remove both
    workers; their nannies closed, the local cluster started no new ones and the
    demo's stage waited for ever. Here the workers go by ``scale(0)`` while a stage
    waits: a ``DemoError`` saying so, within seconds."""
    import threading

    import dask.array as da

    from xstride._cli import dask_demo
    from xstride._cli.demo import DemoError

    def demo_stage():
        try:
            with dask_demo.cluster(workers=1) as demo_client:
                threading.Timer(0.2, demo_client.cluster.scale, (0,)).start()
                slow = da.from_array(np.arange(4), chunks=2).map_blocks(
                    _slow_block, meta=np.array((), dtype=np.int64))
                dask_demo._persist(slow)
        except BaseException as exc:   # noqa: BLE001 (handed to the test's thread)
            raised.append(exc)

    raised = []
    runner = threading.Thread(target=demo_stage, daemon=True)   # a hang fails the test
    runner.start()
    runner.join(timeout=60)
    assert not runner.is_alive(), "the stage still waits for the lost workers"
    assert len(raised) == 1 and isinstance(raised[0], DemoError), raised
    assert str(raised[0]).startswith("the local cluster lost all its workers")
