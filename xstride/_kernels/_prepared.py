"""Prepared calls: the one mechanism by which a CUDA executor repeats a call cheaply.

A checked call of an executor (elementwise, reductions, scans, Philox) runs the argument
checks, the dtype rules and the plan, and then launches. Afterwards the executor
*prepares* the call: it stores, under a key of every fact the plan read, a plain
callable that repeats the launch from the per-call inputs alone. The next call with
an equal key goes straight to it (the executor's ``repeat``), skipping the checks and
the plan. Three parts, shared by every executor:

- **the store** (:class:`Store`): one per executor, a bounded dict
  (:class:`~xstride._kernels._lru.Bounded`: one ``dict.get`` on a hit, the oldest
  entry dropped when full) from key to prepared call. :meth:`Store.prepare` stores a
  call and opens the gate.
- **the gate** (:data:`GATE`): the exact CuPy array type (``GATE.nd``; subclasses and
  other types never hit) and CuPy's current-device getter (``GATE.getdev``), both set
  when a call is first prepared, so that nothing is looked up in ``sys.modules`` on a
  repeat and the current device is part of every key (kernels and workspaces are per
  device). Closed (``nd`` None), every array fails the type test and ``getdev``
  answers -1, which no prepared key holds.
- **the key rules**: which argument *values* may enter a key. A key may only hold
  values that cannot compare equal to a value of another meaning (``1 == 1.0 ==
  True``): :func:`axis_ok`, :func:`dtype_ok`, :func:`flag_ok`, and
  :func:`args_ok` (all three at once, one call on a hot path). Python scalars whose
  value the prepared call converts again on each call are keyed by their type
  (:data:`PY_SCALARS`). An argument outside the rules takes the checked path, which
  accepts or refuses it as it would the first time.

The protocol of a prepared call: a plain callable (a bound method, a
``functools.partial``) that takes the executor's per-call inputs and returns the
result, or None when a per-call fact the key does not hold turns out different (a
fresh output's alignment, an overlap); the executor's ``repeat`` then returns None
and the checked path runs. A prepared call is stored only after its checked call
succeeded, so a call that raises is never prepared.
"""

from __future__ import annotations

import numpy as np

from ._lru import Bounded

__all__ = ["Store", "GATE", "PY_SCALARS", "DTYPE_TYPES", "axis_ok", "dtype_ok", "flag_ok",
           "args_ok"]


def _no_device() -> int:
    return -1


class _Gate:
    """The CuPy array type and current-device getter of the prepared calls."""

    __slots__ = ("nd", "getdev")

    def __init__(self):
        self.close()

    def open(self, cp) -> None:
        """Set from the CuPy module ``cp`` (its ``ndarray`` and
        ``cuda.runtime.getDevice``); the getter first, as ``nd`` opens the fast path."""
        self.getdev = cp.cuda.runtime.getDevice
        self.nd = cp.ndarray

    def close(self) -> None:
        """No array passes (tests; a store emptied for good)."""
        self.nd = None
        self.getdev = _no_device


#: The gate every executor's ``repeat`` reads (``GATE.nd``, ``GATE.getdev()``).
GATE = _Gate()


class Store(Bounded):
    """One executor's prepared calls: key -> prepared call (a plain callable).

    Parameters
    ----------
    maxsize : int
        Most calls held (the oldest dropped first).

    Notes
    -----
    Look up with ``get`` (a plain ``dict.get``); store with :meth:`prepare`.
    """

    __slots__ = ()

    def prepare(self, key, call, cp):
        """Store ``call`` under ``key`` and open :data:`GATE` from the CuPy module
        ``cp``; returns ``call``."""
        self.put(key, call)
        GATE.open(cp)
        return call


# ------------------------------------------------------------------ key rules
#: Python scalar types an argument may have and be keyed by its type alone (the
#: prepared call converts the value again on each call, so range errors still raise).
PY_SCALARS = frozenset((bool, int, float, complex))

#: Types that are safe ``dtype=`` keys by identity: NumPy's scalar types and Python's
#: number types, whose meaning as a dtype cannot change (any other class may carry a
#: ``dtype`` attribute that changes between calls).
DTYPE_TYPES = frozenset(t for t in np.sctypeDict.values() if isinstance(t, type)) | {
    bool, int, float, complex}


def axis_ok(axis) -> bool:
    """``axis`` may be keyed: None, an int (not a bool), or a tuple of such ints."""
    t = type(axis)
    return axis is None or t is int or (t is tuple and all(type(a) is int for a in axis))


def dtype_ok(dtype) -> bool:
    """``dtype=`` may be keyed: None, a NumPy dtype, a dtype string, or one of
    :data:`DTYPE_TYPES` (each names one dtype for good)."""
    return (dtype is None or isinstance(dtype, np.dtype) or type(dtype) is str
            or (type(dtype) is type and dtype in DTYPE_TYPES))


def flag_ok(flag) -> bool:
    """A flag (``keepdims``, ``include_initial``) may be keyed: True or False only
    (1 and ``numpy.bool_`` take the checked path)."""
    return flag is True or flag is False


def args_ok(axis, dtype, flag) -> bool:
    """``axis_ok(axis) and dtype_ok(dtype) and flag_ok(flag)`` in one call (the
    reductions' and scans' arguments; tests/test_prepared.py holds the two equal)."""
    if flag is not True and flag is not False:
        return False
    t = type(axis)
    if not (axis is None or t is int or (t is tuple and all(type(a) is int for a in axis))):
        return False
    return (dtype is None or isinstance(dtype, np.dtype) or type(dtype) is str
            or (type(dtype) is type and dtype in DTYPE_TYPES))
