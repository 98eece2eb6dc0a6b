"""``python -m xstride bench``: runs the scripts of ``benchmarks/`` from a checkout.

A script that sets ``NEEDS_DEVICE = True`` at module level times CuPy only; without
CuPy and a GPU it is skipped (one line says why), which is not a failure. The others
(``overhead``, and the host rows of ``rng`` and ``morton``) run everywhere.
"""

from __future__ import annotations

import ast
import runpy
import sys
from pathlib import Path

_DIR = Path(__file__).resolve().parents[2] / "benchmarks"


def needs_device(path: Path) -> bool:
    """Whether the script ``path`` sets ``NEEDS_DEVICE = True`` (read, not run)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in tree.body:
        if (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name) and node.targets[0].id == "NEEDS_DEVICE"
                and isinstance(node.value, ast.Constant)):
            return node.value.value is True
    return False


def known_names() -> list[str]:
    """The names ``run`` accepts: the scripts of ``benchmarks/`` (empty without a checkout)."""
    if not _DIR.is_dir():
        return []
    # run_all.py is the GPU driver, not a benchmark of its own
    return sorted(p.stem for p in _DIR.glob("*.py")
                  if not p.name.startswith("_") and p.stem != "run_all")


def _device_unavailable():
    """``None`` when CuPy and a device answer, else the reason (one line)."""
    from .._backends.select import load_cupy

    try:
        load_cupy()
    except RuntimeError as exc:
        return str(exc)
    return None


def run(names) -> int:
    """Run the chosen benchmarks (all when ``names`` is empty); returns the exit status."""
    if not _DIR.is_dir():
        print(f"xstride bench: error: benchmarks/ not found beside the package ({_DIR}); "
              "run from a checkout", file=sys.stderr)
        return 2
    scripts = [_DIR / f"{name}.py" for name in known_names()]
    chosen = [p for p in scripts if not names or p.stem in names]
    unknown = set(names) - {p.stem for p in scripts}
    if unknown:
        # a name of no identifier ('', 'sort ', a newline) as its repr: seen, one line
        shown = (n if n.isidentifier() else repr(n) for n in sorted(unknown))
        print(f"xstride bench: error: unknown benchmark(s): {', '.join(shown)}; "
              f"known: {', '.join(p.stem for p in scripts)}", file=sys.stderr)
        return 2
    gpu_only = [p for p in chosen if needs_device(p)]
    reason = _device_unavailable() if gpu_only else None
    if reason is not None:
        print(f"skipped {', '.join(p.stem for p in gpu_only)}: "
              f"{'it needs' if len(gpu_only) == 1 else 'they need'} CuPy and a GPU ({reason})",
              flush=True)
        chosen = [p for p in chosen if p not in gpu_only]
    # the scripts import their shared helpers (benchmarks/_common.py) by name
    if str(_DIR) not in sys.path:
        sys.path.insert(0, str(_DIR))
    failed = []
    for path in chosen:
        print(f"== {path.stem} ==", flush=True)
        sys.argv = [str(path)]
        try:
            runpy.run_path(str(path), run_name="__main__")
        except SystemExit as exc:
            if exc.code not in (0, None):
                failed.append(path.stem)
        except Exception as exc:  # one broken benchmark must not hide the others
            print(f"{path.stem}: failed: {type(exc).__name__}: {exc}")
            failed.append(path.stem)
    if failed:
        print(f"failed: {', '.join(failed)}")
    return 1 if failed else 0
