"""The PLY reader of ``python -m xstride demo --points FILE.ply`` (see :mod:`.pointio`).

ASCII or binary PLY through ``plyfile`` (the ``demo`` extra): the ``x``, ``y``, ``z``
properties of the ``vertex`` element, after a fast path for the common ASCII layout
(NumPy's C text reader), which also checks the rows of the elements after the
vertices, leaving a file that fails the check to plyfile. A body holding more rows than
the header declares (plyfile reads the declared rows and stops) or fewer is refused,
naming the declared rows and what the body holds. Every problem a user can cause raises
:class:`~xstride._cli.pointfile_error.PointFileError` with one readable line.
"""

from __future__ import annotations

import io
import itertools
import os
import re
import warnings
from pathlib import Path

import numpy as np

from .numbers import problem as _problem
from .ply_errors import (PLY_SCALARS as _PLY_SCALARS, element_error as _element_error,
                         header_problem as _header_problem,
                         integer_past_its_type as _integer_past_its_type,
                         non_ascii_byte as _non_ascii_byte, vertex_line)
from .pointfile_error import PointFileError, one_line as _one_line, token_error

__all__ = ["read_ply", "vertex_line"]



#: The formats of a PLY header's ``format`` line (version 1.0) that plyfile reads.
_PLY_FORMATS = ("ascii", "binary_little_endian", "binary_big_endian")

_BLANK_FIRST = re.compile(rb"[ \t\r]*(?:\n|$)")
_BLANK_AFTER = re.compile(rb"\n[ \t\r]*(?:\n|$)")
_LONE_CR = re.compile(rb"\r(?!\n)")
_BLANKS = (b" ", b"\t", b"\r", b"\n")


def _has_blank_line(body: bytes) -> bool:
    """Whether a line of ``body`` holds nothing but spaces, tabs and carriage returns.
    Two patterns, the first line and every line after a newline: one starting with
    ``(?:^|\n)`` tries every position (0.065 s of the bunny's 0.11 s read, development
    CPU); one starting with a newline is searched for that byte first (0.006 s)."""
    return _BLANK_FIRST.match(body) is not None or _BLANK_AFTER.search(body) is not None


