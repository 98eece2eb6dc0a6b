"""How many positional arguments a namespace function takes, and the ``TypeError`` of a
call with more (``dispatch``'s wrappers): a ufunc takes further positional arguments
as ``out`` and writes into them, and array_api_compat's wrappers bind ``xp`` by
keyword, so neither says what Python says of a call with too many."""

from __future__ import annotations

import inspect
import math
import re

import numpy as np

from .._core.errors import error

__all__ = ["ufunc_out", "too_many", "too_many_error", "too_few_error", "reference_most",
           "positional_count", "XP_BOUND"]


def out_position(fn) -> int | None:
    """Where ``fn`` takes ``out`` positionally: a ufunc (NumPy's, CuPy's or dask's)
    after its inputs, a NumPy function by its signature (``round(a, decimals, out)``);
    None where it takes none or its signature cannot be read."""
    nin = getattr(fn, "nin", None)
    if type(nin) is int:
        return nin
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return None
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    for i, p in enumerate(params):
        if p.kind not in kinds:
            return None
        if p.name == "out":
            return i
    return None


def ufunc_out(fn, args, qualname: str) -> None:
    """Refuse positional arguments from ``fn``'s ``out`` on (:func:`out_position`; a
    ufunc takes those after its inputs as ``out``, NumPy's ``round`` its third) and
    writes into them (``xp.sin(x, y)`` overwrote ``y``, ``xp.atan(y, x)`` wrote
    ``atan(y)`` into ``x``, ``xp.round(x, 1, y)`` rounded into ``y``), skipping every
    check of ``out=`` and returning a result of another function than the one meant.
    Python's ``TypeError`` of a call with too many positional arguments."""
    at = out_position(fn)
    if at is not None and len(args) > at:
        raise too_many_error(qualname, at, len(args))


def too_many(qualname: str, most: int, given: int) -> str:
    """Python's message of a call with too many positional arguments."""
    name = qualname.rsplit(".", 1)[-1]   # the namespace's name (atan, not arctan)
    return (f"{name}() takes {most} positional argument{'' if most == 1 else 's'} but "
            f"{given} were given")


def too_many_error(qualname: str, most: int, given: int) -> TypeError:
    """The ``TypeError`` of a call with too many positional arguments, named as
    ``dispatch.named_error`` names a library's: Python's message, then where the rest
    go."""
    return error(TypeError, qualname.rsplit(".", 1)[-1],
                 f"{too_many(qualname, most, given)}; the standard's arguments after those "
                 f"go by keyword (help(xstride.{qualname}))")


def reference_most(reference) -> int | float:
    """How many positional arguments the NumPy backend's function takes (a ufunc: its
    inputs; no limit where its signature takes ``*args`` or cannot be read). A call with
    more goes to no backend: dask's ``real``/``imag`` (``*args``) returned
    ``NotImplemented`` for ``xp.real(x, y)``, where NumPy's raise."""
    if isinstance(reference, np.ufunc):
        return reference.nin
    at = out_position(reference)   # NumPy's round(a, decimals, out): up to out
    if at is not None:
        return at
    most = positional_count(reference)
    return math.inf if most is None else most


#: array_api_compat's functions bind ``xp`` by keyword: a positional argument too many
#: lands on it ("zeros() got multiple values for argument 'xp'").
XP_BOUND = re.compile(r"got multiple values for argument 'xp'")


def positional_count(reference) -> int | None:
    """How many positional arguments ``reference`` takes (``xp`` not counted: the
    library binds it); None when its signature cannot be read or takes ``*args``."""
    try:
        params = inspect.signature(reference).parameters.values()
    except (TypeError, ValueError):
        return None
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    if any(p.kind is inspect.Parameter.VAR_POSITIONAL for p in params):
        return None
    return sum(1 for p in params if p.kind in kinds and p.name != "xp")


def too_few_error(qualname: str, reference, given: int, kwargs) -> TypeError | None:
    """Python's ``TypeError`` of a call that leaves required positional parameters of
    ``reference`` (the NumPy backend's function: a ufunc's inputs, a function's
    parameters without a default) unfilled, asked on a library's ``TypeError``: a binary
    ufunc given one array said "hypot() takes from 2 to 3 positional arguments but 1 was
    given" on NumPy (its ``out`` counted; the standard's signature has two), and dask's
    "Parameters of such types are not supported by hypot". None where every required
    parameter is given (the library's error stands)."""
    try:
        params = inspect.signature(reference).parameters.values()
    except (TypeError, ValueError):
        return None
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    required = [p.name for p in params
                if p.kind in kinds and p.default is p.empty and p.name != "xp"]
    missing = [n for n in required[given:] if n not in kwargs]
    if not missing:
        return None
    quoted = [repr(n) for n in missing]
    names = (quoted[0] if len(quoted) == 1 else " and ".join(quoted) if len(quoted) == 2
             else ", ".join(quoted[:-1]) + ", and " + quoted[-1])
    name = qualname.rsplit(".", 1)[-1]
    return error(TypeError, name, f"{name}() missing {len(missing)} required positional "
                                  f"argument{'' if len(missing) == 1 else 's'}: {names}")
