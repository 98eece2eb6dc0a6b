"""Backend-neutral facts of the segment primitives (``xstride.algorithms.segments``).

One table per fact, read by the public checks and by both executors:

- :data:`OPS`: the reductions of ``segment_reduce`` / ``reduce_by_key``, each with its
  identity on an empty segment and whether an empty segment of integers is an error.
- :func:`result_dtype` and :func:`accumulator`: the result dtype and the type the sum
  is carried in, by dtype *name* (this module imports neither NumPy nor CuPy); integer
  means are carried exactly (:data:`INT_MEAN`).
- :func:`plan_segments` and :func:`plan_long`: how the device walks the segments (one
  thread or one warp per segment for the short ones; one warp per fixed chunk of each
  long one, followed by an in-order combine). The choice depends on the data only
  (``n``, the number of segments, the longest segment, the number of long ones), never
  on the device, so a result is the same on every GPU and run to run.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["OPS", "SIGNED", "UNSIGNED", "FLOATS", "VALUE_DTYPES", "INT_MEAN", "result_dtype",
           "accumulator", "SegmentPlan", "LongPlan", "plan_segments", "plan_long",
           "SHORT_MEAN", "SHORT_BYTES", "SHORT_MAX", "RUN_TESTS", "longest_bound",
           "CHUNK_ROWS", "MAX_WARPS"]

SIGNED = ("int8", "int16", "int32", "int64")
UNSIGNED = ("uint8", "uint16", "uint32", "uint64")
FLOATS = ("float32", "float64")
#: dtypes ``segment_reduce`` takes as values (bool, float16 and complex are refused)
VALUE_DTYPES = SIGNED + UNSIGNED + FLOATS
#: the accumulator of integer means: the exact sum, a 128-bit integer (|sum| < 2**127
#: for any segment of fewer than 2**63 rows of 64-bit values)
INT_MEAN = "int128"


@dataclass(frozen=True)
class Op:
    """One reduction: ``empty`` is what an empty segment gives (``"nan"``: NaN for
    floats and an error for integers)."""

    name: str
    empty: str  # "0", "1" or "nan"


#: name -> Op, in the order the docstrings list them
OPS = {o.name: o for o in (Op("sum", "0"), Op("prod", "1"), Op("min", "nan"),
                           Op("max", "nan"), Op("mean", "nan"), Op("count", "0"))}


def accumulator(op: str, dtype: str) -> str:
    """The dtype name partial results are carried in: int64 / uint64 for integer sums
    and products (exact, wrapping modulo 2**64 as NumPy's integer sums do), ``"int128"``
    for integer means (the exact sum: no NumPy dtype; the host carries it in 32-bit
    limbs summed in int64, the device in a two-word struct, ``xs_seg_i128``), float64
    for float32 and float64 sums, products and means, the values' own dtype for min
    and max, int64 for count.

    >>> accumulator("sum", "int8"), accumulator("mean", "uint64"), accumulator("mean", "float32")
    ('int64', 'int128', 'float64')
    """
    if op == "count":
        return "int64"
    if op in ("min", "max"):
        return dtype
    if op == "mean" and dtype in SIGNED + UNSIGNED:
        return INT_MEAN
    if dtype in SIGNED:
        return "int64"
    if dtype in UNSIGNED:
        return "uint64"
    return "float64"


def result_dtype(op: str, dtype: str) -> str:
    """The result dtype name of ``op`` over values of dtype ``dtype``: as NumPy's
    ``sum``/``prod`` (integers widen to int64 / uint64, floats keep their dtype), the
    values' dtype for min/max, float64 for the mean of integers, int64 for count."""
    if op == "count":
        return "int64"
    if op in ("min", "max"):
        return dtype
    if op == "mean":
        return dtype if dtype in FLOATS else "float64"
    return accumulator(op, dtype) if dtype not in FLOATS else dtype


# ------------------------------------------------------------------ device walk
#: one thread per segment when the mean segment has at most this many rows and ...
SHORT_MEAN = 128
#: ... at most this many bytes (rows times the row's bytes); else one warp per segment.
#: Measured on the H200 (2026-12-01, sums of float32/float64/int8 values, 1-16 columns,
#: segments of 2-128 rows, 512 MiB): the staged thread walk was faster up to 1.5 KiB a
#: segment (at 32 rows of 3 float32 0.30 against 0.72 ms), the warp walk from 3 KiB
#: (128 rows of 3 float64 0.22 against 0.29 ms)
SHORT_BYTES = 2048
#: ... for the segments of at most this many rows (longer ones take the long walk)
SHORT_MAX = 256
#: rows per warp of the long walk (a constant: the cut, hence the order of a float
#: sum, is the same on every device); also the longest segment of the short warp walk
CHUNK_ROWS = 4096
#: at most this many (segment, chunk) warps in the long walk; longer chunks beyond it
MAX_WARPS = 1 << 22


@dataclass(frozen=True)
class SegmentPlan:
    """How the device reduces ``n_segments`` segments of ``n`` rows: a short walk over
    every segment of at most ``split`` rows, then (when the longest segment has more)
    a long walk over the longer segments only, whose indices a compaction gathers.

    Attributes
    ----------
    short : {"thread", "warp"}
        ``"thread"``: thread ``(s, c)`` folds column ``c`` of segment ``s`` row by row,
        in order. ``"warp"``: one warp per segment (lanes over rows and columns, then a
        fixed tree over the lanes).
    split : int
        Segments of more rows are left to the long walk.
    long : bool
        Whether the long walk runs (the longest segment has more than ``split`` rows).
    """

    short: str
    split: int
    long: bool


@dataclass(frozen=True)
class LongPlan:
    """The long walk: warp ``w`` folds chunk ``w % chunks`` of long segment
    ``w // chunks``; chunk ``p`` covers rows ``s0 + p*chunk_rows`` up to the segment's
    end or ``chunk_rows`` rows; ``chunks > 1``: a second pass folds the chunks in
    order."""

    chunks: int
    chunk_rows: int


def plan_segments(n: int, n_segments: int, max_len: int, row_bytes: int) -> SegmentPlan:
    """The device walk of ``n_segments`` segments over ``n`` rows of ``row_bytes`` bytes
    each, whose longest segment has ``max_len`` rows (see :class:`SegmentPlan`).

    >>> plan_segments(1000, 500, 3, 12)
    SegmentPlan(short='thread', split=256, long=False)
    >>> plan_segments(10**6, 100, 50_000, 12)
    SegmentPlan(short='warp', split=4096, long=True)
    >>> plan_segments(32 * 1000, 1000, 40, 128)      # 4 KiB a segment
    SegmentPlan(short='warp', split=4096, long=False)
    """
    if (n_segments and n <= SHORT_MEAN * n_segments
            and n * row_bytes <= SHORT_BYTES * n_segments):
        return SegmentPlan("thread", SHORT_MAX, max_len > SHORT_MAX)
    if n_segments == 0:
        return SegmentPlan("thread", SHORT_MAX, False)
    return SegmentPlan("warp", CHUNK_ROWS, max_len > CHUNK_ROWS)


def plan_long(n_long: int, max_len: int) -> LongPlan:
    """The long walk of ``n_long`` segments, the longest of ``max_len`` rows: chunks of
    :data:`CHUNK_ROWS` rows, or longer ones where ``n_long`` times the chunks would
    pass :data:`MAX_WARPS`.

    >>> plan_long(3, 10_000)
    LongPlan(chunks=3, chunk_rows=4096)
    """
    rows = CHUNK_ROWS
    chunks = max(1, -(-max_len // rows))
    if n_long * chunks > MAX_WARPS:
        chunks = max(1, MAX_WARPS // max(n_long, 1))
        rows = -(-max_len // chunks)
    if chunks == 1:
        rows = max(max_len, 1)
    return LongPlan(chunks, rows)


#: the run lengths whose excess the device's sortedness check of ``reduce_by_key`` also
#: tests (is any run longer than each? the second test may raise a false alarm, never
#: miss): the only lengths the walks compare with; the first a power of two
RUN_TESTS = (SHORT_MAX, CHUNK_ROWS)


def longest_bound(longer: tuple[bool, bool]) -> int | None:
    """A stand-in for the longest segment that gives :func:`plan_segments` and
    :func:`plan_long` the same walks as its exact value, from whether some segment is
    longer than each of :data:`RUN_TESTS`: ``SHORT_MAX`` when none is longer,
    ``CHUNK_ROWS`` when none is longer than that (a thread walk then sends the longer
    ones to a long walk of one chunk, which covers each segment whole, as a chunk of the
    exact length would), None when the exact value is needed (a false alarm of the
    second test lands here too: the caller measures).

    >>> longest_bound((False, False)), longest_bound((True, False)), longest_bound((True, True))
    (256, 4096, None)
    """
    if not longer[0]:
        return SHORT_MAX
    if not longer[1]:
        return CHUNK_ROWS
    return None
