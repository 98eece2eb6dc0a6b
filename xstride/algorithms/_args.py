"""Argument checks behind ``xstride.algorithms`` (levels, bounds, integer arrays)."""

from __future__ import annotations

import itertools
import numbers
import operator
import sys
import types

import numpy as np

from .. import _backends
from .._core.errors import not_provided_error, type_error, value_error
from .._core.intseq import holds_bool, integer_array, leaves
from .._core.sizes import out_of_memory

#: Deepest tree level per dimension: 2-D keys hold 2 x 32 bits, 3-D keys 3 x 21 bits
#: (read-only: the functions' level checks read it).
MAX_MORTON_LEVELS = types.MappingProxyType({2: 32, 3: 21})


def _int_argument(func: str, name: str, value, expected: str) -> int:
    """``value`` as a Python int (an int, a NumPy integer, a 0-d integer array), else
    the ``TypeError`` naming ``name`` and ``expected``: a bool, a masked value (a 0-d
    ``numpy.ma`` array whose mask is set, read as its data by ``__index__``), and an
    array of a lazy backend (a 0-d dask array: ``__index__`` would compute its graph
    inside the call, unasked; the message says to compute it first)."""
    if isinstance(value, (bool, np.bool_)):
        raise type_error(func, name, value, expected)
    be = _backends.of_array(value)
    if be is not None and be.lazy:
        raise type_error(func, name, value, f"{expected}; it is a {be.name} array, whose "
                                            "value is not computed: pass int(x.compute())")
    ma = sys.modules.get("numpy.ma")   # not imported: nothing is masked
    if ma is not None and isinstance(value, ma.MaskedArray) and ma.getmaskarray(value).any():
        raise type_error(func, name, value, f"{expected}; it is masked (a missing value, "
                                            "whose data would be read)")
    try:
        return operator.index(value)
    except TypeError:
        raise type_error(func, name, value, expected) from None


def _levels(func: str, levels, ndim: int) -> int:
    value = _int_argument(func, "levels", levels, "an int")
    top = MAX_MORTON_LEVELS[ndim]
    if not 1 <= value <= top:
        raise value_error(func, "levels", f"must be in 1..{top} for {ndim}-D keys; got {value}")
    return value


def _host_vector(func: str, name: str, value, entries: str = "2 or 3") -> np.ndarray:
    """A bound (lower/upper) as a float64 NumPy vector; CuPy arrays are copied to the host.
    ``entries``: how many numbers the messages ask for (``"3"`` where the caller knows
    the points' dimension)."""
    be = _backends.of_array(value)
    _refuse_mask(func, name, value, be)
    given = value   # the messages describe what the caller passed, not its host copy
    if be is not None and not isinstance(value, np.generic):
        value = be.to_host(value)
    _refuse_inexact_numbers(func, name, value, given, f"a sequence of {entries} real numbers")
    if value is None or not _real_numbers(value):
        # complex would lose its imaginary part, str and bool would be read as numbers
        raise type_error(func, name, given, f"a sequence of {entries} real numbers")
    try:
        arr = np.asarray(value, dtype=np.float64)
    except OverflowError:  # an int beyond float64's range
        raise value_error(func, name, f"must be finite; {_short(value)} does not fit a "
                                      "float64") from None
    except (TypeError, ValueError):
        raise type_error(func, name, given, f"a sequence of {entries} real numbers") from None
    if arr.ndim == 0:
        raise type_error(func, name, given, f"a sequence of {entries} real numbers, one per axis")
    if arr.ndim != 1:
        raise value_error(func, name, f"must be a sequence of {entries} numbers; got shape {arr.shape}")
    if not np.isfinite(arr).all():
        raise value_error(func, name, f"must be finite; got {arr.tolist()}")
    return arr


def _refuse_mask(func: str, name: str, value, be) -> None:
    """``TypeError`` for an array that carries a mask (a NumPy masked array, a dask
    array of masked chunks): its data would be read, masked elements included. So for a
    list or tuple that holds ``numpy.ma`` masked arrays or ``numpy.ma.masked`` at any
    depth: NumPy's conversion reads their data (``masked`` as NaN), the masks lost."""
    if be is None and isinstance(value, (list, tuple)) and _holds_masked(value):
        raise type_error(func, name, value, "numbers or arrays without a mask; it holds a "
                                            "numpy.ma masked array or numpy.ma.masked, whose "
                                            "masked elements would be read as values (pass "
                                            "x.filled(v) or x.compressed() for each)")
    if be is None and _pandas_missing(value):
        raise type_error(func, name, value, "numbers without missing values; it holds "
                                            "pandas.NA, which NumPy's conversion reads as "
                                            "NaN or refuses (pass x.dropna() or "
                                            "x.to_numpy(na_value=v))")
    remedy = None if be is None else be.mask_remedy(value)
    if remedy is not None:
        raise type_error(func, name, value, f"an array without a mask ({remedy})")
    lost = None if be is None else be.lost_remedy(value)
    if lost is not None:   # dask's compute said "Missing dependency" and a key
        raise value_error(func, name, lost)


