"""``searchsorted``'s arguments, checked before the library's function on the NumPy and
dask backends: ``x1`` of one dimension, ``side``, and ``sorter``'s dtype, shape and
values (indices into ``x1``).

NumPy checks a ``sorter``'s indices only where its binary search reads them: with
``x1`` of two elements, ``sorter=[0, 5]`` was its unnamed "Sorter index out of range."
and ``sorter=[-1, 0]`` an answer (``[2]``: the search never read the -1). dask took a
negative index as counted from the end, and CuPy's ``searchsorted`` gathers ``x1`` by
``sorter`` with ``take``, which wraps an index out of range into it (an answer of no
reading of the call). dask and CuPy, which read every index of ``sorter`` anyway (their
gather of ``x1``), now refuse an index outside ``[0, x1.shape[0])`` with a
``ValueError`` naming ``sorter`` (:func:`check_sorter_range`; on CuPy a ``min`` and a
``max`` on the device, read back: :func:`cupy_searchsorted`); the NumPy backend names
the index NumPy's search refuses, and leaves unread ones unread (a scan of all of them
would make each call ``O(len(x1))``: ``arg_checks.searchsorted``).
"""

from __future__ import annotations

import numpy as np

from .._core.errors import type_error, value_error
from .dispatch import compat_function, register

__all__ = ["check_sorted_x1", "check_sorter", "check_sorter_range", "check_values",
           "cupy_searchsorted"]

_NUMBERS = (int, float, complex, bool)


def check_sorted_x1(x1) -> None:
    """``searchsorted``'s ``x1``: one dimension (NumPy's said "object too deep for
    desired array", dask's "Input array a must be one dimensional")."""
    if getattr(x1, "ndim", 1) != 1:
        raise value_error("searchsorted", "x1", f"has shape {tuple(x1.shape)}; expected a "
                                                "one-dimensional sorted array")


def check_values(x1, x2) -> None:
    """``searchsorted``'s ``x2`` for an ``x1`` of numbers: numbers too (an array, a
    Python or NumPy scalar, a list of them, of a bool or numeric dtype). NumPy's compared
    a str with ``x1``'s numbers as strings (``searchsorted([1, 2], "a")`` was 2) and
    raised "'<' not supported between instances of 'NoneType' and 'NoneType'" for None;
    dask's took None at the call and failed when computed. An ``x1`` of strings (NumPy's
    extension) is left to the library."""
    t = type(x2)
    if t in _NUMBERS or getattr(getattr(x1, "dtype", None), "kind", "f") not in "biufc":
        return
    kind = getattr(getattr(x2, "dtype", None), "kind", None)
    if kind is None:
        kind = np.asarray(x2).dtype.kind if x2 is not None else None
    if kind is None or kind not in "biufc":
        raise type_error("searchsorted", "x2", x2, "an array or a Python scalar of a bool or "
                                                   "numeric dtype (the values to search)")


def check_sorter(x1, sorter, side="left") -> None:
    """``searchsorted``'s ``x1`` (:func:`check_sorted_x1`), ``side`` (``"left"`` or
    ``"right"``: dask's raised NumPy's unnamed "search side must be 'left' or 'right'"
    only when computed) and ``sorter``, unless None: a 1-D array of an integer dtype
    with one index per element of ``x1`` (its values are checked where they are known,
    by :func:`check_sorter_range`: at the call on NumPy, per block on dask)."""
    check_sorted_x1(x1)
    if not isinstance(side, str):
        raise type_error("searchsorted", "side", side, "'left' or 'right'")
    if side not in ("left", "right"):
        raise value_error("searchsorted", "side", f"is {side!r}; expected 'left' or 'right'")
    if sorter is None:
        return
    if getattr(getattr(sorter, "dtype", None), "kind", None) not in ("i", "u"):
        raise type_error("searchsorted", "sorter", sorter, "a 1-D array of an integer dtype")
    n = x1.shape[0] if getattr(x1, "ndim", 0) else None
    if sorter.ndim != 1 or (n == n and sorter.shape[0] == sorter.shape[0]
                            and sorter.shape[0] != n):   # NaN: a length dask does not know
        raise value_error("searchsorted", "sorter", f"has shape {tuple(sorter.shape)}; "
                                                    f"expected ({n},), one index per "
                                                    "element of x1")


def check_sorter_range(sorter, n: int):
    """``sorter`` (a NumPy array, or a block of one) holds indices in ``[0, n)`` only.

    Cost: one ``min`` and one ``max`` of ``sorter``, two vectorised reads of its ``n``
    elements, nothing allocated: about 7-12 ms for ten million int64 indices on one
    core, under 1 % of the ``argsort`` that made them, but more than the search of a
    few ``x2`` values itself (about 1 ms for 1000), which reads only ``O(log n)``
    indices a value. Returns ``sorter``.

    Raises
    ------
    ValueError
        naming ``sorter`` and its smallest index if that is negative, else its
        largest, when one is out of range.
    """
    if sorter.size:
        low = sorter.min()
        bad = low if low < 0 else sorter.max()
        if bad < 0 or bad >= n:
            raise value_error("searchsorted", "sorter", f"holds the index {int(bad)}, out of "
                                                        f"range for x1 of {n} elements")
    return sorter


def cupy_searchsorted(x1, x2, /, *, side="left", sorter=None):
    """``searchsorted`` of the standard on CuPy arrays: ``x1``, ``side`` and ``sorter``
    checked as on NumPy (:func:`check_sorter`), then ``sorter``'s values, each in ``[0,
    len(x1))`` (:func:`check_sorter_range`: a ``min`` and a ``max`` on the device and
    their read-back, a wait for the stream; CuPy's ``take`` wrapped an index out of
    range), then CuPy's ``searchsorted``."""
    check_sorter(x1, sorter, side)
    if sorter is not None:
        check_sorter_range(sorter, x1.shape[0])
    return compat_function("cupy", "searchsorted")(x1, x2, side=side, sorter=sorter)


cupy_searchsorted.__name__ = cupy_searchsorted.__qualname__ = "searchsorted"
register("searchsorted", "cupy")(cupy_searchsorted)
