"""``python -m xstride demo --backend dask``: the demo's pipeline on a dask cluster.

The same stages and results as :mod:`xstride._cli.demo` (its ``--json`` equals the NumPy
backend's but for ``backend``, the times and the compile record: compiles happen on the
workers and are not recorded here), built from dask graphs: Philox positions
per chunk, the bounding box by dask reductions, Morton keys per chunk, ``sort_by_key``
on dask's shuffle, cell occupancy from the boundaries of the sorted cells. Each stage
persists its result on the workers, so its time is its own work. One check differs in
how, not in what it reports: ``values_follow_keys`` recomputes the keys of the carried
positions per chunk instead of gathering the positions by ``order``.

With no ``--scheduler`` it starts a ``distributed.LocalCluster`` of ``--workers``
processes of one thread each (``dask_cuda.LocalCUDACluster``, one worker per GPU, for
``--chunk-backend cupy``) and shuts it down at the end; with ``--scheduler ADDRESS`` it
uses a running cluster, and a scheduler that does not answer within
``--connect-timeout`` seconds is an error (:mod:`.dask_connect`). See ``docs/dask.md``.
"""

from __future__ import annotations

import contextlib
import json
import logging
import math
import os
import sys
import threading
import time

import numpy as np

from .. import _backends
from . import dask_batching, dask_watch, demo_extras, demo_tree
from .dask_connect import connect as _connect, wait_for_workers as _wait_for_workers
from .dask_options import DEFAULT_TIMEOUT, add_arguments, check_arguments  # noqa: F401
from .dask_watch import WorkerWatch
from .demo import (DEFAULT_N, DemoError, Progress, _check_levels, _file_of, _morton_box, _table,
                   error_line, summary)

__all__ = ["add_arguments", "check_arguments", "run", "pipeline", "cluster", "NOT_RESULTS"]

#: Keys of the demo's JSON that are no results (the backend, times, the compile record):
#: everything else equals between backends.
NOT_RESULTS = ("backend", "stages", "total_seconds", "run_seconds", "compile_seconds",
               "kernels_compiled", "compiles_kernels", "cupy_compiles_recorded")

_MAX_POINTS = 2**40
#: The most row chunks the demo sorts: the distributed sort makes P * Q piece tasks for
#: Q output partitions (up to P: a million at 1024 chunks of 2**22 rows or more; 5000
#: chunks of one point ran for hours before Q was kept small for small chunks), so
#: more are refused with the chunk size that keeps to it.
_MAX_SORT_CHUNKS = 1024


# --------------------------------------------------------------------- the cluster
#: The longest ``--connect-timeout``: distributed's client waits up to 4 times its
#: timeout (2 to close), and a wait past ``threading.TIMEOUT_MAX`` (292 years on Linux,
#: 49 days on Windows; a socket's is alike) raises OverflowError.
_MAX_TIMEOUT = threading.TIMEOUT_MAX / 4
#: Most local worker processes (of one thread each) per CPU this process may run on.
_MAX_WORKERS_PER_CPU = 4


