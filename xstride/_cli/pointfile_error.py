"""The one error of the point-file readers (:mod:`.pointio`, :mod:`.plyio`)."""

from __future__ import annotations

__all__ = ["PointFileError", "one_line", "token_error"]


class PointFileError(Exception):
    """A point file that cannot be used; the message is one line for the user."""


def one_line(exc) -> str:
    """An exception's text on one line (its blanks and newlines folded into single blanks)."""
    return " ".join(str(exc).split())


def token_error(p, line: int, token: str, problem: str, where: str = "") -> PointFileError:
    """``FILE: line N: 'abc' is not a number``: a token of a text point file (``.csv``,
    ``.xyz``, the body of an ASCII ``.ply``) and what is wrong with it, the one wording
    of every reader; ``where`` (``"element 'vertex', property 'x'"``) in parentheses."""
    return PointFileError(f"{p}: line {line}: {token!r} {problem}"
                          + (f" ({where})" if where else ""))
