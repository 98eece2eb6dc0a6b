"""CuPy executor for ``sort_by_key``: xstride's one-sweep radix sort, on the device.

The keys are sorted by :func:`radix_sort` (``radix_sort.cu``; the plan in
:mod:`xstride._plans.radix_sort`), which returns the sorted keys and the int64
permutation; the first value array whose rows are one word of 1, 2, 4 or 8 bytes
(C-contiguous) moves in the digit passes (carried through every pass of a sort of at
most four passes, else gathered by the last), the others are gathered by
``cupy.take``. Only
the low bits in which keys can differ are sorted, ``ceil(bits / 8)`` digit passes:

* ``key_bits`` given: those bits (the caller promises every key is in
  ``[0, 2**key_bits)``; nothing is checked on the device, and other keys give an
  unspecified result, though ``order`` stays a permutation);
* else the bitwise OR of the keys (one reduction kernel, one 8-byte read-back): up to
  its highest set bit, or every bit when a signed key is negative.

Launches: [OR,] histogram of every digit place, exclusive scan of the histograms, one
one-sweep pass per place; all of them over one zeroed scratch buffer (the OR, the tile
counters, the histograms, the look-back words). The passes move the keys as the
narrowest unsigned type that holds the sorted bits, and the permutation as uint32 when
n <= 2**32 (the first pass narrows, the last widens: 64-bit Morton keys of 30 bits and
their permutation move as 8 bytes a key, not 16). See ``docs/morton.md``.
"""

from __future__ import annotations

import numpy as np

from .._core.dtypes import C_TYPES
from .._plans import radix_sort as rp
from . import _reduce_common as rc
from ._compile import Request, current_device, function, prefetch
from ._cupy import cupy as _cupy
from ._devices import check as check_devices
from ._launch import Launch, i32, i64, slot32, slot64, u64
from ._lru import Bounded

__all__ = ["sort_by_key", "radix_sort", "key_bits_of", "ONE_SORT"]

_SRC = "radix_sort.cu"
_BLOCKS_PER_SM = 8   # blocks of the grid-stride kernels (OR, histogram) per SM

#: Prepared launches: (kernel expression, grid, fixed arguments, device) -> Launch
_LAUNCHES = Bounded(256)

#: Whether the distributed sort, where every chunk lies in one memory of one thread
#: (a dask-cuda worker of one GPU), sorts all rows in one call: yes on the device,
#: where the radix sort of every row costs less than a split and a merge of each
#: partition (the 2**28 points of ``benchmarks/dask.py`` on one H100: 0.041 s in one
#: chunk, one sort, against 0.065 s in two, docs/performance.md, "One chunk on the
#: GPU").
ONE_SORT = True


def _ctype(itemsize: int) -> str:
    """C type of the unsigned keys of ``itemsize`` bytes (the kernels' K)."""
    return C_TYPES[f"uint{8 * itemsize}"]


def _launch(expr: str, grid: int, fixed: tuple, build, group: tuple):
    """The cached :class:`Launch` of the instantiation ``expr`` for ``grid`` blocks and
    the fixed arguments ``fixed``; ``build(kernel)`` makes it on a miss. ``group``: the
    instantiations compiled with it in one NVRTC module (:func:`_prelude`, or the pass
    alone)."""
    key = (expr, grid, fixed, current_device())
    got = _LAUNCHES.get(key)
    if got is None:
        got = _LAUNCHES.put(key, build(function(expr, file=_SRC, name_expressions=group)))
    return got


def _prelude(ct: str) -> tuple:
    """The kernels before the passes, for keys of C type ``ct``: OR, histogram, offsets."""
    return (f"xs_radix_or<{ct}>", f"xs_radix_histogram<{ct}>", "xs_radix_offsets")


_WIDE_INDEX = C_TYPES["int64"]

#: The positions of a pass in a sort: the only pass, the first, a middle one, the last.
POSITIONS = ("only", "first", "middle", "last")


