"""Issue 17's functions beside what a CuPy (or NumPy) user would write, and the copy ceiling.

Every function of the particle pipeline after the sort, on one cloud of ``n`` points
(``(n, 3)`` float32, uniform in the unit cube; 30-bit Morton keys of 10 levels; the
segments are the cells of the level with about 32 points per cell, level 7 at 2**26
points, as the cell lists of a particle code):

==================  =============================================================
xstride             the composition a user writes without it
==================  =============================================================
sort_by_key         ``argsort`` + two gathers (30-bit Morton keys + int64 payload,
                    and 64-bit random keys + int64 payload)
run_length_encode   ``unique(keys, return_counts=True)``
reduce_by_key       ``unique(return_inverse)`` + ``bincount(inverse, weights)`` per column
segment_reduce      segment ids by ``searchsorted`` in the offsets + ``bincount``
bin_offsets         ``cumsum(bincount(bins, minlength=n_bins))``
compact             boolean indexing ``a[mask]`` of each array
voxel_downsample    linear voxel ids + ``unique(return_inverse, return_counts)`` +
                    ``bincount`` per axis / counts
morton_tree         per level: ``unique(keys >> shift, return_index, return_counts)`` +
                    ``searchsorted`` for the parents
==================  =============================================================

On the device (CuPy and a GPU): times by CUDA events (median after warm-up,
``_common.time_gpu``), the baseline through ``cupy`` on the same arrays, and "of copy":
the bytes the function must read and write at least, over its time, divided by the
bandwidth of a device-to-device copy measured in the same run (a sort moves its data
several times: no copy fraction). Without a device the same table runs on the host
against the same NumPy compositions (``_common.time_cpu``).

"ratio" is the baseline's time over xstride's (above 1: xstride is faster). "check":
"exact" when the results are identical, "ok" for float sums within 1e-5 relative (the
summation orders differ), "MISMATCH" otherwise (exit status 1).

Usage:
    python benchmarks/particles.py              # 2**26 points on the device, 2**22 on the host
    python benchmarks/particles.py --n 100000   # any size, both
    python benchmarks/particles.py --only voxel # the rows whose name contains this
"""

from __future__ import annotations

import argparse
import inspect
import sys

import numpy as np

import _common as C

from xstride import algorithms as alg

DEVICE_N = 1 << 26
HOST_N = 1 << 22
LEVELS = 10          # 30-bit 3-D keys
VOXEL = 1.0 / 256    # 256**3 voxels in the unit cube
POINTS_PER_CELL = 32  # the segments: cells of the level with about this many points each


def segment_level(n: int) -> int:
    """The tree level whose cells hold about :data:`POINTS_PER_CELL` points (the cell
    lists of a particle code): 7 at 2**26 points."""
    return int(min(LEVELS, max(1, round(np.log2(max(2, n / POINTS_PER_CELL)) / 3))))


# --------------------------------------------------------------------- the baselines
def base_sort(m, keys, payload):
    order = m.argsort(keys, kind="stable") if m is np else m.argsort(keys)
    return keys[order], payload[order]


def base_rle(m, keys):
    return m.unique(keys, return_counts=True)


def base_reduce_by_key(m, keys, values):
    uniq, inverse = m.unique(keys, return_inverse=True)
    inverse = inverse.reshape(-1)
    sums = m.stack([m.bincount(inverse, weights=values[:, a], minlength=uniq.size)
                    for a in range(values.shape[1])], axis=1)
    return uniq, sums


def base_segment_reduce(m, values, offsets):
    n = values.shape[0]
    # the segment of row i: how many segment ends are at or before it (empty segments
    # included)
    ids = m.searchsorted(offsets[1:], m.arange(n), side="right")
    nseg = offsets.shape[0] - 1
    return m.stack([m.bincount(ids, weights=values[:, a], minlength=nseg)
                    for a in range(values.shape[1])], axis=1)


def base_bin_offsets(m, bins, n_bins):
    counts = m.bincount(bins, minlength=n_bins)
    return m.concatenate([m.zeros(1, dtype=m.int64), m.cumsum(counts)])


def base_compact(m, mask, *arrays):
    return tuple(a[mask] for a in arrays)


def base_voxels(m, pts, size):
    p = pts.astype(m.float64)
    lo = p.min(axis=0)
    vox = m.floor((p - lo) / size).astype(m.int64)
    dims = vox.max(axis=0) + 1
    lin = (vox[:, 0] * dims[1] + vox[:, 1]) * dims[2] + vox[:, 2]
    _, inverse, counts = m.unique(lin, return_inverse=True, return_counts=True)
    inverse = inverse.reshape(-1)
    sums = m.stack([m.bincount(inverse, weights=p[:, a], minlength=counts.size)
                    for a in range(3)], axis=1)
    return (sums / counts[:, None]).astype(pts.dtype), counts


