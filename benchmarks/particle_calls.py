"""Public calls on particle arrays, beyond the reductions and scans of ``shapes.py``: each
xstride call on ``(n, 3)`` float32 and float64 arrays (CuPy backend) beside the CuPy call
a user would write for the same result, and the fraction of a device copy's bandwidth
(bytes of the inputs read and the output written).

Run: ``python benchmarks/particle_calls.py [--n 16777216]``. The last lines list the
calls slower than CuPy and the worst ratios. Found by this table on 2026-12-06 (H100),
then fixed: ``philox_uniform`` of a ``(n, 1)`` counter column by a ``(1, 3)`` stream row
(20x slower than a flat counter array), ``Philox.integers`` (80x slower than CuPy's
``integers``), ``vecdot`` (70x: compat's batched matmul), ``count_nonzero(axis=0)``
(CuPy's own, 84x slower than a sum of ``x != 0``) and ``asarray(x.T, copy=True)`` (4x).
"""

from __future__ import annotations

import argparse

import _common as C  # noqa: E402  (puts the checkout on sys.path)

NEEDS_DEVICE = True  # python -m xstride bench skips it without CuPy and a GPU


def _nbytes(*arrays) -> int:
    total = 0
    for a in arrays:
        if isinstance(a, (tuple, list)):
            total += _nbytes(*a)
        elif hasattr(a, "nbytes"):
            total += int(a.nbytes)
    return total


