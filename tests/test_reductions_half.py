"""float16 reductions (and the scans' dtype table) on xstride's kernels (``xs_half``, xstride/detail/half.cuh): which
calls reach the kernels and what they compute, on the stand-in CuPy of
tests/test_reduction_host_path.py (host models of the kernels), and every
instantiation those calls build compiled by NVRTC (CPU). On the device:
tests/test_reductions_half_gpu.py."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import xstride as xp
from tests.conftest import FakeCupyArray
from tests.test_argreductions_host import fake_args  # noqa: F401  (fixture)
from tests.test_cuda_headers_nvrtc import compile_named, nvrtc
from tests.test_reduction_host_path import fake_reductions  # noqa: F401  (fixture)
from xstride._kernels import _reduce_common as rc
from xstride._kernels._compile import source

H = np.float16
_SHAPES = [((64, 3), 1), ((64, 3), 0), ((4096, 16), 1), ((3, 2000), 1), ((7, 5, 9), (0, 2)),
           ((5000,), None), ((33, 40), None)]


def _half(shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(H)


def run_logged(log, func, h, axis):
    """``func(h, axis=axis)`` on the stand-in CuPy (warnings silenced), after checking
    that its first launch reads ``h``'s C type."""
    before = len(log)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = getattr(xp, func)(FakeCupyArray(h), axis=axis).get()
    exprs = [e[0] for e in log[before:]]
    assert exprs and f", {rc.CTYPE[h.dtype]}, " in exprs[0], exprs
    return got


def _want(func, h, axis):
    """NumPy's result: sums, products and means of the exact float64 values rounded
    once to float16 (NumPy's float16 sum folds in float32 pairwise; the kernels in
    float64: both within half an ulp of float16 of the exact sum here)."""
    wide = h.astype(np.float64)
    with np.errstate(over="ignore"):           # products of 2000 values pass 65504
        if func == "mean":
            return np.mean(wide, axis=axis).astype(H)
        if func in ("sum", "prod"):
            return getattr(np, func)(wide, axis=axis).astype(H)
    return getattr(np, func)(h, axis=axis)


@pytest.mark.parametrize("shape, axis", _SHAPES)
@pytest.mark.parametrize("func", ["sum", "prod", "min", "max", "mean", "all", "any"])
def test_float16_reductions_run_on_the_kernels(fake_reductions, func, shape, axis):  # noqa: F811
    cp, log = fake_reductions
    h = _half(shape)
    if func == "prod":
        h = (np.abs(h) * 0.5 + 0.75).astype(H)      # no overflow or underflow in float16
    if func in ("all", "any"):
        h[..., :1] = 0
    got = run_logged(log, func, h, axis)
    want = _want(func, h, axis)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("func", ["min", "max"])
def test_float16_min_max_propagate_nan_and_keep_signed_zeros_apart(fake_reductions, func):  # noqa: F811
    h = _half((40, 6))
    h[3, 2] = np.nan
    h[7, :] = -0.0
    got = getattr(xp, func)(FakeCupyArray(h), axis=1).get()
    want = getattr(np, func)(h, axis=1)
    np.testing.assert_array_equal(got, want)
    assert np.isnan(got[3]) and np.signbit(got[7]) == np.signbit(want[7])


def test_a_float16_sum_into_float32_and_the_accumulators(fake_reductions):  # noqa: F811
    cp, log = fake_reductions
    h = _half((300, 5))
    got = xp.sum(FakeCupyArray(h), axis=1, dtype=xp.float32).get()
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, h.astype(np.float64).sum(axis=1), rtol=1e-6)
    assert rc.acc_dtype(np.dtype(H)) == np.float64
    assert rc.minmax_acc_dtype(np.dtype(H)) == np.float32
    assert np.dtype(H) in rc.REDUCED and np.dtype(H) in rc.SUPPORTED


@pytest.mark.parametrize("func", ["argmin", "argmax"])
@pytest.mark.parametrize("axis", [None, 0, 1])
def test_float16_argmin_argmax_with_ties_and_nan(fake_args, func, axis):  # noqa: F811
    cp, log = fake_args
    h = np.random.default_rng(3).integers(-3, 4, size=(50, 9)).astype(H)   # many ties
    h[4, 5] = np.nan
    h[11, :] = np.nan
    before = len(log)
    got = getattr(xp, func)(FakeCupyArray(h), axis=axis).get()
    assert any(", xs_half, " in e[0] for e in log[before:]), log[before:]
    np.testing.assert_array_equal(got, getattr(np, func)(h, axis=axis))


def test_the_scans_take_float16():
    from xstride._kernels import reductions, scans

    assert scans.takes(np.float16) and reductions.takes(np.float16)


