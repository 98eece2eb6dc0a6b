"""Arguments the libraries take where the standard asks for an error (or refuse with a
message that names no argument): ``take`` of a
multi-dimensional array without ``axis`` (NumPy flattened it), ``take`` with indices of
a non-integer dtype (a bool mask became indices 0 and 1), ``take_along_axis``'s
arguments (NumPy's errors named neither the function nor the argument; one check for
the NumPy and dask backends), ``repeat`` with a float
``repeats`` and ``roll`` with a float ``shift`` (both truncated), ``roll`` with a tuple
``shift`` and no tuple ``axis`` of its length (NumPy summed the shifts),
``searchsorted``'s ``x1`` of other than one dimension and ``sorter`` of
another dtype or shape, ``sort``/``argsort``'s axis (a 0-D array has none),
``tril``/``triu`` of fewer than two dimensions, ``meshgrid`` of arrays of other than
one dimension (both libraries flattened them), ``arange``'s zero ``step``,
``linspace``'s ``num`` of no int and ``endpoint`` of no bool (NumPy's took
``linspace(0, 1, True)`` as one value, both libraries ``endpoint="no"`` as true)
(``concat``'s arrays: ``join_checks.py``). The checks
run before the backend's function, on the NumPy and dask backends ("Indexing
Functions", "take": "if x has more than one dimension, providing an axis is required";
"repeat", "roll": integer counts).
"""

from __future__ import annotations

import sys

import numpy as np

from .._core.errors import (argument_error, broadcast_error, describe, error, type_error,
                            overflow_error, value_error)
from .._core.intseq import is_index
from .._plans.reduction import normalize_axis, normalize_one_axis
from . import select as _backend
from .copy_checks import check_copy
from .creation_errors import device_argument_error
from .masked_sort import masked_argsort, masked_sort
from .dispatch import compat_function, register
from .registry import of_array
from .index_range import check_unsigned_indices
from .linspace_ints import floored_linspace, integer_past_float
from .join_checks import check_concat_shapes
from .shape_checks import named_shape_error
from .dask_triangle import triangle
from .masked_search import masked_searchsorted
from .masked_take import masked_take
from .numpy_masked import masked_among, masked_triangle
from .sorter_checks import check_sorted_x1, check_sorter, check_sorter_range, check_values

__all__ = ["check_take", "check_take_along_axis", "check_repeats", "check_repeat_size", "check_dask_repeats",
           "check_shift", "check_sorted_x1", "check_sorter", "check_axis", "check_flag",
           "check_sort_args", "sort_descending", "check_step", "check_triangle",
           "check_meshgrid", "check_linspace",
           "check_concat_shapes", "check_unknown_broadcast_to"]


def _integer_dtype(v) -> bool:
    kind = getattr(getattr(v, "dtype", None), "kind", None)
    return kind in ("i", "u")


def check_take(x, indices, axis) -> None:
    """``take``'s ``axis`` (required past one dimension), ``indices`` (integers, one
    dimension) and ``x`` (at least one dimension: the standard's "indices ... must be
    one-dimensional"; NumPy took a 0-D ``x`` and indices of any rank, dask refused 2-D
    indices with a bare ``AssertionError``)."""
    if axis is None and getattr(x, "ndim", 1) > 1:
        raise value_error("take", "axis", f"is required for an array of {x.ndim} "
                                          "dimensions (the standard does not flatten)")
    if not _integer_dtype(indices):
        raise type_error("take", "indices", indices, "an array of an integer dtype")
    if getattr(x, "ndim", 1) == 0:
        raise argument_error(np.exceptions.AxisError, "take", "x",
                             "has 0 dimensions: no axis to take along (the standard's x "
                             "has at least one)")
    if indices.ndim != 1:
        raise value_error("take", "indices", f"has shape {indices.shape}; expected a "
                                             "one-dimensional array (the standard's)")


