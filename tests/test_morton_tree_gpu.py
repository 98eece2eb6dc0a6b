"""morton_tree on CuPy (``tree.cu``): every field of every level equal to the NumPy
path bit for bit (Hypothesis over sizes around the tiles, duplicates, dtypes, levels up
to the widest keys), in memory poisoned beforehand; the device checks and their
messages; strided keys; and the cold start: a fresh process compiles one module of
tree.cu and none of CuPy's own kernels."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.test_tree_launch import INT_DTYPES, SIZES, TILE, assert_same_tree, random_keys
from xstride import algorithms as alg
from xstride._kernels import tree as kt
from xstride.algorithms import MAX_MORTON_LEVELS

pytestmark = pytest.mark.gpu
ROOT = Path(__file__).resolve().parents[1]


def poison(cp):
    """Fill pooled device memory with 0xFF so that an output entry the kernels forget
    to write shows up (the ``poisoned_pool`` fixture, once per Hypothesis example)."""
    junk = cp.full(1 << 24, 0xFF, dtype=cp.uint8)
    del junk


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ndim=st.sampled_from([2, 3]), data=st.data())
def test_random_keys_equal_the_numpy_path(cp, ndim, data):
    levels = data.draw(st.integers(1, MAX_MORTON_LEVELS[ndim]), label="levels")
    fits = [d for d in INT_DTYPES if np.iinfo(d).max >= min(2 ** (ndim * levels) - 1, 2**30)]
    dtype = data.draw(st.sampled_from(fits), label="dtype")
    n = data.draw(st.one_of(st.sampled_from(SIZES + [5 * TILE - 1, 40 * TILE + 3]),
                            st.integers(0, 6 * TILE)), label="n")
    mode = data.draw(st.sampled_from(["uniform", "clustered"]), label="mode")
    dup = data.draw(st.sampled_from([0.0, 0.3, 0.95, 1.0]), label="dup")
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="seed"))
    keys = random_keys(rng, n, ndim, levels, dtype, mode, dup)
    poison(cp)
    got = alg.morton_tree(cp.asarray(keys), ndim, levels)
    assert all(isinstance(a, cp.ndarray) for a in got.keys + got.first + got.count + got.parent)
    assert_same_tree(got, alg.morton_tree(keys, ndim, levels))


@pytest.mark.parametrize("dtype", INT_DTYPES)
def test_every_key_dtype(cp, dtype):
    rng = np.random.default_rng(7)
    top = min(2**30 - 1, int(np.iinfo(dtype).max))
    keys = np.sort(rng.integers(0, top, size=3 * TILE + 11, endpoint=True)).astype(dtype)
    poison(cp)
    assert_same_tree(alg.morton_tree(cp.asarray(keys), 3, 10), alg.morton_tree(keys, 3, 10))


@pytest.mark.parametrize("ndim, levels", [(3, 21), (2, 32), (3, 10)])
def test_more_than_1024_tiles_and_the_widest_keys(cp, ndim, levels):
    # 1100 tiles: the scan of the tile counts takes two rounds of its 1024 threads
    n = 1100 * TILE + 17
    rng = np.random.default_rng(levels)
    pts = rng.uniform(0, 1, size=(n, ndim))
    keys = alg.sort_by_key(alg.morton_keys(pts, [0] * ndim, [1] * ndim, levels))[0]
    keys[-5:] = (1 << (ndim * levels)) - 1          # the widest key, repeated
    poison(cp)
    assert_same_tree(alg.morton_tree(cp.asarray(keys), ndim, levels),
                     alg.morton_tree(keys, ndim, levels))


def test_empty_one_and_all_equal_keys(cp):
    for keys, ndim, levels in ((np.zeros(0, np.uint64), 3, 4), (np.array([7], np.int32), 3, 1),
                               (np.full(5 * TILE + 3, 12345, np.uint64), 2, 32),
                               (np.zeros(TILE + 1, np.int8), 3, 2)):
        got = alg.morton_tree(cp.asarray(keys), ndim, levels)
        assert_same_tree(got, alg.morton_tree(keys, ndim, levels))


def test_strided_and_reversed_keys(cp):
    rng = np.random.default_rng(9)
    base = np.sort(rng.integers(0, 1 << 30, size=3 * (4 * TILE + 9))).astype(np.int64)
    every_third = cp.asarray(base)[::3]
    backwards = cp.asarray(base[::-1].copy())[::-1]
    for view, want in ((every_third, base[::3]), (backwards, base)):
        assert_same_tree(alg.morton_tree(view, 3, 10), alg.morton_tree(want, 3, 10))


def test_levels_are_views_of_flat_buffers(cp):
    keys = cp.asarray(np.array([0, 1, 1, 5, 9, 9, 14], dtype=np.uint64))
    t = alg.morton_tree(keys, 2, 2)
    for field in ("keys", "first", "count", "parent"):
        arrays = getattr(t, field)
        assert arrays[1].data.ptr == arrays[0].data.ptr + 8 * t.nodes(0)
        assert arrays[2].data.ptr == arrays[1].data.ptr + 8 * t.nodes(1)


# --------------------------------------------------------------------- bad input
def test_unsorted_keys_name_the_first_descent(cp):
    keys = cp.arange(40 * TILE, dtype=cp.uint64)
    keys[30 * TILE + 5] = 3          # a later tile first, so the minimum must win
    keys[7 * TILE + 1] = 2
    keys[7 * TILE + 9] = 1
    with pytest.raises(ValueError, match=rf"'sorted_keys' is not sorted: sorted_keys"
                                         rf"\[{7 * TILE + 1}\] = 2 < sorted_keys"
                                         rf"\[{7 * TILE}\] = {7 * TILE}; sort them first"):
        alg.morton_tree(keys, 3, 10)
    with pytest.raises(ValueError, match=r"sorted_keys\[1\] = 0 < sorted_keys\[0\] = 1"):
        alg.morton_tree(cp.asarray([1, 0], dtype=cp.int16), 2, 3)


def test_negative_and_wide_keys(cp):
    with pytest.raises(ValueError, match=r"'sorted_keys' has a negative key \(-2\)"):
        alg.morton_tree(cp.asarray([-2, 1], dtype=cp.int64), 2, 3)
    with pytest.raises(ValueError, match=r"'sorted_keys' has a negative key \(-128\)"):
        alg.morton_tree(cp.asarray([-128, -1, 5], dtype=cp.int8), 2, 3)
    with pytest.raises(ValueError, match="'sorted_keys' has key 64, wider than the 6 bits"):
        alg.morton_tree(cp.asarray([1, 64], dtype=cp.uint64), 2, 3)
    with pytest.raises(ValueError, match="'sorted_keys' has key 9223372036854775808"):
        alg.morton_tree(cp.asarray([2**63], dtype=cp.uint64), 3, 21)
    with pytest.raises(ValueError, match="'sorted_keys' has key 40000, wider than the 15 bits"):
        alg.morton_tree(cp.asarray(np.arange(0, 40001, 8, dtype=np.uint16)), 3, 5)


# --------------------------------------------------------------------- cold start
SCRIPT = """
import json, numpy as np, cupy as cp, xstride as xp
from xstride import algorithms as alg
assert xp.cuda.watch_cupy_compiles()
keys = cp.asarray(np.sort(np.random.default_rng(1).integers(0, 2**30, 36000)).astype(np.uint64))
cp.cuda.runtime.deviceSynchronize()
before = len(xp.cuda.compiled_kernels())
tree = alg.morton_tree(keys, 3, 10)
cp.cuda.runtime.deviceSynchronize()
first = [[r.name, r.source, r.kind] for r in xp.cuda.compiled_kernels()[before:]]
before = len(xp.cuda.compiled_kernels())
alg.morton_tree(keys[1:], 3, 10)
cp.cuda.runtime.deviceSynchronize()
again = len(xp.cuda.compiled_kernels()) - before
print(json.dumps({"first": first, "again": again, "nodes": [tree.nodes(l) for l in range(11)]}))
"""


def test_a_fresh_process_compiles_the_kernels_of_tree_cu_and_no_cupy_kernel(tmp_path):
    env = {**os.environ, "CUPY_CACHE_DIR": str(tmp_path / "cupy"),
           "XSTRIDE_CACHE_DIR": str(tmp_path / "xstride")}
    proc = subprocess.run([sys.executable, "-c", SCRIPT], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    res = json.loads(proc.stdout.strip().splitlines()[-1])
    assert sorted(name for name, _, _ in res["first"]) == sorted(kt.kernel_family("uint64"))
    assert {(src, kind) for _, src, kind in res["first"]} == {("tree.cu", "xstride")}
    assert res["again"] == 0
    keys = np.sort(np.random.default_rng(1).integers(0, 2**30, 36000)).astype(np.uint64)
    host = alg.morton_tree(keys, 3, 10)
    assert res["nodes"] == [host.nodes(level) for level in range(11)]