def _position(p: int, passes: int) -> str:
    if passes == 1:
        return "only"
    return "first" if p == 0 else ("last" if p == passes - 1 else "middle")


def _pass_types(pos: str, ct: str, cs: str, ci: str) -> tuple:
    """(KIN, K, KOUT, IIN, IOUT) of a pass at position ``pos`` for keys of C type ``ct``
    moved as ``cs`` and a permutation moved as ``ci`` between passes: the first pass
    narrows (and makes the identity permutation: its IIN is never read), the last
    widens, the only one does both."""
    w = _WIDE_INDEX
    return {"only": (ct, cs, ct, w, w), "first": (ct, cs, cs, ci, ci),
            "middle": (cs, cs, cs, ci, ci), "last": (cs, cs, ct, ci, w)}[pos]


def _pass_expr(types: tuple, items: int, min_blocks: int, vbytes: int = 0,
               carry: bool = False) -> str:
    tail = (f", {vbytes}" + (", true" if carry else "")) if vbytes else ""
    return f"xs_radix_onesweep<{', '.join(types)}, {items}, {min_blocks}{tail}>"


def _plan_passes(plan, ct: str, cs: str, ci: str) -> list:
    """The one-sweep instantiation of each pass of ``plan``, in order: with
    ``plan.vbytes``, every pass carries the value rows (``plan.carry``) or the last
    one gathers them. Each is a module of its own, so
    the distinct ones of a first sort compile side by side (:func:`~._compile.prefetch`;
    one pass instantiation took 0.45 s of NVRTC time on the H200 host, the three of a
    30-bit sort 1.27 s in one module; 2026-12-01)."""
    last = plan.passes - 1
    return [_pass_expr(_pass_types(_position(p, plan.passes), ct, cs, ci), plan.items,
                       plan.pass_min_blocks(p == last),
                       plan.vbytes if plan.carry or p == last else 0, plan.carry)
            for p in range(plan.passes)]


#: Bytes of a value row the digit passes can move themselves (one unsigned word a row).
GATHER_BYTES = (1, 2, 4, 8)


def gather_bytes(values) -> int:
    """The row size in bytes of a CuPy value array the digit passes can move (carry or
    gather): a C-contiguous (n,) or (n, k) array whose row is one word of
    :data:`GATHER_BYTES`; else 0 (gathered by ``cupy.take`` after the sort)."""
    if values.ndim not in (1, 2) or not values.flags.c_contiguous:
        return 0
    row = values.itemsize * (values.shape[1] if values.ndim == 2 else 1)
    return row if row in GATHER_BYTES else 0


