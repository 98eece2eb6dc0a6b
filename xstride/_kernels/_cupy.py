"""CuPy as the CUDA executors reach it: the module the caller has already imported.

An executor only ever runs on CuPy arrays, so CuPy is in ``sys.modules`` by then;
nothing in ``xstride._kernels`` imports CuPy itself (DESIGN.md, "Layers").
"""

from __future__ import annotations

import sys

from .._core.errors import error


def cupy():
    """The imported ``cupy`` module.

    Raises
    ------
    RuntimeError
        CuPy has not been imported (an executor was reached without CuPy arrays).
    """
    try:
        return sys.modules["cupy"]
    except KeyError:
        raise error(RuntimeError, "xstride._kernels", "CuPy is not imported; the CUDA executors "
                                    "run only on CuPy arrays (select the CuPy backend or pass "
                                    "CuPy arrays)") from None
