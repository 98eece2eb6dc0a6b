"""Conversions between backends, and the lookup of a module from arrays."""

from __future__ import annotations

import numpy as np

from . import dispatch
from . import select as _backend
from .masked_asarray import SEQUENCES, masked_items
from .registry import get, of_array
from .._core.errors import type_error, unavailable_error, value_error

__all__ = ["get_array_module", "array_namespace", "to_numpy", "to_device", "device"]


def _named(arrays):
    return ((f"arrays[{i}]", a) for i, a in enumerate(arrays))


def _traced(qualname: str, arrays):
    """Inside ``xp.fuse``'s trace, the tracer's answer for a stand-in argument (it
    refuses: a module looked up from a stand-in would pick the branch of the active
    backend, and the kernel would keep it); else NotImplemented."""
    hook = dispatch.TRACE_HOOK
    return NotImplemented if hook is None else hook(qualname, arrays, {})


def get_array_module(*arrays):
    """The library module of the arrays: ``numpy``, ``cupy`` or ``dask.array``.

    Parameters
    ----------
    *arrays : numpy.ndarray, cupy.ndarray or dask.array.Array
        Other objects (Python scalars, None) are ignored.

    Returns
    -------
    module
        ``numpy``, ``cupy`` or ``dask.array``; the active backend's module when no
        array is given.

    Raises
    ------
    TypeError
        NumPy and CuPy arrays are mixed.
    """
    got = _traced("get_array_module", arrays)
    if got is not NotImplemented:
        return got
    return _backend.array_module(_backend.backend_of("get_array_module", _named(arrays)))


def array_namespace(*arrays):
    """The array API namespace of the arrays' backend.

    Returns ``array_api_compat.numpy``, ``array_api_compat.cupy`` or
    ``array_api_compat.dask.array``. ``xstride``
    itself is also a namespace for both and dispatches on its arguments, so code
    that wants xstride's kernels keeps calling ``xstride``.

    Parameters
    ----------
    *arrays : numpy.ndarray, cupy.ndarray or dask.array.Array
        With no argument, the active backend's namespace.

    Raises
    ------
    TypeError
        NumPy and CuPy arrays are mixed, or an argument is not an array.
    """
    got = _traced("array_namespace", arrays)
    if got is not NotImplemented:
        return got
    for i, a in enumerate(arrays):
        if _backend.backend_of_array(a) is None:
            raise type_error("array_namespace", f"arrays[{i}]", a, "a numpy, cupy or dask array")
    return _backend.namespace(_backend.backend_of("array_namespace", _named(arrays)))


def to_numpy(a) -> np.ndarray:
    """Return ``a`` as a NumPy array (a device-to-host copy for a CuPy array; a dask
    array is computed on the current dask scheduler).

    Parameters
    ----------
    a : numpy.ndarray, cupy.ndarray, dask.array.Array, Python scalar or (nested) sequence of numbers

    Returns
    -------
    numpy.ndarray
        ``a`` itself when it is already a NumPy array (zero-copy); same shape and
        dtype as ``a`` for a CuPy array; a ``numpy.ma`` masked array for one, for a
        dask array of masked chunks, and for a list or tuple holding such arrays (their
        masks stacked, as ``asarray`` stacks them).

    Raises
    ------
    TypeError
        ``a`` is not array-like (NumPy would make an object array of it, e.g. None, or
        an array of strings or bytes).
    OverflowError
        ``a`` holds a Python int that no integer dtype holds (past int64 and uint64).
    """
    return _host(a, "to_numpy")


def _host(a, func: str) -> np.ndarray:
    if isinstance(a, np.ndarray):
        return a
    be = of_array(a)
    if be is not None and not isinstance(a, np.generic):
        lost = be.lost_remedy(a)
        if lost is not None:   # dask's compute said "Missing dependency" and a key
            raise value_error(func, "a", lost)
        return be.to_host(a)   # a device-to-host copy; a dask array is computed
    try:
        out = np.asarray(a)
    except (TypeError, ValueError):  # a ragged nesting of lists, an unconvertible object
        out = None
    # object arrays (None), and strings or bytes (NumPy's str_/bytes_ dtypes, which no
    # backend computes with): not array-like in the namespace's sense
    if out is None or out.dtype.kind in "OUSV":
        if out is not None:   # a Python int past uint64: its OverflowError, as asarray's
            from .fill_checks import check_int_items

            check_int_items(func, out, "a")
        raise type_error(func, "a", a, "an array, a number or a sequence of numbers")
    if a.__class__ in SEQUENCES:   # numpy.ma items keep their masks, as in asarray (NumPy's
        return masked_items(a, out)   # made an array of their data alone)
    return out


