"""A kernel's parameters from its source: :func:`parse_signature` finds ``__global__ void
<name>(...)`` (its declarations and definition: one parameter list, no overloads, no
template kernel; in the namespace a qualified name ``a::k`` names, :mod:`._namespaces`,
or one a using-declaration or using-directive brings into the scope the name looks in,
:mod:`._using`) and reads each parameter with :func:`._signature.parse_type`, after
refusing what no argument check can match (a function pointer, two or more array
bounds, a pointer to arrays, a stray comma, a repeated name), each a ``ValueError``
naming the parameter.
"""

from __future__ import annotations

import re

from .._core.csource import SPACE as _S, code_only, directive_readings
from .._core.errors import error
from ._namespaces import (enclosing, lookup_names, member_blocks, namespace_blocks,
                          split_name, spelled, written_scopes)
from ._aliases import expand_aliases
from ._signature import (_DROP, Param, Signature, _split_decl, _split_top, find_aliases,
                         find_structs, merge_aliases, parse_type, scalar_dtype, type_key)
from ._using import Lookup, find_usings, in_order

__all__ = ["parse_signature", "macro_names"]

# attributes of a parameter, which do not change its type: [[maybe_unused]],
# __attribute__((unused))
_ATTRIBUTES = re.compile(r"\[\[.*?\]\]|\b__attribute__\s*\(\((?:[^()]|\([^()]*\))*\)\)", re.S)
# a function pointer or reference: "void (*f)(int)", "float (&)(float)"
_FUNCTION_POINTER = re.compile(r"\(\s*(?:[*&]\s*|__restrict__\s*|const\s*)+([^\W\d]\w*)?\s*\)\s*\(")
#: A backslash-newline: C joins the two lines into one before anything else (phase 2).
_SPLICE = re.compile(r"\\\r?\n")
# the name a #define defines (object-like or function-like)
_DEFINE = re.compile(rf"^{_S}*(?:#|%:){_S}*define{_S}+([^\W\d]\w*)", re.M)
_NAME = re.compile(r"(?<!\w)[^\W\d]\w*")


def macro_names(text: str) -> set[str]:
    """The names the ``#define``s of C text define (to say, of a parameter's type the
    parser does not know, that it is a macro: the preprocessor is not run)."""
    return {m.group(1) for code in directive_readings(_SPLICE.sub("", text))
            for m in _DEFINE.finditer(code)}


def _global_candidates(text: str, name: str):
    """``([(prefix, scopes, open_end), ...], blocks, device_scopes)``: each
    ``__global__ void ... name(`` (the text before the name, the namespaces the
    declaration is in (the enclosing blocks', then a qualifier written before the name:
    ``void a::k(``) and the end of its ``(``), the text's namespace blocks (``None``
    when there is no candidate), and the scopes of the ``__device__`` functions of that
    name at namespace scope (a kernel's overload that the compiler cannot tell apart
    from it by name; a struct's member function of that name is no overload)."""
    blocks, inner, out, devices = None, None, [], set()
    for m in re.finditer(r"\b" + re.escape(name) + r"\s*\(", text):
        start = max(text.rfind(c, 0, m.start()) for c in ";{}")
        lines = text[start + 1:m.start()].split("\n")
        prefix = " ".join(ln for ln in lines if not ln.lstrip().startswith(("#", "%:")))
        kernel = re.search(r"\b__global__\b", prefix) and re.search(r"\bvoid\b", prefix)
        if kernel or re.search(r"\b__device__\b", prefix):
            if blocks is None:
                blocks = namespace_blocks(text)
            absolute, written = written_scopes(prefix)
            scopes = (() if absolute else enclosing(blocks, m.start())) + written
            if kernel:
                out.append((prefix, scopes, m.end()))
                continue
            if inner is None:
                inner = member_blocks(text)
            # a member function or a local struct's: not in any namespace's scope
            if not any(o < m.start() < c for o, c in inner):
                devices.add(tuple(s.name for s in scopes))
    return out, blocks, devices


