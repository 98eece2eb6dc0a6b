"""``morton_tree``: the levels of a quadtree/octree from sorted Morton keys.

For each level, the occupied nodes (their keys), the first point and point count of
each, and each node's parent: the arrays a GPU tree build starts from (Karras, "Maximizing
parallelism in the construction of BVHs, octrees, and k-d trees", HPG 2012, builds its
octree from the same sorted Morton codes). On CuPy keys it runs on xstride's own
kernels (``xstride/_kernels/tree.py`` + ``tree.cu``: every level in one pass over the
keys, four launches, one read-back); on NumPy keys on ``xstride/_host/tree.py``: the
run-length encoding of the keys (the finest level), then each coarser level from the
one below by a shift and a stream compaction. Both give the same integers. See
``docs/voxels.md``.
"""

from __future__ import annotations

import dataclasses
import numpy as np

from .. import _backends
from .._core.errors import argument_error, value_error
from ._args import (MAX_MORTON_LEVELS, _int_argument, _integer_array, _lazy_refusal, _levels,
                    _materialized)

__all__ = ["MortonTree", "morton_tree"]

_FUNC = "morton_tree"


@dataclasses.dataclass(frozen=True, eq=False)
class MortonTree:
    """The occupied nodes of every level of a Morton (Z-order) tree.

    Level ``l`` (0 = the root, ``levels`` = the finest) has ``m_l`` occupied nodes,
    in Morton order; each tuple below holds one array per level, ``levels + 1`` in
    all, on the backend of the keys the tree was built from.

    Attributes
    ----------
    ndim : int
        2 (quadtree) or 3 (octree).
    levels : int
        Depth of the keys: a key holds ``ndim * levels`` bits.
    n_points : int
        Number of keys (points) the tree was built from.
    keys : tuple of uint64 arrays, shape (m_l,)
        Node keys at level ``l``: the point keys shifted right by ``ndim * (levels -
        l)`` bits (the ``ndim * l`` high bits), strictly increasing. ``keys[0]`` is
        ``[0]`` (empty, as every level, when there are no keys).
    first : tuple of int64 arrays, shape (m_l,)
        Index, into the sorted keys, of the first point of each node.
    count : tuple of int64 arrays, shape (m_l,)
        Points per node (at least 1); each level sums to ``n_points``, and node ``j``
        holds the points ``first[l][j] : first[l][j] + count[l][j]``.
    parent : tuple of int64 arrays, shape (m_l,)
        Index of each node's parent in level ``l - 1``; ``-1`` at level 0.
        Non-decreasing: a node's children are contiguous.
    """

    ndim: int
    levels: int
    n_points: int
    keys: tuple
    first: tuple
    count: tuple
    parent: tuple

    def nodes(self, level: int) -> int:
        """Number of occupied nodes at ``level``.

        Parameters
        ----------
        level : int
            From 0 (the root) to :attr:`levels` (the finest); a Python or NumPy integer,
            not a bool.

        Returns
        -------
        int
            ``m_l``, the length of ``keys[level]`` (and of ``first``, ``count``,
            ``parent`` at that level): 1 at level 0, 0 at every level when the tree was
            built from no keys.

        Raises
        ------
        TypeError
            ``level`` not an int.
        IndexError
            ``level`` outside ``0..levels`` (no negative indexing).
        """
        func = "MortonTree.nodes"
        lv = _int_argument(func, "level", level, f"an int in 0..{self.levels}")
        if not 0 <= lv <= self.levels:
            raise argument_error(IndexError, func, "level",
                                 f"must be in 0..{self.levels}; got {lv}")
        return int(self.keys[lv].shape[0])


