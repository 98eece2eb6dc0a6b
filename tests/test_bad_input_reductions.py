"""Wrong ``x`` for the reductions on the NumPy backend, with and without keywords.

``xp.sum(x)`` without keywords took a fast path that handed ``x`` to NumPy unchecked:
a list, a tuple, a string, object or datetime array was reduced (or refused with
NumPy's own words) while ``xp.sum(x, axis=0)``, ``xp.max(x)`` and every call on CuPy
refuse it with the namespace's ``TypeError``. A keyword must not change what is accepted.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

import xstride as xp

_FUNCS = ["sum", "prod", "mean", "var", "std", "all", "any", "min", "max", "argmin", "argmax"]
_BAD = [
    ([1.0, 2.0], "an array of the numpy backend"),
    ((1.0, 2.0), "an array of the numpy backend"),
    (np.array(["a", "b"]), "an array of a bool or numeric dtype"),
    (np.array([1, 2], dtype=object), "an array of a bool or numeric dtype"),
    (np.array([1, 2], dtype="M8[s]"), "an array of a bool or numeric dtype"),
]


@pytest.mark.parametrize("func", _FUNCS)
@pytest.mark.parametrize("bad, allowed", _BAD, ids=["list", "tuple", "str", "object", "datetime"])
@pytest.mark.parametrize("kwargs", [{}, {"axis": 0}, {"keepdims": False}], ids=["plain", "axis", "keepdims"])
def test_x_is_checked_with_or_without_keywords(func, bad, allowed, kwargs):
    with pytest.raises(TypeError, match=rf"{func}: argument 'x' got .*; expected {allowed}"):
        getattr(xp, func)(bad, **kwargs)


@pytest.mark.parametrize("func", _FUNCS)
def test_good_x_without_keywords_still_runs(func):
    x = np.arange(1.0, 7.0).reshape(2, 3)
    for a in (x, x.T[::-1], np.float64(2.5), np.array(3.0), x > 2):
        got, want = getattr(xp, func)(a), getattr(np, func)(a)
        assert np.asarray(got).dtype == np.asarray(want).dtype
        assert np.array_equal(got, want)


@pytest.mark.parametrize("func", _FUNCS + ["cumulative_sum", "cumulative_prod"])
def test_axis_is_keyword_only(func):
    """``axis`` (and ``keepdims``, ``dtype``) are keyword-only, as in the standard and on
    CuPy: ``xp.sum(x, 0)`` went to NumPy unchecked (``xp.var(x, 0)`` raised "got
    multiple values for argument 'xp'", ``xp.sum(x, 1.5)`` NumPy's message)."""
    x = np.arange(6.0).reshape(2, 3)
    with pytest.raises(TypeError, match=rf"^{func}: .*takes 1 positional argument"):
        getattr(xp, func)(x, 0)
    with pytest.raises(TypeError, match=rf"^{func}: .*takes 1 positional argument"):
        getattr(xp, func)(x, None, False)


@pytest.mark.parametrize("call, arg", [
    (lambda: xp.sum(np.float64), "x"),                        # a NumPy scalar type for x
    (lambda: xp.max(np.ndarray, axis=0), "x"),
    (lambda: xp.sum(np.ones(3), dtype=np.str_), "dtype"),     # a non-numeric scalar type
    (lambda: xp.cumulative_sum(np.ones(3), dtype=np.datetime64), "dtype"),
])
def test_a_class_given_for_an_argument_is_named(call, arg):
    """``errors.describe`` read ``shape``/``dtype`` of a NumPy class (descriptors), and
    the message became "'getset_descriptor' object is not iterable"."""
    with pytest.raises(TypeError, match=rf"argument '{arg}' got type <class 'numpy\."):
        call()


@pytest.mark.parametrize("func, kwargs, unexpected", [
    ("all", {"dtype": object}, "dtype"), ("any", {"dtype": 1}, "dtype"),
    ("sum", {"correction": True}, "correction"), ("mean", {"correction": "x"}, "correction"),
    ("all", {"correction": None}, "correction"),
])
def test_a_keyword_the_function_does_not_take_is_named_as_unexpected(func, kwargs, unexpected):
    """``xp.all(x, dtype=object)`` said "argument 'dtype' ... expected a bool or numeric
    dtype" and ``xp.sum(x, correction=True)`` "expected a real number", as if they took
    those arguments; CuPy's path (and ``xp.all(x, dtype=xp.int8)``) says unexpected."""
    with pytest.raises(TypeError, match=rf"^{func}: .*unexpected keyword argument '{unexpected}'"):
        getattr(xp, func)(np.ones((2, 3)), **kwargs)


@pytest.mark.parametrize("func", ["var", "std"])
@pytest.mark.parametrize("correction", [2**63, -2**63 - 1, 2**70])
def test_a_correction_past_int64_is_named(func, correction):
    """``xp.var(x, correction=2**70)`` raised NumPy's "Python int too large to convert to
    C long", naming no argument; a float of any size is still taken."""
    x = np.ones((4, 3))
    with pytest.raises(ValueError, match=rf"^{func}: argument 'correction' is {correction}"):
        getattr(xp, func)(x, correction=correction)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)      # NumPy: "Degrees of freedom"
        for taken in (2**63 - 1, float(2**70)):
            assert getattr(xp, func)(x, correction=taken, axis=0).shape == (3,)


