"""The structure of the package, read from its source with ``ast`` (nothing is imported).

Each rule of PLAN.md / DESIGN.md "Layers" is one test; the table of layers and who may
import whom is data in ``tests/_layers.py``. Imports inside functions count, relative
imports are resolved, and every failure lists the offending ``file:line``s.

The checker runs on any tree (``check_*(root)``, ``root`` the package folder), and the
tests at the end run it on small made-up packages, so that each rule is seen to fail
where it must and pass where it may.
"""

from __future__ import annotations

import ast
import functools
import re
from dataclasses import dataclass, field
from pathlib import Path

from tests._layers import (ALLOWED, BACKEND_NAMES, BACKEND_NAMES_LAYER, CLI_IMPORTERS,
                           LAYER_PATHS, MAX_LINES, ROOT_ALLOWED_PRIVATE, layer_of)

ROOT = Path(__file__).resolve().parents[1] / "xstride"


# ----------------------------------------------------------------------------- reading the tree
@dataclass(frozen=True)
class Import:
    importer: str       # module name, "xstride._kernels.reductions"
    where: str          # "xstride/_kernels/reductions.py:12"
    target: str         # module of the tree that is imported


@dataclass
class Tree:
    root: Path
    modules: dict[str, Path] = field(default_factory=dict)       # name -> file
    imports: list[Import] = field(default_factory=list)
    trees: dict[str, ast.Module] = field(default_factory=dict)   # name -> parsed source

    def rel(self, name: str) -> str:
        """File of module ``name`` relative to the package folder."""
        return self.modules[name].relative_to(self.root).as_posix()

    def shown(self, name: str) -> str:
        """File of module ``name`` as shown in messages (``xstride/...``)."""
        return f"{self.root.name}/{self.rel(name)}"

    def layer(self, name: str) -> str | None:
        return layer_of(self.rel(name))


def _module_name(root: Path, path: Path) -> str:
    parts = [root.name, *path.relative_to(root).with_suffix("").parts]
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _existing(modules, dotted: str) -> str | None:
    """The longest prefix of ``dotted`` that is a module of the tree."""
    parts = dotted.split(".")
    while parts:
        name = ".".join(parts)
        if name in modules:
            return name
        parts.pop()
    return None


def _import_calls(node) -> str | None:
    """The constant module name of ``importlib.import_module("...")`` / ``__import__``."""
    if not isinstance(node, ast.Call) or not node.args:
        return None
    f = node.func
    fname = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", None)
    arg = node.args[0]
    if fname in ("import_module", "__import__") and isinstance(arg, ast.Constant) \
            and isinstance(arg.value, str):
        return arg.value
    return None


def read_tree(root: Path) -> Tree:
    """Parse every module under ``root`` (the package folder) and resolve its imports,
    those inside functions included, to modules of the tree. (Read again only when a
    file changed: every rule reads the same tree.)"""
    root = Path(root).resolve()
    stamp = tuple((str(p), p.stat().st_mtime_ns, p.stat().st_size)
                  for p in sorted(root.rglob("*.py")))
    return _read_tree(root, stamp)


@functools.lru_cache(maxsize=8)
def _read_tree(root: Path, stamp) -> Tree:
    tree = Tree(root)
    for path in sorted(root.rglob("*.py")):
        name = _module_name(root, path)
        tree.modules[name] = path
    pkg = root.name
    for name, path in tree.modules.items():
        mod = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        tree.trees[name] = mod
        is_pkg = path.name == "__init__.py"
        package = name if is_pkg else name.rpartition(".")[0]
        shown = tree.shown(name)

        def add(dotted: str, line: int, *, _name=name, _shown=shown) -> None:
            if dotted != pkg and not dotted.startswith(pkg + "."):
                return  # numpy, cupy, the standard library, ...
            target = _existing(tree.modules, dotted)
            if target is not None:
                tree.imports.append(Import(_name, f"{_shown}:{line}", target))

        for node in ast.walk(mod):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    add(alias.name, node.lineno)
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")
                    if node.level > 1:
                        base = base[:len(base) - (node.level - 1)]
                    base = ".".join(base)
                    src = f"{base}.{node.module}" if node.module else base
                else:
                    src = node.module or ""
                for alias in node.names:
                    sub = f"{src}.{alias.name}"
                    add(sub if sub in tree.modules else src, node.lineno)
            else:
                dotted = _import_calls(node)
                if dotted is not None:
                    add(dotted, node.lineno)
    return tree


