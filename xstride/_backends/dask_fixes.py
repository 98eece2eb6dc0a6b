"""What ``array_api_compat.dask.array`` lacks or does otherwise than xstride's dask backend.

- Creation functions use the backend's options: ``chunks=`` (unless the call gives its
  own) and the chunk backend (CuPy chunks are made from NumPy ones block by block).
  Shapes and ``eye``'s sizes are ints (dask's took ``eye(2.0)`` and ``full(2.0, 1)``,
  and ``zeros(2.0)`` failed with an ``AttributeError``).
  ``asarray`` of host data goes through ``dask.array.from_array`` (compat's ignores
  ``chunks``); ``eye`` gives dask's an int block side (dask's declares blocks its
  graph lacks for more columns than rows under ``"auto"`` chunks); ``linspace`` ends
  exactly at ``stop``, is NumPy's for real ends whatever the chunks (``dask_ranges``)
  and takes complex ends; ``arange``'s step of None, narrow integer dtypes and Python
  ints past 2**53 are ``dask_arange``'s. ``full`` and ``full_like`` raise NumPy's
  ``OverflowError`` for a Python int fill its integer dtype cannot hold at the call
  (dask's raised it when the array was computed).
- ``broadcast_shapes`` takes shapes, not arrays: NumPy's function answers (``broadcast_to``,
  ``broadcast_arrays`` and ``meshgrid``: ``dask_broadcast.py``).
- The chunked executors' hook ``namespace_function`` (the namespace's function on a
  chunk's backend, for dask's reduction trees) is set here, where the dispatch is known.
- Chunks of no element (``compute_chunk_sizes()`` of a boolean selection leaves them,
  ``((3, 0, 1),)``) are merged away from every dask array a namespace call gets
  (:func:`without_empty_chunks`, the dispatch's argument rewrite of this backend): dask
  2026.8 computes wrong answers over them (``flip`` of such an array is empty, ``x + 1``
  of chunks ``((1, 0),)`` has two elements). The rechunk only drops block boundaries, so
  no element moves; an array without such chunks costs one ``0 in chunks`` per axis.
- Functions dask cannot provide raise ``NotImplementedError`` naming what to use
  instead (compat's namespace has no such name; ``getattr`` would give an
  ``AttributeError`` that names no function of xstride).

Nothing here imports dask at import time.
"""

from __future__ import annotations

import builtins
import math
import operator
import warnings

import numpy as np

from .._core.errors import immutable_error, not_provided_error, type_error, value_error
from .._core.sizes import checked_size
from .._chunked import _config as _chunked_config
from .._chunked.chunks import (chunks_of_no_element, fit_chunks, fit_option,
                               without_empty_chunks as _merged)
from .arange_checks import arange_args, bool_range, check_arange
from .arg_checks import check_linspace
from .linspace_ints import floored_in_range, integer_past_float
from .fill_checks import (check_fill_fits, check_fill_type, check_fill_value, check_int_fill,
                          check_int_items, int_fill_dtype, name_int_past_dtype)
from .copy_checks import check_no_copy
from .dask import check_chunks
from .dask_arange import (arange_step as _arange_step, narrow_arange as _narrow_arange,
                          wide_arange as _wide_arange)
from .dask_fill import with_array_fill
from .dask_pairing import checked_pairs
from .creation_errors import device_argument_error
from .dask_ranges import float_arange, float_linspace
from .dispatch import implementation, register, register_arguments
from .masked_asarray import (holds_masked_chunks, masked_asarray, masked_items, masked_source,
                             refuse_masked_chunks, stack_masked_items)
from .masked_like import masked_chunks, masked_like
from .registry import get, of_array
from .shape_checks import check_eye, check_shape

__all__ = ["MISSING"]

_NAME = "dask"
#: qualified name -> what to use instead (dask's library has no such function).
MISSING = {
    "from_dlpack": "build a NumPy or CuPy array with numpy.from_dlpack or "
                   "cupy.from_dlpack, then xstride.to_device(a, 'dask') (or "
                   "dask.array.from_array)",
}

