"""``isin``'s arguments, one check for the NumPy and dask backends.

The standard's ``isin(x1, x2, /, *, invert=False)`` takes ``invert`` by keyword, a
bool. Both libraries' ``isin`` are ``isin(element, test_elements, assume_unique=False,
invert=False)``: a third positional argument was taken as ``assume_unique``
(``xp.isin(x1, x2, True)``, meant as ``invert``, answered the question not inverted), and
any ``invert`` by its truth (``invert="no"`` inverted). Here a third positional argument
is Python's ``TypeError`` of a call with too many (the dispatch counts this signature's
two), and an ``invert`` of no bool a ``TypeError`` naming it, as the other flags of the
standard (``check_flag``). The libraries' own keywords (NumPy's ``kind=``,
``assume_unique=``) pass on as before.

Of ``numpy.ma`` masked operands (on dask, arrays of masked chunks) the libraries read
the data under the masks: a masked element of ``x1`` was tested as a value and an
unmasked answer given, and a masked element of ``x2`` counted as a member. Here
(:func:`masked_isin`) the masked elements of ``x2`` are no members and the result
keeps ``x1``'s mask, as ``numpy.ma.isin`` of two masked arrays answers.
"""

from __future__ import annotations

import sys

from .arg_checks import check_flag
from .dispatch import compat_function, register

__all__ = ["isin"]


def _isin_of(backend: str):
    library = []   # compat's isin, looked up on the first call

    def isin(x1, x2, /, *, invert=False, **kwargs):
        """``isin`` of the standard: ``invert`` a bool (a NumPy bool too), checked first."""
        if invert is not False and invert is not True:
            check_flag("isin", "invert", invert)
        if not library:
            library.append(compat_function(backend, "isin"))
        got = masked_isin(library[0], x1, x2, bool(invert), kwargs)
        if got is not None:
            return got
        if invert or kwargs:
            return library[0](x1, x2, invert=bool(invert), **kwargs)
        return library[0](x1, x2)   # the common call: no keywords (0.3 us less)
    return isin


def _masked(ma, v) -> bool:
    """Whether ``v`` is a masked NumPy array or a dask array of masked chunks."""
    return isinstance(v, ma.MaskedArray) or isinstance(getattr(v, "_meta", None),
                                                        ma.MaskedArray)


def masked_isin(isin, x1, x2, invert: bool, kwargs: dict):
    """``isin(x1, x2)`` (a library's) of the data, ``x2``'s masked elements left out and
    ``x1``'s mask kept, where ``x1`` or ``x2`` is masked; None where neither is."""
    ma = sys.modules.get("numpy.ma")   # not imported: nothing is masked
    if ma is None or not (_masked(ma, x1) or _masked(ma, x2)):
        return None
    lazy = hasattr(x1, "_meta") or hasattr(x2, "_meta")
    if lazy:
        import dask.array as da

        ma = da.ma
    if _masked(sys.modules["numpy.ma"], x2):   # its unmasked elements only
        x2 = ma.getdata(x2).ravel()[~ma.getmaskarray(x2).ravel()]
    res = isin(ma.getdata(x1), x2, invert=invert, **kwargs)
    if not _masked(sys.modules["numpy.ma"], x1):
        return res
    return ma.masked_array(res, mask=ma.getmaskarray(x1))


for _backend_name in ("numpy", "dask"):
    register("isin", _backend_name)(_isin_of(_backend_name))
del _backend_name
