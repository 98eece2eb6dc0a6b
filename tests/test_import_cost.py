"""What ``import xstride`` and the first calls import (issue 14, "Cold start").

``import xstride`` imports NumPy and xstride's own small modules: no optional library,
no backend's ``array_api_compat`` namespace (whose clone of NumPy imports
``numpy.f2py``, ``numpy.testing`` and ``numpy.ma``), no executor. Each is imported
on first use. The checks run in fresh interpreters: this process has imported
everything already. docs/performance.md ("Import time") has the timings.
"""

from __future__ import annotations

import importlib.util
import inspect
import json
import os
import pickle
import subprocess
import sys

import array_api_compat.numpy as cnp
import numpy as np
import pytest

import xstride as xp
from xstride._backends import dispatch
from xstride._core import names

#: Libraries and NumPy submodules that ``import xstride`` must not import.
HEAVY = ("cupy", "cupyx", "dask", "distributed", "matplotlib", "plyfile", "array_api_compat")
HEAVY_NUMPY = ("numpy.f2py", "numpy.testing", "numpy.ma")

_LIST = ("print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in {heavy!r} "
         "or m in {numpy!r})))").format(heavy=HEAVY, numpy=HEAVY_NUMPY)


def _run(code: str, **env) -> subprocess.CompletedProcess:
    env = {**os.environ, "XSTRIDE_BACKEND": "numpy", **env}
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env=env, timeout=180)
    assert r.returncode == 0, r.stderr
    return r


def _lines(r) -> list:
    return [json.loads(line) for line in r.stdout.splitlines()]


def test_import_imports_no_optional_library_and_no_compat_namespace():
    r = _run(f"import json, sys, xstride\n{_LIST}\n"
             # the same list after a first call on NumPy arrays: the check sees imports
             # (asarray with a keyword is array_api_compat's; without one, NumPy's)
             "import xstride as xp\nxp.sum(xp.asarray([1.0, 2.0], copy=None), axis=0)\n"
             f"{_LIST}\n")
    before, after = _lines(r)
    assert before == []
    assert "array_api_compat.numpy" in after  # the namespace of the backend in use


def test_import_imports_no_executor_no_cli_no_toolkit():
    r = _run("import json, sys, xstride\n"
             "print(json.dumps(sorted(m for m in sys.modules if m.startswith((\n"
             "    'xstride._kernels.', 'xstride._host.', 'xstride._chunked.', "
             "'xstride._cli', 'xstride.cuda', 'xstride.fusion', 'xstride.linalg', "
             "'xstride.fft')))))\n")
    assert _lines(r) == [["xstride._chunked._config", "xstride._chunked.chunks",
                          "xstride._host._config", "xstride._kernels._headers"]]


def test_xstride_own_functions_need_no_compat_namespace():
    """The namespace functions that xstride implements on NumPy (the engine's, the
    reductions) get their names, docstrings and signatures without importing
    array_api_compat: a CuPy program that calls only them never loads NumPy's."""
    code = ("import inspect, json, sys, xstride as xp\n"
            "fs = [xp.add, xp.greater_equal, xp.where, xp.astype, xp.sum, xp.min, "
            "xp.max, xp.all, xp.argmax, xp.cumulative_sum]\n"
            "print(json.dumps([[f.__name__, bool(f.__doc__), "
            "list(inspect.signature(f).parameters)[:2]] for f in fs]))\n"
            f"{_LIST}\n")
    got, modules = _lines(_run(code))
    assert modules == []
    assert [g[0] for g in got] == ["add", "greater_equal", "where", "astype", "sum",
                                   "min", "max", "all", "argmax", "cumulative_sum"]
    assert all(g[1] for g in got)
    assert got[0][2] == ["x1", "x2"] and got[4][2] == ["x", "axis"]


