"""The dask backend's ``chunks`` option against the shape of one array.

The option is one value for every array the backend makes (docs/dask.md): ``"auto"``,
an int, a byte size, or a tuple with one entry per axis. A tuple of another length
than the array's rank is not per-axis for that array (dask would read ``(13, 3)`` for
a 1-D array as its block lengths and fail with its own message, naming neither the
function nor the option); :func:`fit_option` says so in the caller's name.
"""

from __future__ import annotations

from .._core.errors import value_error

__all__ = ["fit_option"]


def fit_option(func: str, chunks, shape) -> None:
    """Raise when ``chunks``, the backend's option, is a tuple whose length is not the
    rank of ``shape`` (the shape of the array ``func`` makes); a 1-D array takes a
    tuple of block lengths that add up to its length, as dask does.

    Raises
    ------
    ValueError
        Naming ``func``, the option's value and the array's shape.
    """
    if not isinstance(chunks, tuple):
        return
    shape = tuple(shape)
    if len(chunks) == len(shape):
        return
    if len(shape) == 1 and all(type(c) is int for c in chunks) and sum(chunks) == shape[0]:
        return
    raise value_error(func, "chunks", f"is the dask backend's option {chunks!r}: "
                                      f"{len(chunks)} entries, one per axis, but the array "
                                      f"has shape {shape}; give this call its own chunks= "
                                      "(creation functions), or set the option to 'auto', "
                                      "an int or a byte size for arrays of several ranks")
