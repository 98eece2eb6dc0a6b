"""The CUDA executor of ``morton_tree`` on the stand-in CuPy, with its kernels played on
the host.

Each launch of ``tree.cu`` that the stand-in records is carried out here by a NumPy
model of the kernel (``MODELS``), written from the kernel's comment: the same
arguments, read and written through the same device addresses, tile by tile, with
the same start levels (from the highest differing bit), ranks, parents and flat
offsets. Against the composed NumPy path (itself checked against a plain-Python
reference in tests/test_morton_tree.py) this checks the index arithmetic of the
one-pass algorithm and the launcher (arguments in order, grids, the record read back,
the views of the flat buffers) without a GPU. Every test runs a second time with
``tree.cu`` itself compiled by g++ for the host in place of the models (``dev``'s
"source" case): the kernels' own index arithmetic, without the device's timing and
memory ordering, which tests/test_morton_tree_gpu.py checks on the device.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests._host_kernels import CXX, HostLaunches, build_dir, launch_table
from tests.test_segments_launch import mem
from tests.test_tree_nvrtc import PARAMS
from xstride import algorithms as alg
from xstride._core.dtypes import DTYPE_OF_C
from xstride._kernels import _compile
from xstride._kernels import tree as kt
from xstride._kernels._compile import source
from xstride.algorithms import MAX_MORTON_LEVELS

TILE = kt.TILE
INT_DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]


def keys_at(addr, dtype, n, stride):
    """The ``n`` keys ``addr[i * stride]`` (stride in elements, any sign) as Python ints."""
    dt = np.dtype(dtype)
    lo = min(0, (n - 1) * stride)
    span = abs((n - 1) * stride) + 1
    buf = mem(addr + lo * dt.itemsize, dt, span)
    return [int(buf[i * stride - lo]) for i in range(n)]


def key_type(name):
    return np.dtype(DTYPE_OF_C[name.partition("<")[2].rstrip(">")])


def start_level(a, b, ndim, levels):
    """xs_tree_start: the start level of key a after key b (as uint64 bit patterns)."""
    x = (a ^ b) & ((1 << 64) - 1)
    if x == 0:
        return levels + 1
    return max(0, levels - (x.bit_length() - 1) // ndim)


def bits64(v):
    return v & ((1 << 64) - 1)


def start_levels(keys, ndim, levels):
    return [0] + [start_level(bits64(keys[i]), bits64(keys[i - 1]), ndim, levels)
                  for i in range(1, len(keys))]


def m_count(name, grid, keys, stride, n, ndim, levels, n_tiles, counts, rec):
    assert grid == (n_tiles,) and n_tiles == -(-n // TILE)
    k = keys_at(keys, key_type(name), n, stride)
    c = np.array(start_levels(k, ndim, levels))
    cnt = mem(counts, np.int64, (levels + 1) * n_tiles)
    r = mem(rec, np.uint64, 3)
    for t in range(n_tiles):
        tile = c[t * TILE:(t + 1) * TILE]
        for level in range(levels + 1):
            cnt[level * n_tiles + t] = int((tile <= level).sum())
    r[1], r[2] = bits64(k[0]), bits64(k[-1])
    down = [i for i in range(1, n) if k[i] < k[i - 1]]
    if down:
        r[0] = min(int(r[0]), down[0])


def m_scan(name, grid, counts, n_tiles, rec):
    levels = grid[0] - 1
    cnt = mem(counts, np.int64, (levels + 1) * n_tiles)
    r = mem(rec, np.uint64, kt.REC_NODES + levels + 1)
    for level in range(levels + 1):
        row = cnt[level * n_tiles:(level + 1) * n_tiles]
        total = int(row.sum())
        row[:] = np.concatenate([[0], np.cumsum(row)[:-1]])
        r[kt.REC_NODES + level] = total


def m_build(name, grid, keys, stride, n, ndim, levels, n_tiles, offsets, rec, okeys, ofirst,
            oparent):
    assert grid == (n_tiles,)
    k = keys_at(keys, key_type(name), n, stride)
    c = start_levels(k, ndim, levels)
    nodes = [int(v) for v in mem(rec + 8 * kt.REC_NODES, np.uint64, levels + 1)]
    total = sum(nodes)
    off = mem(offsets, np.int64, (levels + 1) * n_tiles)
    ok, of, op = (mem(a, dt, total) for a, dt in ((okeys, np.uint64), (ofirst, np.int64),
                                                  (oparent, np.int64)))
    for t in range(n_tiles):
        idx = range(t * TILE, min(n, (t + 1) * TILE))
        lowest = min(c[i] for i in idx)
        prev = {i: 0 for i in idx}
        for level in range(lowest, levels + 1):
            at = sum(nodes[:level]) + int(off[level * n_tiles + t])
            up = int(off[(level - 1) * n_tiles + t]) if level else 0
            shift = ndim * (levels - level)
            rank = 0
            for i in idx:
                if c[i] <= level:
                    p = at + rank
                    ok[p] = 0 if shift >= 64 else bits64(k[i]) >> shift
                    of[p] = i
                    op[p] = -1 if level == 0 else up + prev[i] - (c[i] == level)
                prev[i] = rank
                rank += c[i] <= level


def m_counts(name, grid, first, total, n, count):
    f = mem(first, np.int64, total)
    out = mem(count, np.int64, total)
    for q in range(total):
        nxt = int(f[q + 1]) if q + 1 < total else 0
        out[q] = (nxt if nxt != 0 else n) - int(f[q])


MODELS = {"xs_tree_count": m_count, "xs_tree_scan": m_scan, "xs_tree_build": m_build,
          "xs_tree_counts": m_counts}


class Played(list):
    """The stand-in's launch log, playing each launch on its model as it comes, after
    checking the sizes of the packed arguments against the kernel's parameters."""

    def append(self, item):
        super().append(item)
        kernel, grid, block, args = item
        grid = grid if isinstance(grid, tuple) else (grid,)
        base = kernel.name.partition("<")[0]
        assert [np.asarray(a).dtype.itemsize for a in args] == \
            [4 if ch == "i" else 8 for ch in PARAMS[base]], base
        MODELS[base](kernel.name, grid, *[a.item() for a in args])


