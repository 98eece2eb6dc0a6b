"""PLY files whose body does not match the header's counts: rows past the declared count,
files cut short, line ends after the rows, other elements' properties, the ASCII rows
after the vertices, integers past their type, header bytes that are not ASCII, and the
fast route of valid faces (split from tests/test_pointio.py, past 600 lines)."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

from xstride._cli.pointio import PointFileError, read_points


def read_quietly(path):
    """read_points with every warning turned into a failure: nothing may leak to stderr."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return read_points(path)


PLY_FACE = ("ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\n"
            "property float z\nproperty float confidence\nelement face 1\n"
            "property list uchar int vertex_indices\nend_header\n")


def _ply_header(fmt: str, n: int, faces: int | None = None, first: str = "") -> str:
    face = ("" if faces is None else
            f"element face {faces}\nproperty list uchar int vertex_indices\n")
    return (f"ply\nformat {fmt} 1.0\n{first}element vertex {n}\nproperty float x\n"
            f"property float y\nproperty float z\n{face}end_header\n")


ROWS = np.arange(15, dtype="<f4").reshape(5, 3)
FACE = bytes([3]) + np.array([0, 1, 2], "<i4").tobytes()


@pytest.mark.parametrize("name, data, message", [
    # binary: plyfile read 3 of the 5 rows and stopped
    ("b.ply", _ply_header("binary_little_endian", 3).encode() + ROWS.tobytes(),
     "the header declares 3 'vertex' rows (36 bytes), but the body holds 60 bytes, "
     "24 more than declared; that is 5 rows of 12 bytes"),
    ("be.ply", _ply_header("binary_big_endian", 4).encode() + ROWS.astype(">f4").tobytes(),
     "the header declares 4 'vertex' rows (48 bytes), but the body holds 60 bytes, "
     "12 more than declared; that is 5 rows of 12 bytes"),
    ("bface.ply", _ply_header("binary_little_endian", 5, 1).encode() + ROWS.tobytes()
     + FACE + FACE, "the header declares 5 'vertex' rows and 1 'face' row (73 bytes), but "
     "the body holds 86 bytes, 13 more than declared"),
    # ASCII, vertices first (NumPy's reader) and not (plyfile's)
    ("a.ply", _ply_header("ascii", 3) + "1 2 3\n4 5 6\n7 8 9\n1 1 1\n2 2 2\n",
     "the header declares 3 'vertex' rows (3 lines), but the body holds 5 lines, "
     "2 more than declared"),
    ("aface.ply", _ply_header("ascii", 2, 1) + "1 2 3\n4 5 6\n7 8 9\n3 0 1 2\n",
     "the header declares 2 'vertex' rows and 1 'face' row (3 lines), but the body holds "
     "4 lines, 1 more than declared"),
    ("alater.ply", _ply_header("ascii", 1, first="element t 1\nproperty float a\n")
     + "0\n1 2 3\n4 5 6\n\n", "the header declares 1 't' row and 1 'vertex' row (2 lines), "
     "but the body holds 3 lines, 1 more than declared"),
])
def test_ply_body_holding_more_rows_than_declared_is_refused(tmp_path, name, data, message):
    """A header declaring fewer rows than the body holds was read silently: plyfile
    stops after the declared rows, and the rest of the points were lost."""
    path = tmp_path / name
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    with pytest.raises(PointFileError, match=re.escape(f"{path}: not a valid PLY file "
                                                       f"({message})")):
        read_quietly(path)


@pytest.mark.parametrize("name, data", [
    ("cut.ply", _ply_header("ascii", 3) + "1.1234567 2.1234567 3.1234567\n"
     "4.1234567 5.1234567 6.1234567\n"),
    ("cutlater.ply", _ply_header("ascii", 3, first="element t 1\nproperty float a\n")
     + "0\n1.1234567 2.1234567 3.1234567\n4.1234567 5.1234567 6.1234567\n"),
])
def test_ply_cut_short_names_the_declared_and_read_rows(tmp_path, name, data):
    """Rows long enough for the size check that still end early: plyfile's "element
    'vertex': row 2: early end-of-file" is said with the declared count."""
    path = tmp_path / name
    path.write_text(data)
    with pytest.raises(PointFileError, match=re.escape(
            "not a valid PLY file (cut short: the header declares 3 'vertex' rows, but the "
            "data end after 2 of them)")):
        read_quietly(path)


@pytest.mark.parametrize("count, said", [(1, "1 'vertex' row, at least 12 bytes of data up to "
                                              "it"),
                                          (2, "2 'vertex' rows, at least 24 bytes of data up to "
                                              "them")])
