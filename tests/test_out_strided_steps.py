"""``out=`` of another layout than the input's, on the NumPy backend: every unary
elementwise function, inputs stepping 1 to 16 elements, a strided ``out``. NumPy
2.4.6's ``negative`` (on an AVX-512 host) read an input of 16- or 64-byte steps as
though it were contiguous (``negative(a[::4][:5], out=o[::2][:5])`` gave ``-a[:5]``);
xstride computes that one into a new array first (``xstride/_host/elementwise.py``)."""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pytest

import xstride as xp
from xstride._core.names import ELEMENTWISE
from xstride._core.ufuncs import numpy_ufunc_name

_UNARY = sorted(n for n in ELEMENTWISE
                if getattr(getattr(np, numpy_ufunc_name(n), None), "nin", 0) == 1
                and "out" in inspect.signature(getattr(xp, n)).parameters)


def test_the_sweep_has_the_unary_functions():
    assert {"negative", "positive", "abs", "sqrt", "exp"} <= set(_UNARY)


@pytest.mark.parametrize("name", _UNARY)
@pytest.mark.parametrize("dtype", ["int32", "int64", "float32", "float64"])
def test_strided_input_into_strided_out_is_the_function_of_its_values(name, dtype):
    func = getattr(xp, name)
    base = (np.arange(400) % 50 + 1).astype(dtype)
    checked = 0
    for step in range(1, 17):
        for out_step in (2, 3, -1):
            x = base[::step][:20]
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                try:
                    want = np.asarray(func(x.copy()))
                except TypeError:   # the function takes no such dtype (bitwise of floats)
                    continue
                out = np.zeros(60, want.dtype)[::out_step][:20]
                func(x, out=out)
            np.testing.assert_allclose(out, want, rtol=1e-6, equal_nan=True,
                                       err_msg=f"{name} of x[::{step}] into o[::{out_step}]")
            checked += 1
    if name in ("negative", "isfinite") or dtype.startswith("float") and "bitwise" not in name:
        assert checked == 48   # (bitwise functions take no floats)


@pytest.mark.parametrize("name", ["negative", "isfinite"])
def test_the_copy_keeps_numpy_s_out_forms(name):
    """``out=(o,)``, ``where=`` and a ``numpy.ma`` ``out`` through the contiguous copy
    (a review: the tuple and ``where=`` went to NumPy's faulty loop, and a masked
    ``out`` lost the ufunc's mask)."""
    func = getattr(xp, name)
    x = np.arange(1.0, 21.0)
    o = np.zeros(40, func(x).dtype)[::2]
    if name == "isfinite":   # the engine's negative takes no tuple and no where=
        assert func(x, out=(o,)) is o
        np.testing.assert_array_equal(o, func(x))
        o[...] = False
        keep = np.arange(20) % 2 == 0
        func(x, out=o, where=keep)
        np.testing.assert_array_equal(o, keep)
    m = np.ma.masked_array([1.0, 2.0, 3.0], mask=[0, 1, 0])
    mo = np.ma.zeros(6, func(m).dtype)[::2]
    assert func(m, out=mo) is mo
    np.testing.assert_array_equal(np.ma.getmaskarray(mo), [False, True, False])
    np.testing.assert_array_equal(mo.compressed(), func(m).compressed())
