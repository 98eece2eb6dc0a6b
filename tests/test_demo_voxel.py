"""The demo's tree statistics, ``--voxel``, ``--out FILE.ply`` and ``--plot FILE.png``:
results against independent references, the PLY round trip, the picture, every user error."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from xstride._cli import demo, demo_extras, demo_plot, demo_tree
from xstride._cli.pointio import read_points
from xstride.__main__ import main

ROOT = Path(__file__).resolve().parents[1]


def run_json(capsys, *argv):
    assert main(["demo", "--json", *argv]) == 0
    captured = capsys.readouterr()
    return json.loads(captured.out)


def demo_cells(points, levels):
    """The demo's level-``levels`` cells by an independent route (its box: the bounding
    box; the tests' clouds have no flat axis)."""
    pts = np.asarray(points, dtype=np.float64)
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    scale = 2.0**levels / (hi - lo)
    return np.clip(np.floor((pts - lo) * scale), 0, 2**levels - 1).astype(np.int64)


def expected_rows(points, levels):
    cells = demo_cells(points, levels)
    rows = []
    for level in range(levels + 1):
        _, counts = np.unique(cells >> (levels - level), axis=0, return_counts=True)
        hist = np.bincount(np.floor(np.log2(counts)).astype(int),
                           minlength=len(points).bit_length())
        rows.append({"level": level, "nodes": len(counts), "min": int(counts.min()),
                     "median": float(np.median(counts)), "max": int(counts.max()),
                     "histogram_log2": hist.tolist()})
    return rows


def cloud(tmp_path, n=3000, ndim=3, seed=0):
    pts = np.random.default_rng(seed).normal(size=(n, ndim))
    path = tmp_path / f"cloud{ndim}.npy"
    np.save(path, pts)
    return pts, str(path)


# --------------------------------------------------------------------- tree statistics
@pytest.mark.parametrize("ndim, levels", [(3, 6), (2, 9)])
def test_tree_rows_equal_an_independent_reference(tmp_path, capsys, ndim, levels):
    pts, path = cloud(tmp_path, ndim=ndim)
    res = run_json(capsys, "--points", path, "--levels", str(levels))
    assert res["tree"] == expected_rows(pts, levels)
    assert [s["name"] for s in res["stages"]][-1] == "morton tree"


def test_tree_rows_of_the_bunny(shared_dir, capsys):
    path = shared_dir / "data" / "bunny.ply"
    res = run_json(capsys, "--points", str(path), "--levels", "8")
    assert res["tree"] == expected_rows(read_points(path), 8)
    assert "voxel" not in res and "files" not in res


def test_tree_rows_from_runs_equal_tree_rows():
    """The dask demo's route (the finest runs on the host) and morton_tree's agree."""
    from xstride import algorithms as alg

    rng = np.random.default_rng(3)
    keys = np.sort(rng.integers(0, 2**18, 5000).astype(np.uint64) * np.uint64(5))
    _, rows = demo_tree.tree_rows(alg, np, np.asarray, keys, 3, 7)
    uniq, counts = np.unique(keys, return_counts=True)
    assert demo_tree.tree_rows_from_runs(uniq, counts, 3, 7, keys.size) == rows


@pytest.mark.parametrize("m", [1, 2, 7, 1000, 1001])
def test_level_row_on_the_device_route_equals_the_host_route(monkeypatch, m):
    """Above HOST_STATS_MAX the counts are sorted on the backend and summarized from a
    few values read back: the same row as NumPy's frexp/bincount/median."""
    import array_api_compat.numpy as anp

    rng = np.random.default_rng(m)
    n_points = 5000
    counts = rng.integers(1, n_points + 1, m).astype(np.int64)
    counts[rng.integers(0, m)] = 2 ** 12      # a count on a bin edge
    want = demo_tree.level_row(np, 3, counts, n_points)
    sorted_with = []

    def sort(c, bits):
        sorted_with.append(bits)
        return anp.sort(c)
    monkeypatch.setattr(demo_tree, "HOST_STATS_MAX", 0)
    got = demo_tree.level_row(anp, 3, anp.asarray(counts), n_points, np.asarray, sort)
    assert got == want and sorted_with == [n_points.bit_length()]
    assert sum(got["histogram_log2"]) == m