def _cpus() -> int:
    """CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):   # not Linux
        return os.cpu_count() or 1


@contextlib.contextmanager
def _workers_ignore_ctrl_c():
    """SIGINT ignored while a local cluster starts its worker processes, which keep that:
    an ignored signal stays ignored across ``exec``, and Python installs its
    ``KeyboardInterrupt`` handler only where SIGINT is not ignored. Ctrl-C at a terminal
    goes to every process of the foreground group, and each worker printed the traceback
    of its ``KeyboardInterrupt`` around the demo's one line ``xstride: interrupted``; now
    this process alone stops, and closes the cluster. A Ctrl-C while the cluster starts
    (about a second) is ignored. Outside the main thread, where no handler can be set,
    or under a handler set outside Python, which could not be put back, nothing changes."""
    import signal

    if threading.current_thread() is not threading.main_thread() or \
            signal.getsignal(signal.SIGINT) is None:   # None: set outside Python
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


@contextlib.contextmanager
def cluster(workers=None, scheduler=None, gpu=False, timeout=DEFAULT_TIMEOUT):
    """A ``distributed.Client`` of a running scheduler, or of a local cluster made here
    (and closed on exit, also on errors).

    Raises
    ------
    DemoError
        ``distributed`` (or ``dask_cuda`` for GPU workers) is missing; the scheduler
        does not answer within ``timeout`` seconds, or has no worker within that time;
        a bad worker count.
    """
    try:
        from distributed import Client, LocalCluster
    except ImportError as exc:   # distributed itself, or dask under it: name the missing one
        missing = (getattr(exc, "name", None) or "distributed").partition(".")[0]
        raise DemoError(f"the dask demo needs {missing} ({exc}); pip install "
                        "'xstride[dask]'") from None
    # the peer-to-peer shuffle logs each shuffle's start and end as warnings
    logging.getLogger("distributed.shuffle._scheduler_plugin").setLevel(logging.ERROR)
    if scheduler is not None:
        if workers is not None:
            raise DemoError("--workers sizes a local cluster; a --scheduler cluster has "
                            "its own workers")
        client = _connect(Client, scheduler, timeout)
        try:
            _wait_for_workers(client, scheduler, timeout)
            with _watched(client, WorkerWatch(client, scheduler=scheduler, grace=timeout),
                          scheduler):
                yield client
        finally:
            client.close()
        return
    if workers is not None and workers < 1:
        raise DemoError(f"--workers must be at least 1; got {workers}")
    if workers is not None and not gpu and workers > _MAX_WORKERS_PER_CPU * _cpus():
        # each worker is a process: tens of thousands of them would take the machine
        raise DemoError(f"--workers {workers} is more than {_MAX_WORKERS_PER_CPU} worker "
                        f"processes per CPU ({_cpus()} CPUs here); for a larger cluster "
                        "start dask's own workers and pass --scheduler (docs/dask.md)")
    if gpu:
        try:
            from dask_cuda import LocalCUDACluster
        except ImportError as exc:
            raise DemoError(f"--chunk-backend cupy needs dask-cuda ({exc}); pip install "
                            "'xstride[dask-cuda]'") from None
        with _workers_ignore_ctrl_c():
            local = LocalCUDACluster(n_workers=workers, threads_per_worker=1,
                                     dashboard_address=":0")
    else:
        with _workers_ignore_ctrl_c():
            local = LocalCluster(n_workers=2 if workers is None else workers,
                                 threads_per_worker=1, processes=True, dashboard_address=":0")
    try:
        client = Client(local)
        dask_batching.shorten(client)   # the cluster is this demo's alone
        watch = WorkerWatch(client, local=local)
        try:
            with _watched(client, watch, None):
                yield client
        finally:
            if not watch.lost:
                _quiet_workers(client)
            client.close()
    finally:
        local.close()


@contextlib.contextmanager
def _watched(client, watch, scheduler):
    """The stages under ``watch`` (:mod:`.dask_watch`): a cluster lost under them, or a
    failure of it (:func:`.dask_watch.failure`), is the demo's one-line error."""
    try:
        yield client
        if watch.lost:   # the stages ended without the cluster (dask's threads)
            raise DemoError(watch.message)
    except DemoError:
        raise
    except BaseException as exc:
        if watch.lost:   # what the closed client raised in the stage that waited
            raise DemoError(watch.message) from None
        known = dask_watch.failure(exc, scheduler)
        if known is not None:
            raise known from None
        raise
    finally:
        watch.stop()


#: Loggers of a local cluster's worker processes quieted before the cluster closes.
_SHUTDOWN_LOGGERS = ("distributed.worker", "distributed.core", "distributed.comm",
                     "distributed.batched")


def _quiet_shutdown_logs() -> None:
    """In a worker process: its shutdown's logs above (a heartbeat in flight when the
    scheduler closes) raised to CRITICAL."""
    for name in _SHUTDOWN_LOGGERS:
        logging.getLogger(name).setLevel(logging.CRITICAL)


