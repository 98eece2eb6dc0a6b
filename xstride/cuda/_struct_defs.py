"""Struct definitions in C text: where each one is and what its members declare.

:func:`find_structs` finds every ``struct``/``class`` body of a kernel's source and
headers (with the text that makes a layout more than its fields); :func:`member_statements`
and :func:`member_declarator` read the members of a plain body one declarator at a
time: an array member's extents (integer literals, ``float m[3][3]``), and the members
whose layout cannot be checked, refused with :class:`StructLayoutError` naming the struct
and the field: a bit-field (its packing is the compiler's choice), an array whose size is
no integer literal (a macro or a constant: the preprocessor is not run), of no size or
of size 0. The signature parser (``_signature.py``) reads each member's type.
"""

from __future__ import annotations

import re

from .._core.csource import SPACE as _S, code_only
from .._core.errors import error
from ._aliases import LAYOUT_SPEC, PARENS, merge_structs, rank_value, typedef_names

__all__ = ["find_structs", "packing_beyond", "stringized_packing", "match_brace",
           "member_statements", "member_declarator", "StructLayoutError"]

_SPLICE = re.compile(r"\\\r?\n")   # a backslash-newline: one logical line (C phase 2)


class StructLayoutError(ValueError):
    """A member of a struct a kernel takes whose layout cannot be checked (a bit-field,
    an array of a size that is no integer literal): the kernel is refused, where a body
    that is no plain field list is checked by its name only."""


def match_brace(text: str, open_at: int) -> int:
    """Index just past the ``}`` closing the ``{`` at ``open_at`` (len(text) if none)."""
    depth = 0
    for i in range(open_at, len(text)):
        c = text[i]
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return i + 1
    return len(text)


# what may stand between "struct" and its name, or after its closing brace: LAYOUT_SPEC
# (_aliases.py, which the enums share)
# a name (or a call of one) between "struct" and the struct's name, which only a macro
# can be there ("struct ALIGN16 P {", "struct AL(16) P {")
_HEAD_MACRO = (r"(?!final\b)[^\W\d]\w*\b(?:\s*" + PARENS + ")?"
               r"(?=\s+(?:(?!final\b)[^\W\d]|\[\[))")
_STRUCT_HEAD = re.compile(r"\b(?:struct|class)\s+((?:(?:" + LAYOUT_SPEC + "|" + _HEAD_MACRO
                          + r")\s*)*)(\w+)\s*(?:final\b\s*)?(:[^{;]*)?\{")
# a declaration of a struct with an alignment ("struct __align__(16) P;"): the later
# definition gets it too
_STRUCT_DECLARATION = re.compile(r"\b(?:struct|class)\s+((?:(?:" + LAYOUT_SPEC + "|" + _HEAD_MACRO
                                 + r")\s*)+)(\w+)\s*;")
_TYPEDEF_STRUCT = re.compile(r"\btypedef\s+struct\s*((?:(?:" + LAYOUT_SPEC + r")\s*)*)(\w*)\s*\{")
# after the closing brace: "} __attribute__((packed))", "} __align__(16)" (CUDA's macro)
_PACKED_AFTER = re.compile(r"(?:\s*(?:" + LAYOUT_SPEC + r"))+")
# the names of a declarator list after a closing brace, up to its ";"
_TAIL = re.compile(r"[^;{}]*")
_NAME = re.compile(r"(?<![\w.])[^\W\d]\w*")


def _macros_after(text: str, end: int, macros) -> list[str]:
    """The names ``#define``d somewhere (``macros``) among what follows a struct's
    closing brace up to its ``;``: ``} ALIGN16;``, ``} AL(16) p;`` (a macro there may be
    an alignment or a packing: the preprocessor is not run)."""
    if not macros:
        return []
    return [n for n in _NAME.findall(_TAIL.match(text, end).group(0)) if n in macros]


_PRAGMA_PACK = re.compile(rf"^{_S}*(?:#|%:){_S}*pragma{_S}+pack{_S}*\(([^)\n]*)\)", re.M)


