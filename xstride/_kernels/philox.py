"""CuPy launcher of Philox4x32-10 (device executor of :mod:`xstride.rng`).

The kernels include ``xstride/random.cuh`` (the same header users get), loop over the
output with a grid-stride loop and 64-bit indices, and read each argument in one of
three ways, chosen on the host per argument:

* ``0`` scalar: the value is passed by value (Python ints);
* ``1`` linear: element ``i`` is ``p[i * lin]`` (a dense array of the output's shape,
  ``lin = 1``; a size-1 array, ``lin = 0``; counter words of a dense (..., 4) array,
  ``lin = 4``);
* ``3`` affine: ``value + i`` (the counters of :class:`xstride.rng.Philox`);
* ``2`` strided: the flat index is unravelled over the broadcast shape and dotted with
  the argument's element strides (0 on broadcast axes), so broadcasting never
  materialises a full-size copy.

Arguments arrive checked and converted by :mod:`xstride.rng` (Python ints, or CuPy
``uint64`` arrays; ``uint32`` for the raw counter words and keys).
"""

from __future__ import annotations

import math

import numpy as np

from ._cupy import cupy as _cupy
from .._host.philox import Affine
from ._compile import function

__all__ = ["uniform", "uniform2", "normal", "normal2", "words", "pairs", "SOURCE_FILE", "plan"]

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


def _bcast_strides(arr_shape, arr_strides_el, shape):
    """Element strides of an array broadcast to ``shape`` (0 on new and size-1 axes)."""
    nd = len(shape)
    out = [0] * nd
    off = nd - len(arr_shape)
    for d, (ext, st) in enumerate(zip(arr_shape, arr_strides_el)):
        out[off + d] = 0 if ext == 1 else st
    return out


def plan(sources, shape):
    """How the kernel reads each argument.

    Parameters
    ----------
    sources : list of int, Affine or (shape, element strides) pairs
        Each argument: a Python int, an :class:`Affine` counter, or the shape and
        element strides of an array that broadcasts to ``shape``.
    shape : tuple of int
        The output shape.

    Returns
    -------
    modes : list of (mode, scalar value, lin)
    geo : list of int
        ``dims`` followed by one stride vector per argument (all zeros for
        arguments that are not strided); empty when no argument is strided.
    """
    nd = len(shape)
    compact = [0] * nd
    acc = 1
    for d in range(nd - 1, -1, -1):
        compact[d] = acc
        acc *= shape[d]
    modes, strides, any_strided = [], [], False
    for src in sources:
        if isinstance(src, Affine):
            modes.append((3, src.start, 0))
            strides.append([0] * nd)
            continue
        if isinstance(src, int):
            modes.append((0, src, 0))
            strides.append([0] * nd)
            continue
        st = _bcast_strides(*src, shape)
        lin = None
        for d in range(nd):
            if not any(st):  # one element, broadcast everywhere
                break
            if shape[d] == 1:
                continue
            ratio, rem = divmod(st[d], compact[d]) if st[d] else (0, 0)
            if rem or (lin is not None and ratio != lin) or (st[d] == 0):
                lin = False
                break
            lin = ratio
        if lin is None:  # every axis has extent 1 (or none): one element
            modes.append((1, 0, 0))
            strides.append([0] * nd)
        elif lin is False:
            modes.append((2, 0, 0))
            strides.append(st)
            any_strided = True
        else:
            modes.append((1, 0, lin))
            strides.append([0] * nd)
    if not any_strided:
        return modes, []
    geo = list(shape)
    for st in strides:
        geo += st
    return modes, geo


