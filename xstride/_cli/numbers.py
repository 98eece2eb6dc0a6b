"""The one rule for the numbers the command line reads, in its options (``--n 1000``,
``--voxel 0.005``) and in text point files (``.csv``, ``.xyz``, ASCII ``.ply``):
decimal numbers in ASCII, as NumPy's text reader takes them. Python's ``int`` and
``float`` take more (digit separators, ``1_000``, and the digits of other scripts),
which are refused here, so that an option and a point file agree on what a number is.
See ``docs/demo.md``.
"""

from __future__ import annotations

import argparse

__all__ = ["plain", "option"]


def plain(text: str) -> bool:
    """Whether ``text`` holds none of what Python's ``int``/``float`` take beyond
    NumPy's text reader: no ``_`` and no character outside ASCII."""
    return text.isascii() and "_" not in text


def option(kind):
    """An argparse ``type`` reading ``kind`` (``int`` or ``float``) under :func:`plain`:
    a digit separator or a non-ASCII digit is the parser's error naming the option, as
    any other text that is not a number (``invalid int value: 'abc'``)."""
    def parse(text: str):
        if not plain(text):
            why = ("'_' digit separators are not taken" if "_" in text
                   else "only ASCII digits are taken")
            raise argparse.ArgumentTypeError(f"invalid {kind.__name__} value: {text!r} "
                                             f"({why})")
        return kind(text)

    parse.__name__ = kind.__name__   # argparse names the type in its other messages
    return parse
