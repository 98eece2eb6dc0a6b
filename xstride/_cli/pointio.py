"""Point-cloud readers for ``python -m xstride demo --points FILE``.

Formats (chosen by the file extension, case-insensitive):

- ``.npy``: a NumPy array of shape (n, 2) or (n, 3), real dtype (``allow_pickle=False``).
- ``.csv``: comma-separated columns, ``#`` comments. Either exactly 2 or 3 numeric
  columns, or a header row naming the columns; then the columns named ``x``, ``y``
  and (if present) ``z`` are taken, case-insensitive.
- ``.xyz``: whitespace-separated columns, ``#`` comments; x, y, z are the first three
  columns (extra columns such as normals or colours are ignored), or x, y when a file
  has exactly 2 columns.
- ``.ply``: ASCII or binary PLY through ``plyfile`` (the ``demo`` extra; the reader
  is :mod:`.plyio`); the ``x``, ``y``, ``z`` properties of the ``vertex`` element.

Text files are UTF-8 (a byte-order mark is skipped). A CSV line separated by ``;``
or blanks, a trailing comma, an empty field, a header naming ``x``, ``y`` or ``z``
twice, an .xyz line separated by ``,`` or ``;``: each gets a message saying so (see
docs/demo.md "Point files"). A .npy header is checked against the file's size before
anything is read.

Every problem a user can cause raises :class:`PointFileError` with one readable line,
and no NumPy warning reaches stderr.
Returns float64 NumPy arrays; finite values are checked here, so the message can name
the file and the row.
"""

from __future__ import annotations

import io
import itertools
import os
import warnings
from pathlib import Path

import numpy as np

from .numbers import is_number as _is_number
from .plyio import read_ply as _read_ply, vertex_line as _vertex_line
from .pointfile_error import PointFileError, one_line as _one_line, token_error

__all__ = ["PointFileError", "FORMATS", "read_points"]

FORMATS = (".npy", ".csv", ".xyz", ".ply")


def check_path(path) -> Path:
    """The point file's path, once it names an existing regular file of a known
    extension (what :func:`read_points` checks before it reads; the dask demo checks
    it before it starts a cluster).

    Raises
    ------
    PointFileError
        An empty path, a missing file, an unknown extension, a file that is not a
        regular file, or a path the file system refuses.
    """
    if str(path) == "":   # Path("") is ".", which names no file the user gave
        raise PointFileError("the point-file path is empty")
    p = Path(path)
    try:
        folder = p.is_dir()
    except OSError:   # the checks below name the file system's error
        folder = False
    if folder:        # before the extension: a folder's name has none, or any
        raise PointFileError(f"{p}: not a regular file (a folder)")
    try:
        exists, regular = p.exists(), p.is_file()
    except OSError as exc:  # a name too long for the file system (ENAMETOOLONG), ...
        raise PointFileError(f"{p}: cannot read: {exc.strerror or exc}") from None
    if not exists:    # before the extension: a missing ".npy" has none to Python
        raise PointFileError(f"{p}: {_missing(p)}")
    if p.suffix.lower() not in FORMATS:
        raise PointFileError(f"{p}: unknown point-file extension {p.suffix or '(none)'!r}; "
                             f"known: {', '.join(FORMATS)}")
    if not regular:
        raise PointFileError(f"{p}: not a regular file")
    return p


def _missing(p: Path) -> str:
    """Why ``p``, which ``Path.exists`` denies, names no file: "no such file", or for a
    symbolic link the link's own fault: the missing file it ends at (through any chain
    of links, as an absolute path), or the system's reason it cannot be followed (a
    loop of links: ``ELOOP``)."""
    try:
        os.readlink(p)   # OSError where p is no symbolic link
    except OSError:
        return "no such file"
    try:
        os.stat(p)
    except FileNotFoundError:   # the link's end (through a chain of links) is missing
        return f"no such file (a symbolic link to {os.path.realpath(p)}, which does not exist)"
    except OSError as exc:
        return f"cannot read: {exc.strerror or exc}"
    return "no such file"


