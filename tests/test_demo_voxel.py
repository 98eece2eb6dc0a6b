"""The demo's tree statistics, ``--voxel`` and ``--out FILE.ply``: results against
independent references, the PLY round trip, every user error (``--plot``:
tests/test_demo_plot.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from xstride._cli import demo, demo_tree
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
    # argparse took -inf, -nan and -1e-3 for options: "expected one argument"
    (["--voxel", "-inf"], "--voxel must be a positive, finite voxel edge length; got -inf"),
    (["--voxel", "-nan"], "--voxel must be a positive, finite voxel edge length; got nan"),
    (["--voxel", "-1e-3"], "--voxel must be a positive, finite voxel edge length; got -0.001"),
    (["--voxel", "-Infinity"], "--voxel must be a positive, finite voxel edge length; got -inf"),
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
    except ValueError as exc:   # the library's axis 0 is the demo's axis x
        return f"--voxel {size!r}: " + str(exc).replace("on axis 0 ", "on axis x ")
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


@pytest.mark.parametrize("axis", [0, 1, 2])
def test_voxel_grid_error_gives_the_size_as_given_and_names_the_axis(tmp_path, axis):
    """``--voxel 4.76837158203125e-07`` (2**-21) was printed ``4.76837e-07``, and its
    axis ``axis 0``; every other error of the demo names the axis x, y or z."""
    pts = np.zeros((2, 3))
    pts[1, axis] = 1.0 + 2.0**-30          # 2**21 voxels and a bit on that axis alone
    path = tmp_path / "line.npy"
    np.save(path, pts)
    size = 2.0**-21
    with pytest.raises(demo.DemoError) as info:
        demo.pipeline(points=str(path), voxel=size, progress=_StageNames())
    text = str(info.value)
    assert text.startswith("--voxel 4.76837158203125e-07: ") and float(text.split()[1][:-1]) == size
    assert f"voxels on axis {'xyz'[axis]} (points 0 to 1" in text and "axis 0" not in text


def test_voxel_error_via_subprocess(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "xstride", "demo", "--n", "100", "--voxel", "-1"],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert proc.returncode == 2 and "--voxel must be a positive" in proc.stderr
    assert "Traceback" not in proc.stderr
