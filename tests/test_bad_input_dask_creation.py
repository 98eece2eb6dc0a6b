"""Bad input of the dask backend's creation functions and of integer arithmetic with
Python ints, and where the NumPy backend took it: each raises the clear error the NumPy
backend raises (or the standard asks for), naming the function and the argument, at the
call, and a range the chunks cut gives the values one call gives (found by new-user
probes; the rest of the standard's functions: tests/test_bad_input_dask_standard.py)."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

da = pytest.importorskip("dask.array")

import xstride as xp  # noqa: E402


@pytest.fixture(autouse=True)
def _numpy_after():
    yield
    xp.set_backend("numpy")


# ------------------------------------------------------------------ creation
@pytest.mark.parametrize("name, args, kwargs, arg", [
    ("zeros", (2.0,), {}, "shape"), ("ones", ((2.5,),), {}, "shape"),
    ("empty", ((2.0, 3),), {}, "shape"), ("full", (2.0, 1), {}, "shape"),
    ("full", ((2, 2.0), 1), {}, "shape"), ("zeros", (True,), {}, "shape"),
    ("zeros", ("3",), {}, "shape"), ("eye", (2.0,), {}, "n_rows"),
    ("eye", (2, 3.0), {}, "n_cols"), ("eye", (2,), {"k": 1.0}, "k"),
])
def test_creation_refuses_float_shapes_as_numpy_does(name, args, kwargs, arg):
    with pytest.raises(TypeError, match=f"{name}: "):                   # NumPy's own
        getattr(xp, name)(*args, **kwargs)
    with xp.use_backend("dask"):
        with pytest.raises(TypeError, match=f"{name}: argument '{arg}' got "):
            getattr(xp, name)(*args, **kwargs)


@pytest.mark.parametrize("name, args, kwargs, arg", [
    ("zeros", (2**62,), {}, "shape"), ("zeros", ((2**32, 2**32),), {}, "shape"),
    ("ones", (2**61,), {"dtype": np.int32}, "shape"), ("empty", ((2**40, 2**30),), {}, "shape"),
    ("full", (2**62, 3), {}, "shape"), ("arange", (2**62,), {}, "stop"),
    ("arange", (0, 2**61, 1), {"dtype": np.complex64}, "stop"),
    ("linspace", (0, 1, 2**62), {}, "num"), ("linspace", (0j, 1, 2**60), {}, "num"),
])
def test_dask_creation_of_more_than_int64_bytes_is_one_named_error(name, args, kwargs, arg):
    """As NumPy refuses them (one line, "array is too big"); dask's gave its dispatch's
    two-line message ("An error occurred while calling ...") or a bare MemoryError."""
    with pytest.raises(ValueError, match=f"{name}: "):                   # NumPy's own
        getattr(xp, name)(*args, **kwargs)
    with xp.use_backend("dask"):
        with pytest.raises(ValueError, match=f"^{name}: argument '{arg}' .* overflows int64"):
            getattr(xp, name)(*args, **kwargs)
        assert getattr(xp, name)(*(a // 2**22 if isinstance(a, int) and a > 2**30
                                   else tuple(n // 2**22 for n in a) if isinstance(a, tuple)
                                   else a for a in args), **kwargs).size > 0


def test_dask_creation_names_negative_lengths_and_takes_numpy_ints():
    with xp.use_backend("dask", chunks=2):
        with pytest.raises(ValueError, match="zeros: argument 'shape' has the negative length -1"):
            xp.zeros((2, -1))
        with pytest.raises(ValueError, match="eye: argument 'n_rows' has the negative length"):
            xp.eye(-1)
        assert xp.zeros((np.int64(2), 3)).shape == (2, 3)
        assert xp.to_numpy(xp.full(np.int32(2), 0.5)).tolist() == [0.5, 0.5]
        assert xp.to_numpy(xp.linspace(0.5, 1.0, 3)).tolist() == [0.5, 0.75, 1.0]


def test_dask_linspace_takes_complex_ends():
    with xp.use_backend("dask", chunks=2):
        for args, kw in (((0, 1j, 5), {}), ((1 + 2j, -3j, 7), {}), ((0, 1j, 4), {"endpoint": False}),
                         ((0, 1j, 3), {"dtype": xp.complex64}), ((0, 1j, 1), {})):
            got, want = xp.to_numpy(xp.linspace(*args, **kw)), np.linspace(*args, **kw)
            assert got.dtype == want.dtype
            np.testing.assert_allclose(got, want, rtol=0, atol=1e-15)
            assert not kw.get("endpoint", True) or got[-1] == want[-1]   # ends at stop
        with pytest.raises(TypeError, match="linspace: argument 'dtype'"):
            xp.linspace(0, 1j, 3, dtype=xp.int64)   # (NumPy's: "ufunc 'floor' not supported")


@pytest.mark.parametrize("backend", ["numpy", "dask"])
@pytest.mark.parametrize("obj, dtype, said", [
    ([2**64], "uint64", "18446744073709551616, out of bounds for uint64 "
                        r"\(from 0 to 18446744073709551615\)"),
    ([1, [2, -1]][1], "uint64", "-1, out of bounds for uint64"),
    (2**63, "int64", "9223372036854775808, out of bounds for int64"),
    ((1, 300), "uint8", r"300, out of bounds for uint8 \(from 0 to 255\)"),
])
def test_asarray_names_a_python_int_its_integer_dtype_cannot_hold(backend, obj, dtype, said):
    """A new-user probe: ``asarray([2**64], dtype=uint64)`` said NumPy's "Python int too
    large to convert to C long", naming neither the argument nor the int."""
    with xp.use_backend(backend):
        with pytest.raises(OverflowError, match=f"^asarray: argument 'obj' holds the Python "
                                                f"int {said}"):
            xp.asarray(obj, dtype=getattr(xp, dtype))
        assert xp.to_numpy(xp.asarray([2**64 - 1], dtype=xp.uint64)).tolist() == [2**64 - 1]


