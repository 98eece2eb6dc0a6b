"""The ``OverflowError`` of an elementwise function (or ``where``) given a Python int
that its arrays' integer dtype cannot hold, or one past float64's range beside a
floating-point array, named (the dispatch asks on the way out of the library's
``OverflowError``: a valid call pays nothing)."""

from __future__ import annotations

import numpy as np

from .._core.errors import overflow_error
from .._core.names import ELEMENTWISE

__all__ = ["unheld_int_error"]

_ELEMENTWISE = frozenset(ELEMENTWISE)
#: the least int that ``float()`` refuses (it rounds to 2**1024)
_FLOAT_ROUNDS_PAST = 2**1024 - 2**970


def unheld_int_error(qualname: str, named, text: str = "") -> OverflowError | None:
    """The ``OverflowError`` of an elementwise function (or ``where``) for a Python int
    argument that the integer dtype of its arrays cannot hold: a weak scalar (NEP 50, the
    standard's "Type promotion rules"), it takes that dtype (NumPy's said "Python int too
    large to convert to C long" past 64 bits, naming no argument, dtype or range); or,
    ``text`` being NumPy's "int too large to convert to float", one past float64's range
    beside a floating-point array. None for any other function or cause: the library's
    error, named, is raised as it was."""
    if qualname not in _ELEMENTWISE and qualname != "where":
        return None
    named = list(named)
    if "int too large to convert to float" in text:
        for name, v in named:
            if type(v) is int and abs(v) >= _FLOAT_ROUNDS_PAST:
                return overflow_error(qualname, name, f"is the Python int {_shown(v)}, past "
                                      "the range of float64 (about 1.8e308), through which "
                                      "NumPy converts it beside a floating-point array")
    kinds = [getattr(getattr(v, "dtype", None), "kind", None) for _, v in named
             if not isinstance(v, (int, float, complex)) and v is not None]
    dtypes = [v.dtype for _, v in named if not isinstance(v, (int, float, complex))
              and getattr(getattr(v, "dtype", None), "kind", None) in ("i", "u")]
    beside = "the dtype of the array beside it, which a Python int takes (NEP 50)"
    if not dtypes:
        # beside bools and Python ints alone, a Python int takes NumPy's default integer
        if any(k != "b" for k in kinds) or any(
                isinstance(v, (float, complex)) for _, v in named):
            return None
        dt = np.dtype(np.int64)
        beside = ("NumPy's default integer, which a Python int takes beside bools and "
                  "other Python ints (NEP 50)")
    else:
        dt = np.result_type(*dtypes)
    if dt.kind not in "iu":   # int64 beside uint64: float64, which NumPy converts to
        return None
    info = np.iinfo(dt)
    for name, v in named:
        if type(v) is int and not info.min <= v <= info.max:
            return overflow_error(qualname, name, f"is the Python int {_shown(v)}, out of "
                                  f"bounds for {dt} (from {info.min} to {info.max}), {beside}")
    return None


def _shown(v: int) -> str:
    text = str(abs(v))
    return ("-" if v < 0 else "") + (text if len(text) <= 24
                                     else f"{text[:12]}... ({len(text)} digits)")