@pytest.fixture(scope="module")
def tree_source(tmp_path_factory):
    """tree.cu's kernels for every key dtype, built by g++ for the host (the stand-ins of
    tests/host_cuda/; skipped where g++ cannot build them)."""
    build = build_dir(tmp_path_factory, "tree_source")
    names = []
    for dtype in INT_DTYPES:
        names += [e for e in kt.kernel_family(dtype) if e not in names]
    return launch_table(build, "tree.cu", names)


@pytest.fixture(params=["model", "source"])
def dev(request, fake_cupy):
    """The stand-in CuPy whose launches run on the kernels' NumPy models, or on
    ``tree.cu`` itself compiled for the host (a block's threads as threads, each warp's
    lanes at a barrier of their own)."""
    if request.param == "model":
        fake_cupy.launches = Played()
    elif CXX is None:
        pytest.skip("g++ (C++20) is not on PATH")
    else:
        fake_cupy.launches = HostLaunches(request.getfixturevalue("tree_source"))
    _compile.clear()
    kt._LAUNCHES.clear()
    yield fake_cupy
    _compile.clear()
    kt._LAUNCHES.clear()


def names(fake):
    return [k.name.partition("<")[0] for k, *_ in fake.launches]


def assert_same_tree(got, want):
    assert (got.ndim, got.levels, got.n_points) == (want.ndim, want.levels, want.n_points)
    for field in ("keys", "first", "count", "parent"):
        g, w = getattr(got, field), getattr(want, field)
        assert len(g) == len(w) == want.levels + 1
        for level, (a, b) in enumerate(zip(g, w)):
            a = a.get()
            assert a.dtype == b.dtype and a.shape == b.shape, (field, level)
            np.testing.assert_array_equal(a, b, err_msg=f"{field}[{level}]")


def random_keys(rng, n, ndim, levels, dtype, mode, dup):
    """Sorted keys of at most ``ndim * levels`` bits that fit ``dtype``: uniform over the
    range, or clustered in a few narrow ranges (deep shared prefixes), with a fraction
    ``dup`` of repeats."""
    top = min((1 << (ndim * levels)) - 1, int(np.iinfo(dtype).max))
    if mode == "uniform":
        vals = [int(v) for v in rng.integers(0, top, size=n, endpoint=True, dtype=np.uint64)]
    else:
        centres = [int(v) for v in rng.integers(0, top, size=3, endpoint=True, dtype=np.uint64)]
        width = int(rng.integers(1, 1 << 12))
        vals = [min(top, centres[int(rng.integers(0, 3))] + int(rng.integers(0, width)))
                for _ in range(n)]
    vals.sort()
    for i in range(1, n):
        if rng.random() < dup:
            vals[i] = vals[i - 1]
    return np.array(vals, dtype=dtype)


SIZES = [0, 1, 2, 31, 33, TILE - 1, TILE, TILE + 1, 2 * TILE + 1]


def random_keys_case(dev, ndim, data):
    """One drawn case of sorted keys: the tree on ``dev`` equals the NumPy path's."""
    del dev.launches[:]   # the log of this example only
    levels = data.draw(st.integers(1, MAX_MORTON_LEVELS[ndim]), label="levels")
    fits = [d for d in INT_DTYPES if np.iinfo(d).max >= min(2 ** (ndim * levels) - 1, 2**30)]
    dtype = data.draw(st.sampled_from(fits), label="dtype")
    n = data.draw(st.one_of(st.sampled_from(SIZES), st.integers(0, 2 * TILE + 50)), label="n")
    mode = data.draw(st.sampled_from(["uniform", "clustered"]), label="mode")
    dup = data.draw(st.sampled_from([0.0, 0.3, 0.95, 1.0]), label="dup")
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="seed"))
    keys = random_keys(rng, n, ndim, levels, dtype, mode, dup)
    got = alg.morton_tree(dev.asarray(keys), ndim, levels)
    assert_same_tree(got, alg.morton_tree(keys, ndim, levels))
    assert names(dev) == ([] if n == 0 else
                          ["xs_tree_count", "xs_tree_scan", "xs_tree_build", "xs_tree_counts"])


