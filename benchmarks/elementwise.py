"""Elementwise engine vs CuPy on float32 640x640x640 (1 GiB per operand), H200.

Effective bandwidth: each input read once plus the output written once, divided by the
median time (CUDA events). "of copy" is that bandwidth over a device-to-device copy of
the same size measured in the same run; "vs CuPy" is CuPy's time over xstride's (> 1:
xstride faster). Each xstride result is checked against CuPy's before timing.

A last line gives the per-call host overhead (tiny arrays). The 13 tiled-path kernels
once swept here are in docs/elementwise.md ("Tiled path"); only the fastest is kept.

Run: ``python benchmarks/elementwise.py [--n 640] [--reps 20]``.
"""

from __future__ import annotations

import argparse

import _common as C

NEEDS_DEVICE = True  # python -m xstride bench skips it without CuPy and a GPU


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=640)
    ap.add_argument("--reps", type=int, default=20)
    args = ap.parse_args(argv)

    C.require_device("elementwise")
    import cupy as cp

    import xstride as xp
    from xstride._kernels import _elementwise_exec as ex

    n, reps = args.n, args.reps
    N = n ** 3
    isz = 4
    x = cp.random.standard_normal((n, n, n), dtype=cp.float32)
    y = cp.random.standard_normal((n, n, n), dtype=cp.float32)
    x_in = x.copy()            # the in-place case updates this one
    row = cp.random.standard_normal(n, dtype=cp.float32)
    tmp = cp.empty_like(y)
    copy_gbs = C.copy_ceiling(N * isz, reps=reps)

    def xs_copy_add():
        xp.views.copy_into(tmp, y.transpose(2, 0, 1))
        return xp.add(x, tmp)

    cases = [
        # name, xstride fn, CuPy fn, effective bytes
        ("x + y (contiguous)", lambda: xp.add(x, y), lambda: x + y, 3 * N * isz),
        ("xT + yT (same permutation)",
         lambda: xp.add(x.transpose(2, 0, 1), y.transpose(2, 0, 1)),
         lambda: x.transpose(2, 0, 1) + y.transpose(2, 0, 1), 3 * N * isz),
        ("x + y.transpose(2,0,1)", lambda: xp.add(x, y.transpose(2, 0, 1)),
         lambda: x + y.transpose(2, 0, 1), 3 * N * isz),
        ("x.T(2,0,1) + y.T(1,2,0)",
         lambda: xp.add(x.transpose(2, 0, 1), y.transpose(1, 2, 0)),
         lambda: x.transpose(2, 0, 1) + y.transpose(1, 2, 0), 3 * N * isz),
        ("x + ascontiguousarray(yT) [xstride: fused]",
         lambda: xp.add(x, y.transpose(2, 0, 1)),
         lambda: x + cp.ascontiguousarray(y.transpose(2, 0, 1)), 3 * N * isz),
        ("x + ascontiguousarray(yT) [xstride: copy_into + add]", xs_copy_add,
         lambda: x + cp.ascontiguousarray(y.transpose(2, 0, 1)), 3 * N * isz),
        ("x += y.transpose(2,1,0)",
         lambda: xp.add(x_in, y.transpose(2, 1, 0), out=x_in),
         lambda: x_in.__iadd__(y.transpose(2, 1, 0)), 3 * N * isz),
        ("x + row (broadcast)", lambda: xp.add(x, row), lambda: x + row,
         2 * N * isz + n * isz),
        ("x[:, ::2, :] * 2", lambda: xp.multiply(x[:, ::2, :], 2),
         lambda: x[:, ::2, :] * 2, N * isz),
    ]

    print(C.header("Elementwise engine, float32 %dx%dx%d" % (n, n, n)))
    print(f"device-to-device copy ceiling: {copy_gbs:.0f} GB/s (read + write)\n")

    rows = []
    for name, fx, fc, nbytes in cases:
        if "+=" not in name:  # correctness first (the in-place case is checked below)
            got, want = fx(), fc()
            if not bool(cp.allclose(got, want, rtol=1e-6, atol=1e-6)):
                raise SystemExit(f"MISMATCH in case {name!r}")
            del got, want
        fx()
        kind = ex.last_kind
        tx = C.time_gpu(fx, reps=reps)
        tc = C.time_gpu(fc, reps=reps)
        gx, gc = nbytes / tx / 1e9, nbytes / tc / 1e9
        rows.append([name, kind, round(gx), gx / copy_gbs, round(gc), gc / copy_gbs, tc / tx])
    # in-place check on fresh data: x_in + y.T(2,1,0) once
    a = cp.random.standard_normal((n // 4,) * 3, dtype=cp.float32)
    b = cp.random.standard_normal((n // 4,) * 3, dtype=cp.float32)
    want = a + b.transpose(2, 1, 0)
    xp.add(a, b.transpose(2, 1, 0), out=a)
    if not bool(cp.array_equal(a, want)):
        raise SystemExit("MISMATCH in the in-place case")
    C.print_table(["case", "path", "xstride GB/s", "of copy", "CuPy GB/s", "CuPy of copy",
                   "vs CuPy"], rows)
    s1, s2 = cp.ones(8, cp.float32), cp.ones(8, cp.float32)
    to = C.time_gpu(lambda: xp.add(s1, s2), reps=200)
    tc = C.time_gpu(lambda: s1 + s2, reps=200)
    print(f"\nper-call time on 8 elements (host overhead + launch): xstride {to * 1e6:.1f} us, "
          f"CuPy {tc * 1e6:.1f} us")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
