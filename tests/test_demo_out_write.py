"""``demo --out FILE.ply``'s write (``demo_tree.write_ply``): whole or not at all. A
write that failed part way (a full disk, a file size limit) truncated the file that
was there and left a fragment of the new one."""

from __future__ import annotations

import os
import stat

import numpy as np
import pytest

from xstride._cli import demo_tree

plyfile = pytest.importorskip("plyfile")

CENTROIDS = np.arange(12.0).reshape(4, 3)
COUNTS = np.array([1, 2, 3, 4])


def _failing_write(monkeypatch, after: int):
    """plyfile's write that raises ``OSError(EFBIG)`` once ``after`` bytes are out."""
    real = plyfile.PlyData.write

    def write(self, stream):
        class Short:
            def __init__(self, fh):
                self.fh, self.n = fh, 0

            def write(self, b):
                self.n += len(b)
                if self.n > after:
                    raise OSError(27, "File too large")
                return self.fh.write(b)

            def __getattr__(self, name):
                return getattr(self.fh, name)

        return real(self, Short(stream))

    monkeypatch.setattr(plyfile.PlyData, "write", write)


def test_a_failed_write_keeps_the_file_that_was_there(tmp_path, monkeypatch):
    out = tmp_path / "cloud.ply"
    out.write_bytes(b"previous content")
    _failing_write(monkeypatch, after=100)
    with pytest.raises(demo_tree.PlyWriteError, match=r"--out .*cloud\.ply: cannot write "
                                                      r"the file \(File too large\)"):
        demo_tree.write_ply(out, CENTROIDS, COUNTS)
    assert out.read_bytes() == b"previous content"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cloud.ply"]   # no fragment


def test_a_failed_write_of_a_new_file_leaves_nothing(tmp_path, monkeypatch):
    _failing_write(monkeypatch, after=10)
    with pytest.raises(demo_tree.PlyWriteError):
        demo_tree.write_ply(tmp_path / "new.ply", CENTROIDS, COUNTS)
    assert list(tmp_path.iterdir()) == []


def test_a_written_file_replaces_the_old_one_whole_keeping_its_mode(tmp_path):
    out = tmp_path / "cloud.ply"
    out.write_bytes(b"old")
    os.chmod(out, 0o640)
    demo_tree.write_ply(out, CENTROIDS, COUNTS)
    v = plyfile.PlyData.read(str(out))["vertex"]
    np.testing.assert_array_equal(np.stack([v["x"], v["y"], v["z"]], axis=1), CENTROIDS)
    np.testing.assert_array_equal(v["count"], COUNTS)
    assert stat.S_IMODE(out.stat().st_mode) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cloud.ply"]


def test_a_new_file_gets_the_mode_of_a_plain_open(tmp_path):
    umask = os.umask(0o022)
    try:
        demo_tree.write_ply(tmp_path / "new.ply", CENTROIDS, COUNTS)
    finally:
        os.umask(umask)
    assert stat.S_IMODE((tmp_path / "new.ply").stat().st_mode) == 0o644


def test_a_symbolic_link_stays_and_its_file_is_replaced(tmp_path):
    real = tmp_path / "data" / "cloud.ply"
    real.parent.mkdir()
    real.write_bytes(b"old")
    link = tmp_path / "link.ply"
    link.symlink_to(real)
    demo_tree.write_ply(link, CENTROIDS, COUNTS)
    assert link.is_symlink()
    assert plyfile.PlyData.read(str(real))["vertex"].count == 4
    assert sorted(p.name for p in real.parent.iterdir()) == ["cloud.ply"]


def test_a_file_name_of_255_bytes_is_written(tmp_path):
    """A new-user probe: the temporary file was named after the target plus 22 bytes,
    so a legal name past 233 bytes was refused ("File name too long")."""
    out = tmp_path / ("c" * 251 + ".ply")   # 255 bytes, the longest name a file may have
    demo_tree.write_ply(out, CENTROIDS, COUNTS)
    v = plyfile.PlyData.read(str(out))["vertex"]
    np.testing.assert_array_equal(v["count"], COUNTS)
    assert [p.name for p in tmp_path.iterdir()] == [out.name]   # no temporary file left
