"""var/std's one-pass finish (``reduce_finish.cu``): it compiles under NVRTC with the
parameters the launcher packs (CPU), and gives the bits of the three array operations
it replaces, ``ss / dof``, ``sqrt``, ``astype`` (GPU)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import xstride as xp
from tests.test_cuda_headers_nvrtc import compile_named, nvrtc, ptx_param_sizes
from xstride._kernels._compile import source

FINISH = [f"xs_var_finish<{t}, {r}>" for t in ("float", "double") for r in ("true", "false")]


@pytest.mark.skipif(nvrtc is None, reason="cuda-bindings/nvrtc not importable")
def test_every_finish_compiles_with_the_packed_parameter_sizes():
    lowered, ptx = compile_named(source("reduce_finish.cu"), FINISH, "sm_90", "reduce_finish.cu")
    for name in FINISH:   # ss, out, n, dof
        assert ptx_param_sizes(ptx, lowered[name]) == [8, 8, 8, 8], name


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32"])
@pytest.mark.parametrize("func", ["var", "std"])
@pytest.mark.parametrize("correction", [0, 1, 2.5, 40])
def test_finish_has_the_bits_of_the_array_operations(cp, monkeypatch, dtype, func, correction):
    from xstride._kernels import variance, var_kernels as vk
    from xstride._kernels._prepared import Store

    rng = np.random.default_rng(3)
    h = (rng.standard_normal((3000, 37)) * 5 + 2).astype(dtype)
    x = cp.asarray(h)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")     # correction 40: no degrees of freedom left
        monkeypatch.setattr(variance, "_MOMENT_DTYPES", frozenset())   # float32: two passes
        monkeypatch.setattr(variance, "_CALLS", Store(64))   # nothing prepared before
        got = getattr(xp, func)(x, axis=1, correction=correction)
        monkeypatch.setattr(vk, "FINISH_TYPES", {})      # the three array operations
        monkeypatch.setattr(variance, "_CALLS", Store(64))   # not the call just prepared
        want = getattr(xp, func)(x, axis=1, correction=correction)
    assert got.dtype == want.dtype and got.shape == want.shape == (3000,)
    assert cp.asnumpy(got).tobytes() == cp.asnumpy(want).tobytes()
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = getattr(np, func)(h.astype(np.float64), axis=1, ddof=correction)
    np.testing.assert_allclose(cp.asnumpy(got), ref.astype(got.dtype),
                               rtol=2e-6 if dtype == "float32" else 1e-12)


ROWS = [f"xs_var_rows<{tin}, {tout}, 4, {r}, {v}, {root}, 1, {q}>"
        for tin, tout, v in (("float", "float", 4), ("double", "double", 2), ("int", "double", 1))
        for r, q in ((4, 4), (4, 1), (32, 1)) for root in ("true", "false")]


@pytest.mark.skipif(nvrtc is None, reason="cuda-bindings/nvrtc not importable")
def test_every_rows_kernel_compiles_with_the_packed_parameter_sizes():
    lowered, ptx = compile_named(source("reduce_finish.cu"), ROWS, "sm_90", "reduce_finish.cu")
    desc = 8 * (2 * 4 + 2 * 1 + 2)   # xs_red_desc<4, 1>
    for name in ROWS:   # x, out, desc, nrows, rowlen, dof
        assert ptx_param_sizes(ptx, lowered[name]) == [8, 8, desc, 8, 8, 8], name


def _short_row_views(rng, dtype):
    """(base, view, axis): views whose plans are short-row strategies: contiguous rows
    of 2 to 32 elements (vectors and not), rows of a transposed array, strided and
    reversed rows; ``view`` works on NumPy and CuPy arrays alike."""
    for k in (2, 3, 4, 5, 8, 12, 16, 31, 32):
        yield (rng.standard_normal((4099, k)) * 3 + 1).astype(dtype), lambda a: a, 1
    base = (rng.standard_normal((5, 3001)) * 2 - 4).astype(dtype)
    yield base, lambda a: a.T, 1
    yield base, lambda a: a[:, ::-2].T, 1
    wide = (rng.standard_normal((2000, 20)) + 7).astype(dtype)
    yield wide, lambda a: a[:, 1:9], 1
    yield wide, lambda a: a[::-1, ::3], 1
    yield wide, lambda a: a.reshape(2000, 4, 5), 2


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32"])
@pytest.mark.parametrize("func", ["var", "std"])
def test_rows_kernel_matches_numpy_and_the_two_pass_path(cp, monkeypatch, dtype, func):
    from xstride._kernels import var_kernels as red, variance
    from xstride._kernels._prepared import Store
    from xstride._plans.reduction import plan_array

    rng = np.random.default_rng(11)
    seen = 0
    for base, view, axis in _short_row_views(rng, dtype):
        h, x = view(base), view(cp.asarray(base))
        assert x.strides == h.strides
        seen += red.rows_ok(plan_array(x, (axis,)))
        for correction in (0, 1):
            got = getattr(xp, func)(x, axis=axis, correction=correction)
            with monkeypatch.context() as m:
                m.setattr(red, "rows_ok", lambda plan: False)
                m.setattr(variance, "_CALLS", Store(64))   # not the call just prepared
                two = getattr(xp, func)(x, axis=axis, correction=correction)
            ref = getattr(np, func)(h.astype(np.float64), axis=axis, ddof=correction)
            assert got.dtype == two.dtype and got.shape == two.shape == ref.shape
            tol = 2e-6 if dtype == "float32" else 1e-12
            np.testing.assert_allclose(cp.asnumpy(got), ref, rtol=tol)
            np.testing.assert_allclose(cp.asnumpy(got), cp.asnumpy(two), rtol=tol)
    assert seen >= 10   # the rows kernel served the short-row views


@pytest.mark.gpu
def test_rows_kernel_nan_inf_and_no_degrees_of_freedom(cp):
    h = np.array([[1.0, np.nan, 2.0], [np.inf, 1.0, 0.0], [3.0, 3.0, 3.0],
                  [-np.inf, np.inf, 1.0]] * 100, dtype=np.float32)
    x = cp.asarray(h)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for correction in (0, 1, 3, 4):
            got = cp.asnumpy(xp.var(x, axis=1, correction=correction))
            want = np.var(h.astype(np.float64), axis=1, ddof=correction).astype(np.float32)
            np.testing.assert_array_equal(got, want)


@pytest.mark.gpu
@pytest.mark.parametrize("minb", __import__("xstride._kernels._reduce_common",
                                            fromlist=["VARIANTS"]).VARIANTS["var_rows"])
def test_rows_kernel_every_tuning(cp, monkeypatch, minb):
    """Each (MINB for rows of at most 4, MINB for longer rows, rows a thread) of
    ``TUNING["var_rows"]`` gives NumPy's values (the register caps of 6 and 8 blocks
    spill long rows), on row counts that leave a thread's last rows partly past the
    end."""
    from xstride._kernels import _reduce_common as rc, var_kernels as red

    monkeypatch.setitem(rc.TUNING, "var_rows", minb)
    monkeypatch.setitem(rc.TUNING, "var_regs", (0, 0, 0))   # dense rows here too
    monkeypatch.setattr(red, "_VAR_ROWS", red.Bounded(256))
    rng = np.random.default_rng(5)
    for k, n in ((3, 5000), (3, 256 * 4 * 3 + 5), (2, 1), (7, 5000), (16, 5000), (32, 5000)):
        h = (rng.standard_normal((n, k)) * 4 - 1).astype(np.float32)
        got = cp.asnumpy(xp.std(cp.asarray(h), axis=1, correction=1))
        np.testing.assert_allclose(got, np.std(h.astype(np.float64), axis=1, ddof=1),
                                   rtol=2e-6)
