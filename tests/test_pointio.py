"""Point-file readers: ragged and out-of-range files are errors, never silently cut."""

from __future__ import annotations

import io
import re
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from xstride._cli.pointio import PointFileError, read_points

PLY_HEAD = "ply\nformat ascii 1.0\nelement vertex 2\nproperty {t} x\nproperty float y\nproperty float z\nend_header\n"


@pytest.mark.parametrize("name, text, message", [
    ("r.csv", "1,2\n3,4,5\n", "line 2 has 3 columns; expected 2"),
    ("w.csv", "1,2,3\n3,4,5,6,7\n", "line 2 has 5 columns; expected 3"),
    ("h.csv", "x,y\n1,2,3\n4,5,6\n", "line 2 has 3 columns; expected 2"),
    ("a.xyz", "1 2 3\n4 5 6 7\n", "line 2 has 4 columns; expected 3"),
    ("s.xyz", "1 2 3\n4 5\n", "line 2 has 2 columns; expected 3"),
    ("e.ply", PLY_HEAD.format(t="float") + "1 2 3 9\n4 5 6\n", "expected end-of-line"),
    ("o.ply", PLY_HEAD.format(t="uchar") + "300 2 3\n4 5 6\n",
     "line 8: '300' is out of range for a uchar"),
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


# ------------------------------------------------ issue 15 item 9: say what is actually wrong
def read_quietly(path):
    """read_points with every warning turned into a failure: nothing may leak to stderr."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return read_points(path)


@pytest.mark.parametrize("name, data, message", [
    # CSV: the separators and fields a user gets wrong
    ("trail.csv", "1,2,3,\n4,5,6,\n", "line 1 ends with a comma (an empty last column)"),
    ("trail2.csv", "1,2,3\n4,5,6,\n", "line 2 ends with a comma (an empty last column)"),
    ("trailh.csv", "x,y,z,\n1,2,3,\n", "line 1 ends with a comma (an empty last column)"),
    ("semi.csv", "1;2;3\n4;5;6\n", "line 1 separates columns with ';'; a .csv point file"),
    ("semid.csv", "1,5;2,5;3,5\n", "line 1 separates columns with ';'"),
    ("semi2.csv", "1,2,3\n4;5;6\n", "line 2 separates columns with ';'"),
    ("blank.csv", "1 2 3\n4 5 6\n", "line 1 separates columns with blanks; a .csv point file"),
    ("tab.csv", "1\t2\t3\n", "line 1 separates columns with blanks"),
    ("blank2.csv", "1,2,3\n4 5 6\n", "line 2 separates columns with blanks"),
    ("mixed.csv", "1 2,3\n", "line 1: '1 2' is not a number"),
    ("hex.csv", "0x1,2,3\n4,5,6\n", "line 1: '0x1' is not a number"),
    ("hex2.csv", "1,2,3\n4,0x5,6\n", "line 2: '0x5' is not a number"),
    ("under.csv", "1_0,2,3\n", "line 1: '1_0' is not a number"),
    ("empty.csv", "1,2,3\n4,,6\n", "line 2: column 2 is empty"),
    ("dup.csv", "x,x,y\n1,2,3\n", "line 1: the header names column 'x' twice (columns 1 and 2)"),
    ("dupcase.csv", "X,y,x,z\n1,2,3,4\n", "names column 'x' twice (columns 1 and 3)"),
    ("noy.csv", "x,b,c\n1,2,3\n", "the header on line 1 ('x,b,c') names no y column"),
    ("headonly.csv", "x,y,z\n", "holds no points (only the header on line 1)"),
    ("headonly2.csv", "# c\nx,y,z\n# d\n", "holds no points (only the header on line 2)"),
    # the column-count messages name the right lines, in the right number
    ("one.csv", "1\n2\n", "line 1 has 1 column; a CSV point file without a header needs 2 or 3"),
    ("four.csv", "\n# c\n1,2,3,4\n", "line 3 has 4 columns; a CSV point file without a header"),
    ("count.csv", "# c\n\n1,2,3\n\n# d\n4,5\n", "line 6 has 2 columns; expected 3 like line 3, "
                                               "the first data line"),
    ("counth.csv", "# c\nx,y\n1,2,3\n", "line 3 has 3 columns; expected 2 like the header on line 2"),
    ("count1.csv", "x,y,z\n1\n", "line 2 has 1 column; expected 3"),
    # .xyz: the same classes
    ("comma.xyz", "1,2,3\n", "line 1 separates columns with ','; an .xyz point file separates "
                             "them with blanks"),
    ("comma2.xyz", "1 2 3\n4, 5, 6\n", "line 2 separates columns with ','"),
    ("semi.xyz", "1;2;3\n", "line 1 separates columns with ';'"),
    ("head.xyz", "x y z\n1 2 3\n", "line 1 ('x y z') holds no numbers; an .xyz point file has no "
                                   "header"),
    ("hex.xyz", "1 2 3\n4 5 0x1\n", "line 2: '0x1' is not a number"),
    ("count.xyz", "# c\n1 2 3\n4 5\n", "line 3 has 2 columns; expected 3 like line 2"),
    ("bin.xyz", b"1 2 3\n\xff\xfe 5 6\n", "is not UTF-8 text"),
    ("bin.csv", b"1,2,3\n4,5,\xe96\n", "is not UTF-8 text"),
])
def test_text_files_say_what_is_wrong(tmp_path, name, data, message):
    path = tmp_path / name
    (path.write_bytes if isinstance(data, bytes) else path.write_text)(data)
    with pytest.raises(PointFileError) as info:
        read_quietly(path)
    text = str(info.value)
    assert message in text and "\n" not in text, text


@pytest.mark.parametrize("name, data", [
    ("bom.csv", "\ufeffx,y,z\n1,2,3\n4,5,6\n"),
    ("bomq.csv", '\ufeff"x","y","z"\n1,2,3\n4,5,6\n'),
    ("bomd.csv", "\ufeff1,2,3\n4,5,6\n"),
    ("bom.xyz", "\ufeff1 2 3\n4 5 6\n"),
    ("crlf.csv", "x,y,z\r\n1,2,3\r\n4,5,6\r\n"),
    ("extra.csv", "id,x,y,z,id\n7,1,2,3,7\n8,4,5,6,8\n"),  # duplicates of unused columns
])
def test_bom_and_friends_are_accepted(tmp_path, name, data):
    path = tmp_path / name
    path.write_bytes(data.encode("utf-8"))
    np.testing.assert_array_equal(read_quietly(path), [[1, 2, 3], [4, 5, 6]])


PLY_F4 = "ply\nformat ascii 1.0\nelement vertex 2\nproperty float x\nproperty float y\nproperty float z\nend_header\n"


@pytest.mark.parametrize("name, data, message", [
    # "vertex 1: -1e+40 ...": a vertex counted from 0, and no line
    ("big.ply", PLY_F4 + "1 2 3\n4 5 -1e40\n", "line 9: '-1e40' is out of range for a float "
                                               "(element 'vertex', property 'z')"),
    # past float64: the text reader reads inf, and the error named an infinite
    # coordinate ([4.0, 5.0, inf]) that the file does not hold
    ("d400.ply", PLY_F4.replace("float", "double") + "1 2 3\n4 5 1e400\n",
     "line 9: '1e400' is out of range for a double (element 'vertex', property 'z')"),
    ("f999.ply", PLY_F4 + "1 -1e999 3\n4 5 6\n",
     "line 8: '-1e999' is out of range for a float (element 'vertex', property 'y')"),
    ("inf.ply", PLY_F4 + "1 2 3\n4 -inf 6\n", "point 2 (line 9) has a NaN or infinite "
                                              "coordinate"),
    ("big2.ply", "ply\nformat ascii 1.0\nelement thing 1\nproperty float a\nelement vertex 1\n"
                 "property float x\nproperty float y\nproperty float z\nend_header\n7\n1e40 2 3\n",
     "point 1 (line 11) has a NaN or infinite coordinate"),  # through plyfile
    ("dup.ply", "ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nproperty float x\n"
                "property float y\nproperty float z\nend_header\n1 9 2 3\n",
     "PLY vertex element names property 'x' twice"),
])
def test_ply_range_and_duplicates(tmp_path, name, data, message):
    path = tmp_path / name
    path.write_text(data)
    with pytest.raises(PointFileError, match=re.escape(message)):
        read_quietly(path)


@pytest.mark.parametrize("name, data, message", [
    # plyfile's int()/float() read 1_0 as 10: the digit separator the text files refuse
    ("under.ply", PLY_F4 + "1_0 2 3\n4 5 6\n", "line 8: '1_0' is not a number"),
    ("underx.ply", PLY_F4 + "1 2 3\n4 5 6.5e1_0\n", "line 9: '6.5e1_0' is not a number"),
    ("underi.ply", PLY_F4.replace("float", "int") + "1 2 3\n4\t5_5 6\n",
     "line 9: '5_5' is not a number"),
    ("underv.ply", "ply\nformat ascii 1.0\nelement thing 1\nproperty float a\nelement vertex 1\n"
                   "property float x\nproperty float y\nproperty float z\nend_header\n7\n"
                   "1 2_0 3\n", "line 11: '2_0' is not a number"),   # vertices not first
    ("underf.ply", PLY_F4.replace("end_header", "element face 1\nproperty list uchar int "
                                                "vertex_indices\nend_header")
     + "1 2 3\n4 5 6\n3 0 1_0 1\n", "line 12: '1_0' is not a number"),   # in a face list
    ("undercr.ply", PLY_F4 + "1 2 3\r\n4 5 6_0\r\n", "line 9: '6_0' is not a number"),
])
@pytest.mark.parametrize("route", ["fast", "plyfile"])
def test_ascii_ply_refuses_digit_separators_as_text_files_do(tmp_path, monkeypatch, name, data,
                                                             message, route):
    """docs/demo.md: digit separators are not numbers in a point file; an ASCII PLY
    read through plyfile took them (1_0 was 10). Refused on both routes: the fast
    ASCII reader and plyfile (what the fast reader leaves to it)."""
    from xstride._cli import plyio

    if route == "plyfile":
        monkeypatch.setattr(plyio, "_ascii_ply_vertices", lambda p: None)
    path = tmp_path / name
    path.write_text(data)
    with pytest.raises(PointFileError, match=re.escape(message)) as info:
        read_quietly(path)
    assert "\n" not in str(info.value)
    header, body = data.split("end_header\n")
    path.write_text(f"{header}end_header\n{body.replace('_', '')}")   # without them: read
    assert read_quietly(path).shape[1] == 3


PLY_FACE = ("ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\n"
            "property float z\nproperty float confidence\nelement face 1\n"
            "property list uchar int vertex_indices\nend_header\n")


@pytest.mark.parametrize("name, data", [
    # cut short: the face row "3 0 1 2" has a vertex's four numbers, and was read as one
    ("cut.ply", PLY_FACE + "0.1 0.2 0.3 1\n0.4 0.5 0.6 1\n3 0 1 2\n"),
    ("noface.ply", PLY_FACE.replace("element face 1", "element face 5")
     + "0.1 0.2 0.3 1\n0.4 0.5 0.6 1\n0.7 0.8 0.9 1\n"),
    ("blank.ply", PLY_F4 + "1 2 3\n\n4 5 6\n"),
    ("lead.ply", PLY_F4 + "\n1 2 3\n4 5 6\n"),
    ("v2.ply", PLY_F4.replace("ascii 1.0", "ascii 2.0") + "1 2 3\n4 5 6\n"),
    # a CR before each CRLF: NumPy's reader saw a blank line after each row, warned
    # ("Input line 9 contained no data") and read what plyfile refuses
    ("crcrlf.ply", PLY_F4 + "1 2 3\r\r\n4 5 6\r\r\n"),
])
def test_ascii_ply_that_plyfile_refuses_is_refused(tmp_path, name, data):
    """The fast ASCII route takes only files whose rows it can count: the rest goes to
    plyfile, which names what is wrong (one line, no NumPy warning)."""
    path = tmp_path / name
    path.write_text(data)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(PointFileError, match="not a valid PLY file") as info:
            read_points(path)
    assert "\n" not in str(info.value)


def test_ascii_ply_with_faces_and_trailing_blank_lines_is_read(tmp_path):
    path = tmp_path / "ok.ply"
    path.write_text(PLY_FACE + "0.1 0.2 0.3 1\n0.4 0.5 0.6 1\n0.7 0.8 0.9 1\n3 0 1 2\n\n\n")
    want = np.array([[0.1, 0.2, 0.3], [0.4, 0.5, 0.6], [0.7, 0.8, 0.9]], dtype=np.float32)
    np.testing.assert_array_equal(read_points(path), want.astype(np.float64))


def test_ply_binary_duplicate_property_is_refused(tmp_path):
    header = ("ply\nformat binary_little_endian 1.0\nelement vertex 1\nproperty float x\n"
              "property float y\nproperty float y\nproperty float z\nend_header\n")
    path = tmp_path / "dupb.ply"
    path.write_bytes(header.encode() + np.arange(4, dtype="<f4").tobytes())
    with pytest.raises(PointFileError, match="names property 'y' twice"):
        read_quietly(path)


def test_npy_headers_and_sizes(tmp_path):
    full = tmp_path / "full.npy"
    np.save(full, np.arange(12.0).reshape(4, 3))
    raw = full.read_bytes()
    cases = {
        "empty.npy": (b"", "is empty (0 bytes)"),
        "magic.npy": (raw[:6], "not a valid .npy file"),
        "header.npy": (raw[:20], "not a valid .npy file"),
        "junk.npy": (b"hello world", "not a .npy file (it does not begin with"),
        "dict.npy": (raw[:120] + b")" + raw[121:], "not a valid .npy file"),  # TokenError
        "descr.npy": (raw.replace(b"'<f8'", b"',f8'"), "not a valid .npy file"),
        "trunc.npy": (raw[:-8], "is truncated: its header promises (4, 3) float64 (96 bytes of "
                                "data) but 88 bytes follow"),
    }
    for name, (data, message) in cases.items():
        path = tmp_path / name
        path.write_bytes(data)
        with pytest.raises(PointFileError, match=re.escape(message)):
            read_quietly(path)
    # a header that claims 24 TiB is refused by its size, not by allocating it
    import numpy.lib.format as npformat

    buf = io.BytesIO()
    npformat.write_array_header_1_0(buf, {"descr": "<f8", "fortran_order": False,
                                          "shape": (2**40, 3)})
    huge = tmp_path / "huge.npy"
    huge.write_bytes(buf.getvalue() + bytes(48))
    with pytest.raises(PointFileError, match="is truncated"):
        read_quietly(huge)
    np.savez(tmp_path / "zip", a=np.zeros((2, 3)))
    (tmp_path / "zip.npz").rename(tmp_path / "zip.npy")
    with pytest.raises(PointFileError, match=r"a \.npz archive"):
        read_quietly(tmp_path / "zip.npy")


@pytest.mark.parametrize("shape", [(-1, 3), (4, -3)])
def test_npy_header_with_a_negative_dimension_says_so(tmp_path, shape):
    """NumPy's header reader takes a negative dimension: ``(-1, 3)`` was "holds more than
    its header declares: (-1, 3) float64 (-24 bytes of data)"."""
    import numpy.lib.format as npformat

    buf = io.BytesIO()
    npformat.write_array_header_1_0(buf, {"descr": "<f8", "fortran_order": False,
                                          "shape": shape})
    path = tmp_path / "neg.npy"
    path.write_bytes(buf.getvalue() + bytes(96))
    with pytest.raises(PointFileError, match=re.escape(
            f"{path}: not a valid .npy file (its header declares the shape {shape}, with a "
            "negative dimension)")):
        read_quietly(path)


def test_npy_holding_more_than_its_header_declares_is_refused(tmp_path):
    """Bytes past the declared array (two ``np.save`` calls into one file) were ignored:
    the first array was read as the whole cloud."""
    path = tmp_path / "two.npy"
    with open(path, "wb") as fh:
        np.save(fh, np.zeros((2, 3)))
        np.save(fh, np.ones((5, 3)))
    with pytest.raises(PointFileError, match=re.escape(
            f"{path}: holds more than its header declares: (2, 3) float64 (48 bytes of data) "
            "but 296 bytes follow (a second array saved into the same file?)")):
        read_quietly(path)
    np.save(path, np.zeros((2, 3)))
    assert read_quietly(path).shape == (2, 3)


def test_npy_values_past_float64_are_named_not_warned(tmp_path):
    path = tmp_path / "long.npy"
    pts = np.ones((3, 3), dtype=np.longdouble)
    if np.finfo(np.longdouble).max <= np.finfo(np.float64).max:
        pytest.skip("long double is float64 on this platform")
    pts[1, 2] = np.longdouble("1e400")
    np.save(path, pts)
    with pytest.raises(PointFileError, match=r"point 2: 1e\+400 is out of the float64 range"):
        read_quietly(path)


def test_ply_header_line_without_its_value_is_a_ply_error(tmp_path):
    path = tmp_path / "fmt.ply"
    path.write_text(PLY_F4.replace("format ascii 1.0", "format\nascii 1.0") + "1 2 3\n4 5 6\n")
    with pytest.raises(PointFileError, match="not a valid PLY file"):
        read_quietly(path)


def test_npy_is_read_into_memory_not_left_mapped(tmp_path):
    path = tmp_path / "f.npy"
    np.save(path, np.asfortranarray(np.arange(6, dtype=np.float32).reshape(2, 3)))
    pts = read_quietly(path)
    assert type(pts) is np.ndarray and pts.flags.writeable and pts.flags.c_contiguous
    np.testing.assert_array_equal(pts, [[0, 1, 2], [3, 4, 5]])


def test_an_empty_path_is_named_as_empty():
    with pytest.raises(PointFileError, match="the point-file path is empty"):
        read_points("")


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=40).map(lambda b: bytes(b" \t\r\na"[c % 5] for c in b)))
def test_blank_line_check_is_the_one_pattern(body):
    """The two-pattern check answers what ``(?:^|\\n)[ \\t\\r]*(?:\\n|$)`` answers."""
    from xstride._cli.plyio import _has_blank_line

    reference = re.compile(rb"(?:^|\n)[ \t\r]*(?:\n|$)")
    assert _has_blank_line(body) == (reference.search(body) is not None)


