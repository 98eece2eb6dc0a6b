"""var/std of float32 in one pass of shifted moments (op 8, ``"moments"``): each output's
first element K is the shift, the reduction kernels sum ``d = x - K`` and ``d * d`` in a
complex128 accumulator, and ``xs_var_moments`` finishes ``(S2 - S1**2 / N) / dof``.

On the CPU (the stand-in CuPy of ``tests/test_reduction_host_path.py``): which calls
take the path, the launches (the center of each output is its first element, in the
kernel's row order, for views of any strides), the values against NumPy, and the
instantiations compiled by NVRTC. On the GPU: NumPy's values over random shapes and
views, the two-pass path's values, the same bits run to run, NaN and inf, and a first
element far from the rest.
"""

from __future__ import annotations

import ctypes

import warnings

import numpy as np
import pytest

import xstride as xp
import xstride._kernels.variance as _variance
from xstride._kernels._prepared import Store
from tests.conftest import FakeCupyArray
from tests.test_cuda_headers_nvrtc import compile_named, nvrtc, ptx_param_sizes
from tests.test_reduction_host_path import fake_reductions  # noqa: F401  (fixture)
from xstride._kernels._compile import source


def _views(rng):
    """(host float32 view, axis) pairs that no short-row kernel takes: a few columns
    reduced over their rows, rows side by side over the long axis, long rows, several
    axes, reversed and strided views, the whole array."""
    a = (rng.standard_normal((600, 3)) * 3 + 5).astype(np.float32)
    yield a, 0
    yield a[::-1], 0
    yield a[::2, 1:], 0
    yield np.ascontiguousarray(a.T).T, 0
    yield (rng.standard_normal((40, 50)) - 2).astype(np.float32), 1
    yield (rng.standard_normal((40, 50)) + 7).astype(np.float32)[:, ::-1], 1
    yield (rng.standard_normal((300, 40)) * 2).astype(np.float32), 1     # staged rows
    yield (rng.standard_normal((50, 700)) + 1).astype(np.float32), 0     # many columns
    b = rng.standard_normal((4, 5, 6)).astype(np.float32)
    yield b, (0, 2)
    yield b, None
    yield b.transpose(2, 0, 1), (1, 2)


def _launched(log, start):
    return [e[0] for e in log[start:]]


def test_float32_var_and_std_run_one_pass_of_moments(fake_reductions, monkeypatch):  # noqa: F811
    cp, log = fake_reductions
    shifts = []
    launch = _variance._launch

    def spy(x, rec, out_dtype, acc, center=None):   # the centers the reduction reads
        if type(center) is int:   # "moments0": the address of the row of logical index 0
            raw = (ctypes.c_char * (rec.plan.nrows * x.itemsize)).from_address(center)
            shifts.append((rec.plan, np.frombuffer(raw, x.dtype).astype(np.complex128)))
        else:
            shifts.append((rec.plan, center.get().copy()))
        return launch(x, rec, out_dtype, acc, center=center)

    monkeypatch.setattr(_variance, "_launch", spy)
    rng = np.random.default_rng(4)
    seen = own = 0
    for h, axis in _views(rng):
        x = FakeCupyArray(h)
        assert x.strides == h.strides
        for func, ddof in (("var", 0), ("std", 1), ("var", 2.5)):
            start = len(log)
            got = getattr(xp, func)(x, axis=axis, correction=ddof)
            want = getattr(np, func)(h.astype(np.float64), axis=axis, ddof=ddof)
            assert got.dtype == np.float32 and got.shape == want.shape
            np.testing.assert_allclose(got.get(), want, rtol=2e-6, atol=0)
            names = _launched(log, start)
            finish = f"xs_var_moments<float, {'true' if func == 'std' else 'false'}>"
            if names[0].startswith("xs_reduce_interleave<"):
                # a few contiguous columns: the kernel reads each column's first element
                # as its shift (op 9), then the finish
                assert len(names) == 2 and names[1] == finish, names
                assert names[0].split("<")[1].startswith("9, float, xs_complex128, xs_complex128")
                own += 1
            else:
                # the centers, one reduction pass (op 8, complex128 accumulator), the finish
                assert len(names) == 3, names
                assert names[0].startswith("xs_var_center<float, ")
                assert names[1].startswith("xs_reduce_")
                assert names[1].split("<")[1].startswith("8, float, xs_complex128, xs_complex128")
                assert names[2] == finish
            # each output's first element (logical index 0 along the reduced axes, also
            # of reversed views), in the kernels' row order, widened exactly
            plan, center = shifts.pop()
            first = h[tuple(0 if i in plan.axes else slice(None) for i in range(h.ndim))]
            np.testing.assert_array_equal(
                center, first.transpose(plan.out_order).astype(np.complex128).reshape(-1))
            seen += 1
    assert seen == 33 and 3 <= own < seen, own


