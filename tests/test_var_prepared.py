"""Prepared calls of var/std (xstride/_kernels/variance.py): a repeat call with the same
key runs the stored kernel path without the checks, the dtype rules and the recipes'
lookups; calls that warn, other corrections, dtypes and layouts take the checked path.
On the CPU with the stand-in CuPy of tests/test_reduction_host_path.py."""

from __future__ import annotations

import numpy as np
import pytest

import xstride as xp
import xstride._kernels.variance as _variance
from tests.conftest import FakeCupyArray
from tests.test_reduction_host_path import fake_reductions  # noqa: F401  (fixture)


def _no_recipes(monkeypatch):
    """From here on a checked call fails: only a prepared call can answer."""
    def refuse(*args, **kwargs):
        raise AssertionError("the checked path ran")
    monkeypatch.setattr(_variance, "_recipe", refuse)


# each kernel path: short rows (var_rows), float32 moments (the interleave kernel's
# own shifts, or the centers' launch), float64 two passes
_CASES = [
    ((5000, 3), np.float32, 1, "rows"),
    ((600, 3), np.float32, 0, "moments0"),   # a few contiguous columns: interleave
    ((40, 50), np.float32, 0, "moments"),
    ((600, 3), np.float64, 0, "two"),
    ((40, 50), np.float64, 1, "two"),
]


@pytest.mark.parametrize("shape,dtype,axis,kind", _CASES)
@pytest.mark.parametrize("func", ["var", "std"])
def test_a_repeat_call_runs_the_prepared_path(fake_reductions, monkeypatch,  # noqa: F811
                                              shape, dtype, axis, kind, func):
    cp, log = fake_reductions
    h = (np.random.default_rng(1).standard_normal(shape) * 3 + 2).astype(dtype)
    x = FakeCupyArray(h)
    first = getattr(xp, func)(x, axis=axis, correction=1)
    assert len(_variance._CALLS) == 1
    (run,) = _variance._CALLS.values()
    assert run.__self__.kind == kind
    launched = len(log)
    _no_recipes(monkeypatch)
    again = getattr(xp, func)(x, axis=axis, correction=1)
    assert len(log) - launched == launched            # the same launches once more
    assert again.dtype == first.dtype and again.shape == first.shape
    np.testing.assert_array_equal(again.get(), first.get())
    want = getattr(np, func)(h.astype(np.float64), axis=axis, ddof=1)
    np.testing.assert_allclose(again.get(), want, rtol=2e-6 if dtype == np.float32 else 1e-12)


def test_keepdims_and_a_tuple_of_axes_repeat_with_their_shape(fake_reductions, monkeypatch):  # noqa: F811
    cp, log = fake_reductions
    h = np.random.default_rng(2).standard_normal((4, 5, 6))
    x = FakeCupyArray(h.transpose(2, 0, 1))
    first = xp.var(x, axis=(0, 2), keepdims=True)
    _no_recipes(monkeypatch)
    again = xp.var(x, axis=(0, 2), keepdims=True)
    assert again.shape == first.shape == (1, 4, 1)
    np.testing.assert_array_equal(again.get(), first.get())
    np.testing.assert_allclose(again.get(), np.var(h.transpose(2, 0, 1), axis=(0, 2),
                                                   keepdims=True), rtol=1e-12)


def test_the_key_holds_correction_dtype_keepdims_and_the_function(fake_reductions):  # noqa: F811
    cp, log = fake_reductions
    h = np.random.default_rng(3).standard_normal((300, 4))
    x = FakeCupyArray(h)
    xp.var(x, axis=0)
    xp.var(x, axis=0, correction=0.0)      # the default's key
    assert len(_variance._CALLS) == 1
    got = {
        "correction": xp.var(x, axis=0, correction=1),
        "std": xp.std(x, axis=0),
        "keepdims": xp.var(x, axis=0, keepdims=True),
        "dtype": xp.var(x, axis=0, dtype=np.float32),
        "axis": xp.var(x, axis=1),
    }
    assert len(_variance._CALLS) == 6
    np.testing.assert_allclose(got["correction"].get(), np.var(h, axis=0, ddof=1), rtol=1e-12)
    np.testing.assert_allclose(got["std"].get(), np.std(h, axis=0), rtol=1e-12)
    assert got["keepdims"].shape == (1, 4) and got["dtype"].dtype == np.float32
    np.testing.assert_allclose(got["axis"].get(), np.var(h, axis=1), rtol=1e-12)


