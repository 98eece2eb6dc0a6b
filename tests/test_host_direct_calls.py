"""Small calls on the NumPy backend: the reductions, scans and ``asarray`` call NumPy's
ufunc ``reduce``/``accumulate`` and array methods themselves, without NumPy's Python
wrappers (xstride/_host/reductions.py ``around``, xstride/reductions.py's positional
calls, ``fill_checks._asarray_positional``). They must give what NumPy's functions
give -- values, dtype, shape, scalar or array -- and the errors of the checked calls."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import xstride as xp
from xstride._host import reductions as walks

DTYPES = ["bool", "int8", "uint8", "int32", "int64", "uint64", "float16", "float32",
          "float64", "complex64", ">f8", ">i4"]
UFUNC_NAMES = ["sum", "prod", "min", "max", "all", "any"]

# NaN, overflow: NumPy's warnings, the same from both
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")


def _same(got, want):
    assert type(got) is type(want)
    assert got.dtype == want.dtype and np.shape(got) == np.shape(want)
    np.testing.assert_array_equal(got, want)


def _want(name, x, **kw):
    if name in ("all", "any", "argmin", "argmax", "sum", "prod", "min", "max"):
        return getattr(np, name)(x, **kw)
    return getattr(np, {"cumulative_sum": "cumsum", "cumulative_prod": "cumprod"}[name])(
        x, **kw)


@st.composite
def small_arrays(draw):
    dtype = np.dtype(draw(st.sampled_from(DTYPES)))
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=5))
    x = draw(hnp.arrays(dtype, shape))   # NaN, inf and -0.0 among the floats
    if x.ndim and draw(st.booleans()):
        x = x[..., ::-1]   # a reversed view
    return x


@settings(max_examples=300, deadline=None)
@given(x=small_arrays(), data=st.data())
def test_reductions_equal_numpy(x, data):
    name = data.draw(st.sampled_from(UFUNC_NAMES))
    if name in ("min", "max") and x.dtype.kind == "c":
        return _same(getattr(xp, name)(x), _want(name, x))
    keepdims = data.draw(st.booleans())
    axis = data.draw(st.none() | (st.integers(-x.ndim, x.ndim - 1) if x.ndim else st.none()))
    _same(getattr(xp, name)(x), _want(name, x))
    _same(getattr(xp, name)(x, axis=axis, keepdims=keepdims),
          _want(name, x, axis=axis, keepdims=keepdims))
    if name in ("sum", "prod") and x.dtype.kind in "iub":
        _same(xp.sum(x, axis=axis, dtype=xp.int64) if name == "sum"
              else xp.prod(x, axis=axis, dtype=xp.int64),
              _want(name, x, axis=axis, dtype=np.int64))


@settings(max_examples=200, deadline=None)
@given(x=small_arrays(), data=st.data())
def test_argmin_argmax_equal_numpy(x, data):
    if x.dtype.kind == "c":
        return
    name = data.draw(st.sampled_from(["argmin", "argmax"]))
    _same(getattr(xp, name)(x), _want(name, x))
    if x.ndim:
        axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
        keepdims = data.draw(st.booleans())
        _same(getattr(xp, name)(x, axis=axis, keepdims=keepdims),
              _want(name, x, axis=axis, keepdims=keepdims))


@settings(max_examples=200, deadline=None)
@given(x=small_arrays(), data=st.data())
def test_scans_equal_numpy(x, data):
    name = data.draw(st.sampled_from(["cumulative_sum", "cumulative_prod"]))
    if x.ndim == 1:
        _same(getattr(xp, name)(x), _want(name, x, axis=0))
    if x.ndim:
        axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
        _same(getattr(xp, name)(x, axis=axis), _want(name, x, axis=axis))
        if x.dtype.kind in "iub":
            _same(getattr(xp, name)(x, axis=axis, dtype=xp.int64),
                  _want(name, x, axis=axis, dtype=np.int64))


@pytest.mark.parametrize("obj", [[1, 2, 3], [1.5, -0.0], [[True, False]], 3, 2.5, (1, 2j),
                                 np.arange(3.0), np.float32(1.5), [np.int8(3)], []])
def test_asarray_without_keywords_equals_numpy(obj):
    got, want = xp.asarray(obj), np.asarray(obj)
    assert type(got) is np.ndarray and got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)
    if isinstance(obj, np.ndarray):
        assert got is obj   # no copy where none is needed


def test_asarray_without_keywords_refuses_an_int_no_dtype_holds():
    with pytest.raises(OverflowError, match="asarray"):
        xp.asarray([1, 2**70])


@pytest.mark.parametrize("call, error, match", [
    (lambda: xp.max(np.zeros(0)), ValueError, "max"),
    (lambda: xp.min(np.zeros((2, 0)), axis=1), ValueError, "min"),
    (lambda: xp.argmax(np.zeros(0)), ValueError, "argmax"),
    (lambda: xp.argmin(np.zeros(3, dtype=np.complex64)), TypeError, "argmin"),
    (lambda: xp.argmax(np.zeros((2, 3)), axis=2), ValueError, "argmax"),
    (lambda: xp.argmax(np.zeros((2, 3)), axis=(0,)), TypeError, "argmax"),
    (lambda: xp.argmax(np.zeros((2, 3)), axis=True), TypeError, "argmax"),
    (lambda: xp.argmax(np.zeros((2, 3)), axis=0, keepdims=1), TypeError, "keepdims"),
    (lambda: xp.max(np.zeros((2, 3)), axis=0, keepdims="no"), TypeError, "keepdims"),
    (lambda: xp.sum(np.zeros(3), axis=0, keepdims=None), TypeError, "keepdims"),
    (lambda: xp.max(np.zeros((2, 3)), axis=-3), ValueError, "axis"),
    (lambda: xp.max([1.0, 2.0]), TypeError, "max"),
    (lambda: xp.argmax([1.0, 2.0]), TypeError, "argmax"),
    (lambda: xp.cumulative_sum([1.0, 2.0]), TypeError, "cumulative_sum"),
    (lambda: xp.cumulative_sum(np.zeros((2, 3))), ValueError, "cumulative_sum"),
    (lambda: xp.cumulative_sum(np.zeros(3), include_initial=1), TypeError,
     "include_initial"),
    (lambda: xp.max(np.array(["a", "b"])), TypeError, "max"),
    (lambda: xp.max(np.zeros(3), 0), TypeError, "positional"),
])
def test_small_calls_keep_the_checked_errors(call, error, match):
    with pytest.raises(error, match=match):
        call()


def _refusing_library():
    def refuse(*args, **kwargs):
        raise AssertionError("the library was called")
    return {name: refuse for name in UFUNC_NAMES + ["cumulative_sum", "cumulative_prod",
                                                    "argmin", "argmax"]}


@pytest.mark.parametrize("name", UFUNC_NAMES)
def test_plain_arrays_never_reach_the_library_wrapper(name):
    funcs = walks.around(_refusing_library())
    x = np.arange(1, 7).reshape(2, 3) % 2 == 1 if name in ("all", "any") else \
        np.arange(1.0, 7.0).reshape(2, 3)
    _same(funcs[name](x), _want(name, x))
    _same(funcs[name](x, axis=(1,), keepdims=True), _want(name, x, axis=1, keepdims=True))
    # what the direct call does not take goes to the library: other keywords, scalars,
    # subclasses
    for call in (lambda: funcs[name](x, axis=None, keepdims=False, where=True),
                 lambda: funcs[name](np.float64(2.0)),
                 lambda: funcs[name](np.ma.masked_array([1.0, 2.0]))):
        with pytest.raises(AssertionError, match="library"):
            call()


@pytest.mark.parametrize("name", ["cumulative_sum", "cumulative_prod", "argmin", "argmax"])
def test_plain_arrays_never_reach_the_library_wrapper_scans_and_args(name):
    funcs = walks.around(_refusing_library())
    x = np.arange(1.0, 7.0).reshape(2, 3)
    _same(funcs[name](x, axis=1), _want(name, x, axis=1))
    other = ({"axis": 1, "include_initial": True} if name.startswith("cumulative")
             else {"axis": 1, "out": np.empty(2, np.intp)})
    with pytest.raises(AssertionError, match="library"):
        funcs[name](x, **other)


@settings(max_examples=200, deadline=None)
@given(x=small_arrays(), data=st.data())
def test_var_std_equal_numpy(x, data):
    name = data.draw(st.sampled_from(["var", "std"]))
    correction = data.draw(st.sampled_from([0, 1, 0.5]))
    keepdims = data.draw(st.booleans())
    axis = data.draw(st.none() | (st.integers(-x.ndim, x.ndim - 1) if x.ndim else st.none()))
    _same(getattr(xp, name)(x), getattr(np, name)(x))
    _same(getattr(xp, name)(x, axis=axis, correction=correction, keepdims=keepdims),
          getattr(np, name)(x, axis=axis, ddof=correction, keepdims=keepdims))


@pytest.mark.parametrize("name", ["sum", "prod", "min", "max", "mean", "var", "std", "all",
                                  "any", "argmin", "argmax", "cumulative_sum",
                                  "cumulative_prod", "asarray"])
def test_a_call_without_x_names_the_function_not_its_fast_path(name):
    """The calls without keywords run a function of their own: Python's "missing
    argument" message names the namespace function (it named
    ``_library_functions.<locals>.unchecked_keywords.<locals>.impl``)."""
    arg = "obj" if name == "asarray" else "x"
    with pytest.raises(TypeError, match=rf"^{name}: {name}\(\) missing 1 required positional "
                                        rf"argument: '{arg}'$"):
        getattr(xp, name)()


@pytest.mark.filterwarnings("ignore:the matrix subclass:PendingDeprecationWarning")
@pytest.mark.parametrize("name", ["sum", "prod", "min", "max", "all", "any"])
def test_a_subclass_gets_only_the_keywords_given(name):
    """A review: the direct path's fallback passed ``axis=None, keepdims=False`` to the
    library for every call, and ``np.matrix.sum`` takes no ``keepdims``: ``xp.sum(m)``
    raised where NumPy's ``np.sum(m)`` answers."""
    m = np.matrix([[1.0, 2.0], [3.0, 4.0]])
    assert getattr(xp, name)(m) == getattr(np, name)(m)


