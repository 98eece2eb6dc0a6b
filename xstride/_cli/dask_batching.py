"""Shorter message batching windows on the local cluster the dask demo starts itself.

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

__all__ = ["WINDOW", "shorten", "windows"]

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