@pytest.mark.parametrize("fmt, body", [
    ("ascii 1.0", b"1 2 3\n"),
    ("binary_little_endian 1.0", b"\0" * 12),
])
def test_ply_declaring_more_vertices_than_the_file_holds(tmp_path, fmt, body):
    """An ASCII PLY cut short whose header declares 10**11 vertices was "not enough memory
    on numpy (Unable to allocate 1.09 TiB ...)": plyfile allocates the rows first. The
    header is checked against the file's size before plyfile reads it."""
    path = tmp_path / "cut.ply"
    path.write_bytes(f"ply\nformat {fmt}\nelement vertex {10**11}\nproperty float x\n"
                     "property float y\nproperty float z\nend_header\n".encode() + body)
    with pytest.raises(PointFileError, match=r"not a valid PLY file \(cut short: the header "
                       r"declares 100,000,000,000 'vertex' rows") as info:
        read_points(path)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("name, data, message", [
    ("big.xyz", "# c\n1 2 3\n4 1e999 6\n", "line 3: '1e999' is out of the float64 range"),
    ("big.csv", "x,y,z\n\n1,2,-1E400\n", "line 3: '-1E400' is out of the float64 range"),
    ("plain.csv", "1,2,3\n4,5,6\n", None),
    ("inf.xyz", "1 2 3\ninf 5 6\n", "point 2 (line 2) has a NaN or infinite coordinate"),
])
def test_text_number_past_float64_is_named(tmp_path, name, data, message):
    """``1e999`` in a text file was "point 1 has a NaN or infinite coordinate ([4.0, inf,
    6.0])", an inf the file does not hold; its line and token are named now."""
    path = tmp_path / name
    path.write_text(data)
    if message is None:
        assert read_points(path).shape == (2, 3)
        return
    with pytest.raises(PointFileError, match=re.escape(message)):
        read_points(path)