# dask's creation functions take chunks=; asarray and eye are built here, linspace
# finishes dask's
_CHUNKED_CREATION = ("arange", "empty", "full", "ones", "zeros")
_SHAPED = ("empty", "full", "ones", "zeros")   # a shape first


def _missing(qualname: str, instead: str):
    name = qualname.rsplit(".", 1)[-1]

    def impl(*args, **kwargs):
        raise not_provided_error(name, _NAME, instead)

    impl.__name__ = impl.__qualname__ = name
    impl.__doc__ = f"Not available on the dask backend: {instead}."
    return impl


def _creation_shape(name: str, args, kwargs):
    """The shape a creation function's call asks for (``arange``: its length from
    ``start``, ``stop``, ``step``), or None where the arguments do not say it plainly
    (the function's own checks then answer)."""
    try:
        if name == "linspace":
            return (operator.index(args[2] if len(args) > 2 else kwargs["num"]),)
        if name == "arange":
            start, stop, step = arange_args(args, kwargs)
            q = (stop - start) / step
            if q == 0 and stop != start and math.copysign(1.0, q) > 0:
                return (1,)   # NumPy's: an infinite step towards stop gives start
            return (max(0, math.ceil(q)),)
        shape = args[0] if args else kwargs["shape"]
        if isinstance(shape, (list, tuple)):
            return tuple(operator.index(n) for n in shape)
        return (operator.index(shape),)
    except (KeyError, TypeError, ValueError, ZeroDivisionError, OverflowError):
        return None


def _check_size(func: str, shape, dtype) -> None:
    """The element count and byte size of a creation function's result within int64, as
    NumPy checks them (8 bytes an element where ``dtype`` is None or not a dtype)."""
    try:
        itemsize = np.dtype(dtype).itemsize if dtype is not None else 8
    except TypeError:
        itemsize = 8
    checked_size(func, "num" if func == "linspace" else "stop" if func == "arange"
                 else "shape", shape, itemsize, result=func in ("arange", "linspace"),
                 extents=True)   # (0, 2**62, 4): NumPy's "array is too big" too


def _scalar(v):
    """A 0-D dask array as the scalar it computes to (a length or an end of ``arange``
    must be known to build the graph); anything else as it is."""
    if getattr(v, "ndim", None) == 0 and (src := of_array(v)) is not None and src.lazy:
        return src.to_host(v)[()]
    return v


