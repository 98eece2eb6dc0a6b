"""``python -m xstride info --kernels``: the kernels a short, representative workload
compiles on first use, with their compile times.

The workload runs on one backend (the active one, or ``--backend``) over an ``(n, 3)``
float64 array of Philox uniforms, ``n = 100,000``: a few elementwise functions,
``sum``/``max`` over axis 1 and axis 0, ``cumulative_sum`` over axis 0 and of one
column, and Morton keys. Each step is timed between two synchronisations of the
backend, with the compiles recorded during it apart (``xstride.cuda.compile_stats``).
On dask, which builds graphs lazily, each step persists its result, and the work, the
compiles and the synchronisations are those of its chunks' backend.
On a backend that compiles no kernels (NumPy) the table says so. See
``docs/performance.md`` ("Cold start").
"""

from __future__ import annotations

import json

from .. import _backends
from .timing import timed_step, watch_compiles

__all__ = ["WORKLOAD_ROWS", "KernelsError", "collect", "run"]

#: Rows of the workload's (n, 3) array.
WORKLOAD_ROWS = 100_000


class KernelsError(Exception):
    """A user error of ``info --kernels`` (an unavailable backend): one line, status 2."""


def _steps(xp, am, n: int, finish=lambda r: r):
    """(name, function) of each workload step; later steps read ``state["x"]``. Each
    step's result goes through ``finish`` (on dask: ``persist``, so that the step
    computes what it builds and later steps read ``x`` computed once)."""
    alg = xp.algorithms
    state = {}

    def positions():
        counters = am.arange(n, dtype=am.uint64)[:, None]
        streams = am.arange(3, dtype=am.uint64)[None, :]
        state["x"] = finish(xp.rng.philox_uniform(0, streams, counters))
        return state["x"]

    def x():
        return state["x"]

    return [
        ("philox_uniform -> (n, 3) float64", positions),
        ("add (n, 3) + (3,)", lambda: finish(xp.add(x(), x()[0]))),
        ("multiply (n, 3) * scalar", lambda: finish(xp.multiply(x(), 2.0))),
        ("greater (n, 3) > scalar", lambda: finish(xp.greater(x(), 0.5))),
        ("astype float32", lambda: finish(xp.astype(x(), xp.float32))),
        ("sum axis=1", lambda: finish(xp.sum(x(), axis=1))),
        ("max axis=1", lambda: finish(xp.max(x(), axis=1))),
        ("sum axis=0", lambda: finish(xp.sum(x(), axis=0))),
        ("max axis=0", lambda: finish(xp.max(x(), axis=0))),
        ("cumulative_sum axis=0", lambda: finish(xp.cumulative_sum(x(), axis=0))),
        ("cumulative_sum of a column", lambda: finish(xp.cumulative_sum(x()[:, 0]))),
        ("morton_keys 3-D, 10 levels",
         lambda: finish(alg.morton_keys(x(), [0.0, 0.0, 0.0], [1.0, 1.0, 1.0], 10))),
    ]


def collect(backend: str | None = None) -> dict:
    """Run the workload and return what ``info --kernels --json`` prints.

    Parameters
    ----------
    backend : str, optional
        Backend name (default: the active backend). The workload's array has
        :data:`WORKLOAD_ROWS` rows.

    Returns
    -------
    dict
        ``backend``; ``compiles_kernels`` (bool); ``cupy_compiles_recorded`` (whether
        CuPy's own compiles are in the record, besides xstride's); ``rows``;
        ``steps`` [{name, seconds, run_seconds, compile_seconds, kernels_compiled}];
        ``kernels`` [{name, source, options, seconds, device, kind}] in compile order;
        ``total`` {seconds, run_seconds, compile_seconds, kernels_compiled}.

    Raises
    ------
    KernelsError
        The backend is unknown or cannot be loaded (the message says why).
    """
    import xstride as xp

    n = WORKLOAD_ROWS
    try:
        name = _backends.active().name if backend is None else backend
        be = _backends.get(name)
        am = be.load()
    except KeyError:
        raise KernelsError(f"--backend must be one of {', '.join(_backends.names())}; "
                           f"got {backend!r}") from None
    except RuntimeError as exc:   # an unavailable backend (also one XSTRIDE_BACKEND names)
        raise KernelsError(str(exc)) from None
    steps = []
    with xp.use_backend(name):
        # a lazy backend (dask) runs nothing until asked: each step persists its result,
        # and the work, the compiles and the synchronisation are its chunks' backend's
        # (a step timed the building of its graph, and a dask of CuPy chunks was said
        # to compile no kernels)
        lazy = be.immutable and hasattr(be, "chunk_backend")
        work = be.chunk_backend() if lazy else be
        watched = watch_compiles(work)
        first = len(xp.cuda.compiled_kernels())
        finish = (lambda r: r.persist()) if lazy else (lambda r: r)
        for label, fn in _steps(xp, am, n, finish):
            _, t = timed_step(work.synchronize, fn)
            steps.append({"name": label, **t.as_dict()})
    kernels = [k._asdict() for k in xp.cuda.compiled_kernels()[first:]]
    total = {key: sum(s[key] for s in steps)
             for key in ("seconds", "run_seconds", "compile_seconds", "kernels_compiled")}
    return {"backend": name, "chunk_backend": work.name if lazy else None,
            "compiles_kernels": bool(work.compiles_kernels),
            "cupy_compiles_recorded": watched, "rows": n, "steps": steps,
            "kernels": kernels, "total": total}


def _table(res: dict) -> str:
    lines = [f"kernels compiled by a short workload on {res['backend']} "
             f"((n, 3) float64, n = {res['rows']:,})", ""]
    if not res["compiles_kernels"]:
        chunks = res.get("chunk_backend")   # a lazy backend's: its chunks' library's
        whose = (f"its chunks are {chunks} arrays, whose functions are that library's "
                 "compiled loops" if chunks else
                 "its functions are the library's own compiled loops")
        lines.append(f"  the {res['backend']} backend compiles no kernels ({whose})")
        lines.append("")
    lines.append(f"  {'step':<34} {'run s':>9} {'compile s':>10} {'kernels':>8}")
    for s in res["steps"]:
        lines.append(f"  {s['name']:<34} {s['run_seconds']:9.4f} {s['compile_seconds']:10.4f} "
                     f"{s['kernels_compiled']:8d}")
    tot = res["total"]
    lines.append(f"  {'total':<34} {tot['run_seconds']:9.4f} {tot['compile_seconds']:10.4f} "
                 f"{tot['kernels_compiled']:8d}")
    if res["kernels"]:
        lines += ["", f"  {'seconds':>8}  {'kind':<7} {'source':<22} kernel"]
        for k in res["kernels"]:
            lines.append(f"  {k['seconds']:8.4f}  {k['kind']:<7} {k['source']:<22} {k['name']}")
    if res["compiles_kernels"]:
        lines.append("")
        lines.append("  seconds of a compile include a load from CuPy's on-disk cache "
                     "(CUPY_CACHE_DIR); a fresh cache folder makes each one a real compile")
        if not res["cupy_compiles_recorded"]:
            lines.append("  CuPy's own compiles (operators on CuPy arrays) are not recorded by "
                         "this CuPy: they count as run time")
    return "\n".join(lines)


def run(backend: str | None = None, json_output: bool = False) -> int:
    """Entry point of ``python -m xstride info --kernels``; returns the exit status."""
    import sys

    try:
        res = collect(backend)
    except KernelsError as exc:
        print(f"xstride info: error: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(res, indent=2) if json_output else _table(res), flush=True)
    return 0
