"""The demo pipeline on the dask backend: scaling over CPU worker processes, and CuPy
chunks on one GPU against the CuPy backend.

Run: ``python benchmarks/dask.py`` (``make bench-dask`` on the GPU host, with the wheels
of ``.whl/``; see docs/dask.md). Options: ``--n`` (points, default 2**27),
``--workers`` (default: those of ``1,2,4,8,16`` the machine has cores for, each count left out named), ``--rows-per-chunk`` (default: ``n / 32``, two
chunks per worker at 16 workers: the sort makes ``P * P`` small tasks for ``P`` chunks),
``--task-stream`` (each CPU run's tasks by name: where a stage's time goes), ``--gpu-n`` (default 2**28; ``0`` skips the GPU rows), ``--gpu-rows-per-chunk`` (default
``gpu-n / (2 * GPUs)``: two chunks per GPU worker, as the CPU rows' default has two per
worker at 16 workers; with 8 chunks on one GPU the sort's and occupancy's task costs
doubled the pipeline's time, docs/performance.md), ``--baseline SECONDS`` (1 worker's pipeline time from an earlier run, for a run
whose ``--workers`` lacks 1), ``--no-warm-up``.

The file is named as issue 18 names it, ``dask.py``; run as a script, its folder is
``sys.path[0]`` and ``import dask`` would import this file. The first lines below move
that folder to the end of ``sys.path`` before anything imports dask (``_common`` is
still found there).

Timed: the stages positions -> bounding box -> keys -> sort -> occupancy of
``xstride._cli.dask_demo.pipeline`` (each persists its result on the workers), after a
warm-up on the same cluster (every CPU worker's first calls, then a small run with
chunks for every worker; on the GPU a run at the timed size: kernels compile per
layout); on the GPU the median of five runs (seed 0, whose results are compared with
the CuPy backend's, then four other seeds; the CuPy backend's five of seed 0), each
run's stages printed as it ends, in two rows: every stage waited for (each stage's time
is its own work) and the stages submitted without the waits (``staged=False``: the
client waits only for the bounding box, the sort's partition lengths and the
occupancy, as a dask program that computes once at the end would); not timed:
starting the cluster and the final checks; the demo's Morton tree is left out of the
dask runs (``tree=False``: it gathers a key per occupied finest cell to the client,
longer than the whole pipeline at these sizes). Speedup is against 1 worker, parallel
efficiency is speedup / workers.
"""

from __future__ import annotations

import os
import sys

# before any import of dask: this folder (sys.path[0] when run as a script) goes last,
# so that ``import dask`` finds the package, not this file
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE] + [_HERE]

import argparse  # noqa: E402
import collections  # noqa: E402
import contextlib  # noqa: E402
import time  # noqa: E402

from _common import header, print_table as _print_table  # noqa: E402

from xstride._cli import dask_demo  # noqa: E402
from xstride._cli.dask_demo import NOT_RESULTS  # noqa: E402
from xstride._cli import demo as plain_demo  # noqa: E402

_PIPELINE = ("philox positions", "bounding box", "morton keys", "sort_by_key", "cell occupancy")

#: Timed pipelines a GPU row takes the median of (each of its own seed on dask): on the
#: H100, 2026-12-06, one run in three or four had a stage 80-120 ms longer than its
#: others' (a different stage each time), so a median of three could land on one.
_GPU_RUNS = 5

#: The two ways a GPU row runs the pipeline (``dask_demo.pipeline``'s ``staged``).
_HOW = {True: "stages waited for", False: "stages not waited for"}

#: Added to the seeds of the runs without the waits (seeds of their own).
_UNSTAGED_SEEDS = 100


def print_table(headers, rows) -> None:
    _print_table(headers, [list(r) + [""] * (len(headers) - len(r)) for r in rows])


def _timed(result) -> tuple[float, dict]:
    stages = {s["name"]: s["seconds"] for s in result["stages"]}
    return sum(stages.get(name, 0.0) for name in _PIPELINE), stages