@pytest.mark.parametrize("backend", ["numpy", "dask"])
def test_python_ints_no_integer_dtype_holds_are_overflow_errors(backend):
    with xp.use_backend(backend):
        for call, func, arg in ((lambda: xp.full(2, 2**70), "full", "fill_value"),
                                (lambda: xp.full((2,), -2**63 - 1), "full", "fill_value"),
                                (lambda: xp.asarray([2**64, 1]), "asarray", "obj"),
                                (lambda: xp.asarray(2**64), "asarray", "obj"),
                                (lambda: xp.asarray([[1], [10**40]]), "asarray", "obj")):
            with pytest.raises(OverflowError, match=f"{func}: argument '{arg}' holds the Python "
                                                    "int .*which no integer dtype holds"):
                call()
        # what an integer dtype holds is as NumPy gives it (uint64 past int64)
        for got, dt in ((xp.full(2, 2**63), np.uint64), (xp.full(2, -2**63), np.int64),
                        (xp.asarray([2**63]), np.uint64), (xp.full(2, 2**70, dtype=xp.float64),
                                                           np.float64)):
            assert xp.to_numpy(got).dtype == dt
        assert xp.to_numpy(xp.full(1, 2**63)).tolist() == [2**63]


_FILL = "argument 'fill_value' is the Python int "


@pytest.mark.parametrize("backend", ["numpy", "dask"])
@pytest.mark.parametrize("call, func, match", [
    (lambda: xp.full((2, 300), 300, dtype=xp.int8), "full", f"{_FILL}300, out of bounds for int8"),
    (lambda: xp.full((2,), fill_value=-1, dtype=xp.uint8), "full",
     f"{_FILL}-1, out of bounds for uint8 \\(from 0 to 255\\)"),
    (lambda: xp.full((0,), 300, dtype="int8"), "full", f"{_FILL}300, out of bounds for int8"),
    (lambda: xp.full((2,), 2**63, dtype=xp.int64), "full",
     f"{_FILL}9223372036854775808, out of bounds for int64"),
    (lambda: xp.full_like(xp.zeros(3, dtype=xp.int8), 300), "full_like",
     f"{_FILL}300, out of bounds for int8 \\(from -128 to 127\\)"),
    (lambda: xp.full_like(xp.zeros(3), fill_value=256, dtype=xp.uint8), "full_like",
     f"{_FILL}256, out of bounds for uint8"),
    (lambda: xp.full_like(xp.zeros(0, dtype=xp.uint16), -1), "full_like",
     f"{_FILL}-1, out of bounds for uint16"),
    (lambda: xp.asarray([1, 300], dtype=xp.int8), "asarray",
     "argument 'obj' holds the Python int 300, out of bounds for int8"),
    (lambda: xp.asarray(-1, dtype=xp.uint32), "asarray",
     "argument 'obj' holds the Python int -1, out of bounds for uint32"),
])
def test_int_fill_the_dtype_cannot_hold_raises_at_the_call(backend, call, func, match):
    """NumPy raises at the call (NEP 50); dask's full and full_like raised the same
    OverflowError only when the array was computed. The error names ``fill_value``
    (NumPy's said "Python integer 300 out of bounds for int8", naming no argument)."""
    with xp.use_backend(backend):
        with pytest.raises(OverflowError, match=f"^{func}: .*{match}"):
            call()                                   # no compute: the call itself raises


