"""``python -m xstride demo --plot FILE.png``: the demo's picture (matplotlib).

Left: the points (3-D clouds projected on their two widest axes) coloured by their
position along the Z-curve of that plane (the 2-D Morton order of the projection,
computed with ``morton_keys``, ``sort_by_key`` and ``morton_tree`` on the host), with
the curve through the occupied quadtree cells of a coarse level drawn over them: a
projected 3-D curve crosses itself wherever cells at different depths overlap, the
plane's own curve does not. Right: the occupancy of every level of the demo's tree, a
histogram of points per node on a log2 scale (one row per level, the colour the number
of nodes), with each level's median and min-max range. With ``--voxel``, a middle
panel shows the voxel centroids in the cloud's own (3-D) Morton order. Only the Agg
canvas is used (no pyplot, no window, no global state). See ``docs/demo.md``.
"""

from __future__ import annotations

import logging

import numpy as np

__all__ = ["render", "counted", "curve_level", "plane_order", "projection_axes",
           "panel_limits", "equal_aspect", "MAX_CURVE_NODES", "PLANE_LEVELS", "MAX_ASPECT",
           "HUGE", "HUGE_SHIFT"]

#: The Z-curve is drawn at the deepest level with at most this many occupied nodes.
MAX_CURVE_NODES = 160
#: Levels of the plane's quadtree (the colours need no finer order than 2**16 per axis).
PLANE_LEVELS = 16
_CMAP = "turbo"
#: A panel whose sides differ more than this many times is not drawn to scale.
MAX_ASPECT = 100
#: Coordinates past this magnitude (2**1000, about 1.1e301) are drawn divided by
#: 2**HUGE_SHIFT: matplotlib's tick arithmetic overflows near the float64 limit.
HUGE = 2.0**1000
HUGE_SHIFT = 64


def counted(n: int, noun: str) -> str:
    """``"1 point"``, ``"1,000 points"``: a count and its noun, singular for one."""
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


def curve_level(rows) -> int:
    """The deepest level whose occupied nodes number at most :data:`MAX_CURVE_NODES`
    (level 1 at least, when there is one: the root alone draws no curve)."""
    best = 0
    for row in rows:
        if row["nodes"] <= MAX_CURVE_NODES:
            best = max(best, row["level"])
    return max(best, min(1, len(rows) - 1))


def projection_axes(lower, upper) -> tuple[int, int]:
    """The two axes of widest extent, in axis order (x before y before z)."""
    extent = np.asarray(upper, dtype=np.float64) - np.asarray(lower, dtype=np.float64)
    if extent.size == 2:
        return 0, 1
    a, b = sorted(np.argsort(-extent, kind="stable")[:2].tolist())
    return a, b


def plane_order(alg, sample, lower, upper, ax0, ax1, levels=PLANE_LEVELS):
    """``(rank, cells, level)``: the rank of each sample point along the Z-curve of the
    plane ``(ax0, ax1)``, and the cell indices (in curve order) of the occupied cells of
    the level :func:`curve_level` picks from that plane's quadtree."""
    lo = np.asarray(lower, dtype=np.float64)[[ax0, ax1]]
    hi = np.asarray(upper, dtype=np.float64)[[ax0, ax1]]
    plane = np.ascontiguousarray(sample[:, [ax0, ax1]])
    keys = alg.morton_keys(plane, lo.tolist(), hi.tolist(), levels)
    sorted_keys, order = alg.sort_by_key(keys)[:2]
    rank = np.empty(order.shape[0], dtype=np.float64)
    rank[order] = np.arange(order.shape[0], dtype=np.float64)
    tree = alg.morton_tree(sorted_keys, 2, levels)
    rows = [{"level": lv, "nodes": tree.nodes(lv)} for lv in range(levels + 1)]
    level = curve_level(rows)
    cells = np.asarray(alg.morton_decode(tree.keys[level], 2), dtype=np.float64)
    return rank, cells, level


