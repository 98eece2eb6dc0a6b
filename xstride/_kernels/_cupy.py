"""CuPy as the CUDA executors reach it: the module the caller has already imported.

An executor only ever runs on CuPy arrays, so CuPy is in ``sys.modules`` by then;
nothing in ``xstride._kernels`` imports CuPy itself (DESIGN.md, "Layers").
"""

from __future__ import annotations

import sys
import weakref

import numpy as np

from .._core.errors import error

_FLOAT32 = np.dtype(np.float32)


def cupy():
    """The imported ``cupy`` module.

    Raises
    ------
    RuntimeError
        CuPy has not been imported (an executor was reached without CuPy arrays).
    """
    try:
        return sys.modules["cupy"]
    except KeyError:
        raise error(RuntimeError, "xstride._kernels", "CuPy is not imported; the CUDA executors "
                                    "run only on CuPy arrays (select the CuPy backend or pass "
                                    "CuPy arrays)") from None


_EMPTY = weakref.WeakKeyDictionary()   # CuPy module -> its empty(shape, dtype)


def empty_maker(cp):
    """``empty(shape, dtype)``: a new C-order ``cp.ndarray`` on the current device, what
    ``cp.ndarray(shape, dtype)`` makes, in less host time.

    CuPy 13 and later define ``cupy.ndarray`` as a Python subclass of the Cython
    ``_ndarray_base``, with a ``__new__`` and an ``__init__`` written in Python
    (``cupy/_core/_ndarray.py``); a bare instance from the base's ``__new__`` and the
    array's own ``_init(shape, dtype)`` allocate the same array without them (on the
    H200's host, 2026-12-02: 2.5-2.7 against 3.3-3.6 us a call; a repeat 1000-element
    ``xp.add`` 0.6-1.3 us faster). Where this CuPy lacks either step, or what they make
    differs from ``cp.ndarray(shape, dtype)`` (type, shape, strides, dtype, C order),
    the answer is ``cp.ndarray`` itself. One answer per CuPy module.
    """
    got = _EMPTY.get(cp)
    if got is None:
        got = _EMPTY[cp] = _direct_empty(cp) or cp.ndarray
    return got


def _direct_empty(cp):
    nd = cp.ndarray
    try:
        make, init = nd.__mro__[1].__new__, nd._init

        def empty(shape, dtype):
            x = make(nd)
            init(x, shape, dtype)
            return x

        probe, want = empty((2, 3), _FLOAT32), nd((2, 3), _FLOAT32)
        same = (type(probe) is nd and probe.shape == want.shape and probe.strides == want.strides
                and probe.dtype == want.dtype and bool(probe.flags.c_contiguous))
    except Exception:   # a CuPy without these internals: its public constructor
        return None
    return empty if same else None
