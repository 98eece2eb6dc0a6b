"""``sign`` of complex ``numpy.ma`` masked arrays (NumPy, and dask of masked chunks).

``array_api_compat``'s ``sign`` of complex input is ``x / abs(x)`` with its zeros set
by item assignment, ``out[x == 0j] = 0j``: of a NumPy masked array the quotient masked
each zero (``numpy.ma`` masks 0/0), so ``sign(0)`` came back masked where NumPy's
``sign`` of a masked array gives 0; on dask the assignment is a ``where`` per block,
which dropped the masks, the elements under them shown as values. Here
(:func:`complex_sign`) a masked complex ``x`` is ``x / abs(x)`` of its data (the
same quotient, bit for bit, as compat's of plain arrays), 0 where the data is 0, and
``x``'s mask kept; on dask per block. A plain complex NumPy array takes :func:`complex_sign` too: compat's quotient
warned "invalid value encountered in divide" for each zero. Other calls are compat's,
unchanged.

With ``out=`` (NumPy and CuPy) the sign is computed, then copied into ``out`` as a
ufunc's result is (``copyto``, "same_kind" casting), and ``out`` itself returned:
compat's ``sign`` of complex input wrote ``abs(x)`` into ``out`` and returned the
quotient apart, and of real input returned a view of ``out``, not ``out``
(:func:`_into`).

On CuPy, whose ``sign`` has a bool loop, a bool ``x`` is refused first, with the
``TypeError`` that names it on the other backends (NumPy's ``sign`` has no bool loop;
:func:`~xstride._backends.real_only.bool_argument_error`).
"""

from __future__ import annotations

import sys

import numpy as np

from .dispatch import compat_function, register
from .real_only import bool_operand_error

__all__ = ["complex_sign"]


def complex_sign(x):
    """``x / abs(x)`` of a complex NumPy array's data, 0 where it is 0 (no warning for
    0/0), a masked ``x``'s mask kept."""
    ma = np.ma
    data = ma.getdata(x)
    with np.errstate(invalid="ignore", divide="ignore"):   # (out=: an array also at 0-D)
        out = np.divide(data, np.abs(data), out=np.empty(np.shape(data), data.dtype))
    out[data == 0] = 0
    return ma.masked_array(out, mask=ma.getmaskarray(x)) if ma.isMaskedArray(x) else out


def _into(sign, x, kwargs):
    """``sign(x)`` copied into ``kwargs["out"]`` (a ufunc's ``out=``, its only keyword
    here: "same_kind" casting), which is returned; None where the call has other
    keywords or no ``out`` (the library's call then)."""
    out = kwargs.get("out")
    if out is None or len(kwargs) != 1:
        return None
    if isinstance(out, tuple) and len(out) == 1:   # a ufunc's out=(o,)
        out = out[0]
    res = sign(x)
    lib = np if isinstance(out, np.ndarray) else sys.modules.get(type(out).__module__.split(".")[0])
    if lib is None or not hasattr(lib, "copyto"):
        return None
    lib.copyto(out, res, casting="same_kind")
    return out


def _sign_of(backend: str):
    library = []   # compat's sign, looked up on first call

    def sign(x, /, **kwargs):
        """``sign`` of the standard; complex masked input by :func:`complex_sign`."""
        if (backend == "numpy" and type(x) is np.ndarray and x.dtype.kind == "c"
                and not kwargs):   # compat's quotient without its 0/0 warning
            return complex_sign(x)
        ma = sys.modules.get("numpy.ma")   # not imported: nothing is masked
        if ma is not None and not kwargs and getattr(getattr(x, "dtype", None), "kind",
                                                     "") == "c":
            if isinstance(x, ma.MaskedArray):
                return complex_sign(x)
            if isinstance(getattr(x, "_meta", None), ma.MaskedArray):
                return x.map_blocks(complex_sign, dtype=x.dtype, meta=x._meta)
        if not library:
            library.append(compat_function(backend, "sign"))
        if kwargs and backend == "numpy" and (got := _into(sign, x, kwargs)) is not None:
            return got
        return library[0](x, **kwargs)
    return sign


def _cupy_sign():
    library = []   # compat's sign, looked up on first call

    def sign(x, /, **kwargs):
        """``sign`` of the standard; a bool ``x`` refused as on NumPy."""
        if getattr(getattr(x, "dtype", None), "kind", "") == "b":
            raise bool_operand_error("sign", "x", x)
        if not library:
            library.append(compat_function("cupy", "sign"))
        if kwargs and (got := _into(sign, x, kwargs)) is not None:
            return got
        return library[0](x, **kwargs)
    return sign


register("sign", "cupy")(_cupy_sign())
for _backend_name in ("numpy", "dask"):
    register("sign", _backend_name)(_sign_of(_backend_name))
del _backend_name
