"""The ``fft`` extension's axes, checked before the library's transforms, and on the
dask backend the transformed axes gathered into one chunk.

- An axis out of range (``fft(x1d, axis=2)``, any 1-D transform of a 0-D array) raised
  a bare ``IndexError`` ("tuple index out of range") from ``array_api_compat``, and the
  n-D transforms' ``axes`` one naming a position in ``axes`` ("index 5 is out of bounds
  for axis 0 with size 2"). Here each is NumPy's ``AxisError`` (a subclass of both
  ``IndexError`` and ``ValueError``, as NumPy raises for an axis out of range) naming
  the function and the argument. ``rfftn``/``irfftn`` of a 0-D array (no axis to
  transform) is the same error naming ``x``; ``fftshift``/``ifftshift`` of a 0-D array
  without ``axes`` is the array (NumPy's ``roll`` raised "not enough values to unpack").
- Axes of an n-D transform that resolve to one axis (``fftn(x, axes=(0, 0))``,
  ``axes=(1, -1)`` of a 2-D array) are a ``ValueError`` naming the axis, on every
  backend: NumPy transformed the axis again, dask refused equal entries only ("Duplicate
  axes not allowed.", and transformed ``(1, -1)`` twice), CuPy took either way by
  layout. The standard leaves repeated axes unspecified.
- ``n`` and the entries of ``s`` are ints (not bools) of at least 1 (``s`` also -1,
  the input's length), checked at the call: dask's raised NumPy's unnamed message only
  when computed and ``rfft`` took ``n=True``; ``s`` longer than the array, or of
  another length than ``axes``, raised a bare ``IndexError`` on dask. ``s`` without
  ``axes`` transforms the last ``len(s)`` axes on every backend (NumPy's and CuPy's
  rule; dask's transformed the first ones): the axes are passed to the library.
- ``norm`` is one of ``"backward"``, ``"ortho"``, ``"forward"`` (or None, NumPy's
  ``"backward"``), and a transform has at least one point (an input of length 0 along
  a transformed axis without ``n``/``s``; ``irfft``/``hfft`` of length 1, whose default
  length is ``2 * (m - 1)``), checked at the call: dask's 1-D transforms raised NumPy's
  unnamed "Invalid norm value" / "Invalid number of FFT data points (0)" only when
  computed, and its n-D ones the second.
- ``fftn``/``ifftn`` along no axis (``axes=()``, ``s=()``, a 0-D array) is a copy of
  ``x`` in the complex dtype of a transform along an axis: NumPy's was ``x``'s own dtype
  (float64, int8; compat's complex64 for float32), dask's ``x`` itself.
- ``rfft``, ``ihfft`` and ``rfftn`` of a complex ``x`` are a ``TypeError`` naming ``x``
  (the standard asks for real input; NumPy's said "ufunc 'rfft_n_odd' not supported for
  the input types", naming no argument, on both backends).
- On dask, an axis transformed (any axis shifted) whose length dask does not know
  (after boolean indexing) is a ``ValueError`` naming the function and saying to call
  ``x.compute_chunk_sizes()`` (dask's said "Array chunk sizes are unknown", "cannot
  convert float NaN to integer", naming no function).
- dask's transforms take an axis of one chunk only ("Dask array only supports taking
  an FFT along an axis that has a single chunk"): the transformed axes are rechunked
  to one chunk first, as ``sort`` and the linear algebra gather theirs; the other axes
  keep their chunks.

Standard: "Fourier transform Functions" (``axis``/``axes`` "must be a valid axis"; the
behaviour out of range is left to the library: NumPy's is followed; "If ``axes``
contains two or more entries which resolve to the same axis (i.e., resolved axes are
not unique), the behavior is unspecified and thus implementation-defined": xstride
refuses them). Registered on the NumPy and dask backends, where these were found and
tested, and the n-D transforms on CuPy too, whose checks run before CuPy is called.
"""

from __future__ import annotations

import operator

import numpy as np

from .._core.errors import argument_error, type_error, value_error
from . import select as _backend
from .dispatch import implementation, register
from .registry import get

__all__ = ["ONE_AXIS", "N_AXES", "SHIFTS"]