def _pandas_missing(value) -> bool:
    """Whether ``value`` is a pandas object of a nullable (extension) dtype that holds a
    missing value: a pandas mask, read as NaN (a ``count`` counted it) or as a float."""
    pd = sys.modules.get("pandas")   # not imported: nothing of pandas was passed
    if pd is None or not isinstance(value, (pd.Series, pd.Index, pd.DataFrame,
                                            pd.api.extensions.ExtensionArray)):
        return False
    dtypes = value.dtypes if isinstance(value, pd.DataFrame) else [value.dtype]
    if not any(isinstance(d, pd.api.extensions.ExtensionDtype) for d in dtypes):
        return False   # NumPy dtypes: NaN is a value there, as in an array
    return bool(np.asarray(value.isna()).any())


def _holds_masked(value) -> bool:
    """Whether the nested lists/tuples ``value`` hold a ``numpy.ma`` masked array (or
    ``numpy.ma.masked``) at any depth; a level's types at a time, as
    :func:`~xstride._core.intseq.holds_bool` walks them."""
    ma = sys.modules.get("numpy.ma")   # not imported: nothing is masked
    if ma is None:
        return False
    level = value
    # NumPy makes arrays of at most 64 dimensions: deeper lists (a list that holds
    # itself, which looped here for ever) are left to its conversion, which refuses them
    for _ in range(_MOST_LEVELS):
        types = set(map(type, level))
        if any(issubclass(t, ma.MaskedArray) for t in types):
            return True
        if not any(issubclass(t, (list, tuple)) for t in types):
            return False
        level = list(itertools.chain.from_iterable(
            v for v in level if isinstance(v, (list, tuple))))
    return False


#: The levels of nested lists :func:`_holds_masked` looks into (NumPy's 64 dimensions).
_MOST_LEVELS = 65


#: What to do with arrays of a lazy backend (dask) that a function does not run on.
COMPUTE_FIRST = ("compute the arrays first (xstride.to_numpy(x), or x.compute()) and call it "
                 "on NumPy or CuPy arrays")


def _lazy_refusal(func: str, backend, named, instead: str = COMPUTE_FIRST):
    """``NotImplementedError`` of ``func``, which does not run on ``backend`` (a lazy one:
    dask). Where an argument (or an item of a list/tuple argument, as the backend lookup
    reads them) is an array of it, the error says ``instead`` (compute it first). Where
    none is, the backend is the active one and the arguments are lists, tuples or
    scalars, which would become its arrays: the error says to pass NumPy or CuPy arrays
    (or select such a backend), not to compute arrays the caller does not have."""
    for _, value in named:
        items = value if isinstance(value, (list, tuple)) else (value,)
        if any(backend.owns(v) for v in items):
            return not_provided_error(func, backend.name, instead)
    return not_provided_error(func, backend.name,
                              "lists and tuples are taken as arrays of the active backend "
                              f"({backend.name}): pass NumPy or CuPy arrays instead "
                              "(numpy.asarray(x)), or make NumPy or CuPy the active backend "
                              "(xstride.use_backend)")


def _same_device(func: str, backend, named, kind: str = "morton") -> None:
    """Refuse, before anything runs on them, arrays of ``named`` that are not on the
    current device, where ``backend``'s executor of ``kind`` checks devices (CuPy's:
    ``check_devices``, ``xstride/_kernels/_devices.py``); a composition of several
    executor calls, or one whose checks read its arrays first, calls it at its start."""
    check = getattr(backend.executor(kind), "check_devices", None)
    if check is not None:
        check(func, named)


def _known_shape(func: str, name: str, arr) -> None:
    """Refuse an array whose shape is not known yet (a NaN length: a dask array after
    boolean indexing), naming the way out."""
    if any(n is None or n != n for n in arr.shape):
        raise value_error(func, name, "has chunk lengths that dask does not know (as after "
                                      f"boolean indexing); call {name}.compute_chunk_sizes() "
                                      "first")


