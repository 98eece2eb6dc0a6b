"""``clip``'s Python scalar bounds against ``x``'s dtype, on the NumPy and dask backends
(``xstride/_backends/clip_checks.py``)."""

import numpy as np
import pytest

import xstride as xp


def _on(backend, a):
    if backend == "numpy":
        return a
    with xp.use_backend("dask", chunks=1):
        return xp.asarray(a)


BACKENDS = ["numpy", "dask"]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("x, kw, arg", [
    (np.array([True, False]), dict(max=-1), "max"),            # was [T, F] / [T, T]
    (np.array([True, False]), dict(min=-200, max=300), "min"),  # was [True, True]
    (np.array([True, False]), dict(min=0.5), "min"),
    (np.array([-3, 0, 5], np.int8), dict(min=0.5), "min"),     # was truncated to 0
    (np.array([-3, 0, 5], np.int8), dict(min=1e40), "min"),    # unnamed / 0 on dask
    (np.array([1.0, 2.0]), dict(min=1j), "min"),               # AttributeError on dask
    (np.array([1.0, 2.0]), dict(max="a"), "max"),
    (np.array([1.0, 2.0]), dict(min=[1, 2]), "min"),
])
def test_scalar_bound_of_another_kind_is_refused(backend, x, kw, arg):
    with pytest.raises(TypeError, match=rf"clip: argument '{arg}' got .*dtype {x.dtype}"):
        xp.to_numpy(xp.clip(_on(backend, x), **kw))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype, kw, arg", [
    (np.int8, dict(min=300), "min"), (np.int8, dict(max=-300), "max"),
    (np.uint8, dict(max=-1), "max"),   # dask wrapped: [44, ...], [255, ...]
])
def test_int_bound_past_the_far_end_is_an_overflow_on_both_backends(backend, dtype, kw, arg):
    with pytest.raises(OverflowError, match=rf"clip: argument '{arg}' .*{np.dtype(dtype)}"):
        xp.to_numpy(xp.clip(_on(backend, np.array([0, 5, 100], dtype)), **kw))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("x, kw, want", [
    (np.array([True, False]), dict(min=True), [True, True]),
    (np.array([True, False]), dict(), [True, False]),          # dask: "positive" refused bools
    (np.array([-3, 0, 120], np.int8), dict(min=-1000, max=7), [-3, 0, 7]),
    (np.array([-3, 0, 120], np.int8), dict(min=True, max=np.int64(5)), [1, 1, 5]),
    (np.array([1.0, 2.5]), dict(min=2, max=2.25), [2.0, 2.25]),
    (np.array([1 + 1j, 3j]), dict(min=0.5, max=2 + 0j), [1 + 1j, 0.5]),  # dask: AttributeError
])
def test_bounds_the_standard_allows(backend, x, kw, want):
    got = xp.to_numpy(xp.clip(_on(backend, x), **kw))
    assert got.dtype == x.dtype and got.tolist() == want