#: transforms along one axis (``axis=-1``)
ONE_AXIS = ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft")
#: transforms along several axes (``s=None, axes=None``)
N_AXES = ("fftn", "ifftn", "rfftn", "irfftn")
#: the shifts (``axes=None``: every axis)
SHIFTS = ("fftshift", "ifftshift")
_AXIS_ERROR = np.exceptions.AxisError


def _axis(func: str, arg: str, axis, ndim: int) -> int:
    """``axis`` (an int) as a non-negative axis of an array of ``ndim`` dimensions."""
    if isinstance(axis, bool):
        raise type_error(func, arg, axis, "an int or a tuple of ints")
    try:
        i = operator.index(axis)
    except TypeError:
        raise type_error(func, arg, axis, "an int or a tuple of ints") from None
    if not -ndim <= i < ndim:
        raise argument_error(_AXIS_ERROR, func, arg,
                             f"holds the axis {i}, out of range for an array of {ndim} "
                             f"dimension{'s' if ndim != 1 else ''}")
    return i % ndim


def _length(func: str, arg: str, n, minimum: int = 1) -> None:
    """``n`` (a transform's length, or an entry of ``s``): an int (not a bool), at least
    1 (``minimum=-1``: an entry of ``s``, where -1 keeps the input's length)."""
    if isinstance(n, bool):
        raise type_error(func, arg, n, "an int (the length of the transform)")
    try:
        i = operator.index(n)
    except TypeError:
        raise type_error(func, arg, n, "an int (the length of the transform)") from None
    if i < 1 and not (minimum == -1 and i == -1):
        extra = " or -1 (the input's length)" if minimum == -1 else ""
        raise value_error(func, arg, f"holds the length {i}; a transform's length must be "
                                     f"at least 1{extra}")


_NORMS = ("backward", "ortho", "forward")


def _norm(func: str, norm) -> None:
    """``norm``: one of the standard's three strings, or None (NumPy's ``"backward"``)."""
    if norm is not None and not (isinstance(norm, str) and norm in _NORMS):
        raise value_error(func, "norm", f"is {norm!r}; expected 'backward', 'ortho' or "
                                        "'forward'")


def _points(func: str, x, axes, s=None) -> None:
    """Each transform along ``axes`` of ``x`` (lengths from ``s``, else the input's) has
    at least one point; without ``s``, ``irfft``-like transforms default to
    ``2 * (m - 1)`` points along the last of ``axes`` (an entry -1 of ``s`` is the
    input's length ``m``, as NumPy takes it)."""
    for k, ax in enumerate(axes):
        if s is not None and s[k] != -1:
            continue
        m = x.shape[ax]
        if m != m:   # NaN: a length dask does not know (refused by ``_known``)
            continue
        last = s is None and (func in ("irfft", "hfft")
                              or (func == "irfftn" and k == len(axes) - 1))
        n = 2 * (m - 1) if last else m
        if n < 1:
            what = (f"gives {func}'s default length 2 * ({m} - 1) = {n}" if last
                    else "leaves no point to transform")
            arg = "n" if func in ONE_AXIS else "s"
            raise value_error(func, "x", f"has shape {x.shape}, whose length {m} along axis "
                                         f"{ax} {what}; give '{arg}' (at least 1) or an "
                                         "input of at least "
                                         f"{2 if last else 1} element{'s' if last else ''} "
                                         "there")