def _short(value) -> str:
    """``repr(value)``, cut to its first characters and its length past 40 characters
    (``10**400``: its digits say nothing more)."""
    text = repr(value)
    if len(text) > 40:
        text = f"{text[:12]}... ({len(text)} characters)"
    return text


def _real_numbers(value) -> bool:
    """Whether ``value`` holds real numbers only (integers or floats; not bool, complex,
    str or bytes), without converting anything."""
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError):
        return False  # ragged: refused as a whole
    if isinstance(value, (list, tuple)) and arr.dtype.kind in "iuf" and holds_bool(value):
        return False  # [True, 0, 0]: NumPy reads the bool as a number
    if arr.dtype.kind in "iuf":
        return True
    if arr.dtype.kind != "O":
        return False
    return all(isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_))
               for v in arr.reshape(-1).tolist())


#: the numbers a host parameter (a bound, an origin, a voxel size) takes: those of positions
HOST_NUMBERS = "int or float, or NumPy integer, float16, float32 or float64"


def _refuse_inexact_numbers(func: str, name: str, value, given, expected: str) -> None:
    """``TypeError`` for numbers of ``value`` that float64 would round, or that positions
    refuse: long double (an array, or a NumPy scalar in a list: it was rounded to
    float64 in silence, where long-double positions are refused), and Python numbers
    other than int, float and complex (``Fraction`` was taken, ``Decimal`` refused; as
    positions both are). Other values (complex, str, bool) pass to the caller's checks.
    ``given``: the argument as the caller passed it; ``expected``: what it takes."""
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError):
        return   # ragged: refused as a whole by the caller
    items = arr.reshape(-1).tolist() if arr.dtype.kind == "O" else []
    if (arr.dtype.kind == "f" and arr.dtype.itemsize > 8) or any(
            isinstance(v, np.floating) and v.dtype.itemsize > 8 for v in items):
        raise type_error(func, name, given, f"{expected} ({HOST_NUMBERS}); long double is "
                                            "refused, not rounded to float64")
    other = next((v for v in items if isinstance(v, numbers.Number)
                  and not isinstance(v, (int, float, complex, np.number))), None)
    if other is not None:
        raise type_error(func, name, given, f"{expected} ({HOST_NUMBERS}); it "
                                            f"{'is' if arr.ndim == 0 else 'holds'} a "
                                            f"{type(other).__name__}")


def _refuse_listed_bools(func: str, name: str, value, allowed: str) -> None:
    """``TypeError`` for a list or tuple of numbers that holds a bool (``[True, 1]``,
    which NumPy reads as the ints ``[1, 1]``), where an array of bools is refused."""
    if isinstance(value, (list, tuple)) and holds_bool(value):
        raise type_error(func, name, value, f"{allowed}; it holds a bool (bools are "
                                            "refused, in an array or in a list of numbers)")




def _as_array(func: str, name: str, value, backend):
    """``value`` as an array of ``backend`` (a Backend object); arrays pass as they are,
    but a NumPy subclass (``np.memmap``, ...) as a plain ``ndarray`` view, so results
    are plain arrays. A masked array raises ``TypeError``: its plain view would drop
    the mask, and the masked elements would count; so does a value that is no array
    and no sequence (a generator), which NumPy would wrap as a 0-d object array. A
    dask array comes without its chunks of no element: the range checks' ``max()``
    of one with such chunks on two axes failed in dask's concatenate."""
    be = _backends.of_array(value)
    if be is not None:
        _refuse_mask(func, name, value, be)
        if isinstance(value, np.ndarray) and type(value) is not np.ndarray:
            return np.asarray(value)
        return be.without_empty_chunks(value)
    if value is None:  # NumPy would make it a 0-d object array, which the message names
        raise type_error(func, name, value, "an array")
    _refuse_mask(func, name, value, None)   # a list holding masked arrays
    try:   # what the conversion refuses (a ragged list) is no array
        # a lazy backend's asarray checks its chunks option against the array: that
        # error passes as it is (not "no array"), so the list becomes NumPy's first; on
        # CuPy the backend's own (a list of CuPy arrays is stacked, NumPy refuses it)
        arr = np.asarray(value) if backend.lazy else backend.asarray(value)
    except Exception:
        raise type_error(func, name, value, "an array") from None
    if arr.dtype == object and arr.ndim == 0 and not isinstance(value, numbers.Integral):
        # a generator, or another object that is no sequence, wrapped whole: name it
        # (a Python int beyond 64 bits goes on to the range checks that name it)
        raise type_error(func, name, value, "an array")
    if arr.dtype.kind in "fO" and isinstance(value, (list, tuple)) and _ints_only(value):
        # [2**63 + 1, 5]: NumPy makes it float64, which rounds the large value; integers
        # stay exact (uint64 here), or are refused where no 64-bit type holds them all
        host = integer_array(func, name, value)
        return _new_array(func, name, host, backend) if backend.lazy or not isinstance(
            arr, np.ndarray) else host
    return _new_array(func, name, arr, backend) if backend.lazy else arr