def test_ply_cut_short_by_the_size_check_counts_its_rows_in_words(tmp_path, count, said):
    """One declared row was "the header declares 1 'vertex' rows, ... up to them"."""
    path = tmp_path / "short.ply"
    path.write_bytes(_ply_header("binary_little_endian", count).encode() + bytes(3))
    with pytest.raises(PointFileError, match=re.escape(
            f"not a valid PLY file (cut short: the header declares {said}, but 3 bytes follow "
            "it)")):
        read_quietly(path)


@pytest.mark.parametrize("tail", [b"", b"\n", b"\r\n", b" \n\n"])
@pytest.mark.parametrize("fmt", ["ascii", "binary_little_endian"])
def test_ply_line_ends_after_the_rows_are_no_rows(tmp_path, fmt, tail):
    path = tmp_path / "ok.ply"
    body = b"0 1 2\n3 4 5\n" if fmt == "ascii" else ROWS[:2].tobytes()
    path.write_bytes(_ply_header(fmt, 2).encode() + body + tail)
    np.testing.assert_array_equal(read_points(path), ROWS[:2])


@pytest.mark.parametrize("row, message", [
    ("1e3 2 3 0", "'1e3' is not an int (element 'vertex', property 'x')"),
    ("4.0 2 3 0", "'4.0' is not an int (element 'vertex', property 'x')"),
    ("1 2 3 300", "'300' is out of range for a uchar (element 'vertex', property 'red')"),
    ("1 2 3 2.5", "'2.5' is not a uchar (element 'vertex', property 'red')"),
])
@pytest.mark.parametrize("first", ["", "element t 1\nproperty float a\n"])
def test_ascii_ply_integer_token_plyfile_refuses_is_refused_on_every_route(tmp_path, row,
                                                                          message, first):
    """``1e3`` or ``4.0`` for an ``int`` property, or ``300``/``2.5`` for a ``uchar`` one
    beside x/y/z, were read by the fast ASCII reader (vertex first) as whole numbers,
    while the same rows after another element went to plyfile, which refuses them."""
    path = tmp_path / "i.ply"
    body = ("0\n" if first else "") + row + "\n"
    path.write_text(f"ply\nformat ascii 1.0\n{first}element vertex 1\nproperty int x\n"
                    "property float y\nproperty float z\nproperty uchar red\nend_header\n"
                    + body)
    line = 12 if first else 9
    with pytest.raises(PointFileError, match=re.escape(f"{path}: line {line}: {message}") + "$"):
        read_quietly(path)


@pytest.mark.parametrize("fmt", ["ascii", "binary_little_endian"])
def test_ply_other_element_naming_a_property_twice_is_refused(tmp_path, fmt):
    """A face element naming a property twice: the fast ASCII reader read the vertices
    (plyfile refuses the file); binary was "ValueError: two properties with same name"."""
    body = b"1 2 3\n" if fmt == "ascii" else np.array([1, 2, 3], "<f4").tobytes()
    path = tmp_path / "dupface.ply"
    path.write_bytes(_ply_header(fmt, 1).replace(
        "end_header", "element face 0\nproperty uchar a\nproperty uchar a\nend_header").encode()
        + body)
    with pytest.raises(PointFileError, match=re.escape(
            f"{path}: PLY face element names property 'a' twice")):
        read_quietly(path)


_V3 = "0 0 0\n1 0 0\n0 1 0\n"


_FACES = "(element 'face', property 'vertex_indices'"