def _quiet_workers(client) -> None:
    """Before the demo closes the local cluster it made: its workers' shutdown logs
    quieted. A worker whose heartbeat was in flight as the scheduler closed logged
    ``Failed to communicate with scheduler during heartbeat`` and a 30-line traceback
    of ``CommClosedError`` on a run that succeeded (1 run in 10 on 2 cores, a new-user
    probe). A cluster given by ``--scheduler`` is not the demo's: nothing is changed
    there. Nothing is raised (a cluster that lost its workers cannot answer)."""
    with contextlib.suppress(Exception):
        client.run(_quiet_shutdown_logs)


# --------------------------------------------------------------------- pipeline
def _persist(*arrays, wait: bool = True):
    """Compute ``arrays`` on the cluster and keep them there (the stage's real work);
    with ``wait`` False, return as soon as the graph is submitted (a later stage's tasks
    wait for these on the workers, not in this process). The graph is dask's optimized
    one without its aliases (:func:`_without_aliases`)."""
    import dask

    out = dask.persist(*[_without_aliases(a) for a in dask.optimize(*arrays)],
                       optimize_graph=False)
    if wait:
        _wait(out)
    return out


def _without_aliases(array):
    """``array`` (an optimized dask array) with each alias of its output keys replaced
    by the task it names, under the output key. dask's linear fusion runs a chain
    (the positions' ``arange``, ``astype``, ``[:, None]`` and Philox block) as one task
    under a new name and leaves an alias task under the output key; on a cluster the
    alias is a dependent step of its own (1-2.5 ms: the task's end goes to the
    scheduler, the alias to the worker), for nothing. A named task that something else
    also reads keeps its alias."""
    from dask._task_spec import Alias
    from dask.array import Array
    from dask.core import flatten

    graph = dict(array.__dask_graph__())
    outputs = set(flatten(array.__dask_keys__()))
    read = {}
    for node in graph.values():
        for dep in node.dependencies:
            read[dep] = read.get(dep, 0) + 1
    swapped = False
    for key in outputs:
        node = graph.get(key)
        if (isinstance(node, Alias) and node.target in graph and read.get(node.target) == 1
                and node.target not in outputs):
            graph[key] = graph.pop(node.target).substitute({}, key=key)
            swapped = True
    if not swapped:
        return array
    return Array(graph, array.name, array.chunks, meta=array._meta)


def _held(arrays, wait: bool = True):
    """``arrays``, persisted by the function that made them, waited for with ``wait``."""
    if wait:
        _wait(arrays)
    return arrays


def _wait(collections) -> None:
    """Wait for the tasks of persisted ``collections`` (nothing to wait for without a
    ``distributed`` client: dask's threads computed them in ``persist``); a task that
    failed raises its error here, in the stage that submitted it (``wait`` returns on
    failed futures too: a later stage raised it)."""
    try:
        from distributed import futures_of, wait
    except ImportError:
        return
    futures = futures_of(collections)
    with contextlib.suppress(ValueError):   # no client (threads)
        wait(futures)
    for future in futures:
        if future.status == "error":
            future.result()   # raises the task's error


def _taken_up(collection) -> None:
    """Wait for a scheduler in this process to take up ``collection``'s tasks
    (:func:`dask_batching.taken_up`; no client: nothing to wait for)."""
    with contextlib.suppress(ImportError, ValueError):   # ValueError: no client (threads)
        from distributed import Client

        dask_batching.taken_up(Client.current(), collection)


def _synchronize(name: str) -> None:
    _backends.get(name).synchronize()


def _wait_for_devices(chunk_backend) -> None:
    """Wait for the device work the workers queued (kernels run asynchronously: a task
    can end before its kernels do). Nothing to wait for on host chunks."""
    if not chunk_backend.compiles_kernels:
        return
    try:
        from distributed import Client

        client = Client.current()
    except (ImportError, ValueError):   # no client: dask's threads, in this process
        chunk_backend.synchronize()
        return
    client.run(_synchronize, chunk_backend.name)


