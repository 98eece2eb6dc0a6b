"""The plan of the device radix sort of ``sort_by_key``: bits, digit places, tiles.

Pure Python (no NumPy, no CuPy): which bits of the keys are sorted, the 8-bit digit
places (shift and mask of each), the tiles of the one-sweep passes and the layout of
the one zeroed scratch buffer the kernels share. The CUDA executor
(:mod:`xstride._kernels.sort`, kernels in ``radix_sort.cu``) turns a
:class:`RadixPlan` into launches; the CPU tests run a NumPy model of the same
algorithm over the same plan. Algorithm: Adinets & Merrill (2022), "Onesweep: A
Faster Least Significant Digit Radix Sort for GPUs", arXiv:2206.01784.
"""

from __future__ import annotations

from dataclasses import dataclass

from .._core.errors import error

__all__ = ["DIGIT_BITS", "BINS", "THREADS", "TUNING", "ITEMS", "TILE", "CARRY_TILE", "MAX_ITEMS",
           "MAX_PLACES", "SCRATCH_OR", "SCRATCH_COUNTERS", "SCRATCH_HIST", "SCRATCH_STATUS", "COUNT_BITS", "RadixPlan",
           "bits_from_or", "plan_radix", "flip_of"]

#: Bits per digit; digit values per place (one per thread of a block).
DIGIT_BITS = 8
BINS = 1 << DIGIT_BITS
#: Threads per block of the one-sweep pass (== BINS: thread d owns digit d).
THREADS = 256
#: Tuning of the one-sweep pass, read at each sort (benchmarks/sort.py sweeps them):
#: ``items``, keys per thread (a tile is THREADS * items consecutive keys; at most 17,
#: so the tile and its counters fit the 48 KiB of static shared memory), and
#: ``min_blocks``, blocks per SM the compiler must fit (``__launch_bounds__``; 3 keeps
#: a thread at 80 registers, where NVRTC for sm_90 gives 113 unbounded for 64-bit
#: keys; since the permutation is loaded with the keys, ptxas spills 80 to 332 bytes
#: a thread in some of those passes (64-bit keys, a 30-bit sort's last pass without
#: values), which measured faster all the same: a 63-bit sort 10.5 -> 9.5 ms). Both
#: are template arguments of ``xs_radix_onesweep``. ``carry_min_blocks``:
#: ``min_blocks`` of the pass that also gathers a value array (the last; 120 registers
#: at 2, where 3 spilled 168 bytes; H200, 2026-12-03, 2**26 30-bit keys with an int64
#: payload: 5.07 ms against 5.10-5.13 at 3); the passes that carry values too.
#: ``carry_passes``: a sort of at most this many passes carries its first one-word
#: value array through every pass (read in order, written with the keys) instead of
#: gathering it in the last pass (one random read a row; see
#: :attr:`RadixPlan.carry`); ``carry_items``: ``items`` of such a sort (H200,
#: 2026-12-03, 30-bit keys with an int64 payload: 17 keys 4.47-4.64 ms, 15 4.62-4.79,
#: 13 5.07-5.10, 11 5.44-5.50; a 63-bit sort, which gathers, 10.7 ms at 17 against
#: 9.5 at 15). ``narrow``: the passes
#: move the keys as the narrowest unsigned type that holds the sorted bits (see
#: :attr:`RadixPlan.sort_itemsize`); ``narrow_index``: the permutation moves between
#: passes as uint32 when n <= 2**32 (:attr:`RadixPlan.index_itemsize`).
TUNING = {"items": 15, "min_blocks": 3, "carry_min_blocks": 2, "carry_passes": 4,
          "carry_items": 17, "narrow": True, "narrow_index": True}
#: Keys per tile at the default tuning (a carrying sort's: CARRY_TILE).
ITEMS = TUNING["items"]
TILE = THREADS * ITEMS
CARRY_TILE = THREADS * TUNING["carry_items"]
MAX_ITEMS = 17
#: Digit places of the widest key (uint64).
MAX_PLACES = 8
#: Bits of a count in a look-back word (``radix_sort.cu``): n must stay below 2**58.
COUNT_BITS = 58

# The scratch buffer, in uint64 words, zeroed once per sort: the OR of the keys, one
# tile counter per pass (a 32-bit counter at the start of each word), the digit
# histograms of every place (then their exclusive scans), the look-back words (ntiles
# x BINS; the pass number is a tag in each word, so the passes share them).
SCRATCH_OR = 0
SCRATCH_COUNTERS = 1
SCRATCH_HIST = 16
SCRATCH_STATUS = SCRATCH_HIST + MAX_PLACES * BINS


def flip_of(itemsize: int, signed: bool) -> int:
    """The mask XORed into a key before its digits are taken: the sign bit of signed
    keys (so that negative keys sort first), 0 for unsigned keys."""
    return 1 << (8 * itemsize - 1) if signed else 0


def bits_from_or(word: int, itemsize: int, signed: bool) -> int:
    """The bits to sort, from ``word``, the bitwise OR of the keys' bits (as unsigned
    integers of ``itemsize`` bytes): all of them when a signed key is negative (its
    sign bit is set), else the length of the highest set bit (0: every key is 0)."""
    width = 8 * itemsize
    word &= (1 << width) - 1
    if signed and word >> (width - 1):
        return width
    return word.bit_length()


