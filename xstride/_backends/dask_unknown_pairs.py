"""Two dask arrays of which one has a length dask does not know (after boolean indexing)
where the other's is known: the calls that pair their axes (a contraction, a broadcast)
refuse them at the call, naming the array of the unknown length, where dask failed
when computed or named no argument. Two unknown lengths are left to dask: the blocks of
one selection pair. Nothing here imports dask."""

from __future__ import annotations

import math

from .._core.errors import value_error

__all__ = ["known", "check_contracted", "check_broadcast_pair"]


def known(n) -> bool:
    """Whether a dask length ``n`` is known (not NaN)."""
    return not (isinstance(n, float) and math.isnan(n))


def check_contracted(func: str, x1, x2, pairs) -> None:
    """Contracted axes ``(a of x1, b of x2)`` where dask knows one length and not the
    other: its block products would not pair (``tensordot`` raised "shape-mismatch for
    sum" when computed, ``matmul`` "Chunks must be unchanging along dimensions with
    missing values", naming no argument); a ``ValueError`` at the call naming the
    array of the unknown length. Two unknown lengths are left to dask (the same
    selection's blocks pair)."""
    for a, b in pairs:
        m, k = x1.shape[a], x2.shape[b]
        if known(m) != known(k):
            name, x, axis, other, o_axis, n = (("x2", x2, b, "x1", a, m) if known(m)
                                               else ("x1", x1, a, "x2", b, k))
            raise value_error(func, name, f"has shape {x.shape}: its axis {axis}, contracted "
                                          f"with axis {o_axis} of {other} (length {n}), has "
                                          "a length dask does not know (as after boolean "
                                          f"indexing); call {name}.compute_chunk_sizes() "
                                          "first")


def check_broadcast_pair(func: str, first, second) -> None:
    """Axes (aligned from the right, as broadcasting aligns them) where dask knows the
    length of one of two named arrays, other than 1, and not the other's: a
    ``ValueError`` naming the array of the unknown length (dask's broadcast said
    "shapes (7,) cannot be broadcast together", one shape, no argument)."""
    (n1, a1), (n2, a2) = first, second
    for m, k in zip(reversed(a1.shape), reversed(a2.shape)):
        if known(m) != known(k) and (m if known(m) else k) != 1:
            name, a = (n2, a2) if known(m) else (n1, a1)
            other, o = (n1, a1) if known(m) else (n2, a2)
            raise value_error(func, name, f"has shape {a.shape}, with a length dask does not "
                                          f"know (as after boolean indexing) where {other} "
                                          f"{o.shape} has a known one, so the two cannot be "
                                          f"broadcast; call {name}.compute_chunk_sizes() "
                                          "first")