def _creation(name: str):
    be = get(_NAME)

    def impl(*args, **kwargs):
        if name in _SHAPED:
            if args:   # a 0-D dask length, as a 0-D NumPy one: its int (dask's refused it)
                args = (_scalar(args[0]),) + args[1:]
            check_shape(name, args[0] if args else kwargs.get("shape"))
        if name == "arange":
            args = tuple(v[()] if isinstance(v, np.ndarray) and v.ndim == 0 else _scalar(v)
                         for v in args)   # a 0-D NumPy array as its scalar, as NumPy's
            args, kwargs = _arange_step(args, kwargs)
            check_arange(args, kwargs)
            wide = _wide_arange(args, kwargs)   # Python ints past 2**53 (bools too)
            if wide is not None:
                return wide
            if bool_range(*arange_args(args, kwargs), kwargs.get("dtype")):   # NumPy's
                return impl(*args, **{**kwargs, "dtype": None}).astype(bool)  # bools
        if name == "full" and (len(args) > 1 or "fill_value" in kwargs):
            fill = args[1] if len(args) > 1 else kwargs["fill_value"]
            check_int_fill(name, fill, kwargs.get("dtype"))   # one no integer dtype holds
            check_fill_type(name, fill, kwargs.get("dtype"))   # None, a str: no number
            check_fill_fits(fill, kwargs.get("dtype"))   # at the call, not when computed
            check_fill_value(name, fill, kwargs.get("dtype"))
            kwargs["dtype"] = int_fill_dtype(fill, kwargs.get("dtype"))
        opts = be.options()
        own = kwargs.get("chunks") is not None
        if own:   # the call's own: the option's checks
            kwargs["chunks"] = check_chunks(name, kwargs["chunks"])
        else:
            kwargs["chunks"] = opts.chunks
            shape = _creation_shape(name, args, kwargs)
            if shape is not None:
                kwargs["chunks"] = fit_option(name, opts.chunks, shape)
        shape = _creation_shape(name, args, kwargs)
        if shape is not None:   # dask's gave its dispatch's two-line message, or a bare
            _check_size(name, shape, kwargs.get("dtype"))   # MemoryError, past int64
            # block lengths that do not add up to the shape, named before dask's message
            fit_chunks(name, kwargs["chunks"], shape, kwargs.get("dtype"),
                       option=None if own else opts.chunks)
        if name in _SHAPED:   # dask's auto chunks divided by an empty axis' block length
            kwargs["chunks"] = chunks_of_no_element(kwargs["chunks"], shape,
                                                    kwargs.get("dtype") or np.float64)
        narrow = _narrow_arange(args, kwargs, shape) if name == "arange" else None
        if be.chunk_backend(opts).compiles_kernels:
            # chunks made where they live, as dask's own CuPy backend makes them (its
            # cupy_entry_point): made on the host and copied, the dask demo's 2**28
            # uint64 counters took 0.8 s
            if name == "arange" and shape is not None and _device_ints(args, kwargs):
                kwargs["like"] = be.meta(kwargs.get("dtype") or np.int64)   # NEP 35
            elif name in _SHAPED:   # one element broadcast, as dask's NumPy chunks are
                kwargs["meta"] = be.meta()
        lib = getattr(be.namespace(), name)
        out = lib(*args, **kwargs)
        if name == "arange" and shape is not None and narrow is None and (
                out.dtype.kind == "f" or not all(isinstance(v, (int, np.integer)) for v in
                                                 arange_args(args, kwargs))):
            start, _, step = arange_args(args, kwargs)   # NumPy's values, any chunks
            out = float_arange(start, step, shape[0], out.dtype, kwargs["chunks"], out)
        return be.on_chunks(out if narrow is None else out.astype(narrow), opts)

    impl.__name__ = impl.__qualname__ = name
    impl.__doc__ = (f"``{name}`` of the array API standard on the dask backend: dask's "
                    "function with the backend's ``chunks=`` (unless given) and chunk "
                    "backend.")
    return impl


def _device_ints(args, kwargs) -> bool:
    """Whether ``arange``'s chunks can be made by the chunk backend's ``arange``: ints
    into an integer dtype, whose values every library's ``arange`` gives alike (a float
    result takes ``float_arange``'s host values)."""
    dtype = kwargs.get("dtype")
    try:
        kind = "i" if dtype is None else np.dtype(dtype).kind
    except TypeError:   # no dtype: dask's call names it (dtype_checks.py)
        return False
    return (kind in "iu"
            and all(isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))
                    for v in arange_args(args, kwargs)))


def _set_last(block, stop, last_block, block_info=None):
    """``block`` with its last element ``stop`` if it is the array's last non-empty
    block."""
    if block_info[0]["chunk-location"][0] != last_block:
        return block
    block = block.copy()
    block[-1] = stop
    return block


_chunked_linspace = _creation("linspace")


