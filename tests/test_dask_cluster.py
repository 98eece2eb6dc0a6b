"""The dask backend on a ``distributed.LocalCluster`` of 2 worker processes (one thread
each): chunk-invariant Philox, Morton keys and the distributed ``sort_by_key`` (its
sample sort's tasks on the workers), each equal to the NumPy backend. The demo command
and the dask benchmark on a cluster: ``test_dask_cluster_demo.py``.

One cluster per module (always closed); the tests share one pytest-xdist worker
(``xdist_group``, with ``--dist loadgroup`` as ``make test`` runs them).
"""

from __future__ import annotations

import sys

import numpy as np
import pytest

dask = pytest.importorskip("dask")
distributed = pytest.importorskip("distributed")

import xstride as xp  # noqa: E402
from xstride._cli import dask_demo  # noqa: E402

pytestmark = pytest.mark.xdist_group("dask-cluster")

CHUNKINGS = (64, 137, 400)  # rows per chunk; the arrays below have 400-1000 rows


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=":0")
    try:
        with distributed.Client(cluster) as c:
            yield c
    finally:
        cluster.close()


@pytest.fixture(autouse=True)
def _numpy_after():
    yield
    xp.set_backend("numpy")


def _imported_on_every_worker(client, module: str) -> bool:
    """Whether each worker process imported ``module`` (ran a task of it)."""
    return all(client.run(lambda: module in sys.modules).values())


