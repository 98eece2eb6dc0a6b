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


def test_an_owner_of_no_one_progression_takes_no_view():
    y = np.arange(60).reshape(6, 10)
    with pytest.raises(ValueError, match="reaches bytes between its elements"):
        xp.as_strided(xp.from_dlpack(y[::2, ::3]), (2, 2), (20, 3))


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
