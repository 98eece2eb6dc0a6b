"""The ``TypeError`` of a namespace call given no array where its function reads an
array's attributes, naming the function and the argument.

The libraries' functions read ``.ndim``, ``.shape`` or ``.dtype`` of what they are
given: NumPy's ``fft.fft([1.0, 2.0])``, ``sort([2, 1])``, ``clip(3.0)``,
``linalg.outer(x, [1.0])`` and dask's with a list beside a dask array raised Python's
bare ``AttributeError: 'list' object has no attribute 'ndim'``, naming neither. The
dispatch (``dispatch.follower``) asks these on the way out of an ``AttributeError``
only (a valid call pays nothing). A function that takes a list today (NumPy's ``roll``)
never raises one, so it keeps taking it.

The elementwise functions refuse one on every backend (:func:`operand_error`): NumPy's
ufuncs made an array of a list, a tuple or a range, dask's made a NumPy array of it on
the dask backend, CuPy's refuse it. The dispatch asks on its full check of the
arguments, the path a call takes where an argument is of no type it knows.
"""

from __future__ import annotations

import functools

import numpy as np

from .._core.errors import error, type_error
from .._core.names import ARRAY_FIRST, ARRAY_FIRST_TWO, ELEMENTWISE
from .._core.ufuncs import numpy_ufunc_name
from .registry import get
from .select import backend_of, backend_of_array

__all__ = ["no_array_error", "attribute_error", "operand_names", "operand_error",
           "leading_arrays", "leading_array_error", "named_arguments", "NUMPY_TYPES",
           "OPERAND_TYPES", "PLAIN_TYPES", "MORE_ARRAYS"]

_ELEMENTWISE = frozenset(ELEMENTWISE)
_FIRST, _TWO = frozenset(ARRAY_FIRST), frozenset(ARRAY_FIRST_TWO)
#: NumPy's arrays and scalars, exactly: an elementwise function given one of these
#: beside these or :data:`PLAIN_TYPES` runs on NumPy without a further look at its
#: arguments (``dispatch.follower``'s fast path).
NUMPY_TYPES = frozenset([np.ndarray] + [t for t in np.sctypeDict.values()
                                        if issubclass(t, np.generic)])
#: The exact types an elementwise function's operands have on that fast path: NumPy's
#: and Python's scalars. Any other (a list, a tuple, a range, None, a str) takes the
#: full check, where :func:`operand_error` refuses it.
OPERAND_TYPES = NUMPY_TYPES | frozenset((bool, int, float, complex))
#: NumPy's and Python's scalars, None and str: values that hold no array (the leaves of
#: nested sequences ``asarray`` walks).
PLAIN_TYPES = OPERAND_TYPES | frozenset((type(None), str))
#: The elementwise functions that take arrays beside their operands (``clip``'s bounds):
#: the fast path, which looks at the first and the last positional argument only, leaves
#: their calls to the look at every argument's backend.
MORE_ARRAYS = frozenset({"clip"})


def named_arguments(params, args, kwargs):
    """``(name, value)`` of each argument of a call, for the errors that name one: its
    parameter's name, ``args[j]`` for the ``j``-th argument a ``*args`` parameter takes,
    else ``argument i``."""
    for i, a in enumerate(args):
        name = params[min(i, len(params) - 1)] if params else ""
        if name.startswith("*"):
            yield f"{name[1:]}[{i - params.index(name)}]", a
        else:
            yield (params[i] if i < len(params) else f"argument {i}"), a
    yield from kwargs.items()


def _an_array(backend: str) -> str:
    """What a function of arrays expects where it got no array."""
    return f"an array of the {backend} backend (xstride.asarray(x) makes one)"


def no_array_error(qualname: str, backend: str, named):
    """The ``TypeError`` of a call on a lazy backend whose first argument is no array of
    it (its functions read array attributes of what they are given), or of a call given
    an array of dtype object (:func:`_object_dtype_error`), naming it; else the
    ``AttributeError`` being handled, raised again."""
    be = get(backend)
    named = list(named)
    if (refused := _object_dtype_error(qualname, named)) is not None:
        return refused
    # only where the first argument (where the standard's functions take their array)
    # is no array of the backend, nor a sequence of them (concat's): else the error is
    # the library's own, raised as it was
    first = named[0][1] if named else None
    if be.lazy and named and not (be.owns(first) or (
            isinstance(first, (list, tuple)) and any(be.owns(i) for i in first))):
        name, value = named[0]
        return error(TypeError, qualname.rsplit(".", 1)[-1],
                     f"argument {name!r} got {type(value).__name__} {_short_repr(value)}; "
                     f"expected {_an_array(backend)}")
    raise   # noqa: PLE0704 - the AttributeError being handled, as it was


