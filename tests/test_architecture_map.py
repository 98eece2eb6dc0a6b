"""docs/architecture.md against the package's files: every file on the map, no stale path.

The rule (stated in the page's intro too): a file of ``xstride/`` whose name ends in one of
``MAPPED`` (``.py``, ``.cu``, ``.c``, ``.cuh``; ``__pycache__`` skipped) is on the map when
its path relative to ``xstride/`` is a code span of the page, exactly: ``_backends/dask_fixes.py``,
``_kernels/segments.cu``, ``_kernels/include/xstride/detail/half.cuh``; a package's
``__init__.py`` by its full path (``algorithms/__init__.py``), the root's as
``__init__.py``. The same path with ``xstride/`` in front counts too.

Stale paths: every code span of the page that names such a file (the text before a
``:``, so ``elementwise.py:classify`` names ``elementwise.py``; a leading ``xstride/``
dropped; spans with ``<``, ``*`` or spaces are no paths) must name one that exists: a
file of the package whose path is the span or ends with ``/`` and the span (the page
also says ``dask_fixes.py`` or ``detail/half.cuh`` where its folder is plain), or a file
of the repository (``tests/_layers.py``). ``EXAMPLES`` are the files a recipe of the
page would add.

Nothing is imported; the checks run on any tree and page (``check_*(root, text)``), and
the tests at the end run them on small made-up ones, so that each is seen to fail where
it must.
"""

from __future__ import annotations

import re
from pathlib import Path

from tests.test_architecture import _report

REPO = Path(__file__).resolve().parents[1]
ROOT = REPO / "xstride"
PAGE = REPO / "docs" / "architecture.md"

MAPPED = (".py", ".cu", ".c", ".cuh")

# Files a recipe of the page names before they exist ("A new shipped header", say
# `xstride/sort.cuh`).
EXAMPLES = frozenset({"sort.cuh", "_kernels/include/xstride/sort.cuh"})

MAX_LINE = 400   # characters: no line of the page may be a wall of text again

_PATH = re.compile(r"[\w.-]+(?:/[\w.-]+)*\.(?:py|cu|c|cuh)")


# ----------------------------------------------------------------------------- reading
def package_files(root: Path) -> list[str]:
    """Every mapped file under ``root`` (the package folder), as its path relative to
    ``root`` (``"_kernels/segments.cu"``)."""
    root = Path(root)
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*")
                  if p.is_file() and p.name.endswith(MAPPED) and "__pycache__" not in p.parts)


#: A fenced code block (``` or ~~~ at a line's start, to the same fence or the end).
_FENCE = re.compile(r"^(`{3,}|~{3,})[^\n]*\n.*?(?:^\1[ \t]*$|\Z)", re.M | re.S)
#: An inline code span: a run of backticks, text, the same run (CommonMark's rule).
_SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)", re.S)


def code_spans(text: str) -> list[tuple[int, str]]:
    """``(line, span)`` for each inline code span of a Markdown ``text``, opened and
    closed by the same run of backticks (```` ``a`b`` ````), outside fenced code
    blocks (blanked first, their lines kept); a span may run over a line break, which
    reads as a space, and one of two or more backticks drops one blank at each end."""
    text = _FENCE.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    out = []
    for m in _SPAN.finditer(text):
        span = m.group(2).replace("\n", " ")
        if len(m.group(1)) > 1 and span.startswith(" ") and span.endswith(" ") and span.strip():
            span = span[1:-1]
        out.append((text.count("\n", 0, m.start()) + 1, span))
    return out


def named_files(text: str, package: str = "xstride") -> list[tuple[int, str, str]]:
    """``(line, span, path)`` for each code span that names a mapped file: ``path`` is the
    span cut at its first ``:`` and without a leading ``xstride/``."""
    out = []
    for line, span in code_spans(text):
        path = span.split(":", 1)[0].strip()
        if path.startswith(package + "/"):
            path = path[len(package) + 1:]
        if _PATH.fullmatch(path):
            out.append((line, span, path))
    return out


