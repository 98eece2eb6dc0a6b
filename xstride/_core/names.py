"""The array API standard's names (version 2025.12), grouped as the standard groups them.

One table, read by the namespace (``xstride/__init__.py``) and checked against the
public API by ``tests/test_namespace.py``. Source: the signature stubs of
data-apis/array-api, ``src/array_api_stubs/_2025_12/*.py``, ``__all__`` of each file.
"""

API_VERSION = "2025.12"

CONSTANTS = ("e", "inf", "nan", "newaxis", "pi")

DTYPES = (
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float32", "float64", "complex64", "complex128",
)

#: Creation functions that take no array: they run on the active backend.
CREATION = ("arange", "asarray", "empty", "eye", "full", "linspace", "ones", "zeros")

#: The elementwise functions ("Element-wise functions" of the standard).
ELEMENTWISE = (
    "abs", "acos", "acosh", "add", "asin", "asinh", "atan", "atan2", "atanh",
    "bitwise_and", "bitwise_left_shift", "bitwise_invert", "bitwise_or",
    "bitwise_right_shift", "bitwise_xor", "ceil", "clip", "conj", "copysign", "cos",
    "cosh", "divide", "equal", "exp", "expm1", "floor", "floor_divide", "greater",
    "greater_equal", "hypot", "imag", "isfinite", "isinf", "isnan", "less",
    "less_equal", "log", "log1p", "log2", "log10", "logaddexp", "logical_and",
    "logical_not", "logical_or", "logical_xor", "maximum", "minimum", "multiply",
    "negative", "nextafter", "not_equal", "positive", "pow", "real", "reciprocal",
    "remainder", "round", "sign", "signbit", "sin", "sinh", "square", "sqrt",
    "subtract", "tan", "tanh", "trunc",
)

#: Everything else takes arrays (or dtypes) and follows them.
FUNCTIONS = (
    # creation functions that take an array
    "empty_like", "from_dlpack", "full_like", "meshgrid", "ones_like", "tril", "triu",
    "zeros_like",
    # data type functions
    "astype", "can_cast", "finfo", "iinfo", "isdtype", "result_type",
    # elementwise
    *ELEMENTWISE,
    # indexing
    "take", "take_along_axis",
    # linear algebra
    "matmul", "matrix_transpose", "tensordot", "vecdot",
    # manipulation
    "broadcast_arrays", "broadcast_shapes", "broadcast_to", "concat", "expand_dims",
    "flip", "moveaxis", "permute_dims", "repeat", "reshape", "roll", "squeeze",
    "stack", "tile", "unstack",
    # searching
    "argmax", "argmin", "count_nonzero", "nonzero", "searchsorted", "where",
    # sets
    "isin", "unique_all", "unique_counts", "unique_inverse", "unique_values",
    # sorting
    "argsort", "sort",
    # statistics
    "cumulative_sum", "cumulative_prod", "max", "mean", "min", "prod", "std", "sum",
    "var",
    # utility
    "all", "any", "diff",
)

LINALG = (
    "cholesky", "cross", "det", "diagonal", "eigh", "eigvalsh", "inv", "matmul",
    "matrix_norm", "matrix_power", "matrix_rank", "matrix_transpose", "outer", "pinv",
    "qr", "slogdet", "solve", "svd", "svdvals", "tensordot", "trace", "vecdot",
    "vector_norm",
    # eig and eigvals: tested for 2025.12 by the conformance suite, absent from the
    # pinned stubs' __all__
    "eig", "eigvals",
)

FFT = (
    "fft", "ifft", "fftn", "ifftn", "rfft", "irfft", "rfftn", "irfftn", "hfft", "ihfft",
    "fftfreq", "rfftfreq", "fftshift", "ifftshift",
)

#: fft functions that take no array (they create one): active backend.
FFT_CREATION = ("fftfreq", "rfftfreq")

#: Functions (outside the elementwise ones, whose operands may be Python scalars) whose
#: first argument the standard types as an array alone: ``x`` of ``reshape``, ``sort``,
#: ``sum``, ``linalg.inv``, ``fft.fft``, ... A list, a tuple or a Python scalar there is
#: refused on every backend (``_backends/no_array.leading_array_error``): NumPy made an
#: array of it, CuPy and dask refuse it. (Not ``isin``, whose ``x1`` the standard's draft
#: after 2025.12 takes as a Python int too.)
ARRAY_FIRST = (
    "empty_like", "full_like", "ones_like", "zeros_like", "tril", "triu", "astype",
    "take", "take_along_axis", "matmul", "matrix_transpose", "tensordot", "vecdot",
    "broadcast_to", "expand_dims", "flip", "moveaxis", "permute_dims", "repeat",
    "reshape", "roll", "squeeze", "unstack", "tile",
    "argmax", "argmin", "count_nonzero", "nonzero", "searchsorted",
    "unique_all", "unique_counts", "unique_inverse", "unique_values",
    "argsort", "sort",
    "cumulative_sum", "cumulative_prod", "max", "mean", "min", "prod", "std", "sum",
    "var", "all", "any", "diff",
    *(f"linalg.{name}" for name in LINALG),
    *(f"fft.{name}" for name in FFT if name not in FFT_CREATION),
)

#: Those of :data:`ARRAY_FIRST` whose second argument is an array alone too.
ARRAY_FIRST_TWO = (
    "take", "take_along_axis", "matmul", "tensordot", "vecdot", "linalg.matmul",
    "linalg.tensordot", "linalg.vecdot", "linalg.cross", "linalg.outer", "linalg.solve",
)