def _packing(text: str) -> list[tuple[int, str]]:
    """``(offset, "#pragma pack(...)")`` from each ``#pragma pack`` of ``text`` on
    where it leaves a packing in force (``""`` where it ends one): ``pack(n)``,
    ``pack(push, n)``, ``pack(pop)``, ``pack()``."""
    out, stack, cur = [], [], ""
    for m in _PRAGMA_PACK.finditer(text):
        args = [a.strip() for a in m.group(1).split(",") if a.strip()]
        if args[:1] == ["push"]:
            stack.append(cur)
            args = args[1:]
            cur = m.group(0).strip() if args else cur
        elif args[:1] == ["pop"]:
            cur = stack.pop() if stack else ""
        else:
            cur = m.group(0).strip() if args else ""
        out.append((m.end(), cur))
    return out


#: The ``_Pragma`` operator with a ``pack`` pragma (``_Pragma("pack(push, 1)")``, also
#: behind a macro): read on the raw text, since the literal is blanked in code only;
#: where it stands is not followed (a macro may place it anywhere).
_PRAGMA_OPERATOR_PACK = re.compile(r'\b_Pragma\s*\(\s*(?:u8|u|U|L)?"[^"\n]*\bpack\b[^"\n]*"')
#: The ``_Pragma`` operator of an argument that is no literal: a macro's stringized
#: parameter (``#define PRAGMA(x) _Pragma(#x)``), whose pragma is any one a call names.
PRAGMA_OPERATOR_STRINGIZED = re.compile(r'\b_Pragma\s*\(\s*(?!(?:u8|u|U|L)?")')
#: A call that may name a packing for such a macro: ``PRAGMA(pack(push, 1))``.
PACK_CALL = re.compile(r"\bpack\s*\(")
#: An ``#include`` line, where a packing in force reaches the included file's structs.
_INCLUDE_LINE = re.compile(rf"^{_S}*(?:#|%:){_S}*include", re.M)


def packing_beyond(text: str) -> str:
    """The packing of ``text`` that reaches the structs of other files, else ``""``: a
    ``#pragma pack`` in force at one of its ``#include`` lines (the header's structs)
    or left in force at its end (an includer's, a pre-included header's: every file
    after it), or a ``_Pragma("pack...")`` anywhere (where it acts is not followed)."""
    op = _PRAGMA_OPERATOR_PACK.search(text)
    if op is not None:
        return op.group(0) + ")"
    code = _SPLICE.sub("", code_only(text))
    packing = _packing(code)
    if not packing:
        return ""
    for at in [m.start() for m in _INCLUDE_LINE.finditer(code)] + [len(code)]:
        now = [p for end, p in packing if end <= at][-1:]
        if now and now[0]:
            return now[0]
    return ""


def _inside_macro(text: str, at: int) -> bool:
    """Whether the definition at ``at`` is part of a macro: on a ``#define`` line, or
    inside parentheses (a macro call's argument, ``PACK(struct P {...});``: the macro
    may add an attribute)."""
    line = text.rfind("\n", 0, at) + 1
    if re.match(rf"{_S}*(?:#|%:){_S}*define\b", text[line:at]):
        return True
    return text.count("(", 0, at) > text.count(")", 0, at)


def stringized_packing(texts) -> bool:
    """Whether ``texts`` (a kernel's source, headers and options' defines) may pack
    through a ``_Pragma`` of a stringized macro parameter: one of them has
    ``_Pragma(#x)`` and one a call naming ``pack(...)`` (``PRAGMA(pack(push, 1))``).
    Where the packing then acts is not followed: it counts for every struct."""
    return (any(PRAGMA_OPERATOR_STRINGIZED.search(code_only(t)) for t in texts)
            and any(PACK_CALL.search(code_only(t)) for t in texts))