@pytest.mark.filterwarnings("ignore:the matrix subclass:PendingDeprecationWarning")
@pytest.mark.parametrize("name", ["sum", "prod", "mean", "min", "max", "all", "any",
                                  "argmin", "argmax", "var", "std"])
@pytest.mark.parametrize("kw", [{"axis": None}, {"axis": 0}, {"axis": 1}, {"axis": -1}])
def test_a_subclass_with_an_axis_gets_what_numpy_gives(name, kw):
    """A probe: the keyword path passed ``keepdims=False`` on, which ``np.matrix``'s
    methods do not take (a ``TypeError`` naming a keyword never given), and NumPy's
    ``argmax`` then answered through its fallback with a row where the method gives a
    column. Now ``keepdims`` goes on only when True: the result is NumPy's own
    (``np.sum(m, axis=0)``), value, type and shape."""
    m = np.matrix([[1.0, 2.0], [4.0, 3.0]])
    # xstride normalizes the axis first (matrix.argmax itself refuses axis=-1)
    normal = {"axis": 1} if kw["axis"] == -1 else kw
    got, want = getattr(xp, name)(m, **kw), getattr(np, name)(m, **normal)
    assert type(got) is type(want) and np.shape(got) == np.shape(want)
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


def test_argmin_argmax_refuse_complex_with_an_axis_too():
    """A review: the keyword fast path's dtype test ("biuf") had no test of its own."""
    for name in ("argmin", "argmax"):
        for kw in ({"axis": 0}, {"axis": -1}, {"axis": 0, "keepdims": True}):
            with pytest.raises(TypeError, match=f"^{name}: argument 'x' got .*real-valued"):
                getattr(xp, name)(np.array([1 + 1j, 2]), **kw)
