"""``_kernels._cupy.empty_maker``: the fast constructor of a new C-order CuPy array, and
its fall-back to ``cupy.ndarray`` (checked with stand-in classes shaped like CuPy's:
a base with ``__new__`` and ``_init``, and a subclass whose ``__new__`` runs in Python)."""

from __future__ import annotations

import types

import numpy as np

from xstride._kernels._cupy import empty_maker


class _Flags:
    def __init__(self, c):
        self.c_contiguous = c


class _Base:
    made = 0

    def __new__(cls, *args, **kwargs):
        return object.__new__(cls)

    def _init(self, shape, dtype):
        _Base.made += 1
        self.shape, self.dtype = tuple(shape), np.dtype(dtype)
        self.strides = np.empty(self.shape, self.dtype).strides
        self.flags = _Flags(True)


class _Array(_Base):
    def __new__(cls, *args, **kwargs):     # as cupy.ndarray's, in Python
        x = super().__new__(cls)
        x._init(*args, **kwargs)
        return x


def test_direct_constructor_makes_what_the_class_makes():
    cp = types.ModuleType("stand_in_cupy")
    cp.ndarray = _Array
    empty = empty_maker(cp)
    assert empty is not _Array and empty_maker(cp) is empty      # one answer per module
    x = empty((4, 5), np.float64)
    y = _Array((4, 5), np.float64)
    assert type(x) is _Array
    assert (x.shape, x.strides, x.dtype) == (y.shape, y.strides, y.dtype)
    before = _Base.made
    empty((3,), np.int8)
    assert _Base.made == before + 1                                # allocated once


def test_falls_back_to_the_class():
    class NoInit:                                                  # no _init: the class
        def __init__(self, shape, dtype):
            self.shape = shape

    cp = types.ModuleType("stand_in_cupy")
    cp.ndarray = NoInit
    assert empty_maker(cp) is NoInit

    class Fortran(_Array):                                         # makes something else
        def _init(self, shape, dtype):
            super()._init(shape, dtype)
            self.flags = _Flags(len(self.shape) < 2)

    cp2 = types.ModuleType("stand_in_cupy")
    cp2.ndarray = Fortran
    assert empty_maker(cp2) is Fortran


def test_the_shared_stand_in_cupy_gets_its_class(fake_cupy):
    """The tests' stand-in array has no ``_init``: its class is the constructor."""
    assert empty_maker(fake_cupy) is fake_cupy.ndarray
