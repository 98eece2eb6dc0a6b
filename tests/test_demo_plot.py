"""The demo's ``--plot FILE.png``, and the checks ``--plot`` and ``--out`` share: the
picture, its helpers, every user error (split from tests/test_demo_voxel.py, past 600
lines)."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.test_demo_voxel import cloud, run_json
from xstride._cli import demo_extras, demo_plot
from xstride.__main__ import main

ROOT = Path(__file__).resolve().parents[1]


# --------------------------------------------------------------------- --plot
def test_plot_without_matplotlib_says_how_to_install(capsys, monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "matplotlib", None)   # import matplotlib -> ImportError
    png = tmp_path / "p.png"
    assert main(["demo", "--n", "1000", "--plot", str(png)]) == 2
    err = capsys.readouterr().err
    assert "--plot needs matplotlib" in err and "pip install 'xstride[plot]'" in err
    assert err.count("\n") == 1 and not png.exists()


def test_plot_with_a_matplotlib_whose_import_fails_is_one_line(capsys, monkeypatch, tmp_path):
    """An installed matplotlib whose import raises (``MPLBACKEND=nonsense``: a ValueError
    listing the valid backends) was a traceback; it is one line naming the error and the
    variable, exit status 2, before any point is drawn."""
    class Broken:
        def find_spec(self, name, path=None, target=None):
            if name == "matplotlib":
                raise ValueError("Key backend: 'nonsense' is not a valid value for backend")
            return None

    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setattr(sys, "meta_path", [Broken(), *sys.meta_path])
    monkeypatch.setenv("MPLBACKEND", "nonsense")
    png = tmp_path / "p.png"
    assert main(["demo", "--n", "1000", "--plot", str(png)]) == 2
    err = capsys.readouterr().err
    assert err == ("xstride demo: error: --plot: matplotlib is installed but its import failed "
                   "(ValueError: Key backend: 'nonsense' is not a valid value for backend); "
                   "the environment sets MPLBACKEND='nonsense'\n")
    assert not png.exists()


def test_plot_with_a_matplotlib_missing_a_module_is_one_line(tmp_path):
    """A broken installation (``matplotlib`` imports, ``matplotlib.backend_bases`` does
    not): the check imported ``matplotlib`` alone, and the picture's own imports raised a
    traceback (a new-user probe); now one line, exit status 2, before any point is drawn.
    (A process of its own: the stand-in package stays out of this one's modules.)"""
    fake = tmp_path / "site" / "matplotlib"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("")
    png = tmp_path / "p.png"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path / "site"), str(ROOT)])}
    proc = subprocess.run([sys.executable, "-m", "xstride", "demo", "--n", "1000", "--plot",
                           str(png)], capture_output=True, text=True, cwd=ROOT, env=env,
                          timeout=120)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr == ("xstride demo: error: --plot: matplotlib is installed but its "
                           "import failed (ModuleNotFoundError: No module named "
                           "'matplotlib.backend_bases')\n")
    assert not png.exists()


@pytest.mark.parametrize("ndim, voxel", [(3, None), (3, "0.4"), (2, "0.3")])
def test_plot_writes_a_png(tmp_path, capsys, ndim, voxel):
    pytest.importorskip("matplotlib")
    _, path = cloud(tmp_path, n=4000, ndim=ndim)
    png = tmp_path / "picture.png"
    extra = ["--voxel", voxel] if voxel else []
    res = run_json(capsys, "--points", path, "--plot", str(png), *extra)
    assert res["files"]["plot"] == str(png)
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 50_000
    from matplotlib.image import imread

    img = imread(str(png))
    assert img.shape[1] > 2 * img.shape[0]   # the panels side by side
    assert img[..., :3].std() > 0.1            # not a blank canvas
    assert "plot" in [s["name"] for s in res["stages"]]


