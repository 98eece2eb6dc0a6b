"""``reshape``'s ``shape`` is checked alike on the NumPy and dask backends: NumPy took
any negative length as the unknown one (``(-2, 3)`` of six elements gave ``(2, 3)``,
``(-3,)`` the flat array) where the dask backend refused it (found by a user probe of
the manipulation functions); floats and bools are named as ``shape``."""

from __future__ import annotations

import numpy as np
import pytest

import xstride as xp

from tests._two_backends import numpy_after  # noqa: F401 - an autouse fixture
from tests._two_backends import on_backend as _wrap


@pytest.mark.parametrize("backend", ["numpy", "dask"])
@pytest.mark.parametrize("shape", [(-2, 3), (-3,), (2, -3), (-6,), -6, [-2, 3]])
def test_reshape_refuses_a_length_below_minus_one(backend, shape):
    x = _wrap(backend, np.arange(6.0))
    with xp.use_backend(backend):
        with pytest.raises(ValueError, match=r"reshape: argument 'shape' is \(.*\): a length "
                                             r"is negative \(only one length may be -1"):
            xp.reshape(x, shape)


@pytest.mark.parametrize("backend", ["numpy", "dask"])
@pytest.mark.parametrize("shape", [(2.0, 3), (True, 6), 6.0])
def test_reshape_names_a_length_of_no_int(backend, shape):
    x = _wrap(backend, np.arange(6.0))
    with xp.use_backend(backend):
        with pytest.raises(TypeError, match="reshape: argument 'shape' got .*; expected an int "
                                            "or a tuple of ints"):
            xp.reshape(x, shape)


@pytest.mark.parametrize("backend", ["numpy", "dask"])
@pytest.mark.parametrize("shape, match", [
    ((4,), r"is \(4,\), which does not hold the 6 elements of x's shape \(6,\)"),
    ((-1, 4), r"is \(-1, 4\), which does not hold the 6"),
    ((-1, -1), "only one length may be -1"),
    ([4], r"is \(4,\), which does not hold the 6"),
])
def test_reshape_names_a_shape_of_other_size(backend, shape, match):
    x = _wrap(backend, np.arange(6.0))
    with xp.use_backend(backend):
        with pytest.raises(ValueError, match=f"reshape: argument 'shape' .*{match}"):
            xp.reshape(x, shape)


@pytest.mark.parametrize("backend", ["numpy", "dask"])
@pytest.mark.parametrize("shape", [(2, -1), (-1,), (np.int64(3), 2), [3, 2], 6, (1, 6, 1)])
def test_reshape_still_takes_the_standard_s_shapes(backend, shape):
    a = np.arange(6.0)
    with xp.use_backend(backend):
        got = xp.reshape(_wrap(backend, a), shape)
    want = a.reshape(shape)
    assert got.shape == want.shape
    np.testing.assert_array_equal(xp.to_numpy(got), want)


def test_reshape_of_a_list_of_ints_goes_to_numpy_at_once(monkeypatch):
    """A list of int lengths takes the tuple's fast path (through the checks it added
    2 us a call, past the 0.5 us host-time target); the checks run only on NumPy's
    refusal."""
    from xstride._backends import reshape_checks

    def checked(x, shape):
        raise AssertionError("check_shape ran")

    monkeypatch.setattr(reshape_checks, "check_shape", checked)
    assert xp.reshape(np.arange(6.0), [2, -1]).shape == (2, 3)
    assert xp.reshape(np.arange(6.0), (2, -1)).shape == (2, 3)


def test_reshape_takes_a_1d_integer_array_as_a_shape_as_numpy():
    """NumPy's reshape takes one (the dask backend refuses a NumPy array beside a dask
    one, as every function does)."""
    a = np.arange(6.0)
    got = xp.reshape(a, np.array([2, 3]))
    assert got.shape == (2, 3)
    np.testing.assert_array_equal(got, a.reshape(2, 3))
    with pytest.raises(ValueError, match="a length is negative"):
        xp.reshape(a, np.array([-2, 3]))


# ``copy``: a bool or None, as ``astype``'s (NumPy took any value by its truth, dask any)
@pytest.mark.parametrize("backend", ["numpy", "dask"])
@pytest.mark.parametrize("copy", ["no", 1, 0, 1.0, [], "x"])
def test_reshape_refuses_a_copy_that_is_not_a_bool_or_none(backend, copy):
    x = _wrap(backend, np.arange(6.0))
    with xp.use_backend(backend):
        with pytest.raises(TypeError, match="reshape: argument 'copy' got .*; expected True, "
                                            "False or None"):
            xp.reshape(x, (2, 3), copy=copy)


@pytest.mark.parametrize("backend", ["numpy", "dask"])
@pytest.mark.parametrize("copy", [None, True, False, np.True_, np.False_])
def test_reshape_takes_python_and_numpy_bools_and_none(backend, copy):
    a = np.arange(6.0)
    x = _wrap(backend, a)
    with xp.use_backend(backend):
        got = xp.reshape(x, (2, 3), copy=copy)
    np.testing.assert_array_equal(xp.to_numpy(got), a.reshape(2, 3))
    if backend == "numpy":
        assert np.shares_memory(got, a) == (copy is None or not copy)


def test_reshape_copy_false_of_a_strided_view_still_raises_on_numpy():
    with pytest.raises(ValueError, match="reshape: Unable to avoid creating a copy"):
        xp.reshape(np.arange(6.0).reshape(2, 3).T, (6,), copy=np.False_)