def check_take_along_axis(x, indices, axis) -> int:
    """``take_along_axis``'s arguments, on every backend: ``x`` an array, ``indices`` an
    array of an integer dtype and of ``x``'s rank, ``axis`` an int naming an axis of
    ``x`` (out of range: ``numpy.exceptions.AxisError``, as NumPy's), and the other
    axes of the two broadcasting together. NumPy raised its own errors, naming neither
    the function nor the argument (``IndexError: `indices` must be an integer array``,
    an ``AttributeError`` for a list, "shape mismatch: indexing arrays could not be
    broadcast ..."); dask's took float and bool indices. Returns the axis, made
    non-negative."""
    func = "take_along_axis"
    if not hasattr(x, "ndim") or not hasattr(x, "shape"):
        raise type_error(func, "x", x, "an array")
    if not hasattr(indices, "shape") or not _integer_dtype(indices):
        raise type_error(func, "indices", indices, "an array of an integer dtype")
    check_axis(func, x, axis)
    if indices.ndim != x.ndim:
        raise value_error(func, "indices", f"has {indices.ndim} dimension"
                                           f"{'' if indices.ndim == 1 else 's'}; expected "
                                           f"x's {x.ndim}")
    ax = int(axis) % x.ndim

    def but_axis(shape):
        return tuple(shape[:ax]) + (1,) + tuple(shape[ax + 1:])

    try:
        np.broadcast_shapes(but_axis(x.shape), but_axis(indices.shape))
    except ValueError:
        raise broadcast_error(func, (x.shape, indices.shape)) from None
    except TypeError:   # a length dask does not know (NaN): the dask backend names it
        return ax
    return ax


def check_repeats(repeats) -> None:
    """``repeat``'s ``repeats``: an int (not negative) or an array of an integer dtype."""
    one = isinstance(repeats, (int, np.integer))
    if isinstance(repeats, bool) or not (one or _integer_dtype(repeats)):
        raise type_error("repeat", "repeats", repeats, "an int or an array of an integer dtype")
    if one and repeats < 0:   # NumPy's said "negative dimensions", dask's "Number of samples"
        raise value_error("repeat", "repeats", f"is {repeats}; a count must be at least 0")


def check_repeat_size(x, repeats) -> None:
    """One count ``repeats`` of ``x`` (an int, or a NumPy array of one integer, which
    NumPy broadcasts) whose result would hold more elements than int64 counts: a
    ``ValueError`` naming ``repeats`` (NumPy's product wrapped: "negative dimensions
    are not allowed"; dask's "array is too big"). A size dask does not know (NaN) is
    not checked."""
    size = getattr(x, "size", None)
    if isinstance(repeats, np.ndarray) and repeats.size == 1 and repeats.dtype.kind in "iu":
        repeats = repeats.reshape(-1)[0]
    if not isinstance(repeats, (int, np.integer)) or size is None or size != size:
        return
    total = int(size) * int(repeats)
    if total > np.iinfo(np.int64).max:
        raise value_error("repeat", "repeats", f"is {repeats}; the result would hold "
                                               f"{total:,} elements, more than an array "
                                               "can hold")


def check_dask_repeats(x, repeats, axis) -> None:
    """``repeat``'s ``repeats`` of ``x`` on dask: one count (:func:`check_repeats`, then
    an int; no array of counts, whose result lengths dask could not know: its "Only
    integer ..."), ``axis`` one of ``x``'s, and a result int64 counts
    (:func:`check_repeat_size`), in the NumPy backend's order."""
    check_repeats(repeats)
    if axis is not None:
        normalize_one_axis("repeat", axis, x.ndim)
    check_repeat_size(x, repeats)
    if not isinstance(repeats, (int, np.integer)):
        raise argument_error(NotImplementedError, "repeat", "repeats",
                             f"got {describe(repeats)}; the dask backend repeats by one "
                             "count (an int): for an array of counts compute the arrays "
                             "first (xstride.to_numpy)")