_NAN_ROWS = np.arange(60, dtype=np.float64).reshape(20, 3)
_NAN_ROWS[17, 1] = np.nan   # the 18th point


@pytest.mark.parametrize("name, where", [
    ("p.npy", "point 18"),
    ("p.csv", "point 18 (line 20)"),     # a comment, a header
    ("p.xyz", "point 18 (line 20)"),     # a comment, a blank line
    ("p.ply", "point 18 (line 30)"),     # 9 header lines, 3 rows of another element
    ("b.ply", "point 18"),               # binary: no line
])
def test_nan_point_is_counted_from_1_with_its_line(tmp_path, name, where):
    """"point 17 has a NaN ..." named the 18th point (counted from 0) while every line
    is counted from 1; points are counted from 1 now, with the line of a text file."""
    path = tmp_path / name
    rows = [" ".join(repr(v) for v in r) for r in _NAN_ROWS.tolist()]
    if name == "p.npy":
        np.save(path, _NAN_ROWS)
    elif name == "p.csv":
        path.write_text("# scan\nx,y,z\n" + "\n".join(r.replace(" ", ",") for r in rows))
    elif name == "p.xyz":
        path.write_text("# scan\n\n" + "\n".join(rows) + "\n")
    else:
        fmt = "ascii" if name == "p.ply" else "binary_little_endian"
        head = (f"ply\nformat {fmt} 1.0\nelement t 3\nproperty float a\nelement vertex 20\n"
                "property double x\nproperty double y\nproperty double z\nend_header\n")
        body = ("1\n2\n3\n" + "\n".join(rows) + "\n").encode() if fmt == "ascii" else \
            np.zeros(3, "<f4").tobytes() + _NAN_ROWS.astype("<f8").tobytes()
        path.write_bytes(head.encode() + body)
    with pytest.raises(PointFileError, match=re.escape(
            f"{path}: {where} has a NaN or infinite coordinate ([51.0, nan, 53.0])")):
        read_quietly(path)


