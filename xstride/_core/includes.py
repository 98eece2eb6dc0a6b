"""Follow a kernel's ``#include`` lines to the header files and hash their content.

The digest goes into the compile cache key of :class:`xstride.cuda.CudaKernel`, so an
edited header (shipped or the user's) is recompiled even though the kernel's source
text did not change. The same walk tells the HIP gate which shipped headers a kernel
reaches.

Resolution follows the compilers: a quoted include (``"a.h"``) is looked up first in
the folder of the file that includes it, then in the search folders; an angle include
(``<a.h>``) only in the search folders, in order. Includes that resolve to no file
(``<cuda_fp16.h>``, NVRTC's built-ins) are recorded with no file and not hashed.
``#if`` is not evaluated: every ``#include`` line counts. A computed include is read
through object-like macros whose value is a header name, every value of a macro
defined more than once (``#ifdef`` branches, an ``#undef`` and a new ``#define``, a
``-D`` option beside the source's ``#define``) counting; one the scan cannot read so
(``#include H(reduce)``) is recorded as unresolved (:attr:`IncludeGraph.unresolved`):
the HIP gate refuses it, and on CUDA the digest does not cover its header.
"""

from __future__ import annotations

import functools
import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

from .csource import SPACE as _S, directive_readings

__all__ = ["Include", "IncludeGraph", "scan_includes", "include_dirs_from_options",
           "pre_includes_from_options", "defines_from_options"]

# an include (group 1: "_next" of GCC's #include_next, which NVRTC reads too) of a
# header (group 2: its bracket), of a macro's value (group 3: its name) or of other
# tokens the scan does not expand (group 4: "H(reduce)" of a function-like macro)
_DIRECTIVE = re.compile(rf'^{_S}*(?:#|%:){_S}*include(_next)?{_S}*(?:([<"])|'
                        rf'([^\W\d]\w*)(?:{_S}|\r)*$|([^\s<"][^\n]*))', re.M)
# an object-like #define whose value may name a header (group 2: the value)
_HEADER_MACRO = re.compile(rf'^{_S}*(?:#|%:){_S}*define{_S}+([^\W\d]\w*)(?!\(){_S}+'
                           rf'(<[^>\n]*>|"[^"\n]*"|[^\W\d]\w*)(?:{_S}|\r)*$', re.M)
_MACRO_SPEC = re.compile(r'[<"]([^>"\n]+)[>"]')
_SPEC = re.compile(r'([^>"\n]+)[>"]')
#: A backslash-newline: C joins the two lines into one before anything else (phase 2).
_SPLICE = re.compile(r"\\\r?\n")


@dataclass(frozen=True)
class Include:
    """One ``#include`` line: who includes what, and the file it resolved to."""

    includer: str  # "<source>" or a header path
    spec: str      # the text between the brackets or quotes
    path: Path | None
    computed: bool = False   # "#include NAME": spec is what the macro NAME expands to
    #: ``False`` for a computed include the scan could not read as a header name (a
    #: function-like macro, ``#include H(reduce)``, or a macro defined as no header
    #: name, or not at all): ``spec`` is then the text after ``#include``
    resolved: bool = True


@dataclass(frozen=True)
class IncludeGraph:
    """Every include reached from a source, the files in visit order, and their digest."""

    edges: tuple[Include, ...]
    files: tuple[Path, ...]
    texts: dict
    digest: str

    @property
    def unresolved(self) -> tuple[Include, ...]:
        """The computed includes whose header is not known (nothing of them is hashed
        or followed)."""
        return tuple(e for e in self.edges if not e.resolved)

    def chain(self, target: Path) -> list[str]:
        """Include specs leading from the source to ``target`` (for messages)."""
        parent = {}
        for e in self.edges:
            if e.path is not None and e.path not in parent:
                parent[e.path] = e
        out, cur, seen = [], target, set()
        while cur in parent and cur not in seen:
            seen.add(cur)
            e = parent[cur]
            out.append(e.spec)
            cur = Path(e.includer) if e.includer != "<source>" else None
        return list(reversed(out))