def _complex_linspace(start, stop, num, dtype, device, endpoint, chunks):
    """dask's ``linspace`` of complex ends (dask's takes ``float()`` of them): the real
    and imaginary parts spaced apart as NumPy's complex arithmetic spaces them, in the
    float type of the ends' complex type, then joined and cast to ``dtype`` (dask's
    made each block from its own ends, in the parts of ``dtype``); without ``dtype``
    the ends' complex type, as NumPy's."""
    ends = np.result_type(start, stop, 1.0)
    dt = np.dtype(ends if dtype is None else dtype)
    if dt.kind != "c":   # (NumPy's raised "ufunc 'floor' not supported" into an integer)
        raise type_error("linspace", "dtype", dt, "a floating-point or complex dtype (or "
                                                     "None) for complex start or stop")
    part = np.finfo(ends).dtype
    start, stop = complex(start), complex(stop)
    re, im = (float_linspace(part.type(a), part.type(b), num, part, endpoint,
                             _chunked_linspace(a, b, num, dtype=part, device=device,
                                               endpoint=endpoint, chunks=chunks), True)
              for a, b in ((start.real, stop.real), (start.imag, stop.imag)))
    out = re.astype(dt) + im.astype(dt) * dt.type(1j)
    return get(_NAME).on_chunks(out, get(_NAME).options())


def linspace(start, stop, /, num, *, dtype=None, device=None, endpoint=True, chunks=None):
    """``linspace`` of the standard on the dask backend: dask's, with the last element
    exactly ``stop`` when ``endpoint`` is true (dask's computes it as ``start + (num -
    1) * step``, off by rounding; the standard and NumPy give ``stop``). ``num`` must be
    a non-negative int (dask's took ``-1`` and ``2.0``), ``endpoint`` a bool (dask's
    took ``"no"`` as true)."""
    check_linspace(num, endpoint, start, stop, dtype)
    endpoint = bool(endpoint)
    num = int(num)
    if (dt := integer_past_float(start, stop, dtype)) is not None:   # no wrap at the top
        out = linspace(start, stop, num, dtype=np.float64, device=device,
                       endpoint=endpoint, chunks=chunks)
        return out.map_blocks(floored_in_range, dt, dtype=dt, meta=out._meta.astype(dt))
    complex_ends = any(isinstance(v, (complex, np.complexfloating)) or isinstance(
        v, np.ndarray) and v.ndim == 0 and v.dtype.kind == "c" for v in (start, stop))
    if dtype is None and not complex_ends and all(   # scalars or 0-D NumPy arrays
            isinstance(v, (int, float, np.generic)) or isinstance(v, np.ndarray)
            and v.ndim == 0 for v in (start, stop)):
        dtype = np.result_type(start, stop, 1.0)   # NumPy's: float32 ends give float32
    _check_size("linspace", (num,), dtype if dtype is not None
                else (np.complex128 if complex_ends else np.float64))
    if complex_ends and dtype is not None and np.dtype(dtype).kind == "f":
        # NumPy's: the values of the ends' complex type cast to dtype, the imaginary
        # parts discarded with its warning (the standard leaves this to the library;
        # a TypeError here, where the NumPy backend answered)
        warnings.warn("Casting complex values to real discards the imaginary part",
                      np.exceptions.ComplexWarning, stacklevel=3)
        out = linspace(start, stop, num, device=device, endpoint=endpoint, chunks=chunks)
        return get(_NAME).on_chunks(out.real.astype(dtype), get(_NAME).options())
    if complex_ends:
        out = _complex_linspace(start, stop, num, dtype, device, endpoint, chunks)
    else:   # dask's blocks, made again as NumPy makes them (any chunks, ends exact);
        # only their chunks and dtype are read, so dask's own `stop - start` may
        # overflow unseen (descending NumPy unsigned ends: `uint64(0) - uint64(5)`)
        with np.errstate(over="ignore"):
            out = _chunked_linspace(start, stop, num, dtype=dtype, device=device,
                                    endpoint=endpoint, chunks=chunks)
        return get(_NAME).on_chunks(float_linspace(start, stop, num, out.dtype, endpoint,
                                                   out), get(_NAME).options())
    if not endpoint or num < 2:
        return out
    last = builtins.max(i for i, n in enumerate(out.chunks[0]) if n)   # the last non-empty
    return out.map_blocks(_set_last, stop, last, dtype=out.dtype,
                          meta=out._meta)


