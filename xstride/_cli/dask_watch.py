"""What ends a dask demo whose cluster fails under it: the watch of its workers, and
the errors of a lost scheduler or of tasks that killed their workers, each a
``DemoError`` of one line (exit status 2) instead of a hang or dask's traceback.

- :class:`WorkerWatch`: a thread that looks at the cluster's workers every half
  second. A local cluster the demo made is lost when none of its workers is left (it
  starts no new ones); a ``--scheduler`` cluster when its scheduler has had no worker
  for ``--connect-timeout`` seconds (a worker may come back, or join, within that
  time). Then every future of the client is cancelled, so that the stage waiting on
  the cluster ends (its tasks were queued for workers that would never come, and it
  waited for ever), and ``message`` is the demo's error.
- :func:`failure`: the ``DemoError`` for an exception of the cluster the demo ran on:
  dask's ``KilledWorker`` (a task was running on each of several workers as they
  died: most often a chunk larger than a worker's memory) and a lost connection to the
  scheduler (its futures cancelled, a closed comm).

Imports ``distributed`` only when called.
"""

from __future__ import annotations

import contextlib
import threading
import time

from .demo import DemoError

__all__ = ["WorkerWatch", "failure"]

#: Seconds between the watch's looks at the workers.
PERIOD = 0.5


class WorkerWatch:
    """Watches the workers of the cluster of ``client`` while the demo runs:
    ``local``, the local cluster the demo made (lost when none of its workers is
    left), or None for a ``--scheduler`` cluster at ``scheduler`` (lost when it has
    had no worker for ``grace`` seconds). ``lost`` says whether it was lost."""

    def __init__(self, client, local=None, scheduler: str | None = None,
                 grace: float = 0.0, period: float = PERIOD):
        self._client, self._local, self._period, self._grace = client, local, period, grace
        self.lost = False
        if local is not None:
            self.message = ("the local cluster lost all its workers (dask's log above says "
                            "why) and starts no new ones: the demo cannot finish. On a busy "
                            "machine, fewer chunks of rows (a larger --chunks) make fewer "
                            "tasks")
        else:
            self.message = (f"the dask scheduler at {scheduler} has had no workers for "
                            f"{grace:g} s (--connect-timeout): its tasks would wait for ever "
                            f"(dask's log says why they left); start workers with 'dask "
                            f"worker {scheduler}' and run the demo again")
        self._empty_since = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True,
                                        name="xstride-demo-worker-watch")
        self._thread.start()

    def _none_left(self) -> bool:
        """Whether the cluster has no worker now (a scheduler that does not answer:
        not known here, False; the stage's own wait sees the lost connection)."""
        if self._local is not None:
            from distributed.core import Status

            live = (Status.init, Status.created, Status.starting, Status.running,
                    Status.paused)
            return not any(getattr(w, "status", None) in live
                           for w in list(self._local.workers.values()))
        try:
            info = self._client.scheduler_info(n_workers=0)
        except Exception:   # noqa: BLE001 (a scheduler gone: the stage's wait raises)
            return False
        return info.get("n_workers", len(info.get("workers", ()))) == 0

    def _gone(self) -> bool:
        if not self._none_left():
            self._empty_since = None
            return False
        now = time.monotonic()
        if self._empty_since is None:
            self._empty_since = now
        return now - self._empty_since >= self._grace

    def _watch(self) -> None:
        while not self._stop.wait(self._period):
            if self.lost or self._gone():
                # again each period: a stage may have submitted more since
                self.lost = True
                with contextlib.suppress(Exception):
                    self._client.loop.add_callback(self._cancel_all)

    def _cancel_all(self) -> None:
        """Ends every wait of the client (on its event loop): each of its futures
        cancelled, as the scheduler would cancel them (its waits raise dask's
        ``FutureCancelledError``)."""
        for state in list(self._client.futures.values()):
            state.cancel(reason="the cluster lost all its workers")

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()


def failure(exc: BaseException, scheduler: str | None) -> DemoError | None:
    """The demo's error for ``exc``, raised by a stage on the cluster (``scheduler``: the
    ``--scheduler`` address, None for a local cluster), where the cluster failed under
    it; else None."""
    try:
        from distributed.client import FutureCancelledError, FuturesCancelledError
        from distributed.comm.core import CommClosedError
        from distributed.scheduler import KilledWorker
    except ImportError:
        return None
    where = f"the dask scheduler at {scheduler}" if scheduler else "the local cluster"
    if isinstance(exc, KilledWorker):
        return DemoError(
            f"a task ({_task_name(exc.task)}) was running on each of the workers of "
            f"{where} that died as they ran it (dask's KilledWorker): most often a chunk "
            f"larger than a worker's memory; a smaller --chunks makes smaller tasks")
    if isinstance(exc, (CommClosedError, FutureCancelledError, FuturesCancelledError)):
        return DemoError(f"lost {where} while a stage ran ({type(exc).__name__}: "
                         f"{' '.join(str(exc).split())[:200]}): the demo cannot finish")
    return None


def _task_name(key) -> str:
    """A task key as dask names its tasks: ``'_real_block-1f2e...', 0`` -> ``_real_block``."""
    name = key[0] if isinstance(key, tuple) and key else key
    return str(name).rsplit("-", 1)[0] if isinstance(name, str) else str(name)