def read_points(path) -> np.ndarray:
    """Positions (n, 2) or (n, 3) float64 from a point file.

    Raises
    ------
    PointFileError
        Missing or unreadable file, unknown extension, wrong shape or column count,
        a PLY without x/y/z vertex properties, no points, or a non-finite coordinate.
    """
    p = check_path(path)
    ext = p.suffix.lower()
    reader = {".npy": _read_npy, ".csv": _read_csv, ".xyz": _read_xyz, ".ply": _read_ply}[ext]
    try:
        pts = reader(p)
    except PointFileError:
        raise
    except UnicodeDecodeError as exc:
        raise PointFileError(f"{p}: is not UTF-8 text ({exc.reason}: byte "
                             f"0x{exc.object[exc.start]:02x})") from None
    except OSError as exc:
        raise PointFileError(f"{p}: cannot read: {exc.strerror or exc}") from None
    return _finish(p, pts)


def _point(p: Path, pts: np.ndarray, row: int) -> str:
    """``point 18 (line 20)``: the row ``row`` (from 0) of the points read from ``p``,
    counted from 1 as lines are, with its line in a text file (``.csv``, ``.xyz``, an
    ASCII ``.ply``) where it can be found (a :class:`PointFileError` message)."""
    line = None
    try:
        if p.suffix.lower() == ".ply":
            line = _vertex_line(p, row)
        elif p.suffix.lower() in (".csv", ".xyz"):   # the data lines, a CSV header first
            data = sum(1 for _ in _data_lines(p))
            line = next(itertools.islice(_data_lines(p), data - len(pts) + row, None))[0]
    except (OSError, ValueError, StopIteration):
        line = None
    return f"point {row + 1}" + ("" if line is None else f" (line {line})")


def _finish(p: Path, pts: np.ndarray) -> np.ndarray:
    if pts.ndim != 2 or pts.shape[1] not in (2, 3):
        raise PointFileError(f"{p}: expected points of shape (n, 2) or (n, 3); got {pts.shape}")
    if pts.shape[0] == 0:
        raise PointFileError(f"{p}: holds no points")
    source = pts
    with np.errstate(over="ignore", invalid="ignore"):  # a long double past float64: below
        pts = np.ascontiguousarray(pts, dtype=np.float64)
    ok = np.isfinite(pts).all(axis=1)
    if not ok.all():
        row = int(np.flatnonzero(~ok)[0])
        for value, was in zip(pts[row], np.asarray(source[row])):
            if not np.isfinite(value) and np.isfinite(was):
                raise PointFileError(f"{p}: {_point(p, pts, row)}: {str(was)} is out of the "
                                     "float64 range")
        raise PointFileError(f"{p}: {_point(p, pts, row)} has a NaN or infinite coordinate "
                             f"({pts[row].tolist()})")
    return pts


# --------------------------------------------------------------------- .npy
_NPY_MAGIC = b"\x93NUMPY"


