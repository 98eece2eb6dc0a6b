"""CuPy's ``**`` and the reduction methods of CuPy arrays, as ``xp.fuse`` traces them.

``x ** y`` on a CuPy array takes a shortcut for some exponents written as Python
scalars (``cupy/_core/core.pyx``, ``ndarray.__pow__``, CuPy 14): ``** 2`` is
``square``, ``** 2.0`` ``square``, ``** 0.5`` ``sqrt``, ``** -1.0`` ``reciprocal``,
computed in ``x``'s dtype, or in ``result_type(x.dtype, y)`` for a bool or unsigned
``x`` (``** 2``) or a non-float ``x`` (the float exponents). Any other exponent, and
an array or a NumPy scalar, is CuPy's ``power``. The tracer takes the same path for a
literal exponent; an exponent that is a Python scalar *argument* varies per call, so
its path is not fixed at trace time: :class:`Unfusable`.

The methods ``x.sum()``, ``x.prod()``, ``x.max()``, ``x.min()`` of a CuPy array are
CuPy's reductions, whose order of combination xp.fuse does not reproduce: they fuse
(as ``xp.sum`` and the others) only where every order gives the same bits: bool and
integer arrays, integer results.
"""

from __future__ import annotations

import numpy as np

from ._recorder import Unfusable

__all__ = ["power", "method", "bound"]

#: exponent -> (function, the dtype kinds of x computed in their own dtype)
_FAST = {(int, 2): ("square", "ifc"), (float, 2.0): ("square", "fc"),
         (float, 0.5): ("sqrt", "fc"), (float, -1.0): ("reciprocal", "fc")}


def power(x, y, ufunc, astype, weak):
    """``x ** y`` for a traced ``x`` (``ufunc``, ``astype``: the tracer's; ``weak``:
    the stand-in type of Python scalar arguments)."""
    if isinstance(y, weak):
        raise Unfusable("x ** a Python scalar argument (CuPy's ** takes a path by the "
                        "exponent's value: pass it as a NumPy scalar)")
    fast = _FAST.get((type(y), y)) if type(y) in (int, float) else None
    if fast is None:
        return ufunc(x._rec, "power", (x, y))
    func, own = fast
    if x.dtype.kind not in own:
        dt = np.result_type(x.dtype, y)
        if dt != x.dtype:
            x = astype(x, dt)
    return ufunc(x._rec, func, (x,))


_METHOD_KW = {"sum": ("axis", "dtype", "out", "keepdims"),
              "prod": ("axis", "dtype", "out", "keepdims"),
              "max": ("axis", "out", "keepdims"), "min": ("axis", "out", "keepdims")}


def method(x, name, args, kwargs, reduction):
    """``x.<name>(*args, **kwargs)`` (CuPy's method): ``reduction(name, args, kwargs)``
    (the tracer's ``xp.<name>``) where its result is exact.

    Raises
    ------
    Unfusable
        A float input or result, ``out=``, an argument CuPy's method does not take.
    """
    names = _METHOD_KW[name]
    if len(args) > len(names):
        raise Unfusable(f"the method .{name}() with {len(args)} positional arguments")
    kw = dict(zip(names, args))
    for k, v in kwargs.items():
        if k not in names or k in kw:
            raise Unfusable(f"the method .{name}() with the argument {k}=")
        kw[k] = v
    if kw.pop("out", None) is not None:
        raise Unfusable(f"the method .{name}() with out=")
    dt = kw.get("dtype")
    if x.dtype.kind not in "biu" or (dt is not None and np.dtype(dt).kind not in "biu"):
        raise Unfusable(f"the method .{name}() of {x.dtype} into a float (CuPy's own "
                        f"reduction, whose order xp.fuse does not reproduce: use xp.{name})")
    if kw.get("axis") is not None and isinstance(kw["axis"], list):
        kw["axis"] = tuple(kw["axis"])
    return reduction(name, (x,), {k: v for k, v in kw.items() if v is not None or k == "axis"})


def bound(name, reduction):
    """The method ``name`` of the stand-in arrays (:func:`method`)."""
    def m(self, *args, **kwargs):
        return method(self, name, args, kwargs, reduction)
    m.__name__ = name
    return m
