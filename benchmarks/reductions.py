"""Reductions and scans on the GPU: xstride vs CuPy, as a fraction of a copy.

float32, 640 x 640 x 640 (1 GiB). Effective bandwidth counts the bytes a kernel must
move (reductions: the input read; scans: input read + output written) and is divided
by the device-to-device copy bandwidth measured in the same run (read + write).
"ratio" is CuPy's time over xstride's (> 1: xstride is faster). Targets (issue 5):
reductions >= 0.85 of copy and never slower than CuPy, flat scan >= 0.75, row scans
>= 0.60.

Also printed: "back-to-back / copy" (ten calls queued between two events: the device
time when the host keeps ahead) and "host us" (host time of one call: the GPU idles
for it when a call starts on an idle stream, as in the timed single calls).

Usage: python benchmarks/reductions.py [--n 640] [--sweep] [--only SUBSTRING]
"""

from __future__ import annotations

import argparse

from _common import copy_ceiling, header, print_table, require_device, time_cpu, time_gpu

NEEDS_DEVICE = True  # python -m xstride bench skips it without CuPy and a GPU


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=640, help="edge of the cube (default 640)")
    ap.add_argument("--sweep", action="store_true",
                    help="also time the kernel variants (xstride._kernels._reduce_common.VARIANTS)")
    ap.add_argument("--only", default="",
                    help="time only the cases whose name contains this text (e.g. cumulative)")
    args = ap.parse_args()

    require_device("reductions")
    import cupy as cp

    import xstride as xp

    n = args.n
    rng = cp.random.default_rng(0)
    x = rng.standard_normal((n, n, n), dtype=cp.float32)
    nbytes = x.nbytes
    copy = copy_ceiling(nbytes)
    flat = x.reshape(-1)
    rows = x.reshape(n * n, n)
    xt = x.transpose(2, 0, 1)

    cases = [
        ("sum(x)", 1, lambda: xp.sum(x), lambda: cp.sum(x)),
        ("max(x)", 1, lambda: xp.max(x), lambda: cp.max(x)),
        ("sum(x, axis=0)", 1, lambda: xp.sum(x, axis=0), lambda: cp.sum(x, axis=0)),
        ("sum(x, axis=2)", 1, lambda: xp.sum(x, axis=2), lambda: cp.sum(x, axis=2)),
        ("sum(x.transpose(2,0,1), axis=0)", 1, lambda: xp.sum(xt, axis=0),
         lambda: cp.sum(xt, axis=0)),
        ("cumulative_sum(flat)", 2, lambda: xp.cumulative_sum(flat),
         lambda: cp.cumsum(flat)),
        (f"cumulative_sum(rows of {n}, axis=1)", 2, lambda: xp.cumulative_sum(rows, axis=1),
         lambda: cp.cumsum(rows, axis=1)),
    ]
    cases = [c for c in cases if args.only in c[0]]
    print(header("reductions and scans, float32 %dx%dx%d" % (n, n, n)))
    print(f"copy ceiling: {copy:.0f} GB/s (read + write, {nbytes / 2**30:.2f} GiB)")
    table = []
    for name, passes, ours, theirs in cases:
        a, b = ours(), theirs()
        # sanity: same answer as CuPy (float32 CuPy sums are the less accurate side)
        err = float(cp.max(cp.abs(a.astype(cp.float64) - b.astype(cp.float64))))
        scale = float(cp.max(cp.abs(b.astype(cp.float64)))) or 1.0
        t_ours = time_gpu(ours)
        t_cupy = time_gpu(theirs)
        host = host_us(ours)
        queued = time_queued(ours)
        moved = passes * nbytes
        f_ours = moved / t_ours / 1e9 / copy
        f_cupy = moved / t_cupy / 1e9 / copy
        table.append((name, f"{t_ours * 1e3:.3f}", f"{f_ours:.2f}", f"{t_cupy * 1e3:.3f}",
                      f"{f_cupy:.2f}", f"{t_cupy / t_ours:.2f}",
                      f"{moved / queued / 1e9 / copy:.2f}", f"{host:.0f}", f"{err / scale:.1e}"))
        del a, b
    print_table(["case", "xstride ms", "xstride / copy", "CuPy ms", "CuPy / copy",
                 "ratio (CuPy/xstride)", "back-to-back / copy", "host us", "max rel diff"],
                table)
    if args.sweep:
        sweep(cases, nbytes, copy)


def host_us(fn, reps: int = 20) -> float:
    """Median host microseconds of one call (launches are asynchronous: this is the
    time the GPU waits for the host when the call starts on an idle stream)."""
    import cupy as cp

    t = time_cpu(fn, reps=reps, warmup=2)
    cp.cuda.get_current_stream().synchronize()
    return t * 1e6


def time_queued(fn, calls: int = 10) -> float:
    """Seconds per call of ``calls`` back-to-back calls between two events (the host
    runs ahead, so this is the device time when the host is faster than the GPU)."""
    import cupy as cp

    fn()
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    start.record()
    for _ in range(calls):
        fn()
    stop.record()
    stop.synchronize()
    return cp.cuda.get_elapsed_time(start, stop) / 1e3 / calls


def sweep(cases, nbytes, copy) -> None:
    """Time each case under the kernel variants that affect it (same run, same data);
    prints every variant, then the best per case."""
    import cupy as cp

    from xstride._kernels import _reduce_common as rc

    default = dict(rc.TUNING)
    red = {"rows_block": rc.VARIANTS["rows_block"], "cols": rc.VARIANTS["cols"],
           "rows_warp": rc.VARIANTS["rows_warp"]}
    lookback = [{"lookback_items": i, "lookback_minb": m}
                for i in rc.VARIANTS["lookback_items"] for m in rc.VARIANTS["lookback_minb"]] + [
        {"lookback_direct": d} for d in rc.VARIANTS["lookback_direct"]] + [
        {"lookback_threads": t, "lookback_minb": m} for t, m in ((128, 10), (512, 2))]
    variants = {
        "sum(x)": [{"rows_block": v} for v in red["rows_block"]],
        "max(x)": [{"rows_block": v} for v in red["rows_block"]],
        "sum(x, axis=0)": [{"cols": v} for v in red["cols"]],
        "sum(x, axis=2)": [{"rows_warp": v} for v in red["rows_warp"]],
        "sum(x.transpose(2,0,1), axis=0)": [{"rows_warp": v} for v in red["rows_warp"]],
        "cumulative_sum(flat)": lookback,
    }
    rows, best = [], []
    for name, passes, ours, theirs in cases:
        todo = variants.get(name, [])
        if not todo:
            continue
        ref = ours()
        timed = []
        for var in todo:
            rc.TUNING.update(default)
            rc.TUNING.update(var)
            got = ours()
            same = bool(cp.all((got == ref) | (cp.isnan(got) & cp.isnan(ref))))
            t = min(time_gpu(ours), time_gpu(ours))
            frac = passes * nbytes / t / 1e9 / copy
            label = ", ".join(f"{k}={v}" for k, v in var.items())
            timed.append((frac, label))
            rows.append((name, label, f"{t * 1e3:.3f}", f"{frac:.2f}",
                         "yes" if same else "no"))
        rc.TUNING.update(default)
        frac, label = max(timed)
        best.append((name, label, f"{frac:.2f}"))
    print()
    print_table(["case", "variant", "ms", "fraction of copy", "bit-identical to default"], rows)
    print()
    print_table(["case", "best variant", "fraction of copy"], best)


if __name__ == "__main__":
    main()
