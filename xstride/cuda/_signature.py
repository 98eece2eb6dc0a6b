"""Parse a kernel's C signature: one :class:`CType` per parameter.

:class:`xstride.cuda.CudaKernel` checks every argument against the parameter types
read here before it launches. Understood types:

- scalars passed by value: ``bool``, ``char`` / ``short`` / ``int`` / ``long`` /
  ``long long`` with ``signed``/``unsigned``, ``float``, ``double``, ``half``/``__half``,
  ``size_t``, ``ptrdiff_t``, ``int8_t`` ... ``uint64_t``, ``complex<float>``/
  ``complex<double>`` (also spelled ``thrust::complex<...>``);
- plain pointers to one of them, or ``void*`` (``const`` and ``__restrict__`` allowed,
  ``T x[]`` means ``T* x``; two or more bounds, ``T x[4][4]``, are refused);
- views ``ArrayND<T>`` / ``CArrayND<T>`` for N = 1..16 (and their template names
  ``xstride_array<T, N>`` / ``xstride_carray<T, N>``) from ``xstride/array_view.cuh``;
- structs declared in the source or an included header (``struct Name { ... };``),
  passed by value from a :class:`xstride.cuda.CudaStruct`; their fields are read where
  the body is a plain field list, array members (``float m[3][3]``) included; a bit-field
  or an array size that is no integer literal is a ``ValueError``
  (:mod:`._struct_defs`, which also finds the struct definitions).
- ``typedef``/``using`` aliases of these, and enums whose underlying integer type is
  certain, declared in the source or an included header (``_aliases.find_aliases``).

Anything else is a ``ValueError`` naming the parameter and the type. The parser reads C
text; it does not run the preprocessor (macros in a signature are not expanded).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from .._core import dtypes as _dtypes
from .._core.csource import CXX_KEYWORDS, strip_comments
from .._core.errors import error
from ._aliases import (conflict_in, expand_aliases, find_aliases, merge_aliases,
                       merge_structs, rank_value, read_through_conflict)
from ._struct_defs import (StructLayoutError, find_structs, member_declarator,
                           member_statements)

__all__ = [
    "CType", "Param", "Signature", "MAX_VIEW_NDIM", "strip_comments", "find_structs",
    "find_aliases", "merge_aliases",
    "parse_type", "type_key", "parse_struct_fields", "scalar_dtype",
    "rank_value", "array_type", "declarator",
]

#: Largest view rank of ``array_view.cuh`` (``Array16D``).
MAX_VIEW_NDIM = 16

_FIXED = {f"{p}int{b}_t": np.dtype(f"{p}int{b}") for p in ("", "u") for b in (8, 16, 32, 64)}
_NAMED = {
    # bool, float, double: from the one dtype <-> C type table (_core/dtypes.py)
    **{c: np.dtype(_dtypes.DTYPE_OF_C[c]) for c in ("bool", "float", "double")},
    "half": np.dtype(np.float16),
    "__half": np.dtype(np.float16),
    "size_t": np.dtype(np.uint64),
    "ptrdiff_t": np.dtype(np.int64),
    "ssize_t": np.dtype(np.int64),
    "complex<float>": np.dtype(np.complex64),
    "complex<double>": np.dtype(np.complex128),
    "thrust::complex<float>": np.dtype(np.complex64),
    "thrust::complex<double>": np.dtype(np.complex128),
    **_FIXED,
}
_INT_WORDS = {"signed", "unsigned", "char", "short", "int", "long"}
# Words that end a type, never a parameter name (for unnamed parameters): keywords.
# 'half' and '__half' are typedef names, no keywords: after a whole type, 'int half'
# or 'unsigned __half', each is the parameter's name, as C++ reads it
_TYPE_WORDS = _INT_WORDS | {"bool", "float", "double", "void"}
_DROP = re.compile(r"\b(__restrict__|__restrict|restrict|__grid_constant__|volatile|"
                   r"register|struct|class)\b")
_DROP_BUT_RESTRICT = re.compile(r"\b(__restrict__|__restrict|__grid_constant__|volatile|"
                                r"register|struct|class)\b")
_VIEW_ALIAS = re.compile(r"^(C?)Array(0|[1-9]\d*)D\s*<(.+)>$")
_VIEW_TEMPLATE = re.compile(r"^xstride_(c?)array\s*<(.+),\s*([0-9][\w']*)\s*>$")
_IDENT = re.compile(r"[^\W\d]\w*")  # C++ identifiers may hold letters beyond ASCII
# a name and the namespaces or classes it is qualified by ("geo::Box",
# "thrust::complex", "::size_t": group 3 is the name)
_QUALIFIED_NAME = re.compile(r"(?<!\w)(::\s*)?((?:[^\W\d]\w*\s*::\s*)*)([^\W\d]\w*)")


@dataclass(frozen=True)
class CType:
    """A parameter (or struct field) type.

    ``kind`` is ``"scalar"``, ``"pointer"``, ``"view"`` (``ArrayND``), ``"cview"``
    (``CArrayND``), ``"struct"`` or ``"array"`` (a struct's array member, ``float x[4]``).
    ``dtype`` is the value / element dtype (``None`` for ``void*`` and structs); ``ndim``
    the view rank; ``const`` whether the pointee or the elements are ``const``;
    ``struct`` the struct name; ``fields`` the struct's parsed fields, or ``None`` when
    its body is not a plain list of understood fields; ``shape`` an array's extents and
    ``elem`` its element type (``text`` spells it ``float[3][3]``).
    """

    kind: str
    text: str
    dtype: np.dtype | None = None
    ndim: int = 0
    const: bool = False
    struct: str | None = None
    fields: tuple | None = None
    shape: tuple[int, ...] = ()
    elem: "CType | None" = None

    @property
    def nbytes(self) -> int | None:
        """Size passed by value, in bytes (``None`` for a struct of unknown layout)."""
        if self.kind == "scalar":
            return self.dtype.itemsize
        if self.kind == "pointer":
            return 8
        if self.kind == "view":
            return 8 * (1 + 2 * self.ndim)
        if self.kind == "cview":
            return 8 * (1 + self.ndim)
        if self.kind == "array":     # C: an element's size (a multiple of its alignment) each
            size = self.elem.nbytes
            return None if size is None else size * math.prod(self.shape)   # exact: no int64 wrap
        if self.fields is None:
            return None
        return struct_layout(self.fields)[1]

    @property
    def alignment(self) -> int:
        """C alignment, bytes. ``complex<T>`` (CuPy's and Thrust's) is declared
        ``__align__(2 * sizeof(T))`` for the device: 8 for ``complex<float>``, 16 for
        ``complex<double>`` (not NumPy's, which aligns a complex like its parts)."""
        if self.kind == "scalar":
            return self.dtype.itemsize if self.dtype.kind == "c" else self.dtype.alignment
        if self.kind == "struct":
            return max((f[1].alignment for f in self.fields or ()), default=1)
        if self.kind == "array":
            return self.elem.alignment
        return 8


def array_type(elem: CType, shape: tuple[int, ...]) -> CType:
    """The type of an array member of ``shape`` (extents, outermost first) of ``elem``."""
    text = f"{elem.text}{''.join(f'[{n}]' for n in shape)}"
    return CType("array", text, elem.dtype, const=elem.const, struct=elem.struct,
                 shape=tuple(shape), elem=elem)


def declarator(ct: CType, name: str) -> str:
    """A field as C declares it: ``float x[4]`` for an array, else ``<type> <name>``."""
    if ct.kind == "array":
        return f"{ct.elem.text} {name}{''.join(f'[{n}]' for n in ct.shape)}"
    return f"{ct.text} {name}"


@dataclass(frozen=True)
class Param:
    """One kernel parameter: position, name (``arg<i>`` when unnamed) and type."""

    index: int
    name: str
    ctype: CType


@dataclass(frozen=True)
class Signature:
    """The parsed ``__global__`` function: its name and parameters."""

    name: str
    params: tuple[Param, ...]


def type_key(ct: CType) -> tuple:
    """A type as the kernel receives it, not as it is spelled: ``float *``, ``float*``
    and ``float * __restrict__`` are one type, as are ``const float*`` and ``float
    const*``, or ``long long`` and ``int64_t`` (kind, dtype, rank, constness, struct
    name and, for a struct, its fields' names and types; for an array, its extents and
    element type)."""
    fields = None if ct.fields is None else tuple((f, type_key(c)) for f, c in ct.fields)
    elem = None if ct.elem is None else type_key(ct.elem)
    return ct.kind, ct.dtype, ct.ndim, ct.const, ct.struct, fields, ct.shape, elem


def struct_layout(fields) -> tuple[tuple[int, ...], int]:
    """C layout of ``[(name, CType), ...]``: field offsets and the padded size."""
    offsets, pos, align = [], 0, 1
    for _, ct in fields:
        a = ct.alignment
        pos = (pos + a - 1) // a * a
        offsets.append(pos)
        pos += ct.nbytes
        align = max(align, a)
    size = (pos + align - 1) // align * align
    return tuple(offsets), max(size, 1)


def _int_spelling_error(words: list[str]) -> str | None:
    """Why a spelling made of ``signed``/``unsigned``/``char``/``short``/``int``/``long``
    is not a C integer type, or ``None`` when it is one (``long long int`` ...)."""
    counts = {w: words.count(w) for w in set(words)}
    for w, k in counts.items():
        if k > (2 if w == "long" else 1):
            return f"{w!r} is repeated"
    if "signed" in counts and "unsigned" in counts:
        return "'signed' and 'unsigned' cannot be combined"
    sizes = [w for w in ("char", "short", "long") if w in counts]
    if len(sizes) > 1:
        return f"{' and '.join(repr(w) for w in sizes)} cannot be combined"
    if "char" in counts and "int" in counts:
        return "'char' and 'int' cannot be combined"
    return None


def scalar_dtype(text: str) -> np.dtype | None:
    """NumPy dtype of a C scalar type spelling, or ``None`` if it is not one."""
    t = " ".join(re.sub(r"\bconst\b", " ", text).split())
    t = re.sub(r"\s*([<>:])\s*", r"\1", t)
    if t.startswith("std::"):
        t = t[5:]
    if t in _NAMED:
        return _NAMED[t]
    words = t.split()
    if not words or not set(words) <= _INT_WORDS or _int_spelling_error(words):
        return None
    unsigned = "unsigned" in words
    if "char" in words:
        bits = 8
    elif "short" in words:
        bits = 16
    elif "long" in words:  # LP64: long and long long are 64 bits on Linux
        bits = 64
    else:
        bits = 32
    return np.dtype(f"{'u' if unsigned else ''}int{bits}")


def _unqualified(text: str) -> str:
    """A type's text with each name's qualifiers dropped: ``geo::Box`` is ``Box``,
    ``::size_t`` is ``size_t``, ``Array2D<n::real>`` is ``Array2D<real>``. The tables
    of structs and aliases are read without scopes (a name defined in two scopes is
    read as both: :func:`~._aliases.merge_structs`, :class:`~._aliases.Conflicting`), so
    a qualified name is looked up by its last part, as the unqualified one is. A
    member of a template (``W<1>::T``) is kept as written (no type read here)."""
    def one(m):
        if m.group(1) and text[:m.start()].rstrip().endswith(">"):
            return m.group(0)
        return m.group(3)
    return _QUALIFIED_NAME.sub(one, text) if "::" in text else text


def _unknown(where: str, shown: str, spelled: str) -> ValueError:
    """``unknown C type`` error; says why when the words are integer words."""
    words = " ".join(re.sub(r"\bconst\b", " ", spelled).split()).split()
    why = _int_spelling_error(words) if words and set(words) <= _INT_WORDS else None
    return error(ValueError, where, f"unknown C type {shown}" + (f": {why}" if why else ""))


def parse_type(text: str, *, structs: dict[str, str] | None = None,
               aliases: dict[str, str] | None = None, where: str = "parse_type",
               _depth: int = 0) -> CType:
    """Parse one C type (no parameter name). ``ValueError`` for an unknown type.

    ``structs`` maps struct names declared in the source to their bodies, ``aliases``
    ``typedef``/``using`` names to the types they name (:func:`find_aliases`): an alias
    is read as its type.
    """
    structs = structs or {}
    shown = repr(text.strip())
    text = re.sub(r"\benum\s+(?:class\b|struct\b)?", " ", text)   # "enum E e": E
    text = _unqualified(text)   # "geo::Box", "::size_t": read by the name
    if aliases:
        conflict = conflict_in(text, aliases)
        if conflict is not None:
            return read_through_conflict(
                text, shown, conflict, aliases, where, type_key, lambda table: parse_type(
                    text, structs=structs, aliases=table, where=where, _depth=_depth))
        expanded = " ".join(expand_aliases(text, aliases).split())
        if expanded != " ".join(text.split()):
            shown = f"{shown} (read through its aliases as {expanded!r})"
            text = expanded
    raw = " ".join(_DROP.sub(" ", text).split())
    spelled = raw
    if "&" in raw:
        raise error(ValueError, where, f"reference type {shown} cannot be passed from "
                         "the host; pass by value or by pointer")
    # the pointer's stars, not those of a template argument (Array2D<float*>)
    top = [i for i, c in enumerate(raw) if c == "*"
           and raw.count("<", 0, i) == raw.count(">", 0, i)]
    stars = len(top)
    if stars > 1:
        raise error(ValueError, where, f"unknown C type {shown}: pointers to pointers "
                         "are not supported (pass void* or unsigned long long)")
    if stars == 1:
        base = raw[:top[0]]
        const = bool(re.search(r"\bconst\b", base))
        base = " ".join(re.sub(r"\bconst\b", " ", base).split())
        if base == "void":
            return CType("pointer", spelled, None, const=const)
        dt = scalar_dtype(base)
        if dt is None:
            if base and set(base.split()) <= _INT_WORDS:
                raise _unknown(where, shown, base)
            raise error(ValueError, where, f"unknown C type {shown}: pointers to {base!r} "
                             "are not supported (use a scalar pointer or void*)")
        return CType("pointer", spelled, dt, const=const)
    # a const of the parameter itself, before or after the type: "Array2D<float> const"
    body = " ".join(re.sub(r"^\s*const\b|\bconst\s*$", " ", raw).split())
    m = _VIEW_ALIAS.match(body)
    t = _VIEW_TEMPLATE.match(body)
    if m or t:
        c, n, elem = (m.group(1), m.group(2), m.group(3)) if m else (t.group(1), t.group(3), t.group(2))
        ndim = rank_value(n)
        if ndim is None:
            raise error(ValueError, where, f"unknown C type {shown}: the view's rank "
                        f"{n!r} is not a valid integer literal")
        if not 1 <= ndim <= MAX_VIEW_NDIM:
            raise error(ValueError, where, f"unknown C type {shown}: views have 1 to "
                             f"{MAX_VIEW_NDIM} dimensions")
        dt = scalar_dtype(elem)
        elem_words = set(re.sub(r"\bconst\b", " ", elem).split())
        if dt is None and elem_words and elem_words <= _INT_WORDS:
            raise _unknown(where, shown, elem)
        if dt is None:
            raise error(ValueError, where, f"unknown C type {shown}: view element type "
                             f"{elem.strip()!r} is not a known scalar type")
        kind = "cview" if c else "view"
        const = bool(re.search(r"\bconst\b", elem))
        return CType(kind, f"{'C' if c else ''}Array{ndim}D<{elem.strip()}>", dt, ndim, const)
    rank = re.match(r"xstride_c?array\s*<.+,\s*([^,<>]+?)\s*>$", body)
    if rank:     # xstride_array<float, D>: no constant or macro is evaluated here
        raise error(ValueError, where, f"unknown C type {shown}: the view's rank "
                    f"{rank.group(1)!r} is not an integer literal; write the rank as a "
                    "literal (or use ArrayND<T>)")
    dt = scalar_dtype(body)
    if dt is not None:
        return CType("scalar", body, dt)
    name = " ".join(re.sub(r"\bconst\b", " ", body).split())  # "Params const"
    enum = re.fullmatch(r"enum\s+(\S+)", name)
    if enum:     # an unscoped enum of no fixed underlying type (_aliases.find_aliases)
        raise error(ValueError, where, f"enum {enum.group(1)!r} has no fixed underlying "
                    "type and an enumerator that is not an int literal, so its size is "
                    "the compiler's choice; give it one ('enum E : int { ... }', or "
                    "'enum class E'), or take the underlying integer type (int) and cast "
                    "on the device")
    if _IDENT.fullmatch(name) and name in structs:
        fields = None
        if _depth < 8:
            fields = parse_struct_fields(structs[name], structs=structs, aliases=aliases,
                                         name=name, where=where, _depth=_depth + 1)
        return CType("struct", name, None, struct=name, fields=fields)
    raise _unknown(where, shown, body)


def _split_top(text: str, sep: str) -> list[str]:
    """Split on ``sep`` outside (), <>, [] and {}; in a default value (after ``=``)
    ``<`` and ``>`` are operators, not brackets (``int n = 1 < 2, int m``)."""
    parts, depth, cur, default = [], 0, [], False
    for c in text:
        if c in "([{" or c == "<" and not default:
            depth += 1
        elif c in ")]}" or c == ">" and not default:
            depth -= 1
        elif c == "=" and depth == 0:
            default = True
        if c == sep and depth == 0:
            parts.append("".join(cur))
            cur, default = [], False
        else:
            cur.append(c)
    parts.append("".join(cur))
    return parts


def _split_decl(decl: str) -> tuple[str, str | None]:
    """``"const float* __restrict__ x"`` -> (type text, name); name None if unnamed."""
    decl = decl.split("=", 1)[0].strip()
    if re.search(r"\[[^\]]*\]\s*$", decl):  # T x[] / T x[4]: a pointer
        decl = re.sub(r"\[[^\]]*\]\s*$", "", decl).strip()
        decl = re.sub(r"(\w+)\s*$", r"* \1", decl)
    # C++ has no 'restrict' (C99's word): last, it is the parameter's name, as C++ reads
    # it ('float* restrict'); before a name it is read as the qualifier a
    # '#define restrict __restrict__' makes it (the preprocessor is not run here)
    cleaned = " ".join(_DROP_BUT_RESTRICT.sub(" ", decl).split())
    m = re.search(r"([^\W\d]\w*)\s*$", cleaned)
    if m and m.group(1) not in _TYPE_WORDS and m.group(1) not in CXX_KEYWORDS \
            and m.start() > 0:
        head = " ".join(_DROP.sub(" ", cleaned[:m.start()]).split())
        # "const E", "enum E" (an elaborated enum, as "struct S" is): unnamed
        if head and not head.endswith("::") and not set(head.split()) <= {"const", "enum"}:
            return head, m.group(1)
    return cleaned, None


# a member declaration that holds no field of the layout
_NOT_A_FIELD = re.compile(r"\b(?:static|typedef|using|friend|template)\b")


def parse_struct_fields(body: str, *, structs: dict[str, str] | None = None,
                        aliases: dict[str, str] | None = None, name: str = "?",
                        where: str = "parse_struct_fields",
                        _depth: int = 0) -> tuple | None:
    """``((name, CType), ...)`` for a plain struct body (of struct ``name``), else
    ``None``. An array member is an ``"array"`` CType of its element type.

    Raises
    ------
    ValueError
        (:class:`~._struct_defs.StructLayoutError`) A bit-field, or an array whose
        size is no integer literal, in this struct or a struct it holds by value: its
        layout cannot be checked, and a name-only check would pass a value of another
        size. The message names ``where``, the struct and the field.
    """
    body = strip_comments(body)
    if any(c in body for c in "(){}"):
        return None  # methods, constructors, nested definitions: layout not read
    stmts = member_statements(body)
    held = [st for st in stmts if not _NOT_A_FIELD.search(st)]
    # every field's bit-field and bounds first: refused whatever else the body holds
    decls = []     # (type, name, extents) of each declarator
    for st in held:
        # "float *p, q;": the type, then each declarator with its own "*"; "float a[2], b;"
        first, *more = _split_top(st, ",")
        first, shape = member_declarator(first, name, where)
        tp, fname = _split_decl(first)
        decls.append((tp, fname, shape))
        base = re.sub(r"(?:\s|\*|\bconst\b)*$", "", tp)
        for d in more:
            d, shape = member_declarator(f"{base} {d}", name, where)
            decls.append((*_split_decl(d), shape))
    if len(held) != len(stmts):
        return None   # a static member, an alias, a friend: not a plain field list
    fields = []
    for tp, fname, shape in decls:
        if fname is None:
            return None
        try:
            ct = parse_type(tp, structs=structs, aliases=aliases, where=where,
                            _depth=_depth)
        except StructLayoutError:
            raise        # a struct held by value whose layout cannot be checked
        except ValueError:
            return None
        if ct.kind == "struct" and ct.fields is None:
            return None
        fields.append((fname, array_type(ct, shape) if shape else ct))
    return tuple(fields)
