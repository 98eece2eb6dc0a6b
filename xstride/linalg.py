"""The array API ``linalg`` extension: each function runs on its arrays' backend.

Implementations come from ``array_api_compat.numpy.linalg`` /
``array_api_compat.cupy.linalg``; see the standard for signatures and semantics.
"""

from ._core.names import LINALG as _LINALG
from ._backends.subnamespace import populate as _populate

__all__, __getattr__ = _populate(globals(), "linalg", _LINALG)


def __dir__():  # what a module's dir() lists, and every name, made or not
    return sorted(set(globals()) | set(__all__))