def pipeline(backend: str, points=None, n=None, levels: int = 10, level_stats=None,
             seed: int = 0, chunks=None, chunk_backend=None,
             progress: Progress | None = None, *, tree: bool = True,
             staged: bool = True) -> dict:
    """The demo on the dask backend, on the current dask scheduler (a client made by
    :func:`cluster`, or dask's local threads); returns what ``--json`` prints.

    ``tree=False`` leaves out the last stage, the Morton tree (it gathers one key and
    one row per occupied finest cell to the client: about the points' count at the
    demo's levels, longer than the rest of the pipeline); the result then has no
    ``"tree"`` (benchmarks/dask.py times the stages before it).

    ``staged=False`` submits the stages without waiting for their tasks (as a dask
    program that computes once at the end would): the bounding box stays on the cluster,
    where the Morton keys' tasks read it (its numbers come to the client after the
    timed stages, for the result), the keys go in with the sort's graph, and the client
    waits only where it needs a result (the sort's partition lengths where the sort
    has several partitions, the occupancy's chunk summaries on several workers, the
    occupancy's counts at the end) and, after the positions' submission, for a
    scheduler of this process to take them up (:func:`dask_batching.taken_up`). The
    pipeline's time is the stages'
    sum as before, but a stage's own time is no longer its work (benchmarks/dask.py
    times both ways). A box of no usable extent raises the same ``DemoError`` either
    way (from the box's task, when the occupancy is waited for)."""
    import xstride as xp
    from .pointio import PointFileError, read_points

    _check_counts(n, seed)
    with _selection(xp, backend, chunks, chunk_backend):
        return _run(xp, backend, points, n, levels, level_stats, seed, progress,
                    read_points, PointFileError, tree, staged)


def _check_counts(n, seed) -> None:
    """``DemoError`` for a ``--n`` or ``--seed`` out of range."""
    if n is not None and not 1 <= n <= _MAX_POINTS:
        raise DemoError(f"--n must be a number of points in 1..{_MAX_POINTS:,}; got {n}")
    if seed < 0 or seed >= 2**64:
        raise DemoError(f"--seed must be in 0..2**64-1; got {seed}")


def _selection(xp, backend, chunks, chunk_backend):
    """``xp.use_backend(backend)`` with the demo's chunk options, or ``DemoError``."""
    options = {}
    if chunks is not None:
        options["chunks"] = chunks
    if chunk_backend is not None:
        options["chunk_backend"] = chunk_backend
    try:
        return xp.use_backend(backend, **options)
    except (TypeError, ValueError, RuntimeError) as exc:
        raise DemoError(str(exc)) from None


def _check_before_cluster(args) -> None:
    """The checks of ``pipeline`` that need neither the cluster nor the point file:
    ``--n``, ``--seed`` and, for generated points, ``--levels``, ``--level-stats`` and
    the count of chunks the sort would take. A bad value is refused before a cluster
    starts (seconds, and its address on stderr before the one-line error)."""
    import xstride as xp
    from .. import algorithms as alg

    _check_counts(args.n, args.seed)
    if args.points is not None:
        return   # the levels' bounds depend on the file's dimension
    _check_levels(alg, 3, args.levels, args.level_stats)
    try:
        selection = _selection(xp, args.backend, args.chunks, args.chunk_backend)
    except DemoError:
        return   # said by the run (after dask-cuda's check, for --chunk-backend cupy)
    with selection:
        _check_sort_chunks(xp, (DEFAULT_N if args.n is None else args.n, 3))


def _check_sort_chunks(xp, shape) -> None:
    """``DemoError`` where the points of ``shape`` would be cut into more than
    :data:`_MAX_SORT_CHUNKS` chunks of rows (the backend's ``chunks``; found from a lazy
    ``empty`` of that shape, before any task runs)."""
    parts, rows = xp.empty(tuple(shape)).numblocks[0], int(shape[0])
    if parts > _MAX_SORT_CHUNKS:
        raise DemoError(f"--chunks gives {parts:,} chunks of rows for {rows:,} points: the "
                        f"distributed sort would make {parts * parts:,} piece tasks; use "
                        f"--chunks of at least {-(-rows // _MAX_SORT_CHUNKS):,} rows (at most "
                        f"{_MAX_SORT_CHUNKS} chunks; docs/dask.md)")


