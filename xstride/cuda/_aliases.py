"""``typedef`` / ``using`` aliases (and enums) of C text: one table, read by the signature parser
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


# enum E { ... }, enum class E : short;, typedef enum [: T] { ... } E;
_ENUM = re.compile(r"\benum\s+(class\s+|struct\s+)?(?:\[\[[^\]]*\]\]\s*)?([^\W\d]\w*)\s*"
                   r"(?::\s*([^;{}]+?))?\s*([{;])")
_TYPEDEF_ENUM = re.compile(r"\btypedef\s+enum\b\s*(?:[^\W\d]\w*)?\s*(?::\s*([^;{}]+?))?\s*\{")
_ENUMERATOR = re.compile(r"^\s*[^\W\d]\w*\s*(?:=\s*([-+]?\s*(?:0[xX][0-9a-fA-F]+|\d+))"
                         r"[uUlL]*\s*)?$")
_INT32 = (-2**31, 2**31)


def _plain_enum_is_int(body: str) -> bool:
    """Whether an enum without a fixed underlying type is an ``int`` for certain: each
    enumerator is implicit or an integer literal, and every value is in int's range
    (the underlying type is then 4 bytes, as ``int``; with any other value, or a value
    written as an expression, its size is the compiler's choice)."""
    value = -1
    for item in (i for i in body.split(",") if i.strip()):
        m = _ENUMERATOR.match(item)
        if m is None:
            return False
        value = int(m.group(1).replace(" ", ""), 0) if m.group(1) else value + 1
        if not _INT32[0] <= value < _INT32[1]:
            return False
    return True


def _enums(text: str) -> dict[str, str]:
    """Enums as aliases: ``{name: underlying type}``. A scoped enum (``enum class E``)
    is an ``int`` unless it names its type, as any enum that names one (``enum E :
    short``); an unscoped enum without one is an ``int`` when its enumerators prove it
    (:func:`_plain_enum_is_int`), else ``"enum E"``, which the signature parser refuses."""
    out: dict[str, str] = {}
    for m in _ENUM.finditer(text):
        scoped, name, under, end = m.groups()
        if under:
            out[name] = under
        elif scoped:
            out[name] = "int"
        elif end == "{":
            close = text.find("}", m.end())
            body = text[m.end():close if close >= 0 else len(text)]
            out[name] = "int" if _plain_enum_is_int(body) else f"enum {name}"
        else:
            out.setdefault(name, f"enum {name}")   # "enum E;": opaque, not C++ here
    for m in _TYPEDEF_ENUM.finditer(text):
        close = text.find("}", m.end())
        alias = re.compile(r"\s*([^\W\d]\w*)\s*;").match(text, close + 1) if close >= 0 else None
        if alias:
            body = text[m.end():close]
            out[alias.group(1)] = m.group(1) or (
                "int" if _plain_enum_is_int(body) else f"enum {alias.group(1)}")
    return out


def find_aliases(text: str) -> dict[str, str]:
    """``{name: aliased type text}`` of every ``typedef`` / ``using`` alias in C text
    (``typedef Array4D<float> V;``, ``using P = const float*;``); alias templates
    (``template <class T> using V = ...``) are not aliases of one type and are left
    out. The signature parser and the HIP gate read aliases from this one table.

    An enum is an alias of its underlying integer type where that is certain
    (``enum class E`` is an ``int``, ``enum E : short`` a ``short``, an unscoped enum
    whose enumerators are literals in int's range an ``int``); another unscoped enum
    is ``"enum E"`` (its size is the compiler's choice).
    """
    text = _SPLICE.sub("", code_only(text))
    out = _enums(text)
    out.update((m.group(2), m.group(1)) for m in _TYPEDEF.finditer(text))
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