# ----------------------------------------------------------------------------- the checks
def check_unmapped(root: Path, text: str) -> list[str]:
    """Files of the package whose path relative to ``root`` is no code span of ``text``."""
    root = Path(root)
    spans = {span for _, span in code_spans(text)}
    return [f"{root.name}/{rel}: not on the map (give it a bullet `{rel}` in its layer's "
            "section)"
            for rel in package_files(root)
            if rel not in spans and f"{root.name}/{rel}" not in spans]


def check_stale(root: Path, text: str, repo: Path | None = None,
                page: str = "docs/architecture.md") -> list[str]:
    """Code spans of ``text`` that name a mapped file which exists neither in the package
    (the path itself or as the end of a path) nor in the repository ``repo``."""
    root = Path(root)
    repo = Path(repo) if repo is not None else root.parent
    files = package_files(root)
    problems = []
    for line, span, path in named_files(text, root.name):
        if path in EXAMPLES or path in files or any(f.endswith("/" + path) for f in files):
            continue
        if (repo / span.split(":", 1)[0].strip()).is_file():
            continue
        problems.append(f"{page}:{line}: `{span}` names no file of {root.name}/ "
                        "(gone or moved: update the map)")
    return problems


def check_line_lengths(text: str, limit: int = MAX_LINE,
                       page: str = "docs/architecture.md") -> list[str]:
    """Lines of ``text`` longer than ``limit`` characters."""
    return [f"{page}:{i}: {len(line)} characters (at most {limit})"
            for i, line in enumerate(text.split("\n"), 1) if len(line) > limit]


# ------------------------------------------------------------------------- on xstride
def test_every_file_of_the_package_is_on_the_map():
    problems = check_unmapped(ROOT, PAGE.read_text(encoding="utf-8"))
    assert not problems, _report("files of xstride/ that docs/architecture.md does not "
                                 "name by their path relative to xstride/", problems)


def test_every_file_the_map_names_exists():
    problems = check_stale(ROOT, PAGE.read_text(encoding="utf-8"), REPO)
    assert not problems, _report("paths in docs/architecture.md that name no file",
                                 problems)


def test_the_map_has_no_wall_of_text():
    problems = check_line_lengths(PAGE.read_text(encoding="utf-8"))
    assert not problems, _report("over-long lines in docs/architecture.md", problems)


def test_the_map_is_read():
    """The checks see the package's files and the page's paths (guards against a check
    passing because nothing was read)."""
    files = package_files(ROOT)
    assert len(files) > 200
    assert {"__init__.py", "__main__.py", "algorithms/__init__.py", "_kernels/segments.cu",
            "_host/philox_host.c", "_kernels/include/xstride/random.cuh"} <= set(files)
    named = {path for _, _, path in named_files(PAGE.read_text(encoding="utf-8"))}
    assert {"_backends/dask_fixes.py", "algorithms/segments.py", "_kernels/segments.cu",
            "layout.py"} <= named


# ------------------------------------------------------------------- on made-up trees
def make_tree(tmp_path: Path, files: list[str]) -> Path:
    """A package ``xstride`` under ``tmp_path`` with empty ``files``, and a
    ``__pycache__`` file that no check may see."""
    root = tmp_path / "xstride"
    for rel in [*files, "__pycache__/x.cpython-312.pyc", "_kernels/__pycache__/y.py"]:
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("")
    return root


FILES = ["__init__.py", "views.py", "algorithms/__init__.py", "algorithms/sort.py",
         "_kernels/__init__.py", "_kernels/segments.py", "_kernels/segments.cu",
         "_kernels/include/xstride/detail/half.cuh", "_host/philox_host.c"]

