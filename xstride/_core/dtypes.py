"""The one dtype <-> C type table of xstride's kernels (pure Python, no NumPy import).

:data:`C_TYPES` maps a NumPy dtype name to the C type the CUDA kernels use for it: the
elementwise engine (``xstride._kernels._elementwise_source``), the reductions and
scans (``xstride._kernels._reduce_common``) and the signature parser of the public
CUDA toolkit (``xstride.cuda._signature``) all derive their tables from it. A dtype
that is not a key here is one the kernels do not handle (the executors hand it to the
library underneath).
"""

from __future__ import annotations

__all__ = ["C_TYPES", "DTYPE_OF_C", "name_of"]

#: NumPy dtype name -> C type (CUDA, LP64: ``long long`` is 64 bits).
C_TYPES = {
    "bool": "bool",
    "int8": "signed char",
    "int16": "short",
    "int32": "int",
    "int64": "long long",
    "uint8": "unsigned char",
    "uint16": "unsigned short",
    "uint32": "unsigned int",
    "uint64": "unsigned long long",
    "float32": "float",
    "float64": "double",
}

#: C type -> NumPy dtype name (the inverse of :data:`C_TYPES`).
DTYPE_OF_C = {c: name for name, c in C_TYPES.items()}

#: dtype -> its name, filled as dtypes are met (NumPy's ``dtype.name`` is a Python
#: property that builds the string: about 4 us a call on the H200's host)
_NAMES: dict = {}


def name_of(dtype) -> str:
    """``dtype.name`` of a NumPy dtype, from a table after its first use."""
    name = _NAMES.get(dtype)
    if name is None:
        name = _NAMES[dtype] = dtype.name
    return name
