"""``python -m xstride demo``: the end-to-end particle pipeline on NumPy or CuPy.

positions (Philox uniforms in the unit cube, or a point file) -> on CuPy, the kernels of
every later stage compiled side by side (``demo_ahead.py``) -> bounding box ->
Morton keys -> ``sort_by_key`` (positions carried along) -> occupancy of the cells at
one tree level (cell boundaries from the sorted keys, slots by a scan) -> reductions
-> ``morton_tree`` (statistics of every level, ``demo_tree.py``) -> with ``--voxel``,
``--out`` and ``--plot`` the downsampled cloud, its PLY file and the picture
(``demo_extras.py``, ``demo_plot.py``). Prints a table with per-stage times, or one
JSON object with ``--json``. See ``docs/demo.md``.

User errors (bad file, bad option value, unavailable backend) print one line on
stderr and return 2; anything else is a bug and keeps its traceback.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from pathlib import Path

import numpy as np

from .. import _backends
from . import demo_ahead, demo_extras, demo_tree
from .numbers import option as _number
from .timing import StepTime, timed_step, watch_compiles

# above this, one (n, 3) float64 array alone needs more than 24 TiB
_MAX_POINTS = 2**40

__all__ = ["add_arguments", "check_arguments", "run", "pipeline", "DemoError", "Progress",
           "error_line"]

DEFAULT_N = 1_000_000
DEFAULT_LEVELS = 10
DEFAULT_LEVEL_STATS = 5
_CHUNK = 1 << 22  # rows of positions generated per step (progress granularity)


class DemoError(Exception):
    """A user error: printed as one line, exit status 2."""


class _NegativeNumber:
    """What the demo's parser takes for a negative number, an option's value rather than
    an option: every text beginning with ``-`` that ``float`` reads. argparse's own
    pattern does not take ``-inf`` (nor, on Python 3.11, ``-1e-3``), so that ``--voxel
    -inf`` was "expected one argument" instead of the option's own check."""

    @staticmethod
    def match(text: str) -> bool:
        try:
            float(text)
        except ValueError:
            return False
        return text.startswith("-")


def add_arguments(parser) -> None:
    """Options of the ``demo`` subcommand (called by ``xstride.__main__``)."""
    if hasattr(parser, "_negative_number_matcher"):   # see _NegativeNumber
        parser._negative_number_matcher = _NegativeNumber()
    parser.add_argument("--backend", type=str.lower, choices=_backends.names(), default=_backends.DEFAULT,
                        help="array backend (default: numpy)")
    parser.add_argument("--points", metavar="FILE", default=None,
                        help="point file: .npy (n,2)/(n,3), .csv, .xyz or .ply "
                             "(default: Philox uniforms in the unit cube)")
    parser.add_argument("--n", type=_number(int), default=None,
                        help=f"number of generated points (default {DEFAULT_N:,}); "
                             "with --points, use the first N points of the file "
                             "(all of them if it holds fewer)")
    parser.add_argument("--levels", type=_number(int), default=DEFAULT_LEVELS,
                        help=f"Morton key depth (default {DEFAULT_LEVELS}; max 32 in 2-D, 21 in 3-D)")
    parser.add_argument("--level-stats", type=_number(int), default=None, metavar="K",
                        help=f"tree level of the occupancy statistics (default "
                             f"min({DEFAULT_LEVEL_STATS}, levels))")
    parser.add_argument("--seed", type=_number(int), default=None,
                        help="Philox seed of the generated points (default 0; not with --points)")
    parser.add_argument("--voxel", type=_number(float), default=None, metavar="SIZE",
                        help="downsample to one point per voxel of edge SIZE (the mean of "
                             "its points), voxels in Morton order")
    parser.add_argument("--out", metavar="FILE.ply", default=None,
                        help="with --voxel: write the downsampled cloud as a PLY file")
    parser.add_argument("--plot", metavar="FILE.png", default=None,
                        help="draw the points coloured by Morton order, the Z-curve of a "
                             "coarse level and the occupancy of every level (needs "
                             "matplotlib: pip install 'xstride[plot]')")
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def check_arguments(args) -> str | None:
    """A one-line error for an option that would do nothing with the others given
    (called by ``xstride.__main__`` for every backend); fills in the default seed."""
    if args.seed is not None and args.points is not None:
        return (f"--seed draws the generated points: it does nothing with --points "
                f"{args.points}; leave it out")
    if args.seed is None:
        args.seed = 0
    return None


