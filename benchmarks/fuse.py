"""``xp.fuse`` vs CuPy operators vs ``cupy.fuse`` on the issue's cases (issue 16), H200.

Each case is one user function written with operators. Columns: the median time
(CUDA events) of the function fused by xstride, run with CuPy's operators, and through
``cupy.fuse`` (arguments that are views are passed to it as views, since it does not
trace slicing), each with its fraction of a device-to-device copy of the bytes the
fused kernel must move (measured in the same run). Before timing, the fused result is
compared bit for bit with the function run unfused through xstride.

Bytes: every argument read once plus every output written once (Jacobi: ``u`` read
once and the result written once).

The last lines: host time per call on 8 elements (a loop of calls without
synchronizing, divided by the count) of a fused call, of one ``xp.add``, and of the
function with CuPy's operators.

The kinetic energy case ends in a reduction: ``xp.fuse`` runs it on the reduction
kernels with the fused expression as their load (path: the reduction kernel), then the
``0.5 *`` on the 0-d result as a second, one-element kernel. Its host time per call is
printed too.

Run: ``python benchmarks/fuse.py [--n 67108864] [--jacobi 8192] [--cube 512] [--reps 20]``.
"""

from __future__ import annotations

import argparse
import time
import warnings

import _common as C

NEEDS_DEVICE = True  # python -m xstride bench skips it without CuPy and a GPU


def push(x, v, a, dt):
    return x + v * dt + 0.5 * a * dt * dt, v + a * dt


def push_t(x, v, aT, dt):
    return x + v * dt + 0.5 * aT.T * dt * dt, v + aT.T * dt


def jacobi(u, c):
    return c + 0.1 * (u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2] - 4 * c)


def jacobi_args(u0, u1, u2, u3, c):
    return c + 0.1 * (u0 + u1 + u2 + u3 - 4 * c)


def update(f, g, h, xp):
    return 0.9 * f + 0.5 * xp.permute_dims(g, (2, 0, 1)) - h[:, None, :]


def update_args(f, gp, hb):
    return 0.9 * f + 0.5 * gp - hb