def _by_place(problems) -> list[str]:
    """``problems`` without repeats, ordered by file and line."""
    def key(s):
        m = re.match(r"([^:]+):(\d+)", s)
        return (m.group(1), int(m.group(2)), s) if m else (s, 0, s)
    return sorted(set(problems), key=key)


def _report(title: str, problems: list[str]) -> str:
    return f"{title} ({len(problems)}):\n  " + "\n  ".join(problems)


# ----------------------------------------------------------------------------------- the rules
def _folders() -> dict[str, str]:
    """Folder name -> its layer ("_kernels" -> "kernels")."""
    return {place.rstrip("/"): layer for layer, places in LAYER_PATHS.items()
            for place in places if place.endswith("/")}


def check_layers(root: Path) -> list[str]:
    """Imports that the layer table does not allow, modules in no layer, and files of
    a forbidden layer reached by path (a string literal naming its folder, as in
    ``Path(__file__).parent / "_kernels"``)."""
    tree = read_tree(root)
    folders = _folders()
    problems = []
    for name, mod in tree.trees.items():
        src = tree.layer(name)
        if src is None:
            problems.append(f"{tree.shown(name)}: belongs to no layer")
            continue
        skip = _docstrings(mod)
        for node in ast.walk(mod):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                    and id(node) not in skip:
                for folder in re.split(r"[/\\.]", node.value.strip()):
                    dst = folders.get(folder)
                    if dst is not None and dst not in ALLOWED[src]:
                        problems.append(f"{tree.shown(name)}:{node.lineno}: {src} reaches "
                                        f"{dst} by path ({node.value!r})")
    for imp in tree.imports:
        src, dst = tree.layer(imp.importer), tree.layer(imp.target)
        if src is None or imp.target == imp.importer:
            continue
        if dst not in ALLOWED[src]:
            problems.append(f"{imp.where}: {src} imports {dst} ({imp.target}); "
                            f"{src} may import only {', '.join(sorted(ALLOWED[src]))}")
    return _by_place(problems)


