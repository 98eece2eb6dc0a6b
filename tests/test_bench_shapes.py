"""benchmarks/shapes.py (issue 14's sweep) on the CPU: its cases, its check, its tables
(the self-test runs them on NumPy), and the one-line skip without a device."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"
SCRIPT = BENCH / "shapes.py"


@pytest.fixture(scope="module")
def shapes():
    sys.path.insert(0, str(BENCH))
    try:
        import shapes as mod
        yield mod
    finally:
        sys.path.remove(str(BENCH))


def test_default_cases_cover_the_issue(shapes):
    args = shapes.options([])
    assert args.n == 2 ** 25 and args.n * 3 * 4 == 2 ** 25 * 3 * 4
    cases = shapes.make_cases(args.n, args.ks, args.sizes)
    n = args.n
    keys = [(c.label, c.dtype) for c in cases]
    assert len(keys) == len(set(keys))
    for k in range(1, 17):
        for group, base, view in (("particles", (n, k), ""), ("transposes", (k, n), ".T")):
            got = {(c.op, c.axis) for c in cases if c.group == group and c.base == base
                   and c.view == view}
            assert got == set(shapes.PARTICLE_OPS), (group, k)
    assert {c.dtype for c in cases} == {"float32", "float64", "int64", "bool"}
    assert {c.op for c in cases if c.dtype == "bool"} == {"all", "any"}
    assert {c.op for c in cases} == set(shapes.OPS)
    assert {len(c.base) for c in cases if c.group == "ranks"} == {1, 2, 3, 4}
    assert all(int(np.prod(c.base)) == 3 * n for c in cases if c.group == "ranks")
    assert any(c.axis == 1 and len(c.base) == 3 for c in cases)          # a middle axis
    assert any(isinstance(c.axis, tuple) for c in cases)                 # several axes
    assert {c.view for c in cases} == set(shapes.VIEWS)
    small = {(c.base, c.op) for c in cases if c.small}
    assert small == {((s,), op) for s in (10, 100, 1000, 10000)
                     for op in ("add", "sum", "max", "cumulative_sum")}
    with pytest.raises(ValueError):
        shapes.make_cases(3 * 2 ** 20, args.ks, args.sizes)


def test_medium_rows_on_request(shapes):
    """``--medium``: (4n/k, k) arrays of five dtypes at k = 17-256, each numeric one
    with the same eight operations, bool with all/any/argmax; not in the default run."""
    args = shapes.options(["--medium"])
    assert args.medium and not shapes.options([]).medium
    n = 2 ** 20
    plain = shapes.make_cases(n, args.ks, args.sizes)
    cases = shapes.make_cases(n, args.ks, args.sizes, medium=True)
    medium = [c for c in cases if c.group == "medium"]
    assert not any(c.group == "medium" for c in plain)
    assert len(cases) == len(plain) + len(medium)
    assert {c.base[1] for c in medium} == set(shapes.MEDIUM_KS)
    assert all(c.base[0] == 4 * n // c.base[1] and c.view == "" for c in medium)
    for dt in shapes.MEDIUM_DTYPES:
        for k in shapes.MEDIUM_KS:
            got = {(c.op, c.axis) for c in medium if c.dtype == dt and c.base[1] == k}
            want = shapes.MEDIUM_BOOL_OPS if dt == "bool" else shapes.MEDIUM_OPS
            assert got == set(want), (dt, k)
    keys = [(c.label, c.dtype) for c in cases]
    assert len(keys) == len(set(keys))


def test_quick_mode(shapes, monkeypatch):
    assert shapes.options(["--quick"]).n == 2 ** 20
    monkeypatch.setenv("XSTRIDE_BENCH_QUICK", "1")
    args = shapes.options([])
    assert args.quick and args.n == 2 ** 20 and args.reps <= 10


def test_check_flags_differences(shapes):
    case = shapes.Case("particles", "(n,3)", "float32", (8, 3), "", "sum", 1)
    a = np.arange(24, dtype=np.float32).reshape(8, 3)
    want = a.sum(axis=1)
    assert shapes.check(np, case, a, None, want.copy(), want) == ("exact", True)
    text, ok = shapes.check(np, case, a, None, want + 1, want)
    assert not ok and text.endswith("!")
    text, ok = shapes.check(np, case, a, None, want * (1 + 1e-6), want)
    assert ok and "/" in text
    assert shapes.check(np, case, a, None, want[:4], want)[1] is False
    imax = shapes.Case("dtypes", "(n,3)", "int64", (8, 3), "", "max", 0)
    b = a.astype(np.int64)
    assert shapes.check(np, imax, b, None, b.max(axis=0), b.max(axis=0)) == ("exact", True)
    text, ok = shapes.check(np, imax, b, None, b.max(axis=0) + 1, b.max(axis=0))
    assert not ok and text.startswith("3 differ")
    text, ok = shapes.check(np, case, a, None, want.astype(np.float64), want)
    assert not ok and "dtype" in text


def test_self_test_runs_every_group_on_numpy():
    r = subprocess.run([sys.executable, str(SCRIPT), "--self-test"], capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    out = r.stdout
    titles = [line for line in out.splitlines() if line.startswith("### ")]
    assert len(titles) == 7, titles
    for title in ("particle arrays (n, k)", "transposes", "views", "ranks 1-4",
                  "float64, int64, bool", "prod, min, mean, var, std", "small arrays"):
        assert any(title in t for t in titles), title
    assert "| case " in out and "xstride us/call" in out and "FAILED" not in out
    last = out.strip().splitlines()[-4:]
    assert "0 failed; 0 differ" in last[0]
    assert last[1].startswith("worst ratio to CuPy: ")
    assert re.fullmatch(r"slower than CuPy: \d+ of \d+ cases", last[2]), last[2]
    assert last[3].startswith("lowest fraction of copy (cases moving >= 64 MiB): ")


def test_without_a_device_one_line_and_exit_0():
    env = {**os.environ, "CUDA_VISIBLE_DEVICES": ""}
    for extra in ([], ["--fresh"], ["--quick"]):
        r = subprocess.run([sys.executable, str(SCRIPT), *extra], capture_output=True,
                           text=True, timeout=120, env=env)
        assert r.returncode == 0, r.stdout + r.stderr
        assert r.stderr == ""
        lines = r.stdout.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(
            "shapes: skipped: it needs CuPy and a GPU"), lines
