"""The HIP gate: refuse, on a HIP build, kernels that trigger a rule of ``_hip_rules``.

:func:`violations` is pure (it reads the kernel's parsed signature, include graph and
compile options); :func:`check` raises ``NotImplementedError`` for the first violation
when the CuPy in use is a ROCm/HIP build.
"""

from __future__ import annotations

import re
from pathlib import Path

from . import _device
from .._core.errors import error
from .._core.csource import SPACE as _S, code_only, directive_readings
from ._executors import include_dir
from ._hip_rules import RULES, HipRule
from .._core.includes import IncludeGraph, defines_from_options
from ._aliases import find_alias_templates, instantiate
from ._namespaces import FUNCTION_HEAD_END
from ._signature import (CType, Signature, _split_top, find_aliases, merge_aliases,
                         rank_value)
from ._struct_defs import find_structs, match_brace

__all__ = ["violations", "check"]

_BOUNDS_DEFINE = re.compile(rf"^{_S}*(?:#|%:){_S}*define{_S}+XSTRIDE_BOUNDS_CHECK\b", re.M)
_BOUNDS_MACRO = "XSTRIDE_BOUNDS_CHECK"
_SPLICE = re.compile(r"\\\r?\n")     # a backslash-newline: one logical line (C phase 2)


def _bounds_option(options) -> str | None:
    """The option(s) that define ``XSTRIDE_BOUNDS_CHECK``, as written, or ``None``:
    ``-DXSTRIDE_BOUNDS_CHECK[=v]``, ``--define-macro=XSTRIDE_BOUNDS_CHECK[=v]``, with
    spaces, or the flag (``-D``, ``--define-macro``) and the name as two options. The
    options act in order, as the compiler's do: an ``-UXSTRIDE_BOUNDS_CHECK``
    (``--undefine-macro``) after the define leaves the macro undefined (``None``)."""
    opts = [o for o in options if isinstance(o, str)]
    spelled = None
    skip = False
    for i, o in enumerate(opts):
        if skip:   # the name of a two-option flag, read with its flag
            skip = False
            continue
        flat = re.sub(r"\s+", "", o)
        for flag, defines in (("--define-macro=", True), ("--define-macro", True), ("-D", True),
                              ("--undefine-macro=", False), ("--undefine-macro", False),
                              ("-U", False)):
            if flat.startswith(flag):
                name, written = flat[len(flag):], o
                if not name and i + 1 < len(opts):
                    name, written = re.sub(r"\s+", "", opts[i + 1]), f"{o} {opts[i + 1]}"
                    skip = True
                if name.split("=", 1)[0] == _BOUNDS_MACRO:
                    spelled = written if defines else None
                break
    return spelled


_SHIPPED = Path(include_dir()).resolve() / "xstride"


def _max_view(ct: CType) -> int:
    if ct.kind in ("view", "cview"):
        return ct.ndim
    if ct.kind == "array":     # Array5D<float> v[2]: two views by value
        return _max_view(ct.elem)
    if ct.kind == "struct":
        return max((_max_view(f) for _, f in ct.fields or ()), default=0)
    return 0


# an object-like macro: "#define CF complex<float>" (group 2: its value)
_OBJECT_MACRO = re.compile(rf"^{_S}*(?:#|%:){_S}*define{_S}+([^\W\d]\w*)(?!\()"
                           rf"{_S}+(\S.*?)(?:{_S}|\r)*$",
                           re.M)


def _macros(text: str) -> dict[str, str]:
    """``{name: value}`` of the object-like ``#define``s of C text (code only): a
    macro holds a struct field's type (``#define V5 Array5D<float>``) as an alias does.
    A macro defined more than once (``#ifdef`` branches, ``#undef`` and again: the
    preprocessor is not run) holds every value (:func:`merge_aliases`), as an alias
    defined twice does."""
    out: dict[str, str] = {}
    for code in directive_readings(_SPLICE.sub("", text)):
        for m in _OBJECT_MACRO.finditer(code):
            merge_aliases(out, {m.group(1): m.group(2)})
    return out