@pytest.mark.parametrize("backend", ["numpy", "dask"])
@pytest.mark.parametrize("func", ["var", "std"])
def test_numpy_s_ddof_is_refused_with_the_standard_s_name(func, backend):
    """``xp.var(x, ddof=1)`` raised NumPy's "numpy.var() got multiple values for keyword
    argument 'ddof'" (the namespace passes ``correction`` on as ``ddof``)."""
    with xp.use_backend(backend):
        x = xp.asarray(np.arange(6.0))
        for kwargs in ({"ddof": 1}, {"ddof": 1, "axis": 0}, {"ddof": 0, "correction": 1}):
            with pytest.raises(TypeError, match=rf"^{func}: takes correction= .* got ddof="):
                getattr(xp, func)(x, **kwargs)


def test_a_bad_out_is_named():
    """A new-user probe: ``out=`` went to NumPy unchecked, whose errors named no
    argument: a list said "return arrays must be of ArrayType", ``min(x, axis=1,
    out=zeros(2))`` "operands could not be broadcast together with remapped shapes",
    and ``argmax`` into a float ``out`` "Cannot cast array data from dtype('float64')
    to dtype('int64')". A masked ``x``'s ``mean`` into a wrong shape gave wrong values."""
    x = np.arange(12.0).reshape(3, 4)
    for func in _FUNCS:
        for bad in ([0.0] * 4, (np.zeros(4),), np.float64(0)):
            with pytest.raises(TypeError, match=rf"^{func}: argument 'out' got .*; expected an "
                                                r"array of the numpy backend"):
                getattr(xp, func)(x, axis=0, out=bad)
        dt = np.intp if func.startswith("arg") else x.dtype
        for kwargs, shape, want in [({"axis": 0}, (3,), (4,)), ({"axis": 1}, (1, 3), (3,)),
                                    ({"axis": 1, "keepdims": True}, (3,), (3, 1)),
                                    ({}, (1,), ())]:
            with pytest.raises(ValueError, match=rf"^{func}: argument 'out' has shape "
                                                 rf"{re.escape(str(shape))}; expected the "
                                                 rf"result's shape {re.escape(str(want))}"):
                getattr(xp, func)(x, **kwargs, out=np.zeros(shape, dt))
    with pytest.raises(ValueError, match=r"^mean: argument 'out' has shape \(1, 4\)"):
        xp.mean(np.ma.masked_array(x, mask=x > 9), axis=0, out=np.zeros((1, 4)))
    for dt in ("f8", "u8", "c16"):
        with pytest.raises(TypeError, match=rf"^argmax: argument 'out' has dtype "
                                            rf"{np.dtype(dt)}; .* casts safely to int"):
            xp.argmax(x, axis=0, out=np.zeros(4, dt))
    # what NumPy takes is taken, with NumPy's values
    for func in _FUNCS:
        dt = np.intp if func.startswith("arg") else x.dtype
        for kwargs, shape in [({"axis": 0}, (4,)), ({"axis": 1, "keepdims": True}, (3, 1)),
                              ({}, ())]:
            out = np.zeros(shape, dt)
            got = getattr(xp, func)(x, **kwargs, out=out)
            assert got is out
            assert np.array_equal(out, getattr(np, func)(x, **kwargs))
    assert xp.argmax(x, axis=0, out=np.zeros(4, np.int32)).tolist() == [2, 2, 2, 2]
    assert xp.sum(x, axis=0, out=np.zeros(4, int)).tolist() == [12, 15, 18, 21]
    with warnings.catch_warnings():   # np.matrix is discouraged (PendingDeprecationWarning)
        warnings.simplefilter("ignore", PendingDeprecationWarning)
        m, out = np.matrix(x), np.matrix(np.zeros((1, 4)))
    # its reductions keep both axes: NumPy's shapes
    assert xp.sum(m, axis=0, out=out).tolist() == [[12, 15, 18, 21]]


