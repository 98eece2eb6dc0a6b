"""C++'s lookup of a kernel's name from global scope, through the source's
using-declarations (``using a::k;``) and using-directives (``using namespace a;``).

:func:`find_usings` reads the ``using`` lines written at namespace scope (one in a
function body or a struct changes no name seen from global scope); :class:`Lookup`
answers which kernels a name finds, each known by the namespace it is declared in, as
the compiler resolves the name expression (NVRTC's ``nvrtcAddNameExpression``):

- an unqualified name ``k`` finds, all together, the kernels declared at global scope,
  through the using-declarations there, and in every namespace that a using-directive
  at global scope nominates (transitively), an inline namespace or an anonymous one
  (its implicit using-directive) included;
- a qualified name (``a::k``, ``::k``) finds what is declared in that namespace or its
  inline namespaces (a using-declaration there is such a declaration); only where that
  is nothing, what the namespaces nominated by their using-directives find, each looked
  up by the same rule (C++'s [namespace.qual]);
- the namespaces of a qualified name are looked up by these rules too, as are those a
  ``using`` line names, from the namespace it is written in outwards;
- a using-declaration brings in the kernels declared before it.

A ``using`` line naming what the source does not declare (``using namespace std;``, a
namespace of a header) adds nothing. Namespace aliases (``namespace b = a;``) are not
followed. Positions are those of code-only text (:func:`~xstride._core.csource.code_only`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .._core.csource import is_c_identifier
from .._core.errors import error
from ._namespaces import (Scope, blank_directives, enclosing, inner_blocks, lookup_names,
                          spelled)

__all__ = ["Using", "find_usings", "Lookup", "in_order"]

_NAME = r"[^\W\d]\w*"
_QUALIFIED = re.compile(rf"(::\s*)?({_NAME}(?:\s*::\s*{_NAME})*)")
_USING = re.compile(r"(?<![\w:])using\s+([^;{}()=<>\[\]]*);")
_DIRECTIVE = re.compile(r"namespace\b")
_NEVER = float("inf")

#: A namespace: its names from global scope (``None`` for an anonymous one); ``()`` is
#: the global namespace.
NsId = tuple


@dataclass(frozen=True)
class Using:
    """One using-directive (``directive``: ``path`` is the namespace) or one name of a
    using-declaration (``path`` is its qualifier and name), written at ``pos`` in the
    namespace ``at``; ``absolute`` for a leading ``::``; ``text`` as written."""

    at: NsId
    pos: int
    directive: bool
    absolute: bool
    path: tuple[str, ...]
    text: str


def find_usings(text: str, blocks) -> list[Using]:
    """The using-declarations and using-directives at namespace scope of code-only
    ``text`` (``blocks``: its :func:`~._namespaces.namespace_blocks`), in order. C++17's
    ``using a::k, b::m;`` gives one per name; an alias (``using T = ...;``), ``using
    enum`` and a name that is not a qualified identifier (an operator) are left out."""
    clean = blank_directives(text)
    inner = None
    out = []
    for m in _USING.finditer(clean):
        if inner is None:
            inner = inner_blocks(text)
        pos = m.start()
        if any(opened < pos < closed for opened, closed in inner):
            continue
        body = m.group(1).strip()
        directive = _DIRECTIVE.match(body)
        at = tuple(s.name for s in enclosing(blocks, pos))
        for item in [body[directive.end():]] if directive else body.split(","):
            q = _QUALIFIED.fullmatch(item.strip())
            if q is None:
                continue
            path = tuple(p.strip() for p in q.group(2).split("::"))
            if (all(is_c_identifier(p) for p in path)
                    and (directive or len(path) > 1 or q.group(1))):
                out.append(Using(at, pos, bool(directive), bool(q.group(1)), path,
                                 " ".join(m.group(0).split())))
    return out


def _union(sets) -> set:
    return set().union(*sets)


def in_order(spaces) -> list[NsId]:
    """Namespaces for a message: the global one first, outer before inner, by name."""
    return sorted(spaces, key=lambda ns: (len(ns), [n or "" for n in ns]))


class Lookup:
    """The kernels of one name (``name``: its last part) that a name finds.

    ``kernels`` holds ``(scopes, pos)`` of each declaration of a kernel of that name
    (its namespace scopes, :class:`~._namespaces.Scope`, and position); ``blocks``
    the source's namespace blocks; ``usings`` its :func:`find_usings`. A bad input is a
    ``ValueError`` whose message starts with ``label``."""

    def __init__(self, kernels, blocks, usings, name: str, label: str):
        self.name, self._label = name, label
        self._declared: dict[NsId, int] = {}   # namespace -> first declaration's position
        self._scopes: dict[NsId, tuple[Scope, ...]] = {}
        self._children: dict[NsId, set[NsId]] = {(): set()}
        self._inline: dict[NsId, bool] = {}
        for opened, _, scopes in blocks:
            outer = tuple(s.name for s in enclosing(blocks, opened))
            for i, scope in enumerate(scopes):
                self._add(outer + tuple(s.name for s in scopes[:i + 1]), scope.inline)
        for scopes, pos in kernels:
            ns = tuple(s.name for s in scopes)
            for i in range(len(ns)):   # a definition's written qualifier: void a::k(
                self._add(ns[:i + 1], False)
            self._declared[ns] = min(pos, self._declared.get(ns, pos))
            self._scopes.setdefault(ns, scopes)
        self._directives: dict[NsId, list[NsId]] = {}
        self._declarations: dict[NsId, list[tuple[Using, NsId]]] = {}
        for u in sorted(usings, key=lambda u: u.pos):   # each read with those before it
            if u.directive:
                found, _ = self._namespace(u.at, u.path, u.absolute)
                if len(found) == 1:
                    self._directives.setdefault(u.at, []).extend(found)
            elif u.path[-1] == name:
                found, _ = self._namespace(u.at, u.path[:-1], u.absolute)
                if len(found) == 1:
                    self._declarations.setdefault(u.at, []).append((u, *found))

    def _add(self, ns: NsId, inline: bool) -> None:
        self._children.setdefault(ns[:-1], set()).add(ns)
        self._children.setdefault(ns, set())
        self._inline[ns] = self._inline.get(ns, False) or inline

    # ------------------------------------------------------------ the rules
    def _group(self, ns: NsId) -> list[NsId]:
        """``ns`` and its inline namespace set."""
        out, todo = [ns], [ns]
        while todo:
            for child in sorted(self._children.get(todo.pop(), ()), key=str):
                if self._inline[child] and child not in out:
                    out.append(child)
                    todo.append(child)
        return out

    def _nominated(self, ns: NsId) -> list[NsId]:
        """The namespaces the using-directives of ``ns`` nominate, its anonymous one too."""
        anonymous = ns + (None,)
        return self._directives.get(ns, []) + ([anonymous] if anonymous in self._children
                                               else [])

    def _reach(self, ns: NsId) -> list[NsId]:
        """Where an unqualified name in ``ns`` looks: ``ns``, its inline namespaces and
        the nominated namespaces, transitively."""
        out, todo = [], [ns]
        while todo:
            x = todo.pop()
            if x not in out:
                out.append(x)
                todo += self._group(x)[1:] + self._nominated(x)
        return out

    def _qualified(self, ns: NsId, direct, seen: set) -> set:
        """[namespace.qual]: ``direct`` of ``ns`` and its inline namespaces; where that
        is empty, the same of each namespace their using-directives nominate."""
        if ns in seen:
            return set()
        seen.add(ns)
        group = self._group(ns)
        found = _union(direct(y) for y in group)
        if found:
            return found
        return _union(self._qualified(n, direct, seen) for y in group for n in self._nominated(y))

    def _child(self, part: str):
        return lambda y: {y + (part,)} if y + (part,) in self._children else set()

    def _namespace(self, at: NsId, path: tuple[str, ...], absolute: bool):
        """``(namespaces, parts read)``: what ``path`` names where it is written (in
        ``at``): none (unknown), one, or more (ambiguous at the part where it stopped)."""
        if absolute:
            found, done = {()}, 0
        else:
            for depth in range(len(at), -1, -1):   # from 'at' outwards
                found = _union(self._child(path[0])(y) for y in self._reach(at[:depth]))
                if found:
                    break
            done = 1
        for part in path[done:]:
            if len(found) != 1:
                return found, done
            found = self._qualified(next(iter(found)), self._child(part), set())
            done += 1
        return found, done

    def _kernels_before(self, before):
        """The kernels a namespace declares before a position, by itself or through
        its using-declarations (written before it too)."""
        def direct(ns: NsId) -> set:
            found = {ns} if self._declared.get(ns, _NEVER) < before else set()
            for u, target in self._declarations.get(ns, ()):
                if u.pos < before:
                    found |= self._through(u, target)
            return found
        return direct

    def _through(self, u: Using, target: NsId) -> set:
        found = self._qualified(target, self._kernels_before(u.pos), set())
        declared = (lambda ns: {ns} if ns in self._declared else set())  # later too
        if not found and self._qualified(target, declared, set()):
            where = f"namespace {spelled(self._scopes_of(target))!r}" if target else "global scope"
            raise error(ValueError, self._label, f"{u.text!r} comes before any declaration "
                        f"of a kernel {self.name!r} in {where}, which C++ refuses (a "
                        "using-declaration names what is declared above it): declare the "
                        "kernel before it")
        return found

    def _scopes_of(self, ns: NsId) -> tuple[Scope, ...]:
        return tuple(Scope(n, self._inline.get(ns[:i + 1], False)) for i, n in enumerate(ns))

    # ------------------------------------------------------------ answers
    def find(self, wanted: tuple[str, ...], absolute: bool) -> set[NsId]:
        """The namespaces of the kernels the name ``wanted`` (its parts; ``absolute``: a
        leading ``::``) finds from global scope. A namespace part that names two
        namespaces is a ``ValueError`` (the compiler's "is ambiguous")."""
        direct = self._kernels_before(_NEVER)
        if len(wanted) == 1 and not absolute:
            return _union(direct(y) for y in self._reach(()))
        spaces, done = self._namespace((), wanted[:-1], absolute)
        if len(spaces) > 1:
            part = "::".join(wanted[:done])
            named = " and ".join(f"namespace {spelled(self._scopes_of(ns))!r}"
                                 for ns in in_order(spaces))
            raise error(ValueError, self._label, f"{part!r} is ambiguous: it names {named} "
                        "(a using-directive brings a namespace into the scope a name "
                        "looks in); write the namespace from global scope, "
                        + " or ".join(f"name='::{spelled(self._scopes_of(ns))}::{wanted[-1]}'"
                                      for ns in in_order(spaces)
                                      if None not in ns))
        return _union(self._qualified(ns, direct, set()) for ns in spaces)

    def declared_in(self, ns: NsId) -> tuple[Scope, ...]:
        """The scopes of the kernels declared in ``ns``, as their declarations wrote them."""
        return self._scopes.get(ns, self._scopes_of(ns))

    def name_for(self, ns: NsId) -> str | None:
        """The shortest name that finds the kernel declared in ``ns`` and no other: one
        of :func:`~._namespaces.lookup_names`, else one of them with a leading ``::``
        (a global ``k`` beside ``using namespace a;``'s ``a::k`` is ``::k``); ``None``
        when none does (a kernel of an anonymous namespace beside a global one)."""
        for absolute in (False, True):
            for n in sorted(lookup_names(self.declared_in(ns), self.name),
                            key=lambda n: (len(n), n)):
                try:
                    if self.find(n, absolute) == {ns}:
                        return ("::" if absolute else "") + "::".join(n)
                except ValueError:
                    continue
        return None
