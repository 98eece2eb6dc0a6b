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
    from xstride._kernels import reductions as red

    rng = np.random.default_rng(3)
    h = (rng.standard_normal((3000, 37)) * 5 + 2).astype(dtype)
    x = cp.asarray(h)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")     # correction 40: no degrees of freedom left
        got = getattr(xp, func)(x, axis=1, correction=correction)
        monkeypatch.setattr(red, "_FINISH_TYPES", {})      # the three array operations
        want = getattr(xp, func)(x, axis=1, correction=correction)
    assert got.dtype == want.dtype and got.shape == want.shape == (3000,)
    assert cp.asnumpy(got).tobytes() == cp.asnumpy(want).tobytes()
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = getattr(np, func)(h.astype(np.float64), axis=1, ddof=correction)
    np.testing.assert_allclose(cp.asnumpy(got), ref.astype(got.dtype),
                               rtol=2e-6 if dtype == "float32" else 1e-12)
