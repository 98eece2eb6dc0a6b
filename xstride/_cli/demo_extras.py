"""The demo's optional outputs: ``--voxel SIZE`` (downsampling), ``--out FILE.ply`` (the
downsampled cloud) and ``--plot FILE.png`` (the picture), and the table lines of the
Morton tree. Options are checked before any point is read. See ``docs/demo.md``.
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from . import demo_tree
from .pointfile_error import one_line

__all__ = ["Extras", "OptionError", "LABEL", "check", "check_voxel_span", "grouped", "run",
           "table_lines",
           "shown_path", "shown_text",
           "PLOT_INSTALL", "MAX_PLOT_POINTS"]

#: What ``--plot`` says when matplotlib is missing.
PLOT_INSTALL = "pip install 'xstride[plot]'"
#: Points drawn at most (evenly spaced in Morton order, so the colours stay spread).
MAX_PLOT_POINTS = 200_000


class OptionError(Exception):
    """A bad option or a file that cannot be written: one line (the demo's ``DemoError``)."""


def shown_path(path) -> str:
    """``path`` as text every output takes: the bytes of a file name that are not UTF-8,
    which Python holds as lone surrogates (``\\udcff``), become ``\\xNN`` escapes. A
    surrogate stopped matplotlib drawing the title (a TypeError) and a stdout with
    strict errors (``PYTHONIOENCODING=utf-8``, a ``en_US.UTF-8`` locale) printing the
    table."""
    return os.fsencode(str(path)).decode("utf-8", "backslashreplace")


def shown_text(text) -> str:
    """``text`` as one line of printable text: the bytes of a file name that are not
    UTF-8 (lone surrogates) as ``\\xNN``, as :func:`shown_path` shows them, and every
    other character Python would not print (a newline, a tab, ESC and the other
    controls) as its escape (``\\n``, ``\\t``, ``\\x1b``), so that a message naming
    such a file stays on its line and sends no control sequence to a terminal."""
    text = str(text)
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else _escaped(ch) for ch in text)


def _escaped(ch: str) -> str:
    code = ord(ch)
    if 0xDC80 <= code <= 0xDCFF:   # a byte that is not UTF-8 (os.fsdecode's surrogateescape)
        return f"\\x{code - 0xDC00:02x}"
    return ascii(ch)[1:-1]


@dataclass(frozen=True)
class Extras:
    voxel: float | None = None
    out: Path | None = None
    plot: Path | None = None


def check(voxel, out, plot, points=None) -> Extras:
    """The checked options (:class:`OptionError` with one line for a bad one).

    ``points`` is the ``--points`` file, if any: ``--out`` may not name it (the PLY
    written at the end would replace the cloud it was computed from)."""
    for flag, path in (("--out", out), ("--plot", plot)):
        if path is not None and str(path) == "":
            raise OptionError(f"{flag} '': a file name is needed")
        if path is not None and (str(path).endswith(("/", os.sep)) or _is_dir(flag, path)):
            raise OptionError(f"{flag} {path!r}: a file name is needed, not a folder")
        if path is not None and Path(path).name.startswith(".") and not Path(path).suffix:
            # ".ply" or ".png" alone: a dot file, which the extension rules would misread
            raise OptionError(f"{flag} {path!r}: a file name is needed before "
                              f"{Path(path).name}")
    if voxel is not None and not (math.isfinite(voxel) and voxel > 0):
        raise OptionError(f"--voxel must be a positive, finite voxel edge length; got {voxel}")
    if out is not None:
        if voxel is None:
            raise OptionError("--out writes the downsampled cloud: it needs --voxel SIZE")
        if Path(out).suffix.lower() != ".ply":
            raise OptionError(f"--out writes a PLY file: its name must end in .ply; got {out}")
        try:
            import plyfile  # noqa: F401
        except ImportError:
            raise OptionError("--out needs the 'plyfile' package, which is not installed: "
                            "pip install 'xstride[demo]'") from None
    if plot is not None:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            raise OptionError(f"--plot needs matplotlib, which is not installed: {PLOT_INSTALL}") from None
        except Exception as exc:   # installed, but its import fails: MPLBACKEND=nonsense
            setting = os.environ.get("MPLBACKEND")
            raise OptionError(f"--plot: matplotlib is installed but its import failed "
                              f"({type(exc).__name__}: {one_line(exc)})"
                              + (f"; the environment sets MPLBACKEND={setting!r}"
                                 if setting is not None else "")) from None
        try:
            # the modules the picture takes (demo_plot.py): a broken installation (no
            # matplotlib.backend_bases) is found here, not after the pipeline ran
            import matplotlib.backend_bases  # noqa: F401
            import matplotlib.backends.backend_agg  # noqa: F401
            import matplotlib.collections  # noqa: F401
            import matplotlib.colors  # noqa: F401
            import matplotlib.figure  # noqa: F401
            import matplotlib.patches  # noqa: F401
        except Exception as exc:
            setting = os.environ.get("MPLBACKEND")
            raise OptionError(f"--plot: matplotlib is installed but its import failed "
                              f"({type(exc).__name__}: {one_line(exc)})"
                              + (f"; the environment sets MPLBACKEND={setting!r}"
                                 if setting is not None else "")) from None
        _plot_format(plot)
    for flag, path in (("--out", out), ("--plot", plot)):
        if path is None:
            continue
        target = _plot_name(path) if flag == "--plot" else path
        try:
            target = Path(target).resolve()
        except (RuntimeError, OSError):  # a symlink loop (OSError from Python 3.13)
            raise OptionError(f"{flag} {path}: cannot write the file (its path runs "
                              "through a symbolic link loop)") from None
        folder = target.parent
        if not _is_dir(flag, folder):
            what = "is a file, not a folder" if folder.exists() else "does not exist"
            raise OptionError(f"{flag} {path}: cannot write the file (the folder "
                              f"{folder} {what})")
        denied = _denied(target)
        if denied is not None:
            raise OptionError(f"{flag} {path}: cannot write the file (Permission denied: "
                              f"{denied})")
    if out is not None and points is not None and _same_file(out, points):
        raise OptionError(f"--out {out}: is the --points file {points}; writing it would "
                          "replace the input cloud: choose another name")
    if plot is not None:
        plot = _plot_name(plot)  # what matplotlib's savefig writes: the name says so
    return Extras(voxel, None if out is None else Path(out), None if plot is None else Path(plot))


