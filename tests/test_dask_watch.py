"""The dask demo's cluster failing under it (``xstride/_cli/dask_watch.py``): tasks that
kill their workers, a ``--scheduler`` cluster that loses its workers or its scheduler.
Each was a traceback with exit status 1 or a wait for ever (a new user's probe); each
is a one-line ``DemoError`` now, within seconds.
"""

from __future__ import annotations

import os
import threading
import time

import numpy as np
import pytest

dask = pytest.importorskip("dask")
distributed = pytest.importorskip("distributed")

import dask.array as da  # noqa: E402

from xstride._cli import dask_demo, dask_watch  # noqa: E402
from xstride._cli.demo import DemoError  # noqa: E402

pytestmark = pytest.mark.xdist_group("dask-cluster")


def _dies(block):
    os._exit(3)   # the worker process ends as it runs the task (as the OOM killer ends it)


def _slow(block):
    time.sleep(1)
    return block


def _in_thread(fn, limit: float = 60):
    """``fn()``'s exception, run on a thread: a hang fails the test, not the run."""
    raised = []

    def run():
        try:
            fn()
        except BaseException as exc:   # noqa: BLE001 (handed to the test's thread)
            raised.append(exc)

    runner = threading.Thread(target=run, daemon=True)
    runner.start()
    runner.join(timeout=limit)
    assert not runner.is_alive(), "the stage still waits"
    assert len(raised) == 1, raised
    return raised[0]


def test_a_task_that_kills_its_workers_is_named():
    """``--n 150000000 --chunks -1`` on 8 local workers of 2.9 GiB each: dask's nannies
    restarted the workers, then its ``KilledWorker`` was a traceback with status 1."""
    def stage():
        with dask.config.set({"distributed.scheduler.allowed-failures": 0}), \
                dask_demo.cluster(workers=1):
            dask_demo._persist(da.from_array(np.arange(4), chunks=2).map_blocks(
                _dies, meta=np.array((), dtype=np.int64)))

    err = _in_thread(stage)
    assert isinstance(err, DemoError), err
    assert str(err).startswith("a task (_dies) was running on each of the workers of "
                               "the local cluster that died as they ran it"), err
    assert "--chunks" in str(err)


def test_a_scheduler_that_loses_its_workers_is_an_error_after_the_timeout():
    """A ``--scheduler`` cluster whose workers all left while a stage waited: the demo
    waited for ever (a worker that cannot import xstride dies at its first task); it
    waits ``--connect-timeout`` seconds for a worker to come back."""
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                                  dashboard_address=":0") as other:
        address = other.scheduler_address

        def stage():
            with dask_demo.cluster(scheduler=address, timeout=1) as client:
                threading.Timer(0.3, other.scale, (0,)).start()
                slow = da.from_array(np.arange(4), chunks=1).map_blocks(
                    _slow, meta=np.array((), dtype=np.int64))
                assert client.scheduler.address == address
                dask_demo._persist(slow)

        t0 = time.perf_counter()
        err = _in_thread(stage)
    assert isinstance(err, DemoError), err
    assert str(err).startswith(f"the dask scheduler at {address} has had no workers "
                               "for 1 s (--connect-timeout)"), err
    assert time.perf_counter() - t0 < 30


def test_a_lost_scheduler_is_named():
    """The ``--scheduler`` cluster's scheduler ended while a stage waited: dask's
    ``FuturesCancelledError`` (or a closed comm) was a 100-line traceback, status 1."""
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                                  dashboard_address=":0") as other:
        address = other.scheduler_address

        def stage():
            with dask_demo.cluster(scheduler=address, timeout=5):
                threading.Timer(0.5, other.close).start()
                dask_demo._persist(da.from_array(np.arange(8), chunks=1).map_blocks(
                    _slow, meta=np.array((), dtype=np.int64)))

        err = _in_thread(stage)
    assert isinstance(err, DemoError), err
    assert str(err).startswith(f"lost the dask scheduler at {address} while a stage ran"), err


def test_other_errors_are_left_as_they_are():
    from distributed.scheduler import KilledWorker

    assert dask_watch.failure(ValueError("x"), None) is None
    got = dask_watch.failure(KilledWorker(("sample-sort-merge-1f2e", 0), None, 3), "tcp://h:1")
    assert str(got).startswith("a task (sample-sort-merge) was running on each of the "
                               "workers of the dask scheduler at tcp://h:1")
