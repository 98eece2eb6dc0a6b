"""The words of a PLY file's errors in ``python -m xstride demo --points FILE.ply``
(:mod:`.plyio` reads the file): where plyfile's own errors name no line, or count rows
from 0, the line, the token and the element and property it belongs to, read from the
header and the row itself. Each helper returns ``None`` (or plyfile's words, rows
counted from 1) where it cannot tell more.
"""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import numpy as np

from .numbers import problem as _problem
from .pointfile_error import PointFileError, token_error

__all__ = ["PLY_SCALARS", "non_ascii_byte", "header_problem", "integer_past_its_type",
           "element_error", "vertex_line"]

#: The scalar types of a PLY property and their NumPy dtypes.
PLY_SCALARS = {
    "char": "i1", "int8": "i1", "uchar": "u1", "uint8": "u1",
    "short": "i2", "int16": "i2", "ushort": "u2", "uint16": "u2",
    "int": "i4", "int32": "i4", "uint": "u4", "uint32": "u4",
    "float": "f4", "float32": "f4", "double": "f8", "float64": "f8",
}

_NOT_ASCII = re.compile(rb"[\x80-\xff]")
_UTF8_BOM = b"\xef\xbb\xbf"


def non_ascii_byte(p: Path) -> str | None:
    """Where a PLY file holds a byte that is not ASCII in text plyfile decodes as ASCII
    (its UnicodeDecodeError names a position in a chunk it does not name): a UTF-8
    byte-order mark before ``ply`` (an editor's, which shows the line as ``ply``); no
    line ``ply`` first (random bytes, another format); the header line, or the line of an
    ASCII body, holding the byte; or, in a binary file, the ``end_header`` line plyfile
    did not take as the header's end (it must be that word alone, ended as line 1 is),
    so that it read the binary data as header lines. ``None`` where none is found."""
    with open(p, "rb") as fh:
        first = fh.readline()
        if first.startswith(_UTF8_BOM) and first[len(_UTF8_BOM):].rstrip(b"\r\n") == b"ply":
            return ("line 1 begins with a UTF-8 byte-order mark (the bytes 0xef 0xbb 0xbf) "
                    "before 'ply'; a PLY header is ASCII text: save the file without it")
        if first.rstrip(b"\r\n") != b"ply":
            return "line 1: expected 'ply'"
        ending = b"\r\n" if first.endswith(b"\r\n") else b"\n"
        fmt, end = None, None     # the format; the end_header line (number, bytes)
        for number, raw in enumerate(fh, start=2):
            bad = _NOT_ASCII.search(raw)
            if bad is not None:
                byte = f"the byte 0x{raw[bad.start()]:02x}"
                if end is None:
                    return (f"header line {number} holds {byte}, which is not ASCII; a PLY "
                            "header is ASCII text")
                if fmt == "ascii":
                    return (f"line {number} holds {byte}, which is not ASCII; the body of "
                            "an ASCII PLY file is ASCII text")
                line = end[1].decode("ascii")
                return (f"header line {end[0]} is {line!r}: plyfile ends the header only at "
                        f"the line 'end_header' ended as line 1 is "
                        f"({ending.decode('ascii')!r}), and read the binary data after it "
                        "as header lines")
            if end is None:
                parts = raw.split()
                if parts[:1] == [b"format"] and len(parts) > 1:
                    fmt = parts[1].decode("ascii")
                elif parts[:1] == [b"end_header"]:
                    end = (number, raw)
    return None


def header_problem(p: Path) -> str | None:
    """The header line plyfile stopped at where its own words do not say what is wrong
    (an empty line: "early end-of-file"; ``end_header`` with blanks around it: "expected
    one of {}"), or ``None``."""
    with open(p, "rb") as fh:
        for number, raw in enumerate(fh, start=1):
            line = raw.rstrip(b"\r\n")
            if not line:
                return (f"header line {number} is empty; a PLY header has no empty lines "
                        "before end_header")
            if line.strip() == b"end_header":
                if line != b"end_header":
                    return (f"header line {number} is {line.decode('ascii', 'replace')!r}: "
                            "the header ends at the word end_header alone on its line")
                return None
    return None


def _layout(fh):
    """``(format, header lines, elements)`` of the PLY header read from the text stream
    ``fh``, left at the body's first line; an element is ``(name, count, properties)``,
    a property the words after ``property``."""
    fmt, elements = None, []
    for number, line in enumerate(fh, start=1):
        parts = line.split()
        if parts[:1] == ["format"]:
            fmt = parts[1]
        elif parts[:1] == ["element"]:
            elements.append((parts[1], int(parts[2]), []))
        elif parts[:1] == ["property"] and elements:
            elements[-1][2].append(parts[1:])
        elif parts[:1] == ["end_header"]:
            return fmt, number, elements
    raise ValueError   # no end_header: the callers fall back to plyfile's words