@pytest.mark.parametrize("name", ["a" * 300 + ".xyz", "a" * 300 + "/x.ply"])
def test_point_file_name_too_long_is_a_point_file_error(tmp_path, name):
    """A name past the file system's limit: ``Path.exists`` raised OSError (ENAMETOOLONG),
    a traceback from the demo."""
    with pytest.raises(PointFileError, match="cannot read: File name too long"):
        read_points(tmp_path / name)


@pytest.mark.parametrize("fmt, message", [
    ("binary_middle_endian 1.0", "don't understand format 'binary_middle_endian'"),
    ("ascii 2.0", "expected version '1.0'"),
])
def test_ply_of_an_unknown_format_is_named_not_cut_short(tmp_path, fmt, message):
    """A PLY whose format plyfile does not read was "cut short: the header declares 5
    'vertex' rows, at least 60 bytes of data ...": the size check took any format but
    ASCII for binary. The format is named now, as plyfile names it."""
    path = tmp_path / "fmt.ply"
    path.write_text(f"ply\nformat {fmt}\nelement vertex 5\nproperty float x\n"
                    "property float y\nproperty float z\nend_header\n1 2 3\n")
    with pytest.raises(PointFileError, match=re.escape(message)) as info:
        read_points(path)
    assert "cut short" not in str(info.value)


