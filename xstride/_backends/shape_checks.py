"""The shapes of the creation functions, one check for the NumPy and dask backends.

``empty``, ``zeros``, ``ones``, ``full`` take a ``shape`` (an int or a tuple of ints,
each non-negative; not a bool, not a float) and ``eye`` its ``n_rows``, ``n_cols`` and
``k`` (ints; ``k`` not a bool, as ``tril``/``triu``'s). A bad one is a ``TypeError``
(its type) or a ``ValueError`` (a negative length) naming the function and the
argument, the classes NumPy raises. NumPy's own messages named no argument (``eye(2,
k=1.0)``: "'float' object cannot be interpreted as an integer"; ``zeros(-1)``:
"negative dimensions are not allowed").

On the NumPy backend the checks of ``empty``, ``zeros`` and ``ones`` run only on
NumPy's error (a call NumPy takes costs nothing more: with ``device`` None NumPy's
function is called as array_api_compat calls it, without its frame; through compat
it cost about 0.4 us more a call), and then the size too (NumPy's
"array is too big" named neither); ``eye``'s run first (NumPy took ``k=True``). The
dask backend (``dask_fixes.py``) runs them before dask's functions, which took some of
these and failed when computed.
"""

from __future__ import annotations

import operator

import numpy as np

from .._core.errors import type_error, value_error
from .._core.sizes import checked_size
from .creation_errors import SHAPE_ERROR
from .dispatch import compat_function, register

__all__ = ["check_length", "check_shape", "check_eye", "named_shape_error"]

_SHAPE = "an int or a tuple of ints"


def check_length(func: str, arg: str, n, whole, allowed: str = _SHAPE) -> None:
    """One length of a shape (or ``eye``'s ``n_rows``/``n_cols``): an int (a NumPy
    integer too), not a bool, not negative; ``whole`` is what the error shows."""
    try:
        if isinstance(n, (bool, np.bool_)):
            raise TypeError
        n = operator.index(n)
    except TypeError:
        raise type_error(func, arg, whole, allowed) from None
    if n < 0:
        raise value_error(func, arg, f"has the negative length {n}; lengths must be "
                                     "non-negative")


def check_shape(func: str, shape) -> None:
    """The ``shape`` of ``empty``, ``zeros``, ``ones``, ``full``: an int or a tuple (or
    list) of ints, each non-negative (:func:`check_length`)."""
    for n in shape if isinstance(shape, (tuple, list)) else (shape,):
        check_length(func, "shape", n, shape)


def check_eye(n_rows, n_cols, k) -> None:
    """``eye``'s sizes (non-negative ints; ``n_cols`` may be None) and ``k`` (an int: a
    NumPy integer or 0-D integer array too, as NumPy's ``eye`` takes; not a bool)."""
    check_length("eye", "n_rows", n_rows, n_rows, "a non-negative int")
    if n_cols is not None:
        check_length("eye", "n_cols", n_cols, n_cols, "a non-negative int")
    try:   # an int, a NumPy integer or a 0-D integer array (NumPy's eye takes them)
        if isinstance(k, (bool, np.bool_)):
            raise TypeError
        operator.index(k)
    except TypeError:
        raise type_error("eye", "k", k, "an int (the diagonal's offset)") from None


def _itemsize(dtype) -> int:
    """Bytes an element of ``dtype``: 8 for None (float64) or a dtype NumPy does not know
    (NumPy's own error then answers)."""
    try:
        return np.dtype(dtype).itemsize if dtype is not None else 8
    except TypeError:
        return 8


def named_shape_error(func: str, shape, dtype) -> None:
    """After NumPy refused ``func(shape, dtype=dtype)``: the error that names the
    argument, raised where ``shape`` is not a shape or its size overflows int64 (8
    bytes an element for a ``dtype`` of None or none NumPy knows), an empty one's
    non-zero extents too (NumPy's rule, ``_core/sizes.checked_extents``); else
    nothing, and the caller raises NumPy's own error."""
    items = shape if isinstance(shape, (tuple, list)) else _numpy_items(shape)
    for n in items:
        check_length(func, "shape", n, shape)
    checked_size(func, "shape", tuple(operator.index(n) for n in items), _itemsize(dtype),
                 extents=True)   # (0, 2**62, 4): NumPy's "array is too big" too


def _numpy_items(shape) -> tuple:
    """The lengths of a ``shape`` that is no tuple or list: ``(shape,)`` for an int (or
    anything else that is not a sequence), its items for a sequence NumPy takes as a
    shape (a 1-D integer array, a ``range``), so that its error for another argument
    (``zeros(np.array([2, 3]), dtype="foo")``) is not laid on ``shape``."""
    try:
        operator.index(shape)
        return (shape,)   # an int, a 0-d integer array
    except TypeError:
        if isinstance(shape, (str, bytes)):
            return (shape,)
    try:
        return tuple(shape)
    except TypeError:   # no sequence (a float, None, a 0-d float array): one length
        return (shape,)


def _numpy_shaped(name: str):
    own = getattr(np, name)   # compat's function with device None: NumPy's, of these
    lib = []                  # arguments (array_api_compat 1.11-1.16, common/_aliases.py)

    def impl(shape, *, dtype=None, device=None, **kwargs):
        try:
            if device is None:   # compat's call costs about 0.4 us more (a frame, its
                return own(shape, dtype=dtype, **kwargs)   # device check)
            if not lib:
                lib.append(compat_function("numpy", name))
            return lib[0](shape, dtype=dtype, device=device, **kwargs)
        except (TypeError, ValueError):
            named_shape_error(name, shape, dtype)
            raise

    impl.__name__ = impl.__qualname__ = name
    impl.__doc__ = (f"``{name}`` of the standard on NumPy: NumPy's function; where it "
                    "refuses the call, an error naming ``shape`` if that is the cause.")
    return impl


def eye(n_rows, n_cols=None, /, *, k=0, dtype=None, device=None, **kwargs):
    """``eye`` of the standard on NumPy: ``n_rows``, ``n_cols`` and ``k`` checked first
    (:func:`check_eye`), then NumPy's function (itself where ``device`` is None, as
    array_api_compat calls it); a size past int64 it refuses is named."""
    check_eye(n_rows, n_cols, k)
    try:
        if device is None:
            return np.eye(n_rows, n_cols, k=k, dtype=dtype, **kwargs)
        return compat_function("numpy", "eye")(n_rows, n_cols, k=k, dtype=dtype,
                                               device=device, **kwargs)
    except ValueError:   # NumPy's "array is too big" named neither size
        rows = operator.index(n_rows)
        checked_size("eye", "n_rows" if n_cols is None else "n_cols",
                     (rows, rows if n_cols is None else operator.index(n_cols)),
                     _itemsize(dtype), result=True, extents=True)
        raise


SHAPE_ERROR.append(named_shape_error)   # a *_like function's shape=, on NumPy's error
for _name in ("empty", "zeros", "ones"):
    register(_name, "numpy")(_numpy_shaped(_name))
register("eye", "numpy")(eye)
del _name