def _not_found(label: str, name: str, wanted: tuple[str, ...], elsewhere: list,
               lookup: Lookup | None) -> ValueError:
    """No kernel ``name`` (``wanted``: its parts): say where kernels of its last part are
    declared (``elsewhere``: their scopes) and the name that finds each."""
    if not elsewhere:
        return error(ValueError, label, f"no '__global__ void {name}(...)' in the source")
    where = " at global scope" if len(wanted) == 1 else ""
    places = _places(elsewhere, lookup)
    names = " or ".join(f"name={n!r}" for n in places)
    whose = "its" if len(places) == 1 else "the one to launch by its"
    how = (f"pass {whose} qualified name ({names})" if all("::" in n for n in places)
           else f"pass {names}")
    declared = " and ".join(dict.fromkeys(places.values()))
    return error(ValueError, label, f"no '__global__ void {name}(...)'{where} in the source; "
                 f"a kernel {wanted[-1]!r} is declared {declared}: {how}")


def _places(scopes_list, lookup: Lookup, *, strict: bool = False) -> dict[str, str]:
    """``{the name that finds it: where it is declared}`` of the kernels declared in
    ``scopes_list`` (the shortest name of :func:`lookup_names` where none finds it alone,
    or, ``strict``, a key ``""``)."""
    places = {}
    for scopes in scopes_list:
        name = lookup.name_for(tuple(s.name for s in scopes))
        if name is None:
            name = "" if strict else "::".join(min(lookup_names(scopes, lookup.name),
                                                   key=lambda n: (len(n), n)))
        places.setdefault(name, f"in namespace {spelled(scopes)!r}" if scopes
                          else "at global scope")
    return places


def _ambiguous(label: str, name: str, wanted: tuple[str, ...], found, lookup: Lookup
               ) -> ValueError:
    """``name`` finds kernels of two or more namespaces (``found``)."""
    places = {}
    for ns in in_order(found):
        for n, where in _places([lookup.declared_in(ns)], lookup, strict=True).items():
            places[n or where] = where
    declared = " and ".join(places.values())
    names = " or ".join(f"name={n!r}" for n, where in places.items() if n != where)
    alone = [where for n, where in places.items() if n == where]
    how = f"pass the name of the one to launch ({names})" if names else ""
    if alone:
        how += ("; " if how else "") + (f"no name finds the one declared {' or '.join(alone)} "
                                        "alone: rename it")
    return error(ValueError, label, f"{name!r} is ambiguous: it finds the kernels "
                 f"{wanted[-1]!r} declared {declared} (brought into the scope the name looks "
                 "in by a using-declaration, a using-directive, or an inline or anonymous "
                 f"namespace), which the compiler refuses as ambiguous: {how}")


def _params_text(text: str, open_end: int, label: str) -> str:
    depth = 1
    for i in range(open_end, len(text)):
        if text[i] == "(":
            depth += 1
        elif text[i] == ")":
            depth -= 1
            if depth == 0:
                return text[open_end:i]
    raise error(ValueError, label, "unbalanced parentheses in the kernel's parameter list")


