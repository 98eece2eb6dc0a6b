"""A complex argument of an elementwise function of real-valued input is a ``TypeError``
naming it, on the NumPy and dask backends (``xstride/_backends/real_only.py``)."""

import numpy as np
import pytest

import xstride as xp
from xstride._backends.real_only import real_only

BACKENDS = ["numpy", "dask"]
REAL = np.array([1.0, -2.0, 3.0])
CPLX = np.array([1 + 1j, 2.0, -3j])


def _on(backend, a):
    if backend == "numpy" or not isinstance(a, np.ndarray):
        return a
    with xp.use_backend("dask", chunks=1):
        return xp.asarray(a)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", ["nextafter", "hypot", "atan2", "copysign", "floor_divide",
                                  "remainder", "logaddexp"])
@pytest.mark.parametrize("args, arg", [((CPLX, REAL), "x1"), ((REAL, CPLX), "x2"),
                                       ((CPLX, CPLX), "x1")])
def test_a_complex_argument_of_a_binary_function_is_named(backend, name, args, arg):
    """nextafter and hypot (as atan2, copysign, floor_divide, ...) raised NumPy's
    "ufunc 'hypot' not supported for the input types, and the inputs could not be
    safely coerced ..." or dask's "Parameters of such types are not supported by
    hypot", naming neither argument."""
    with pytest.raises(TypeError, match=rf"^{name}: argument '{arg}' got .*dtype=complex128\); "
                                        rf"expected a real-valued array or Python scalar "
                                        rf"\({name} takes real-valued input only\)"):
        getattr(xp, name)(*(_on(backend, a) for a in args))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", ["floor", "ceil", "trunc", "signbit"])
def test_a_complex_argument_of_a_unary_function_is_named(backend, name):
    with pytest.raises(TypeError, match=rf"^{name}: argument 'x' got .*complex128"):
        getattr(xp, name)(_on(backend, CPLX))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("call, arg, shown", [
    (lambda r, c: xp.hypot(r, 1j), "x2", "complex 1j"),
    (lambda r, c: xp.nextafter(np.complex64(2), r), "x1", r"numpy.complex64\(shape=\(\)"),
    (lambda r, c: xp.nextafter(x2=c, x1=r), "x2", "complex128"),
])
def test_complex_scalars_and_keyword_arguments_are_named(backend, call, arg, shown):
    with pytest.raises(TypeError, match=rf"^(hypot|nextafter): argument '{arg}' got .*{shown}"):
        call(_on(backend, REAL), _on(backend, CPLX))


def test_the_functions_are_read_from_numpy_s_loops():
    assert all(real_only(n) for n in ("nextafter", "hypot", "atan2", "copysign", "floor",
                                      "floor_divide", "remainder", "signbit"))
    # complex loops (NumPy's lexicographic maximum), no real floats (bitwise), no ufunc
    assert not any(real_only(n) for n in ("maximum", "add", "sqrt", "bitwise_and",
                                          "bitwise_invert", "clip", "round", "sum"))


@pytest.mark.parametrize("backend", BACKENDS)
def test_other_calls_are_as_before(backend):
    """Real input answers; a complex argument of a function that takes it answers; an
    argument of no number at all keeps the library's error."""
    r, c = _on(backend, REAL), _on(backend, CPLX)
    assert xp.to_numpy(xp.hypot(r, r)).tolist() == np.hypot(REAL, REAL).tolist()
    assert xp.to_numpy(xp.maximum(c, r)).tolist() == np.maximum(CPLX, REAL).tolist()
    with pytest.raises(TypeError) as info:
        xp.hypot(np.array(["a", "b", "c"]) if backend == "numpy" else "a", c)
    assert "argument 'x2'" not in str(info.value)


INTS = np.array([1, 2, 3])


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", ["bitwise_and", "bitwise_or", "bitwise_xor",
                                  "bitwise_left_shift", "bitwise_right_shift"])
@pytest.mark.parametrize("args, arg, shown", [
    ((REAL, INTS), "x1", r".*dtype=float64\)"), ((INTS, CPLX), "x2", r".*dtype=complex128\)"),
    ((INTS, 1.5), "x2", "float 1.5"), ((INTS, 2j), "x2", "complex 2j")])
def test_a_floating_argument_of_a_bitwise_function_is_named(backend, name, args, arg, shown):
    """The bitwise functions raised NumPy's "ufunc 'bitwise_and' not supported for the
    input types, ..." on the NumPy backend and dask's "Parameters of such types are not
    supported by bitwise_and" on dask, naming no argument: one text on both now."""
    with pytest.raises(TypeError, match=rf"^{name}: argument '{arg}' got {shown}; expected "
                                        r"an integer or bool array or Python int "
                                        rf"\({name} takes no floating-point or complex "
                                        r"input\)$"):
        getattr(xp, name)(*(_on(backend, a) for a in args))


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_floating_argument_of_bitwise_invert_is_named(backend):
    with pytest.raises(TypeError, match=r"^bitwise_invert: argument 'x' got .*dtype=float64\); "
                                        r"expected an integer or bool array"):
        xp.bitwise_invert(_on(backend, REAL))
    # integer and bool input keeps working
    np.testing.assert_array_equal(xp.to_numpy(xp.bitwise_invert(_on(backend, INTS))), ~INTS)
    np.testing.assert_array_equal(
        xp.to_numpy(xp.bitwise_and(_on(backend, INTS), _on(backend, INTS > 1))), INTS & (INTS > 1))