def check_shift(shift, axis=None) -> None:
    """``roll``'s ``shift``: an int or a tuple of ints; a tuple needs a tuple ``axis`` of
    its length ("If shift is a tuple, then axis must be a tuple of the same size": NumPy
    broadcast the two and summed the shifts of a repeated axis)."""
    for s in shift if isinstance(shift, (tuple, list)) else (shift,):
        if isinstance(s, bool) or not isinstance(s, (int, np.integer)):
            raise type_error("roll", "shift", shift, "an int or a tuple of ints")
    if isinstance(shift, (tuple, list)):
        n_axes = len(axis) if isinstance(axis, (tuple, list)) else None
        if n_axes != len(shift):
            named = ("no axis" if axis is None else f"axis {axis!r}" if n_axes is None
                     else f"{n_axes} ax{'is' if n_axes == 1 else 'es'} {tuple(axis)}")
            raise value_error("roll", "shift", f"has {len(shift)} shifts {tuple(shift)} for "
                                               f"{named}; a tuple of shifts needs a tuple "
                                               "axis of the same length")


def check_flag(func: str, arg: str, value) -> None:
    """A flag of the standard (``sort``'s ``descending`` and ``stable``,
    ``count_nonzero``'s ``keepdims``): a bool (NumPy's took any truthy value)."""
    if not isinstance(value, (bool, np.bool_)):
        raise type_error(func, arg, value, "a bool")


def check_linspace(num, endpoint, start=0, stop=0, dtype=None) -> None:
    """``linspace``'s ``num`` an int (a NumPy integer too; not a bool: NumPy's took
    ``True`` as 1), ``endpoint`` a bool (a NumPy bool too; ``"no"`` was taken as true),
    ``start``/``stop`` no ``None`` or str (NumPy's "unsupported operand type(s) for -"),
    and for an integer ``dtype`` (NumPy's extension) real ends whose integer part it
    holds, as ``full`` checks a fill (NumPy's cast wrapped them: ``linspace(0, 300, 3,
    dtype=int8)`` ended in 44)."""
    for arg, v in (("start", start), ("stop", stop)):
        if v is None or isinstance(v, (str, bytes)):
            raise type_error("linspace", arg, v, "a real or complex number")
    if dtype is not None:
        _check_int_ends(start, stop, dtype)
    if isinstance(num, (bool, np.bool_)) or not isinstance(num, (int, np.integer)):
        raise type_error("linspace", "num", num, "a non-negative int")
    if num < 0:   # NumPy's "Number of samples, -1, must be non-negative." named no argument
        raise value_error("linspace", "num", f"must be non-negative; got {num}")
    check_flag("linspace", "endpoint", endpoint)


def _check_int_ends(start, stop, dtype) -> None:
    """:func:`check_linspace`'s ends of an integer ``dtype``."""
    try:
        dt = np.dtype(dtype)
    except TypeError:
        return   # no dtype: the dispatch's dtype check names it
    if dt.kind not in "iu":
        return
    info = np.iinfo(dt)
    for arg, v in (("start", start), ("stop", stop)):
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer,
                                                                 np.floating)):
            continue
        if v != v:
            raise value_error("linspace", arg, f"is nan, which the integer dtype {dt} of the "
                                               "result cannot hold")
        if not info.min <= (v if isinstance(v, (int, np.integer)) else int(v)) <= info.max:
            raise overflow_error("linspace", arg, f"is {v}, whose integer part is out of "
                                                  f"bounds for the dtype {dt} of the result")


def check_axis(func: str, x, axis) -> None:
    """One ``axis`` of ``sort``, ``argsort``, ``diff``: an int (or a 0-D integer array, as
    NumPy's take) naming an axis of ``x`` (a 0-D ``x`` has none: NumPy's ``sort`` raised
    ``AxisError``, its ``argsort`` returned shape (1,), dask's a bare ``IndexError``).
    Out of range: ``numpy.exceptions.AxisError``, an ``IndexError`` and a ``ValueError``."""
    if not is_index(axis):
        raise type_error(func, "axis", axis, "an int naming an axis")
    if not -x.ndim <= axis < x.ndim:
        raise argument_error(np.exceptions.AxisError, func, "axis",
                             f"is {axis}, out of range for an array of {x.ndim} "
                             f"dimension{'s' if x.ndim != 1 else ''}")


