"""The creation functions' arguments named once a library has refused the call.

The dispatch's wrappers (``dispatch.creator``, and ``dispatch.follower`` for the
``*_like`` functions) ask :func:`creation_argument_error` only after the library
raised, so a call that works costs nothing more. It answers, in this order:

- a call's own ``chunks=`` on a backend that takes none (NumPy's "array() got an
  unexpected keyword argument 'chunks'", of the creation and ``*_like`` functions);
- a ``dtype`` that is no dtype (``dtype_checks.py``);
- a ``device`` the backend does not have: array_api_compat's "Unsupported device for
  Dask: 'gpu'" named no argument and listed no device; the ``ValueError`` now names
  ``device`` and the backend's devices, as the dask backend's ``asarray`` does;
- a ``shape=`` of a ``*_like`` function (NumPy's keyword) that is no shape: NumPy's
  "an integer is required" or "negative dimensions are not allowed" named no argument;
  named as ``zeros``' shape is (``shape_checks.named_shape_error``). The dask backend
  checks it before dask's function (``dask_fixes.py``), which took bools, floats and
  negative lengths and failed when computed.
- a Python int ``fill_value`` of ``full``/``full_like`` that the integer ``dtype``
  cannot hold: NumPy's "Python integer 300 out of bounds for int8" named no argument;
  the ``OverflowError`` names ``fill_value`` and the dtype's range;
- an object array dask's "auto" chunks cannot size (dask's unnamed
  ``NotImplementedError`` "Can not use auto rechunking with object dtype"): a
  ``TypeError`` naming ``dtype`` (or ``asarray``'s ``obj``, of data NumPy makes an
  object array of). The standard has no object dtype; the NumPy backend keeps NumPy's
  object arrays, and dask makes them with ``chunks=`` a number of elements.

Else None: the library's error, with the function's name, stands.
"""

from __future__ import annotations

from .._core.errors import overflow_error, type_error, value_error
from .dtype_checks import TAKE_DTYPE, dtype_argument_error
from .registry import get, of_array

__all__ = ["SHAPE_ERROR", "chunks_argument_error", "creation_argument_error",
           "device_argument_error"]

#: ``[shape_checks.named_shape_error]``, set when ``shape_checks`` is imported (with
#: ``import xstride``, by ``dask_fixes``): it imports the dispatch, which imports this
SHAPE_ERROR: list = []


def device_argument_error(func: str, device, backend: str) -> ValueError:
    """The ``ValueError`` of a ``device`` that ``backend`` does not have, naming
    ``func``, ``device`` and the backend's devices."""
    # NumPy's one device, as compat's NumPy info lists it: that namespace is not
    # imported for this error (the NumPy backend's creation functions import none)
    devices = ("cpu",) if backend == "numpy" else get(backend).namespace(
        ).__array_namespace_info__().devices()
    return value_error(func, "device", f"is {device!r}; the {backend} backend's devices "
                                       f"are {', '.join(map(repr, devices))}")


def chunks_argument_error(qualname: str, chunks, backend: str) -> TypeError:
    """The ``TypeError`` of a call's own ``chunks=`` on a backend that takes none (NumPy's
    own words named its inner function, "array() got an unexpected keyword argument
    'chunks'", or the ``*_like`` function, and not the backend that takes it)."""
    return type_error(qualname.rsplit(".", 1)[-1], "chunks", chunks,
                      f"no chunks on the {backend} backend (an argument of the dask "
                      "backend's arrays: xp.use_backend('dask'))")


def _backend_name(qualname: str, args, backend) -> str | None:
    if backend is not None:
        return backend
    be = of_array(args[0]) if args and qualname.endswith("_like") else None
    return None if be is None else be.name


def _object_error(qualname: str, args, kwargs, backend) -> TypeError | None:
    """The ``TypeError`` of an object array that ``backend``'s "auto" chunks cannot size,
    naming ``dtype`` where the call gives one, else ``asarray``'s ``obj``."""
    name = qualname.rsplit(".", 1)[-1]
    why = (f"; the {backend} backend sizes 'auto' chunks in bytes, which object items do "
           "not have (the array API has no object dtype): give chunks= a number of "
           "elements, or use the numpy backend")
    dtype = (kwargs or {}).get("dtype")
    if dtype is not None:
        return type_error(name, "dtype", dtype, "a dtype of the array API standard" + why)
    if name == "asarray":
        obj = args[0] if args else (kwargs or {}).get("obj")
        return type_error(name, "obj", obj, "data of numbers, bools or strings (NumPy "
                                            "makes an object array of it)" + why)
    return None


def _fill_overflow(qualname: str, args, kwargs) -> OverflowError | None:
    """The ``OverflowError`` of a Python int ``fill_value`` out of the bounds of the
    integer dtype of ``full``/``full_like``'s result, naming ``fill_value``; else None."""
    import numpy as np

    fill = args[1] if len(args) > 1 else kwargs.get("fill_value")
    dtype = kwargs.get("dtype")
    if dtype is None and qualname == "full_like" and args:
        dtype = getattr(args[0], "dtype", None)
    try:
        info = np.iinfo(np.dtype(dtype))
    except (TypeError, ValueError):   # no dtype, or no integer one
        return None
    if type(fill) is not int or info.min <= fill <= info.max:
        return None
    return overflow_error(qualname, "fill_value", f"is the Python int {fill}, out of bounds "
                                                  f"for {info.dtype} (from {info.min} to "
                                                  f"{info.max}), the dtype of the result")


def creation_argument_error(exc: Exception, qualname: str, args, kwargs,
                            backend: str | None = None) -> Exception | None:
    """After a library refused ``qualname(*args, **kwargs)`` (a creation function on
    ``backend``, or a ``*_like`` function on its array's backend) with ``exc``: the
    error naming the argument at fault, or None (the library's error stands)."""
    name = _backend_name(qualname, args, backend) if "chunks" in (kwargs or {}) else None
    if (name is not None and type(exc) is TypeError and "'chunks'" in str(exc)
            and not get(name).lazy):
        return chunks_argument_error(qualname, kwargs["chunks"], name)
    better = dtype_argument_error(exc, qualname, kwargs)
    if isinstance(exc, OverflowError) and qualname in ("full", "full_like"):
        return _fill_overflow(qualname, args, kwargs or {})
    if isinstance(exc, NotImplementedError) and "object dtype" in str(exc):
        return _object_error(qualname, args, kwargs, backend)
    if better is not None or not kwargs or qualname not in TAKE_DTYPE:
        return better
    device = kwargs.get("device")
    if (device is not None and isinstance(exc, ValueError)
            and str(exc).startswith("Unsupported device")):
        name = _backend_name(qualname, args, backend)
        if name is not None:
            return device_argument_error(qualname.rsplit(".", 1)[-1], device, name)
    shape = kwargs.get("shape")
    if shape is not None and qualname.endswith("_like") and SHAPE_ERROR:
        dtype = kwargs.get("dtype")
        try:
            SHAPE_ERROR[0](qualname, shape, dtype if dtype is not None or not args
                           else getattr(args[0], "dtype", None))
        except (TypeError, ValueError) as named:
            return named
    return None
