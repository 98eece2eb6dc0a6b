"""The docstrings of the namespace's reductions and scans (``xstride/reductions.py``).

One summary per function (:data:`SUMMARIES`) and the numpydoc sections the functions
share, put together by :func:`reduction_doc` when ``xstride.reductions`` makes the
functions (its ``_finish``). The texts say what ``xstride/reductions.py`` checks (its
module docstring has the rules), what ``xstride/_kernels`` runs on CuPy arrays
(docs/reductions.md) and what the backends' libraries do for the rest; a change of
those rules changes these texts.
"""

from __future__ import annotations

import textwrap

__all__ = ["SUMMARIES", "reduction_doc"]

#: The first paragraph of each function's docstring.
SUMMARIES = {
    "sum": "Sum (array API standard ``sum``). Integers accumulate exactly in 64 bits "
           "(narrower ``dtype=`` results wrap like NumPy's); on the kernels float16, "
           "float32 and float64 accumulate in float64 (complex in complex128), in a fixed "
           "order. Empty sums are 0.",
    "prod": "Product (array API standard ``prod``); the dtype rules of ``sum``. Empty "
            "products are 1.",
    "min": "Minimum (array API standard ``min``). NaN propagates. An empty selection "
           "raises ValueError naming the empty axis.",
    "max": "Maximum (array API standard ``max``). NaN propagates. An empty selection "
           "raises ValueError naming the empty axis.",
    "mean": "Arithmetic mean (array API standard ``mean``); integer inputs give float64 "
            "(as NumPy). On the kernels the sum accumulates in float64 and is divided "
            "once. An empty selection gives NaN with NumPy's RuntimeWarning.",
    "var": "Variance (array API standard ``var``), divided by ``max(N - correction, 0)`` "
           "as NumPy does (N: the elements of each selection). On CuPy's kernels, for "
           "a float32 or float64 result: many short rows (2 to 32 elements along one "
           "reduced axis) in one kernel that reads each row once and runs both passes "
           "below on it; else float32 input into a float32 result in one pass of "
           "shifted moments (the float64 sums of ``d = x - K`` and ``d * d``, ``K`` the "
           "first element of each selection); else two passes in float64 (the mean, "
           "then the squared deviations from it). float16 and complex inputs run CuPy's "
           "``var``. On NumPy, NumPy's ``var``: two passes (the mean, then the squared "
           "deviations) in ``x``'s floating dtype, float64 for bool and integers; on "
           "dask, the same two passes as two reduction trees.",
    "std": "Standard deviation (array API standard ``std``): the square root of ``var``, "
           "computed as ``var`` is and rounded once to the result dtype on the kernels.",
    "all": "Logical AND (array API standard ``all``): True where every element of the "
           "selection is nonzero (NaN counts as nonzero); an empty selection gives True.",
    "any": "Logical OR (array API standard ``any``): True where some element of the "
           "selection is nonzero (NaN counts as nonzero); an empty selection gives False.",
    "argmin": "Index of the minimum (array API standard ``argmin``): int64, the index "
              "along ``axis`` (an int), or into the flattened array in C order for "
              "``axis=None``. Ties give the first occurrence; where NaN is present, the "
              "first NaN (NumPy's rule). Real dtypes only; an empty selection raises "
              "ValueError naming the empty axis.",
    "argmax": "Index of the maximum (array API standard ``argmax``); the rules of "
              "``argmin``.",
    "cumulative_sum": "Cumulative sum (array API standard ``cumulative_sum``). "
                      "``include_initial=True`` puts the identity 0 first (formed by "
                      "shifting, never by subtracting).",
    "cumulative_prod": "Cumulative product (array API standard ``cumulative_prod``).",
}

_X = """x : array
    A NumPy, CuPy or dask array of a bool or numeric dtype (a NumPy scalar counts as a
    NumPy array)."""
_X_REAL = """x : array
    A NumPy, CuPy or dask array of a real-valued (bool, integer or floating) dtype (a
    NumPy scalar counts as a NumPy array)."""
_AXES = """axis : int, tuple of int or None, optional
    The axes to reduce, negative ones counted from the end. None (the default) reduces
    every axis, ``()`` none."""
_ONE_AXIS = """axis : int or None, optional
    The one axis to search along, negative counted from the end. None (the default)
    searches the array flattened in C order."""
_SCAN_AXIS = """axis : int or None, optional
    The axis to scan along, negative counted from the end. None (the default) is taken
    only for an array of at most one dimension; a 0-D array is scanned as one of shape
    ``(1,)``."""
