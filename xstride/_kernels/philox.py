"""CuPy executor of Philox4x32-10 (device executor of :mod:`xstride.rng`).

The kernels (``philox.cu``) include ``xstride/random.cuh`` (the same header users get)
and loop over the output with a grid-stride loop and 64-bit indices. Three families:

* fast (``*_f1``, ``*_f3``, the generator's ``*pairs*``): scalar seed and stream, dense
  counters (``f1``) or ``start + i`` (``f3``, :class:`~xstride._plans.philox.Affine`);
* grid (``*_g2``): the broadcast output folded to rows x columns
  (:func:`xstride._plans.philox.grid2`), each argument a scalar or ``p[r * rs + j * cs]``;
* general (``*_k``, and ``words``): each argument read in the mode that
  :func:`xstride._plans.philox.plan` gives it (scalar, linear, strided, affine).

Every launch goes through :class:`._launch.Launch`. What decides a launch (the kind,
the output shape, each argument's type and layout, the device, and the stream where
the launch may hold a device array) keys a bounded cache of prepared launches; a call
only fills the slots: the output addresses, each argument's address and scalar value.
Arguments arrive checked and converted by :mod:`xstride.rng` (Python ints, or CuPy
``uint64`` arrays; ``uint32`` for the raw counter words and keys).

:func:`repeat` is the prepared-call fast path (:mod:`._prepared`) of the pure functions
(``uniform``, ``uniform2``, ``normal``, ``normal2``) for the common call: Python-int
seed and stream, a CuPy ``uint64`` counter array. The checked path prepares such a call
after its first launch; an equal later call (same kind, counter shape, strides and
dtype, its device, the current device and stream) skips :mod:`xstride.rng`'s checks and the plan.
"""

from __future__ import annotations

import math
from functools import partial

import numpy as np

from .._core.errors import value_error
from .._plans.philox import Affine, grid2, plan
from ._compile import kernel
from ._cupy import cupy as _cupy
from ._devices import check as check_devices
from ._launch import Launch, i32, i64, slot64, u64
from ._lru import Bounded
from ._prepared import GATE, Store
from ._reduce_common import sm_count

__all__ = ["uniform", "uniform2", "normal", "normal2", "words", "pairs", "repeat",
           "integers_first", "SOURCE_FILE"]

#: The kernels' source file, beside this module (compiled by :func:`._compile.function`).
SOURCE_FILE = "philox.cu"

_KERNELS = {
    "uniform": "xstride_philox_uniform_k",
    "uniform2": "xstride_philox_uniform2_k",
    "normal": "xstride_philox_normal_k",
    "normal2": "xstride_philox_normal2_k",
    "words": "xstride_philox_words_k",
}
_BLOCK = 256


#: The generator's pair kernels and their counters per thread and loop step, chosen on
#: the H200 (2**28 values: uniforms 0.513 ms at 1 against 0.578 ms at 4; normals 1.458
#: ms at 2 against 1.470 at 1; the other variants were deleted after that run).
_PAIRS = {"uniform": ("xstride_philox_upairs_u1", 1), "normal": ("xstride_philox_npairs_u2", 2)}
_FAST_UNROLL = {"uniform": 4, "uniform2": 4, "normal": 2, "normal2": 2}

#: Prepared launches: key (see :func:`_real`, :func:`pairs`, :func:`words`) ->
#: :class:`_Prepared` (or a :class:`Launch` for the pairs).
_LAUNCHES = Bounded(512)


class _Prepared:
    """A prepared Philox launch: the :class:`Launch`, whether its slots are the fast
    kernels' (``out0, out1, seed, stream, counter address, counter start``) or one
    ``(address, scalar)`` pair per argument after ``out0, out1``, and the device array
    of strided geometry it reads (kept alive with the launch; ``None`` when none)."""

    __slots__ = ("launch", "fast", "geo")

    def __init__(self, launch: Launch, fast: bool, geo=None):
        self.launch, self.fast, self.geo = launch, fast, geo