def base_tree(m, sorted_keys, ndim, levels):
    out = []
    prev = None
    for level in range(levels + 1):
        shifted = sorted_keys >> m.uint64(ndim * (levels - level))
        keys, first, counts = m.unique(shifted, return_index=True, return_counts=True)
        parent = (m.full(1, -1, dtype=m.int64) if prev is None
                  else m.searchsorted(prev, keys >> m.uint64(ndim)))
        out.append((keys, first, counts, parent))
        prev = keys
    return out


# --------------------------------------------------------------------- the run
def _same(m, a, b, rel=None) -> str:
    a, b = np.asarray(_host(m, a)), np.asarray(_host(m, b))
    if a.shape != b.shape:
        return "MISMATCH (shapes)"
    if np.array_equal(a, b):
        return "exact"
    if rel is not None and a.dtype.kind == "f":
        scale = max(1.0, float(np.abs(b).max(initial=0.0)))
        if np.abs(a.astype(np.float64) - b.astype(np.float64)).max() <= rel * scale:
            return "ok"
    return "MISMATCH"


def _host(m, a):
    return a.get() if m is not np and hasattr(a, "get") else a


def _worst(*checks) -> str:
    for word in ("MISMATCH", "ok"):
        hit = [c for c in checks if c.startswith(word)]
        if hit:
            return hit[0]
    return "exact"


