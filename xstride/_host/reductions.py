"""Host (NumPy) reductions and scans over short axes: NumPy's own ufuncs, walked across
the long axis instead of along the short one.

NumPy reduces the short axis of an ``(n, k)`` array one short run at a time: each
outer step calls the ufunc's loop on ``k`` elements (``min(x, axis=1)`` of
``(2**20, 3)`` float32), or on one row of ``k`` partial results (``axis=0``), so its
per-call cost is paid ``n`` times. Measured on the development machine (2 cores,
NumPy 2.4.6, 2026-12-01), ``(n, 3)`` float32 of 4M elements: ``min(axis=1)`` 121 ms,
``min(axis=0)`` 71 ms, ``all(axis=0)`` of bool 40 ms, ``cumulative_sum(axis=1)`` 43 ms
-- against 8, 2.7, 0.4 and 18 ms by the walks below.

Two walks, taken by :func:`around` in front of the library's functions:

- **columns** -- the reduced axis is the last one, the innermost in memory, and
  short (``SHORT`` elements of at most ``SHORT_BYTES`` for ``min``, ``max``, ``all``,
  ``any``; ``SHORT_SUM`` for integer sums and products and the scans, where NumPy's
  loop catches up sooner): the result starts as the first column and takes one ufunc
  call per further column, each over every row (``minimum(out, x[..., j], out=out)``).
  That is NumPy's own order of operations for a row, so the bits are NumPy's (the
  scans: ``out[..., j] = out[..., j-1] + x[..., j]`` is the sequential scan, float
  results included).
- **side by side** -- the reduced axis is the first one of a C-contiguous array whose
  kept part is short (at most ``ROW`` elements): ``W`` rows are read as one row of
  ``W * row`` elements (a view), reduced down the long axis by NumPy's fast walk, then
  the ``W`` partial rows and the remaining rows are reduced.

Float sums take the columns walk only for rows of fewer than ``PAIRWISE`` (8)
elements, where NumPy adds sequentially from ``+0.0`` -- the same additions in the
same order (checked against NumPy at first use; where they differ, NumPy's ``sum``
runs).

Only operations whose result does not depend on the order take the side-by-side walk:
``min``/``max`` (the same values as NumPy; a NaN anywhere gives NaN; where the minimum
is zero and the column holds both ``+0.0`` and ``-0.0``, the sign may differ from
NumPy's, whose own result then depends on its loop), ``all``/``any`` of bools, and
``sum``/``prod`` of integers and bools (modular arithmetic: every order gives the
same bits). Float sums over the first axis, means and the rest stay NumPy's: their
rounding is NumPy's order. Anything else -- other keywords (``out=``, ``where=``, ``initial=``), small
arrays (fewer than ``MIN_SIZE`` elements, where the walk's calls cost more than they
save), other layouts -- goes to the library unchanged.
"""

from __future__ import annotations

import sys

import numpy as np

__all__ = ["around", "walk_reduction", "walk_scan", "SHORT", "SHORT_BYTES", "SHORT_SUM", "ROW",
           "MIN_SIZE"]

#: Longest last axis the columns walk takes for min, max, all, any, and the most
#: bytes of such a row: on the development machine ``max(axis=1)`` ran 3.9x
#: NumPy's speed for 6 float64 columns (48 bytes), 1.6x for 6 int64, 1.8x for 12 int32,
#: but 0.45x for 16 float64, 0.26x for 16 int64, 0.77x for 16 int32 (64 bytes).
SHORT = 16
SHORT_BYTES = 48
#: ... and for integer sums and products and the scans (NumPy's 8-wide loop was as
#: fast as 8 columns' calls; at 4, 2.4x and 4.4x faster).
SHORT_SUM = 4
#: Longest kept row (elements) the side-by-side walk takes (64 float64: 1.4x NumPy's
#: ``max(axis=0)``; a row of one element is NumPy's contiguous 1-D reduction already,
#: 0.4-0.9x by the walk, so rows start at 2).
ROW = 64
#: Elements read side by side in one row of the side-by-side walk.
FOLD = 1024
#: Smallest array either walk takes.
MIN_SIZE = 1 << 14