def _run(xp, backend, points, n, levels, level_stats, seed, progress, read_points,
         PointFileError, with_tree=True, staged=True) -> dict:
    from .. import algorithms as alg
    import dask

    from . import dask_tasks   # imports dask: not at import of this module

    times: list[tuple[str, float]] = []
    chunk_backend = _backends.get(backend).chunk_backend()
    compiles = chunk_backend.compiles_kernels

    def stage(name, fn):
        if progress is not None:
            progress.start(name)
        t0 = time.perf_counter()
        try:
            out = fn()
        except BaseException:
            if progress is not None:
                progress.stop(failed=True)
            raise
        if progress is not None:
            progress.stop()
        times.append((name, time.perf_counter() - t0))
        return out

    # 1. positions
    if points is not None:
        try:
            host = stage("read points", lambda: read_points(points))
        except PointFileError as exc:
            raise DemoError(str(exc)) from None
        if n is not None:
            host = host[:n]
        _check_sort_chunks(xp, host.shape)
        pos, = stage("scatter to workers", lambda: _persist(xp.asarray(host)))
        source = demo_extras.shown_path(points)
    else:
        _check_levels(alg, 3, levels, level_stats)
        count = DEFAULT_N if n is None else n
        _check_sort_chunks(xp, (count, 3))

        def generate():
            counters = xp.arange(count, dtype=xp.uint64)[:, None]
            streams = np.arange(3, dtype=np.uint64)[None, :]
            held, = _persist(xp.rng.philox_uniform(seed, xp.asarray(streams), counters),
                             wait=staged)
            if not staged:   # the first tasks start before the client builds the rest
                _taken_up(held)
            return held

        pos = stage("philox positions", generate)
        source = f"philox(seed={seed}), unit cube"
    npts, ndim = (int(s) for s in pos.shape)
    k_level = _check_levels(alg, ndim, levels, level_stats)

    # 2. bounding box: one min/max task per block, the 2 * P rows reduced here; 3. keys
    if staged:
        lower, upper = stage("bounding box", lambda: dask_tasks.bounding_box(pos))
        box_lower, box_upper = _morton_box(lower, upper, levels, _file_of(points))
        keys, = stage("morton keys", lambda: _persist(
            alg.morton_keys(pos, box_lower.tolist(), box_upper.tolist(), levels)))
    else:   # the box stays on the cluster, and the keys go in with the sort's graph
        box = stage("bounding box", lambda: dask.persist(
            dask_tasks.box_in_graph(pos, levels, _file_of(points)),
            optimize_graph=False)[0])
        keys = stage("morton keys", lambda: _backends.of_array(pos).executor(
            "morton").keys_in_box(pos, box, levels))
    # 4. sort (positions carried along)
    # (persisted by sort_by_key, which returns once its splits end: waited for here,
    # not persisted again: a second submission of the held columns cost the client and
    # the scheduler a millisecond or two each on a cluster of one worker)
    sorted_keys, order, sorted_pos = stage("sort_by_key", lambda: _held(
        alg.sort_by_key(keys, pos), wait=staged))

    # 5. occupancy: run lengths of the level-k cells in key order (per chunk, with the
    # cell before each chunk and the first start after it carried by tiny tasks)
    def occupancy():
        out = dask_tasks.occupancy(sorted_keys, ndim * (levels - k_level))
        # the timed pipeline ends here: its last tasks, then their kernels count (earlier
        # stages' kernels end before a later stage's read their results back; the
        # workers' synchronize alone could run before the counts' tasks had started).
        # In one chunk or one memory the occupancy's last task waited for the device.
        _wait([out])
        if not dask_tasks.synchronized(sorted_keys):
            _wait_for_devices(chunk_backend)
        return out

    counts = stage("cell occupancy", occupancy)
    if not staged:   # the box the keys' tasks read (held on the cluster): its numbers
        lower, upper = box.compute()[2:]
        box_lower, box_upper = _morton_box(lower, upper, levels, _file_of(points))

    # 6. reductions and checks, computed together
    def reduce():
        parts = [dask_tasks.length(counts), xp.min(counts), xp.max(counts), xp.sum(counts),
                 dask_tasks.sorted_across(sorted_keys),
                 # the carried positions have the sorted keys (per chunk; a gather of
                 # pos by order would move every row across the cluster once more)
                 xp.all(alg.morton_keys(sorted_pos, box_lower.tolist(), box_upper.tolist(),
                                        levels) == sorted_keys)]
        occupied, lo, hi, total, ok_sorted, carried = dask.compute(*parts)
        return {"occupied": int(occupied), "min": int(lo), "max": int(hi),
                "total": int(total), "sorted": bool(ok_sorted), "carried": bool(carried)}

    red = stage("reductions", reduce)

    # 7. the tree: the runs of the finest level, gathered (one key and one row per
    # occupied finest cell), the coarser levels from them on the host
    def tree():
        starts, heads = dask_tasks.runs(sorted_keys)
        rows_h, keys_h = (np.asarray(xp.to_numpy(a)) for a in dask.compute(starts, heads))
        counts = np.diff(np.append(rows_h, npts))
        return demo_tree.tree_rows_from_runs(keys_h, counts, ndim, levels, npts)

    rows = stage("morton tree", tree) if with_tree else None
    out = {
        **summary(backend, source, npts, ndim, levels, k_level, red, lower, upper, rows),
        # compiles happen on the workers, where this process does not record them: all of
        # a stage's time counts as run time
        "stages": [{"name": name, "seconds": t, "run_seconds": t, "compile_seconds": 0.0,
                    "kernels_compiled": 0} for name, t in times],
        "total_seconds": sum(t for _, t in times),
        "run_seconds": sum(t for _, t in times),
        "compile_seconds": 0.0,
        "kernels_compiled": 0,
        "compiles_kernels": bool(compiles),
        "cupy_compiles_recorded": False,
    }
    if not with_tree:
        del out["tree"]
    return out