def test_plot_as_postscript_prints_no_library_line(tmp_path, capsys, caplog):
    """A new-user probe: ``--plot x.eps`` printed matplotlib's "The PostScript backend
    does not support transparency; ..." on stderr, the one library line of a demo run."""
    pytest.importorskip("matplotlib")
    _, path = cloud(tmp_path, n=500, ndim=3)
    eps = tmp_path / "picture.eps"
    res = run_json(capsys, "--points", path, "--plot", str(eps))
    assert res["files"]["plot"] == str(eps)
    assert eps.read_bytes().startswith(b"%!PS-Adobe")
    assert "transparency" not in capsys.readouterr().err
    assert not [r for r in caplog.records if "transparency" in r.getMessage()]


@pytest.mark.parametrize("scale", [
    [1.79e308, 1.0, 1.0],   # x reaches the float64 limit: matplotlib's ticks overflowed
    [1e300, 1e-10, 1.0],    # sides 1e310-fold apart: drawn to scale, a singular matrix
    [1e20, 1.0, 1.0],       # drawn to scale the panel was a line: the points invisible
])
def test_plot_of_an_extreme_cloud_is_drawn(tmp_path, capsys, scale):
    """A new-user probe: ``--plot`` of a cloud near +-1.8e308 or of very unequal sides
    ended with a matplotlib traceback and status 1 after the whole pipeline ran."""
    pytest.importorskip("matplotlib")
    pts = np.random.default_rng(5).random((2000, 3)) * np.array(scale)
    path = tmp_path / "extreme.npy"
    np.save(path, pts)
    png = tmp_path / "extreme.png"
    res = run_json(capsys, "--points", str(path), "--voxel", "1e305", "--plot", str(png))
    assert res["files"]["plot"] == str(png) and png.read_bytes()[:4] == b"\x89PNG"
    low, high = demo_plot.panel_limits(pts.min(axis=0), pts.max(axis=0))
    assert np.isfinite(high - low).all() and (low <= pts.min(axis=0)).all()
    assert demo_plot.equal_aspect(low[:2], high[:2]) is (scale[0] <= 100 * scale[1])


def test_plot_to_a_bad_path_is_one_line(capsys):
    pytest.importorskip("matplotlib")
    assert main(["demo", "--n", "500", "--plot", "/nonexistent-dir/p.png"]) == 2
    err = capsys.readouterr().err
    assert "--plot /nonexistent-dir/p.png: cannot write the file" in err and err.count("\n") == 1
    assert main(["demo", "--n", "500", "--plot", "/proc/p.png"]) == 2   # a folder one cannot write
    err = capsys.readouterr().err
    assert "--plot /proc/p.png: cannot write the file" in err and "Traceback" not in err