def _ascii_ply_vertices(p: Path):
    """Fast path for the common ASCII PLY: vertex first, scalar properties, x/y/z present.
    NumPy's C text reader takes the x/y/z columns of the vertex lines (plyfile's ASCII
    reader is ~50x slower, mostly on the face lists that follow). Values are rounded
    to the declared property type, as plyfile does. Returns ``None`` for anything
    else (binary, other layouts, format versions other than 1.0, a blank line among the
    rows, fewer rows than the header's elements declare), which then goes through
    plyfile: it reports what is wrong (a file cut short would otherwise give the rows
    of the next element as points). More lines than rows: :class:`PointFileError`."""
    try:
        with open(p, "rb") as fh:
            if fh.readline().rstrip(b"\r\n") != b"ply":
                return None
            header_lines, fmt, elements = 1, None, []
            for raw in fh:
                header_lines += 1
                line = raw.rstrip(b"\r\n")
                parts = line.decode("ascii").split()
                if parts[:1] in (["comment"], ["obj_info"]):
                    continue
                # what plyfile's header parser refuses is its to report: a blank line,
                # a second format line or one after an element, two elements of one
                # name (the second's rows were read as nothing), a word after
                # end_header or blanks around it
                if parts[:1] == ["format"] and fmt is None and not elements:
                    fmt = " ".join(parts[1:])
                elif parts[:1] == ["element"] and len(parts) == 3 and \
                        parts[1] not in (e[0] for e in elements):
                    elements.append((parts[1], int(parts[2]), []))
                elif parts[:1] == ["property"] and elements:
                    elements[-1][2].append(parts[1:])
                elif line == b"end_header":
                    break
                else:
                    return None
            else:
                return None
            body = fh.read().rstrip()      # the rows; blank lines at the end are no rows
        for name, _, props in elements:
            names = [pr[-1] for pr in props if pr]
            twice = next((n for n in names if names.count(n) > 1), None)
            if twice is not None:  # plyfile would fail on its dtype, in any element
                times = names.count(twice)
                raise PointFileError(f"{p}: PLY {name} element names property {twice!r} "
                                     f"{'twice' if times == 2 else f'{times} times'}")
        if fmt == "ascii 1.0":
            _refuse_separators(p, body, header_lines + 1)
        if fmt != "ascii 1.0" or not elements or elements[0][0] != "vertex" or \
                any(c < 0 for _, c, _ in elements):
            return None   # a negative count: _ply_rows_fit names it
        # one line per row of every element: a blank line, or fewer lines than rows,
        # is plyfile's to report (the fast read would skip or misread them); so is a
        # carriage return that ends no "\r\n" ("1 2 3\r\r\n"): NumPy's reader ends a
        # line there, which this count does not
        lines = body.count(b"\n") + 1 if body else 0
        if _has_blank_line(body) or _LONE_CR.search(body) is not None or \
                lines < sum(c for _, c, _ in elements):
            return None
        if lines > sum(c for _, c, _ in elements):
            raise _more_rows_error(p, [(name, c) for name, c, _ in elements],
                                   sum(c for _, c, _ in elements), lines, "lines")
        _, count, props = elements[0]
        if any(len(pr) != 2 or pr[0] not in _PLY_SCALARS for pr in props):
            return None
        names = [pr[1] for pr in props]
        if not all(a in names for a in ("x", "y", "z")) or count < 1:
            return None
        columns = [names.index(a) for a in ("x", "y", "z")]
        # every column, so that a row with extra or missing tokens fails here; an integer
        # property is read as its type, so that a token plyfile's int() refuses ("4.0",
        # "1e3", "300" for a uchar), in any column, is plyfile's to report
        kinds = [np.dtype(_PLY_SCALARS[t]) for t, _ in props]
        if any(k.kind in "iu" for k in kinds):
            table = np.loadtxt(p, dtype=[(f"c{i}", k if k.kind in "iu" else np.float64)
                                         for i, k in enumerate(kinds)],
                               skiprows=header_lines, max_rows=count, ndmin=1,
                               comments=None, encoding="ascii")
            rows = np.stack([table[f].astype(np.float64) for f in table.dtype.names], axis=1)
        else:
            rows = np.loadtxt(p, dtype=np.float64, skiprows=header_lines, max_rows=count,
                              ndmin=2, comments=None, encoding="ascii")
    except (ValueError, IndexError, UnicodeDecodeError, OSError):  # plyfile says what is wrong
        return None
    if rows.shape != (count, len(props)) or not _later_rows_ok(body, elements):
        return None   # plyfile names the element, row and property
    arr = rows[:, columns]
    infinite = np.flatnonzero(np.isinf(arr).any(axis=1))
    if infinite.size:   # a number past float64 (1e400) reads as inf: name it
        _past_range(p, header_lines, int(infinite[0]), columns, props)
    for j, c in enumerate(columns):
        dt = np.dtype(_PLY_SCALARS[props[c][0]])
        if dt.kind in "iu":
            info = np.iinfo(dt)
            col = arr[:, j]
            if (col < info.min).any() or (col > info.max).any() or (col != np.floor(col)).any():
                return None  # plyfile reports the bad value
        with np.errstate(over="ignore"):
            cast = arr[:, j].astype(dt)
        past = np.flatnonzero(np.isinf(cast) & np.isfinite(arr[:, j]))
        if past.size:   # 1e40 for a float
            _past_range(p, header_lines, int(past[0]), columns, props)
        arr[:, j] = cast
    return np.ascontiguousarray(arr)


def _later_rows_ok(body: bytes, elements) -> bool:
    """Whether the rows of the elements after ``vertex`` (the first) are what their
    properties declare, checked as plyfile would read them: one token per scalar, a
    list's count then that many items, each token a number of its declared type
    (integers in range, no ``1.5`` or ``1e3`` for one). False for anything else, which
    then goes through plyfile (:func:`_element_error` names the line and the token).
    ``body`` is the rows of every element, one a line (blank lines and lone carriage
    returns already sent to plyfile), its line count that of the header. Vectorised:
    the tokens of each line counted over the bytes, then NumPy's text reader on the
    rows of each token count (a mesh of triangles: one read of its faces)."""
    later = [(count, props) for _, count, props in elements[1:] if count]
    if not later:
        return True
    if not all(len(pr) == 2 and pr[0] in _PLY_SCALARS or len(pr) == 4 and pr[0] == "list"
               and pr[1] in _PLY_SCALARS and pr[2] in _PLY_SCALARS
               for _, props in later for pr in props):
        return False
    raw = np.frombuffer(body, np.uint8)
    newlines = np.flatnonzero(raw == 10)
    line = elements[0][1]            # the vertex rows come first (at least one)
    for count, props in later:
        begin = int(newlines[line - 1]) + 1
        line += count
        end = int(newlines[line - 1]) if line - 1 < newlines.size else raw.size
        if not _element_rows_ok(raw[begin:end], count, props):
            return False
    return True


