"""The standard's special values of complex functions, where the libraries differ.

Each function calls the library (NumPy or CuPy, by its input; on a dask array, the
same function on every chunk) and then writes the standard's result where the input
is one of its special cases ("Special cases" of
each function in the array API standard 2025.12, complex-valued part). Real input
goes to the backend's ``array_api_compat`` function unchanged (by the standard's
name: ``dask.array`` has ``arccosh`` only).

All functions here satisfy ``f(conj(z)) == conj(f(z))``, and the standard lists its
cases for the upper half plane (``b >= +0``); a case is matched on ``|b|`` and its
imaginary part negated where ``b`` has its sign bit set.

A ``numpy.ma`` masked array (a block of masked chunks) is patched on its data, the
library's result's mask kept (``numpy.ma``'s arrays refuse the assignment of ``.real``:
``expm1`` of one failed on NumPy, and the five on masked chunks when computed); that of
``log`` and ``acosh`` without ``numpy.ma``'s real domain (:mod:`.masked_domains`).
"""

from __future__ import annotations

import math
import sys

from . import select as _backend
from .fixes import _quiet
from .dispatch import register
from .masked_domains import DOMAINS, complex_domain

__all__ = ["expm1", "log", "log1p", "tanh", "acosh"]


def _patch(m, x, out, rules):
    """Apply ``rules(m, a, b) -> [(mask, real, imag), ...]`` to ``out`` (later rules win)."""
    a, b = x.real, m.abs(x.imag)
    b_neg = m.signbit(x.imag)
    re, im = out.real, out.imag
    for mask, r, i in rules(m, a, b):
        i = m.where(b_neg, -i if isinstance(i, float) else m.negative(i), i)
        re = m.where(mask, r, re)
        im = m.where(mask, i, im)
    res = m.empty_like(out)
    res.real = re
    res.imag = im
    return res


def _masked(x) -> bool:
    """Whether ``x`` is a ``numpy.ma`` masked array (``numpy.ma`` not imported: none is)."""
    ma = sys.modules.get("numpy.ma")
    return ma is not None and isinstance(x, ma.MaskedArray)


def _special(name, rules):
    def fn(x, /):
        be = _backend.backend_of(name, (("x", x),), "numpy")
        if x.dtype.kind != "c":
            # the namespace's function: dask.array has no acosh (only arccosh)
            return getattr(_backend.namespace(be), name)(x)
        if hasattr(x, "map_blocks"):   # a dask array: the same function on every chunk
            return x.map_blocks(fn, dtype=x.dtype)
        m = _backend.array_module(be)
        with _quiet(m):
            if _masked(x):   # the data patched (a masked array's .real has no
                ma = sys.modules["numpy.ma"]   # setter), numpy.ma's mask kept
                if name in DOMAINS:   # its complex domain (masked_domains.py)
                    out, mask = complex_domain(name, x)
                else:
                    out = getattr(m, name)(x)
                    out, mask = ma.getdata(out), ma.getmaskarray(out)
                return ma.masked_array(_patch(m, ma.getdata(x), out, rules), mask=mask)
            return _patch(m, x, getattr(m, name)(x), rules)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"``{name}`` of the standard; complex special values as the standard "
                  "lists them (see the module docstring).")
    return fn


def _expm1_rules(m, a, b):
    nan, inf = m.nan, m.inf
    fin_a, fin_b = m.isfinite(a), m.isfinite(b)
    pinf_a, ninf_a = m.isposinf(a), m.isneginf(a)
    zero_b, inf_b, nan_b = b == 0, m.isinf(b), m.isnan(b)
    sin_b = m.sin(b)
    return (
        ((a == 0) & zero_b, 0.0, 0.0),
        (fin_a & (inf_b | nan_b), nan, nan),
        (pinf_a & zero_b, inf, 0.0),
        (ninf_a & fin_b, -1.0, 0.0 * sin_b),
        (pinf_a & fin_b & ~zero_b, inf * m.cos(b), inf * sin_b),
        (ninf_a & inf_b, -1.0, 0.0),
        (pinf_a & inf_b, inf, nan),
        (ninf_a & nan_b, -1.0, 0.0),
        (pinf_a & nan_b, inf, nan),
        (m.isnan(a) & zero_b, nan, 0.0),
        (m.isnan(a) & ~zero_b, nan, nan),
    )


def _log_rules(m, a, b):
    # log and log1p share these two cases (the others hold in both libraries)
    return (
        (m.isinf(a) & m.isnan(b), m.inf, m.nan),
        (m.isnan(a) & m.isinf(b), m.inf, m.nan),
    )


def _tanh_rules(m, a, b):
    pzero_a = (a == 0) & ~m.signbit(a)
    return ((pzero_a & (m.isinf(b) | m.isnan(b)), 0.0, m.nan),)


def _acosh_rules(m, a, b):
    return (((a == 0) & m.isnan(b), m.nan, math.pi / 2),)


expm1 = _special("expm1", _expm1_rules)
log = _special("log", _log_rules)
log1p = _special("log1p", _log_rules)
tanh = _special("tanh", _tanh_rules)
acosh = _special("acosh", _acosh_rules)

# NumPy follows the standard already for log, log1p, tanh and acosh; dask runs the
# fix of its chunks' library on every chunk (CuPy chunks need all five).
for _backend_name in ("numpy", "cupy", "dask"):
    register("expm1", _backend_name)(expm1)
for _backend_name in ("cupy", "dask"):
    for _fn in (log, log1p, tanh, acosh):
        register(_fn.__name__, _backend_name)(_fn)
del _backend_name, _fn