def test_other_dtypes_keep_the_two_passes(fake_reductions):  # noqa: F811
    """float64 and integer inputs, and float32 into a float64 result (``dtype=``: the
    moments' cancellation would show at float64's precision), run the two passes."""
    cp, log = fake_reductions
    h = np.random.default_rng(2).standard_normal((100_000, 2))
    h[0] = (3e3, -2e3)                                    # a first element far out
    for dtype, kw in (("float64", {}), ("int32", {}), ("float32", {"dtype": np.float64})):
        start = len(log)
        hx = h.astype(dtype)
        got = xp.var(FakeCupyArray(hx), axis=0, **kw)
        assert got.dtype == np.float64
        # NumPy's pairwise sums over contiguous columns (its sum down axis 0 of an
        # (n, 2) array is a plain running sum, off by some 1e-12 here)
        want = np.var(np.ascontiguousarray(hx.T, dtype=np.float64), axis=1)
        np.testing.assert_allclose(got.get(), want, rtol=1e-13)
        ops = [int(e.split("<")[1].split(",")[0]) for e in _launched(log, start)
               if e.startswith("xs_reduce_")]
        assert ops == [7, 4], ops                          # the mean, then the centered pass


def test_moments_values_nan_inf_and_no_degrees_of_freedom(fake_reductions):  # noqa: F811
    cp, log = fake_reductions
    h = np.array([[1.0, np.nan, 2.0, 0.5], [np.inf, 1.0, 0.0, 1.0], [3.0, 3.0, 3.0, np.inf],
                  [-np.inf, 2.0, 1.0, -np.inf], [5.0, 4.0, 4.0, 1.0]] * 50, dtype=np.float32)
    x = FakeCupyArray(h)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for correction in (0, 1, 250, 251):
            got = xp.var(x, axis=0, correction=correction).get()
            want = np.var(h.astype(np.float64), axis=0, ddof=correction).astype(np.float32)
            np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
            np.testing.assert_allclose(got, want, rtol=2e-6)


def test_a_first_element_far_from_the_rest(fake_reductions):  # noqa: F811
    """The shift is the first element: when it lies far from the others the sums of
    ``d`` and ``d * d`` are large, and their difference still gives the variance (the
    first element is part of the data, which bounds the cancellation)."""
    cp, log = fake_reductions
    h = (np.random.default_rng(9).standard_normal((4000, 2)) * 1e-2 + 1.0).astype(np.float32)
    h[0] = (1e4, -3e3)
    got = xp.std(FakeCupyArray(h), axis=0).get()
    np.testing.assert_allclose(got, np.std(h.astype(np.float64), axis=0), rtol=2e-6)


@pytest.mark.skipif(nvrtc is None, reason="cuda-bindings/nvrtc not importable")
def test_the_moments_instantiations_compile(fake_reductions):  # noqa: F811
    cp, log = fake_reductions
    rng = np.random.default_rng(4)
    for h, axis in _views(rng):
        xp.std(FakeCupyArray(h), axis=axis)
    exprs = sorted({e[0] for e in log if e[0].startswith("xs_reduce_")})
    kinds = {e.split("<")[0] for e in exprs}
    assert len(kinds) >= 5, kinds
    compile_named(source("reductions.cu"), exprs, "compute_90", "reductions.cu")
    finish = [f"xs_var_moments<{t}, {r}>" for t in ("float", "double") for r in ("true", "false")]
    centers = sorted({e[0] for e in log if e[0].startswith("xs_var_center<")})
    assert len(centers) >= 2, centers
    lowered, ptx = compile_named(source("reduce_finish.cu"), finish + centers, "sm_90",
                                 "reduce_finish.cu")
    for name in finish:   # m, out, n, count, dof
        assert ptx_param_sizes(ptx, lowered[name]) == [8, 8, 8, 8, 8], name
    for name in centers:  # x, c, the descriptor, nrows
        nkc, nrc = (int(v) for v in name[:-1].split(", ")[1:])
        assert ptx_param_sizes(ptx, lowered[name]) == [8, 8, 8 * (2 * nkc + 2 * nrc + 2), 8]


