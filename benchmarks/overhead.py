"""Time xstride adds to a call over calling array_api_compat.numpy directly.

Small (8-element) arrays, so the call overhead dominates. Prints, per function, the
median time per call through each namespace and the difference. Target: at most
0.5 us added per call on a 2-core CI machine.
"""

from __future__ import annotations

import os
import statistics
import timeit

import _common  # noqa: F401  (puts the checkout on sys.path)
import array_api_compat.numpy as cnp

import xstride as xp

CASES = {
    "add": ("ns.add(a, b)", {}),
    "sum": ("ns.sum(a)", {}),
    "asarray": ("ns.asarray(lst)", {}),
    "reshape": ("ns.reshape(a, (2, 4))", {}),
    "multiply scalar": ("ns.multiply(a, 2.0)", {}),
}


# XSTRIDE_BENCH_QUICK=1: a few iterations only (the test that the script runs)
QUICK = os.environ.get("XSTRIDE_BENCH_QUICK") == "1"


def per_call(stmt: str, ns, number: int = 200 if QUICK else 20000,
             repeat: int = 3 if QUICK else 15) -> float:
    env = {"ns": ns, "a": cnp.arange(8.0), "b": cnp.ones(8), "lst": list(range(8))}
    times = timeit.repeat(stmt, globals=env, number=number, repeat=repeat)
    return statistics.median(times) / number


def main() -> None:
    rows = []
    for name, (stmt, _) in CASES.items():
        # interleave to share the machine's noise between the two
        base, ours = [], []
        for _ in range(3):
            base.append(per_call(stmt, cnp))
            ours.append(per_call(stmt, xp))
        b, o = statistics.median(base), statistics.median(ours)
        rows.append((name, b * 1e6, o * 1e6, (o - b) * 1e6))
    print(_common.header("overhead: xstride vs array_api_compat.numpy, 8-element arrays"))
    _common.print_table(["function", "compat (us)", "xstride (us)", "added (us)"], rows)
    worst = max(r[3] for r in rows)
    print(f"median added per call, worst function: {worst:.3f} us (target <= 0.5 us)")


if __name__ == "__main__":
    main()
