"""xstride: one array API namespace for NumPy and CuPy.

``import xstride as xp`` gives every name of the array API standard (2025.12). A
function that takes arrays runs on the backend of its arrays; a creation function
(``asarray``, ``zeros``, ``arange``, ...) runs on the active backend, chosen with
:func:`set_backend`, :func:`use_backend` or the ``XSTRIDE_BACKEND`` environment
variable. Results are plain ``numpy.ndarray`` / ``cupy.ndarray``.

Importing xstride never imports CuPy; CuPy is imported when the ``"cupy"`` backend
is selected.
"""

from __future__ import annotations

import importlib as _importlib
import types as _types

import numpy as _np

from . import _backends
from ._backends import dispatch as _dispatch
from ._backends import overrides as _overrides  # noqa: F401  (the array-API fixes register)
from ._backends.convert import array_namespace, device, get_array_module, to_device, to_numpy
from ._backends.select import get_backend, set_backend, use_backend
from ._core import names as _names
from . import elementwise, reductions  # noqa: F401  (register the engine and the reductions)

__version__ = "0.1.0"
__array_api_version__ = _names.API_VERSION

# The constants and dtypes are NumPy's own objects: array_api_compat.numpy takes them
# from NumPy unchanged (tests/test_import_cost.py checks), so they need no namespace.
for _n in _names.CONSTANTS + _names.DTYPES:
    globals()[_n] = getattr(_np, _n)
del _n

# The standard's functions: a dispatching wrapper per name, made on first access (it
# copies the name, docstring and signature of the NumPy backend's implementation), so
# that importing xstride imports no backend's array_api_compat namespace.
_CREATION = frozenset(_names.CREATION)
_STANDARD = _CREATION | frozenset(_names.FUNCTIONS)


def _wrapper(name: str):
    """The namespace's function ``name`` (a standard name). Two threads may both make
    one; the first stored is the one every caller gets (``dict.setdefault`` is atomic),
    and no lock is held while a wrapper is made (making one may import modules)."""
    make = _dispatch.creator if name in _CREATION else _dispatch.follower
    return globals().setdefault(name, make(name))


def __array_namespace_info__():
    """Inspection namespace of the active backend (array API standard, "Inspection").

    Returns the ``__array_namespace_info__()`` object of the active backend's
    ``array_api_compat`` namespace (``numpy``, ``cupy`` or ``dask.array``), whose
    ``dtypes()`` values are dtype objects on every backend, as ``default_dtypes()``'s are.
    """
    return _backends.active().namespace_info()


# xstride's own public names, resolved on first use so that importing xstride stays
# cheap and never imports CuPy or pytest.
_LAZY_MODULES = ("cuda", "rng", "algorithms", "layout", "views", "kernel_testing", "fusion",
                 "linalg", "fft")
_LAZY_NAMES = {
    "as_strided": "views",
    "sliding_window_view": "views",
    "copy_into": "views",
    "Layout": "layout",
    "fuse": "fusion",
    "FusionWarning": "fusion",
}

_EXTENSIONS = (
    "set_backend", "get_backend", "use_backend", "get_array_module", "array_namespace",
    "to_numpy", "to_device", "device", "__array_api_version__", "__array_namespace_info__",
    "elementwise", "reductions",
) + _LAZY_MODULES + tuple(_LAZY_NAMES)

__all__ = sorted(
    set(_names.CONSTANTS + _names.DTYPES + _names.CREATION + _names.FUNCTIONS + _EXTENSIONS)
)


def __getattr__(name: str):
    if name in _STANDARD:
        return _wrapper(name)
    if name in _LAZY_MODULES:
        mod = _importlib.import_module(f"{__name__}.{name}")
        globals()[name] = mod
        return mod
    if name in _LAZY_NAMES:
        mod = _importlib.import_module(f"{__name__}.{_LAZY_NAMES[name]}")
        value = getattr(mod, name)
        globals()[name] = value
        return value
    # Names outside the standard that array_api_compat.numpy offers (float16,
    # nanmean, ...): passed through, dispatched on their arguments like the rest.
    np_ns = _backends.default().namespace() if not name.startswith("_") else None
    if np_ns is not None and hasattr(np_ns, name):
        value = getattr(np_ns, name)
        if isinstance(value, _types.ModuleType):
            raise AttributeError(f"module 'xstride' has no attribute {name!r}")
        if callable(value) and not isinstance(value, type):
            value = _dispatch.follower(name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'xstride' has no attribute {name!r}")


def __dir__():
    return __all__
