"""The creation functions' bad arguments on real CuPy (the CPU tests with a stand-in
CuPy: tests/test_creation_cupy.py): each named as on the NumPy and dask backends, and
the good calls giving NumPy's values."""

from __future__ import annotations

import numpy as np
import pytest

import xstride as xp

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("call, cls, match", [
    (lambda: xp.eye(2, k=1.0), TypeError, r"^eye: argument 'k' got float 1\.0; expected an int"),
    (lambda: xp.eye(2, k=True), TypeError, r"^eye: argument 'k' got bool True"),
    (lambda: xp.eye(2.0), TypeError, r"^eye: argument 'n_rows' got float 2\.0"),
    (lambda: xp.eye(2, -3), ValueError, r"^eye: argument 'n_cols' has the negative length -3"),
    (lambda: xp.zeros(-1), ValueError, r"^zeros: argument 'shape' has the negative length -1"),
    (lambda: xp.ones((2, -1)), ValueError, r"^ones: argument 'shape' has the negative length"),
    (lambda: xp.empty(2.0), TypeError, r"^empty: argument 'shape' got float 2\.0"),
    (lambda: xp.zeros((2, 2.5)), TypeError, r"^zeros: argument 'shape' got tuple \(2, 2\.5\)"),
    (lambda: xp.zeros(True), TypeError, r"^zeros: argument 'shape' got bool True"),
    (lambda: xp.empty((True, 2)), TypeError, r"^empty: argument 'shape' got tuple \(True, 2\)"),
    (lambda: xp.full(-1, 1.0), ValueError, r"^full: argument 'shape' has the negative length"),
    (lambda: xp.full((2, False), 1.0), TypeError, r"^full: argument 'shape' got tuple"),
    (lambda: xp.full(3, None), TypeError, r"^full: argument 'fill_value' got NoneType None"),
    (lambda: xp.full(3, None, dtype=xp.float64), TypeError, r"^full: argument 'fill_value'"),
    (lambda: xp.full(3, "a"), TypeError, r"^full: argument 'fill_value' got str 'a'"),
    (lambda: xp.full_like(xp.zeros(2), None), TypeError,
     r"^full_like: argument 'fill_value' got NoneType None"),
    (lambda: xp.arange(0, 5, 0), ValueError, r"^arange: argument 'step' is 0"),
    (lambda: xp.arange(None), TypeError, r"^arange: argument 'start' got NoneType None"),
    (lambda: xp.arange(0.0, float("inf")), ValueError, r"^arange: argument 'stop' gives inf"),
    (lambda: xp.linspace(0, 1, -1), ValueError, r"^linspace: argument 'num' must be "
                                                r"non-negative; got -1"),
    (lambda: xp.linspace(0, 1, True), TypeError, r"^linspace: argument 'num' got bool True"),
    (lambda: xp.linspace(0, 1, 3, endpoint="no"), TypeError,
     r"^linspace: argument 'endpoint' got str 'no'"),
    (lambda: xp.zeros(3, dtype="foo"), TypeError, r"^zeros: argument 'dtype' got str 'foo'"),
    (lambda: xp.full(3, 1, dtype="foo"), TypeError, r"^full: argument 'dtype' got str 'foo'"),
    (lambda: xp.arange(3, dtype="foo"), TypeError, r"^arange: argument 'dtype' got str 'foo'"),
    (lambda: xp.linspace(0, 1, 3, dtype="foo"), TypeError,
     r"^linspace: argument 'dtype' got str 'foo'"),
    (lambda: xp.eye(2, dtype="foo"), TypeError, r"^eye: argument 'dtype' got str 'foo'"),
    (lambda: xp.zeros_like(xp.zeros(2), dtype="foo"), TypeError,
     r"^zeros_like: argument 'dtype' got str 'foo'"),
    (lambda: xp.asarray([1, 2], dtype="foo"), TypeError,
     r"^asarray: argument 'dtype' got str 'foo'"),
])
def test_a_bad_creation_argument_is_named_on_cupy(cp, call, cls, match):
    with xp.use_backend("cupy"):
        with pytest.raises(cls, match=match):
            call()


def test_good_creation_calls_give_numpys_values_on_cupy(cp):
    with xp.use_backend("cupy"):
        got = [xp.eye(2, 3, k=np.int8(-1)), xp.linspace(0, 1, np.int32(5), endpoint=np.False_),
               xp.arange(0, 5, 2), xp.full(3, 1.5, dtype=xp.float32), xp.zeros((2, np.int64(3))),
               xp.full_like(xp.zeros(2, dtype=xp.int16), 7)]
    want = [np.eye(2, 3, k=-1), np.linspace(0, 1, 5, endpoint=False), np.arange(0, 5, 2),
            np.full(3, 1.5, dtype=np.float32), np.zeros((2, 3)), np.full(2, 7, dtype=np.int16)]
    for g, w in zip(got, want):
        assert isinstance(g, cp.ndarray) and g.dtype == w.dtype
        np.testing.assert_array_equal(cp.asnumpy(g), w)


@pytest.mark.parametrize("start, stop, num, dtype, want", [
    (0, 2**63 - 1, 2, xp.int64, [0, 2**63 - 1]),
    (-2**63, 2**63 - 1, 5, xp.int64, [-2**63, -2**62, 0, 2**62, 2**63 - 1]),
    (0, 2**64 - 1, 2, xp.uint64, [0, 2**64 - 1]),
])
def test_linspace_of_integer_ends_past_2_53_does_not_wrap_on_cupy(cp, start, stop, num,
                                                                  dtype, want):
    """The NumPy and dask backends' test (tests/test_bad_input_creation.py) on CuPy,
    whose float64 value ``2**63`` cast to int64 wrapped as NumPy's did."""
    with xp.use_backend("cupy"):
        got = xp.linspace(start, stop, num, dtype=dtype)
    assert isinstance(got, cp.ndarray) and got.dtype == dtype
    assert cp.asnumpy(got).tolist() == want