def _row_tokens(props, line: str):
    """``(token, type, property, what)`` of one ASCII row as plyfile reads it: a token
    per scalar property, a list's length (``what``: ``", the list's length"``) then that
    many items. Ends where the row does or a list's length is not an integer."""
    tokens = iter(line.split())
    for pr, token in zip(props, tokens):
        if pr[0] != "list":
            yield token, pr[0], pr[-1], ""
            continue
        yield token, pr[1], pr[-1], ", the list's length"
        items = int(token) if re.fullmatch(r"[+-]?[0-9]+", token) else 0
        for item in itertools.islice(tokens, max(items, 0)):
            yield item, pr[2], pr[-1], ""


def _bad_token(p: Path, line: int, token: str, kind: str, element: str, prop: str,
               what: str = ""):
    """:func:`~.pointfile_error.token_error` for a token of an ASCII PLY row that is no
    value of its type ``kind`` (:func:`~.numbers.problem`, or a negative list length),
    naming the element and property where it is a number; else ``None``."""
    problem = _problem(token, np.dtype(PLY_SCALARS[kind]), kind)
    if problem is None and what and int(token) < 0:
        problem = "is negative"   # a list's length; plyfile's islice refuses it
    where = f"element {element!r}, property {prop!r}{what}"
    return None if problem is None else token_error(
        p, line, token, problem, "" if problem == "is not a number" else where)


def integer_past_its_type(p: Path) -> PointFileError | None:
    """The first integer token of an ASCII PLY its property's type cannot hold (plyfile's
    bare ``OverflowError``, "Python integer 300 out of bounds for uint8", names no line,
    element or property), or ``None`` (the caller shows the error as it came)."""
    try:
        with open(p, encoding="ascii") as fh:
            _, line, elements = _layout(fh)
            for name, count, props in elements:
                for _ in range(count):
                    line += 1
                    for token, kind, prop, what in _row_tokens(props, next(fh)):
                        if "out of range" in (_problem(token, np.dtype(PLY_SCALARS[kind]),
                                                       kind) or ""):
                            return _bad_token(p, line, token, kind, name, prop, what)
    except (ValueError, IndexError, KeyError, StopIteration, UnicodeDecodeError, OSError):
        return None
    return None


def _row_at(p: Path, element: str, row: int):
    """``(line, text, properties)`` of the row ``row`` (from 0) of ``element`` in an
    ASCII PLY file, whose rows are lines; ``None`` in a binary one."""
    with open(p, encoding="ascii", errors="replace") as fh:
        fmt, line, elements = _layout(fh)
        index = [e[0] for e in elements].index(element)
        before = sum(c for _, c, _ in elements[:index])
        if fmt != "ascii":
            return None
        text = next(itertools.islice(fh, before + row, None), "")
        return line + before + row + 1, text, elements[index][2]


def _walked(p: Path, exc):
    """``(line, the token's error or None)`` of plyfile's error ``exc`` in an ASCII file,
    read from the row itself; ``(None, None)`` where the walk cannot read the header or
    the row (a binary file, a header plyfile alone understands)."""
    elt, row, prop = exc.element, exc.row, exc.prop
    try:
        line, text, props = _row_at(p, elt.name, row) or (None, "", [])
        for token, kind, name, what in (_row_tokens(props, text)
                                        if exc.message == "malformed input" else ()):
            bad = name == prop.name and _bad_token(p, line, token, kind, elt.name, name, what)
            if bad:
                return line, bad
        return line, None
    except (ValueError, IndexError, KeyError, AttributeError, TypeError, OSError):
        return None, None


def element_error(p: Path, exc) -> PointFileError:
    """plyfile's ``PlyElementParseError`` (``element 'face': row 0: property 'v': early
    end-of-line``), its row counted from 1 as lines and points are, with its line in an
    ASCII file; "malformed input" there names the line and token (:func:`_bad_token`);
    plyfile's words where the row cannot be walked (:func:`_walked`)."""
    elt, row, prop = exc.element, exc.row, exc.prop
    line, bad = _walked(p, exc)
    if bad:
        return bad
    at = "" if row is None else f"row {row + 1} (line {line}): " if line else f"row {row + 1}: "
    words = (f"element {elt.name!r}: " if elt is not None else "") + at + \
        (f"property {prop.name!r}: " if prop is not None else "") + exc.message
    return PointFileError(f"{p}: not a valid PLY file ({words})")


def vertex_line(p: Path, row: int) -> int | None:
    """The line of the vertex ``row`` (from 0) of an ASCII PLY file, else ``None``."""
    try:
        return (_row_at(p, "vertex", row) or (None,))[0]
    except (ValueError, IndexError, OSError):
        return None