@pytest.mark.parametrize("backend", ["numpy", "dask"])
def test_int_fills_the_dtype_holds_or_converts_stay_as_numpy_gives_them(backend):
    with xp.use_backend(backend):
        z8 = xp.zeros(2, dtype=xp.int8)
        for got, want in ((xp.full(2, 127, dtype=xp.int8), [127, 127]),
                          (xp.full(2, -128, dtype=xp.int8), [-128, -128]),
                          (xp.full(2, 300, dtype=xp.bool), [True, True]),
                          (xp.full(2, 300, dtype=xp.float32), [300.0, 300.0]),
                          (xp.full(2, True, dtype=xp.int8), [1, 1]),
                          (xp.full_like(z8, -128), [-128, -128]),
                          (xp.full_like(z8, 300, dtype=xp.int16), [300, 300]),
                          (xp.full_like(z8, 2.5), [2, 2])):
            assert xp.to_numpy(got).tolist() == want


@pytest.mark.parametrize("dtype", [np.int8, np.uint32, np.int64, np.bool_])
@pytest.mark.parametrize("exponent", [-1, np.int64(-3)])
def test_pow_of_integers_or_bools_to_a_negative_integer_is_numpys_error(dtype, exponent):
    """As the NumPy backend (NumPy's ValueError, or OverflowError for a Python int below
    an unsigned dtype); dask's dtype inference made it a TypeError ("Parameters of such
    types are not supported by power")."""
    a = np.array([2, 3], dtype=dtype)
    with pytest.raises((ValueError, OverflowError)) as want:
        xp.pow(a, exponent)
    assert want.value.args[0].startswith("pow: ")
    with xp.use_backend("dask", chunks=1):
        with pytest.raises(type(want.value), match=f"^{re.escape(want.value.args[0])}$"):
            xp.pow(xp.asarray(a), exponent)
        np.testing.assert_array_equal(xp.to_numpy(xp.pow(xp.asarray(a), 2)), a ** 2)
        np.testing.assert_array_equal(xp.to_numpy(xp.pow(xp.asarray(a.astype(np.float32)),
                                                          exponent)),
                                      a.astype(np.float32) ** exponent)


@pytest.mark.parametrize("x1, x2", [
    (np.array([2, 3]), np.array([1, -1])), (np.array([True, False]), np.array([-1, 2], np.int8)),
    (np.array(2, np.int16), np.array([[0], [-3]])), (2, np.array([4, -1])),
    (np.ma.array([2, 3]), np.ma.array([1, -1], mask=[0, 1]))])
@pytest.mark.parametrize("chunks", [1, 2])
def test_pow_to_a_negative_integer_array_raises_the_numpy_backends_error(x1, x2, chunks):
    """A dask array of integer exponents: the NumPy backend's ``ValueError`` when computed
    (a negative value is known only then), its text the same ("pow: " first; dask's was
    NumPy's bare one); exponents not negative, or a float result, compute as NumPy's."""
    msg = "^pow: Integers to negative integer powers are not allowed\\.$"
    with pytest.raises(ValueError, match=msg):
        xp.pow(x1, x2)
    asarray = (lambda a: da.from_array(a, chunks=chunks, asarray=False)
               if isinstance(a, np.ndarray) else a)
    with xp.use_backend("dask"):
        got = xp.pow(asarray(x1), asarray(x2))
        with pytest.raises(ValueError, match=msg):
            got.compute(scheduler="synchronous")
        fine = np.abs(x2)
        np.testing.assert_array_equal(
            xp.pow(asarray(x1), asarray(fine)).compute(scheduler="synchronous"),
            np.power(x1, fine))
        floats = np.asarray(x1, dtype=np.float32)
        np.testing.assert_array_equal(
            xp.pow(asarray(floats), asarray(x2)).compute(scheduler="synchronous"),
            np.power(floats, x2))


@pytest.mark.parametrize("args, dtype", [((0, 300), np.int8), ((0, 300, 7), np.uint8),
                                         ((100, -200, -3), np.int8), ((0, 70000), np.int16),
                                         ((-5, 300, 3), np.int16)])