def _eye_block(rows, cols, k: int, of):
    """The block of ``eye`` (dtype ``of``) whose rows and columns have the indices
    ``rows`` and ``cols``: one where ``column - row == k``. Zeros with ones set, as
    NumPy's ``eye`` makes it (an object block holds ints 0 and 1, not bools)."""
    out = np.zeros((len(rows), len(cols)), dtype=of)
    out[cols[None, :] - rows[:, None] == k] = 1
    return out


def eye(n_rows, n_cols=None, /, *, k=0, dtype=None, device=None, chunks=None):
    """``eye`` of the array API standard on the dask backend.

    dask's ``eye`` writes a task for every block into the graph (2**34 of them for
    ``eye(2**29)`` under ``"auto"`` chunks: the process runs out of memory building
    it), declares square blocks whose side is its first row block's, and refuses
    per-axis ``chunks``. Here each block of the ``chunks`` (the backend's, or the
    call's own) is made from the indices of its rows and columns (``blockwise`` over
    two ``arange``: a task per row block and per column block, none written per
    block), after the size is checked as ``zeros`` checks it.
    """
    check_eye(n_rows, n_cols, k)
    _check_device("eye", device)   # it was ignored (eye(2, device="gpu") made an array)
    be = get(_NAME)
    opts = be.options()
    arg = "n_rows" if n_cols is None else "n_cols"
    n_rows = int(n_rows)
    n_cols = n_rows if n_cols is None else int(n_cols)
    dt = np.dtype(np.float64 if dtype is None else dtype)
    checked_size("eye", arg, (n_rows, n_cols), dt.itemsize, result=True, extents=True)
    option = opts.chunks if chunks is None else None
    if chunks is None:
        chunks = fit_option("eye", opts.chunks, (n_rows, n_cols))
    else:
        chunks = check_chunks("eye", chunks)
    target = fit_chunks("eye", chunks, (n_rows, n_cols), dt, option=option)
    if n_rows == 0 or n_cols == 0:
        out = be.namespace().zeros((n_rows, n_cols), dtype=dt, device=device, chunks=target)
        return be.on_chunks(out, opts)
    da = be.load()
    rows = da.arange(n_rows, chunks=(target[0],), dtype=np.int64)
    cols = da.arange(n_cols, chunks=(target[1],), dtype=np.int64)
    with warnings.catch_warnings():   # blockwise warns of the blocks' count, which is
        warnings.simplefilter("ignore", da.PerformanceWarning)   # the chunks' own
        out = da.blockwise(_eye_block, "ij", rows, "i", cols, "j", k=int(k), of=dt,
                           dtype=dt, meta=np.empty((0, 0), dtype=dt))
    return be.on_chunks(out, opts)


def _check_device(func: str, device) -> None:
    """``device`` None or one of the namespace info's ``devices()``, as compat's creation
    functions check it, refused with the message of the dispatch's other functions."""
    if device is not None and device not in get(_NAME).namespace(
            ).__array_namespace_info__().devices():
        raise device_argument_error(func, device, _NAME)