def grid2(sources, shape):
    """The R x C view of the grid kernels, or None when the broadcast does not fold to
    two axes.

    ``sources`` as in :func:`plan` (Affine counters are not taken). Axes of extent 1
    are dropped; neighbouring axes ``d, d + 1`` merge when every array argument has
    ``stride[d] == stride[d + 1] * shape[d + 1]`` (broadcast axes: both 0). Returns
    ``(R, C, [(row stride, column stride) or None per source])``.
    """
    if any(isinstance(s, Affine) for s in sources):
        return None
    arrays = [None if isinstance(s, int) else _bcast_strides(*s, shape) for s in sources]
    axes = [d for d in range(len(shape)) if shape[d] != 1]
    dims = [shape[d] for d in axes]
    sts = [None if a is None else [a[d] for d in axes] for a in arrays]
    k = len(dims) - 1
    while k > 0:
        if all(st is None or st[k - 1] == st[k] * dims[k] for st in sts):
            dims[k - 1] *= dims[k]
            del dims[k]
            for st in sts:
                if st is not None:
                    del st[k - 1]
        k -= 1
    if len(dims) > 2:
        return None
    while len(dims) < 2:
        dims.insert(0, 1)
        for st in sts:
            if st is not None:
                st.insert(0, 0)
    return dims[0], dims[1], [None if st is None else (st[0], st[1]) for st in sts]


