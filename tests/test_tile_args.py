"""``tile``'s ``repetitions`` is checked alike on the NumPy and dask backends
(``_backends/tile_checks.py``): NumPy and dask took a bool count and refused a float or
a negative count with messages of their own naming no argument (found by a user probe
of the manipulation functions)."""

from __future__ import annotations

import numpy as np
import pytest

import xstride as xp

from tests._two_backends import numpy_after  # noqa: F401 - an autouse fixture
from tests._two_backends import on_backend


def _wrap(backend, a):
    return on_backend(backend, a, chunks=1)


@pytest.mark.parametrize("backend", ["numpy", "dask"])
@pytest.mark.parametrize("reps", [(2.0, 1), (True, 2), (np.True_,), 1.5, ("2",), (None,)])
def test_tile_refuses_a_count_of_no_int(backend, reps):
    x = _wrap(backend, np.arange(6).reshape(2, 3))
    with xp.use_backend(backend):
        with pytest.raises(TypeError, match="tile: argument 'repetitions' got .*; expected a "
                                            "tuple of ints"):
            xp.tile(x, reps)


@pytest.mark.parametrize("backend", ["numpy", "dask"])
@pytest.mark.parametrize("reps", [(-1, 1), (2, -3), -1])
def test_tile_refuses_a_negative_count(backend, reps):
    x = _wrap(backend, np.arange(6).reshape(2, 3))
    with xp.use_backend(backend):
        with pytest.raises(ValueError, match=r"tile: argument 'repetitions' is \(.*\): a count "
                                             "is negative"):
            xp.tile(x, reps)


@pytest.mark.parametrize("backend", ["numpy", "dask"])
@pytest.mark.parametrize("reps", [(2, 1), (1, 2, 3), (0, 1), (), [2, 2], 3, (np.int64(2),)])
def test_tile_still_takes_counts(backend, reps):
    a = np.arange(6).reshape(2, 3)
    with xp.use_backend(backend):
        got = xp.tile(_wrap(backend, a), reps)
    want = np.tile(a, reps)
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_array_equal(xp.to_numpy(got), want)


@pytest.mark.parametrize("backend", ["numpy", "dask"])
@pytest.mark.parametrize("reps, total", [((2**62,), "9,223,372,036,854,775,808"),
                                         ((2**31, 2**31, 2), "18,446,744,073,709,551,616")])
def test_tile_past_an_array_size_names_the_counts(backend, reps, total):
    """A new-user probe: ``tile(x, (2**62,))`` was NumPy's "array is too big" and on
    dask a ``MemoryError`` with no message; the counts are named with the size."""
    x = _wrap(backend, np.arange(2))
    with xp.use_backend(backend):
        with pytest.raises(ValueError, match=rf"^tile: argument 'repetitions' is .*: the "
                                             rf"result would hold {total} elements"):
            xp.tile(x, reps)
    # no element: no size to refuse (NumPy's empty result; dask's own tile of an empty
    # array by 2**62 still builds the copies: a MemoryError)
    assert xp.tile(np.zeros(0), (2**62,)).shape == (0,)


def test_tile_of_a_tuple_of_ints_skips_the_check(monkeypatch):
    """The common call, a tuple of Python ints of at least 0, goes to the library at
    once (the check added 1.4 us a call, past the 0.5 us host-time target); a count the
    fast test does not take is still checked."""
    from xstride._backends import tile_checks

    def checked(repetitions):
        raise AssertionError("check_repetitions ran")

    monkeypatch.setattr(tile_checks, "check_repetitions", checked)
    assert xp.tile(np.arange(3), (2,)).shape == (6,)
    assert xp.tile(np.arange(3), (0, 2)).shape == (0, 6)
    with pytest.raises(AssertionError, match="check_repetitions ran"):
        xp.tile(np.arange(3), (-1,))


@pytest.mark.parametrize("repetitions", [(1, 2), (2,), 2, (3, 1, 2), (2, 3), (2, 1), ()])
def test_dask_tile_of_rows_selected_by_a_mask(repetitions):
    """dask's tile of an array whose lengths dask does not know (rows selected by a
    boolean mask) refused every count past the first axis: "Tried to concatenate
    arrays with unknown shape (nan, 3)", naming an option tile does not take."""
    da = pytest.importorskip("dask.array")
    a = np.arange(24.0).reshape(8, 3)
    x = da.from_array(a, chunks=(3, 2))
    y = x[x[:, 0] > 8]
    assert y.shape[0] != y.shape[0]   # NaN: not known
    got = xp.tile(y, repetitions)
    want = np.tile(a[3:], repetitions)
    h = xp.to_numpy(got)
    assert got.dtype == h.dtype == want.dtype
    np.testing.assert_array_equal(h, want)


@pytest.mark.parametrize("repetitions", [(0,), 0, (1, 0), (0, 2), (0, 0), (2, 0, 3),
                                         (0, 1, 1), (3, 0, 1)])
@pytest.mark.parametrize("one_d", [False, True])
def test_dask_tile_of_unknown_lengths_by_a_zero_count(repetitions, one_d):
    """A count of 0 leaves no element along its axis, whatever the length there: on an
    array of lengths dask does not know, dask's tile raised "Can not perform automatic
    rechunking with unknown (nan) chunk sizes"; the result is NumPy's (of 0 elements,
    its shape known where the count is 0)."""
    da = pytest.importorskip("dask.array")
    a = np.arange(24, dtype=np.int16).reshape(8, 3)
    x = da.from_array(a, chunks=(3, 2))
    y = x[x[:, 0] > 8]
    want = np.tile(a[3:], repetitions)
    if one_d:
        y, want = y[:, 0], np.tile(a[3:, 0], repetitions)
    got = xp.tile(y, repetitions)
    h = xp.to_numpy(got)
    assert got.dtype == h.dtype == want.dtype and h.shape == want.shape
    assert got.ndim == want.ndim and all(g == w for g, w in zip(got.shape, want.shape)
                                         if w == 0)
    np.testing.assert_array_equal(h, want)
