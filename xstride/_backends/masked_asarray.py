"""``asarray`` of a ``numpy.ma`` masked array keeps its mask (NumPy and dask backends).

NumPy's ``asarray`` (and the dask backend's, which made a NumPy array of ``obj``
first) returned the data of a masked array alone: the masked elements became values,
where every other function of the namespace keeps the masks. Here a masked ``obj``
(:func:`masked_source`: a ``numpy.ma`` array, or on the NumPy backend a dask array of
masked chunks, computed) becomes a masked array (:func:`masked_asarray`) by the
standard's ``copy`` rules, the data's conversion NumPy's own (its checks of
``dtype``, ``device`` and ``copy=False``):

- no copy made (``copy`` None or False, ``dtype`` None or ``obj``'s): ``obj`` itself,
  as NumPy's ``asarray`` of a NumPy array returns it;
- a copy (``copy=True``, or another ``dtype``): the data converted, the mask copied
  beside it; the fill value ``obj``'s for its own dtype, else the new dtype's default
  (as the dask backend's ``astype`` of masked chunks: ``numpy.ma``'s cast of the fill
  value ``1e+20`` into an integer dtype warned).

A list or tuple ``obj`` that holds ``numpy.ma`` masked arrays of at least one
dimension (at any depth, beside plain items: ``[m1, m2]``, ``[[m1], [m2]]``,
``[numpy.arange(2), m2]``) is converted by NumPy (its data, its dtype, its errors), and
the masks of its masked items are stacked into the result's mask, a plain item counted
unmasked, the fill value the dtype's default (:func:`masked_items`; NumPy's ``asarray``
of such a list dropped the masks; ``numpy.ma.asarray`` stacks those of a list's own
items). On the NumPy backend a dask array of masked chunks is such an item too: NumPy's
conversion computed its data alone; its data and mask are computed again, together.
The items of the innermost level, scalars, are not looked at (a look at every
scalar cost ``asarray`` of a list of floats 80%): a list of scalars holding a masked
element (``[1.0, numpy.ma.masked]``) is NumPy's conversion (NaN, with NumPy's warning
"converting a masked element to nan"), unless an array item makes the result masked,
where that element's mask is kept too.

The dask backend makes its blocks of the masked array so converted
(``dask.array.from_array`` keeps ``numpy.ma`` blocks). A list or tuple holding dask
arrays of masked chunks of at least one dimension (found by the same walk,
:func:`holds_masked_chunks`), or ``numpy.ma`` arrays so and dask arrays anywhere, is
stacked lazily instead (:func:`stack_masked_items`; NumPy's conversion computed each
dask item and kept its data alone), its result masked: each item a dask array
of masked chunks (a dask item as it is, a plain one masked nowhere, any other item
converted as a list's item is, the masked ones of a nested list kept), cast into
NumPy's dtype of the whole (or ``dtype``), joined by ``dask.array.stack`` level by
level. What cannot be stacked without computing is refused, naming ``obj``: items of
lengths dask does not know, items of other than NumPy chunks; items of shapes that
differ are NumPy's ``ValueError``. CuPy has no masked arrays: a masked ``obj`` for CuPy
chunks is refused (:func:`refuse_masked_chunks`).
"""

from __future__ import annotations

import sys
from functools import reduce
from itertools import chain

import numpy as np

from .._core.errors import type_error, value_error
from .dispatch import compat_function
from .masked_astype import masked_astype
from .no_array import PLAIN_TYPES
from .registry import get

__all__ = ["masked_source", "masked_asarray", "masked_items", "refuse_masked_chunks",
           "holds_masked_chunks", "stack_masked_items", "SEQUENCES"]

#: The exact types of a sequence ``obj`` whose items may be masked arrays.
SEQUENCES = frozenset((list, tuple))
#: The exact types of an item that is never masked and holds no item (NumPy's arrays and
#: scalars, Python's scalars).
LEAVES = PLAIN_TYPES
#: NumPy's most dimensions: no walk of nested lists goes deeper (a list that holds
#: itself is NumPy's conversion's to refuse).
_MAX_DEPTH = 64


