"""Bad input of the standard's functions on the dask backend, and where the NumPy
backend took it: each raises the clear error the NumPy backend raises (or the standard
asks for), naming the function and the argument (found by a new-user probe)."""

from __future__ import annotations

import numpy as np
import pytest

da = pytest.importorskip("dask.array")

import xstride as xp  # noqa: E402


@pytest.fixture(autouse=True)
def _numpy_after():
    yield
    xp.set_backend("numpy")


def _d(a, chunks=2):
    return da.from_array(np.asarray(a), chunks=chunks)


# ------------------------------------------------------------------ searchsorted
@pytest.mark.parametrize("sorter, cls, match", [
    (np.array([1, 2]), ValueError, "has shape \\(2,\\); expected \\(3,\\)"),
    (np.array([1, 2, 0, 0]), ValueError, "has shape \\(4,\\)"),
    (np.array([[1, 2, 0]]), ValueError, "has shape \\(1, 3\\)"),
    (np.array([True, False, True]), TypeError, "integer dtype"),
    (np.array([1.0, 2.0, 0.0]), TypeError, "integer dtype"),
])
def test_searchsorted_checks_sorter_s_dtype_and_shape(sorter, cls, match):
    x1, x2 = _d([3.0, 1.0, 2.0]), _d([1.5, 2.5], 1)
    with pytest.raises(cls, match=f"searchsorted: argument 'sorter' .*{match}"):
        xp.searchsorted(x1, x2, sorter=_d(sorter))
    with pytest.raises(cls, match=f"searchsorted: argument 'sorter' .*{match}"):   # NumPy's
        xp.searchsorted(np.array([3.0, 1.0, 2.0]), np.array([1.5, 2.5]), sorter=sorter)


@pytest.mark.parametrize("sorter", [[1, 2, 3], [1, 2, -1], [1, 2, -4]])
def test_searchsorted_refuses_sorter_indices_out_of_range(sorter):
    x1, x2 = _d([3.0, 1.0, 2.0]), _d([1.5, 2.5], 1)
    got = xp.searchsorted(x1, x2, sorter=_d(sorter))     # values: checked when computed
    with pytest.raises(ValueError, match="searchsorted: argument 'sorter' holds the index "
                                         f"{sorter[-1]}, out of range for x1 of 3"):
        xp.to_numpy(got)
    with pytest.raises(ValueError, match="searchsorted: argument 'sorter' holds the index"):
        xp.searchsorted(x1, x2, sorter=sorter)            # a list: checked at the call
    with pytest.raises(ValueError, match="searchsorted: .*out of range"):
        xp.searchsorted(np.array([3.0, 1.0, 2.0]), np.array([1.5, 2.5]), sorter=np.array(sorter))


def test_searchsorted_with_a_good_sorter_still_answers():
    x1, x2 = _d([3.0, 1.0, 2.0]), _d([1.5, 2.5], 1)
    for s in ([1, 2, 0], np.array([1, 2, 0], np.uint8)):
        assert xp.to_numpy(xp.searchsorted(x1, x2, sorter=_d(s))).tolist() == [1, 2]
    assert xp.to_numpy(xp.searchsorted(x1, x2, sorter=[1, 2, 0])).tolist() == [1, 2]


# ------------------------------------------------------------------ flip
@pytest.mark.parametrize("axis, match", [((0, 0), "names axis 0 twice"),
                                         ((0, -2), "names axis 0 twice"),
                                         (5, "5 is out of range")])
def test_flip_refuses_a_repeated_axis_as_numpy_does(axis, match):
    a = np.arange(6).reshape(2, 3)
    with pytest.raises(ValueError, match=f"flip: argument 'axis' .*{match}"):
        xp.flip(_d(a), axis=axis)
    with pytest.raises(ValueError, match="flip: "):
        xp.flip(a, axis=axis)
    assert xp.to_numpy(xp.flip(_d(a), axis=(0, -1))).tolist() == np.flip(a, (0, 1)).tolist()