def test_out_is_taken_exactly_where_numpy_takes_it():
    """The ``out=`` shape check (computed on every call with ``out=``) against NumPy's
    own answer: each ``out`` NumPy fills is filled with its values, each it refuses is
    refused, for every axis form and ``keepdims``."""
    x = np.arange(1.0, 7.0).reshape(2, 3)
    shapes = [(), (1,), (2,), (3,), (1, 1), (1, 3), (2, 1), (3, 1), (2, 3)]
    for func in ("sum", "max", "argmax"):
        axes = [None, 0, 1, -1] + ([] if func == "argmax" else [(0, 1), (-1,)])
        for axis in axes:
            for keepdims in (False, True):
                for shape in shapes:
                    dt = np.intp if func == "argmax" else x.dtype
                    want, got = np.zeros(shape, dt), np.zeros(shape, dt)
                    try:
                        getattr(np, func)(x, axis=axis, keepdims=keepdims, out=want)
                    except ValueError:
                        with pytest.raises(ValueError, match=rf"^{func}: argument 'out'"):
                            getattr(xp, func)(x, axis=axis, keepdims=keepdims, out=got)
                    else:
                        assert getattr(xp, func)(x, axis=axis, keepdims=keepdims,
                                                 out=got) is got
                        assert np.array_equal(got, want)


def test_an_out_that_overlaps_itself_is_refused():
    """A new-user probe: a writeable ``out`` that reaches one element twice (NumPy's
    ``as_strided`` with a stride 0) went to NumPy, which wrote every result into that
    element: ``sum(x, axis=0, out=o)`` of ``[[0, 1, 2], [3, 4, 5]]`` gave ``[15, 15,
    15]``. It is refused as the elementwise functions' ``out=`` is; a stride 0 of a
    length-1 axis and a strided ``out`` that reaches each element once are taken."""
    stride_tricks = np.lib.stride_tricks
    x, x3 = np.arange(6.0).reshape(2, 3), np.arange(18.0).reshape(2, 3, 3)
    for func in _FUNCS:
        dt = np.dtype(np.intp if func.startswith("arg") else x.dtype)
        for a, shape, strides in [(x, (3,), (0,)), (x3, (2, 3), (0, dt.itemsize)),
                                  (x3, (2, 3), (dt.itemsize, 0))]:
            out = stride_tricks.as_strided(np.zeros(6, dt), shape, strides)
            assert out.flags.writeable
            with pytest.raises(ValueError, match=rf"^{func}: argument 'out' overlaps itself"):
                getattr(xp, func)(a, axis=1 if a is x3 else 0, out=out)
            assert not out.any()
        out = stride_tricks.as_strided(np.zeros(3, dt), (1, 3), (0, dt.itemsize))
        assert getattr(xp, func)(x, axis=0, keepdims=True, out=out) is out
        assert np.array_equal(out, getattr(np, func)(x, axis=0, keepdims=True))
        strided = np.zeros(6, dt)[::2]
        assert getattr(xp, func)(x, axis=0, out=strided) is strided
        assert np.array_equal(strided, getattr(np, func)(x, axis=0))


