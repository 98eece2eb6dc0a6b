"""The demo's first GPU stage: every later stage's calls on stand-in arrays, side by side
(:func:`xstride.cuda.compile_ahead`), so that their kernels compile at the same time.

The stages depend on each other's results (keys from the box, the sort from the keys,
...), so run as they come each waits for its own compiles; on the H200 host the bunny
demo with empty caches spent 2.9 s of its 4.1 s compiling 24 kernels that way (docs/
performance.md). The stand-ins have the dtypes, shapes and layouts of the arrays the
stages will see; where a size is known only once a stage has run (the occupied cells,
whose count picks a one-block or a split reduction), both size classes are warmed.
A kernel that a stage still compiles (a stand-in that missed its variant) is counted in
that stage, as before.
"""

from __future__ import annotations

import numpy as np

from . import demo_tree

__all__ = ["calls", "THREADS"]

#: Calls run at once. Bunny demo on the H200 host (16 CPUs), 2026-12-02, empty caches:
#: with the stages' chains of compiles (CuPy's kernels behind xstride's) 8 threads took
#: 2.36-2.74 s of process wall time, 12 2.61-2.82; with each kernel a call of its own
#: (16:55 UTC, three runs each, alternating) 12 threads 2.12-2.30 s, 8 threads 2.20-2.67;
#: with filled caches the stage loads its 28 kernels in 0.15-0.17 s on either.
THREADS = 12

#: Largest reduction done by one block (``_kernels._geometry``: a chunk of 4096
#: elements): the occupied cells' counts below it and above it take different kernels.
_ONE_BLOCK = 4096


def calls(xp, alg, am, be, pos, ndim: int, levels: int, k_level: int, voxel=None) -> list:
    """Functions of no arguments, one a stage's call (or a few that compile nothing
    new together), on stand-ins shaped like the real inputs; ``pos`` itself is read
    (never written) where a stage reads it."""
    n = int(pos.shape[0])
    bits = ndim * levels
    # sorted keys in [0, 2**bits) with many distinct cells (as real keys have): 0..n-1,
    # each repeated where there are more points than keys; made on the host, so that
    # no CuPy kernel compiles for it alone
    host = np.arange(n, dtype=np.uint64)
    if n > 1 << bits:
        host //= np.uint64(-(-n // (1 << bits)))
    keys = be.asarray(host)
    order = be.asarray(np.arange(n, dtype=np.int64))
    zeros = am.zeros(pos.shape, dtype=pos.dtype)
    shift = ndim * (levels - k_level)
    cells = min(n, 1 << (ndim * k_level))            # most occupied cells there can be
    sizes = sorted({min(cells, _ONE_BLOCK), cells})
    counts = [be.asarray(np.ones(m, dtype=np.int64)) for m in sizes]
    # the calls whose kernels compile one after another first (compile_ahead starts
    # them in this order): the sort's passes, the tree's family, the voxels' chain;
    # then CuPy's own kernels that the stages' calls reach only after xstride's (the
    # sort's gather, the occupancy's shift, the checks' comparisons) and xstride's that
    # wait for them (the runs of the shifted keys, the checks' `all`), each alone so
    # that no compile waits for another
    checks = am.zeros(pos.shape, dtype=am.bool_)
    out = [
        lambda: alg.sort_by_key(keys, pos, key_bits=bits),
        lambda: demo_tree.tree_rows(alg, am, be.to_host, keys, ndim, levels),
    ]
    if voxel is not None:
        out.append(lambda: _voxels(alg, am, be, pos, voxel))
    out += [
        lambda: am.take(pos, order, axis=0),
        lambda: pos[order],
        lambda: am.right_shift(keys, shift),
        lambda: am.equal(pos, pos),
        lambda: am.greater_equal(keys[1:], keys[:-1]),
        lambda: alg.run_length_encode(keys),
        lambda: xp.all(checks),
        lambda: alg.morton_keys(zeros, [0.0] * ndim, [1.0] * ndim, levels),
        lambda: xp.min(pos, axis=0),
        lambda: xp.max(pos, axis=0),
    ]
    for c in counts:
        out += [lambda c=c: xp.min(c), lambda c=c: xp.max(c), lambda c=c: xp.sum(c)]
    return out


def _voxels(alg, am, be, pos, voxel) -> None:
    """The voxel stage's calls; a voxel size the stage refuses compiles nothing here
    (the stage itself says why)."""
    try:
        _, counts = alg.voxel_downsample(pos, voxel)
    except ValueError:
        return
    demo_tree.voxel_stats(am, be.to_host, voxel, counts, int(pos.shape[0]),
                          demo_tree.device_sort(alg))
