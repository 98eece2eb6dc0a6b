"""``typedef`` / ``using`` aliases of C text: one table, read by the signature parser
(a parameter or field of an alias type is the type it names) and by the HIP gate
(a view or complex behind an alias)."""

from __future__ import annotations

import re

from .._core.csource import code_only

__all__ = ["find_aliases", "expand_aliases"]

_IDENT = re.compile(r"(?<!\w)[^\W\d]\w*")  # a name (letters beyond ASCII too), not "x10" of 0x10
_SPLICE = re.compile(r"\\\r?\n")   # a backslash-newline: one logical line (C phase 2)
_TYPEDEF = re.compile(r"\btypedef\s+([^;{}]*?)\s*\b([^\W\d]\w*)\s*;")
_USING = re.compile(r"\busing\s+([^\W\d]\w*)\s*=\s*([^;{}]*);")
_TEMPLATE_BEFORE = re.compile(r"\btemplate\s*<[^;{}]*>\s*$")


def find_aliases(text: str) -> dict[str, str]:
    """``{name: aliased type text}`` of every ``typedef`` / ``using`` alias in C text
    (``typedef Array4D<float> V;``, ``using P = const float*;``); alias templates
    (``template <class T> using V = ...``) are not aliases of one type and are left
    out. The signature parser and the HIP gate read aliases from this one table."""
    text = _SPLICE.sub("", code_only(text))
    out = {m.group(2): m.group(1) for m in _TYPEDEF.finditer(text)}
    out.update((m.group(1), m.group(2)) for m in _USING.finditer(text)
               if not _TEMPLATE_BEFORE.search(text, 0, m.start()))
    return out


def _top_level(text: str, char: str) -> bool:
    """Whether ``char`` occurs in ``text`` outside template arguments (``<...>``)."""
    depth = 0
    for c in text:
        depth += (c == "<") - (c == ">")
        if c == char and depth == 0:
            return True
    return False


def expand_aliases(text: str, aliases: dict[str, str], _seen: frozenset = frozenset()) -> str:
    """``text`` with every alias name replaced by the type it names, recursively. A
    ``const`` beside an alias of a pointer qualifies the pointer itself (``const P``
    with ``P`` = ``float*`` is ``float* const``), not what it points to: it is dropped."""
    names = set(_IDENT.findall(text)) & (set(aliases) - _seen)
    if not names:
        return text
    expanded = {n: expand_aliases(aliases[n], aliases, _seen | {n}) for n in names}
    if any(_top_level(e, "*") for e in expanded.values()) and not _top_level(text, "*"):
        text = re.sub(r"\bconst\b", " ", text)
    return " ".join(_IDENT.sub(lambda m: f" {expanded.get(m.group(0), m.group(0))} ",
                               text).split())
