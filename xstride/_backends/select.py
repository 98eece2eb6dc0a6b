"""Backend selection and array-to-backend lookup.

The active backend is a :class:`contextvars.ContextVar`, so each thread (and each
asyncio task) has its own selection. Functions that take arrays never look at it:
they follow their arrays (see :func:`backend_of`). Creation functions use it.

CuPy is imported only when the user asks for the ``"cupy"`` backend, or when an
array that is already a CuPy array reaches xstride (then ``cupy`` is in
``sys.modules`` anyway).
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import sys

import numpy as np

from .._core.errors import mixed_backends_error

__all__ = [
    "BACKENDS",
    "set_backend",
    "get_backend",
    "use_backend",
    "backend_of",
    "backend_of_array",
    "namespace",
    "array_module",
    "load_cupy",
    "cupy_ndarray",
]

#: Valid backend names, in the order they are listed in error messages.
BACKENDS = ("numpy", "cupy")
_ENV = "XSTRIDE_BACKEND"


def _normalize(name, *, source: str = "set_backend") -> str:
    if not isinstance(name, str):
        raise TypeError(f"{source}: backend name must be a str, got {type(name).__name__}")
    key = name.lower()
    if key not in BACKENDS:
        raise ValueError(
            f"{source}: unknown backend {name!r}; valid names are "
            + ", ".join(repr(b) for b in BACKENDS)
        )
    return key


# --------------------------------------------------------------------- CuPy loading
_cupy_failure: str | None = None


def load_cupy():
    """Import CuPy and check that a device answers.

    Returns
    -------
    module
        The ``cupy`` module.

    Raises
    ------
    RuntimeError
        CuPy is not installed, fails to import, or no device answers; the message
        carries the import error or the driver's message.
    """
    global _cupy_failure
    mod = sys.modules.get("cupy")
    if mod is not None and _cupy_failure is None and getattr(mod, "_xstride_checked", False):
        return mod
    try:
        import cupy
    except Exception as exc:  # ImportError, or a broken CUDA install raising anything
        _cupy_failure = f"CuPy could not be imported: {type(exc).__name__}: {exc}"
        raise RuntimeError(f"backend 'cupy' is unavailable: {_cupy_failure}") from None
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:  # cupy_backends.cuda.api.runtime.CUDARuntimeError and friends
        _cupy_failure = f"no device answers: {type(exc).__name__}: {exc}"
        raise RuntimeError(f"backend 'cupy' is unavailable: {_cupy_failure}") from None
    if count < 1:
        _cupy_failure = "no device answers: the runtime reports 0 devices"
        raise RuntimeError(f"backend 'cupy' is unavailable: {_cupy_failure}")
    _cupy_failure = None
    cupy._xstride_checked = True
    return cupy


def cupy_ndarray():
    """``cupy.ndarray`` if CuPy has been imported by anyone, else ``None``."""
    mod = sys.modules.get("cupy")
    return None if mod is None else getattr(mod, "ndarray", None)


# --------------------------------------------------------------------- selection
def _initial_backend() -> str:
    raw = os.environ.get(_ENV)
    if raw is None or raw.strip() == "":
        return "numpy"
    try:
        name = _normalize(raw.strip(), source=f"environment variable {_ENV}")
    except (TypeError, ValueError) as exc:
        raise ValueError(str(exc)) from None
    if name == "cupy":
        try:
            load_cupy()
        except RuntimeError as exc:
            raise RuntimeError(f"environment variable {_ENV}={raw!r}: {exc}") from None
    return name


_current: contextvars.ContextVar[str] = contextvars.ContextVar(
    "xstride_backend", default=_initial_backend()
)


def get_backend() -> str:
    """Name of the active backend of this thread/context: ``"numpy"`` or ``"cupy"``."""
    return _current.get()


def set_backend(name: str) -> None:
    """Select the backend that creation functions use in this thread/context.

    Parameters
    ----------
    name : {"numpy", "cupy"}
        Case-insensitive.

    Raises
    ------
    TypeError
        ``name`` is not a string.
    ValueError
        Unknown name; the message lists the valid names. The backend is unchanged.
    RuntimeError
        ``"cupy"`` was asked for but CuPy is missing or no device answers; the
        message carries the reason. The backend is unchanged (no silent fallback).

    Notes
    -----
    The selection is held in a :class:`contextvars.ContextVar`: a new thread starts
    from the process default (``XSTRIDE_BACKEND``, else ``"numpy"``), not from the
    selection of the thread that started it.
    """
    key = _normalize(name)
    if key == "cupy":
        load_cupy()
    _current.set(key)


def use_backend(name: str):
    """Context manager: select a backend inside a ``with`` block, restore it on exit.

    The name is checked when ``use_backend`` is called, with the same errors as
    :func:`set_backend`; the previous selection is restored on exit, also when the
    block raises.

    Examples
    --------
    >>> import xstride as xp
    >>> with xp.use_backend("numpy"):
    ...     a = xp.zeros(3)
    """
    key = _normalize(name, source="use_backend")
    if key == "cupy":
        load_cupy()
    return _selected(key)


@contextlib.contextmanager
def _selected(key: str):
    token = _current.set(key)
    try:
        yield key
    finally:
        _current.reset(token)


# --------------------------------------------------------------------- arrays → backend
def backend_of_array(a) -> str | None:
    """``"numpy"``, ``"cupy"``, or ``None`` for anything that is not an array of either."""
    t = type(a)
    if t is np.ndarray or isinstance(a, np.generic) or isinstance(a, np.ndarray):
        return "numpy"
    ct = cupy_ndarray()
    if ct is not None and isinstance(a, ct):
        return "cupy"
    return None


def backend_of(func: str, named_arrays, default: str | None = None) -> str:
    """Backend of the arrays in ``named_arrays``; raise if they mix backends.

    Parameters
    ----------
    func : str
        Name of the public function, for the error message.
    named_arrays : iterable of (name, value)
        Arguments to inspect; lists and tuples are searched one level deep.
        Non-arrays (Python scalars, dtypes, None) are ignored; NumPy scalars
        (``numpy.float64(1.0)``) count only when no argument is an array, since CuPy
        takes them as scalars.
    default : str, optional
        Returned when no argument is an array; the active backend if omitted.

    Raises
    ------
    TypeError
        NumPy and CuPy arrays are mixed; the message names every array argument
        and its backend.
    """
    seen: list[tuple[str, str]] = []
    numpy_scalar = False
    for name, value in named_arrays:
        items = ((f"{name}[{i}]", v) for i, v in enumerate(value)) \
            if isinstance(value, (list, tuple)) else ((name, value),)
        for label, item in items:
            if isinstance(item, np.generic):  # a scalar to CuPy too: weak, like 2.0
                numpy_scalar = True
                continue
            b = backend_of_array(item)
            if b is not None:
                seen.append((label, b))
    if not seen:
        if numpy_scalar:
            return "numpy"
        return default if default is not None else _current.get()
    first = seen[0][1]
    for _, b in seen[1:]:
        if b != first:
            raise mixed_backends_error(func, seen)
    return first


_namespaces: dict[str, object] = {}


def namespace(backend: str):
    """The ``array_api_compat`` namespace of a backend (imported on first use)."""
    ns = _namespaces.get(backend)
    if ns is None:
        if backend == "numpy":
            import array_api_compat.numpy as ns
        elif backend == "cupy":
            load_cupy()
            import array_api_compat.cupy as ns
        else:  # pragma: no cover - guarded by _normalize everywhere
            raise ValueError(f"unknown backend {backend!r}")
        _namespaces[backend] = ns
    return ns


def array_module(backend: str):
    """The plain library module of a backend: ``numpy`` or ``cupy``."""
    if backend == "numpy":
        return np
    return load_cupy()
