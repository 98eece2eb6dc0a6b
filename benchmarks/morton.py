"""Morton keys and sort_by_key: device keys vs the copy ceiling, device sort vs CuPy
argsort + two gathers, host keys vs a NumPy expression that only computes the cells.

Run: ``python benchmarks/morton.py`` (device rows need CuPy and a GPU; the host rows
always run). Sizes: 2**26 points / keys on the device, 2**22 points on the host
(``XSTRIDE_BENCH_HOST_N`` overrides); ``XSTRIDE_BENCH_MORTON_SORT=0`` skips the sort rows.
"""

from __future__ import annotations

import os
import sys

import numpy as np

from _common import copy_ceiling, header, print_table, time_cpu, time_gpu, try_row, cupy_or_none

from xstride import algorithms as alg


def device_rows(cp):
    n = 1 << 26
    rows = []
    rng = cp.random.default_rng(1)
    pos = rng.random((n, 3), dtype=cp.float64)
    lo, hi = [0.0, 0.0, 0.0], [1.0, 1.0, 1.0]

    from xstride._kernels import morton as kdev

    ceiling = copy_ceiling(n * 16)  # same traffic: 24 B read + 8 B written per point

    def rate(label, t):
        gbs = n * 32 / t / 1e9
        return [label, f"{t * 1e3:.3f} ms", f"{gbs:.0f} GB/s",
                f"{gbs / ceiling:.2f} of copy ({ceiling:.0f} GB/s)"]

    def keys_row(method):
        def f():
            keep = kdev.CONTIGUOUS_METHOD
            kdev.CONTIGUOUS_METHOD = method
            try:
                t = time_gpu(lambda: alg.morton_keys(pos, lo, hi, 21))
            finally:
                kdev.CONTIGUOUS_METHOD = keep
            mark = " (default)" if method == keep else ""
            return rate("device morton_keys end to end (checks + kernel + 8 B NaN-flag read), "
                        f"2**26 x 3 float64, levels 21, {method} kernel{mark}", t)
        return f

    def kernel_row(method):
        def f():
            out = cp.empty(n, dtype=cp.uint64)
            bad = cp.full(1, 2**64 - 1, dtype=cp.uint64)
            scales = alg.morton_scales(lo, hi, 21)
            t = time_gpu(lambda: kdev.launch(pos, lo, scales, 21, out, bad, method))
            got = cp.asnumpy(out[:1 << 20])
            want = alg.morton_keys(cp.asnumpy(pos[:1 << 20]), lo, hi, 21)
            tag = "" if (got == want).all() else " MISMATCH"
            mark = " (default)" if method == kdev.CONTIGUOUS_METHOD else ""
            return rate(f"device morton_keys kernel only, {method} kernel{mark}{tag}", t)
        return f

    try_row(rows, "keys kernel rows", kernel_row("rows"))
    try_row(rows, "keys kernel strided", kernel_row("strided"))

    try_row(rows, "device morton_keys e2e rows", keys_row("rows"))
    try_row(rows, "device morton_keys e2e strided", keys_row("strided"))

    payload = cp.arange(n, dtype=cp.int64)[::-1].copy()

    def sort_row(name, keys):
        def shipped():
            return alg.sort_by_key(keys, payload)

        def base():
            order = cp.argsort(keys)
            return keys[order], payload[order]

        ref_keys, ref_payload = base()
        ok = True
        s, _, v = shipped()
        ok = ok and bool((s == ref_keys).all() and (v == ref_payload).all())
        t_ship, t_base = (time_gpu(f, reps=10) for f in (shipped, base))
        bits = (int(keys.min()) ^ int(keys.max())).bit_length()
        return [f"device sort_by_key, 2**26 uint64 + int64, {name} ({bits} bits)",
                f"{t_ship * 1e3:.2f} ms",
                f"argsort+2 gathers {t_base * 1e3:.2f} ms",
                f"{t_base / t_ship:.2f}x"
                f"{'' if ok else ' MISMATCH'}"]

    def keys_at(levels):
        return alg.morton_keys(pos, lo, hi, levels)

    if os.environ.get("XSTRIDE_BENCH_MORTON_SORT", "1") == "0":
        return rows
    try_row(rows, "sort morton levels 10", lambda: sort_row("Morton keys, levels 10", keys_at(10)))
    try_row(rows, "sort morton levels 21", lambda: sort_row("Morton keys, levels 21", keys_at(21)))
    try_row(rows, "sort random 64-bit",
         lambda: sort_row("random 64-bit keys", rng.integers(0, 2**63, size=n, dtype=cp.int64)
                          .view(cp.uint64) * cp.uint64(2)))
    return rows


def host_rows():
    n = int(os.environ.get("XSTRIDE_BENCH_HOST_N", 1 << 22))
    rng = np.random.default_rng(2)
    pos = rng.random((n, 3))
    lo = np.zeros(3)
    s = alg.morton_scales(lo, np.ones(3), 21)
    top = float(2**21 - 1)

    def floor_only():
        return np.clip(np.floor((pos - lo) * s), 0.0, top).astype(np.uint64)

    t_keys = time_cpu(lambda: alg.morton_keys(pos, lo, [1, 1, 1], 21), reps=5)
    t_floor = time_cpu(floor_only, reps=5)
    return [[f"host morton_keys, {n:,} x 3 float64, levels 21", f"{t_keys * 1e3:.1f} ms",
             f"{n / t_keys / 1e6:.1f} M points/s",
             f"cells-only NumPy expression {n / t_floor / 1e6:.1f} M points/s "
             f"({t_floor / t_keys:.2f} of it)"]]


def main() -> int:
    cupy = cupy_or_none()
    print(header("benchmarks/morton.py"))
    rows = device_rows(cupy) if cupy is not None else []
    rows += host_rows()
    print_table(["case", "time", "rate / baseline", "ratio"], [r + [""] * (4 - len(r)) for r in rows])
    return 0


if __name__ == "__main__":
    sys.exit(main())
