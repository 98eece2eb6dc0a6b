"""benchmarks/particles.py on the host at a tiny size: every row runs and agrees with the
NumPy composition it stands beside."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "particles.py"


def test_particles_benchmark_runs_on_the_host():
    r = subprocess.run([sys.executable, str(SCRIPT), "--n", "5000"], capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    rows = [line for line in r.stdout.splitlines() if line.startswith("| ") and "ms" not in line]
    names = ["sort_by_key, 30-bit", "sort_by_key, 64-bit", "run_length_encode", "reduce_by_key",
             "segment_reduce", "bin_offsets", "compact", "voxel_downsample", "morton_tree"]
    assert len(rows) == len(names)
    for row, name in zip(rows, names):
        assert name in row and ("exact" in row or "| ok" in row), row
    assert "NumPy composition ms" in r.stdout and "host, 5,000 points" in r.stdout


def test_only_and_bad_n():
    r = subprocess.run([sys.executable, str(SCRIPT), "--n", "3000", "--only", "voxel"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and r.stdout.count("voxel_downsample") == 1
    assert "morton_tree" not in r.stdout
    r = subprocess.run([sys.executable, str(SCRIPT), "--n", "1"], capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 2 and "--n must be at least 2" in r.stderr
