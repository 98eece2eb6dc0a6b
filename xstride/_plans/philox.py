"""Counter plans of Philox4x32-10: what both executors of :mod:`xstride.rng` read.

Pure Python (no NumPy, no CuPy): descriptions of how each argument of a Philox call
(seed, stream, counter; for the raw block function the counter words and keys) maps a
flat output index to the value it reads, computed from shapes and element strides
alone. The host executor (:mod:`xstride._host.philox`) and the CUDA executor
(:mod:`xstride._kernels.philox`) both take :class:`Affine` counters from here; the CUDA
executor turns :func:`plan` and :func:`grid2` into kernel arguments. Nothing here
decides a grid, a block or a kernel.

Read modes of :func:`plan`, per argument:

* ``0`` scalar: a Python int, the same value for every element;
* ``1`` linear: element ``i`` is ``p[i * lin]`` (a dense array of the output's shape,
  ``lin = 1``; a size-1 array, ``lin = 0``; counter words of a dense (..., 4) array,
  ``lin = 4``);
* ``2`` strided: the flat index is unravelled over the broadcast shape and dotted with
  the argument's element strides (0 on broadcast axes), so a broadcast is never
  materialised;
* ``3`` affine: ``start + i`` (the counters of the generator, :class:`Affine`).
"""

from __future__ import annotations

__all__ = ["Affine", "bcast_strides", "plan", "grid2", "mul_hi_lo", "M32"]


class Affine:
    """Counter argument ``start + i`` for flat output index ``i`` (never materialised).

    Used by :class:`xstride.rng.Philox` (the generator's stream) and by the
    executors' tests; ``start + size`` must not pass ``2**64``.
    """

    __slots__ = ("start",)

    def __init__(self, start: int):
        self.start = int(start)

    def __repr__(self):
        return f"Affine({self.start})"


def bcast_strides(arr_shape, arr_strides_el, shape):
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
        st = bcast_strides(*src, shape)
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
    arrays = [None if isinstance(s, int) else bcast_strides(*s, shape) for s in sources]
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


#: The low 32 bits of a 64-bit word.
M32 = 0xFFFFFFFF


def mul_hi_lo(xp, x, r):
    """High and low 64 bits of ``x * r`` (uint64 array times a Python int < 2**64).

    ``xp`` is the array module of ``x`` (NumPy, CuPy): the generator's integers
    (Lemire's multiply-and-reject) on every backend use this one definition.
    """
    u = xp.uint64
    m = u(M32)
    s32 = u(32)
    xl, xh = x & m, x >> s32
    rl, rh = u(r & M32), u(r >> 32)
    ll, lh, hl, hh = xl * rl, xl * rh, xh * rl, xh * rh
    mid = (ll >> s32) + (lh & m) + (hl & m)
    lo = (mid << s32) | (ll & m)
    hi = hh + (lh >> s32) + (hl >> s32) + (mid >> s32)
    return hi, lo
