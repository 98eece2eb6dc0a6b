"""The dispatch's shortcut for a repeat call of one or two device arrays of one exact
type (xstride/_backends/dispatch.py, ``follower``): after a call has taken the full path,
the next call of that arity on arrays of that type goes straight to the backend's
table, with the full path's results and errors. On the stand-in CuPy of conftest.py."""

from __future__ import annotations

import numpy as np
import pytest

import xstride as xp
from xstride._backends import dispatch

from tests.conftest import FakeCupyArray


@pytest.fixture
def lookups(monkeypatch):
    """How many times the full path looked for the arguments' backend."""
    count = [0]
    real = dispatch._backend_by_type

    def spy(*args, **kwargs):
        count[0] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(dispatch, "_backend_by_type", spy)
    return count


def _arrays(k=2):
    return [FakeCupyArray((3, 3), dtype=np.float64) for _ in range(k)]


def test_a_repeat_call_goes_straight_to_the_backends_table(cupy_compat, lookups):
    a, b = _arrays()
    assert xp.matmul(a, b) == "matmul"
    first = lookups[0]
    assert first >= 1
    for _ in range(3):
        assert xp.matmul(b, a) == "matmul"
    assert lookups[0] == first   # no further lookup
    assert [c[0] for c in cupy_compat.calls].count("matmul") == 4
    assert cupy_compat.calls[-1][1] == (b, a)


def test_the_table_is_read_on_every_call(cupy_compat, monkeypatch):
    a, b = _arrays()
    xp.matmul(a, b)
    xp.matmul(a, b)
    monkeypatch.setitem(dispatch._tables["cupy"], "matmul", lambda x1, x2: "replaced")
    assert xp.matmul(a, b) == "replaced"
    # a table replaced as a whole (as the fixtures do) is the one read
    monkeypatch.setitem(dispatch._tables, "cupy", {"matmul": lambda x1, x2: "new table"})
    assert xp.matmul(a, b) == "new table"


def test_other_calls_take_the_full_path(cupy_compat, lookups):
    a, b = _arrays()
    xp.matmul(a, b)
    xp.matmul(a, b)
    before = lookups[0]
    xp.matmul(a, b, **{})   # (no keywords: still the shortcut)
    assert lookups[0] == before
    xp.nonzero(a)   # another arity of another function: its own first call
    assert lookups[0] == before + 1
    with pytest.raises(TypeError, match="mix|backend"):
        xp.matmul(a, np.ones((3, 3)))   # mixed: the full path's error
    assert lookups[0] == before + 2


def test_too_many_arguments_are_refused_after_a_repeat(cupy_compat):
    (a,) = _arrays(1)
    xp.nonzero(a)
    xp.nonzero(a)
    with pytest.raises(TypeError) as full:
        xp.nonzero(a, a)
    with pytest.raises(TypeError) as again:
        xp.nonzero(a, a)
    assert str(full.value) == str(again.value) and "nonzero" in str(full.value)


def test_an_attribute_error_is_named_as_on_the_full_path(cupy_compat, monkeypatch):
    a, b = _arrays()

    def broken(x1, x2):
        raise AttributeError("'list' object has no attribute 'ndim'")

    monkeypatch.setitem(dispatch._tables["cupy"], "matmul", broken)
    with pytest.raises(Exception) as full:
        xp.matmul(a, b)
    with pytest.raises(Exception) as fast:
        xp.matmul(a, b)
    assert type(full.value) is type(fast.value) and str(full.value) == str(fast.value)


def test_an_array_and_a_python_scalar(cupy_compat, lookups):
    """An array and a Python scalar after it (``roll(x, 1)``, ``multiply(x, 2.0)``): the
    scalar names no backend, as on the full path; the next such call, of any scalar type
    or another array, goes straight to the table."""
    a, b = _arrays()
    assert xp.roll(a, 1) == "roll"
    first = lookups[0]
    for shift in (2, 3.5, True, b):
        assert xp.roll(a, shift) == "roll"
    assert lookups[0] == first
    assert cupy_compat.calls[-1][1] == (a, b)
    with pytest.raises(TypeError, match="mix|backend"):
        xp.roll(a, np.int64(1) * np.ones(1))   # a NumPy array: the full path's error
    assert lookups[0] == first + 1


@pytest.mark.parametrize("func", ["matmul", "take", "tensordot"])
def test_a_python_scalar_where_an_array_goes_is_refused_after_a_repeat(cupy_compat, func):
    """A review: after a call of two arrays took the full path, the shortcut took a
    Python scalar as the second argument too, past the check that refuses one where the
    standard has an array (``take(x, 1)``, ``matmul(x, 2.0)``)."""
    a, b = _arrays()
    getattr(xp, func)(a, b)
    getattr(xp, func)(a, b)   # the shortcut's call
    for value in (1, 2.0, [0, 1]):
        with pytest.raises(TypeError, match=rf"^{func}: argument '\w+' got "
                                            rf"{type(value).__name__} .*; expected an array "
                                            "of the cupy backend"):
            getattr(xp, func)(a, value)
