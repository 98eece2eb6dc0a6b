"""``xstride.elementwise.resolve``, public in ``xp.elementwise`` (docs/api.md): NumPy's
loop dtypes for a function of the standard and its argument kinds, and a clear error
for anything else (a new-user probe: ``resolve("where", ...)`` and ``resolve("astype",
...)`` raised ``AttributeError``, and a str dtype crashed the error message itself)."""

from __future__ import annotations

import numpy as np
import pytest

from xstride import elementwise as E

F4, I1 = np.dtype(np.float32), np.dtype(np.int8)


@pytest.mark.parametrize("func, kinds, want", [
    ("add", (F4, F4), (F4, F4, F4)),
    ("add", (I1, int), (I1, I1, I1)),                  # a Python int is weak (NEP 50)
    ("add", ("int8", np.int16), ("int16",) * 3),       # what numpy.dtype reads
    ("multiply", (bool, F4), (F4, F4, F4)),            # a Python bool is bool
    ("exp", (F4,), (F4, F4)),                          # a math function xp.fuse traces
    ("power", (F4, F4), (F4, F4, F4)),                 # NumPy's name of pow
    ("less", (F4, float), (F4, F4, np.dtype(bool))),
])
def test_the_loop_dtypes_are_numpy_s(func, kinds, want):
    assert tuple(np.dtype(d) for d in E.resolve(func, kinds)) == tuple(map(np.dtype, want))


@pytest.mark.parametrize("func", ["where", "astype", "clip", "round", "nosuch", "e", 3, None])
def test_a_function_numpy_computes_with_no_ufunc_is_a_value_error(func):
    with pytest.raises(ValueError, match=r"^resolve: argument 'func' is .*; expected the "
                                         "name of an elementwise function"):
        E.resolve(func, (F4,))


@pytest.mark.parametrize("kinds, why", [
    ((F4,), "a tuple of 2 dtypes"),                 # one kind for a function of two inputs
    ((F4, F4, F4), "a tuple of 2 dtypes"),
    ([F4, F4], "a tuple of dtypes and Python"),      # a list (unhashable: the cache's key)
    ((F4, None), "without None"),                   # numpy.dtype(None) is float64
    ((F4, "nosuch"), "a tuple of dtypes or Python"),
    ((F4, object()), "a tuple of dtypes or Python"),
    ((F4, list), "a tuple of dtypes or Python"),        # numpy.dtype(list) is object
    ((F4, object), "a tuple of dtypes or Python"),
    (F4, "a tuple of 2 dtypes"),
])
def test_kinds_that_are_no_tuple_of_dtypes_are_a_type_error(kinds, why):
    with pytest.raises(TypeError, match=rf"^resolve: argument 'kinds' got .*; expected .*{why}"):
        E.resolve("add", kinds)


def test_dtypes_numpy_has_no_loop_for_are_the_function_s_type_error():
    with pytest.raises(TypeError, match=r"^bitwise_and: no loop for dtypes \(float32, int8\)"):
        E.resolve("bitwise_and", (F4, I1))
    with pytest.raises(TypeError, match=r"^negative: no loop for dtypes \(bool\)"):
        E.resolve("negative", (np.dtype(bool),))
