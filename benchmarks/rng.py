"""Philox uniforms and normals: device vs CuPy's generator and the copy ceiling, host vs
NumPy's compiled Philox.

Run: ``python benchmarks/rng.py`` (device rows need CuPy and a GPU; the host rows always
run). Sizes: 2**28 float64 on the device, 2**24 on the host (``XSTRIDE_BENCH_HOST_N``
overrides). Device: ``philox_uniform(seed, stream, counter)`` with a stored uint64
counter array (8 B read + 8 B written per value) and ``Philox(seed).uniform(n)``, whose
counters are computed in the kernel (8 B written per value, like CuPy's generator).
"""

from __future__ import annotations

import os
import sys
import traceback

import numpy as np

from _common import copy_ceiling, header, print_table, time_cpu, time_gpu

from xstride import rng


def _try(rows, label, fn):
    try:
        rows.append(fn())
    except Exception as exc:  # keep the other rows; say what failed
        traceback.print_exc()
        rows.append([label, f"FAILED: {type(exc).__name__}: {exc}"[:120]])


def device_rows(cp):
    n = 1 << 28
    rows = []
    ceiling = copy_ceiling(n * 8)
    crng = cp.random.default_rng(1)
    t_cupy = time_gpu(lambda: crng.random(n), reps=10)
    t_cupy_n = time_gpu(lambda: crng.standard_normal(n), reps=10)

    def row(label, t, nbytes, base, base_name):
        gbs = nbytes / t / 1e9
        return [label, f"{t * 1e3:.3f} ms", f"{gbs:.0f} GB/s", f"{gbs / ceiling:.2f} of copy",
                f"{base / t:.2f}x {base_name}"]

    rows.append(row("device cupy default_rng().random, 2**28 float64", t_cupy, 8 * n, t_cupy,
                    "CuPy"))

    def gen_row():
        g = rng.Philox(1234, backend="cupy")
        t = time_gpu(lambda: g.uniform(n), reps=10)
        return row("device xstride Philox.uniform (counters in-kernel)", t, 8 * n, t_cupy,
                   "CuPy")

    _try(rows, "device Philox.uniform", gen_row)

    def arr_row():
        ctr = cp.arange(n, dtype=cp.uint64)
        t = time_gpu(lambda: rng.philox_uniform(1234, 0, ctr), reps=10)
        del ctr
        return row("device xstride philox_uniform(seed, 0, uint64 counter array)", t, 16 * n,
                   t_cupy, "CuPy")

    _try(rows, "device philox_uniform", arr_row)
    rows.append(row("device cupy default_rng().standard_normal, 2**28", t_cupy_n, 8 * n,
                    t_cupy_n, "CuPy normal"))

    def normal_row():
        g = rng.Philox(1234, backend="cupy")
        t = time_gpu(lambda: g.normal(n), reps=10)
        return row("device xstride Philox.normal (IEEE-only log/sincos)", t, 8 * n, t_cupy_n,
                   "CuPy normal")

    _try(rows, "device Philox.normal", normal_row)
    rows.append(["device copy ceiling (read + write)", "", f"{ceiling:.0f} GB/s", "1.00 of copy",
                 ""])
    return rows


def host_rows():
    n = int(os.environ.get("XSTRIDE_BENCH_HOST_N", 1 << 24))
    ctr = np.arange(n, dtype=np.uint64)
    gen = np.random.Generator(np.random.Philox(1234))
    t_np = time_cpu(lambda: gen.random(n), reps=5)
    rows = [[f"host numpy Generator(Philox()).random, {n:,} float64", f"{t_np * 1e3:.1f} ms",
             f"{t_np / n * 1e9:.1f} ns/value", "1 thread (compiled C)", "1.00x"]]
    threads = os.environ.get("XSTRIDE_NUM_THREADS")
    try:
        for label, nt in (("all threads", None), ("1 thread", "1")):
            if nt is None:
                os.environ.pop("XSTRIDE_NUM_THREADS", None)
            else:
                os.environ["XSTRIDE_NUM_THREADS"] = nt
            t = time_cpu(lambda: rng.philox_uniform(1234, 0, ctr), reps=5)
            rows.append([f"host xstride philox_uniform(seed, 0, counter array), {label}",
                         f"{t * 1e3:.1f} ms", f"{t / n * 1e9:.1f} ns/value",
                         f"{label} of {os.cpu_count()} cpus", f"{t / t_np:.2f}x NumPy time"])
            g = rng.Philox(1234, backend="numpy")
            t = time_cpu(lambda: g.uniform(n), reps=5)
            rows.append([f"host xstride Philox.uniform, {label}", f"{t * 1e3:.1f} ms",
                         f"{t / n * 1e9:.1f} ns/value", f"{label} of {os.cpu_count()} cpus",
                         f"{t / t_np:.2f}x NumPy time"])
    finally:
        if threads is None:
            os.environ.pop("XSTRIDE_NUM_THREADS", None)
        else:
            os.environ["XSTRIDE_NUM_THREADS"] = threads
    return rows


def main() -> int:
    cupy = None
    try:
        from xstride._backend import load_cupy

        cupy = load_cupy()
    except RuntimeError as exc:
        print(f"(device rows skipped: {exc})")
    print(header("benchmarks/rng.py"))
    rows = device_rows(cupy) if cupy is not None else []
    rows += host_rows()
    print_table(["case", "time", "rate", "of ceiling / threads", "ratio"],
                [r + [""] * (5 - len(r)) for r in rows])
    return 0


if __name__ == "__main__":
    sys.exit(main())
