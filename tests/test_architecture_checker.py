"""The checker of tests/test_architecture.py on made-up trees: a tree that keeps the rules
passes, and each broken rule (a forbidden import, a module in no layer, the command line
imported by the library, an import circle, a private module in the root, a long file, a
backend name outside the backends) fails with its file and line (split from
tests/test_architecture.py, past 600 lines)."""

from __future__ import annotations

from pathlib import Path

from tests._layers import ALLOWED, layer_of
from tests.test_architecture import (CHECKS, _circles, check_all, check_backend_names,
                                     check_circles, check_cli_private, check_layers,
                                     check_lengths, check_root, read_tree)


def make_tree(tmp_path: Path, files: dict[str, str]) -> Path:
    """A package ``xstride`` under ``tmp_path`` with ``files`` (path -> source); every
    folder gets an ``__init__.py``."""
    root = tmp_path / "xstride"
    base = {"__init__.py": "", "__main__.py": "", "layout.py": "", "views.py": "",
            "_core/errors.py": "", "_plans/elementwise.py": "", "_host/philox.py": "",
            "_kernels/elementwise.py": "", "_backends/select.py": "", "_cli/info.py": ""}
    for rel, src in {**base, **files}.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(src)
        for d in p.relative_to(root).parents:
            init = root / d / "__init__.py"
            if not init.exists():
                init.write_text("")
    return root


def test_layer_of_follows_the_table():
    assert layer_of("_core/errors.py") == "core"
    assert layer_of("layout.py") == "plans" and layer_of("_plans/reduction.py") == "plans"
    assert layer_of("_host/philox.py") == "host"
    assert layer_of("_kernels/reductions.py") == "kernels"
    assert layer_of("_backends/__init__.py") == "backends"
    assert layer_of("_cli/demo.py") == "cli" and layer_of("__main__.py") == "cli"
    for public in ("__init__.py", "views.py", "rng/__init__.py", "rng/_args.py",
                   "cuda/_struct.py", "fft.py", "reductions.py"):
        assert layer_of(public) == "public", public
    assert layer_of("_stray.py") is None and layer_of("_misc/x.py") is None


def test_checker_passes_a_tree_that_keeps_the_rules(tmp_path):
    root = make_tree(tmp_path, {
        "__init__.py": "from . import views\nfrom ._backends import select\n",
        "__main__.py": "from ._cli import info\n",
        "views.py": '"""Views on "numpy" or "cupy" arrays."""\nfrom .layout import L\n'
                    "from ._backends.select import get\nfrom ._core import errors\n",
        "layout.py": "from xstride._core.errors import fail\nL = 1\n",
        "_plans/elementwise.py": "from ..layout import L\nfrom .._core import errors\n",
        "_host/philox.py": "import numpy as np\nfrom xstride._plans import elementwise\n",
        "_kernels/elementwise.py": "import sys\n\ndef cp():\n    return sys.modules['cupy']\n"
                                   "from .._plans.elementwise import plan\n",
        "_backends/select.py": "from .._host import philox\nfrom .._kernels import elementwise\n"
                               'NAMES = ("numpy", "cupy", "dask")\n',
        "_cli/info.py": "import xstride\nfrom xstride import views\n",
    })
    assert check_all(root) == {rule: [] for rule in CHECKS}
    # and the imports were seen, relative ones resolved
    targets = {(i.importer, i.target) for i in read_tree(root).imports}
    assert ("xstride._plans.elementwise", "xstride.layout") in targets
    assert ("xstride._plans.elementwise", "xstride._core.errors") in targets
    assert ("xstride.__main__", "xstride._cli.info") in targets


def test_kernels_importing_host_fails_with_file_and_line(tmp_path):
    root = make_tree(tmp_path, {
        "_kernels/elementwise.py": "import numpy\n\n\ndef f():\n"
                                   "    from .._host import philox\n",
        "_kernels/sort.py": "import xstride._host.philox as p\n",
        "_kernels/morton.py": "from xstride import _host\n",
    })
    problems = check_layers(root)
    assert len(problems) == 3, problems
    assert problems[0].startswith("xstride/_kernels/elementwise.py:5: kernels imports host "
                                  "(xstride._host.philox)")
    assert any(p.startswith("xstride/_kernels/sort.py:1: kernels imports host") for p in problems)
    assert any(p.startswith("xstride/_kernels/morton.py:1: kernels imports host (xstride._host)")
               for p in problems)