PAGE_TEXT = """# Map

| layer | where |
|---|---|
| public | `xstride/__init__.py` |

- `__init__.py`: the namespace; `views.py`: views.
- `algorithms/__init__.py`: Morton; `algorithms/sort.py`: `sort_by_key`
  (`sort.py:sort_by_key`).
- `_kernels/__init__.py`, `_kernels/segments.py` (+ `segments.cu`),
  `xstride/_kernels/segments.cu`, `_kernels/include/xstride/detail/half.cuh`
  (`detail/half.cuh`), `_host/philox_host.c`.
- Recipe: say `xstride/sort.cuh`, a new `_backends/<name>.py`, `include/xstride/*.cuh`.
"""


def test_a_tree_on_its_map_passes(tmp_path):
    root = make_tree(tmp_path, FILES)
    assert check_unmapped(root, PAGE_TEXT) == []
    assert check_stale(root, PAGE_TEXT) == []
    assert package_files(root) == sorted(FILES)   # __pycache__ not read


def test_a_file_added_without_the_map_fails(tmp_path):
    root = make_tree(tmp_path, [*FILES, "_backends/new_fix.py", "_kernels/new.cu",
                                "rng/__init__.py"])
    assert check_unmapped(root, PAGE_TEXT) == [
        "xstride/_backends/new_fix.py: not on the map (give it a bullet "
        "`_backends/new_fix.py` in its layer's section)",
        "xstride/_kernels/new.cu: not on the map (give it a bullet `_kernels/new.cu` in "
        "its layer's section)",
        "xstride/rng/__init__.py: not on the map (give it a bullet `rng/__init__.py` in "
        "its layer's section)"]


def test_a_bare_name_or_a_folder_is_no_entry(tmp_path):
    """The rule is the path relative to ``xstride/``: ``sort.py`` alone or the folder
    ``algorithms/`` does not put ``algorithms/sort.py`` or its ``__init__.py`` on the map."""
    root = make_tree(tmp_path, ["algorithms/__init__.py", "algorithms/sort.py"])
    text = "- `algorithms/`: `__init__.py`, `sort.py`\n"
    assert [p.split(":")[0] for p in check_unmapped(root, text)] == [
        "xstride/algorithms/__init__.py", "xstride/algorithms/sort.py"]


def test_a_file_removed_from_the_tree_but_not_the_map_fails(tmp_path):
    root = make_tree(tmp_path, [f for f in FILES
                                if f not in ("algorithms/sort.py", "_kernels/segments.cu")])
    problems = check_stale(root, PAGE_TEXT)
    assert [p.split(": ", 1)[0] for p in problems] == [
        "docs/architecture.md:8", "docs/architecture.md:9", "docs/architecture.md:10",
        "docs/architecture.md:11"]
    assert "`algorithms/sort.py`" in problems[0] and "`sort.py:sort_by_key`" in problems[1]
    assert "`segments.cu`" in problems[2]
    assert "`xstride/_kernels/segments.cu`" in problems[3]


def test_a_path_outside_the_package_counts_where_it_exists(tmp_path):
    root = make_tree(tmp_path, ["__init__.py"])
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "_layers.py").write_text("")
    text = "`__init__.py`; `tests/_layers.py`; `tests/gone.py`; `benchmarks/layers.py`\n"
    assert [p.split("`")[1] for p in check_stale(root, text, tmp_path)] == [
        "tests/gone.py", "benchmarks/layers.py"]


def test_a_wall_of_text_fails():
    text = "short\n" + "| row | " + "x" * 500 + " |\n" + "y" * 400 + "\n"
    assert check_line_lengths(text) == ["docs/architecture.md:2: 510 characters (at most "
                                        "400)"]


def test_spans_after_a_fence_or_a_double_backtick_span_are_read():
    """A review: after a fenced block or a ``double-backtick`` span the backtick pairs
    were read off by one (``b.py`` and ``c.py`` below were lost, text between spans
    taken for one), so a later unmapped file would fail spuriously and a stale path
    pass unseen."""
    text = ("- `a.py`\n```python\nx = `1`\n```\n- `b.py`: text and `c.py`: more\n"
            "- ``d`e.py`` and `f.py`\n")
    assert code_spans(text) == [(1, "a.py"), (5, "b.py"), (5, "c.py"), (6, "d`e.py"),
                                (6, "f.py")]
