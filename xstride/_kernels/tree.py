"""CuPy executor of ``morton_tree`` (``tree.cu``): every level of the tree in four launches.

Arguments arrive checked by :mod:`xstride.algorithms.tree` (a 1-D CuPy array of an
integer dtype, ``ndim`` 2 or 3, ``levels`` in range). :func:`morton_tree` launches the
count pass and the scan of the tile counts, then reads one small record back (the
first unsorted position, the first and last keys, the node count of each level): the
caller raises its errors from it before :meth:`TreeBuild.build` allocates the outputs
and launches the build and count passes, which read nothing back. No CuPy library
kernel runs: a first call compiles the four kernels of ``tree.cu`` it launches, side by
side (:func:`~xstride._kernels._compile.family_function`).

The outputs are four flat buffers (keys, first, count, parent), level ``l`` at offset
``m_0 + ... + m_{l-1}``; the tree's per-level arrays are views (slices) of them.
"""

from __future__ import annotations

from ._compile import family_function, on_request
from ._cupy import cupy as _cupy
from ._devices import check as check_devices
from ._launch import Launch, i32, i64, slot64
from ._lru import Bounded
from .._core.dtypes import C_TYPES

__all__ = ["morton_tree", "TreeBuild", "kernel_family", "TILE", "REC_NODES"]

_SOURCE = "tree.cu"
_THREADS = 256             # XS_TREE_THREADS
TILE = _THREADS * 8        # XS_TREE_TILE: points per block of the count and build passes
_SCAN_THREADS = 1024
_COUNT_THREADS = 256
_MAX_BLOCKS = 1 << 20      # grid of the grid-stride count pass
REC_NODES = 3              # XS_TREE_REC_NODES: rec = [unsorted, k[0], k[n-1], m_0..m_levels]
_NONE = (1 << 64) - 1      # the unsorted word when every key is in order

#: (kernel expression, grid, fixed arguments, device) -> Launch
_LAUNCHES = Bounded(64)
_SLOT = type(slot64())


def kernel_family(dtype_name: str) -> tuple:
    """The name expressions of the module for keys of ``dtype_name`` (an integer dtype):
    every kernel a tree build launches (compiled side by side)."""
    kt = C_TYPES[dtype_name]
    return (f"xs_tree_count<{kt}>", on_request("xs_tree_scan"), f"xs_tree_build<{kt}>",
            on_request("xs_tree_counts"))


def _launch(expr: str, family: tuple, grid: int, block: int, args: list, slots: list) -> None:
    """Launch ``expr`` (of the module ``family``) with the packed ``args`` (fixed values
    and :func:`slot64` device addresses, in kernel order), the slots set to ``slots``."""
    fixed = tuple(None if isinstance(a, _SLOT) else (type(a).__name__, a.value) for a in args)
    key = (expr, family, grid, block, fixed, _cupy().cuda.runtime.getDevice())
    prepared = _LAUNCHES.get(key)
    if prepared is None:
        kernel = family_function(expr, file=_SOURCE, family=family)
        prepared = _LAUNCHES.put(key, Launch(kernel, (grid,), (block,), args))
    prepared(*slots)