def _stride_grid(n: int) -> int:
    """Blocks of the grid-stride kernels: enough to fill the device, at most one per
    4096 keys (so a block's 32-bit histogram counters hold its share of any n whose
    keys fit a device: below 2**32 keys each for n < 2**42 on a device of 132 SMs)."""
    return max(1, min(-(-n // (rp.THREADS * 16)), _BLOCKS_PER_SM * rc.sm_count()))


def key_bits_of(ukeys, signed: bool, scratch) -> int:
    """The bits to sort of contiguous unsigned-viewed CuPy keys: the OR of every key
    (``xs_radix_or`` into ``scratch[SCRATCH_OR]``, zeroed) read back to the host."""
    n = ukeys.shape[0]
    expr = f"xs_radix_or<{_ctype(ukeys.dtype.itemsize)}>"
    grid = _stride_grid(n)
    run = _launch(expr, grid, (n,), lambda k: Launch(k, (grid,), (rp.THREADS,),
                                                     [slot64(), i64(n), slot64()]),
                  _prelude(_ctype(ukeys.dtype.itemsize)))
    run(ukeys.data.ptr, scratch.data.ptr + 8 * rp.SCRATCH_OR)
    word = int(scratch[rp.SCRATCH_OR:rp.SCRATCH_OR + 1].get()[0])
    return rp.bits_from_or(word, ukeys.dtype.itemsize, signed)


def radix_sort(keys, key_bits=None, values=None) -> tuple:
    """``(sorted_keys, order, sorted_values)`` of checked 1-D CuPy integer keys: a
    stable sort on the low ``key_bits`` bits (None: found from the keys), ``order``
    int64 with ``sorted_keys == keys[order]``; ``values``, an array of
    :func:`gather_bytes` > 0 or None, comes back as ``values[order]``, moved by the
    passes (else None: the caller gathers). The inputs are not modified. Values are
    carried through the passes where the plan says so and the sort's buffers fit in
    device memory with their ping-pong copies (up to two more arrays of the values'
    size), else gathered by the last pass."""
    cp = _cupy()
    n = keys.shape[0]
    if n == 0:
        return keys.copy(), cp.empty(0, dtype=np.int64), None
    item = keys.dtype.itemsize
    signed = keys.dtype.kind == "i"
    ukeys = cp.ascontiguousarray(keys).view(np.dtype(f"u{item}"))
    vbytes = 0 if values is None else gather_bytes(values)
    if key_bits is None:   # the OR of the keys, before the plan (its tiles need the bits)
        bits = key_bits_of(ukeys, signed, cp.zeros(rp.SCRATCH_OR + 1, dtype=np.uint64))
    else:
        bits = int(key_bits)
    plan = rp.plan_radix(n, item, signed, bits, vbytes)
    if plan.passes == 0:   # every key equal (to 0): the identity
        return keys.copy(), cp.arange(n, dtype=np.int64), None
    try:
        scratch, kouts, iouts, vout, carried = _allocate(cp, plan, ukeys.dtype, values)
    except MemoryError:   # without room for the carried values, the last pass gathers
        if not plan.carry:
            raise
        plan = rp.plan_radix(n, item, signed, bits, vbytes, carry=False)
        scratch, kouts, iouts, vout, carried = _allocate(cp, plan, ukeys.dtype, values)
    base = scratch.data.ptr
    hist = base + 8 * rp.SCRATCH_HIST
    status = base + 8 * rp.SCRATCH_STATUS
    ct = _ctype(item)
    cs = _ctype(plan.sort_itemsize)
    ci = _ctype(4) if plan.index_itemsize == 4 else _WIDE_INDEX
    sweeps = _plan_passes(plan, ct, cs, ci)
    # every module of the sort is known now: compile them side by side (the prelude is
    # compiled already when its OR kernel found the key bits)
    prelude = [] if key_bits is None else [
        Request(f"xs_radix_histogram<{ct}>", file=_SRC, name_expressions=_prelude(ct))]
    prefetch(prelude + [Request(e, file=_SRC, name_expressions=(e,))
                        for e in dict.fromkeys(sweeps)])

    # histogram of every place, then the exclusive scan of each place's counts
    hexpr = f"xs_radix_histogram<{ct}>"
    hgrid = _stride_grid(n)
    fixed = (n, plan.flip, plan.passes, plan.bits)
    _launch(hexpr, hgrid, fixed, lambda k: Launch(
        k, (hgrid,), (rp.THREADS,),       # keys, n, flip, places, bits, hist
        [slot64(), i64(n), u64(plan.flip), i32(plan.passes), i32(plan.bits), slot64()]),
        _prelude(ct))(ukeys.data.ptr, hist)
    _launch("xs_radix_offsets", plan.passes, (ct,), lambda k: Launch(
        k, (plan.passes,), (rp.THREADS,), [slot64()]), _prelude(ct))(hist)

    # one pass per digit place, ping-pong between two key and two index buffers; with
    # narrowed keys (permutation) the first pass writes them narrow and the last one wide
    last = plan.passes - 1
    if plan.carry:   # the values move with the keys: ping-pong words too
        vouts = [v.data.ptr for v in carried] + [vout.data.ptr]
        vins = [values.data.ptr] + vouts[:-1]
    else:                      # the last pass gathers them (or there are none)
        vins = [0] * last + [values.data.ptr if vbytes else 0]
        vouts = [0] * last + [vout.data.ptr if vbytes else 0]
    kin, iin = ukeys.data.ptr, 0          # pass 0: the caller's keys, the identity
    for p in range(plan.passes):
        sweep = _sweep(sweeps[p], plan)
        kout, iout = kouts[p], iouts[p]
        sweep(kin, kout.data.ptr, iin, iout.data.ptr, plan.shifts[p], plan.masks[p],
              hist + 8 * rp.BINS * p, status, base + 8 * (rp.SCRATCH_COUNTERS + p), p + 1,
              vins[p], vouts[p])
        kin, iin = kout.data.ptr, iout.data.ptr
    return kout.view(keys.dtype), iout, vout


def _allocate(cp, plan, key_dtype, values) -> tuple:
    """``(scratch, key outputs, index outputs, values' output, carried buffers)`` of a
    sort on ``plan``: the zeroed scratch, each pass's output arrays (:func:`_buffers`),
    and with ``plan.carry`` the values' words between passes (none for one pass)."""
    n = plan.n
    scratch = cp.zeros(plan.scratch_words, dtype=np.uint64)
    kouts = _buffers(cp, n, plan.passes, np.dtype(f"u{plan.sort_itemsize}"), key_dtype)
    iouts = _buffers(cp, n, plan.passes, np.dtype(np.uint32 if plan.index_itemsize == 4
                                                  else np.int64), np.dtype(np.int64))
    vout = cp.empty_like(values) if plan.vbytes else None
    carried = []
    if plan.carry:
        word = np.dtype(f"u{plan.vbytes}")
        carried = _buffers(cp, n, plan.passes - 1, word, word)
    return scratch, kouts, iouts, vout, carried


def _buffers(cp, n: int, passes: int, between, final) -> list:
    """The output array of each pass: two of dtype ``between`` in turn, the last pass's
    of dtype ``final`` (one of the two when the dtypes are equal)."""
    if between == final:
        two = [cp.empty(n, dtype=final) for _ in range(min(2, passes))]
        return [two[p % 2] for p in range(passes)]
    two = [cp.empty(n, dtype=between) for _ in range(min(2, passes - 1))]
    return [two[p % 2] for p in range(passes - 1)] + [cp.empty(n, dtype=final)]


def _sweep(expr: str, plan):
    """The cached :class:`Launch` of one one-sweep pass, the instantiation ``expr`` (a
    module of its own)."""
    return _launch(expr, plan.ntiles, (plan.n, plan.flip), lambda k: Launch(
        k, (plan.ntiles,), (rp.THREADS,),
        # keys in/out, idx in/out, n, flip, shift, mask, offsets, status, counter, tag,
        # values in/out
        [slot64(), slot64(), slot64(), slot64(), i64(plan.n), u64(plan.flip), slot32(),
         slot32(), slot64(), slot64(), slot64(), slot32(), slot64(), slot64()]), (expr,))


def sort_by_key(keys, values, key_bits=None) -> tuple:
    """(sorted_keys, order int64, *sorted_values) of checked CuPy keys (n,) and values
    (n,) or (n, k); ``key_bits`` checked by the caller (an int in 1..key bits, or
    None)."""
    cp = _cupy()
    check_devices("sort_by_key",
                  [("keys", keys)] + [(f"values[{i}]", v) for i, v in enumerate(values)], cp)
    # the first value array whose rows are one word moves in the digit passes
    carried = next((i for i, v in enumerate(values) if gather_bytes(v)), None)
    sorted_keys, order, gathered = radix_sort(
        keys, key_bits, None if carried is None else values[carried])
    out = [sorted_keys, order]
    out.extend(gathered if i == carried and gathered is not None else cp.take(v, order, axis=0)
               for i, v in enumerate(values))
    return tuple(out)
