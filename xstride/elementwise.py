"""The engine's elementwise functions of the namespace: ``add``, ``subtract``,
``multiply``, ``divide``, ``maximum``, ``minimum``, the comparisons, the bitwise and
logical functions, ``negative``, ``positive``, ``abs``, ``square``, ``where`` and
``astype`` (array API standard, "Element-wise functions").

Each takes the xstride extension ``out=`` (an existing array of the inputs' backend;
it may be an input, so ``add(x, y, out=x)`` is an in-place update with NumPy's answer
for overlapping views). On CuPy arrays they run on xstride's elementwise engine
(docs/elementwise.md); on NumPy arrays they are NumPy's ufuncs. The list of functions
is one table, ``xstride._core.ufuncs.ENGINE_UFUNCS``; each backend's elementwise
executor implements it.
"""

from __future__ import annotations

from . import _backends
from ._backends import dispatch
from ._core.ufuncs import ENGINE_UFUNCS

__all__: list[str] = []

#: The functions this module puts on the engine.
FUNCTIONS = tuple(ENGINE_UFUNCS) + ("where", "astype")


def _register() -> None:
    for be in _backends.each():
        ex = be.executor("elementwise")
        if ex is not None:
            dispatch.register_all(be, ex.FUNCTIONS, getattr(ex, "POSITIONAL", None))


_register()