def cases(cp, xp, n: int, dtype):
    """``(name, xstride call, CuPy call, inputs)`` for ``(n, 3)`` arrays of ``dtype``."""
    alg = xp.algorithms
    rs = cp.random.default_rng(0)
    x = rs.random((n, 3), dtype=dtype)
    y = rs.random((n, 3), dtype=dtype)
    rot = rs.random((3, 3), dtype=dtype)
    idx = rs.integers(0, n, n).astype(cp.int64)
    keys = alg.morton_keys(x, [0.0] * 3, [1.0] * 3, 10)
    streams = cp.arange(3, dtype=cp.uint64)[None, :]
    counters = cp.arange(n, dtype=cp.uint64)[:, None]
    col = x[:, 0]
    return [
        ("linalg.vector_norm(x, axis=1)", lambda: xp.linalg.vector_norm(x, axis=1),
         lambda: cp.linalg.norm(x, axis=1), (x,)),
        ("matmul(x, R), R (3, 3)", lambda: xp.matmul(x, rot), lambda: cp.matmul(x, rot), (x,)),
        ("vecdot(x, y)", lambda: xp.vecdot(x, y), lambda: (x * y).sum(axis=-1), (x, y)),
        ("linalg.cross(x, y)", lambda: xp.linalg.cross(x, y), lambda: cp.cross(x, y), (x, y)),
        ("stack of the columns", lambda: xp.stack([x[:, 0], x[:, 1], x[:, 2]], axis=1),
         lambda: cp.stack([x[:, 0], x[:, 1], x[:, 2]], axis=1), (x,)),
        ("concat((x, y), axis=1)", lambda: xp.concat([x, y], axis=1),
         lambda: cp.concatenate([x, y], axis=1), (x, y)),
        ("where(x > 0.5, x, y)", lambda: xp.where(x > 0.5, x, y),
         lambda: cp.where(x > 0.5, x, y), (x, y)),
        ("clip(x, 0.2, 0.8)", lambda: xp.clip(x, 0.2, 0.8), lambda: cp.clip(x, 0.2, 0.8), (x,)),
        ("asarray(x.T, copy=True)", lambda: xp.asarray(x.T, copy=True),
         lambda: cp.array(x.T, copy=True), (x,)),
        ("astype(x, int32)", lambda: xp.astype(x, xp.int32), lambda: x.astype(cp.int32), (x,)),
        ("take(x, idx, axis=0)", lambda: xp.take(x, idx, axis=0),
         lambda: cp.take(x, idx, axis=0), (x, idx)),
        ("x[x[:, 0] > 0.5]", lambda: x[x[:, 0] > 0.5], lambda: x[x[:, 0] > 0.5], (x,)),
        ("argsort(x[:, 0])", lambda: xp.argsort(col), lambda: cp.argsort(col), (col,)),
        ("sort(x, axis=1)", lambda: xp.sort(x, axis=1), lambda: cp.sort(x, axis=1), (x,)),
        ("argsort(x, axis=1)", lambda: xp.argsort(x, axis=1), lambda: cp.argsort(x, axis=1),
         (x,)),
        ("sort(x, axis=0)", lambda: xp.sort(x, axis=0), lambda: cp.sort(x, axis=0), (x,)),
        ("mean(x, axis=0)", lambda: xp.mean(x, axis=0), lambda: cp.mean(x, axis=0), (x,)),
        ("std(x, axis=0)", lambda: xp.std(x, axis=0), lambda: cp.std(x, axis=0), (x,)),
        ("diff(x, axis=0)", lambda: xp.diff(x, axis=0), lambda: cp.diff(x, axis=0), (x,)),
        ("roll(x, 1, axis=0)", lambda: xp.roll(x, 1, axis=0), lambda: cp.roll(x, 1, axis=0),
         (x,)),
        ("all(isfinite(x), axis=1)", lambda: xp.all(xp.isfinite(x), axis=1),
         lambda: cp.isfinite(x).all(axis=1), (x,)),
        ("count_nonzero(x > 0.5, axis=0)", lambda: xp.count_nonzero(x > 0.5, axis=0),
         lambda: cp.count_nonzero(x > 0.5, axis=0), (x,)),
        ("unique_values(x[:, 0])", lambda: xp.unique_values(col), lambda: cp.unique(col),
         (col,)),
        ("argmax(x, axis=1)", lambda: xp.argmax(x, axis=1), lambda: cp.argmax(x, axis=1), (x,)),
        ("algorithms.sort_by_key(keys, x)", lambda: alg.sort_by_key(keys, x),
         lambda: (lambda o: (keys[o], x[o]))(cp.argsort(keys)), (keys, x)),
        ("rng.philox_uniform((1, 3) streams, (n, 1) counters)",
         lambda: xp.rng.philox_uniform(0, streams, counters), lambda: rs.random((n, 3)),
         (counters,)),
        ("rng.philox_normal((1, 3) streams, (n, 1) counters)",
         lambda: xp.rng.philox_normal(0, streams, counters),
         lambda: rs.standard_normal((n, 3)), (counters,)),
        ("rng.Philox.uniform((n, 3))", lambda: xp.rng.Philox(0, backend="cupy").uniform((n, 3)),
         lambda: rs.random((n, 3)), ()),
        ("rng.Philox.integers(0, 100, (n, 3))",
         lambda: xp.rng.Philox(0, backend="cupy").integers(0, 100, (n, 3)),
         lambda: rs.integers(0, 100, (n, 3)), ()),
    ]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1 << 24)
    args = ap.parse_args(argv)
    cp = C.require_device("particle_calls")
    import numpy as np

    import xstride as xp

    xp.set_backend("cupy")
    print(C.header(f"particle calls, (n, 3) with n = {args.n:,}"))
    ceiling = C.copy_ceiling(args.n * 3 * 8) * 1e9
    rows, timed = [], []
    for dtype in (cp.float32, cp.float64):
        for name, ours, theirs, inputs in cases(cp, xp, args.n, dtype):
            t_ours = C.time_gpu(ours, reps=10)
            t_cupy = C.time_gpu(theirs, reps=10)
            moved = _nbytes(*inputs) + _nbytes(ours())
            ratio = t_cupy / t_ours
            timed.append((ratio, f"{name}, {np.dtype(dtype).name}"))
            rows.append([name, np.dtype(dtype).name, f"{t_ours * 1e3:.3f}",
                         f"{moved / t_ours / ceiling:.2f}", f"{t_cupy * 1e3:.3f}", f"{ratio:.2f}"])
    C.print_table(["call", "dtype", "xstride ms", "of copy", "CuPy ms", "ratio"], rows)
    print(f"\ncopy ceiling (read + write, {args.n * 24 >> 20} MiB): {ceiling / 1e9:.0f} GB/s; "
          "ratio = CuPy's time / xstride's")
    slower = sorted(t for t in timed if t[0] < 1.0)
    print(f"slower than CuPy: {len(slower)} of {len(timed)} calls")
    for ratio, what in slower:
        print(f"  {ratio:.2f}x {what}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
