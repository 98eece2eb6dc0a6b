"""The errors of a library function (NumPy's, dask's, CuPy's) for a bad axis argument,
named as xstride's own checks name them.

xstride's checks (``_plans/reduction.py:normalize_axis`` and those built on it) raise
``numpy.exceptions.AxisError`` for an axis out of range, ``"{func}: argument 'axis' 3 is
out of range for an array of 2 dimensions"``, and ``ValueError`` for a repeated one.
Where the library's function checks the axis itself, its errors named neither the
function nor the argument (NumPy's ``flip``: "axis 3 is out of bounds for array of
dimension 2"; ``moveaxis``: "repeated axis in `source` argument"), and an axis past
64 bits was NumPy's ``OverflowError`` ("Python int too large to convert to C long")
where the dask backend's check raised ``AxisError``; an axis of no int was NumPy's
"'float' object cannot be interpreted as an integer". :func:`axis_argument_error`
gives the same class and wording on every backend. The dispatch calls it on the error path
only. ``permute_dims``' ``axes`` has one check, :func:`check_permute_axes`, that the dask
backend's ``permute_dims`` runs first and the NumPy backend's error path here: NumPy's
path said "names an axis more than once (repeated axes)" where dask's said "names axis 0
twice (duplicate axes)", and "expected an int (or a tuple of ints ...)" where dask's
said "expected a tuple of ints, a permutation of x's axes".
"""

from __future__ import annotations

import operator
import re

import numpy as np

from .._core.errors import axis_error, type_error, value_error
from .._core.intseq import is_index
from .._plans.reduction import normalize_axis

__all__ = ["AXIS_PARAMETERS", "axis_argument_error", "check_permute_axes"]

#: The parameters of the standard's functions that name axes.
AXIS_PARAMETERS = ("axis", "axes", "source", "destination")

#: NumPy's and dask's texts of an axis of no int (or a tuple where one int is taken).
_NOT_AN_INT = re.compile(r"cannot be interpreted as an integer|integer argument expected|"
                         r"an integer is required|is not iterable|must be an integer|"
                         r"only integer scalar arrays|iteration over a 0-d array")
#: NumPy's and dask's texts of an axis out of range and of a repeated axis.
_OUT_OF_BOUNDS = re.compile(r"[Aa]xis (-?\d+) is out of bounds for array of dimension (\d+)")
_REPEATED = re.compile(r"repeated axis|duplicate value in 'axis'")
_INT64 = (-2**63, 2**63)


def _items(value) -> tuple:
    return tuple(value) if isinstance(value, (tuple, list)) else (value,)


def _not_an_axis(value, text: str) -> bool:
    """Whether ``value`` of an axis argument is what the library's ``TypeError`` ``text``
    refuses: no int (None only where the text names it), a tuple holding one, or a
    tuple or list where the text says the function takes no such object."""
    if value is None:
        return "'NoneType'" in text or "got None" in text
    if isinstance(value, (tuple, list)):
        return (f"'{type(value).__name__}' object" in text
                or not all(is_index(i) for i in value))
    return not is_index(value)


def _argument(text: str, axes: list) -> tuple | None:
    """The ``(name, value)`` of ``axes`` the library's ``text`` is about: the one it
    names (NumPy's ``moveaxis``: "source: ...", "... in `destination` argument"), else
    the only one given; None where that is not known."""
    for name, value in axes:
        if text.startswith(f"{name}: ") or f"`{name}`" in text:
            return name, value
    return axes[0] if len(axes) == 1 else None


def check_permute_axes(x, axes) -> tuple:
    """``permute_dims``' ``axes`` of ``x`` (not None): a tuple or list of ints (an int is a
    tuple of one, a 1-D NumPy integer array a sequence of them, as NumPy's transpose
    takes them), each in range (``AxisError``), none twice, a permutation of ``x``'s axes
    (``ValueError``). Returns the axes as a tuple of ints. The dask backend's
    ``permute_dims`` checks them first; the NumPy backend's on NumPy's error
    (:func:`axis_argument_error`), so that both raise one text."""
    seq = isinstance(axes, (tuple, list)) or type(axes) is np.ndarray and axes.ndim == 1
    items = tuple(axes) if seq else (axes,)
    try:
        if any(isinstance(a, (bool, np.bool_)) for a in items):
            raise TypeError
        items = tuple(operator.index(a) for a in items)
    except TypeError:
        raise type_error("permute_dims", "axes", axes, "a tuple of ints, a permutation of "
                                                       "x's axes") from None
    normalize_axis("permute_dims", items, x.ndim, "axes")   # in range (AxisError), once
    if sorted(a + x.ndim if a < 0 else a for a in items) != list(range(x.ndim)):
        raise value_error("permute_dims", "axes", f"is {axes!r}; expected a permutation of "
                                                  f"the {x.ndim} axes of x")
    return items