def parse_signature(source: str, name: str, *, structs: dict[str, str] | None = None,
                    aliases: dict[str, str] | None = None, macros=(),
                    packed_from_elsewhere: str = "", label: str | None = None) -> Signature:
    """Find ``__global__ void <name>(...)`` in ``source`` and parse its parameters.

    Parameters
    ----------
    source : str
        CUDA C++ source text.
    name : str
        The kernel's name (not mangled; template kernels are not supported): a C
        identifier for a kernel at global scope, or the qualified name of one declared in
        a namespace (``a::k``, ``a::b::k``; a leading ``::`` is the global namespace),
        as C++ finds it from global scope: an inline namespace may be left out, an
        anonymous one is (:mod:`._namespaces`), and a using-declaration (``using
        a::k;``) or using-directive (``using namespace a;``) brings a kernel into the
        scope it is written in (:mod:`._using`).
    structs : dict, optional
        Struct definitions visible to the kernel (``find_structs`` of the source and its
        headers); the source's own are always found.
    aliases : dict, optional
        ``typedef``/``using`` aliases visible to the kernel (:func:`find_aliases` of its
        headers); the source's own are always found. A parameter of an alias type is
        read as the type it names.
    macros : iterable of str, optional
        Names ``#define``d by the kernel's headers or options (the source's own are
        always found): a parameter whose unknown type names one is refused saying so.
    packed_from_elsewhere : str, optional
        A ``#pragma pack`` a header leaves in force (``_struct_defs.packing_beyond``):
        the source's structs are then no plain field lists where its own pragmas leave
        none in force.

    Raises
    ------
    ValueError
        ``name`` is no identifier or qualified name; no such kernel (where the name's
        last part names a kernel in another namespace, the message says which and the
        name to pass: ``name='a::k'``), a name that finds kernels of two namespaces (the
        message names each and the name that finds it alone), a using-declaration of
        the kernel written before its declaration, overloads with different parameters,
        a template kernel, or a parameter of unknown C type (the message names the
        parameter and the type).
    """
    label = label or f"CudaKernel {name!r}"
    text = _SPLICE.sub("", code_only(source))
    known = dict(structs or {})
    known.update(find_structs(source, packed_from_elsewhere, set(macros) | macro_names(source)))
    named = merge_aliases(dict(aliases or {}), find_aliases(text))
    for tag in set(named) & set(known):   # a struct and an alias (or enum) of one name:
        merge_aliases(named, {tag: f"struct {tag}"})   # both read (#ifdef branches, scopes)
    wanted = split_name(name)
    if wanted is None:
        raise error(ValueError, label, f"{name!r} is not a C identifier or a qualified name "
                    "of one ('a::k')")
    candidates, blocks, devices = _global_candidates(text, wanted[-1])
    lookup, spaces = None, set()
    if candidates:
        lookup = Lookup([(scopes, end) for _, scopes, end in candidates], blocks,
                        find_usings(text, blocks), wanted[-1], label)
        spaces = lookup.find(wanted, name.startswith("::"))
        if len(spaces) > 1:
            raise _ambiguous(label, name, wanted, spaces, lookup)
    found: list[tuple[tuple[Param, ...], bool]] = []
    elsewhere = []   # the scopes of kernels of the name's last part that it does not find
    for prefix, scopes, open_end in candidates:
        if tuple(s.name for s in scopes) not in spaces:
            elsewhere.append(scopes)
            continue
        if re.search(r"\btemplate\b", prefix):
            raise error(ValueError, label, "template kernels are not supported; wrap the "
                                  "instantiation you need in a non-template __global__ function")
        plist = _params_text(text, open_end, label)
        body = text[open_end + len(plist) + 1:].lstrip().startswith("{")
        found.append((_parse_params(plist.strip(), known, named, label,
                                    set(macros) | macro_names(source)), body))
    if not found:
        raise _not_found(label, name, wanted, elsewhere, lookup)
    if devices & spaces:   # NVRTC's name expression found two (an overload, unsupported)
        raise error(ValueError, label, f"a __device__ function '{name}' is declared beside the "
                    "kernel: the compiler cannot tell the kernel apart from it by name "
                    "(overloads are not supported); rename one")
    # a declaration (unnamed parameters, other names or spacing) and the definition are
    # one kernel where their types agree; other types are an overload
    if len({tuple(type_key(p.ctype) for p in params) for params, _ in found}) > 1:
        raise error(ValueError, label, f"'{name}' is declared with different parameter lists "
                              "(overloads are not supported)")
    defined = [params for params, body in found if body]
    return Signature(name, (defined or [params for params, _ in found])[-1])


_ARRAY_BOUNDS = re.compile(r"(?:\[[^\[\]]*\]\s*){2,}$")
# a pointer to arrays or a reference to an array: "float (*x)[4]", "int (&)[2][3]"
_ARRAY_POINTER = re.compile(r"\(\s*([*&])\s*(?:(?:const|volatile|__restrict__|__restrict)\s*)*"
                            r"([^\W\d]\w*)?\s*\)\s*((?:\[[^\[\]]*\]\s*)+)$")


