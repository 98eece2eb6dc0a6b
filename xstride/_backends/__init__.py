"""The backends: one object per backend, the registry that maps names to them, the
selection of the active one, and the lookup of a backend from arrays.

This package is the only code that names a backend. Everything else asks a backend
object (:class:`~xstride._backends._base.Backend`) for what it needs: its array type,
its library, its ``array_api_compat`` namespace, its executors.
"""

from __future__ import annotations

import numpy as np

from .._core.errors import error
from ._base import Backend
from .registry import DEFAULT, REGISTRY, each, get, names, of_array
from .select import backend_of, get_backend

__all__ = ["Backend", "REGISTRY", "DEFAULT", "get", "each", "of_array", "of", "of_extension",
           "active", "default", "names"]


def of(func: str, named_arrays) -> Backend:
    """The backend of the arrays in ``named_arrays``; ``TypeError`` if they mix backends.

    Same rules as :func:`xstride._backends.select.backend_of`, returning the object.
    """
    return get(backend_of(func, named_arrays, None))


def of_extension(func: str, named_arrays) -> Backend:
    """:func:`of` for xstride's own functions (``xp.rng``'s, ``morton_*``,
    ``sort_by_key``): NumPy scalars, given alone or in a list, count as Python scalars
    do (no array: the active backend), where :func:`of` takes them for NumPy when no
    array is given. So ``[np.uint64(1), 2]``, ``list(np.arange(3))`` and ``np.int64(5)``
    give a dask result under dask, as ``[1, 2]`` does (a NumPy result before, computed
    at once)."""
    kept = []
    for name, v in named_arrays:
        if isinstance(v, np.generic):
            continue
        if isinstance(v, (list, tuple)) and any(issubclass(t, np.generic)
                                                for t in set(map(type, v))):
            v = [None if isinstance(x, np.generic) else x for x in v]   # same positions
        kept.append((name, v))
    return of(func, kept)


def default() -> Backend:
    """The default backend object (NumPy)."""
    return get(DEFAULT)


def kernel_backend() -> Backend:
    """The backend whose executors compile CUDA kernels (the CUDA toolkit's)."""
    for be in each():
        if be.compiles_kernels:
            return be
    raise error(RuntimeError, "kernel_backend",
                "no backend of this build compiles CUDA kernels")  # pragma: no cover


def active() -> Backend:
    """The backend that creation functions use in this thread/context."""
    return get(get_backend())