def _plot_name(plot) -> str:
    """The file matplotlib's ``savefig`` writes for ``--plot plot``: the name as given,
    or, without an extension, the name less any trailing dots and ``.png``
    (``plots/fig.`` is ``plots/fig.png``, not ``plots/fig..png``)."""
    return str(plot) if Path(plot).suffix else f"{str(plot).rstrip('.')}.png"


def _denied(target: Path) -> str | None:
    """Why the process may not write the file ``target`` (a resolved path), or ``None``:
    an existing file it may not write, or a folder it may not create the file in
    (``os.access``, with the effective ids where the platform has them). Checked here so
    that a user who cannot write the output learns it before the pipeline runs, not
    after; what ``access`` cannot foresee still fails at the write, as one line too."""
    kwargs = {"effective_ids": True} if os.access in os.supports_effective_ids else {}
    if target.exists():
        return None if os.access(target, os.W_OK, **kwargs) else f"{target} is read-only"
    if os.access(target.parent, os.W_OK | os.X_OK, **kwargs):
        return None
    return f"the folder {target.parent} is not writable"


def _is_dir(flag, path) -> bool:
    """``Path(path).is_dir()``; an error other than "no such file" (a name too long for
    the file system: ENAMETOOLONG) is an :class:`OptionError` naming the option."""
    try:
        return Path(path).is_dir()
    except OSError as exc:
        raise OptionError(f"{flag} {path}: cannot write the file "
                          f"({exc.strerror or exc})") from None


def _same_file(a, b) -> bool:
    """Whether the paths ``a`` and ``b`` name one existing file (the same name, a
    symbolic link to it or a hard link); ``False`` where either cannot be looked up."""
    try:
        return os.path.samefile(a, b)
    except (OSError, ValueError):   # a missing file (for --points, its own error later)
        return False


def _plot_format(plot) -> None:
    """A ``--plot`` name whose extension matplotlib cannot write (its ``savefig`` would
    raise only after the pipeline ran), or ``.pgf`` without the TeX system matplotlib
    writes it through: :class:`OptionError`. No extension: PNG (the caller appends
    ``.png``)."""
    ext = Path(plot).suffix.lower().lstrip(".")
    if not ext:
        return
    import shutil

    import matplotlib
    from matplotlib.backend_bases import FigureCanvasBase

    # .pgf is written through a TeX system, which savefig starts at the end
    tex = matplotlib.rcParams["pgf.texsystem"]
    no_tex = shutil.which(tex) is None
    formats = sorted(FigureCanvasBase.get_supported_filetypes())
    if ext not in formats:
        raise OptionError(f"--plot {plot}: matplotlib cannot write .{ext} files; use one of "
                          f"{', '.join(f for f in formats if not (f == 'pgf' and no_tex))}")
    if ext == "pgf" and no_tex:
        raise OptionError(f"--plot {plot}: matplotlib writes .pgf files through {tex}, "
                          "which is not installed (not on PATH); use .pdf or .svg, or "
                          "install a TeX system")


