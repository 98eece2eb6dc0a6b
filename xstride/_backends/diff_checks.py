"""``diff``'s arguments, checked alike on the NumPy and dask backends: ``x`` of at least
one dimension, ``axis`` an axis of it (as ``sort``'s), ``n`` a non-negative int (NumPy's
took ``n=True`` and named no argument), ``prepend``/``append`` of ``x``'s shape but along
``axis`` (NumPy's named neither), and on dask a length along ``axis`` that dask knows.
The NumPy backend's ``diff`` runs them before NumPy's and joins ``numpy.ma`` masked
ends by ``numpy_masked.py`` (registered here, imported on the first lookup with the
other fixes, ``overrides.py``); the dask backend's is ``dask_standard.py``'s.
"""

from __future__ import annotations

import numpy as np

from .._core.errors import type_error, value_error
from .arg_checks import check_axis
from .dispatch import compat_function, register
from .numpy_masked import masked_diff

__all__ = ["check_diff_ends", "check_diff", "check_dask_diff", "differences", "diff"]


def check_diff_ends(x, axis, prepend, append) -> None:
    """``diff``'s ``prepend`` and ``append``, where they are arrays of at least one
    dimension: the shape of ``x`` but along ``axis`` ("Must have the same shape as x,
    except for the axis"; NumPy's named neither, and for a 1-D one of a 2-D ``x`` said
    that the axis was out of bounds). Call after ``axis`` is checked."""
    ax = int(axis) % x.ndim
    for arg, end in (("prepend", prepend), ("append", append)):
        shape = getattr(end, "shape", None)
        if not shape:   # None, a Python scalar, a 0-D array: broadcast, as NumPy's
            continue
        if len(shape) != x.ndim or any(n != m for i, (n, m) in enumerate(zip(shape, x.shape))
                                       if i != ax):
            raise value_error("diff", arg, f"has shape {tuple(shape)}; expected the shape "
                                           f"of x {tuple(x.shape)} but along axis {axis}")


def check_diff(x, axis, n, prepend, append) -> None:
    """``diff``'s ``axis`` (:func:`check_axis`), ``n`` (an int, not a bool, of at least
    0: NumPy's took ``n=True`` and said "'float' object cannot be interpreted as an
    integer" and "order must be non-negative", naming no argument) and
    ``prepend``/``append`` (:func:`check_diff_ends`)."""
    check_axis("diff", x, axis)
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)):
        raise type_error("diff", "n", n, "a non-negative int")
    if n < 0:
        raise value_error("diff", "n", f"is {n}; the number of differences must be at "
                                       "least 0")
    check_diff_ends(x, axis, prepend, append)


def differences(x, axis: int, n: int, prepend, append) -> int:
    """``n`` capped at ``x``'s length along ``axis`` with the ends joined: past it the
    result has no element along the axis, whatever ``n`` (NumPy's loop took a step per
    difference, so ``n=2**70`` never ended, and dask's graph grew a layer per
    difference). One difference stays where the joined length is 0 (``n=0`` returns
    ``x`` itself, ends ignored, in ``x``'s dtype, not the joined one). A length dask
    does not know, or an end of another rank (the library's error), leaves ``n`` as it
    is."""
    length = x.shape[axis]
    for end in (prepend, append):
        if end is not None:
            shape = getattr(end, "shape", None)
            shape = np.shape(end) if shape is None else shape
            if len(shape) not in (0, x.ndim):
                return int(n)
            length += 1 if len(shape) == 0 else shape[axis]
    return int(n) if length != length else min(int(n), max(int(length), 1))


def check_dask_diff(x, axis, n, prepend, append) -> None:
    """``diff`` on dask: ``x`` of at least one dimension, ``axis`` and the ends
    and ``n`` (:func:`check_diff`), and for ``n`` differences a length along
    ``axis`` that dask knows (after boolean indexing dask's said "Arrays chunk sizes are
    unknown", with advice for DataFrames; other axes may be unknown)."""
    if x.ndim == 0:
        raise value_error("diff", "x", "is 0-D; diff takes arrays of at least one dimension")
    check_diff(x, axis, n, prepend, append)
    if n > 0 and x.shape[axis] != x.shape[axis]:   # NaN: a length dask does not know
        raise value_error("diff", "x", f"has shape {tuple(x.shape)}, with lengths dask does "
                                       "not know (as after boolean indexing), which its "
                                       f"differences along axis {axis} need; call "
                                       "x.compute_chunk_sizes() first")


def diff(x, /, *, axis=-1, n=1, prepend=None, append=None):
    """``diff`` of the standard on NumPy arrays: ``x`` of at least one dimension,
    ``axis`` checked first (as ``sort``'s), then ``n`` and the shapes of ``prepend`` and
    ``append`` (:func:`check_diff`)."""
    if not hasattr(x, "ndim"):
        if not isinstance(x, (list, tuple)):
            # None, a str, a Python scalar: no array (np.asanyarray made a 0-D one, so
            # diff(None) said "argument 'x' is 0-D"), refused as sort and the reductions do
            raise type_error("diff", "x", x, "an array of the numpy backend "
                                             "(xstride.asarray(x) makes one)")
        x = np.asanyarray(x)   # a list (NumPy's diff with n=0 gave the list back)
    if x.ndim == 0:
        # as the dask backend's, for every n (NumPy's gave a 0-D x back for n=0)
        raise value_error("diff", "x", "is 0-D; diff takes arrays of at least one dimension")
    check_diff(x, axis, n, prepend, append)
    n = differences(x, axis, n, prepend, append)
    ends = {k: v for k, v in (("prepend", prepend), ("append", append)) if v is not None}
    if ends and (got := masked_diff(x, axis, n, ends)) is not None:
        return got   # masks kept (numpy_masked.py)
    # (NumPy's prepends a None given: only the ends given are passed on)
    return compat_function("numpy", "diff")(x, axis=axis, n=n, **ends)


register("diff", "numpy")(diff)
