"""Timing helpers shared by the benchmark scripts (not a test; not imported by xstride).

GPU timings use CUDA events around each call, after warm-up, and report the median.
The memory-copy ceiling is a device-to-device copy of the same size measured in the
same run, counting bytes read plus bytes written.
"""

from __future__ import annotations

import datetime
import importlib.util
import platform
import statistics
import sys
import time
import traceback
from pathlib import Path

# the checkout's xstride unless one is importable already (installed, or a variant put
# first on PYTHONPATH to time it against this checkout: it must not be shadowed)
if importlib.util.find_spec("xstride") is None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
# this folder holds dask.py (benchmarks/dask.py): kept last on sys.path so that no script
# run from here imports it in place of the dask package
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE] + [str(_HERE)]


def cupy_or_none():
    """The ``cupy`` module when a device answers, else ``None`` (and say why)."""
    from xstride._backends.select import load_cupy

    try:
        return load_cupy()
    except RuntimeError as exc:
        print(f"(device rows skipped: {exc})")
        return None


def require_device(name: str):
    """The ``cupy`` module for a GPU-only benchmark; without a device, one line and exit 0.

    A benchmark that cannot run here is skipped, not failed: the line says why.
    """
    from xstride._backends.select import load_cupy

    try:
        return load_cupy()
    except RuntimeError as exc:
        print(f"{name}: skipped: it needs CuPy and a GPU ({exc})")
        raise SystemExit(0) from None


def try_row(rows, label, fn) -> None:
    """Append ``fn()`` to ``rows``; on an exception, a row saying what failed instead.

    One failing case must not hide the others: the traceback goes to stderr.
    """
    try:
        rows.append(fn())
    except Exception as exc:
        traceback.print_exc()
        rows.append([label, f"FAILED: {type(exc).__name__}: {exc}"[:120]])


def time_gpu(fn, reps: int = 20, warmup: int = 3) -> float:
    """Median seconds of ``fn()`` on the current CUDA stream, timed with events."""
    import cupy

    for _ in range(warmup):
        fn()
    cupy.cuda.get_current_stream().synchronize()
    times = []
    start, stop = cupy.cuda.Event(), cupy.cuda.Event()
    for _ in range(reps):
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(cupy.cuda.get_elapsed_time(start, stop) / 1e3)
    return statistics.median(times)


def time_cpu(fn, reps: int = 7, warmup: int = 1) -> float:
    """Median seconds of ``fn()`` on the host."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def copy_ceiling(nbytes: int, reps: int = 20) -> float:
    """Device-to-device copy bandwidth in GB/s (read + write) for a buffer of ``nbytes``."""
    import cupy

    a = cupy.empty(nbytes // 4, dtype=cupy.float32)
    a[...] = 1.5
    b = cupy.empty_like(a)
    t = time_gpu(lambda: b.__setitem__(Ellipsis, a), reps=reps)
    return 2 * a.nbytes / t / 1e9


def header(title: str) -> str:
    """One line with the date, the device and the versions, for docs/performance.md."""
    import numpy

    parts = [title, datetime.date.today().isoformat(), f"Python {platform.python_version()}",
             f"NumPy {numpy.__version__}"]
    cupy = sys.modules.get("cupy")
    if cupy is not None:
        props = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.runtime.getDevice())
        name = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
        parts += [name, f"CuPy {cupy.__version__}",
                  f"CUDA runtime {cupy.cuda.runtime.runtimeGetVersion()}"]
    else:
        parts += [platform.processor() or platform.machine()]
    return " | ".join(parts)


def print_table(headers, rows) -> None:
    """Print a plain Markdown table (so it can be pasted into docs/performance.md)."""
    cells = [[str(h) for h in headers]] + [[_fmt(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    line = lambda r: "| " + " | ".join(c.ljust(w) for c, w in zip(r, widths)) + " |"  # noqa: E731
    print(line(cells[0]))
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for r in cells[1:]:
        print(line(r))


def _fmt(c) -> str:
    if isinstance(c, float):
        return f"{c:.3g}" if abs(c) < 100 else f"{c:.0f}"
    return str(c)