def include_dirs_from_options(options) -> list[str]:
    """Folders given as ``-I<dir>``, ``-I <dir>`` (one option or two),
    ``--include-path=<dir>`` or ``--include-path`` and ``<dir>`` (two options), as NVRTC
    reads them."""
    out, it = [], iter(options)
    for opt in it:
        if opt in ("-I", "--include-path"):
            nxt = next(it, None)
            if nxt:
                out.append(nxt)
        elif opt.startswith("-I"):
            out.append(opt[2:].lstrip(" "))   # "-I dir": NVRTC skips the spaces
        elif opt.startswith("--include-path="):
            out.append(opt.split("=", 1)[1])
    return out


def defines_from_options(options) -> str:
    """``#define`` lines of the ``-DNAME=value`` and ``--define-macro=NAME=value``
    options (also the flag and the definition as two options), for the scan to read
    the macros of computed includes (``-DHDR=<a.h>`` with ``#include HDR``)."""
    out, opts = [], [o for o in options if isinstance(o, str)]
    for i, opt in enumerate(opts):
        for flag in ("--define-macro", "-D"):
            if opt == flag and i + 1 < len(opts):
                out.append(opts[i + 1])
            elif opt.startswith(flag + "=" if flag != "-D" else flag) and opt != flag:
                out.append(opt[len(flag) + (flag != "-D"):])
            else:
                continue
            break
    return "".join(f"#define {d.split('=', 1)[0].strip()} {d.split('=', 1)[1]}\n"
                   for d in out if "=" in d)


def pre_includes_from_options(options) -> list[str]:
    """Headers NVRTC includes before the source: ``--pre-include=<h>``,
    ``-include=<h>``, or the flag (``--pre-include``, ``-include``) and the header as
    two options."""
    out, opts = [], [o for o in options if isinstance(o, str)]
    for i, opt in enumerate(opts):
        for flag in ("--pre-include", "-include"):
            if opt == flag and i + 1 < len(opts):
                out.append(opts[i + 1].strip())
            elif opt.startswith(flag + "="):
                out.append(opt[len(flag) + 1:].strip())
    return [h for h in out if h]


def _resolve(spec: str, quoted: bool, here: Path | None, dirs, after: int | None = None
             ) -> tuple[Path | None, int | None]:
    """``(file, index of the search folder it was found in)`` of an include (``None``
    for a file found next to its includer, ``(None, None)`` where none is found).
    ``after``: an ``#include_next`` in a file found in the search folder of that
    index, which looks in the folders after it only (elsewhere it is an
    ``#include``)."""
    if after is not None:
        candidates = [(i, d) for i, d in enumerate(dirs) if i > after]
    else:
        candidates = ([(None, here)] if quoted and here is not None else []) + list(enumerate(dirs))
    for i, d in candidates:
        p = Path(d) / spec
        if p.is_file():
            return p.resolve(), i
    return None, None


@functools.lru_cache(maxsize=512)
def _include_lines(text: str) -> tuple[tuple[bool | None, str, bool], ...]:
    """``(quoted, spec, next)`` of each ``#include`` line of ``text`` outside comments and
    string literals (a raw string may hold a line ``#include <...>``), after joining
    the lines a backslash-newline continues (``#include \\`` + newline + ``<a.h>`` is
    one include, as for the compiler). A computed include (``#include HDR``) is
    ``(None, "HDR", next)``: the macro's name, resolved by :func:`_resolve_macro`; one of
    other tokens (``#include H(reduce)``) is ``(None, "H(reduce)", next)``, which no
    macro's name is, so it stays unresolved.
    ``next`` is ``True`` for GCC's ``#include_next`` (NVRTC reads it: a wrapper header
    of an include folder that includes the shipped header of its own name). Cached by
    text: every kernel a program compiles reaches the same headers, and the comment
    scan is pure Python (38 module loads of the bunny demo spent 67 ms in it, H200
    host, 2026-12-01)."""
    text = _SPLICE.sub("", text)
    # the two scans of a reading keep every offset: the directive is found in the code
    # (literals blanked), its quoted or angled name read from the text with literals
    # kept; the second reading adds the includes written across a comment's lines
    out: list = []
    for code, kept in directive_readings(text, kept=True):
        found = []
        for m in _DIRECTIVE.finditer(code):
            nxt = m.group(1) is not None
            if m.group(2) is not None:
                spec = _SPEC.match(kept, m.end())
                if spec is not None:
                    found.append((m.group(2) == '"', spec.group(1).strip(), nxt))
            elif m.group(3) is not None:
                found.append((None, m.group(3), nxt))
            else:   # read where literals are kept: H("a") is no macro's name either
                found.append((None, kept[m.start(4):m.end(4)].strip(), nxt))
        out += found if not out else [f for f in found if f not in out]
    return tuple(out)


