"""morton_tree on the host: every level against a plain-Python reference (Hypothesis,
the bunny), the invariants of its docstring, bad input."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from xstride import algorithms as alg
from xstride.algorithms import MAX_MORTON_LEVELS


def reference(keys, ndim, levels):
    """Per level: (node keys, first, count, parent) by a dict walk over the keys."""
    keys = [int(k) for k in keys]
    out = []
    prev = None
    for level in range(levels + 1):
        shift = ndim * (levels - level)
        nodes, first, count = [], [], []
        for i, k in enumerate(keys):
            node = k >> shift
            if nodes and nodes[-1] == node:
                count[-1] += 1
            else:
                nodes.append(node)
                first.append(i)
                count.append(1)
        if prev is None:
            parent = [-1] * len(nodes)
        else:
            index = {key: j for j, key in enumerate(prev)}
            parent = [index[node >> ndim] for node in nodes]
        out.append((nodes, first, count, parent))
        prev = nodes
    return out


def assert_tree(tree, keys, ndim, levels):
    ref = reference(keys, ndim, levels)
    assert tree.ndim == ndim and tree.levels == levels and tree.n_points == len(keys)
    for arrays in (tree.keys, tree.first, tree.count, tree.parent):
        assert len(arrays) == levels + 1
    for level, (nodes, first, count, parent) in enumerate(ref):
        assert tree.keys[level].dtype == np.uint64
        for a in (tree.first[level], tree.count[level], tree.parent[level]):
            assert a.dtype == np.int64
        assert tree.keys[level].tolist() == nodes
        assert tree.first[level].tolist() == first
        assert tree.count[level].tolist() == count
        assert tree.parent[level].tolist() == parent
        assert tree.nodes(level) == len(nodes)


@pytest.mark.parametrize("ndim", [2, 3])
@pytest.mark.parametrize("levels", [1, 2, 5, 10])
def test_levels_equal_the_reference(ndim, levels):
    rng = np.random.default_rng(ndim * 100 + levels)
    keys = np.sort(rng.integers(0, 2 ** (ndim * levels), 3000, dtype=np.uint64))
    assert_tree(alg.morton_tree(keys, ndim, levels), keys, ndim, levels)


@settings(max_examples=80, deadline=None)
@given(ndim=st.sampled_from([2, 3]), data=st.data())
def test_random_keys_equal_the_reference(ndim, data):
    levels = data.draw(st.integers(1, MAX_MORTON_LEVELS[ndim]))
    top = 2 ** (ndim * levels) - 1
    keys = data.draw(st.lists(st.integers(0, top), max_size=200))
    dtype = data.draw(st.sampled_from([np.uint64, np.int64] if top < 2**63 else [np.uint64]))
    arr = np.array(sorted(keys), dtype=dtype)
    assert_tree(alg.morton_tree(arr, ndim, levels), sorted(keys), ndim, levels)


def test_the_docstring_example():
    t = alg.morton_tree(np.array([0, 1, 1, 5], dtype=np.uint64), 2, 2)
    assert [k.tolist() for k in t.keys] == [[0], [0, 1], [0, 1, 5]]
    assert [c.tolist() for c in t.count] == [[4], [3, 1], [1, 2, 1]]
    assert [p.tolist() for p in t.parent] == [[-1], [0, 0], [0, 0, 1]]


def test_bunny_tree_of_its_morton_keys(shared_dir):
    from xstride._cli.pointio import read_points

    pts = read_points(shared_dir / "data" / "bunny.ply")
    levels = 8
    keys = alg.morton_keys(pts, pts.min(axis=0), pts.max(axis=0), levels)
    sorted_keys = alg.sort_by_key(keys)[0]
    tree = alg.morton_tree(sorted_keys, 3, levels)
    assert_tree(tree, sorted_keys, 3, levels)
    # the invariants of the docstring
    for level in range(levels + 1):
        assert int(tree.count[level].sum()) == len(pts)
        assert (tree.count[level] >= 1).all() and (np.diff(tree.keys[level].astype(np.int64)) > 0).all()
        np.testing.assert_array_equal(tree.first[level] + tree.count[level],
                                      np.append(tree.first[level][1:], len(pts)))
        if level:
            assert (np.diff(tree.parent[level]) >= 0).all()
            assert np.array_equal(tree.keys[level - 1][tree.parent[level]],
                                  tree.keys[level] >> np.uint64(3))
    # the finest level: the voxels of the box at 2**8 cells per axis
    assert tree.nodes(levels) == len(np.unique(keys))


def test_empty_and_one_key():
    t = alg.morton_tree(np.zeros(0, dtype=np.uint64), 3, 4)
    assert t.n_points == 0 and all(t.nodes(level) == 0 for level in range(5))
    assert t.parent[0].dtype == np.int64 and t.keys[2].dtype == np.uint64
    t = alg.morton_tree([7], 3, 1)
    assert [k.tolist() for k in t.keys] == [[0], [7]]
    assert [c.tolist() for c in t.count] == [[1], [1]]


def test_widest_keys():
    keys = np.array([0, 2**63 - 1], dtype=np.uint64)
    t = alg.morton_tree(keys, 3, 21)
    assert t.keys[1].tolist() == [0, 7] and t.parent[21].tolist() == [0, 1]
    keys = np.array([0, 2**64 - 1], dtype=np.uint64)
    assert alg.morton_tree(keys, 2, 32).keys[1].tolist() == [0, 3]


def test_result_is_frozen():
    t = alg.morton_tree(np.arange(4, dtype=np.uint64), 2, 1)
    with pytest.raises(AttributeError):
        t.levels = 3


# --------------------------------------------------------------------- bad input
def test_unsorted_keys_name_the_first_descent():
    keys = np.array([0, 3, 3, 5, 4, 1], dtype=np.uint64)
    with pytest.raises(ValueError, match=r"'sorted_keys' is not sorted: sorted_keys\[4\] = 4 "
                                         r"< sorted_keys\[3\] = 5"):
        alg.morton_tree(keys, 2, 3)


def test_keys_wider_than_the_levels():
    with pytest.raises(ValueError, match="'sorted_keys' has key 64, wider than the 6 bits"):
        alg.morton_tree(np.array([1, 64], dtype=np.uint64), 2, 3)
    with pytest.raises(ValueError, match="'sorted_keys' has key 9223372036854775808"):
        alg.morton_tree(np.array([2**63], dtype=np.uint64), 3, 21)


def test_negative_keys():
    with pytest.raises(ValueError, match="'sorted_keys' has a negative key"):
        alg.morton_tree(np.array([-2, 1], dtype=np.int64), 2, 3)


@pytest.mark.parametrize("keys", [np.zeros(3), np.zeros(3, dtype=bool), ["a"], None])
def test_keys_not_integers(keys):
    with pytest.raises(TypeError, match="'sorted_keys'"):
        alg.morton_tree(keys, 2, 3)


def test_keys_not_1d():
    with pytest.raises(ValueError, match="'sorted_keys' must be 1-D"):
        alg.morton_tree(np.zeros((2, 2), dtype=np.uint64), 2, 3)


@pytest.mark.parametrize("ndim, levels, cls, match", [
    (4, 3, ValueError, "'ndim' must be 2 or 3"),
    (1, 3, ValueError, "'ndim' must be 2 or 3"),
    (2.0, 3, TypeError, "'ndim'"),
    (True, 3, TypeError, "'ndim'"),
    (3, 22, ValueError, "'levels' must be in 1..21"),
    (2, 0, ValueError, "'levels' must be in 1..32"),
    (3, 2.5, TypeError, "'levels'"),
])
def test_bad_ndim_and_levels(ndim, levels, cls, match):
    with pytest.raises(cls, match=match):
        alg.morton_tree(np.arange(3, dtype=np.uint64), ndim, levels)


def test_dask_keys_say_what_to_do():
    da = pytest.importorskip("dask.array")
    with pytest.raises(NotImplementedError, match="morton_tree: not available.*compute"):
        alg.morton_tree(da.arange(4, dtype=np.uint64, chunks=2), 2, 3)
    import xstride as xp

    with xp.use_backend("dask", chunk_backend="numpy"):   # a list is no array to compute
        with pytest.raises(NotImplementedError, match=r"morton_tree: not available on the "
                                                      r"dask backend; lists and tuples are taken as arrays of the active backend \(dask\): pass NumPy or CuPy arrays"):
            alg.morton_tree([0, 1, 9], 2, 3)


def test_dask_refusal_comes_before_the_conversion_of_a_list():
    """A list of keys while dask is active is refused as such, also where a per-axis
    chunks option does not fit its rank (it was that option's ValueError, naming
    ``asarray``), and dask keys of floats are refused as dask, not for their dtype."""
    da = pytest.importorskip("dask.array")
    import xstride as xp

    with xp.use_backend("dask", chunks=(2,)):
        with pytest.raises(NotImplementedError, match=r"morton_tree: not available on the "
                                                      r"dask backend; lists and tuples"):
            alg.morton_tree([[0, 1, 9]], 2, 3)
    with pytest.raises(NotImplementedError, match="morton_tree: not available.*compute"):
        alg.morton_tree(da.zeros(4, chunks=2), 2, 3)


@pytest.mark.parametrize("keys_shape, ndim, levels", [
    ((4,), 4, 3), ((4,), 1, 3), ((4,), True, 3), ((4,), 2.0, 3), ((4,), "2", 3),
    ((4,), 2, 99), ((4,), 3, 0), ((4,), 2, 1.5), ((2, 2), 2, 3), ((2, 2), 5, 3), ((), 2, 3),
])
def test_dask_keys_are_refused_before_ndim_and_levels(keys_shape, ndim, levels):
    """dask keys with a bad ``ndim`` or ``levels`` argument were told that argument's
    ``ValueError``/``TypeError``, and after fixing it that dask keys are not taken: the
    refusal of the backend is now the one error, as for ``voxel_downsample`` and the
    segment functions."""
    da = pytest.importorskip("dask.array")
    keys = da.zeros(keys_shape, dtype=np.uint64)
    with pytest.raises(NotImplementedError, match=r"^morton_tree: not available on the dask "
                                                  r"backend; compute the keys first"):
        alg.morton_tree(keys, ndim, levels)


@pytest.mark.parametrize("level, exc, match", [
    (-1, IndexError, r"level.*must be in 0\.\.3; got -1"),
    (4, IndexError, r"level.*must be in 0\.\.3; got 4"),
    (1.0, TypeError, "level"),
    (True, TypeError, "level"),
    ("2", TypeError, "level"),
])
def test_nodes_refuses_a_level_outside_the_tree(level, exc, match):
    tree = alg.morton_tree(np.array([0, 1, 9, 40], dtype=np.uint64), 2, 3)
    assert [tree.nodes(lv) for lv in range(4)] == [1, 2, 3, 4]
    assert tree.nodes(np.int64(3)) == 4
    with pytest.raises(exc, match=match):
        tree.nodes(level)
