"""A bool argument of an elementwise function of numeric input (``negative``,
``positive``, ``sign``, ``subtract``) is a ``TypeError`` naming it and saying what to
write instead, on the NumPy and dask backends (``xstride/_backends/real_only.py``)."""

import numpy as np
import pytest

import xstride as xp
from xstride._backends.real_only import numeric_only

from tests.test_real_only_errors import _on   # the argument on either backend

BACKENDS = ["numpy", "dask"]
BOOL = np.array([True, False, True])
INT = np.array([1, 2, 3])


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name, instead", [("negative", "logical_not or ~"),
                                           ("positive", "the array itself"),
                                           ("sign", "the array itself, or astype")])
def test_a_bool_argument_of_a_unary_function_is_named(backend, name, instead):
    """NumPy said "ufunc 'sign' did not contain a loop with signature matching types",
    dask "operand type(s) all returned NotImplemented from __array_ufunc__" or
    "Parameters of such types are not supported by negative"."""
    with pytest.raises(TypeError, match=rf"^{name}: argument 'x' got .*dtype=bool\); expected "
                                        rf"a numeric array \({name} takes no bool input; "
                                        rf"for bool, {instead}\)$"):
        getattr(xp, name)(_on(backend, BOOL))


@pytest.mark.parametrize("backend", BACKENDS)
def test_subtract_of_two_bool_arrays_names_the_first(backend):
    with pytest.raises(TypeError, match=r"^subtract: argument 'x1' got .*dtype=bool\); .*"
                                        r"for bool, logical_xor or \^\)$"):
        xp.subtract(_on(backend, BOOL), _on(backend, BOOL))


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_numpy_bool_scalar_is_named(backend):
    with xp.use_backend(backend):
        with pytest.raises(TypeError, match=r"^negative: argument 'x' got numpy.bool"):
            xp.negative(np.bool_(True))


@pytest.mark.parametrize("backend", BACKENDS)
def test_bool_beside_a_number_still_promotes(backend):
    """NumPy (and dask) subtract a bool array from an int one, and a Python bool from a
    bool array's int counterpart: those calls stand."""
    out = xp.subtract(_on(backend, INT), _on(backend, BOOL))
    assert xp.to_numpy(out).tolist() == [0, 2, 2]
    out = xp.subtract(_on(backend, INT), True)
    assert xp.to_numpy(out).tolist() == [0, 1, 2]


def test_the_numeric_only_functions_are_read_from_numpy():
    from xstride._core.names import ELEMENTWISE

    assert [n for n in ELEMENTWISE if numeric_only(n)] == ["negative", "positive", "sign",
                                                           "subtract"]
    assert not numeric_only("add") and not numeric_only("logical_not")
    assert not numeric_only("not_a_function")


@pytest.mark.gpu
@pytest.mark.parametrize("name", ["negative", "positive", "sign"])
def test_a_bool_argument_is_named_on_cupy(cp, name):
    """On CuPy the engine found no loop for bool ("no loop for dtypes (bool)"): the same
    message as the other backends."""
    with pytest.raises(TypeError, match=rf"^{name}: argument 'x' got cupy.ndarray\(shape=\(3,\), "
                                        rf"dtype=bool\); expected a numeric array"):
        getattr(xp, name)(cp.asarray(BOOL))



@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("other, said", [
    (np.array(["a", "b", "c"]), "did not contain a loop"),
    (np.array(["2020-01-01"] * 3, dtype="M8[D]"), "cannot use operands"),
    (np.array([1, None, 2], dtype=object), "unsupported operand"),
])
def test_a_bool_beside_an_argument_of_no_number_is_not_blamed(backend, other, said):
    """``subtract(b, s)`` of a str, datetime or object array fails whatever ``b`` is
    (an int array in its place fails too): the library's error stands (NumPy's words
    on NumPy), and the bool argument is not named as the fault."""
    with xp.use_backend(backend):
        with pytest.raises(TypeError, match=r"subtract|unsupported operand") as info:
            xp.to_numpy(xp.subtract(_on(backend, BOOL), _on(backend, other)))
    assert "takes no bool input" not in str(info.value)
    assert backend == "dask" or said in str(info.value)


def test_sign_of_bool_is_refused_before_cupy(cupy_compat):
    """CuPy's ``sign`` has a bool loop (NumPy's has none): on the CuPy backend a bool
    ``x`` is refused before CuPy sees it, with the other backends' message; other
    dtypes reach CuPy's ``sign`` as given."""
    b = cupy_compat.cupy.ndarray((3,), dtype=bool)
    with pytest.raises(TypeError, match=r"^sign: argument 'x' got \S+\(shape=\(3,\), "
                                        r"dtype=bool\); expected a numeric array \(sign takes "
                                        r"no bool input; for bool, the array itself, or astype\)"):
        xp.sign(b)
    assert cupy_compat.calls == []
    f = cupy_compat.cupy.ndarray((3,), dtype=np.float32)
    assert xp.sign(f) == "sign"
    assert [c[0] for c in cupy_compat.calls] == ["sign"]