# a function-like macro: "#define V5(T) Array5D<T>" (groups: name, parameters, value)
_FUNCTION_MACRO = re.compile(rf"^{_S}*(?:#|%:){_S}*define{_S}+([^\W\d]\w*)\(([^)]*)\)(.*)$",
                             re.M)


def _function_macros(texts, options=()) -> dict[str, list[tuple[tuple, str]]]:
    """``{name: [(parameters, value), ...]}`` of the function-like ``#define``s of C
    texts and ``-D`` options whose value can spell a type (no ``;``, ``{`` or ``}``):
    every definition of a name (``#ifdef`` branches: the preprocessor is not run)."""
    out: dict[str, list[tuple[tuple, str]]] = {}
    for text in [defines_from_options(options), *texts]:
        for code in directive_readings(_SPLICE.sub("", text)):
            for m in _FUNCTION_MACRO.finditer(code):
                value = m.group(3).strip()
                if re.search(r"[;{}]", value):
                    continue
                entry = (tuple(a.strip() for a in m.group(2).split(",") if a.strip()), value)
                if entry not in out.setdefault(m.group(1), []):
                    out[m.group(1)].append(entry)
    return out


def _expand_function_macros(body: str, macros: dict) -> str:
    """``body`` with each call of a macro of ``macros`` (:func:`_function_macros`)
    replaced by its value, the arguments in its parameters' place (a struct field
    ``V5(float) v;`` of ``#define V5(T) Array5D<T>`` holds a 5-D view; read as a member
    function's declaration, it passed the gate: a new-user probe). A macro defined more
    than once becomes every value side by side: the gate sees a view or complex behind
    any of them. Calls inside the values are expanded too, a few rounds deep."""
    if not macros:
        return body
    call = re.compile(r"(?<!\w)(" + "|".join(map(re.escape, macros)) + r")\s*\(")
    for _ in range(4):
        out, at = [], 0
        for m in call.finditer(body):
            if m.start() < at:
                continue
            depth, close = 1, len(body)
            for j in range(m.end(), len(body)):
                depth += (body[j] == "(") - (body[j] == ")")
                if depth == 0:
                    close = j + 1
                    break
            args = [a.strip() for a in _split_top(body[m.end():close - 1], ",")]
            values = []
            for params, value in macros[m.group(1)]:
                for name, arg in zip(params, args):
                    value = re.sub(rf"(?<!\w){re.escape(name)}(?!\w)", lambda _, a=arg: a,
                                   value)
                values.append(value)
            out.append(body[at:m.start()] + " " + " ".join(values) + " ")
            at = close
        if not out:
            return body
        body = "".join(out) + body[at:]
    return body


def _aliases(texts, options=()) -> dict[str, str]:
    """``{name: aliased type text}`` of every ``typedef`` / ``using`` alias in C texts
    (the signature parser's table, :func:`find_aliases`), and of every object-like
    macro of the texts and of the ``-DNAME=value`` options (the preprocessor is not
    run: a macro's value is read as an alias's type, so the gate sees the view or
    complex it spells), and of every alias template (``template <class T> using V5
    = Array5D<T>;``: a field ``V5<float> v`` holds a 5-D view)."""
    out: dict[str, str] = {}
    for text in [defines_from_options(options), *texts]:
        merge_aliases(out, _macros(text))
        # a local struct's too, and an array typedef as its element type
        merge_aliases(out, find_aliases(text, local=True, arrays=True))
        merge_aliases(out, find_alias_templates(text))
    return out


# a function declarator: a name and "(" (not an attribute's or alignment's)
_FUNCTION_DECL = re.compile(r"(?<!\w)(?!(?:alignas|__align__|__attribute__|__declspec|"
                            r"decltype)\b)[^\W\d]\w*\s*\(|\boperator\b")