def check_step(step) -> None:
    """``arange``'s ``step``: not zero (NumPy's and dask's raised a bare
    ``ZeroDivisionError``, "division by zero")."""
    if isinstance(step, (int, float, np.integer, np.floating)) and step == 0:
        raise value_error("arange", "step", f"is {step}; the step between values must be "
                                            "non-zero")


def check_sort_args(func: str, x, axis, descending, stable, kwargs=None) -> None:
    """``sort``/``argsort``: ``x`` of no object dtype, the flags ``descending`` and
    ``stable`` bools, ``axis`` an axis of ``x`` (:func:`check_axis`), and no ``kind`` among
    the library keywords ``kwargs`` passed on. An object array is a ``TypeError`` naming
    ``x`` and its dtype on NumPy and dask alike (the standard has no object dtype):
    NumPy's sorted the items by their ``<``, dask's ``sort`` failed ("Can not use auto
    rechunking with object dtype") where its ``argsort`` sorted them. NumPy's and CuPy's
    ``kind=`` is a ``TypeError`` naming it: array-api-compat set ``kind`` from
    ``stable`` over the caller's, so ``kind="quicksort"`` gave the stable sort silently,
    and ``kind`` with ``stable`` (which NumPy refuses together) was taken."""
    if kwargs and "kind" in kwargs:
        raise type_error(func, "kind", kwargs["kind"],
                         "no kind (NumPy's keyword): the standard's stable= chooses "
                         "(stable=True keeps equal elements in order, stable=False may not)")
    if getattr(getattr(x, "dtype", None), "kind", None) == "O":
        raise type_error(func, "x", x, "an array of a bool or numeric dtype (the array "
                                       "API has no object dtype)")
    check_flag(func, "descending", descending)
    check_flag(func, "stable", stable)
    check_axis(func, x, axis)


def check_triangle(func: str, x, k) -> int:
    """``tril``/``triu``: ``x`` of at least two dimensions (NumPy's made a 1-D ``x`` the
    rows of a square matrix, dask's failed on chunks; "Creation Functions", ``tril``:
    "having shape (..., M, N)") and an int ``k``. Returns ``k`` within ``[-M, N]``, which
    selects the same elements: any int is a diagonal (NumPy's ``triu`` raised "Python int
    too large to convert to C long" from ``k = -2**63`` and both functions past int64,
    dask's when computed, naming neither the function nor ``k``; ``eye`` takes them)."""
    if getattr(x, "ndim", 0) < 2:
        raise value_error(func, "x", f"has {getattr(x, 'ndim', 0)} dimension(s); {func} takes "
                                     "a matrix or a stack of matrices (..., M, N)")
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
        raise type_error(func, "k", k, "an int (the diagonal's offset)")
    if any(n != n for n in x.shape[-2:]):   # NaN: a length dask does not know
        raise value_error(func, "x", f"has shape {tuple(x.shape)}, with lengths dask does not "
                                     "know (as after boolean indexing), which the diagonal "
                                     "needs; call x.compute_chunk_sizes() first")
    rows, cols = x.shape[-2:]
    return max(-int(rows), min(int(k), int(cols)))


def check_unknown_broadcast_to(shape, target) -> None:
    """``broadcast_to`` of a dask array of ``shape`` with lengths dask does not know (NaN,
    after boolean indexing), which dask's broadcast refused as "cannot broadcast shape
    (nan,) to shape (2, 5)", as if the shapes did not broadcast: where no known length
    conflicts with ``target``, a ``ValueError`` saying to compute the lengths."""
    if not any(n != n for n in shape) or len(shape) > len(target):
        return
    if any(n == n and n != 1 and n != t for n, t in zip(shape[::-1], target[::-1])):
        return   # (nan, 3) to (5, 2): no length computed would make it broadcast
    raise value_error("broadcast_to", "x", f"has shape {tuple(shape)}, with lengths dask does "
                                           "not know (as after boolean indexing), which its "
                                           f"broadcast to {tuple(target)} needs; call "
                                           "x.compute_chunk_sizes() first")


