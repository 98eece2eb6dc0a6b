"""How the segment executor (:mod:`.segments`) launches its kernels and reads back what
the host must know.

Every launch is a :class:`._launch.Launch` prepared once per kernel, family, grid,
block, fixed arguments and device, held in a bounded cache (:func:`launch`: device
addresses are :class:`ptr` slots). The checks a pass reduces on the device (a bad
offset, an unsorted key, a count) land in a small record of uint64 entries
(:func:`record`, every byte 0xFF: :data:`NONE` where nothing was written), copied to
pinned host memory behind an event (:func:`read_later`). Nothing here
imports CuPy at import time.
"""

from __future__ import annotations

import threading

import numpy as np

from ._compile import family_function
from ._cupy import cupy as _cupy
from ._launch import Launch, i32, i64, slot64
from ._lru import Bounded

__all__ = ["SOURCE", "THREADS", "MAX_BLOCKS", "NONE", "LAUNCHES", "ptr", "I32", "launch",
           "grid_of", "record", "read_later", "read", "signed", "opt"]

SOURCE = "segments.cu"
THREADS = 256
MAX_BLOCKS = 1 << 20
NONE = (1 << 64) - 1      # a record entry nothing was written to

#: (kernel name, family, grid, block, fixed arguments, device) -> Launch
LAUNCHES = Bounded(256)


class ptr(int):
    """A device address argument (a slot of the prepared launch)."""


class I32(int):
    """A fixed ``int`` argument (every other int is a fixed ``long long``)."""


def launch(name: str, family: tuple, grid: int, block: int, args, file: str = SOURCE) -> None:
    """Launch kernel ``name`` of ``file`` (compiled with the name expressions ``family``)
    with ``args``: :class:`ptr` (device addresses), :class:`I32` or ints (``long
    long``)."""
    fixed, slots = [], []       # one pass (the key's cost is host time of every call)
    for a in args:
        t = type(a)
        if t is ptr:
            fixed.append(None)
            slots.append(int(a))
        else:
            fixed.append(a if t is int else (t.__name__, int(a)))
    key = (name, family, grid, block, tuple(fixed), _cupy().cuda.runtime.getDevice(), file)
    prepared = LAUNCHES.get(key)
    if prepared is None:
        kernel = family_function(name, file=file, family=family)
        params = [slot64() if isinstance(a, ptr) else i32(a) if isinstance(a, I32) else i64(a)
                  for a in args]
        prepared = LAUNCHES.put(key, Launch(kernel, (grid,), (block,), params))
    prepared(*slots)


def grid_of(items: int, per_block: int = THREADS) -> int:
    return max(1, min(MAX_BLOCKS, -(-items // per_block)))


def record(size: int):
    """A uint64 record of ``size`` entries, every byte 0xFF (no fill kernel)."""
    cupy = _cupy()
    rec = cupy.empty(size, dtype=cupy.uint64)
    cupy.cuda.runtime.memsetAsync(rec.data.ptr, 0xFF, 8 * size,
                                  cupy.cuda.get_current_stream().ptr)
    return rec


def signed(v: int) -> int:
    return v - (1 << 64) if v >= 1 << 63 else v


def opt(v: int) -> int:
    return -1 if v == NONE else v


#: the records' pinned host words and their event, one set a thread and device (an
#: event belongs to the device current at its creation), reused by the thread's next
#: read on that device once the last one was waited for (an allocation and an event
#: creation less a call)
PINNED = threading.local()
RECORD_WORDS = 8


def read_later(rec):
    """Queue the copy of ``rec`` (uint64 entries) into pinned host memory on
    the current stream; return a function that waits for that copy alone (an event
    after it, not the kernels queued later) and gives the record's entries."""
    cupy = _cupy()
    size = rec.shape[0]          # uint64 entries
    spares = getattr(PINNED, "spares", None)
    if spares is None:
        spares = PINNED.spares = {}
    where = (id(cupy), cupy.cuda.runtime.getDevice())
    spare = spares.pop(where, None) if size <= RECORD_WORDS else None
    if spare is None or spare[0] is not cupy:   # first read of this thread and device,
        words = max(size, RECORD_WORDS)         # one still pending, or a long record
        mem = cupy.cuda.alloc_pinned_memory(8 * words)
        spare = (cupy, mem, np.frombuffer(mem, dtype=np.uint64, count=words),
                 cupy.cuda.Event(disable_timing=True))
    _, _, host, done = spare
    stream = cupy.cuda.get_current_stream()
    cupy.cuda.runtime.memcpyAsync(host.ctypes.data, rec.data.ptr, 8 * size,
                                  cupy.cuda.runtime.memcpyDeviceToHost, stream.ptr)
    done.record(stream)

    def wait() -> list[int]:
        done.synchronize()
        words = host[:size].tolist()
        spares[where] = spare     # free for this thread's next read on this device
        return words
    return wait


def read(rec) -> list[int]:
    """The record on the host now: :func:`read_later`'s copy, waited for (and so the
    kernels queued before it)."""
    return read_later(rec)()
