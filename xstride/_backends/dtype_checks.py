"""A ``dtype`` argument that is no dtype, named, on every backend.

``xp.zeros(3, dtype="foo")`` was NumPy's "zeros: data type 'foo' not understood" (no
argument named) on the NumPy backend and dask's two-line "An error occurred while
calling the wrap_func_shape_as_first_arg method registered to the numpy backend.
Original Message: ..." on the dask backend. :func:`dtype_argument_error` is the
``TypeError`` NumPy raises for it, naming the function and ``dtype``; the dispatch's
wrappers (``dispatch.creator`` and ``dispatch.follower``) ask it only once the
library has refused the call, so a call that works costs nothing more; on the
creation functions (:data:`TAKE_DTYPE`) only, and never over an error of xstride's
own checks. CuPy's creation functions raise NumPy's ``TypeError`` too (they read
``dtype`` with ``numpy.dtype``), so the CuPy backend gets the same message.
"""

from __future__ import annotations

import numpy as np

from .._core.errors import type_error
from .._core.names import CREATION

__all__ = ["dtype_argument_error"]

#: the functions whose ``dtype`` keyword is named here: the creation functions (the
#: others that take one, ``sum``, ``astype``, ``fft.fftfreq``, ..., check it themselves,
#: and one that takes none, ``any(x, dtype=1)``, keeps Python's "unexpected keyword")
TAKE_DTYPE = frozenset(CREATION + ("empty_like", "full_like", "ones_like", "zeros_like"))


def dtype_argument_error(exc: Exception, qualname: str, kwargs) -> TypeError | None:
    """After a library refused ``qualname(..., **kwargs)`` with ``exc``: the ``TypeError``
    naming ``dtype`` where ``kwargs`` holds one that NumPy reads as no dtype (with
    NumPy's reason), else None (the library's error stands, as does an error of
    xstride's own checks, which names the function already)."""
    dtype = kwargs.get("dtype") if kwargs else None
    name = qualname.rsplit(".", 1)[-1]
    if dtype is None or qualname not in TAKE_DTYPE or str(exc).startswith(f"{name}:"):
        return None
    try:
        np.dtype(dtype)
    except Exception as why:   # anything np.dtype refuses (TypeError, ValueError) is no dtype
        return type_error(name, "dtype", dtype, f"a dtype such as xstride.float64 ({why})")
    return None