# ----------------------------------------------------------------------------- GPU
@pytest.mark.gpu
@pytest.mark.parametrize("func", ["var", "std"])
def test_gpu_moments_match_numpy_the_two_passes_and_repeat_bit_for_bit(cp, monkeypatch, func):
    rng = np.random.default_rng(13)
    cases = list(_views(rng))
    big = (rng.standard_normal((1 << 20, 3)) * 2 + 10).astype(np.float32)
    cases += [(big, 0), (big[::-1], 0), (np.ascontiguousarray(big.T).T, 0),
              ((rng.standard_normal((300, 16)) + 3).astype(np.float32), 0),
              ((rng.standard_normal((64, 5000)) - 1).astype(np.float32), 1)]
    for h, axis in cases:
        x = cp.asarray(h) if h.flags.c_contiguous else _device_view(cp, h)
        assert x.strides == h.strides
        for correction in (0, 1):
            got = getattr(xp, func)(x, axis=axis, correction=correction)
            again = getattr(xp, func)(x, axis=axis, correction=correction)
            with monkeypatch.context() as m:
                m.setattr(_variance, "_MOMENT_DTYPES", frozenset())
                m.setattr(_variance, "_CALLS", Store(64))    # not the call just prepared
                two = getattr(xp, func)(x, axis=axis, correction=correction)
            ref = getattr(np, func)(h.astype(np.float64), axis=axis, ddof=correction)
            assert got.dtype == np.float32 and got.shape == ref.shape
            assert cp.asnumpy(got).tobytes() == cp.asnumpy(again).tobytes()
            np.testing.assert_allclose(cp.asnumpy(got), ref, rtol=2e-6)
            np.testing.assert_allclose(cp.asnumpy(got), cp.asnumpy(two), rtol=2e-6)


def _device_view(cp, h):
    """The device array with the host view's strides (same base layout, same view)."""
    base = h
    while base.base is not None and isinstance(base.base, np.ndarray):
        base = base.base
    d = cp.asarray(base)
    off = h.__array_interface__["data"][0] - base.__array_interface__["data"][0]
    return cp.ndarray(h.shape, h.dtype, d.data + off, strides=h.strides)


@pytest.mark.gpu
def test_gpu_moments_nan_inf_and_a_far_first_element(cp):
    h = np.array([[1.0, np.nan, 2.0, 0.5], [np.inf, 1.0, 0.0, 1.0], [3.0, 3.0, 3.0, np.inf],
                  [-np.inf, 2.0, 1.0, -np.inf], [5.0, 4.0, 4.0, 1.0]] * 5000, dtype=np.float32)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = cp.asnumpy(xp.var(cp.asarray(h), axis=0))
        want = np.var(h.astype(np.float64), axis=0).astype(np.float32)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_allclose(got, want, rtol=2e-6)
    f = (np.random.default_rng(9).standard_normal((1 << 18, 2)) * 1e-2 + 1.0).astype(np.float32)
    f[0] = (1e4, -3e3)
    got = cp.asnumpy(xp.std(cp.asarray(f), axis=0))
    np.testing.assert_allclose(got, np.std(f.astype(np.float64), axis=0), rtol=2e-6)


@pytest.mark.gpu
def test_gpu_centers_are_each_outputs_first_element(cp):
    """``xs_var_center`` writes the logical first element of each output (reduced axes
    at index 0, reversed views too) in the kernels' row order, widened exactly."""
    from xstride._kernels import var_kernels as vk
    from xstride._plans.reduction import normalize_axis

    rng = np.random.default_rng(21)
    big = (rng.standard_normal((1 << 16, 3)) * 2 + 10).astype(np.float32)
    cases = list(_views(rng)) + [(big[::-1], 0), (big[::-3, ::-1], 0)]
    for h, axis in cases:
        x = cp.asarray(h) if h.flags.c_contiguous else _device_view(cp, h)
        axes = normalize_axis("var", axis, x.ndim)
        rec = _variance._recipe("var", x, axis, "moments", np.dtype(np.complex128),
                                np.dtype(np.complex128), axes)
        launch, skip = vk.moments_center(x, rec)
        got = cp.full(rec.plan.nrows, np.nan, dtype=np.complex128)
        launch(x.data.ptr + rec.xoff + skip, got.data.ptr)
        first = h[tuple(0 if i in rec.plan.axes else slice(None) for i in range(h.ndim))]
        want = first.transpose(rec.plan.out_order).astype(np.complex128).reshape(-1)
        np.testing.assert_array_equal(cp.asnumpy(got), want)
