"""What every backend object provides (einops' ``_backends.py`` is the model).

A backend is one small class: how to recognise its arrays without importing its
library, how to import that library (lazily, checked), its ``array_api_compat``
namespace, and the executors that run xstride's extensions on its arrays. Code
outside ``xstride/_backends`` asks a backend object; it never asks which backend it
runs on.
"""

from __future__ import annotations

import contextvars
import importlib
import sys

from .._core.errors import error, type_error

__all__ = ["Backend"]

#: compat's inspection class -> its subclass whose ``dtypes()`` gives dtype objects
_INFO_CLASSES: dict[type, type] = {}


def _dtype_info(cls: type) -> type:
    """``cls`` (an ``__array_namespace_info__`` class of array_api_compat) with a
    ``dtypes`` whose every value is ``numpy.dtype(value)``, and whose ``dtypes`` and
    ``default_dtypes`` name themselves in their ``ValueError``s (an unknown kind or
    device: compat's said "unsupported kind: 'x'"). Made once per class."""
    sub = _INFO_CLASSES.get(cls)
    if sub is not None:
        return sub

    def dtypes(self, /, *, device=None, kind=None):
        import numpy as np

        name = "__array_namespace_info__().dtypes"
        try:
            found = cls.dtypes(self, device=device, kind=kind)
        except ValueError as exc:   # "unsupported kind: 'x'", named here
            if str(exc).startswith(name):   # a tuple's kind: compat's asked self.dtypes
                raise
            raise error(ValueError, name, exc) from None
        return {name: np.dtype(dt) for name, dt in found.items()}

    def default_dtypes(self, /, *, device=None):
        try:
            return cls.default_dtypes(self, device=device)
        except ValueError as exc:   # a device it does not know, named here
            raise error(ValueError, "__array_namespace_info__().default_dtypes", exc) from None

    dtypes.__doc__ = cls.dtypes.__doc__
    default_dtypes.__doc__ = cls.default_dtypes.__doc__
    sub = type(cls.__name__, (cls,), {"dtypes": dtypes, "default_dtypes": default_dtypes,
                                      "__module__": cls.__module__, "__doc__": cls.__doc__})
    return _INFO_CLASSES.setdefault(cls, sub)