def asarray(obj, /, *, dtype=None, device=None, copy=None, chunks=None):
    """``asarray`` of the standard on the dask backend. A dask array passes to
    ``array_api_compat.dask.array.asarray`` (the standard's ``copy`` rules), rechunked
    to a ``chunks`` given, which must fit its shape as for any other input. Anything
    else (``copy=False`` refused: :mod:`.copy_checks`) becomes a NumPy array first
    (NumPy's rules for nested sequences and scalars; a CuPy array is copied to the host
    unless the chunks are CuPy), then a dask array with the backend's ``chunks`` (or the
    ``chunks`` given) on the chunk backend. A ``numpy.ma`` masked ``obj`` keeps its mask,
    a list or tuple of masked arrays their masks, stacked (:mod:`.masked_asarray`), on
    NumPy chunks (refused for CuPy chunks); a list or tuple holding dask arrays of
    masked chunks is stacked without computing them, their masks kept. ``device`` must
    be one of the namespace info's ``devices()``, as the other creation functions check
    (it was ignored)."""
    be = get(_NAME)
    check_no_copy(copy, be.owns(obj))
    if be.owns(obj):
        out = be.namespace().asarray(obj, dtype=dtype, device=device, copy=copy)
        if chunks is None:
            return out
        # checked as for any other input (dask's rechunk took (1, 2) of a 1-D array and
        # said only "Chunks do not add up to shape" of block lengths that do not fit)
        return out.rechunk(fit_chunks("asarray", check_chunks("asarray", chunks), out.shape,
                                      out.dtype))
    _check_device("asarray", device)   # it was ignored
    opts = be.options()
    da = be.load()
    src = be.of_array(obj)
    chunk_be = be.chunk_backend(opts)
    if type(obj) in (list, tuple) and holds_masked_chunks(obj):   # masked dask items:
        if chunk_be.name != "numpy":                               # stacked lazily
            refuse_masked_chunks("asarray", obj, chunk_be.name)
        return _rechunked(stack_masked_items(obj, dtype, _host_item), chunks, opts)
    if (masked := masked_source(obj)) is not None:   # its mask kept (masked_asarray.py)
        if chunk_be.name != "numpy":
            refuse_masked_chunks("asarray", obj, chunk_be.name)
        host = masked_asarray(masked, dtype, None, copy)
    elif src is chunk_be and not isinstance(obj, np.generic):
        host = chunk_be.namespace().asarray(obj, dtype=dtype, copy=copy)
    else:
        if src is not None:
            obj = src.to_host(obj)
        try:
            host = get("numpy").namespace().asarray(obj, dtype=dtype, copy=copy)
        except OverflowError:   # a Python int the integer dtype cannot hold, named
            name_int_past_dtype(obj, dtype)
            raise
        if host.dtype == object and dtype is None and not isinstance(obj, np.ndarray):
            check_int_items("asarray", host)
        if type(obj) in (list, tuple):   # masked items' masks stacked (masked_asarray.py)
            masked = masked_items(obj, host)
            if masked is not host and chunk_be.name != "numpy":
                refuse_masked_chunks("asarray", obj, chunk_be.name)
            host = masked
    option = opts.chunks if chunks is None else None
    chunks = (fit_option("asarray", opts.chunks, host.shape) if chunks is None
              else check_chunks("asarray", chunks))
    out = da.from_array(host, chunks=fit_chunks("asarray", chunks, host.shape, host.dtype,
                                                option=option), asarray=False)
    return be.on_chunks(out, opts)


def _host_item(item, dtype):
    """``asarray``'s NumPy array of ``item``, an item (holding no dask array) of a list
    that holds dask arrays of masked chunks, as the list's own conversion makes it: a
    masked array's mask kept (a nested list's masks are :mod:`.masked_asarray`'s); no
    copy (``dask.array.from_array`` copies it, as NumPy's array of a list is a copy)."""
    if (masked := masked_source(item)) is not None:
        return masked_asarray(masked, dtype, None, None)
    if (src := of_array(item)) is not None:
        item = src.to_host(item)
    host = get("numpy").namespace().asarray(item, dtype=dtype)
    if host.dtype == object and dtype is None and not isinstance(item, np.ndarray):
        check_int_items("asarray", host)
    return host


def _rechunked(out, chunks, opts):
    """``asarray``'s result ``out`` (a dask array of NumPy chunks made of a list) in the
    ``chunks`` given, else the backend's, as ``asarray`` makes those of host data."""
    option = opts.chunks if chunks is None else None
    chunks = (fit_option("asarray", opts.chunks, out.shape) if chunks is None
              else check_chunks("asarray", chunks))
    return out.rechunk(fit_chunks("asarray", chunks, out.shape, out.dtype, option=option))