def check_meshgrid(arrays, indexing="xy") -> None:
    """``meshgrid``'s arrays: each of one dimension ("Creation Functions", ``meshgrid``:
    "an arbitrary number of one-dimensional arrays"; NumPy's and dask's flattened a 2-D
    array, and made a 0-D one of length 1, silently); ``indexing`` ``'xy'`` or ``'ij'``,
    first (NumPy's and dask's refused others with two texts naming no function)."""
    if not isinstance(indexing, str):
        raise type_error("meshgrid", "indexing", indexing, "'xy' or 'ij'")
    if indexing not in ("xy", "ij"):
        raise value_error("meshgrid", "indexing", f"is {indexing!r}; expected 'xy' or 'ij'")
    for i, a in enumerate(arrays):
        ndim = getattr(a, "ndim", None)
        if ndim is not None and ndim != 1:
            raise value_error("meshgrid", f"arrays[{i}]", f"has shape {tuple(a.shape)}; "
                                                          "expected a one-dimensional array")


def meshgrid(*arrays, indexing="xy"):
    """``meshgrid`` of the standard on NumPy arrays, each checked first to be of one
    dimension (:func:`check_meshgrid`) and no Python scalar (NumPy's took one as a 0-D
    array, which it refuses: a ``TypeError`` naming it, as the dask backend's)."""
    for i, a in enumerate(arrays):
        if isinstance(a, (bool, int, float, complex)) and not isinstance(a, np.generic):
            raise type_error("meshgrid", f"arrays[{i}]", a, "a one-dimensional array")
    check_meshgrid(arrays, indexing)
    return _numpy("meshgrid")(*arrays, indexing=indexing)


def _triangle(name: str, backend: str):
    def impl(x, /, *, k=0):
        k = check_triangle(name, x, k)
        if backend == "dask":   # dask's warned of complex input (dask_triangle.py)
            return triangle(x, k, lower=name == "tril")
        if masked_among((x,)):   # NumPy's returned the data alone (numpy_masked.py)
            return masked_triangle(x, k, lower=name == "tril")
        return getattr(_backend.namespace(backend), name)(x, k=k)

    impl.__name__ = impl.__qualname__ = name
    impl.__doc__ = (f"``{name}`` of the standard: ``x`` of at least two dimensions and an "
                    "int ``k``, checked first.")
    return impl


def _numpy(name):
    return compat_function("numpy", name)


def take(x, indices, /, *, axis=None):
    """``take`` of the standard on NumPy arrays, its arguments checked first; an index
    out of range is NumPy's ``IndexError`` with the function's name in front (as the
    dask backend's, which raises it when computed)."""
    check_take(x, indices, axis)
    got = masked_take(take, x, indices, axis)   # masked indices: elements masked
    if got is not None:
        return got
    if indices.dtype.kind == "u":   # past intp: NumPy's cast made 2**64 - 1 the index -1
        ax = 0 if axis is None else int(axis) % x.ndim
        check_unsigned_indices("take", indices, x.shape[ax], ax)
    try:
        return _numpy("take")(x, indices, axis=axis)
    except IndexError as exc:
        if isinstance(exc, np.exceptions.AxisError):
            raise
        raise error(IndexError, "take", exc) from None


def take_along_axis(x, indices, /, *, axis=-1):
    """``take_along_axis`` of the standard on NumPy arrays, its arguments checked first
    (:func:`check_take_along_axis`); an index out of range is NumPy's ``IndexError``
    with the function's name in front."""
    ax = check_take_along_axis(x, indices, axis)
    if indices.dtype.kind == "u":   # past intp: NumPy's cast made 2**64 - 1 the index -1
        check_unsigned_indices("take_along_axis", indices, x.shape[ax], ax)
    try:
        return _numpy("take_along_axis")(x, indices, axis=axis)
    except IndexError as exc:
        raise error(IndexError, "take_along_axis", exc) from None


