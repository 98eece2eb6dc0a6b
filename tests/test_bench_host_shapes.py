"""benchmarks/host_shapes.py at a tiny size: every case runs and equals NumPy."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "host_shapes.py"


def test_host_shapes_runs_and_agrees_with_numpy():
    r = subprocess.run([sys.executable, str(SCRIPT), "--size", "20000", "--reps", "1",
                        "--only", "k=3 "], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    rows = [ln for ln in r.stdout.splitlines() if ln.startswith("| ") and "xstride ms" not in ln]
    # 5 functions, 11 dtypes in all, 2 layouts, 2 axes
    assert len(rows) == 11 * 4 and all(ln.rstrip().endswith("| exact |") for ln in rows)
    assert "0 differ from NumPy" in r.stdout and "worst ratio to NumPy" in r.stdout


def test_bad_size():
    r = subprocess.run([sys.executable, str(SCRIPT), "--size", "3"], capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 2 and "--size must be at least 16" in r.stderr