def _permute_error(named) -> Exception | None:
    """The error of :func:`check_permute_axes` for ``permute_dims``' arguments, or None."""
    args = dict(named)
    x, axes = args.get("x"), args.get("axes")
    if axes is None or not hasattr(x, "ndim"):
        return None
    try:
        check_permute_axes(x, axes)
    except (TypeError, ValueError) as err:
        return err
    return None


def axis_argument_error(exc: Exception, qualname: str, named) -> Exception | None:
    """The error to raise for ``exc``, raised by the library function of namespace
    function ``qualname`` called with the arguments ``named`` (``(name, value)`` pairs),
    when it is about an axis argument; None for any other error.

    - ``numpy.exceptions.AxisError`` (an axis out of range): an ``AxisError`` naming the
      function and the argument, worded as xstride's own check;
    - ``OverflowError`` (or NumPy's ``permute_dims``' "Maximum allowed dimension
      exceeded" ``ValueError``) where an axis argument holds a Python int beyond 64
      bits: an ``AxisError`` (such an axis is out of range for any array), as the dask
      backend's check raises it;
    - NumPy's ``ValueError`` for a repeated axis: a ``ValueError`` naming both; its
      ``permute_dims``' "axes don't match array" (fewer or more axes than ``x`` has): a
      ``ValueError`` naming ``axes``, worded as the dask backend's check;
    - a ``TypeError`` for an axis of no int (a float, a bool, a str, None where none is
      taken, a tuple where one int is: NumPy's "'float' object cannot be interpreted as
      an integer", "an integer is required for the axis"): a ``TypeError`` naming the
      function, the argument and what it got.

    Errors whose message names an argument already (xstride's checks) give None.
    """
    text = str(exc)
    axes = [(n, v) for n, v in named if n in AXIS_PARAMETERS]
    if not axes or "argument '" in text:
        return None
    func = qualname.rsplit(".", 1)[-1]
    if func == "permute_dims":   # the dask backend's check, one text on both backends
        got = _permute_error(named)
        if got is not None:
            return got
    if isinstance(exc, TypeError):
        if not _NOT_AN_INT.search(text):
            return None
        for name, value in axes:
            if _not_an_axis(value, text):
                one = isinstance(value, (tuple, list)) and all(is_index(i) for i in value)
                return type_error(func, name, value, "an int naming one axis" if one else
                                  "an int (or a tuple of ints where the function takes "
                                  "several axes)")
        return None
    for name, value in axes:   # NumPy's OverflowError, or permute_dims' "Maximum allowed
        for i in _items(value):   # dimension exceeded" ValueError
            if type(i) is int and not _INT64[0] <= i < _INT64[1]:
                return axis_error(func, name, f"{i} is out of range for any array (ranks "
                                              "are at most 64)")
    if isinstance(exc, OverflowError):
        return None
    found = _argument(text, axes)
    if found is None:
        return None
    name, value = found
    if isinstance(exc, np.exceptions.AxisError):
        axis, ndim = getattr(exc, "axis", None), getattr(exc, "ndim", None)
        if axis is None or ndim is None:   # dask's: a message only
            m = _OUT_OF_BOUNDS.search(text)
            if m is None:
                return None
            axis, ndim = int(m.group(1)), int(m.group(2))
        return axis_error(func, name, f"{axis} is out of range for an array of {ndim} "
                                      f"dimension{'s' if ndim != 1 else ''}")
    if isinstance(exc, ValueError) and _REPEATED.search(text):
        return value_error(func, name, f"{value!r} names an axis more than once (repeated "
                                       "axes)")
    rank = getattr(dict(named).get("x"), "ndim", None)
    if isinstance(exc, ValueError) and "don't match array" in text and rank is not None:
        return value_error(func, name, f"is {value!r}; expected a permutation of the {rank} "
                                       "axes of x")   # the dask backend's words
    return None