_DTYPE = """dtype : dtype or None, optional
    The result dtype: a bool or numeric dtype of the namespace, a complex one for a
    complex ``x``. None (the default): the dtype under Returns."""
_KEEPDIMS = """keepdims : bool, optional
    Keep the reduced axes, of extent 1, so that the result broadcasts against ``x``
    (default False). A NumPy bool counts."""
_CORRECTION = """correction : real number, optional
    Subtracted from the number N of elements of each selection: the divisor is
    ``max(N - correction, 0)``. 0 (the default) gives the population variance, 1 the
    sample variance (Bessel's correction). A float is taken as it is."""
_INITIAL = """include_initial : bool, optional
    Put the identity (0 for ``cumulative_sum``, 1 for ``cumulative_prod``) before the
    first element along ``axis``: the result is one longer along it (default False)."""
_KWARGS = """**kwargs
    Keywords the standard does not have (NumPy's ``out=``, ``where=``, ``initial=``,
    where NumPy's function takes them): on NumPy and CuPy the call goes to the
    library's own function (NumPy's, CuPy's), which answers for them; dask's reduction
    trees take none (``TypeError``)."""


_SHAPE = ("``x``'s shape without the reduced axes (with them, of extent 1, under "
          "``keepdims``); reduced over every axis without ``keepdims``, a NumPy scalar on "
          "NumPy, else a 0-D array. ")
_SUM_DTYPE = ("Dtype ``dtype=``, else int64 for bool and signed integers, uint64 for "
              "unsigned integers, ``x``'s own for floating and complex dtypes.")

_TYPE_X = ("``x`` is not a NumPy, CuPy or dask array (a list, a Python scalar) or not of a "
           "bool or numeric dtype; an argument after ``x`` is given by position (the "
           "others are keyword-only)")
_AXIS_ERROR = ("``numpy.exceptions.AxisError``, NumPy's class, a ``ValueError`` and an "
               "``IndexError``, on every backend")
_TYPE_AXES = "``axis`` is not an int, a tuple of ints or None (a bool or a list neither)"
_TYPE_KEEPDIMS = "``keepdims`` is not a bool"
_TYPE_DTYPE = ("``dtype`` is not a dtype, not a bool or numeric one, or a real one for a "
               "complex ``x``")
_VALUE_AXES = ("An axis is out of range for ``x.ndim`` (" + _AXIS_ERROR + ") or named "
               "twice")
_EMPTY = "the selection is empty: a reduced axis has extent 0, which the message names"
_DEVICE = ("a CuPy ``x`` is on another device than the current one "
           "(:class:`~xstride._core.errors.DeviceError`)")

_REDUCE = (_X, _AXES, _KEEPDIMS, _KWARGS)
_SUM = ((_X, _AXES, _DTYPE, _KEEPDIMS, _KWARGS), "array", _SHAPE + _SUM_DTYPE,
        (_TYPE_X, _TYPE_AXES, _TYPE_DTYPE, _TYPE_KEEPDIMS), (_VALUE_AXES, _DEVICE))
_MINMAX = (_REDUCE, "array", _SHAPE + "Dtype: ``x``'s.",
           (_TYPE_X, _TYPE_AXES, _TYPE_KEEPDIMS),
           (_VALUE_AXES, _EMPTY, "with ``initial=`` or ``where=`` the library "
                                "decides on an empty selection", _DEVICE))
_LOGICAL = (_REDUCE, "array of bool", _SHAPE.rstrip(),
            (_TYPE_X, _TYPE_AXES, _TYPE_KEEPDIMS), (_VALUE_AXES, _DEVICE))
_MOMENT = ((_X, _AXES, _CORRECTION, _KEEPDIMS, _DTYPE, _KWARGS), "array",
           _SHAPE + "Dtype ``dtype=``, else ``x``'s for real floating dtypes, the real "
           "dtype of its precision for complex ones (float32 for complex64), float64 for "
           "bool and integers.",
           (_TYPE_X, _TYPE_AXES, "``correction`` is not a real number (a bool, a complex "
            "number or no number)", _TYPE_KEEPDIMS, _TYPE_DTYPE),
           (_VALUE_AXES, "``correction`` is an integer outside int64", _DEVICE))
_ARG = ((_X_REAL, _ONE_AXIS, _KEEPDIMS, _KWARGS), "array of int64",
        "``x``'s shape without ``axis`` (of extent 1 under ``keepdims``); for ``axis=None`` "
        "0-D (under ``keepdims``, ``x.ndim`` axes of extent 1); a NumPy scalar on NumPy "
        "for a 0-D result.",
        (_TYPE_X, "``x`` has a complex dtype", "``axis`` is a tuple or a list (one axis "
         "only), a bool, or no integer", _TYPE_KEEPDIMS),
        ("``axis`` is out of range for ``x.ndim``, any int for a 0-D ``x`` (" + _AXIS_ERROR
         + ")", _EMPTY,
         _DEVICE))
