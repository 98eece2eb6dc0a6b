"""The one error of the point-file readers (:mod:`.pointio`, :mod:`.plyio`)."""

from __future__ import annotations

__all__ = ["PointFileError", "one_line"]


class PointFileError(Exception):
    """A point file that cannot be used; the message is one line for the user."""


def one_line(exc) -> str:
    """An exception's text on one line (its blanks and newlines folded into single blanks)."""
    return " ".join(str(exc).split())