_UFUNCS = {"min": np.minimum, "max": np.maximum, "all": np.logical_and,
           "any": np.logical_or, "sum": np.add, "prod": np.multiply}
_SCANS = {"cumulative_sum": np.add, "cumulative_prod": np.multiply}
#: dtype kinds each reduction walks: min/max any real, all/any bools, sum/prod the
#: exact (integer and bool) ones
_KINDS = {"min": "biuf", "max": "biuf", "all": "b", "any": "b", "sum": "biuf", "prod": "biu"}
#: NumPy sums a contiguous run of fewer than 8 elements in one sequential loop from
#: +0.0 (its pairwise summation starts at 8): rows of fewer take the columns walk
PAIRWISE = 8
_FLOAT_SUMS: list = []   # [whether the columns walk gives NumPy's bits], checked once


def _rows_inner(x: np.ndarray) -> bool:
    """Whether the last axis is the one with the smallest step in memory (a ``(n, k)``
    array, its row slices, its reversed columns): the layout NumPy walks a few elements
    per outer step. Where a longer axis is inner (a ``(k, n)`` array used as ``.T``),
    NumPy's own walk is already over long runs."""
    inner = abs(x.strides[-1])
    return all(inner <= abs(s) for s, n in zip(x.strides[:-1], x.shape[:-1]) if n > 1)


def _sum_dtype(dt: np.dtype, dtype) -> np.dtype | None:
    """The result dtype of an integer or bool ``sum``/``prod``: ``dtype`` when given
    (an integer one), else the default: signed and bool to int64, unsigned to uint64."""
    if dtype is not None:
        d = np.dtype(dtype)
        return d if d.kind in "iu" and np.can_cast(dt, d, "safe") else None
    if dt.kind == "u":
        return np.dtype(np.uint64)
    return np.dtype(np.int64)


