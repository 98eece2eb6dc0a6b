"""The creation functions' arguments on the CuPy backend (``xstride._backends.size_checks``
and ``fixes.py``'s ``full``/``full_like``), on the tests' stand-in CuPy: named as on the
NumPy and dask backends (tests/test_bad_input_creation.py). Checked before CuPy's
function where CuPy takes the argument (``eye(2, k=True)``, ``endpoint="no"``) or fails
obscurely on it (``full(3, None)``, ``arange(0, 5, 0)``'s bare ZeroDivisionError);
after CuPy refused the call where it refuses it (a bool shape, ``arange(None)``,
``dtype="foo"``), here CuPy's refusals played by a stand-in compat namespace. The same
calls on a device: tests/test_creation_cupy_gpu.py."""

from __future__ import annotations

import numpy as np
import pytest

import xstride as xp


@pytest.mark.parametrize("call, cls, match", [
    (lambda c: xp.eye(2, k=1.0), TypeError, r"^eye: argument 'k' got float 1\.0; expected an int"),
    (lambda c: xp.eye(2, k=True), TypeError, r"^eye: argument 'k' got bool True"),
    (lambda c: xp.eye(2.0), TypeError, r"^eye: argument 'n_rows' got float 2\.0"),
    (lambda c: xp.eye(True), TypeError, r"^eye: argument 'n_rows' got bool True"),
    (lambda c: xp.eye(2, -3), ValueError, r"^eye: argument 'n_cols' has the negative length -3"),
    (lambda c: xp.zeros(-1), ValueError, r"^zeros: argument 'shape' has the negative length -1"),
    (lambda c: xp.ones((2, -1)), ValueError, r"^ones: argument 'shape' has the negative length"),
    (lambda c: xp.empty(2.0), TypeError, r"^empty: argument 'shape' got float 2\.0; expected "
                                         r"an int or a tuple of ints"),
    (lambda c: xp.zeros((2, 2.5)), TypeError, r"^zeros: argument 'shape' got tuple \(2, 2\.5\)"),
    (lambda c: xp.zeros("abc"), TypeError, r"^zeros: argument 'shape' got str 'abc'"),
    (lambda c: xp.full(-1, 1.0), ValueError, r"^full: argument 'shape' has the negative length"),
    (lambda c: xp.full(2.0, 1.0), TypeError, r"^full: argument 'shape' got float 2\.0"),
    (lambda c: xp.full(3, None), TypeError, r"^full: argument 'fill_value' got NoneType None; "
                                            r"expected a bool, int, float or complex"),
    (lambda c: xp.full(3, None, dtype=xp.float64), TypeError, r"^full: argument 'fill_value'"),
    (lambda c: xp.full(3, "a"), TypeError, r"^full: argument 'fill_value' got str 'a'"),
    (lambda c: xp.full_like(c.cupy.ndarray((2,)), None), TypeError,
     r"^full_like: argument 'fill_value' got NoneType None"),
    (lambda c: xp.full_like(c.cupy.ndarray((2,)), b"x", dtype=xp.int8), TypeError,
     r"^full_like: argument 'fill_value' got bytes"),
    (lambda c: xp.arange(0, 5, 0), ValueError, r"^arange: argument 'step' is 0; the step "
                                               r"between values must be non-zero"),
    (lambda c: xp.arange(0.0, 1.0, 0.0), ValueError, r"^arange: argument 'step' is 0\.0"),
    (lambda c: xp.linspace(0, 1, -1), ValueError, r"^linspace: argument 'num' must be "
                                                  r"non-negative; got -1"),
    (lambda c: xp.linspace(0, 1, True), TypeError, r"^linspace: argument 'num' got bool True"),
    (lambda c: xp.linspace(0, 1, 2.0), TypeError, r"^linspace: argument 'num' got float 2\.0"),
    (lambda c: xp.linspace(0, 1, 3, endpoint="no"), TypeError,
     r"^linspace: argument 'endpoint' got str 'no'"),
    (lambda c: xp.linspace(None, 1, 3), TypeError, r"^linspace: argument 'start' got NoneType"),
    (lambda c: xp.linspace(0, "1", 3), TypeError, r"^linspace: argument 'stop' got str '1'"),
])
def test_a_bad_argument_cupy_takes_or_fails_on_is_named_before_cupy(cupy_compat, call, cls,
                                                                      match):
    with pytest.raises(cls, match=match):
        call(cupy_compat)
    assert cupy_compat.calls == []


