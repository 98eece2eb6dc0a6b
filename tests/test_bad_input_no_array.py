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


def test_what_numpy_takes_as_a_list_still_runs():
    """(The elementwise functions took one too, until they refused it on every backend:
    test_elementwise_list_operands.py.)"""
    assert xp.roll([1, 2], 1).tolist() == [2, 1]
    assert xp.matmul(M, [1.0, 0.0]).tolist() == [1.0, 3.0]
    assert xp.concat([np.zeros(1), [1.0]]).tolist() == [0.0, 1.0]


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
        fn([1.0], [2.0])
    monkeypatch.setitem(dispatch._positional, "linalg.outer", about_an_array)
    with pytest.raises(AttributeError, match="no_such_attribute"):
        fn(np.ones(1), np.ones(1))
