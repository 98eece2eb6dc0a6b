"""Shape sweep (issue 14): xstride vs CuPy and the copy ceiling on the shapes users have.

Groups (one table each): particle arrays (n, k) for k = 1..16 and their transposes
((k, n) arrays used as ``.T``) with sum/max over each axis, cumulative_sum over each
axis and the broadcast ``x + x[0]``; sliced and reversed views; ranks 1-4 with middle
and multiple axes; float64/int64/bool (bool: all/any); prod/min/mean/var/std/argmin/
argmax at a few k; small arrays (10 to
10,000 elements) timed per call, host time included.

Each case runs the same operation through ``xstride`` and through ``cupy`` directly on
the same arrays (allocated once per shape and reused). Times: CUDA events, median of
several calls after warm-up (``_common.time_gpu``; reps chosen per case from one probe
call, so slow cases cost a few calls only). "of copy": bytes read once + written once
over xstride's time, divided by the bandwidth of a device-to-device copy of that size
measured in the same run. "bound": the "of copy" the case's memory traffic allows at a
copy's speed, the bytes it moves over those of the 64-byte blocks its operands touch
(``_traffic.py``; below 1 for views that skip part of each block; an estimate: a read-
only case can read above it). "ratio": CuPy's time over xstride's (above 1: xstride is
faster). "check": max abs / rel difference from CuPy's result (sum, mean and scans:
relative to the same reduction of ``abs(x)``; others: to ``max(abs(CuPy's result))``);
"exact" when identical (ints, bools, max/min are compared exactly); a trailing "!" marks
a difference past the tolerance (float32 1e-3, float64 1e-9 relative). The last lines
give the worst ratio to CuPy, how many cases are slower than CuPy and how many of those
moving at least 64 MiB are below 0.85 of copy (and how many of those have a traffic
bound below 0.85), the lowest fraction of its bound and the lowest fraction of copy
among them, each with its case. Exit status 1 when a case failed or differs past
tolerance.

n defaults to 2**25: the (n, 3) float32 array is 384 MiB; it must be a power of two.

Usage:
    python benchmarks/shapes.py                 # the sweep (about 2-3 minutes on an H200)
    python benchmarks/shapes.py --quick         # n = 2**20, fewer k (or XSTRIDE_BENCH_QUICK=1)
    python benchmarks/shapes.py --only "axis=0" # only the cases whose text contains this
    python benchmarks/shapes.py --other-dtypes  # also int32, int16, uint8, uint64, float16,
                                                # complex64 at k = 1, 3, 5, 7, 16 and (5, n).T
    python benchmarks/shapes.py --medium        # also medium rows (4n/k, k), k = 17-256:
                                                # float32, float64, int64, int32, bool
    python benchmarks/shapes.py --fresh         # cold start: first call vs steady, add and sum,
                                                # each library in a new process, empty caches
    python benchmarks/shapes.py --self-test     # CPU: case generation, checks and tables on NumPy
"""

from __future__ import annotations

import argparse
import os
import time
from dataclasses import dataclass

import _common as C
from _shapes_fresh import fresh, fresh_child
from _shapes_device import MiB, Device
from _traffic import BLOCK, array_bytes

NEEDS_DEVICE = True  # python -m xstride bench skips it without CuPy and a GPU

TOL = {"float32": 1e-3, "float64": 1e-9, "float16": 1e-2, "complex64": 1e-3}


# --------------------------------------------------------------------------- cases
@dataclass(frozen=True)
class Case:
    group: str
    desc: str            # the operand as printed: "(n,3)", "(3,n).T", "(3n,)[::-1]"
    dtype: str
    base: tuple          # shape of the allocated array
    view: str            # key of VIEWS, applied to the allocated array
    op: str              # key of OPS
    axis: object = None
    small: bool = False  # timed per call (µs), no copy fraction

    @property
    def label(self) -> str:
        if self.op == "add":
            text = "add(a, b)"
        elif self.op == "add_row":
            text = "x + x[0]"
        elif self.axis is None:
            text = f"{self.op}(x)"
        else:
            text = f"{self.op}(x, axis={self.axis})"
        return f"{text}, {self.desc}" if self.small else f"{text}, x={self.desc}"


