"""float16 in the linear algebra functions, one named ``TypeError`` on every backend.

NumPy's linalg refuses float16 ("array type float16 is unsupported in linalg", naming
no argument). The dask backend checks first (:func:`check_lapack_dtype`, also the NumPy
backend's ``matrix_rank`` and ``pinv``, whose empty matrices NumPy answered); on the NumPy
backend the other functions (``inv``, ``det``, ``svd``, ``eigh``, ``solve``,
``matrix_norm`` of ord 2, ...) are asked only once NumPy has refused the call:
``dispatch.follower`` calls :func:`lapack_dtype_error` on the error's path, so a valid
call pays nothing.
"""

from __future__ import annotations

import numpy as np

from .._core.errors import type_error

__all__ = ["check_lapack_dtype", "lapack_dtype_error"]

_ALLOWED = ("a float32, float64, complex, integer or bool array (float16 is unsupported "
            "in linalg, as in NumPy)")


def check_lapack_dtype(func: str, arg: str, x) -> None:
    """NumPy's linalg refuses float16 at the call ("array type float16 is unsupported in
    linalg"), of any size but ``pinv``'s empty matrices: refused on every size, named, on
    the NumPy and dask backends alike."""
    if x.dtype == np.float16:
        raise type_error(func, arg, x, _ALLOWED)


def lapack_dtype_error(exc: Exception, qualname: str, named) -> TypeError | None:
    """The named ``TypeError`` of a ``linalg`` call NumPy refused for a float16 argument
    (``exc``: its unnamed "array type float16 is unsupported in linalg"), naming the first
    float16 argument by the standard's name (NumPy's ``inv``, ``det`` and ``eigvalsh``
    call it ``a``); else None (the library's error, raised as it was)."""
    if not (isinstance(exc, TypeError) and qualname.startswith("linalg.")
            and "float16 is unsupported in linalg" in str(exc)):
        return None
    func = qualname.rsplit(".", 1)[-1]
    standard = ("x1", "x2") if func == "solve" else ("x",)   # the arrays, positional only
    for i, (name, value) in enumerate(named):
        if getattr(value, "dtype", None) == np.float16:
            return type_error(func, standard[i] if i < len(standard) else name, value,
                              _ALLOWED)
    return None