def _element_rows_ok(raw: np.ndarray, count: int, props) -> bool:
    """The ``count`` rows ``raw`` (bytes, lines apart) of one element of ``props``: see
    :func:`_later_rows_ok`. First read as rows of one width (a mesh of triangles), else
    grouped by their count of tokens (triangles and quads), each group read apart."""
    text = bytes(raw)
    if _rows_ok(text, props, count):
        return True
    blank = (raw == 32) | (raw == 9) | (raw == 13) | (raw == 10)
    starts = ~blank
    starts[1:] &= blank[:-1]
    tokens = np.bincount(np.cumsum(raw == 10)[starts], minlength=count)
    widths = np.unique(tokens)
    if widths.size == 1:
        return False                # one width, yet not read: a bad row
    lines = text.split(b"\n")
    return all(_rows_ok(b"\n".join(lines[i] for i in np.flatnonzero(tokens == w).tolist()),
                        props, int((tokens == w).sum()))
               for w in widths.tolist())


def _rows_ok(text: bytes, props, count: int) -> bool:
    """Whether ``text``, ``count`` rows of one element of ``props`` that all have the
    width of the first, holds what the properties declare: a list's item count is read
    from the first row and every row must hold it."""
    first = text.split(b"\n", 1)[0].split()
    kinds, counts = [], []
    for pr in props:
        if pr[0] != "list":
            kinds.append(pr[0])
            continue
        at = len(kinds)
        try:
            n = int(first[at]) if at < len(first) else -1
        except ValueError:
            return False
        if n < 0:
            return False
        counts.append((at, n))
        kinds += [pr[1]] + [pr[2]] * n
    if len(kinds) != len(first):
        return False
    dtype = [(f"c{i}", _PLY_SCALARS[k] if _PLY_SCALARS[k][0] in "iu" else "f8")
             for i, k in enumerate(kinds)]
    try:
        table = np.loadtxt(io.StringIO(text.decode("ascii")), dtype=dtype, ndmin=1,
                           comments=None)
    except (ValueError, IndexError, UnicodeDecodeError):
        return False   # a bad token, or rows of several widths
    return table.shape == (count,) and not any((table[f"c{at}"] != n).any()
                                               for at, n in counts)


def _refuse_separators(p: Path, body: bytes, first_line: int) -> None:
    """An ASCII PLY body holding a ``_`` (a digit separator, ``1_0``, which plyfile's
    ``int``/``float`` parse would take): :class:`PointFileError` naming the line (the
    body's first is ``first_line``) and the token, as the text point files refuse it
    (:mod:`.numbers`). The body of an ASCII PLY holds numbers and blanks only."""
    at = body.find(b"_")
    if at < 0:
        return
    start = max(body.rfind(blank, 0, at) for blank in _BLANKS) + 1
    end = min((i for i in (body.find(blank, at) for blank in _BLANKS) if i >= 0),
              default=len(body))
    raise token_error(p, first_line + body.count(b"\n", 0, at),
                      body[start:end].decode("ascii", "backslashreplace"), "is not a number")


def _past_range(p: Path, header_lines: int, row: int, columns, props) -> None:
    """A number past its float property's range in the vertex ``row`` of an ASCII PLY
    (``1e400`` for a double, which the text reader reads as inf; ``1e40`` for a float):
    :class:`PointFileError` naming the line, token and property (``inf``: read_points)."""
    with open(p, encoding="ascii") as fh:
        tokens = next(itertools.islice(fh, header_lines + row, None)).split()
    for c in columns:
        dt, token = np.dtype(_PLY_SCALARS[props[c][0]]), tokens[c]
        with np.errstate(over="ignore"):
            past = dt.kind == "f" and np.isinf(dt.type(float(token)))
        if past and "inf" not in token.lower():
            raise token_error(p, header_lines + row + 1, token, f"is out of range for a "
                              f"{props[c][0]}", f"element 'vertex', property {props[c][1]!r}")


