"""Lists (and tuples) of ints as the Philox functions' ``seed``, ``stream``, ``counter``
and ``philox4x32_10``'s words and keys: searched for arrays at C speed, and the same
numbers as the arrays they stand for."""

from __future__ import annotations

import numpy as np
import pytest

import xstride as xp
from xstride import rng
from xstride._backends import select


def test_a_long_list_of_ints_is_not_searched_item_by_item(monkeypatch):
    """``counter=list(range(10**6))`` took about 1.2 s, 30 times NumPy's conversion of
    the list: each int was offered to every backend as a possible array. A list of
    Python scalars (or of lists) holds no array, which the items' types tell at once."""
    calls = []
    real = select.backend_of_array

    def counting(a):
        calls.append(a)
        return real(a)

    monkeypatch.setattr(select, "backend_of_array", counting)
    n = 10_000
    got = rng.philox_uniform(1, 2, list(range(n)))
    assert len(calls) < 10
    np.testing.assert_array_equal(got, rng.philox_uniform(1, 2, np.arange(n)))
    words = [[i, 0, 7, 2**32 - 1] for i in range(n)]
    got = rng.philox4x32_10(words, [5] * n, 0)
    assert len(calls) < 20
    np.testing.assert_array_equal(got, rng.philox4x32_10(np.array(words), np.full(n, 5), 0))


@pytest.mark.parametrize("value", [[1, np.uint64(2)], [1, np.array(2)], (np.int8(1), 2)],
                         ids=repr)
def test_lists_of_other_integers_are_still_taken(value):
    """Items that are not all Python ints take the item-by-item path: a NumPy integer
    or a 0-d integer array is its value."""
    np.testing.assert_array_equal(xp.to_numpy(rng.philox_uniform(1, 2, value)),
                                  rng.philox_uniform(1, 2, np.array([1, 2])))


@pytest.mark.parametrize("value", [[1, True], [1, 2.0], [1, None], [[1, 2], [3]]], ids=repr)
def test_lists_of_other_items_are_still_refused(value):
    with pytest.raises(TypeError, match="^philox_uniform: argument 'counter' got "):
        rng.philox_uniform(1, 2, value)


@pytest.mark.parametrize("value", [[1, np.uint64(2)], (np.int64(1), np.uint8(2)),
                                   [np.uint64(1), 2]], ids=repr)
def test_numpy_scalars_in_a_list_take_the_active_backend(value):
    """Python ints, NumPy scalars and lists give the active backend's array
    (docs/rng.md); a NumPy scalar inside a list made a NumPy result under dask, where
    ``[1, 2]`` and a NumPy scalar alone gave a dask array."""
    da = pytest.importorskip("dask.array")
    want = rng.philox_uniform(1, 2, np.array([1, 2]))
    with xp.use_backend("dask", chunks=1):
        for got in (rng.philox_uniform(1, 2, value), rng.philox_normal2(value, 2, 3)[1],
                    rng.philox4x32_10([[v, 0, 0, 0] for v in value], value[:1], 0)):
            assert isinstance(got, da.Array)
        got = rng.philox_uniform(1, 2, value)
    np.testing.assert_array_equal(xp.to_numpy(got), want)
    with pytest.raises(TypeError, match=r"\(seed is numpy, counter\[1\] is dask\)"):
        rng.philox_uniform(np.zeros(2, np.uint64), 2, [value[0], da.zeros(2, dtype=np.uint64)])