def _n_axes(func: str, x, s, axes) -> tuple[int, ...]:
    """The axes an n-D transform of ``x`` runs along (NumPy's defaults: every axis, or
    the last ``len(s)`` ones); ``s`` checked against them."""
    if s is not None:
        if not isinstance(s, (tuple, list)):
            raise type_error(func, "s", s, "a tuple of ints (one length per transformed axis)")
        for n in s:
            _length(func, "s", n, minimum=-1)
    if axes is None:
        count = x.ndim if s is None else len(s)
        if count > x.ndim:
            raise value_error(func, "s", f"has {count} lengths, more than the {x.ndim} "
                                         f"dimension{'s' if x.ndim != 1 else ''} of x")
        return tuple(range(x.ndim - count, x.ndim))
    items = axes if isinstance(axes, (tuple, list)) else (axes,)
    chosen = tuple(_axis(func, "axes", a, x.ndim) for a in items)
    if s is not None and len(s) != len(chosen):
        raise value_error(func, "s", f"has {len(s)} lengths for the {len(chosen)} axes "
                                     f"{axes!r}; give one length per axis")
    if len(set(chosen)) < len(chosen):
        twice = next(i for k, i in enumerate(chosen) if i in chosen[:k])
        raise value_error(func, "axes", f"names the axis {twice} more than once "
                                        f"({axes!r} for an array of {x.ndim} dimensions); "
                                        "the axes of a transform must be distinct (to "
                                        "transform an axis again, call the function again)")
    return chosen


#: transforms of real input (the standard: "a real-valued floating-point data type")
_REAL_INPUT = ("rfft", "ihfft", "rfftn")


def _real(func: str, x) -> None:
    """``x`` of ``rfft``, ``ihfft`` and ``rfftn`` is not complex: NumPy's refusal was its
    unnamed "ufunc 'rfft_n_odd' not supported for the input types"."""
    if func in _REAL_INPUT and getattr(getattr(x, "dtype", None), "kind", None) == "c":
        raise type_error(func, "x", x, "an array of a real-valued dtype (the input of a "
                                       "transform of real data; for complex input use "
                                       f"{'fftn' if func == 'rfftn' else 'fft'})")


def _known(func: str, x, axes) -> None:
    """Each of ``axes`` of a dask array ``x`` has a length dask knows (not after boolean
    indexing): dask's transforms and shifts raised its unnamed "Array chunk sizes are
    unknown" or "cannot convert float NaN to integer"."""
    if get("dask").owns(x) and any(x.shape[a] != x.shape[a] for a in axes):
        raise value_error(func, "x", f"has shape {x.shape}, with lengths dask does not know "
                                     "(as after boolean indexing) along the axes "
                                     f"{tuple(axes)}, which {func} needs; call "
                                     "x.compute_chunk_sizes() first")


def _one_chunk(x, axes):
    """Dask array ``x`` with each of ``axes`` in one chunk (other arrays as they are)."""
    if not get("dask").owns(x):
        return x
    spread = {a: -1 for a in axes if 0 <= a < x.ndim and len(x.chunks[a]) > 1}
    return x.rechunk(spread) if spread else x


def _one_axis(name: str, backend: str):
    def impl(x, /, *, n=None, axis=-1, norm="backward"):
        _real(name, x)
        ax = _axis(name, "axis", axis, x.ndim)
        if n is not None:
            _length(name, "n", n)
        _norm(name, norm)
        _known(name, x, (ax,))
        if n is None:
            _points(name, x, (ax,))
        lib = getattr(_backend.namespace(backend).fft, name)
        return lib(_one_chunk(x, (ax,)), n=n, axis=axis, norm=norm)

    impl.__doc__ = (f"``fft.{name}`` of the standard; ``axis`` checked first "
                    "(``numpy.exceptions.AxisError`` naming it); on dask the axis is "
                    "gathered into one chunk.")
    return impl


def _untransformed(ns, x):
    """``fftn``/``ifftn`` of ``x`` along no axis (``axes=()``, ``s=()``, a 0-D ``x``): a
    copy of ``x`` in the complex dtype a transform along an axis gives (complex64 of
    float16/32 and complex64, complex128 of the others). NumPy's returned ``x``'s own
    dtype (compat's complex64 of float32 only), dask's ``x`` itself."""
    dt = x.dtype
    kind = np.dtype(dt).kind
    want = np.result_type(dt, np.complex64) if kind in "fc" else np.dtype(np.complex128)
    return ns.astype(x, getattr(ns, want.name), copy=True)