def _like_chunks(name: str, x, dtype, kwargs) -> dict:
    """``kwargs`` of a ``*_like`` call with its own ``chunks=`` checked, and fitted to an
    array of no element (dask's byte-size chunks divided by an empty axis' length), dask's
    ``"auto"`` for a ``shape=`` of no element too (its ``ZeroDivisionError``); block
    lengths that do not add up to the shape are named (:func:`fit_chunks`); a ``shape=``
    (NumPy's keyword, which dask's takes) checked as ``zeros``' (dask's took bools,
    floats and negative lengths, and failed when computed), its size too; the chunks
    then fit that shape, not ``x``'s."""
    shape = x.shape
    if kwargs.get("shape") is not None:
        check_shape(name, kwargs["shape"])
        shape = (tuple(kwargs["shape"]) if isinstance(kwargs["shape"], (tuple, list))
                 else (kwargs["shape"],))
        # its size, an empty one's non-zero extents too, as zeros' (dask's chunking
        # raised a bare MemoryError, or ZeroDivisionError for (0, 2**62, 4))
        _check_size(name, tuple(operator.index(n) for n in shape),
                    x.dtype if dtype is None else dtype)
    if kwargs.get("chunks") is not None and any(n != n for n in shape):
        # dask's took x's blocks and dropped the chunks in silence, (5, 5) too
        raise value_error(name, "chunks", f"cannot cut x of shape {shape}, whose lengths dask "
                                          "does not know (as after boolean indexing); leave "
                                          "chunks out (the result takes x's blocks) or call "
                                          "x.compute_chunk_sizes() first")
    if kwargs.get("chunks") is not None:
        kwargs["chunks"] = fit_chunks(name, check_chunks(name, kwargs["chunks"]),
                                      shape, x.dtype if dtype is None else dtype)
    elif kwargs.get("shape") is not None and 0 in shape:   # dask's "auto" for a shape=,
        kwargs["chunks"] = fit_chunks(name, "auto", shape,  # fitted as zeros' (it raised
                                      x.dtype if dtype is None else dtype)  # ZeroDivision)
    return kwargs


#: The keywords of a ``*_like`` call that :func:`_masked_like` takes (any other: dask's).
_MASKED_LIKE_KEYWORDS = frozenset(("chunks", "shape", "device", "order"))


def _masked_like(name: str, x, dtype, kwargs: dict, fill=()):
    """``name``'s result of a dask array ``x`` of ``numpy.ma`` masked chunks, as NumPy's
    of a masked array: masked chunks, ``x``'s mask copied (:mod:`.masked_like`; dask's
    dropped it); None for any other ``x``."""
    if not masked_chunks(x) or not _MASKED_LIKE_KEYWORDS.issuperset(kwargs):
        return None
    _check_device(name, kwargs.get("device"))
    return masked_like(name, x, dtype, fill, chunks=kwargs.get("chunks"),
                       shape=kwargs.get("shape"), order=kwargs.get("order", "K"),
                       plain=getattr(get(_NAME).namespace(), name))


_MASKED_DOC = (" Of an array of ``numpy.ma`` masked chunks, as NumPy's of a masked array: "
               "masked chunks, ``x``'s mask copied and its fill value kept (with a "
               "``shape=`` of another size, no element masked).")


def full_like(x, /, fill_value, *, dtype=None, **kwargs):
    """``full_like`` of the standard on dask: dask's function, after a Python int
    ``fill_value`` is checked against the result's integer dtype at the call (dask's
    raised NumPy's ``OverflowError`` only when the array was computed)."""
    check_fill_type("full_like", fill_value, getattr(x, "dtype", None) if dtype is None
                    else dtype)   # dask's filled NaN for None
    check_fill_fits(fill_value, getattr(x, "dtype", None) if dtype is None else dtype)
    check_fill_value("full_like", fill_value, getattr(x, "dtype", None) if dtype is None
                     else dtype)
    kwargs = _like_chunks("full_like", x, dtype, kwargs)
    got = _masked_like("full_like", x, dtype, kwargs, (fill_value,))
    if got is not None:
        return got
    return get(_NAME).namespace().full_like(x, fill_value, dtype=dtype, **kwargs)


