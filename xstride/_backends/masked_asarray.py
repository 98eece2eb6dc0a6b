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
items). The items of the innermost level, scalars, are not looked at (a look at every
scalar cost ``asarray`` of a list of floats 80%): a list of scalars holding a masked
element (``[1.0, numpy.ma.masked]``) is NumPy's conversion (NaN, with NumPy's warning
"converting a masked element to nan"), unless an array item makes the result masked,
where that element's mask is kept too.

The dask backend makes its blocks of the masked array so converted
(``dask.array.from_array`` keeps ``numpy.ma`` blocks). CuPy has no masked arrays: a
masked ``obj`` for CuPy chunks is refused (:func:`refuse_masked_chunks`).
"""

from __future__ import annotations

import sys
from itertools import chain

import numpy as np

from .._core.errors import type_error
from .dispatch import compat_function
from .no_array import PLAIN_TYPES
from .registry import get

__all__ = ["masked_source", "masked_asarray", "masked_items", "refuse_masked_chunks",
           "SEQUENCES"]

#: The exact types of a sequence ``obj`` whose items may be masked arrays.
SEQUENCES = frozenset((list, tuple))
#: The exact types of an item that is never masked and holds no item (NumPy's arrays and
#: scalars, Python's scalars).
LEAVES = PLAIN_TYPES


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


def _holds_masked(kind, obj, levels: int) -> bool:
    """Whether the list or tuple ``obj`` holds an instance of ``kind`` in its first
    ``levels`` levels of nesting (those of the items of at least one dimension, when
    NumPy's array of ``obj`` has ``levels + 1`` dimensions). Each level's items are
    looked at together, by their types (in C)."""
    level = obj
    for depth in range(levels):
        types = set(map(type, level))
        if LEAVES.issuperset(types):
            return False
        if any(issubclass(t, kind) for t in types):
            return True
        if depth + 1 == levels:
            return False
        if SEQUENCES.issuperset(types):
            level = list(chain.from_iterable(level))
        else:
            level = [i for s in level if isinstance(s, (list, tuple)) for i in s]
    return False


def _set_masks(ma, seq, mask, index: tuple) -> None:
    """Write the mask of each masked item of ``seq`` (at ``index`` of the whole) into
    ``mask``, the nested lists and tuples walked."""
    for k, item in enumerate(seq):
        if item.__class__ in LEAVES:
            continue
        if isinstance(item, ma.MaskedArray):
            m = ma.getmask(item)
            if m is not ma.nomask:
                mask[index + (k,)] = m
        elif isinstance(item, (list, tuple)):
            _set_masks(ma, item, mask, index + (k,))


def masked_items(obj, out):
    """``out``, NumPy's array of the list or tuple ``obj`` (made without masks), masked
    where ``obj``'s ``numpy.ma`` masked items are, where one of at least one dimension
    is among them (module docstring); else ``out`` itself (so where ``out`` holds
    objects)."""
    ma = sys.modules.get("numpy.ma")   # not imported: nothing is masked
    if (ma is None or out.ndim < 2 or out.dtype == object
            or not _holds_masked(ma.MaskedArray, obj, out.ndim - 1)):
        return out
    mask = np.zeros(out.shape, dtype=ma.make_mask_descr(out.dtype))
    _set_masks(ma, obj, mask, ())
    return ma.masked_array(out, mask=mask)


def refuse_masked_chunks(func: str, obj, chunk_backend: str) -> None:
    """A ``TypeError`` naming ``obj`` of ``func``: a masked array (or a list or tuple
    of masked arrays) for chunks of ``chunk_backend``, which has no masked arrays."""
    if obj.__class__ in SEQUENCES:
        raise type_error(func, "obj", obj, f"items without a mask ({chunk_backend} chunks carry "
                         "no mask: pass each masked item's .filled(v), or use NumPy chunks)")
    raise type_error(func, "obj", obj, f"an array without a mask ({chunk_backend} chunks carry no mask: "
                     "pass obj.filled(v), or use NumPy chunks)")