# --------------------------------------------------------------------- entry point
def _dashboard(client) -> str:
    """``, dashboard LINK`` when the scheduler serves dask's dashboard (bokeh installed)."""
    try:
        import bokeh  # noqa: F401  (the dashboard's plots need it)

        return f", dashboard {client.dashboard_link}"
    except Exception:  # no bokeh, or a scheduler without an HTTP server
        return ""



def run(args) -> int:
    """``python -m xstride demo --backend dask ...``; returns the exit status."""
    progress = Progress()
    be = _backends.get(args.backend)
    chunk_backend = args.chunk_backend or be.chunk_backends[0]
    gpu = _backends.get(chunk_backend).compiles_kernels
    timeout = DEFAULT_TIMEOUT if args.connect_timeout is None else args.connect_timeout
    try:
        if args.connect_timeout is not None and not 0 < args.connect_timeout < math.inf:
            raise DemoError("--connect-timeout must be positive and finite; got "
                            f"{args.connect_timeout}")
        if args.connect_timeout is not None and args.connect_timeout > _MAX_TIMEOUT:
            # the socket's timeout and the thread's join raised OverflowError: a traceback
            raise DemoError(f"--connect-timeout {args.connect_timeout:g} is longer than this "
                            f"platform can wait (at most {_MAX_TIMEOUT:,.0f} seconds)")
        if args.points is not None:   # before a cluster is started, not after
            from .pointio import PointFileError, check_path
            try:
                check_path(args.points)
            except PointFileError as exc:
                raise DemoError(str(exc)) from None
        _check_before_cluster(args)
        with cluster(args.workers, args.scheduler, gpu, timeout) as client:
            if not args.json:
                count = len(client.scheduler_info().get('workers', {}))
                print(f"dask cluster: {client.scheduler.address} "
                      f"({count} worker{'' if count == 1 else 's'}){_dashboard(client)}",
                      file=sys.stderr, flush=True)
            result = pipeline(args.backend, points=args.points, n=args.n, levels=args.levels,
                              level_stats=args.level_stats, seed=args.seed, chunks=args.chunks,
                              chunk_backend=args.chunk_backend, progress=progress)
    except DemoError as exc:
        print(error_line(exc), file=sys.stderr)
        return 2
    except MemoryError as exc:
        print(error_line(f"not enough memory ({' '.join(str(exc).split())})"), file=sys.stderr)
        return 2
    # a reader that left (`... | head`): BrokenPipeError, status 141 in xstride.__main__
    print(json.dumps(result, indent=2) if args.json else _table(result), flush=True)
    return 0 if all(result["checks"].values()) else 1

