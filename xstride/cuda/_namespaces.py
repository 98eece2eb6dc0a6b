"""The namespaces of C++ text, for finding a kernel by its qualified name.

:func:`split_name` reads a kernel name as :class:`~xstride.cuda.CudaKernel` takes it
(``k``, ``a::k``, ``a::b::k``, ``::k``); :func:`namespace_blocks` finds the ``namespace``
blocks of code-only text (``namespace a {``, C++17's ``namespace a::b {``, ``inline
namespace v1 {``, C++20's ``namespace a::inline v1 {`` and anonymous ``namespace {``);
:func:`lookup_names` lists the names by which C++ finds, from global scope, a function
declared at a position: an inline namespace may be named or left out, an anonymous one
cannot be named and is left out (its members are found through it), every other one is
named; :func:`inner_blocks` finds the other blocks (a ``using`` line inside one is not
at namespace scope). The preprocessor is not run: a namespace opened in ``#if`` branches
is read as written, both branches.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import product

from .._core.csource import SPACE as _S, is_c_identifier

__all__ = ["split_name", "namespace_blocks", "inner_blocks", "function_bodies", "member_blocks",
           "FUNCTION_HEAD_END",
           "blank_directives", "enclosing", "lookup_names", "spelled", "written_scopes",
           "Scope"]

_NAME = r"[^\W\d]\w*"
# attributes of a namespace, which do not change its name: [[deprecated]],
# __attribute__((visibility("default")))
_ATTRIBUTES = re.compile(r"\[\[.*?\]\]|\b__attribute__\s*\(\((?:[^()]|\([^()]*\))*\)\)", re.S)
_HEAD = re.compile(rf"(inline\s+)?namespace(?:\s+((?:inline\s+)?{_NAME}"
                   rf"(?:\s*::\s*(?:inline\s+)?{_NAME})*))?")
_PART = re.compile(rf"(inline\s+)?({_NAME})")
_DIRECTIVE = re.compile(rf"^{_S}*(?:#|%:).*$", re.M)
#: The head of a linkage block, ``extern "C" {`` with its literal blanked.
_LINKAGE = re.compile(r'extern\s*"[^"]*"')
#: The end of a function's head before its body's ``{``: the parameter list's ``)``, then
#: qualifiers (``const``, ``noexcept``, ``&&``, ...) and a trailing return type (a
#: pattern's text: the HIP gate finds member functions' bodies with it too).
FUNCTION_HEAD_END = (r"\)\s*(?:(?:const|volatile|noexcept(?:\s*\([^()]*\))?|override|final|"
                     r"mutable|&&?)\s*)*(?:->[^;{}]*)?")
_FUNCTION_HEAD_END = re.compile(FUNCTION_HEAD_END + "$")
#: The written qualifier of a declarator's name: "a::b::" before "k(", or "::".
_QUALIFIER = re.compile(rf"(::\s*)?((?:{_NAME}\s*::\s*)*)$")


@dataclass(frozen=True)
class Scope:
    """One namespace level: its ``name`` (``None`` for an anonymous namespace) and
    whether it is ``inline``."""

    name: str | None
    inline: bool = False


def split_name(name: str) -> tuple[str, ...] | None:
    """``"a::b::k"`` -> ``("a", "b", "k")``; a leading ``::`` (the global namespace) is
    dropped. ``None`` when ``name`` is neither a C identifier nor such a qualified name
    (a part that is a reserved word, an empty part, blanks)."""
    parts = name[2:].split("::") if name.startswith("::") else name.split("::")
    return tuple(parts) if all(is_c_identifier(p) for p in parts) else None


def blank_directives(text: str) -> str:
    """``text`` with each preprocessor line blanked (positions kept): a brace in a
    ``#define`` opens nothing."""
    return _DIRECTIVE.sub(lambda m: " " * len(m.group(0)), text)


def _head_scopes(head: str) -> tuple[Scope, ...] | None:
    """The scopes a block opened after ``head`` enters, when ``head`` opens a namespace
    (``namespace a::inline b``: two); ``None`` for any other block."""
    head = " ".join(_ATTRIBUTES.sub(" ", head).split())
    m = _HEAD.fullmatch(head)
    if m is None:
        return None
    if m.group(2) is None:   # "namespace {" / "inline namespace {": anonymous
        return (Scope(None, bool(m.group(1))),)
    parts = [_PART.fullmatch(p.strip()) for p in m.group(2).split("::")]
    scopes = [Scope(p.group(2), bool(p.group(1))) for p in parts]
    if m.group(1):          # "inline namespace a": the (last) namespace is inline
        scopes[-1] = Scope(scopes[-1].name, True)
    return tuple(scopes)