def check_cli_private(root: Path) -> list[str]:
    """Imports of the command-line package from outside it."""
    tree = read_tree(root)
    cli = f"{tree.root.name}._cli"
    return _by_place(f"{imp.where}: imports {imp.target} (only the command line may)"
                     for imp in tree.imports
                     if (imp.target == cli or imp.target.startswith(cli + "."))
                     and tree.layer(imp.importer) not in CLI_IMPORTERS)


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One circle (first node repeated at the end) per strongly connected component
    with more than one module (Tarjan)."""
    index, low, on, stack, comps = {}, {}, set(), [], []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            comps.append(set(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    circles = []
    for comp in comps:
        if len(comp) < 2:
            continue
        start = min(comp)
        # shortest way from start back to start inside the component (BFS)
        prev, frontier, found = {}, [start], None
        while frontier and found is None:
            nxt = []
            for v in frontier:
                for w in sorted(graph[v] & comp):
                    if w == start:
                        found = v
                        break
                    if w not in prev:
                        prev[w] = v
                        nxt.append(w)
                if found is not None:
                    break
            frontier = nxt
        path = [found]
        while path[-1] != start:
            path.append(prev[path[-1]])
        circles.append([start] + path[::-1][1:] + [start] if len(path) > 1
                       else [start, found, start])
    return sorted(circles)


def check_circles(root: Path) -> list[str]:
    """Each import circle among modules, as ``a -> b -> a`` with the line of each hop."""
    tree = read_tree(root)
    graph: dict[str, set[str]] = {n: set() for n in tree.modules}
    where: dict[tuple[str, str], str] = {}
    for imp in tree.imports:
        if imp.target != imp.importer:
            graph[imp.importer].add(imp.target)
            where.setdefault((imp.importer, imp.target), imp.where)
    problems = []
    for circle in _circles(graph):
        hops = [where[a, b] for a, b in zip(circle, circle[1:])]
        problems.append(" -> ".join(circle) + "  [" + ", ".join(hops) + "]")
    return problems


def check_root(root: Path) -> list[str]:
    """Private modules in the package's root folder (only public modules,
    ``__init__.py`` and ``__main__.py`` belong there)."""
    root = Path(root)
    return [f"{root.name}/{p.name}:1: private module in the package root; move it into "
            "the folder of its layer"
            for p in sorted(root.glob("*.py"))
            if p.name.startswith("_") and p.name not in ROOT_ALLOWED_PRIVATE]


def check_lengths(root: Path, limit: int = MAX_LINES) -> list[str]:
    """Files of the package (any kind: .py, .cu, .cuh, .c) longer than ``limit`` lines."""
    root = Path(root)
    problems = []
    for p in sorted(root.rglob("*")):
        if not p.is_file() or "__pycache__" in p.parts or p.suffix in (".pyc", ".so"):
            continue
        try:
            n = len(p.read_text(encoding="utf-8").splitlines())
        except UnicodeDecodeError:
            continue  # a binary file
        if n > limit:
            problems.append(f"{root.name}/{p.relative_to(root).as_posix()}:{limit + 1}: "
                            f"{n} lines (at most {limit})")
    return problems


def _docstrings(mod: ast.Module) -> set[int]:
    """ids of the docstring nodes of a module and of its classes and functions."""
    ids = set()
    for node in ast.walk(mod):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                    and isinstance(body[0].value.value, str):
                ids.add(id(body[0].value))
    return ids


def _module_lookups(mod: ast.Module) -> set[int]:
    """ids of string constants that name a module to look up, not a backend:
    ``sys.modules["cupy"]``, ``sys.modules.get("cupy")``, ``import_module("cupy")``."""
    ids = set()
    for node in ast.walk(mod):
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) \
                and node.value.attr == "modules":
            ids.add(id(node.slice))
        elif isinstance(node, ast.Call) and node.args:
            f = node.func
            if isinstance(f, ast.Attribute) and f.attr in ("get", "pop") \
                    and isinstance(f.value, ast.Attribute) and f.value.attr == "modules":
                ids.add(id(node.args[0]))
            elif _import_calls(node) is not None:
                ids.add(id(node.args[0]))
    return ids


def _is_backend_name(text: str) -> bool:
    return text.strip().strip("'\"").strip().lower() in BACKEND_NAMES


def check_backend_names(root: Path) -> list[str]:
    """String literals that name a backend ("numpy", "cupy", "dask", any case, also as
    the literal part of an f-string) outside the backends layer. Docstrings, comments
    and module look-ups (``sys.modules["cupy"]``) are not backend names."""
    tree = read_tree(root)
    problems = []
    for name, mod in tree.trees.items():
        if tree.layer(name) == BACKEND_NAMES_LAYER:
            continue
        skip = _docstrings(mod) | _module_lookups(mod)
        for node in ast.walk(mod):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                    and id(node) not in skip and _is_backend_name(node.value):
                problems.append(f"{tree.shown(name)}:{getattr(node, 'lineno', 0)}: "
                                f"{node.value!r}")
    return _by_place(problems)


CHECKS = {
    "layers": check_layers,
    "cli": check_cli_private,
    "circles": check_circles,
    "root": check_root,
    "lengths": check_lengths,
    "backend_names": check_backend_names,
}


def check_all(root: Path) -> dict[str, list[str]]:
    """Every rule on the package folder ``root``: rule name -> problems."""
    return {rule: check(root) for rule, check in CHECKS.items()}


# ------------------------------------------------------------------------- the rules on xstride
def test_layers_import_only_what_the_table_allows():
    problems = check_layers(ROOT)
    assert not problems, _report("imports across layers that DESIGN.md 'Layers' forbids "
                                 "(table: tests/_layers.py ALLOWED)", problems)


def test_nothing_outside_the_cli_imports_it():
    problems = check_cli_private(ROOT)
    assert not problems, _report("imports of xstride._cli from outside the command line",
                                 problems)


def test_no_import_circle():
    problems = check_circles(ROOT)
    assert not problems, _report("import circles (function-level imports count)", problems)


def test_root_holds_only_public_modules():
    problems = check_root(ROOT)
    assert not problems, _report("private modules in xstride/", problems)


def test_no_file_over_600_lines():
    problems = check_lengths(ROOT)
    assert not problems, _report(f"files in xstride/ over {MAX_LINES} lines", problems)


def test_backend_names_only_in_backends():
    problems = check_backend_names(ROOT)
    assert not problems, _report('backend names ("numpy", "cupy", "dask") outside '
                                 "xstride/_backends/", problems)


def test_the_tree_is_read():
    """The checker sees xstride's modules and their imports (guards against a rule
    passing because nothing was read)."""
    tree = read_tree(ROOT)
    assert len(tree.modules) > 40
    assert {"xstride", "xstride.__main__", "xstride.layout", "xstride._core.errors",
            "xstride._backends.select"} <= set(tree.modules)
    assert len(tree.imports) > 100
    layers = {tree.layer(n) for n in tree.modules}
    assert {"core", "plans", "host", "kernels", "backends", "public", "cli"} <= layers