def test_calls_that_warn_are_never_prepared(fake_reductions):  # noqa: F811
    """No degrees of freedom left: NumPy's RuntimeWarning on every call."""
    cp, log = fake_reductions
    x = FakeCupyArray(np.random.default_rng(4).standard_normal((50, 3)))
    for _ in range(2):
        with pytest.warns(RuntimeWarning, match="Degrees of freedom <= 0"):
            got = xp.var(x, axis=0, correction=50)
        assert np.isinf(got.get()).all()
    assert len(_variance._CALLS) == 0


def test_arguments_that_are_not_keyed_take_the_checked_path(fake_reductions):  # noqa: F811
    """A NumPy scalar correction is not a key (the checked path gives the same values,
    nothing is prepared); NumPy's False as keepdims is checked, then keyed as False; a
    bool correction raises its TypeError."""
    cp, log = fake_reductions
    h = np.random.default_rng(5).standard_normal((300, 4))
    x = FakeCupyArray(h)
    want = np.var(h, axis=0, ddof=1)
    for _ in range(2):
        got = xp.var(x, axis=0, correction=np.float64(1.0))
        np.testing.assert_allclose(got.get(), want, rtol=1e-12)
    assert len(_variance._CALLS) == 0
    got = xp.var(x, axis=0, correction=1, keepdims=np.False_)
    np.testing.assert_allclose(got.get(), want, rtol=1e-12)
    xp.var(x, axis=0, correction=1, keepdims=False)
    assert len(_variance._CALLS) == 1
    with pytest.raises(TypeError, match="var: argument 'correction' got bool"):
        xp.var(x, axis=0, correction=True)


def test_another_layout_or_alignment_misses(fake_reductions):  # noqa: F811
    cp, log = fake_reductions
    h = np.random.default_rng(6).standard_normal((400, 3))
    xp.var(FakeCupyArray(h), axis=0)
    got = xp.var(FakeCupyArray(h[1:]), axis=0)       # 8 bytes on: another address mod 16
    xp.var(FakeCupyArray(h[::-1]), axis=0)
    assert len(_variance._CALLS) == 3
    np.testing.assert_allclose(got.get(), np.var(h[1:], axis=0), rtol=1e-12)


def test_an_int_correction_past_int64_is_not_served_by_an_equal_float(fake_reductions):  # noqa: F811
    """-2**64 and -2.0**64 are equal and hash alike; the int raises (NumPy's ddof is a C
    long), the float does not: the key holds the correction's type."""
    cp, log = fake_reductions
    x = FakeCupyArray(np.random.default_rng(8).standard_normal((300, 4)))
    with pytest.raises(ValueError, match="correction"):
        xp.var(x, axis=0, correction=-2**64)
    xp.var(x, axis=0, correction=-2.0**64)
    assert len(_variance._CALLS) == 1
    with pytest.raises(ValueError, match="correction"):
        xp.var(x, axis=0, correction=-2**64)


def test_a_nan_correction_is_never_prepared(fake_reductions):  # noqa: F811
    cp, log = fake_reductions
    x = FakeCupyArray(np.random.default_rng(9).standard_normal((300, 4)))
    for _ in range(3):
        assert np.isnan(xp.var(x, axis=0, correction=float("nan")).get()).all()
    assert len(_variance._CALLS) == 0