def _check_array_bounds(decl: str, index: int, label: str) -> None:
    """A parameter declared with two or more array bounds (``float x[4][4]``), or as a
    pointer to arrays or a reference to an array (``float (*x)[4]``, ``float (&x)[4]``):
    ``ValueError`` naming it and saying what is supported. C passes it as a pointer to
    rows of a fixed length, which no argument check here can match (the parser read
    ``float x[4]`` as the type ``'float x[4]'`` of a nameless parameter); one bound
    (``T x[]``, ``T x[4]``) is ``T* x``."""
    decl = " ".join(decl.split("=", 1)[0].split())
    to_array = _ARRAY_POINTER.search(decl)
    if to_array is not None:     # float (*x)[4]: a pointer to rows of 4
        tp, pname = decl[:to_array.start()].strip(), to_array.group(2) or f"arg{index}"
        ndim = to_array.group(3).count("[") + (to_array.group(1) == "*")
        what = ("a pointer to arrays" if to_array.group(1) == "*"
                else "a reference to an array")
    else:
        bounds = _ARRAY_BOUNDS.search(decl)
        if bounds is None:
            return
        tp, pname = _split_decl(decl[:bounds.start()])
        pname = pname or f"arg{index}"
        ndim = decl[bounds.start():].count("[")
        what = f"a {ndim}-dimensional array"
    elem = " ".join(re.sub(r"\bconst\b", " ", _DROP.sub(" ", tp)).split())
    how = (f": declare it '{tp}* {pname}' (one bound, '{tp} {pname}[]', is that pointer) "
           f"and index it yourself, or take an 'Array{ndim}D<{tp}>' view"
           if scalar_dtype(elem) is not None else "")
    raise error(ValueError, label, f"parameter {index} ({pname!r}) is declared as "
                                   f"{what} ({decl!r}), which is not "
                                   "supported; a parameter is a scalar, a pointer, an "
                                   f"ArrayND<T> / CArrayND<T> view or a struct{how}")


_NOT_A_SCALAR_POINTER = re.compile(r": pointers to '[^']*' are not supported \(use a scalar "
                                   r"pointer or void\*\)$")
_REASON = re.compile(r"^unknown C type '[^']*'(?: \(read through its aliases as '[^']*'\))?: ")


def _macro_hint(exc: ValueError, where: str, tp: str, macros: set, known: dict,
                aliases: dict) -> ValueError:
    """``exc`` (an unknown C type), saying which of the type's names are macros, which
    the parser does not expand (``#define REAL float`` then ``REAL* x``); ``exc`` itself
    where none is, or where it is another error."""
    spelled = set(_NAME.findall(tp)) | set(_NAME.findall(expand_aliases(tp, aliases)))
    hidden = sorted(n for n in spelled & macros if n not in known and n not in aliases)
    text = str(exc)
    if not hidden or not text.startswith(where + ": unknown C type"):
        return exc
    # what the type would be without the macro ("use a scalar pointer or void*") is no help
    body = _NOT_A_SCALAR_POINTER.sub("", text[len(where) + 2:])
    names = " and ".join(repr(n) for n in hidden)
    return error(ValueError, where, f"{body}{'; ' if _REASON.search(body) else ': '}{names} "
                 f"{'is a macro' if len(hidden) == 1 else 'are macros'}, which the signature "
                 "parser does not expand (it does not run the preprocessor); write the type, "
                 "or name it with a typedef or using alias")


def _parse_params(plist: str, known: dict[str, str], aliases: dict[str, str],
                  label: str, macros: set = frozenset()) -> tuple[Param, ...]:
    """The parameters of one declaration's parameter list (without its parentheses)."""
    params, named = [], set()   # the Params; the names given so far
    if plist and plist != "void":
        for i, decl in enumerate(_split_top(plist, ",")):
            decl = _ATTRIBUTES.sub(" ", decl)
            if not decl.strip():   # 'int a,' or 'int a,, int b': a stray comma, as C says
                raise error(ValueError, label, f"parameter {i} is empty (a stray comma)")
            fn = _FUNCTION_POINTER.search(decl.split("=", 1)[0])
            if fn is not None:
                pname = fn.group(1) or f"arg{i}"
                raise error(ValueError, label, f"parameter {i} ({pname!r}): "
                            f"function pointer or reference {' '.join(decl.split())!r} is "
                            "not a supported parameter type (pass the address as an "
                            "unsigned long long and cast it on the device)")
            _check_array_bounds(decl, i, label)
            tp, pname = _split_decl(decl)
            if pname in named:    # C refuses it too, at compile time; messages need one
                raise error(ValueError, label, f"parameter {i} repeats the name {pname!r}")
            if pname:
                named.add(pname)
            pname = pname or f"arg{i}"
            where = f"{label}: parameter {i} ({pname!r})"
            try:
                ct = parse_type(tp, structs=known, aliases=aliases, where=where)
            except ValueError as exc:
                raise _macro_hint(exc, where, tp, macros, known, aliases) from None
            params.append(Param(i, pname, ct))
    return tuple(params)