@functools.lru_cache(maxsize=512)
def _header_macros(text: str) -> tuple[tuple[str, str], ...]:
    """``(name, value)`` of each object-like ``#define`` of ``text`` whose value may
    name a header: ``<a.h>``, ``"a.h"`` or another macro's name."""
    text = _SPLICE.sub("", text)
    return tuple((m.group(1), kept[m.start(2):m.end(2)].strip())
                 for code, kept in directive_readings(text, kept=True)
                 for m in _HEADER_MACRO.finditer(code))


def _add_macros(macros: dict[str, list[str]], pairs) -> None:
    """Add each ``(name, value)`` definition to ``macros``, beside the name's others."""
    for name, value in pairs:
        values = macros.setdefault(name, [])
        if value not in values:
            values.append(value)


def _resolve_macro(name: str, macros: dict[str, list[str]]) -> list[tuple[bool, str]]:
    """Every ``(quoted, spec)`` a computed include's macro may expand to, following a
    macro defined as another one's name: a macro defined more than once (in ``#if``
    branches, or again after an ``#undef``) may be any of its values, since the
    preprocessor is not run; empty where none names a header."""
    out: list[tuple[bool, str]] = []
    stack, seen = [name], set()
    while stack:
        name = stack.pop()
        if name in seen or name not in macros:
            continue
        seen.add(name)
        for value in reversed(macros[name]):
            spec = _MACRO_SPEC.fullmatch(value)
            if spec is None:
                stack.append(value)
            elif (value[0] == '"', spec.group(1).strip()) not in out:
                out.append((value[0] == '"', spec.group(1).strip()))
    return out


def scan_includes(source: str, search_dirs) -> IncludeGraph:
    """Walk the includes of ``source`` recursively (each file once).

    Parameters
    ----------
    source : str
        The kernel's source text.
    search_dirs : sequence of str or Path
        Include folders in search order (the ``-I`` folders).

    Returns
    -------
    IncludeGraph
        ``digest`` is a SHA-256 over every resolved header's path and bytes, in visit
        order; it changes when any header's content changes.
    """
    dirs = [Path(d) for d in search_dirs]
    macros: dict[str, list[str]] = {}
    _add_macros(macros, _header_macros(source))
    # a computed include may use a macro that a header read after it defines: walk
    # again with the macros of every file read (a few rounds reach any chain)
    for _ in range(8):
        edges: list[Include] = []
        files: list[Path] = []
        texts: dict[Path, str] = {}
        h = hashlib.sha256()
        _walk([("<source>", source, None, None)], dirs, macros, edges, files, texts, h)
        if not any(e.path is None and e.computed for e in edges):
            break
        known = {name: list(values) for name, values in macros.items()}
        for t in texts.values():
            _add_macros(macros, _header_macros(t))
        if macros == known:
            break
    return IncludeGraph(tuple(edges), tuple(files), texts, h.hexdigest())


def _walk(stack, dirs, macros, edges, files, texts, h) -> None:
    """Visit the includes of the files on ``stack`` (each: its name, text, folder and
    the index of the search folder it was found in, or ``None``), each file once (the
    body of :func:`scan_includes`)."""
    while stack:
        includer, text, here, index = stack.pop()
        found = []
        for quoted, spec, nxt in _include_lines(text):
            computed = quoted is None
            choices = [(quoted, spec)]
            if computed:   # each header the macro may name (each definition)
                choices = _resolve_macro(spec, macros)
                if not choices:
                    edges.append(Include(includer, spec, None, True, False))
                    continue
            for quoted, spec in choices:
                path, at = _resolve(spec, quoted, here, dirs, index if nxt else None)
                edges.append(Include(includer, spec, path, computed))
                if path is not None and path not in texts:
                    data = path.read_bytes()
                    texts[path] = data.decode("utf-8", errors="replace")
                    files.append(path)
                    h.update(str(path).encode() + b"\0" + data + b"\0")
                    found.append((str(path), texts[path], path.parent, at))
        stack.extend(reversed(found))