# what a struct's layout does not hold: static members, aliases, friends
_NOT_A_MEMBER = re.compile(r"\b(?:static|typedef|using|friend|template)\b")
# a declarator's name: followed by the end, ",", "=", "[", "{" or a bit-field's ":"
_DECLARATOR = re.compile(r"(?<!\w)[^\W\d]\w*(?=\s*(?:$|,|=|\[|\{|:(?!:)))")
_ACCESS = re.compile(r"\b(?:public|private|protected)\s*:(?!:)")
# a specifier that holds parentheses of its own: alignas(sizeof(double)),
# __attribute__((aligned(16))), __align__(8), __declspec(align(8)); and [[...]]
_ATTRIBUTE = re.compile(r"\b(?:alignas|__align__|__attribute__|__declspec)\s*\(|\[\[")


def _without_attributes(stmt: str) -> str:
    """A member declaration without its attribute and alignment specifiers (each with
    its balanced parentheses), which hold no member's type: the ``aligned(`` of
    ``__attribute__((aligned(8))) complex<float> z`` is no member function."""
    out, i = [], 0
    while (m := _ATTRIBUTE.search(stmt, i)) is not None:
        out.append(stmt[i:m.start()] + " ")
        close, depth, j = ("]]", 0, m.end()) if m.group(0) == "[[" else (")", 1, m.end())
        if close == "]]":
            end = stmt.find("]]", j)
            i = len(stmt) if end < 0 else end + 2
            continue
        while j < len(stmt) and depth:
            depth += (stmt[j] == "(") - (stmt[j] == ")")
            j += 1
        i = j
    out.append(stmt[i:])
    return "".join(out)


# what ends a member's type before its first declarator: "*", "&", const, volatile
_DECLARATOR_HEAD = re.compile(r"(?:\s|[*&]|\b(?:const|volatile)\b)*$")


def _declarators(stmt: str) -> list[str]:
    """One member declaration per declarator: ``complex<float> *p, z`` is
    ``complex<float> *p`` and ``complex<float> z`` (the type, then each declarator's
    own ``*``/``&``), so that a value declared after a pointer is seen as a value."""
    parts = _split_top(stmt, ",")
    names = list(_DECLARATOR.finditer(parts[0]))
    if len(parts) == 1 or not names:
        return [stmt]
    head = parts[0][:names[-1].start()]
    base = head[:_DECLARATOR_HEAD.search(head).start()]
    return [parts[0]] + [f"{base} {p.strip()}" for p in parts[1:]]


# "struct In {" / "class In : B {" / "union U {" inside a struct body: a nested type's head
_NESTED_HEAD = re.compile(r"\b(?:struct|class|union)\s+[^\W\d]\w*\s*(?:final\b\s*)?(?::[^{;]*)?\{")


def _named_nested_bodies(body: str) -> str:
    """``body`` with the bodies of its named nested types taken out (``struct In { ...
    }`` becomes ``struct In``): declaring a type holds nothing (``struct In { ... };``),
    and a member of it (``struct In { ... } in;``, ``In* p;``) is followed by the name,
    as any field of a struct type is. An unnamed one (``struct { ... } s;``) stays."""
    out, at = [], 0
    for m in _NESTED_HEAD.finditer(body):
        if m.start() < at:
            continue    # inside a nested body already taken out
        end = match_brace(body, m.end() - 1)
        out.append(body[at:m.end() - 1])
        at = end
    return "".join(out) + body[at:]


def _data_members(body: str) -> str:
    """The types of a struct body's data members (code only): member functions
    (declarations and bodies, their parameters and return types), static members,
    aliases, initializers and the declared names themselves are left out, so that
    ``void f(Array5D<float> a)`` or a field named like an alias (``int V;``) is no
    field of that type. A layout prefix (``(: public B); ...``, ``find_structs``) is
    kept: its base classes are part of the layout."""
    prefix = ""
    if body.startswith("("):
        depth = 0
        for i, c in enumerate(body):
            depth += (c == "(") - (c == ")")
            if depth == 0:
                prefix, body = body[1:i], body[i + 1:]
                break
    members = []
    for stmt in _ACCESS.sub(" ", _without_function_bodies(_named_nested_bodies(body))).split(";"):
        stmt = _without_attributes(stmt)
        if _NOT_A_MEMBER.search(stmt) or _FUNCTION_DECL.search(stmt.split("=", 1)[0]):
            continue
        stmt = re.sub(r"=[^,{}]*", " ", stmt)     # default member initializers
        members += [_DECLARATOR.sub(" ", d) for d in _declarators(stmt.strip())]
    return " ".join([prefix] + [m + ";" for m in members if m.strip()])


