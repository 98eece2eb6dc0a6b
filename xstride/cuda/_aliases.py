"""``typedef`` / ``using`` aliases (and enums) of C text: one table, read by the signature parser
(a parameter or field of an alias type is the type it names) and by the HIP gate
(a view or complex behind an alias); and the rule for a name defined twice, an alias
(:func:`merge_aliases`) or a struct (:func:`merge_structs`)."""

from __future__ import annotations

import bisect
import re

from .._core.csource import code_only
from .._core.errors import error
from ._namespaces import function_bodies

__all__ = ["find_aliases", "expand_aliases", "merge_aliases", "merge_structs", "conflict_in",
           "Conflicting", "read_through_conflict", "rank_value", "typedef_names",
           "find_alias_templates"]

_IDENT = re.compile(r"(?<!\w)[^\W\d]\w*")  # a name (letters beyond ASCII too), not "x10" of 0x10
_SPLICE = re.compile(r"\\\r?\n")   # a backslash-newline: one logical line (C phase 2)
_TYPEDEF = re.compile(r"\btypedef\s+([^;{}]*);")
_LAST_NAME = re.compile(r"([^\W\d]\w*)\s*$")
_ARRAY_BOUNDS = re.compile(r"(?:\[[^\[\]]*\]\s*)+$")
_USING = re.compile(r"\busing\s+([^\W\d]\w*)\s*=\s*([^;{}]*);")
_TEMPLATE_BEFORE = re.compile(r"\btemplate\s*<[^;{}]*>\s*$")


# enum E { ... }, enum class E : short;, typedef enum [: T] { ... } E;
_ENUM = re.compile(r"\benum\s+(class\s+|struct\s+)?(\[\[[^\]]*\]\]\s*)?([^\W\d]\w*)\s*"
                   r"(?::\s*([^;{}]+?))?\s*([{;])")
# what may stand between "struct" and its name, or after a struct's or enum's closing
# brace: alignas(16), __align__(16), __attribute__((aligned(16))), [[nodiscard]]
# (parentheses nested up to four deep: "__attribute__((aligned(sizeof(double) * 2)))",
# "__attribute__( (aligned(16)) )"; brackets inside "[[gnu::aligned(sizeof(int[4]))]]")
PARENS = r"\((?:[^()]|\((?:[^()]|\((?:[^()]|\([^()]*\))*\))*\))*\)"
LAYOUT_SPEC = (r"(?:alignas|__align__|__builtin_align__|__declspec|__attribute__)\s*" + PARENS
               + r"|\[\[(?:[^\[\]]|\[[^\[\]]*\])*\]\]")
# a packing or alignment attribute of an enum ("enum [[gnu::packed]] E", "}
# __attribute__((packed))"): the size of one of no fixed type is then the compiler's
_ENUM_LAYOUT = re.compile(r"\b(?:packed|__packed__|aligned|__aligned__|__align__|alignas)\b")
_ENUM_TAIL = re.compile(r"(?:\s*(?:" + LAYOUT_SPEC + "))+")
_TYPEDEF_ENUM = re.compile(r"\btypedef\s+enum\b\s*(?:[^\W\d]\w*)?\s*(?::\s*([^;{}]+?))?\s*\{")
# an enumerator: a name, optionally "= literal" (sign, digits, suffix)
_ENUMERATOR = re.compile(r"^\s*[^\W\d]\w*\s*(?:=\s*([-+]?)\s*(0[xX][0-9a-fA-F]+|0[bB][01]+|\d+)"
                         r"([uUlL]*)\s*)?$")
_SUFFIX = re.compile(r"(?:[uU](?:ll|LL|l|L)?|(?:ll|LL|l|L)[uU]?)?")
_INT32 = (-2**31, 2**31)