@pytest.mark.parametrize("chunks", [1000, 100, 7])
def test_arange_into_a_narrow_integer_dtype_wraps_as_numpy_for_any_chunks(args, dtype, chunks):
    """NumPy's arange wraps a range past the dtype; dask made each chunk with its own
    start, so a chunk starting past the dtype's range failed when computed (with one
    chunk the result wrapped, with chunks=100 it raised)."""
    want = np.arange(*args, dtype=dtype)
    with xp.use_backend("dask", chunks=chunks):
        got = xp.arange(*args, dtype=dtype)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(xp.to_numpy(got), want)


@pytest.mark.parametrize("args, dtype", [((200, 300), np.int8), ((-5, 300, 3), np.uint8)])
def test_arange_with_a_start_outside_the_dtype_is_numpys_overflow_error(args, dtype):
    with pytest.raises(OverflowError) as want:
        xp.arange(*args, dtype=dtype)
    with xp.use_backend("dask", chunks=100):
        with pytest.raises(OverflowError, match=f"^{re.escape(want.value.args[0])}$"):
            xp.arange(*args, dtype=dtype)


@pytest.mark.parametrize("args, dtype", [((0, -2, -1), np.uint64), ((-1, 2), np.uint64),
                                         ((0, -2, -1), np.uint16)])
def test_arange_of_a_value_outside_an_unsigned_dtype_raises_numpys_error_at_the_call(args,
                                                                                     dtype):
    """uint64's was NumPy's OverflowError without "arange:" only when computed."""
    with pytest.raises(OverflowError) as want:
        xp.arange(*args, dtype=dtype)
    assert want.value.args[0].startswith("arange: ")
    with xp.use_backend("dask", chunks=1):
        with pytest.raises(OverflowError, match=f"^{re.escape(want.value.args[0])}$"):
            xp.arange(*args, dtype=dtype)                 # no compute: the call raises


@pytest.mark.parametrize("args", [(0, -1, -1), (0, 1, -1), (1, -3, -1), (-1, -1)])
@pytest.mark.parametrize("dtype", [np.uint64, np.uint8])
def test_arange_into_an_unsigned_dtype_gives_numpys_values_for_any_chunks(args, dtype):
    """NumPy checks only the values the range has (start of one, start + step of two)
    and wraps the rest; dask's uint64 chunks failed when one started below 0."""
    want = np.arange(*args, dtype=dtype)
    with xp.use_backend("dask", chunks=1):
        got = xp.arange(*args, dtype=dtype)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(xp.to_numpy(got), want)


@pytest.mark.parametrize("args, dtype", [((1, 0, -0.3), None), ((0, 1, 0.1), None),
                                         ((-3, 10, 0.13), None), ((0.5, 7.3, 0.7), np.float32),
                                         ((-2.5, 30, 0.37), np.float16),
                                         ((1e10, 1e10 + 50, 0.37), None)])
@pytest.mark.parametrize("chunks", [1, 2, 3, -1])
def test_float_arange_is_numpys_for_any_chunks(args, dtype, chunks):
    """dask made each block from its own start (``start + offset * step``), so the
    values were off in the last bits from NumPy's and depended on the chunks
    (``arange(1, 0, -0.3)`` in chunks of 1: ``0.1`` one ulp too large)."""
    want = np.arange(*args, dtype=dtype)
    with xp.use_backend("dask", chunks=chunks):
        got = xp.arange(*args, dtype=dtype)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert xp.to_numpy(got).tobytes() == want.tobytes()


@pytest.mark.parametrize("args, kwargs", [((1, 0, 4), {}), ((0, 1, 7), {}),
                                          ((-5.5, 3.25, 10), {"endpoint": False}),
                                          ((-20, 20, 7), {"dtype": np.int16}),
                                          ((0, 1, 9), {"dtype": np.float32})])
@pytest.mark.parametrize("chunks", [1, 2, 3, -1])
def test_linspace_is_numpys_for_any_chunks(args, kwargs, chunks):
    """dask made each block a linspace of its own ends, so the values were off in the
    last bits from NumPy's and depended on the chunks (``linspace(1, 0, 4)`` in chunks
    of 1: ``1/3`` one ulp off; one value in 3 over random ends and chunkings)."""
    want = np.linspace(*args, **kwargs)
    with xp.use_backend("dask", chunks=chunks):
        got = xp.linspace(*args, **kwargs)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert xp.to_numpy(got).tobytes() == want.tobytes()