class Backend:
    """Base class of the backend objects (one instance per backend, made once).

    Attributes
    ----------
    name : str
        The name users select it by (``xp.set_backend(name)``).
    executors : dict of str to str
        Executor kind (``"elementwise"``, ``"reductions"``, ``"scans"``, ``"philox"``,
        ``"morton"``, ``"sort"``, ``"segments"``, ``"tree"``, ...) -> the module that runs
        it on this backend's arrays.
    """

    name = ""
    #: The import name of its library (``sys.modules`` tells whether any array of this
    #: backend can exist yet).
    library = ""
    #: Its array type as users spell it in messages (``"numpy.ndarray"``).
    array_name = ""
    executors: dict[str, str] = {}

    def __init__(self):
        self._namespace = None
        self._loaded: dict[str, object] = {}
        self.peers: dict[str, Backend] = {}
        # this backend's options, per thread/context like the selection itself
        self._options: contextvars.ContextVar = contextvars.ContextVar(
            f"xstride_{self.name}_options", default=None)

    def __repr__(self) -> str:
        return f"<xstride backend {self.name!r}>"

    # ------------------------------------------------------------------ identity
    def owns(self, a) -> bool:
        """True for an array of this backend (never imports the library)."""
        raise NotImplementedError

    def array_type(self):
        """The array type of this backend if its library is imported, else None."""
        raise NotImplementedError

    def attach(self, peers: dict) -> None:
        """Called once by the registry with every backend object (name -> object)."""
        self.peers = peers

    def of_array(self, a):
        """The backend object (among the registry's) that owns ``a``, or None."""
        for be in self.peers.values():
            if be.owns(a):
                return be
        return None

    # ------------------------------------------------------------------ options
    def check_options(self, func: str, options: dict):
        """The options of ``set_backend(name, **options)``, checked; ``TypeError`` for a
        backend without options (the message names the first option given)."""
        for key, value in options.items():
            raise type_error(func, key, value, f"no such option; the {self.name} backend "
                                               "takes no options")
        return None

    def select_options(self, opts):
        """Make ``opts`` (from :meth:`check_options`) this context's options; returns
        the options they replace, which :meth:`restore_options` takes."""
        held = self._options.get()
        self._options.set(opts)
        return held

    def hold_options(self):
        """This context's options, which :meth:`restore_options` brings back after a
        later change (``use_backend``'s exit)."""
        return self._options.get()

    def restore_options(self, held) -> None:
        self._options.set(held)

    # ------------------------------------------------------------------ library
    def load(self):
        """The library module, imported and checked (``RuntimeError`` with the reason)."""
        raise NotImplementedError

    def namespace(self):
        """The ``array_api_compat`` namespace of this backend (imported on first use)."""
        ns = self._namespace
        if ns is None:
            self.load()
            ns = self._namespace = importlib.import_module(self.compat_module)
        return ns

    compat_module = ""

    def namespace_info(self):
        """The standard's inspection namespace of this backend: its compat namespace's
        ``__array_namespace_info__()``, whose ``dtypes()`` values are dtype objects, as
        its ``default_dtypes()`` values are on every backend (compat's dask and CuPy
        ``dtypes(kind="bool")`` gave the class ``numpy.bool``, its NumPy one a dtype)."""
        return _dtype_info(self.namespace().__array_namespace_info__)()

    def version(self) -> str | None:
        """The library's version, or None when it cannot be imported."""
        try:
            return str(self.load().__version__)
        except RuntimeError:
            return None

    # ------------------------------------------------------------------ executors
    def executor(self, kind: str):
        """The module that runs ``kind`` on this backend's arrays, or None."""
        mod = self._loaded.get(kind)
        if mod is None:
            path = self.executors.get(kind)
            if path is None:
                return None
            mod = self._loaded[kind] = importlib.import_module(path)
        return mod

    def executor_imported(self, kind: str) -> bool:
        """Whether the module of executor ``kind`` has been imported (by anyone): a
        module never imported has run nothing and recorded nothing."""
        path = self.executors.get(kind)
        return path is not None and path in sys.modules

    def mask_remedy(self, a) -> str | None:
        """None for an array ``a`` of this backend without a mask; for one that carries
        a mask (its data would count the masked elements), how to drop the mask, for
        the ``TypeError`` of the functions that refuse it."""
        return None

    def lost_remedy(self, a) -> str | None:
        """None for an array ``a`` of this backend whose data can still be read; for one
        whose data is gone (a dask array persisted on a cluster whose client has
        closed), what to say and do, for the ``ValueError`` of the functions that read
        it."""
        return None

    def without_empty_chunks(self, a):
        """``a`` (an array of this backend) as its functions take it: ``a`` itself here;
        the dask backend merges away chunks of no element, over which dask's own
        methods (``a.max()``) fail or compute wrong answers."""
        return a

    # ------------------------------------------------------------------ memory
    def asarray(self, value, dtype=None):
        """``value`` as an array of this backend (a host-device copy if needed)."""
        return self.load().asarray(value, dtype=dtype)

    def data_ptr(self, a) -> int:
        """Address of element 0 of ``a``."""
        raise NotImplementedError

    def buffer_range(self, a) -> tuple[int, int]:
        """``[lo, hi)`` byte addresses of the allocation behind ``a``."""
        raise NotImplementedError

    def make_view(self, a, layout):
        """The view of ``a``'s memory with ``layout`` (no bounds check)."""
        raise NotImplementedError

    def library_sliding_window_view(self, x, window, axes, writeable):
        """The library's own sliding-window view of ``x`` (for layouts no element Layout
        describes: items of no size, fields of records), or None where it has none."""
        return None

    def to_host(self, a):
        """``a`` as a NumPy array."""
        raise NotImplementedError

    def device_of(self, a):
        """The array API device of ``a`` (an array of this backend), as
        ``array_api_compat.device`` answers: its ``device`` attribute here (``"cpu"``
        of a NumPy array, a ``cupy.cuda.Device`` of a CuPy array)."""
        return getattr(a, "device", None)

    def synchronize(self) -> None:
        """Wait for the work queued on this backend's current stream (no-op on the host)."""

    def start_device_init(self) -> None:
        """Begin the device driver's initialisation on a background thread, so that it
        overlaps the imports that follow (a command's start); a no-op on the host."""

    def runtime_versions(self) -> dict:
        """Versions of the runtime below the library (``{}`` where there is none)."""
        return {}

    compiles_kernels = False
    """Whether first calls compile kernels (a program warms them up outside its timing)."""

    readonly_views = False
    """Whether arrays of this backend carry a writeable flag that views can clear."""

    immutable = False
    """Whether arrays of this backend cannot be written (dask: views of a task graph):
    ``out=``, ``copy_into`` and ``as_strided`` refuse them with ``TypeError``."""

    lazy = False
    """Whether results are task graphs computed on demand (``to_numpy`` computes)."""
