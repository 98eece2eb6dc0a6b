"""The demo's tree and voxel stages: statistics of every level of the Morton tree, the
voxel downsampling, and the downsampled cloud as a PLY file.

Each level's row holds integers and one median (a float64 mean of two integers at
most), computed the same way from the per-node point counts on every backend, so the
demo's ``--json`` output stays equal across backends. See ``docs/demo.md``.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
from pathlib import Path

import numpy as np

#: Levels of at most this many nodes are summarized on the host.
HOST_STATS_MAX = 1 << 16

__all__ = ["HOST_STATS_MAX", "device_sort", "level_row", "tree_rows", "tree_rows_from_runs",
           "voxel_stats", "write_ply", "PlyWriteError"]


class PlyWriteError(Exception):
    """The PLY file could not be written (no plyfile, a bad path): one line for the user."""


def level_row(am, level: int, counts, n_points: int, to_host=np.asarray, sort=None) -> dict:
    """Statistics of one tree level from its per-node point counts (int64, on ``am``'s
    backend): nodes, points per node (min, median, max), and the histogram of
    ``floor(log2(points per node))`` (bin ``b`` counts the nodes of ``2**b`` to
    ``2**(b + 1) - 1`` points; ``n_points.bit_length()`` bins). ``to_host``: the
    backend's copy to a NumPy array; ``sort(counts, key_bits)``: the backend's sort of
    the counts (:func:`~xstride.algorithms.sort_by_key`'s sorted keys)."""
    m = int(counts.shape[0])
    nbins = max(1, int(n_points).bit_length())
    if m == 0:
        return {"level": level, "nodes": 0, "min": 0, "median": 0.0, "max": 0,
                "histogram_log2": [0] * nbins}
    if am is np or sort is None or m <= HOST_STATS_MAX:
        # a few counts (or no device sort): copied and summarized on the host (the same
        # integers and median; a GPU run then compiles no kernels for them)
        return _host_row(level, np.asarray(to_host(counts)) if am is not np else counts,
                         nbins)
    # on the device: the counts sorted (1 <= count <= n_points < 2**nbins), then the
    # number below each power of two by a binary search; a few values read back
    srt = sort(counts, nbins)
    powers = am.asarray([1 << b for b in range(1, nbins)], dtype=am.int64)
    below = [int(v) for v in to_host(am.searchsorted(srt, powers))] if nbins > 1 else []
    edges = [0] + below + [m]
    middle = np.asarray(to_host(srt[(m - 1) // 2:m // 2 + 1]))   # one value, or two
    return {"level": level, "nodes": m, "min": int(to_host(srt[:1])[0]),
            "median": float(np.median(middle)), "max": int(to_host(srt[m - 1:])[0]),
            "histogram_log2": [edges[b + 1] - edges[b] for b in range(nbins)]}


def _host_row(level: int, counts: np.ndarray, nbins: int) -> dict:
    """:func:`level_row` of NumPy counts (at least one)."""
    # frexp: counts = f * 2**e with f in [0.5, 1), so floor(log2(counts)) = e - 1 exactly
    _, exp = np.frexp(counts.astype(np.float64))
    hist = np.bincount((exp - 1).astype(np.int64), minlength=nbins)
    return {"level": level, "nodes": int(counts.shape[0]), "min": int(counts.min()),
            "median": float(np.median(counts)), "max": int(counts.max()),
            "histogram_log2": [int(v) for v in hist]}


def device_sort(alg):
    """``sort(counts, key_bits)`` for :func:`level_row`: xstride's radix sort, whose
    kernels the demo's sort stage has compiled already (the same key and index types)."""
    return lambda counts, key_bits: alg.sort_by_key(counts, key_bits=key_bits)[0]


def tree_rows(alg, am, to_host, sorted_keys, ndim: int, levels: int):
    """``(tree, rows)``: :func:`~xstride.algorithms.morton_tree` of the sorted keys and
    one :func:`level_row` per level, 0 (the root) to ``levels``."""
    tree = alg.morton_tree(sorted_keys, ndim, levels)
    sort = device_sort(alg)
    rows = [level_row(am, level, tree.count[level], tree.n_points, to_host, sort)
            for level in range(levels + 1)]
    return tree, rows


def tree_rows_from_runs(unique_keys: np.ndarray, counts: np.ndarray, ndim: int,
                        levels: int, n_points: int) -> list[dict]:
    """The rows of :func:`tree_rows` from the finest level's runs on the host (sorted
    distinct keys and their point counts), for a backend without ``morton_tree``."""
    keys = np.asarray(unique_keys, dtype=np.uint64)
    counts = np.asarray(counts, dtype=np.int64)
    rows = []
    for level in range(levels + 1):
        shifted = keys >> np.uint64(ndim * (levels - level))
        if shifted.size:
            starts = np.flatnonzero(np.concatenate([[True], shifted[1:] != shifted[:-1]]))
            level_counts = np.add.reduceat(counts, starts)
        else:
            level_counts = counts
        rows.append(level_row(np, level, level_counts, n_points))
    return rows


def voxel_stats(am, to_host, size: float, counts, n_points: int, sort=None) -> dict:
    """The JSON record of the voxel stage (integers and one median: equal on every backend)."""
    row = level_row(am, 0, counts, n_points, to_host, sort)
    return {"size": float(size), "voxels": row["nodes"], "min": row["min"],
            "median": row["median"], "max": row["max"],
            "reduction": n_points / max(1, row["nodes"])}


def write_ply(path, centroids: np.ndarray, counts: np.ndarray) -> None:
    """Write the downsampled cloud as a binary little-endian PLY file.

    One ``vertex`` per voxel with the properties ``x``, ``y``, ``z`` (the centroid, in
    its dtype: ``float``/``double``; 2-D clouds get ``z = 0``) and ``count`` (``uint``:
    the voxel's points), in Morton order. Readable by ``--points`` and by plyfile.

    A regular file (new, or one that exists: through a symbolic link, the file it
    names) is written whole to a temporary file beside it, then renamed over it: a
    write that fails (a full disk, a file size limit) leaves the file that was there,
    and no part of the new one. Anything else (``/dev/stdout``, a FIFO) is written
    in place.

    Raises
    ------
    PlyWriteError
        plyfile is missing, or the file cannot be written.
    """
    try:
        import plyfile
    except ImportError:
        raise PlyWriteError("--out needs the 'plyfile' package: pip install 'xstride[demo]' "
                            "(or pip install plyfile)") from None
    c = np.asarray(centroids)
    m, ndim = c.shape
    ftype = "f8" if c.dtype == np.float64 else "f4"
    vertex = np.empty(m, dtype=[("x", ftype), ("y", ftype), ("z", ftype), ("count", "u4")])
    for axis, name in enumerate("xyz"):
        vertex[name] = c[:, axis] if axis < ndim else 0.0
    vertex["count"] = np.minimum(np.asarray(counts), 2**32 - 1)
    data = plyfile.PlyData([plyfile.PlyElement.describe(vertex, "vertex")], text=False,
                           comments=["xstride demo: voxel centroids in Morton order; "
                                     "count = points per voxel"])
    try:
        _write_whole(data, Path(path))
    except OSError as exc:
        raise PlyWriteError(f"--out {path}: cannot write the file ({exc.strerror or exc})") from None


def _write_whole(data, path: Path) -> None:
    """``data.write`` to ``path`` through a temporary file and a rename (a regular or
    new file), keeping an existing file's permission bits; else in place."""
    target = path.resolve()
    if target.exists() and not target.is_file():
        data.write(str(path))   # a device or a FIFO: no file to replace
        return
    # created as a plain open creates a file (0666 less the umask; mkstemp's is 0600),
    # under a name no other writer takes (O_EXCL), short whatever the target's (a name
    # of the target's own past 233 bytes went past the 255 a file name may have)
    tmp = target.parent / f".xstride-out-{secrets.token_hex(8)}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(fd, "wb") as fh:
            data.write(fh)
        if target.exists():
            shutil.copymode(target, tmp)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