def test_cupy_without_cupy_still_raises_the_clear_error():
    if importlib.util.find_spec("cupy") is not None:
        pytest.skip("CuPy is installed here: the error of a missing CuPy cannot happen")
    code = ("import json, sys, xstride as xp\n"
            "try:\n    xp.set_backend('cupy')\n"
            "except RuntimeError as exc:\n    print(json.dumps(str(exc)))\n"
            f"print(json.dumps(xp.get_backend()))\n{_LIST}\n")
    msg, backend, modules = _lines(_run(code))
    assert msg.startswith("set_backend: backend 'cupy' is unavailable: CuPy could not be "
                          "imported: ModuleNotFoundError")
    assert backend == "numpy" and modules == []


def test_demo_imports_neither_the_dask_demo_nor_the_kernel_toolkit():
    code = ("import contextlib, io, json, sys\n"
            "from xstride.__main__ import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    rc = main(['demo', '--backend', 'numpy', '--n', '2000', '--json'])\n"
            "print(json.dumps([rc] + sorted(m for m in sys.modules if m in (\n"
            "    'xstride._cli.dask_demo', 'xstride.cuda.kernel', 'xstride._kernels._compile',"
            " 'dask', 'distributed', 'plyfile', 'matplotlib', 'array_api_compat.numpy'))))\n")
    assert _lines(_run(code)) == [[0]]


def test_tree_and_voxels_on_numpy_import_no_compat_namespace():
    """``morton_tree`` and ``voxel_downsample`` on NumPy arrays call NumPy itself (the
    host executors), not the array-API namespace, whose clone of NumPy costs a fresh
    process 60-70 ms."""
    code = ("import json, sys, numpy as np, xstride as xp\n"
            "alg = xp.algorithms\n"
            "t = alg.morton_tree(np.array([0, 1, 1, 5], dtype=np.uint64), 2, 2)\n"
            "c, n = alg.voxel_downsample(np.array([[0.0, 0.0], [0.1, 0.1], [2.0, 2.0]],\n"
            "                            dtype=np.float16), 1.0)\n"
            "e = alg.voxel_downsample(np.empty((0, 3)), 1.0)\n"
            "print(json.dumps([t.keys[1].tolist(), t.parent[2].tolist(), c.dtype.name,\n"
            "                  c.tolist(), n.tolist(), [e[0].shape, e[1].dtype.name],\n"
            "                  'array_api_compat.numpy' in sys.modules]))\n")
    half = float(np.float16(0.05))   # the mean of float16 0 and 0.1, rounded to float16
    assert _lines(_run(code)) == [[[0, 1], [0, 0, 1], "float16", [[half, half], [2.0, 2.0]],
                                   [2, 1], [[0, 3], "int64"], False]]


# ---------------------------------------------------------------- in this process
def test_constants_and_dtypes_are_compat_numpys_objects():
    for n in names.CONSTANTS + names.DTYPES:
        a, b = getattr(xp, n), getattr(cnp, n)
        assert a is b or (n == "nan" and np.isnan(a) and np.isnan(b)), n


def test_wrappers_are_made_once_and_listed():
    assert xp.add is xp.add and xp.linalg.solve is xp.linalg.solve
    assert xp.fft.fftfreq is xp.fft.fftfreq
    assert set(xp.linalg.__all__) <= set(dir(xp.linalg)) and "solve" in dir(xp.linalg)
    ns: dict = {}
    exec("from xstride import *", ns)  # noqa: S102
    assert set(xp.__all__) <= set(ns)
    assert ns["sum"] is xp.sum and ns["linalg"] is xp.linalg
    with pytest.raises(AttributeError, match="no attribute 'not_a_function'"):
        xp.linalg.not_a_function
    # pickled by reference (dask sends them to workers): the same object comes back
    for fn in (xp.sum, xp.concat, xp.asarray, xp.linalg.solve, xp.fft.fftfreq):
        assert pickle.loads(pickle.dumps(fn)) is fn


