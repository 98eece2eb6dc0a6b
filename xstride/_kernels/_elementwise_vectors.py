"""How the elementwise engine's flat/rows/nd loops take their operands in vectors:
the width a plan's arrays permit (:func:`vector_width`), the vectors a thread takes
a step (:func:`vector_unroll`), and the repeated short rows read from a table of
their rotations (:func:`row_tables`). Launched by :mod:`._elementwise_exec`, the
source from :mod:`._elementwise_source`; docs/elementwise.md.
"""

from __future__ import annotations

from ._elementwise_source import TABLE_ROWS, UNROLL

__all__ = ["VECTOR_UNROLL", "vector_unroll", "ROW_TABLE_VEC", "row_tables", "vector_width"]

#: Vectors a thread takes where a vector holds more than 4 elements (1- and 2-byte
#: operands: 16 and 8 elements a 16-byte vector), in place of :data:`UNROLL`. A thread
#: keeps each element of its vectors in a register of its own: ptxas 13 (sm_90) gave a
#: uint8 ``x + x[0]`` of (n, 16) 183 registers with 4 vectors (one block an SM), 98
#: with 2, 32 with 1; int16 120, 55, 32. H200, 2026-12-04, fraction of copy, 4 vectors
#: / 1 (two rounds in one process): uint8 ``a + b`` of 2**28 elements 0.39-0.41 ->
#: 0.98-1.05, ``x + x[0]`` of (n, 16) 0.28 -> 0.83-0.85, of (n, 3) 0.33-0.35 ->
#: 0.51-0.57, (4096, 65536) plus a row 0.34-0.35 -> 0.82-0.84; bool ``a + b`` 0.29 ->
#: 0.85-0.87; int16 ``x + x[0]`` of (n, 16) 0.81 -> 0.95-0.97 (2 vectors 0.88-0.90),
#: of (n, 3) 0.73-0.82 -> 0.82-0.91; float16 of (n, 3) 0.72-0.74 -> 0.81-0.86; 4-byte
#: operands unchanged (float32 of (n, 3) 0.93-0.94 either way).
VECTOR_UNROLL = {8: 1, 16: 1}


def vector_unroll(vec: int) -> int:
    """Vectors per thread of the flat/rows/nd loops for vectors of ``vec`` elements.

    >>> [vector_unroll(v) for v in (1, 2, 4, 8, 16)]
    [4, 4, 4, 1, 1]
    """
    return VECTOR_UNROLL.get(vec, UNROLL)


#: "flat2d" reads a repeated short row (``x + x[0]`` of (n, 3)) as whole vectors from
#: a table of its rotations in shared memory (``kernel_source``'s ``table``) when a
#: vector holds at least this many elements (0: never). H200, 2026-12-04, fraction of
#: copy, element by element / the table (two rounds in one process): uint8 ``x +
#: x[0]`` of (n, 3), (n, 5), (n, 7), (n, 13) 0.55-0.61 -> 0.77-0.87, bool 0.42-0.45
#: -> 0.53-0.57, int16 0.89-0.94 -> 0.93-0.98, float16 0.86-0.92 -> 0.92-0.98; with
#: vectors of 2 and 4 elements as well float32 and float64 read 0.00-0.02 lower.
ROW_TABLE_VEC = 8


def row_tables(indexed, strides, vec: int, rowlen: int) -> tuple:
    """Per operand of a "flat2d" plan (``indexed``, ``strides``, rows of ``rowlen``
    elements): a repeated row (outer stride 0) that the kernel reads from a table of
    its rotations (vectors of at least :data:`ROW_TABLE_VEC` elements, rows of at most
    ``TABLE_ROWS``); ``()`` for none.

    >>> row_tables((False, False, True, True), ((3, 1), (3, 1), (0, 1), (1, 9)), 16, 3)
    (False, False, True, False)
    >>> row_tables((False, False, True), ((3, 1), (3, 1), (0, 1)), 4, 3)
    ()
    >>> row_tables((False, False, True), ((65, 1), (65, 1), (0, 1)), 16, 65)
    ()
    """
    if not 1 < ROW_TABLE_VEC <= vec or rowlen > TABLE_ROWS:
        return ()
    return tuple(bool(ind) and s[0] == 0 for ind, s in zip(indexed, strides))


def vector_width(pl, arrays, bcast) -> int:
    """Elements a vector of plan ``pl``'s loop: 16 bytes of the widest array of
    ``arrays`` (``data.ptr``, ``itemsize``), halved until every array permits it by
    its alignment at its offset and, on "rows", by its outer strides; operands with
    ``bcast[k]`` are read element by element and ask nothing. 1 when no width above 1
    fits. (Vectors of 16 bytes of the narrowest instead, up to 32 or 64 of the widest,
    read mixed widths slower on the H200, 2026-12-04: ``uint8 * float32(1.5)`` of
    2**28 elements 0.52-0.69 of copy against 0.38-0.63, ``uint8 * float64(1.5)``
    0.69-0.71 against 0.34-0.46; only a uint8 (n, 16) plus a float32 row gained, 0.80
    -> 0.92 at 32 bytes.)"""
    vec = 16 // max(a.itemsize for a in arrays)
    inner = len(pl.shape) - 1
    while vec > 1:
        ok = pl.kind in ("flat", "flat2d") or pl.shape[inner] % vec == 0
        for k, a in enumerate(arrays):
            if not ok:
                break
            if bcast[k]:
                continue
            nbytes = vec * a.itemsize
            if (a.data.ptr + pl.offsets[k] * a.itemsize) % nbytes:
                ok = False
            elif pl.kind == "rows" and any(s % vec for s in pl.strides[k][:inner]):
                ok = False
        if ok:
            return vec
        vec //= 2
    return 1