def host_time(fn, n=2000) -> float:
    import cupy

    for _ in range(20):
        fn()
    cupy.cuda.get_current_stream().synchronize()
    t0 = time.perf_counter()
    for _ in range(n):
        fn()
    t = (time.perf_counter() - t0) / n
    cupy.cuda.get_current_stream().synchronize()
    return t


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=2 ** 26)
    ap.add_argument("--jacobi", type=int, default=8192)
    ap.add_argument("--cube", type=int, default=512)
    ap.add_argument("--reps", type=int, default=20)
    args = ap.parse_args(argv)

    C.require_device("fuse")
    import cupy as cp

    import xstride as xp
    from xstride._kernels import _elementwise_exec as ex
    from xstride._kernels import _fusion_reduce as fr

    reps, n, J, K = args.reps, args.n, args.jacobi, args.cube
    rng = cp.random.default_rng(0)
    x, v, a = (rng.standard_normal((n, 3), dtype=cp.float32) for _ in range(3))
    aT = cp.ascontiguousarray(a.T)
    u = rng.standard_normal((J, J), dtype=cp.float32)
    c = u[1:-1, 1:-1]
    f = rng.standard_normal((K, K, K), dtype=cp.float32)
    g = rng.standard_normal((K, K, K), dtype=cp.float32)
    h = rng.standard_normal((K, K), dtype=cp.float32)
    m = rng.standard_normal(n, dtype=cp.float32)
    dt = 0.01
    copy_gbs = C.copy_ceiling(256 << 20, reps=reps)

    def energy(m, v):
        return 0.5 * xp.sum(m[:, None] * v * v)

    def energy_cp(m, v):
        return 0.5 * cp.sum(m[:, None] * v * v)

    cf_push = cp.fuse(push)
    cf_jacobi = cp.fuse(jacobi_args)
    cf_update = cp.fuse(update_args)
    cf_energy = cp.fuse(lambda mb, v: 0.5 * cp.sum(mb * v * v))
    fused_update = xp.fuse(lambda f, g, h: update(f, g, h, xp))
    cases = [
        # name, xstride fused call, the same function unfused through xstride (the
        # bit-for-bit reference), with CuPy's operators, through cupy.fuse, bytes
        ("push (2**26, 3)", (xp.fuse(push), (x, v, a, dt)), lambda: push(x, v, a, dt),
         lambda: push(x, v, a, dt), lambda: cf_push(x, v, a, dt), 5 * x.nbytes),
        ("push with a.T (a stored (3, n))", (xp.fuse(push_t), (x, v, aT, dt)),
         lambda: push_t(x, v, aT, dt), lambda: push_t(x, v, aT, dt),
         lambda: cf_push(x, v, aT.T, dt), 5 * x.nbytes),
        (f"Jacobi {J}x{J} through slices", (xp.fuse(jacobi), (u, c)), lambda: jacobi(u, c),
         lambda: jacobi(u, c),
         lambda: cf_jacobi(u[2:, 1:-1], u[:-2, 1:-1], u[1:-1, 2:], u[1:-1, :-2], c),
         u.nbytes + c.nbytes),
        (f"mixed layout {K}^3", (fused_update, (f, g, h)), lambda: update(f, g, h, xp),
         lambda: update(f, g, h, cp), lambda: cf_update(f, g.transpose(2, 0, 1), h[:, None, :]),
         3 * f.nbytes + h.nbytes),
        ("kinetic energy 0.5 * sum(m[:, None] * v * v)",
         (xp.fuse(energy), (m, v)), lambda: energy(m, v), lambda: energy_cp(m, v),
         lambda: cf_energy(m[:, None], v), m.nbytes + v.nbytes),
    ]

    print(C.header("xp.fuse, float32"))
    print(f"device-to-device copy ceiling: {copy_gbs:.0f} GB/s (read + write)\n")

    def frac(nbytes, t):
        return f"{t * 1e3:.3f} ms ({nbytes / t / 1e9 / copy_gbs:.2f})"

    rows = []
    for name, (fz, fargs), unfused, cupy_ops, cupy_fuse, nbytes in cases:
        def row(name=name, fz=fz, fargs=fargs, unfused=unfused, cupy_ops=cupy_ops,
                cupy_fuse=cupy_fuse, nbytes=nbytes):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                got, want = fz(*fargs), unfused()
                got = got if isinstance(got, tuple) else (got,)
                want = want if isinstance(want, tuple) else (want,)
                for gg, ww in zip(got, want):
                    if not bool(cp.array_equal(gg, ww, equal_nan=True)):
                        raise SystemExit(f"MISMATCH in case {name!r}")
                del got, want
                fr.last_kind = None
                fz(*fargs)
                kind = fr.last_kind or ex.last_kind
                tx = C.time_gpu(lambda: fz(*fargs), reps=reps)
            tc = C.time_gpu(cupy_ops, reps=reps)
            try:
                tf = frac(nbytes, C.time_gpu(cupy_fuse, reps=reps))
            except Exception as exc:  # cupy.fuse refuses the function: say so
                tf = f"fails: {type(exc).__name__}"
            return [name, kind, frac(nbytes, tx), frac(nbytes, tc), tf]
        C.try_row(rows, name, row)
    C.print_table(["case", "path", "xp.fuse (of copy)", "CuPy operators (of copy)",
                   "cupy.fuse (of copy)"], rows)

    s = [cp.ones(8, cp.float32) for _ in range(3)]
    fused_small = xp.fuse(push)
    fused_small(*s, dt)
    t_fused = host_time(lambda: fused_small(*s, dt))
    t_add = host_time(lambda: xp.add(s[0], s[1]))
    t_ops = host_time(lambda: push(*s, dt))
    print(f"\nhost time per call on 8 elements: xp.fuse(push) {t_fused * 1e6:.1f} us, "
          f"one xp.add {t_add * 1e6:.1f} us ({t_fused / t_add:.2f}x), push with CuPy "
          f"operators {t_ops * 1e6:.1f} us")
    fused_energy = xp.fuse(energy)
    ms, vs = cp.ones(8, cp.float32), cp.ones((8, 3), cp.float32)
    fused_energy(ms, vs)
    t_fe = host_time(lambda: fused_energy(ms, vs))
    t_sum = host_time(lambda: xp.sum(vs))
    print(f"kinetic energy on 8 rows: xp.fuse {t_fe * 1e6:.1f} us (a reduction and a "
          f"scalar kernel), one xp.sum {t_sum * 1e6:.1f} us, with CuPy operators "
          f"{host_time(lambda: energy_cp(ms, vs)) * 1e6:.1f} us")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
