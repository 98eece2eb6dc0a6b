"""Issue 14, cold start, on the device: the compile record with the real CuPy, and the
demo and ``info --kernels`` in a fresh process with empty kernel caches."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

import xstride as xp

pytestmark = pytest.mark.gpu
ROOT = Path(__file__).resolve().parents[1]


def test_a_user_kernel_compile_is_recorded_once(cp):
    tag = time.perf_counter_ns()   # a source no cache has seen
    src = f'extern "C" __global__ void k_{tag}(float* x) {{ x[0] = {tag % 1000}.0f; }}'
    before = xp.cuda.compile_stats()["kernels"]
    k = xp.cuda.CudaKernel(src, f"k_{tag}").compile()
    k.compile()
    recs = [r for r in xp.cuda.compiled_kernels() if r.name == f"k_{tag}"]
    assert len(recs) == 1 and recs[0].kind == "user" and recs[0].seconds > 0
    assert recs[0].device == cp.cuda.runtime.getDevice()
    assert xp.cuda.compile_stats()["kernels"] == before + 1


def test_cupys_own_compiles_are_recorded_once_watched(cp):
    assert xp.cuda.watch_cupy_compiles(), \
        "this CuPy has no cupy.cuda.compiler._compile_module_with_cache to wrap"
    tag = time.perf_counter_ns()
    kern = cp.ElementwiseKernel("float32 x", "float32 y", f"y = x + {tag % 997}.0f",
                                f"cold_start_{tag}")
    x = cp.ones(4, dtype=cp.float32)   # before counting: CuPy's fill kernel may compile
    cp.cuda.runtime.deviceSynchronize()
    before = xp.cuda.compile_stats()["kernels"]
    kern(x)
    kern(x)
    recs = [r for r in xp.cuda.compiled_kernels() if f"cold_start_{tag}" in r.name]
    assert len(recs) == 1 and recs[0].kind == "library", xp.cuda.compiled_kernels()[-3:]
    assert xp.cuda.compile_stats()["kernels"] == before + 1


def fresh_run(tmp_path, *argv):
    env = {**os.environ, "CUPY_CACHE_DIR": str(tmp_path / "cupy"),
           "XSTRIDE_CACHE_DIR": str(tmp_path / "xstride")}
    proc = subprocess.run([sys.executable, "-m", "xstride", *argv], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_info_kernels_on_cupy_lists_what_a_fresh_process_compiles(tmp_path):
    res = fresh_run(tmp_path, "info", "--kernels", "--json", "--backend", "cupy")
    assert res["compiles_kernels"] is True and res["cupy_compiles_recorded"] is True
    assert res["kernels"], "a fresh process with empty caches compiled nothing?"
    assert sum(s["kernels_compiled"] for s in res["steps"]) == len(res["kernels"])
    # compile seconds are the wall time compiling: side by side compiles count once
    assert 0 < res["total"]["compile_seconds"] <= sum(k["seconds"] for k in res["kernels"]) + 1e-6
    assert {k["kind"] for k in res["kernels"]} >= {"xstride"}
    for s in res["steps"]:
        assert 0 <= s["compile_seconds"] <= s["seconds"]


def test_demo_on_cupy_reports_compile_apart_from_run(tmp_path):
    res = fresh_run(tmp_path, "demo", "--backend", "cupy", "--n", "20000", "--json")
    assert all(res["checks"].values())
    assert res["compiles_kernels"] is True and res["kernels_compiled"] > 0
    for s in res["stages"]:
        assert 0 <= s["compile_seconds"] <= s["seconds"]
        assert s["run_seconds"] == pytest.approx(s["seconds"] - s["compile_seconds"])
    assert res["compile_seconds"] == pytest.approx(sum(s["compile_seconds"] for s in res["stages"]))


def _after_ahead(res):
    names = [s["name"] for s in res["stages"]]
    assert "compile ahead" in names, names
    i = names.index("compile ahead")
    assert res["stages"][i]["kernels_compiled"] > 0
    return {s["name"]: s["kernels_compiled"] for s in res["stages"][i + 1:]}


def test_the_demo_compiles_every_later_stages_kernels_ahead(tmp_path):
    res = fresh_run(tmp_path, "demo", "--backend", "cupy", "--n", "200000", "--json")
    assert all(res["checks"].values())
    later = _after_ahead(res)
    assert set(later) >= {"bounding box", "morton keys", "sort_by_key", "cell occupancy",
                          "reductions", "morton tree"}
    assert later == dict.fromkeys(later, 0), later


def test_the_bunny_demo_with_voxels_compiles_ahead_too(tmp_path, shared_dir):
    res = fresh_run(tmp_path, "demo", "--backend", "cupy", "--json", "--voxel", "0.005",
                    "--points", str(shared_dir / "data" / "bunny.ply"))
    assert all(res["checks"].values())
    later = _after_ahead(res)
    assert "voxel downsample" in later
    assert later == dict.fromkeys(later, 0), later


def test_a_new_thread_launches_with_no_cuda_call_of_its_own(cp):
    """A thread whose first work is a reduction of arrays made elsewhere (buffers from
    CuPy's pool, no runtime call in the thread) launches on the right context."""
    import threading

    x = cp.arange(3000, dtype=cp.float32).reshape(1000, 3)
    want = [cp.asnumpy(xp.min(x, axis=0)), cp.asnumpy(xp.sum(x, axis=1))]
    got = []
    t = threading.Thread(target=lambda: got.append(
        [cp.asnumpy(xp.min(x, axis=0)), cp.asnumpy(xp.sum(x, axis=1))]))
    t.start()
    t.join()
    assert len(got) == 1
    for a, b in zip(got[0], want):
        assert (a == b).all()


def test_compile_ahead_runs_library_and_cupy_calls_on_threads(cp):
    x = cp.arange(12000, dtype=cp.float64).reshape(4000, 3)
    n = xp.cuda.compile_ahead([lambda: xp.max(x, axis=0), lambda: cp.equal(x, x[::-1]),
                               lambda: xp.algorithms.sort_by_key(cp.arange(100, dtype=cp.uint64))])
    assert n == 3
    with pytest.raises(ValueError, match="must be 1-D"):
        xp.cuda.compile_ahead([lambda: xp.algorithms.sort_by_key(x.astype(cp.int64))])


_SECOND_PROCESS = """
import json
import numpy as np, cupy as cp
import xstride as xp
from xstride import algorithms as alg
from xstride._kernels import _compile
xp.set_backend("cupy")
_compile.nvrtc_started(cp)                  # count from here
x = cp.asarray(np.arange(3000, dtype=np.float32).reshape(1000, 3))
keys = cp.asarray((np.arange(5000, dtype=np.uint64) * 7919) % 4096)
out = [xp.sum(x, axis=1), xp.argmax(x, axis=0), xp.cumulative_sum(x, axis=0),
       alg.sort_by_key(keys, cp.arange(5000), key_bits=12)[1]]
cp.cuda.runtime.deviceSynchronize()
print(json.dumps({"nvrtc": _compile.nvrtc_started(cp),
                  "out": [cp.asnumpy(o).tolist() for o in out]}))
"""


def test_a_second_process_loads_the_template_kernels_without_nvrtc(tmp_path):
    """Every internal kernel is a template instance built with name expressions; CuPy
    14.2 keeps such a module's lowered names in its disk cache (older CuPy compiled it
    again in every process to learn them), so a second process compiles nothing."""
    env = {**os.environ, "CUPY_CACHE_DIR": str(tmp_path / "cupy"),
           "XSTRIDE_CACHE_DIR": str(tmp_path / "xstride")}
    env.pop("CUPY_CACHE_IN_MEMORY", None)
    runs = []
    for _ in range(2):
        proc = subprocess.run([sys.executable, "-c", _SECOND_PROCESS], cwd=ROOT, env=env,
                              capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr
        runs.append(json.loads(proc.stdout))
    assert runs[0]["nvrtc"] >= 4, runs[0]["nvrtc"]      # sum, argmax, scan, sort passes
    assert runs[1]["nvrtc"] == 0                         # all loaded from CuPy's cache
    assert runs[1]["out"] == runs[0]["out"]