if full_like.__doc__ is not None:   # (python -OO strips docstrings)
    full_like.__doc__ += _MASKED_DOC


def _like(name: str):
    def impl(x, /, *, dtype=None, **kwargs):
        kwargs = _like_chunks(name, x, dtype, kwargs)
        got = _masked_like(name, x, dtype, kwargs)
        if got is not None:
            return got
        return getattr(get(_NAME).namespace(), name)(x, dtype=dtype, **kwargs)

    impl.__name__ = impl.__qualname__ = name
    impl.__doc__ = (f"``{name}`` of the standard on the dask backend: dask's function; a "
                    "``chunks=`` checked as the creation functions' (a byte size fits)."
                    + _MASKED_DOC)
    return impl


for _q, _instead in MISSING.items():
    register(_q, _NAME)(_missing(_q, _instead))
for _n in _CHUNKED_CREATION:   # full's 0-D dask array fill: dask_fill.py
    register(_n, _NAME)(with_array_fill(_creation(_n)) if _n == "full" else _creation(_n))
register("asarray", _NAME)(asarray)
register("full_like", _NAME)(with_array_fill(full_like))
for _n in ("empty_like", "ones_like", "zeros_like"):
    register(_n, _NAME)(_like(_n))
register("eye", _NAME)(eye)
register("linspace", _NAME)(linspace)
register("broadcast_shapes", _NAME)(np.broadcast_shapes)
del _q, _instead, _n


def _merged_arg(value, array_type):
    if isinstance(value, array_type):
        return _merged(value)
    if type(value) in (list, tuple) and any(isinstance(v, array_type) for v in value):
        return type(value)(_merged(v) if isinstance(v, array_type) else v for v in value)
    return value


def without_empty_chunks(qualname, args, kwargs):
    """The dask backend's rewrite of a namespace call's arguments: each dask array among
    them (or in a list or tuple among them: ``concat``, ``stack``) without its chunks of
    no element (``_chunked/chunks.py``'s
    :func:`without_empty_chunks`). An ``out=`` is refused for every function alike (dask
    arrays are immutable; functions that hand ``out=`` to dask's, such as
    ``bitwise_left_shift``, wrote nothing and raised nothing); ``out=None`` is dropped,
    as no ``out`` (dask's reductions take no ``out`` keyword). An elementwise call on
    two arrays of lengths dask does not know checks their blocks' lengths when computed
    (``dask_pairing.py``)."""
    if kwargs and "out" in kwargs:
        if kwargs["out"] is not None:
            raise immutable_error(qualname, "out", kwargs["out"], _NAME,
                                  "use the returned array (call without out=)")
        kwargs = {k: v for k, v in kwargs.items() if k != "out"}   # out=None: none given
    array_type = get(_NAME).array_type()
    if array_type is None:   # dask not imported: no dask array in the call
        return args, kwargs
    args = checked_pairs(qualname, tuple(_merged_arg(a, array_type) for a in args),
                         array_type)
    if kwargs:
        kwargs = {k: _merged_arg(v, array_type) for k, v in kwargs.items()}
    return args, kwargs


register_arguments(_NAME, without_empty_chunks)


def _namespace_function(name: str, chunk):
    """The namespace's implementation of ``name`` on the backend of ``chunk`` (a hook of
    the chunked executors: xstride's kernels inside CuPy chunks)."""
    return implementation(of_array(chunk).name, name)


_chunked_config.namespace_function = _namespace_function