@pytest.mark.parametrize("func", _FUNCS)
def test_a_read_only_out_is_named(func):
    """A read-only ``out`` was NumPy's refusal, named only by the function: "sum: output
    array is read-only" (``argmin``/``argmax``: "WRITEBACKIFCOPY base is read-only").
    It is the ``ValueError`` naming ``out``, as the elementwise functions' ``out=``,
    for every axis, ``keepdims`` and layout, and nothing is written."""
    x = np.arange(6.0).reshape(2, 3)
    dt = np.dtype(np.intp if func.startswith("arg") else x.dtype)
    for kwargs, shape in [({"axis": 0}, (3,)), ({}, ()), ({"axis": 1, "keepdims": True},
                                                           (2, 1))]:
        for out in (np.zeros(shape, dt), np.zeros(shape + (2,), dt)[..., 0]):
            out.flags.writeable = False
            with pytest.raises(ValueError, match=rf"^{func}: argument 'out' is read-only "
                                                 rf"\(shape {re.escape(str(shape))}, "
                                                 rf"dtype {dt}\)$"):
                getattr(xp, func)(x, out=out, **kwargs)
            assert not out.any()
    out = np.zeros(3, dt)   # writeable: taken
    assert getattr(xp, func)(x, axis=0, out=out) is out


@pytest.mark.parametrize("backend", ["numpy", "dask"])
@pytest.mark.parametrize("bad", [[1, 0, 2], (1, 2), range(3), 3, 2.5, True, None, "ab"],
                         ids=["list", "tuple", "range", "int", "float", "bool", "None", "str"])
def test_count_nonzero_refuses_what_is_no_array_as_the_reductions_do(backend, bad):
    """NumPy's count_nonzero counted a list as an array, None as 0 and a str as 1, and
    on the dask backend compat's made a dask array of a list, where ``sum`` (and, on
    dask, ``sort`` or ``nonzero``) refuse them; with or without keywords."""
    if backend == "dask":
        pytest.importorskip("dask.array")
    with xp.use_backend(backend):
        for kwargs in ({}, {"axis": 0}, {"keepdims": True}):
            with pytest.raises(TypeError, match=rf"^count_nonzero: argument 'x' got "
                                                rf"{type(bad).__name__} .*; expected an array "
                                                rf"of the {backend} backend \(xstride.asarray"):
                xp.count_nonzero(bad, **kwargs)
        assert int(xp.count_nonzero(xp.asarray([1, 0, 2]))) == 2
    assert int(xp.count_nonzero(np.float64(2.0))) == 1   # a NumPy scalar is NumPy's 0-D


def test_count_nonzero_of_every_element_is_numpy_s_scalar_whatever_the_axis():
    """On NumPy a count of every element is NumPy's scalar (``np.int64``), as NumPy's
    own ``count_nonzero`` and a count over all axes named one by one give it; compat's
    was a 0-D array for ``axis=None`` only. ``keepdims`` keeps the dimensions."""
    f = np.array([[1.0, 0.0], [2.0, np.nan]])
    for axis in (None, (0, 1), (-1, 0)):
        r = xp.count_nonzero(f, axis=axis)
        assert type(r) is np.int64 and r == 3, axis
    assert type(xp.count_nonzero(f[0], axis=0)) is np.int64
    assert type(xp.count_nonzero(np.float64(0.0))) is np.int64
    kept = xp.count_nonzero(f, keepdims=True)
    assert type(kept) is np.ndarray and kept.shape == (1, 1) and kept[0, 0] == 3
    masked = np.ma.masked_array(f, mask=[[False, False], [True, False]])
    assert type(xp.count_nonzero(masked)) is np.int64 and xp.count_nonzero(masked) == 2


