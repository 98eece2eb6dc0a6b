"""Trace one call through xstride's layers, hop by hop, and count the moves between layers.

    python benchmarks/layers.py sum_axis0 --backend cupy
    python benchmarks/layers.py add
    python benchmarks/layers.py "xp.multiply(a, 2.0)" --backend numpy
    python benchmarks/layers.py

The call is a built-in case (``add``, ``sum_axis0``, ``philox_uniform``) or Python
source evaluated with ``xp``, ``np`` and arrays of the chosen backend in scope: ``a``,
``b`` (1-D float64), ``x`` (2-D float64), ``seed`` (an int), ``stream``, ``counter``
(1-D uint64); without a case (as ``python -m xstride bench`` runs it) each built-in
case is traced in turn. It runs twice, the first call and a repeat call, each under
``sys.setprofile``: every 'call' event of a Python function whose file is under
``xstride/`` is one line ``layer file:function`` (indented by its depth in xstride's
frames). A *move* is a call whose layer differs from its caller's: the caller is the
nearest xstride frame up the stack; frames outside xstride (NumPy, CuPy, the standard
library) are transparent, and the entry from user code is no move. Moved lines start
with ``>`` and end with ``<- caller's layer``. The shared core (``xstride/_core``: the
error helper, the name and dtype tables, the size rule) is the base every layer may
import, not a layer of the stack: a call into it is no move, and its frames are
transparent (``TRANSPARENT`` in ``tests/_layers.py``).

Layers come from ``tests/_layers.py``, the table that tests/test_architecture.py
checks the imports against. XSTRIDE_BENCH_QUICK=1 makes the arrays small.
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from tests._layers import TRANSPARENT, layer_of  # noqa: E402

CASES = {
    "add": "xp.add(a, b)",
    "sum_axis0": "xp.sum(x, axis=0)",
    "philox_uniform": "xp.rng.philox_uniform(seed, stream, counter)",
}


@dataclass(frozen=True)
class Hop:
    depth: int          # xstride frames above this one
    layer: str
    where: str          # "xstride/_backends/dispatch.py:sum"
    moved_from: str | None   # the caller's layer when it differs (a move), else None


def trace(fn, pkg_dir: str | os.PathLike) -> tuple[object, list[Hop]]:
    """Run ``fn()`` under ``sys.setprofile``; return (its result, the hops through the
    package in folder ``pkg_dir``)."""
    pkg_dir = os.path.realpath(pkg_dir)
    prefix = pkg_dir + os.sep
    shown = os.path.basename(pkg_dir)
    places: dict[str, tuple[str, str] | None] = {}
    hops: list[Hop] = []

    def place(code):
        f = code.co_filename
        try:
            return places[f]
        except KeyError:
            pass
        real = os.path.realpath(f)
        if real.startswith(prefix):
            rel = real[len(prefix):].replace(os.sep, "/")
            got = (f"{shown}/{rel}", layer_of(rel) or "?")
        else:
            got = None
        places[f] = got
        return got

    def profile(frame, event, arg):
        if event != "call":
            return
        me = place(frame.f_code)
        if me is None:
            return
        caller, depth, up = None, 0, frame.f_back
        while up is not None:
            p = place(up.f_code)
            if p is not None:
                if caller is None and p[1] not in TRANSPARENT:
                    caller = p
                depth += 1
            up = up.f_back
        func = getattr(frame.f_code, "co_qualname", frame.f_code.co_name)
        moved = caller[1] if (caller is not None and caller[1] != me[1]
                              and me[1] not in TRANSPARENT) else None
        hops.append(Hop(depth, me[1], f"{me[0]}:{func}", moved))

    sys.setprofile(profile)
    try:
        result = fn()
    finally:
        sys.setprofile(None)
    return result, hops


def moves(hops: list[Hop]) -> int:
    return sum(h.moved_from is not None for h in hops)


def format_hops(hops: list[Hop]) -> list[str]:
    lines = []
    for h in hops:
        mark = ">" if h.moved_from else " "
        tail = f"  <- {h.moved_from}" if h.moved_from else ""
        lines.append(f"{mark} {h.layer:<9}{'  ' * h.depth}{h.where}{tail}")
    return lines


def scope(backend: str, n: int) -> dict:
    """``xp``, ``np`` and the case arrays on ``backend`` (made before tracing)."""
    import numpy as np

    import xstride as xp

    with xp.use_backend(backend):
        return {
            "xp": xp, "np": np,
            "a": xp.asarray(np.linspace(0.0, 1.0, n)),
            "b": xp.asarray(np.linspace(1.0, 2.0, n)),
            "x": xp.asarray(np.arange(n * 16, dtype=np.float64).reshape(n, 16)),
            "seed": 12345,
            "stream": xp.asarray(np.arange(n, dtype=np.uint64)),
            "counter": xp.asarray(np.arange(n, dtype=np.uint64) * 7),
        }


def _sync(backend: str) -> None:
    if backend != "numpy":
        import cupy

        cupy.cuda.get_current_stream().synchronize()


def run(case: str, backend: str = "numpy", n: int | None = None, out=print) -> dict:
    """Trace ``case`` (a name of CASES or Python source) twice; print the hops of each
    call and the counts; return ``{"first": (calls, moves), "repeat": (calls, moves)}``."""
    import xstride as xp

    if n is None:
        n = 64 if os.environ.get("XSTRIDE_BENCH_QUICK") == "1" else 4096
    source = CASES.get(case, case)
    code = compile(source, "<case>", "eval")
    env = scope(backend, n)
    pkg_dir = Path(xp.__file__).resolve().parent
    out(f"# {source}  (backend {backend}, n={n})")
    counts = {}
    for label in ("first", "repeat"):
        with xp.use_backend(backend):
            _, hops = trace(lambda: eval(code, env), pkg_dir)
        _sync(backend)
        out(f"## {label} call")
        for line in format_hops(hops):
            out(line)
        counts[label] = (len(hops), moves(hops))
        out(f"{label} call: {len(hops)} calls, {moves(hops)} moves")
    return counts


def _device_rows(backend: str) -> None:
    """For ``--backend cupy`` without a device: one line and exit 0, as the GPU-only
    scripts (the NumPy rows need none)."""
    if backend == "cupy":
        from _common import require_device

        require_device("layers")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("case", nargs="?", default=None,
                    help=f"one of {', '.join(CASES)}, or Python source of one call "
                         "(default: each built-in case in turn)")
    ap.add_argument("--backend", default="numpy", help="numpy (default) or cupy")
    ap.add_argument("--n", type=int, default=None, help="length of the case arrays")
    args = ap.parse_args(argv)
    _device_rows(args.backend)
    for case in (CASES if args.case is None else [args.case]):
        run(case, args.backend, args.n)
    return 0


if __name__ == "__main__":
    sys.exit(main())
