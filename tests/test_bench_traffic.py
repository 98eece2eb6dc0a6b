"""benchmarks/_traffic.py: the bytes of the 64-byte blocks a view touches, and the
traffic bound benchmarks/shapes.py prints from it."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"


@pytest.fixture(scope="module")
def mods():
    sys.path.insert(0, str(BENCH))
    try:
        import _traffic
        import shapes
        yield _traffic, shapes
    finally:
        sys.path.remove(str(BENCH))


def test_exact_blocks_of_small_views(mods):
    T, _ = mods
    # two elements 64 bytes apart at the end of their blocks: two blocks
    assert T.touched_bytes((2,), (64,), 4, address=60) == 128
    # one element across a block boundary counts both blocks
    assert T.touched_bytes((1,), (4,), 4, address=62) == 128
    # 16 contiguous float32 from an aligned address: one block; reversed: the same
    assert T.touched_bytes((16,), (4,), 4, address=0) == 64
    assert T.touched_bytes((16,), (-4,), 4, address=60) == 64
    # a row broadcast over many rows: its own block only
    assert T.touched_bytes((1000, 3), (0, 4), 4, address=0) == 64
    assert T.touched_bytes((0, 3), (12, 4), 4) == 0
    assert T.touched_bytes((), (), 8) == 64


@pytest.mark.parametrize("view, per_byte", [
    (lambda a: a, 1.0),
    (lambda a: a[::-1], 1.0),
    (lambda a: a[::3], 3.0),
    (lambda a: a.reshape(-1, 16)[:, :8], 2.0),
    (lambda a: a.reshape(-1, 4)[:, 1:], 4 / 3),
    (lambda a: a.reshape(-1, 3)[::2], 2.0),
    (lambda a: a.reshape(3, -1).T, 1.0),
])
def test_sampled_views_of_large_arrays(mods, view, per_byte):
    """Past the sample the estimate keeps the layout's ratio (to a block in 2**18
    elements), for the views of the sweep."""
    T, _ = mods
    base = np.zeros(3 * 2 ** 21, dtype=np.float32)   # 2**21 * 3 elements > SAMPLE
    v = view(base)
    got = T.array_bytes(v) / v.nbytes
    assert got == pytest.approx(per_byte, rel=1e-3), got


def test_bad_arguments_are_named(mods):
    T, _ = mods
    with pytest.raises(ValueError, match="differ in length"):
        T.touched_bytes((2, 3), (4,), 4)
    with pytest.raises(ValueError, match="at least 1"):
        T.touched_bytes((2,), (4,), 0)
    with pytest.raises(ValueError, match="negative extent"):
        T.touched_bytes((-1,), (4,), 4)


def test_summary_counts_cases_bounded_below_the_target(mods, capsys):
    _, S = mods
    dev = S.Device(np, gpu=False, copy_reps=1)
    big = 128 * S.MiB
    cases = [S.Case("views", "(3n,)[::3]", "float32", (3,), "[::3]", "sum"),
             S.Case("particles", "(n,3)", "float32", (3, 3), "", "sum", 0)]
    results = [S.Result(cases[0], t_ours=1.0, t_cupy=2.0, moved=big, frac=0.36, bound=0.33),
               S.Result(cases[1], t_ours=1.0, t_cupy=2.0, moved=big, frac=0.60, bound=1.0)]
    assert S.summarize(dev, results, 1.0) == 0
    out = capsys.readouterr().out.splitlines()
    assert ("below 0.85 of copy: 2 of 2 cases moving >= 64 MiB; 1 of them with a traffic "
            "bound below 0.85") in out
    assert any(line.startswith("lowest fraction of the traffic bound: 0.60 (sum(x, axis=0), "
                               "x=(n,3), float32, bound 1.00)") for line in out), out
    assert out[-1].startswith("lowest fraction of copy (cases moving >= 64 MiB): 0.36")


@pytest.mark.parametrize("shape, strides, exact", [
    ((2**20, 3), (0, 4), 64),             # a row broadcast over rows: its one block
    ((2**16, 64), (0, 4), 256),           # a 256-byte row broadcast
    ((4, 2**20), (0, 4), 2**22),          # a long row broadcast over 4 rows
])
def test_broadcast_axes_of_large_views_touch_no_other_block(mods, shape, strides, exact):
    """Past the sample, an axis of stride 0 (it sorts first) cut the walk and its length
    scaled the estimate: 768 bytes for a 12-byte row broadcast over 2**20 rows, where
    the row's one block is 64 (a review's finding)."""
    T, _ = mods
    assert T.touched_bytes(shape, strides, 4, address=0) == exact
