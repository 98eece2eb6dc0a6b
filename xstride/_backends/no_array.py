"""The ``TypeError`` of a namespace call given no array where its function reads an
array's attributes, naming the function and the argument.

The libraries' functions read ``.ndim``, ``.shape`` or ``.dtype`` of what they are
given: NumPy's ``fft.fft([1.0, 2.0])``, ``sort([2, 1])``, ``clip(3.0)``,
``linalg.outer(x, [1.0])`` and dask's with a list beside a dask array raised Python's
bare ``AttributeError: 'list' object has no attribute 'ndim'``, naming neither. The
dispatch (``dispatch.follower``) asks these on the way out of an ``AttributeError``
only (a valid call pays nothing). A function that takes a list today (NumPy's ``roll``,
the elementwise functions) never raises one, so it keeps taking it.
"""

from __future__ import annotations

from .._core.errors import error, type_error
from .registry import get
from .select import backend_of

__all__ = ["no_array_error", "attribute_error"]


def no_array_error(qualname: str, backend: str, named):
    """The ``TypeError`` of a call on a lazy backend whose first argument is no array of
    it (its functions read array attributes of what they are given), naming it; else
    the ``AttributeError`` being handled, raised again."""
    be = get(backend)
    named = list(named)
    # only where the first argument (where the standard's functions take their array)
    # is no array of the backend, nor a sequence of them (concat's): else the error is
    # the library's own, raised as it was
    first = named[0][1] if named else None
    if be.lazy and named and not (be.owns(first) or (
            isinstance(first, (list, tuple)) and any(be.owns(i) for i in first))):
        name, value = named[0]
        return error(TypeError, qualname.rsplit(".", 1)[-1],
                     f"argument {name!r} got {type(value).__name__} {_short_repr(value)}; "
                     f"expected an array of the {backend} backend (xstride.asarray(x) "
                     "makes one)")
    raise   # noqa: PLE0704 - the AttributeError being handled, as it was


def _short_repr(value) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def attribute_error(exc: AttributeError, qualname: str, named) -> TypeError | None:
    """The ``TypeError`` naming the argument whose missing attribute ``exc`` reports
    (Python's own lookup sets ``exc.name`` and ``exc.obj``: the object itself, found
    among the arguments by identity), where that argument is no array (a list, a Python
    scalar, None: no ``__array_namespace__``). None for any other ``AttributeError``
    (one the library raised itself, one about an array or an object of its own making):
    raised as it was."""
    if exc.name is None:   # raised by hand ("the library's own"): no object to blame
        return None
    obj = getattr(exc, "obj", None)
    named = list(named)
    for name, value in named:
        if value is obj:
            break
    else:
        return None
    if hasattr(type(obj), "__array_namespace__"):   # an array, of any library
        return None
    try:
        backend = backend_of(qualname, named)   # its arrays', else the active backend
    except TypeError:   # mixed backends: that error, not this one
        return None
    return type_error(qualname.rsplit(".", 1)[-1], name, obj,
                      f"an array of the {backend} backend (xstride.asarray(x) makes one)")
