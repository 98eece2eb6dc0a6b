"""The layers of xstride and who may import whom: the table of DESIGN.md "Layers" as data.

Shared by ``tests/test_architecture.py`` (which checks the package's imports against
it) and ``benchmarks/layers.py`` (which counts the moves between layers of one call).
Nothing here imports xstride.

Paths are relative to the package folder (``xstride/``): ``"_core/"`` is a folder and
everything below it, ``"layout.py"`` one module.
"""

from __future__ import annotations

from pathlib import PurePosixPath

# Where each layer lives. Every other module or package of the root whose name has no
# leading underscore (views, elementwise, reductions, rng/, algorithms/, cuda/,
# kernel_testing, linalg, fft, ...) is ``public``; a private root module (``_x.py``)
# belongs to no layer (and is an error of its own, see test_architecture).
LAYER_PATHS: dict[str, tuple[str, ...]] = {
    "core": ("_core/",),
    "plans": ("_plans/", "layout.py"),
    "host": ("_host/",),
    "kernels": ("_kernels/",),
    "chunked": ("_chunked/",),
    "backends": ("_backends/",),
    "cli": ("_cli/", "__main__.py"),
    "public": ("__init__.py",),
}
PUBLIC = "public"

# layer -> the layers it may import (itself included)
ALLOWED: dict[str, frozenset[str]] = {
    "core": frozenset({"core"}),
    "plans": frozenset({"plans", "core"}),
    "host": frozenset({"host", "plans", "core"}),
    "kernels": frozenset({"kernels", "plans", "core"}),
    # the dask backend's executors: dask graphs whose tasks call the chunks' own
    # executors, found through hooks the backend layer sets (_chunked/_config.py)
    "chunked": frozenset({"chunked", "plans", "core"}),
    "backends": frozenset({"backends", "host", "kernels", "chunked", "plans", "core"}),
    "public": frozenset({"public", "backends", "plans", "core"}),
    "cli": frozenset({"cli", "public", "backends", "plans", "core"}),
}

# Layers that are no step of the stack (DESIGN.md: "the small shared core (errors,
# names)", imported by every layer): a call into them is no move between layers.
TRANSPARENT = frozenset({"core"})

# Only these may import xstride._cli (the command line is not imported by the library).
CLI_IMPORTERS = ("cli",)

# Backend names: as string literals they may appear only in this layer.
BACKEND_NAMES = frozenset({"numpy", "cupy", "dask"})
BACKEND_NAMES_LAYER = "backends"

MAX_LINES = 600

ROOT_ALLOWED_PRIVATE = frozenset({"__init__.py", "__main__.py"})


def layer_of(relpath: str | PurePosixPath) -> str | None:
    """The layer of a file given by its path relative to the package folder
    (``"_kernels/reductions.py"``), or ``None`` where it belongs to no layer."""
    rel = PurePosixPath(relpath).as_posix()
    for layer, places in LAYER_PATHS.items():
        for place in places:
            if place.endswith("/") and rel.startswith(place):
                return layer
            if rel == place:
                return layer
    top = rel.split("/", 1)[0]
    if not top.startswith("_"):
        return PUBLIC
    return None
