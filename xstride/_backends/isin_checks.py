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
"""

from __future__ import annotations

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
        if invert or kwargs:
            return library[0](x1, x2, invert=bool(invert), **kwargs)
        return library[0](x1, x2)   # the common call: no keywords (0.3 us less)
    return isin


for _backend_name in ("numpy", "dask"):
    register("isin", _backend_name)(_isin_of(_backend_name))
del _backend_name