VIEWS = {
    "": lambda a: a,
    ".T": lambda a: a.T,
    "[::-1]": lambda a: a[::-1],
    "[::2]": lambda a: a[::2],
    "[::3]": lambda a: a[::3],
    "[:, 1:]": lambda a: a[:, 1:],
    "[:, :3]": lambda a: a[:, :3],
    "[:, :8]": lambda a: a[:, :8],
    "[:, ::-1]": lambda a: a[:, ::-1],
    "[:, ::2]": lambda a: a[:, ::2],
    ".T[::-1]": lambda a: a.T[::-1],
}


def _reduction(name, ref_name=None, scale="want"):
    def ours(xp, a, b, axis):
        return getattr(xp, name)(a, axis=axis)

    def theirs(m, a, b, axis):
        return getattr(m, ref_name or name)(a, axis=axis)

    return ours, theirs, scale


def _scan_ours(xp, a, b, axis):
    return xp.cumulative_sum(a) if axis is None else xp.cumulative_sum(a, axis=axis)


# name: (xstride call, the same call through the module (cupy), how check scales the diff)
#   scale "abs": relative to the same operation on abs(x) (sums: the condition of the sum)
#   scale "want": relative to max(abs(CuPy's result)); "exact": must be identical
OPS = {
    "sum": _reduction("sum", scale="abs"),
    "mean": _reduction("mean", scale="abs"),
    "prod": _reduction("prod"),
    "var": _reduction("var"),
    "std": _reduction("std"),
    "max": _reduction("max", scale="exact"),
    "min": _reduction("min", scale="exact"),
    "all": _reduction("all", scale="exact"),
    "any": _reduction("any", scale="exact"),
    "argmin": _reduction("argmin", scale="exact"),
    "argmax": _reduction("argmax", scale="exact"),
    "cumulative_sum": (_scan_ours, lambda m, a, b, axis: m.cumsum(a, axis=axis), "abs"),
    "add_row": (lambda xp, a, b, axis: xp.add(a, a[0]),
                lambda m, a, b, axis: m.add(a, a[0]), "exact"),
    "add": (lambda xp, a, b, axis: xp.add(a, b), lambda m, a, b, axis: m.add(a, b), "exact"),
}

GROUPS = {
    "particles": "particle arrays (n, k), float32",
    "transposes": "transposes: (k, n) arrays used as .T, float32",
    "views": "sliced and reversed views, float32",
    "ranks": "ranks 1-4, middle and multiple axes, float32",
    "dtypes": "float64, int64, bool",
    "moments": "prod, min, mean, var, std, argmin, argmax, float32",
    "small": "small arrays, per call (host time included), float32",
    "other": "other dtypes (--other-dtypes): int32, int16, uint8, uint64, float16, complex64",
    "medium": "medium rows (--medium): (4n/k, k), k = 17-256",
}

#: ``--other-dtypes``: dtypes the default sweep does not time, at odd and even k
OTHER_DTYPES = ("int32", "int16", "uint8", "uint64", "float16", "complex64")
OTHER_KS = (1, 3, 5, 7, 16)
#: Bytes an element of the narrow dtypes of ``--other-dtypes``, which add rows of 128 bytes
NARROW = {"int16": 2, "uint8": 1, "float16": 2}
#: ``--medium``: rows past the particle arrays' 16 elements, 4n elements an array (the
#: shapes of a probe on the H200, 2026-12-04, that found 26 cases slower than CuPy:
#: docs/performance.md, "Twenty-fifth run")
MEDIUM_KS = (17, 24, 33, 50, 64, 96, 100, 128, 192, 200, 256)
MEDIUM_DTYPES = ("float32", "float64", "int64", "int32", "bool")
MEDIUM_OPS = [("sum", 1), ("max", 1), ("prod", 1), ("argmax", 1), ("argmin", 1),
              ("cumulative_sum", 1), ("sum", 0), ("argmax", 0)]
