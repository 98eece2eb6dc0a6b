"""Integer settings of ``xstride.algorithms`` (``n_bins``, ``levels``, ``ndim``,
``key_bits``, a tree's ``level``) given as a 0-d dask array: a ``TypeError`` naming the
setting and saying to compute it first. ``operator.index`` of a dask array computes its
graph: the functions ran it inside the call, unasked (``bin_offsets(bins,
dask.array.from_array(numpy.array(5)))`` gave its offsets), while docs/segments.md says
a dask array among NumPy arrays is refused, and a float one was the ``TypeError``."""

from __future__ import annotations

import numpy as np
import pytest

import xstride as xp

da = pytest.importorskip("dask.array")

A = xp.algorithms


def lazy(v):
    return da.from_array(np.array(v))


KEYS = np.array([0, 1, 5], dtype=np.uint64)


@pytest.mark.parametrize("name, call", [
    ("n_bins", lambda: A.bin_offsets(np.array([0, 1, 1, 3]), lazy(5))),
    ("levels", lambda: A.morton_keys(np.zeros((1, 2)), [0, 0], [1, 1], lazy(2))),
    ("levels", lambda: A.morton_encode(np.array([1]), np.array([2]), levels=lazy(4))),
    ("ndim", lambda: A.morton_decode(KEYS, lazy(2))),
    ("ndim", lambda: A.morton_tree(KEYS, lazy(3), 2)),
    ("levels", lambda: A.morton_tree(KEYS, 3, lazy(2))),
    ("key_bits", lambda: A.sort_by_key(KEYS, key_bits=lazy(3))),
    ("level", lambda: A.morton_tree(KEYS, 3, 2).nodes(lazy(1))),
])
def test_a_dask_setting_is_refused_before_it_is_computed(name, call):
    with pytest.raises(TypeError, match=rf"argument '{name}' got dask\.Array\(shape=\(\), "
                                        r"dtype=int64\); expected .*; it is a dask array, "
                                        r"whose value is not computed: pass "
                                        r"int\(x\.compute\(\)\)$"):
        call()


def test_numpy_settings_still_count():
    bins = np.array([0, 1, 1, 3])
    want = np.array([0, 1, 3, 3, 4, 4])
    for n in (5, np.int32(5), np.array(5), np.array(5, dtype=np.uint8)):
        np.testing.assert_array_equal(A.bin_offsets(bins, n), want)
    assert A.morton_tree(KEYS, np.array(3), np.int64(2)).levels == 2
