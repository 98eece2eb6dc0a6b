"""C/C++ source text: identifiers (what a kernel, struct, field or parameter may be
called) and comments. Shared by the CUDA toolkit and the internal kernels' header scan."""

from __future__ import annotations

import bisect
import re

__all__ = ["CXX_KEYWORDS", "SPACE", "is_c_identifier", "non_ascii_note", "strip_comments",
           "code_only", "directive_readings"]

#: A blank inside a line, as the preprocessor reads one (regex class): space, tab, and
#: also form feed and vertical tab, which NVRTC accepts around a directive's ``#`` and
#: between its words (``#\finclude <a.h>`` is an include).
SPACE = r"[ \t\f\v]"

#: A name: a letter (also beyond ASCII, as C++ allows) or "_", then letters, digits, "_".
_IDENT = re.compile(r"[^\W\d]\w*")

#: Reserved words of C++17 and CUDA's own type and qualifier words; none may name
#: a kernel, a struct or a field.
CXX_KEYWORDS = frozenset("""
alignas alignof and and_eq asm auto bitand bitor bool break case catch char char16_t
char32_t class compl const constexpr const_cast continue decltype default delete do
double dynamic_cast else enum explicit export extern false float for friend goto if
inline int long mutable namespace new noexcept not not_eq nullptr operator or or_eq
private protected public register reinterpret_cast return short signed sizeof static
static_assert static_cast struct switch template this thread_local throw true try
typedef typeid typename union unsigned using virtual void volatile wchar_t while xor
xor_eq __global__ __device__ __host__ __shared__ __constant__ __restrict__
__forceinline__ __noinline__ __launch_bounds__ __grid_constant__
""".split())


def is_c_identifier(name) -> bool:
    """True for a string that can name a C/C++ function, struct or variable: a letter
    (ASCII or not: ``ξ``, ``größe``) or ``_``, then letters, digits and ``_``, and no
    reserved word. The signature parser reads parameter and struct names by this rule;
    a name given to xstride (a kernel's, a struct's, a field's) must also be ASCII, as
    NVRTC compiles no other letter (:func:`non_ascii_note`)."""
    return isinstance(name, str) and bool(_IDENT.fullmatch(name)) and name not in CXX_KEYWORDS


def non_ascii_note(name: str) -> str:
    """``""`` for a name of ASCII characters; else why NVRTC cannot compile it (for the
    message that refuses a name given to xstride: a kernel's, a struct's, a field's).
    C++ allows letters beyond ASCII in a name and :func:`is_c_identifier` reads them
    (a source is parsed so), but NVRTC reads such a letter written in UTF-8 as an
    "unrecognized token" (NVRTC 13.5: ``float größe``, ``void ξ()``)."""
    bad = next((c for c in name if not c.isascii()), None)
    if bad is None:
        return ""
    return (f" (it holds {bad!r}: NVRTC compiles names of ASCII letters, digits and '_' "
            "only, and reads another letter as an unrecognized token)")


_RAW_PREFIX = re.compile(r"(?:u8|[uUL])?R$")


def _starts_token(text: str, i: int) -> bool:
    """True when ``text[i]`` is not inside an identifier or a number."""
    return i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")


def _raw_string_at(text: str, i: int) -> bool:
    """True when the ``"`` at ``i`` opens a raw string (``R"x(``, ``u8R"(``, ...)."""
    m = _RAW_PREFIX.search(text, max(0, i - 3), i)
    if m is None or not _starts_token(text, m.start()):
        return False
    open_paren = text.find("(", i + 1, i + 18)
    return open_paren >= 0 and not any(ch in text[i + 1:open_paren] for ch in ' )\\\t\n"')


def _digit_separator(text: str, i: int) -> bool:
    """True when the ``'`` at ``i`` separates digits of a number (``1'000``)."""
    j = i
    while j > 0 and (text[j - 1].isalnum() or text[j - 1] in "_.'"):
        j -= 1
    token = text[j:i]
    return bool(token) and (token[0].isdigit() or (token[0] == "." and token[1:2].isdigit()))


# what stands before an #include's "<" on its line: the directive, blanks, comments
_INCLUDE_HEAD = re.compile(r"[ \t\f\v]*(?:#|%:)(?:[ \t\f\v]|/\*.*?\*/)*include(?:_next)?"
                           r"(?:[ \t\f\v]|/\*.*?\*/)*")


# a directive's start: the first thing on its line
_DIRECTIVE_START = re.compile(r"[ \t\f\v]*(?:#|%:)")