def rows_for(m, n: int, timer, ceiling, only: str | None):
    """One row per function: name, xstride ms, baseline ms, ratio, of copy, check."""
    rows = []
    rng = np.random.default_rng(17)
    pts = m.asarray(rng.random((n, 3), dtype=np.float32))
    keys30 = alg.morton_keys(pts, [0.0] * 3, [1.0] * 3, LEVELS)
    keys64 = m.asarray(rng.integers(0, 2**64 - 1, size=n, dtype=np.uint64, endpoint=True))
    payload = m.arange(n, dtype=m.int64)[::-1].copy()
    sort_kw = ({"key_bits": 3 * LEVELS}
               if "key_bits" in inspect.signature(alg.sort_by_key).parameters else {})
    sorted30, order30, sorted_pts = alg.sort_by_key(keys30, pts)
    level = segment_level(n)
    cells = sorted30 >> m.uint64(3 * (LEVELS - level))    # sorted cell keys of that level
    uniq, counts = alg.run_length_encode(cells)
    offsets = m.concatenate([m.zeros(1, dtype=m.int64), m.cumsum(counts)])
    n_bins = 2 ** (3 * level)
    bins = cells.astype(m.int64)
    mask = m.asarray(rng.random(n) < 0.5)

    def row(name, ours, theirs, nbytes, check, reps=None):
        if only and only not in name:
            return
        def make():
            kw = {} if reps is None else {"reps": reps}
            t_ours, t_base = timer(ours, **kw), timer(theirs, **kw)
            frac = (f"{nbytes / t_ours / 1e9 / ceiling:.2f}" if nbytes and ceiling else "-")
            return [name, f"{t_ours * 1e3:.2f}", f"{t_base * 1e3:.2f}", f"{t_base / t_ours:.2f}x",
                    frac, check()]
        C.try_row(rows, name, make)

    row(f"sort_by_key, 30-bit Morton keys + int64 {'(key_bits=30)' if sort_kw else ''}",
        lambda: alg.sort_by_key(keys30, payload, **sort_kw),
        lambda: base_sort(m, keys30, payload), 0,
        lambda: _worst(*(_same(m, a, b) for a, b in zip(
            (lambda r: (r[0], r[2]))(alg.sort_by_key(keys30, payload, **sort_kw)),
            base_sort(m, keys30, payload)))), reps=5)
    row("sort_by_key, 64-bit keys + int64",
        lambda: alg.sort_by_key(keys64, payload),
        lambda: base_sort(m, keys64, payload), 0,
        lambda: _worst(*(_same(m, a, b) for a, b in zip(
            (lambda r: (r[0], r[2]))(alg.sort_by_key(keys64, payload)),
            base_sort(m, keys64, payload)))), reps=5)
    m_runs = int(uniq.shape[0])
    cells_text = f"level-{level} cells ({m_runs:,}, {n / m_runs:.3g} points each)"
    row(f"run_length_encode, sorted {cells_text}",
        lambda: alg.run_length_encode(cells), lambda: base_rle(m, cells),
        8 * n + 16 * m_runs,
        lambda: _worst(*(_same(m, a, b) for a, b in zip(alg.run_length_encode(cells),
                                                         base_rle(m, cells)))))
    row("reduce_by_key sum, those cells, (n, 3) float32 values",
        lambda: alg.reduce_by_key(cells, sorted_pts),
        lambda: base_reduce_by_key(m, cells, sorted_pts),
        20 * n + 20 * m_runs,
        lambda: _worst(*(_same(m, a, b, 1e-5) for a, b in zip(
            alg.reduce_by_key(cells, sorted_pts), base_reduce_by_key(m, cells, sorted_pts)))))
    row("segment_reduce sum, (n, 3) float32, their CSR offsets",
        lambda: alg.segment_reduce(sorted_pts, offsets),
        lambda: base_segment_reduce(m, sorted_pts, offsets),
        12 * n + 20 * m_runs,
        lambda: _same(m, alg.segment_reduce(sorted_pts, offsets),
                      base_segment_reduce(m, sorted_pts, offsets), 1e-5))
    row(f"bin_offsets, {n_bins:,} bins (the level-{level} cells)",
        lambda: alg.bin_offsets(bins, n_bins), lambda: base_bin_offsets(m, bins, n_bins),
        8 * n + 8 * n_bins,
        lambda: _same(m, alg.bin_offsets(bins, n_bins), base_bin_offsets(m, bins, n_bins)))
    row("compact, half of (n, 3) float32 + int64",
        lambda: alg.compact(mask, pts, payload), lambda: base_compact(m, mask, pts, payload),
        n + 20 * n + 10 * n,
        lambda: _worst(*(_same(m, a, b) for a, b in zip(alg.compact(mask, pts, payload),
                                                         base_compact(m, mask, pts, payload)))))

    def voxel_check():
        cent, counts = alg.voxel_downsample(pts, VOXEL)
        bc, bn = base_voxels(m, pts, VOXEL)
        # the baseline's voxels are in linear (x-major) order: compare as sorted rows
        a = np.asarray(_host(m, cent))
        b = np.asarray(_host(m, bc))
        ka = np.lexsort(a.T[::-1])
        kb = np.lexsort(b.T[::-1])
        return _worst(_same(np, a[ka], b[kb], 1e-5),
                      _same(np, np.sort(_host(m, counts)), np.sort(_host(m, bn))))

    n_vox = int(alg.voxel_downsample(pts, VOXEL)[1].shape[0])
    row(f"voxel_downsample, voxel 1/{round(1 / VOXEL)} ({n_vox:,} voxels)",
        lambda: alg.voxel_downsample(pts, VOXEL), lambda: base_voxels(m, pts, VOXEL),
        12 * n + 20 * n_vox, voxel_check, reps=5)

    def tree_check():
        tree = alg.morton_tree(sorted30, 3, LEVELS)
        base = base_tree(m, sorted30, 3, LEVELS)
        return _worst(*(_same(m, getattr(tree, f)[lv], base[lv][i])
                        for lv in range(LEVELS + 1)
                        for i, f in enumerate(("keys", "first", "count", "parent"))))

    finest = int(alg.run_length_encode(sorted30)[0].shape[0])
    row(f"morton_tree, {LEVELS} levels ({finest:,} leaves)",
        lambda: alg.morton_tree(sorted30, 3, LEVELS),
        lambda: base_tree(m, sorted30, 3, LEVELS), 8 * n + 32 * finest, tree_check, reps=5)
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=None,
                        help=f"points (default {DEVICE_N:,} on the device, {HOST_N:,} on the host)")
    parser.add_argument("--only", default=None, help="the rows whose name contains this text")
    args = parser.parse_args(argv)
    cupy = C.cupy_or_none()
    if cupy is not None:
        n = DEVICE_N if args.n is None else args.n
        m, timer = cupy, C.time_gpu
        ceiling = C.copy_ceiling(max(n * 16, 1 << 20))
        where = f"device, {n:,} points; copy ceiling {ceiling:.0f} GB/s"
        base = "CuPy composition ms"
    else:
        n = HOST_N if args.n is None else args.n
        m, ceiling = np, None
        timer = lambda fn, reps=3: C.time_cpu(fn, reps=reps)  # noqa: E731
        where = f"host, {n:,} points"
        base = "NumPy composition ms"
    if n < 2:
        parser.error(f"--n must be at least 2; got {n}")
    print(C.header(f"benchmarks/particles.py ({where})"))
    rows = rows_for(m, n, timer, ceiling, args.only)
    C.print_table(["function", "xstride ms", base, "ratio", "of copy", "check"],
                  [r + [""] * (6 - len(r)) for r in rows])
    bad = [r for r in rows if any("MISMATCH" in str(c) or "FAILED" in str(c) for c in r)]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