def _read_npy(p: Path) -> np.ndarray:
    """The array of a .npy file, after checking its header against the file's size.

    The header is read first, so that an empty, cut-off or foreign file gets its own
    message, and a header promising more data than the file holds is refused before
    anything is allocated. The data are then memory-mapped, not read twice.
    """
    import numpy.lib.format as npformat

    with open(p, "rb") as fh:
        size = os.fstat(fh.fileno()).st_size
        if size == 0:
            raise PointFileError(f"{p}: is empty (0 bytes); a .npy file begins with a header")
        start = fh.read(len(_NPY_MAGIC))
        if start != _NPY_MAGIC:
            if start.startswith(b"PK"):
                raise PointFileError(f"{p}: is a .npz archive (a zip file), not a .npy array; "
                                     "save one array with numpy.save")
            if len(start) < len(_NPY_MAGIC) and _NPY_MAGIC.startswith(start):
                raise PointFileError(f"{p}: not a valid .npy file (it ends inside the "
                                     f"header, after {size} bytes)")
            raise PointFileError(f"{p}: not a .npy file (it does not begin with the .npy "
                                 "magic string \\x93NUMPY)")
        fh.seek(0)
        try:
            major, _ = npformat.read_magic(fh)
            read_header = (npformat.read_array_header_1_0 if major == 1
                           else npformat.read_array_header_2_0)
            shape, _, dtype = read_header(fh)
        except Exception as exc:  # noqa: BLE001  a header NumPy cannot parse, in any way:
            # ValueError, SyntaxError, tokenize.TokenError from its literal_eval of the dict
            raise PointFileError(f"{p}: not a valid .npy file ({type(exc).__name__}: "
                                 f"{_one_line(exc)})") from None
        data_bytes = size - fh.tell()
    if any(d < 0 for d in shape):   # NumPy's header reader takes them; np.load refuses them
        raise PointFileError(f"{p}: not a valid .npy file (its header declares the shape "
                             f"{shape}, with a negative dimension)")
    if dtype.hasobject:
        raise PointFileError(f"{p}: not a plain .npy array (it holds Python objects, which "
                             "are not loaded: allow_pickle=False)")
    if dtype.kind not in "fiu":
        raise PointFileError(f"{p}: expected a real (float or integer) array; got dtype {dtype}")
    if len(shape) != 2 or shape[1] not in (2, 3):
        raise PointFileError(f"{p}: expected an array of shape (n, 2) or (n, 3); got {shape}")
    need = shape[0] * shape[1] * dtype.itemsize
    if data_bytes < need:
        raise PointFileError(f"{p}: is truncated: its header promises {shape} {dtype} "
                             f"({need:,} bytes of data) but {data_bytes:,} bytes follow")
    if data_bytes > need:   # np.load reads the declared rows and ignores the rest
        raise PointFileError(f"{p}: holds more than its header declares: {shape} {dtype} "
                             f"({need:,} bytes of data) but {data_bytes:,} bytes follow "
                             "(a second array saved into the same file?); save one array "
                             "with numpy.save")
    try:
        mapped = np.load(p, allow_pickle=False, mmap_mode="r")
    except ValueError as exc:
        raise PointFileError(f"{p}: not a plain .npy array ({_one_line(exc)})") from None
    # an in-memory float64 copy (the file is not kept mapped); a long double stays as
    # it is, for _finish to name a value past the float64 range
    return np.array(mapped, dtype=np.float64 if dtype.itemsize <= 8 else dtype, order="C")


# --------------------------------------------------------------------- text
# Text files are UTF-8; a byte-order mark (Excel's "CSV UTF-8") is skipped.
_ENCODING = "utf-8-sig"


def _data_lines(p: Path):
    """(line number, stripped text) of the lines that are neither blank nor comments."""
    with open(p, encoding=_ENCODING) as fh:  # strict: read_points names a non-UTF-8 file
        for number, line in enumerate(fh, start=1):
            text = line.split("#", 1)[0].strip()
            if text:
                yield number, text


def _columns(n: int) -> str:
    return f"{n} column{'' if n == 1 else 's'}"


class _Csv:
    """How a .csv line is split, and what a wrong one is told."""

    name = "a .csv point file"

    @staticmethod
    def split(text: str) -> list[str]:
        return [t.strip() for t in text.split(",")]

    @staticmethod
    def separator_error(p, number, text):
        if ";" in text:
            return PointFileError(f"{p}: line {number} separates columns with ';'; a .csv point "
                                  "file separates them with ',' (and writes decimals with '.')")
        if "," not in text and len(text.split()) > 1:
            return PointFileError(f"{p}: line {number} separates columns with blanks; a .csv "
                                  "point file separates them with ',' (name a whitespace-"
                                  "separated file .xyz)")
        return None

    @staticmethod
    def empty_error(p, number, tokens, index):
        if index == len(tokens) - 1:
            return PointFileError(f"{p}: line {number} ends with a comma (an empty last column); "
                                  "a .csv point file has no trailing commas")
        return PointFileError(f"{p}: line {number}: column {index + 1} is empty")