@pytest.mark.parametrize("args, kwargs", [
    ((0, 1 + 1j, 3), {}), ((0.3j, 1.1, 9), {"endpoint": False}),
    ((-6.953903641414739 - 1.9578925710780837j, 0.3013232871845464 - 1.2486956325447993j,
      13), {}), ((1j, 2.5, 1), {}), ((1j, 2.5, 0), {})])
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("chunks", [1, 2, -1])
def test_complex_linspace_into_a_real_dtype_is_numpys(args, kwargs, dtype, chunks):
    """NumPy's casts the values of the ends' complex type to ``dtype``, discarding the
    imaginary parts with a ``ComplexWarning`` (the standard leaves it to the library);
    the dask backend's raised ``TypeError`` where the NumPy backend answered."""
    with pytest.warns(np.exceptions.ComplexWarning):
        want = np.linspace(*args, dtype=dtype, **kwargs)
    with pytest.warns(np.exceptions.ComplexWarning, match="discards the imaginary part"):
        with xp.use_backend("dask", chunks=chunks):
            got = xp.linspace(*args, dtype=dtype, **kwargs)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert xp.to_numpy(got).tobytes() == want.tobytes()


@pytest.mark.parametrize("args, dtype", [((0, 5, 1.5), np.int64), ((10, 0, -1.7), np.int32),
                                         ((0, 300, 1.3), np.int8), ((0.5, 9, 1), np.uint8)])
@pytest.mark.parametrize("chunks", [1, 2, 3])
def test_integer_arange_of_float_arguments_is_numpys_for_any_chunks(args, dtype, chunks):
    """NumPy casts ``start`` and ``start + step`` to the integer dtype and steps by
    their difference (``arange(0, 5, 1.5, dtype=int64)`` is ``[0, 1, 2, 3]``); dask cast
    each block's own start (``[0, 1, 3, 4]`` in chunks of 1, ``[0, 1, 2, 4]`` in chunks
    of 3), and for int8 past 127 a block's start raised ``OverflowError``."""
    want = np.arange(*args, dtype=dtype)
    with xp.use_backend("dask", chunks=chunks):
        got = xp.arange(*args, dtype=dtype)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert xp.to_numpy(got).tobytes() == want.tobytes()


@pytest.mark.parametrize("start, stop", [(np.float32(0), 1.5), (0, np.float32(1.3)),
                                         (np.float16(3), 7), (np.int32(2), 9), (0.5, 2)])
def test_linspace_without_dtype_takes_the_ends_float_type_as_numpy(start, stop):
    """NumPy's linspace of float32 ends is float32; dask's was always float64."""
    want = np.linspace(start, stop, 9)
    with xp.use_backend("dask", chunks=2):
        got = xp.linspace(start, stop, 9)
    assert got.dtype == want.dtype == xp.linspace(start, stop, 9).dtype
    assert xp.to_numpy(got).tobytes() == want.tobytes()


@pytest.mark.parametrize("args", [(0, 5, float("inf")), (0, -5, -float("inf")),
                                  (0, 5, 1e308), (5, 0, float("inf")), (0, 5, -float("inf"))])
@pytest.mark.parametrize("chunks", [1, "auto"])
def test_arange_with_a_step_past_stop_is_numpys_one_element(args, chunks):
    """NumPy's arange of a nonzero range whose quotient by the step is +0 has one
    element, ``start``; dask's took ``ceil(0.0)`` and was empty."""
    want = np.arange(*args)
    with xp.use_backend("dask", chunks=chunks):
        got = xp.arange(*args)
    assert got.shape == want.shape and got.dtype == want.dtype
    assert xp.to_numpy(got).tobytes() == want.tobytes()


@pytest.mark.parametrize("args, arg, match", [
    ((None,), "start", "got NoneType None; expected a real number"),
    (("3",), "start", "got str '3'; expected a real number"),
    ((0, [3]), "stop", "got list"),
    ((1j,), "start", "takes no complex values"),
    ((0, 3, np.complex64(1)), "step", "takes no complex values"),
])
def test_dask_arange_names_an_argument_that_is_no_real_number(args, arg, match):
    """dask's arange(None) was an empty array (NumPy raises TypeError), and for the
    others dask raised its dispatch's two-line message naming no argument."""
    with xp.use_backend("dask", chunks=2):
        with pytest.raises(TypeError, match=rf"^arange: argument '{arg}' .*{re.escape(match)}"):
            xp.arange(*args)
        assert xp.to_numpy(xp.arange(0, None)).tolist() == []   # stop None: arange(0)


