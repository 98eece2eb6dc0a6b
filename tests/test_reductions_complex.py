"""complex64/complex128 sum, prod, mean, all and any on xstride's kernels
(``xs_complex``, xstride/detail/complex.cuh): which calls reach the kernels, on the
stand-in CuPy of tests/test_reduction_host_path.py, and every instantiation they build
compiled by NVRTC (CPU). On the device: tests/test_reductions_complex_gpu.py."""

from __future__ import annotations

import types
import warnings

import numpy as np
import pytest

import xstride as xp
from tests.conftest import FakeCupyArray
from tests.test_cuda_headers_nvrtc import compile_named, nvrtc
from tests.test_reduction_host_path import fake_reductions  # noqa: F401  (fixture)
from tests.test_reductions_half import run_logged
from xstride._kernels import _reduce_common as rc
from xstride._kernels import argreductions, reductions, scans
from xstride._kernels._compile import source

C16 = np.complex128
_SHAPES = [((64, 3), 1), ((64, 3), 0), ((4096, 16), 1), ((3, 2000), 1), ((7, 5, 9), (0, 2)),
           ((5000,), None), ((33, 40), None)]


def _data(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("shape, axis", _SHAPES)
@pytest.mark.parametrize("func", ["sum", "prod", "mean", "all", "any"])
def test_complex_reductions_run_on_the_kernels(fake_reductions, func, shape, axis, dtype):  # noqa: F811
    cp, log = fake_reductions
    h = _data(shape, dtype)
    if func == "prod":
        h = (h * 0.05 + 1).astype(dtype)            # products stay finite
    if func in ("all", "any"):
        h[..., :1] = 0
    got = run_logged(log, func, h, axis)
    if func in ("all", "any"):
        want = getattr(np, func)(h, axis=axis)
        np.testing.assert_array_equal(got, want)
    else:
        want = getattr(np, func)(h.astype(C16), axis=axis).astype(dtype)
        np.testing.assert_allclose(got, want, rtol=1e-5 if dtype == np.complex64 else 1e-12)
    assert got.dtype == want.dtype and got.shape == want.shape


def test_the_kernels_take_complex_only_for_sums_products_means_and_logic():
    c = np.dtype(np.complex64)
    assert reductions.takes(c) and reductions.takes(np.complex128)
    assert not argreductions.takes(c) and not scans.takes(c)
    assert rc.acc_dtype(c) == C16


@pytest.mark.skipif(nvrtc is None, reason="cuda-bindings (NVRTC) not installed")
def test_every_complex_instantiation_compiles(fake_reductions):  # noqa: F811
    _, log = fake_reductions
    for dtype in (np.complex64, np.complex128):
        for shape, axis in _SHAPES:
            h = _data(shape, dtype)
            for func in ("sum", "prod", "mean", "any"):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    getattr(xp, func)(FakeCupyArray(h), axis=axis)
    names = sorted({e[0] for e in log if "xs_complex" in e[0]})
    assert len(names) > 10, names
    lowered, ptx = compile_named(source("reductions.cu"), names, name="reductions.cu")
    assert all(lowered[n] in ptx for n in names)


@pytest.mark.parametrize("dtype, batch", [(np.complex64, 16), (np.complex128, 8)])
@pytest.mark.parametrize("func", ["sum", "prod", "mean", "all", "any"])
def test_the_interleave_walk_keeps_128_bytes_of_complex_loads_in_flight(
        fake_reductions, func, dtype, batch):  # noqa: F811
    """``sum(x, axis=0)`` of a complex (n, 3) walks the flat run element by element: at
    ``TUNING["interleave"]``'s 32 loads a thread, ptxas 13 spilled up to 712 bytes
    (``reductions.COMPLEX_BATCH_BYTES``); the launch asks for 128 bytes' worth."""
    _, log = fake_reductions
    n = len(log)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        getattr(xp, func)(FakeCupyArray(_data((5000, 3), dtype)), axis=0)
    exprs = [e[0] for e in log[n:] if e[0].startswith("xs_reduce_interleave<")]
    assert len(exprs) == 1, log[n:]
    assert exprs[0].endswith(f", 1, {rc.TUNING['interleave'][0]}, {batch}>"), exprs[0]
    assert reductions.COMPLEX_BATCH_BYTES // np.dtype(dtype).itemsize == batch


def test_a_complex_scan_of_one_element_is_a_cast_copy(fake_reductions, monkeypatch):  # noqa: F811
    """A scan over an axis of one element is the element (NumPy's accumulate starts from
    it): a cast copy, not CuPy's cumsum (100x slower on (n, 1) over axis 1, H200). Over
    longer axes a complex cumulative_sum is the scan of its parts
    (``scans.complex_sum``), a complex cumulative_prod the library's."""
    from xstride import _backends
    from xstride._kernels import scans

    seen = []
    lib = types.SimpleNamespace(
        astype=lambda x, dt, copy: seen.append(("astype", dt, copy)) or x.astype(dt),
        cumulative_sum=lambda x, **kw: seen.append(("cumulative_sum", kw)) or x,
        cumulative_prod=lambda x, **kw: seen.append(("cumulative_prod", kw)) or x)
    monkeypatch.setattr(_backends.get("cupy"), "_namespace", lib)
    h = _data((50, 1), np.complex64)
    got = xp.cumulative_sum(FakeCupyArray(h), axis=1)
    assert seen == [("astype", np.dtype(np.complex64), True)]
    assert got.get().tobytes() == np.cumulative_sum(h, axis=1).tobytes()
    xp.cumulative_prod(FakeCupyArray(h), axis=1, dtype=C16)
    assert seen[-1] == ("astype", np.dtype(C16), True)
    monkeypatch.setattr(scans, "complex_sum",
                        lambda x, ax, incl, out: seen.append(("parts", ax, incl, out)) or x)
    for kw in ({"axis": 0}, {"axis": 1, "include_initial": True}):   # not one element
        n = len(seen)
        xp.cumulative_sum(FakeCupyArray(h), **kw)
        assert seen[n] == ("parts", kw["axis"], "include_initial" in kw, np.dtype(np.complex64))
        xp.cumulative_prod(FakeCupyArray(h), **kw)
        assert seen[n + 1][0] == "cumulative_prod"
