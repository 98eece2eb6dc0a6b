"""A list or a Python scalar where a namespace function reads an array's attributes: a
``TypeError`` naming the function and the argument, as ``cumulative_sum([1, 2])``'s,
not the library's bare ``AttributeError: 'list' object has no attribute 'ndim'`` (a
review: the dispatch's fast path let it through on the NumPy backend; on dask, a list
beside a dask array did too)."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import xstride as xp

V = [1.0, 2.0, 3.0]
M = [[1.0, 2.0], [3.0, 4.0]]


def _f(qualname):
    fn = xp
    for part in qualname.split("."):
        fn = getattr(fn, part)
    return fn


# (function, arguments with x an array, the argument replaced by a non-array)
CASES = [
    ("fft.fft", (V,), 0), ("fft.fft", (3.0,), 0), ("fft.ifft", (V,), 0),
    ("fft.rfft", (V,), 0), ("fft.fftn", (V,), 0), ("fft.fftshift", (V,), 0),
    ("fft.ifftshift", (3.0,), 0),
    ("linalg.cross", (V, V), 0), ("linalg.cross", (V, V), 1),
    ("linalg.outer", (V, V), 0), ("linalg.outer", (V, V), 1),
    ("linalg.tensordot", (M, M), 0), ("linalg.tensordot", (M, M), 1),
    ("linalg.matrix_rank", (M,), 0), ("linalg.pinv", (M,), 0),
    ("sort", ([2, 1],), 0), ("argsort", ([2, 1],), 0), ("argsort", (2.0,), 0),
    ("clip", ([1, 2],), 0), ("clip", (3.0,), 0),
]
_IDS = [f"{q}-{i}-{type(a[i]).__name__}" for q, a, i in CASES]


def _given(args, i, backend_asarray):
    """``args`` with every argument but the ``i``-th an array."""
    return tuple(a if j == i else backend_asarray(a) for j, a in enumerate(args))


def _expect(qualname, args, i, backend):
    params = [p for p in inspect.signature(_f(qualname)).parameters]
    func = qualname.rsplit(".", 1)[-1]
    return (rf"^{func}: argument '{params[i]}' got {type(args[i]).__name__} .*; expected "
            rf"an array of the {backend} backend")


@pytest.mark.parametrize("qualname, args, i", CASES, ids=_IDS)
def test_a_non_array_on_numpy_is_a_named_type_error(qualname, args, i):
    given = _given(args, i, np.asarray)
    with pytest.raises(TypeError, match=_expect(qualname, args, i, "numpy")):
        _f(qualname)(*given)
    _f(qualname)(*_given(args, None, np.atleast_1d))   # the same call on arrays runs


@pytest.mark.parametrize("qualname, args, i", [c for c in CASES if c[2] == 1]
                         + [("matmul", (M, [1.0, 2.0]), 1), ("linalg.solve", (M, [1.0, 2.0]), 1),
                            ("vecdot", (V, V), 1)],
                         ids=lambda v: v if isinstance(v, str) else "")
def test_a_non_array_beside_a_dask_array_is_a_named_type_error(qualname, args, i):
    """On dask a list first was named already (``test_dask_list_arguments.py``); one
    beside a dask array raised dask's AttributeError."""
    pytest.importorskip("dask.array")
    with xp.use_backend("dask"):
        given = _given(args, i, xp.asarray)
        with pytest.raises(TypeError, match=_expect(qualname, args, i, "dask")):
            _f(qualname)(*given)
        _f(qualname)(*_given(args, None, xp.asarray))


def _refused_calls():
    """(function, backend name) for every function whose first (or second) argument is
    an array alone (``names.ARRAY_FIRST``, ``ARRAY_FIRST_TWO``)."""
    from xstride._core.names import ARRAY_FIRST, ARRAY_FIRST_TWO
    return [(q, 0) for q in ARRAY_FIRST] + [(q, 1) for q in ARRAY_FIRST_TWO]


