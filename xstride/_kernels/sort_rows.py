"""CuPy executor of ``sort`` and ``argsort`` along short rows (``sort_rows.cu``): one
thread a row of at most :data:`MAX_ROW` elements, sorted in registers.

CuPy sorts a ``(2**24, 3)`` float64 array along its last axis in 12.4 ms on an H100 (a
segmented sort of rows of three); the rows kernel moves the array at copy speed
(docs/performance.md, "Particle shapes beyond the sweep"). Arguments arrive checked by
:mod:`xstride._backends.cupy_sort_rows`: a C-ordered ``(m, k)`` CuPy array of a dtype of
:data:`DTYPES`, ``1 <= k <= MAX_ROW``.
"""

from __future__ import annotations

from .._core.dtypes import C_TYPES, name_of
from ._compile import function
from ._cupy import cupy as _cupy
from ._launch import Launch, i32, i64, slot64
from ._lru import Bounded
from ._reduce_common import sm_count

__all__ = ["sort_rows", "MAX_ROW", "DTYPES"]

_SOURCE = "sort_rows.cu"
_THREADS = 256
#: The longest row the kernel sorts (``XS_SR_MAX`` in sort_rows.cu).
MAX_ROW = 16
#: The dtypes the kernel sorts (NumPy's order of their values: NaN last).
DTYPES = frozenset(("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                    "uint64", "float32", "float64"))

#: (kernel expression, rows, row length, device) -> Launch
_LAUNCHES = Bounded(64)


def sort_rows(x, descending: bool, arg: bool):
    """The rows of a C-ordered ``(m, k)`` CuPy array sorted (``arg`` False: values of
    ``x``'s dtype) or their sorting indices (``arg`` True: int64), stable, ascending with
    NaN last or ``descending`` with NaN first, as NumPy's."""
    cupy = _cupy()
    m, k = (int(s) for s in x.shape)
    out = cupy.empty((m, k), dtype=cupy.int64 if arg else x.dtype)
    if m == 0 or k == 0:
        return out
    expr = f"xs_sort_rows<{C_TYPES[name_of(x.dtype)]}, {'true' if arg else 'false'}>"
    desc = int(bool(descending))
    key = (expr, m, k, desc, cupy.cuda.runtime.getDevice())
    launch = _LAUNCHES.get(key)
    if launch is None:
        fn = function(expr, file=_SOURCE, name_expressions=(expr,))
        grid = max(1, min(-(-m // _THREADS), 8 * sm_count()))
        # x, m, k, desc, out, idx
        launch = _LAUNCHES.put(key, Launch(fn, (grid,), (_THREADS,),
                                           [slot64(), i64(m), i32(k), i32(desc), slot64(),
                                            slot64()]))
    launch(x.data.ptr, 0 if arg else out.data.ptr, out.data.ptr if arg else 0)
    return out
