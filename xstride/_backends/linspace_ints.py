"""``linspace`` of an integer ``dtype`` (NumPy's extension) whose ends lie past 2**53.

NumPy computes the values in float64, floors them and casts them to the dtype; an end
past 2**53 is then rounded, and one near the dtype's limit can round past it: ``2**63
- 1`` is the float ``2**63``, whose cast to int64 wrapped to ``-2**63``
(``linspace(0, 2**63 - 1, 2, dtype=int64)`` ended in ``-2**63``, and CuPy's and dask's
the same). Here the values are NumPy's float64 values, floored, and one that rounded
past the dtype's largest integer is that integer; the others cast as NumPy casts them.
Ends within 2**53 take the library's own call unchanged.
"""

from __future__ import annotations

import numpy as np

__all__ = ["integer_past_float", "floored_linspace", "floored_in_range"]

#: Integers from here on are not all floats: an end this large may round.
_EXACT = 2**53


def _plain(v):
    """A 0-D array or NumPy scalar end as its Python number; other ends as they are."""
    if isinstance(v, (np.ndarray, np.generic)) and np.ndim(v) == 0:
        return v.item()
    return v


def _past(v) -> bool:
    """Whether the end ``v`` (a number, or a NumPy array of them: NumPy's ends may be
    arrays) reaches past 2**53."""
    if isinstance(v, np.ndarray):
        return (v.size > 0 and v.dtype.kind in "iuf"
                and bool(np.max(np.abs(v.astype(np.float64))) >= _EXACT))
    return isinstance(v, (int, float)) and not isinstance(v, bool) and abs(v) >= _EXACT


def integer_past_float(start, stop, dtype):
    """The integer dtype of a ``linspace`` call whose ends (checked to fit it) reach past
    2**53, else ``None``."""
    if dtype is None:
        return None
    try:
        dt = np.dtype(dtype)
    except TypeError:
        return None
    if dt.kind not in "iu":
        return None
    return dt if _past(_plain(start)) or _past(_plain(stop)) else None


def floored_linspace(linspace, dt: np.dtype, start, stop, num, **kwargs):
    """``linspace`` (a library's: NumPy's, CuPy's) of the ends in float64, then
    :func:`floored_in_range` into ``dt``."""
    return floored_in_range(linspace(start, stop, num, dtype=np.float64, **kwargs), dt)


def floored_in_range(y, dt: np.dtype):
    """float64 values ``y`` (a NumPy, CuPy or dask array) floored and cast to the integer
    dtype ``dt``, a value at or past ``2**bits`` (``2**63`` for int64, ``2**64`` for
    uint64: a rounded end) taken as the dtype's largest integer."""
    from array_api_compat import array_namespace   # (not at import: test_import_cost)

    xp = array_namespace(y)
    y = xp.floor(y)
    top = 2.0 ** (8 * dt.itemsize - (dt.kind == "i"))
    past = y >= top
    out = xp.astype(xp.where(past, xp.zeros_like(y), y), dt)
    return xp.where(past, xp.full_like(out, np.iinfo(dt).max), out)
