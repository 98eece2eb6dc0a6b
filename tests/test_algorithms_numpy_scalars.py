"""NumPy scalars, alone or in a list, given to ``morton_keys``, ``morton_encode``,
``morton_decode`` and ``sort_by_key``, count as Python scalars do: under dask the
result is a dask array (docs/dask.md: a list given to these becomes a dask array under
the option), as ``xp.rng``'s functions already gave. A new-user probe: ``list(arr)``
(NumPy scalars) gave a NumPy array computed at once, ``[3, 1, 2]`` a dask array."""

from __future__ import annotations

import numpy as np
import pytest

import xstride as xp

da = pytest.importorskip("dask.array")
alg = xp.algorithms


CALLS = {
    "sort_by_key": (lambda k: alg.sort_by_key(k)[0], list(np.array([3, 1, 2, 1]))),
    "sort_by_key values": (lambda v: alg.sort_by_key([3, 1, 2], v)[1],
                           [np.int64(1), 2, np.int8(3)]),
    "morton_encode": (lambda v: alg.morton_encode(v, v), [np.uint64(1), 2]),
    "morton_encode scalar": (lambda v: alg.morton_encode(v, v), np.int64(5)),
    "morton_decode": (lambda v: alg.morton_decode(v, 2), [np.uint64(53), 7]),
    "morton_keys": (lambda v: alg.morton_keys([v, v], [0, 0], [1, 1], 3),
                    [np.float64(0.25), 0.5]),
}


@pytest.mark.parametrize("case", sorted(CALLS))
def test_numpy_scalars_take_the_active_backend(case):
    call, value = CALLS[case]
    want = call(value)
    assert isinstance(want, np.ndarray)   # NumPy active: NumPy's
    with xp.use_backend("dask", chunks=2):
        got = call(value)
        assert isinstance(got, da.Array)
    np.testing.assert_array_equal(xp.to_numpy(got), want)


def test_numpy_arrays_still_take_numpy_under_dask():
    with xp.use_backend("dask"):
        got = alg.sort_by_key(np.array([3, 1, 2]))[0]
    assert isinstance(got, np.ndarray)
