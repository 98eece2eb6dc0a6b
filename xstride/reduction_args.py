"""The checks of a reduction's or a scan's arguments, for :mod:`xstride.reductions`
(and ``xp.fuse``'s reductions, ``xstride/fusion/_reduce.py``): ``dtype=`` a bool or
numeric dtype (complex for complex ``x``; the bool deviations of
``_plans/rule_dtypes.py`` refused), ``x`` an array of its backend of a bool or numeric
dtype, ``keepdims`` and ``include_initial`` bools, ``argmin``/``argmax``'s real dtype
and one axis, NumPy's ``ddof=`` refused beside ``correction=``, ``out=`` (none on a
backend of immutable arrays; else an array of ``x``'s backend of the result's shape
that does not overlap itself and is writeable),
and ``min``/``max`` of an empty selection. Each raises the error naming the argument.
No name of the namespace: the module's names are xstride's own (``xstride.reductions``
imports them).
"""

from __future__ import annotations

import math

import numpy as np

from ._core.errors import error, immutable_error, type_error, value_error
from ._plans.argreduction import check_arg_axis
from ._plans.overlap import check_output
from ._plans.reduction import empty_axis_error, normalize_axis
from ._plans.rule_dtypes import refuse_bool_deviations

__all__ = ["NUMERIC", "INTP", "out_dtype", "check_bool", "check_array", "check_real",
           "arg_rules", "check_no_ddof", "check_no_out", "check_out_shape",
           "check_empty_minmax"]

#: The dtype kinds the reductions take: bool and numeric.
NUMERIC = "biufc"


def out_dtype(func: str, dtype, default: np.dtype, x_dtype=None) -> np.dtype:
    """``dtype=`` as a NumPy dtype (``default`` for None): a bool or numeric dtype, and
    not a real one for complex input (the standard leaves that cast unspecified; NumPy
    drops the imaginary part with a warning); in the native byte order (NumPy's ufuncs
    refused a ``'>f8'`` ``dtype=`` that its scans and dask's sums took)."""
    if dtype is None:
        return default
    try:
        dt = np.dtype(dtype)
    except TypeError:
        raise type_error(func, "dtype", dtype, "a dtype of the namespace or None") from None
    if dt.kind not in NUMERIC:
        raise type_error(func, "dtype", dtype, "a bool or numeric dtype of the namespace "
                                               "or None")
    if x_dtype is not None and np.dtype(x_dtype).kind == "c" and dt.kind != "c":
        raise type_error(func, "dtype", dtype, f"a complex dtype for x of dtype {x_dtype}")
    refuse_bool_deviations(func, x_dtype, dtype, dt)
    return dt if dt.isnative else dt.newbyteorder("=")


def check_bool(func: str, name: str, value) -> None:
    if not isinstance(value, (bool, np.bool_)):
        raise type_error(func, name, value, "a bool")


def check_array(func: str, be, x) -> None:
    """``x`` an array of backend ``be`` (a NumPy scalar counts where NumPy's does) of a
    bool or numeric dtype."""
    if not be.owns(x) or (isinstance(x, np.generic) and not be.readonly_views):
        raise type_error(func, "x", x, f"an array of the {be.name} backend")
    if x.dtype.kind not in NUMERIC:
        raise type_error(func, "x", x, "an array of a bool or numeric dtype")


def check_real(func: str, x) -> None:
    """``argmin``/``argmax`` take a real dtype (the standard: "should have a real-valued
    data type"; NumPy orders complex numbers lexicographically, CuPy refuses some)."""
    if x.dtype.kind == "c":
        raise type_error(func, "x", x, "an array of a real-valued (bool, integer or "
                                       "floating) dtype")


def arg_rules(func: str, x, axis, keepdims) -> tuple:
    """The checks of ``argmin``/``argmax`` after the array test: dtype, ``keepdims``,
    ``axis`` (one axis or None), a non-empty selection; the normalized axes."""
    check_real(func, x)
    check_bool(func, "keepdims", keepdims)
    axes = check_arg_axis(func, axis, x.ndim)
    if any(x.shape[a] == 0 for a in axes):   # (dask's unknown lengths are NaN, its size too)
        raise empty_axis_error(func, x.shape, axes)
    return axes


def check_no_ddof(func: str, kwargs: dict) -> None:
    """``var``/``std`` take the standard's ``correction=``; NumPy's ``ddof=`` beside it
    made the library raise "got multiple values for keyword argument 'ddof'"."""
    if "ddof" in kwargs:
        raise error(TypeError, func, f"takes correction= (the array API's name for NumPy's "
                                     f"ddof=), not ddof=; got ddof={kwargs['ddof']!r}")


def check_no_out(func: str, be, kwargs: dict) -> None:
    """A backend of immutable arrays (dask's) takes no ``out=``: its reductions raised
    "sum() got an unexpected keyword argument 'out'"."""
    if be.immutable and kwargs.get("out") is not None:
        raise immutable_error(func, "out", kwargs["out"], be.name,
                              "use the returned array (call without out=)")


INTP = np.dtype(np.intp)


def check_out_shape(func: str, be, kwargs: dict, x, axes, keepdims) -> None:
    """``out=`` that the library takes (NumPy's): an array of ``be`` of the result's
    shape (``axes`` reduced, None for all) that reaches each of its elements once and is
    writeable where the backend has the flag (as the elementwise functions' ``out=``).
    NumPy's errors named no argument: "return arrays must be of ArrayType" (a list),
    "operands could not be broadcast together with remapped shapes" (``min(x, axis=1,
    out=...)`` of another shape), "output array is read-only"."""
    out = kwargs.get("out")
    if out is None:
        return
    if not be.owns(out) or isinstance(out, np.generic):
        raise type_error(func, "out", out, f"an array of the {be.name} backend (x's backend)")
    flags = out.flags
    if not (flags.c_contiguous or flags.f_contiguous):
        # two indices of one element (a stride 0): NumPy wrote every result into it
        # and each index read the last (sum of (2, 3) over axis 0 gave [15, 15, 15])
        check_output(func, "out", out)
    if be.readonly_views and not flags.writeable:   # NumPy's "output array is read-only"
        raise value_error(func, "out", f"is read-only (shape {out.shape}, dtype {out.dtype})")
    if isinstance(x, np.matrix):   # its reductions keep both axes: NumPy's own check
        return
    shape = x.shape   # (list comprehensions: this runs on every call with out=)
    if axes is None:
        want = (1,) * len(shape) if keepdims else ()
    elif keepdims:
        want = tuple([1 if i in axes else n for i, n in enumerate(shape)])
    else:
        want = tuple([n for i, n in enumerate(shape) if i not in axes])
    if out.shape != want:
        axes = range(x.ndim) if axes is None else axes
        raise value_error(func, "out", f"has shape {tuple(out.shape)}; expected the result's "
                                       f"shape {want} (x of shape {tuple(x.shape)} reduced "
                                       f"over axes {tuple(axes)}, keepdims={bool(keepdims)})")


def check_empty_minmax(func: str, x, axis) -> None:
    if x.size == 0:
        axes = normalize_axis(func, axis, x.ndim)
        if math.prod(x.shape[a] for a in axes) == 0:
            raise empty_axis_error(func, x.shape, axes)
