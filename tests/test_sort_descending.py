"""``sort(descending=True)`` keeps equal elements in their order on the NumPy and dask
backends, as ``argsort(descending=True)`` does: the flip of an ascending sort reversed
them (``sort([0.0, -0.0], descending=True)`` gave ``[-0.0, 0.0]``)."""

from __future__ import annotations

import numpy as np
import pytest

import xstride as xp

X = np.array([[0.0, -0.0, 1.0, np.nan, -0.0, 0.0],
              [-0.0, 0.0, -0.0, 2.0, np.nan, np.inf]])


@pytest.mark.parametrize("backend", ["numpy", "dask"])
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_descending_sort_is_x_at_the_descending_argsort(backend, axis):
    if backend == "dask":
        pytest.importorskip("dask.array")
    with xp.use_backend(backend):
        a = xp.asarray(X)
        got = np.asarray(xp.to_numpy(xp.sort(a, axis=axis, descending=True)))
        order = np.asarray(xp.to_numpy(xp.argsort(a, axis=axis, descending=True)))
    want = np.take_along_axis(X, order, axis=axis)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))   # -0.0 where it was
    # and the values are descending, NaN first as NumPy's flipped sort puts them
    np.testing.assert_array_equal(got, np.flip(np.sort(X, axis=axis), axis=axis))


@pytest.mark.parametrize("backend", ["numpy", "dask"])
def test_signed_zeros_keep_their_order(backend):
    if backend == "dask":
        pytest.importorskip("dask.array")
    with xp.use_backend(backend):
        got = np.asarray(xp.to_numpy(xp.sort(xp.asarray([0.0, -0.0]), descending=True)))
    assert np.signbit(got).tolist() == [False, True]


@pytest.mark.parametrize("backend", ["numpy", "dask"])
@pytest.mark.parametrize("func", ["sort", "argsort"])
@pytest.mark.parametrize("kwargs", [{"kind": "quicksort"}, {"kind": "stable", "stable": False},
                                    {"kind": None}])
def test_numpy_s_kind_is_refused_naming_it(backend, func, kwargs):
    """NumPy's ``kind=`` is no argument of the standard: array-api-compat set ``kind``
    from ``stable`` over the caller's (``kind="quicksort"`` gave the stable sort, and
    ``kind`` with ``stable``, which NumPy refuses together, was taken). A ``TypeError``
    naming ``kind`` on NumPy; dask's sort takes no such keyword (Python's error)."""
    if backend == "dask":
        pytest.importorskip("dask.array")
    with xp.use_backend(backend):
        a = xp.asarray(X)
        match = (r"^" + func + r": argument 'kind' got .*; expected no kind \(NumPy's "
                 r"keyword\): the standard's stable= chooses" if backend == "numpy"
                 else r"unexpected keyword argument 'kind'")
        with pytest.raises(TypeError, match=match):
            getattr(xp, func)(a, **kwargs)


@pytest.mark.parametrize("chunks", [1, 2, 6])
def test_dask_descending_sort_of_unknown_length_keeps_equal_elements_in_order(chunks):
    """A length dask does not know (after boolean indexing): the sorted axis is joined
    into one block and sorted there (the flip of compat's ascending sort reversed the
    zeros: ``[0.0, -0.0]`` gave ``[-0.0, 0.0]`` while ``argsort`` gave ``[0, 1]``)."""
    pytest.importorskip("dask.array")
    x = np.array([0.0, -0.0, 3.0, -0.0, -0.0, 1.0])
    with xp.use_backend("dask", chunks=chunks):
        a = xp.asarray(x)
        w = a[a > -1]
        got = np.asarray(xp.to_numpy(xp.sort(w, descending=True)))
        order = np.asarray(xp.to_numpy(xp.argsort(w, descending=True)))
    np.testing.assert_array_equal(order, [2, 5, 0, 1, 3, 4])
    np.testing.assert_array_equal(np.signbit(got), np.signbit(x[order]))
    np.testing.assert_array_equal(got, x[order])