# the models are cheap; tree.cu under g++ runs a host thread per device thread (about
# 1.5 s an example on a loaded 2-core runner), so its share of examples is smaller
@pytest.mark.parametrize("dev", ["model"], indirect=True)
@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ndim=st.sampled_from([2, 3]), data=st.data())
def test_random_keys_equal_the_numpy_path(dev, ndim, data):
    random_keys_case(dev, ndim, data)


@pytest.mark.parametrize("dev", ["source"], indirect=True)
@settings(max_examples=12, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ndim=st.sampled_from([2, 3]), data=st.data())
def test_random_keys_on_the_kernel_source(dev, ndim, data):
    random_keys_case(dev, ndim, data)


@pytest.mark.parametrize("ndim, levels", [(2, 32), (3, 21), (2, 1), (3, 1)])
def test_widest_and_shallowest_keys(dev, ndim, levels):
    top = (1 << (ndim * levels)) - 1
    keys = np.array([0, 0, 1, top // 3, top // 2, top - 1, top, top], dtype=np.uint64)
    assert_same_tree(alg.morton_tree(dev.asarray(keys), ndim, levels),
                     alg.morton_tree(keys, ndim, levels))


def test_all_equal_keys_and_one_key(dev):
    for keys in (np.full(3 * TILE + 5, 9, dtype=np.uint16), np.array([5], dtype=np.int8)):
        assert_same_tree(alg.morton_tree(dev.asarray(keys), 2, 3),
                         alg.morton_tree(keys, 2, 3))


def test_strided_and_reversed_keys_are_read_in_place(dev):
    rng = np.random.default_rng(5)
    base = np.sort(rng.integers(0, 1 << 30, size=3 * (2 * TILE + 9))).astype(np.int64)
    every_third = dev.asarray(base)[::3]                     # stride of 3 elements
    backwards = dev.asarray(base[::-1].copy())[::-1]         # stride of -1 element
    for view, want in ((every_third, base[::3]), (backwards, base)):
        assert view.strides[0] in (24, -8)
        allocated = len(dev.allocations)
        assert_same_tree(alg.morton_tree(view, 3, 10), alg.morton_tree(want, 3, 10))
        # the keys were read where they lie: no copy of them was made
        assert not [a for a in dev.allocations[allocated:] if a.shape == want.shape]


def test_levels_are_views_of_four_flat_buffers(dev):
    keys = np.array([0, 1, 1, 5, 9, 9, 14], dtype=np.uint64)
    allocated = len(dev.allocations)
    t = alg.morton_tree(dev.asarray(keys), 2, 2)
    flat = [a for a in dev.allocations[allocated:] if a.shape == (sum(t.nodes(l) for l in range(3)),)]
    assert len(flat) == 4
    for field, buf in zip(("keys", "first", "count", "parent"), flat):
        ptrs = [a.data.ptr for a in getattr(t, field)]
        assert ptrs[0] == buf.data.ptr and ptrs == sorted(ptrs), field


# --------------------------------------------------------------------- bad input
def test_unsorted_keys_name_the_first_descent_on_the_device(dev):
    keys = np.zeros(TILE + 100, dtype=np.uint64)
    keys[TILE + 7:] = 8
    keys[TILE + 40] = 3                      # in the second tile
    keys[TILE + 60] = 2                      # a later descent
    with pytest.raises(ValueError, match=rf"'sorted_keys' is not sorted: sorted_keys\[{TILE + 40}\]"
                                         rf" = 3 < sorted_keys\[{TILE + 39}\] = 8"):
        alg.morton_tree(dev.asarray(keys), 2, 3)
    assert names(dev) == ["xs_tree_count", "xs_tree_scan"]   # nothing built


def test_negative_and_wide_keys_on_the_device(dev):
    with pytest.raises(ValueError, match=r"'sorted_keys' has a negative key \(-2\)"):
        alg.morton_tree(dev.asarray(np.array([-2, 1], dtype=np.int8)), 2, 3)
    with pytest.raises(ValueError, match="'sorted_keys' has key 64, wider than the 6 bits"):
        alg.morton_tree(dev.asarray(np.array([1, 64], dtype=np.uint64)), 2, 3)
    with pytest.raises(ValueError, match="'sorted_keys' has key 9223372036854775808"):
        alg.morton_tree(dev.asarray(np.array([2**63], dtype=np.uint64)), 3, 21)
    assert "xs_tree_build" not in names(dev)


def test_the_tile_size_is_the_kernels():
    text = source("tree.cu")
    threads = int(re.search(r"#define XS_TREE_THREADS (\d+)", text).group(1))
    items = int(re.search(r"#define XS_TREE_ITEMS (\d+)", text).group(1))
    assert TILE == threads * items
    assert kt.REC_NODES == int(re.search(r"#define XS_TREE_REC_NODES (\d+)", text).group(1))
    # the warp-0 scan of the ballot counts takes a whole number per lane
    assert (items * threads // 32) % 32 == 0
