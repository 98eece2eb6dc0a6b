"""The engine's elementwise functions: one table, from which the NumPy executor (which
adds ``out=``) and the CUDA executor (which generates kernels) both derive.

``ENGINE_UFUNCS[name] = (arity, C++ expression over the loop-typed inputs {0}, {1})``;
``NUMPY_UFUNC`` names the NumPy ufunc whose dtype rules (``ufunc.resolve_dtypes``, NEP
50 weak scalars) each function follows, where its name differs from the standard's.
"""

from __future__ import annotations

__all__ = ["ENGINE_UFUNCS", "NUMPY_UFUNC", "numpy_ufunc_name"]

ENGINE_UFUNCS: dict[str, tuple[int, str]] = {
    "add": (2, "{0} + {1}"),
    "subtract": (2, "{0} - {1}"),
    "multiply": (2, "{0} * {1}"),
    "divide": (2, "{0} / {1}"),
    "maximum": (2, "xstride_max({0}, {1})"),
    "minimum": (2, "xstride_min({0}, {1})"),
    "equal": (2, "xstride_eq({0}, {1})"),
    "not_equal": (2, "!xstride_eq({0}, {1})"),
    "less": (2, "xstride_lt({0}, {1})"),
    "less_equal": (2, "(xstride_lt({0}, {1}) || xstride_eq({0}, {1}))"),
    "greater": (2, "xstride_lt({1}, {0})"),
    "greater_equal": (2, "(xstride_lt({1}, {0}) || xstride_eq({0}, {1}))"),
    "bitwise_and": (2, "{0} & {1}"),
    "bitwise_or": (2, "{0} | {1}"),
    "bitwise_xor": (2, "{0} ^ {1}"),
    "logical_and": (2, "((bool){0} && (bool){1})"),
    "logical_or": (2, "((bool){0} || (bool){1})"),
    "logical_xor": (2, "((bool){0} != (bool){1})"),
    "negative": (1, "-{0}"),
    "positive": (1, "{0}"),
    "abs": (1, "xstride_abs({0})"),
    "square": (1, "{0} * {0}"),
}

#: Standard name -> NumPy ufunc name, where they differ.
NUMPY_UFUNC = {"abs": "absolute", "bitwise_invert": "invert"}


def numpy_ufunc_name(name: str) -> str:
    """The NumPy ufunc that implements the standard's ``name``."""
    return NUMPY_UFUNC.get(name, name)