@pytest.mark.parametrize("backend", ["numpy", "dask"])
@pytest.mark.parametrize("args, arg, shape", [
    ((np.array([3]),), "start", (1,)), ((0, np.array([3, 4])), "stop", (2,)),
    ((0, 3, np.ones((1, 1))), "step", (1, 1)),
])
def test_arange_names_an_array_argument_of_one_dimension_or_more(backend, args, arg, shape):
    """NumPy's said "only 0-dimensional arrays can be converted to Python scalars" (dask's
    inside its dispatch's two-line message), naming no argument; a 0-D array is taken."""
    with xp.use_backend(backend):
        with pytest.raises(TypeError, match=rf"^arange: argument '{arg}' got numpy.ndarray"
                                            rf"\(shape={re.escape(str(shape))}.*expected a "
                                            "real number"):
            xp.arange(*args)
        got = xp.to_numpy(xp.arange(np.asarray(1), np.asarray(4.0)))
    assert got.tolist() == [1.0, 2.0, 3.0]


@pytest.mark.parametrize("args, kwargs", [
    ((1, 4, None), {}), ((4, None, None), {}), ((4,), {"step": None}),
    ((1.0, 4, None), {}), ((10, 1, None), {}), ((4, None, 2), {}),
    ((1, 4, None), {"dtype": np.int8}), ((0.5, 7, None), {"dtype": np.float32}),
    ((4.5, None), {})])
@pytest.mark.parametrize("chunks", [1, 2, "auto"])
def test_dask_arange_takes_a_step_of_none_as_one_as_numpy(args, kwargs, chunks):
    """NumPy's ``arange(1, 4, None)`` is ``[1, 2, 3]``; dask's divided by the None step
    and raised its dispatch's ``TypeError``."""
    want = np.arange(*args, **kwargs)
    np.testing.assert_array_equal(xp.to_numpy(xp.arange(*args, **kwargs)), want)
    with xp.use_backend("dask", chunks=chunks):
        got = xp.arange(*args, **kwargs)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert xp.to_numpy(got).tobytes() == want.tobytes()


@pytest.mark.parametrize("args", [(np.asarray(3),), (np.asarray(np.float32(2.5)),),
                                  (1, np.asarray(7), np.asarray(2))])
def test_dask_arange_takes_0d_numpy_arrays_as_numpy_does(args):
    """dask's raised "The truth value of an empty array is ambiguous" inside its
    dispatch's message for ``arange(numpy.asarray(3))``."""
    want = np.arange(*args)
    with xp.use_backend("dask", chunks=2):
        got = xp.arange(*args)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(xp.to_numpy(got), want)


@pytest.mark.parametrize("args", [(2,), (1, 3), (0, 1, 0.5), (-1, 1), (0.5, 2.5), (2, 0, -1),
                                  (0,), (5, 3), (2**60, 2**60 + 2)])
@pytest.mark.parametrize("chunks", [1, 2])
def test_bool_arange_of_two_elements_at_most_is_numpys(args, chunks):
    """dask's took float arguments into bool with "numpy boolean subtract ... is not
    supported" (its float values' path)."""
    want = np.arange(*args, dtype=bool)
    with xp.use_backend("dask", chunks=chunks):
        got = xp.arange(*args, dtype=xp.bool)
    assert got.dtype == want.dtype == np.bool_
    np.testing.assert_array_equal(xp.to_numpy(got), want)


@pytest.mark.parametrize("backend", ["numpy", "dask"])
@pytest.mark.parametrize("args, n", [((3,), 3), ((0, 1, 0.3), 4), ((2**60,), 2**60)])
def test_bool_arange_of_more_than_two_elements_names_dtype(backend, args, n):
    """dask's made ``arange(3, dtype=bool)`` ``[False, True, True]``; NumPy refuses it
    (TypeError), naming no argument, and the NumPy backend's tried to allocate an
    ``arange(2**60)`` of Python ints first."""
    with xp.use_backend(backend):
        with pytest.raises(TypeError, match=f"arange: argument 'dtype' is bool, whose arange "
                                            f"has at most 2 elements .*this one has {n} "):
            xp.arange(*args, dtype=xp.bool)


@pytest.mark.parametrize("args, kwargs", [
    ((0.3j, 1.1, 9), {"endpoint": False}),
    ((-6.953903641414739 - 1.9578925710780837j, 0.3013232871845464 - 1.2486956325447993j,
      13), {}),
    ((1 - 2j, -3 + 0.7j, 7), {"dtype": np.complex64}),
    ((np.complex64(1 + 2j), 3, 5), {})])
