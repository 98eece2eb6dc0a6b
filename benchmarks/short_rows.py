"""Time the "short" reduction strategy (one thread per output row) on (n, k) arrays
beside CuPy and a device copy, for each TUNING["short"] variant.

    python benchmarks/short_rows.py [--n 33554432] [--dtype float32]

Prints, per k = 2..16 and op (sum, max over axis=1, and sum of x.T over axis=0):
milliseconds of xstride per variant, CuPy, and the fraction of a copy of the input.
"""

from __future__ import annotations

import argparse

import _common as C  # noqa: E402  (puts the checkout on sys.path)


def _time(cp, f, reps=20):
    """Milliseconds per call: ``_common.time_gpu`` (median of CUDA-event times)."""
    return C.time_gpu(f, reps=reps) * 1e3


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1 << 25)
    ap.add_argument("--dtype", default="float32")
    args = ap.parse_args()
    import cupy as cp

    import xstride as xp
    from xstride._kernels import _reduce_common as rc

    default = dict(rc.TUNING)
    print(f"n={args.n} {args.dtype}; ms per call; fraction of copy in ()")
    for k in range(2, 17):
        x = cp.random.standard_normal((args.n, k)).astype(args.dtype)
        dst = cp.empty_like(x)
        copy = _time(cp, lambda: dst.__setitem__(Ellipsis, x))
        for name, ours, theirs in (
                ("sum axis=1", lambda: xp.sum(x, axis=1), lambda: cp.sum(x, axis=1)),
                ("max axis=1", lambda: xp.max(x, axis=1), lambda: cp.max(x, axis=1)),
                ("sum x.T axis=0", lambda: xp.sum(x.T, axis=0), lambda: cp.sum(x.T, axis=0))):
            cells = []
            for v in rc.VARIANTS["short"]:
                rc.TUNING.clear()
                rc.TUNING.update(default)
                rc.TUNING["short"] = v
                t = _time(cp, ours)
                cells.append(f"{v}: {t:.3f} ({copy / t:.2f})")
            rc.TUNING.clear()
            rc.TUNING.update(default)
            t = _time(cp, theirs)
            print(f"k={k:2d} {name:15s} " + "  ".join(cells) + f"  cupy: {t:.3f} ({copy / t:.2f})")


if __name__ == "__main__":
    main()