# after a type: a pointer or a reference ("S *p", "S const& r")
_POINTER_AFTER = re.compile(r"\s*(?:(?:const|volatile)\b\s*)*[*&]")


def _template_end(text: str, i: int) -> int:
    """Index just past the ``>`` closing the template arguments that begin at ``i``."""
    depth = 1
    for j in range(i, len(text)):
        depth += (text[j] == "<") - (text[j] == ">")
        if depth == 0:
            return j + 1
    return len(text)


def _by_value(text: str, start: int, end: int) -> bool:
    """Whether the type ``text[start:end]`` of a member is held by value: not behind a
    pointer or reference, not the element type of a view (which holds a pointer)."""
    return not _POINTER_AFTER.match(text, end) and not _view_open_before(text, start)


#: How far before a type :func:`_view_open_before` looks for a view's ``<``: the view's
#: name, the ``<`` and the qualifiers between (blanks beyond this are not read: a view
#: not seen counts its element type as held by value, which refuses, never passes).
_VIEW_OPEN_REACH = 256


def _view_open_before(text: str, start: int) -> bool:
    """Whether ``text[:start]`` ends with the ``<`` of a view (and its qualifiers): the
    type at ``start`` is a view's element type. Reads a bounded stretch before
    ``start`` (a search of the whole text before each member made the gate quadratic:
    16 s for a struct of 4,000 fields, a new-user probe)."""
    m = _VIEW_OPEN.search(text, max(0, start - _VIEW_OPEN_REACH), start)
    if m is None:
        return False
    i = m.start()   # the stretch may begin inside a longer name ("MyArray2D<")
    return i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")


# a "<" next after a name (blanks between)
_ANGLE_NEXT = re.compile(r"\s*<")


def _struct_texts(body: str, structs: dict[str, str] | None = None,
                  aliases: dict[str, str] | None = None, _seen=None, _alias: bool = False):
    """The data members of a struct body (:func:`_data_members`), or an alias's text,
    and the same of every struct and alias they name as a type, at any depth (a struct
    field of another struct, ``typedef Array5D<float> V5;``), each once (an alias
    template once per arguments, read with them in its parameters' place)."""
    text = body if _alias else _data_members(body)
    yield text
    seen = set() if _seen is None else _seen
    for m in re.finditer(r"(?<!\w)[^\W\d]\w*", text):
        name = m.group(0)
        end = m.end()
        opens = _ANGLE_NEXT.match(text, end)
        args = ""
        if opens is not None:    # "V5<float>* p": after its arguments
            end = _template_end(text, opens.end())
            args = text[opens.end():end - 1]
        key = (name, " ".join(args.split()))   # an alias template once per arguments
        if key in seen or not _by_value(text, m.start(), end):
            continue    # "S* p", "V5& r", "Array2D<cf>": no S, V5 or cf held by value
        for table, alias in ((structs or {}, False), (aliases or {}, True)):
            if name in table:
                seen.add(key)
                held = instantiate(table[name], args) if alias else table[name]
                yield from _struct_texts(held, structs, aliases, seen, alias)


_VIEW_RANK = re.compile(r"\bxstride_c?array\s*<[^;]*?,\s*([^,<>;]+?)\s*>")


