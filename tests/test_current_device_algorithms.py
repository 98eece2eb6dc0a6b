"""The algorithms' arrays on another device than the current one, on the CPU with the
stand-in CuPy (as tests/test_current_device.py for the namespace's functions).

``sort_by_key``, the segment primitives (``run_length_encode``, ``segment_reduce``,
``reduce_by_key``, ``bin_offsets``, ``compact``), ``morton_keys``, ``morton_tree`` and
``voxel_downsample`` refuse an array of another device with a ``ValueError`` naming the
function, the argument and both devices, before anything is allocated or launched; the
same call with that device made current runs (its kernels played on the host by the
models of tests/test_radix_sort_model.py, tests/test_segments_launch.py and
tests/test_tree_launch.py, and compared with the NumPy backend); and after a call on
device 0 has filled the launch caches, arrays of device 1 over the same memory are
still refused (these executors keep no prepared call: every call takes the check).
"""

from __future__ import annotations

import sys
import types

import numpy as np
import pytest

from xstride import _backends
from xstride import algorithms as alg
from xstride._kernels import _compile
from xstride._kernels import morton as km
from xstride._kernels import segments as ks
from xstride._kernels import sort as ksort
from xstride._kernels import tree as kt
from xstride._kernels._segment_launch import LAUNCHES

from tests.conftest import FakeCupy, FakeCupyArray, installed_fake_cupy
from tests.test_current_device import launches, moved, on, refused  # noqa: F401 - a fixture
from tests.test_radix_sort_model import Device, EmuCupy
from tests.test_segments_launch import Played as SegmentsPlayed
from tests.test_tree_launch import Played as TreePlayed


class AlgorithmsCupy(EmuCupy):
    """The stand-in CuPy whose radix-sort kernels run the sort's models and whose other
    kernels are recorded in ``launches`` (a played log: segments, voxels or the tree)."""

    def RawModule(self, code=None, options=(), name_expressions=None, **kwargs):  # noqa: N802
        names = tuple(name_expressions or ())
        if names and all(n.startswith("xs_radix") for n in names):
            return EmuCupy.RawModule(self, code, options, name_expressions, **kwargs)
        return FakeCupy.RawModule(self, code, options, name_expressions, **kwargs)


def _clear():
    _compile.clear()
    for mod in (ksort, kt, km):
        mod._LAUNCHES.clear()
    LAUNCHES.clear()     # the segment executor's


@pytest.fixture
def cupy_on(monkeypatch, launches):
    """An :class:`AlgorithmsCupy` with the segment kernels played, empty caches."""
    monkeypatch.setattr(FakeCupyArray, "view",
                        lambda self, dtype: self._view(self.host.view(dtype)), raising=False)
    monkeypatch.setattr(FakeCupyArray, "__setitem__",
                        lambda self, i, v: self.host.__setitem__(i, v), raising=False)
    fake = AlgorithmsCupy(Device(0))
    fake.launches = SegmentsPlayed()
    _clear()
    with installed_fake_cupy(fake):
        yield fake
    _clear()


@pytest.fixture
def morton_on(cupy_on):
    """:func:`cupy_on` with the Morton kernels recorded only (their keys are not read
    here; the flag of a bad row starts all ones, so none is found)."""
    cupy_on.launches = []
    return cupy_on


@pytest.fixture
def tree_on(cupy_on):
    """:func:`cupy_on` with the tree's kernels played instead of the segments'."""
    cupy_on.launches = TreePlayed()
    return cupy_on


def rng_keys(n=300, seed=0, top=40):
    return np.sort(np.random.default_rng(seed).integers(0, top, size=n)).astype(np.int64)


# ----------------------------------------------------------------------------- sort_by_key
def test_sort_by_key_refuses_arrays_of_another_device(cupy_on, launches):
    keys = np.random.default_rng(1).integers(0, 1000, size=500)
    refused(cupy_on, launches, "sort_by_key", "keys",
            lambda: alg.sort_by_key(on(1, keys, np.int64), on(0, np.arange(500.0))))
    refused(cupy_on, launches, "sort_by_key", "values[1]",
            lambda: alg.sort_by_key(on(0, keys, np.int64), on(0, np.arange(500.0)),
                                    on(1, np.ones((500, 2)))))
    assert launches == []