def repeat(x, repeats, /, *, axis=None):
    """``repeat`` of the standard on NumPy arrays, ``repeats`` checked first; an array
    of uint64 repeats is taken as intp (NumPy's refused to cast it 'safely')."""
    check_repeats(repeats)
    if axis is not None:   # NumPy's took axis 0 (and -1) of a 0-D x
        normalize_one_axis("repeat", axis, getattr(x, "ndim", 0))
    check_repeat_size(x, repeats)
    if getattr(repeats, "dtype", None) == np.uint64:
        top = int(repeats.max()) if repeats.size else 0
        if top > np.iinfo(np.intp).max:
            raise value_error("repeat", "repeats", f"holds {top}, more repeats than an "
                                                   "array can hold")
        repeats = repeats.astype(np.intp)
    return _numpy("repeat")(x, repeats, axis=axis)


def roll(x, /, shift, *, axis=None):
    """``roll`` of the standard on NumPy arrays, ``shift`` and each axis checked first
    (as on dask: NumPy's took a bool axis; an axis may repeat)."""
    check_shift(shift, axis)
    if axis is not None and hasattr(x, "ndim"):
        for a in axis if isinstance(axis, (tuple, list)) else (axis,):
            normalize_axis("roll", a, x.ndim)
    return _numpy("roll")(x, shift, axis=axis)


def searchsorted(x1, x2, /, *, side="left", sorter=None):
    """``searchsorted`` of the standard on NumPy arrays, ``x1`` (of one dimension),
    ``side`` and ``sorter``'s dtype and shape checked first (NumPy's ``TypeError``
    "could not parse sorter argument" for a 2-D one). ``sorter``'s values are checked
    where NumPy's binary search reads them, ``O(len(x2) log len(x1))`` of them: an index
    out of range there is NumPy's "Sorter index out of range.", raised here as a
    ``ValueError`` naming ``sorter`` and the index (found by a ``min`` and a ``max``
    then, on the error's path only); an index the search never reads is not looked at
    (a scan of every index before each call made ``searchsorted`` of 10 values in 10**6
    sorted ones 280x slower: 580 against 2 us). A uint64 ``sorter`` (NumPy's "could not
    parse sorter argument": no safe cast to intp) is cast, an index past intp's range
    becoming a negative one the search refuses where it reads it."""
    if sorter is not None:
        sorter = np.asarray(sorter)
    check_sorter(x1, sorter, side)
    if type(x2) is not np.ndarray or x2.dtype.kind not in "biufc":
        check_values(x1, x2)
    if type(x1) is not np.ndarray or type(x2) is not np.ndarray:   # masked_search.py
        got = masked_searchsorted(searchsorted, x1, x2, side, sorter, "numpy")
        if got is not None:   # x2's mask kept (a masked x1 refused)
            return got
    given = sorter
    if sorter is not None and not np.can_cast(sorter.dtype, np.intp):
        sorter = sorter.astype(np.intp)
    try:
        return _numpy("searchsorted")(x1, x2, side=side, sorter=sorter)
    except ValueError:
        if given is not None:
            check_sorter_range(given, x1.shape[0])   # names the index, when that is why
        raise


def sort(x, /, *, axis=-1, descending=False, stable=True, **kwargs):
    """``sort`` of the standard on NumPy arrays, ``axis`` checked first (``None``: the
    flattened array, NumPy's flattened sort, as on the dask backend)."""
    if axis is None and hasattr(x, "reshape"):
        x, axis = x.reshape(-1), -1
    check_sort_args("sort", x, axis, descending, stable, kwargs)
    if not kwargs and _masked(x):   # its masked elements last (masked_sort.py)
        return masked_sort(x, axis, bool(descending), bool(stable))
    if descending:
        return sort_descending(_numpy("flip"), _numpy("sort"), x, axis, **kwargs)
    return _numpy("sort")(x, axis=axis, descending=descending, stable=stable, **kwargs)


def sort_descending(flip, sort, x, axis: int, **kwargs):
    """Descending sort keeping equal elements in order, as ``argsort`` (the flip of the
    ascending sort reversed them: ``[0.0, -0.0]`` gave ``[-0.0, 0.0]``)."""
    return flip(sort(flip(x, axis=axis), axis=axis, stable=True, **kwargs), axis=axis)


