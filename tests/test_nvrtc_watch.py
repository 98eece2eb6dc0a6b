"""``xstride._kernels._nvrtc_watch``: the count of CuPy's NVRTC compiles (a wrapper of a
private function of CuPy, on a stand-in here; on the device: the demo's compile-ahead
stage, tests/test_cold_start_gpu.py)."""

from __future__ import annotations

import types

from xstride._kernels import _nvrtc_watch


def _cupy_with(compiler):
    return types.SimpleNamespace(cuda=types.SimpleNamespace(compiler=compiler))


def test_each_compile_is_counted_once_and_runs_unchanged():
    seen = []
    compiler = types.SimpleNamespace(
        _compile_using_nvrtc_no_warning=lambda *a, **k: seen.append((a, k)) or "ptx")
    cupy = _cupy_with(compiler)
    before = _nvrtc_watch.started()
    assert _nvrtc_watch.watch(cupy) and _nvrtc_watch.watch(cupy)   # idempotent
    assert compiler._compile_using_nvrtc_no_warning("src", ("-O3",), arch=90) == "ptx"
    assert seen == [(("src", ("-O3",)), {"arch": 90})]
    assert _nvrtc_watch.started() == before + 1     # one wrapper, not two


def test_a_cupy_without_the_function_is_not_watched():
    before = _nvrtc_watch.started()
    assert not _nvrtc_watch.watch(_cupy_with(types.SimpleNamespace()))
    assert not _nvrtc_watch.watch(types.SimpleNamespace())
    assert _nvrtc_watch.started() == before