def _literal_value(sign: str, digits: str, suffix: str) -> int | None:
    """The value of ``sign digits suffix`` as C++ computes it for an enumerator, or
    ``None`` where that is not certain here: an invalid literal (``08``, ``1uu``), or a
    minus before a literal of unsigned type (``-1u``, ``-0x80000000``: C++ negates it
    modulo 2**32 or 2**64, not to a negative value). ``0`` followed by digits is
    octal, ``0x`` hexadecimal, ``0b`` binary ([lex.icon])."""
    if not _SUFFIX.fullmatch(suffix):
        return None
    low = digits.lower()
    if low.startswith(("0x", "0b")):
        value, base_ten = int(low, 0), False
    elif len(digits) > 1 and digits[0] == "0":
        if not set(digits) <= set("01234567"):
            return None
        value, base_ten = int(digits, 8), False
    else:
        value, base_ten = int(digits), True
    long_ = "l" in suffix.lower()
    # the literal's type: a decimal one without 'u' is always signed; an octal, hex or
    # binary one takes the first of int, unsigned int, long, unsigned long that holds it
    unsigned = "u" in suffix.lower() or (not base_ten and (
        (not long_ and 2**31 <= value < 2**32) or 2**63 <= value < 2**64))
    if sign == "-":
        return None if unsigned and value else -value
    return value


_INT_LITERAL = re.compile(r"(0[xX][0-9a-fA-F]+|0[bB][01]+|\d+)([uUlL]*)")


def rank_value(text: str) -> int | None:
    """The value of a view rank written as a C++ integer literal (``4``, ``4u``,
    ``0x5``, ``1'0``), or ``None`` when it is no literal (a name, an expression)."""
    m = _INT_LITERAL.fullmatch(text.strip().replace("'", ""))
    return None if m is None else _literal_value("", m.group(1), m.group(2))


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
        if m.group(2) is None:
            value += 1
        else:
            value = _literal_value(*m.group(1, 2, 3))
            if value is None:
                return False
        if not _INT32[0] <= value < _INT32[1]:
            return False
    return True


def _enums(text: str) -> dict[str, str]:
    """Enums as aliases: ``{name: underlying type}``. A scoped enum (``enum class E``)
    is an ``int`` unless it names its type, as any enum that names one (``enum E :
    short``); an unscoped enum without one is an ``int`` when its enumerators prove it
    (:func:`_plain_enum_is_int`), else ``"enum E"``, which the signature parser refuses."""
    out: dict[str, str] = {}
    opaque = []
    # an enum defined twice with other underlying types (#ifdef branches, a namespace's
    # beside a global one) is Conflicting, as an alias is: the last one was taken
    for m in _ENUM.finditer(text):
        scoped, attribute, name, under, end = m.groups()
        if under:
            _add(out, name, under)
        elif scoped:
            _add(out, name, "int")
        elif end == "{":
            close = text.find("}", m.end())
            body = text[m.end():close if close >= 0 else len(text)]
            tail = _ENUM_TAIL.match(text, close + 1) if close >= 0 else None
            packed = _ENUM_LAYOUT.search((attribute or "") + (tail.group(0) if tail else ""))
            _add(out, name, "int" if _plain_enum_is_int(body) and not packed else f"enum {name}")
        else:
            opaque.append(name)   # "enum E;": opaque, not C++ here
    for name in opaque:
        out.setdefault(name, f"enum {name}")
    for m in _TYPEDEF_ENUM.finditer(text):
        close = text.find("}", m.end())
        for alias in typedef_names(text, close + 1) if close >= 0 else ():
            body = text[m.end():close]
            _add(out, alias, m.group(1) or (
                "int" if _plain_enum_is_int(body) else f"enum {alias}"))
    return out


def _top_commas(text: str) -> list[str]:
    """``text`` split on the commas outside (), [] and, at parenthesis depth 0, <>."""
    parts, cur, paren, angle = [], [], 0, 0
    for c in text:
        paren += (c in "([") - (c in ")]")
        if not paren:
            angle += (c == "<") - (c == ">")
        if c == "," and not paren and not angle:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(c)
    parts.append("".join(cur))
    return parts