def _ints_only(value) -> bool:
    """Whether the nested lists/tuples ``value`` hold integers only (Python's or NumPy's,
    not bool), stopping at the first other leaf (a list of floats: its first)."""
    return all(isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))
               for v in leaves(value))


def _new_array(func: str, name: str, host, backend):
    """``host`` (a NumPy array made of the argument ``name``, a list) as an array of
    ``backend``; a lazy backend's chunks option that does not fit it is a ``ValueError``
    naming ``func`` and ``name`` (it named ``asarray`` and its ``chunks``)."""
    if backend.lazy:
        return backend.asarray(host, func=func, arg=name)
    return backend.asarray(host)


def _stored(arr):
    """The elements ``arr`` holds in memory, for the range checks: a broadcast view (byte
    stride 0 along an axis of more than one element) cut to one element along those
    axes, the same values without reading its repeats (``max`` of
    ``broadcast_to(x, (2**40,))`` walked 2**40 elements before the result's allocation
    could fail). Arrays without strides (dask's) pass as they are."""
    strides = getattr(arr, "strides", None)
    if not isinstance(strides, tuple) or not any(
            st == 0 and n > 1 for st, n in zip(strides, arr.shape)):
        return arr
    return arr[tuple(slice(0, 1) if st == 0 else slice(None)
                     for st in strides)]


def _materialized(func: str, name: str, arr):
    """``arr``, or a copy of it where it is a broadcast view (a byte stride of 0 along an
    axis of more than one element): the sorts, walks and compactions read every element
    they are given, and of a view far larger than its memory
    (``broadcast_to(x, (2**50,))``) they ran for minutes or raised NumPy's unnamed
    ``MemoryError``; the copy's ``MemoryError`` names the function and the argument."""
    if _stored(arr) is arr:
        return arr
    try:
        return arr.copy()
    except MemoryError:
        raise out_of_memory(func, f"a copy of the broadcast view '{name}'",
                            tuple(int(n) for n in arr.shape), arr.dtype.itemsize) from None


def _dtype_error(func: str, name: str, value, arr, allowed: str) -> TypeError:
    """``TypeError`` for an argument ``value`` whose array ``arr`` has a dtype other than
    ``allowed`` says: naming ``value`` itself where it was no array (a list, a str),
    with the dtype it became, else the array."""
    if value is arr or _backends.of_array(value) is not None:
        return type_error(func, name, arr, allowed)
    return type_error(func, name, value, f"{allowed} (as an array it has dtype {arr.dtype})")


def _integer_array(func: str, name: str, value, backend):
    if value is None or isinstance(value, (list, tuple)) or (
            isinstance(value, np.ndarray) and value.dtype == object):
        # exact for lists mixing small ints with ints >= 2**63 (NumPy makes those
        # float64), TypeError for None and non-integers, empty lists allowed
        _refuse_mask(func, name, value, None)   # a list holding masked arrays
        return _new_array(func, name, integer_array(func, name, value), backend)
    arr = _as_array(func, name, value, backend)
    if arr.dtype == object:  # a Python int beyond 64 bits
        return _new_array(func, name, integer_array(func, name, value), backend)
    if arr.dtype.kind not in "iu":
        raise _dtype_error(func, name, value, arr,
                           "an integer dtype (signed or unsigned, not bool)")
    return arr


# --------------------------------------------------------------------- Morton
def _nonfinite(func: str, row: int, values) -> ValueError:
    return value_error(func, "positions", f"has a NaN or infinite coordinate in row {row} "
                                          f"({np.asarray(values).tolist()}); "
                                          "Morton keys need finite positions")