class _Xyz:
    """How an .xyz line is split, and what a wrong one is told."""

    name = "an .xyz point file"
    split = staticmethod(str.split)

    @staticmethod
    def separator_error(p, number, text):
        for sep in (",", ";"):
            if sep in text:
                return PointFileError(f"{p}: line {number} separates columns with '{sep}'; an .xyz "
                                      "point file separates them with blanks (name a comma-"
                                      "separated file .csv)")
        return None

    empty_error = None  # str.split gives no empty tokens


def _line_error(p, fmt, number, text, ncols, columns, like):
    """The error for one data line, or ``None`` when the line is fine.

    ``like`` says where the expected column count comes from ("like line 3, ...").
    """
    sep = fmt.separator_error(p, number, text)
    if sep is not None:
        return sep
    tokens = fmt.split(text)
    if fmt.empty_error is not None and len(tokens) > 1 and tokens[-1] == "":
        return fmt.empty_error(p, number, tokens, len(tokens) - 1)
    if len(tokens) != ncols:
        return PointFileError(f"{p}: line {number} has {_columns(len(tokens))}; "
                              f"expected {ncols} {like}")
    for c in columns:
        if tokens[c] == "" and fmt.empty_error is not None:
            return fmt.empty_error(p, number, tokens, c)
        if not _is_number(tokens[c]):
            return token_error(p, number, tokens[c], "is not a number")
    return None


def _first_line(p: Path, fmt):
    """``(line number, text, tokens)`` of the first data line of a text point file, after the
    format's separator check; ``PointFileError`` for a file without one."""
    first = next(_data_lines(p), None)
    if first is None:
        raise PointFileError(f"{p}: holds no points")
    number, text = first
    sep = fmt.separator_error(p, number, text)
    if sep is not None:
        raise sep
    return number, text, fmt.split(text)


def _read_csv(p: Path) -> np.ndarray:
    fmt = _Csv
    number, text, tokens = _first_line(p, fmt)
    names = [t.strip('"').strip("'").strip().lower() for t in tokens]
    numeric = [_is_number(t) for t in tokens]
    if any(numeric) and not any(n in ("x", "y", "z") for n in names):
        # a data line (a header holds names, not numbers)
        if len(tokens) not in (2, 3) and all(t != "" for t in tokens):
            raise PointFileError(f"{p}: line {number} has {_columns(len(tokens))}; a CSV point "
                                 "file without a header needs 2 or 3 (x, y[, z]), or a header "
                                 "naming x, y, z")
        columns = list(range(len(tokens)))
        like = f"like line {number}, the first data line"
        bad = _line_error(p, fmt, number, text, len(tokens), columns, like)
        if bad is not None:
            raise bad
        return _load_text(p, fmt, number - 1, columns, len(tokens), like)
    if len(tokens) == 1:
        raise PointFileError(f"{p}: line {number} has 1 column ({text!r}); a CSV point file "
                             "needs 2 or 3 (x, y[, z]), or a header naming x, y, z")
    if tokens[-1] == "":
        raise fmt.empty_error(p, number, tokens, len(tokens) - 1)
    for axis in ("x", "y", "z"):
        where = [i + 1 for i, n in enumerate(names) if n == axis]
        if len(where) > 1:
            raise PointFileError(f"{p}: line {number}: the header names column {axis!r} "
                                 f"{'twice' if len(where) == 2 else f'{len(where)} times'} "
                                 f"(columns {', '.join(map(str, where[:-1]))} and {where[-1]}); "
                                 "name each of x, y, z at most once")
    missing = [a for a in ("x", "y") if a not in names]
    if missing:
        raise PointFileError(f"{p}: the header on line {number} ({text!r}) names no "
                             f"{' and '.join(missing)} column{'s' if len(missing) > 1 else ''}")
    columns = [names.index(a) for a in ("x", "y", "z") if a in names]
    return _load_text(p, fmt, number, columns, len(tokens), f"like the header on line {number}",
                      header=number)


