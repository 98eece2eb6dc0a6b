"""``arange`` of Python ints of 2**53 and more on the dask backend: the NumPy backend's
result bit for bit (values, dtype, length) or its error, whatever the chunks.

dask computed the length in float64 and the values in int64: ``arange(2**63 - 2, 2**63 +
1)`` wrapped to -2**63, ``arange(5, -2**63 - 3, -2**62)`` had 2 values, ``arange(2**63,
2**63 + 3)`` raised an unnamed "Python int too large to convert to C long"; both
backends gave ``arange(0, 2**63 + 5, 2**62, dtype=uint64)`` 2 values, not 3.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import xstride as xp

_CHUNKS = (1, 2, 3, "auto")
_DTYPES = (None, np.int64, np.uint64, np.int32, np.uint8, np.float64)


def _result(args, dtype, backend, chunks=None):
    """``(dtype, bytes)`` of ``arange(*args, dtype=dtype)``, or ``(error type, message)``."""
    opts = {} if chunks is None else {"chunks": chunks}
    with xp.use_backend(backend, **opts):
        try:
            out = xp.to_numpy(xp.arange(*args, **({} if dtype is None else {"dtype": dtype})))
        except (ValueError, TypeError, OverflowError, MemoryError) as e:
            return type(e), str(e)
    assert isinstance(out, np.ndarray)
    return out.dtype, out.tobytes()


def _check(args, dtype, chunkings=_CHUNKS):
    want = _result(args, dtype, "numpy")
    for chunks in chunkings:
        assert _result(args, dtype, "dask", chunks) == want, (args, dtype, chunks)
    return want


@pytest.mark.parametrize("args, dtype, values", [
    ((0, 2**63 + 5, 2**62), np.uint64, [0, 2**62, 2**63]),
    ((5, -2**63 - 3, -2**62), None, [5, 5 - 2**62, 5 - 2**63]),
    ((2**63 - 2, 2**63 + 1), None, [2**63 - 2, 2**63 - 1, 2**63]),
    ((2**63, 2**63 + 3), None, [2**63, 2**63 + 1, 2**63 + 2]),
    ((2**63 - 2, 2**63 + 1), np.int64, [2**63 - 2, 2**63 - 1, -2**63]),   # NumPy wraps
    ((-2**63, -2**63 + 3), None, [-2**63, -2**63 + 1, -2**63 + 2]),
])
def test_wide_int_arange_is_exact_on_both_backends(args, dtype, values):
    got = _check(args, dtype)
    assert np.frombuffer(got[1], got[0]).tolist() == values
    assert got[0] == np.dtype(dtype or (np.uint64 if max(values) >= 2**63 else np.int64))


@pytest.mark.parametrize("args, dtype, cls, match", [
    ((0, 2**64 + 5, 2**62), None, OverflowError,
     r"^arange: argument 'stop' gives values from 0 to 18446744073709551616, which no "
     r"integer dtype holds"),
    ((2**64, 2**64 + 2), None, OverflowError, r"^arange: argument 'start' gives values"),
    ((2**63, 2**63 + 3), np.int64, OverflowError, "Python int too large to convert"),
    ((-2**62, 2**62, 2**61), np.uint64, OverflowError,
     "Python integer -4611686018427387904 out of bounds for uint64"),
    ((2**70,), None, ValueError,
     r"^arange: argument 'stop' gives 1180591620717411303424 elements from start 0 by "
     r"step 1, which overflows int64 \(at most 2\*\*63 - 1\)$"),
    ((0, 2**62), np.int8, MemoryError, r"^arange: not enough memory for the "),
    ((0, 2**62), np.float32, ValueError,
     r"^arange: argument 'stop' gives a result .* elements of 4 bytes"),
])
def test_wide_int_arange_errors_are_named_alike_on_both_backends(args, dtype, cls, match):
    """One message for a length past int64 (dask's said "...; an array holds at most
    2**63 - 1"), and the bytes of the call's dtype (``arange(0, 2**62, dtype=int8)``
    was refused as 8 bytes an element, overflowing int64: 2**62 bytes do not)."""
    kwargs = {} if dtype is None else {"dtype": dtype}
    for backend, chunks in (("numpy", None), ("dask", 2), ("dask", "auto")):
        with xp.use_backend(backend, **({} if chunks is None else {"chunks": chunks})):
            with pytest.raises(cls, match=match):
                xp.arange(*args, **kwargs)
    if cls is not MemoryError:   # the dask chunks' message names the chunks
        assert _check(args, dtype)[0] is cls


def test_wide_int_dask_arange_is_lazy_and_blockwise():
    """Each block from its global indices: no array of the whole length on the client."""
    # a block of 2**41 - 2**10 rows that nothing computes, and one of 2**10 (2,048 blocks
    # of 2**30 took 15-47 s of graph work on the 2-core machine)
    with xp.use_backend("dask", chunks=((2**41 - 2**10, 2**10),)):
        a = xp.arange(2**63 - 2**40, 2**63 + 2**40)
        assert a.shape == (2**41,) and a.dtype == np.uint64 and a.numblocks == (2,)
        assert xp.to_numpy(a[-3:]).tolist() == [2**63 + 2**40 - k for k in (3, 2, 1)]


@st.composite
def _wide_args(draw):
    big = st.integers(-2**66, 2**66)
    start = draw(st.one_of(big, st.sampled_from([2**53, -2**53, 2**63, 2**63 - 1, -2**63,
                                                  2**64 - 1, 2**64, 0, 5])))
    step = draw(st.one_of(st.integers(-2**65, 2**65), st.integers(-3, 3)).filter(bool))
    n = draw(st.integers(0, 9))
    short = draw(st.integers(0, abs(step) - 1)) if n else draw(st.integers(0, 2**64))
    stop = start + n * step - (short if step > 0 else -short)
    if max(abs(start), abs(stop), abs(step)) < 2**53:
        start += 2**60   # at least one int past float precision
        stop += 2**60
    return (start, stop, step)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(args=_wide_args(), dtype=st.sampled_from(_DTYPES))
def test_wide_int_dask_arange_is_the_numpy_backends_for_any_chunks(args, dtype):
    _check(args, dtype, (1, 3, "auto"))


def _rounded(v: int, dtype) -> float:
    """The Python int ``v`` rounded once to nearest (ties to even) in ``dtype``'s
    precision, by integer arithmetic (no float in between)."""
    bits = np.finfo(dtype).nmant + 1
    shift = max(0, abs(v).bit_length() - bits)
    q, rem = divmod(abs(v), 2**shift)
    if 2 * rem > 2**shift or (shift and 2 * rem == 2**shift and q % 2):
        q += 1
    return float(q * 2**shift * (1 if v >= 0 else -1))


@pytest.mark.parametrize("args, dtype, values", [
    ((0, 2**63 + 5, 2**62), np.float64, [0, 2**62, 2**63]),   # NumPy's: 2 values
    ((0, 2**63 + 5, 2**62), np.complex128, [0, 2**62, 2**63]),
    ((0, 2**63 + 5, 2**62), np.float32, [0, 2**62, 2**63]),
    ((2**53, 2**53 + 4), np.float64, [2**53, 2**53, 2**53 + 2, 2**53 + 4]),   # NumPy's:
    ((-2**53 - 3, -2**53 + 1), np.float64, [-2**53 - 4, -2**53 - 2, -2**53, -2**53]),  # equal
    ((2**63 - 2**11, 2**63 + 2**12, 2**11 + 1), np.float64,
     [2**63 - 2**11, 2**63 + 1, 2**63 + 2**11 + 2]),
    ((-2**63, 2**64, 3 * 2**61), np.float64, [-2**63 + 3 * 2**61 * i for i in range(4)]),
    ((2**60 + 2**36 + 1, 2**60 + 2**36 + 2), np.float32, [2**60 + 2**37]),   # once, not
    ((10**20 + 1, 10**20 + 4), np.float64, [float(10**20 + k) for k in (1, 2, 3)]),  # twice
])
def test_wide_int_arange_into_a_float_dtype_is_the_exact_values_rounded(args, dtype, values):
    """A review: ``arange(0, 2**63 + 5, 2**62, dtype=float64)`` had NumPy's float64 length
    (2 values) on both backends, and values from 2**53 on were NumPy's float64 steps
    (``arange(2**53, 2**53 + 4, dtype=float64)`` four equal values): the exact count of
    the exact values, each rounded once to the dtype."""
    got = _check(args, dtype)
    out = np.frombuffer(got[1], got[0])
    assert out.dtype == dtype
    assert out.tolist() == [_rounded(int(v), dtype) for v in values]


@pytest.mark.filterwarnings("ignore:overflow encountered in cast:RuntimeWarning")
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(args=_wide_args(), dtype=st.sampled_from([np.float64, np.float32, np.float16,
                                                 np.complex64]))
def test_wide_int_float_arange_rounds_each_exact_value_once(args, dtype):
    start, stop, step = args
    got = _check(args, dtype, (1, 3, "auto"))
    out = np.frombuffer(got[1], got[0])
    n = max(0, -(-(stop - start) // step))
    with np.errstate(over="ignore"):
        want = np.array([_rounded(start + i * step, dtype) for i in range(n)]).astype(dtype)
    assert out.tobytes() == want.tobytes()


def test_wide_int_float_arange_past_float64_is_refused_at_the_call():
    for backend in ("numpy", "dask"):
        with xp.use_backend(backend):
            with pytest.raises(OverflowError, match=r"^arange: argument 'start' gives values "
                                                    r"from .* past the largest float64"):
                xp.arange(10**400, 10**400 + 3, dtype=xp.float64)


def test_wide_int_float_arange_past_64_bits_holds_no_python_int_per_element():
    """A review: values of more than 64 significant bits (``arange(2**70 + 1, 2**70 + 1 +
    n, dtype=float64)``) were computed as one object array of ``n`` Python ints: about
    180 bytes an element at the peak (0.7 GB for 4 * 10**6 float64 values of 32 MB, a
    dask block of the default chunks 3 GB), where NumPy's arange needs the result only.
    They are computed in slices of a bounded number of elements."""
    import tracemalloc

    n = 2**18
    tracemalloc.start()
    try:
        out = xp.arange(2**70 + 1, 2**70 + 1 + n, dtype=xp.float64)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 6 * out.nbytes, peak   # the result, its indices and float64 temporaries
    some = [0, 1, 2**17 + 3, n - 1]
    assert xp.to_numpy(out)[some].tolist() == [float(2**70 + 1 + i) for i in some]


def test_wide_int_arange_into_long_double_is_numpys_again():
    """A review: the float path rounded every value to float64, not to the dtype, so
    ``arange(2**60 + 1, 2**60 + 4, dtype=longdouble)`` (exact on NumPy's and, before, on
    both backends: x86-64's long double holds 64 bits) became three equal values. A
    float dtype wider than float64 (long double, its complex) is left to NumPy's
    ``arange`` after the exact length, as before."""
    args = (2**60 + 1, 2**60 + 4)
    want = np.arange(*args, dtype=np.longdouble)
    for backend, chunks in (("numpy", None), ("dask", 1), ("dask", "auto")):
        with xp.use_backend(backend, **({} if chunks is None else {"chunks": chunks})):
            got = xp.to_numpy(xp.arange(*args, dtype=np.longdouble))
        assert got.dtype == want.dtype and np.array_equal(got, want), (backend, got)   # not
        # the bytes: an 80-bit long double's 6 padding bytes are whatever memory held
    if np.finfo(np.longdouble).nmant >= 63:   # x86-64's: the exact values
        assert [int(v) - 2**60 for v in want] == [1, 2, 3]


@pytest.mark.parametrize("backend", ["numpy", "dask"])
def test_wide_int_arange_past_a_narrow_float_warns_as_numpys_cast(backend):
    """Values past float16's range become inf with NumPy's overflow warning, as
    ``numpy.arange`` gives it (the exact path had silenced it: a review)."""
    with xp.use_backend(backend):
        with pytest.warns(RuntimeWarning, match="overflow"):
            got = xp.to_numpy(xp.arange(2**60, 2**60 + 3, dtype=xp.float16))
    assert np.isinf(got).all() and (got > 0).all()
    with xp.use_backend(backend), warnings.catch_warnings():
        warnings.simplefilter("error")
        assert xp.to_numpy(xp.arange(2**60, 2**60 + 3, dtype=xp.float64))[0] == 2.0**60


#: ``arange(*args, dtype=bool)`` of Python ints past 2**53, and its exact values (the
#: standard's length ceil((stop - start) / step), each value true where it is not 0)
_BOOL_CASES = [
    ((-2**64 - 1, -2**63, 2**63), [True, True]),      # NumPy's float length: 1
    ((0, 2**64 + 1, 2**64), [False, True]),           # NumPy's: [False]
    ((-(2**53 + 1), 1, 2**53), [True, True]),         # NumPy's float values: [True, False]
    ((-2**64 - 1, -2**62, -1), []),                   # NumPy's "Maximum allowed size exceeded"
    ((2**64, 2**64 + 2), [True, True]),
    ((2**53, 2**53 + 1), [True]),
    ((-(2**53 + 1), 0, 2**53 + 1), [True]),
]


@pytest.mark.parametrize("args, want", _BOOL_CASES, ids=[str(c[0]) for c in _BOOL_CASES])
@pytest.mark.parametrize("backend, opts", [("numpy", {}), ("dask", {"chunks": 1}),
                                           ("dask", {})], ids=["numpy", "dask-1", "dask"])
def test_bool_arange_of_wide_ints_has_the_exact_length_and_values(args, want, backend, opts):
    with xp.use_backend(backend, **opts):
        got = xp.to_numpy(xp.arange(*args, dtype=bool))
    assert got.dtype == np.bool_ and got.tolist() == want


@pytest.mark.parametrize("args", [(0, 3 * 2**64, 2**64), (-2**64 - 1, -2**63, 2**62),
                                  (2**53, 2**53 + 3)])
@pytest.mark.parametrize("backend", ["numpy", "dask"])
def test_bool_arange_of_wide_ints_of_more_than_two_values_is_refused(args, backend):
    """NumPy's ``TypeError`` for a bool ``arange`` longer than 2, by the exact length
    (NumPy's float length gave ``(-2**64 - 1, -2**63, 2**62)`` two values, not 3)."""
    with xp.use_backend(backend), pytest.raises(
            TypeError, match=r"^arange: argument 'dtype' is bool, whose arange has at most 2 "
                             r"elements"):
        xp.to_numpy(xp.arange(*args, dtype=bool))


@pytest.mark.parametrize("dtype", ["U1", "S2", "V8", np.str_])
@pytest.mark.parametrize("backend", ["numpy", "dask"])
def test_arange_of_a_dtype_of_no_numbers_names_dtype(backend, dtype):
    # NumPy's said "arange() not supported for inputs with DType <class
    # 'numpy.dtypes.StrDType'>" naming no argument; dask's made the array and failed
    # only when it was computed
    with xp.use_backend(backend, **({"chunks": 2} if backend == "dask" else {})):
        with pytest.raises(TypeError, match=r"^arange: argument 'dtype' got .*; expected a "
                                            r"numeric dtype"):
            xp.arange(3, dtype=dtype)


def test_dask_arange_of_datetime64_is_refused():
    # dask's arange(0, 3, dtype="M8[s]") had shape (3,) and computed 4 values (and
    # arange(3, dtype="M8[s]"), which NumPy refuses, the same)
    with xp.use_backend("dask", chunks=2):
        for args in ((0, 3), (3,), (1, 7, 2)):
            with pytest.raises(TypeError, match=r"^arange: argument 'dtype' got .*; expected "
                                                r"a numeric dtype.*datetime64"):
                xp.arange(*args, dtype="M8[s]")
        got = xp.arange(0, 3, dtype="m8[s]")   # timedelta64: NumPy's values
        assert got.shape == (3,) and xp.to_numpy(got).tolist() == np.arange(
            0, 3, dtype="m8[s]").tolist()
