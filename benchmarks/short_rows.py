"""Time the short-row reduction kernels ("short": one thread per output row; "tile":
rows staged in shared memory) on (n, k) arrays beside CuPy and a device copy, for
each variant of a tuning knob.

    python benchmarks/short_rows.py [--n 33554432] [--dtype float32] [--knob tile]
                                    [--variants "(4, 8, 16384, 256); (6, 4, 8192, 0)"]
                                    [--k 2,3,4,8,16]

Prints, per k and op (sum, max over axis=1, and sum of x.T over axis=0): milliseconds
of xstride per variant of the knob's strategy, then of the other short-row strategies
("short", "tile", each forced where its kernel takes the layout), CuPy, and
in () the bytes moved (read + write) per second as a fraction of a device copy's.
"""

from __future__ import annotations

import argparse
import ast

import _common as C  # noqa: E402  (puts the checkout on sys.path)

NEEDS_DEVICE = True  # python -m xstride bench skips it without CuPy and a GPU


def _time(f, reps=20):
    """Milliseconds per call: ``_common.time_gpu`` (median of CUDA-event times)."""
    return C.time_gpu(f, reps=reps) * 1e3


def _forced(strategy, chooser):
    """A ``short_rows_strategy`` that picks ``strategy`` where its kernel takes the
    layout ("tile" where the plan's rule allows it), else the plan's own choice."""
    from xstride._plans import reduction as plan_mod

    def choose(kshape, kstride, rstride, rowlen, itemsize):
        if strategy == "short":
            return "short"
        if strategy == "tile" and plan_mod.tile_ok(kshape, kstride, rstride, rowlen, itemsize):
            return "tile"
        return chooser(kshape, kstride, rstride, rowlen, itemsize)
    return choose


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1 << 25)
    ap.add_argument("--dtype", default="float32")
    ap.add_argument("--knob", default="tile", choices=["short", "tile"])
    ap.add_argument("--variants", default="", help="';'-separated tuples (default: VARIANTS)")
    ap.add_argument("--k", default="2,3,4,5,7,8,12,16")
    args = ap.parse_args()
    cp = C.require_device("short_rows")

    import xstride as xp
    from xstride._kernels import _reduce_common as rc
    from xstride._kernels import reductions as red
    from xstride._plans import reduction as plan_mod

    variants = ([ast.literal_eval(v.strip()) for v in args.variants.split(";") if v.strip()]
                or list(rc.VARIANTS[args.knob]))
    default = dict(rc.TUNING)
    chooser = plan_mod.short_rows_strategy
    print(f"n={args.n} {args.dtype}; knob {args.knob}; ms per call; fraction of copy in ()")
    for k in (int(v) for v in args.k.split(",")):
        x = cp.random.standard_normal((args.n, k)).astype(args.dtype)
        dst = cp.empty_like(x)
        copy = _time(lambda: dst.__setitem__(Ellipsis, x))
        moved = 1 + 1 / k          # read x, write one element per row
        for name, ours, theirs in (
                ("sum axis=1", lambda: xp.sum(x, axis=1), lambda: cp.sum(x, axis=1)),
                ("max axis=1", lambda: xp.max(x, axis=1), lambda: cp.max(x, axis=1)),
                ("sum x.T axis=0", lambda: xp.sum(x.T, axis=0), lambda: cp.sum(x.T, axis=0))):
            cells = []
            # the knob's variants under its own strategy, then the other strategies
            runs = [(args.knob, v) for v in variants] + [
                (s, None) for s in ("short", "tile") if s != args.knob]
            for strategy, v in runs:
                rc.TUNING.update(default)
                if v is not None:
                    rc.TUNING[args.knob] = v
                plan_mod.short_rows_strategy = _forced(strategy, chooser)
                red._RECIPES.clear()   # the strategy is not part of their keys
                red._CALLS.clear()
                t = _time(ours)
                cells.append(f"{v if v is not None else strategy}: {t:.3f} "
                             f"({moved * copy / 2 / t:.2f})")
            rc.TUNING.update(default)
            plan_mod.short_rows_strategy = chooser
            red._RECIPES.clear()
            red._CALLS.clear()
            t = _time(theirs)
            print(f"k={k:2d} {name:15s} " + "  ".join(cells)
                  + f"  cupy: {t:.3f} ({moved * copy / 2 / t:.2f})", flush=True)


if __name__ == "__main__":
    main()
