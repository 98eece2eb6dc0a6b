"""The environment of the demo's local CPU worker processes: freed memory kept for reuse.

Every task of the dask pipeline allocates its outputs afresh (a chunk of 2**22 points
about 1 GB over its stages). glibc's ``malloc`` maps a block of more than 32 MiB on its
own (``mmap``) and unmaps it when it is freed, and dask's nanny starts each worker with
``MALLOC_TRIM_THRESHOLD_=65536`` (free memory goes back to the system at once), so every
new array is fresh pages, which the kernel zeroes and maps at their first touch. One
process hardly notices; 16 at once do: on a 16-core host,
``Philox(1).uniform((2**22, 3))`` (a new 100 MB array a call) took 13 ms alone and
86 ms a process with 16 running, where copies into memory already touched took 1.65x
longer (docs/performance.md, "The 16-core host after the split change").

:func:`reuse_freed_memory` starts the workers with ``MALLOC_MMAP_MAX_=0`` (no block is
mapped on its own: large ones come from the heap) and ``MALLOC_TRIM_THRESHOLD_=2**40``
(the heap is not given back), so a worker's freed pages serve its next arrays. A worker's
resident memory then stays at its peak, which dask's memory monitor counts as unmanaged
memory: right for the demo's cluster, which runs one pipeline and closes; for a
long-lived cluster of your own, docs/dask.md says how to set them and what they cost.

Source: the GNU C Library manual, "Memory Allocation Tunables" (``glibc.malloc.mmap_max``,
``glibc.malloc.trim_threshold``), and ``mallopt(3)``; distributed's
``distributed.nanny.pre-spawn-environ`` setting.
"""

from __future__ import annotations

import contextlib
import os

__all__ = ["WORKER_ENV", "reuse_freed_memory"]

#: glibc's malloc settings for the demo's local CPU workers (read when a process starts).
WORKER_ENV = {"MALLOC_MMAP_MAX_": "0", "MALLOC_TRIM_THRESHOLD_": str(2**40)}

_SETTING = "distributed.nanny.pre-spawn-environ"


@contextlib.contextmanager
def reuse_freed_memory():
    """Nannies made inside this context start their workers with :data:`WORKER_ENV`
    over distributed's own pre-spawn variables. A nanny takes such a variable from this
    process's ``os.environ`` over its setting, and writes the values it spawns with into
    ``os.environ`` (distributed's way: a second local cluster of one process inherited
    the first one's ``MALLOC_TRIM_THRESHOLD_=65536``), so they are set there too for the
    context; the values this process had are put back on exit, so programs it starts
    later are not affected (a nanny that restarts its worker spawns it from the values it
    read)."""
    import dask

    before = {k: os.environ.get(k) for k in WORKER_ENV}
    merged = {**(dask.config.get(_SETTING, default=None) or {}), **WORKER_ENV}
    try:
        os.environ.update(WORKER_ENV)
        with dask.config.set({_SETTING: merged}):
            yield
    finally:
        for key, value in before.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