def test_table_lists_every_level(tmp_path, capsys):
    _, path = cloud(tmp_path)
    assert main(["demo", "--points", path, "--levels", "4"]) == 0
    out = capsys.readouterr().out
    assert "tree level" in out and "points per node" in out
    lines = [ln.split() for ln in out.splitlines()]
    levels = [ln[0] for ln in lines if len(ln) == 5 and ln[0].isdigit()]
    assert levels == ["0", "1", "2", "3", "4"]


# --------------------------------------------------------------------- --voxel and --out
def expected_voxels(points, size):
    p = np.asarray(points, dtype=np.float64)
    vox = np.floor((p - p.min(axis=0)) / size).astype(np.int64)
    _, counts = np.unique(vox, axis=0, return_counts=True)
    return counts


@pytest.mark.parametrize("size", ["0.3", "1"])
def test_voxel_record(tmp_path, capsys, size):
    pts, path = cloud(tmp_path)
    res = run_json(capsys, "--points", path, "--voxel", size)
    counts = expected_voxels(pts, float(size))
    assert res["voxel"] == {"size": float(size), "voxels": len(counts), "min": int(counts.min()),
                            "median": float(np.median(counts)), "max": int(counts.max()),
                            "reduction": len(pts) / len(counts)}
    assert "voxel downsample" in [s["name"] for s in res["stages"]]


def test_out_round_trip(shared_dir, tmp_path, capsys):
    from xstride import algorithms as alg

    src = shared_dir / "data" / "bunny.ply"
    out = tmp_path / "down.ply"
    res = run_json(capsys, "--points", str(src), "--voxel", "0.004", "--out", str(out))
    assert res["files"] == {"ply": str(out)}
    back = read_points(out)
    cent, counts = alg.voxel_downsample(read_points(src), 0.004)
    assert back.tolist() == cent.tolist() and res["voxel"]["voxels"] == len(cent)
    import plyfile

    vertex = plyfile.PlyData.read(str(out))["vertex"]
    assert vertex["count"].tolist() == counts.tolist() and vertex["x"].dtype == np.float64


@pytest.mark.parametrize("how", ["same", "dotted", "symlink", "hardlink"])
def test_out_onto_the_points_file_is_refused(tmp_path, capsys, monkeypatch, how):
    """``--out`` naming the ``--points`` file (or a link to it) replaced the input cloud
    with the downsampled one, status 0."""
    monkeypatch.chdir(tmp_path)
    _, path = cloud(tmp_path, n=300)
    src = tmp_path / "in.ply"
    demo_tree.write_ply(src, read_points(path), np.ones(300, dtype=np.int64))
    before = src.read_bytes()
    out = {"same": "in.ply", "dotted": "./in.ply", "symlink": "link.ply",
           "hardlink": "hard.ply"}[how]
    if how == "symlink":
        (tmp_path / out).symlink_to(src)
    elif how == "hardlink":
        (tmp_path / out).hardlink_to(src)
    assert main(["demo", "--points", "in.ply", "--voxel", "0.5", "--out", out]) == 2
    err = capsys.readouterr().err
    assert err == (f"xstride demo: error: --out {out}: is the --points file in.ply; writing "
                   "it would replace the input cloud: choose another name\n")
    assert src.read_bytes() == before


def test_out_of_a_2d_cloud_has_z_zero(tmp_path, capsys):
    from xstride import algorithms as alg

    pts, path = cloud(tmp_path, ndim=2)
    out = tmp_path / "flat.ply"
    run_json(capsys, "--points", path, "--voxel", "0.5", "--out", str(out))
    back = read_points(out)
    cent, _ = alg.voxel_downsample(pts, 0.5)
    assert back[:, :2].tolist() == cent.tolist() and (back[:, 2] == 0).all()


