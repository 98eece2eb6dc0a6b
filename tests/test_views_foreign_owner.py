"""``as_strided`` of a NumPy array whose memory is known only through a strided owner
(imported by DLPack, a memoryview or an ``__array_interface__`` object): the bytes
between the owner's elements belong to other data, so a view must step on its elements.

A new-user probe: ``as_strided(from_dlpack(s['i']), (7,), (1,))`` of records
``[('i', 'i8'), ('o', 'O')]`` was accepted and writeable, read the object references
between the ints as numbers, and writing through it crashed the interpreter; without
objects, ``as_strided(from_dlpack(x[::2]), (9,), (1,))`` read the elements of ``x``
between the imported ones."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import xstride as xp


class _Interface:
    def __init__(self, a):
        self.__array_interface__ = a.__array_interface__
        self.base = a


def _imported(a, how):
    if how == "dlpack":
        return xp.from_dlpack(a)
    if how == "memoryview":
        return np.asarray(memoryview(a))
    return np.asarray(_Interface(a))


HOWS = ["dlpack", "memoryview", "interface"]


def _records():
    s = np.zeros(4, dtype=[("i", "i8"), ("o", "O")])
    s["i"] = [10, 11, 12, 13]
    s["o"] = [object() for _ in range(4)]
    return s


@pytest.mark.parametrize("how", HOWS)
def test_a_view_between_the_fields_of_records_with_objects_is_refused(how):
    s = _records()
    a = _imported(s["i"], how)
    with pytest.raises(ValueError, match=r"^as_strided: argument 'a' views memory known only "
                                         r"through a strided array .* reaches bytes between "
                                         r"its elements"):
        xp.as_strided(a, (7,), (1,))
    got = xp.as_strided(a, (2,), (4,), offset=2)   # whole fields: its own elements
    assert got.tolist() == [11, 13]


@pytest.mark.parametrize("how", HOWS)
@pytest.mark.parametrize("shape, strides, offset", [((9,), (1,), 0), ((2,), (3,), 0),
                                                    ((1,), (1,), 1)])
def test_a_view_reaching_between_imported_elements_is_refused(how, shape, strides, offset):
    x = np.arange(10)
    with pytest.raises(ValueError, match="reaches bytes between its elements"):
        xp.as_strided(_imported(x[::2], how), shape, strides, offset=offset)


@pytest.mark.parametrize("how", HOWS)
def test_views_on_the_imported_elements_are_taken(how):
    x = np.arange(10)
    a = _imported(x[::2], how)   # elements 16 bytes apart: 2 of a's 8-byte steps
    assert xp.as_strided(a, (5,), (2,)).tolist() == [0, 2, 4, 6, 8]
    assert xp.as_strided(a, (3,), (4,)).tolist() == [0, 4, 8]
    assert xp.as_strided(a, (2,), (-2,), offset=8).tolist() == [8, 6]
    y = np.arange(60).reshape(6, 10)
    b = _imported(y[:, ::2], how)   # rows of 5 whole steps: one progression
    assert xp.as_strided(b, (30,), (2,)).tolist() == y[:, ::2].ravel().tolist()


def test_padded_rows_take_their_own_views():
    """Rows with a gap after each (``y[::2]``) form no one progression: the view is
    checked against the rows and columns (a review: every view of such an owner, its
    identity too, was refused)."""
    y = np.arange(60).reshape(6, 10)
    b = xp.from_dlpack(y[::2])   # rows 160 bytes apart, 80 bytes each
    assert xp.as_strided(b, (3, 10), (20, 1)).tolist() == y[::2].tolist()
    assert xp.as_strided(b, (1,), (1,)).tolist() == [0]
    assert xp.as_strided(b, (3,), (19,), offset=2).tolist() == [2, 21, 40]   # a diagonal
    assert xp.as_strided(b, (3,), (21,), offset=7).tolist() == [7, 28, 49]
    for shape, strides, offset in [((11,), (1,), 0), ((2,), (1,), 9), ((3,), (10,), 0),
                                   ((2,), (20,), 10)]:
        with pytest.raises(ValueError, match="reaches bytes between its elements"):
            xp.as_strided(b, shape, strides, offset=offset)


def test_smaller_elements_of_an_imported_owner_step_inside_its_elements():
    a = xp.from_dlpack(np.arange(10)[::2].reshape(5, 1)).view(np.int32)   # (5, 2)
    assert xp.as_strided(a, (5, 2), (4, 1)).tolist() == a.tolist()
    assert xp.as_strided(a, (2,), (1,)).tolist() == a[0].tolist()
    with pytest.raises(ValueError, match="reaches bytes between its elements"):
        xp.as_strided(a, (3,), (1,))


def test_owners_without_gaps_keep_their_span():
    x = np.arange(8.0)
    broadcast = np.asarray(memoryview(np.broadcast_to(np.arange(1.0), (5,))))
    assert xp.as_strided(broadcast, (1,), (1,)).tolist() == [0.0]   # (a ZeroDivisionError)
    windows = np.lib.stride_tricks.sliding_window_view(x, 3)   # overlapping elements
    w = np.asarray(_Interface(windows))
    assert xp.as_strided(w, (8,), (1,)).tolist() == x.tolist()


def _reach_brute(owner_bytes, start, lay_shape, lay_bytes, itemsize):
    """Whether every byte the view reaches is one of the owner's element bytes."""
    for idx in np.ndindex(*lay_shape):
        at = start + sum(i * b for i, b in zip(idx, lay_bytes))
        if not all(at + j in owner_bytes for j in range(itemsize)):
            return False
    return True


