"""Reductions and scans on the GPU: xstride vs CuPy, as a fraction of a copy.

float32, 640 x 640 x 640 (1 GiB). Effective bandwidth counts the bytes a kernel must
move (reductions: the input read; scans: input read + output written) and is divided
by the device-to-device copy bandwidth measured in the same run (read + write).
"ratio" is CuPy's time over xstride's (> 1: xstride is faster). Targets (issue 5):
reductions >= 0.85 of copy and never slower than CuPy, flat scan >= 0.75, row scans
>= 0.60.

Usage: python benchmarks/reductions.py [--n 640]
"""

from __future__ import annotations

import argparse

from _common import copy_ceiling, header, print_table, time_gpu


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=640, help="edge of the cube (default 640)")
    ap.add_argument("--sweep", action="store_true",
                    help="also time the launch-tuning variants (xstride._kernels._reduce_common.TUNING)")
    args = ap.parse_args()

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
        moved = passes * nbytes
        f_ours = moved / t_ours / 1e9 / copy
        f_cupy = moved / t_cupy / 1e9 / copy
        table.append((name, f"{t_ours * 1e3:.3f}", f"{f_ours:.2f}", f"{t_cupy * 1e3:.3f}",
                      f"{f_cupy:.2f}", f"{t_cupy / t_ours:.2f}", f"{err / scale:.1e}"))
        del a, b
    print_table(["case", "xstride ms", "xstride / copy", "CuPy ms", "CuPy / copy",
                 "ratio (CuPy/xstride)", "max rel diff"], table)
    if args.sweep:
        sweep(cases, nbytes, copy)


def sweep(cases, nbytes, copy) -> None:
    """Time each case under the tuning variants that affect it (same run, same data)."""
    import cupy as cp

    from xstride._kernels import _reduce_common as rc

    default = dict(rc.TUNING)
    variants = {
        "sum(x)": [("rows_block", v) for v in (1, 6, 8)],
        "max(x)": [("rows_block", v) for v in (1, 8)],
        "sum(x, axis=0)": [("cols", v) for v in (1, 6, 8)],
        "sum(x, axis=2)": [("rows_warp", v) for v in (1, 6, 8)],
        "cumulative_sum(flat)": [("lookback_q", v) for v in (1, 2, 4)],
    }
    rows = []
    for name, passes, ours, theirs in cases:
        key = name if name in variants else ("rows" if name.startswith("cumulative_sum(rows") else None)
        todo = variants.get(name, [("scan_rows", v) for v in (1, 4, 6)] if key == "rows" else [])
        ref = ours()
        for knob, value in todo:
            rc.TUNING.update(default)
            rc.TUNING[knob] = value
            got = ours()
            same = bool(cp.all((got == ref) | (cp.isnan(got) & cp.isnan(ref))))
            t = time_gpu(ours)
            rows.append((name, f"{knob}={value}", f"{t * 1e3:.3f}",
                         f"{passes * nbytes / t / 1e9 / copy:.2f}", "yes" if same else "NO"))
        rc.TUNING.update(default)
    print()
    print_table(["case", "variant", "ms", "fraction of copy", "bit-identical to default"], rows)


if __name__ == "__main__":
    main()