@pytest.mark.parametrize("extra, faces, message", [
    ("", "3 0 1\n3 0 2 1\n", "not a valid PLY file (element 'face': row 1 (line 13): "
                              "property 'vertex_indices': early end-of-line)"),
    ("", "3 0 1 2\n3 0 2 1 2\n", "not a valid PLY file (element 'face': row 2 (line 14): "
                                  "expected end-of-line)"),
    ("", "3 0 x 2\n3 0 2 1\n", "line 13: 'x' is not a number"),
    ("", "3 0 1.5 2\n3 0 2 1\n", f"line 13: '1.5' is not an int {_FACES})"),
    ("", "300 0 1 2\n3 0 2 1\n", f"line 13: '300' is out of range for a uchar {_FACES}, "
                                  "the list's length)"),
    ("", "3 0 1 2\n4 0 1 2 99999999999\n", f"line 14: '99999999999' is out of range for an "
                                            f"int {_FACES})"),
    ("property uchar flag\n", "3 0 1 2 7\n3 0 2 1\n", "not a valid PLY file (element 'face': "
     "row 2 (line 15): property 'flag': early end-of-line)"),
    ("property uchar flag\n", "3 0 1 2 700\n3 0 2 1 1\n", "line 14: '700' is out of range "
     "for a uchar (element 'face', property 'flag')"),
])
@pytest.mark.parametrize("route", ["fast", "plyfile"])
def test_ascii_ply_rows_after_the_vertices_are_checked(tmp_path, monkeypatch, extra, faces,
                                                       message, route):
    """The fast ASCII reader (vertex first) read the vertices of a file whose face rows
    were too short, too long or held a bad token, all of which plyfile refuses; both
    routes now give the same error: a bad token with its line, else plyfile's words with
    the row counted from 1 and its line (plyfile's "row 0" was the first)."""
    from xstride._cli import plyio

    if route == "plyfile":
        monkeypatch.setattr(plyio, "_ascii_ply_vertices", lambda p: None)
    path = tmp_path / "f.ply"
    path.write_text(PLY_FACE.replace("property float confidence\n", "").replace(
        "element face 1", "element face 2").replace("end_header", extra + "end_header")
        + _V3 + faces)
    with pytest.raises(PointFileError, match=re.escape(f"{path}: {message}") + "$") as info:
        read_quietly(path)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("props, rows, message", [
    ("property uchar x\nproperty float y\nproperty float z\n", "0 0 0\n300 0 0\n",
     "line 9: '300' is out of range for a uchar (element 'vertex', property 'x')"),
    ("property float x\nproperty float y\nproperty int z\n", "0 0 99999999999999999999\n1 1 1\n",
     "line 8: '99999999999999999999' is out of range for an int (element 'vertex', "
     "property 'z')"),
    ("property float x\nproperty float y\nproperty float z\nproperty short s\n",
     "0 0 0 1\n1 1 1 -40000\n",
     "line 10: '-40000' is out of range for a short (element 'vertex', property 's')"),
])
@pytest.mark.parametrize("route", ["fast", "plyfile"])
def test_ascii_ply_integer_past_its_type_names_line_element_and_property(tmp_path, monkeypatch,
                                                                         props, rows, message,
                                                                         route):
    """An integer token its property's type cannot hold was plyfile's bare NumPy error,
    "OverflowError: Python int too large to convert to C long" (or "... 300 out of bounds
    for uint8"): no element, row or property. Both routes now name the line, the token,
    the type, the element and the property (it said "row 0" for the first row)."""
    from xstride._cli import plyio

    if route == "plyfile":
        monkeypatch.setattr(plyio, "_ascii_ply_vertices", lambda p: None)
    path = tmp_path / "big.ply"
    path.write_text(f"ply\nformat ascii 1.0\nelement vertex 2\n{props}end_header\n{rows}")
    with pytest.raises(PointFileError, match=re.escape(f"{path}: {message}") + "$"):
        read_quietly(path)


@pytest.mark.parametrize("data, message", [
    # a UTF-8 comment: "UnicodeDecodeError: 'ascii' codec can't decode byte 0xc3 in
    # position 0: ordinal not in range(128)", a position in a line it did not name
    (b"ply\nformat ascii 1.0\ncomment caf\xc3\xa9\nelement vertex 1\nproperty float x\n"
     b"property float y\nproperty float z\nend_header\n0 0 0\n",
     "header line 3 holds the byte 0xc3, which is not ASCII; a PLY header is ASCII text"),
    (b"ply\r\nformat binary_little_endian 1.0\r\nelement vertex 1\r\nproperty float x\r\n"
     b"property float y\r\nproperty float \xe9\r\nend_header\n" + bytes(12),
     "header line 6 holds the byte 0xe9, which is not ASCII"),
    # bytes of no PLY file (as plyfile says of an empty one)
    (b"\x93\x17garbage\xff\nmore\n", "line 1: expected 'ply'"),
    # an editor's byte-order mark: "line 1: expected 'ply'" of a line that shows 'ply'
    (b"\xef\xbb\xbfply\nformat ascii 1.0\nelement vertex 1\nproperty float x\n"
     b"property float y\nproperty float z\nend_header\n0 0 0\n",
     "line 1 begins with a UTF-8 byte-order mark (the bytes 0xef 0xbb 0xbf) before 'ply'; "
     "a PLY header is ASCII text: save the file without it"),
])
def test_ply_header_byte_that_is_not_ascii_is_named(tmp_path, data, message):
    path = tmp_path / "h.ply"
    path.write_bytes(data)
    with pytest.raises(PointFileError, match=re.escape(f"{path}: not a valid PLY file "
                                                       f"({message}") + r".*\)$"):
        read_quietly(path)


