"""``python -m xstride bench``: runs the scripts of ``benchmarks/`` from a checkout."""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

_DIR = Path(__file__).resolve().parents[1] / "benchmarks"


def run(names) -> int:
    if not _DIR.is_dir():
        print(f"benchmarks/ not found beside the package ({_DIR}); run from a checkout")
        return 2
    scripts = sorted(p for p in _DIR.glob("*.py") if not p.name.startswith("_"))
    chosen = [p for p in scripts if not names or p.stem in names]
    unknown = set(names) - {p.stem for p in scripts}
    if unknown:
        print(f"unknown benchmark(s): {', '.join(sorted(unknown))}; "
              f"known: {', '.join(p.stem for p in scripts)}")
        return 2
    for path in chosen:
        print(f"== {path.stem} ==", flush=True)
        sys.argv = [str(path)]
        runpy.run_path(str(path), run_name="__main__")
    return 0
