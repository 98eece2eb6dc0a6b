"""The engine's elementwise functions: one table, from which the NumPy executor (which
adds ``out=``) and the CUDA executor (which generates kernels) both derive.

``ENGINE_UFUNCS[name] = (arity, C++ expression over the loop-typed inputs {0}, {1})``;
``NUMPY_UFUNC`` names the NumPy ufunc whose dtype rules (``ufunc.resolve_dtypes``, NEP
50 weak scalars) each function follows, where its name differs from the standard's.
"""

from __future__ import annotations

__all__ = ["ENGINE_UFUNCS", "NUMPY_UFUNC", "numpy_ufunc_name", "FUSION_MATH",
           "FUSION_PREDICATES", "IDENTITY_ON_INTEGERS", "NUMPY_OUT_INTO_A_COPY"]

#: The standard's functions whose NumPy ufunc wrote wrong values into an ``out=`` that
#: is neither C- nor F-contiguous: xstride computes them into a new array, then copies
#: it into ``out`` (``_host/elementwise.py``, ``_backends/out_overlap.py``). NumPy 2.4.6
#: on an AVX-512 host: ``negative`` of an input of 16- or 64-byte steps (int32/float32
#: ``x[::4]``, int64/float64 ``x[::8]``) read ``x``'s first elements one after another
#: (``negative(a[::4][:5], out=o[::2][:5])`` gave ``-a[:5]``); ``isfinite`` of float32
#: and float64 input into any such bool ``out`` (``isfinite(arange(1.0, 21.0), out=o[::2])``
#: gave False from the third element on). Every other unary and binary ufunc of NumPy,
#: swept over input steps 1 to 16 and ``out`` steps 2, 3 and -1, wrote NumPy's own
#: answer (tests/test_out_strided_steps.py holds the sweep of the standard's).
NUMPY_OUT_INTO_A_COPY = frozenset({"negative", "isfinite"})

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


#: Functions ``xp.fuse`` compiles besides the engine's, with CuPy's C expression per
#: loop type, so that a fused kernel computes what CuPy's own kernel computes for the
#: unfused call (CuPy's math ufuncs, ``cupy/_core``'s ``create_math_ufunc``: the
#: ``f``-suffixed function on float32 loops, the plain one on float64). Name ->
#: (arity, C function). Loop and result dtypes: NumPy's ufunc of the same name
#: (``NUMPY_UFUNC`` where the names differ); only float32 and float64 loops fuse.
#: ``exp2`` is not here: CuPy computes it as ``pow(2, x)``, not ``exp2f``.
FUSION_MATH: dict[str, tuple[int, str]] = {
    "exp": (1, "exp"), "expm1": (1, "expm1"),
    "log": (1, "log"), "log1p": (1, "log1p"), "log2": (1, "log2"), "log10": (1, "log10"),
    "sqrt": (1, "sqrt"), "sin": (1, "sin"), "cos": (1, "cos"), "tan": (1, "tan"),
    "asin": (1, "asin"), "acos": (1, "acos"), "atan": (1, "atan"),
    "sinh": (1, "sinh"), "cosh": (1, "cosh"), "tanh": (1, "tanh"),
    "asinh": (1, "asinh"), "acosh": (1, "acosh"), "atanh": (1, "atanh"),
    "floor": (1, "floor"), "ceil": (1, "ceil"), "trunc": (1, "trunc"),
    "atan2": (2, "atan2"), "hypot": (2, "hypot"),
}
NUMPY_UFUNC.update({"asin": "arcsin", "acos": "arccos", "atan": "arctan",
                    "asinh": "arcsinh", "acosh": "arccosh", "atanh": "arctanh",
                    "atan2": "arctan2"})
#: Exact predicates ``xp.fuse`` compiles (no rounding, so any correct expression is
#: bit-identical to CuPy's): name -> (arity, C++ expression over the loop-typed input
#: ``{0}``). ``x - x`` is 0 for finite values and NaN for infinities and NaNs.
FUSION_PREDICATES: dict[str, tuple[int, str]] = {
    "isnan": (1, "({0} != {0})"),
    "isinf": (1, "(({0} - {0}) != ({0} - {0}) && {0} == {0})"),
    "isfinite": (1, "(({0} - {0}) == ({0} - {0}))"),
    "logical_not": (1, "(!(bool)({0}))"),
    "signbit": (1, "(signbit({0}) != 0)"),
}
#: Functions that keep an integer or bool input as it is (the standard's rounding
#: functions: ``floor(x)`` of an integer array is ``x``).
IDENTITY_ON_INTEGERS = frozenset({"floor", "ceil", "trunc"})