def _declared(elements) -> str:
    """``"3 'vertex' rows and 1 'face' row"``: what a header's elements declare."""
    each = [f"{count:,} {name!r} row{'' if count == 1 else 's'}" for name, count in elements]
    return each[0] if len(each) == 1 else ", ".join(each[:-1]) + " and " + each[-1]


def _more_rows_error(p: Path, elements, declared: int, held: int, unit: str,
                     note: str = "") -> PointFileError:
    """The body of a PLY file holds more than its header declares: ``declared`` and
    ``held`` lines of an ASCII body (``unit`` ``"lines"``) or bytes of a binary one."""
    def amount(n):
        return f"{n:,} {unit[:-1] if n == 1 else unit}"

    return PointFileError(f"{p}: not a valid PLY file (the header declares "
                          f"{_declared(elements)} ({amount(declared)}), but the body holds "
                          f"{amount(held)}, {held - declared:,} more than declared{note})")


def _ply_rows_fit(p: Path) -> tuple[str, int] | None:
    """A header that declares more rows than the file can hold: :class:`PointFileError`.

    plyfile allocates an ASCII element's rows before reading them, so a cut-off file
    declaring 10**11 vertices would be a MemoryError ("not enough memory"), not a
    message about the file. A lower bound only: an ASCII row takes at least two bytes
    per property (a digit and a blank or newline), a binary row the sizes of its
    scalars and list counts. Returns ``(format, offset of the data)`` (format
    ``"ascii"``, ``"binary_little_endian"``, ...), or ``None`` for a header that is
    plyfile's to report: one not parsed here, or of a format plyfile does not read
    (``binary_middle_endian``, version 2.0)."""
    try:
        with open(p, "rb") as fh:
            if fh.readline().strip() != b"ply":
                return None
            fmt, elements = None, []
            for raw in fh:
                parts = raw.decode("ascii").split()
                if parts[:1] == ["format"]:
                    if parts[1:] not in ([f, "1.0"] for f in _PLY_FORMATS):
                        return None   # a format plyfile does not read: its message says which
                    fmt = parts[1]
                elif parts[:1] == ["element"] and len(parts) == 3:
                    elements.append([parts[1], int(parts[2]), 0])
                    if elements[-1][1] < 0:   # plyfile: "negative dimensions are not allowed"
                        raise PointFileError(f"{p}: not a valid PLY file (the header declares "
                                             f"{parts[2]} {parts[1]!r} rows, a negative count)")
                elif parts[:1] == ["property"] and elements:
                    if len(parts) != (5 if parts[1:2] == ["list"] else 3):
                        return None   # no name, or words past it: plyfile names the line
                    kind = parts[2] if parts[1] == "list" else parts[1]
                    size = np.dtype(_PLY_SCALARS[kind]).itemsize
                    elements[-1][2] += 2 if fmt == "ascii" else size
                elif parts[:1] == ["end_header"]:
                    break
            else:
                return None
            if fmt is None:   # no format line: plyfile names the line where one was expected
                return None
            start = fh.tell()
            have = os.fstat(fh.fileno()).st_size - start
    except (ValueError, KeyError, UnicodeDecodeError, OSError):
        return None
    need = 0
    for name, count, row in elements:
        need += max(count, 0) * row
        if need - 1 > have:  # the last ASCII row may lack its newline
            raise PointFileError(f"{p}: not a valid PLY file (cut short: the header declares "
                                 f"{_declared([(name, count)])}, at least "
                                 f"{need - (fmt == 'ascii'):,} bytes of data up to "
                                 f"{'it' if count == 1 else 'them'}, but {have:,} bytes "
                                 "follow it)")
    return fmt, start


