"""python -m xstride bench: runs the host benchmark from a checkout."""

from __future__ import annotations

import subprocess
import sys

import pytest


def test_bench_unknown_name_lists_known():
    r = subprocess.run([sys.executable, "-m", "xstride", "bench", "nope"], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 2
    assert "unknown benchmark(s): nope" in r.stdout and "overhead" in r.stdout
    assert "run_all" not in r.stdout


@pytest.mark.slow
def test_bench_overhead_runs_and_prints_table():
    r = subprocess.run([sys.executable, "-m", "xstride", "bench", "overhead"],
                       capture_output=True, text=True, timeout=300,
                       env={**__import__("os").environ, "XSTRIDE_BENCH_QUICK": "1"})
    assert r.returncode == 0, r.stdout + r.stderr
    assert "| add " in r.stdout and "added (us)" in r.stdout