def _all_blocks(text: str) -> list[tuple[int, int, tuple[Scope, ...] | None, str]]:
    """``(open, close, scopes, head)`` of every ``{ }`` block of code-only text: the
    scopes a namespace block opens (``None`` for any other block) and the text before
    its ``{`` back to the last ``;``, ``{`` or ``}``."""
    text = blank_directives(text)
    stack: list[tuple[int, tuple[Scope, ...] | None, str]] = []
    blocks = []
    for m in re.finditer(r"[{}]", text):
        i = m.start()
        if text[i] == "{":
            start = max(text.rfind(c, 0, i) for c in ";{}")
            head = text[start + 1:i]
            stack.append((i, _head_scopes(head), head))
        elif stack:
            opened, scopes, head = stack.pop()
            blocks.append((opened, i, scopes, head))
    blocks += [(opened, len(text), scopes, head) for opened, scopes, head in stack]
    return sorted(blocks)


def namespace_blocks(text: str) -> list[tuple[int, int, tuple[Scope, ...]]]:
    """``(open, close, scopes)`` of each namespace block of code-only text (comments
    and literals blanked, :func:`~xstride._core.csource.code_only`): the positions of
    its ``{`` and ``}`` (the end of the text when unclosed) and the scopes it opens.
    Other blocks (functions, structs, ``extern "C" { }``) are skipped; a ``}`` that
    closes nothing is ignored."""
    return [(o, c, scopes) for o, c, scopes, _ in _all_blocks(text) if scopes is not None]


def inner_blocks(text: str) -> list[tuple[int, int]]:
    """``(open, close)`` of each block of code-only text that is neither a namespace
    nor a linkage block (``extern "C" {``, its literal blanked): what is written inside
    one (a function body, a struct, an initializer) is not at namespace scope."""
    return [(o, c) for o, c, scopes, head in _all_blocks(text)
            if scopes is None and not _LINKAGE.fullmatch(head.strip())]


_CLASS_HEAD = re.compile(r"\b(?:struct|class|union)\b")


def function_bodies(text: str) -> list[tuple[int, int]]:
    """``(open, close)`` of each closed block of code-only text whose head ends as a
    function's does (its parameter list's ``)``, then qualifiers): a function's or
    lambda's body, or a statement's block inside one. A declaration written there (a
    ``typedef``) names nothing seen from namespace scope. A block that never closes
    (two heads in ``#ifdef`` branches sharing one body) is left out: it would hold the
    rest of the text."""
    return [(o, c) for o, c, scopes, head in _all_blocks(text)
            if scopes is None and c < len(text) and _FUNCTION_HEAD_END.search(head.rstrip())]


def member_blocks(text: str) -> list[tuple[int, int]]:
    """``(open, close)`` of each closed block of code-only text that is a function's
    body (:func:`function_bodies`) or a class's (``struct``, ``class``, ``union`` in its
    head): a function declared there is a member or a local one, in no namespace's
    scope. Any other block (a namespace's, ``extern "C" {`` behind a macro call, one
    that never closes) is not taken for one."""
    return [(o, c) for o, c, scopes, head in _all_blocks(text)
            if scopes is None and c < len(text)
            and (_FUNCTION_HEAD_END.search(head.rstrip()) or _CLASS_HEAD.search(head))]


def enclosing(blocks, pos: int) -> tuple[Scope, ...]:
    """The namespace scopes around position ``pos``, outermost first."""
    out: tuple[Scope, ...] = ()
    for opened, closed, scopes in blocks:
        if opened < pos < closed:
            out += scopes
    return out


def lookup_names(scopes: tuple[Scope, ...], name: str) -> set[tuple[str, ...]]:
    """Every qualified name (a tuple of parts) by which C++ finds ``name`` declared in
    ``scopes`` from global scope: each named namespace is a part, an inline one may be
    left out, an anonymous one is always left out."""
    choices = [((s.name,), ()) if s.name is not None and s.inline
               else ((s.name,),) if s.name is not None else ((),)
               for s in scopes]
    return {tuple(p for part in combo for p in part) + (name,) for combo in product(*choices)}


def spelled(scopes: tuple[Scope, ...]) -> str:
    """A namespace path as C++ compilers print it: ``a::v1::(anonymous namespace)``."""
    return "::".join(s.name or "(anonymous namespace)" for s in scopes)


def written_scopes(prefix: str) -> tuple[bool, tuple[Scope, ...]]:
    """The qualifier written before a declarator's name (``void a::b::k(`` is defined
    out of its namespace): ``(absolute, scopes)``, where ``absolute`` is a leading
    ``::`` (the scopes count from the global namespace, not from the enclosing ones)."""
    m = _QUALIFIER.search(prefix)
    parts = [p.strip() for p in m.group(2).split("::") if p.strip()]
    return bool(m.group(1)), tuple(Scope(p) for p in parts)