def masked_source(obj):
    """``obj`` where it is a ``numpy.ma`` masked array, a dask array of masked chunks
    computed into one, else None (``numpy.ma`` not imported: nothing is masked)."""
    ma = sys.modules.get("numpy.ma")
    if ma is None:
        return None
    if isinstance(obj, ma.MaskedArray):
        return obj
    dask = get("dask")
    if dask.owns(obj) and dask.mask_remedy(obj) is not None:
        out = dask.to_host(obj)
        return out if isinstance(out, ma.MaskedArray) else None
    return None


def masked_asarray(m, dtype=None, device=None, copy=None):
    """``asarray(m, dtype=dtype, device=device, copy=copy)`` of a masked NumPy array
    ``m``: a masked array, the mask kept (module docstring)."""
    ma = np.ma
    data = ma.getdata(m)
    out = compat_function("numpy", "asarray")(data, dtype=dtype, device=device, copy=copy)
    if out is data:   # nothing converted, nothing copied
        return m
    mask = ma.getmask(m)
    fill = m.fill_value if out.dtype == m.dtype else None
    return ma.masked_array(out, mask=ma.nomask if mask is ma.nomask else mask.copy(),
                           fill_value=fill)


def _holds_masked(kind, obj, levels: int, test=None) -> bool:
    """Whether the list or tuple ``obj`` holds an instance of ``kind`` (for which
    ``test``, where given, is true) in its first ``levels`` levels of nesting (those of
    the items of at least one dimension, when NumPy's array of ``obj`` has ``levels +
    1`` dimensions). Each level's items are looked at together, by their types (in C);
    ``test`` only where ``kind`` is among them."""
    level = obj
    for depth in range(levels):
        types = set(map(type, level))
        if LEAVES.issuperset(types):
            return False
        if any(issubclass(t, kind) for t in types) and (
                test is None or any(test(i) for i in level if isinstance(i, kind))):
            return True
        if depth + 1 == levels:
            return False
        if SEQUENCES.issuperset(types):
            level = list(chain.from_iterable(level))
        else:
            level = [i for s in level if isinstance(s, (list, tuple)) for i in s]
    return False


def _set_masks(ma, seq, mask, index: tuple, chunked=None) -> None:
    """Write the mask of each masked item of ``seq`` (at ``index`` of the whole) into
    ``mask``, the nested lists and tuples walked; a dask array of masked chunks (where
    ``chunked``, a list, is given) appended to it with its index instead."""
    for k, item in enumerate(seq):
        if item.__class__ in LEAVES:
            continue
        if isinstance(item, ma.MaskedArray):
            m = ma.getmask(item)
            if m is not ma.nomask:
                mask[index + (k,)] = m
        elif isinstance(item, (list, tuple)):
            _set_masks(ma, item, mask, index + (k,), chunked)
        elif chunked is not None and _masked_meta(item):
            chunked.append((index + (k,), item))


def masked_items(obj, out):
    """``out``, NumPy's array of the list or tuple ``obj`` (made without masks), masked
    where ``obj``'s ``numpy.ma`` masked items are, where one of at least one dimension
    (or a dask array of masked chunks) is among them (module docstring); else ``out``
    itself (so where ``out`` holds objects). The dask items of masked chunks, which
    NumPy's conversion computed into their data alone, are computed again, together,
    their data and masks written into ``out`` (the two from one computation)."""
    ma = sys.modules.get("numpy.ma")   # not imported: nothing is masked
    if ma is None or out.ndim < 2 or out.dtype == object:
        return out
    kinds = _MASKED_KINDS[0]   # (a look-up of dask's class cost 2-D lists 5%)
    if kinds is None and "dask.array" in sys.modules:
        kinds = _masked_kinds()
    if kinds is None:
        if not _holds_masked(ma.MaskedArray, obj, out.ndim - 1):
            return out
    elif not _holds_masked(kinds, obj, out.ndim - 1, _masked_item):
        return out
    array = kinds and kinds[1]
    mask = np.zeros(out.shape, dtype=ma.make_mask_descr(out.dtype))
    chunked = [] if array else None
    _set_masks(ma, obj, mask, (), chunked)
    if chunked:
        done_all = get("dask").load().compute(*(x for _, x in chunked))
        for (index, _), done in zip(chunked, done_all):
            out[index] = ma.getdata(done)
            mask[index] = ma.getmaskarray(done)
    return ma.masked_array(out, mask=mask)