def morton_tree(sorted_keys, ndim, levels) -> MortonTree:
    """Every level of the quadtree/octree of sorted Morton keys.

    Parameters
    ----------
    sorted_keys : array of shape (n,), integer dtype
        Morton keys of ``levels`` levels (as made by
        :func:`~xstride.algorithms.morton_keys` with the same ``levels``), sorted in
        non-decreasing order (:func:`~xstride.algorithms.sort_by_key`). NumPy or CuPy.
    ndim : {2, 3}
        Dimensions of the keys.
    levels : int
        Bits per axis of the keys: 1..32 in 2-D, 1..21 in 3-D.

    Returns
    -------
    MortonTree
        Levels 0..``levels``: node keys (uint64), first point and point count (int64),
        parent index (int64, -1 at the root), one array of shape (m_l,) each per level,
        on the backend of ``sorted_keys``. ``n == 0`` gives empty arrays at every level.

    Raises
    ------
    TypeError
        ``sorted_keys`` not of an integer dtype; ``ndim`` or ``levels`` not an int;
        ``sorted_keys`` that are a masked array (``numpy.ma``, a dask array of masked
        chunks, or a list holding one or ``numpy.ma.masked``): its masked elements would
        be read as values.
    NotImplementedError
        ``sorted_keys`` of a lazy backend (dask): compute them first; a list or tuple while
        dask is the active backend: pass a NumPy or CuPy array. Raised before any other
        argument is checked.
    ValueError
        ``sorted_keys`` not 1-D, negative, not sorted (the message names the first
        position ``i`` with ``sorted_keys[i] < sorted_keys[i - 1]``), or with a key of
        more than ``ndim * levels`` bits; ``ndim`` not 2 or 3; ``levels`` out of range.
        The checks run on the keys' device and read back a few scalars, never the keys.
    MemoryError
        An array argument that is a broadcast view (a byte stride of 0) larger than
        memory: such views are copied first, and the copy's error names the
        argument and its size.

    Notes
    -----
    Point ``i`` of the sorted keys starts a node of level ``l`` exactly when its level-``l``
    key (``key >> ndim * (levels - l)``) differs from that of point ``i - 1``; node ``p``
    of level ``l`` is the ``p``-th such point, and its count is the distance to the
    next node's first point. On CuPy keys each point's *start level*, the coarsest
    level at which it starts a node (from the highest bit in which its key differs
    from the previous one), is computed once, and every level is written from it in
    one pass over tiles of the keys: a count pass (per tile and level, also the
    checks), a scan of the tile counts per level, one read-back of the checks and the
    node counts, a build pass (each node's key, first point and parent, from its rank
    among the tile's starting points, level by level) and a count pass; the arrays of
    each level are views of four flat buffers (Karras, HPG 2012, derives an octree's
    nodes from the same highest differing bits). On NumPy keys the finest level is
    the run-length encoding of the keys, and level ``l - 1`` comes from level ``l`` by
    shifting its keys right by ``ndim`` bits and keeping the first node of each run
    (stream compaction); the parent of a node is the number of runs that start at or
    before it, minus one (a prefix sum). Every result is an integer: equal on every
    backend.

    Examples
    --------
    >>> import numpy as np
    >>> import xstride as xp
    >>> t = xp.algorithms.morton_tree(np.array([0, 1, 1, 5], dtype=np.uint64), 2, 2)
    >>> t.keys[1], t.count[1], t.parent[2]
    (array([0, 1], dtype=uint64), array([3, 1]), array([0, 0, 1]))
    """
    named = [("sorted_keys", sorted_keys)]
    backend = _backends.of(_FUNC, named)
    if backend.lazy:   # before a list becomes a dask array (the chunks option may not fit
        # it), and before ndim and levels: the one error of a backend it does not run on
        raise _lazy_refusal(_FUNC, backend, named, "compute the keys first "
                                                   "(xstride.to_numpy or .compute())")
    nd = _int_argument(_FUNC, "ndim", ndim, "2 or 3")
    if nd not in MAX_MORTON_LEVELS:
        raise value_error(_FUNC, "ndim", f"must be 2 or 3; got {nd}")
    lv = _levels(_FUNC, levels, nd)
    k = _integer_array(_FUNC, "sorted_keys", sorted_keys, backend)
    if k.ndim != 1:
        raise value_error(_FUNC, "sorted_keys", f"must be 1-D; got shape {tuple(k.shape)}")
    k = _materialized(_FUNC, "sorted_keys", k)
    n = int(k.shape[0])
    run = backend.executor("tree").morton_tree(k, nd, lv)
    if run.unsorted >= 0:
        _refuse_unsorted(backend, k, run.unsorted)
    if n:
        _check_range(run.lowest, run.highest, nd, lv)
    keys, first, count, parent = run.build()
    return MortonTree(nd, lv, n, keys, first, count, parent)


def _refuse_unsorted(backend, k, pos: int):
    """Raise the error of keys whose first descent is at ``pos`` (two keys read back)."""
    pair = np.asarray(backend.to_host(k[pos - 1:pos + 1])).tolist()
    raise value_error(_FUNC, "sorted_keys", f"is not sorted: sorted_keys[{pos}] = "
                                            f"{pair[1]} < sorted_keys[{pos - 1}] = "
                                            f"{pair[0]}; sort them first (sort_by_key)")


def _check_range(lo: int, hi: int, nd: int, lv: int) -> None:
    """Sorted keys from ``lo`` to ``hi``: non-negative, at most ``nd * lv`` bits."""
    if lo < 0:
        raise value_error(_FUNC, "sorted_keys", f"has a negative key ({lo}); Morton keys are "
                                                "non-negative")
    if hi >> (nd * lv):
        raise value_error(_FUNC, "sorted_keys", f"has key {hi}, wider than the {nd * lv} bits "
                                                f"of {nd}-D keys at levels={lv}")