def _n_axis(name: str, backend: str):
    def impl(x, /, *, s=None, axes=None, norm="backward"):
        _real(name, x)
        chosen = _n_axes(name, x, s, axes)
        if not chosen and name in ("rfftn", "irfftn"):
            raise argument_error(_AXIS_ERROR, name, "x" if x.ndim == 0 else "axes",
                                 f"leaves no axis to transform ({name} of an array of "
                                 f"{x.ndim} dimensions, axes={axes!r})")
        _norm(name, norm)
        if not chosen:   # fftn/ifftn along no axis: x, in the dtype of a transform
            return _untransformed(_backend.namespace(backend), x)
        _known(name, x, chosen)
        _points(name, x, chosen, s)
        lib = getattr(_backend.namespace(backend).fft, name)
        if s is not None:   # -1: the input's length (dask's arrays declared the shape -1)
            s = tuple(x.shape[a] if n == -1 else n for n, a in zip(s, chosen))
        # the axes passed as chosen: dask's default for ``s`` without ``axes`` was the
        # first len(s) axes, NumPy's (and CuPy's) the last; one int ``axes`` (taken by
        # the check) as a tuple: the libraries iterate over it
        return lib(_one_chunk(x, chosen), s=s,
                   axes=axes if s is None and axes is None else chosen, norm=norm)

    impl.__doc__ = (f"``fft.{name}`` of the standard; each of ``axes`` checked first "
                    "(``numpy.exceptions.AxisError`` naming it); on dask the transformed "
                    "axes are gathered into one chunk each.")
    return impl


def _masked_shift(name: str, x, axes):
    """``fftshift`` (``ifftshift``) of a masked NumPy ``x`` (``axes`` checked: None, an
    int or a tuple) as ``numpy.roll``, which rolls the mask with the data."""
    axes = tuple(range(x.ndim)) if axes is None else (
        (axes,) if isinstance(axes, int) else tuple(axes))
    sign = 1 if name == "fftshift" else -1
    return np.roll(x, tuple(sign * (x.shape[a] // 2) for a in axes), axis=axes)


def _shift(name: str, backend: str):
    def impl(x, /, *, axes=None):
        ns = _backend.namespace(backend)
        # NumPy's shifts rolled np.asarray(x): a masked array's mask was dropped (dask's
        # roll of masked chunks keeps it)
        masked = backend == "numpy" and get(backend).mask_remedy(x) is not None
        if axes is not None:   # the library given ints: NumPy's iterated over a 0-D array
            one = not isinstance(axes, (tuple, list))
            axes = tuple(_axis(name, "axes", a, x.ndim) for a in ((axes,) if one else axes))
            axes = axes[0] if one else axes
        elif x.ndim == 0:
            return x.copy() if masked else ns.asarray(x, copy=True)
        # dask's roll concatenates: the shifted axes' lengths needed (the others' not)
        shifted = tuple(a % x.ndim for a in (range(x.ndim) if axes is None else (
            axes if isinstance(axes, tuple) else (axes,))))
        _known(name, x, shifted)
        if masked:   # the data and the mask rolled together
            return _masked_shift(name, x, axes)
        if backend == "dask" and any(v != v for v in x.shape):
            # dask's shifts concatenate along each axis, which needs every length; the
            # backend's roll needs only the rolled axes' (dask_roll.py)
            half = [x.shape[a] // 2 for a in shifted]
            shift = half if name == "fftshift" else [-h for h in half]
            return implementation(backend, "roll")(x, tuple(shift), axis=shifted)
        return getattr(ns.fft, name)(x, axes=axes)

    impl.__doc__ = (f"``fft.{name}`` of the standard; ``axes`` checked first; a 0-D "
                    "array without ``axes`` is returned as it is (a copy); a ``numpy.ma`` "
                    "masked array's mask shifted with its data.")
    return impl


for _backend_name, _kinds in (("numpy", ((ONE_AXIS, _one_axis), (N_AXES, _n_axis),
                                          (SHIFTS, _shift))),
                              ("dask", ((ONE_AXIS, _one_axis), (N_AXES, _n_axis),
                                        (SHIFTS, _shift))),
                              ("cupy", ((N_AXES, _n_axis),))):
    for _names, _make in _kinds:
        for _name in _names:
            _fn = _make(_name, _backend_name)
            _fn.__name__ = _fn.__qualname__ = _name
            register(f"fft.{_name}", _backend_name)(_fn)
del _backend_name, _kinds, _names, _make, _name, _fn
