"""Reductions over an axis of one element (the plan's "copy" strategy) on the host path
with the stand-in CuPy: NumPy reduces from the identity, so a float sum of ``-0.0`` is
``+0.0`` and a complex product spreads a NaN part; the result must be NumPy's, sign of
zero and NaN parts included (NaN payloads aside: GPU arithmetic gives its own)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import xstride as xp

from tests.conftest import FakeCupyArray
from tests.test_reduction_host_path import fake_reductions  # noqa: F401 - a fixture

_REALS = [-0.0, 0.0, 1.5, -2.0, np.nan, np.inf, -np.inf]


def _parts(a: np.ndarray) -> np.ndarray:
    """The float parts of ``a`` with every NaN made one NaN: equal bytes then mean
    equal values, zero signs and NaN places."""
    f = a.view(a.real.dtype) if a.dtype.kind == "c" else a.copy()
    f[np.isnan(f)] = np.nan
    return f


def _column(dtype) -> np.ndarray:
    if np.dtype(dtype).kind == "c":
        vals = [complex(r, i) for r, i in itertools.product(_REALS, repeat=2)]
    else:
        vals = _REALS
    return np.array(vals, dtype=dtype)


# complex max is the library's, not the kernels'
@pytest.mark.parametrize("dtype, func", [
    *itertools.product([np.float32, np.float64, np.complex64, np.complex128],
                       ["sum", "prod", "mean"]),
    (np.float32, "max"), (np.float64, "max")])
def test_an_axis_of_one_element_reduces_from_the_identity(fake_reductions, dtype, func):
    cp, log = fake_reductions
    col = _column(dtype)
    h = np.stack([col, col[::-1]], axis=1)            # (n, 2): column 0 of it is (n, 1)
    for v, axis in [(h[:, :1], 1), (h[:, :1].T, 0), (h[:, :1].T.copy(), 0)]:
        with np.errstate(all="ignore"):
            want = getattr(np, func)(v, axis=axis)
        before = len(log)
        got = getattr(xp, func)(FakeCupyArray(v), axis=axis).get()
        # one element each: no kernel, but for NumPy's (1 + 0j) * y of a complex
        # product, which the short kernel forms in one pass
        kernel = func == "prod" and np.dtype(dtype).kind == "c"
        assert len(log) == before + kernel
        if kernel:
            assert log[-1][0].startswith("xs_reduce_short<1, xs_complex")
        assert got.dtype == want.dtype and got.shape == want.shape
        assert _parts(got).tobytes() == _parts(want).tobytes(), (func, axis)
    if func in ("sum", "mean"):                          # not vacuous: -0 became +0
        assert not np.signbit(_parts(got)[0])


def test_integers_over_an_axis_of_one_element_are_copies(fake_reductions):
    cp, log = fake_reductions
    h = np.arange(-5, 5, dtype=np.int32).reshape(10, 1)
    for func in ("sum", "prod", "max"):
        got = getattr(xp, func)(FakeCupyArray(h), axis=1).get()
        want = getattr(np, func)(h, axis=1)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


def test_a_repeated_call_of_one_element_per_output_is_prepared(fake_reductions, monkeypatch):
    """The second equal call goes through the prepared call (no planning) and gives the
    first call's result; another layout or dtype= is another key."""
    import xstride._kernels.reductions as _red

    cp, log = fake_reductions
    h = _column(np.float32)[:, None]
    x = FakeCupyArray(h)
    first = xp.sum(x, axis=1, keepdims=True).get()
    assert len(_red._CALLS) == 1

    def no_planning(*args, **kwargs):
        raise AssertionError("a repeated call planned again")

    with monkeypatch.context() as m:
        m.setattr(_red, "_recipe", no_planning)
        second = xp.sum(x, axis=1, keepdims=True).get()
    assert _parts(second).tobytes() == _parts(first).tobytes()
    assert second.shape == (h.shape[0], 1) and not np.signbit(second[0, 0])
    xp.sum(x, axis=1)                                    # keepdims=False: a new key
    xp.sum(x, axis=1, dtype=np.float64)                  # dtype=: a new key
    xp.mean(x, axis=1)
    assert len(_red._CALLS) == 4


def test_a_complex_product_narrowed_by_dtype_casts_first(fake_reductions):
    """``prod(..., dtype=complex64)`` of complex128 elements over an axis of one
    element: NumPy casts each element, then multiplies by ``1 + 0j``, so a real part
    past float32's range becomes inf and the imaginary part NaN (inf * 0); the short
    kernel's complex128 product would cast after and keep the imaginary part. Narrowing
    takes the cast copy (no kernel); widening takes the short kernel."""
    cp, log = fake_reductions
    h = np.array([[1e39 + 1j], [2.5 - 0.0j], [-0.0 + 3j]], np.complex128)
    with np.errstate(all="ignore"):
        want = np.prod(h, axis=1, dtype=np.complex64)
    before = len(log)
    got = xp.prod(FakeCupyArray(h), axis=1, dtype=np.complex64).get()
    assert len(log) == before
    assert np.isinf(want[0].real) and np.isnan(want[0].imag)   # not vacuous
    assert got.dtype == want.dtype and _parts(got).tobytes() == _parts(want).tobytes()
    w = h[1:].astype(np.complex64)
    got = xp.prod(FakeCupyArray(w), axis=1, dtype=np.complex128).get()
    assert len(log) == before + 1 and log[-1][0].startswith("xs_reduce_short<1, xs_complex64")
    assert _parts(got).tobytes() == _parts(np.prod(w, axis=1, dtype=np.complex128)).tobytes()