def _typedef_declarators(decl: str, arrays: bool = False) -> list[tuple[str, str]]:
    """``[(name, type), ...]`` of one ``typedef`` (``decl``: what stands between
    ``typedef`` and ``;``), one per declarator: ``float real, *preal`` declares
    ``real`` (``float``) and ``preal`` (``float *``); the specifiers (``float``,
    ``const float``) are shared, a declarator's ``*``, ``&`` and their qualifiers are
    its own. An array or function declarator (``a[4]``, ``(*fn)(int)``) names no
    type read here and is left out; with ``arrays`` an array declarator is its
    element type (``typedef Array5D<float> VA[2]``: ``VA`` holds what
    ``Array5D<float>`` holds, by value, as the HIP gate reads a field)."""
    first, *more = _top_commas(decl)
    bare = _ARRAY_BOUNDS.sub("", first.rstrip())
    last = _LAST_NAME.search(bare)
    if last is None:       # "void (*fn)(int)": a function pointer, nothing read
        return []
    head = bare[:last.start()]
    out = [] if bare != first.rstrip() and not arrays else [(last.group(1), head.strip())]
    depth, cut = 0, len(head)    # the specifiers end at the first top-level '*' or '&'
    for i, c in enumerate(head):
        depth += (c == "<") - (c == ">")
        if c in "*&" and not depth:
            cut = i
            break
    base = head[:cut].strip()
    for d in more:
        unbounded = _ARRAY_BOUNDS.sub("", d.rstrip())
        if unbounded != d.rstrip() and not arrays:
            continue           # "VA[2]": an array declarator
        name = _LAST_NAME.search(unbounded)
        if name is not None and base:
            out.append((name.group(1), f"{base} {unbounded[:name.start()].strip()}".strip()))
    return out


def typedef_names(text: str, end: int) -> list[str]:
    """The names that the declarators after a ``typedef struct { ... }`` or ``typedef
    enum { ... }`` definition (whose ``}`` ends before ``end``) give the defined type
    itself: ``P`` of ``} P, *PP;`` (a pointer, array or function declarator names
    another type, left out)."""
    stop = text.find(";", end)
    if stop < 0:
        return []
    return [d.strip() for d in _top_commas(text[end:stop])
            if re.fullmatch(r"\s*[^\W\d]\w*\s*", d)]


def find_aliases(text: str, local: bool = False, arrays: bool = False) -> dict[str, str]:
    """``{name: aliased type text}`` of every ``typedef`` / ``using`` alias in C text
    (``typedef Array4D<float> V;``, ``using P = const float*;``); alias templates
    (``template <class T> using V = ...``) are not aliases of one type and are left
    out, as are the aliases written inside a function's body (local to it: a
    parameter's type never names one) unless ``local``, as the HIP gate reads them (a
    local struct's field may name one), and with ``arrays`` an array ``typedef`` is
    an alias of its element type (the HIP gate: what a field of that type holds by
    value). The signature parser and the HIP gate read aliases from this one table.

    An enum is an alias of its underlying integer type where that is certain
    (``enum class E`` is an ``int``, ``enum E : short`` a ``short``, an unscoped enum
    whose enumerators are literals in int's range an ``int``); another unscoped enum
    is ``"enum E"`` (its size is the compiler's choice).
    """
    text = _SPLICE.sub("", code_only(text))
    out = _enums(text)
    outer = None   # the outermost function bodies, whose aliases are local (on first need)

    def inside(pos: int) -> bool:
        nonlocal outer
        if local:
            return False
        if outer is None:
            outer = []
            for o, c in function_bodies(text):   # sorted by their "{"
                if not outer or o > outer[-1][1]:
                    outer.append((o, c))
        i = bisect.bisect_left(outer, (pos,)) - 1
        return i >= 0 and outer[i][0] < pos < outer[i][1]

    found = [pair for m in _TYPEDEF.finditer(text) if not inside(m.start())
             for pair in _typedef_declarators(m.group(1), arrays)]
    found += [(m.group(1), m.group(2)) for m in _USING.finditer(text)
              if not _TEMPLATE_BEFORE.search(text, 0, m.start()) and not inside(m.start())]
    for name, aliased in found:
        # "enum E" in an alias is the type E (its entry in this table); C's "typedef
        # enum E E;" / "typedef struct S S;" names the type it is: no alias
        aliased = " ".join(_ELABORATED_ENUM.sub(" ", aliased).split())
        if not _names_itself(name, aliased):
            _add(out, name, aliased)
    return out