def test_the_check_is_exact_against_brute_force():
    """Random strided owners imported through ``__array_interface__`` (gaps, reversed
    axes, padded rows) and random views: a view is taken exactly where every byte it
    reaches is a byte of one of the owner's elements."""
    rng = np.random.default_rng(7)
    base = np.arange(4096, dtype=np.int16)
    checked = {True: 0, False: 0}
    for _ in range(1500):
        ndim = int(rng.integers(1, 3))
        shape = tuple(int(v) for v in rng.integers(1, 5, ndim))
        steps = tuple(int(v) for v in rng.choice([-3, -2, -1, 1, 2, 3, 5], ndim))
        sl = tuple(slice(None, None, st) for st in steps)
        src = base.reshape(16, 256)[:, :] if ndim == 2 else base
        owner = src[sl][tuple(slice(0, n) for n in shape)]
        if owner.size < 2:
            continue
        a = np.asarray(_Interface(owner))
        lo_ptr = a.__array_interface__["data"][0] + sum(
            (n - 1) * st for n, st in zip(a.shape, a.strides) if st < 0)
        owner_bytes = set()
        for idx in np.ndindex(*a.shape):
            at = a.__array_interface__["data"][0] + sum(i * st for i, st in zip(idx, a.strides))
            owner_bytes.update(range(at, at + 2))
        vshape = tuple(int(v) for v in rng.integers(1, 4, int(rng.integers(1, 3))))
        if rng.random() < 0.5:   # anywhere
            vstrides = tuple(int(v) for v in rng.integers(-40, 40, len(vshape)))
            offset = int(rng.integers(-20, 40))
        else:   # steps of the owner's own (mostly on its elements)
            el = [st // 2 for st in a.strides]
            vstrides = tuple(int(sum(int(c) * e for c, e in zip(rng.integers(-2, 3, ndim), el)))
                             for _ in vshape)
            offset = int(sum(int(rng.integers(0, n)) * e for n, e in zip(a.shape, el)))
        start = a.__array_interface__["data"][0] + 2 * offset
        want = _reach_brute(owner_bytes, start, vshape, [2 * s for s in vstrides], 2)
        try:
            xp.as_strided(a, vshape, vstrides, offset=offset)
            got = True
        except ValueError:
            got = False
        assert got == want, (owner.shape, owner.strides, vshape, vstrides, offset, lo_ptr)
        checked[want] += 1
    assert checked[True] > 200 and checked[False] > 200, checked


def test_dense_imports_keep_their_range():
    x = np.arange(10)
    assert xp.as_strided(xp.from_dlpack(x[2:8]), (3,), (1,), offset=3).tolist() == [5, 6, 7]
    assert xp.as_strided(np.asarray(memoryview(x)), (5,), (2,)).tolist() == [0, 2, 4, 6, 8]


def test_the_write_that_crashed_is_refused_in_a_fresh_process():
    code = ("import numpy as np, xstride as xp\n"
            "s = np.zeros(4, dtype=[('i', 'i8'), ('o', 'O')])\n"
            "s['o'] = [object() for _ in range(4)]\n"
            "try:\n"
            "    v = xp.as_strided(xp.from_dlpack(s['i']), (7,), (1,))\n"
            "    xp.copy_into(v, np.arange(7)); print(s['o'])\n"
            "except ValueError as e:\n"
            "    print('refused')\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "refused", out
