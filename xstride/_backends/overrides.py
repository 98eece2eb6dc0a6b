"""Imports the array-API fixes of the backends' ``array_api_compat`` namespaces.

Each module listed here registers, at import time, the functions where
``array_api_compat`` differs from the standard (``fixes``: finfo, floor_divide,
remainder, -0.0 fills; ``complex_special``; ``linalg_fixes``; ``dask_fixes``: the
dask backend's creation functions and the functions dask lacks). None of them imports
CuPy at import time. xstride's own implementations (the elementwise engine, the
reductions and scans) are registered by the public modules ``xstride.elementwise``
and ``xstride.reductions``.
"""

from . import complex_special, dask_fixes, fixes, linalg_fixes  # noqa: F401  (they register)