class TemplateAlias(str):
    """The aliased type text of an alias template, with its template parameters'
    names (``params``: ``("T", "N")`` of ``template <class T, int N> using V =
    xstride_array<T, N>;``), so that a use ``V<float, 3>`` can be read with its
    arguments in their place (:func:`instantiate`)."""

    def __new__(cls, text: str, params: tuple):
        self = super().__new__(cls, text)
        self.params = tuple(params)
        return self


def _template_params(head: str) -> tuple:
    """The parameter names of a ``template <...>`` head: the last identifier of each
    parameter before its default (``class T``, ``int N = 3``, ``typename... Ts``)."""
    inner = head[head.index("<") + 1:head.rindex(">")]
    names = []
    for part in _top_commas(inner):
        part = part.split("=", 1)[0]
        last = _LAST_NAME.search(part.rstrip())
        names.append(last.group(1) if last else "")
    return tuple(names)


def instantiate(aliased: str, args_text: str) -> str:
    """``aliased`` (an alias template's type text) with its parameters replaced by the
    arguments written at a use (``args_text``: what stands between the ``<`` and the
    ``>``); the text as it is where it is no :class:`TemplateAlias` or the arguments
    are fewer than the parameters without defaults."""
    params = getattr(aliased, "params", None)
    args = [a.strip() for a in _top_commas(args_text)] if args_text.strip() else []
    if not params or not args or len(args) > len(params):
        return aliased
    out = str(aliased)
    for name, arg in zip(params, args):
        if name:
            out = re.sub(rf"(?<!\w){re.escape(name)}(?!\w)", lambda _: arg, out)
    return out


def find_alias_templates(text: str) -> dict[str, str]:
    """``{name: aliased type text}`` of the alias templates of C text (``template
    <class T> using V5 = Array5D<T>;``), each a :class:`TemplateAlias` that knows its
    parameters. No parameter type is read through one (``V5<float>`` is not one type;
    :func:`find_aliases` leaves them out), but a struct field ``V5<float> v`` holds
    what the alias names: the HIP gate reads it there, with the arguments written at
    the field in the parameters' place (:func:`instantiate`: ``F<3>`` of ``template
    <int N> using F = xstride_array<float, N>;`` is a 3-D view)."""
    text = _SPLICE.sub("", code_only(text))
    out: dict[str, str] = {}
    for m in _USING.finditer(text):
        head = _TEMPLATE_BEFORE.search(text, 0, m.start())
        if head:
            _add(out, m.group(1), TemplateAlias(m.group(2), _template_params(head.group(0))))
    return out


class Conflicting(str):
    """An alias name defined more than once with different types: in branches of
    ``#if``/``#ifdef`` (the parser does not run the preprocessor), or in different
    scopes (a ``typedef`` inside a struct or namespace beside a global one). Its text
    is every type joined by ``" | "`` (the HIP gate sees a view or complex behind any
    of them); ``choices``: the types, as written."""

    def __new__(cls, choices):
        self = super().__new__(cls, " | ".join(choices))
        self.choices = tuple(choices)
        return self


def _choices(aliased: str) -> tuple:
    if isinstance(aliased, Conflicting):
        return aliased.choices
    return (" ".join(aliased.split()),)


def _add(table: dict, name: str, aliased: str) -> None:
    old = table.get(name)
    if old is None:
        table[name] = aliased
        return
    both = tuple(dict.fromkeys(_choices(old) + _choices(aliased)))
    table[name] = both[0] if len(both) == 1 else Conflicting(both)