def find_structs(text: str, packed_from_elsewhere: str = "", macros=frozenset()) -> dict[str, str]:
    """``{name: body}`` of every ``struct``/``class`` definition in C text (comments
    removed; braces inside string or character literals do not count).

    A struct whose layout is more than its field list (a base class, an alignment or
    packing attribute: ``struct __align__(16) P``, ``struct P : Base``, ``} __attribute__
    ((packed))``, or a ``#pragma pack(n)`` in force where it is defined) has that text,
    in parentheses, in front of its body: the body is then not a plain field list
    (:func:`~._signature.parse_struct_fields` gives ``None``), and the names in it (a base class)
    are still there for the HIP gate to follow. A name defined twice with different
    bodies has both (:func:`~._aliases.merge_structs`): not a plain field list either.
    ``packed_from_elsewhere``: a packing another file leaves in force
    (:func:`packing_beyond`), taken as in force wherever this text's own ``#pragma
    pack`` leaves none; a ``_Pragma("pack...")`` of this text counts as in force
    throughout it. ``macros``: the names ``#define``d in this text, its headers or the
    options; one after the closing brace (``} ALIGN16;``), between ``struct`` and the
    struct's name (``struct ALIGN16 P``) or in a field's type or name (``REAL a;``, not
    in an array's bounds) makes the layout more than the fields too (it may expand to
    an alignment, a packing or another type: the preprocessor is not run). Another name
    between ``struct`` and a name (``struct A a {1};``) is a variable's initializer, no
    definition. So do a definition inside a macro (a call's parentheses, a ``#define``)
    and an alignment on an earlier declaration of this text (``struct __align__(16)
    P;``); attributes may nest parentheses four deep.
    """
    macros = frozenset(macros)
    op = _PRAGMA_OPERATOR_PACK.search(text)
    elsewhere = packed_from_elsewhere or ("" if op is None else op.group(0) + ")")
    text = _SPLICE.sub("", code_only(text))
    out: dict[str, str] = {}

    packing = _packing(text)

    def layout(specs: str, base: str | None, start: int, end: int, body: str = "") -> str:
        """The text that makes the layout more than the fields ("" if none)."""
        after = _PACKED_AFTER.match(text, end)
        parts = [sp for sp in re.findall(LAYOUT_SPEC, specs + (after.group(0) if after else ""))
                 if "align" in sp or "pack" in sp]
        # a name between "struct" and the struct's own (a macro), or a macro after the brace
        parts += _NAME.findall(re.sub(LAYOUT_SPEC, " ", specs))
        parts += _macros_after(text, after.end() if after else end, macros)
        # a macro in a field's type or name ("REAL a;" with -DREAL=double); one in an
        # array's bounds is the field's refusal (member_declarator), not a layout
        parts += sorted(set(_NAME.findall(re.sub(r"\[[^\[\]]*\]", " ", body))) & macros)
        parts += declared.get(name_of(start), [])   # "struct __align__(16) P;" before
        if _inside_macro(text, start):
            parts.append("(in a macro)")
        here = [p for at, p in packing if at <= start][-1:]   # a #pragma pack in force
        parts += here if here and here[0] else [elsewhere]
        return " ".join(p for p in parts + ([base.strip()] if base else []) if p)

    declared: dict[str, list[str]] = {}   # alignments of a struct's declarations
    for m in _STRUCT_DECLARATION.finditer(text):
        specs = re.findall(LAYOUT_SPEC, m.group(1))
        heads = _NAME.findall(re.sub(LAYOUT_SPEC, " ", m.group(1)))
        if set(heads) <= macros:
            declared.setdefault(m.group(2), []).extend(
                [sp for sp in specs if "align" in sp or "pack" in sp] + heads)
    names: dict[int, str] = {}

    def name_of(start: int) -> str:
        return names.get(start, "")

    for m in _STRUCT_HEAD.finditer(text):
        names[m.start()] = m.group(2)
        if re.search(r"\benum\s*$", text[max(0, m.start() - 64):m.start()]):
            continue   # "enum class E { A, B }": a scoped enum, no struct
        if not set(_NAME.findall(re.sub(LAYOUT_SPEC, " ", m.group(1)))) <= macros:
            continue   # "struct A a {1};": a variable's brace initializer, no definition
        end = match_brace(text, m.end() - 1)
        body = text[m.end():end - 1]
        extra = layout(m.group(1), m.group(3), m.start(), end, body)
        merge_structs(out, {m.group(2): f"({extra}); {body}" if extra else body})
    for m in _TYPEDEF_STRUCT.finditer(text):
        end = match_brace(text, m.end() - 1)
        after = _PACKED_AFTER.match(text, end)
        # "} P;", "} P, *PP;": each plain declarator names the struct
        for alias in typedef_names(text, after.end() if after else end):
            body = text[m.end():end - 1]
            # "typedef struct AL16 {": a macro where the tag stands
            specs = m.group(1) + (" " + m.group(2) if m.group(2) in macros else "")
            extra = layout(specs, None, m.start(), end, body)
            merge_structs(out, {alias: f"({extra}); {body}" if extra else body})
    return out