# --------------------------------------------------------------------- progress
class Progress:
    """Shows a stage on ``stream`` once it has run longer than ``after`` seconds.

    On a terminal: one line rewritten in place (elapsed time, and the fraction done
    when the stage reports it), cleared when the stage ends. Elsewhere: one line when
    the stage passes ``after`` seconds and one when it ends.
    """

    def __init__(self, stream=None, after: float = 1.0, interval: float = 0.25):
        self.stream = sys.stderr if stream is None else stream
        self.after = after
        self.interval = interval
        self.fraction = None
        self._name = ""
        self._t0 = 0.0
        self._stop = threading.Event()
        self._thread = None
        self._shown = False

    def _tty(self) -> bool:
        isatty = getattr(self.stream, "isatty", None)
        return bool(isatty and isatty())

    def _text(self) -> str:
        text = f"  {self._name} ... {time.perf_counter() - self._t0:.1f} s"
        if self.fraction is not None:
            text += f" ({100 * self.fraction:.0f} %)"
        return text

    def _watch(self) -> None:
        if self._stop.wait(self.after):
            return
        self._shown = True
        if not self._tty():
            print(f"{self._text().strip()} (still running)", file=self.stream, flush=True)
            return
        while not self._stop.is_set():
            self.stream.write("\r" + self._text() + "\x1b[K")
            self.stream.flush()
            self._stop.wait(self.interval)

    def start(self, name: str) -> None:
        self._name, self._t0, self.fraction, self._shown = name, time.perf_counter(), None, False
        self._stop.clear()
        self._thread = threading.Thread(target=self._watch, daemon=True)
        self._thread.start()

    def stop(self, failed: bool = False) -> None:
        """The stage's end: its line cleared on a terminal, else "NAME done in S s"
        ("NAME failed after S s" where it raised)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        if self._shown:
            if self._tty():
                self.stream.write("\r\x1b[K")
            else:
                how = "failed after" if failed else "done in"
                print(f"{self._name} {how} {time.perf_counter() - self._t0:.2f} s",
                      file=self.stream, flush=True)
            self.stream.flush()


class _Stages:
    """Times stages (:func:`~xstride._cli.timing.timed_step`: the device synchronised at
    both ends, the kernel compiles of the stage apart) and drives the progress line."""

    def __init__(self, sync, progress: Progress | None):
        self.sync = sync
        self.progress = progress
        self.times: list[tuple[str, StepTime]] = []

    def run(self, name: str, fn):
        if self.progress is not None:
            self.progress.start(name)
        try:
            result, t = timed_step(self.sync, fn)
        except BaseException:
            if self.progress is not None:
                self.progress.stop(failed=True)
            raise
        if self.progress is not None:
            self.progress.stop()
        self.times.append((name, t))
        return result


# --------------------------------------------------------------------- pipeline
def _generate(xp, am, n: int, seed: int, progress: Progress | None):
    """(n, 3) float64 Philox uniforms: column a is stream a, row i is counter i.

    Generated on the backend of ``am`` by ``xstride.rng.philox_uniform``, in chunks.
    """
    out = am.empty((n, 3), dtype=am.float64)
    for start in range(0, n, _CHUNK):
        stop = min(n, start + _CHUNK)
        out[start:stop] = _uniforms(xp, am, seed, start, stop)
        if progress is not None:
            progress.fraction = stop / n
    return out


def _uniforms(xp, am, seed: int, start: int, stop: int):
    counters = am.arange(start, stop, dtype=am.uint64)[:, None]
    streams = am.arange(3, dtype=am.uint64)[None, :]
    return xp.rng.philox_uniform(seed, streams, counters)


def pipeline(backend: str = _backends.DEFAULT, points=None, n=None, levels: int = DEFAULT_LEVELS,
             level_stats=None, seed: int = 0, progress: Progress | None = None, *,
             voxel=None, out=None, plot=None) -> dict:
    """Run the demo and return its results as a dict (what ``--json`` prints).

    ``voxel``: downsample with :func:`~xstride.algorithms.voxel_downsample` (the
    ``"voxel"`` record); ``out``: write the downsampled cloud there (PLY); ``plot``:
    draw the picture of ``docs/demo.md`` there (matplotlib).

    Raises
    ------
    DemoError
        Bad option values, unreadable point files, an unavailable backend, ``plot``
        without matplotlib, ``out`` without plyfile or not writable.
    """
    import xstride as xp
    from .pointio import PointFileError, read_points

    if n is not None and not 1 <= n <= _MAX_POINTS:
        raise DemoError(f"--n must be a number of points in 1..{_MAX_POINTS:,}; got {n}")
    if seed < 0 or seed >= 2**64:
        raise DemoError(f"--seed must be in 0..2**64-1; got {seed}")
    try:
        extras = demo_extras.check(voxel, out, plot, points)  # before reading the points
    except demo_extras.OptionError as exc:
        raise DemoError(str(exc)) from None
    try:
        be = _backends.get(backend)
        # CUDA: the driver's start (about 0.2 s) overlaps CuPy's import (docs/performance.md);
        # after the option checks, so that a bad option never touches the device
        be.start_device_init()
        be.load()
    except KeyError:
        raise DemoError(f"--backend must be one of {', '.join(_backends.names())}; "
                        f"got {backend!r}") from None
    except RuntimeError as exc:
        raise DemoError(str(exc)) from None
    with xp.use_backend(backend):
        return _run(xp, backend, points, n, levels, level_stats, seed, progress,
                    read_points, PointFileError, extras)


def _run(xp, backend, points, n, levels, level_stats, seed, progress, read_points,
         PointFileError, extras=None) -> dict:
    from .. import algorithms as alg
    be = _backends.get(backend)
    am = be.load()
    watched = watch_compiles(be)   # CuPy's own compiles are counted as compile time too
    stages = _Stages(be.synchronize, progress)

    # 1. positions
    if points is not None:
        try:
            host = stages.run("read points", lambda: read_points(points))
        except PointFileError as exc:
            raise DemoError(str(exc)) from None
        if n is not None:
            host = host[:n]
        pos = host if be.owns(host) else stages.run("copy to device", lambda: be.asarray(host))
        source = demo_extras.shown_path(points)
    else:
        _check_levels(alg, 3, levels, level_stats)  # before spending time on positions
        count = DEFAULT_N if n is None else n
        pos = stages.run("philox positions", lambda: _generate(xp, am, count, seed, progress))
        source = f"philox(seed={seed}), unit cube"
    npts, ndim = pos.shape
    k_level = _check_levels(alg, ndim, levels, level_stats)
    if be.compiles_kernels:
        # every later stage's kernels, compiled side by side on stand-ins (demo_ahead)
        voxel = None if extras is None else extras.voxel
        stages.run("compile ahead", lambda: xp.cuda.compile_ahead(demo_ahead.calls(
            xp, alg, am, be, pos, ndim, levels, k_level, voxel), threads=demo_ahead.THREADS))

    # 2. bounding box (a degenerate axis, e.g. a flat cloud, gets a unit extent)
    def bbox():
        lo = xp.to_numpy(xp.min(pos, axis=0)).astype(np.float64)
        hi = xp.to_numpy(xp.max(pos, axis=0)).astype(np.float64)
        return lo, hi

    lower, upper = stages.run("bounding box", bbox)
    box_lower, box_upper = _morton_box(lower, upper, levels, _file_of(points))
    try:   # a --voxel grid the box cannot hold: now, not after the tree
        demo_extras.check_voxel_span(extras, lower, upper)
    except demo_extras.OptionError as exc:
        raise DemoError(str(exc)) from None

    # 3. keys, 4. sort (positions carried along)
    # bounds as Python floats: host parameters for either backend
    keys = stages.run("morton keys", lambda: alg.morton_keys(pos, box_lower.tolist(),
                                                             box_upper.tolist(), levels))
    sorted_keys, order, sorted_pos = stages.run(   # keys of ndim * levels bits
        "sort_by_key", lambda: alg.sort_by_key(keys, pos, key_bits=ndim * levels))

    # 5. occupancy at level k_level: boundaries where the cell changes, slots by a scan
    def occupancy():
        # the cells of the sorted keys are sorted too: one run per occupied cell. The
        # library's ufunc, called: xp.bitwise_right_shift, a function xstride takes from
        # array_api_compat, would import NumPy's namespace (its signature) on a CuPy
        # run, and CuPy's operators go through ndarray.__array_ufunc__, whose first
        # call imports cupyx.scipy.special and SciPy (0.28 s on the H200 host)
        cells = am.right_shift(sorted_keys, ndim * (levels - k_level))
        return alg.run_length_encode(cells)[1]

    counts = stages.run("cell occupancy", occupancy)

    # 6. reductions and checks
    def reduce():
        return {
            "occupied": int(counts.shape[0]),
            "min": int(xp.min(counts)),
            "max": int(xp.max(counts)),
            "total": int(xp.sum(counts)),
            "sorted": bool(xp.all(am.greater_equal(sorted_keys[1:], sorted_keys[:-1])))
            if npts > 1 else True,
            "carried": bool(xp.all(am.equal(sorted_pos, pos[order]))),
        }

    red = stages.run("reductions", reduce)
    # 7. every level of the Morton tree; 8. voxels, the PLY file, the picture
    tree, rows = stages.run("morton tree", lambda: demo_tree.tree_rows(
        alg, am, be.to_host, sorted_keys, ndim, levels))
    try:
        more = demo_extras.run(extras, stages.run, alg, am, be, pos, sorted_pos, tree, rows,
                               box_lower, box_upper, source)
    except demo_extras.OptionError as exc:
        raise DemoError(str(exc)) from None
    return {
        **summary(backend, source, npts, ndim, levels, k_level, red, lower, upper, rows),
        **more,
        "stages": [{"name": name, **t.as_dict()} for name, t in stages.times],
        "total_seconds": sum(t.seconds for _, t in stages.times),
        "run_seconds": sum(t.run_seconds for _, t in stages.times),
        "compile_seconds": sum(t.compile_seconds for _, t in stages.times),
        "kernels_compiled": sum(t.kernels for _, t in stages.times),
        "compiles_kernels": bool(be.compiles_kernels),
        "cupy_compiles_recorded": watched,
    }


def summary(backend: str, source: str, npts: int, ndim: int, levels: int, k_level: int,
            red: dict, lower, upper, rows) -> dict:
    """The demo's result record up to its extras and stage times, shared by the NumPy,
    CuPy and dask demos so that their ``--json`` results have the same keys: ``red``
    holds the reductions stage's ``occupied``, ``min``, ``max``, ``total``, ``sorted``
    and ``carried``; ``lower``/``upper`` the points' bounding box (NumPy arrays); ``rows`` the
    tree's rows per level."""
    cells_total = 2 ** (ndim * k_level)
    return {
        "backend": backend,
        "source": source,
        "points": int(npts),
        "ndim": int(ndim),
        "levels": int(levels),
        "level_stats": int(k_level),
        "cells_at_level": cells_total,
        "occupied_cells": red["occupied"],
        "occupied_fraction": red["occupied"] / cells_total,
        "occupancy": {"min": red["min"], "max": red["max"], "mean": npts / red["occupied"]},
        "bounding_box": {"lower": lower.tolist(), "upper": upper.tolist()},
        "checks": {"keys_sorted": red["sorted"], "counts_sum_to_points": red["total"] == npts,
                   "values_follow_keys": red["carried"]},
        "tree": rows,
    }


