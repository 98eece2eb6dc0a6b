"""``python -m xstride bench``: runs the scripts of ``benchmarks/`` from a checkout."""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

_DIR = Path(__file__).resolve().parents[2] / "benchmarks"


def run(names) -> int:
    if not _DIR.is_dir():
        print(f"benchmarks/ not found beside the package ({_DIR}); run from a checkout")
        return 2
    # run_all.py is the GPU driver, not a benchmark of its own
    scripts = sorted(p for p in _DIR.glob("*.py")
                     if not p.name.startswith("_") and p.stem != "run_all")
    chosen = [p for p in scripts if not names or p.stem in names]
    unknown = set(names) - {p.stem for p in scripts}
    if unknown:
        print(f"unknown benchmark(s): {', '.join(sorted(unknown))}; "
              f"known: {', '.join(p.stem for p in scripts)}")
        return 2
    # the scripts import their shared helpers (benchmarks/_common.py) by name
    if str(_DIR) not in sys.path:
        sys.path.insert(0, str(_DIR))
    failed = []
    for path in chosen:
        print(f"== {path.stem} ==", flush=True)
        sys.argv = [str(path)]
        try:
            runpy.run_path(str(path), run_name="__main__")
        except SystemExit as exc:
            if exc.code not in (0, None):
                failed.append(path.stem)
        except Exception as exc:  # one broken benchmark must not hide the others
            print(f"{path.stem}: failed: {type(exc).__name__}: {exc}")
            failed.append(path.stem)
    if failed:
        print(f"failed: {', '.join(failed)}")
    return 1 if failed else 0