MEDIUM_BOOL_OPS = [("all", 1), ("any", 0), ("argmax", 1)]

PARTICLE_OPS = [("sum", 1), ("sum", 0), ("max", 1), ("max", 0),
                ("cumulative_sum", 1), ("cumulative_sum", 0), ("add_row", None)]


def make_cases(n: int, ks, small_sizes, other_dtypes=(), medium=False) -> list[Case]:
    """Every case of the sweep, in table order (pure Python: no array is made here);
    ``other_dtypes`` adds the group "other" (each dtype at :data:`OTHER_KS` and as
    ``(5, n).T``: the particle operations, ``min``, ``prod`` and ``argmax``), ``medium``
    the group "medium" (:data:`MEDIUM_DTYPES` at :data:`MEDIUM_KS`)."""
    p = n.bit_length() - 1
    if n != 2 ** p or p < 10:
        raise ValueError(f"n must be a power of two >= 2**10, not {n}")
    cases = []
    f32 = "float32"

    def add(group, desc, dtype, base, view, ops):
        for op, axis in ops:
            cases.append(Case(group, desc, dtype, tuple(base), view, op, axis))

    for k in ks:
        add("particles", f"(n,{k})", f32, (n, k), "", PARTICLE_OPS)
    for k in ks:
        add("transposes", f"({k},n).T", f32, (k, n), ".T", PARTICLE_OPS)

    # views
    add("views", "(n,3)[::-1]", f32, (n, 3), "[::-1]",
        [("sum", 1), ("sum", 0), ("cumulative_sum", 0), ("add_row", None)])
    add("views", "(n,3)[::2]", f32, (n, 3), "[::2]",
        [("sum", 1), ("max", 0), ("cumulative_sum", 1)])
    add("views", "(n,4)[:, 1:]", f32, (n, 4), "[:, 1:]",
        [("sum", 1), ("sum", 0), ("cumulative_sum", 1), ("add_row", None)])
    add("views", "(n,4)[:, :3]", f32, (n, 4), "[:, :3]",   # x, y, z of float4 particles
        [("sum", 1), ("max", 0), ("cumulative_sum", 1), ("add_row", None)])
    add("views", "(n,16)[:, ::-1]", f32, (n, 16), "[:, ::-1]",
        [("sum", 1), ("cumulative_sum", 1)])
    add("views", "(n,16)[:, :8]", f32, (n, 16), "[:, :8]", [("sum", 1), ("sum", 0)])
    add("views", "(3,n).T[::-1]", f32, (3, n), ".T[::-1]", [("sum", 1), ("sum", 0)])
    add("views", "(3n,)[::-1]", f32, (3 * n,), "[::-1]",
        [("sum", None), ("max", None), ("cumulative_sum", None)])
    add("views", "(3n,)[::3]", f32, (3 * n,), "[::3]", [("sum", None), ("cumulative_sum", None)])
    add("views", "(n/8,8,3)[:, ::2]", f32, (n // 8, 8, 3), "[:, ::2]",
        [("sum", (1, 2)), ("cumulative_sum", 1)])

    # ranks 1-4, all of 3n elements (the bytes of (n, 3))
    h = 2 ** (p // 2)
    grid = (h, 3 * n // h)
    c3 = 2 ** (p // 3)
    cube = (c3, c3, 3 * n // (c3 * c3))
    tall = (3, h, n // h)
    c4 = 2 ** (p // 4)
    r4 = (c4, c4, 3 * n // c4 ** 3, c4)
    shape = lambda s: "(" + ",".join(map(str, s)) + ")"  # noqa: E731
    add("ranks", "(3n,)", f32, (3 * n,), "",
        [("sum", None), ("max", None), ("cumulative_sum", None), ("add_row", None)])
    add("ranks", shape(grid), f32, grid, "",
        [("sum", 0), ("sum", 1), ("max", 0), ("cumulative_sum", 0), ("cumulative_sum", 1),
         ("add_row", None)])
    add("ranks", shape(cube), f32, cube, "",
        [("sum", 0), ("sum", 1), ("sum", 2), ("sum", (0, 1)), ("sum", (1, 2)), ("sum", (0, 2)),
         ("sum", None), ("max", 1), ("cumulative_sum", 0), ("cumulative_sum", 1)])
    add("ranks", "(n/8,8,3)", f32, (n // 8, 8, 3), "",
        [("sum", 1), ("sum", (1, 2)), ("max", 1), ("cumulative_sum", 1), ("add_row", None)])
    add("ranks", shape(tall), f32, tall, "",
        [("sum", 0), ("sum", (1, 2)), ("cumulative_sum", 0)])
    add("ranks", shape(r4), f32, r4, "",
        [("sum", 1), ("sum", 2), ("sum", (1, 2)), ("sum", (0, 2)), ("sum", (1, 3)),
         ("max", (0, 3)), ("cumulative_sum", 1), ("cumulative_sum", 2)])
    add("ranks", "(n/32,3,4,8)", f32, (n // 32, 3, 4, 8), "",
        [("sum", 2), ("sum", (1, 2)), ("sum", (1, 2, 3)), ("cumulative_sum", 2)])

    # dtypes
    few = [k for k in (3, 16) if k in ks] or [ks[0]]
    for dt in ("float64", "int64"):
        for k in few:
            add("dtypes", f"(n,{k})", dt, (n, k), "", PARTICLE_OPS)
        add("dtypes", f"({few[0]},n).T", dt, (few[0], n), ".T", PARTICLE_OPS)
    logic = [("all", 1), ("all", 0), ("any", 1), ("any", 0)]
    for k in few:
        add("dtypes", f"(n,{k})", "bool", (n, k), "", logic)
    add("dtypes", f"({few[0]},n).T", "bool", (few[0], n), ".T", logic)

    # the other reductions at a few k
    moments = [(op, ax) for op in ("prod", "min", "mean", "var", "std", "argmin", "argmax")
               for ax in (1, 0)]
    for k in [k for k in (3, 4, 16) if k in ks] or [ks[0]]:
        add("moments", f"(n,{k})", f32, (n, k), "", moments)
    add("moments", f"({few[0]},n).T", f32, (few[0], n), ".T", moments)

    # other dtypes (--other-dtypes)
    other_ops = PARTICLE_OPS + [("min", 1), ("min", 0), ("prod", 1), ("argmax", 1)]
    for dt in other_dtypes:
        ops = [o for o in other_ops if not (dt == "complex64" and o[0] in ("max", "min",
                                                                           "argmax"))]
        for k in OTHER_KS:
            add("other", f"(n,{k})", dt, (n, k), "", ops)
        add("other", "(5,n).T", dt, (5, n), ".T", ops)
        size = NARROW.get(dt)
        if size:   # rows of 128 bytes of narrow elements (their own kernel path)
            k = 128 // size
            add("other", f"(n/8,{k})", dt, (max(n // 8, 1), k), "", [("sum", 1), ("max", 1)])

    # medium rows (--medium)
    for dt in MEDIUM_DTYPES if medium else ():
        for k in MEDIUM_KS:
            add("medium", f"({4 * n // k},{k})", dt, (4 * n // k, k), "",
                MEDIUM_BOOL_OPS if dt == "bool" else MEDIUM_OPS)

    # small arrays, per call
    for size in small_sizes:
        for op in ("add", "sum", "max", "cumulative_sum"):
            cases.append(Case("small", f"{size} elements", f32, (size,), "", op, None, True))
    return cases


# --------------------------------------------------------------------------- arrays
class Bases:
    """The allocated arrays: one per (shape, dtype) at a time, reused by every case on it."""

    def __init__(self, dev: Device):
        self.dev = dev
        self.key = None
        self.arrays = None

    def get(self, case: Case):
        key = (case.base, case.dtype, case.op == "add")
        if key != self.key:
            self.clear()
            a = self.dev.fill(case.base, case.dtype, seed=1)
            b = self.dev.fill(case.base, case.dtype, seed=2) if case.op == "add" else None
            self.key, self.arrays = key, (a, b)
        a, b = self.arrays
        return VIEWS[case.view](a), b

    def clear(self) -> None:
        self.key = self.arrays = None
        self.dev.free()


# --------------------------------------------------------------------------- check
def check(m, case: Case, a, b, got, want) -> tuple[str, bool]:
    """(text, within tolerance) for xstride's result ``got`` against CuPy's ``want``."""
    got, want = m.asarray(got), m.asarray(want)
    if got.shape != want.shape:
        return f"shape {got.shape} != {want.shape} !", False
    note = "" if got.dtype == want.dtype else f" (dtype {got.dtype} vs {want.dtype}) !"
    if want.dtype.kind in "biu" or OPS[case.op][2] == "exact":
        differ = int(m.count_nonzero(got != want))
        if differ:
            return f"{differ} differ{note} !", False
        return "exact" + note, not note
    diff = m.abs(got.astype(m.float64) - want.astype(m.float64))
    err = float(diff.max()) if diff.size else 0.0
    if err == 0.0:
        return "exact" + note, not note
    if OPS[case.op][2] == "abs":
        ref = OPS[case.op][1](m, m.abs(a), b, case.axis)
        scale = float(m.asarray(ref).astype(m.float64).max())
    else:
        scale = float(m.abs(want.astype(m.float64)).max())
    rel = err / scale if scale else err
    ok = rel <= TOL.get(str(want.dtype), 1e-3) and not note
    return f"{err:.1e} / {rel:.1e}{note}" + ("" if ok else " !"), ok


# --------------------------------------------------------------------------- run
@dataclass
class Result:
    case: Case
    t_ours: float = 0.0
    t_cupy: float = 0.0
    moved: int = 0
    frac: float = float("nan")
    bound: float = float("nan")   # moved / the bytes of the blocks touched (_traffic.py)
    check: str = ""
    ok: bool = True
    first: float = 0.0
    failed: str = ""

    @property
    def ratio(self) -> float:
        return self.t_cupy / self.t_ours if self.t_ours else float("nan")


def run_case(dev: Device, xp, bases: Bases, case: Case, opts) -> Result:
    m = dev.m
    a, b = bases.get(case)
    ours, theirs, _ = OPS[case.op]
    f_ours = lambda: ours(xp, a, b, case.axis)      # noqa: E731
    f_cupy = lambda: theirs(m, a, b, case.axis)     # noqa: E731
    res = Result(case)
    t0 = time.perf_counter()
    got = f_ours()
    dev.sync()
    res.first = time.perf_counter() - t0           # compiles included, on a first use
    want = f_cupy()
    res.check, res.ok = check(m, case, a, b, got, want)
    inputs = [a] + ([b] if b is not None else []) + ([a[0]] if case.op == "add_row" else [])
    res.moved = sum(int(x.size) * x.dtype.itemsize for x in inputs) + m.asarray(want).nbytes
    res.bound = min(1.0, res.moved / (sum(array_bytes(x) for x in inputs)
                                      + m.asarray(want).nbytes))
    del got, want
    # the compiles a first call started on xstride's compile threads (kernels this or a
    # later case will need) end before the timed calls, which they would share the
    # interpreter with (the suspected cause of one sweep's 200 timed calls of `add` at
    # 79 us a call against 17; not reproduced)
    xp.cuda.wait_for_compiles()
    res.t_ours = measure(dev, f_ours, case, opts)
    res.t_cupy = measure(dev, f_cupy, case, opts)
    if not case.small:
        res.frac = res.moved / res.t_ours / 1e9 / dev.copy_gbs(res.moved)
    return res


#: Seconds of untimed calls before a case's timed ones (at most the timed count; none
#: for calls of more than this): the first calls after the compile of a first use, or
#: after the other library's calls, ran up to 6 % slower than steady ones (H200,
#: 2026-12-04: float64 (n, 200) ``sum`` 0.280 ms in the first 20 calls, 0.265 after
#: 0.3 s of calls).
WARM_SECONDS = 0.01


def measure(dev: Device, fn, case: Case, opts) -> float:
    """Median seconds per call: small arrays ``opts.small_reps`` event-timed single calls
    (host time included, as in elementwise.py); others one probe call (the checked call
    before it was the warm-up), then :data:`WARM_SECONDS` of untimed calls, then as many
    calls as fit in ``opts.budget`` seconds (3 to ``opts.reps``), so a 100 ms case costs
    5 calls in all. Both libraries are measured the same way."""
    if case.small:
        return dev.time(fn, reps=opts.small_reps, warmup=10)
    probe = dev.time(fn, reps=1, warmup=0)
    reps = max(3, min(opts.reps, int(opts.budget / max(probe, 1e-9))))
    warm = min(reps, int(WARM_SECONDS / max(probe, 1e-9)))
    return dev.time(fn, reps=reps, warmup=warm)


def table_row(r: Result) -> list:
    c = r.case
    if r.failed:
        return [c.label, c.dtype, "-", "-", "-", "-", "-", r.failed]
    scale = 1e6 if c.small else 1e3
    frac, bound = ("-", "-") if c.small else (r.frac, r.bound)
    return [c.label, c.dtype, r.t_ours * scale, frac, bound, r.t_cupy * scale, r.ratio,
            r.check]


def run_sweep(dev: Device, xp, cases, opts) -> int:
    results = []
    t_start = time.perf_counter()
    bases = Bases(dev)
    for group, title in GROUPS.items():
        todo = [c for c in cases if c.group == group]
        if not todo:
            continue
        t0 = time.perf_counter()
        rows, done = [], []
        for case in todo:
            def one(case=case):
                r = run_case(dev, xp, bases, case, opts)
                done.append(r)
                return table_row(r)

            C.try_row(rows, case.label, one)
            if len(rows) > len(done):       # it failed: try_row's row says why
                r = Result(case, failed=rows[-1][1], ok=False)
                done.append(r)
                rows[-1] = table_row(r)
        bases.clear()
        unit = "us/call" if group == "small" else "ms"
        print(f"\n### {title}\n")
        C.print_table(["case", "dtype", f"xstride {unit}", "of copy", "bound",
                       f"CuPy {unit}", "ratio", "check (abs / rel)"], rows)
        first = sum(r.first for r in done)
        print(f"\n({len(done)} cases, {time.perf_counter() - t0:.1f} s, of which xstride's "
              f"first calls {first:.1f} s)", flush=True)
        results += done
    return summarize(dev, results, time.perf_counter() - t_start)


def summarize(dev: Device, results, wall: float) -> int:
    timed = [r for r in results if not r.failed]
    print()
    if dev._copy:
        print("copy ceilings (read + write): " + ", ".join(
            f"{size // MiB} MiB {gbs:.0f} GB/s" for size, gbs in sorted(dev._copy.items())))
    failed = [r for r in results if r.failed]
    differ = [r for r in results if not r.failed and not r.ok]
    print(f"{len(results)} cases in {wall:.0f} s; {len(failed)} failed; "
          f"{len(differ)} differ from CuPy past the tolerance"
          + (": " + "; ".join(f"{r.case.label} {r.case.dtype}" for r in failed + differ)
             if failed or differ else ""))
    if timed:
        w = min(timed, key=lambda r: r.ratio)
        print(f"worst ratio to CuPy: {w.ratio:.2f} ({w.case.label}, {w.case.dtype})")
    slower = [r for r in timed if r.ratio < 1.0]
    print(f"slower than CuPy: {len(slower)} of {len(timed)} cases")
    big = [r for r in timed if not r.case.small and r.moved >= 64 * MiB]
    if big:
        below = [r for r in big if r.frac < 0.85]
        print(f"below 0.85 of copy: {len(below)} of {len(big)} cases moving >= 64 MiB; "
              f"{sum(r.bound < 0.85 for r in below)} of them with a traffic bound below 0.85")
        w = min(big, key=lambda r: r.frac / r.bound)
        print(f"lowest fraction of the traffic bound: {w.frac / w.bound:.2f} "
              f"({w.case.label}, {w.case.dtype}, bound {w.bound:.2f})")
        w = min(big, key=lambda r: r.frac)
        print(f"lowest fraction of copy (cases moving >= 64 MiB): {w.frac:.2f} "
              f"({w.case.label}, {w.case.dtype}, {w.moved / MiB:.0f} MiB)")
    else:
        print("lowest fraction of copy (cases moving >= 64 MiB): no such case at this n")
    return 1 if failed or differ else 0


# --------------------------------------------------------------------------- main
def options(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=None,
                    help="rows of the particle arrays, a power of two (default 2**25; "
                         "--quick 2**20; --self-test 2**12)")
    ap.add_argument("--quick", action="store_true",
                    help="n = 2**20, k in 1,2,3,4,7,16, fewer reps (also XSTRIDE_BENCH_QUICK=1)")
    ap.add_argument("--only", default="", help="only the cases whose text (group, case, dtype) "
                                                "contains this")
    ap.add_argument("--reps", type=int, default=None, help="most timed calls per case (20)")
    ap.add_argument("--budget", type=float, default=None,
                    help="seconds of timed calls per case and library (0.1); at least 3 calls")
    ap.add_argument("--other-dtypes", action="store_true",
                    help="also the group of " + ", ".join(OTHER_DTYPES) + " arrays")
    ap.add_argument("--medium", action="store_true",
                    help="also the group of medium rows, (4n/k, k) for k = "
                         + ", ".join(map(str, MEDIUM_KS)) + ": " + ", ".join(MEDIUM_DTYPES))
    ap.add_argument("--fresh", action="store_true",
                    help="cold start only: first call vs steady time of add and sum")
    ap.add_argument("--fresh-child", choices=("cupy", "xstride"), help=argparse.SUPPRESS)
    ap.add_argument("--self-test", action="store_true",
                    help="run the cases, checks and tables on NumPy on the host (no CuPy)")
    args = ap.parse_args(argv)
    args.quick = args.quick or os.environ.get("XSTRIDE_BENCH_QUICK") == "1"
    if args.self_test:
        default_n, ks, sizes, reps, budget, small_reps = 2 ** 12, (1, 3, 16), (10, 1000), 2, 0.0, 3
    elif args.quick:
        default_n, ks, sizes, reps, budget, small_reps = (2 ** 20, (1, 2, 3, 4, 7, 16),
                                                          (10, 100, 1000, 10000), 10, 0.05, 50)
    else:
        default_n, ks, sizes, reps, budget, small_reps = (2 ** 25, tuple(range(1, 17)),
                                                          (10, 100, 1000, 10000), 20, 0.1, 200)
    args.n = args.n or default_n
    args.ks, args.sizes, args.small_reps = ks, sizes, small_reps
    args.reps = args.reps or reps
    args.budget = budget if args.budget is None else args.budget
    return args


def main(argv=None) -> int:
    args = options(argv)
    if args.fresh_child:
        fresh_child(args.fresh_child, args.n)
        return 0
    cases = make_cases(args.n, args.ks, args.sizes,
                       OTHER_DTYPES if args.other_dtypes else (), args.medium)
    cases = [c for c in cases if args.only in f"{c.group} {c.label} {c.dtype}"]
    import xstride as xp

    if args.self_test:
        import numpy as np

        dev = Device(np, gpu=False, copy_reps=3)
        print(C.header(f"shape sweep self-test on NumPy (host timers), n = {args.n}"))
    else:
        C.require_device("shapes")
        if args.fresh:
            return fresh(args.n)
        import cupy as cp

        dev = Device(cp, gpu=True, copy_reps=10 if args.quick else 20)
        print(C.header(f"shape sweep, n = {args.n} (2**{args.n.bit_length() - 1})"))
    print(f"{len(cases)} cases; k = {','.join(map(str, args.ks))}; ms per call unless stated; "
          "ratio = CuPy time / xstride time (above 1: xstride faster); of copy = bytes read "
          f"+ written per second over a device copy's; bound: of copy at {BLOCK}-byte blocks' "
          "traffic")
    return run_sweep(dev, xp, cases, args)


if __name__ == "__main__":
    raise SystemExit(main())