def render(path, *, alg, sample, n_points, lower, upper, rows, source, voxels=None) -> None:
    """Draw the picture into ``path`` (the format from its extension, PNG by default).

    Parameters
    ----------
    alg : module
        ``xstride.algorithms`` (the plane's keys and tree are computed with it).
    sample : float64 array (k, ndim)
        Points of the cloud (all of them, or an even sample), on the host.
    n_points : int
        Points in the cloud.
    lower, upper : float64 arrays (ndim,)
        The Morton box.
    rows : list of dict
        The demo's per-level records (``nodes``, ``min``, ``median``, ``max``,
        ``histogram_log2``).
    voxels : (centroids (v, ndim), counts (v,)) or None
        The downsampled cloud, in Morton order.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    lower = np.asarray(lower, dtype=np.float64)
    upper = np.asarray(upper, dtype=np.float64)
    # matplotlib's ticks overflow near +-1.8e308: such a cloud is drawn divided by a
    # power of two (exact: the Morton order and the voxels are the same), its axes say so
    huge = max(np.abs(lower).max(), np.abs(upper).max()) > HUGE
    if huge:
        sample, lower, upper = (a * 2.0**-HUGE_SHIFT for a in (sample, lower, upper))
        if voxels is not None:
            voxels = (np.asarray(voxels[0], dtype=np.float64) * 2.0**-HUGE_SHIFT, voxels[1])
    ax0, ax1 = projection_axes(lower, upper)
    panels = 3 if voxels is not None else 2
    fig = Figure(figsize=(6.4 * panels + 0.6, 6.6), dpi=110, layout="constrained")
    FigureCanvasAgg(fig)
    grid = fig.add_gridspec(1, panels, width_ratios=[1.0] * (panels - 1) + [1.15])
    ndim = sample.shape[1] if sample.ndim == 2 else lower.size
    axes_names = "xyz"
    fig.suptitle(f"xstride demo: {source}\n{counted(n_points, 'point')} ({ndim}-D), Morton "
                 f"keys of {counted(len(rows) - 1, 'level')}", fontsize=12)

    ax = fig.add_subplot(grid[0, 0])
    rank, cells, level = plane_order(alg, sample, lower, upper, ax0, ax1)
    _points_panel(ax, fig, sample, rank, cells, level, lower, upper, ax0, ax1, axes_names, ndim)
    if voxels is not None:
        axv = fig.add_subplot(grid[0, 1])
        _voxel_panel(axv, fig, voxels, ax0, ax1, axes_names)
        axv.set_xlim(ax.get_xlim())
        axv.set_ylim(ax.get_ylim())
        axv.set_aspect(ax.get_aspect(), adjustable="box")
    if huge:
        for panel in [ax] if voxels is None else [ax, axv]:
            panel.set_xlabel(f"{axes_names[ax0]} / 2**{HUGE_SHIFT}")
            panel.set_ylabel(f"{axes_names[ax1]} / 2**{HUGE_SHIFT}")
    _occupancy_panel(fig.add_subplot(grid[0, panels - 1]), fig, rows, n_points)
    # PostScript (.eps, .ps) draws the translucent points opaque and logs so on stderr,
    # the one library line a demo run printed: the picture is still right
    ps_log = logging.getLogger("matplotlib.backends.backend_ps")
    level = ps_log.level
    ps_log.setLevel(logging.ERROR)
    try:
        fig.savefig(str(path))
    finally:
        ps_log.setLevel(level)


def _points_panel(ax, fig, sample, rank, cells, level, lower, upper, a0, a1, names, ndim):
    from matplotlib.collections import PatchCollection
    from matplotlib.patches import Rectangle

    k = sample.shape[0]
    size = max(0.3, min(6.0, 6e4 / max(1, k)))
    art = ax.scatter(sample[:, a0], sample[:, a1], c=rank / max(1, k - 1), s=size, cmap=_CMAP,
                     vmin=0.0, vmax=1.0, linewidths=0, rasterized=True)
    cb = fig.colorbar(art, ax=ax, shrink=0.8, pad=0.01)
    cb.set_label("position along the Z-curve (0 = start, 1 = end)")

    lo = lower[[a0, a1]]
    width = (upper[[a0, a1]] - lo) / 2.0**level
    corner = lo + cells * width
    boxes = [Rectangle((c[0], c[1]), width[0], width[1]) for c in corner]
    ax.add_collection(PatchCollection(boxes, facecolor="none", edgecolor="0.3",
                                      linewidth=0.6, alpha=0.5))
    centre = corner + width / 2
    ax.plot(centre[:, 0], centre[:, 1], color="black", linewidth=1.2, alpha=0.85,
            solid_joinstyle="round")
    ax.plot(centre[:, 0], centre[:, 1], "o", color="white", markeredgecolor="black",
            markersize=3, markeredgewidth=0.6)
    if len(centre):
        ax.plot(*centre[0], "o", color="black", markersize=6)
        ax.annotate("start", centre[0], textcoords="offset points", xytext=(-14, 7),
                    fontsize=8, fontweight="bold",
                    bbox={"boxstyle": "round,pad=0.15", "fc": "white", "ec": "none",
                          "alpha": 0.8})
    plane = f"{names[a0]}-{names[a1]} projection" if ndim == 3 else "points"
    ax.set_title(f"{plane} in Morton (Z-) order\nthe Z-curve through the "
                 f"{counted(len(cells), 'occupied cell')} of quadtree level {level}",
                 fontsize=10)
    ax.set_xlabel(names[a0])
    ax.set_ylabel(names[a1])
    ax.set_aspect("equal", adjustable="box")
    low, high = panel_limits(lower, upper)
    ax.set_xlim(low[a0], high[a0])
    ax.set_ylim(low[a1], high[a1])
    if not equal_aspect(low[[a0, a1]], high[[a0, a1]]):
        ax.set_aspect("auto")


def panel_limits(lower, upper):
    """Axis limits of the box ``lower..upper`` with a margin of 2 % of each side, kept
    inside float64 with a finite width (matplotlib refuses an infinite limit, and its
    transforms divide by the width): a cloud near +-1.8e308 gets a smaller margin."""
    lower = np.asarray(lower, dtype=np.float64)
    upper = np.asarray(upper, dtype=np.float64)
    big = np.finfo(np.float64).max
    extent = upper - lower   # finite: the demo refuses an extent that overflows
    pad = np.minimum(0.02 * extent, (big - extent) / 4)
    return np.maximum(lower - pad, -big), np.minimum(upper + pad, big)


def equal_aspect(low, high) -> bool:
    """Whether a panel of these limits is drawn to scale: its sides differ at most
    :data:`MAX_ASPECT`-fold (beyond that a scaled panel is a line; it fills the panel)."""
    width = np.asarray(high, dtype=np.float64) - np.asarray(low, dtype=np.float64)
    return bool(width.max() <= MAX_ASPECT * width.min())


def _voxel_panel(ax, fig, voxels, a0, a1, names):
    from matplotlib.colors import LogNorm

    cent, counts = voxels
    m = cent.shape[0]
    counts = np.asarray(counts, dtype=np.float64)
    # 3-D: far voxels first, so the near ones are drawn on top
    order = np.argsort(cent[:, 3 - a0 - a1]) if cent.shape[1] == 3 else np.arange(m)
    size = max(1.0, min(12.0, 2.4e4 / max(1, m)))
    art = ax.scatter(cent[order, a0], cent[order, a1], s=size, c=counts[order], cmap="viridis",
                     norm=LogNorm(vmin=1, vmax=max(2.0, counts.max())), linewidths=0,
                     rasterized=True)
    fig.colorbar(art, ax=ax, shrink=0.8, pad=0.01).set_label("points in the voxel")
    ax.set_title(f"voxel_downsample: {counted(m, 'voxel centroid')}\n(the mean of each "
                 "voxel's points; colour: how many)", fontsize=10)
    ax.set_xlabel(names[a0])
    ax.set_ylabel(names[a1])


def _occupancy_panel(ax, fig, rows, n_points):
    from matplotlib.colors import LogNorm

    nbins = max(len(r["histogram_log2"]) for r in rows)
    table = np.zeros((len(rows), nbins))
    for r in rows:
        table[r["level"], : len(r["histogram_log2"])] = r["histogram_log2"]
    shown = np.ma.masked_equal(table, 0)
    art = ax.pcolormesh(np.arange(nbins + 1), np.arange(len(rows) + 1) - 0.5, shown,
                        cmap="viridis", norm=LogNorm(vmin=1, vmax=max(1, table.max())),
                        edgecolors="white", linewidth=0.3)
    fig.colorbar(art, ax=ax, shrink=0.8, pad=0.01).set_label("nodes in the bin")
    # each level's range and median, on the same log2 axis: column b holds the counts
    # [2**b, 2**(b+1)), a count v at log2(v) inside it; the bar spans the columns of the
    # min's and the max's bins (a median of 1000 had been drawn at log2 + 0.5, past the
    # last column and not shown; any median of sqrt(2) * 2**b or more one column right)
    levels = np.array([r["level"] for r in rows])
    lo = np.floor(np.log2([max(1, r["min"]) for r in rows]))
    hi = np.floor(np.log2([max(1, r["max"]) for r in rows])) + 1.0
    med = np.log2([max(1.0, r["median"]) for r in rows])
    ax.hlines(levels, lo, hi, color="black", linewidth=0.8, alpha=0.6)
    # (not clipped: a median of 1 sits on the left edge, as 2**b starts column b)
    ax.plot(med, levels, "D", color="white", markeredgecolor="black", markersize=4,
            label="median", clip_on=False, zorder=3)
    for r in rows:
        ax.text(nbins + 0.15, r["level"], f"{r['nodes']:,}", va="center", fontsize=7,
                clip_on=False)
    ax.text(nbins + 0.15, -1.1, "occupied", fontsize=7, fontweight="bold", clip_on=False)
    ax.set_xlim(0, nbins)
    ax.set_ylim(len(rows) - 0.5, -0.5)  # the root on top
    step = max(1, nbins // 10)
    ticks = np.arange(0, nbins, step)
    ax.set_xticks(ticks + 0.5)
    ax.set_xticklabels([_pow2(int(t)) for t in ticks], fontsize=8)
    ax.set_yticks(levels[:: max(1, len(rows) // 22)])
    ax.set_xlabel("points per node (bins of powers of two)")
    ax.set_ylabel("tree level (0 = root)")
    ax.legend(loc="lower right", fontsize=8)
    ax.set_title(f"occupancy of every level ({counted(n_points, 'point')})\n"
                 "how many nodes hold how many points; bars: min to max", fontsize=10)


def _pow2(b: int) -> str:
    value = 2**b
    for unit, size in (("G", 2**30), ("M", 2**20), ("k", 2**10)):
        if value >= size:
            return f"{value // size}{unit}"
    return str(value)
