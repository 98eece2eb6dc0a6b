"""Time of ``import xstride`` and of the demo's whole process, in fresh interpreters.

For each checkout (this one, and any given with ``--against DIR``), in alternation:
``python -X importtime -c "import xstride"`` (the ``xstride`` line's self and
cumulative microseconds) and ``python -m xstride demo --backend B --points FILE``
(process wall time, and CPU time from the children's ``getrusage``). Prints the
median of ``--runs`` runs of each and the runs themselves. ``--uncached`` runs every
process without cached bytecode (``-B`` and a fresh ``PYTHONPYCACHEPREFIX``), as on a
machine that cannot write ``__pycache__``. See docs/performance.md, "Import time".

    python benchmarks/import_time.py                                  # this checkout
    python benchmarks/import_time.py --against ../main --runs 7       # before / after
    python benchmarks/import_time.py --backend cupy                   # the H200 target
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
_SHARED = [Path(os.environ["XSTRIDE_SHARED"])] if os.environ.get("XSTRIDE_SHARED") else []
DEFAULT_POINTS = next((d / "data" / "bunny.ply" for d in _SHARED + [HERE.parent / "shared",
                                                                  HERE / "shared"]
                       if (d / "data" / "bunny.ply").is_file()), None)
QUICK = os.environ.get("XSTRIDE_BENCH_QUICK") == "1"
_LINE = re.compile(r"import time:\s+(\d+) \|\s+(\d+) \| xstride$", re.M)


def _env(uncached: bool) -> tuple[list[str], dict]:
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)  # the checkout's folder (cwd) comes first
    if not uncached:
        return [sys.executable], env
    env["PYTHONPYCACHEPREFIX"] = tempfile.mkdtemp(prefix="xstride-nocache-")
    return [sys.executable, "-B"], env


def import_time(tree: Path, uncached: bool) -> tuple[float, float]:
    """``(self, cumulative)`` milliseconds of the ``xstride`` line of ``-X importtime``."""
    cmd, env = _env(uncached)
    r = subprocess.run(cmd + ["-X", "importtime", "-c", "import xstride"], cwd=tree,
                       env=env, capture_output=True, text=True, check=True)
    m = _LINE.search(r.stderr)
    return int(m.group(1)) / 1e3, int(m.group(2)) / 1e3


def demo_time(tree: Path, uncached: bool, demo_args: list[str]) -> tuple[float, float]:
    """``(wall, cpu)`` seconds of one ``python -m xstride demo`` process."""
    cmd, env = _env(uncached)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    r = subprocess.run(cmd + ["-m", "xstride", "demo"] + demo_args, cwd=tree, env=env,
                       capture_output=True, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode != 0:
        raise SystemExit(f"demo failed in {tree}: {r.stderr.strip()}")
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return wall, cpu


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--against", action="append", default=[], metavar="DIR",
                   help="another checkout to time in alternation (e.g. main)")
    p.add_argument("--runs", type=int, default=1 if QUICK else 5)
    p.add_argument("--uncached", action="store_true", help="no cached bytecode")
    p.add_argument("--backend", default="numpy")
    p.add_argument("--points", default=None if DEFAULT_POINTS is None else str(DEFAULT_POINTS),
                   help="point file of the demo (default: shared/data/bunny.ply where found, "
                        "else 100,000 generated points)")
    args = p.parse_args(argv)
    demo_args = ["--backend", args.backend]
    demo_args += ["--points", args.points] if args.points else ["--n", "100000"]
    trees = [HERE] + [Path(d).resolve() for d in args.against]
    rows = {t: {"import self ms": [], "import cum ms": [], "demo wall s": [], "demo cpu s": []}
            for t in trees}
    for _ in range(args.runs):
        for t in trees:
            s, c = import_time(t, args.uncached)
            w, u = demo_time(t, args.uncached, demo_args)
            for key, v in zip(rows[t], (s, c, w, u)):
                rows[t][key].append(v)
    print(f"# {args.runs} runs, {'no cached bytecode' if args.uncached else 'cached bytecode'}, "
          f"demo {' '.join(demo_args)}")
    for t, cols in rows.items():
        print(f"tree {t}:")
        for key, vals in cols.items():
            runs = ", ".join(f"{v:.3g}" for v in vals)
            print(f"  {key:<15} median {statistics.median(vals):8.3g}   ({runs})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
