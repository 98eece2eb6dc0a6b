"""Elementwise calls of the dask backend on two or more arrays whose lengths dask does
not know along an axis (selections by different masks, ``x[q > 0] - x[q < 0]``): dask
pairs their blocks by position whatever their lengths, and NumPy's broadcast inside a
pair stretched a block of 1 element over one of 4, a wrong answer of a wrong shape
without an error. Such a call's first array of unknown lengths is read through a task
a block that checks, when computed, that every such operand's block has its length
along those axes (one ``map_blocks``; calls whose arrays know their lengths, or of one
such array, are not touched). dask's operators (``x + y``) are dask's own: not checked.
"""

from __future__ import annotations

import math

from .._core.errors import value_error
from .._core.names import ELEMENTWISE

__all__ = ["checked_pairs"]

#: The namespace calls whose dask arrays pair block by block, as an elementwise call's
#: (``vecdot`` too: its products, before the sum).
PAIRED = frozenset(ELEMENTWISE) | {"where", "vecdot", "linalg.vecdot"}


#: The standard's parameter names where they are not ``x1, x2``.
_PARAMS = {"where": ("condition", "x1", "x2"), "clip": ("x", "min", "max")}


def _unknown_axes(a) -> set:
    return {k for k, n in enumerate(a.shape) if isinstance(n, float) and math.isnan(n)}


def _same_lengths(first, *others, call, names, axes):
    """``first``'s block, once every block of ``others`` has its length along ``axes``."""
    for name, block in zip(names[1:], others):
        for k in axes:
            if block.shape[k] != first.shape[k]:
                raise value_error(call, names[0], f"and argument '{name}' have lengths dask "
                                  "does not know (as after boolean indexing) along axis "
                                  f"{k}, and dask paired their blocks of {first.shape[k]} "
                                  f"and {block.shape[k]} elements there by position; call "
                                  "x.compute_chunk_sizes() on each first")
    return first


def checked_pairs(qualname: str, args: tuple, array_type) -> tuple:
    """``args`` of a :data:`PAIRED` call, its first dask array of unknown lengths read
    through the check where two or more dask arrays of one rank lack lengths on a
    shared axis; ``args`` as they are otherwise."""
    if qualname not in PAIRED:
        return args
    found = [(i, a) for i, a in enumerate(args) if isinstance(a, array_type) and
             _unknown_axes(a)]
    if len(found) < 2 or len({a.ndim for _, a in found}) != 1:
        return args
    axes = tuple(sorted(set.intersection(*(_unknown_axes(a) for _, a in found))))
    if not axes:
        return args
    (i, first), others = found[0], [a for _, a in found[1:]]
    params = _PARAMS.get(qualname, ("x1", "x2"))
    names = tuple(params[j] if j < len(params) else f"arguments[{j}]" for j, _ in found)
    checked = first.map_blocks(_same_lengths, *others, call=qualname, names=names,
                               axes=axes, chunks=first.chunks, dtype=first.dtype,
                               meta=first._meta)
    return args[:i] + (checked,) + args[i + 1:]