def _read_xyz(p: Path) -> np.ndarray:
    fmt = _Xyz
    number, text, tokens = _first_line(p, fmt)
    if not any(_is_number(t) for t in tokens):
        raise PointFileError(f"{p}: line {number} ({text!r}) holds no numbers; an .xyz point "
                             "file has no header row (start it with '#' to make it a comment)")
    ncols = len(tokens)
    if ncols < 2:
        raise PointFileError(f"{p}: line {number} has {_columns(ncols)}; an .xyz point file "
                             "needs x y [z ...] columns")
    columns = [0, 1] if ncols == 2 else [0, 1, 2]
    like = f"like line {number}, the first data line"
    bad = _line_error(p, fmt, number, text, ncols, columns, like)
    if bad is not None:
        raise bad
    return _load_text(p, fmt, number - 1, columns, ncols, like)


def _load_text(p: Path, fmt, skip: int, columns, ncols: int, like: str, header=None):
    """NumPy's C text reader; on failure, a line-by-line pass finds the line to blame.

    ``np.loadtxt(usecols=...)`` ignores extra columns on later rows, so the width of
    every data line is checked too: a ragged file is an error, not silently cut.
    ``header`` is the line number of a CSV header (for the message of a file that
    has nothing else).
    """
    delimiter = "," if fmt is _Csv else None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "input contained no data": said below
            arr = np.loadtxt(p, dtype=np.float64, delimiter=delimiter, comments="#",
                             skiprows=skip, usecols=columns, ndmin=2, encoding=_ENCODING)
    except ValueError as exc:
        for number, text in _data_lines(p):
            if number > skip:
                bad = _line_error(p, fmt, number, text, ncols, columns, like)
                if bad is not None:
                    raise bad from None
        # every data line is good: NumPy's reader with a delimiter took a line of blanks,
        # or a comment after blanks, for a row (".csv"); read the data lines alone, as
        # the line-by-line pass and the whitespace reader skip those lines
        kept = "\n".join(text for number, text in _data_lines(p) if number > skip)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                arr = np.loadtxt(io.StringIO(kept), dtype=np.float64, delimiter=delimiter,
                                 usecols=columns, ndmin=2)
        except ValueError:
            raise PointFileError(f"{p}: cannot parse: {_one_line(exc)}") from None
    for number, text in _data_lines(p):
        if number > skip and len(fmt.split(text)) != ncols:
            raise _line_error(p, fmt, number, text, ncols, columns, like)
    if arr.shape[0] == 0 and header is not None:
        raise PointFileError(f"{p}: holds no points (only the header on line {header})")
    _name_overflow(p, fmt, skip, columns, arr)
    return arr


def _name_overflow(p: Path, fmt, skip: int, columns, arr: np.ndarray) -> None:
    """A number past the float64 range (``1e999``, read as inf): :class:`PointFileError`
    naming its line and token, not "an infinite coordinate" the file does not hold.
    Real NaN/inf tokens are left to ``_finish``."""
    rows = np.flatnonzero(~np.isfinite(arr).all(axis=1))
    if not rows.size:
        return
    lines = (item for item in _data_lines(p) if item[0] > skip)
    for row, (number, text) in enumerate(lines):
        if row == rows[0]:
            for c in columns:
                token = fmt.split(text)[c]
                if not np.isfinite(float(token)) and not any(
                        w in token.lower() for w in ("inf", "nan")):
                    raise token_error(p, number, token, "is out of the float64 range")
            return
