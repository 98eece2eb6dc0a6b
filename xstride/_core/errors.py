"""One place for xstride's error messages, so their wording cannot drift.

Every public function checks its arguments in a fixed order (type, dtype,
backend/device, shape) and raises through these helpers. Tests match on the text.
"""

from __future__ import annotations

__all__ = ["describe", "type_error", "value_error", "argument_error", "axis_error", "error",
           "overflow_error",
           "cast_error", "broadcast_error", "backend_unavailable_error", "mixed_backends_error",
           "unavailable_error", "immutable_error", "not_provided_error", "SettingError",
           "setting_error", "DeviceError", "device_error"]


class SettingError(ValueError):
    """An environment variable of xstride holds a value xstride does not take. A
    ``ValueError`` to the library's callers; ``python -m xstride`` reports it in one line
    (exit status 2) instead of a traceback."""


def describe(obj) -> str:
    """Short description of an argument for an error message."""
    try:
        shape = getattr(obj, "shape", None)
        dtype = getattr(obj, "dtype", None)
    except Exception:   # a property that raises: described by its repr below
        shape = dtype = None
    # a class (``np.str_``, ``np.ndarray``) has them as descriptors, not values, and a
    # module (``numpy``) as functions: only a tuple of ints is a shape
    if (isinstance(shape, tuple) and all(isinstance(n, (int, float)) for n in shape)
            and dtype is not None and not isinstance(obj, type)):
        mod = type(obj).__module__.split(".")[0]
        return f"{mod}.{type(obj).__name__}(shape={shape}, dtype={dtype})"
    try:
        text = repr(obj)
    except Exception:
        text = f"<{type(obj).__name__} object>"
    if len(text.splitlines()) > 1:   # a table's repr (a pandas DataFrame): one line; a
        text = " ".join(text.split())   # one-line repr keeps its blanks ('a  b')
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{type(obj).__name__} {text}"


def type_error(func: str, arg: str, got, allowed: str) -> TypeError:
    """``TypeError`` naming the function, the argument, what was given and what is allowed."""
    return TypeError(f"{func}: argument '{arg}' got {describe(got)}; expected {allowed}")


def value_error(func: str, arg: str, message: str) -> ValueError:
    """``ValueError`` naming the function and the argument."""
    return ValueError(f"{func}: argument '{arg}' {message}")


def argument_error(cls: type[Exception], func: str, arg: str, message: str) -> Exception:
    """``cls`` naming the function and the argument (``value_error`` for any class)."""
    return cls(f"{func}: argument '{arg}' {message}")


def axis_error(func: str, arg: str, message: str) -> ValueError:
    """``numpy.exceptions.AxisError`` naming the function and the argument, for an axis
    out of range: the class NumPy raises (a subclass of both ``ValueError`` and
    ``IndexError``, so that a caller catching either, as the array API standard allows,
    sees it), on every backend. NumPy is imported here, on the error's path only."""
    from numpy.exceptions import AxisError

    return argument_error(AxisError, func, arg, message)


def error(cls: type[Exception], func: str, message, *, subject: bool = False) -> Exception:
    """``cls`` naming the function (or the place, e.g. an environment variable) but no
    single argument: ``"{func}: {message}"``, or ``"{func} {message}"`` when ``subject``
    (the function is the sentence's subject: ``"CudaKernel 'k' takes 3 argument(s)"``).
    ``message`` may be a caught exception, whose text is then carried."""
    return cls(f"{func} {message}" if subject else f"{func}: {message}")


def overflow_error(func: str, arg: str, message: str) -> OverflowError:
    """``OverflowError`` for a value of argument ``arg`` outside the range it must fit."""
    return argument_error(OverflowError, func, arg, message)


def cast_error(func: str, arg: str, got_dtype, want_dtype, rule: str = "same_kind") -> TypeError:
    """``TypeError`` for an output argument whose dtype cannot take the result dtype."""
    return TypeError(f"{func}: argument '{arg}' has dtype {got_dtype}, but the result dtype "
                     f"{want_dtype} cannot be cast to it ({rule} rule)")


def broadcast_error(func: str, shapes, into: str | None = None) -> ValueError:
    """``ValueError`` for shapes that do not broadcast together (``into``: the argument
    they must broadcast into, when there is one)."""
    text = " and ".join(str(tuple(s)) for s in shapes)
    tail = f" (into {into})" if into else ""
    return ValueError(f"{func}: shapes {text} cannot be broadcast together{tail}")


def backend_unavailable_error(name: str, reason: str) -> RuntimeError:
    """``RuntimeError`` of a backend that cannot be loaded (public functions wrap it with
    :func:`unavailable_error`, which adds their own name)."""
    return RuntimeError(f"backend {name!r} is unavailable: {reason}")


def unavailable_error(func: str, exc: BaseException) -> RuntimeError:
    """``RuntimeError`` naming the function for a backend or device that cannot be used
    (``exc`` is the backend's own ``RuntimeError`` carrying the reason)."""
    text = str(exc)
    return RuntimeError(text if text.startswith(f"{func}:") else f"{func}: {text}")


def mixed_backends_error(func: str, named: list[tuple[str, str]]) -> TypeError:
    """``TypeError`` for a call that mixes arrays of different backends.

    Parameters
    ----------
    func : str
        The public function that was called.
    named : list of (argument name, backend name)
        Every array argument and the backend it lives on.
    """
    parts = ", ".join(f"{name} is {backend}" for name, backend in named)
    return TypeError(
        f"{func}: arrays from different backends cannot be mixed ({parts}); "
        "move them to one backend first with xstride.to_numpy or xstride.to_device"
    )


def immutable_error(func: str, arg: str, got, backend: str, instead: str) -> TypeError:
    """``TypeError`` for an array of a backend whose arrays cannot be written or viewed in
    memory (dask arrays are immutable views of a task graph); ``instead``: what to do."""
    return TypeError(f"{func}: argument '{arg}' got {describe(got)}; arrays of the {backend} "
                     f"backend are immutable (views of a task graph, with no memory to "
                     f"write or view): {instead}")


def not_provided_error(func: str, backend: str, instead: str) -> NotImplementedError:
    """``NotImplementedError`` for a function a backend's library cannot provide."""
    return NotImplementedError(f"{func}: not available on the {backend} backend; {instead}")


def setting_error(name: str, raw: str, expected: str) -> SettingError:
    """:class:`SettingError` for environment variable ``name`` holding ``raw``."""
    return SettingError(f"environment variable {name}={raw!r}: expected {expected}")


class DeviceError(ValueError):
    """A CuPy array argument lives on a device other than the current one. A
    ``ValueError`` to the library's callers; a class of its own so that a caller that
    answers other ``ValueError``s by a fallback (``xp.fuse`` runs the function unfused)
    lets it through."""


def device_error(func: str, arg: str, device: int, current: int) -> DeviceError:
    """:class:`DeviceError` for argument ``arg`` of ``func``, an array on device
    ``device`` while device ``current`` is current: xstride launches on the current
    device and never moves an array between devices, so the message says how to do
    either."""
    return DeviceError(f"{func}: argument '{arg}' is on device {device}, but device {current} "
                       f"is current (xstride's kernels run on the current device and never "
                       f"move arrays between devices); make device {device} current "
                       f"(`with cupy.cuda.Device({device}):`) or move the array to device "
                       f"{current} (`{arg}.copy()` inside `with cupy.cuda.Device({current}):`)")
