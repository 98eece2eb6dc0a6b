"""Shorter message batching windows on the local cluster the dask demo starts itself,
and a wait for its scheduler to take up the first stage's tasks.

``distributed`` batches the messages of its long-lived streams (``BatchedSend``): the
client's stream to the scheduler sends at most once every 10 ms, the scheduler's to a
worker every 5 ms, a worker's to the scheduler and the scheduler's to a client every
2 ms. A message that comes within a window of the stream's last send waits for the
window's end. The windows are fixed in distributed's source (no config key, as of
distributed 2026.7). They cost little on a busy cluster of many small tasks, which is
what they are for; the demo's stages are a few large tasks a chunk, one after another,
where they are most of a stage's fixed cost: a task whose input another task computes
waits for the worker's and the scheduler's windows (up to 7 ms), and a graph the client
submits right after it released the last stage's keys waits for the client's (up to
10 ms).

On the 2-core development machine (2026-12-06, the demo's five timed stages of 2**14
points in NumPy chunks, three processes each way): one worker, one chunk 84-87 ms with
distributed's windows and 45-63 ms with 0.5 ms ones; two workers, eight chunks 245-255
and 179-191 ms (docs/performance.md, "distributed's batching windows").

:func:`shorten` sets every window to :data:`WINDOW` on a cluster the demo made (its
scheduler, workers and client are the demo's alone). A cluster given by ``--scheduler``
is left as it is: other clients share its scheduler.
"""

from __future__ import annotations

__all__ = ["WINDOW", "shorten", "windows", "taken_up"]

#: Seconds a batched stream of the demo's own cluster waits between sends.
WINDOW = 0.0005


def _set(stream, window: float) -> None:
    """Shorten ``stream``'s window where it has one (a stream of another distributed
    version, or none, is left as it is: the demo runs either way, only slower)."""
    if stream is not None and hasattr(stream, "interval"):
        stream.interval = window


def _on_scheduler(dask_scheduler=None, window: float = WINDOW) -> None:
    for streams in ("stream_comms", "client_comms"):   # to each worker, to each client
        for stream in list(getattr(dask_scheduler, streams, {}).values()):
            _set(stream, window)


def _on_worker(dask_worker=None, window: float = WINDOW) -> None:
    _set(getattr(dask_worker, "batched_stream", None), window)   # to the scheduler


def shorten(client, window: float = WINDOW) -> None:
    """Set the batching window of every stream between ``client``, its scheduler and
    the scheduler's workers (those there now) to ``window`` seconds."""
    _set(getattr(client, "scheduler_comm", None), window)
    client.run_on_scheduler(_on_scheduler, window=window)
    client.run(_on_worker, window=window)


def _scheduler_windows(dask_scheduler=None) -> dict:
    return {"to workers": sorted({s.interval for s in dask_scheduler.stream_comms.values()}),
            "to clients": sorted({s.interval for s in dask_scheduler.client_comms.values()})}


def _worker_window(dask_worker=None) -> float:
    return dask_worker.batched_stream.interval


def windows(client) -> dict:
    """The batching windows (seconds) of ``client``'s streams and its cluster's: what
    :func:`shorten` sets (its tests read them)."""
    out = {"client": client.scheduler_comm.interval}
    out.update(client.run_on_scheduler(_scheduler_windows))
    out["workers"] = sorted(set(client.run(_worker_window).values()))
    return out


#: The longest wait of :func:`taken_up` (seconds): past it the client goes on.
TAKE_UP_WAIT = 0.05
#: Seconds between :func:`taken_up`'s looks at the scheduler (a sleep: it lets go of
#: the GIL, which the scheduler's thread needs).
_LOOK_EVERY = 0.0002


def taken_up(client, collection, timeout: float = TAKE_UP_WAIT) -> bool:
    """Wait until a scheduler running in this process has taken up the tasks of the
    persisted ``collection`` (each task known to it and past ``released``: queued,
    processing or done), at most ``timeout`` seconds; whether it has. A scheduler
    elsewhere (``--scheduler``) or dask's threads: nothing to wait for (True).

    A local cluster's scheduler runs on a thread of this process, which the client's
    Python holds the GIL from while it builds the next stages' graphs: on the H100 host
    the scheduler took up the positions' graph 11-14 ms after their submission, when
    the client had built the keys', sort's and occupancy's graphs, and the first task
    started then (2026-12-07, docs/performance.md). Waiting for it here lets the worker
    start while the client builds the rest."""
    import time

    from distributed import futures_of

    scheduler = getattr(getattr(client, "cluster", None), "scheduler", None)
    tasks = getattr(scheduler, "tasks", None)
    if not isinstance(tasks, dict):
        return True
    keys = [f.key for f in futures_of(collection)]
    deadline = time.perf_counter() + timeout
    while True:
        states = [getattr(tasks.get(k), "state", None) for k in keys]
        if all(s is not None and s != "released" for s in states):
            return True
        if time.perf_counter() > deadline:
            return False
        time.sleep(_LOOK_EVERY)
