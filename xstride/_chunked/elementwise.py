"""The dask backend's elementwise executor: dask computes, nothing is written in place.

``xstride.elementwise`` runs dask's own functions (through ``array_api_compat``) for
calls without ``out=``; ``out=`` and ``copy_into`` are refused before they get here
(the backend's arrays are immutable), so the two entry points below only restate it.
"""

from __future__ import annotations

from .._core.errors import immutable_error

__all__ = ["ufunc_into", "copy_into", "ENGINE", "ACCEPTS_SEQUENCES", "WHOLE_ELEMENTS"]

#: The library computes these functions: no engine of xstride's here.
ENGINE = False
#: ``copy_into`` takes no nested lists (it takes nothing: see the module docstring).
ACCEPTS_SEQUENCES = False
#: Outputs would be whole elements.
WHOLE_ELEMENTS = True


def ufunc_into(func: str, args: tuple, out):
    """Refused: a dask array cannot be written."""
    raise immutable_error(func, "out", out, _library(out), "use the returned array")


def copy_into(dst, src):
    """Refused: a dask array cannot be written."""
    raise immutable_error("copy_into", "dst", dst, _library(dst),
                          "use src (or an expression of it)")


def _library(a) -> str:
    return type(a).__module__.split(".")[0]