def _struct_view_ndims(body: str, structs: dict[str, str] | None = None,
                       aliases: dict[str, str] | None = None, _seen=None) -> int | str:
    """Largest N in ``ArrayND``/``CArrayND``/``xstride_(c)array<T, N>`` among a struct
    body's data members and the structs and aliases they name (:func:`_struct_texts`);
    a rank that is not an integer literal (``xstride_array<float, D>``: constants are not
    evaluated) is returned as written, since it may be 5 or more."""
    ns = [0]
    for text in _struct_texts(body, structs, aliases, _seen):
        ns += [int(m.group(1)) for m in re.finditer(r"\bC?Array(\d+)D\s*<", text)
               if _by_value(text, m.start(), _template_end(text, m.end()))]
        for m in _VIEW_RANK.finditer(text):
            if not _by_value(text, m.start(), m.end()):
                continue    # Array5D<float>* p: a pointer, 8 bytes
            rank = rank_value(m.group(1))
            if rank is None:
                return m.group(1)
            ns.append(rank)
    return max(ns)


# complex<float>, complex<double>, or complex<T> of a template struct's parameter (or
# of any other name that may be float or double): not complex<int> and the like
_COMPLEX = re.compile(r"\bcomplex\s*<\s*(?!(?:int|long|short|char|signed|unsigned|bool)\b)"
                      r"[^\W\d]\w*\s*>")
# the "<" of a view whose elements a complex is: Array2D<complex<float>> holds a pointer
_VIEW_OPEN = re.compile(r"(?:\bC?Array\d+D|\bxstride_c?array)\s*<\s*(?:(?:const|volatile)\s+)*$")
# ") const {": where a member function's body begins
_FUNCTION_BODY = re.compile(FUNCTION_HEAD_END + r"\{")
# after the type: a pointer or reference, or a member function's name and "("
_NOT_A_VALUE = re.compile(r"\s*(?:(?:const|volatile)\b\s*)*(?:[*&]|[^\W\d]\w*\s*\()")


def _without_function_bodies(text: str) -> str:
    """C text with every member function's body (``) const { ... }``) removed."""
    out, i = [], 0
    while (m := _FUNCTION_BODY.search(text, i)) is not None:
        out.append(text[i:m.end() - 1] + ";")
        i = match_brace(text, m.end() - 1)
    out.append(text[i:])
    return "".join(out)


def _complex_by_value(text: str) -> bool:
    """Whether a struct body (or an alias's text; code only) holds a ``complex<float>``
    or ``complex<double>`` by value: not behind a pointer or reference, not as a view's
    element type, not in a member function (its return type, parameters or body)."""
    text = _without_function_bodies(text)
    depth, at = 0, 0   # the parentheses open before each match, counted as the matches go
    for m in _COMPLEX.finditer(text):
        depth += text.count("(", at, m.start()) - text.count(")", at, m.start())
        at = m.start()
        if depth > 0 or _NOT_A_VALUE.match(text, m.end()) or _view_open_before(text, at):
            continue
        return True
    return False


def _has_complex(ct: CType) -> bool:
    """Whether a parsed struct type holds a complex field, at any depth."""
    if ct.kind == "scalar":
        return ct.dtype is not None and ct.dtype.kind == "c"
    if ct.kind == "array":     # complex<float> z[2]: held by value, as one z is
        return _has_complex(ct.elem)
    return ct.kind == "struct" and any(_has_complex(f) for _, f in ct.fields or ())


_UNION = re.compile(r"\bunion\b")


def _with_unions(struct_bodies: dict[str, str], texts) -> dict[str, str]:
    """The struct bodies and the bodies of the unions of C texts (``union U {...};``,
    ``typedef union {...} U;``): a union field holds its members by value, as a struct
    field does."""
    out = dict(struct_bodies)
    for text in texts:
        if _UNION.search(text):
            for name, body in find_structs(_UNION.sub("struct", text)).items():
                out.setdefault(name, body)
    return out