@pytest.mark.skipif(nvrtc is None, reason="cuda-bindings (NVRTC) not installed")
def test_every_float16_instantiation_compiles(fake_reductions, fake_args):  # noqa: F811
    """The instantiations the calls above build, for each kernel source, compiled by
    NVRTC for sm_90 in one module per source."""
    cp, arg_log = fake_args
    _, log = fake_reductions
    for shape, axis in _SHAPES:
        h = _half(shape)
        for func in ("sum", "min", "mean", "any"):
            getattr(xp, func)(FakeCupyArray(h), axis=axis)
        if axis is None or isinstance(axis, int):
            xp.argmax(FakeCupyArray(h), axis=axis)
    by_file = {"reductions.cu": sorted({e[0] for e in log if "xs_half" in e[0]}),
               "argreductions.cu": sorted({e[0] for e in arg_log if "xs_half" in e[0]})}
    assert all(by_file.values()), by_file
    for file, names in by_file.items():
        lowered, ptx = compile_named(source(file), names, name=file)
        assert all(lowered[n] in ptx for n in names)
        assert "cvt.f32.f16" in ptx


class _Built(Exception):
    """Raised by the recording stand-in kernel at launch: the expression is all we need."""


@pytest.mark.skipif(nvrtc is None, reason="cuda-bindings (NVRTC) not installed")
def test_every_float16_scan_instantiation_compiles(fake_cupy, monkeypatch):
    """The scans' instantiations for float16 (look-back, tile, rows in registers,
    columns, the split column scan) that calls over these shapes build, compiled by
    NVRTC for sm_90."""
    from xstride._kernels import scans
    from xstride._kernels._lru import Bounded
    from xstride._kernels._prepared import GATE, Store

    built: dict = {}

    class Recorded:
        def __getattr__(self, name):
            raise _Built

        def __call__(self, *args, **kwargs):
            raise _Built

    def kernel(src, expr, partner=None):
        built.setdefault(src, set()).add(expr)
        return Recorded()

    monkeypatch.setattr(rc, "kernel", kernel)
    monkeypatch.setattr(rc, "kernel_resident", lambda *args: 4)
    monkeypatch.setattr(scans, "_RECIPES", Bounded(64))
    monkeypatch.setattr(scans, "_PREPARED", Store(64))
    GATE.close()
    for shape, axis in [((1 << 20,), 0), ((70000, 3), 1), ((70000, 3), 0), ((3, 70000), 1),
                        ((5000, 16), 1), ((4097, 7), 0), ((70000, 5), 1)]:
        for f in (xp.cumulative_sum, xp.cumulative_prod):
            with pytest.raises(_Built):
                f(FakeCupyArray(np.ones(shape, H)), axis=axis)
    strategies = set()
    for src, names in built.items():
        names = sorted(names)
        assert all("xs_half" in n for n in names), names
        strategies |= {n.split("<")[0] for n in names}
        lowered, ptx = compile_named(source(src), names, name=src)
        assert all(lowered[n] in ptx for n in names)
    assert {"xs_scan_lookback", "xs_scan_tile", "xs_colsplit_scan",
            "xs_scan_rowregs"} <= strategies, strategies


@pytest.mark.parametrize("func, xdt, dtype", [
    ("sum", np.float32, np.float16), ("sum", np.int8, np.float16), ("sum", np.float16, np.float64),
    ("prod", np.float16, np.float32), ("mean", np.float16, np.float32), ("mean", np.float32, np.float16),
    ("sum", np.complex64, np.complex128), ("mean", np.complex128, np.complex64),
    ("sum", np.float16, np.complex64), ("sum", np.float32, np.complex64),
    ("sum", np.uint64, np.complex128), ("prod", np.bool_, np.complex64),
    ("mean", np.int16, np.complex128),
])
def test_dtype_arguments_into_and_out_of_the_new_types(fake_reductions, func, xdt, dtype):  # noqa: F811
    cp, log = fake_reductions
    h = np.random.default_rng(4).integers(-3, 4, size=(300, 5)).astype(xdt)
    before = len(log)
    got = getattr(xp, func)(FakeCupyArray(h), axis=1, dtype=dtype).get()
    assert got.dtype == np.dtype(dtype)
    want = getattr(np, func)(h.astype(np.complex128 if np.dtype(dtype).kind == "c" else np.float64),
                             axis=1).astype(dtype)
    np.testing.assert_array_equal(got, want)
    exprs = sorted({e[0] for e in log[before:]})
    assert exprs
    if nvrtc is not None:
        compile_named(source("reductions.cu"), exprs, name="reductions.cu")
