"""The one rule for the numbers the command line reads, in its options (``--n 1000``,
``--voxel 0.005``) and in text point files (``.csv``, ``.xyz``, ASCII ``.ply``):
decimal numbers in ASCII, as NumPy's text reader takes them. Python's ``int`` and
``float`` take more (digit separators, ``1_000``, and the digits of other scripts),
which are refused here, so that an option and a point file agree on what a number is.
See ``docs/demo.md``.
"""

from __future__ import annotations

import argparse

__all__ = ["plain", "is_number", "problem", "option"]


def plain(text: str) -> bool:
    """Whether ``text`` holds none of what Python's ``int``/``float`` take beyond
    NumPy's text reader: no ``_`` and no character outside ASCII."""
    return text.isascii() and "_" not in text


def is_number(token: str) -> bool:
    """Whether ``token`` is a number as the point files write them: :func:`plain`, and
    read by ``float`` (``1.5``, ``-2e-3``, ``nan``, ``inf``; not ``0x1``, ``1,5``, ``1e``)."""
    if not plain(token):
        return False
    try:
        float(token)
    except ValueError:
        return False
    return True


def problem(token: str, dtype, name: str) -> str | None:
    """What is wrong with ``token`` as a value of the NumPy type ``dtype`` (a PLY
    property's type, called ``name``), or ``None``: ``"is not a number"`` (see
    :func:`is_number`), ``"is not an int"`` (``1.5``, ``1e3``, ``inf`` for an integer
    type) or ``"is out of range for a uchar"``. A float type takes every number."""
    if not is_number(token):
        return "is not a number"
    if dtype.kind == "f":
        return None
    article = "an" if name.startswith("i") else "a"
    try:
        value = int(token)
    except ValueError:
        return f"is not {article} {name}"
    bits = 8 * dtype.itemsize - (dtype.kind == "i")
    low = -(2**bits) if dtype.kind == "i" else 0
    return None if low <= value < 2**bits else f"is out of range for {article} {name}"


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