@dataclass(frozen=True)
class RadixPlan:
    """One device sort: ``n`` keys of ``itemsize`` bytes, the low ``bits`` bits sorted.

    Attributes
    ----------
    passes : int
        Digit places, ``ceil(bits / 8)`` (0 when ``bits`` is 0: the order is the
        identity).
    shifts, masks : tuple of int
        Of each place, least significant first: digit = ``((key ^ flip) >> shift) &
        mask``; every mask is 0xff except perhaps the last (``bits % 8`` bits).
    flip : int
        :func:`flip_of`.
    sort_itemsize : int
        Bytes of a key in the passes: the narrowest of 1, 2, 4, 8 that holds ``bits``
        bits when :data:`TUNING` says ``narrow`` and the sign bit is not sorted
        (``bits`` below the key's width), else ``itemsize``. The first pass reads the
        keys as they are and writes them narrowed (their high bits are zero: every key
        is in ``[0, 2**bits)``); the host widens the sorted keys at the end.
    index_itemsize : int
        Bytes of a permutation entry between passes: 4 (uint32) when :data:`TUNING`
        says ``narrow_index``, n <= 2**32 and there are two passes or more (the first
        pass writes them as uint32, the last reads uint32 and writes int64), else 8.
    vbytes : int
        Bytes of a row of the value array that moves in the passes (one word: 1, 2,
        4 or 8), 0 for none.
    carry : bool
        The value rows go through every pass with the keys (``vbytes`` and at most
        ``carry_passes`` passes); else, with ``vbytes``, the last pass gathers them.
        Carrying reads and writes the values once a pass, in tile order; gathering
        reads each row once at a random place, a DRAM burst a row: on the H200 the
        four passes of 2**26 30-bit keys with an int64 payload took about 1.3 ms more
        in the gathering last pass than in a pass without values (Nsight Compute,
        2026-12-03).
    items, min_blocks, carry_min_blocks : int
        The tuning of the passes (:data:`TUNING` when the plan was made): ``items`` is
        ``carry_items`` in a carrying sort; ``carry_min_blocks`` is the
        ``min_blocks`` of a pass that moves values.
    tile : int
        Keys per tile, ``THREADS * items``.
    ntiles : int
        Tiles, one block each per pass.
    scratch_words : int
        uint64 words of the zeroed scratch (see the ``SCRATCH_*`` offsets).
    """

    n: int
    itemsize: int
    signed: bool
    bits: int
    passes: int
    shifts: tuple
    masks: tuple
    flip: int
    sort_itemsize: int
    index_itemsize: int
    vbytes: int
    carry: bool
    items: int
    min_blocks: int
    carry_min_blocks: int
    tile: int
    ntiles: int
    scratch_words: int

    def pass_min_blocks(self, last: bool) -> int:
        """``min_blocks`` of a pass: ``carry_min_blocks`` where it moves values."""
        moves = self.carry or (self.vbytes > 0 and last)
        return self.carry_min_blocks if moves else self.min_blocks


def plan_radix(n: int, itemsize: int, signed: bool, bits: int, vbytes: int = 0,
               carry: bool = True) -> RadixPlan:
    """The :class:`RadixPlan` of ``n`` keys of ``itemsize`` bytes (1, 2, 4, 8) sorted
    on their low ``bits`` bits (0..8 * itemsize), with a value array of one
    ``vbytes``-byte word a row (0: none) moving in the passes, at the current
    :data:`TUNING`; ``carry=False`` gathers the values in the last pass whatever the
    tuning (the executor's way out when the carried values' buffers do not fit)."""
    width = 8 * itemsize
    if itemsize not in (1, 2, 4, 8) or not 0 <= bits <= width:
        raise error(ValueError, "plan_radix", f"bits={bits} for {itemsize}-byte keys")
    if n >= 1 << COUNT_BITS:
        raise error(ValueError, "plan_radix", f"n={n} is past the look-back's 58-bit counts")
    passes = -(-bits // DIGIT_BITS)
    shifts = tuple(DIGIT_BITS * p for p in range(passes))
    masks = tuple((1 << min(DIGIT_BITS, bits - s)) - 1 for s in shifts)
    if vbytes not in (0, 1, 2, 4, 8):
        raise error(ValueError, "plan_radix", f"vbytes={vbytes}")
    carry = carry and vbytes > 0 and 0 < passes <= int(TUNING.get("carry_passes", 0))
    items = int(TUNING["carry_items" if carry else "items"])
    min_blocks = int(TUNING["min_blocks"])
    carry_min_blocks = int(TUNING.get("carry_min_blocks", min_blocks))
    if not 1 <= items <= MAX_ITEMS or min_blocks < 1 or carry_min_blocks < 1:
        raise error(ValueError, "plan_radix", f"tuning {TUNING} out of range")
    tile = THREADS * items
    ntiles = -(-n // tile)
    sort_itemsize = itemsize
    index_itemsize = 4 if TUNING.get("narrow_index", False) and n <= 1 << 32 \
        and passes >= 2 else 8
    if TUNING.get("narrow", False) and bits < 8 * itemsize:
        sort_itemsize = next(b for b in (1, 2, 4, 8) if 8 * b >= bits)
    return RadixPlan(n=n, itemsize=itemsize, signed=signed, bits=bits, passes=passes,
                     shifts=shifts, masks=masks, flip=flip_of(itemsize, signed),
                     sort_itemsize=sort_itemsize, index_itemsize=index_itemsize,
                     vbytes=vbytes, carry=carry, items=items, min_blocks=min_blocks,
                     carry_min_blocks=carry_min_blocks, tile=tile, ntiles=ntiles,
                     scratch_words=SCRATCH_STATUS + ntiles * BINS)
