"""The cold start of benchmarks/shapes.py (``--fresh``): the first call against the
steady time of ``x + x[0]`` and ``sum(x, axis=1)``, each library in a new process of
shapes.py (``--fresh-child``) whose CuPy kernel cache and xstride cache are empty
temporary folders."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time

import _common as C

__all__ = ["fresh", "fresh_child"]

#: The script each child process runs.
_SHAPES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "shapes.py")


def fresh(n: int) -> int:
    """First call vs steady for add and sum, each library in a new process whose CuPy
    kernel cache and xstride cache are empty temporary folders."""
    rows = []
    with tempfile.TemporaryDirectory(prefix="xstride-fresh-") as tmp:
        for lib in ("cupy", "xstride"):
            env = {**os.environ, "PYTHONUNBUFFERED": "1", "CUDA_CACHE_DISABLE": "1",
                   "CUPY_CACHE_DIR": os.path.join(tmp, lib, "cupy"),
                   "XSTRIDE_CACHE_DIR": os.path.join(tmp, lib, "xstride")}
            t0 = time.perf_counter()
            r = subprocess.run([sys.executable, _SHAPES, "--fresh-child", lib,
                                "--n", str(n)], env=env, capture_output=True, text=True,
                               timeout=600)
            wall = time.perf_counter() - t0
            lines = [ln[6:] for ln in r.stdout.splitlines() if ln.startswith("FRESH ")]
            if r.returncode or not lines:
                sys.stderr.write(r.stdout + r.stderr)
                rows.append([lib, "FAILED", f"exit {r.returncode}", "-", "-", "-", "-"])
                continue
            info = json.loads(lines[-1])
            for op in info["ops"]:
                rows.append([op["case"], lib, op["first_ms"], op["steady_ms"],
                             op["first_ms"] / op["steady_ms"], op["kernels"],
                             f"{info['import_s']:.2f} / {wall:.2f}"])
    print(C.header(f"cold start, float32 (n,3), n = {n}"))
    print("first call: wall time of the first call in a new process with empty caches "
          "(compiles included), to the end of the GPU work; steady: median device time "
          "after warm-up; kernels: files the call added to CUPY_CACHE_DIR\n")
    C.print_table(["case", "library", "first call ms", "steady ms", "first / steady",
                   "kernels compiled", "import s / process s"], rows)
    return 1 if any(r[1] == "FAILED" for r in rows) else 0


def fresh_child(lib: str, n: int) -> None:
    import numpy as np

    t0 = time.perf_counter()
    import cupy as cp

    cp.cuda.runtime.getDeviceCount()
    if lib == "xstride":
        import xstride as xp
    import_s = time.perf_counter() - t0
    x = cp.asarray(np.random.default_rng(0).standard_normal((n, 3), dtype=np.float32))
    cp.cuda.Device().synchronize()
    cache = os.environ["CUPY_CACHE_DIR"]
    count = lambda: sum(len(f) for _, _, f in os.walk(cache))  # noqa: E731
    if lib == "xstride":
        ops = [("x + x[0]", lambda: xp.add(x, x[0])), ("sum(x, axis=1)", lambda: xp.sum(x, axis=1))]
    else:
        ops = [("x + x[0]", lambda: x + x[0]), ("sum(x, axis=1)", lambda: cp.sum(x, axis=1))]
    out = []
    for name, fn in ops:
        before = count()
        t = time.perf_counter()
        fn()
        cp.cuda.Device().synchronize()
        first = time.perf_counter() - t
        kernels = count() - before
        steady = C.time_gpu(fn, reps=20, warmup=3)
        out.append({"case": name, "first_ms": first * 1e3, "steady_ms": steady * 1e3,
                    "kernels": kernels})
    print("FRESH " + json.dumps({"import_s": import_s, "ops": out}))
