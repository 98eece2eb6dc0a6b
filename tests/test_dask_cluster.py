"""The dask backend on a ``distributed.LocalCluster`` of 2 worker processes (one thread
each): chunk-invariant Philox, Morton keys, the distributed ``sort_by_key`` and the
demo, each equal to the NumPy backend; a scheduler that does not answer.

One cluster per module (always closed); the tests share one pytest-xdist worker
(``xdist_group``, with ``--dist loadgroup`` as ``make test`` runs them).
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time

import numpy as np
import pytest

dask = pytest.importorskip("dask")
distributed = pytest.importorskip("distributed")

import xstride as xp  # noqa: E402
from xstride._cli import dask_demo  # noqa: E402
from xstride._cli.dask_demo import NOT_RESULTS  # noqa: E402
from xstride.__main__ import main  # noqa: E402

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


# --------------------------------------------------------------------- the demo
def _comparable(res):
    return {k: v for k, v in res.items() if k not in NOT_RESULTS}


def test_demo_on_the_bunny_equals_the_numpy_backend(client, shared_dir, capsys):
    path = str(shared_dir / "data" / "bunny.ply")
    assert main(["demo", "--json", "--points", path]) == 0
    ref = json.loads(capsys.readouterr().out)
    got = dask_demo.pipeline("dask", points=path, chunks=5000)
    assert got["backend"] == "dask" and all(got["checks"].values())
    assert _comparable(got) == _comparable(ref)
    from xstride._cli.demo import _table   # the table of the plain demo prints it too

    text = _table(got)
    assert "on dask" in text and "checks                passed" in text and "sort_by_key" in text
    assert [s["name"] for s in got["stages"]] == ["read points", "scatter to workers",
                                                  "bounding box", "morton keys", "sort_by_key",
                                                  "cell occupancy", "reductions", "morton tree"]
    # the tree's rows (from the finest level's runs on dask, from morton_tree on NumPy)
    assert got["tree"] == ref["tree"] and len(got["tree"]) == 11


def test_demo_command_line_starts_and_stops_its_own_cluster(capsys, monkeypatch):
    made = []

    class Recorded(distributed.LocalCluster):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            made.append(self)

    monkeypatch.setattr(distributed, "LocalCluster", Recorded)
    common = ["--n", "2000", "--levels", "4", "--level-stats", "0", "--json"]  # one cell
    assert main(["demo", "--backend", "dask", "--workers", "1", "--chunks", "600", *common]) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["backend"] == "dask" and res["points"] == 2000 and all(res["checks"].values())
    assert main(["demo", *common]) == 0
    assert _comparable(res) == _comparable(json.loads(capsys.readouterr().out))
    assert res["occupancy"] == {"min": 2000, "max": 2000, "mean": 2000.0}
    assert len(made) == 1 and len(made[0].workers) == 0 and made[0].status.name == "closed"


def test_demo_on_a_running_scheduler_equals_the_numpy_backend(client, capsys):
    """``--scheduler ADDRESS``: the demo's client of a running cluster is current while
    the demo runs (its work runs on that cluster's workers) and closed after."""
    common = ["--n", "3000", "--levels", "5", "--level-stats", "0", "--json"]
    with distributed.get_task_stream(client) as stream:
        assert main(["demo", "--backend", "dask", "--scheduler", client.scheduler.address,
                     "--chunks", "700", *common]) == 0
    res = json.loads(capsys.readouterr().out)
    assert main(["demo", *common]) == 0
    assert _comparable(res) == _comparable(json.loads(capsys.readouterr().out))
    assert res["backend"] == "dask" and all(res["checks"].values())
    # the cluster's workers ran the demo's tasks, both of them
    assert len({t["worker"] for t in stream.data}) == 2
    assert distributed.Client.current() is client
    # the demo's client is the default in every thread while it is open (a pipeline
    # run from a thread pool goes to the cluster too), and gone after
    from concurrent.futures import ThreadPoolExecutor

    import dask.array as da
    from distributed.client import _get_global_client

    def in_a_thread():   # a fresh thread: no client of this test's context
        return _get_global_client(), int(da.arange(100, chunks=10).sum().compute())

    with dask_demo.cluster(scheduler=client.scheduler.address) as mine:
        with distributed.get_task_stream(mine) as stream, ThreadPoolExecutor(1) as pool:
            assert pool.submit(in_a_thread).result(timeout=60) == (mine, 4950)
        assert len(stream.data) >= 10
    assert mine.status == "closed"
    with ThreadPoolExecutor(1) as pool:
        assert pool.submit(in_a_thread).result(timeout=60)[0] is not mine


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_scheduler_address_where_nothing_listens_is_refused_at_once(capsys):
    # the host refuses the connection: no wait for the connect timeout (30 s here),
    # which distributed's Client would spend retrying
    address = f"tcp://127.0.0.1:{_free_port()}"
    t0 = time.perf_counter()
    rc = main(["demo", "--backend", "dask", "--scheduler", address, "--connect-timeout", "30",
               "--n", "100"])
    elapsed = time.perf_counter() - t0
    assert rc == 2 and elapsed < 10
    err = capsys.readouterr().err
    assert (f"xstride demo: error: no dask scheduler answers at {address}: nothing listens "
            "there (connection refused)") in err


@pytest.mark.parametrize("address, said", [
    ("notanaddress", "missing port number"),
    ("tcp://", "missing port number"),
    ("tcp://127.0.0.1:abc", "invalid literal"),
    ("tcp://127.0.0.1:99999", "port 99999 is outside 1..65535"),
    ("inproc://x", "reachable only inside the process"),
    ("foo://bar", "unknown address scheme 'foo'"),
])
def test_a_malformed_scheduler_address_is_refused_before_any_connect(capsys, address, said):
    """No client is made for an address no scheduler can have: the error names it at
    once (it used to wait out the timeout and blame the peer's protocol)."""
    t0 = time.perf_counter()
    rc = main(["demo", "--backend", "dask", "--scheduler", address, "--connect-timeout", "30",
               "--n", "100"])
    assert rc == 2 and time.perf_counter() - t0 < 5
    err = capsys.readouterr().err
    assert f"xstride demo: error: --scheduler {address!r} is not a scheduler's address" in err
    assert said in err


def test_a_failed_connect_prints_one_line_and_no_traceback_at_exit():
    """A ``Client`` whose constructor failed used to close itself when collected at the
    process's exit, wait for its timeout and print a traceback after the error."""
    proc = subprocess.run([sys.executable, "-m", "xstride", "demo", "--backend", "dask",
                           "--scheduler", "tls://127.0.0.1:1", "--connect-timeout", "1",
                           "--n", "100"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        proc.stderr.strip().splitlines()[0]], proc.stderr[-2000:]
    assert proc.stderr.startswith("xstride demo: error: cannot connect to tls://127.0.0.1:1")


@pytest.mark.parametrize("reply", [None, b"HTTP/1.1 400 Bad Request\r\n\r\n" * 10],
                         ids=["silent", "not dask"])
def test_a_peer_that_accepts_but_is_no_scheduler_is_a_clear_error_within_seconds(capsys,
                                                                                  reply):
    """A peer that accepts the connection and then never answers (the handshake had no
    time limit: the demo hung), or answers with something that is not dask's protocol."""
    import threading

    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    held = []

    def accept():   # every connection, as a real peer would (the demo probes first)
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            held.append(conn)
            if reply is not None:
                conn.sendall(reply)

    threading.Thread(target=accept, daemon=True).start()
    address = f"tcp://127.0.0.1:{server.getsockname()[1]}"
    from distributed.client import _get_global_client

    default = (_get_global_client(), dask.config.get("scheduler", None))  # the module's
    try:
        t0 = time.perf_counter()
        rc = main(["demo", "--backend", "dask", "--scheduler", address, "--connect-timeout",
                   "2", "--n", "100"])
        elapsed = time.perf_counter() - t0
    finally:
        server.close()
        for c in held:
            c.close()
    assert rc == 2 and elapsed < 10
    err = capsys.readouterr().err
    if reply is None:
        assert f"no dask scheduler answers at {address} within 2 s (the connection" in err
    else:
        assert f"the peer at {address} does not speak dask's protocol" in err
    # the client left behind (still in its handshake) is no one's default: a later
    # compute in this process does not wait on it for ever
    import dask.array as da

    assert (_get_global_client(), dask.config.get("scheduler", None)) == default
    assert dask.compute(da.arange(10).sum()) == (45,)


@pytest.mark.parametrize("argv, message", [
    (["--backend", "numpy", "--workers", "2"], "--workers applies only to --backend dask"),
    (["--backend", "numpy", "--chunks", "10", "--scheduler", "tcp://x:1"],
     "--scheduler, --chunks apply only to --backend dask; got --backend numpy"),
    (["--backend", "dask", "--workers", "0"], "--workers must be at least 1; got 0"),
    # each worker a process: a count past a few per CPU is refused before any starts
    (["--backend", "dask", "--workers", "100000", "--n", "100"],
     "--workers 100000 is more than 4 worker processes per CPU"),
    (["--backend", "dask", "--scheduler", "tcp://127.0.0.1:1", "--workers", "2"],
     "--workers sizes a local cluster"),
    (["--backend", "dask", "--connect-timeout", "0", "--scheduler", "tcp://127.0.0.1:1"],
     "--connect-timeout must be positive"),
    # inf passed the check and reached dask's time parser: a KeyError about time units
    (["--backend", "dask", "--connect-timeout", "inf", "--scheduler", "tcp://127.0.0.1:1"],
     "--connect-timeout must be positive and finite; got inf"),
    (["--backend", "dask", "--voxel", "0.1", "--plot", "x.png"],
     "--voxel, --plot need the points in one memory: use --backend numpy or cupy"),
    (["--backend", "dask", "--out", "x.ply"], "--out needs the points in one memory"),
])
def test_bad_demo_options(argv, message, capsys):
    assert main(["demo", *argv]) == 2
    assert message in capsys.readouterr().err


def test_bad_chunk_options_of_the_demo(client, capsys, tmp_path):
    with pytest.raises(dask_demo.DemoError, match="argument 'chunks' must hold positive"):
        dask_demo.pipeline("dask", n=10, chunks=0)
    with pytest.raises(SystemExit):
        main(["demo", "--backend", "dask", "--chunk-backend", "torch"])
    assert "invalid choice: 'torch'" in capsys.readouterr().err
    # more chunks of rows than the sort should cut into (P * P piece tasks): refused
    # before any task runs, with the chunk size that keeps to the limit (500 chunks of
    # one point took a minute on 2 cores; 5000 ran for hours)
    limit = dask_demo._MAX_SORT_CHUNKS
    with pytest.raises(dask_demo.DemoError, match=rf"--chunks gives {limit + 1:,} chunks of "
                                                  rf"rows .* use --chunks of at least 2 rows"):
        dask_demo.pipeline("dask", n=limit + 1, chunks=1)
    path = tmp_path / "points.xyz"
    np.savetxt(path, np.random.default_rng(0).random((6000, 3)))
    with pytest.raises(dask_demo.DemoError, match="--chunks gives 3,000 chunks of rows for 6,000"):
        dask_demo.pipeline("dask", points=path, chunks=2)


def test_benchmark_runs_at_a_tiny_size():
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    proc = subprocess.run([sys.executable, "benchmarks/dask.py", "--n", "1000",
                           "--workers", "1", "--rows-per-chunk", "500", "--gpu-n", "0",
                           "--no-warm-up"],
                          cwd=root, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("| 1 x 1 thread")]
    assert len(lines) == 1 and "| 1.00 " in lines[0] and "| ok" in lines[0], proc.stdout


def test_benchmark_task_stream_names_the_sort_steps():
    """``--task-stream``: each CPU run's tasks by name, the merges one per partition
    spread over the workers, and the transfers and per-worker compute."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    proc = subprocess.run([sys.executable, "benchmarks/dask.py", "--n", "4000",
                           "--workers", "2", "--rows-per-chunk", "500", "--gpu-n", "0",
                           "--no-warm-up", "--task-stream"],
                          cwd=root, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    merge = [ln for ln in proc.stdout.splitlines() if ln.startswith("| sample-sort-merge ")]
    assert len(merge) == 1, proc.stdout
    cells = [c.strip() for c in merge[0].strip("|").split("|")]
    # 8 chunks of 500 rows on two workers: a partition a worker (sample_sort._output_parts)
    assert cells[1] == "2" and cells[-1] == "1 1", merge[0]
    assert "transfers: " in proc.stdout and "compute per worker: min" in proc.stdout


@pytest.mark.parametrize("where", ["root", "benchmarks"])
def test_benchmark_named_dask_py_does_not_shadow_the_dask_package(where):
    """``python benchmarks/dask.py --help`` from the repository root or from its own
    folder: the script's folder is ``sys.path[0]``, yet ``import dask`` inside it finds
    the package (the script moves its folder last before importing anything)."""
    import subprocess
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    cwd = root if where == "root" else root / "benchmarks"
    script = root / "benchmarks" / "dask.py"
    proc = subprocess.run([sys.executable, str(script), "--help"], cwd=cwd,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "--rows-per-chunk" in proc.stdout and "--gpu-n" in proc.stdout
    # as `python benchmarks/dask.py` starts: the script's folder is sys.path[0]
    probe = ("import os, runpy, sys; sys.argv = [sys.argv[1], '--help']\n"
             "sys.path[0] = os.path.dirname(sys.argv[0])\n"
             "try:\n    runpy.run_path(sys.argv[0], run_name='__main__')\n"
             "except SystemExit:\n    pass\n"
             "import dask, dask.array; print('DASK', dask.__file__)")
    proc = subprocess.run([sys.executable, "-c", probe, str(script)], cwd=cwd,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    found = [ln for ln in proc.stdout.splitlines() if ln.startswith("DASK ")]
    assert found and "benchmarks" not in found[0], found


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


def test_chunks_without_a_unit_count_rows(capsys):
    from xstride._cli.dask_options import _chunks_arg

    assert _chunks_arg("600") == 600 and _chunks_arg("1e3") == 1000
    assert _chunks_arg("auto") == "auto" and _chunks_arg("64MiB") == "64MiB"
    for text in ("1.5", "2.5e0"):
        with pytest.raises(SystemExit):
            main(["demo", "--backend", "dask", "--chunks", text])
        assert f"{text!r} is not a whole number of rows" in capsys.readouterr().err


@pytest.mark.parametrize("text, message", [
    ("abc", "'abc' is neither 'auto' nor a byte size with its unit"),
    ("64 parsecs", "'64 parsecs' is neither 'auto' nor a byte size with its unit"),
    ("0", "'0' is not a positive number of rows (or -1: one chunk)"),
    ("-5", "'-5' is not a positive number of rows"),
    ("0e3", "'0e3' is not a positive number of rows"),
    # past int64: a traceback from dask's arange ("ufunc 'isnan' not supported")
    ("99999999999999999999999", "'99999999999999999999999' rows is more than a chunk holds"),
    ("1e30", "'1e30' rows is more than a chunk holds (2**63-1 rows)"),
    ("", "'' is neither 'auto' nor a byte size with its unit"),   # was 1 byte a chunk
])
def test_a_bad_chunks_value_is_the_parsers_error_before_any_cluster(text, message, capsys,
                                                                      monkeypatch):
    """A new-user probe: ``demo --backend dask --chunks abc`` started a local cluster,
    then failed naming ``use_backend: argument 'chunks'``; now the parser refuses it,
    naming ``--chunks``, and no cluster is made."""
    def no_cluster(*args, **kwargs):
        raise AssertionError("a cluster was started before --chunks was checked")

    monkeypatch.setattr(dask_demo, "cluster", no_cluster)
    with pytest.raises(SystemExit) as info:
        main(["demo", "--backend", "dask", "--chunks", text])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert f"error: argument --chunks: {message}" in err, err
    assert "use_backend" not in err and "Traceback" not in err
    assert _chunks_arg_ok("-1") == -1 and _chunks_arg_ok("1KiB") == "1KiB"


def _chunks_arg_ok(text):
    from xstride._cli.dask_options import _chunks_arg

    return _chunks_arg(text)


@pytest.mark.parametrize("name, message", [
    ("missing.ply", "missing.ply: no such file"),
    ("points.txt", "unknown point-file extension '.txt'"),
    ("folder.ply", "folder.ply: not a regular file"),
])
def test_a_bad_points_path_is_refused_before_any_cluster(name, message, tmp_path, capsys,
                                                         monkeypatch):
    """``demo --backend dask --points missing.ply`` started a local cluster (seconds)
    and then refused the file; the path is checked first, with read_points' words."""
    def no_cluster(*args, **kwargs):
        raise AssertionError("a cluster was started before --points was checked")

    (tmp_path / "points.txt").write_text("0 0 0\n")
    (tmp_path / "folder.ply").mkdir()
    monkeypatch.setattr(dask_demo, "cluster", no_cluster)
    assert main(["demo", "--backend", "dask", "--points", str(tmp_path / name)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("xstride demo: error: ") and message in err, err
    assert "Traceback" not in err


@pytest.mark.parametrize("argv, message", [
    (["--seed", "-1"], "--seed must be in 0..2**64-1; got -1"),
    (["--n", "0", "--points", "p.npy"], "--n must be a number of points in 1.."),
    (["--levels", "22"], "--levels must be in 1..21 for 3-D points; got 22"),
    (["--level-stats", "11"], "--level-stats must be in 0..10"),
    (["--n", "5000", "--chunks", "1"], "--chunks gives 5,000 chunks of rows"),
])
def test_bad_option_values_are_refused_before_any_cluster(argv, message, tmp_path, capsys,
                                                          monkeypatch):
    """``demo --backend dask --seed -1`` (or ``--levels 22``, ...) started a local cluster
    and printed its address before the one-line error; the values are checked first."""
    def no_cluster(*args, **kwargs):
        raise AssertionError("a cluster was started before the option values were checked")

    np.save(tmp_path / "p.npy", np.zeros((4, 3)))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(dask_demo, "cluster", no_cluster)
    assert main(["demo", "--backend", "dask", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("xstride demo: error: ") and message in err and err.count("\n") == 1