def test_good_calls_reach_cupy_as_given(cupy_compat):
    fake = cupy_compat.cupy
    x = fake.ndarray((2,))
    for call, name in [(lambda: xp.zeros((2, np.int64(3))), "zeros"),
                       (lambda: xp.empty(0), "empty"), (lambda: xp.ones(()), "ones"),
                       (lambda: xp.eye(2, 3, k=np.int8(-1)), "eye"),
                       (lambda: xp.arange(0, 5, 2), "arange"),
                       (lambda: xp.linspace(0, 1, np.int32(3), endpoint=np.False_), "linspace"),
                       (lambda: xp.full(3, 1.5, dtype=xp.float32), "full"),
                       (lambda: xp.full(2, True), "full"),
                       (lambda: xp.full_like(x, 2), "full_like")]:
        cupy_compat.calls.clear()
        assert call() == name
        assert [c[0] for c in cupy_compat.calls] == [name]


class _Refusing:
    """A compat namespace that refuses every call as CuPy refuses the one given: ``exc``
    raised, the call recorded in ``calls``."""

    def __init__(self, exc):
        self.exc, self.calls = exc, []

    def __getattr__(self, name):
        def fn(*args, **kwargs):
            self.calls.append(name)
            raise self.exc
        return fn


@pytest.mark.parametrize("call, cupys, cls, match", [
    # CuPy's internal.get_size: "an integer is required" for a bool in a shape
    (lambda: xp.zeros(True), TypeError("an integer is required"), TypeError,
     r"^zeros: argument 'shape' got bool True; expected an int or a tuple of ints"),
    (lambda: xp.empty((True, 2)), TypeError("an integer is required"), TypeError,
     r"^empty: argument 'shape' got tuple \(True, 2\)"),
    (lambda: xp.full((2, False), 1.0), TypeError("an integer is required"), TypeError,
     r"^full: argument 'shape' got tuple \(2, False\)"),
    # CuPy's arange reads numpy.dtype(type(start)) and computes (stop - start) / step
    (lambda: xp.arange(None), TypeError("Cannot interpret '<class 'NoneType'>' as a data "
                                        "type"), TypeError,
     r"^arange: argument 'start' got NoneType None; expected a real number"),
    (lambda: xp.arange(0, "a"), TypeError("unsupported operand type(s) for -: 'str' and "
                                          "'int'"), TypeError, r"^arange: argument 'stop' got str"),
    (lambda: xp.arange(0.0, float("inf")), OverflowError("cannot convert float infinity to "
                                                         "integer"), ValueError,
     r"^arange: argument 'stop' gives inf elements"),
    (lambda: xp.arange(float("nan")), ValueError("cannot convert float NaN to integer"),
     ValueError, r"^arange: argument 'stop' is nan, which gives no number of elements"),
    # CuPy reads dtype with numpy.dtype: NumPy's TypeError (dtype_checks.py names it)
    (lambda: xp.zeros(3, dtype="foo"), TypeError("data type 'foo' not understood"), TypeError,
     r"^zeros: argument 'dtype' got str 'foo'; expected a dtype such as xstride\.float64 "
     r"\(data type 'foo' not understood\)$"),
    (lambda: xp.full(3, 1, dtype="foo"), TypeError("data type 'foo' not understood"),
     TypeError, r"^full: argument 'dtype' got str 'foo'"),
    (lambda: xp.arange(3, dtype="foo"), TypeError("data type 'foo' not understood"),
     TypeError, r"^arange: argument 'dtype' got str 'foo'"),
    (lambda: xp.eye(2, dtype="foo"), TypeError("data type 'foo' not understood"),
     TypeError, r"^eye: argument 'dtype' got str 'foo'"),
    (lambda: xp.linspace(0, 1, 3, dtype="foo"), TypeError("data type 'foo' not understood"),
     TypeError, r"^linspace: argument 'dtype' got str 'foo'"),
    # an error that is no argument's stays CuPy's, named by the function
    (lambda: xp.zeros(3, dtype=object), ValueError("Unsupported dtype object"), ValueError,
     r"^zeros: Unsupported dtype object$"),
])
def test_an_argument_cupy_refuses_is_named_after_its_refusal(cupy_compat, monkeypatch, call,
                                                              cupys, cls, match):
    from xstride._backends import registry

    refusing = _Refusing(cupys)
    monkeypatch.setattr(registry.get("cupy"), "_namespace", refusing)
    with pytest.raises(cls, match=match):
        call()
    assert len(refusing.calls) == 1   # CuPy was asked once: checked only on its refusal


def test_zeros_like_names_a_dtype_cupy_refuses(cupy_compat, monkeypatch):
    from xstride._backends import registry

    monkeypatch.setattr(registry.get("cupy"), "_namespace",
                        _Refusing(TypeError("data type 'foo' not understood")))
    with pytest.raises(TypeError, match=r"^zeros_like: argument 'dtype' got str 'foo'"):
        xp.zeros_like(cupy_compat.cupy.ndarray((2,)), dtype="foo")