_ROWS_3 = "".join(f"{i} {i} {i}\n" for i in range(3000)).encode()


@pytest.mark.parametrize("data, message", [
    # "UnicodeDecodeError: 'ascii' codec can't decode byte 0xc2 in position 818": a
    # position in a chunk of the text plyfile decodes, not in the file
    (_ply_header("ascii", 3001).encode() + _ROWS_3 + "1 2 3\u00b0\n".encode(),
     "line 3008 holds the byte 0xc2, which is not ASCII; the body of an ASCII PLY file is "
     "ASCII text"),
    (_ply_header("ascii", 3, 1).encode() + b"0 0 0\n1 0 0\n0 1 0\n3 0 1 2 \xff\n",
     "line 13 holds the byte 0xff"),
    (_ply_header("ascii", 1, first="element t 1\nproperty float a\n").encode()   # plyfile's
     + b"0\n1 2 3\xb5\n", "line 11 holds the byte 0xb5"),                   # route
    # binary: an end_header ended otherwise than line 1 is not the header's end to plyfile,
    # which read the binary rows as header lines
    (_ply_header("binary_little_endian", 1).replace("end_header\n", "end_header\r\n")
     .encode() + np.array([1, 2, 3], "<f4").tobytes(),
     "header line 7 is 'end_header\\r\\n': plyfile ends the header only at the line "
     "'end_header' ended as line 1 is ('\\n'), and read the binary data after it as header "
     "lines"),
])
def test_ply_byte_that_is_not_ascii_after_the_header_is_named(tmp_path, data, message):
    path = tmp_path / "b.ply"
    path.write_bytes(data)
    with pytest.raises(PointFileError, match=re.escape(f"{path}: not a valid PLY file "
                                                       f"({message}") + r".*\)$"):
        read_quietly(path)


def test_ascii_ply_list_length_past_its_type_is_named(tmp_path):
    path = tmp_path / "f.ply"
    path.write_text(PLY_FACE.replace("property float confidence\n", "") + _V3 + "300 0 1 2\n")
    with pytest.raises(PointFileError, match=re.escape(
            f"{path}: line 13: '300' is out of range for a uchar (element 'face', property "
            "'vertex_indices', the list's length)") + "$"):
        read_quietly(path)


@pytest.mark.parametrize("faces", ["3 0 1 2\n3 0 2 1\n", "3 0 1 2\n4 0 1 2 0\n",
                                   "0\n3 0 2 1\n", "3 0 1 2\r\n4 0 1 2 0\r\n"])
def test_ascii_ply_with_valid_faces_stays_on_the_fast_route(tmp_path, faces):
    """Triangles, triangles and quads, an empty list, CRLF: the check of the face rows
    keeps such files on the fast route, and they read as plyfile reads them."""
    from xstride._cli import plyio

    path = tmp_path / "ok.ply"
    path.write_bytes((PLY_FACE.replace("property float confidence\n", "").replace(
        "element face 1", "element face 2") + _V3).encode() + faces.encode())
    fast = plyio._ascii_ply_vertices(path)
    assert fast is not None
    np.testing.assert_array_equal(fast, [[0, 0, 0], [1, 0, 0], [0, 1, 0]])
    np.testing.assert_array_equal(read_quietly(path), fast)


_XYZ = "property float x\nproperty float y\nproperty float z\n"


@pytest.mark.parametrize("header, message", [
    # two elements of one name: the fast route read the first and dropped the second
    ("ply\nformat ascii 1.0\nelement vertex 2\n" + _XYZ + "element vertex 1\n" + _XYZ
     + "end_header\n", "two elements with same name"),
    ("ply\nelement vertex 3\n" + _XYZ + "format ascii 1.0\nend_header\n", None),
    ("ply\nformat ascii 1.0\nformat ascii 1.0\nelement vertex 3\n" + _XYZ + "end_header\n",
     None),
    ("ply\nformat ascii 1.0\nelement vertex 3\n" + _XYZ + "end_header extra\n", None),
    ("ply\nformat ascii 1.0\nelement vertex 3\n" + _XYZ + "end_header  \n", None),
    ("ply \nformat ascii 1.0\nelement vertex 3\n" + _XYZ + "end_header\n", None),
    ("ply\nformat ascii 1.0\n\nelement vertex 3\n" + _XYZ + "end_header\n", None),
], ids=["two vertex elements", "format after an element", "two format lines",
        "word after end_header", "blanks after end_header", "blanks after ply",
        "blank header line"])