def refuse_masked_chunks(func: str, obj, chunk_backend: str) -> None:
    """A ``TypeError`` naming ``obj`` of ``func``: a masked array (or a list or tuple
    of masked arrays) for chunks of ``chunk_backend``, which has no masked arrays."""
    if obj.__class__ in SEQUENCES:
        raise type_error(func, "obj", obj, f"items without a mask ({chunk_backend} chunks carry "
                         "no mask: pass each masked item's .filled(v), a dask one's "
                         "dask.array.ma.filled(x, v), or use NumPy chunks)")
    raise type_error(func, "obj", obj, f"an array without a mask ({chunk_backend} chunks carry no mask: "
                     "pass obj.filled(v), or use NumPy chunks)")


def _array_levels(obj) -> int:
    """The levels of nesting of the list or tuple ``obj`` that hold items of at least
    one dimension (NumPy's array of ``obj`` less its innermost level of scalars), read
    down its first items: 0 for a list of scalars (``[d0, 1.0]``: its innermost level,
    not looked at), 1 for ``[d1, d2]`` and ``[[1.0, 2.0], d1]``, 2 for ``[[d1], [d2]]``."""
    depth, item = 0, obj
    while isinstance(item, (list, tuple)):
        if not item or depth == _MAX_DEPTH:   # no item; or a list that holds itself
            return 0
        item, depth = item[0], depth + 1
    return depth if getattr(item, "ndim", 0) else depth - 1


def _dask_array_type():
    """dask's array class, or None where ``dask.array`` is not imported (then no item
    is a dask array)."""
    mod = sys.modules.get("dask.array")
    return None if mod is None else getattr(mod, "Array", None)


#: ``(numpy.ma.MaskedArray, dask.array.Array)`` once ``dask.array`` is imported (the
#: types of an item that may be masked), else None: see :func:`_masked_kinds`.
_MASKED_KINDS = [None]


def _masked_kinds():
    """``numpy.ma``'s and dask's array classes, kept in :data:`_MASKED_KINDS`, or None
    where ``dask.array`` is not imported yet."""
    array = _dask_array_type()
    if array is not None:
        _MASKED_KINDS[0] = (np.ma.MaskedArray, array)
        return _MASKED_KINDS[0]
    return None


def _masked_meta(x) -> bool:
    """Whether dask array ``x`` has ``numpy.ma`` masked chunks (its meta masked)."""
    return isinstance(getattr(x, "_meta", None), np.ma.MaskedArray)


def _masked_item(x) -> bool:
    """Whether ``x``, a ``numpy.ma`` array or a dask array, is masked (of masked
    chunks)."""
    return isinstance(x, np.ma.MaskedArray) or _masked_meta(x)


def holds_masked_chunks(obj) -> bool:
    """Whether ``asarray`` of the list or tuple ``obj`` on the dask backend is a masked
    array made of dask items: ``obj`` holds masked arrays of at least one dimension
    (dask arrays of ``numpy.ma`` masked chunks, or ``numpy.ma`` arrays) in its levels
    above the innermost (those :func:`masked_items` looks at; a list of scalars is not
    looked at), and dask arrays at any level (:func:`stack_masked_items` then stacks
    them without computing them)."""
    array = _dask_array_type()
    if array is None or sys.modules.get("numpy.ma") is None:
        return False
    levels = _array_levels(obj)
    return (levels > 0 and _holds_masked((array, np.ma.MaskedArray), obj, levels,
                                         _masked_item)
            and _holds_anywhere(array, obj))


def _holds_anywhere(kind, seq) -> bool:
    """Whether the list or tuple ``seq`` holds an instance of ``kind`` at any level,
    its scalars' too (each nested list walked once, at most NumPy's 64 levels)."""
    level = seq
    for _ in range(_MAX_DEPTH):
        types = set(map(type, level))
        if any(issubclass(t, kind) for t in types):
            return True
        seqs = {id(s): s for s in level if isinstance(s, (list, tuple))}
        if not seqs:
            return False
        level = list(chain.from_iterable(seqs.values()))
    return False


