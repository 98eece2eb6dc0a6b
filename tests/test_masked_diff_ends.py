"""``diff`` with ``prepend``/``append`` of ``numpy.ma`` masked arrays keeps the masks on
the NumPy backend, as on dask (NumPy's joined the ends by ``concatenate``, which
dropped the masks: differences of the data under them, unmasked)."""

import dask.array as da
import numpy as np
import pytest

import xstride as xp

X = np.ma.masked_array(np.array([[3.0, 5, 2, 7, 1], [0, 4, 4, 9, 2]]),
                       mask=[[0, 1, 0, 0, 0], [1, 0, 0, 0, 1]])
END = np.ma.masked_array([[1.0], [6.0]], mask=[[1], [0]])


def _dask(v):
    return da.from_array(v, chunks=2, asarray=False) if np.ndim(v) else v


@pytest.mark.parametrize("ends", [{"prepend": END}, {"append": END},
                                  {"prepend": X[:, :2], "append": END},
                                  {"prepend": END.data}, {"append": 4.0},
                                  {"prepend": X[:, :1], "append": 2}])
@pytest.mark.parametrize("n", [1, 2])
def test_diff_with_masked_ends_keeps_the_masks_as_on_dask(ends, n):
    got = xp.diff(X, axis=1, n=n, **ends)
    want = xp.diff(_dask(X), axis=1, n=n,
                   **{k: _dask(v) for k, v in ends.items()}).compute()
    assert isinstance(got, np.ma.MaskedArray) and got.dtype == want.dtype
    assert got.mask.tolist() == want.mask.tolist()
    assert got.filled(0).tolist() == want.filled(0).tolist()


def test_diff_of_plain_x_with_a_masked_end():
    got = xp.diff(X.data, axis=1, append=END)
    assert got.mask.tolist() == [[False] * 4 + [True], [False] * 5]
    assert got[1, 4] == 4.0


def test_diff_with_a_masked_scalar_end_on_numpy():
    got = xp.diff(X, axis=1, append=np.ma.masked)
    assert got.mask[:, -1].tolist() == [True, True]
    assert got.mask[:, :-1].tolist() == xp.diff(X, axis=1).mask.tolist()


@pytest.mark.parametrize("on_dask", [False, True])
def test_diff_with_a_masked_prepend_masks_its_differences(on_dask):
    x, end = (_dask(X), _dask(END)) if on_dask else (X, END)
    got = xp.diff(x, axis=1, prepend=end)
    got = got.compute() if on_dask else got
    # 3 - (masked 1), (masked 0) - 6: both masked; then X's own differences
    assert got.mask[:, 0].tolist() == [True, True]
    assert got.mask[:, 1:].tolist() == np.ma.getmaskarray(np.diff(X, axis=1)).tolist()


@pytest.mark.parametrize("where", ["prepend", "append"])
@pytest.mark.parametrize("x", [X, X.data])
def test_diff_with_a_masked_0d_dask_end_as_on_numpy(where, x):
    # a 0-D end of masked chunks: dask's diff made it an array like x's meta, its mask
    # dropped (the differences with it were values)
    end = np.ma.masked_array(10.0, mask=True)
    want = xp.diff(x, axis=1, **{where: end})
    got = xp.diff(da.from_array(x, chunks=2, asarray=False), axis=1,
                  **{where: da.from_array(end, asarray=False)}).compute()
    assert isinstance(got, np.ma.MaskedArray)
    assert got.mask.tolist() == np.ma.getmaskarray(want).tolist()
    assert got.filled(0).tolist() == want.filled(0).tolist()


def test_numpy_diff_with_plain_ends_builds_no_list_of_operands(monkeypatch):
    # the masked check's list and generator of (x, ends) cost diff(x, prepend=...) of
    # plain arrays 0.85 us of its ~7 us; plain operands are now told apart by isinstance
    from xstride._backends import numpy_masked

    def asked(arrays):
        raise AssertionError("masked_among asked of diff's operands")

    monkeypatch.setattr(numpy_masked, "masked_among", asked)
    x = np.arange(5.0)
    assert xp.diff(x, prepend=x[:1], append=2.0).tolist() == [0.0, 1, 1, 1, 1, -2]
    got = xp.diff(x, prepend=np.ma.masked)   # a masked end still keeps its mask
    assert got.mask.tolist() == [True] + [False] * 4
