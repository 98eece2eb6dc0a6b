"""The "short" reduction of rows side by side (``vec`` = -W, W rows a thread): which
calls reach it, on the stand-in CuPy of ``tests/test_reduction_host_path.py``, and the
instantiations the executor builds compiled by NVRTC (CPU).

var/std of such rows run ``xs_var_side`` (rows of 2-4 elements of 4 bytes, 4 rows a
thread by 16-byte loads) or ``xs_var_rows`` (one reduced axis of at most 32 elements), so
the walk has no centered pass (op 4, ``"sumsq"``): the kernel refuses it with a
``static_assert`` and ``_build_recipe`` never asks for it (docs/reductions.md).
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

import xstride as xp
import xstride._kernels.reductions as _red
from tests.conftest import FakeCupyArray
from tests.test_cuda_headers_nvrtc import compile_named, nvrtc, nvrtc_compile
from tests.test_reduction_host_path import fake_reductions  # noqa: F401  (fixture)
from xstride._kernels._compile import source

_FUNCS = ("sum", "prod", "min", "max", "mean", "all", "any", "var", "std")
_DTYPES = ("float32", "int8", "int16", "int32", "uint8", "bool")


def _side_by_side(dtype: str, k: int = 3, n: int = 1024):
    """A ``(k, n)`` array used as ``.T`` (rows side by side), its host view."""
    rng = np.random.default_rng(11)
    h = rng.integers(0, 3, (k, n)).astype(dtype) if dtype != "float32" else \
        rng.standard_normal((k, n)).astype(np.float32)
    return h.T


def _expressions(log) -> list[str]:
    return [e[0] for e in log]


@pytest.mark.parametrize("dtype", _DTYPES)
def test_var_and_std_of_rows_side_by_side_run_var_rows_never_a_centered_pass(
        fake_reductions, dtype):  # noqa: F811
    """Every reduction of rows side by side takes W rows a thread, var/std
    ``xs_var_side`` (4-byte elements) or ``xs_var_rows``: no op 4 (the centered pass)
    is ever built for such rows."""
    cp, log = fake_reductions
    h = _side_by_side(dtype)
    x = FakeCupyArray(h)
    w = 16 // h.itemsize
    for f in _FUNCS:
        # at most 64 bytes of accumulators a thread: 1-byte rows into 8-byte sums, 8
        acc = 8 if f in ("sum", "prod", "mean") else h.itemsize
        w = min(16 // h.itemsize, max(64 // acc, 8 // h.itemsize))
        if f in ("mean", "var", "std") and h.dtype.kind == "b":
            continue
        before = len(log)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = getattr(xp, f)(x, axis=1).get()
        exprs = _expressions(log[before:])
        if f in ("var", "std"):
            kernel = "xs_var_side" if h.itemsize == 4 else "xs_var_rows"
            assert [e.split("<")[0] for e in exprs] == [kernel], (f, exprs)
            want = getattr(np, f)(h.astype(np.float64), axis=1)
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
        else:
            assert len(exprs) == 1 and exprs[0].startswith("xs_reduce_short<"), (f, exprs)
            assert f", -{w}, {_red.SIDE_BY_SIDE_MINB}, " in exprs[0], (f, exprs)
    assert not any(e.startswith("xs_reduce_short<4,") for e in _expressions(log))


def test_a_centered_pass_of_rows_side_by_side_walks_one_row_a_thread(fake_reductions):  # noqa: F811
    """Were var's two passes ever built for such rows, the "sumsq" recipe would take
    the one-row walk (``vec`` 1), which reads the center, not the side-by-side one that
    the mean's recipe of the same rows takes."""
    x = FakeCupyArray(_side_by_side("float32"))
    f8 = np.dtype(np.float64)
    mean = _red._recipe("var", x, 1, "mean", f8, f8)
    assert mean.fn.expr == f"xs_reduce_short<7, float, double, double, 4, 1, -4, " \
                          f"{_red.SIDE_BY_SIDE_MINB}, 4>"
    rec = _red._recipe("var", x, 1, "sumsq", f8, f8)
    assert rec.kind == "short"
    assert rec.fn.expr == "xs_reduce_short<4, float, double, double, 4, 1, 1, 8, 4>"


def _executor_expressions(fake, dtypes=_DTYPES) -> list[str]:
    """The ``xs_reduce_short`` instantiations the executor builds for rows side by side
    of ``dtypes`` (every op of the namespace, first calls)."""
    cp, log = fake
    for dtype in dtypes:
        x = FakeCupyArray(_side_by_side(dtype))
        for f in _FUNCS:
            if f in ("mean", "var", "std") and dtype == "bool":
                continue
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                getattr(xp, f)(x, axis=1)
    return sorted({e for e in _expressions(log) if e.startswith("xs_reduce_short<")})


@pytest.mark.skipif(nvrtc is None, reason="cuda-bindings/nvrtc not importable")
def test_the_side_by_side_instantiations_compile(fake_reductions):  # noqa: F811
    exprs = _executor_expressions(fake_reductions)
    ops = {int(e.split("<")[1].split(",")[0]) for e in exprs}
    assert ops == {0, 1, 2, 3, 5, 6, 7} and all(re.search(r", -\d+, ", e) for e in exprs)
    lowered, _ = compile_named(source("reductions.cu"), exprs, "compute_90", "reductions.cu")
    assert set(lowered) == set(exprs)


@pytest.mark.skipif(nvrtc is None, reason="cuda-bindings/nvrtc not importable")
def test_a_centered_side_by_side_instantiation_is_refused_by_the_kernel():
    probe = "xs_reduce_short<4, float, double, double, 4, 1, -4, 4, 4>"
    text = source("reductions.cu") + f"\nstatic auto* const xs_probe = &{probe};\n"
    ok, log, _ = nvrtc_compile(text, "compute_90")
    assert not ok and "no center: var's pass of such rows runs xs_var_rows" in log
    one_row = "xs_reduce_short<4, float, double, double, 4, 1, 1, 8, 4>"   # still built
    compile_named(source("reductions.cu"), [one_row], "compute_90", "reductions.cu")