def test_each_forbidden_pair_fails_and_each_allowed_pair_passes(tmp_path):
    where = {"core": "_core/x.py", "plans": "_plans/x.py", "host": "_host/x.py",
             "kernels": "_kernels/x.py", "backends": "_backends/x.py",
             "public": "views.py", "cli": "_cli/x.py"}
    module = {"core": "xstride._core.errors", "plans": "xstride.layout",
              "host": "xstride._host.philox", "kernels": "xstride._kernels.elementwise",
              "backends": "xstride._backends.select", "public": "xstride.views",
              "cli": "xstride._cli.info"}
    for i, (src, path) in enumerate(where.items()):
        for dst in where:
            d = tmp_path / f"{i}_{dst}"
            d.mkdir()
            root = make_tree(d, {path: f"import {module[dst]}\n"})
            problems = check_layers(root)
            if dst in ALLOWED[src]:
                assert problems == [], (src, dst, problems)
            else:
                assert len(problems) == 1 and f": {src} imports {dst} " in problems[0], \
                    (src, dst, problems)


def test_reaching_a_forbidden_layer_by_path_fails(tmp_path):
    root = make_tree(tmp_path, {
        "_host/philox.py": '"""Includes _kernels headers (a docstring: fine)."""\n'
                           "from pathlib import Path\n"
                           'H = Path(__file__).parent.parent / "_kernels" / "include"\n'
                           'P = "_plans/x"\n',
        "_backends/select.py": 'K = "xstride._kernels.elementwise"\n',
    })
    assert check_layers(root) == [
        "xstride/_host/philox.py:3: host reaches kernels by path ('_kernels')"]


def test_module_in_no_layer_is_reported(tmp_path):
    root = make_tree(tmp_path, {"_misc/stuff.py": ""})
    assert "xstride/_misc/stuff.py: belongs to no layer" in check_layers(root)


def test_cli_imported_from_the_library_fails(tmp_path):
    root = make_tree(tmp_path, {"views.py": "def f():\n    from ._cli import info\n",
                                "_backends/select.py": "import xstride._cli\n"})
    problems = check_cli_private(root)
    assert problems == ["xstride/_backends/select.py:1: imports xstride._cli (only the "
                        "command line may)", "xstride/views.py:2: imports xstride._cli.info "
                        "(only the command line may)"]


def test_circle_is_reported_with_its_hops(tmp_path):
    root = make_tree(tmp_path, {
        "rng/__init__.py": "from ._generator import Philox\n",
        "rng/_generator.py": "def f():\n    from xstride.rng import philox_uniform\n",
        "cuda/_args.py": "from . import _struct\n",
        "cuda/_struct.py": "from ._sig import x\n",
        "cuda/_sig.py": "from xstride.cuda._args import y\n",
    })
    problems = check_circles(root)
    assert problems == [
        "xstride.cuda._args -> xstride.cuda._struct -> xstride.cuda._sig -> xstride.cuda._args"
        "  [xstride/cuda/_args.py:1, xstride/cuda/_struct.py:1, xstride/cuda/_sig.py:1]",
        "xstride.rng -> xstride.rng._generator -> xstride.rng"
        "  [xstride/rng/__init__.py:1, xstride/rng/_generator.py:2]",
    ]
    # breaking one hop removes that circle
    (root / "cuda/_sig.py").write_text("y = 1\n")
    assert len(check_circles(root)) == 1


def test_circles_finds_every_component():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": {"e"}, "e": {"d"}, "f": {"a"}}
    assert _circles(graph) == [["a", "b", "c", "a"], ["d", "e", "d"]]
    assert _circles({"a": {"b"}, "b": set()}) == []


def test_private_module_in_the_root_fails(tmp_path):
    root = make_tree(tmp_path, {"_stray.py": "", "fuse.py": ""})
    assert check_root(root) == ["xstride/_stray.py:1: private module in the package root; "
                                "move it into the folder of its layer"]


def test_long_file_fails(tmp_path):
    root = make_tree(tmp_path, {"views.py": "x = 1\n" * 600, "_kernels/k.cu": "//\n" * 601})
    assert check_lengths(root) == ["xstride/_kernels/k.cu:601: 601 lines (at most 600)"]


def test_backend_names_outside_backends_fail(tmp_path):
    root = make_tree(tmp_path, {
        "_kernels/elementwise.py": (
            '"""Runs on "cupy" arrays (a docstring: fine)."""\n'   # 1
            "import sys\n"                                          # 2
            "cp = sys.modules['cupy']  # 'cupy' in a comment\n"     # 3
            "def f(backend):\n"                                     # 4
            '    """cupy"""\n'                                      # 5
            '    if backend == "CuPy":\n'                           # 6
            "        return 1\n"                                    # 7
            '    return f"{backend}" != f"numpy"\n'                 # 8
            'x = "numpy arrays"\n'                                  # 9
            "y = ['dask']\n"),                                      # 10
        "_backends/select.py": 'NAMES = ("numpy", "cupy", "dask")\n',
    })
    assert check_backend_names(root) == [
        "xstride/_kernels/elementwise.py:6: 'CuPy'",
        "xstride/_kernels/elementwise.py:8: 'numpy'",
        "xstride/_kernels/elementwise.py:10: 'dask'",
    ]