def test_ply_without_a_format_line_is_named_not_cut_short(tmp_path):
    """A header without its ``format`` line was "cut short: the header declares 3 'vertex'
    rows, at least 36 bytes of data up to them, but 18 bytes follow it": the size check
    took the missing format for binary. plyfile's message names the line now."""
    path = tmp_path / "nofmt.ply"
    path.write_text("ply\nelement vertex 3\nproperty float x\nproperty float y\n"
                    "property float z\nend_header\n1 2 3\n4 5 6\n7 8 9\n")
    with pytest.raises(PointFileError, match=re.escape(
            "not a valid PLY file (line 2: expected one of {format, comment, obj_info})")):
        read_points(path)


@pytest.mark.parametrize("fmt", ["ascii", "binary_little_endian"])
def test_ply_declaring_a_negative_row_count_says_so(tmp_path, fmt):
    """``element vertex -1`` was "not a valid PLY file (ValueError: negative dimensions
    are not allowed)", NumPy's words for plyfile's allocation."""
    path = tmp_path / "neg.ply"
    path.write_text(f"ply\nformat {fmt} 1.0\nelement vertex -1\nproperty float x\n"
                    "property float y\nproperty float z\nend_header\n")
    with pytest.raises(PointFileError, match=re.escape(
            "not a valid PLY file (the header declares -1 'vertex' rows, a negative count)")):
        read_points(path)


