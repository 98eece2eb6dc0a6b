"""NumPy executor of ``morton_tree`` (``xstride.algorithms.tree``).

The same two steps as the CuPy executor (``xstride/_kernels/tree.py``): the checks
(:func:`morton_tree`: the first descent of the keys, their first and last key), then
:meth:`TreeBuild.build` once the public function has accepted them. The finest level
is the run-length encoding of the keys; level ``l - 1`` comes from level ``l`` by
shifting its keys right by ``ndim`` bits and keeping the first node of each run
(stream compaction), the parent of a node being the number of runs that start at or
before it, minus one (a prefix sum). Plain NumPy calls on the arrays: no
``array_api_compat`` namespace, whose clone of NumPy costs a fresh process 60-70 ms
(docs/performance.md, "A fresh process on the host").
"""

from __future__ import annotations

import numpy as np

from .segments import first_unsorted, runs

__all__ = ["TreeBuild", "morton_tree"]


class TreeBuild:
    """The checks of one tree build over 1-D NumPy integer keys, and its build.

    Attributes
    ----------
    n : int
        Number of keys.
    unsorted : int
        The first position ``i`` with ``keys[i] < keys[i - 1]``, or -1.
    lowest, highest : int or None
        ``keys[0]`` and ``keys[-1]`` as Python ints (None for no keys).
    """

    def __init__(self, keys: np.ndarray, ndim: int, levels: int):
        self._keys, self._ndim, self._levels = keys, ndim, levels
        n = self.n = int(keys.shape[0])
        self.unsorted = first_unsorted(keys) if n > 1 else -1
        self.lowest, self.highest = (int(keys[0]), int(keys[-1])) if n else (None, None)

    def build(self) -> tuple:
        """``(keys, first, count, parent)``: tuples of ``levels + 1`` arrays, level ``l``
        of shape ``(m_l,)`` (uint64, int64, int64, int64), root first. Call only after
        the checks passed (sorted, non-negative, narrow enough keys)."""
        n, lv = self.n, self._levels
        if n == 0:
            empty_u = np.empty(0, dtype=np.uint64)
            empty_i = np.empty(0, dtype=np.int64)
            per = lv + 1
            return (empty_u,) * per, (empty_i,) * per, (empty_i,) * per, (empty_i,) * per
        # non-negative keys of any integer dtype: uint64 without a copy for uint64
        u = self._keys.astype(np.uint64, copy=False)
        _, offsets, keys, _, counts = runs(u, False, lengths=True)
        firsts = offsets[:-1]
        out_keys, out_first, out_count, out_parent = [keys], [firsts], [counts], []
        step = np.uint64(self._ndim)
        for _ in range(lv):
            shifted = keys >> step
            m = shifted.shape[0]
            start = np.empty(m, dtype=np.bool_)
            start[0] = True
            np.not_equal(shifted[1:], shifted[:-1], out=start[1:])
            parent = np.cumsum(start, dtype=np.int64)
            parent -= 1
            out_parent.append(parent)
            rows = np.flatnonzero(start)
            keys, firsts = shifted[rows], firsts[rows]
            count = np.empty_like(firsts)
            np.subtract(firsts[1:], firsts[:-1], out=count[:-1])
            count[-1] = n - firsts[-1]
            out_keys.append(keys)
            out_first.append(firsts)
            out_count.append(count)
        out_parent.append(np.full(1, -1, dtype=np.int64))  # the root
        return (tuple(reversed(out_keys)), tuple(reversed(out_first)),
                tuple(reversed(out_count)), tuple(reversed(out_parent)))


def morton_tree(keys: np.ndarray, ndim: int, levels: int) -> TreeBuild:
    """The checks of a tree build over checked 1-D NumPy integer keys
    (:class:`TreeBuild`; the first descent is found block by block, stopping at the
    first block that holds one)."""
    return TreeBuild(keys, ndim, levels)