def _check_levels(alg, ndim: int, levels: int, level_stats) -> int:
    """The occupancy level (``--level-stats`` or its default) after checking both."""
    top = alg.MAX_MORTON_LEVELS[ndim]
    if not 1 <= levels <= top:
        raise DemoError(f"--levels must be in 1..{top} for {ndim}-D points; got {levels}")
    k_level = min(DEFAULT_LEVEL_STATS, levels) if level_stats is None else level_stats
    if not 0 <= k_level <= levels:
        raise DemoError(f"--level-stats must be in 0..{levels} (the --levels value); got {k_level}")
    return k_level


def _file_of(points) -> str | None:
    """The point file as the reader's errors name it (``None`` for generated points)."""
    return None if points is None else str(Path(points))


def _morton_box(lower: np.ndarray, upper: np.ndarray, levels: int,
                source: str | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Corners of the Morton box ``(box_lower, box_upper)``: the bounding box's, with a
    small extent on a flat axis.

    A flat axis (all points agree) gets a unit extent, or the step to the next float
    where ``lower + 1 == lower`` (past 2**53); at the largest float64, which has no next
    float, the step to the float below it (``box_lower`` is then below ``lower``).
    Morton keys need ``2**levels / (upper -
    lower)`` finite on every axis, so a cloud whose extent overflows float64 (points
    near +-1.7e308) or is too small for that quotient (subnormal extents) is a
    :class:`DemoError` naming the axis (and the point file ``source``, as the reader's
    errors name it).
    """
    named = "" if source is None else f"{source}: "
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        step = lower + 1.0
        flat = np.where(step > lower, step, np.nextafter(lower, np.inf))
        box_upper = np.where(upper > lower, upper, flat)
        # a flat axis at the largest float64 has no float above it: the box goes down
        top = (upper == lower) & np.isinf(box_upper) & np.isfinite(lower)
        box_lower = np.where(top, np.nextafter(lower, -np.inf), lower)
        box_upper = np.where(top, upper, box_upper)
        extent = box_upper - box_lower
        scale = 2.0**levels / extent
    for axis, name in enumerate("xyz"[: lower.size]):
        lo, hi = lower[axis], upper[axis]
        if not np.isfinite(extent[axis]):
            raise DemoError(f"{named}the points span {lo:.6g} to {hi:.6g} on axis {name}: the "
                            "extent overflows float64, so Morton keys cannot be computed; "
                            "rescale the points")
        if not np.isfinite(scale[axis]):
            raise DemoError(f"{named}the points span only {extent[axis]:.3g} on axis {name} "
                            f"({lo:.3g} to {hi:.3g}): too small for 2**{levels} cells "
                            f"(2**{levels} / extent overflows float64); rescale the points")
    return box_lower, box_upper


# --------------------------------------------------------------------- output
def _table(result: dict) -> str:
    bb = result["bounding_box"]
    occ = result["occupancy"]
    axes = "xyz"[: result["ndim"]]
    lines = [
        f"xstride demo: {result['source']} on {result['backend']}",
        "",
        f"  points                {result['points']:,} ({result['ndim']}-D)",
    ]
    for a, lo, hi in zip(axes, bb["lower"], bb["upper"]):
        lines.append(f"  bounding box {a}        [{lo:.6g}, {hi:.6g}]")
    lines += [
        f"  morton levels         {result['levels']} (keys of {result['ndim'] * result['levels']} bits)",
        f"  occupancy at level    {result['level_stats']} ({result['cells_at_level']:,} "
        f"{'cell' if result['cells_at_level'] == 1 else 'cells'})",
        f"  occupied cells        {result['occupied_cells']:,} "
        f"({100 * result['occupied_fraction']:.3g} %)",
        f"  points per cell       min {occ['min']:,}  max {occ['max']:,}  "
        f"mean {demo_extras.grouped(occ['mean'], 4)}",
        f"  checks                {'passed' if all(result['checks'].values()) else 'FAILED'}",
        "",
        *demo_extras.table_lines(result),
        f"  {'stage':<{demo_extras.LABEL}}  {'run s':>8}  {'compile s':>9}  {'kernels':>7}",
    ]
    for st in result["stages"]:
        lines.append(f"  {st['name']:<20}  {st['run_seconds']:8.4f}  {st['compile_seconds']:9.4f}"
                     f"  {st['kernels_compiled']:7d}")
    lines.append(f"  {'total':<20}  {result['run_seconds']:8.4f}  {result['compile_seconds']:9.4f}"
                 f"  {result['kernels_compiled']:7d}")
    lines.append(f"  {'wall (run + compile)':<20}  {result['total_seconds']:8.4f}")
    if result["compiles_kernels"] and not result["cupy_compiles_recorded"]:
        lines.append("  (CuPy's own kernel compiles are not recorded by this CuPy: "
                     "they count as run time)")
    return "\n".join(lines)


def error_line(problem) -> str:
    """The one line on stderr of a user error: ``problem``'s text, a file name's newline
    or other control character escaped (:func:`~xstride._cli.demo_extras.shown_text`)."""
    return f"xstride demo: error: {demo_extras.shown_text(problem)}"


def run(args) -> int:
    """Entry point of ``python -m xstride demo``; returns the exit status."""
    progress = Progress()
    try:
        result = pipeline(backend=args.backend, points=args.points, n=args.n, levels=args.levels,
                          level_stats=args.level_stats, seed=args.seed, progress=progress,
                          voxel=args.voxel, out=args.out, plot=args.plot)
    except DemoError as exc:
        print(error_line(exc), file=sys.stderr)
        return 2
    except MemoryError as exc:  # numpy's _ArrayMemoryError, cupy's OutOfMemoryError
        print(error_line(f"not enough memory on {args.backend} ({' '.join(str(exc).split())})"),
              file=sys.stderr)
        return 2
    # a reader that left (`... | head`): BrokenPipeError, status 141 in xstride.__main__
    print(json.dumps(result, indent=2) if args.json else _table(result), flush=True)
    return 0 if all(result["checks"].values()) else 1
