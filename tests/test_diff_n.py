"""``diff``'s ``n`` is checked alike on the NumPy and dask backends: an int (not a
bool) of at least 0, named in the error. NumPy's took ``n=True`` as one difference and
refused a float and a negative ``n`` with messages naming no argument ("'float' object
cannot be interpreted as an integer", "order must be non-negative but got -1"), dask's
took ``n=True`` too (found by a user probe of the manipulation functions)."""

from __future__ import annotations

import numpy as np
import pytest

import xstride as xp

from tests._two_backends import numpy_after  # noqa: F401 - an autouse fixture
from tests._two_backends import on_backend as _wrap


@pytest.mark.parametrize("backend", ["numpy", "dask"])
@pytest.mark.parametrize("n", [1.0, True, np.True_, "1", None])
def test_diff_refuses_an_n_of_no_int(backend, n):
    x = _wrap(backend, np.arange(12).reshape(3, 4))
    with xp.use_backend(backend):
        with pytest.raises(TypeError, match="diff: argument 'n' got .*; expected a "
                                            "non-negative int"):
            xp.diff(x, n=n)


@pytest.mark.parametrize("backend", ["numpy", "dask"])
def test_diff_refuses_a_negative_n(backend):
    x = _wrap(backend, np.arange(12).reshape(3, 4))
    with xp.use_backend(backend):
        with pytest.raises(ValueError, match="diff: argument 'n' is -1; the number of "
                                             "differences must be at least 0"):
            xp.diff(x, n=-1)


@pytest.mark.parametrize("backend", ["numpy", "dask"])
@pytest.mark.parametrize("n", [0, 1, 2, np.int64(3), 9])
def test_diff_takes_counts(backend, n):
    a = np.arange(12).reshape(3, 4) ** 2
    with xp.use_backend(backend):
        got = xp.diff(_wrap(backend, a), n=n)
    want = np.diff(a, n=int(n))
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_array_equal(xp.to_numpy(got), want)


@pytest.mark.parametrize("backend", ["numpy", "dask"])
@pytest.mark.parametrize("n", [0, 1, 2])
def test_diff_refuses_a_0d_x_for_every_n(backend, n):
    """NumPy's diff gave a 0-D ``x`` back for ``n=0`` (before it looked at ``x``'s
    dimensions) where the dask backend's refused it; for ``n >= 1`` both refused it."""
    x = _wrap(backend, np.asarray(3.5))
    with xp.use_backend(backend):
        with pytest.raises(ValueError, match=r"^diff: argument 'x' is 0-D; diff takes arrays "
                                             r"of at least one dimension$"):
            xp.diff(x, n=n)


def test_diff_of_a_list_is_refused_for_every_n():
    """NumPy's diff gave the list itself back for ``n=0`` (an array for ``n >= 1``); a
    list is now refused as on the other backends (test_bad_input_no_array.py)."""
    for n in (0, 1):
        with pytest.raises(TypeError, match="^diff: argument 'x' got list"):
            xp.diff([1, 2, 4], n=n)
    got = xp.diff(np.asarray([1, 2, 4]), n=0)
    assert isinstance(got, np.ndarray) and got.tolist() == [1, 2, 4]


@pytest.mark.parametrize("x", [None, "abc", 5, 2.5, {"a": 1}])
def test_diff_of_no_array_is_a_type_error_naming_x(x):
    """``np.asanyarray`` made a 0-D array of None, a str or a Python scalar, so diff said
    "argument 'x' is 0-D" of an argument that is no array at all."""
    with pytest.raises(TypeError, match=r"^diff: argument 'x' got .*; expected an array of "
                                        r"the numpy backend \(xstride\.asarray\(x\) makes one\)$"):
        xp.diff(x)


@pytest.mark.parametrize("backend", ["numpy", "dask"])
@pytest.mark.parametrize("x, n, ends", [
    (np.arange(5), 2**70, {}),
    (np.arange(5), 10**5, {}),
    (np.array([True, False, True]), 10**6, {}),
    (np.arange(12.0).reshape(3, 4), 10**6, {"prepend": np.zeros((3, 1)), "append": 0.0}),
    (np.arange(12.0).reshape(3, 4), 5, {"prepend": np.zeros((3, 1))}),   # the joined length
])
def test_diff_of_more_differences_than_elements_is_quick(backend, x, n, ends):
    """A new-user probe: ``diff(arange(5), n=2**70)`` never ended on NumPy (a step per
    difference) and ``n=10**5`` not in 300 s on dask (a graph layer per difference).
    Past the length along the axis (with the ends joined) the result is empty, of
    NumPy's dtype and shape."""
    want = np.diff(x, n=min(n, 20), **ends)
    with xp.use_backend(backend):
        got = xp.to_numpy(xp.diff(_wrap(backend, x), n=n, **{
            k: _wrap(backend, v) if isinstance(v, np.ndarray) else v for k, v in ends.items()}))
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("backend", ["numpy", "dask"])
def test_diff_of_an_empty_joined_axis_keeps_the_joined_dtype(backend):
    """A review of the cap on ``n``: a joined length of 0 capped ``n`` at 0, and the
    library's ``n=0`` returned ``x`` itself in its own dtype, the ends ignored."""
    x = _wrap(backend, np.zeros(0, np.int8))
    with xp.use_backend(backend):
        got = xp.diff(x, prepend=_wrap(backend, np.zeros(0)))
        alone = xp.diff(x)
    assert got.dtype == np.float64 and xp.to_numpy(got).shape == (0,)
    assert alone is not x and xp.to_numpy(alone).shape == (0,)


def test_diff_with_an_end_of_another_rank_keeps_numpys_error():
    """A review of the cap on ``n``: a list end of another rank was read along ``axis``
    (a bare ``IndexError``); the checks' own error stays."""
    x = np.arange(6).reshape(2, 3)
    for n in (1, 10**9):
        with pytest.raises(np.exceptions.AxisError, match="diff: argument 'axis' 1"):
            xp.diff(x, axis=1, n=n, prepend=[1, 2])