# --------------------------------------------------------------------- Philox
@pytest.mark.parametrize("kind", ["uniform", "uniform2", "normal", "normal2"])
def test_philox_bits_equal_numpy_for_three_chunkings(client, kind):
    fn = getattr(xp.rng, f"philox_{kind}")
    counters = np.arange(2**40, 2**40 + 400, dtype=np.uint64)[:, None]
    streams = np.arange(3, dtype=np.uint64)[None, :]
    ref = fn(7, streams, counters)
    for rows in CHUNKINGS:
        with xp.use_backend("dask", chunks=(rows, 2)):
            got = fn(7, xp.asarray(streams), xp.asarray(counters))
        got, want = (got, ref) if isinstance(ref, tuple) else ((got,), (ref,))
        for g, w in zip(got, want):
            assert g.numblocks[0] == -(-400 // rows)
            np.testing.assert_array_equal(xp.to_numpy(g), w)
    assert _imported_on_every_worker(client, "xstride._chunked.philox")


def test_philox_generator_equal_numpy_for_three_chunkings(client):
    ref = xp.rng.Philox(11, 3, backend="numpy")
    u_ref, n_ref = ref.uniform((333, 3)), ref.normal(1001)
    for rows in CHUNKINGS:
        with xp.use_backend("dask", chunks=rows):
            g = xp.rng.Philox(11, 3)
            u, n = g.uniform((333, 3)), g.normal(1001)
        assert g.counter == ref.counter
        np.testing.assert_array_equal(xp.to_numpy(u), u_ref)
        np.testing.assert_array_equal(xp.to_numpy(n), n_ref)


def test_philox_block_function_equal_numpy(client):
    cw = np.random.default_rng(0).integers(0, 2**32, (500, 4), dtype=np.uint64).astype(np.uint32)
    ref = xp.rng.philox4x32_10(cw, 5, 2**32 - 1)
    for rows in CHUNKINGS:
        with xp.use_backend("dask", chunks=(rows, 4)):
            got = xp.rng.philox4x32_10(xp.asarray(cw), 5, 2**32 - 1)
            np.testing.assert_array_equal(xp.to_numpy(got), ref)
            keys = np.arange(500, dtype=np.uint32)
            got = xp.rng.philox4x32_10(xp.asarray(cw), xp.asarray(keys, chunks=rows), 0)
            np.testing.assert_array_equal(xp.to_numpy(got), xp.rng.philox4x32_10(cw, keys, 0))


# --------------------------------------------------------------------- Morton
def test_morton_keys_encode_decode_equal_numpy(client):
    pts = np.random.default_rng(1).normal(size=(1000, 3))
    lower, upper = pts.min(axis=0), pts.max(axis=0)
    ref = xp.algorithms.morton_keys(pts, lower, upper, 16)
    for rows in CHUNKINGS[::2]:
        with xp.use_backend("dask", chunks=(rows, 1)):
            pos = xp.asarray(pts)
            # the global bounds: dask reductions, computed together
            lo, hi = (xp.to_numpy(b) for b in dask.compute(xp.min(pos, axis=0),
                                                             xp.max(pos, axis=0)))
            keys = xp.algorithms.morton_keys(pos, lo.tolist(), hi.tolist(), 16)
            np.testing.assert_array_equal(xp.to_numpy(keys), ref)
    cells = xp.algorithms.morton_decode(keys, 3)
    np.testing.assert_array_equal(xp.to_numpy(cells), xp.algorithms.morton_decode(ref, 3))
    again = xp.algorithms.morton_encode(cells[:, 0], cells[:, 1], cells[:, 2])
    np.testing.assert_array_equal(xp.to_numpy(again), ref)


# --------------------------------------------------------------------- sort
@pytest.mark.parametrize("dtype", [np.uint64, np.int16])
def test_sort_by_key_equals_numpy_stable_sort_with_many_duplicates(client, dtype):
    rng = np.random.default_rng(3)
    n = 3000
    keys = rng.integers(0, 12, n).astype(dtype)   # ~250 rows per key
    keys[::7] = np.iinfo(dtype).max                # one very common key at the top
    vals = rng.random((n, 3))
    labels = np.arange(n, dtype=np.int32)
    order_ref = np.argsort(keys, kind="stable")
    for rows in (250, n) if dtype == np.uint64 else (700,):
        with xp.use_backend("dask", chunks=rows):
            sk, order, sv, sl = xp.algorithms.sort_by_key(xp.asarray(keys), xp.asarray(vals),
                                                          xp.asarray(labels))
        assert (sk.dtype, order.dtype, sv.dtype, sl.dtype) == (dtype, np.int64, np.float64,
                                                               np.int32)
        np.testing.assert_array_equal(xp.to_numpy(order), order_ref)
        np.testing.assert_array_equal(xp.to_numpy(sk), keys[order_ref])
        np.testing.assert_array_equal(xp.to_numpy(sv), vals[order_ref])
        np.testing.assert_array_equal(xp.to_numpy(sl), labels[order_ref])


def test_sort_by_key_partitions_stay_on_the_workers(client):
    """The sorted result is split over several partitions held by the workers: no
    single task received every row."""
    keys = np.random.default_rng(4).integers(0, 2**40, 4000).astype(np.uint64)
    with xp.use_backend("dask", chunks=500):
        sk, order = xp.algorithms.sort_by_key(xp.asarray(keys))
    assert sk.numblocks[0] > 1 and max(sk.chunks[0]) < keys.size
    held = client.who_has()
    assert sum(1 for k, w in held.items() if w) >= sk.numblocks[0]
    np.testing.assert_array_equal(xp.to_numpy(sk), np.sort(keys, kind="stable"))


def test_sort_then_compute_of_its_inputs_sends_each_key_with_one_task(client):
    """A probe: the sort submitted its inputs' graphs as they were, a later compute of
    the same arrays sent them optimized, and the scheduler warned of a key with two
    different tasks ("can cause failures and deadlocks")."""
    import logging

    seen = []

    class Catch(logging.Handler):
        def emit(self, record):
            seen.append(record.getMessage())

    catch = Catch()
    logging.getLogger("distributed.scheduler").addHandler(catch)
    try:
        with xp.use_backend("dask", chunks=400):
            pos = xp.rng.Philox(1).uniform((2000, 3))
            keys = xp.algorithms.morton_keys(pos, [0, 0, 0], [1, 1, 1], 5)
            sk, order, sp = xp.algorithms.sort_by_key(keys, pos)
            host_pos, host_keys = xp.to_numpy(pos), xp.to_numpy(keys)
    finally:
        logging.getLogger("distributed.scheduler").removeHandler(catch)
    assert not [m for m in seen if "run_spec" in m], seen
    ref = np.argsort(host_keys, kind="stable")
    np.testing.assert_array_equal(xp.to_numpy(order), ref)
    np.testing.assert_array_equal(xp.to_numpy(sp), host_pos[ref])


def test_sort_of_many_small_chunks_on_the_cluster_makes_a_partition_per_worker(client):
    """400 chunks of 10 rows on the two workers: two output partitions (and 800 piece
    tasks, not 160,000), equal to NumPy's stable sort."""
    keys = np.random.default_rng(11).integers(0, 30, 4000).astype(np.uint64)
    vals = np.random.default_rng(12).random((4000, 3))
    with xp.use_backend("dask", chunks=10):
        sk, order, sv = xp.algorithms.sort_by_key(xp.asarray(keys), xp.asarray(vals))
    ref = np.argsort(keys, kind="stable")
    assert sk.numblocks[0] == 2
    np.testing.assert_array_equal(xp.to_numpy(order), ref)
    np.testing.assert_array_equal(xp.to_numpy(sv), vals[ref])


def test_sample_sort_on_the_cluster_equals_numpy(client):
    """The device-chunk sort's task graph on worker processes (here with NumPy chunks)."""
    from xstride._chunked.sample_sort import sample_sort

    keys = np.random.default_rng(6).integers(0, 40, 4000).astype(np.uint64)
    pts = np.random.default_rng(7).random((4000, 3))
    with xp.use_backend("dask", chunks=500):
        sk, order, sp = sample_sort(xp.asarray(keys), [xp.asarray(pts)])
    ref = np.argsort(keys, kind="stable")
    np.testing.assert_array_equal(xp.to_numpy(order), ref)
    np.testing.assert_array_equal(xp.to_numpy(sp), pts[ref])
    assert _imported_on_every_worker(client, "xstride._chunked.sample_sort")
    # two workers: one task per piece (the pieces travel); one worker: no piece tasks
    from xstride._chunked.sample_sort import one_memory

    assert not one_memory(sk)


def test_sample_sort_spreads_its_merges_over_the_workers(client, monkeypatch):
    """Every split feeds every merge, so all merges become ready at once; left to the
    scheduler they landed 3 and 5 of 8 on two workers. Each worker merges P / W."""
    import collections

    from distributed import get_task_stream, wait

    from xstride._chunked import sample_sort as ss
    from xstride._chunked.sample_sort import sample_sort

    n = 2**18
    monkeypatch.setattr(ss, "_PARTITION_ROWS", n // 8)   # an output partition a chunk
    keys = np.random.default_rng(8).integers(0, 2**30, n).astype(np.uint64)
    pts = np.random.default_rng(9).random((n, 3))
    with xp.use_backend("dask", chunks=n // 8):
        k, p = dask.persist(xp.asarray(keys), xp.asarray(pts))
        with get_task_stream(client) as ts:
            sk, order, sp = sample_sort(k, [p])
            wait([sk, order, sp])   # the sort returns once its splits end
    per_worker = collections.Counter(
        t["worker"] for t in ts.data
        if isinstance(t["key"], tuple) and "sample-sort-merge" in str(t["key"][0]))
    assert sorted(per_worker.values()) == [4, 4], per_worker
    np.testing.assert_array_equal(xp.to_numpy(order), np.argsort(keys, kind="stable"))


def test_one_worker_is_one_memory():
    from xstride._chunked.sample_sort import one_memory

    with dask_demo.cluster(workers=1) as one, one.as_current():
        assert len(one.scheduler_info()["workers"]) == 1
        assert one_memory(dask.array.zeros(4, chunks=2))


def test_the_demos_own_cluster_sends_its_messages_without_distributeds_windows():
    from xstride._cli.dask_batching import WINDOW, windows

    with dask_demo.cluster(workers=1) as own:
        assert windows(own) == {"client": WINDOW, "to workers": [WINDOW],
                                "to clients": [WINDOW], "workers": [WINDOW]}


def test_shortening_skips_streams_another_distributed_lacks():
    """The attributes are distributed's own (no config key): where a version lacks one,
    the demo runs with that stream's window as it is, not an AttributeError."""
    from types import SimpleNamespace

    from xstride._cli import dask_batching

    bare = SimpleNamespace()
    dask_batching._on_scheduler(bare)
    dask_batching._on_worker(bare)
    stream = SimpleNamespace(interval=0.005)
    dask_batching._on_scheduler(SimpleNamespace(stream_comms={"w": stream}))
    assert stream.interval == dask_batching.WINDOW and not hasattr(bare, "interval")


def test_a_scheduler_given_to_the_demo_keeps_its_windows(client):
    """Other clients share a ``--scheduler`` cluster: the demo changes nothing there
    (distributed's own windows: client 10 ms, scheduler to workers 5 ms, workers 2 ms,
    as dask_batching's docstring says)."""
    from xstride._cli.dask_batching import windows

    with dask_demo.cluster(scheduler=client.scheduler.address) as theirs:
        seen = windows(theirs)
    assert seen["client"] == 0.01 and seen["workers"] == [0.002], seen
    assert seen["to workers"] == [0.005] and 0.002 in seen["to clients"], seen


def test_sorting_the_same_keys_again_after_the_cluster_grew():
    """A new-user probe: sorting the same dask keys a second time, on a cluster that
    gained a worker since while the first result was kept, raised ``IndexError`` ("list
    index out of range"): the graph's names came from the inputs alone, so the second
    sort (two partitions) found the first one's splitters, merges and sizes (one
    partition) under its keys. The names now hold the partitions too."""
    import dask.array as da

    cluster = distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                       dashboard_address=":0")
    try:
        with distributed.Client(cluster) as c:
            rng = np.random.default_rng(20)
            keys = rng.integers(0, 1000, 4000)
            values = rng.random(4000)
            ref = np.argsort(keys, kind="stable")
            dk = da.from_array(keys, chunks=500)
            dv = da.from_array(values, chunks=700)
            first = xp.algorithms.sort_by_key(dk, dv)
            assert first[0].numblocks == (1,)             # one worker: one partition
            cluster.scale(2)
            c.wait_for_workers(2, timeout=60)
            second = xp.algorithms.sort_by_key(dk, dv)
            assert second[0].numblocks == (2,)            # one a worker
            for got in (first, second):
                sk, order, sv = (xp.to_numpy(a) for a in got)
                np.testing.assert_array_equal(order, ref)
                np.testing.assert_array_equal(sk, keys[ref])
                np.testing.assert_array_equal(sv, values[ref])
    finally:
        cluster.close()


# --------------------------------------------------------------------- one submission
def test_persist_reading_submits_once_and_reads_the_held_value(client, monkeypatch):
    """The sort's lengths and the occupancy's counts of cells come from the future of
    the graph the client sent: no second submission of the held graph (``dask.compute``
    of a persisted collection sends one, a round of messages more)."""
    import dask.array as da
    from dask.delayed import Delayed
    from dask.highlevelgraph import HighLevelGraph

    from xstride._chunked import held

    x = da.arange(12, chunks=4)
    layer = {("total-probe", 0): (sum, [(x.name, i) for i in range(3)])}
    graph = HighLevelGraph.from_collections("total-probe", layer, dependencies=[x])
    sent = []
    real = client._graph_to_futures
    monkeypatch.setattr(client, "_graph_to_futures",
                        lambda *a, **k: sent.append(1) or real(*a, **k))
    (kept,), value = held.persist_reading([x], Delayed(("total-probe", 0), graph,
                                                       layer="total-probe"))
    assert int(value.sum()) == 66 and len(sent) == 1
    assert distributed.futures_of(kept) and kept.compute().tolist() == list(range(12))


def test_a_local_clusters_own_record_names_its_workers_without_a_round_trip(client,
                                                                            monkeypatch):
    """The sort asked the scheduler for its workers twice a call (a round trip each, a
    few milliseconds): a local cluster's client reads the cluster's own record, kept
    current from the scheduler's worker events; a client of a scheduler's address
    still asks."""
    from xstride._chunked import sample_sort as ss

    asked = []
    real = client.scheduler_info
    monkeypatch.setattr(client, "scheduler_info",
                        lambda *a, **k: asked.append(1) or real(*a, **k))
    local = ss._workers(client)
    assert len(local) == 2 and asked == []
    with distributed.Client(client.scheduler.address, set_as_default=False) as remote:
        assert getattr(remote, "cluster", None) is None
        remote_asked = []
        remote_real = remote.scheduler_info
        monkeypatch.setattr(remote, "scheduler_info",
                            lambda *a, **k: remote_asked.append(1) or remote_real(*a, **k))
        assert ss._workers(remote) == local and remote_asked == [1]


def test_the_unwaited_pipeline_lets_a_local_scheduler_take_up_the_positions(monkeypatch):
    """Without waits the client built the next stages' graphs while a scheduler of its
    own process waited for the GIL to take up the positions (11-14 ms on the H100
    host): the positions' stage now returns once their tasks are taken up."""
    from xstride._cli import dask_batching

    seen = []
    real = dask_batching.taken_up

    def spy(client, collection, timeout=dask_batching.TAKE_UP_WAIT):
        done = real(client, collection, timeout)
        tasks = client.cluster.scheduler.tasks
        seen.append((done, [tasks[f.key].state for f in distributed.futures_of(collection)]))
        return done

    monkeypatch.setattr(dask_batching, "taken_up", spy)
    with dask_demo.cluster(workers=1) as own, own.as_current():
        out = dask_demo.pipeline("dask", n=2000, chunks=500, tree=False, staged=False)
    assert all(out["checks"].values())
    assert len(seen) == 1 and seen[0][0] is True
    assert seen[0][1] and all(s in ("queued", "processing", "memory") for s in seen[0][1])


def test_taking_up_waits_for_no_scheduler_elsewhere_and_for_a_stuck_one_no_longer(
        monkeypatch):
    """A client of a scheduler in another process (``--scheduler``: no ``cluster`` here)
    waits for nothing; a scheduler that does not take the tasks up is waited for
    ``timeout`` seconds, then the client goes on."""
    import time
    from types import SimpleNamespace

    from xstride._cli import dask_batching

    assert dask_batching.taken_up(SimpleNamespace(cluster=None), object()) is True
    stuck = SimpleNamespace(cluster=SimpleNamespace(scheduler=SimpleNamespace(
        tasks={"k": SimpleNamespace(state="released")})))
    monkeypatch.setattr(distributed, "futures_of", lambda c: [SimpleNamespace(key="k")])
    t0 = time.perf_counter()
    assert dask_batching.taken_up(stuck, object(), timeout=0.02) is False
    assert 0.02 <= time.perf_counter() - t0 < 1
    stuck.cluster.scheduler.tasks["k"].state = "processing"
    assert dask_batching.taken_up(stuck, object(), timeout=0.02) is True
