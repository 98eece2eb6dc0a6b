"""``sqrt``, ``log``, ``log2``, ``log10``, ``asin``, ``acos``, ``acosh`` and ``atanh`` of
complex ``numpy.ma`` masked arrays (NumPy, and dask of masked chunks per block): the
complex result, masked where ``x`` is and at the function's poles only.

``numpy.ma`` masks the result of these ufuncs where the input lies outside a real
domain (its ``ufunc_domain``: ``sqrt`` where ``x < 0``, the logarithms where
``x <= 0``, ``arcsin``/``arccos`` outside ``[-1, 1]``, ``arccosh`` below 1,
``arctanh`` outside ``(-1, 1)``), and applies it to complex input too, where NumPy's
comparisons order numbers by their real part first: ``sqrt(-1+0j)`` (``1j``),
``log(-1+0j)`` (``pi*1j``), ``asin(2+0j)``, ``sqrt(-2+1j)`` came back masked although
NumPy's complex result is valid. Here (:func:`complex_domain`) a complex masked ``x``
gives NumPy's ufunc of its data (no warning), masked where ``x`` is masked and where
the complex function has a pole (its result infinite): 0 for the logarithms (as
``numpy.ma`` masks ``log(0.0)``), ``-1`` and ``1`` for ``atanh``; there the data is
``numpy.ma``'s fill of its domain (1 for the logarithms, 0 for ``atanh``). The
result's fill value and hard mask are ``x``'s; of a 0-D ``x``, a masked element is
``numpy.ma.masked``, as ``numpy.ma``'s ufuncs give. Real input, ``tan`` (whose
``numpy.ma`` domain, ``|cos(x)|`` near 0, holds for complex numbers), and calls with
keywords are the library's, unchanged.

On dask, ``log`` and ``acosh`` run per block through :mod:`.complex_special` (the
standard's special values), which takes the blocks' results from here.
"""

from __future__ import annotations

import functools
import sys

import numpy as np

from .dispatch import compat_function, register
from .no_array import NUMPY_TYPES

__all__ = ["DOMAINS", "complex_domain", "masked_result"]

#: standard name -> (NumPy's ufunc, the poles masked for complex input, the data there:
#: ``numpy.ma``'s fill of the function's domain)
DOMAINS = {
    "sqrt": ("sqrt", (), 0.0),
    "log": ("log", (0,), 1.0), "log2": ("log2", (0,), 1.0), "log10": ("log10", (0,), 1.0),
    "asin": ("arcsin", (), 0.0), "acos": ("arccos", (), 0.0),
    "acosh": ("arccosh", (), 1.0), "atanh": ("arctanh", (-1, 1), 0.0),
}
#: The note each of these functions' docstrings carries.
NOTE = ("\n\nxstride: of a complex ``numpy.ma`` masked ``x`` (NumPy, or dask of masked "
        "chunks),\nthe complex result, masked where ``x`` is and at the function's poles "
        "only\n(0 for the logarithms, -1 and 1 for ``atanh``): ``numpy.ma``'s real domain\n"
        "(``sqrt`` of ``x < 0``) is not applied to complex input.\n")


def _complex_masked(ma, x) -> bool:
    """Whether ``x`` is a complex ``numpy.ma`` masked array."""
    return isinstance(x, ma.MaskedArray) and x.dtype.kind == "c"


def complex_domain(name: str, x):
    """``(data, mask)`` of ``name`` (a key of :data:`DOMAINS`) of a complex masked NumPy
    array ``x``: NumPy's ufunc of its data, masked where ``x`` is and at the poles, the
    data there ``numpy.ma``'s fill (module docstring). Both are arrays (0-D too)."""
    ma = np.ma
    ufunc, poles, fill = DOMAINS[name]
    data = ma.getdata(x)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.asarray(getattr(np, ufunc)(data))
    mask = ma.getmaskarray(x).copy()
    for pole in poles:
        at = data == pole
        mask |= at
        out[at] = fill
    return out, mask


def _block(x, name: str):
    """``name`` of one block: a complex masked block by :func:`complex_domain` (a masked
    array whatever its shape), any other the library's."""
    ma = sys.modules.get("numpy.ma")
    if ma is not None and _complex_masked(ma, x):
        out, mask = complex_domain(name, x)
        return ma.masked_array(out, mask=mask, fill_value=x.fill_value, hard_mask=x.hardmask)
    return getattr(np, DOMAINS[name][0])(x)


def masked_result(name: str, x):
    """``name`` of a complex masked NumPy array ``x``, as ``numpy.ma``'s ufunc returns
    it (a 0-D masked element: ``numpy.ma.masked``), by :func:`complex_domain`."""
    out = _block(x, name)
    return np.ma.masked if out.ndim == 0 and out.mask else out


def _numpy_of(name: str):
    """The NumPy backend's ``name``: NumPy's ufunc (``array_api_compat``'s NumPy
    function of that name), a complex masked ``x`` by :func:`masked_result`."""
    ufunc = getattr(np, DOMAINS[name][0])
    plain = NUMPY_TYPES   # exact types, never masked: the ufunc at once

    def positional(x, /):   # the dispatch passes no more than nin (below) positionally
        if x.__class__ in plain:
            return ufunc(x)
        ma = sys.modules.get("numpy.ma")   # not imported: nothing is masked
        if ma is not None and _complex_masked(ma, x):
            return masked_result(name, x)
        return ufunc(x)

    def fn(*args, **kwargs):
        if kwargs or len(args) != 1:
            return ufunc(*args, **kwargs)
        return positional(args[0])

    functools.update_wrapper(fn, ufunc)   # NumPy's signature and docstring
    fn.__doc__ = (ufunc.__doc__ or "") + NOTE
    for f in (fn, positional):
        f.__name__ = f.__qualname__ = name
        f.nin = ufunc.nin   # out= after the input, as the ufunc (positional.out_position)
    return fn, positional


def _dask_of(name: str):
    """The dask backend's ``name``: dask's, an array of complex masked chunks per block
    by :func:`_block`."""
    library = []   # dask's function, looked up on first call

    def fn(*args, **kwargs):
        ma = sys.modules.get("numpy.ma")   # not imported: nothing is masked
        if len(args) == 1 and not kwargs and ma is not None:
            x = args[0]
            meta = getattr(x, "_meta", None)
            if _complex_masked(ma, meta) and hasattr(x, "map_blocks"):
                return x.map_blocks(functools.partial(_block, name=name), dtype=x.dtype,
                                    meta=meta)
        if not library:
            library.append(compat_function("dask", name))
        return library[0](*args, **kwargs)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``{name}`` of the standard on dask: dask's function." + NOTE
    return fn


for _name in DOMAINS:
    _fn, _positional = _numpy_of(_name)
    register(_name, "numpy", positional=_positional)(_fn)
    if _name not in ("log", "acosh"):   # on dask: complex_special.py's, per block
        register(_name, "dask")(_dask_of(_name))
del _name, _fn, _positional
