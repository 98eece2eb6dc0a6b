"""The shape sweep on the NumPy backend: xstride's namespace against NumPy's functions.

The host side of the performance contract (DESIGN.md): particle arrays ``(n, k)`` for
k = 1..16 and their ``(k, n)`` transposes, ``min``/``max``, ``all`` of bools, integer
and float ``sum``, and ``cumulative_sum`` over each axis, float32/float64/int64/int32,
each timed through ``xstride`` (``xp.min(x, axis=1)``, with the NumPy backend's walks
of short axes, ``xstride/_host/reductions.py``) and through NumPy directly on the same
array, and checked equal. There is no copy ceiling on the host side of this table
(NumPy's functions are the baseline a NumPy user has).

"ratio" is NumPy's time over xstride's (above 1: xstride faster). The last lines give
the cases slower than NumPy and the worst ratio. Times are the fastest of a few calls,
called in turn with NumPy's (the fastest of each); on a shared machine single cases
still vary by 10-30 %.

Usage:
    python benchmarks/host_shapes.py              # n * k = 2**22 elements per array
    python benchmarks/host_shapes.py --size 65536 # smaller arrays
    python benchmarks/host_shapes.py --only "min" # cases whose text contains this
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

import _common as C

import xstride as xp

KS = tuple(range(1, 17))
#: (function, dtypes): the reductions the walks serve (float sums only over a last
#: axis of fewer than 8 elements: elsewhere NumPy's own, and the ratio shows the
#: namespace's overhead)
CASES = (("min", ("float32", "float64", "int64")), ("max", ("float32", "int32")),
         ("all", ("bool",)), ("sum", ("int64", "int32", "float32")),
         ("cumulative_sum", ("float32", "int64")))


def _array(rng, shape, dtype):
    if dtype == "bool":
        return rng.random(shape) < 0.99
    if dtype.startswith("int"):
        return rng.integers(-1000, 1000, size=shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def _best_alternating(a, b, reps: int) -> tuple[float, float]:
    """The fastest of ``reps`` calls of ``a`` and of ``b``, called in turn, so that a
    busy moment of a shared machine falls on both alike (seconds)."""
    ta = tb = float("inf")
    for _ in range(reps):
        t0 = time.perf_counter()
        a()
        t1 = time.perf_counter()
        b()
        t2 = time.perf_counter()
        ta, tb = min(ta, t1 - t0), min(tb, t2 - t1)
    return ta, tb


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=int, default=2 ** 22,
                    help="elements per array (n * k; default 2**22)")
    ap.add_argument("--only", default="", help="only the cases whose text contains this")
    ap.add_argument("--reps", type=int, default=5, help="timed calls per case (the fastest)")
    args = ap.parse_args(argv)
    if args.size < 16:
        print("host_shapes.py: --size must be at least 16", file=sys.stderr)
        return 2
    print(C.header(f"host shape sweep, {args.size:,} elements per array"))
    rng = np.random.default_rng(0)
    rows, slower, worst = [], 0, (np.inf, "")
    for func, dtypes in CASES:
        for dtype in dtypes:
            for k in KS:
                n = max(1, args.size // k)
                base = _array(rng, (n, k), dtype)
                for layout, x in (("(n,k)", base), ("(k,n).T", np.ascontiguousarray(base.T).T)):
                    for axis in (0, 1):
                        text = f"{func}(x, axis={axis}), x={layout}, k={k} {dtype}"
                        if args.only not in text:
                            continue
                        ours = lambda: getattr(xp, func)(x, axis=axis)         # noqa: E731
                        theirs = lambda: getattr(np, func)(x, axis=axis)       # noqa: E731
                        got, want = ours(), theirs()
                        same = got.dtype == want.dtype and np.array_equal(got, want,
                                                                          equal_nan=True)
                        t_ours, t_np = _best_alternating(ours, theirs, args.reps)
                        ratio = t_np / t_ours
                        slower += ratio < 1.0
                        worst = min(worst, (ratio, text))
                        rows.append((f"{func}(x, axis={axis}), x={layout}", dtype, k,
                                     t_ours * 1e3, t_np * 1e3, ratio,
                                     "exact" if same else "MISMATCH"))
    C.print_table(("case", "dtype", "k", "xstride ms", "NumPy ms", "ratio", "check"), rows)
    bad = sum(r[-1] != "exact" for r in rows)
    print(f"{len(rows)} cases; {bad} differ from NumPy; slower than NumPy: {slower} of "
          f"{len(rows)}")
    if rows:
        print(f"worst ratio to NumPy: {worst[0]:.2f} ({worst[1]})")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
