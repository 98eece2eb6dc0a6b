"""Timing of one step of a command-line run, with its kernel compiles apart.

Used by ``demo`` (each stage) and ``info --kernels`` (each step of its workload). A
step's time is wall time between two synchronisations of the backend (on CuPy: the
current stream), so it holds all the device work the step queued and nothing of the
steps before; the compiles recorded during the step (``xstride.cuda.compile_stats``)
are reported apart.
"""

from __future__ import annotations

import time
from typing import NamedTuple

__all__ = ["StepTime", "timed_step", "watch_compiles"]


class StepTime(NamedTuple):
    """Times of one step, in seconds.

    Attributes
    ----------
    seconds : float
        Wall time from a synchronised start to a synchronised end (compiles included).
    compile_seconds : float
        Part of ``seconds`` during which a kernel compile recorded in the step ran (the
        compile record's wall time: compiles side by side count once).
    kernels : int
        Kernels compiled during the step.
    """

    seconds: float
    compile_seconds: float
    kernels: int

    @property
    def run_seconds(self) -> float:
        """``seconds`` less ``compile_seconds`` (never negative)."""
        return max(0.0, self.seconds - self.compile_seconds)

    def as_dict(self) -> dict:
        """``seconds``, ``run_seconds``, ``compile_seconds`` and ``kernels_compiled``."""
        return {"seconds": self.seconds, "run_seconds": self.run_seconds,
                "compile_seconds": self.compile_seconds, "kernels_compiled": self.kernels}


def _stats() -> tuple[int, float]:
    import xstride as xp

    s = xp.cuda.compile_stats()
    return s["kernels"], s["wall_seconds"]


def timed_step(sync, fn):
    """``(fn(), StepTime)``: ``sync()`` (the backend's ``synchronize``) runs before and
    after ``fn``, so the time is the step's device work; compiles are counted apart,
    those the step started on the compile threads included."""
    import xstride as xp

    sync()
    k0, c0 = _stats()
    t0 = time.perf_counter()
    result = fn()
    xp.cuda.wait_for_compiles()   # what the step started on the compile threads
    sync()
    seconds = time.perf_counter() - t0
    k1, c1 = _stats()
    return result, StepTime(seconds, min(seconds, c1 - c0), k1 - k0)


def watch_compiles(backend) -> bool:
    """On a backend that compiles kernels, record CuPy's own compiles too
    (``xstride.cuda.watch_cupy_compiles``); whether they are recorded."""
    if not backend.compiles_kernels:
        return False
    import xstride as xp

    return xp.cuda.watch_cupy_compiles()
