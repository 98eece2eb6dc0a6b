"""Backend name -> backend object: the registry (one instance per backend, made once)."""

from __future__ import annotations

from ._base import Backend
from .cupy import CupyBackend
from .dask import DaskBackend
from .numpy import NumpyBackend

__all__ = ["REGISTRY", "DEFAULT", "get", "each", "names", "of_array"]

#: Backend name -> class, in the order names are listed in error messages.
REGISTRY: dict[str, type[Backend]] = {"numpy": NumpyBackend, "cupy": CupyBackend,
                                      "dask": DaskBackend}
#: The backend of a process that selects none; the namespace's constants and dtypes
#: are its library's (they compare equal across NumPy and CuPy).
DEFAULT = "numpy"

_INSTANCES: dict[str, Backend] = {name: cls() for name, cls in REGISTRY.items()}
for _be in _INSTANCES.values():
    _be.attach(_INSTANCES)
del _be


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
