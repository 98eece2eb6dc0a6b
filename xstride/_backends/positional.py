"""How many positional arguments a namespace function takes, and the ``TypeError`` of a
call with more (``dispatch``'s wrappers): a ufunc takes further positional arguments
as ``out`` and writes into them, and array_api_compat's wrappers bind ``xp`` by
keyword, so neither says what Python says of a call with too many."""

from __future__ import annotations

import inspect
import math
import re

import numpy as np

__all__ = ["ufunc_out", "too_many", "reference_most", "positional_count", "XP_BOUND"]


def ufunc_out(fn, args, qualname: str) -> None:
    """Refuse positional arguments past a ufunc's inputs (NumPy's, CuPy's or dask's
    ufunc, the namespace's function on that backend): the ufunc takes them as ``out``
    and writes into them (``xp.sin(x, y)`` overwrote ``y``, ``xp.atan(y, x)`` wrote
    ``atan(y)`` into ``x``), skipping every check of ``out=`` and returning a result
    of another function than the one meant. Python's ``TypeError`` of a call with too
    many positional arguments, which ``dispatch.named_error`` names."""
    nin = getattr(fn, "nin", None)
    if type(nin) is int and len(args) > nin:
        raise TypeError(too_many(qualname, nin, len(args)))


def too_many(qualname: str, most: int, given: int) -> str:
    """Python's message of a call with too many positional arguments."""
    name = qualname.rsplit(".", 1)[-1]   # the namespace's name (atan, not arctan)
    return (f"{name}() takes {most} positional argument{'' if most == 1 else 's'} but "
            f"{given} were given")


def reference_most(reference) -> int | float:
    """How many positional arguments the NumPy backend's function takes (a ufunc: its
    inputs; no limit where its signature takes ``*args`` or cannot be read). A call with
    more goes to no backend: dask's ``real``/``imag`` (``*args``) returned
    ``NotImplemented`` for ``xp.real(x, y)``, where NumPy's raise."""
    if isinstance(reference, np.ufunc):
        return reference.nin
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