def check_voxel_span(extras: Extras | None, lower, upper) -> None:
    """``--voxel SIZE`` whose grid over the points' bounding box (``lower``, ``upper``:
    the columns' minima and maxima) needs more voxels per axis than a Morton key holds:
    the voxel stage's :class:`OptionError`, with its message, as soon as the box is
    known, rather than after the keys, the sort and the tree have run."""
    if extras is None or extras.voxel is None:
        return
    from ..algorithms.voxels import check_span

    try:
        check_span(lower, upper, extras.voxel)
    except ValueError as exc:
        raise OptionError(_voxel_error(extras.voxel, exc)) from None


def _voxel_error(voxel: float, exc: ValueError) -> str:
    """The voxel stage's error with the value as given (``repr``, the shortest text that
    reads back as it: ``:g`` wrote 4.76837158203125e-07 as 4.76837e-07) and its axes
    named as the demo's other errors name them (``axis 0`` of the library: ``axis x``)."""
    text = re.sub(r"\bon axis ([0-2])\b", lambda m: f"on axis {'xyz'[int(m[1])]}", str(exc))
    return f"--voxel {voxel!r}: {text}"


def run(extras: Extras | None, stage, alg, am, be, pos, sorted_pos, tree, rows, box_lower,
        box_upper, source) -> dict:
    """Run the stages the options ask for (``stage(name, fn)`` times each); returns the
    JSON records they add (``"voxel"``, ``"files"``)."""
    if extras is None:
        return {}
    out: dict = {}
    npts = int(pos.shape[0])
    cloud = None
    if extras.voxel is not None:
        try:
            cent, counts = stage("voxel downsample",
                                 lambda: alg.voxel_downsample(pos, extras.voxel))
        except ValueError as exc:  # more voxels than a Morton key holds
            raise OptionError(_voxel_error(extras.voxel, exc)) from None
        out["voxel"] = demo_tree.voxel_stats(am, be.to_host, extras.voxel, counts, npts,
                                             demo_tree.device_sort(alg))
        if extras.out is not None or extras.plot is not None:
            cloud = (np.asarray(be.to_host(cent)), np.asarray(be.to_host(counts)))
    files = {}
    if extras.out is not None:
        try:
            stage("write ply", lambda: demo_tree.write_ply(extras.out, *cloud))
        except demo_tree.PlyWriteError as exc:
            raise OptionError(str(exc)) from None
        files["ply"] = shown_path(extras.out)
    if extras.plot is not None:
        from . import demo_plot

        def draw():
            step = max(1, -(-npts // MAX_PLOT_POINTS))
            sample = np.asarray(be.to_host(sorted_pos[::step]), dtype=np.float64)
            demo_plot.render(extras.plot, alg=alg, sample=sample, n_points=npts,
                             lower=box_lower, upper=box_upper, rows=rows, source=source,
                             voxels=cloud)

        try:
            stage("plot", draw)
        except OSError as exc:
            raise OptionError(f"--plot {extras.plot}: cannot write the file "
                            f"({exc.strerror or exc})") from None
        files["plot"] = shown_path(extras.plot)
    if files:
        out["files"] = files
    return out


#: Width of the label column of the demo's table (the values start two spaces after it).
LABEL = 20


def table_lines(result: dict) -> list[str]:
    """The tree (and voxel) part of the demo's table."""
    rows = result.get("tree", [])
    lines = ["  tree level         nodes     points per node:  min      median         max"] \
        if rows else []
    for r in rows:
        lines.append(f"  {r['level']:>10}  {r['nodes']:>12,}  {r['min']:>24,}  "
                     f"{_median(r['median']):>10}  {r['max']:>10,}")
    if rows:
        lines.append("")
    vox = result.get("voxel")
    if vox is not None:
        label = f"voxels of {vox['size']:.6g}"
        mean = grouped(vox['reduction'], 3)
        lines += [f"  {label:<{LABEL}}  {vox['voxels']:,} "
                  f"({mean} {'point' if mean == '1' else 'points'} per voxel on average)",
                  f"  points per voxel      min {vox['min']:,}  median {_median(vox['median'])}  "
                  f"max {vox['max']:,}", ""]
    for kind, path in result.get("files", {}).items():
        lines.append(f"  wrote {kind:<14}  {path}")
    if result.get("files"):
        lines.append("")
    return lines


def grouped(value: float, digits: int) -> str:
    """``value`` rounded to ``digits`` significant digits, written as the counts beside
    it are: fixed notation with digit separators (``4,493`` and ``46,880`` where ``.4g``
    wrote ``4493`` and ``4.688e+04``), trailing zeros of a fraction dropped."""
    if value == 0 or not math.isfinite(value):
        return f"{value:.{digits}g}"
    rounded = float(f"{value:.{digits}g}")
    text = f"{rounded:,.{max(0, digits - 1 - math.floor(math.log10(abs(rounded))))}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def _median(value: float) -> str:
    return f"{int(value):,}" if value == int(value) else f"{value:,.1f}"