# the further arguments a call needs (a call that lacks one is Python's error first)
_MORE = {"reshape": ((2,),), "broadcast_to": ((2,),), "astype": (np.float64,),
         "full_like": (1.0,), "moveaxis": (0, 0), "permute_dims": ((0,),), "repeat": (1,),
         "roll": (1,), "tile": ((1,),), "matrix_power": (1,)}
for _name in ("isin", "searchsorted", "cross", "outer", "solve", "matmul", "tensordot",
              "vecdot", "take", "take_along_axis"):
    _MORE[_name] = lambda: (xp.ones((2, 2), dtype=xp.int64),)


@pytest.mark.parametrize("backend", ["numpy", "dask"])
@pytest.mark.parametrize("qualname, i", _refused_calls())
@pytest.mark.parametrize("value", [[1.0, 2.0], (1.0, 2.0), 2.0], ids=["list", "tuple", "float"])
def test_a_function_of_arrays_refuses_a_list_on_every_backend(qualname, i, value, backend):
    """NumPy's ``roll``, ``reshape``, ``matmul(m, list)``, ``tril``, ``unique_values``
    and more made an array of a list (a review and a new-user probe: ``tril([[1, 2],
    [3, 4]])`` said "has 0 dimension(s)"), where CuPy's and dask's refuse it: now a
    ``TypeError`` naming the argument on every backend, before the library is called."""
    if backend == "dask":
        pytest.importorskip("dask.array")
    with xp.use_backend(backend):
        more = _MORE.get(qualname.rsplit(".", 1)[-1], ())
        if callable(more):
            more = more()
        args = (xp.ones((2, 2)), value) if i == 1 else (value, *more)
        name = inspect.signature(_f(qualname)).parameters
        name = [p for p in name][i] if name else ("x", "x2")[i]
        name = "x" if name == "a" else name
        with pytest.raises(TypeError, match=rf"^{qualname.rsplit('.', 1)[-1]}: argument "
                                            rf"'{name}' got {type(value).__name__} .*; "
                                            rf"expected an array of the {backend} backend"):
            _f(qualname)(*args)


def test_the_same_calls_on_arrays_and_by_keyword_still_run():
    assert xp.roll(np.asarray([1, 2]), 1).tolist() == [2, 1]
    assert xp.matmul(np.asarray(M), np.asarray([1.0, 0.0])).tolist() == [1.0, 3.0]
    assert xp.take(np.arange(3), np.asarray([2]), axis=0).tolist() == [2]
    assert xp.sum(np.float64(2.0)) == 2.0   # a NumPy scalar is an array of NumPy's
    assert xp.sum(np.ma.array([1.0, 2.0], mask=[0, 1])) == 1.0
    # by keyword where the standard has it positional-only: Python's error, not a list's
    with pytest.raises(TypeError, match="positional-only"):
        xp.take(np.arange(3), indices=[0], axis=0)
    # NumPy's ndarray subclasses stay arrays (and take NumPy's fast path)
    assert xp.reshape(np.ma.array([1.0, 2.0], mask=[0, 1]), (2, 1)).shape == (2, 1)
    assert xp.sum(np.asmatrix(np.ones((2, 2)))) == 4.0
    # concat's arrays: a sequence, whose elements are not checked here
    assert xp.concat([np.zeros(1), np.ones(1)]).tolist() == [0.0, 1.0]


def test_the_library_s_own_attribute_error_passes_as_it_was(monkeypatch):
    """An AttributeError that names no argument (raised by hand, or about an array) is
    the library's: raised unchanged."""
    from xstride._backends import dispatch

    fn = xp.linalg.outer      # its wrapper made before the table entry is replaced

    def broken(*args, **kwargs):
        raise AttributeError("the library's own")

    def about_an_array(x1, x2, /):
        return x1.no_such_attribute

    monkeypatch.setitem(dispatch._positional, "linalg.outer", broken)
    with pytest.raises(AttributeError, match="the library's own"):
        fn(np.ones(1), np.ones(1))
    monkeypatch.setitem(dispatch._positional, "linalg.outer", about_an_array)
    with pytest.raises(AttributeError, match="no_such_attribute"):
        fn(np.ones(1), np.ones(1))