@pytest.mark.parametrize("name", ["p.txt", "p.PLY"])
def test_plot_to_a_format_matplotlib_cannot_write_is_one_line(capsys, tmp_path, name):
    # checked before any work: matplotlib would raise only after the whole pipeline ran
    pytest.importorskip("matplotlib")
    assert main(["demo", "--n", "500", "--plot", str(tmp_path / name)]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.count("\n") == 1
    assert f"--plot {tmp_path / name}: matplotlib cannot write" in err and "png" in err
    assert not (tmp_path / name).exists()


def test_plot_formats_listed_are_those_that_can_be_written(capsys, tmp_path, monkeypatch):
    """Without a TeX system the list of formats offered for a name matplotlib cannot
    write named pgf, which the next error says cannot be written."""
    pytest.importorskip("matplotlib")
    monkeypatch.setenv("PATH", str(tmp_path))   # no TeX system to be found
    assert main(["demo", "--n", "500", "--plot", str(tmp_path / "p.txt")]) == 2
    listed = capsys.readouterr().err.split("use one of ")[1].strip().split(", ")
    assert "png" in listed and "pdf" in listed and "pgf" not in listed


def test_plot_to_pgf_without_its_tex_system_is_one_line_before_any_work(capsys, tmp_path,
                                                                       monkeypatch):
    """matplotlib writes .pgf through a TeX system (xelatex): without one, savefig raised
    "RuntimeError: 'xelatex' not found" after the whole pipeline, a traceback and
    status 1."""
    pytest.importorskip("matplotlib")
    monkeypatch.setenv("PATH", str(tmp_path))   # no TeX system to be found
    name = tmp_path / "p.pgf"
    assert main(["demo", "--n", "500", "--plot", str(name)]) == 2
    err = capsys.readouterr().err
    assert err == (f"xstride demo: error: --plot {name}: matplotlib writes .pgf files through "
                   "xelatex, which is not installed (not on PATH); use .pdf or .svg, or "
                   "install a TeX system\n")
    assert not name.exists()


def test_plot_without_an_extension_names_the_png_it_writes(capsys, tmp_path):
    # matplotlib appends .png to a name without an extension: the record must name that file
    pytest.importorskip("matplotlib")
    res = run_json(capsys, "--n", "300", "--plot", str(tmp_path / "pic"))
    assert res["files"]["plot"] == str(tmp_path / "pic.png")
    assert (tmp_path / "pic.png").is_file() and not (tmp_path / "pic").exists()


@pytest.mark.parametrize("name, written", [("fig.", "fig.png"), ("fig..", "fig.png"),
                                           ("a.b.", "a.b.png")])
def test_plot_name_ending_in_a_dot_names_the_png_matplotlib_writes(capsys, tmp_path, name,
                                                                   written):
    """``--plot fig.`` (no extension to Python) was announced and checked as
    ``fig..png``; matplotlib's savefig drops the trailing dots: ``fig.png``."""
    pytest.importorskip("matplotlib")
    res = run_json(capsys, "--n", "300", "--plot", str(tmp_path / name))
    assert res["files"]["plot"] == str(tmp_path / written)
    assert sorted(os.listdir(tmp_path)) == [written]


def test_plot_titles_count_one_in_the_singular(capsys, tmp_path, monkeypatch):
    """One point in one occupied cell was drawn as "the 1 occupied cells", "1 points"."""
    pytest.importorskip("matplotlib")
    from matplotlib.figure import Figure

    titles = []
    monkeypatch.setattr(Figure, "savefig", lambda fig, path: titles.extend(
        [fig._suptitle.get_text()] + [ax.get_title() for ax in fig.axes]))
    path = tmp_path / "one.npy"
    np.save(path, np.array([[0.5, 0.5, 0.5]]))
    run_json(capsys, "--points", str(path), "--levels", "1", "--voxel", "0.5", "--plot",
             str(tmp_path / "p.png"))
    text = " | ".join(titles)
    assert "\n1 point (3-D), Morton keys of 1 level" in text, text
    assert "the Z-curve through the 1 occupied cell of" in text, text
    assert "voxel_downsample: 1 voxel centroid\n" in text and "(1 point)" in text, text
    assert demo_plot.counted(1000, "cell") == "1,000 cells"


@pytest.mark.parametrize("flag", ["--plot", "--out"])
def test_plot_or_out_to_a_folder_or_empty_name_is_one_line(capsys, tmp_path, monkeypatch, flag):
    # a folder wrote <folder>.png beside it (--plot) or failed after the pipeline (--out)
    pytest.importorskip("matplotlib")
    monkeypatch.chdir(tmp_path)
    folder = tmp_path / "d.ply"
    folder.mkdir()
    for name, needle in (("", f"{flag} '': a file name is needed\n"),
                         (str(folder), "a file name is needed, not a folder")):
        assert main(["demo", "--n", "300", "--voxel", "0.1", flag, name]) == 2
        err = capsys.readouterr().err
        assert needle in err and err.count("\n") == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d.ply"]


@pytest.mark.parametrize("flag, name, why", [
    ("--out", "x.ply", "the folder {folder} is not writable"),
    ("--plot", "x", "the folder {folder} is not writable"),   # writes x.png
    ("--out", "ro.ply", "{folder}/ro.ply is read-only"),
    ("--plot", "ro.png", "{folder}/ro.png is read-only"),
])
def test_out_or_plot_one_may_not_write_is_refused_before_the_points(
        tmp_path, capsys, monkeypatch, flag, name, why):
    """An ``--out``/``--plot`` in a folder the user may not write, or onto a read-only
    file, failed only after the whole pipeline ran (a large cloud: minutes lost)."""
    pytest.importorskip("matplotlib")
    folder = (tmp_path / "ro").resolve()
    folder.mkdir()
    for f in ("ro.ply", "ro.png"):
        (folder / f).write_bytes(b"")
        (folder / f).chmod(0o444)
    folder.chmod(0o555)
    if os.access(folder, os.W_OK):
        # a process that writes past the permission bits (root): the answer a user gets
        real = os.access
        monkeypatch.setattr(demo_extras.os, "access", lambda p, mode, **kw: (
            real(p, mode, **kw) and Path(p) != folder and Path(p).parent != folder))
    missing = tmp_path / "missing.npy"   # the --points file is read after the check
    argv = ["demo", "--points", str(missing), "--voxel", "0.1", flag, str(folder / name)]
    try:
        assert main(argv) == 2
    finally:
        folder.chmod(0o755)
    err = capsys.readouterr().err
    assert err == (f"xstride demo: error: {flag} {folder / name}: cannot write the file "
                   f"(Permission denied: {why.format(folder=folder)})\n")


@pytest.mark.parametrize("flag, ext", [("--out", ".ply"), ("--plot", ".png")])
def test_plot_or_out_below_a_file_says_it_is_a_file(tmp_path, capsys, flag, ext):
    """``--out cloud.ply/x.ply`` where ``cloud.ply`` is a file said that the folder
    ``cloud.ply`` does not exist."""
    (tmp_path / "cloud.ply").write_bytes(b"ply\n")
    path = tmp_path / "cloud.ply" / f"x{ext}"
    assert main(["demo", "--n", "300", "--voxel", "0.1", flag, str(path)]) == 2
    assert capsys.readouterr().err == (
        f"xstride demo: error: {flag} {path}: cannot write the file (the folder "
        f"{tmp_path / 'cloud.ply'} is a file, not a folder)\n")


def test_file_names_that_are_not_utf8_are_shown_escaped(tmp_path, capsys, monkeypatch):
    """A ``--points``/``--out``/``--plot`` name holding bytes that are not UTF-8 (Python
    holds them as lone surrogates) stopped matplotlib drawing the title (a TypeError
    traceback after the pipeline ran) and a stdout with strict errors printing the
    table (UnicodeEncodeError). The outputs show such bytes as ``\\xNN``; the files
    keep their names."""
    pytest.importorskip("matplotlib")
    pts, path = cloud(tmp_path, n=300)
    raw = os.fsencode(tmp_path)
    src, out, png = (os.fsdecode(raw + name) for name in (b"/in\xff.npy", b"/o\xfe.ply",
                                                           b"/p\xfd"))
    Path(path).rename(src)
    argv = ["demo", "--points", src, "--voxel", "0.5", "--out", out, "--plot", png]
    res = run_json(capsys, *argv[1:])
    assert res["source"] == f"{tmp_path}/in\\xff.npy"
    assert res["files"] == {"ply": f"{tmp_path}/o\\xfe.ply", "plot": f"{tmp_path}/p\\xfd.png"}
    assert os.path.isfile(raw + b"/o\xfe.ply") and os.path.isfile(raw + b"/p\xfd.png")
    strict = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="strict")
    monkeypatch.setattr(sys, "stdout", strict)
    assert main(argv[:-2]) == 0   # the picture once is enough
    strict.flush()
    text = strict.buffer.getvalue().decode("utf-8")
    assert f"xstride demo: {tmp_path}/in\\xff.npy on numpy" in text
    assert f"wrote ply             {tmp_path}/o\\xfe.ply" in text


