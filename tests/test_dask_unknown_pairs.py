"""Elementwise namespace calls on dask arrays of lengths dask does not know, made by
different masks: dask pairs their blocks by position whatever their lengths, and a
block of 1 element broadcast over one of 3 gave a wrong answer of a wrong shape (a user
probe: ``xp.subtract(x[q > 0], x[q < 0])``). The call now checks the blocks' lengths
when computed; arrays of one selection, or of known lengths, compute as before."""

from __future__ import annotations

import numpy as np
import pytest

import xstride as xp

pytest.importorskip("dask.array")

Q = np.array([1.0, -1, 1, 1, -1, -1, 1, -1])
X = np.arange(8.0)


@pytest.fixture
def arrays():
    with xp.use_backend("dask", chunks=4):
        yield xp.asarray(Q), xp.asarray(X)


@pytest.mark.parametrize("call, first, second", [
    (lambda q, x: xp.subtract(x[q > 0], x[q < 0]), "x1", "x2"),
    (lambda q, x: xp.maximum(x[q < 0], x[q > 0]), "x1", "x2"),
    (lambda q, x: xp.where(q[q > 0] > 0, x[q > 0], x[q < 0]), "condition", "x2"),
    (lambda q, x: xp.add(x[x > 2], xp.sort(x[x > 2])), "x1", "x2"),
    (lambda q, x: xp.vecdot(x[q > 0], x[q < 0]), "x1", "x2"),
    (lambda q, x: xp.linalg.vecdot(x[q > 0], x[q < 0]), "x1", "x2"),
])
def test_blocks_paired_by_position_of_other_lengths_are_refused(arrays, call, first,
                                                                 second):
    q, x = arrays
    got = call(q, x)
    with pytest.raises(ValueError, match=rf"argument '{first}' and argument '{second}' have "
                                         r"lengths dask does not know .* paired their "
                                         r"blocks of \d+ and \d+ elements .*"
                                         r"compute_chunk_sizes\(\) on each first"):
        xp.to_numpy(got)


def test_one_selection_and_known_lengths_compute_as_numpy(arrays):
    q, x = arrays
    u = x[x > 2]
    np.testing.assert_array_equal(xp.to_numpy(xp.add(u, u * 2)), X[X > 2] * 3)
    np.testing.assert_array_equal(xp.to_numpy(xp.multiply(u, 2.0)), X[X > 2] * 2)
    assert float(xp.to_numpy(xp.vecdot(u, u * 2))) == float(X[X > 2] @ (X[X > 2] * 2))
    a, b = x[q > 0], x[q < 0]
    a.compute_chunk_sizes()
    b.compute_chunk_sizes()
    np.testing.assert_array_equal(xp.to_numpy(xp.subtract(a, b)), X[Q > 0] - X[Q < 0])
    rows = xp.reshape(x, (4, 2))
    sel = rows[rows[:, 0] > 1]
    np.testing.assert_array_equal(xp.to_numpy(xp.add(sel, sel[:, :1])),
                                  X.reshape(4, 2)[X.reshape(4, 2)[:, 0] > 1] * 1
                                  + X.reshape(4, 2)[X.reshape(4, 2)[:, 0] > 1][:, :1])


@pytest.mark.parametrize("args, arg", [((float("nan"),), "stop"), ((0, float("nan")), "stop"),
                                       ((0, 5, float("nan")), "step"),
                                       ((float("nan"), 5), "start")])
def test_arange_of_a_nan_length_says_to_compute_the_chunk_sizes(args, arg):
    """``xp.arange(u.shape[0])`` of a selection said "gives nan elements ... which
    overflows int64"; a nan argument is named, with what to do for a dask length."""
    for backend in ("numpy", "dask"):
        with xp.use_backend(backend):
            with pytest.raises(ValueError, match=rf"^arange: argument '{arg}' is nan, .*"
                                                 r"compute_chunk_sizes\(\) first"):
                xp.arange(*args)


@pytest.mark.parametrize("call", [
    lambda u: xp.zeros_like(u, chunks=2), lambda u: xp.ones_like(u, chunks=(5, 5)),
    lambda u: xp.empty_like(u, chunks="1 KiB"), lambda u: xp.full_like(u, 1.0, chunks=2),
])
def test_like_with_chunks_of_an_array_of_unknown_lengths_is_refused(arrays, call):
    """dask's ``*_like`` took the array's blocks and dropped ``chunks=`` in silence
    (``(5, 5)`` for 5 elements too)."""
    _, x = arrays
    u = x[x > 2]
    with pytest.raises(ValueError, match=r"argument 'chunks' cannot cut x of shape "
                                         r"\(nan,\).*compute_chunk_sizes\(\) first"):
        call(u)
    assert xp.to_numpy(xp.zeros_like(u)).tolist() == [0.0] * 5          # no chunks: taken
    assert xp.to_numpy(xp.zeros_like(u, shape=(4,), chunks=2)).shape == (4,)
