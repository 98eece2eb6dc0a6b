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