def _dask_item(obj, x):
    """Dask item ``x`` of ``obj``, stackable without computing: lengths dask knows,
    NumPy chunks (masked or not)."""
    if any(n != n for n in x.shape):   # NaN: a length dask does not know
        raise value_error("asarray", "obj", f"holds a dask array of shape {x.shape}, with "
                          "lengths dask does not know (as after boolean indexing), which "
                          "stacking it beside the others needs; call x.compute_chunk_sizes() "
                          "on it first")
    if not isinstance(x._meta, np.ndarray):
        kind = type(x._meta).__module__.split(".")[0]
        raise type_error("asarray", "obj", obj, f"dask arrays of NumPy chunks beside its masked "
                         f"ones (it holds one of {kind} chunks, which carry no mask and "
                         "cannot join NumPy's without computing; move them to NumPy chunks "
                         "first)")
    return x


def _as_masked(x, dtype: np.dtype):
    """Dask array ``x`` of NumPy chunks as masked chunks of ``dtype``: a plain block
    masked nowhere, a masked one's data cast and its mask kept (:mod:`.masked_astype`)."""
    if _masked_meta(x):
        cast = masked_astype(x, dtype, False)   # None: of dtype already
        return x if cast is None else cast
    if x.dtype != dtype:
        x = x.astype(dtype)
    return x.map_blocks(np.ma.masked_array, dtype=dtype,
                        meta=np.ma.masked_array(np.empty((0,) * x.ndim, dtype)))


def _masked_everywhere(seq, out):
    """``out``, NumPy's array of the list or tuple ``seq``, masked where its
    ``numpy.ma`` items are, at any level: ``seq`` is an item of a list whose result is
    masked (its scalars then looked at, as :func:`masked_items` looks at every item of a
    masked result)."""
    mask = np.zeros(out.shape, dtype=np.ma.make_mask_descr(out.dtype))
    _set_masks(np.ma, seq, mask, ())
    return np.ma.masked_array(out, mask=mask)


def _stacked(da, obj, seq, dtype, convert, shape: tuple):
    """The dask array of masked chunks of ``seq``, a list or tuple at index ``shape``
    (its lengths so far) of ``obj`` that holds dask arrays (:func:`stack_masked_items`)."""
    shape = shape + (len(seq),)
    parts = []
    for item in seq:
        if isinstance(item, da.Array):
            parts.append(_dask_item(obj, item))
        elif isinstance(item, (list, tuple)) and _holds_anywhere(da.Array, item):
            parts.append(_stacked(da, obj, item, dtype, convert, shape))
        else:   # converted as the list's items (numpy.ma items' masks kept)
            host = convert(item, dtype)
            if isinstance(item, (list, tuple)):   # its masked items' masks, scalars' too
                host = _masked_everywhere(item, host)
            parts.append(da.from_array(host, chunks=-1, asarray=False))
    shapes = list(dict.fromkeys(p.shape for p in parts))
    if len(shapes) > 1:   # NumPy's error for the eager path's ragged list
        raise value_error("asarray", "obj", f"has an inhomogeneous shape after {len(shape)} "
                          f"dimensions: the detected shape was {shape} + an inhomogeneous "
                          f"part (items of shapes {shapes[0]} and {shapes[1]})")
    out = np.dtype(dtype) if dtype is not None else reduce(np.promote_types,
                                                           (p.dtype for p in parts))
    return da.stack([_as_masked(p, out) for p in parts], axis=0)


def stack_masked_items(obj, dtype, convert):
    """``asarray(obj, dtype=dtype)`` on the dask backend of the list or tuple ``obj``
    that holds dask arrays of masked chunks (:func:`holds_masked_chunks`), made without
    computing them: a dask array of ``numpy.ma`` masked chunks, the items' masks stacked
    level by level (module docstring). ``convert(item, dtype)``: the NumPy array (masked
    where ``item`` holds masked arrays) of an item that holds no dask array."""
    return _stacked(get("dask").load(), obj, obj, dtype, convert, ())