@pytest.mark.parametrize("rule", ["default_sum_dtype", "moment_dtype"])
def test_the_public_dtype_rules_take_the_namespace_s_dtypes_and_name_others(rule):
    """``xp.reductions.default_sum_dtype(xp.int8)`` raised "type object 'numpy.int8' has
    no attribute 'kind'" (the namespace's dtypes are types on NumPy), and a datetime or
    str dtype came back as its sum's dtype."""
    fn = getattr(xp.reductions, rule)
    call = fn if rule == "default_sum_dtype" else (lambda dt: fn("var", dt, None))
    want = {"default_sum_dtype": {xp.int8: np.int64, xp.uint16: np.uint64, xp.bool: np.int64,
                                  xp.float16: np.float16, xp.complex64: np.complex64},
            "moment_dtype": {xp.int8: np.float64, xp.uint16: np.float64, xp.bool: np.float64,
                             xp.float16: np.float16, xp.complex64: np.float32}}[rule]
    for dt, out in want.items():
        assert call(dt) == np.dtype(out)
        assert call(np.dtype(dt)) == np.dtype(out)
        assert call(np.dtype(dt).name) == np.dtype(out)
    for bad in (None, "foo", 3, np.dtype("M8[s]"), np.dtype("U3"), np.dtype(object)):
        with pytest.raises(TypeError, match=rf"^{rule}: argument 'dt' got .*; expected a "
                                            r"bool or numeric dtype of the namespace$"):
            call(bad)


@pytest.mark.parametrize("rule", ["default_sum_dtype", "moment_dtype"])
@pytest.mark.parametrize("bad", [("i4", -1), ("f8", (2, "a")), {"names": ["a"]}])
def test_the_public_dtype_rules_name_what_numpy_dtype_refuses_with_value_error(rule, bad):
    """``numpy.dtype`` refuses some specs with ``ValueError`` ("invalid shape in
    fixed-type tuple"), which came through bare, naming neither the rule nor ``dt``."""
    fn = getattr(xp.reductions, rule)
    call = fn if rule == "default_sum_dtype" else (lambda dt: fn("var", dt, None))
    with pytest.raises(TypeError, match=rf"^{rule}: argument 'dt' got .*; expected a "
                                        r"bool or numeric dtype of the namespace$"):
        call(bad)


def test_an_out_that_overlaps_itself_is_refused_on_cupy(cupy_compat):
    """The CuPy backend hands a call with ``out=`` to CuPy's function (its kernels take
    no keywords): the ``out`` is checked first, as on NumPy, so a stride-0 ``out`` (CuPy
    wrote each result into its one element) is refused before the library's call, and
    a good one reaches it."""
    from tests.conftest import FakeCupyArray

    stride_tricks = np.lib.stride_tricks
    x = FakeCupyArray(np.arange(6.0).reshape(2, 3))
    for func in _FUNCS:
        dt = np.dtype(np.intp if func.startswith("arg") else np.float64)
        out = FakeCupyArray(stride_tricks.as_strided(np.zeros(3, dt), (3,), (0,)))
        n = len(cupy_compat.calls)
        with pytest.raises(ValueError, match=rf"^{func}: argument 'out' overlaps itself"):
            getattr(xp, func)(x, axis=0, out=out)
        assert len(cupy_compat.calls) == n, cupy_compat.calls[n:]
        with pytest.raises(ValueError, match=rf"^{func}: argument 'out' has shape \(2,\)"):
            getattr(xp, func)(x, axis=0, out=FakeCupyArray(np.zeros(2, dt)))
        getattr(xp, func)(x, axis=0, out=FakeCupyArray(np.zeros(3, dt)))
        assert cupy_compat.calls[-1][0] == func and "out" in cupy_compat.calls[-1][2]
