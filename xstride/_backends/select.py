"""Backend selection and array-to-backend lookup.

The active backend is a :class:`contextvars.ContextVar`, so each thread (and each
asyncio task) has its own selection. Functions that take arrays never look at it:
they follow their arrays (see :func:`backend_of`). Creation functions use it.

CuPy is imported only when the user asks for the ``"cupy"`` backend, or when an
array that is already a CuPy array reaches xstride (then ``cupy`` is in
``sys.modules`` anyway).
"""

from __future__ import annotations

import contextvars
import os
import re
import sys

import numpy as np

from .._core.errors import (error, mixed_backends_error, setting_error, type_error,
                            unavailable_error, value_error)
from .axis_errors import AXIS_PARAMETERS
from .axis_values import is_0d
from .registry import REGISTRY, each, get

__all__ = [
    "BACKENDS",
    "normalize_name",
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
BACKENDS = tuple(REGISTRY)
_ENV = "XSTRIDE_BACKEND"


def normalize_name(name, *, source: str = "set_backend", arg: str = "name",
                   also: str = "") -> str:
    """A backend name, lowercased; surrounding blanks are an error (DESIGN.md).
    ``also``: what else ``source`` takes, appended to the list of names."""
    if not isinstance(name, str):
        raise type_error(source, arg, name, "a str (a backend name)")
    key = name.lower()
    if key not in BACKENDS:
        raise value_error(source, arg, f"names an unknown backend {name!r}; valid names "
                          "are " + ", ".join(repr(b) for b in BACKENDS) + also)
    return key


def load_cupy():
    """Import CuPy and check that a device answers (``RuntimeError`` with the reason)."""
    return get("cupy").load()


def load_for(func: str, name: str):
    """The library of backend ``name`` for public function ``func``; its
    ``RuntimeError`` (CuPy missing, no device) names ``func``."""
    try:
        return get(name).load()
    except RuntimeError as exc:
        raise unavailable_error(func, exc) from None


def cupy_ndarray():
    """``cupy.ndarray`` if CuPy has been imported by anyone, else ``None``."""
    return get("cupy").array_type()


# --------------------------------------------------------------------- selection
class _Unavailable(str):
    """The process default when ``XSTRIDE_BACKEND`` names a backend that cannot load:
    ``import xstride`` succeeds (so ``python -m xstride info`` can say why), and the
    first use of the active backend raises the reason."""

    where = ""   # the environment variable and its value
    why = ""     # the backend's own message


class _Refused(str):
    """The process default when ``XSTRIDE_BACKEND`` names no backend and this import is
    the start of the command line (:func:`_cli_is_starting`): the import succeeds so that
    ``python -m xstride`` can report the value in one line (status 2), not a traceback;
    any use of the active backend raises the :class:`SettingError`."""

    raw = ""     # the variable's value


def _env_error(raw: str):
    """The :class:`SettingError` of ``XSTRIDE_BACKEND`` holding ``raw``: the variable, the
    value and the valid names."""
    return setting_error(_ENV, raw, "one of " + ", ".join(repr(b) for b in BACKENDS)
                         + " (case-insensitive, no surrounding blanks)")


#: ``-m`` with its module in one word, after other flags of the group (``-mxstride``,
#: ``-Imxstride``, ``-xmxstride``): the word at that place is the ``-m`` group (a flag
#: that takes a value would have taken the rest of its group)
_JOINED_M = re.compile(r"-[^m-]*m(.+)")


def _cli_is_starting() -> bool:
    """Whether this import is ``python -m xstride`` (or the ``xstride`` script) finding
    its ``__main__``: Python imports the package before any line of the command runs, so
    a bad ``XSTRIDE_BACKEND`` would be a traceback the command cannot catch. While ``-m``
    locates its module ``sys.argv[0]`` is ``"-m"`` and the module's name is in
    ``sys.orig_argv`` just before the command's own arguments, or joined to the flag
    (``python -mxstride``)."""
    argv, orig = sys.argv, getattr(sys, "orig_argv", [])
    if argv and argv[0] == "-m" and len(orig) >= len(argv):
        joined = _JOINED_M.match(module := orig[len(orig) - len(argv)])
        return (joined.group(1) if joined else module) in ("xstride", "xstride.__main__")
    return bool(argv) and os.path.basename(argv[0]).removesuffix(".exe") == "xstride"


def _initial_backend() -> str:
    raw = os.environ.get(_ENV)
    if raw is None or raw == "":
        return "numpy"
    if raw.lower() not in BACKENDS:
        if _cli_is_starting():
            refused = _Refused("numpy")
            refused.raw = raw
            return refused
        raise _env_error(raw)   # a ValueError (SettingError)
    name = raw.lower()
    try:
        get(name).load()
    except RuntimeError as exc:
        failed = _Unavailable(name)
        failed.where, failed.why = f"environment variable {_ENV}={raw!r}", str(exc)
        return failed
    return name


_current: contextvars.ContextVar[str] = contextvars.ContextVar(
    "xstride_backend", default=_initial_backend()
)
#: This context's open ``use_backend`` entries, oldest first: (object, (backend, options
#: it replaced) of every backend, selection it replaced). Kept per context, so threads
#: and asyncio tasks that enter one shared object each restore their own.
_entered: contextvars.ContextVar[tuple] = contextvars.ContextVar("xstride_use_backend",
                                                                 default=())


def check_active(name: str) -> str:
    """``name`` (the active selection), or the ``RuntimeError`` of a failed default (the
    ``SettingError`` of a refused one)."""
    if type(name) is _Unavailable:
        raise error(RuntimeError, name.where, name.why)
    if type(name) is _Refused:
        raise _env_error(name.raw)
    return name


def check_setting() -> None:
    """Raise the :class:`SettingError` of a bad ``XSTRIDE_BACKEND`` that the command line
    deferred (see :class:`_Refused`); nothing otherwise."""
    default = _current.get()
    if type(default) is _Refused:
        raise _env_error(default.raw)


def get_backend() -> str:
    """Name of the active backend of this thread/context: ``"numpy"``, ``"cupy"`` or
    ``"dask"``.

    Returns
    -------
    str
        The name given to the innermost :class:`use_backend` or the last
        :func:`set_backend` of this thread/context (lowercased), else the process
        default: ``XSTRIDE_BACKEND`` (lowercased) or ``"numpy"``.

    Raises
    ------
    RuntimeError
        ``XSTRIDE_BACKEND`` named a backend that could not be loaded at import and no
        backend has been selected since; the message carries the reason.
    ValueError
        :class:`~xstride._core.errors.SettingError`: ``XSTRIDE_BACKEND`` names no
        backend and xstride was imported by its command line (``python -m xstride``),
        which defers that error to the first use of the active backend.
    """
    return check_active(_current.get())


def set_backend(name: str, **options) -> None:
    """Select the backend that creation functions use in this thread/context.

    Parameters
    ----------
    name : {"numpy", "cupy", "dask"}
        Case-insensitive; surrounding blanks are an error.
    **options
        Options of the backend; only ``"dask"`` takes any: ``chunks="auto"`` (dask's
        ``chunks`` of new arrays: ``"auto"``, an int, a byte size such as
        ``"64MiB"``, or one entry per axis; a 1-D array whose length is the sum of
        a tuple of ints takes them as its block lengths, as dask does; an array of
        lower rank than the tuple's length takes its leading entries, one of higher
        rank is a ``ValueError``) and
        ``chunk_backend="numpy"`` (or
        ``"cupy"``: the chunks are CuPy arrays). See ``docs/dask.md``.

    Raises
    ------
    TypeError
        ``name`` is not a string; an option the backend does not take, or of the
        wrong type.
    ValueError
        Unknown name (the message lists the valid names); a bad option value
        (``chunk_backend="torch"``, ``chunks=0``). The backend is unchanged.
    RuntimeError
        The backend (or the chunk backend) cannot be loaded: CuPy or dask missing,
        no device; the message carries the reason. The backend is unchanged (no
        silent fallback).

    Notes
    -----
    The selection is held in a :class:`contextvars.ContextVar`: a new thread starts
    from the process default (``XSTRIDE_BACKEND``, else ``"numpy"``, with default
    options), not from the selection of the thread that started it.
    """
    key = normalize_name(name)
    be = get(key)
    opts = _checked_options("set_backend", be, options)
    load_for("set_backend", key)
    be.select_options(opts)
    _current.set(key)


def _checked_options(func: str, be, options: dict):
    try:
        return be.check_options(func, options)
    except RuntimeError as exc:  # a chunk backend that cannot load
        raise unavailable_error(func, exc) from None


class use_backend:  # noqa: N801 - used as a function: ``with xp.use_backend("cupy"):``
    """Context manager: select a backend inside a ``with`` block, restore it on exit.

    Takes the options of :func:`set_backend` (``use_backend("dask", chunks=1000)``).
    The name and the options are checked when ``use_backend`` is called, with the
    same errors as :func:`set_backend`; the previous selection (and every backend's
    previous options, also those a :func:`set_backend` inside the block changed) are
    restored on exit, also when the block raises. One object may
    be entered again, also while it is entered, and from several threads or asyncio
    tasks at once (each exit restores what its own entry replaced, in its own context;
    a block exited while a later one is still open leaves that to the later one's exit).
    A generator runs in its caller's context: a block around its ``yield`` is in force
    in the caller between the items; enter it around the consuming loop instead.

    Parameters
    ----------
    name : {"numpy", "cupy", "dask"}
        The backend to select inside the block; case-insensitive, surrounding blanks
        are an error.
    **options
        The options of :func:`set_backend` (only ``"dask"`` takes any: ``chunks``,
        ``chunk_backend``), in force inside the block.

    Returns
    -------
    use_backend
        A context manager; ``with use_backend(name) as active:`` binds ``active`` to the
        backend's name, lowercased.

    Raises
    ------
    TypeError, ValueError, RuntimeError
        As :func:`set_backend`, at the call (before the block): a name that is not a
        string or names no backend, a bad option, a backend that cannot be loaded.
    RuntimeError
        On exit, an object exited without an entry in this thread or task.

    Examples
    --------
    >>> import xstride as xp
    >>> with xp.use_backend("numpy"):
    ...     a = xp.zeros(3)
    """

    __slots__ = ("name", "options")

    def __init__(self, name: str, **options):
        key = normalize_name(name, source="use_backend")
        be = get(key)
        self.options = _checked_options("use_backend", be, options)
        load_for("use_backend", key)
        self.name = key

    def __enter__(self) -> str:
        target = get(self.name)
        # every backend's options, not only the target's: a ``set_backend`` inside the
        # block changes another backend's, and the exit undoes it with the selection
        held = tuple((be, be.select_options(self.options) if be is target
                      else be.hold_options()) for be in each())
        entry = (self, held, _current.get())
        _current.set(self.name)
        _entered.set(_entered.get() + (entry,))
        return self.name

    def __exit__(self, *exc) -> None:
        stack = _entered.get()
        # this context's latest entry of this object (``with`` blocks nest: the last)
        at = next((i for i in range(len(stack) - 1, -1, -1) if stack[i][0] is self), None)
        if at is None:
            raise error(RuntimeError, "use_backend",
                        f"{self!r} is exited without an entry in this thread or task")
        _, held, before = stack[at]
        if at < len(stack) - 1:
            # a later entry is still open (two generators' blocks closed oldest first):
            # it stays in force, and its exit restores what this one replaced (a reset
            # to its own entry's value left this block's backend selected after both)
            later = stack[at + 1]
            stack = stack[:at] + ((later[0], held, before),) + stack[at + 2:]
            _entered.set(stack)
            return
        _entered.set(stack[:at])
        _current.set(before)
        for be, options in held:
            be.restore_options(options)

    def __repr__(self) -> str:
        return f"use_backend({self.name!r})"


# --------------------------------------------------------------------- arrays → backend
#: the types of a list's or tuple's items that say it holds no array (nested lists are
#: not searched): such a sequence is passed over without a look at each item, which
#: took about 1 us an item (``sort_by_key`` of a list of 10**6 ints: 1.2 s)
_NO_ARRAY = frozenset({int, bool, float, complex, str, bytes, type(None), list, tuple})


def backend_of_array(a) -> str | None:
    """The name of the backend that owns array ``a`` (NumPy scalars count as NumPy), or
    ``None`` for anything that is no array of a registered backend."""
    if isinstance(a, (np.ndarray, np.generic)):   # the common case, without a loop
        return "numpy"
    for be in each():
        if be.owns(a):
            return be.name
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
        (``numpy.float64(1.0)``), and NumPy arrays given for an axis argument
        (``axis=numpy.asarray(1)``, ``axis_values.py``; of more dimensions, for the
        function's axis check to name), count only when no argument is an array, since
        CuPy takes them as scalars and they name axes, not data. Beside CuPy arrays an
        array of axes of one or more dimensions is refused as a mixed call (CuPy's
        functions would take it as a sequence of axes unchecked).
    default : str, optional
        Returned when no argument is an array; the active backend if omitted.

    Raises
    ------
    TypeError
        NumPy and CuPy arrays are mixed; the message names every array argument
        and its backend.
    """
    seen: list[tuple[str, str]] = []
    axis_arrays: list[tuple[str, str]] = []   # NumPy arrays of axes, of 1 or more dims
    numpy_scalar = False
    for name, value in named_arrays:
        if isinstance(value, (list, tuple)):
            if _NO_ARRAY.issuperset(map(type, value)):   # no array in it, at C speed
                continue
            items = ((f"{name}[{i}]", v) for i, v in enumerate(value))
        else:
            items = ((name, value),)
        axis = name in AXIS_PARAMETERS
        for label, item in items:
            if isinstance(item, np.generic):  # a scalar to CuPy too: weak, like 2.0
                numpy_scalar = True
                continue
            if axis and type(item) is np.ndarray:   # axis=numpy.asarray(1): an axis, as
                numpy_scalar = True                 # 1 is (axis_values.py); of more
                if item.ndim:                       # dimensions, for the axis check
                    axis_arrays.append((label, "numpy"))
                continue
            b = backend_of_array(item)
            if b is not None:
                seen.append((label, b))
    if not seen:
        if numpy_scalar:
            return "numpy"
        return default if default is not None else check_active(_current.get())
    first = seen[0][1]
    for _, b in seen[1:]:
        if b != first:
            raise mixed_backends_error(func, seen)
    if axis_arrays and first == "cupy":
        # CuPy's roll, count_nonzero, ... take any sequence of axes without the checks
        # the NumPy and dask backends' functions get: an array of axes stays refused there
        raise mixed_backends_error(func, seen + axis_arrays)
    return first


def namespace(backend: str):
    """The ``array_api_compat`` namespace of a backend (imported on first use)."""
    return get(check_active(backend)).namespace()


def array_module(backend: str):
    """The plain library module of a backend: ``numpy`` or ``cupy``."""
    return get(check_active(backend)).load()