def test_ascii_ply_header_plyfile_refuses_is_refused_on_the_fast_route_too(
        tmp_path, header, message):
    """The fast ASCII route read headers that plyfile (and so every other route)
    refuses; with two vertex elements it gave the first element's rows as the points
    and dropped the rest."""
    pytest.importorskip("plyfile")
    p = tmp_path / "bad.ply"
    p.write_text(header + "1 2 3\n4 5 6\n7 8 9\n")
    with pytest.raises(PointFileError, match=r"not a valid PLY file" + (
            f".*{re.escape(message)}" if message else "")):
        read_points(p)


def test_ply_property_line_without_a_name_is_named_not_cut_short(tmp_path):
    """The size check counted ``property float`` as a 4-byte property and said the
    file was cut short; plyfile names the line."""
    pytest.importorskip("plyfile")
    p = tmp_path / "bad.ply"
    p.write_bytes(b"ply\nformat binary_little_endian 1.0\nelement vertex 2\n" + _XYZ.encode()
                  + b"property float\nend_header\n" + np.zeros(6, "<f4").tobytes())
    with pytest.raises(PointFileError, match=r"not a valid PLY file") as info:
        read_points(p)
    assert "cut short" not in str(info.value)


@pytest.mark.parametrize("row, message", [
    ("1 abc 3", "line 10: 'abc' is not a number"),
    ("0x1 2 3", "line 10: '0x1' is not a number"),
    ("1 2 1,5", "line 10: '1,5' is not a number"),
    ("1 1e 3", "line 10: '1e' is not a number"),
    ("1 2 3 4.5", "line 10: '4.5' is not an int (element 'vertex', property 'i')"),
    ("1 2 3 inf", "line 10: 'inf' is not an int (element 'vertex', property 'i')"),
])
@pytest.mark.parametrize("route", ["fast", "plyfile"])
def test_ascii_ply_bad_token_names_its_line_and_token(tmp_path, monkeypatch, row, message,
                                                      route):
    """plyfile's "element 'vertex': row 1: property 'y': malformed input" named neither
    the line nor the token, and counted its rows from 0, while docs/demo.md promised
    both, as for a text file ("line N: 'abc' is not a number")."""
    from xstride._cli import plyio

    if route == "plyfile":
        monkeypatch.setattr(plyio, "_ascii_ply_vertices", lambda p: None)
    path = tmp_path / "t.ply"
    path.write_text(_ply_header("ascii", 2).replace("end_header", "property int i\nend_header")
                    + "0 0 0 0\n" + row + ("\n" if len(row.split()) == 4 else " 0\n"))
    with pytest.raises(PointFileError, match=re.escape(f"{path}: {message}") + "$"):
        read_quietly(path)


@pytest.mark.parametrize("faces, message", [
    ("3 0 1 2\n3 0 x 2\n", "line 14: 'x' is not a number"),
    ("3 0 1 2\n3 0 1.5 2\n", "line 14: '1.5' is not an int (element 'face', property 'v')"),
    ("1.5 0\n3 0 1 2\n", "line 13: '1.5' is not an int (element 'face', property 'v', the "
                         "list's length)"),
    ("-1 0\n3 0 1 2\n", "line 13: '-1' is negative (element 'face', property 'v', the "
                        "list's length)"),
])
def test_ascii_ply_bad_token_of_a_list_names_its_line_and_token(tmp_path, faces, message):
    """A list's length, then that many items: the token of the property plyfile found
    malformed, named with its line (an ``int`` length here: plyfile refuses ``-1``)."""
    path = tmp_path / "f.ply"
    path.write_text(_ply_header("ascii", 3, 2).replace("list uchar int vertex_indices",
                                                       "list int int v") + _V3 + faces)
    with pytest.raises(PointFileError, match=re.escape(f"{path}: {message}") + "$"):
        read_quietly(path)


def test_ascii_ply_bad_token_not_found_keeps_plyfile_words(tmp_path, monkeypatch):
    """Where the walk to the token fails, plyfile's words, the row counted from 1."""
    from xstride._cli import ply_errors

    def fails(*args):
        raise ValueError("no walk")

    monkeypatch.setattr(ply_errors, "_row_at", fails)
    path = tmp_path / "t.ply"
    path.write_text(_ply_header("ascii", 2) + "0 0 0\n1 abc 3\n")
    with pytest.raises(PointFileError, match=re.escape(
            f"{path}: not a valid PLY file (element 'vertex': row 2: property 'y': "
            "malformed input)") + "$"):
        read_quietly(path)