@pytest.mark.parametrize("chunks", [1, 2, -1])
def test_complex_linspace_is_numpys_for_any_chunks(args, kwargs, chunks):
    """The parts were dask's linspace of each block's own ends, in the parts of
    ``dtype`` (NumPy's computes in the ends' complex type, its step ``delta`` times
    ``1 / div``), so values were off in the last bits and depended on the chunks;
    complex64 ends without ``dtype`` gave complex128."""
    want = np.linspace(*args, **kwargs)
    with xp.use_backend("dask", chunks=chunks):
        got = xp.linspace(*args, **kwargs)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert xp.to_numpy(got).tobytes() == want.tobytes()


@pytest.mark.parametrize("start, stop", [(np.asarray(np.float32(0)), 1),
                                         (np.asarray(np.complex64(1j)), 2),
                                         (np.asarray(1j), np.asarray(2.0))])
def test_linspace_of_0d_numpy_ends_has_numpys_dtype(start, stop):
    """A float32 0-D array end gave float64; a complex one went down the real path
    (dask's ``float()`` of it, a ``ComplexWarning``)."""
    want = np.linspace(start, stop, 5)
    with xp.use_backend("dask", chunks=2):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            got = xp.linspace(start, stop, 5)
            values = xp.to_numpy(got)
    assert got.dtype == want.dtype
    assert values.tobytes() == want.tobytes()


@pytest.mark.parametrize("backend, devices", [("numpy", "'cpu'"),
                                              ("dask", "'cpu', DASK_DEVICE")])
@pytest.mark.parametrize("call", [
    lambda: xp.zeros(3, device="gpu"), lambda: xp.full(2, 1.0, device="gpu"),
    lambda: xp.arange(3, device="gpu"), lambda: xp.linspace(0, 1, 3, device="gpu"),
    lambda: xp.eye(2, device="gpu"), lambda: xp.asarray([1], device="gpu"),
    lambda: xp.zeros_like(xp.ones(2), device="gpu"),
    lambda: xp.full_like(xp.ones(2), 3, device="gpu"),
])
def test_a_device_the_backend_lacks_is_a_value_error_naming_device(backend, devices, call):
    """array_api_compat's "Unsupported device for Dask: 'gpu'" named no argument (dask's
    asarray did), and dask's eye ignored the device."""
    with xp.use_backend(backend):
        with pytest.raises(ValueError, match=r"^\w+: argument 'device' is 'gpu'; the "
                                             f"{backend} backend's devices are {devices}$"):
            call()
        assert xp.to_numpy(xp.eye(2, device="cpu")).tolist() == [[1.0, 0.0], [0.0, 1.0]]


@pytest.mark.parametrize("backend", ["numpy", "dask"])
@pytest.mark.parametrize("name", ["empty_like", "zeros_like", "ones_like", "full_like"])
@pytest.mark.parametrize("shape, cls, match", [
    ((True, 2), TypeError, r"got tuple \(True, 2\); expected an int or a tuple of ints"),
    ((2.0, 2), TypeError, r"got tuple \(2.0, 2\); expected an int or a tuple of ints"),
    (2.0, TypeError, "got float 2.0; expected an int or a tuple of ints"),
    ((-1, 2), ValueError, "has the negative length -1; lengths must be non-negative"),
])
def test_like_functions_name_a_bad_shape_keyword_as_zeros_does(backend, name, shape, cls,
                                                               match):
    """NumPy's said "an integer is required" or "negative dimensions are not allowed";
    dask's took them (a bool shape made an array of a function, a float one an array)
    or failed when computed."""
    extra = (1,) if name == "full_like" else ()
    with xp.use_backend(backend):
        x = xp.ones(3)
        with pytest.raises(cls, match=f"^{name}: argument 'shape' {match}$"):
            getattr(xp, name)(x, *extra, shape=shape)          # no compute: the call raises
        assert getattr(xp, name)(x, *extra, shape=(2, 3)).shape == (2, 3)