def to_device(a, backend=None):
    """Return ``a`` on ``backend`` (the active backend by default), or on an array API
    device.

    Zero-copy when ``a`` is already there; otherwise one host-device copy. A dask array
    going to another backend is computed; an array going to the dask backend becomes a
    dask array with the backend's ``chunks`` and chunk backend.

    The array API standard's ``to_device(x, device)`` takes a device, and so does this
    function: ``"cpu"`` (NumPy's device, ``x.device`` of a NumPy array, and
    ``array_api_compat.device`` of a dask array of NumPy chunks) is the host. A NumPy
    array is returned itself and a dask array of NumPy chunks stays that dask array
    (nothing is computed, nothing copied); a CuPy array is copied to a NumPy array, as
    ``array_api_compat``'s ``to_device(x, "cpu")`` does; a dask array of CuPy chunks
    becomes one of NumPy chunks (each chunk copied when computed); anything else
    array-like becomes a NumPy array. Any other device object is taken only where it is
    the device ``a`` is on (``x.device`` of a CuPy array, ``array_api_compat.device``
    of a dask array): ``a`` itself.

    Parameters
    ----------
    a : array_like
    backend : {"numpy", "cupy", "dask"}, "cpu", or the device of ``a``, optional

    Returns
    -------
    numpy.ndarray, cupy.ndarray or dask.array.Array
        Same shape and dtype as ``a``.

    Raises
    ------
    TypeError
        ``backend`` is neither a str nor the device ``a`` is on, or ``a`` is not
        array-like (for ``"dask"`` also an object array or one of elements of 0 bytes,
        which dask cannot chunk).
    OverflowError
        ``a`` holds a Python int that no integer dtype holds (past int64 and uint64).
    ValueError
        Unknown backend name.
    RuntimeError
        ``"cupy"`` requested but unavailable.
    """
    if backend is None:
        try:
            target = _backend.get_backend()
        except RuntimeError as exc:  # XSTRIDE_BACKEND named a backend that cannot load
            raise unavailable_error("to_device", exc) from None
    else:
        try:
            target = _backend.normalize_name(backend, source="to_device", arg="backend",
                                             also=" (or the device 'cpu')")
        except (TypeError, ValueError):   # not a backend name: a device, or the error
            if isinstance(backend, str) and backend != "cpu":
                raise
            target = None
        if target is None:   # outside the except: its errors chain no name error
            return _to_cpu(a) if isinstance(backend, str) else _at_device(a, backend)
    if target == "numpy":
        return _host(a, "to_device")
    src = of_array(a)
    if src is None or (src.lazy and src.name != target):
        a = _host(a, "to_device")  # the type is checked first, with or without a device
    _backend.load_for("to_device", target)
    be = get(target)
    dt = getattr(a, "dtype", None)
    if be.lazy and isinstance(dt, np.dtype) and (dt == object or dt.itemsize == 0):
        # dask's automatic chunking cannot size these ("Can not use auto rechunking
        # with object dtype", "auto-chunking with dtype.itemsize == 0")
        raise type_error("to_device", "a", a, "an array dask can chunk (not of object "
                         "dtype, elements of at least one byte)")
    if be.lazy:   # an option that does not fit ``a`` names to_device (it named asarray)
        return be.asarray(a, func="to_device", own_chunks=False)
    return be.asarray(a)


def _to_cpu(a):
    """``to_device(a, "cpu")``: a dask array keeps its chunks on the host (its own
    where they are there), anything else is :func:`to_numpy`'s answer."""
    src = of_array(a)
    if src is not None and src.lazy:
        return src.host_chunks(a)
    return _host(a, "to_device")


def _at_device(a, device):
    """``to_device(a, device)`` of a device object: ``a`` where ``device`` is the
    device ``a`` is on, else the ``TypeError`` naming ``backend``."""
    src = of_array(a)
    own = None if src is None else src.device_of(a)
    try:
        same = own is device or (own is not None and bool(own == device))
    except (TypeError, ValueError):   # an array given as the device: no answer of one bool
        same = False
    if same:
        return a
    here = "" if own is None else f" ({own!r})"
    raise type_error("to_device", "backend", device,
                     "a backend name ('numpy', 'cupy', 'dask'), the device 'cpu', or the "
                     f"device a is on{here}; to move an array, name its backend")


def device(x, /):
    """Return the array API device of array ``x``, as ``array_api_compat.device`` does.

    The standard's ``x.device`` on every backend: ``"cpu"`` for a NumPy array (or a
    NumPy scalar), a ``cupy.cuda.Device`` for a CuPy array, and for a dask array, which
    has no ``device`` attribute, ``"cpu"`` where its chunks are NumPy arrays (else the
    dask namespace's other device, as ``array_api_compat``'s). ``to_device(x,
    device(x))`` is ``x`` itself for an array of every backend (of a NumPy scalar it is
    a 0-D array).

    Parameters
    ----------
    x : numpy.ndarray, cupy.ndarray or dask.array.Array

    Returns
    -------
    object
        The device, as the backend's ``__array_namespace_info__().devices()`` list it.

    Raises
    ------
    TypeError
        ``x`` is no array of a backend (a list, a Python scalar, None).
    """
    be = of_array(x)
    if be is None:
        raise type_error("device", "x", x, "an array of a backend (a NumPy, CuPy or dask "
                                           "array)")
    return be.device_of(x)
