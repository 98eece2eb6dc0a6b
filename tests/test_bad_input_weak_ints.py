"""Python ints beside bools and other Python ints (weak scalars, NEP 50): they take
NumPy's default integer, int64, so an int past its range is a clear ``OverflowError``
naming the function and the argument, never a wrapped value (found by a new-user
probe of the elementwise functions)."""

from __future__ import annotations

import numpy as np
import pytest

import xstride as xp

da = pytest.importorskip("dask.array")


@pytest.fixture(autouse=True)
def _numpy_after():
    yield
    xp.set_backend("numpy")


def _wrap(backend):
    if backend == "numpy":
        return np.asarray
    return lambda a: da.from_array(np.asarray(a), chunks=2)


@pytest.mark.parametrize("backend", ["numpy", "dask"])
@pytest.mark.parametrize("x1, x2, arg, v", [
    (2**63, 1, "x1", 2**63),                  # NumPy's where wrapped this to -2**63
    (1, -2**63 - 1, "x2", -2**63 - 1),
    (2**70, 5, "x1", 2**70),
    (2**63, True, "x1", 2**63),
    (2**63, "bools", "x1", 2**63),
    ("bools", 2**70, "x2", 2**70),
])
def test_where_s_python_int_beside_a_bool_or_an_int_must_fit_int64(backend, x1, x2, arg, v):
    wrap = _wrap(backend)
    c = wrap(np.array([True, False, True]))
    bools = wrap(np.array([False, True, True]))
    x1 = bools if isinstance(x1, str) else x1
    x2 = bools if isinstance(x2, str) else x2
    with pytest.raises(OverflowError, match=f"where: argument '{arg}' is the Python int {v}, "
                                            "out of bounds for int64"):
        xp.where(c, x1, x2)


@pytest.mark.parametrize("backend", ["numpy", "dask"])
def test_where_s_python_ints_that_fit_int64_are_taken(backend):
    c = _wrap(backend)(np.array([True, False]))
    got = xp.to_numpy(xp.where(c, 2**63 - 1, -2**63))
    assert got.dtype == np.int64 and got.tolist() == [2**63 - 1, -2**63]
    got = xp.to_numpy(xp.where(c, 2**70, 1.5))           # a float beside: float64
    assert got.dtype == np.float64 and got.tolist() == [float(2**70), 1.5]
    got = xp.to_numpy(xp.where(c, 2**63, _wrap(backend)(np.array([1, 2], np.uint64))))
    assert got.dtype == np.uint64 and got.tolist() == [2**63, 2]


@pytest.mark.parametrize("backend", ["numpy", "dask"])
@pytest.mark.parametrize("call, func, arg, v", [
    (lambda b: xp.add(b, 2**63), "add", "x2", 2**63),
    (lambda b: xp.multiply(2**70, b), "multiply", "x1", 2**70),
    (lambda b: xp.logical_and(b, -2**64), "logical_and", "x2", -2**64),
    (lambda b: xp.bitwise_and(b, 2**64), "bitwise_and", "x2", 2**64),
    (lambda b: xp.add(2**70, 1), "add", "x1", 2**70),
])
def test_elementwise_python_int_beside_bools_names_the_argument(backend, call, func, arg, v):
    # NumPy's message was "Python int too large to convert to C long", naming no argument
    b = _wrap(backend)(np.array([True, False, True]))
    with pytest.raises(OverflowError, match=f"{func}: argument '{arg}' is the Python int "
                                            f"{v}, out of bounds for int64 .*beside bools"):
        call(b)


def test_elementwise_python_int_beside_floats_keeps_numpy_s_error():
    with pytest.raises(OverflowError, match="add: argument 'x2' is the Python int 114813069527"
                                            r"\.\.\. \(603 digits\), past the range of float64"):
        xp.add(np.array([1.0]), 2**2000)
    assert xp.add(np.array([True]), 2**62).tolist() == [2**62 + 1]


@pytest.mark.parametrize("backend", ["numpy", "dask"])
@pytest.mark.parametrize("call, func, arg", [
    (lambda f: xp.add(f, 10**400), "add", "x2"),
    (lambda f: xp.subtract(-10**400, f), "subtract", "x1"),
    (lambda f: xp.equal(f, 2**1024 - 2**970), "equal", "x2"),   # float() rounds it to 2**1024
    (lambda f: xp.hypot(f, 10**400), "hypot", "x2"),
    (lambda f: xp.where(f > 0, f, -10**400), "where", "x2"),
])
def test_elementwise_python_int_past_float64_beside_floats_names_the_argument(
        backend, call, func, arg):
    # NumPy's message was "int too large to convert to float", naming no argument
    f = _wrap(backend)(np.array([1.0, 2.0], np.float16))
    with pytest.raises(OverflowError, match=f"{func}: argument '{arg}' is the Python int .*, "
                                            "past the range of float64 .*beside a "
                                            "floating-point array"):
        xp.to_numpy(call(f))
    got = xp.to_numpy(xp.add(f, 2**1024 - 2**971))   # float64's largest: float16's inf
    assert got.dtype == np.float16 and np.isinf(got).all()