def violations(signature: Signature, graph: IncludeGraph, options, source: str,
               struct_bodies: dict[str, str]) -> list[tuple[HipRule, str]]:
    """Every ``(rule, what triggered it)`` of a kernel; empty when HIP may compile it."""
    out: list[tuple[HipRule, str]] = []
    if any(p.ctype.kind == "struct" for p in signature.params):
        texts = [source, *graph.texts.values()]
        struct_bodies = _with_unions(struct_bodies, texts)
        calls = _function_macros(texts, options)   # fields spelled by a macro's call
        if calls:
            struct_bodies = {name: _expand_function_macros(body, calls)
                             for name, body in struct_bodies.items()}
    aliases = None
    for r in RULES:
        if r.headers:
            for f in graph.files:
                if f.parent == _SHIPPED and f.name in r.headers:
                    chain = " -> ".join(graph.chain(f))
                    out.append((r, f"it includes xstride/{f.name} ({chain})"))
                    break
        if r.min_view_ndim:
            for p in signature.params:
                nd = _max_view(p.ctype)
                if p.ctype.kind == "struct":
                    if aliases is None:
                        aliases = _aliases([source, *graph.texts.values()], options)
                    held = _struct_view_ndims(struct_bodies.get(p.ctype.struct, ""),
                                              struct_bodies, aliases, {(p.ctype.struct, "")})
                    nd = held if isinstance(held, str) else max(nd, held)
                if isinstance(nd, str):
                    out.append((r, f"parameter '{p.name}' ({p.ctype.text}) has a struct field "
                                   f"with a view of rank {nd!r}, which is not an integer "
                                   "literal and may be 5 or more (write the rank as a literal: "
                                   "the gate does not evaluate constants)"))
                    break
                if nd >= r.min_view_ndim:
                    where = "takes" if p.ctype.kind != "struct" else "has a struct field with"
                    out.append((r, f"parameter '{p.name}' ({p.ctype.text}) {where} a "
                                   f"{nd}-dimensional view"))
                    break
        if r.complex_fields:
            for p in signature.params:
                if p.ctype.kind != "struct":
                    continue
                if aliases is None:
                    aliases = _aliases([source, *graph.texts.values()], options)
                body = struct_bodies.get(p.ctype.struct, "")
                if _has_complex(p.ctype) or any(
                        _complex_by_value(code_only(t)) for t in _struct_texts(
                            body, struct_bodies, aliases, {(p.ctype.struct, "")})):
                    out.append((r, f"parameter '{p.name}' ({p.ctype.text}) has a complex "
                                   "field"))
                    break
        if r.bounds_check:
            texts = [source] + list(graph.texts.values())
            spelled = _bounds_option(options)
            if spelled is not None:
                out.append((r, f"it is compiled with {spelled}"))
            elif any(_BOUNDS_DEFINE.search(code) for t in texts
                     for code in directive_readings(_SPLICE.sub("", t))):
                out.append((r, "its source defines XSTRIDE_BOUNDS_CHECK"))
    return out


def check_includes(label: str, graph: IncludeGraph) -> None:
    """``NotImplementedError`` for the first include whose header the scan could not
    resolve (``#include H(reduce)``): what it brings in cannot be checked."""
    for e in graph.unresolved:
        where = "the source" if e.includer == "<source>" else Path(e.includer).name
        raise error(NotImplementedError, label,
                    f"cannot be checked for a HIP (ROCm) build: the include "
                    f"'#include {e.spec}' in {where} could not be resolved (the include scan "
                    "does not expand a function-like macro, nor a macro whose value it "
                    "cannot read as a header name), so what it brings in is not known. "
                    "Write the header name (#include <xstride/reduce.cuh>), or an "
                    "object-like macro whose value is one (#define HDR <mine.h>, or "
                    "-DHDR=<mine.h>).", subject=True)


def check(label: str, signature: Signature, graph: IncludeGraph, options, source: str,
          struct_bodies: dict[str, str]) -> None:
    """Raise ``NotImplementedError`` on a HIP build if the kernel breaks a rule."""
    if not _device.is_hip():
        return
    check_includes(label, graph)
    found = violations(signature, graph, options, source, struct_bodies)
    if found:
        r, why = found[0]
        others = "".join(f"; also rule '{o.feature}' ({w})" for o, w in found[1:])
        raise NotImplementedError(
            f"{label} cannot be compiled on a HIP (ROCm) build: rule '{r.feature}': {why}. "
            f"{r.reason}{others}. See xstride.cuda.capabilities()['features'].")