def _grid(cp, n):
    dev = cp.cuda.Device()
    sms = dev.attributes["MultiProcessorCount"]
    return max(1, min(-(-n // _BLOCK), sms * 16))


def _fast_grid(cp, items, unroll):
    sms = cp.cuda.Device().attributes["MultiProcessorCount"]
    return max(1, min(-(-items // (_BLOCK * unroll)), sms * 64))


#: Counters per thread and loop step of the generator's pair kernels (compiled: 1, 4
#: for uniforms; 1, 2 for normals), chosen by benchmarks/rng.py on the H200 (2**28
#: values: uniforms 0.513 ms unroll 1 vs 0.578 ms unroll 4; normals 1.470 vs 1.458 ms).
PAIRS_UNROLL = {"uniform": 1, "normal": 2}
_PAIRS = {("uniform", 1): "xstride_philox_upairs_u1", ("uniform", 4): "xstride_philox_upairs_u4",
          ("normal", 1): "xstride_philox_npairs_u1", ("normal", 2): "xstride_philox_npairs_u2"}
_FAST_UNROLL = {"uniform": 4, "uniform2": 4, "normal": 2, "normal2": 2}


def _args(cp, values, shape, ctype):
    """Kernel arguments for the sources plus ``(ndim, geo)``."""
    srcs = []
    for v in values:
        if isinstance(v, (int, Affine)):
            srcs.append(v)
        else:
            srcs.append((tuple(v.shape), tuple(s // v.itemsize for s in v.strides)))
    modes, geo = plan(srcs, shape)
    dummy = cp.zeros(1, dtype=ctype)
    out = []
    for v, (mode, scalar, lin) in zip(values, modes):
        ptr = dummy if mode in (0, 3) else v
        out += [ptr, ctype(scalar) if ctype is np.uint32 else np.uint64(scalar),
                np.int64(lin), np.int32(mode)]
    # the scalar slot is unsigned long long for uint64 sources, unsigned int for uint32
    if geo:
        out += [np.int32(len(shape)), cp.asarray(np.array(geo, dtype=np.int64))]
    else:
        out += [np.int32(0), cp.zeros(1, dtype=cp.int64)]
    return out


def _fast_counter(counter, shape):
    """``(cm, pointer or None, start)`` when the fast kernels can read ``counter``, else None."""
    if isinstance(counter, Affine):
        return 3, None, counter.start
    if isinstance(counter, int):
        return None
    (mode, _, lin), = plan([(tuple(counter.shape),
                             tuple(s // counter.itemsize for s in counter.strides))], shape)[0]
    if mode == 1 and lin == 1:
        return 1, counter, 0
    return None


def _real(kind, seed, stream, counter, shape, fast=True):
    """``kind`` on the device. ``fast=False`` (tests, benchmarks/rng.py) forces the
    general kernel where the fast or grid kernels would run."""
    cp = _cupy()
    n = math.prod(shape)
    nout = 2 if kind in ("uniform2", "normal2") else 1
    outs = [cp.empty(shape, dtype=cp.float64) for _ in range(nout)]
    if n:
        o1 = outs[1] if nout == 2 else outs[0]
        fc = None
        if fast and isinstance(seed, int) and isinstance(stream, int):
            fc = _fast_counter(counter, shape)
        g2 = None
        if fc is None and fast:
            g2 = grid2([v if isinstance(v, (int, Affine)) else
                        (tuple(v.shape), tuple(st // v.itemsize for st in v.strides))
                        for v in (seed, stream, counter)], shape)
        if g2 is not None:
            R, C, sts = g2
            args = []
            for v, st in zip((seed, stream, counter), sts):
                if st is None:
                    args += [outs[0], np.uint64(v), np.int64(0), np.int64(0), np.int32(0)]
                else:
                    args += [v, np.uint64(0), np.int64(st[0]), np.int64(st[1]), np.int32(1)]
            fn = function(f"xstride_philox_{kind}_g2", file=SOURCE_FILE)
            # a block of bx x by threads: bx covers a row's columns (4 per thread) up
            # to 256, by rows share the block when rows are short
            bx = min(_BLOCK, max(32, -(-C // 128) * 32))
            by = _BLOCK // bx
            gx = max(1, min(-(-C // (4 * bx)), 1024))
            sms = cp.cuda.Device().attributes["MultiProcessorCount"]
            gy = max(1, min(-(-R // by), 65535, -(-sms * 32 // gx)))
            fn((gx, gy), (bx, by), (outs[0], o1, np.int64(R), np.int64(C), *args))
        elif fc is not None:
            cm, ptr, start = fc
            unroll = _FAST_UNROLL[kind]
            fn = function(f"xstride_philox_{kind}_f{cm}", file=SOURCE_FILE)
            if ptr is None:
                ptr = outs[0]  # never read (CM 3)
            fn((_fast_grid(cp, n, unroll),), (_BLOCK,),
               (outs[0], o1, np.int64(n), np.uint64(seed), np.uint64(stream), ptr,
                np.uint64(start)))
        else:
            fn = function(_KERNELS[kind], file=SOURCE_FILE)
            args = _args(cp, [seed, stream, counter], shape, np.uint64)
            fn((_grid(cp, n),), (_BLOCK,), (outs[0], o1, np.int64(n), *args))
    return outs[0] if nout == 1 else tuple(outs)


def pairs(kind, seed, stream, start, n, unroll=None):
    """The generator's stream on the device; see :func:`xstride._host.philox.pairs`.

    ``kind`` is ``"uniform"`` or ``"normal"``; ``seed``, ``stream``, ``start`` ints.
    Returns a new float64 CuPy array (n,) (16-byte aligned: elements ``2j, 2j + 1`` of
    counter ``start + j`` are written by one store).
    """
    cp = _cupy()
    out = cp.empty(n, dtype=cp.float64)
    if n:
        unroll = PAIRS_UNROLL[kind] if unroll is None else unroll
        fn = function(_PAIRS[kind, unroll], file=SOURCE_FILE)
        m = (n + 1) // 2
        fn((_fast_grid(cp, m, unroll),), (_BLOCK,),
           (out, out, np.int64(n), np.uint64(seed), np.uint64(stream), out, np.uint64(start)))
    return out


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
    """Device Philox4x32-10 block function; see :func:`xstride.rng.philox4x32_10`."""
    cp = _cupy()
    n = math.prod(shape)
    out = cp.empty(shape + (4,), dtype=cp.uint32)
    if n:
        if isinstance(counter_words, int):  # pragma: no cover - rng passes arrays
            counter_words = cp.full((4,), counter_words, dtype=cp.uint32)
        cols = [counter_words[..., j] for j in range(4)]
        fn = function(_KERNELS["words"], file=SOURCE_FILE)
        args = _args(cp, cols + [key0, key1], shape, np.uint32)
        fn((_grid(cp, n),), (_BLOCK,), (out, np.int64(n), *args))
    return out
