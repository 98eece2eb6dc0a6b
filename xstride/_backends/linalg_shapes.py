"""An argument of a ``linalg`` function that is no stack of (square) matrices: one
``numpy.linalg.LinAlgError`` text on every backend.

The dask backend checks first (``dask_linalg.py``'s ``_check``, and ``linalg_fixes.py``'s
``check_solve`` and ``check_matrices`` on both backends, with :func:`not_matrices_error`
and :func:`not_square_error`); NumPy's linalg said
"1-dimensional array given. Array must be at least two-dimensional" and "Last 2
dimensions of the array must be square", naming neither the argument nor its shape.
``dispatch.follower`` calls :func:`linalg_shape_error` on the library's error path only
(as ``lapack_dtype.py``'s float16 error), so a valid call pays nothing.
"""

from __future__ import annotations

from numpy.linalg import LinAlgError

from .._core.errors import argument_error

__all__ = ["not_matrices_error", "not_square_error", "linalg_shape_error"]

#: NumPy's (and CuPy's) texts of an array of fewer than 2 dimensions, of no square matrix.
_NOT_MATRICES = "Array must be at least two-dimensional"
_NOT_SQUARE = "Last 2 dimensions of the array must be square"


def not_matrices_error(func: str, arg: str, shape) -> LinAlgError:
    """Argument ``arg`` of ``func``, of shape ``shape``, has fewer than two dimensions."""
    return argument_error(LinAlgError, func, arg, f"has shape {tuple(shape)}; expected a "
                                                  "stack of matrices (at least 2 dimensions)")


def not_square_error(func: str, arg: str, shape) -> LinAlgError:
    """Argument ``arg`` of ``func``, of shape ``shape``, holds matrices not square."""
    return argument_error(LinAlgError, func, arg, f"has shape {tuple(shape)}; expected a "
                                                  "stack of square matrices")


def linalg_shape_error(exc: Exception, qualname: str, named) -> LinAlgError | None:
    """The named ``LinAlgError`` of a ``linalg`` call the library refused (``exc``) for
    an argument of fewer than two dimensions or of matrices that are not square, naming
    the first such argument by the standard's name (``x``, ``solve``'s ``x1``: NumPy's
    ``inv`` calls it ``a``); else None (the library's error, raised as it was)."""
    text = str(exc)
    if qualname == "linalg.pinv" and isinstance(exc, ValueError) and named:
        # NumPy's pinv of a 0-D array: "max() arg is an empty sequence" (its 1-D one
        # raises the LinAlgError below)
        shape = getattr(named[0][1], "shape", None)
        if isinstance(shape, tuple) and len(shape) < 2:
            return not_matrices_error("pinv", "x", shape)
    if not (isinstance(exc, LinAlgError) and qualname.startswith("linalg.")
            and (_NOT_MATRICES in text or _NOT_SQUARE in text)):
        return None
    func = qualname.rsplit(".", 1)[-1]
    standard = ("x1", "x2") if func == "solve" else ("x",)   # the arrays, positional only
    for i, (name, value) in enumerate(named[:len(standard)]):
        shape = getattr(value, "shape", None)
        if not isinstance(shape, tuple):
            continue
        arg = standard[i] if i < len(standard) else name
        if len(shape) < 2:
            return not_matrices_error(func, arg, shape)
        if _NOT_SQUARE in text and shape[-1] != shape[-2]:
            return not_square_error(func, arg, shape)
    return None
