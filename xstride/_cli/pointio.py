"""Point-cloud readers for ``python -m xstride demo --points FILE``.

Formats (chosen by the file extension, case-insensitive):

- ``.npy``: a NumPy array of shape (n, 2) or (n, 3), real dtype (``allow_pickle=False``).
- ``.csv``: comma-separated columns, ``#`` comments. Either exactly 2 or 3 numeric
  columns, or a header row naming the columns; then the columns named ``x``, ``y``
  and (if present) ``z`` are taken, case-insensitive.
- ``.xyz``: whitespace-separated columns, ``#`` comments; x, y, z are the first three
  columns (extra columns such as normals or colours are ignored), or x, y when a file
  has exactly 2 columns.
- ``.ply``: ASCII or binary PLY through ``plyfile`` (the ``demo`` extra); the ``x``,
  ``y``, ``z`` properties of the ``vertex`` element.

Every problem a user can cause raises :class:`PointFileError` with one readable line.
Returns float64 NumPy arrays; finite values are checked here, so the message can name
the file and the row.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

__all__ = ["PointFileError", "FORMATS", "read_points"]

FORMATS = (".npy", ".csv", ".xyz", ".ply")


class PointFileError(Exception):
    """A point file that cannot be used; the message is one line for the user."""


def read_points(path) -> np.ndarray:
    """Positions (n, 2) or (n, 3) float64 from a point file.

    Raises
    ------
    PointFileError
        Missing or unreadable file, unknown extension, wrong shape or column count,
        a PLY without x/y/z vertex properties, no points, or a non-finite coordinate.
    """
    p = Path(path)
    ext = p.suffix.lower()
    if ext not in FORMATS:
        raise PointFileError(f"{p}: unknown point-file extension {p.suffix or '(none)'!r}; "
                             f"known: {', '.join(FORMATS)}")
    if not p.exists():
        raise PointFileError(f"{p}: no such file")
    if not p.is_file():
        raise PointFileError(f"{p}: not a regular file")
    reader = {".npy": _read_npy, ".csv": _read_csv, ".xyz": _read_xyz, ".ply": _read_ply}[ext]
    try:
        pts = reader(p)
    except PointFileError:
        raise
    except OSError as exc:
        raise PointFileError(f"{p}: cannot read: {exc.strerror or exc}") from None
    return _finish(p, pts)


def _finish(p: Path, pts: np.ndarray) -> np.ndarray:
    if pts.ndim != 2 or pts.shape[1] not in (2, 3):
        raise PointFileError(f"{p}: expected points of shape (n, 2) or (n, 3); got {pts.shape}")
    if pts.shape[0] == 0:
        raise PointFileError(f"{p}: holds no points")
    pts = np.ascontiguousarray(pts, dtype=np.float64)
    ok = np.isfinite(pts).all(axis=1)
    if not ok.all():
        row = int(np.flatnonzero(~ok)[0])
        raise PointFileError(f"{p}: point {row} has a NaN or infinite coordinate "
                             f"({pts[row].tolist()})")
    return pts


# --------------------------------------------------------------------- .npy
def _read_npy(p: Path) -> np.ndarray:
    try:
        arr = np.load(p, allow_pickle=False)
    except ValueError as exc:  # pickled object arrays, a bad header
        raise PointFileError(f"{p}: not a plain .npy array ({exc})") from None
    if not isinstance(arr, np.ndarray):
        raise PointFileError(f"{p}: not a single .npy array")
    if arr.dtype.kind not in "fiu":
        raise PointFileError(f"{p}: expected a real (float or integer) array; got dtype {arr.dtype}")
    if arr.ndim != 2 or arr.shape[1] not in (2, 3):
        raise PointFileError(f"{p}: expected an array of shape (n, 2) or (n, 3); got {arr.shape}")
    return arr


# --------------------------------------------------------------------- text
def _data_lines(p: Path):
    """(line number, stripped text) of the lines that are neither blank nor comments."""
    with open(p, encoding="utf-8", errors="replace") as fh:
        for number, line in enumerate(fh, start=1):
            text = line.split("#", 1)[0].strip()
            if text:
                yield number, text


def _is_number(token: str) -> bool:
    try:
        float(token)
    except ValueError:
        return False
    return True


def _parse_rows(p: Path, lines, split, columns, ncols: int) -> np.ndarray:
    """Parse rows of exactly ``ncols`` tokens (or at least, when ``columns`` picks some)."""
    rows = []
    for number, text in lines:
        tokens = split(text)
        if len(tokens) != ncols:
            raise PointFileError(f"{p}: line {number} has {len(tokens)} columns; "
                                 f"expected {ncols} like the first data line")
        try:
            rows.append([float(tokens[c]) for c in columns])
        except ValueError:
            bad = next(tokens[c] for c in columns if not _is_number(tokens[c]))
            raise PointFileError(f"{p}: line {number}: {bad!r} is not a number") from None
    return np.array(rows, dtype=np.float64).reshape(len(rows), len(columns))


def _read_csv(p: Path) -> np.ndarray:
    split = lambda text: [t.strip() for t in text.split(",")]  # noqa: E731
    lines = _data_lines(p)
    first = next(lines, None)
    if first is None:
        raise PointFileError(f"{p}: holds no points")
    tokens = split(first[1])
    if all(_is_number(t) for t in tokens):
        if len(tokens) not in (2, 3):
            raise PointFileError(f"{p}: has {len(tokens)} columns; a CSV point file needs "
                                 "2 or 3 (x, y[, z]) or a header naming x, y, z")
        return _load_text(p, ",", first[0] - 1, list(range(len(tokens))), len(tokens), split)
    names = [t.strip().strip('"').lower() for t in tokens]
    if "x" not in names or "y" not in names:
        raise PointFileError(f"{p}: the header {first[1]!r} names no x and y columns")
    columns = [names.index(a) for a in ("x", "y", "z") if a in names]
    return _load_text(p, ",", first[0], columns, len(tokens), split)


def _read_xyz(p: Path) -> np.ndarray:
    split = str.split
    lines = _data_lines(p)
    first = next(lines, None)
    if first is None:
        raise PointFileError(f"{p}: holds no points")
    ncols = len(split(first[1]))
    if ncols < 2:
        raise PointFileError(f"{p}: line {first[0]} has {ncols} column; an .xyz point file "
                             "needs x y [z ...] columns")
    columns = [0, 1] if ncols == 2 else [0, 1, 2]
    return _load_text(p, None, first[0] - 1, columns, ncols, split)


def _load_text(p: Path, delimiter, skip: int, columns, ncols: int, split) -> np.ndarray:
    """NumPy's C text reader; on failure, a line-by-line pass finds the line to blame.

    ``np.loadtxt(usecols=...)`` ignores extra columns on later rows, so the width of
    every data line is checked too: a ragged file is an error, not silently cut.
    """
    try:
        arr = np.loadtxt(p, dtype=np.float64, delimiter=delimiter, comments="#",
                         skiprows=skip, usecols=columns, ndmin=2, encoding="utf-8")
    except ValueError as exc:
        lines = (item for item in _data_lines(p) if item[0] > skip)
        _parse_rows(p, lines, split, columns, ncols)  # raises with the line number
        raise PointFileError(f"{p}: cannot parse: {_one_line(exc)}") from None
    for number, text in _data_lines(p):
        if number > skip and len(split(text)) != ncols:
            raise PointFileError(f"{p}: line {number} has {len(split(text))} columns; "
                                 f"expected {ncols} like the first data line")
    return arr


# --------------------------------------------------------------------- .ply
_PLY_SCALARS = {
    "char": "i1", "int8": "i1", "uchar": "u1", "uint8": "u1",
    "short": "i2", "int16": "i2", "ushort": "u2", "uint16": "u2",
    "int": "i4", "int32": "i4", "uint": "u4", "uint32": "u4",
    "float": "f4", "float32": "f4", "double": "f8", "float64": "f8",
}


def _ascii_ply_vertices(p: Path):
    """Fast path for the common ASCII PLY: vertex first, scalar properties, x/y/z present.

    NumPy's C text reader takes the x/y/z columns of the vertex lines (plyfile's ASCII
    reader is ~50x slower, mostly on the face lists that follow). Values are rounded
    to the declared property type, as plyfile does. Returns ``None`` for anything
    else (binary, other layouts, a short file), which then goes through plyfile.
    """
    try:
        with open(p, "rb") as fh:
            if fh.readline().strip() != b"ply":
                return None
            header_lines, fmt, elements = 1, None, []
            for raw in fh:
                header_lines += 1
                parts = raw.decode("ascii").split()
                if not parts or parts[0] in ("comment", "obj_info"):
                    continue
                if parts[0] == "format":
                    fmt = parts[1]
                elif parts[0] == "element" and len(parts) == 3:
                    elements.append((parts[1], int(parts[2]), []))
                elif parts[0] == "property" and elements:
                    elements[-1][2].append(parts[1:])
                elif parts[0] == "end_header":
                    break
                else:
                    return None
            else:
                return None
        if fmt != "ascii" or not elements or elements[0][0] != "vertex":
            return None
        _, count, props = elements[0]
        if any(len(pr) != 2 or pr[0] not in _PLY_SCALARS for pr in props):
            return None
        names = [pr[1] for pr in props]
        if not all(a in names for a in ("x", "y", "z")) or count < 1:
            return None
        columns = [names.index(a) for a in ("x", "y", "z")]
        # every column, so that a row with extra or missing tokens fails here
        rows = np.loadtxt(p, dtype=np.float64, skiprows=header_lines, max_rows=count,
                          ndmin=2, comments=None, encoding="ascii")
    except (ValueError, UnicodeDecodeError, OSError):
        return None
    if rows.shape != (count, len(props)):
        return None
    arr = rows[:, columns]
    for j, c in enumerate(columns):
        dt = np.dtype(_PLY_SCALARS[props[c][0]])
        if dt.kind in "iu":
            info = np.iinfo(dt)
            col = arr[:, j]
            if (col < info.min).any() or (col > info.max).any() or (col != np.floor(col)).any():
                return None  # plyfile reports the bad value
        arr[:, j] = arr[:, j].astype(dt)
    return np.ascontiguousarray(arr)


def _read_ply(p: Path) -> np.ndarray:
    fast = _ascii_ply_vertices(p)
    if fast is not None:
        return fast
    try:
        import plyfile
    except ImportError:
        raise PointFileError(f"{p}: reading .ply files needs the 'plyfile' package "
                             "(pip install 'xstride[demo]' or pip install plyfile)") from None
    try:
        data = plyfile.PlyData.read(str(p))
    except (plyfile.PlyParseError, plyfile.PlyHeaderParseError) as exc:
        raise PointFileError(f"{p}: not a valid PLY file ({_one_line(exc)})") from None
    except (ValueError, IndexError, EOFError, UnicodeDecodeError, OverflowError) as exc:
        raise PointFileError(f"{p}: not a valid PLY file ({type(exc).__name__}: "
                             f"{_one_line(exc)})") from None
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


def _one_line(exc) -> str:
    return " ".join(str(exc).split())