def _short_repr(value) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _object_dtype_error(qualname: str, named) -> TypeError | None:
    """The ``TypeError`` naming the first argument of dtype object (NumPy's object
    loops call a method of each element: ``atan2(x, numpy.array([1, None],
    dtype=object))`` raised ``'float' object has no attribute 'arctan2'``), else None."""
    for name, value in named:
        if getattr(getattr(value, "dtype", None), "kind", None) == "O":
            return error(TypeError, qualname.rsplit(".", 1)[-1],
                         f"argument {name!r} has dtype object, whose elements the "
                         "function cannot compute with; expected an array of a numeric "
                         "or bool dtype")
    return None


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
    else:   # an element's attribute: an array of Python objects
        return _object_dtype_error(qualname, named)
    if hasattr(type(obj), "__array_namespace__"):   # an array, of any library
        return None
    try:
        backend = backend_of(qualname, named)   # its arrays', else the active backend
    except TypeError:   # mixed backends: that error, not this one
        return None
    return type_error(qualname.rsplit(".", 1)[-1], name, obj, _an_array(backend))


@functools.cache
def operand_names(qualname: str) -> tuple[str, ...]:
    """The standard's names of the array arguments of the elementwise function
    ``qualname``, the first positional ones: ``("x1", "x2")`` where NumPy's ufunc of it
    takes two inputs, else ``("x",)`` (``clip``'s bounds are ``clip_checks.py``'s);
    ``()`` for any other function."""
    if qualname not in _ELEMENTWISE:
        return ()
    uf = getattr(np, numpy_ufunc_name(qualname), None)
    return ("x1", "x2") if getattr(uf, "nin", 1) == 2 else ("x",)


def operand_error(qualname: str, backend: str, args) -> TypeError | None:
    """The ``TypeError`` of an elementwise function given, where an array goes (its
    first positional arguments, :func:`operand_names`), a list, a tuple, a range, None,
    a str or any other object that is neither an array (of any backend; a NumPy scalar
    counts) nor a Python scalar, naming it; else None. (None and a str went to the
    library, which refused them in most functions, but NumPy's object loops took them
    in ``logical_and``: ``[None, None]`` of dtype object; ``atan2(x, None)`` raised an
    ``AttributeError`` of a float without ``arctan2``.)"""
    names = operand_names(qualname)
    for name, value in zip(names, args):
        if isinstance(value, (int, float, complex)) or backend_of_array(value) is not None:
            continue
        scalars = " or a Python scalar" if len(names) == 2 else ""
        return type_error(qualname.rsplit(".", 1)[-1], name, value,
                          _an_array(backend) + scalars)
    return None



def leading_arrays(qualname: str) -> int:
    """How many of ``qualname``'s first arguments must be arrays (``names.ARRAY_FIRST``,
    ``names.ARRAY_FIRST_TWO``): 2, 1, or 0 for any other function."""
    return 2 if qualname in _TWO else 1 if qualname in _FIRST else 0


def leading_array_error(qualname: str, backend: str, params, args) -> TypeError | None:
    """The ``TypeError`` of a call of a function of :func:`leading_arrays` whose first
    (or second) positional argument is no array of any backend (a list, a tuple, a
    range, a Python scalar, None), naming it; else None (an argument left out, or given
    by keyword where the standard has it positional-only, is Python's error). NumPy's functions made an array of it
    (``reshape([1, 2], (2, 1))``, ``matmul(m, [1.0, 0.0])``), CuPy's and dask's refuse
    it, so code relying on it ran on one backend only."""
    for i in range(min(leading_arrays(qualname), len(args))):
        name, value = params[i] if i < len(params) else ("x", "x2")[i], args[i]
        if backend_of_array(value) is None:
            return type_error(qualname.rsplit(".", 1)[-1], "x" if name == "a" else name,
                              value, _an_array(backend))
    return None
