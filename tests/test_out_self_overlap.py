"""An ``out=`` that overlaps itself, given to an elementwise function the library runs
(``sqrt``, ``exp``, ``atan2``, ``round``, ``sign``, ...: not the engine's list).

Such functions passed ``out=`` to NumPy's ufunc, which took a writeable view that
reaches one element from two indices (``numpy.lib.stride_tricks.as_strided`` with a
stride 0) and wrote every result into that element: ``sqrt([1, 4, 9, 16], out=o)``
gave ``[4, 4, 4, 4]``. The engine's functions refused such an ``out`` with a
``ValueError`` naming it; every elementwise function that takes ``out=`` now does
(``xstride/_backends/out_overlap.py``, on the dispatch's path, so CuPy's calls take
the same check; ``tests/test_elementwise_gpu.py`` holds the device's case).
"""

from __future__ import annotations

import sys

import numpy as np
import pytest

import xstride as xp
from xstride._core.names import ELEMENTWISE
from xstride._core.ufuncs import numpy_ufunc_name

_strided = np.lib.stride_tricks.as_strided



def _args(name):
    nin = getattr(getattr(np, numpy_ufunc_name(name), None), "nin", 1)
    if name.startswith("bitwise"):   # floats elsewhere, in (0, 1): each one's domain
        x = np.arange(1, 7, dtype=np.int64).reshape(2, 3)
    else:
        x = np.linspace(0.1, 0.9, 6).reshape(2, 3)
        if name == "acosh":
            x = x + 1
    if name == "clip":
        return (x, 0.2, 0.8)
    return (x,) * nin


def _want(name, args):
    with np.errstate(all="ignore"):
        return np.asarray(getattr(xp, name)(*args))


def _takes_out(name) -> bool:
    args = _args(name)
    want = _want(name, args)
    try:
        getattr(xp, name)(*args, out=np.empty(want.shape, want.dtype))
    except TypeError as exc:   # no out= at all (ceil, floor, clip, real, ...)
        assert "out" in str(exc)
        return False
    return True


_TAKING_OUT = [n for n in ELEMENTWISE if _takes_out(n)]


def test_the_sweep_holds_the_functions_the_task_names():
    for name in ("sqrt", "exp", "round", "pow", "atan2", "remainder", "sign", "conj",
                 "isnan", "add", "abs"):
        assert name in _TAKING_OUT
    assert len(_TAKING_OUT) > 40


@pytest.fixture(params=["numpy only", "dask imported"])
def path(request, monkeypatch):
    """The dispatch wrapper's NumPy branch (no other backend's library imported: the
    call goes to NumPy's function without a look at its arguments) and its general
    branch (the one CuPy's calls take), where ``dask.array`` is imported."""
    assert "cupy" not in sys.modules or request.param == "dask imported"
    if request.param == "dask imported":
        import dask.array   # noqa: F401  (in sys.modules: every call looks at its arguments)
    else:
        monkeypatch.delitem(sys.modules, "dask.array", raising=False)
    return request.param


@pytest.mark.parametrize("name", _TAKING_OUT)
def test_an_out_that_overlaps_itself_is_refused(name, path):
    args = _args(name)
    want = _want(name, args)
    buf = np.zeros(3, want.dtype)
    for shape, strides in [((2, 3), (0, want.itemsize)), ((2, 3), (want.itemsize, 0))]:
        out = _strided(buf, shape, strides)
        assert out.flags.writeable
        with pytest.raises(ValueError, match=rf"^{name}: argument 'out' overlaps itself"):
            getattr(xp, name)(*args, out=out)
        assert not buf.any()


@pytest.mark.parametrize("name", _TAKING_OUT)
def test_outs_that_reach_each_element_once_are_taken(name, path):
    args = _args(name)
    want = _want(name, args)
    strided = np.zeros((2, 6), want.dtype)[:, ::2]         # neither C nor F, no overlap
    # (the values written into out: array_api_compat's sign returns out[()], a view)
    np.testing.assert_array_equal(getattr(xp, name)(*args, out=strided), want)
    np.testing.assert_array_equal(strided, want)
    one_row = _strided(np.zeros(3, want.dtype), (1, 3), (0, want.itemsize))   # stride 0, length 1
    row_args = tuple(a[:1] if isinstance(a, np.ndarray) else a for a in args)
    np.testing.assert_array_equal(getattr(xp, name)(*row_args, out=one_row), want[:1])
    np.testing.assert_array_equal(one_row, want[:1])


@pytest.mark.parametrize("name", [n for n in ELEMENTWISE if n not in _TAKING_OUT])
def test_a_function_that_takes_no_out_keeps_its_error(name, path):
    """``ceil``, ``clip``, ``real``, ...: their ``TypeError`` that they take no ``out``,
    not the overlap's ``ValueError`` (which would say an ``out`` were taken)."""
    out = _strided(np.zeros(3), (2, 3), (0, 8))
    with pytest.raises(TypeError, match=rf"^{name}: .*unexpected keyword argument 'out'"):
        getattr(xp, name)(*_args(name), out=out)


def test_a_tuple_out_is_checked_as_its_array():
    """NumPy's ufuncs take ``out=(o,)``: the array in it is checked too."""
    x = np.array([1.0, 4.0, 9.0, 16.0])
    o = _strided(np.zeros(1), (4,), (0,))
    with pytest.raises(ValueError, match=r"^sqrt: argument 'out' overlaps itself"):
        xp.sqrt(x, out=(o,))
    good = np.zeros(8)[::2]
    xp.sqrt(x, out=(good,))
    assert good.tolist() == [1.0, 2.0, 3.0, 4.0]


def test_what_is_no_array_keeps_the_librarys_error():
    with pytest.raises(TypeError, match=r"^sqrt: "):
        xp.sqrt(np.ones(3), out=[0.0, 0.0, 0.0])
