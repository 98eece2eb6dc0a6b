"""The docstring examples of the pure-Python layers (plans, core, layout, launch
geometry) run as written: an example that no longer holds fails here."""

from __future__ import annotations

import doctest
import importlib

import pytest

#: the modules with examples (a module listed here must have some)
MODULES = ["xstride.layout", "xstride._plans.reduction", "xstride._core.sizes",
           "xstride.algorithms.segments", "xstride._plans.segments",
           "xstride.algorithms.voxels", "xstride.algorithms.tree",
           "xstride.algorithms.sort",
           "xstride._kernels._elementwise_vectors", "xstride._kernels._geometry",
           "xstride._kernels._scan_geometry",
           "xstride._kernels._waves",
           # every other module with examples (a doctest run of the docs found them
           # untested; each passes on the host)
           "xstride._backends.select", "xstride._kernels._colsplit_geometry",
           "xstride._kernels._knobs", "xstride._kernels.reduce_rows",
           "xstride._kernels.var_kernels", "xstride._plans.argreduction",
           "xstride._plans.reduction_split", "xstride._plans.scan",
           "xstride._plans.scan_chunks", "xstride.algorithms",
           # (not xstride.cuda._record: its example shows a fresh process's empty record,
           # which the stand-in CuPy's compiles of other tests fill)
           "xstride.cuda._struct", "xstride.cuda._warm", "xstride.cuda.kernel",
           "xstride.fusion", "xstride.kernel_testing", "xstride.rng._functions",
           "xstride.rng._generator", "xstride.views"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    mod = importlib.import_module(name)
    result = doctest.testmod(mod, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0, f"{name} has no docstring examples"
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples fail"
