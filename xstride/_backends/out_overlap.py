"""An ``out=`` that overlaps itself, refused for the elementwise functions whose library
runs the call (``sqrt``, ``exp``, ``atan2``, ``round``, ``sign``, ...: every one of the
standard's elementwise functions outside the engine's list, whose ``out=`` checks are
``elementwise_args.check_out``).

Their ``out=`` went to the library's function as given, and NumPy's ufunc took a
writeable view that reaches one element from two indices (a stride 0 made by
``numpy.lib.stride_tricks.as_strided``) and wrote every result into that element
(``sqrt([1, 4, 9, 16], out=o)`` gave ``[4, 4, 4, 4]``). The dispatch's wrappers
(``dispatch.follower``) call :func:`refuse_overlapping_out` on every call of such a
function given an ``out`` that is no C- or F-contiguous NumPy array (the common call
pays that one flag test), on every backend alike: CuPy's calls take the same check,
dask's refuse any ``out=`` first (``dask_fixes.py``). The error is the engine's:
``layout.check_output``'s ``ValueError`` naming the function and ``out``.
"""

from __future__ import annotations

import inspect

import numpy as np

from .._core.names import ELEMENTWISE
from .._core.ufuncs import ENGINE_UFUNCS, NUMPY_OUT_INTO_A_COPY
from .._plans.overlap import check_output

__all__ = ["checks_out", "out_function", "refuse_overlapping_out", "takes_out"]

#: the elementwise functions the library runs with ``out=`` (the engine's check theirs)
_LIBRARY_OUT = frozenset(ELEMENTWISE) - frozenset(ENGINE_UFUNCS)


def checks_out(qualname: str) -> bool:
    """Whether the wrapper of ``qualname`` checks an ``out=`` with
    :func:`refuse_overlapping_out` (an elementwise function outside the engine's)."""
    return qualname in _LIBRARY_OUT


def refuse_overlapping_out(qualname: str, out, fn) -> None:
    """Refuse ``out`` (an array of any backend, or a tuple of them: NumPy's ufuncs take
    ``out=(o,)``) that reaches one element from two indices, where ``fn`` (the backend's
    function the call runs) takes ``out=``. An array that is C- or F-contiguous cannot,
    and is not looked at further; what is no array (no ``flags`` or no ``strides``: a
    list, a dask array) is left to the library's own error, and so is any ``out`` of a
    function that takes none (:func:`takes_out`: its ``TypeError`` says so).

    Raises
    ------
    ValueError
        ``"<qualname>: argument 'out' overlaps itself (...)"``, as the engine's.
    """
    for o in out if type(out) is tuple else (out,):
        flags = getattr(o, "flags", None)
        if (flags is None or not hasattr(o, "strides")
                or flags.c_contiguous or flags.f_contiguous):
            continue
        if takes_out(fn):   # (asked only of an out that is not contiguous)
            check_output(qualname, "out", o)


def out_function(qualname: str, out, fn):
    """The function that runs a call of ``qualname`` given an ``out`` that is not C- or
    F-contiguous: :func:`refuse_overlapping_out` first, then ``fn``, or for a NumPy
    ``out`` (or ``out=(o,)``) of a function in
    :data:`~xstride._core.ufuncs.NUMPY_OUT_INTO_A_COPY` (whose NumPy loop wrote wrong
    values into such an ``out``) ``fn`` through a contiguous copy of ``out``
    (:func:`~xstride._host.elementwise.through_contiguous_out`)."""
    refuse_overlapping_out(qualname, out, fn)
    o = out[0] if type(out) is tuple and len(out) == 1 else out
    if qualname in NUMPY_OUT_INTO_A_COPY and isinstance(o, np.ndarray):
        # the NumPy executor, imported on this call (``import xstride`` loads none)
        from .._host.elementwise import through_contiguous_out
        return lambda *args, out, **kwargs: through_contiguous_out(fn, args, out, kwargs)
    return fn


def takes_out(fn) -> bool:
    """Whether ``fn`` takes an ``out`` keyword: a ufunc (NumPy's, CuPy's: an int
    ``nin``), a function with an ``out`` parameter or ``**kwargs`` (passed on to one),
    or one whose signature cannot be read. ``ceil``, ``clip``, ``real``, xstride's
    ``floor_divide`` and ``expm1`` (and on CuPy its ``remainder``) take none."""
    if type(getattr(fn, "nin", None)) is int:
        return True
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return True
    return any(p.kind is p.VAR_KEYWORD or (p.name == "out" and p.kind is not p.POSITIONAL_ONLY)
               for p in params)
