"""The ``xstride demo --backend dask`` command and ``benchmarks/dask.py`` on a
``distributed.LocalCluster`` of 2 worker processes (one thread each): the demo's results
equal to the NumPy backend's, on its own cluster or a running scheduler; a scheduler
address that does not answer, and bad option values, refused at once, before any cluster.
The library's functions on the cluster: ``test_dask_cluster.py``.

Reuses ``test_dask_cluster.py``'s module fixture (one cluster per module, always
closed) and its ``xdist_group``, so both modules run on one pytest-xdist worker.
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

from xstride._cli import dask_demo  # noqa: E402
from xstride._cli.dask_demo import NOT_RESULTS  # noqa: E402
from xstride.__main__ import main  # noqa: E402

from tests._dask_logs import without_shutdown_races  # noqa: E402

from .test_dask_cluster import _numpy_after, client  # noqa: E402, F401  (fixtures)

pytestmark = pytest.mark.xdist_group("dask-cluster")


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


def _log_on_worker(text):
    import logging

    logging.getLogger("distributed.worker").error(text)


def test_the_demos_own_cluster_closes_without_its_workers_shutdown_logs(capfd):
    """A run that succeeded printed, one time in ten on 2 cores, a worker's heartbeat
    that found the scheduler closed: an ERROR and a 30-line traceback (a new-user
    probe; dask/distributed#7192). Before the demo closes the local cluster it made, its
    workers' shutdown loggers are quieted (as the race cannot be timed, a record of the
    same logger stands in for it)."""
    with dask_demo.cluster(workers=1) as c:
        c.run(_log_on_worker, "probe-before-the-close")
        dask_demo._quiet_workers(c)
        c.run(_log_on_worker, "probe-at-the-close")
        time.sleep(0.2)
    err = capfd.readouterr().err
    assert "probe-before-the-close" in err and "probe-at-the-close" not in err


def test_the_clusters_line_counts_its_workers_in_words(capsys):
    """The line naming the cluster: "(1 worker)", not "(1 workers)"."""
    assert main(["demo", "--backend", "dask", "--workers", "1", "--n", "2000", "--levels",
                 "4", "--level-stats", "0"]) == 0
    line = [ln for ln in capsys.readouterr().err.splitlines()
            if ln.startswith("dask cluster:")]
    assert len(line) == 1, line
    assert "(1 worker)" in line[0] and "(1 workers)" not in line[0], line


def test_stages_not_waited_for_give_the_same_results_and_end_after_the_last_task(client):
    """``staged=False`` (benchmarks/dask.py's second GPU row) submits the positions, keys
    and sort without waiting: the same results as with every stage waited for, and the
    timed pipeline still ends after the last of its tasks (the occupancy's counts: each
    one's future is finished when the stage ends). (The task stream's times, which this
    compared with the stage's end, are the workers' clocks corrected by a delay that
    distributed estimates from their heartbeats: on a loaded machine tens of
    milliseconds off, and the check failed one run in four.)"""
    class Ends:
        """The wall-clock end of each stage, as the pipeline's progress sees it, and the
        states of the occupancy's counts' futures when its stage ends."""

        def __init__(self):
            self.name, self.at, self.counts = None, {}, None

        def start(self, name):
            self.name = name

        def stop(self):
            self.at[self.name] = time.time()
            if self.name == "cell occupancy":
                self.counts = [state.status for key, state in list(client.futures.items())
                               if "occupancy-counts" in str(key)]

    ends = Ends()
    lean = dask_demo.pipeline("dask", n=3000, chunks=700, levels=5, tree=False,
                              staged=False, progress=ends)
    staged = dask_demo.pipeline("dask", n=3000, chunks=700, levels=5, tree=False)
    assert all(lean["checks"].values())
    assert _comparable(lean) == _comparable(staged)
    names = [s["name"] for s in lean["stages"]]
    assert names == [s["name"] for s in staged["stages"]] == list(ends.at)
    # the timed occupancy stage ends after its last task
    assert ends.counts and set(ends.counts) == {"finished"}, ends.counts


def test_stages_not_waited_for_keep_the_box_on_the_cluster(client, shared_dir,
                                                          monkeypatch):
    """``staged=False``: the bounding box is computed on the cluster, where the Morton
    keys' tasks read it (one graph: the client waits once, at the occupancy), and the
    results are those of the stages waited for, on the bunny in one chunk and in many.
    The client's own box (``bounding_box``, a round trip) is not called: the test fails
    on the code that waited for it."""
    from xstride._cli import dask_tasks

    path = str(shared_dir / "data" / "bunny.ply")
    for chunks in (40000, 5000):
        staged = dask_demo.pipeline("dask", points=path, chunks=chunks, tree=False)
        with monkeypatch.context() as m:
            def no_round_trip(pos):
                raise AssertionError("the client waited for the bounding box")

            m.setattr(dask_tasks, "bounding_box", no_round_trip)
            lean = dask_demo.pipeline("dask", points=path, chunks=chunks, tree=False,
                                      staged=False)
        assert all(lean["checks"].values())
        assert _comparable(lean) == _comparable(staged)


@pytest.mark.parametrize("pts, needle", [
    ([[-1.7e308, 0, 0], [1.7e308, 1, 1]],
     "the points span -1.7e+308 to 1.7e+308 on axis x: the extent overflows float64"),
    ([[0, 0, 0], [1, 1e-320, 1]],
     "the points span only 1e-320 on axis y (0 to 1e-320): too small for 2**10 cells"),
])
def test_stages_not_waited_for_raise_the_box_error_of_the_stages_waited_for(
        client, tmp_path, pts, needle):
    """A box of no usable extent: the box's task on a worker raises the ``DemoError``
    the client raises when it waits for the box, with the same message, which names
    the point file as the NumPy backend's does (it named none)."""
    path = tmp_path / "extent.npy"
    np.save(path, np.array(pts, dtype=np.float64))
    for staged in (True, False):
        with pytest.raises(dask_demo.DemoError) as err:
            dask_demo.pipeline("dask", points=str(path), chunks=1, tree=False, staged=staged)
        assert str(err.value).startswith(f"{path}: {needle}"), (staged, str(err.value))


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


@pytest.mark.parametrize("scheme", ["tcp", "ws", "tls"])
def test_a_scheduler_address_where_nothing_listens_is_refused_at_once(capsys, scheme):
    # the host refuses the connection: no wait for the connect timeout (30 s here),
    # which distributed's Client would spend retrying (ws:// and tls:// waited it out)
    address = f"{scheme}://127.0.0.1:{_free_port()}"
    t0 = time.perf_counter()
    rc = main(["demo", "--backend", "dask", "--scheduler", address, "--connect-timeout", "30",
               "--n", "100"])
    elapsed = time.perf_counter() - t0
    assert rc == 2 and elapsed < 10
    err = capsys.readouterr().err
    assert (f"xstride demo: error: no dask scheduler answers at {address}: nothing listens "
            "there (connection refused)") in err


@pytest.mark.parametrize("address", ["tcp://nonexistent.invalid:8786", "tcp://256.0.0.1:8786",
                                     "ws://nonexistent.invalid:8786"])
def test_a_scheduler_host_without_an_address_is_refused_at_once(capsys, address):
    """A host name the resolver does not know (``.invalid`` is reserved for that, RFC
    2606; ``256.0.0.1`` is no IPv4 address) waited out the whole timeout, then said no
    scheduler answered (a new-user probe)."""
    t0 = time.perf_counter()
    rc = main(["demo", "--backend", "dask", "--scheduler", address, "--connect-timeout", "30",
               "--n", "100"])
    assert rc == 2 and time.perf_counter() - t0 < 10
    err = capsys.readouterr().err
    host = address.split("://")[1].rsplit(":", 1)[0]
    assert (f"xstride demo: error: --scheduler {address}: the host {host!r} has no "
            "address (the resolver: ") in err


@pytest.mark.parametrize("address, said", [
    ("notanaddress", "missing port number"),
    ("tcp://", "missing port number"),
    # was "invalid literal for int() with base 10: 'abc'"
    ("tcp://127.0.0.1:abc", "(its port 'abc' is not a number)"),
    ("127.0.0.1:８７８６", "(its port '８７８６' is not a number)"),
    # an empty host waited out the whole --connect-timeout, then blamed the scheduler
    (":8786", "(it names no host)"),
    ("tcp://:8786", "(it names no host)"),
    ("tcp://[]:8786", "(it names no host)"),
    ("tcp:// :8786", "(it names no host)"),
    # the colons of a bracketed IPv6 host are no port's ("its port '1]' is not a number")
    ("tcp://[::1]", "missing port number in address '[::1]'"),
    # an empty port was still "invalid literal for int() with base 10: ''"
    ("tcp://127.0.0.1:", "(it names no port after its colon)"),
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


def test_a_scheduler_without_workers_is_refused_not_waited_on_for_ever():
    """A scheduler started without ``dask worker``: the demo showed "philox positions ...
    (still running)" and waited for ever. It waits ``--connect-timeout`` seconds for a
    worker, then says so."""
    with distributed.LocalCluster(n_workers=0, processes=True, dashboard_address=":0") as idle:
        address = idle.scheduler_address
        argv = [sys.executable, "-m", "xstride", "demo", "--backend", "dask", "--scheduler",
                address, "--connect-timeout", "1", "--n", "100", "--json"]
        try:
            proc = subprocess.run(argv, capture_output=True, text=True, timeout=45)
        except subprocess.TimeoutExpired:
            pytest.fail("the demo waited for ever on a scheduler without workers")
    assert proc.returncode == 2 and proc.stdout == "", proc.stderr[-2000:]
    assert proc.stderr.strip().splitlines() == [
        f"xstride demo: error: the dask scheduler at {address} has no workers (none came "
        f"within 1 s, --connect-timeout): its tasks would wait for ever; start workers with "
        f"'dask worker {address}'"], proc.stderr[-2000:]


def test_a_failed_connect_prints_one_line_and_no_traceback_at_exit():
    """A ``Client`` whose constructor failed used to close itself when collected at the
    process's exit, wait for its timeout and print a traceback after the error. (A
    ``tls://`` address without TLS settings: the constructor's ``TypeError``; something
    listens there, else the demo says so before any ``Client`` is made.)"""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        address = f"tls://127.0.0.1:{listener.getsockname()[1]}"
        proc = subprocess.run([sys.executable, "-m", "xstride", "demo", "--backend", "dask",
                               "--scheduler", address, "--connect-timeout", "1",
                               "--n", "100"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        proc.stderr.strip().splitlines()[0]], proc.stderr[-2000:]
    assert proc.stderr.startswith(f"xstride demo: error: cannot connect to {address}"), \
        proc.stderr[-2000:]


def test_ctrl_c_at_a_terminal_is_one_line_not_the_workers_tracebacks():
    """Ctrl-C at a terminal goes to every process of the foreground group, the local
    cluster's worker processes too: each printed the traceback of its
    ``KeyboardInterrupt`` around the demo's ``xstride: interrupted``. The workers now
    ignore it; the demo stops and closes its cluster."""
    import os
    import signal

    argv = [sys.executable, "-m", "xstride", "demo", "--backend", "dask", "--workers", "2",
            "--n", "100000", "--chunks", "100"]   # 1000 chunks: far longer than the wait
    # SIGINT as at a terminal in the child (a test run in the background ignores it)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:   # a process group of its own, as a terminal's job, so that all of it is signalled
        proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                text=True, start_new_session=True)
    finally:
        signal.signal(signal.SIGINT, previous)
    try:
        seen = []
        while not any(line.startswith("dask cluster:") for line in seen):
            line = proc.stderr.readline()
            assert line, "".join(seen)[-2000:]
            seen.append(line)
        time.sleep(1.0)   # a stage running on the workers
        os.killpg(proc.pid, signal.SIGINT)
        _, rest = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    err = "".join(seen) + rest
    assert proc.returncode == 130, err[-3000:]
    assert "KeyboardInterrupt" not in err, err[-3000:]
    # (distributed's log of a transfer cut by the close, on a loaded machine: left out)
    kept = without_shutdown_races(err)
    assert "Traceback" not in kept and err.strip().splitlines()[-1] == "xstride: interrupted", \
        err[-3000:]


@pytest.mark.parametrize("reply", [None, b"HTTP/1.1 400 Bad Request\r\n\r\n" * 10, "close"],
                         ids=["silent", "not dask", "closes"])
def test_a_peer_that_accepts_but_is_no_scheduler_is_a_clear_error_within_seconds(capsys,
                                                                                  reply):
    """A peer that accepts the connection and then never answers (the handshake had no
    time limit: the demo hung), answers with something that is not dask's protocol, or
    closes the connection at once (a new-user probe: that was said as no answer
    within the timeout)."""
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
            if reply == "close":   # accepted, then closed at once (a reset)
                conn.close()
                continue
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
    elif reply == "close":
        # (it said "no dask scheduler answers ... within 2 s" at once). A connect the
        # peer cut before it completed is retried by distributed until the timeout (on
        # a loaded machine): then no scheduler answered within it, and that is said
        assert (f"the peer at {address} closed the connection after" in err
                or f"no dask scheduler answers at {address} within 2 s (" in err), err
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
    # past the longest wait of a socket and a thread's join: OverflowError, a traceback
    (["--backend", "dask", "--connect-timeout", "1e300", "--scheduler", "tcp://127.0.0.1:1"],
     f"--connect-timeout 1e+300 is longer than this platform can wait (at most "
     f"{__import__('threading').TIMEOUT_MAX / 4:,.0f} seconds)"),
    # the timeout bounds the wait for --scheduler: with a local cluster it was ignored
    (["--backend", "dask", "--connect-timeout", "3", "--n", "100"],
     "--connect-timeout bounds the wait for --scheduler: it does nothing with the local "
     "cluster; give --scheduler ADDRESS or leave it out"),
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


def test_benchmark_runs_the_worker_counts_the_cores_allow(monkeypatch, capsys):
    """Without ``--workers`` the benchmark runs the counts of 1, 2, 4, 8, 16 this machine
    has cores for and names the others (``python -m xstride bench`` on a 2-core machine
    started 16 worker processes, a run of many minutes measuring the competition)."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "benchmarks" / "dask.py"
    monkeypatch.syspath_prepend(str(path.parent))
    spec = importlib.util.spec_from_file_location("xstride_bench_dask", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    seen = []
    monkeypatch.setattr(bench, "cpu_rows", lambda n, workers, *a: seen.append(workers) or [])
    monkeypatch.setattr(bench, "print_table", lambda *a: None)
    monkeypatch.setattr(bench, "_cores", lambda: 6)
    assert bench.main(["--n", "1000", "--gpu-n", "0"]) == 0
    assert seen == [[1, 2, 4]]
    assert "workers 8, 16 left out: this machine has 6 core(s)" in capsys.readouterr().out
    assert bench.main(["--n", "1000", "--gpu-n", "0", "--workers", "1,16"]) == 0
    assert seen[-1] == [1, 16]


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
    # past float64: a traceback (OverflowError from dask's parse_bytes)
    ("1e999MiB", "'1e999MiB' is a byte size past any finite count of bytes; give rows"),
    # a byte size, yet no byte: was called "neither 'auto' nor a byte size"
    ("0MiB", "'0MiB' is a byte size under one byte; a chunk holds at least one byte; give"),
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


@pytest.mark.parametrize("missing", ["dask", "distributed"])
def test_a_missing_cluster_library_is_named(monkeypatch, missing):
    """Without dask, ``from distributed import ...`` fails on dask, and the demo said
    "the dask demo needs distributed (No module named 'dask')"; it names the missing one."""
    import builtins

    real = builtins.__import__

    def importer(name, *args, **kwargs):
        if name == "distributed":
            raise ModuleNotFoundError(f"No module named {missing!r}", name=missing)
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", importer)
    with pytest.raises(dask_demo.DemoError, match=rf"^the dask demo needs {missing} \(No "
                                                  rf"module named '{missing}'\); pip install "
                                                  r"'xstride\[dask\]'$"):
        with dask_demo.cluster():
            pass


def _chunks_arg_ok(text):
    from xstride._cli.dask_options import _chunks_arg

    return _chunks_arg(text)


@pytest.mark.parametrize("name, message", [
    ("missing.ply", "missing.ply: no such file"),
    ("points.txt", "unknown point-file extension '.txt'"),
    ("folder.ply", "folder.ply: not a regular file (a folder)"),
    ("folder", "folder: not a regular file (a folder)"),   # was: extension '(none)'
])
def test_a_bad_points_path_is_refused_before_any_cluster(name, message, tmp_path, capsys,
                                                         monkeypatch):
    """``demo --backend dask --points missing.ply`` started a local cluster (seconds)
    and then refused the file; the path is checked first, with read_points' words."""
    def no_cluster(*args, **kwargs):
        raise AssertionError("a cluster was started before --points was checked")

    (tmp_path / "points.txt").write_text("0 0 0\n")
    (tmp_path / "folder.ply").mkdir()
    (tmp_path / "folder").mkdir()
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


def test_a_workers_or_nannys_address_is_named_as_no_schedulers():
    """A probe gave ``--scheduler`` a worker's port: "cannot connect to ... (TypeError:
    Worker.identity() got an unexpected keyword argument 'n_workers')"."""
    with distributed.LocalCluster(n_workers=1, processes=True, dashboard_address=":0") as other:
        nanny = list(other.workers.values())[0]
        for address, kind in ((nanny.worker_address, "a dask worker,"),
                              (nanny.address, "a dask worker's nanny or other server,")):
            argv = [sys.executable, "-m", "xstride", "demo", "--backend", "dask",
                    "--scheduler", address, "--connect-timeout", "5", "--n", "100"]
            proc = subprocess.run(argv, capture_output=True, text=True, timeout=60)
            assert proc.returncode == 2 and proc.stdout == "", proc.stderr[-2000:]
            assert proc.stderr.strip().splitlines()[-1] == (
                f"xstride demo: error: --scheduler {address} is the address of {kind} not "
                "of a scheduler: give the address the scheduler prints (its workers print "
                "it as 'Registered to:')")
