"""Backend selection and dispatch with a real CuPy device."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import xstride as xp

pytestmark = pytest.mark.gpu


def test_set_backend_cupy_creates_cupy_arrays(cp):
    with xp.use_backend("cupy"):
        a = xp.arange(6, dtype=xp.float32)
        assert type(a) is cp.ndarray
        assert xp.get_array_module(a) is cp
    assert xp.get_backend() in ("numpy", "cupy")


def test_functions_follow_their_arrays(cp):
    d = cp.arange(5.0)
    with xp.use_backend("numpy"):
        s = xp.sum(d)
        assert type(s) is cp.ndarray and float(s) == 10.0
        assert type(xp.linalg.vector_norm(d)) is cp.ndarray
        assert type(xp.zeros(2)) is np.ndarray  # creation: active backend


def test_mixed_arrays_raise(cp):
    with pytest.raises(TypeError, match=r"multiply: .*x1 is cupy, x2 is numpy"):
        xp.multiply(cp.ones(3), np.ones(3))
    with pytest.raises(TypeError, match="stack"):
        xp.stack([cp.ones(3), np.ones(3)])


def test_two_threads_two_backends(cp):
    out = {}
    barrier = threading.Barrier(2)

    def worker(name):
        xp.set_backend(name)
        barrier.wait()
        out[name] = type(xp.ones(2)).__module__.split(".")[0]

    ts = [threading.Thread(target=worker, args=(n,)) for n in ("numpy", "cupy")]
    [t.start() for t in ts]
    [t.join() for t in ts]
    assert out == {"numpy": "numpy", "cupy": "cupy"}


def test_conversions_both_ways_zero_copy_when_there(cp):
    h = np.arange(4.0)
    d = xp.to_device(h, "cupy")
    assert type(d) is cp.ndarray
    cp.testing.assert_array_equal(d, cp.arange(4.0))
    assert xp.to_device(d, "cupy") is d
    back = xp.to_numpy(d)
    assert type(back) is np.ndarray
    np.testing.assert_array_equal(back, h)
    with xp.use_backend("cupy"):
        assert xp.to_device(d) is d


def test_array_namespace_follows_arrays(cp):
    import array_api_compat.cupy as ccp

    assert xp.array_namespace(cp.ones(1)) is ccp


def test_info_reports_device(cp):
    caps = xp.cuda.capabilities()
    assert caps["backend"] in ("cuda", "hip")
    assert caps["device"]["warp_size"] in (32, 64)
    assert caps["device"]["total_memory_bytes"] > 0
    assert xp.cuda.is_hip() == caps["is_hip"]
