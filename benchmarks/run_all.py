"""Run the GPU benchmarks one after another (each in its own process) and summarise.

Usage: ``python benchmarks/run_all.py [name ...]`` (default: elementwise, reductions,
rng, morton, particles, particle_calls; ``shapes``, the 2-3 minute sweep of issue 14, only when named). Each script prints its own table; the summary at the end gives each
script's exit status and wall time, so a failed script is not mistaken for a slow one.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT = ("elementwise", "reductions", "rng", "morton", "particles", "particle_calls")


def main(names) -> int:
    names = names or [n for n in DEFAULT if (HERE / f"{n}.py").exists()]
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    summary = []
    for name in names:
        print(f"\n===== {name} =====", flush=True)
        t0 = time.perf_counter()
        rc = subprocess.call([sys.executable, str(HERE / f"{name}.py")], env=env)
        summary.append((name, rc, time.perf_counter() - t0))
    print("\n| benchmark | exit | wall (s) |\n|---|---|---|")
    for name, rc, wall in summary:
        print(f"| {name} | {rc} | {wall:.1f} |")
    return max((rc for _, rc, _ in summary), default=0)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