def _tiles(n: int) -> int:
    return -(-n // TILE)


def _key_view(keys):
    """``(keys, stride in elements)``: any stride that is a whole number of elements is
    read as it is (a copy otherwise)."""
    stride = int(keys.strides[0])
    if stride % keys.dtype.itemsize:
        keys = _cupy().ascontiguousarray(keys)
        stride = keys.dtype.itemsize
    return keys, stride // keys.dtype.itemsize


def _signed(v: int) -> int:
    return v - (1 << 64) if v >= 1 << 63 else v


class TreeBuild:
    """The checks of one tree build and the means to finish it.

    Attributes
    ----------
    unsorted : int
        The first position ``i`` with ``keys[i] < keys[i - 1]``, or -1.
    lowest, highest : int or None
        ``keys[0]`` and ``keys[-1]`` as Python ints (None for no keys).
    nodes : list of int
        ``m_l``, the occupied nodes of levels 0..levels (meaningful for sorted keys).
    """

    def __init__(self, keys, stride: int, ndim: int, levels: int, rec=None, scratch=None):
        self._keys, self._stride, self._ndim, self._levels = keys, stride, ndim, levels
        self._scratch = scratch
        n = int(keys.shape[0])
        self.n = n
        if rec is None:
            self.unsorted, self.lowest, self.highest = -1, None, None
            self.nodes = [0] * (levels + 1)
            return
        signed = keys.dtype.kind == "i"
        conv = _signed if signed else int
        self.unsorted = -1 if rec[0] == _NONE else rec[0]
        self.lowest, self.highest = conv(rec[1]), conv(rec[2])
        self.nodes = list(rec[REC_NODES:REC_NODES + levels + 1])

    def build(self) -> tuple:
        """``(keys, first, count, parent)``: tuples of ``levels + 1`` arrays, level ``l``
        of shape ``(m_l,)`` (uint64, int64, int64, int64), views of four flat buffers.
        Call only after the checks passed (sorted, non-negative, narrow enough keys)."""
        cupy = _cupy()
        total = sum(self.nodes)
        okeys = cupy.empty(total, dtype=cupy.uint64)
        ofirst = cupy.empty(total, dtype=cupy.int64)
        ocount = cupy.empty(total, dtype=cupy.int64)
        oparent = cupy.empty(total, dtype=cupy.int64)
        if self.n:
            k, n, lv = self._keys, self.n, self._levels
            family = kernel_family(k.dtype.name)
            n_tiles = _tiles(n)
            scratch = self._scratch.data.ptr
            # keys, stride, n, ndim, levels, n_tiles, offsets, rec, okeys, ofirst, oparent
            _launch(family[2], family, n_tiles, _THREADS,
                    [slot64(), i64(self._stride), i64(n), i32(self._ndim), i32(lv),
                     i64(n_tiles), slot64(), slot64(), slot64(), slot64(), slot64()],
                    [k.data.ptr, scratch + 8 * _rec_words(lv), scratch, okeys.data.ptr,
                     ofirst.data.ptr, oparent.data.ptr])
            grid = max(1, min(_MAX_BLOCKS, -(-total // _COUNT_THREADS)))
            # first, total, n, count
            _launch(family[3], family, grid, _COUNT_THREADS,
                    [slot64(), i64(total), i64(n), slot64()],
                    [ofirst.data.ptr, ocount.data.ptr])
        self._scratch = None
        cuts = [0]
        for m in self.nodes:
            cuts.append(cuts[-1] + m)
        per = range(len(self.nodes))
        return tuple(tuple(a[cuts[l]:cuts[l + 1]] for l in per)
                     for a in (okeys, ofirst, ocount, oparent))


def _rec_words(levels: int) -> int:
    return REC_NODES + levels + 1


def morton_tree(keys, ndim: int, levels: int) -> TreeBuild:
    """The count pass and the scan of a tree build over checked 1-D CuPy integer keys,
    and the record they leave, read back in one copy (:class:`TreeBuild`; nothing is
    launched for no keys)."""
    cupy = _cupy()
    check_devices("morton_tree", (("sorted_keys", keys),), cupy)
    k, stride = _key_view(keys)
    n = int(k.shape[0])
    if n == 0:
        return TreeBuild(k, stride, ndim, levels)
    family = kernel_family(k.dtype.name)
    n_tiles = _tiles(n)
    words = _rec_words(levels)
    # one allocation: the record, then the tile counts [level][tile] (int64)
    scratch = cupy.empty(words + (levels + 1) * n_tiles, dtype=cupy.uint64)
    cupy.cuda.runtime.memsetAsync(scratch.data.ptr, 0xFF, 8 * words,
                                  cupy.cuda.get_current_stream().ptr)
    base = scratch.data.ptr
    counts = base + 8 * words
    # keys, stride, n, ndim, levels, n_tiles, counts, rec
    _launch(family[0], family, n_tiles, _THREADS,
            [slot64(), i64(stride), i64(n), i32(ndim), i32(levels), i64(n_tiles), slot64(),
             slot64()],
            [k.data.ptr, counts, base])
    # counts, n_tiles, rec
    _launch(family[1], family, levels + 1, _SCAN_THREADS,
            [slot64(), i64(n_tiles), slot64()], [counts, base])
    rec = [int(v) for v in scratch[:words].get().tolist()]
    return TreeBuild(k, stride, ndim, levels, rec, scratch)
