"""benchmarks/layers.py: the hop-by-hop walk of one call through the layers, on NumPy."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "benchmarks" / "layers.py"
LAYERS = {"core", "plans", "host", "kernels", "backends", "public", "cli", "?"}

HEADER = re.compile(r"# .+  \(backend numpy, n=\d+\)")
SECTION = re.compile(r"## (first|repeat) call")
HOP = re.compile(r"([> ]) (\S+) +(xstride/\S+\.py):(\S+?)(  <- (\S+))?")
SUMMARY = re.compile(r"(first|repeat) call: (\d+) calls, (\d+) moves")


def _load():
    """benchmarks/layers.py as a module (benchmarks/ is no package)."""
    name = "xstride_bench_layers"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, SCRIPT)
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod      # dataclasses look their module up while it runs
        spec.loader.exec_module(mod)
    return sys.modules[name]


def _check_output(text: str) -> dict:
    """Every line in the documented format; hop and '>' counts match the summaries."""
    lines = text.splitlines()
    assert HEADER.fullmatch(lines[0]), lines[0]
    counts, section, hops, moved = {}, None, 0, 0
    for line in lines[1:]:
        if m := SECTION.fullmatch(line):
            section, hops, moved = m.group(1), 0, 0
        elif m := HOP.fullmatch(line):
            assert section is not None
            assert m.group(2) in LAYERS, line
            assert (m.group(1) == ">") == (m.group(6) is not None), line
            assert m.group(6) is None or (m.group(6) in LAYERS and m.group(6) != m.group(2))
            hops += 1
            moved += m.group(1) == ">"
        elif m := SUMMARY.fullmatch(line):
            assert m.group(1) == section
            calls, moves = int(m.group(2)), int(m.group(3))
            assert calls >= 0 and moves >= 0
            assert (calls, moves) == (hops, moved), line
            counts[section] = (calls, moves)
        else:
            raise AssertionError(f"unexpected line: {line!r}")
    assert set(counts) == {"first", "repeat"}
    return counts


@pytest.mark.parametrize("case", ["add", "sum_axis0", "philox_uniform",
                                  "xp.multiply(xp.asarray(a), 2.0)"])
def test_script_on_numpy_prints_hops_and_counts(case):
    env = {**os.environ, "XSTRIDE_BENCH_QUICK": "1"}
    r = subprocess.run([sys.executable, str(SCRIPT), case, "--backend", "numpy"],
                       capture_output=True, text=True, env=env, timeout=300, cwd=REPO)
    assert r.returncode == 0, r.stderr
    counts = _check_output(r.stdout)
    assert counts["first"][0] >= 1          # the call entered xstride


def test_script_without_a_case_traces_each_built_in_case_in_turn():
    """``python -m xstride bench`` runs the script with no arguments: that traced nothing
    and exited 2 (argparse: 'case' is required); now each built-in case runs in turn."""
    mod = _load()
    env = {**os.environ, "XSTRIDE_BENCH_QUICK": "1"}
    r = subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True,
                       env=env, timeout=300, cwd=REPO)
    assert r.returncode == 0, r.stderr
    blocks = re.split(r"\n(?=# )", r.stdout.strip())
    assert [b.splitlines()[0].split("  (")[0] for b in blocks] == \
        [f"# {src}" for src in mod.CASES.values()]
    for block in blocks:
        assert _check_output(block)["first"][0] >= 1


def test_run_in_process_returns_the_printed_counts():
    mod = _load()
    lines = []
    counts = mod.run("sum_axis0", "numpy", n=8, out=lines.append)
    assert _check_output("\n".join(lines)) == counts
    assert all(isinstance(v, int) and v >= 0 for pair in counts.values() for v in pair)


def test_trace_counts_moves_with_foreign_frames_transparent(tmp_path, monkeypatch):
    """A made-up package: public -> plans -> core, with calls relayed through a module
    outside the package (transparent: the caller is the nearest package frame). The
    shared core is no layer of the stack: calls into it are no moves."""
    pkg = tmp_path / "fakexs_trace"
    (pkg / "_plans").mkdir(parents=True)
    (pkg / "_core").mkdir()
    for d in (pkg, pkg / "_plans", pkg / "_core"):
        (d / "__init__.py").write_text("")
    (tmp_path / "fakexs_relay.py").write_text("def call(f, *a):\n    return f(*a)\n")
    (pkg / "views.py").write_text("from fakexs_trace._plans import plan\n\n"
                                  "def entry():\n    return plan.make(3)\n")
    (pkg / "_plans" / "plan.py").write_text(
        "import fakexs_relay\nfrom fakexs_trace._core import errors\n\n"
        "def make(n):\n    errors.check(n)\n    return fakexs_relay.call(lambda: step(n))\n\n"
        "def step(n):\n    return errors.check(n) + 1\n")
    (pkg / "_core" / "errors.py").write_text(
        "import fakexs_relay\n\ndef check(n):\n    return fakexs_relay.call(_inner, n)\n\n"
        "def _inner(n):\n    return n\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import fakexs_trace.views as views

    mod = _load()
    result, hops = mod.trace(views.entry, pkg)
    assert result == 4
    got = [(h.depth, h.layer, h.where.split("/", 1)[1], h.moved_from) for h in hops]
    assert got == [
        (0, "public", "views.py:entry", None),
        (1, "plans", "_plans/plan.py:make", "public"),
        (2, "core", "_core/errors.py:check", None),
        (3, "core", "_core/errors.py:_inner", None),
        (2, "plans", "_plans/plan.py:make.<locals>.<lambda>", None),
        (3, "plans", "_plans/plan.py:step", None),
        (4, "core", "_core/errors.py:check", None),
        (5, "core", "_core/errors.py:_inner", None),
    ]
    assert mod.moves(hops) == 1
    assert sys.getprofile() is None
    out = mod.format_hops(hops)
    assert out[1] == "> plans      fakexs_trace/_plans/plan.py:make  <- public"
