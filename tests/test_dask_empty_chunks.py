"""Chunks of no element on the dask backend: every namespace call merges them away
from its dask arguments (``dask_fixes.without_empty_chunks``), since dask computes wrong
answers over them (docs/dask.md, "Chunks of no element")."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

da = pytest.importorskip("dask.array")

import xstride as xp  # noqa: E402


@pytest.fixture(autouse=True)
def _numpy_after():
    yield
    xp.set_backend("numpy")


def _selected():
    """The new user's array: a boolean selection whose chunk sizes were computed."""
    xp.set_backend("dask", chunks=4)
    x = xp.arange(9)
    y = x[(x < 3) | (x > 7)]
    y.compute_chunk_sizes()
    return y


def test_the_reported_calls_give_numpy_s_answers():
    y = _selected()
    assert y.chunks == ((3, 0, 1),)
    a = np.array([0, 1, 2, 8])
    assert xp.to_numpy(xp.flip(y)).tolist() == [8, 2, 1, 0]
    assert xp.to_numpy(xp.expand_dims(y, axis=0)).tolist() == [a.tolist()]
    one = da.from_array(np.array([5]), chunks=((1, 0),))
    assert xp.to_numpy(xp.add(one, 1)).tolist() == [6]
    assert xp.to_numpy(xp.where(xp.greater(one, 1), one, 0)).tolist() == [5]
    assert xp.to_numpy(xp.clip(one, 1, 9)).tolist() == [5]


_CALLS = {
    "flip": lambda v: xp.flip(v),
    "add": lambda v: xp.add(v, 1),
    "multiply": lambda v: xp.multiply(v, v),
    "where": lambda v: xp.where(xp.greater(v, 1), v, 0),
    "clip": lambda v: xp.clip(v, 1, 5),
    "mean": lambda v: xp.mean(xp.astype(v, xp.float64), axis=0),
    "std": lambda v: xp.std(xp.astype(v, xp.float64)),
    "var": lambda v: xp.var(xp.astype(v, xp.float64)),
    "expand_dims": lambda v: xp.expand_dims(v, axis=0),
    "reshape": lambda v: xp.reshape(v, (-1, 1)),
    "nonzero": lambda v: xp.nonzero(v)[0],
    "matmul": lambda v: xp.matmul(v, v),
    "unique_values": lambda v: xp.unique_values(v),
    "repeat": lambda v: xp.repeat(v, 2),
    "concat": lambda v: xp.concat([v, v]),
    "stack": lambda v: xp.stack((v, v)),
    "cumulative_sum": lambda v: xp.cumulative_sum(v),
    "sort": lambda v: xp.sort(v),
}


@pytest.mark.parametrize("data, chunks", [
    ([0, 1, 2, 8], ((3, 0, 1),)),
    ([5], ((1, 0),)),
    ([8], ((0, 0, 1),)),
    ([1, 2], ((2, 0, 0),)),
    ([3, 1, 2], ((0, 2, 0, 1),)),
])
@pytest.mark.parametrize("name", list(_CALLS))
def test_calls_over_chunks_of_no_element_match_numpy(name, data, chunks):
    a = np.array(data, dtype=np.int64)
    xp.set_backend("dask")
    x = da.from_array(a, chunks=chunks)
    got = xp.to_numpy(_CALLS[name](x))
    xp.set_backend("numpy")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = _CALLS[name](a)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want)


def test_the_merge_keeps_known_chunks_and_drops_only_empty_ones():
    from xstride._backends.dask_fixes import without_empty_chunks

    x = da.from_array(np.arange(12).reshape(3, 4), chunks=((2, 0, 1), (4,)))
    e = da.from_array(np.zeros((0, 2)), chunks=((0, 0), (2,)))
    plain = da.from_array(np.arange(4), chunks=2)
    args, kwargs = without_empty_chunks((x, [plain, e], 3), {"other": x})
    assert args[0].chunks == ((2, 1), (4,)) and kwargs["other"].chunks == ((2, 1), (4,))
    assert args[1][0] is plain                        # nothing to merge: the same array
    assert args[1][1].chunks == ((0,), (2,)) and args[2] == 3
    u = x[x[:, 0] > 0]                                # unknown chunk sizes stay as they are
    assert without_empty_chunks((u,), {})[0][0] is u
    with xp.use_backend("dask"):                      # asarray of a dask array merges too
        assert xp.asarray(x).chunks == ((2, 1), (4,))
