"""Philox uniforms and normals: device vs CuPy's generator and the copy ceiling, host vs
NumPy's compiled Philox.

Run: ``python benchmarks/rng.py`` (device rows need CuPy and a GPU; the host rows always
run). Sizes: 2**28 float64 on the device, 2**24 on the host (``XSTRIDE_BENCH_HOST_N``
overrides). Device: ``Philox(seed).uniform(n)`` / ``.normal(n)`` (two values per Philox
block, counters computed in the kernel: 8 B written per value, like CuPy's generator),
and the previous one-value-per-block general kernel for
comparison; ``philox_uniform(seed, stream, counter)`` with a stored uint64 counter array
(8 B read + 8 B written per value: memory-bound), fast and general kernel; then a sweep
of broadcast shapes, ``(n, 1)`` counters x ``(1, k)`` streams and the transpose, for
``GRID_COLUMNS`` k (2**26 values each) against one value a block's compute bound.
"""

from __future__ import annotations

import os
import sys

import numpy as np

from _common import copy_ceiling, header, print_table, time_cpu, time_gpu, try_row, cupy_or_none

from xstride import rng


def device_rows(cp):
    from xstride._host.philox import Affine
    from xstride._kernels import philox as K

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

    def gen_row(kind, label, base, base_name):
        def f():
            t = time_gpu(lambda: K.pairs(kind, 1234, 0, 0, n), reps=10)
            return row(label, t, 8 * n, base, base_name)
        return f

    try_row(rows, "pairs uniform", gen_row("uniform", "device xstride Philox.uniform: 2 per "
                                           "block (the pairs kernel)", t_cupy, "CuPy"))

    def gen_public():
        g = rng.Philox(1234, backend="cupy")
        t = time_gpu(lambda: g.uniform(n), reps=10)
        return row("device xstride Philox.uniform (public call, default)", t, 8 * n, t_cupy,
                   "CuPy")

    try_row(rows, "device Philox.uniform", gen_public)

    def one_per_block(fast, label):
        def f():
            t = time_gpu(lambda: K._real("uniform", 1234, 0, Affine(0), (n,), fast=fast),
                         reps=10)
            return row(label, t, 8 * n, t_cupy, "CuPy")
        return f

    try_row(rows, "1 per block general", one_per_block(
        False, "before: 1 value per block, counters in-kernel, general kernel"))
    try_row(rows, "1 per block fast", one_per_block(
        True, "1 value per block, counters in-kernel, fast kernel"))

    def arr_row(fast, label):
        def f():
            ctr = cp.arange(n, dtype=cp.uint64)
            t = time_gpu(lambda: K._real("uniform", 1234, 0, ctr, (n,), fast=fast), reps=10)
            del ctr
            return row(label, t, 16 * n, t_cupy, "CuPy")
        return f

    def grid_row():
        st = cp.arange(1 << 14, dtype=cp.uint64)[:, None]
        ct = cp.arange(1 << 14, dtype=cp.uint64)
        t = time_gpu(lambda: rng.philox_uniform(1234, st, ct), reps=10)
        return row("philox_uniform(seed, (2**14, 1) streams, (2**14,) counters): grid kernel",
                   t, 8 * n, t_cupy, "CuPy")

    try_row(rows, "philox_uniform grid", grid_row)
    try_row(rows, "philox_uniform array fast", arr_row(
        True, "philox_uniform(seed, 0, uint64 counter array), fast kernel (default)"))
    try_row(rows, "philox_uniform array general", arr_row(
        False, "before: philox_uniform(seed, 0, counter array), general kernel"))

    rows.append(row("device cupy default_rng().standard_normal, 2**28", t_cupy_n, 8 * n,
                    t_cupy_n, "CuPy normal"))
    try_row(rows, "pairs normal", gen_row("normal", "device xstride Philox.normal: the pairs "
                                          "kernel", t_cupy_n, "CuPy normal"))

    def normal_public():
        g = rng.Philox(1234, backend="cupy")
        t = time_gpu(lambda: g.normal(n), reps=10)
        return row("device xstride Philox.normal (public call, default)", t, 8 * n, t_cupy_n,
                   "CuPy normal")

    try_row(rows, "device Philox.normal", normal_public)

    def normal_before():
        def f():
            z0, z1 = K._real("normal2", 1234, 0, Affine(0), (n // 2,), fast=False)
            return cp.stack([z0, z1], axis=1).reshape(-1)
        t = time_gpu(f, reps=5)
        return row("before: normal2 general kernel + interleave copy", t, 8 * n, t_cupy_n,
                   "CuPy normal")

    try_row(rows, "normal before", normal_before)
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
    from xstride._host import _philox_native

    t_np_n = time_cpu(lambda: gen.standard_normal(n), reps=5)
    rows.append([f"host numpy Generator(Philox()).standard_normal, {n:,}",
                 f"{t_np_n * 1e3:.1f} ms", f"{t_np_n / n * 1e9:.1f} ns/value",
                 "1 thread (compiled C)", "1.00x normal"])
    t_np_i = time_cpu(lambda: gen.integers(0, 1000, n), reps=5)
    rows.append([f"host numpy Generator(Philox()).integers(0, 1000), {n:,}",
                 f"{t_np_i * 1e3:.1f} ms", f"{t_np_i / n * 1e9:.1f} ns/value",
                 "1 thread (compiled C)", "1.00x integers"])
    saved = {k: os.environ.get(k) for k in ("XSTRIDE_NUM_THREADS", "XSTRIDE_HOST_CC")}

    def put(key, value):
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value

    try:
        # executor: compiled C loops (default when a C compiler works), NumPy ufuncs
        for cc in (saved["XSTRIDE_HOST_CC"] if saved["XSTRIDE_HOST_CC"] != "none" else None,
                   "none"):
            put("XSTRIDE_HOST_CC", cc)
            ok, path = _philox_native.describe()
            ex = path if ok or cc == "none" else "NumPy ufuncs (C path failed)"
            for label, nt in (("all threads", None), ("1 thread", "1")):
                put("XSTRIDE_NUM_THREADS", nt)
                rng.philox_uniform(1234, 0, ctr[:1000])  # builds/loads the C path first
                t = time_cpu(lambda: rng.philox_uniform(1234, 0, ctr), reps=5)
                rows.append([f"host xstride philox_uniform(seed, 0, counter array), {ex}, "
                             f"{label}", f"{t * 1e3:.1f} ms", f"{t / n * 1e9:.1f} ns/value",
                             f"{label} of {os.cpu_count()} cpus", f"{t / t_np:.2f}x NumPy time"])
                g = rng.Philox(1234, backend="numpy")
                t = time_cpu(lambda: g.uniform(n), reps=5)
                rows.append([f"host xstride Philox.uniform, {ex}, {label}", f"{t * 1e3:.1f} ms",
                             f"{t / n * 1e9:.1f} ns/value", f"{label} of {os.cpu_count()} cpus",
                             f"{t / t_np:.2f}x NumPy time"])
                t = time_cpu(lambda: g.normal(n), reps=3)
                rows.append([f"host xstride Philox.normal, {ex}, {label}", f"{t * 1e3:.1f} ms",
                             f"{t / n * 1e9:.1f} ns/value", f"{label} of {os.cpu_count()} cpus",
                             f"{t / t_np_n:.2f}x NumPy normal time"])
                t = time_cpu(lambda: g.integers(0, 1000, n), reps=3)
                rows.append([f"host xstride Philox.integers(0, 1000), {ex}, {label}",
                             f"{t * 1e3:.1f} ms", f"{t / n * 1e9:.1f} ns/value",
                             f"{label} of {os.cpu_count()} cpus",
                             f"{t / t_np_i:.2f}x NumPy integers time"])
    finally:
        for k, v in saved.items():
            put(k, v)
    return rows


#: Columns of the broadcast sweep: (n, k) outputs from an (n, 1) counter column and a
#: (1, k) stream row (particle codes' positions and velocities), and the transpose.
GRID_COLUMNS = (1, 2, 3, 4, 5, 7, 8, 16, 33, 64, 100, 130, 600, 1000, 4096)


def grid_sweep_rows(cp):
    """``philox_uniform(seed, streams, counters)`` over broadcast shapes of 2**26 values,
    against the compute bound of one value a Philox block (counters made in the kernel,
    nothing read) and CuPy's generator of the same shape: where the grid kernels' two ways
    (a lane a column, whole rows a block step) leave lanes idle, the first ratio drops."""
    from xstride._host.philox import Affine
    from xstride._kernels import philox as K

    total = 1 << 26
    crng = cp.random.default_rng(1)
    t_bound = time_gpu(lambda: K._real("uniform", 1234, 0, Affine(0), (total,)), reps=10)
    out = []
    for k in GRID_COLUMNS:
        n = total // k
        for label, st, ct in (
                (f"({n:,}, 1) counters x (1, {k}) streams",
                 cp.arange(k, dtype=cp.uint64)[None, :], cp.arange(n, dtype=cp.uint64)[:, None]),
                (f"({k}, 1) streams x ({n:,},) counters",
                 cp.arange(k, dtype=cp.uint64)[:, None], cp.arange(n, dtype=cp.uint64))):
            shape = (n, k) if "counters x" in label else (k, n)
            t = time_gpu(lambda: rng.philox_uniform(1234, st, ct), reps=10)
            t_cupy = time_gpu(lambda: crng.random(shape), reps=10)
            out.append([f"philox_uniform {label}", f"{t * 1e3:.3f} ms",
                        f"{t_bound / t:.2f} of the bound", f"{t_cupy / t:.2f}x CuPy random"])
    out.append([f"bound: 1 value a Philox block, {total:,} values, in-kernel counters",
                f"{t_bound * 1e3:.3f} ms", "", ""])
    return out


def main() -> int:
    cupy = cupy_or_none()
    print(header("benchmarks/rng.py"))
    rows = device_rows(cupy) if cupy is not None else []
    rows += host_rows()
    print_table(["case", "time", "rate", "of ceiling / threads", "ratio"],
                [r + [""] * (5 - len(r)) for r in rows])
    if cupy is not None:
        print("\nBroadcast shapes (grid kernels):")
        print_table(["case", "time", "of the bound", "vs CuPy"], grid_sweep_rows(cupy))
    return 0


if __name__ == "__main__":
    sys.exit(main())
