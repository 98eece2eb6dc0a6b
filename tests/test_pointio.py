"""Point-file readers: ragged and out-of-range files are errors, never silently cut."""

from __future__ import annotations

import numpy as np
import pytest

from xstride._cli.pointio import PointFileError, read_points

PLY_HEAD = "ply\nformat ascii 1.0\nelement vertex 2\nproperty {t} x\nproperty float y\nproperty float z\nend_header\n"


@pytest.mark.parametrize("name, text, message", [
    ("r.csv", "1,2\n3,4,5\n", "line 2 has 3 columns; expected 2"),
    ("w.csv", "1,2,3\n3,4,5,6,7\n", "line 2 has 5 columns; expected 3"),
    ("h.csv", "x,y\n1,2,3\n4,5,6\n", "line 2 has 3 columns; expected 2"),
    ("a.xyz", "1 2 3\n4 5 6 7\n", "line 2 has 4 columns; expected 3"),
    ("s.xyz", "1 2 3\n4 5\n", "line 2 has 2 columns; expected 3"),
    ("e.ply", PLY_HEAD.format(t="float") + "1 2 3 9\n4 5 6\n", "expected end-of-line"),
    ("o.ply", PLY_HEAD.format(t="uchar") + "300 2 3\n4 5 6\n", "300 out of bounds"),
])
def test_malformed_files_are_refused(tmp_path, name, text, message):
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(PointFileError, match=message):
        read_points(path)


def test_well_formed_files_still_read(tmp_path):
    (tmp_path / "ok.csv").write_text("# pts\nx,y,z,label\n1,2,3,7\n4,5,6,8\n")
    np.testing.assert_array_equal(read_points(tmp_path / "ok.csv"), [[1, 2, 3], [4, 5, 6]])
    (tmp_path / "ok.xyz").write_text("1 2 3 0 0 1\n4 5 6 0 1 0\n")
    np.testing.assert_array_equal(read_points(tmp_path / "ok.xyz"), [[1, 2, 3], [4, 5, 6]])
    (tmp_path / "ok.ply").write_text(PLY_HEAD.format(t="uchar") + "200 2.5 3\n4 5 6\n")
    np.testing.assert_array_equal(read_points(tmp_path / "ok.ply"), [[200, 2.5, 3], [4, 5, 6]])



def test_demo_refuses_absurd_point_counts_with_one_line(capsys):
    import argparse

    from xstride._cli import demo as _demo

    parser = argparse.ArgumentParser()
    _demo.add_arguments(parser)
    for n in ("0", str(2**70)):
        assert _demo.run(parser.parse_args(["--n", n])) == 2
        err = capsys.readouterr().err
        assert err.startswith("xstride demo: error: --n must be a number of points in 1..")
        assert err.count("\n") == 1