def test_sort_by_key_runs_on_the_device_made_current(cupy_on, launches):
    cupy_on.current.device = 1
    keys = np.random.default_rng(2).integers(0, 1000, size=500)
    vals = np.random.default_rng(3).normal(size=(500, 3))
    sk, order, sv = alg.sort_by_key(on(1, keys, np.int64), on(1, vals))
    want = np.argsort(keys, kind="stable")
    np.testing.assert_array_equal(order.get(), want)
    np.testing.assert_array_equal(sk.get(), keys[want])
    np.testing.assert_array_equal(sv.get(), vals[want])
    assert sk.data.device_id == 1 and len(launches) >= 3


def test_sort_by_key_after_a_call_on_device_0_still_refuses_device_1(cupy_on, launches):
    keys = on(0, np.random.default_rng(4).integers(0, 1000, size=500), np.int64)
    for _ in range(2):
        alg.sort_by_key(keys)
    n = len(launches)
    assert n > 0 and len(ksort._LAUNCHES) > 0
    refused(cupy_on, launches, "sort_by_key", "keys", lambda: alg.sort_by_key(moved(keys, 1)))
    assert len(launches) == n


# ----------------------------------------------------------------------------- segments
def test_segment_functions_refuse_arrays_of_another_device(cupy_on, launches):
    keys, offs = rng_keys(), np.array([0, 3, 3, 10], np.int64)
    vals0, vals1 = on(0, np.arange(10.0)), on(1, np.arange(10.0))
    cases = [
        ("run_length_encode", "keys", lambda: alg.run_length_encode(on(1, keys, np.int64))),
        ("segment_reduce", "offsets",
         lambda: alg.segment_reduce(vals0, on(1, offs, np.int64), "max")),
        ("segment_reduce", "values", lambda: alg.segment_reduce(vals1, on(0, offs, np.int64))),
        ("reduce_by_key", "sorted_keys",
         lambda: alg.reduce_by_key(on(1, keys[:10], np.int64), vals0)),
        ("bin_offsets", "sorted_bins", lambda: alg.bin_offsets(on(1, keys, np.int64), 40)),
        ("compact", "arrays[1]",
         lambda: alg.compact(on(0, np.arange(10) % 3 == 0, bool), vals0, vals1)),
    ]
    for func, arg, call in cases:
        refused(cupy_on, launches, func, arg, call)
    assert launches == [] and cupy_on.launches == []


def test_segment_functions_run_on_the_device_made_current(cupy_on, launches):
    cupy_on.current.device = 1
    keys = rng_keys(seed=5)
    u, c = alg.run_length_encode(on(1, keys, np.int64))
    hu, hc = alg.run_length_encode(keys)
    np.testing.assert_array_equal(u.get(), hu)
    np.testing.assert_array_equal(c.get(), hc)
    offs = np.array([0, 3, 3, 10], np.int64)
    got = alg.segment_reduce(on(1, np.arange(10.0)), on(1, offs, np.int64), "max")
    np.testing.assert_array_equal(got.get(), alg.segment_reduce(np.arange(10.0), offs, "max"))
    assert u.data.device_id == got.data.device_id == 1
    assert len(launches) == len(cupy_on.launches) > 0


def test_segments_after_a_call_on_device_0_still_refuse_device_1(cupy_on, launches):
    keys = on(0, rng_keys(seed=6), np.int64)
    for _ in range(2):
        alg.run_length_encode(keys)
    n = len(launches)
    assert n > 0 and len(LAUNCHES) > 0
    refused(cupy_on, launches, "run_length_encode", "keys",
            lambda: alg.run_length_encode(moved(keys, 1)))
    assert len(launches) == n


# ----------------------------------------------------------------------------- Morton keys
POINTS = np.random.default_rng(7).random((200, 3))


def test_morton_keys_refuses_positions_of_another_device(morton_on, launches):
    refused(morton_on, launches, "morton_keys", "positions",
            lambda: alg.morton_keys(on(1, POINTS), [0, 0, 0], [1, 1, 1], 10))
    assert launches == []


def test_morton_keys_runs_on_the_device_made_current(morton_on, launches):
    morton_on.current.device = 1
    keys = alg.morton_keys(on(1, POINTS), [0, 0, 0], [1, 1, 1], 10)
    assert keys.shape == (200,) and keys.dtype == np.uint64 and keys.data.device_id == 1
    assert len(launches) == 1


def test_morton_keys_after_a_call_on_device_0_still_refuse_device_1(morton_on, launches):
    pos = on(0, POINTS)
    for _ in range(2):
        alg.morton_keys(pos, [0, 0, 0], [1, 1, 1], 10)
    assert len(launches) == 2 and len(km._LAUNCHES) == 1
    refused(morton_on, launches, "morton_keys", "positions",
            lambda: alg.morton_keys(moved(pos, 1), [0, 0, 0], [1, 1, 1], 10))
    assert len(launches) == 2