def walk_reduction(name: str, x: np.ndarray, axis: int, dtype=None):
    """``name`` of ``x`` over the one axis ``axis`` (non-negative) by a walk, without
    ``keepdims``; None where no walk applies."""
    dt = x.dtype
    if dt.kind not in _KINDS[name] or dt.byteorder not in "=|" or x.size < MIN_SIZE:
        return None
    if name == "sum" and dt.kind == "f":
        return _float_row_sums(x, axis, x.shape[axis], dtype)
    if name in ("sum", "prod"):
        res = _sum_dtype(dt, dtype)
        if res is None:
            return None
    elif dtype is not None:
        return None
    else:
        res = dt if name in ("min", "max") else np.dtype(np.bool_)
    uf = _UFUNCS[name]
    k = x.shape[axis]
    short = (min(SHORT, SHORT_BYTES // dt.itemsize) if name in ("min", "max", "all", "any")
             else SHORT_SUM)
    if axis == x.ndim - 1 and 1 <= k <= short and _rows_inner(x):
        out = x[..., 0].astype(res, copy=True)
        for j in range(1, k):
            uf(out, x[..., j], out=out)
        return out
    row = x.size // k if k else 0
    if axis == 0 and x.flags.c_contiguous and 2 <= row <= ROW:
        width = max(2, FOLD // row)
        m = k // width
        if m < 2:
            return None
        flat = x.reshape(k, row)
        kw = {} if name in ("min", "max", "all", "any") else {"dtype": res}
        part = uf.reduce(flat[:m * width].reshape(m, width * row), axis=0, **kw)
        # in the result dtype again: add/multiply.reduce would widen narrow integers
        out = uf.reduce(part.reshape(width, row), axis=0, **kw)
        if k > m * width:
            uf(out, uf.reduce(flat[m * width:], axis=0, **kw), out=out)
        return out.reshape(x.shape[1:])
    return None


def _float_row_sums(x: np.ndarray, axis: int, k: int, dtype):
    """``sum`` of float32/float64 rows of ``1 <= k < PAIRWISE`` elements along the last
    axis, as NumPy adds them: ``((0.0 + x0) + x1) + ...``; None elsewhere, or where a
    first-use check finds NumPy adding otherwise."""
    dt = x.dtype
    if (dt.itemsize < 4 or (dtype is not None and np.dtype(dtype) != dt)
            or axis != x.ndim - 1 or not 1 <= k < PAIRWISE or not _rows_inner(x)
            or not _float_sums_match()):
        return None
    out = np.add(x[..., 0], dt.type(0.0))   # +0.0 for a row of -0.0, as NumPy's
    for j in range(1, k):
        np.add(out, x[..., j], out=out)
    return out


def _float_sums_match() -> bool:
    """Whether the columns walk gives NumPy's bits for float row sums of 1..7 elements
    (NumPy's loop order is not a documented promise: checked on 64 rows of values
    whose sums round, and of signed zeros, at first use)."""
    if not _FLOAT_SUMS:
        ok = True
        for dt in (np.float32, np.float64):
            rows = np.arange(1.0, 64 * 7 + 1).reshape(64, 7) ** 1.5 / 7
            rows[::5] = -0.0
            rows = rows.astype(dt)
            for k in range(1, PAIRWISE):
                part = rows[:, :k]
                out = np.add(part[:, 0], dt(0.0))
                for j in range(1, k):
                    np.add(out, part[:, j], out=out)
                ok = ok and out.tobytes() == np.sum(part, axis=1).tobytes()
        _FLOAT_SUMS.append(ok)
    return _FLOAT_SUMS[0]


def walk_scan(name: str, x: np.ndarray, axis: int):
    """``name`` (a cumulative sum or product, no ``dtype``, no initial value) of ``x``
    along ``axis`` by the columns walk; None where it does not apply (the result
    dtype must be ``x``'s: float32, float64, int64, uint64)."""
    k = x.shape[axis] if x.ndim else 0
    if (axis != x.ndim - 1 or not 2 <= k <= SHORT_SUM or x.size < MIN_SIZE
            or x.dtype.name not in ("float32", "float64", "int64", "uint64")
            or x.dtype.byteorder not in "=|" or not _rows_inner(x)):
        return None
    uf = _SCANS[name]
    out = np.array(x, copy=True)
    for j in range(1, k):
        uf(out[..., j - 1], out[..., j], out=out[..., j])
    return out


def _reduction(name: str, library: dict):
    reduce = _direct_reduce(name)
    # min/max/all/any take no dtype= (NumPy's "unexpected keyword" then answers)
    extra = frozenset(("dtype",)) if name in ("sum", "prod") else frozenset()

    def call(x, *args, axis=_UNSET, keepdims=_UNSET, **kwargs):
        # axis arrives normalized (a sorted tuple of non-negative ints) from
        # xstride.reductions; positional arguments and other keywords go to the library,
        # with only the keywords given (np.matrix.sum takes no keepdims=)
        if type(x) is np.ndarray and not args and (not kwargs or kwargs.keys() <= extra):
            axis = None if axis is _UNSET else axis
            keepdims = False if keepdims is _UNSET else keepdims
            dtype = kwargs.get("dtype") if kwargs else None
            if x.size >= MIN_SIZE and type(axis) is tuple and len(axis) == 1:
                out = walk_reduction(name, x, axis[0], dtype)
                if out is not None:
                    return np.expand_dims(out, axis) if keepdims else out
            return reduce(x, axis, dtype, keepdims)
        if axis is not _UNSET:
            kwargs["axis"] = axis
        if keepdims is not _UNSET:
            kwargs["keepdims"] = keepdims
        return library[name](x, *args, **kwargs)
    return call


_UNSET = object()   # a keyword the call did not give


def _direct_reduce(name: str):
    """``reduce(x, axis, dtype, keepdims)``: what NumPy's ``name`` runs for a plain
    ``ndarray`` (``np.max`` is ``np.maximum.reduce`` behind ``_wrapreduction``,
    ``np.all`` is ``np.logical_and.reduce(x, axis, bool)``), called without the Python
    wrapper: about 1 us of a small array's call (docs/performance.md, "Call overhead on
    the host"). ``dtype`` is None for all but ``sum``/``prod``."""
    uf = _UFUNCS[name]
    if name in ("sum", "prod"):
        return lambda x, axis, dtype, keepdims: uf.reduce(x, axis, dtype, keepdims=keepdims)
    if name in ("all", "any"):
        return lambda x, axis, dtype, keepdims: uf.reduce(x, axis, np.bool_, keepdims=keepdims)
    return lambda x, axis, dtype, keepdims: uf.reduce(x, axis, keepdims=keepdims)


def _scan(name: str, library: dict):
    method = _SCAN_METHODS[name]

    def call(x, *, axis=None, dtype=None, include_initial=False, **kwargs):
        if (type(x) is np.ndarray and not include_initial and not kwargs
                and isinstance(axis, int)):
            if x.size >= MIN_SIZE and dtype is None:
                out = walk_scan(name, x, axis)
                if out is not None:
                    return out
            # what the library (array_api_compat's cumulative_sum: np.cumsum) runs
            return method(x, axis, dtype)
        if include_initial and type(x) is not np.ndarray and not kwargs and _masked(x):
            return _masked_with_initial(name, library[name](x, axis=axis, dtype=dtype), axis)
        return library[name](x, axis=axis, dtype=dtype, include_initial=include_initial,
                             **kwargs)
    return call


def _masked(x) -> bool:
    """Whether ``x`` is a ``numpy.ma`` masked array (without importing ``numpy.ma``: an
    array is masked only once something imported it)."""
    ma = sys.modules.get("numpy.ma")
    return ma is not None and ma.isMaskedArray(x)


def _masked_with_initial(name: str, res, axis: int):
    """A masked scan ``res`` with the identity put first along ``axis``, not masked, and
    ``res``'s mask kept (array_api_compat's ``np.concatenate`` with a plain array of the
    identity dropped the whole mask, showing the running values of masked elements)."""
    ma = sys.modules["numpy.ma"]
    shape = tuple(1 if a == axis else n for a, n in enumerate(res.shape))
    head = ma.masked_array(np.full(shape, 0 if name == "cumulative_sum" else 1, res.dtype),
                           mask=False)
    return ma.concatenate([head, res], axis=axis)


_SCAN_METHODS = {"cumulative_sum": np.ndarray.cumsum, "cumulative_prod": np.ndarray.cumprod}


def _arg(name: str, library: dict):
    method = _ARG_METHODS[name]

    def call(x, *, axis=None, keepdims=False, **kwargs):
        # NumPy's argmax is the array's method behind ``_wrapfunc``
        if type(x) is np.ndarray and not kwargs:
            return method(x, axis, keepdims=keepdims)
        if keepdims:   # only where asked: np.matrix's argmax takes no keepdims
            kwargs["keepdims"] = True
        return library[name](x, axis=axis, **kwargs)
    return call


_ARG_METHODS = {"argmin": np.ndarray.argmin, "argmax": np.ndarray.argmax}


def _moment(name: str):
    fn = _MOMENTS[name]

    def call(x, *, axis=None, correction=0.0, keepdims=False, **kwargs):
        # array_api_compat's var/std: this call behind two Python wrappers
        # (keepdims only where asked: np.matrix's var takes none)
        if keepdims:
            kwargs["keepdims"] = True
        return fn(x, axis=axis, ddof=correction, **kwargs)
    return call


_MOMENTS = {"var": np.var, "std": np.std}


def around(library: dict) -> dict:
    """The walks in front of the library's functions: ``name -> function`` for every
    name that has a walk or a direct call. Where no walk applies, a plain ``ndarray``
    goes to what NumPy's function runs for it, without NumPy's (and
    array_api_compat's) Python wrappers: the ufunc's ``reduce``, the array's
    ``argmax``/``cumsum`` method, ``np.var(x, ddof=correction)``; anything else looks
    up ``library[name]`` (a stand-in there may replace itself with the real function
    on its first call)."""
    funcs = {name: _reduction(name, library) for name in _UFUNCS}
    funcs.update({name: _scan(name, library) for name in _SCANS})
    funcs.update({name: _arg(name, library) for name in _ARG_METHODS})
    funcs.update({name: _moment(name) for name in _MOMENTS})
    return funcs