def test_plot_helpers():
    rows = [{"level": lv, "nodes": n} for lv, n in enumerate([1, 4, 16, 100, 400, 900])]
    assert demo_plot.curve_level(rows) == 3
    assert demo_plot.curve_level([{"level": 0, "nodes": 1}, {"level": 1, "nodes": 999}]) == 1
    assert demo_plot.projection_axes([0, 0, 0], [1, 5, 3]) == (1, 2)
    assert demo_plot.projection_axes([0, 0, 0], [9, 5, 3]) == (0, 1)
    assert demo_plot.projection_axes([0, 0], [1, 9]) == (0, 1)
    assert demo_extras.PLOT_INSTALL == "pip install 'xstride[plot]'"


def test_plane_order_is_the_z_curve_of_the_projection():
    from xstride import algorithms as alg

    pts = np.array([[0.9, 0.9, 5.0], [0.1, 0.1, 0.0], [0.9, 0.1, 1.0], [0.1, 0.9, 2.0]])
    rank, cells, level = demo_plot.plane_order(alg, pts, [0, 0, 0], [1, 1, 5], 0, 1, levels=1)
    assert rank.tolist() == [3.0, 0.0, 1.0, 2.0] and level == 1
    assert cells.tolist() == [[0, 0], [1, 0], [0, 1], [1, 1]]