def _read_whole(p: Path, header, plyfile):
    """``plyfile.PlyData.read`` of the file, then a check that the body holds nothing
    past the rows the header declares (plyfile stops reading there and says nothing):
    :class:`PointFileError` naming the declared rows and what the body holds. An ASCII
    file is read through a text stream (as plyfile reads it), which is then read on for
    lines that hold anything; a binary one through its own stream, whose position is then
    the end of the declared rows. Blanks and line ends after the data are allowed.
    ``header``: ``(format, offset of the data)`` from :func:`_ply_rows_fit`, or ``None``
    (then plyfile reads the file alone, and reports what is wrong with its header)."""
    if header is None:
        return plyfile.PlyData.read(str(p))
    fmt, start = header
    if fmt == "ascii":
        with open(p, encoding="ascii") as fh:
            data = plyfile.PlyData.read(fh)
            rest = sum(1 for line in fh if line.strip())
        if rest:
            declared = sum(e.count for e in data.elements)
            raise _more_rows_error(p, [(e.name, e.count) for e in data.elements], declared,
                                   declared + rest, "lines")
        return data
    with open(p, "rb") as fh:
        data = plyfile.PlyData.read(fh)
        end = fh.tell()
        tail = fh.read()
    if tail.strip(b" \t\r\n"):
        used, held = end - start, end - start + len(tail)
        note = ""
        only = data.elements[0] if len(data.elements) == 1 else None
        if only is not None and not any(isinstance(q, plyfile.PlyListProperty)
                                        for q in only.properties):
            row = only.dtype().itemsize
            note = (f"; that is {held // row:,} rows of {row} bytes" if held % row == 0
                    else f"; a row takes {row} bytes")
        raise _more_rows_error(p, [(e.name, e.count) for e in data.elements], used, held,
                               "bytes", note)
    return data


def read_ply(p: Path) -> np.ndarray:
    """Positions (n, 3) of the ``vertex`` element of a PLY file (not yet checked for
    finite values: :func:`~xstride._cli.pointio.read_points` does that)."""
    fast = _ascii_ply_vertices(p)
    if fast is not None:
        return fast
    header = _ply_rows_fit(p)
    if header is not None and header[0] == "ascii":
        with open(p, "rb") as fh:
            head = fh.read(header[1])
            _refuse_separators(p, fh.read(), head.count(b"\n") + 1)
    try:
        import plyfile
    except ImportError:
        raise PointFileError(f"{p}: reading .ply files needs the 'plyfile' package "
                             "(pip install 'xstride[demo]' or pip install plyfile)") from None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # e.g. a float past float32: inf, named below
            data = _read_whole(p, header, plyfile)
    except plyfile.PlyElementParseError as exc:
        elt = exc.element
        if exc.message == "early end-of-file" and elt is not None and exc.row is not None:
            raise PointFileError(f"{p}: not a valid PLY file (cut short: the header declares "
                                 f"{_declared([(elt.name, elt.count)])}, but the data end "
                                 f"after {exc.row:,} of them)") from None
        raise _element_error(p, exc) from None
    except (plyfile.PlyParseError, plyfile.PlyHeaderParseError) as exc:
        where = _header_problem(p) if isinstance(exc, plyfile.PlyHeaderParseError) else None
        raise PointFileError(f"{p}: not a valid PLY file ({where or _one_line(exc)})") from None
    except (ValueError, IndexError, EOFError, UnicodeDecodeError, OverflowError) as exc:
        if isinstance(exc, OverflowError) and (past := _integer_past_its_type(p)):
            raise past from None
        where = _non_ascii_byte(p) if isinstance(exc, UnicodeDecodeError) else None
        raise PointFileError(f"{p}: not a valid PLY file ("
                             f"{where or f'{type(exc).__name__}: {_one_line(exc)}'})") from None
    names = [e.name for e in data.elements]
    if "vertex" not in names:
        raise PointFileError(f"{p}: PLY has no 'vertex' element (elements: {', '.join(names) or 'none'})")
    vertex = data["vertex"]
    props = [prop.name for prop in vertex.properties]
    missing = [a for a in ("x", "y", "z") if a not in props]
    if missing:
        raise PointFileError(f"{p}: PLY vertex element lacks the {'/'.join(missing)} "
                             f"propert{'y' if len(missing) == 1 else 'ies'} "
                             f"(has: {', '.join(props) or 'none'})")
    v = vertex.data
    for a in ("x", "y", "z"):
        if v[a].dtype.kind not in "fiu":
            raise PointFileError(f"{p}: PLY vertex property {a!r} is not a number")
    return np.stack([np.asarray(v[a], dtype=np.float64) for a in ("x", "y", "z")], axis=1)
