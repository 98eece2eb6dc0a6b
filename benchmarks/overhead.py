"""Time xstride adds to a call over calling array_api_compat.numpy directly.

Small (8-element) arrays, so the call overhead dominates; ``copy_into`` against
``numpy.copyto`` (array_api_compat has none). The two namespaces are
timed in alternation (7 rounds; each round takes the fastest of several repeats, the
usual way to keep other processes out of a micro-benchmark), and the table gives the
median over rounds of each time and of the per-round difference. Target: at most
0.5 us added per call on a 2-core CI machine.
"""

from __future__ import annotations

import os
import statistics
import timeit

import _common  # noqa: F401  (puts the checkout on sys.path)
import array_api_compat.numpy as cnp
import numpy as np

import xstride as xp

CASES = {
    "add": ("ns.add(a, b)", {}),
    "sum": ("ns.sum(a)", {}),
    "asarray": ("ns.asarray(lst)", {}),
    "reshape": ("ns.reshape(a, (2, 4))", {}),
    "multiply scalar": ("ns.multiply(a, 2.0)", {}),
    "prod": ("ns.prod(a)", {}),
    "min": ("ns.min(a)", {}),
    "max": ("ns.max(a)", {}),
    "max axis 0 of (4, 2)": ("ns.max(m, axis=0)", {}),
    "mean": ("ns.mean(a)", {}),
    "var": ("ns.var(a)", {}),
    "std": ("ns.std(a)", {}),
    "all": ("ns.all(t)", {}),
    "any": ("ns.any(t)", {}),
    "argmax": ("ns.argmax(a)", {}),
    "argmin axis 0 of (4, 2)": ("ns.argmin(m, axis=0)", {}),
    "cumulative_sum": ("ns.cumulative_sum(a)", {}),
    "cumulative_prod axis 0 of (4, 2)": ("ns.cumulative_prod(m, axis=0)", {}),
    "add out=": ("ns.add(a, b, out=o)", {}),
    "negative out=": ("ns.negative(a, out=o)", {}),
    "copy_into (numpy.copyto)": ("xp.copy_into(o, a)", {"base": "np.copyto(o, a)"}),
}


# XSTRIDE_BENCH_QUICK=1: a few iterations only (the test that the script runs)
QUICK = os.environ.get("XSTRIDE_BENCH_QUICK") == "1"


def per_call(stmt: str, ns, number: int = 200 if QUICK else 20000,
             repeat: int = 3 if QUICK else 7) -> float:
    env = {"ns": ns, "a": cnp.arange(8.0), "b": cnp.ones(8), "lst": list(range(8)),
           "m": cnp.reshape(cnp.arange(8.0), (4, 2)), "t": cnp.ones(8, dtype=cnp.bool),
           "o": cnp.empty(8), "np": np, "xp": xp}
    return min(timeit.repeat(stmt, globals=env, number=number, repeat=repeat)) / number


def main() -> None:
    rows = []
    for name, (stmt, extra) in CASES.items():
        # interleave to share the machine's noise between the two
        base, ours = [], []
        for _ in range(2 if QUICK else 7):  # alternate, so both see the same noise
            base.append(per_call(extra.get("base", stmt), cnp))
            ours.append(per_call(stmt, xp))
        added = statistics.median(o - b for b, o in zip(base, ours))
        rows.append((name, statistics.median(base) * 1e6, statistics.median(ours) * 1e6,
                     added * 1e6))
    print(_common.header("overhead: xstride vs array_api_compat.numpy, 8-element arrays"))
    _common.print_table(["function", "compat (us)", "xstride (us)", "added (us)"], rows)
    print("(each column a median over rounds; 'added' is the median of the rounds' "
          "differences, not the difference of the two medians)")
    worst = max(rows, key=lambda r: r[3])
    print(f"median added per call, worst function: {worst[3]:.3f} us, {worst[0]} "
          f"(target <= 0.5 us)")


if __name__ == "__main__":
    main()
