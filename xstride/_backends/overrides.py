"""Imports the modules that register xstride's own implementations.

Each module listed here calls :func:`xstride._backends.dispatch.register` at import time for
the functions it implements (for example the elementwise engine and the reductions
on CuPy arrays). None of them may import CuPy at import time.
"""

from . import (
    fixes as _fixes,
    complex_special as _complex_special,
    linalg_fixes as _linalg_fixes,
)  # noqa: F401,E402  (conformance fixes)
import xstride._host.elementwise, xstride._kernels.elementwise  # noqa: F401,E402  (issue 3: out= on NumPy; the elementwise engine on CuPy)
import xstride._kernels.reductions, xstride._kernels.scans  # noqa: F401,E402  (issue 5: reductions and scans on CuPy)
import xstride.reductions  # noqa: F401,E402  (their argument checks on NumPy)
