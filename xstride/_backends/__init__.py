"""The backends: one object per backend, the registry that maps names to them, and
the lookup of a backend from arrays.

This package is the only code that names a backend. Everything else asks a backend
object (:class:`~xstride._backends._base.Backend`) for what it needs: its array type,
its library, its ``array_api_compat`` namespace, its executors.
"""

from __future__ import annotations

from ._base import Backend
from .cupy import CupyBackend
from .numpy import NumpyBackend

__all__ = ["Backend", "REGISTRY", "get", "each", "of_array", "of", "active", "default",
           "names"]

#: Backend name -> class, in the order names are listed in error messages.
REGISTRY: dict[str, type[Backend]] = {"numpy": NumpyBackend, "cupy": CupyBackend}

_INSTANCES: dict[str, Backend] = {name: cls() for name, cls in REGISTRY.items()}
#: The backend of a process that selects none; the namespace's constants and dtypes
#: are its library's (they compare equal across NumPy and CuPy).
DEFAULT = "numpy"


def names() -> tuple[str, ...]:
    """The valid backend names."""
    return tuple(REGISTRY)


def get(name: str) -> Backend:
    """The backend object of a (normalized) name."""
    return _INSTANCES[name]


def each() -> tuple[Backend, ...]:
    """Every backend object, in registry order."""
    return tuple(_INSTANCES.values())


def of_array(a) -> Backend | None:
    """The backend of array ``a``, or None for anything that is no array of a backend."""
    for be in _INSTANCES.values():
        if be.owns(a):
            return be
    return None


def of(func: str, named_arrays, default: Backend | None = None) -> Backend:
    """The backend of the arrays in ``named_arrays``; ``TypeError`` if they mix backends.

    See :func:`xstride._backends.select.backend_of` (the same rules, by object).
    """
    from .select import backend_of

    name = backend_of(func, named_arrays, None if default is None else default.name)
    return _INSTANCES[name]


def default() -> Backend:
    """The default backend object (NumPy)."""
    return _INSTANCES[DEFAULT]


def active() -> Backend:
    """The backend that creation functions use in this thread/context."""
    from .select import get_backend

    return _INSTANCES[get_backend()]
