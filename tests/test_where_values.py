"""``where``'s ``condition``, ``x1`` and ``x2`` on the NumPy and dask backends: arrays,
NumPy scalars of a bool or numeric dtype, or Python bool/int/float/complex, as the
standard has them. Anything else is a ``TypeError`` naming the argument (NumPy's
``where`` made object and str arrays of ``None`` and ``"a"``; dask's returned
``NotImplemented`` for a str, found by a new-user probe of the elementwise functions;
a list, a tuple or a range was made an array, where CuPy's ``where`` refuses it: a
later probe)."""

from __future__ import annotations

import fractions

import numpy as np
import pytest

import xstride as xp

da = pytest.importorskip("dask.array")


def _wrap(backend):
    if backend == "numpy":
        return np.asarray
    return lambda a: da.from_array(np.asarray(a), chunks=2)


@pytest.mark.parametrize("backend", ["numpy", "dask"])
@pytest.mark.parametrize("value", [None, "a", fractions.Fraction(1, 2), object(),
                                   np.str_("a"), np.datetime64(1, "s"), [1.0, 0.0, 1.0],
                                   (1.0, 0.0, 1.0), range(3)],
                         ids=["None", "str", "Fraction", "object", "np.str_", "datetime64",
                              "list", "tuple", "range"])
@pytest.mark.parametrize("arg", ["condition", "x1", "x2"])
def test_where_refuses_values_that_are_no_array_and_no_number(backend, value, arg):
    wrap = _wrap(backend)
    args = {"condition": wrap(np.array([True, False, True])),
            "x1": wrap(np.array([1.0, 2.0, 3.0], np.float32)), "x2": 0.5}
    args[arg] = value
    with pytest.raises(TypeError, match=f"where: argument '{arg}' got .*; expected an array "
                                        f"of the {backend} backend or a Python bool, int, "
                                        "float or complex"):
        got = xp.where(args["condition"], args["x1"], args["x2"])
        xp.to_numpy(got)   # (dask's returned NotImplemented, which has no values)


@pytest.mark.parametrize("backend", ["numpy", "dask"])
def test_where_takes_python_and_numpy_scalars(backend):
    wrap = _wrap(backend)
    c = wrap(np.array([True, False, True]))
    x = wrap(np.array([1.0, 2.0, 3.0], np.float32))
    for x1, x2, want in [(x, 0.5, [1.0, 0.5, 3.0]), (True, 2, [1, 2, 1]),
                         (x, np.float32(7), [1.0, 7.0, 3.0]), (1j, x, [1j, 2, 1j])]:
        got = xp.to_numpy(xp.where(c, x1, x2))
        np.testing.assert_array_equal(got, want)
    assert xp.to_numpy(xp.where(True, x, 0.0)).dtype == np.float32