# ----------------------------------------------------------------------------- morton_tree
def tree_keys(seed=8):
    return np.sort(np.random.default_rng(seed).integers(0, 1 << 12, size=400)).astype(np.uint64)


def test_morton_tree_refuses_keys_of_another_device(tree_on, launches):
    refused(tree_on, launches, "morton_tree", "sorted_keys",
            lambda: alg.morton_tree(on(1, tree_keys(), np.uint64), 2, 6))
    assert launches == [] and tree_on.launches == []


def test_morton_tree_runs_on_the_device_made_current(tree_on, launches):
    tree_on.current.device = 1
    keys = tree_keys(9)
    got = alg.morton_tree(on(1, keys, np.uint64), 2, 6)
    want = alg.morton_tree(keys, 2, 6)
    for field in ("keys", "first", "count", "parent"):
        for g, w in zip(getattr(got, field), getattr(want, field)):
            np.testing.assert_array_equal(g.get(), w, err_msg=field)
    assert got.keys[0].data.device_id == 1 and len(launches) == 4


def test_morton_tree_after_a_call_on_device_0_still_refuses_device_1(tree_on, launches):
    keys = on(0, tree_keys(10), np.uint64)
    for _ in range(2):
        alg.morton_tree(keys, 2, 6)
    assert len(launches) == 8 and len(kt._LAUNCHES) > 0
    refused(tree_on, launches, "morton_tree", "sorted_keys",
            lambda: alg.morton_tree(moved(keys, 1), 2, 6))
    assert len(launches) == 8


# ----------------------------------------------------------------------------- voxels
@pytest.fixture
def voxels_on(cupy_on, monkeypatch):
    """:func:`cupy_on` with the few namespace functions ``voxel_downsample`` calls on
    the stand-in (whose module array_api_compat cannot wrap)."""
    be = _backends.of_array(FakeCupyArray(np.zeros(1)))
    ns = types.SimpleNamespace(
        astype=lambda a, dt, copy=True: a if a.dtype == dt else a.astype(dt),
        float32=np.float32, int64=np.int64,
        empty=lambda shape, dtype=None: sys.modules["cupy"].empty(shape, dtype))
    monkeypatch.setattr(be, "namespace", lambda: ns)
    return cupy_on


PTS = np.random.default_rng(11).normal(size=(300, 3)) * 4


def test_voxel_downsample_refuses_points_of_another_device(voxels_on, launches):
    refused(voxels_on, launches, "voxel_downsample", "points",
            lambda: alg.voxel_downsample(on(1, PTS), 1.5))
    assert launches == [] and voxels_on.launches == []


def test_voxel_downsample_runs_on_the_device_made_current(voxels_on, launches):
    voxels_on.current.device = 1
    centres, counts = alg.voxel_downsample(on(1, PTS), 1.5)
    want_c, want_n = alg.voxel_downsample(PTS, 1.5)
    np.testing.assert_allclose(centres.get(), want_c, rtol=1e-12)
    np.testing.assert_array_equal(counts.get(), want_n)
    names = {k.name.partition("<")[0] for k in launches}
    assert {"xs_vox_bounds", "xs_vox_keys"} <= names and any("radix" in n for n in names)


def test_voxel_downsample_after_a_call_on_device_0_still_refuses_device_1(voxels_on, launches):
    pts = on(0, PTS)
    alg.voxel_downsample(pts, 1.5)
    n = len(launches)
    assert n > 0
    refused(voxels_on, launches, "voxel_downsample", "points",
            lambda: alg.voxel_downsample(moved(pts, 1), 1.5))
    assert len(launches) == n


def test_morton_encode_and_decode_refuse_before_their_range_checks(morton_on, launches):
    """Their range checks read the arrays (min, max): the device is checked first."""
    cells = on(0, [1, 2, 3], np.uint32)
    refused(morton_on, launches, "morton_encode", "iy",
            lambda: alg.morton_encode(cells, on(1, [4, 5, 6], np.uint32)))
    refused(morton_on, launches, "morton_encode", "iz",
            lambda: alg.morton_encode(cells, cells, on(1, [0, 0, 1], np.uint32)))
    refused(morton_on, launches, "morton_decode", "keys",
            lambda: alg.morton_decode(on(1, [7, 8], np.uint64), 2))
    assert launches == []