def test_a_call_without_keywords_reaches_the_library_function_after_the_first():
    a = np.arange(3.0)
    np.testing.assert_array_equal(xp.subtract(a, a), np.zeros(3))
    assert dispatch._positional["subtract"] is cnp.subtract
    # hypot: not one of dispatch.NUMPY_OWN, so a stand-in until its first call
    stand_in = dispatch.deferred("numpy", "hypot", table := {})
    assert stand_in is not np.hypot
    table["hypot"] = stand_in
    np.testing.assert_array_equal(stand_in(a, a), np.hypot(a, a))
    assert table["hypot"] is cnp.hypot
    assert stand_in.__name__ == "hypot"


def test_signatures_of_lazily_made_reductions_are_shared():
    assert inspect.signature(xp.sum) is inspect.signature(dispatch.implementation("numpy", "sum"))
    assert list(inspect.signature(xp.var).parameters) == [
        "x", "axis", "correction", "keepdims", "dtype", "kwargs"]


def test_compile_stats_before_any_compile_imports_no_compiler():
    r = _run("import json, sys, xstride as xp\n"
             "xp.cuda.wait_for_compiles()\n"
             "print(json.dumps([xp.cuda.compile_stats(), 'xstride._kernels._compile' in "
             "sys.modules]))\n")
    assert _lines(r) == [[{"kernels": 0, "seconds": 0.0, "wall_seconds": 0.0,
                           "cupy_watched": False}, False]]


def test_import_time_benchmark_runs():
    r = subprocess.run([sys.executable, "-m", "xstride", "bench", "import_time"],
                       capture_output=True, text=True, timeout=300,
                       env={**os.environ, "XSTRIDE_BENCH_QUICK": "1"})
    assert r.returncode == 0, r.stdout + r.stderr
    out = r.stdout
    assert "# 1 runs, cached bytecode, demo --backend numpy" in out
    for key in ("import self ms", "import cum ms", "demo wall s", "demo cpu s"):
        assert key in out


def test_fix_modules_register_before_any_compat_fallback():
    """The array-API fixes (``_backends/fixes.py`` and its siblings) are imported on
    the first lookup of a name xstride does not implement itself, before that lookup
    could answer with array_api_compat's function."""
    code = ("import json, sys, xstride as xp\n"
            "from xstride._backends import dispatch\n"
            "fixes = ('xstride._backends.fixes', 'xstride._backends.size_checks', "
            "'xstride._backends.complex_special', 'xstride._backends.linalg_fixes')\n"
            "before = [m for m in fixes if m in sys.modules]\n"
            "xp.add  # xstride's own: no fix module needed\n"
            "own = [m for m in fixes if m in sys.modules]\n"
            "remainder = dispatch.implementation('cupy', 'remainder')\n"
            "from xstride._backends import fixes as f, size_checks as s\n"
            "print(json.dumps([before, own, [m for m in fixes if m in sys.modules],\n"
            "    remainder is f.remainder, dispatch.implementation('cupy', 'zeros') is s.zeros,"
            "    xp.finfo(xp.float32).eps]))\n")
    before, own, after, remainder, zeros, eps = _lines(_run(code))[0]
    assert before == [] and own == []
    assert sorted(after) == sorted(["xstride._backends.fixes", "xstride._backends.size_checks",
                                    "xstride._backends.complex_special",
                                    "xstride._backends.linalg_fixes"])
    assert remainder and zeros and eps == float(np.finfo(np.float32).eps)


def test_import_and_first_calls_without_docstrings():
    """``python -OO`` strips docstrings: a module that added to one at import
    (``full_like.__doc__ += ...``) failed ``import xstride`` with a ``TypeError`` (a
    review)."""
    code = ("import numpy as np, xstride as xp\n"
            "with xp.use_backend('dask'):\n"
            "    a = xp.to_numpy(xp.full_like(xp.ones(3), 2))\n"
            "    b = xp.to_numpy(xp.broadcast_to(xp.ones(3), (2, 3)))\n"
            "print(a.tolist(), b.shape)\n")
    r = subprocess.run([sys.executable, "-OO", "-c", code], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[2.0, 2.0, 2.0] (2, 3)"