def _warm_worker() -> None:
    """On a worker: the first calls of Philox, Morton keys and the sort (the host C loops
    are compiled or loaded from the cache and checked once per process)."""
    import numpy as np

    import xstride as xp

    pos = xp.rng.philox_uniform(0, np.arange(3, dtype=np.uint64)[None, :],
                                np.arange(4096, dtype=np.uint64)[:, None])
    keys = xp.algorithms.morton_keys(pos, [0.0] * 3, [1.0] * 3, 10)
    xp.algorithms.sort_by_key(keys, pos)


def _task_stream(client):
    from distributed import get_task_stream

    return get_task_stream(client)


def _prefix(key) -> str:
    """A task key's name without its token (``sample-sort-merge-<token>`` ->
    ``sample-sort-merge``)."""
    name = key[0] if isinstance(key, tuple) else key
    name = str(name)
    head, _, tail = name.rpartition("-")
    return head if head and len(tail) >= 16 else name


def task_summary(records, epoch: float) -> tuple[list, dict]:
    """Rows ``[prefix, tasks, compute s, longest s, first start s, last end s, tasks per
    worker]`` in order of first start (times from ``epoch``), and totals: transfers
    (count, seconds summed) and compute seconds per worker (min, median, max)."""
    per = {}
    busy = collections.Counter()
    transfers = [0, 0.0]
    for r in records:
        for ss in r["startstops"]:
            d = ss["stop"] - ss["start"]
            if ss["action"] == "transfer":
                transfers[0] += 1
                transfers[1] += d
            elif ss["action"] == "compute":
                row = per.setdefault(_prefix(r["key"]),
                                     [0, 0.0, 0.0, float("inf"), 0.0, collections.Counter()])
                row[0] += 1
                row[1] += d
                row[2] = max(row[2], d)
                row[3] = min(row[3], ss["start"] - epoch)
                row[4] = max(row[4], ss["stop"] - epoch)
                row[5][r["worker"]] += 1
                busy[r["worker"]] += d
    rows = [[name, v[0], v[1], v[2], v[3], v[4], sorted(v[5].values())]
            for name, v in sorted(per.items(), key=lambda kv: kv[1][3])]
    b = sorted(busy.values()) or [0.0]
    return rows, {"transfers": tuple(transfers), "busy": (b[0], b[len(b) // 2], b[-1])}


def print_task_summary(records, epoch: float, label: str) -> None:
    """The timed pipeline's tasks by name (``--task-stream``): where a stage's time goes
    between compute, transfers and waiting."""
    rows, tot = task_summary(records, epoch)
    print(f"\n  task stream, {label} (seconds from the pipeline's start):")
    print_table(["task", "tasks", "compute s", "longest s", "first start", "last end",
                 "tasks per worker"],
                [[name, str(k), f"{c:.3f}", f"{m:.3f}", f"{a:.3f}", f"{z:.3f}",
                  " ".join(map(str, w)) if len(w) <= 16 else f"{w[0]}..{w[-1]}"]
                 for name, k, c, m, a, z, w in rows])
    n, secs = tot["transfers"]
    lo, mid, hi = tot["busy"]
    print(f"  transfers: {n}, {secs:.3f} s summed; compute per worker: min {lo:.3f} s, "
          f"median {mid:.3f} s, max {hi:.3f} s\n", flush=True)


def cpu_rows(n: int, workers: list[int], rows: int, levels: int, warm_up: bool,
             baseline: float | None, task_stream: bool = False):
    out, base = [], baseline
    for w in workers:
        with dask_demo.cluster(workers=w) as client:
            if warm_up:
                # every worker builds or loads the host C loops and imports what the
                # tasks need (a small run of 4 chunks touched 4 workers of 16: the
                # others did it inside the timed run), then a small run on all of them
                client.run(_warm_worker)
                wn = min(n, max(1 << 16, 2 * w * (1 << 12)))
                dask_demo.pipeline("dask", n=wn, chunks=max(1, wn // (2 * w)), levels=levels,
                                   tree=False)
            stream = _task_stream(client) if task_stream else contextlib.nullcontext()
            t0 = time.perf_counter()
            with stream as ts:
                epoch = time.time()
                res = dask_demo.pipeline("dask", n=n, chunks=rows, levels=levels, tree=False)
            wall = time.perf_counter() - t0
            nworkers = len(client.scheduler_info().get("workers", {}))
            if task_stream:
                print_task_summary(ts.data, epoch, f"{nworkers} workers")
        total, stages = _timed(res)
        if base is None:   # the first row is the reference: its speedup is its workers
            base = total * w
        speedup = base / total
        row = [f"{nworkers} x 1 thread", f"{total:.2f} s", f"{speedup:.2f}",
               f"{speedup / w:.2f}"] + [f"{stages.get(s, 0.0):.2f}" for s in _PIPELINE] \
            + [f"{wall:.1f} s", "ok" if all(res["checks"].values()) else "CHECKS FAILED"]
        out.append(row)
        print("  " + " | ".join(row), flush=True)
    return out


def _gpus() -> int:
    """The GPUs a LocalCUDACluster would start a worker on (1 without a device)."""
    from _common import cupy_or_none

    cupy = cupy_or_none()
    return 1 if cupy is None else max(1, int(cupy.cuda.runtime.getDeviceCount()))


def gpu_rows(n: int, rows: int, levels: int):
    """CuPy backend vs dask with CuPy chunks on a LocalCUDACluster of the host's GPUs."""
    from _common import cupy_or_none

    if cupy_or_none() is None:
        return []
    out = []
    # warm-ups at the timed size: kernels compile per layout, and a small run's chunks
    # have other layouts than the timed run's
    plain_demo.pipeline("cupy", n=n, levels=levels)
    ref = plain_demo.pipeline("cupy", n=n, levels=levels)
    # the runs without the waits take seeds of their own (a graph equal to one whose
    # results the cluster still holds is not computed again): their first is compared
    # with the CuPy backend's of the same seed
    ref_unstaged = plain_demo.pipeline("cupy", n=n, levels=levels, seed=_UNSTAGED_SEEDS)
    t_ref, st_ref = _median_run([ref] + [plain_demo.pipeline("cupy", n=n, levels=levels)
                                         for _ in range(_GPU_RUNS - 1)])
    # the dask worker is another process on the same GPU: give back this one's cache
    cupy_or_none().get_default_memory_pool().free_all_blocks()
    out.append(["CuPy backend", f"{t_ref:.3f} s", "1.00"]
               + [f"{st_ref.get(s, 0.0):.3f}" for s in _PIPELINE] + [""])
    try:
        with dask_demo.cluster(gpu=True):
            # the warm-up on another seed: a repeat of the timed graph right after it
            # found the warm-up's results still held under the same keys (0.19 s
            # against 0.29-0.32 s computed, the positions stage 0.009 s)
            dask_demo.pipeline("dask", n=n, chunks=rows, chunk_backend="cupy", levels=levels,
                               tree=False, seed=1)
            # seed 0 (compared with the CuPy backend's run), then seeds of their own: one
            # reading of a pipeline of a few hundred milliseconds varied by 1.5x; each seed
            # with every stage waited for (each stage's time its own), then submitted
            # without the waits (the client waits only where it needs a result)
            runs = {True: [], False: []}
            for base in (0, *range(2, _GPU_RUNS + 1)):
                for staged in (True, False):
                    seed = base + (0 if staged else _UNSTAGED_SEEDS)
                    runs[staged].append(dask_demo.pipeline(
                        "dask", n=n, chunks=rows, chunk_backend="cupy", levels=levels,
                        tree=False, seed=seed, staged=staged))
                    t_run, st_run = _timed(runs[staged][-1])
                    print(f"  dask, CuPy chunks, seed {seed}, {_HOW[staged]}: {t_run:.3f} s ("
                          + ", ".join(f"{s} {st_run.get(s, 0.0):.3f}" for s in _PIPELINE)
                          + ")", flush=True)
    except dask_demo.DemoError as exc:
        out.append(["dask, CuPy chunks", f"skipped: {exc}"])
        return out
    skip = NOT_RESULTS + ("tree",)   # the dask runs leave the tree out (not timed)
    for staged in (True, False):
        t, st = _median_run(runs[staged])
        spread = sorted(_timed(r)[0] for r in runs[staged])
        want = {k: v for k, v in (ref if staged else ref_unstaged).items() if k not in skip}
        same = {k: v for k, v in runs[staged][0].items() if k not in skip} == want
        out.append([f"dask, CuPy chunks of {rows:,} rows, {_HOW[staged]}", f"{t:.3f} s",
                    f"{t / t_ref:.2f}"]
                   + [f"{st.get(s, 0.0):.3f}" for s in _PIPELINE]
                   + [f"{spread[0]:.3f}-{spread[-1]:.3f} s",
                      "results equal" if same else "RESULTS DIFFER"])
    return out


def _median_run(results) -> tuple[float, dict]:
    """(pipeline seconds, stage seconds) of the run of median pipeline time."""
    timed = sorted((_timed(r) for r in results), key=lambda ts: ts[0])
    return timed[len(timed) // 2]


#: Issue 18's worker process counts.
_WORKERS = (1, 2, 4, 8, 16)


def _cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:   # macOS, Windows
        return os.cpu_count() or 1


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=int(os.environ.get("XSTRIDE_BENCH_DASK_N", 1 << 27)))
    p.add_argument("--workers", default=None,
                   help="worker process counts, comma-separated (default: those of 1, 2, 4, "
                        "8, 16 that this machine has cores for)")
    p.add_argument("--rows-per-chunk", type=int, default=None)
    p.add_argument("--gpu-n", type=int, default=1 << 28)
    p.add_argument("--levels", type=int, default=10)
    p.add_argument("--gpu-rows-per-chunk", type=int, default=None)
    p.add_argument("--no-warm-up", action="store_true", help="skip the warm-up runs")
    p.add_argument("--task-stream", action="store_true",
                   help="after each CPU run, its tasks by name: count, compute time, first "
                        "start and last end, tasks per worker; transfers; compute per worker")
    p.add_argument("--baseline", type=float, default=None, metavar="SECONDS",
                   help="pipeline seconds of 1 worker from an earlier run (speedups of a "
                        "run without 1 in --workers)")
    args = p.parse_args(argv)
    if args.workers is None:   # more processes than cores measure the competition
        cores = _cores()
        workers = [w for w in _WORKERS if w <= cores]
        left = [w for w in _WORKERS if w > cores]
        if left:
            print(f"workers {', '.join(map(str, left))} left out: this machine has {cores} "
                  f"core(s) (--workers {','.join(map(str, _WORKERS))} runs them)")
    else:
        workers = [int(w) for w in args.workers.split(",") if w.strip()]
    rows = args.rows_per_chunk or max(1, args.n // 32)
    print(header(f"dask backend: demo pipeline, {args.n:,} points, {rows:,} rows per chunk"))
    stage_cols = list(_PIPELINE)
    cpu = cpu_rows(args.n, workers, rows, args.levels, not args.no_warm_up,
                   args.baseline, args.task_stream)
    print_table(["workers", "pipeline", "speedup", "efficiency"] + stage_cols
                + ["wall with checks", "checks"], cpu)
    if args.gpu_n:
        grows = args.gpu_rows_per_chunk or max(1, args.gpu_n // (2 * _gpus()))
        gpu = gpu_rows(args.gpu_n, grows, args.levels)
        if gpu:
            print(f"\nGPU: {args.gpu_n:,} points")
            print_table(["run", f"pipeline (median of {_GPU_RUNS})", "vs CuPy backend"]
                        + stage_cols + ["range", "results"], gpu)
    return 0


if __name__ == "__main__":
    sys.exit(main())