# "public:", "private:", "protected:": no member, and no change to the order of the
# members in memory (the Itanium C++ ABI, which NVCC and NVRTC follow, keeps it)
_ACCESS = re.compile(r"\b(?:public|private|protected)\s*:(?!:)")


def member_statements(body: str) -> list[str]:
    """The member declarations of a plain struct body (code only, no braces or
    parentheses), one a statement, without access specifiers."""
    return [s for s in _ACCESS.sub(" ", body).split(";") if s.strip()]


# an array declarator's bounds at the end: "x[4]", "m [3][3]"
_BOUNDS = re.compile(r"((?:\[[^\[\]]*\]\s*)+)$")
_INT_WORDS = {"signed", "unsigned", "char", "short", "int", "long", "bool"}
# a bit-field's ":" (not the "::" of a qualified name)
_BIT_FIELD = re.compile(r"(?<!:):(?!:)")


def _field_name(decl: str) -> str:
    """The declared name of a member declarator (its last identifier), for messages."""
    names = re.findall(r"[^\W\d]\w*", decl)
    return names[-1] if names else "(unnamed)"


def member_declarator(decl: str, struct: str, where: str) -> tuple[str, tuple[int, ...]]:
    """``(declarator without its bounds, extents)`` of one member declarator:
    ``"float m[3][3]"`` is ``("float m", (3, 3))``, ``"int n"`` is ``("int n", ())``.

    Raises
    ------
    StructLayoutError
        A bit-field (``int n : 3``), or an array of no size (``float x[]``), of size 0
        or of a size that is no integer literal (``float x[N]``, ``float x[2 * 4]``),
        with a message that names ``where``, the struct and the field.
    """
    decl = decl.split("=", 1)[0].strip()
    shown = " ".join(decl.split())
    bit = _BIT_FIELD.search(decl)
    if bit is not None:
        words = re.findall(r"[^\W\d]\w*", decl[:bit.start()])
        named = len(words) > 1 and words[-1] not in _INT_WORDS
        which = f"field '{words[-1]}' is" if named else "has an unnamed field that is"
        instead = f"'{decl[:bit.start()].strip()};'" if named else "'unsigned int flags;'"
        raise error(StructLayoutError, where, f"struct '{struct}' {which} a bit-field "
                    f"({shown!r}), which is not supported: how bit-fields are packed into "
                    "their storage units is implementation-defined (the C and C++ standards "
                    "leave it to the compiler), so no CudaStruct value can be checked "
                    f"against it; declare a whole integer field (e.g. {instead}) and mask "
                    "and shift its bits on the device")
    bounds = _BOUNDS.search(decl)
    if bounds is None:
        return decl, ()
    head = decl[:bounds.start()].strip()
    name, shape = _field_name(head), []
    for text in re.findall(r"\[([^\[\]]*)\]", bounds.group(1)):
        n = rank_value(text) if text.strip() else None
        if n is None or n == 0:
            why = ("has no size (a flexible array member)" if not text.strip() else
                   "has size 0 (a GNU extension)" if n == 0 else
                   f"has size {text.strip()!r}, which is not an integer literal (the "
                   "parser does not run the preprocessor or evaluate constants)")
            raise error(StructLayoutError, where, f"struct '{struct}' field '{name}' "
                        f"({shown!r}) is an array that {why}, so its layout cannot be "
                        "checked; write each size as a positive integer literal (e.g. "
                        f"'{head}[4]')")
        shape.append(n)
    return head, tuple(shape)