def merge_aliases(table: dict, more: dict) -> dict:
    """Add the aliases ``more`` (another text's :func:`find_aliases`) to ``table``; a
    name the two define as different types becomes :class:`Conflicting`. Returns
    ``table``."""
    for name, aliased in more.items():
        _add(table, name, aliased)
    return table


def _layout_prefix(body: str) -> tuple[str, str]:
    """``(prefix, fields)`` of a struct body of ``find_structs``: ``"(extra); fields"``
    (a layout that is more than the fields) or the fields alone (``""`` prefix)."""
    if body.startswith("("):
        depth = 0
        for i, c in enumerate(body):
            depth += (c == "(") - (c == ")")
            if depth == 0:
                return body[1:i], body[i + 1:].lstrip(" ;")
    return "", body


def merge_structs(table: dict, more: dict) -> dict:
    """Add the struct bodies ``more`` (``find_structs`` of another text, or of other
    definitions in one text) to ``table``. A name defined with two different bodies
    (``#ifdef`` branches, a namespace's struct beside a global one, a struct nested in
    another) is one whose layout the kernel gets is not known without the preprocessor
    and scopes: its body becomes both, behind a ``( ... );`` prefix, so its fields are
    not compared (a plain field list has no parentheses: the name is what is checked)
    and the HIP gate reads the fields of every definition. Returns ``table``."""
    for name, body in more.items():
        old = table.get(name)
        if old is None or " ".join(old.split()) == " ".join(body.split()):
            table.setdefault(name, body)
            continue
        (p1, b1), (p2, b2) = _layout_prefix(old), _layout_prefix(body)
        table[name] = f"({' '.join(p for p in (p1, p2) if p) or ' '}); {b1}; {b2}"
    return table


def conflict_in(text: str, aliases: dict, _seen: frozenset = frozenset()):
    """``(name, choices)`` of the first :class:`Conflicting` alias that ``text`` names,
    itself or through other aliases; ``None`` if none."""
    for name in sorted(set(_IDENT.findall(text)) & (set(aliases) - _seen)):
        aliased = aliases[name]
        if isinstance(aliased, Conflicting):
            return name, aliased.choices
        found = conflict_in(aliased, aliases, _seen | {name})
        if found is not None:
            return found
    return None


_ELABORATED_ENUM = re.compile(r"\benum\s+(?:class\b|struct\b)?")
_TAG = re.compile(r"^(?:(?:struct|class|union)\s+)?(?:::\s*)?([^\W\d]\w*)$")


def _names_itself(name: str, aliased: str) -> bool:
    """Whether ``aliased`` is ``name`` itself, ``struct name`` (a C tag name) or the
    global ``::name``."""
    m = _TAG.match(aliased)
    return m is not None and m.group(1) == name


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


def read_through_conflict(text: str, shown: str, conflict, aliases: dict, where: str, key,
                          read):
    """The type ``text`` names through an alias defined as several types (``conflict``:
    its name and types, :func:`conflict_in`), where every definition gives the same one
    (``read(table)`` parses ``text`` with ``table`` as the aliases, ``key`` compares two
    readings); else a ``ValueError`` naming the alias and its types."""
    name, choices = conflict
    readings = {}
    for choice in choices:
        try:
            ct = read({**aliases, name: choice})
        except ValueError:
            ct = None
        readings.setdefault(None if ct is None else key(ct), ct)
    if len(readings) == 1 and None not in readings:
        return next(iter(readings.values()))
    what = "is" if text.strip() == name else f"names {name!r}, which is"
    raise error(ValueError, where, f"type {shown} {what} defined more than once, as "
                f"{' and as '.join(repr(c) for c in choices)} (in branches of #if/#ifdef, "
                "which are not evaluated here, or in different scopes), so the type the "
                "kernel takes is not known here; give each definition its own name, or "
                "write the type")