def _grid(sms: int, n: int) -> int:
    """Blocks of the general kernels: at most 16 per SM (grid-stride loop)."""
    return max(1, min(-(-n // _BLOCK), sms * 16))


def _fast_grid(sms: int, items: int, unroll: int) -> int:
    """Blocks of the fast kernels: ``unroll`` counters per thread and step, at most 64
    blocks per SM."""
    return max(1, min(-(-items // (_BLOCK * unroll)), sms * 64))


def _grid2_geometry(R: int, C: int, sms: int) -> tuple[tuple, tuple]:
    """``(grid, block)`` of a grid kernel over ``R`` rows of ``C`` columns.

    Two ways: a lane a column (``bx`` lanes cover a row, 4 columns a lane, ``by`` rows
    a block), or whole rows a block step with a lane an output (one-dimensional blocks
    of ``_BLOCK`` lanes, 4 outputs a lane: philox.cu's ``xs_grid2_rows``, taken by a
    block of ``blockDim.y == 1`` and more than ``C / 4`` lanes). Each value costs a
    Philox block's arithmetic, so the way that leaves fewer of a step's slots empty
    wins: a row of 3 columns keeps 3 of 32 lanes busy one way and 1023 of 1024 slots the
    other; 600 columns fill 600 of 640 slots one way and 600 of 1024 the other."""
    bx = min(_BLOCK, max(32, -(-C // 128) * 32))
    wide = C / (-(-C // (4 * bx)) * 4 * bx)
    span = 4 * _BLOCK
    if C < span and (span // C) * C / span >= wide:
        rows_per = span // C
        return (max(1, min(-(-R // rows_per), 8 * sms)),), (_BLOCK,)
    by = _BLOCK // bx
    gx = max(1, min(-(-C // (4 * bx)), 1024))
    gy = max(1, min(-(-R // by), 65535, -(-sms * 32 // gx)))
    return (gx, gy), (bx, by)


def _sig(v):
    """What one argument contributes to a launch key: its kind and, for an array, its
    layout (the plan depends on nothing else; the values fill slots)."""
    if isinstance(v, int):
        return 0
    if isinstance(v, Affine):
        return 1
    return (v.shape, v.strides, v.dtype)


def _check_whole_elements(func: str, named) -> None:
    """Refuse an array argument with a byte stride that is not a whole number of its
    elements on an axis of extent > 1 (a CuPy ``as_strided`` view can have one): the
    kernels address arguments in elements (:func:`_src`, ``words``' counter columns),
    so ``s // itemsize`` would read other elements than the array holds, without a
    word. Checked before anything is allocated or launched. Not copied, as the NumPy
    host loops copy it: CuPy's own copy kernel faults on such a view
    (``CUDA_ERROR_MISALIGNED_ADDRESS`` for a uint64 view 12 bytes apart, H100,
    2026-12-05), and the fault ends the process's CUDA context."""
    for name, v in named:
        if isinstance(v, (int, Affine)):
            continue
        shape, strides, isz = tuple(v.shape), tuple(int(s) for s in v.strides), v.itemsize
        if any(n > 1 and s % isz for n, s in zip(shape, strides)):
            raise value_error(func, name, f"has byte strides {strides} that are not "
                                          f"multiples of its item size {isz} (for shape "
                                          f"{shape}); the device reads elements only at "
                                          f"multiples of their size (CuPy's own copy of "
                                          f"such a view faults too): build the array from "
                                          f"whole elements")


def _src(v):
    """One argument as the plans take it: an int, an Affine, or (shape, element strides)."""
    if isinstance(v, (int, Affine)):
        return v
    return (tuple(v.shape), tuple(s // v.itemsize for s in v.strides))


def _pair(v, unread: int) -> tuple:
    """``(address, scalar)`` slot values of one argument: an array's address and 0; an
    int's value or an Affine's start, with ``unread`` (a live device address) where the
    kernel reads no memory (modes 0 and 3)."""
    if isinstance(v, int):
        return unread, v
    if isinstance(v, Affine):
        return unread, v.start
    return v.data.ptr, 0


def _fast_cm(src, shape):
    """Counter mode of the fast kernels for counter ``src`` (as :func:`_src` gives it):
    3 (Affine), 1 (a dense array of the output's shape), else None."""
    if isinstance(src, Affine):
        return 3
    if isinstance(src, int):
        return None
    (mode, _, lin), = plan([src], shape)[0]
    return 1 if mode == 1 and lin == 1 else None


def _general_args(cp, srcs, shape) -> tuple[list, object]:
    """Launch arguments of the general kernels after ``out[, out1], n``: ``(address slot,
    scalar slot, lin, mode)`` per argument, then ``ndim, geo``; and the geometry array
    (or None)."""
    modes, geo = plan(srcs, shape)
    args = []
    for mode, _, lin in modes:
        args += [slot64(), slot64(), i64(lin), i32(mode)]
    if not geo:
        # no argument in mode 2: the kernels read neither ndim nor geo (xs_load's
        # strided branch is the only reader), so geo is a null address
        return args + [i32(0), u64(0)], None
    geo_arr = cp.asarray(np.array(geo, dtype=np.int64))
    return args + [i32(len(shape)), u64(geo_arr.data.ptr)], geo_arr


def _prepare_real(cp, kind, values, shape, fast) -> _Prepared:
    """The launch of ``kind`` for arguments of the types and layouts of ``values``."""
    n = math.prod(shape)
    sms = sm_count()
    srcs = [_src(v) for v in values]
    cm = None
    if fast and isinstance(values[0], int) and isinstance(values[1], int):
        cm = _fast_cm(srcs[2], shape)
    if cm is not None:
        fn = kernel(f"xstride_philox_{kind}_f{cm}", SOURCE_FILE)
        # out0, out1, n, seed, stream, counter address, counter start
        args = [slot64(), slot64(), i64(n), slot64(), slot64(), slot64(), slot64()]
        grid = _fast_grid(sms, n, _FAST_UNROLL[kind])
        return _Prepared(Launch(fn, (grid,), (_BLOCK,), args), True)
    g2 = grid2(srcs, shape) if fast else None
    if g2 is not None:
        R, C, sts = g2
        # out0, out1, R, C, then per argument: address, scalar, row stride, column
        # stride, mode (0 scalar, 1 array)
        args = [slot64(), slot64(), i64(R), i64(C)]
        for st in sts:
            rs, cs = st if st is not None else (0, 0)
            args += [slot64(), slot64(), i64(rs), i64(cs), i32(st is not None)]
        fn = kernel(f"xstride_philox_{kind}_g2", SOURCE_FILE)
        grid, block = _grid2_geometry(R, C, sms)
        return _Prepared(Launch(fn, grid, block, args), False)
    fn = kernel(_KERNELS[kind], SOURCE_FILE)
    tail, geo = _general_args(cp, srcs, shape)
    args = [slot64(), slot64(), i64(n)] + tail      # out0, out1, n, ...
    return _Prepared(Launch(fn, (_grid(sms, n),), (_BLOCK,), args), False, geo)


def _real(kind, seed, stream, counter, shape, fast=True):
    """``kind`` on the device. ``fast=False`` (tests, benchmarks/rng.py) forces the
    general kernel where the fast or grid kernels would run."""
    cp = _cupy()
    named = (("seed", seed), ("stream", stream), ("counter", counter))
    check_devices("philox_" + kind, named, cp)
    _check_whole_elements("philox_" + kind, named)
    n = math.prod(shape)
    nout = 2 if kind in ("uniform2", "normal2") else 1
    outs = [cp.empty(shape, dtype=cp.float64) for _ in range(nout)]
    if n:
        stream_ptr = cp.cuda.get_current_stream().ptr
        # the stream too: a general launch holds a geometry array, allocated on (and
        # so freed back to the pool of) the stream it is launched on
        key = (kind, fast, shape, _sig(seed), _sig(stream), _sig(counter),
               cp.cuda.runtime.getDevice(), stream_ptr)
        prep = _LAUNCHES.get(key)
        if prep is None:
            prep = _LAUNCHES.put(key, _prepare_real(cp, kind, (seed, stream, counter),
                                                    shape, fast))
        o0, o1 = outs[0].data.ptr, outs[-1].data.ptr
        if prep.fast:
            prep.launch(o0, o1, seed, stream, *_pair(counter, o0), stream_ptr=stream_ptr)
        else:
            prep.launch(o0, o1, *_pair(seed, o0), *_pair(stream, o0), *_pair(counter, o0),
                        stream_ptr=stream_ptr)
        if (fast and type(seed) is int and type(stream) is int
                and type(counter) is cp.ndarray and counter.dtype == _U64):
            _prepare(cp, kind, counter, prep, nout, key[6], stream_ptr)
    return outs[0] if nout == 1 else tuple(outs)


# Prepared calls (:mod:`._prepared`): a pure function called again with Python-int
# seed and stream and a CuPy uint64 counter of the same shape, strides, device and
# stream goes straight to ``partial(_run, cp, prep, shape, nout)``, skipping the
# argument checks of :mod:`xstride.rng`, the broadcast and the plan.
_MAX_CALLS = 512
_CALLS = Store(_MAX_CALLS)
_U64 = np.dtype(np.uint64)
_U64_LIMIT = 1 << 64
#: (CuPy array type, CuPy's current-stream getter) of the module the calls were
#: prepared with: the stream pointer is part of every key (a general launch holds a
#: geometry array of its stream), read without a lookup in ``sys.modules``.
_CUR = (None, None)


def _run(cp, prep: _Prepared, shape, nout, seed, stream, counter, stream_ptr):
    """The prepared call: new outputs, the slots of ``prep`` set, one launch (the same
    parameter values as :func:`_real` passes for these arguments)."""
    outs = [cp.empty(shape, dtype=cp.float64) for _ in range(nout)]
    o0, o1 = outs[0].data.ptr, outs[-1].data.ptr
    if prep.fast:
        prep.launch(o0, o1, seed, stream, counter.data.ptr, 0, stream_ptr=stream_ptr)
    else:
        prep.launch(o0, o1, o0, seed, o0, stream, counter.data.ptr, 0, stream_ptr=stream_ptr)
    return outs[0] if nout == 1 else tuple(outs)


def _prepare(cp, kind, counter, prep: _Prepared, nout, dev, stream_ptr) -> None:
    """Prepare the call just made (int seed and stream, ``counter`` a CuPy uint64
    array) under its :func:`repeat` key."""
    global _CUR
    _CUR = (cp.ndarray, cp.cuda.get_current_stream)
    key = (kind, counter.shape, counter.strides, counter.dtype, counter.data.device_id, dev,
           stream_ptr)
    _CALLS.prepare(key, partial(_run, cp, prep, counter.shape, nout), cp)


def repeat(kind, seed, stream, counter):
    """The result of the pure function ``kind`` (uniform, uniform2, normal, normal2)
    prepared before with the same key, else None (a miss: the checked path runs).

    A hit needs ``seed`` and ``stream`` of type ``int`` with values in [0, 2**64) (an
    out-of-range value misses, so the checked path raises its error) and ``counter`` a
    CuPy array (exactly ``GATE.nd``) of a layout and dtype prepared before.
    """
    nd = GATE.nd
    if (type(counter) is not nd or _CUR[0] is not nd or type(seed) is not int
            or type(stream) is not int):
        return None
    if not (0 <= seed < _U64_LIMIT and 0 <= stream < _U64_LIMIT):
        return None
    stream_ptr = _CUR[1]().ptr
    run = _CALLS.get((kind, counter.shape, counter.strides, counter.dtype,
                      counter.data.device_id, GATE.getdev(), stream_ptr))
    if run is None:
        return None
    return run(seed, stream, counter, stream_ptr)


def pairs(kind, seed, stream, start, n):
    """The generator's stream on the device; see :func:`xstride._host.philox.pairs`.

    ``kind`` is ``"uniform"`` or ``"normal"``; ``seed``, ``stream``, ``start`` ints.
    Returns a new float64 CuPy array (n,) (16-byte aligned: elements ``2j, 2j + 1`` of
    counter ``start + j`` are written by one store).
    """
    cp = _cupy()
    out = cp.empty(n, dtype=cp.float64)
    if n:
        key = ("pairs", kind, n, cp.cuda.runtime.getDevice())
        launch = _LAUNCHES.get(key)
        if launch is None:
            name, unroll = _PAIRS[kind]
            fn = kernel(name, SOURCE_FILE)
            # out0, out1 (the same), n, seed, stream, counter address (not read), start
            args = [slot64(), slot64(), i64(n), slot64(), slot64(), slot64(), slot64()]
            grid = _fast_grid(sm_count(), (n + 1) // 2, unroll)
            launch = _LAUNCHES.put(key, Launch(fn, (grid,), (_BLOCK,), args))
        o = out.data.ptr
        launch(o, o, seed, stream, o, start)
    return out


def _rejection_room(n: int, thresh: int) -> int:
    """Room for the first round's rejected indices: four times their expected count
    (each of two candidates is rejected with probability ``thresh / 2**64``) and 1024."""
    p = thresh / 2.0**64
    return min(n, 1024 + int(4 * n * p * p))


def integers_first(seed, stream, start, n, r, thresh):
    """``Philox.integers``' first round on the device: ``(values uint64 (n,), rejected
    int64 indices in increasing order)`` for counters ``start .. start + n - 1`` (the
    caller checked that they exist; ``r`` is ``high - low``, 2**64 for the full range,
    ``thresh`` Lemire's threshold). A rejected element's value is left unwritten; the
    generator's array rounds take those. One kernel (``xstride_philox_integers_first``)
    and one read of the rejections' count; the rejected indices are kept in a buffer of
    :func:`_rejection_room`, or the kernel runs again with room for all of them."""
    cp = _cupy()
    out = cp.empty(n, dtype=cp.uint64)
    if n == 0:
        return out, cp.empty(0, dtype=cp.int64)
    full = r >= 1 << 64
    cap = _rejection_room(n, 0 if full else thresh)
    fn = kernel("xstride_philox_integers_first", SOURCE_FILE)
    grid = (_grid(sm_count(), n),)
    while True:
        rej = cp.empty(cap, dtype=cp.int64)
        count = cp.zeros(1, dtype=cp.uint64)
        Launch(fn, grid, (_BLOCK,),
               [u64(out.data.ptr), i64(n), u64(seed), u64(stream), u64(start),
                u64(0 if full else r), u64(thresh), i32(int(full)), u64(rej.data.ptr),
                i64(cap), u64(count.data.ptr)])()
        m = int(count.get()[0])
        if m <= cap:
            return out, cp.sort(rej[:m])
        cap = m   # more than the room made: the same draws again, room for every one


def uniform(seed, stream, counter, shape):
    """Device uniforms; see :func:`xstride.rng.philox_uniform`."""
    return _real("uniform", seed, stream, counter, shape)


def uniform2(seed, stream, counter, shape):
    """Device uniform pairs; see :func:`xstride.rng.philox_uniform2`."""
    return _real("uniform2", seed, stream, counter, shape)


def normal(seed, stream, counter, shape):
    """Device normals; see :func:`xstride.rng.philox_normal`."""
    return _real("normal", seed, stream, counter, shape)


def normal2(seed, stream, counter, shape):
    """Device normal pairs; see :func:`xstride.rng.philox_normal2`."""
    return _real("normal2", seed, stream, counter, shape)


def words(counter_words, key0, key1, shape):
    """Device Philox4x32-10 block function; see :func:`xstride.rng.philox4x32_10`.

    The four counter words are read as four arguments of the general kernel: column
    ``j`` of ``counter_words`` starts ``j`` last-axis strides past its first element.
    """
    cp = _cupy()
    named = (("counter_words", counter_words), ("key0", key0), ("key1", key1))
    check_devices("philox4x32_10", named, cp)
    _check_whole_elements("philox4x32_10", named)
    n = math.prod(shape)
    out = cp.empty(shape + (4,), dtype=cp.uint32)
    if n:
        stream_ptr = cp.cuda.get_current_stream().ptr
        key = ("words", shape, _sig(counter_words), _sig(key0), _sig(key1),
               cp.cuda.runtime.getDevice(), stream_ptr)
        prep = _LAUNCHES.get(key)
        if prep is None:
            cw = counter_words
            col = (tuple(cw.shape[:-1]), tuple(s // cw.itemsize for s in cw.strides[:-1]))
            tail, geo = _general_args(cp, [col] * 4 + [_src(key0), _src(key1)], shape)
            fn = kernel(_KERNELS["words"], SOURCE_FILE)
            launch = Launch(fn, (_grid(sm_count(), n),), (_BLOCK,), [slot64(), i64(n)] + tail)
            prep = _LAUNCHES.put(key, _Prepared(launch, False, geo))
        o = out.data.ptr
        base, step = counter_words.data.ptr, counter_words.strides[-1]
        prep.launch(o, base, 0, base + step, 0, base + 2 * step, 0, base + 3 * step, 0,
                    *_pair(key0, o), *_pair(key1, o), stream_ptr=stream_ptr)
    return out