def _header_name_at(text: str, i: int, newlines: list[int]) -> bool:
    """True when the ``<`` at ``i`` opens the header name of an ``#include`` line (a
    ``>`` closes it on the line): the preprocessor reads ``<xstride//reduce.cuh>`` as
    one name, with no comment in it. ``newlines``: the text's line breaks, in order
    (the line's start found by bisection, and a line that starts no directive refused
    from its first characters: a source of one long line with thousands of ``<`` took
    seconds when each ``<`` copied its line so far)."""
    k = bisect.bisect_left(newlines, i)   # the line breaks before i
    line_start = newlines[k - 1] + 1 if k else 0
    if not _DIRECTIVE_START.match(text, line_start):
        return False
    head = text[line_start:i]
    if "include" not in head or not _INCLUDE_HEAD.fullmatch(head):
        return False
    close = text.find(">", i + 1)
    return close >= 0 and "\n" not in text[i + 1:close]


def _scan(text: str, blank_literals: bool, join_lines: bool = False) -> str:
    """One left-to-right pass over C/C++ text: comments become a space (their line
    breaks kept, or dropped with ``join_lines``); string and character literals, and
    the header name of an ``#include <...>``, are kept (or, with ``blank_literals``,
    their contents become spaces, quotes, brackets and line breaks kept)."""
    out: list[str] = []
    n, i, start = len(text), 0, 0
    newlines = [m.start() for m in re.finditer("\n", text)]

    def literal(body: str) -> str:
        if not blank_literals:
            return body
        return "".join(c if c == "\n" else " " for c in body)

    while i < n:
        c = text[i]
        if c == "/" and text.startswith("//", i):
            out.append(text[start:i])
            j = i + 2
            while j < n and text[j] != "\n":
                j += 2 if text[j] == "\\" and text[j + 1:j + 2] == "\n" else 1
            out.append(" " + "\n" * text.count("\n", i, j))
            i = start = j
        elif c == "/" and text.startswith("/*", i):
            out.append(text[start:i])
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(" " + ("" if join_lines else "\n" * text.count("\n", i, j)))
            i = start = j
        elif c == '"' and _raw_string_at(text, i):
            # raw string R"delim( ... )delim": no escapes, may span lines
            open_paren = text.index("(", i)
            closing = ")" + text[i + 1:open_paren] + '"'
            end = text.find(closing, open_paren + 1)
            body_end = n if end < 0 else end
            out.append(text[start:open_paren + 1])
            out.append(literal(text[open_paren + 1:body_end]))
            i = start = body_end
            if end >= 0:
                out.append(closing)
                i = start = end + len(closing)
        elif c == "<" and _header_name_at(text, i, newlines):
            # "#include <a//b.h>": a header name, in which '//' and '/*' are characters
            j = text.index(">", i)
            out.append(text[start:i + 1])
            out.append(literal(text[i + 1:j]))
            i = start = j
        elif c == '"' or (c == "'" and not _digit_separator(text, i)):
            # an ordinary string or character literal: escapes; ends at its quote or,
            # unterminated, at the end of the line
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j, n)
            out.append(text[start:i + 1])
            out.append(literal(text[i + 1:j]))
            i = start = j + 1 if j < n and text[j] == c else j
            if i > j:
                out.append(c)
        else:
            i += 1
    out.append(text[start:])
    return "".join(out)


def strip_comments(text: str, *, join_lines: bool = False) -> str:
    """``text`` without its ``/* */`` and ``//`` comments.

    A single left-to-right scan that knows string and character literals (with
    escapes, ``R"(...)"`` raw strings, and ``1'000`` digit separators): comment
    markers inside a literal are text, quotes inside a comment are comment. Each
    comment becomes one space plus the line breaks it held, so line numbers are kept
    (with ``join_lines``, a ``/* */`` comment becomes one space: the lines it spans
    are one, as for a directive written across it); a backslash at the end of a
    ``//`` line continues the comment.
    """
    return _scan(text, blank_literals=False, join_lines=join_lines)


def code_only(text: str, *, join_lines: bool = False) -> str:
    """:func:`strip_comments`, and the contents of string and character literals
    replaced by spaces (quotes and line breaks kept): what is left is code, whose
    braces, parentheses and names can be searched without being fooled by text."""
    return _scan(text, blank_literals=True, join_lines=join_lines)


#: "/*" and a line break before any "*/": maybe a comment that spans lines
_SPANNING_COMMENT = re.compile(r"/\*(?:[^*\n]|\*(?!/))*\n")


def directive_readings(text: str, *, kept: bool = False):
    """The two readings of C text in which its preprocessing directives are found, as
    NVRTC finds them: :func:`code_only` (a directive begins a physical line, where a
    ``/* */`` comment that ends on the line before it counts as blank), and the same
    with ``join_lines`` (a directive goes on through a ``/* */`` comment that spans
    lines: ``#define /*`` newline ``*/ XSTRIDE_BOUNDS_CHECK`` defines that name). With
    ``kept``, each reading is ``(code, comments stripped, literals kept)`` of the same
    offsets."""
    # the second reading is the first where no "/*" is followed by a line break
    # before its "*/" (the scan is pure Python: skip it where it changes nothing)
    for join in (False, True) if _SPANNING_COMMENT.search(text) else (False,):
        code = code_only(text, join_lines=join)
        yield (code, strip_comments(text, join_lines=join)) if kept else code