_SCAN = ((_X, _SCAN_AXIS, _DTYPE, _INITIAL), "array",
         "``x``'s shape, one longer along ``axis`` under ``include_initial`` (a 0-D ``x``: "
         "shape ``(1,)``, or ``(2,)``). " + _SUM_DTYPE,
         (_TYPE_X, "``axis`` is not an int or None (a bool, a tuple or a list neither)",
          _TYPE_DTYPE, "``include_initial`` is not a bool"),
         ("``axis`` is None for an ``x`` of more than one dimension, or out of range ("
          + _AXIS_ERROR + ")",
          _DEVICE))

#: name -> (Parameters' entries, the Returns' type, its text, the causes of TypeError,
#: the causes of ValueError)
_SECTIONS = {
    "sum": _SUM, "prod": _SUM, "min": _MINMAX, "max": _MINMAX, "all": _LOGICAL,
    "any": _LOGICAL, "argmin": _ARG, "argmax": _ARG, "cumulative_sum": _SCAN,
    "cumulative_prod": _SCAN,
    "mean": ((_X, _AXES, _KEEPDIMS, _DTYPE, _KWARGS), "array",
             _SHAPE + "Dtype ``dtype=``, else ``x``'s for floating and complex dtypes, "
             "float64 for bool and integers.", _SUM[3], _SUM[4]),
    "var": _MOMENT, "std": _MOMENT,
}

_LIBRARY = ("The errors of the backend's own function (TypeError, ValueError, "
            "OverflowError), for the calls that reach it, come with the function's name "
            "in front.")
_WARNS = {
    "mean": "An empty selection (its mean is NaN).",
    "var": "``N - correction <= 0`` for a selection (its result is NaN or inf, as NumPy's).",
}
_VAR_NOTES = """\
Two passes, not the one-pass formula ``E[x**2] - E[x]**2``, whose cancellation loses
the variance of values far from 0 (Chan, Golub and LeVeque, "Algorithms for computing
the sample variance: analysis and recommendations", The American Statistician 37(3),
242-247, 1983). The one pass of shifted moments subtracts an element ``K`` of the
selection first, and ``(mean - K)**2 <= N * variance``: its cancellation costs at most
a factor ``1 + N`` of float64's rounding, below float32's for ``N < 2**27``
(``reduce_finish.cu``, docs/reductions.md)."""
_NOTES = {
    "var": _VAR_NOTES,
    "std": _VAR_NOTES,
    "cumulative_sum": """\
On the kernels a floating scan carries a float64 running value and rounds each output
once, except the float32 look-back scan of long rows: each thread adds its run of a
few dozen elements in float32 onto its float64 prefix, and the runs' totals carry their
rounding errors in a second float32 (TwoSum: Knuth, TAOCP vol. 2, 4.2.2; "Sum2" of
Ogita, Rump and Oishi, "Accurate sum and dot product", SIAM J. Sci. Comput. 26(6),
2005). The error bounds: docs/reductions.md, "Accumulators and error bounds".""",
}


def _wrap(text: str, indent: str = "    ") -> str:
    """``text`` in lines of at most 88 characters, each starting with ``indent``."""
    return textwrap.fill(text, 88, initial_indent=indent, subsequent_indent=indent,
                         break_on_hyphens=False, break_long_words=False)


def _section(title: str, body: str) -> str:
    return f"{title}\n{'-' * len(title)}\n{body}"


def reduction_doc(name: str) -> str:
    """The docstring of the namespace function ``name`` (``"sum"``, ..., ``"argmax"``,
    ``"cumulative_prod"``): its summary, then its Parameters, Returns, Raises, and its
    Warns and Notes where it has some, in numpydoc form."""
    params, kind, returns, types, values = _SECTIONS[name]
    parts = [_wrap(SUMMARIES[name], ""),
             _section("Parameters", "\n".join(params)),
             _section("Returns", f"{kind}\n" + _wrap(returns)),
             _section("Raises", "TypeError\n" + _wrap("; ".join(types) + ".")
                      + "\nValueError\n" + _wrap("; ".join(values) + ". " + _LIBRARY))]
    warns = _WARNS.get("var" if name == "std" else name)
    if warns:
        parts.append(_section("Warns", "RuntimeWarning\n" + _wrap(warns)))
    if name in _NOTES:
        parts.append(_section("Notes", _NOTES[name]))
    return "\n\n".join(parts) + "\n"