@pytest.mark.parametrize("call", [
    lambda **c: xp.zeros(3, dtype=object, **c), lambda **c: xp.ones(2, dtype="O", **c),
    lambda **c: xp.full(2, 1, dtype=object, **c), lambda **c: xp.arange(3, dtype=object, **c),
    lambda **c: xp.eye(2, dtype=object, **c), lambda **c: xp.empty(2, dtype=object, **c),
    lambda **c: xp.linspace(0, 1, 3, dtype=object, **c),
    lambda **c: xp.asarray([1, 2], dtype=object, **c),
])
def test_object_dtype_under_dask_auto_chunks_is_a_type_error_naming_dtype(call):
    """NumPy makes object arrays (kept on the NumPy backend); dask's "auto" chunks raised
    an unnamed NotImplementedError ("Can not use auto rechunking with object dtype")."""
    assert call().dtype == object                                      # NumPy backend's
    with xp.use_backend("dask"):
        with pytest.raises(TypeError, match=r"^\w+: argument 'dtype' got (type <class 'object'>|str 'O'); "
                                            r"expected .*give chunks= a number of elements"):
            call()
        assert xp.to_numpy(call(chunks=1)).dtype == object             # as the hint says


def test_asarray_of_object_data_under_dask_auto_chunks_names_obj():
    assert xp.asarray([1, None]).dtype == object
    with xp.use_backend("dask"):
        with pytest.raises(TypeError, match=r"^asarray: argument 'obj' got list \[1, None\]"):
            xp.asarray([1, None])
        assert xp.to_numpy(xp.asarray([1, None], chunks=1)).tolist() == [1, None]


# ------------------------------------------------------------------ asarray's copy
@pytest.mark.parametrize("obj", [np.arange(4.0), np.float64(1.5), memoryview(bytearray(4))])
def test_asarray_copy_false_of_no_dask_array_raises(obj):
    # dask's from_array copies what it takes: copy=False made a copy silently (writes to
    # a NumPy array were not seen), where the standard asks for a ValueError
    with xp.use_backend("dask", chunks=2):
        with pytest.raises(ValueError, match=r"^asarray: argument 'copy' is False, but the "
                                             r"dask array copies 'obj'"):
            xp.asarray(obj, copy=False)
        n = np.arange(4.0)
        for copy in (None, True):
            got = xp.asarray(n, copy=copy)
            n[0] = 9.0
            assert xp.to_numpy(got).tolist() == [0.0, 1.0, 2.0, 3.0]
            n[0] = 0.0
        d = xp.asarray(n)
        assert xp.asarray(d, copy=False) is d


# ------------------------------------------------------------------ a 0-D dask array fill
@pytest.mark.parametrize("name", ["full", "full_like"])
def test_full_of_a_zero_d_dask_fill_is_a_graph_dependency(name):
    # dask's full gave the fill to NumPy's full inside every block's task as an object:
    # each block computed the fill's graph again and warned "The `numpy.copyto` function
    # is not implemented by Dask array" (FutureWarning)
    with xp.use_backend("dask", chunks=2):
        d = xp.asarray([1.0, 7.0, 3.0])
        fill = xp.max(d)
        x = xp.zeros((3, 3), dtype=xp.int8)
        call = ((lambda f, **kw: xp.full((3, 3), f, **kw)) if name == "full"
                else (lambda f, **kw: xp.full_like(x, f, **kw)))
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            got = call(fill)
            assert any(k[0] == fill.name for k in got.dask.keys() if isinstance(k, tuple))
            assert got.chunks == ((2, 1), (2, 1))
            want = np.full((3, 3), 7.0) if name == "full" else np.full((3, 3), 7, np.int8)
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(xp.to_numpy(got), want)
            small = call(xp.asarray(-2, dtype=xp.int16), dtype=xp.float32)
            assert small.dtype == np.float32
            np.testing.assert_array_equal(xp.to_numpy(small), np.full((3, 3), -2.0, np.float32))
        if name == "full":   # the fill's dtype, as NumPy's full(shape, 0-D array)
            assert call(xp.asarray(3, dtype=xp.uint8)).dtype == np.uint8


@pytest.mark.parametrize("backend", ["numpy", "dask"])
@pytest.mark.parametrize("args, arg", [((1j,), "start"), ((0, 1j), "stop"),
                                       ((0, 5, 1 + 0j), "step"), ((np.complex64(3),), "start"),
                                       ((0, np.asarray(2j)), "stop")])
def test_arange_of_a_complex_number_is_refused_on_every_backend(backend, args, arg):
    """The standard's arange takes ints and floats. A new-user probe: NumPy's made
    ``arange(1j)`` an empty complex array and ``arange(0, 5, 1 + 0j)`` a complex one,
    where the dask backend refused both."""
    with xp.use_backend(backend):
        with pytest.raises(TypeError, match=rf"^arange: argument '{arg}' got .*; expected a "
                                            "real number .*the standard's arange takes no "
                                            "complex values"):
            xp.arange(*args)