@pytest.mark.parametrize("named, header", [
    ("-3 'vertex' rows", "element vertex -3\nproperty float x\nproperty float y\n"
                         "property float z\nend_header\n0 0 0\n"),
    ("-2 'face' rows", "element vertex 1\nproperty float x\nproperty float y\n"
                       "property float z\nelement face -2\nproperty list uchar int "
                       "vertex_indices\nend_header\n0 0 0\n"),
])
def test_ascii_ply_with_rows_and_a_negative_count_says_so(tmp_path, named, header):
    """An ASCII PLY declaring ``element vertex -3`` above rows took the fast reader's
    row count: "the header declares -3 'vertex' rows (-3 lines), but the body holds 1
    line, 4 more than declared". The negative count is named, as with no rows."""
    path = tmp_path / "neg.ply"
    path.write_text("ply\nformat ascii 1.0\n" + header)
    with pytest.raises(PointFileError, match=re.escape(
            f"not a valid PLY file (the header declares {named}, a negative count)")):
        read_points(path)


@pytest.mark.parametrize("name, text", [
    ("ws.csv", "x,y,z\n1,2,3\n4,5,6\n   \n"),          # a line of blanks
    ("wc.csv", "x,y,z\n1,2,3\n  # 2nd batch\n4,5,6\n"),  # a comment after blanks
    ("tab.csv", "1,2,3\n\t\n4,5,6\n"),                   # a tab alone
])
def test_csv_lines_of_blanks_or_indented_comments_are_skipped(tmp_path, name, text):
    """A new-user probe: NumPy's reader with a ',' delimiter took such a line for a row
    and the file was refused with its raw "could not convert string ' ' to float64 at
    row 2" (a 0-based row, not the file's line); the .xyz reader skipped them. docs/demo.md:
    ".csv: comma-separated, # comments"."""
    path = tmp_path / name
    path.write_text(text)
    np.testing.assert_array_equal(read_points(path), [[1, 2, 3], [4, 5, 6]])
    (tmp_path / "bad.csv").write_text("1,2,3\n  # c\n4,5,x\n")
    with pytest.raises(PointFileError, match=r"bad\.csv: line 3: 'x' is not a number"):
        read_points(tmp_path / "bad.csv")


@pytest.mark.parametrize("head, message", [
    ("ply\nformat ascii 1.0\nelement vertex 2\nproperty float x\nproperty float y\n"
     "property float z\n\nend_header\n",
     r"header line 7 is empty; a PLY header has no empty lines before end_header"),
    ("ply\nformat ascii 1.0\nelement vertex 2\nproperty float x\nproperty float y\n"
     "property float z\nend_header \n",
     r"header line 7 is 'end_header ': the header ends at the word end_header alone"),
])
def test_ply_header_lines_plyfile_stops_at_are_named(tmp_path, head, message):
    """A new-user probe: an empty header line was plyfile's "early end-of-file" (the file
    goes on), ``end_header`` with a trailing blank its "expected one of {}"."""
    pytest.importorskip("plyfile")
    path = tmp_path / "h.ply"
    path.write_text(head + "1 2 3\n4 5 6\n")
    with pytest.raises(PointFileError, match=rf"h\.ply: not a valid PLY file \({message}"):
        read_points(path)