def test_table_shows_voxels_and_files(tmp_path, capsys):
    _, path = cloud(tmp_path)
    out = tmp_path / "d.ply"
    assert main(["demo", "--points", path, "--voxel", "0.5", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "voxels of 0.5" in text and "points per voxel" in text and str(out) in text


@pytest.mark.parametrize("argv, needle", [
    (["--voxel", "0"], "--voxel must be a positive, finite voxel edge length; got 0.0"),
    (["--voxel", "-2"], "--voxel must be a positive, finite voxel edge length; got -2.0"),
    (["--voxel", "nan"], "--voxel must be a positive, finite voxel edge length; got nan"),
    (["--voxel", "inf"], "--voxel must be a positive, finite voxel edge length; got inf"),
    (["--out", "x.ply"], "--out writes the downsampled cloud: it needs --voxel SIZE"),
    (["--voxel", "1", "--out", "x.txt"], "--out writes a PLY file: its name must end in .ply"),
    # was "its name must end in .ply; got .ply": a name of a dot alone has no suffix
    (["--voxel", "1", "--out", "d/.PLY"], "--out 'd/.PLY': a file name is needed before .PLY"),
    # --plot .png wrote '.png.png'; a trailing slash (a folder meant) wrote 'a.png'
    (["--plot", ".png"], "--plot '.png': a file name is needed before .png"),
    (["--plot", "a.png/"], "--plot 'a.png/': a file name is needed, not a folder"),
    (["--voxel", "1", "--out", "x.ply/"], "--out 'x.ply/': a file name is needed, not a folder"),
    (["--voxel", "1", "--out", "/nonexistent-dir/x.ply"], "--out /nonexistent-dir/x.ply: "
                                                          "cannot write the file (the folder"),
    (["--voxel", "1", "--out", "/proc/x.ply"], "--out /proc/x.ply: cannot write the file"),
    (["--voxel", "1e-300"], "voxel_size"),   # more voxels than a Morton key holds
])
def test_bad_voxel_options_are_one_line(capsys, argv, needle):
    assert main(["demo", "--n", "2000", *argv]) == 2
    err = capsys.readouterr().err
    assert needle in err and err.count("\n") == 1 and "Traceback" not in err


class _StageNames(demo.Progress):
    """A progress display that records the stages started, and shows nothing."""

    def __init__(self):
        super().__init__()
        self.names = []

    def start(self, name):
        self.names.append(name)

    def stop(self):
        pass


def _library_error(points, size):
    """``voxel_downsample``'s message for ``size`` as the demo prints it, or ``None``."""
    from xstride import algorithms as alg

    try:
        alg.voxel_downsample(points, size)
    except ValueError as exc:
        return f"--voxel {size:g}: {exc}"
    return None


@pytest.mark.parametrize("ndim, size", [(3, 1e-9), (2, 1e-12)])
def test_voxel_grid_past_a_morton_key_is_refused_once_the_box_is_known(tmp_path, ndim, size):
    """More voxels per axis than a Morton key holds (2**21 in 3-D, 2**32 in 2-D) was
    refused only by the voxel stage, after the keys, the sort and the tree had run; it
    is refused once the bounding box is known, with the voxel stage's message."""
    pts, path = cloud(tmp_path, ndim=ndim)
    expected = _library_error(pts, size)
    assert expected is not None and f"holds at most 2**{21 if ndim == 3 else 32}" in expected
    stages = _StageNames()
    with pytest.raises(demo.DemoError) as info:
        demo.pipeline(points=path, voxel=size, progress=stages)
    assert str(info.value) == expected
    assert stages.names == ["read points", "bounding box"]


@pytest.mark.parametrize("ndim", [3, 2])
def test_voxel_span_refused_early_exactly_where_the_voxel_stage_refuses(tmp_path, ndim):
    """At the edge of the limit (the widest axis's extent over 2**21 or 2**32, and the
    next float above it) the early check and voxel_downsample agree."""
    pts, path = cloud(tmp_path, ndim=ndim)
    extent = float((pts.max(axis=0) - pts.min(axis=0)).max())
    edge = extent / 2.0 ** (21 if ndim == 3 else 32)
    outcomes = []
    for size in (edge, float(np.nextafter(edge, np.inf))):
        expected = _library_error(pts, size)
        stages = _StageNames()
        if expected is None:
            res = demo.pipeline(points=path, voxel=size, progress=stages, levels=4)
            assert res["voxel"]["voxels"] >= 1 and "voxel downsample" in stages.names
        else:
            with pytest.raises(demo.DemoError, match="Morton key holds at most") as info:
                demo.pipeline(points=path, voxel=size, progress=stages, levels=4)
            assert str(info.value) == expected and "morton keys" not in stages.names
        outcomes.append(expected is None)
    assert outcomes == [False, True]


def test_voxel_error_via_subprocess(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "xstride", "demo", "--n", "100", "--voxel", "-1"],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert proc.returncode == 2 and "--voxel must be a positive" in proc.stderr
    assert "Traceback" not in proc.stderr


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
