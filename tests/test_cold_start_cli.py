"""Issue 14, cold start, on the command line: ``python -m xstride info --kernels`` and the
demo's per-stage compile and run times (the record itself: test_compile_record.py)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from xstride.__main__ import main
from xstride._cli import demo as _demo
from xstride._cli import kernels as _kernels
from xstride._cli.timing import StepTime, timed_step
from xstride._kernels import _compile, _compile_log

ROOT = Path(__file__).resolve().parents[1]
STEP_KEYS = {"name", "seconds", "run_seconds", "compile_seconds", "kernels_compiled"}


@pytest.fixture(autouse=True)
def fresh_record(monkeypatch):
    monkeypatch.delenv("XSTRIDE_LOG_KERNELS", raising=False)
    _compile.reset_record()
    yield
    _compile.reset_record()


def fake_compile(seconds: float, name: str = "k"):
    """What a kernel compile leaves in the record, taking ``seconds``."""
    _compile_log.timed(lambda: time.sleep(seconds), name, "x.cu", (), 0)


# --------------------------------------------------------------------- timing of a step
def test_a_step_is_timed_between_two_synchronisations_with_its_compiles_apart():
    events = []

    def fn():
        events.append("fn")
        fake_compile(0.03)
        time.sleep(0.02)
        return 7

    result, t = timed_step(lambda: events.append("sync"), fn)
    assert result == 7 and events == ["sync", "fn", "sync"]
    assert t.kernels == 1 and t.compile_seconds >= 0.03 and t.seconds >= 0.05
    assert t.run_seconds == pytest.approx(t.seconds - t.compile_seconds) and t.run_seconds >= 0.02
    assert t.as_dict() == {"seconds": t.seconds, "run_seconds": t.run_seconds,
                           "compile_seconds": t.compile_seconds, "kernels_compiled": 1}
    assert StepTime(0.1, 0.2, 1).run_seconds == 0.0     # never negative


def test_demo_stages_count_the_compiles_of_each_stage():
    syncs = []
    stages = _demo._Stages(lambda: syncs.append(1), None)
    stages.run("a", lambda: fake_compile(0.0, "k1") or fake_compile(0.0, "k2"))
    stages.run("b", lambda: None)
    assert [(name, t.kernels) for name, t in stages.times] == [("a", 2), ("b", 0)]
    assert len(syncs) == 4


# --------------------------------------------------------------------- demo output
def test_demo_json_reports_compile_apart_from_run_in_every_stage(capsys):
    assert main(["demo", "--json", "--n", "3000"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert len(res["stages"]) == 7   # six pipeline stages and the Morton tree
    for st in res["stages"]:
        assert set(st) == STEP_KEYS
        assert st["compile_seconds"] == 0.0 and st["kernels_compiled"] == 0   # NumPy
        assert st["run_seconds"] == st["seconds"] >= 0
    assert res["compile_seconds"] == 0.0 and res["kernels_compiled"] == 0
    assert res["run_seconds"] == pytest.approx(res["total_seconds"])
    assert res["compiles_kernels"] is False and res["cupy_compiles_recorded"] is False


def test_demo_table_has_run_and_compile_columns(capsys):
    assert main(["demo", "--n", "2000"]) == 0
    out = capsys.readouterr().out
    assert "  stage                    run s  compile s  kernels" in out
    lines = out.splitlines()
    total = next(line for line in lines if line.startswith("  total "))
    assert total.split()[-2:] == ["0.0000", "0"]
    assert any(line.startswith("  wall (run + compile)") for line in lines)
    assert "not recorded" not in out      # the note is for a compiling backend only


def test_demo_table_notes_unrecorded_library_compiles():
    res = {"source": "s", "backend": "b", "points": 2, "ndim": 2, "levels": 3, "level_stats": 1,
           "cells_at_level": 4, "occupied_cells": 1, "occupied_fraction": 0.25,
           "occupancy": {"min": 2, "max": 2, "mean": 2.0},
           "bounding_box": {"lower": [0, 0], "upper": [1, 1]}, "checks": {"ok": True},
           "stages": [{"name": "keys", **StepTime(0.5, 0.4, 3).as_dict()}],
           "total_seconds": 0.5, "run_seconds": 0.1, "compile_seconds": 0.4,
           "kernels_compiled": 3, "compiles_kernels": True, "cupy_compiles_recorded": False}
    text = _demo._table(res)
    assert "  keys                    0.1000     0.4000        3" in text
    assert "CuPy's own kernel compiles are not recorded" in text


# --------------------------------------------------------------------- info --kernels
def test_info_kernels_on_numpy_says_nothing_compiles(capsys):
    assert main(["info", "--kernels"]) == 0
    out = capsys.readouterr().out
    assert "the numpy backend compiles no kernels" in out
    import numpy as np
    import xstride as xp

    names = [name for name, _ in _kernels._steps(xp, np, 1)]
    assert len(names) == 12 and all(f"  {name} " in out for name in names)
    total = next(line for line in out.splitlines() if line.startswith("  total "))
    assert total.split()[-2:] == ["0.0000", "0"]


def test_info_kernels_json(capsys):
    assert main(["info", "--kernels", "--json", "--backend", "NumPy"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["backend"] == "numpy" and res["compiles_kernels"] is False
    assert res["rows"] == _kernels.WORKLOAD_ROWS and res["kernels"] == []
    assert len(res["steps"]) == 12 and all(set(s) == STEP_KEYS for s in res["steps"])
    assert all(s["kernels_compiled"] == 0 and s["seconds"] > 0 for s in res["steps"])
    assert res["total"]["kernels_compiled"] == 0
    assert res["total"]["seconds"] == pytest.approx(sum(s["seconds"] for s in res["steps"]))


def test_info_kernels_on_dask_times_the_work_not_the_graph(monkeypatch):
    """On dask a step built a lazy graph and was timed without running it (the table
    showed the time to build graphs, and CuPy chunks' compiles would never happen):
    each step now persists its result, so its time holds the work."""
    import dask
    import dask.array as da
    import numpy as np

    def slow():
        time.sleep(0.3)
        return np.zeros(3)

    def steps(xp, am, n, finish=lambda r: r):
        return [("slow", lambda: finish(da.from_delayed(dask.delayed(slow)(), (3,), float)))]

    monkeypatch.setattr(_kernels, "_steps", steps)
    res = _kernels.collect("dask")
    assert res["backend"] == "dask" and res["compiles_kernels"] is False
    assert res["steps"][0]["seconds"] >= 0.3
    # its chunks' functions are NumPy's loops (the text said the library's own: NumPy's)
    assert res["chunk_backend"] == "numpy" and "its chunks are numpy arrays, whose " \
        "functions are that library's compiled loops" in _kernels._table(res)


def test_info_kernels_table_lists_each_compile():
    res = {"backend": "gpu", "compiles_kernels": True, "cupy_compiles_recorded": True,
           "rows": 10, "steps": [{"name": "sum axis=1", **StepTime(0.3, 0.25, 1).as_dict()}],
           "kernels": [{"name": "reduce<float>", "source": "reductions.cu", "options": "ab",
                        "seconds": 0.25, "device": 0, "kind": "xstride"}],
           "total": {"seconds": 0.3, "run_seconds": 0.05, "compile_seconds": 0.25,
                     "kernels_compiled": 1}}
    text = _kernels._table(res)
    assert "    0.2500  xstride reductions.cu          reduce<float>" in text
    assert "compiles no kernels" not in text and "CUPY_CACHE_DIR" in text
    assert "not recorded" not in text
    res["cupy_compiles_recorded"] = False
    assert "CuPy's own compiles (operators on CuPy arrays) are not recorded" in _kernels._table(res)


def test_info_kernels_with_an_unavailable_backend_is_one_line(capsys, monkeypatch):
    from xstride import _backends

    def fail():
        raise RuntimeError("backend 'cupy' is unavailable: test says no")

    monkeypatch.setattr(_backends.get("cupy"), "load", fail)
    assert main(["info", "--kernels", "--backend", "cupy"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.strip() == \
        "xstride info: error: backend 'cupy' is unavailable: test says no"


def test_collect_with_an_unknown_backend_names_the_known_ones():
    with pytest.raises(_kernels.KernelsError, match="--backend must be one of numpy, cupy"):
        _kernels.collect("tpu")


@pytest.mark.parametrize("argv, needle", [
    (["info", "--kernals"], "unrecognized arguments: --kernals"),
    (["info", "--backend", "numpy"], "--backend goes with --kernels"),
    (["info", "--kernels", "--backend", "tpu"], "argument --backend: invalid choice: 'tpu'"),
])
def test_bad_info_arguments_are_clear_errors(capsys, argv, needle):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    captured = capsys.readouterr()
    assert needle in captured.err and captured.out == ""


def test_info_kernels_via_subprocess_with_the_switch_on():
    import os

    env = {**os.environ, "XSTRIDE_LOG_KERNELS": "1", "CUDA_VISIBLE_DEVICES": ""}
    proc = subprocess.run([sys.executable, "-m", "xstride", "info", "--kernels"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120, env=env)
    assert proc.returncode == 0, proc.stderr
    assert "compiles no kernels" in proc.stdout and proc.stderr == ""
