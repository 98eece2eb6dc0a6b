"""``astype``'s ``copy`` is a bool (the standard's signature): NumPy's took any value by
its truth (``copy="no"`` copied, ``copy=None`` returned ``x`` itself), so a mistyped
argument passed silently (found by a new-user probe)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import xstride as xp

from tests._two_backends import numpy_after  # noqa: F401 - an autouse fixture
from tests._two_backends import on_backend as _wrap


@pytest.mark.parametrize("backend", ["numpy", "dask"])
@pytest.mark.parametrize("copy", ["no", None, 0, 1, [], 1.0])
def test_astype_refuses_a_copy_that_is_not_a_bool(backend, copy):
    x = _wrap(backend, np.arange(3, dtype=np.float32))
    with xp.use_backend(backend):
        with pytest.raises(TypeError, match="astype: argument 'copy' got .*; expected True "
                                            "or False"):
            xp.astype(x, xp.float32, copy=copy)


@pytest.mark.parametrize("backend", ["numpy", "dask"])
def test_astype_takes_python_and_numpy_bools(backend):
    x = _wrap(backend, np.arange(3, dtype=np.float32))
    with xp.use_backend(backend):
        assert xp.astype(x, xp.float32, copy=False) is x
        assert xp.astype(x, xp.float32, copy=np.False_) is x
        assert xp.astype(x, xp.float32, copy=True) is not x
        assert xp.to_numpy(xp.astype(x, xp.int16, copy=np.True_)).tolist() == [0, 1, 2]


@pytest.mark.parametrize("backend", ["numpy", "dask"])
def test_fused_astype_with_a_bad_copy_raises_the_unfused_error(backend):
    f = xp.fuse(lambda x: xp.astype(x, xp.int16, copy="no") + 1)
    x = _wrap(backend, np.arange(3, dtype=np.float32))
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # the unfused run raises; no FusionWarning first
        with pytest.raises(TypeError, match="astype: argument 'copy'"):
            f(x)


@pytest.mark.parametrize("backend", ["numpy", "dask"])
@pytest.mark.parametrize("dtype", ["float64", "float32", "int16", "uint8"])
def test_astype_refuses_complex_to_real(backend, dtype):
    """The standard: "Casting a complex floating-point array to a real-valued data type
    should not be permitted". NumPy kept the real part with a ComplexWarning, dask
    silently; into bool and complex dtypes it is a cast."""
    z = _wrap(backend, np.array([1 + 2j, 0j], np.complex64))
    with xp.use_backend(backend):
        with pytest.raises(TypeError, match=rf"^astype: cannot cast x of dtype complex64 to "
                                            rf"the real-valued dtype {dtype} .*xstride.real"):
            xp.astype(z, getattr(xp, dtype))
        with pytest.raises(TypeError, match="^astype: cannot cast x of dtype complex64"):
            xp.fuse(lambda a: xp.astype(a, xp.float32) + 1)(z)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert xp.to_numpy(xp.astype(z, xp.bool)).tolist() == [True, False]
            assert xp.to_numpy(xp.astype(z, xp.complex128)).tolist() == [1 + 2j, 0j]
            assert xp.to_numpy(xp.astype(xp.real(z), xp.float64)).tolist() == [1.0, 0.0]


def test_fused_astype_of_complex_to_real_is_refused_in_the_trace(fake_cupy):
    """On CuPy arrays the trace made a cast kernel of it (CuPy's keeps the real part)."""
    from tests._fuse_cases import fake

    z = fake(np.array([1 + 2j, 0j], np.complex64))
    with pytest.raises(TypeError, match="^astype: cannot cast x of dtype complex64 to the "
                                        "real-valued dtype float32"):
        xp.fuse(lambda a: xp.astype(a, xp.float32) * 2, strict=True).graph(z)
    xp.fuse(lambda a: xp.astype(a, xp.complex128) * 2, strict=True).graph(z)
