"""``round``'s ``decimals`` (NumPy's extension of the standard's ``round(x, /)``), one
check for the NumPy and dask backends.

NumPy's ``round`` refuses a ``decimals`` of no int at the call, naming no argument
("'float' object cannot be interpreted as an integer"), and one past a C int with
"signed integer is greater than maximum"; dask's took any ``decimals`` and raised the
same words only when the result was computed. Both took a bool as a count of decimals.
Here a ``decimals`` of no int (a bool, a float, a str, None) is a ``TypeError`` and one
outside a C int an ``OverflowError``, both naming ``decimals``, at the call on both
backends, by keyword or by position. A call without keywords on NumPy is NumPy's
``round`` behind one test of the count of decimals (``round(x)``: nothing else added).
"""

from __future__ import annotations

import operator

import numpy as np

from .._core.errors import overflow_error, type_error
from .dispatch import compat_function, register

__all__ = ["check_decimals"]

#: the range of NumPy's C int ``decimals``
_LOW, _HIGH = -2**31, 2**31 - 1


def check_decimals(decimals) -> None:
    """``round``'s ``decimals``: an int (a NumPy integer or a 0-D integer array too, as
    NumPy takes them; not a bool) that a C int holds."""
    if isinstance(decimals, (bool, np.bool_)):
        raise type_error("round", "decimals", decimals, "an int (the number of decimals)")
    try:
        d = operator.index(decimals)
    except TypeError:
        raise type_error("round", "decimals", decimals,
                         "an int (the number of decimals)") from None
    if not _LOW <= d <= _HIGH:
        raise overflow_error("round", "decimals", f"is {d}, outside the C int NumPy's round "
                                                  f"takes ({_LOW} to {_HIGH})")


def _round_of(backend: str):
    library = []   # the library's round, looked up on the first call

    def round(x, /, decimals=0, out=None, **kwargs):  # noqa: A001 - the standard's name
        """``round`` of the standard, NumPy's ``decimals`` checked first
        (:func:`check_decimals`). ``out`` stands where NumPy's ``round`` has it, so the
        dispatch refuses a third positional argument as it did NumPy's; given by keyword
        it passes on to the library, as before."""
        if out is not None:
            kwargs["out"] = out
        if decimals.__class__ is not int:
            check_decimals(decimals)
        elif not _LOW <= decimals <= _HIGH:
            check_decimals(decimals)
        if not library:
            library.append(np.round if backend == "numpy" else compat_function(backend,
                                                                                "round"))
        if backend != "numpy" and getattr(getattr(x, "dtype", None), "kind", None) == "b":
            # NumPy rounds bools in float16 (0 decimals; others: its TypeError, raised
            # here at the call), where dask's array said bool and computed float16
            np.round(np.zeros(1, np.bool_), decimals)
            x = x.astype(np.float16)
        return library[0](x, decimals, **kwargs)
    return round


def _numpy_positional(x, decimals=0, out=None, /):
    """The NumPy backend's ``round`` for a call without keywords (the dispatch's fast
    path): a ``decimals`` given by position is checked as one given by keyword (it went
    to ``np.round`` unchecked: ``round(x, True)`` rounded to 1 decimal where dask's
    refused it, ``round(x, 1.5)`` named no argument). ``out`` stands where NumPy's
    ``round`` has it, so the dispatch refuses a third positional argument before this
    is called (``dispatch._most_positional``)."""
    if decimals.__class__ is not int or not _LOW <= decimals <= _HIGH:
        check_decimals(decimals)
    return np.round(x, decimals)


register("round", "numpy", positional=_numpy_positional)(_round_of("numpy"))
register("round", "dask")(_round_of("dask"))