def argsort(x, /, *, axis=-1, descending=False, stable=True, **kwargs):
    """``argsort`` of the standard on NumPy arrays, ``axis`` checked first: a 0-D array
    is refused as ``sort`` refuses it (NumPy's gave shape (1,)); ``None`` sorts the
    flattened array, as ``sort`` (compat's raised "'>=' not supported between instances
    of 'NoneType' and 'int'" with ``descending=True``)."""
    if axis is None and hasattr(x, "reshape"):
        x, axis = x.reshape(-1), -1
    check_sort_args("argsort", x, axis, descending, stable, kwargs)
    if not kwargs and _masked(x):   # its masked elements last (masked_sort.py)
        return masked_argsort(x, axis, bool(descending), bool(stable))
    return _numpy("argsort")(x, axis=axis, descending=descending, stable=stable, **kwargs)


#: ``linspace`` ends of these types need no look for a dask array (the fast path)
_PLAIN_ENDS = frozenset((int, float, complex, bool, np.float64, np.float32, np.int64,
                         np.ndarray))


def linspace(start, stop, /, num, *, dtype=None, device=None, endpoint=True, **kwargs):
    """``linspace`` of the standard on NumPy, ``num`` and ``endpoint`` checked first
    (:func:`check_linspace`). A dask array end (a 0-D one: the standard's scalar) is
    computed, as NumPy's ``full`` and ``arange`` compute one, so the result is a NumPy
    array (NumPy's ``linspace`` handed the call to dask, which returned a dask array)."""
    check_linspace(num, endpoint, start, stop, dtype)
    if start.__class__ not in _PLAIN_ENDS or stop.__class__ not in _PLAIN_ENDS:
        start, stop = (v if (be := of_array(v)) is None or not be.lazy else be.to_host(v)
                       for v in (start, stop))
    if (dt := integer_past_float(start, stop, dtype)) is not None:   # no wrap at the top
        return floored_linspace(_numpy("linspace"), dt, start, stop, num, device=device,
                                endpoint=bool(endpoint), **kwargs)
    return _numpy("linspace")(start, stop, num, dtype=dtype, device=device,
                              endpoint=bool(endpoint), **kwargs)


def _masked(x) -> bool:
    """Whether ``x`` is a ``numpy.ma`` masked array (``numpy.ma`` not imported: none is)."""
    ma = sys.modules.get("numpy.ma")
    return ma is not None and isinstance(x, ma.MaskedArray)


def from_dlpack(x, /, *, device=None, copy=None):
    """``from_dlpack`` of the standard on NumPy: an ``x`` without ``__dlpack__`` is a
    ``TypeError`` naming it (NumPy's an ``AttributeError``); ``copy`` and ``device``
    named as ``asarray``'s (NumPy's "Device not understood", and a ``ValueError`` for
    a str ``copy``, named neither)."""
    if not hasattr(x, "__dlpack__"):
        raise type_error("from_dlpack", "x", x, "an array with __dlpack__ (of a library "
                                                "that supports DLPack)")
    if copy is not None and copy.__class__ is not bool:
        check_copy(copy, "from_dlpack")
    if device is not None and device != "cpu":
        raise device_argument_error("from_dlpack", device, "numpy")
    return _numpy("from_dlpack")(x, device=device, copy=copy)


def broadcast_to(x, /, shape):
    """``broadcast_to`` of the standard on NumPy arrays: a ``shape`` NumPy refuses is
    named as on the dask backend (a float or bool length, a negative one; NumPy's said
    "'float' object cannot be interpreted as an integer", "all elements of broadcast
    shape must be non-negative"), on the error's path only."""
    try:
        return _numpy("broadcast_to")(x, shape)
    except (TypeError, ValueError):
        named_shape_error("broadcast_to", shape, getattr(x, "dtype", None))
        raise


for _fn in (take, take_along_axis, repeat, roll, searchsorted, sort, argsort, from_dlpack,
            linspace, meshgrid, broadcast_to):
    register(_fn.__name__, "numpy")(_fn)
for _backend_name in ("numpy", "dask"):
    for _name in ("tril", "triu"):
        register(_name, _backend_name)(_triangle(_name, _backend_name))
del _fn, _backend_name, _name