def test_dask_refuses_the_in_memory_options(capsys):
    pytest.importorskip("distributed")
    assert main(["demo", "--backend", "dask", "--voxel", "1"]) == 2
    assert "--voxel needs the points in one memory" in capsys.readouterr().err


@pytest.mark.parametrize("flag, ext", [("--out", ".ply"), ("--plot", ".png")])
@pytest.mark.parametrize("where", ["name", "folder"])
def test_plot_or_out_with_a_name_too_long_is_one_line(capsys, tmp_path, flag, ext, where):
    """A name past the file system's limit (ENAMETOOLONG from ``Path.is_dir``) ended the
    demo with an OSError traceback before any work."""
    long = "a" * 300
    path = tmp_path / (long + ext if where == "name" else f"{long}/x{ext}")
    assert main(["demo", "--n", "300", "--voxel", "0.1", flag, str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"xstride demo: error: {flag} ") and err.count("\n") == 1
    assert "cannot write the file" in err


@pytest.mark.parametrize("flag, ext", [("--out", ".ply"), ("--plot", ".png")])
@pytest.mark.parametrize("where", ["name", "folder"])
def test_plot_or_out_through_a_symlink_loop_is_one_line(capsys, tmp_path, flag, ext, where):
    """``Path.resolve`` of a name in (or through) a symbolic link loop raised RuntimeError
    ("Symlink loop from ..."): a traceback before any work."""
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    if where == "name":
        (tmp_path / f"loop{ext}").symlink_to(tmp_path / f"loop2{ext}")
        (tmp_path / f"loop2{ext}").symlink_to(tmp_path / f"loop{ext}")
        path = tmp_path / f"loop{ext}"
    else:
        path = tmp_path / "a" / f"x{ext}"
    assert main(["demo", "--n", "300", "--voxel", "0.1", flag, str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"xstride demo: error: {flag} ") and err.count("\n") == 1
    assert "symbolic link loop" in err


def test_occupancy_panel_marks_each_median_and_range_in_their_bins():
    """A new-user probe: column b of the occupancy panel holds the nodes of [2**b,
    2**(b+1)) points, but the median was drawn at log2(median) + 0.5 (a median of 122
    in the "128" column; the root's 1000 past the last column, not shown) and the bar
    ended at log2(max) + 1 (a max of 7 reaching into the "8" column)."""
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [{"level": 0, "nodes": 1, "min": 1000, "median": 1000.0, "max": 1000,
             "histogram_log2": [0] * 9 + [1]},
            {"level": 1, "nodes": 8, "min": 100, "median": 122.0, "max": 130,
             "histogram_log2": [0] * 6 + [6, 2]},
            {"level": 2, "nodes": 200, "min": 1, "median": 5.0, "max": 7,
             "histogram_log2": [40, 60, 100]}]
    fig, ax = plt.subplots()
    try:
        demo_plot._occupancy_panel(ax, fig, rows, 1000)
        marks = [line for line in ax.get_lines() if line.get_label() == "median"]
        assert len(marks) == 1
        xs, ys = marks[0].get_data()
        bars = ax.collections[-1].get_segments()
        lo_x, hi_x = ax.get_xlim()
        for r, x, seg in zip(rows, xs, bars):
            column = int(np.floor(np.log2(r["median"])))
            assert column <= x < column + 1 and lo_x <= x <= hi_x, (r, x)
            assert seg[0][0] == np.floor(np.log2(r["min"]))
            assert seg[1][0] == np.floor(np.log2(r["max"])) + 1, (r, seg)
        np.testing.assert_array_equal(ys, [0, 1, 2])
    finally:
        plt.close(fig)
