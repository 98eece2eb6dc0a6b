"""``python -m xstride demo``: results, point files, the bunny, and every user error."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from xstride._cli import demo as _demo
from xstride import algorithms as alg
from xstride.__main__ import main

ROOT = Path(__file__).resolve().parents[1]


def run_json(capsys, *argv):
    assert main(["demo", "--json", *argv]) == 0
    out = capsys.readouterr().out
    return json.loads(out)


def expected_occupancy(points, levels, k):
    """Occupancy by an independent route: np.unique of the level-k cells."""
    pts = np.asarray(points, dtype=np.float64)
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    # a flat axis: a unit extent, or the next float up where lo + 1 == lo, or at the
    # largest float64 the float below (docs/demo.md)
    top = (hi == lo) & (lo == np.finfo(np.float64).max)
    lo = np.where(top, np.nextafter(lo, -np.inf), lo)
    with np.errstate(over="ignore"):
        hi = np.where(hi > lo, hi, np.where(lo + 1.0 > lo, lo + 1.0, np.nextafter(lo, np.inf)))
    scale = 2.0**levels / (hi - lo)
    cells = np.clip(np.floor((pts - lo) * scale), 0, 2**levels - 1).astype(np.int64)
    coarse = cells >> (levels - k)
    _, counts = np.unique(coarse, axis=0, return_counts=True)
    return counts


def check_result(res, points, levels=10, k=5):
    counts = expected_occupancy(points, levels, k)
    pts = np.asarray(points)
    assert res["points"] == len(pts) and res["ndim"] == pts.shape[1]
    assert res["occupied_cells"] == counts.size
    assert res["occupancy"]["min"] == counts.min() and res["occupancy"]["max"] == counts.max()
    assert res["occupancy"]["mean"] == pytest.approx(len(pts) / counts.size)
    assert res["bounding_box"]["lower"] == pts.min(axis=0).astype(np.float64).tolist()
    assert res["bounding_box"]["upper"] == pts.max(axis=0).astype(np.float64).tolist()
    assert all(res["checks"].values())


# --------------------------------------------------------------------- generated points
def test_generated_points_in_process(capsys):
    res = run_json(capsys, "--n", "5000", "--seed", "3")
    import xstride as xp

    ctr = np.arange(5000, dtype=np.uint64)[:, None]
    pts = xp.rng.philox_uniform(3, np.arange(3, dtype=np.uint64)[None, :], ctr)
    check_result(res, pts)
    assert res["backend"] == "numpy" and res["level_stats"] == 5 and res["levels"] == 10
    names = [s["name"] for s in res["stages"]]
    assert names == ["philox positions", "bounding box", "morton keys", "sort_by_key",
                     "cell occupancy", "reductions", "morton tree"]
    assert all(s["seconds"] >= 0 for s in res["stages"])
    assert res["total_seconds"] == pytest.approx(sum(s["seconds"] for s in res["stages"]))


def test_reproducible_and_seed_dependent(capsys):
    a = run_json(capsys, "--n", "3000", "--seed", "9")
    b = run_json(capsys, "--n", "3000", "--seed", "9")
    c = run_json(capsys, "--n", "3000", "--seed", "10")
    assert a["bounding_box"] == b["bounding_box"] and a["occupancy"] == b["occupancy"]
    assert a["bounding_box"] != c["bounding_box"]


def test_levels_and_level_stats(capsys):
    res = run_json(capsys, "--n", "4000", "--levels", "6", "--level-stats", "2")
    assert res["cells_at_level"] == 64 and res["occupied_cells"] == 64
    res = run_json(capsys, "--n", "10", "--levels", "3", "--level-stats", "0")
    assert res["occupied_cells"] == 1 and res["occupancy"] == {"min": 10, "max": 10, "mean": 10.0}
    res = run_json(capsys, "--n", "1", "--levels", "2")
    assert res["level_stats"] == 2 and res["occupied_cells"] == 1


def test_table_output(capsys):
    assert main(["demo", "--n", "2000", "--backend", "NumPy"]) == 0
    out = capsys.readouterr().out
    for text in ("xstride demo: philox(seed=0), unit cube on numpy", "points                2,000",
                 "occupied cells", "points per cell", "checks                passed",
                 "sort_by_key", "total"):
        assert text in out


def _ends(line: str) -> list[int]:
    """Column just past each cell of ``line`` (a right-aligned column's edge); a cell's
    words are one space apart (``run s``), cells at least two."""
    import re

    return [m.end() for m in re.finditer(r"\S+(?: \S+)*", line)]


def test_table_columns_line_up_and_every_count_has_separators(capsys):
    """The stage header's titles ended one column left of their values, the voxel
    line's value stood four columns left of every other label's, and a mean of
    thousands was written ``2500`` or ``2.5e+03`` beside ``2,435``."""
    assert main(["demo", "--n", "20000", "--levels", "1", "--voxel", "0.5"]) == 0
    lines = capsys.readouterr().out.splitlines()
    head = next(i for i, ln in enumerate(lines) if ln.lstrip().startswith("stage"))
    rows = [ln for ln in lines[head + 1:] if ln.strip() and not ln.startswith("  wall")]
    assert len(rows) >= 8 and all(_ends(r)[-3:] == _ends(lines[head])[-3:] for r in rows)
    value_column = lines[2].index("20,000")
    assert lines[2].startswith("  points ") and value_column == 24
    voxel = next(ln for ln in lines if ln.startswith("  voxels of 0.5"))
    assert voxel[value_column - 2:value_column] == "  " and voxel[value_column] != " "
    assert "mean 2,500" in "\n".join(lines) and "(2,500 points per voxel" in voxel


@pytest.mark.parametrize("value, digits, text", [
    (9.754952, 4, "9.755"), (38.61, 4, "38.61"), (2.5, 4, "2.5"), (4493.375, 4, "4,493"),
    (46875.0, 4, "46,880"), (1375.1, 3, "1,380"), (47.61, 3, "47.6"), (0.0, 3, "0"),
    (9.9996, 4, "10"), (1_234_567.0, 4, "1,235,000"),
])
def test_grouped_numbers(value, digits, text):
    from xstride._cli.demo_extras import grouped

    assert grouped(value, digits) == text


def test_no_tree_rows_no_tree_header():
    """A result without the tree (the dask demo's ``with_tree=False``) printed the tree's
    header over no rows, then a blank line."""
    from xstride._cli.demo_extras import table_lines

    assert table_lines({}) == [] and table_lines({"tree": []}) == []


def test_subprocess_default_size_is_quick():
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "xstride", "demo", "--backend", "numpy"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    elapsed = time.perf_counter() - t0
    assert proc.returncode == 0, proc.stderr
    assert "points                1,000,000 (3-D)" in proc.stdout
    assert "checks                passed" in proc.stdout
    assert elapsed < 30  # `make demo`: a few seconds on 2 cores


# --------------------------------------------------------------------- real data
BUNNY_LOWER = [-0.0946899, 0.0329874, -0.0618736]  # ../shared/data/SOURCES.md (float32)
BUNNY_UPPER = [0.0610091, 0.187321, 0.0587997]


def test_bunny(shared_dir, capsys):
    path = shared_dir / "data" / "bunny.ply"
    res = run_json(capsys, "--points", str(path))
    assert res["points"] == 35947
    assert res["bounding_box"]["lower"] == [float(np.float32(v)) for v in BUNNY_LOWER]
    assert res["bounding_box"]["upper"] == [float(np.float32(v)) for v in BUNNY_UPPER]
    import plyfile

    v = plyfile.PlyData.read(str(path))["vertex"].data
    pts = np.stack([v[a].astype(np.float64) for a in "xyz"], axis=1)
    check_result(res, pts)
    res7 = run_json(capsys, "--points", str(path), "--levels", "12", "--level-stats", "7")
    check_result(res7, pts, levels=12, k=7)


def test_bunny_subprocess(shared_dir):
    proc = subprocess.run([sys.executable, "-m", "xstride", "demo", "--points",
                           str(shared_dir / "data" / "bunny.ply")],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "points                35,947 (3-D)" in proc.stdout
    assert "bounding box x        [-0.0946899, 0.0610091]" in proc.stdout


# --------------------------------------------------------------------- point files
@pytest.fixture
def cloud():
    rng = np.random.default_rng(5)
    return np.round(rng.normal(size=(700, 3)), 6)


def write_ply(path, pts, text, props=("x", "y", "z"), faces=True):
    import plyfile

    vert = np.empty(len(pts), dtype=[(p, "f4") for p in props] + [("red", "u1")])
    for j, p in enumerate(props):
        vert[p] = pts[:, j]
    vert["red"] = 7
    elements = [plyfile.PlyElement.describe(vert, "vertex")]
    if faces:
        face = np.empty(2, dtype=[("vertex_indices", "i4", (3,))])
        face["vertex_indices"] = [[0, 1, 2], [1, 2, 3]]
        elements.append(plyfile.PlyElement.describe(face, "face"))
    plyfile.PlyData(elements, text=text).write(str(path))


@pytest.mark.parametrize("ndim", [2, 3])
def test_npy_file(tmp_path, capsys, cloud, ndim):
    path = tmp_path / "pts.npy"
    np.save(path, cloud[:, :ndim])
    check_result(run_json(capsys, "--points", str(path)), cloud[:, :ndim])


def test_csv_files(tmp_path, capsys, cloud):
    plain = tmp_path / "plain.csv"
    plain.write_text("# x, y, z\n" + "\n".join(",".join(repr(v) for v in r) for r in cloud.tolist()))
    check_result(run_json(capsys, "--points", str(plain)), cloud)
    header = tmp_path / "header.CSV"
    header.write_text("id,Z,x,y\n" + "\n".join(f"{i},{r[2]!r},{r[0]!r},{r[1]!r}"
                                                for i, r in enumerate(cloud.tolist())))
    check_result(run_json(capsys, "--points", str(header)), cloud)
    two = tmp_path / "two.csv"
    two.write_text("\n".join(f"{r[0]!r}, {r[1]!r}" for r in cloud.tolist()))
    check_result(run_json(capsys, "--points", str(two), "--levels", "32", "--level-stats", "4"),
                 cloud[:, :2], levels=32, k=4)


def test_xyz_files(tmp_path, capsys, cloud):
    three = tmp_path / "a.xyz"
    three.write_text("\n".join(" ".join(repr(v) for v in r) for r in cloud.tolist()) + "\n")
    check_result(run_json(capsys, "--points", str(three)), cloud)
    six = tmp_path / "normals.xyz"
    six.write_text("\n".join("\t".join(repr(v) for v in r) + "\t0 0 1" for r in cloud.tolist()))
    check_result(run_json(capsys, "--points", str(six)), cloud)
    res = run_json(capsys, "--points", str(six), "--n", "100")
    check_result(res, cloud[:100])


@pytest.mark.parametrize("text", [True, False], ids=["ascii", "binary"])
@pytest.mark.parametrize("faces", [True, False], ids=["faces", "vertices"])
def test_ply_files(tmp_path, capsys, cloud, text, faces):
    path = tmp_path / "cloud.ply"
    write_ply(path, cloud, text, faces=faces)
    as_f32 = cloud.astype(np.float32).astype(np.float64)
    check_result(run_json(capsys, "--points", str(path)), as_f32)


def test_flat_cloud_gets_a_unit_extent(tmp_path, capsys, cloud):
    flat = cloud.copy()
    flat[:, 2] = 0.25
    path = tmp_path / "flat.npy"
    np.save(path, flat)
    res = run_json(capsys, "--points", str(path))
    check_result(res, flat)
    assert res["bounding_box"]["lower"][2] == res["bounding_box"]["upper"][2] == 0.25


# --------------------------------------------------------------------- user errors
def user_error(capsys, *argv):
    status = main(["demo", *argv])
    err = capsys.readouterr().err
    assert status == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("xstride demo: error: "), err
    assert "Traceback" not in err
    return lines[0]


def test_missing_file(tmp_path, capsys):
    assert "no such file" in user_error(capsys, "--points", str(tmp_path / "absent.ply"))


@pytest.mark.parametrize("name", [".npy", "absent.las"])
def test_missing_file_is_missing_before_its_extension_is_looked_at(tmp_path, capsys, name):
    """A missing file named ``.npy`` (which Python gives no extension) was "unknown
    point-file extension '(none)'"; a missing file is said to be missing first."""
    assert user_error(capsys, "--points", str(tmp_path / name)) == (
        f"xstride demo: error: {tmp_path / name}: no such file")


def test_unknown_extension(tmp_path, capsys):
    path = tmp_path / "points.las"
    path.write_text("1 2 3\n")
    msg = user_error(capsys, "--points", str(path))
    assert "unknown point-file extension '.las'; known: .npy, .csv, .xyz, .ply" in msg


@pytest.mark.parametrize("text", [True, False])
def test_ply_without_xyz(tmp_path, capsys, cloud, text):
    path = tmp_path / "noz.ply"
    write_ply(path, cloud, text, props=("x", "y", "w"))
    assert "PLY vertex element lacks the z property" in user_error(capsys, "--points", str(path))


def test_ply_without_vertex_and_garbage(tmp_path, capsys):
    import plyfile

    el = plyfile.PlyElement.describe(np.zeros(2, dtype=[("a", "f4")]), "thing")
    path = tmp_path / "novertex.ply"
    plyfile.PlyData([el], text=True).write(str(path))
    assert "no 'vertex' element" in user_error(capsys, "--points", str(path))
    bad = tmp_path / "bad.ply"
    bad.write_text("ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nend_header\n1\n")
    assert "not a valid PLY file" in user_error(capsys, "--points", str(bad))
    junk = tmp_path / "junk.ply"
    junk.write_bytes(b"\x00\x01garbage")
    assert "not a valid PLY file" in user_error(capsys, "--points", str(junk))


@pytest.mark.parametrize("content, needle", [
    ("1,2,3,4\n5,6,7,8\n", "line 1 has 4 columns; a CSV point file without a header needs 2 or 3"),
    ("1\n2\n", "line 1 has 1 column;"),
    ("1,2,3\n4,5\n", "line 2 has 2 columns; expected 3"),
    ("1,2,3\n4,x,6\n", "line 2: 'x' is not a number"),
    ("a,b,c\n1,2,3\n", "names no x and y columns"),
    ("# nothing\n", "holds no points"),
    ("1,2,3\nnan,0,0\n", "point 2 (line 2) has a NaN or infinite coordinate"),
])
def test_bad_csv(tmp_path, capsys, content, needle):
    path = tmp_path / "bad.csv"
    path.write_text(content)
    assert needle in user_error(capsys, "--points", str(path))


def test_bad_xyz_and_npy(tmp_path, capsys):
    xyz = tmp_path / "one.xyz"
    xyz.write_text("1\n2\n")
    assert "has 1 column" in user_error(capsys, "--points", str(xyz))
    npy = tmp_path / "wide.npy"
    np.save(npy, np.zeros((5, 4)))
    assert "shape (n, 2) or (n, 3); got (5, 4)" in user_error(capsys, "--points", str(npy))
    obj = tmp_path / "obj.npy"
    np.save(obj, np.array([{"a": 1}], dtype=object))
    assert "not a plain .npy array" in user_error(capsys, "--points", str(obj))
    strings = tmp_path / "str.npy"
    np.save(strings, np.array([["a", "b"]]))
    assert "expected a real" in user_error(capsys, "--points", str(strings))


def test_empty_npy_is_one_line(tmp_path, capsys):
    path = tmp_path / "empty.npy"
    path.write_bytes(b"")
    assert "empty.npy: is empty (0 bytes)" in user_error(capsys, "--points", str(path))


@pytest.mark.parametrize("pts, needle", [
    ([[-1.7e308, 0, 0], [1.7e308, 1, 1]],
     "the points span -1.7e+308 to 1.7e+308 on axis x: the extent overflows float64"),
    ([[0, 0, 0], [1, 1e-320, 1]],
     "the points span only 1e-320 on axis y (0 to 1e-320): too small for 2**10 cells"),
    ([[0, 0], [5e-324, 1]], "on axis x (0 to 4.94e-324): too small for 2**10 cells"),
])
def test_extent_out_of_float64_range_is_one_line(tmp_path, capsys, pts, needle):
    """The box's errors name the file, as every other error of a point file does (they
    began "the points span ...")."""
    path = tmp_path / "extent.npy"
    np.save(path, np.array(pts, dtype=np.float64))
    assert user_error(capsys, "--points", str(path)).startswith(
        f"xstride demo: error: {path}: the points span ")
    assert needle in user_error(capsys, "--points", str(path))


def test_extent_error_of_generated_points_names_no_file():
    with pytest.raises(_demo.DemoError, match="^the points span only 1e-320 on axis y"):
        _demo._morton_box(np.array([0.0, 0.0, 0.0]), np.array([1.0, 1e-320, 1.0]), 10)


def test_flat_axis_far_from_zero_still_runs(tmp_path, capsys, cloud):
    # lower + 1 == lower past 2**53: the flat axis gets the next float up instead; at
    # the largest float64 (no next float: the extent was called an overflow) the float
    # below it
    for z in (1e17, -3e300, np.finfo(np.float64).max):
        flat = cloud.copy()
        flat[:, 2] = z
        path = tmp_path / "far.npy"
        np.save(path, flat)
        res = run_json(capsys, "--points", str(path))
        check_result(res, flat)


def test_npy_errors_via_subprocess(tmp_path):
    path = tmp_path / "empty.npy"
    path.write_bytes(b"")
    big = tmp_path / "big.npy"
    np.save(big, np.array([[-1.7e308, 0, 0], [1.7e308, 1, 1]]))
    for p in (path, big):
        proc = subprocess.run([sys.executable, "-W", "always", "-m", "xstride", "demo",
                               "--points", str(p)],
                              cwd=ROOT, capture_output=True, text=True, timeout=60)
        assert proc.returncode == 2 and proc.stdout == ""
        # a stage slower than a second (a loaded machine) reports its progress first
        lines = [ln for ln in proc.stderr.splitlines()
                 if not ln.endswith("(still running)") and " done in " not in ln]
        assert len(lines) == 1 and lines[0].startswith("xstride demo: error: "), proc.stderr


@pytest.mark.parametrize("name, data", [
    ("headonly.csv", "x,y,z\n"),
    ("f40.ply", "ply\nformat ascii 1.0\nelement vertex 2\nproperty float x\nproperty float y\n"
                "property float z\nend_header\n1 2 3\n1e40 5 6\n"),
])
def test_no_numpy_warning_reaches_stderr(tmp_path, name, data):
    path = tmp_path / name
    path.write_text(data)
    proc = subprocess.run([sys.executable, "-W", "always", "-m", "xstride", "demo",
                           "--points", str(path)],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("xstride demo: error: "), proc.stderr


@pytest.mark.parametrize("argv, needle", [
    (["--n", "0"], "--n must be a number of points in 1..1,099,511,627,776; got 0"),
    (["--n", "10", "--levels", "22"], "--levels must be in 1..21 for 3-D points; got 22"),
    (["--n", "10", "--levels", "0"], "--levels must be in 1..21"),
    (["--n", "10", "--levels", "4", "--level-stats", "5"], "--level-stats must be in 0..4"),
    (["--n", "10", "--seed", "-1"], "--seed must be in 0..2**64-1"),
])
def test_bad_option_values(capsys, argv, needle):
    assert needle in user_error(capsys, *argv)


@pytest.mark.parametrize("argv, needle", [
    (["--n", "1_000"], "argument --n: invalid int value: '1_000' ('_' digit separators are "
                       "not taken)"),
    (["--voxel", "0.0_1"], "argument --voxel: invalid float value: '0.0_1' ('_' digit"),
    (["--levels", "1_0"], "argument --levels: invalid int value: '1_0'"),
    (["--level-stats", "0_1"], "argument --level-stats: invalid int value: '0_1'"),
    (["--seed", "1_2"], "argument --seed: invalid int value: '1_2'"),
    (["--n", "\u0661\u0662"], "argument --n: invalid int value: '\u0661\u0662' (only ASCII "
                              "digits are taken)"),
    (["--backend", "dask", "--workers", "1_0"], "argument --workers: invalid int value"),
    (["--backend", "dask", "--connect-timeout", "1_0"], "argument --connect-timeout: invalid "
                                                        "float value: '1_0'"),
    (["--backend", "dask", "--chunks", "1_000"], "argument --chunks: '1_000': '_' digit "
                                                 "separators are not taken"),
    (["--n", "12x"], "argument --n: invalid int value: '12x'"),   # as before
])
def test_numeric_options_refuse_digit_separators_as_point_files_do(capsys, argv, needle):
    """Python's int()/float() take 1_000 and other scripts' digits, which the text
    point files refuse (docs/demo.md): the options follow the point files' rule, as the
    parser's error naming the option."""
    with pytest.raises(SystemExit) as info:
        main(["demo", *argv])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: python -m xstride demo ")
    assert err.rstrip().splitlines()[-1].startswith("xstride demo: error: " + needle)


@pytest.mark.parametrize("backend", ["numpy", "dask"])
@pytest.mark.parametrize("seed", ["0", "7"])
def test_seed_with_points_is_a_user_error(tmp_path, capsys, backend, seed):
    """``--seed`` draws the generated cloud; with ``--points`` it was silently ignored
    (two seeds, the same result), where other options that do nothing are refused."""
    path = tmp_path / "p.npy"
    np.save(path, np.ones((4, 3)))
    err = user_error(capsys, "--backend", backend, "--points", str(path), "--seed", seed)
    assert err == (f"xstride demo: error: --seed draws the generated points: it does "
                   f"nothing with --points "
                   f"{path}; leave it out")


@pytest.mark.parametrize("how", ["missing", "seed", "out", "dask"])
def test_a_file_name_with_a_newline_keeps_the_error_on_one_line(tmp_path, capsys, how):
    """A file name holding a newline (or a tab, ESC, a byte that is not UTF-8) made a
    two-line error, and sent ESC to the terminal: the error line shows them escaped
    (``\\n``, ``\\t``, ``\\x1b``, ``\\xff``), whichever part of the demo refuses."""
    import os

    name = os.fsdecode(os.fsencode(tmp_path) + b"/a\nb\tc\x1b[31m\xff.npy")
    shown = f"{tmp_path}/a\\nb\\tc\\x1b[31m\\xff.npy"
    argv, problem = ["--points", name], f"{shown}: no such file"
    if how == "dask":   # the dask demo's own check, before a cluster starts
        argv = ["--backend", "dask", *argv]
    elif how == "seed":   # __main__'s check of the options
        np.save(name, np.ones((4, 3)))
        argv.extend(["--seed", "1"])
        problem = (f"--seed draws the generated points: it does nothing with --points "
                   f"{shown}; leave it out")
    elif how == "out":   # the options' check in the pipeline: --out a hard link to --points
        np.save(name, np.ones((4, 3)))
        os.link(name, name[:-4] + ".ply")
        argv.extend(["--voxel", "1", "--out", name[:-4] + ".ply"])
        problem = (f"--out {shown[:-4]}.ply: is the --points file {shown}; writing it would "
                   "replace the input cloud: choose another name")
    assert main(["demo", *argv]) == 2
    assert capsys.readouterr().err == f"xstride demo: error: {problem}\n"


def test_shown_text_escapes_only_what_is_not_printable():
    from xstride._cli.demo_extras import shown_text

    assert shown_text("points é 点.csv: line 2") == "points é 点.csv: line 2"
    assert shown_text("a\r\nb\u2028c\x7f\udcfe") == "a\\r\\nb\\u2028c\\x7f\\xfe"


def test_cupy_unavailable_is_one_line(capsys, monkeypatch):
    from xstride import _backends

    def fail():
        raise RuntimeError("backend 'cupy' is unavailable: test says no")

    monkeypatch.setattr(_backends.get("cupy"), "load", fail)
    assert user_error(capsys, "--backend", "cupy", "--n", "10").endswith("test says no")


def test_user_error_via_subprocess(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "xstride", "demo", "--points",
                           str(tmp_path / "nope.xyz")],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.strip() == f"xstride demo: error: {tmp_path / 'nope.xyz'}: no such file"


# --------------------------------------------------------------------- progress display
class FakeTTY(io.StringIO):
    def isatty(self):
        return True


def test_progress_on_a_terminal_and_elsewhere():
    tty = FakeTTY()
    prog = _demo.Progress(stream=tty, after=0.0, interval=0.01)
    prog.start("sorting")
    prog.fraction = 0.5
    time.sleep(0.1)
    prog.stop()
    text = tty.getvalue()
    assert "\r  sorting ... " in text and "(50 %)" in text and text.endswith("\r\x1b[K")
    pipe = io.StringIO()
    prog = _demo.Progress(stream=pipe, after=0.0)
    prog.start("keys")
    time.sleep(0.05)
    prog.stop()
    lines = pipe.getvalue().splitlines()
    assert lines[0].startswith("keys ... ") and lines[0].endswith("(still running)")
    assert lines[1].startswith("keys done in ")
    quiet = io.StringIO()
    prog = _demo.Progress(stream=quiet, after=5.0)
    prog.start("fast")
    prog.stop()
    assert quiet.getvalue() == ""
    # a stage that raised: not "done" (a dask stage whose tasks killed their workers
    # said "philox positions done in 21.14 s" before its error)
    failed = io.StringIO()
    prog = _demo.Progress(stream=failed, after=0.0)
    prog.start("positions")
    time.sleep(0.05)
    prog.stop(failed=True)
    assert failed.getvalue().splitlines()[1].startswith("positions failed after ")


def test_pipeline_api_reports_progress_fraction(monkeypatch):
    seen = []
    monkeypatch.setattr(_demo, "_CHUNK", 1000)   # positions in two steps, the second half

    class Spy(_demo.Progress):
        def stop(self):
            seen.append((self._name, self.fraction))
            super().stop()

    res = _demo.pipeline(n=3 * _demo._CHUNK // 2, levels=4, progress=Spy(stream=io.StringIO(), after=60))
    assert ("philox positions", 1.0) in seen
    assert res["points"] == 3 * _demo._CHUNK // 2 and all(res["checks"].values())
    assert alg.MAX_MORTON_LEVELS[3] == 21


def test_one_cell_and_one_point_a_voxel_are_singular(capsys):
    """``occupancy at level 0 (1 cells)`` and ``(1 points per voxel on average)``."""
    assert main(["demo", "--n", "50", "--levels", "2", "--level-stats", "0",
                 "--voxel", "0.0001"]) == 0
    out = capsys.readouterr().out
    assert "occupancy at level    0 (1 cell)" in out
    assert "(1 point per voxel on average)" in out
    assert main(["demo", "--n", "50", "--levels", "2", "--voxel", "0.5"]) == 0
    out = capsys.readouterr().out
    assert "(64 cells)" in out and "points per voxel on average)" in out


def test_a_dangling_link_and_a_loop_of_links_are_named(tmp_path, capsys):
    """A symbolic link whose target is missing named that target, and a loop of links
    the system's reason; both were "no such file", as for a name that holds nothing."""
    gone = os.path.realpath(tmp_path / "gone.xyz")
    dangling, relative, chain = (tmp_path / n for n in ("dangling.xyz", "rel.xyz", "chain.xyz"))
    dangling.symlink_to(tmp_path / "gone.xyz")
    relative.symlink_to("gone.xyz")          # a target relative to the link's folder
    chain.symlink_to(dangling)               # a link to a link to the missing file
    for link in (dangling, relative, chain):
        assert user_error(capsys, "--points", str(link)) == (
            f"xstride demo: error: {link}: no such file (a symbolic link to {gone}, "
            "which does not exist)")
    first, second = tmp_path / "loop1.xyz", tmp_path / "loop2.xyz"
    first.symlink_to(second)
    second.symlink_to(first)
    assert user_error(capsys, "--points", str(first)) == (
        f"xstride demo: error: {first}: cannot read: Too many levels of symbolic links")
