"""Random wrong input to xp.algorithms, xp.cuda, the backend functions, the namespace's
reductions/scans and the engine's elementwise functions with ``out=`` (NumPy backend, CPU).

Every call either succeeds or raises TypeError, ValueError or OverflowError (and, for
the CUDA toolkit without CuPy, RuntimeError saying the device is missing) with a message
that names xstride's function. A raw NumPy / array_api_compat error fails the test.

The rows of ``LEAD_REDUCTIONS`` / ``LEAD_ELEMENTWISE`` (a = np.arange(6.).reshape(2, 3))
are the cases the sweep found in the reductions and elementwise rules (keepdims that is
no bool, unchecked min/max ``axis``, unchecked ``dtype=``, non-numeric ``x``, ``out=``
of a dtype the result cannot be cast to or of a non-numeric dtype, inputs that do not
broadcast with ``out=``, ``astype`` to object/str/record dtypes); each must now raise
xstride's own error.
"""

from __future__ import annotations

import contextlib
import sys
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings, strategies as st

import xstride as xp
from xstride import _backends
from xstride._core.ufuncs import ENGINE_UFUNCS

from .test_bad_input import _call, arrays, junk, scalars

#: A warning (NumPy's ComplexWarning, a RuntimeWarning) means input was taken silently.
pytestmark = pytest.mark.filterwarnings("error")

_ALLOWED = (TypeError, ValueError, OverflowError)
_settings = settings(max_examples=300, deadline=None,
                     suppress_health_check=[HealthCheck.too_slow])


@contextlib.contextmanager
def _no_cupy():
    """CuPy cannot be imported while inside (a fixture cannot serve Hypothesis)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setitem(sys.modules, "cupy", None)
        be = _backends.get("cupy")
        mp.setattr(be, "failure", be.failure)
        mp.setattr(be, "_checked", None)
        yield


# ---------------------------------------------------------------- xp.algorithms
# each sweep also runs one valid call (junk alone never made one succeed, so the checks
# of a result below never ran)
@_settings
@given(lower=junk, upper=junk, levels=junk)
@example(lower=[0.0, -1.0], upper=[2.0, 3.0], levels=3)
def test_morton_scales(lower, upper, levels):
    got = _call("morton_scales", xp.algorithms.morton_scales, lower, upper, levels)
    if isinstance(got, np.ndarray):
        assert got.dtype == np.float64 and np.isfinite(got).all()


@_settings
@given(positions=junk, lower=junk, upper=junk, levels=junk)
@example(positions=np.array([[0.5, 0.25, 1.0], [0.0, 0.0, 0.0]]), lower=[0, 0, 0],
         upper=[1, 1, 1], levels=4)
def test_morton_keys(positions, lower, upper, levels):
    got = _call("morton_keys", xp.algorithms.morton_keys, positions, lower, upper, levels)
    if isinstance(got, np.ndarray):
        assert got.dtype == np.uint64 and got.ndim == 1


@_settings
@given(ix=junk, iy=junk, iz=st.one_of(st.none(), junk),
       levels=st.one_of(st.none(), junk))
def test_morton_encode_decode(ix, iy, iz, levels):
    got = _call("morton_encode", xp.algorithms.morton_encode, ix, iy, iz, levels=levels)
    if isinstance(got, np.ndarray):
        assert got.dtype == np.uint64
        nd = 2 if iz is None else 3
        cells = xp.algorithms.morton_decode(got, nd)
        assert cells.shape == got.shape + (nd,)


@_settings
@given(keys=junk, ndim=junk)
def test_morton_decode(keys, ndim):
    got = _call("morton_decode", xp.algorithms.morton_decode, keys, ndim)
    if isinstance(got, np.ndarray):
        assert got.dtype == np.uint64


@_settings
@given(keys=junk, values=st.lists(junk, max_size=2))
def test_sort_by_key(keys, values):
    got = _call("sort_by_key", xp.algorithms.sort_by_key, keys, *values)
    if isinstance(got, tuple):
        np.testing.assert_array_equal(got[0], np.asarray(keys)[got[1]])


# ---------------------------------------------------------------- xp.cuda
_SRC = ("#include <xstride/array_view.cuh>\nstruct P { int a; float b; };\n"
        "__global__ void k(const float* x, CArray2D<int> c, int n, double d, P p) {}")
_CTYPES = ["int", "unsigned char", "long long", "float", "double", "half", "bool",
           "complex<float>", "complex<double>", "const float*", "Array2D<double>",
           "CArray1D<int>", "unsigned long long", "short"]


@_settings
@given(source=st.one_of(junk, st.just(_SRC)), name=st.one_of(junk, st.just("k")),
       options=st.one_of(st.just(()), junk), include_dirs=st.one_of(st.just(()), junk),
       block=st.one_of(st.just(128), junk), debug=st.one_of(st.none(), junk))
def test_cuda_kernel_constructor(source, name, options, include_dirs, block, debug):
    with _no_cupy():
        _call("CudaKernel", xp.cuda.CudaKernel, source, name, options=options,
              include_dirs=include_dirs, block=block, debug=debug)


@_settings
@given(args=st.lists(junk, max_size=6), n_threads=st.one_of(st.none(), junk),
       grid=st.one_of(st.none(), junk), block=st.one_of(st.none(), junk),
       shared_mem=st.one_of(st.just(0), junk), stream=st.one_of(st.none(), junk))
def test_cuda_kernel_call_without_cupy(args, n_threads, grid, block, shared_mem, stream):
    k = xp.cuda.CudaKernel(_SRC, "k")
    with _no_cupy():
        got = _call("CudaKernel 'k'", k, *args, n_threads=n_threads, grid=grid, block=block,
                    shared_mem=shared_mem, stream=stream,
                    allowed=_ALLOWED + (RuntimeError,))
    if isinstance(got, RuntimeError):
        assert "unavailable" in str(got)


@_settings
@given(name=st.one_of(junk, st.just("S")),
       fields=st.one_of(junk, st.lists(st.tuples(st.one_of(st.just("f"), st.text(max_size=3),
                                                           scalars),
                                                 st.one_of(st.sampled_from(_CTYPES), junk)),
                                       max_size=3)))
def test_cuda_struct_constructor(name, fields):
    _call("CudaStruct", xp.cuda.CudaStruct, name, fields)


@_settings
@given(ctype=st.sampled_from(_CTYPES), value=junk, extra=st.dictionaries(
    st.sampled_from(["v", "w", "x"]), junk, max_size=2))
def test_cuda_struct_values(ctype, value, extra):
    S = xp.cuda.CudaStruct("S", [("v", ctype)])
    with _no_cupy():
        got = _call("CudaStruct 'S'", S, **{"v": value, **extra})
    if not isinstance(got, Exception):
        assert len(got.tobytes()) == S.itemsize


@_settings
@given(in_params=st.one_of(junk, st.sampled_from(["T x, float32 y", "T x", "raw T x",
                                                   "float32 x, float32 x"])),
       out_params=st.one_of(junk, st.sampled_from(["T z", "", "i z", "T _z"])),
       operation=st.one_of(junk, st.just("z = x")), name=st.one_of(junk, st.just("ek")),
       kw=st.dictionaries(st.sampled_from(["preamble", "return_tuple", "reduce_dims",
                                           "bogus"]), junk, max_size=2))
@example(in_params="T x", out_params="T z", operation="z = x", name="ek", kw={})
def test_elementwise_kernel(in_params, out_params, operation, name, kw):
    with _no_cupy():
        got = _call("ElementwiseKernel", xp.cuda.ElementwiseKernel, in_params, out_params,
                    operation, name, allowed=_ALLOWED + (NotImplementedError,), **kw)
        if isinstance(got, xp.cuda.ElementwiseKernel):
            res = _call(got.name, got, *([1.0] * len(got.in_params)),
                        allowed=_ALLOWED + (RuntimeError,))
            assert isinstance(res, Exception)  # no device: never a result


# ---------------------------------------------------------------- backends
@_settings
@given(name=st.one_of(junk, st.sampled_from(["numpy", "NumPy", "cupy", " numpy", "dask"])))
def test_set_and_use_backend(name):
    before = xp.get_backend()
    with _no_cupy():
        got = _call("set_backend", xp.set_backend, name, allowed=_ALLOWED + (RuntimeError,))
        xp.set_backend(before)
        ctx = _call("use_backend", xp.use_backend, name, allowed=_ALLOWED + (RuntimeError,))
    if isinstance(got, RuntimeError) or isinstance(ctx, RuntimeError):
        assert "cupy" in str(got) + str(ctx)
    if not isinstance(ctx, Exception):
        with ctx:
            assert xp.get_backend() == ctx.name == name.lower()
    assert xp.get_backend() == before


@_settings
@given(a=junk, backend=st.one_of(st.none(), junk, st.sampled_from(["numpy", "cupy", "dask"])))
def test_to_device_and_to_numpy(a, backend):
    with _no_cupy():
        got = _call("to_device", xp.to_device, a, backend, allowed=_ALLOWED + (RuntimeError,))
    if isinstance(got, RuntimeError):
        assert backend is not None and "cupy" in str(got)
    got = _call("to_numpy", xp.to_numpy, a)
    if not isinstance(got, Exception):
        assert isinstance(got, np.ndarray)


@_settings
@given(items=st.lists(junk, max_size=3))
def test_get_array_module_and_array_namespace(items):
    _call("get_array_module", xp.get_array_module, *items)
    _call("array_namespace", xp.array_namespace, *items)


# ---------------------------------------------------------------- reductions and scans
_ABSENT = object()
_NUM = [np.int8, np.int32, np.int64, np.uint8, np.uint64, np.float32, np.float64,
        np.complex64, np.bool_]
num_arrays = st.one_of(
    st.sampled_from(_NUM).flatmap(lambda d: st.lists(st.integers(0, 4), max_size=3).map(
        lambda s, d=d: np.ones(tuple(s), d))),
    arrays)
opt = lambda s: st.one_of(st.just(_ABSENT), s)  # noqa: E731
dtypes = st.one_of(st.none(), st.sampled_from([np.float64, np.int8, np.uint64, np.bool_,
                                               np.complex128, "float32", "f8", object,
                                               np.dtype("<U2"), float, int]), junk)
_KW = {
    "sum": ("axis", "dtype", "keepdims"), "prod": ("axis", "dtype", "keepdims"),
    "min": ("axis", "keepdims"), "max": ("axis", "keepdims"), "mean": ("axis", "keepdims"),
    "var": ("axis", "correction", "keepdims"), "std": ("axis", "correction", "keepdims"),
    "cumulative_sum": ("axis", "dtype", "include_initial"),
    "cumulative_prod": ("axis", "dtype", "include_initial"),
}


def _named_error(func, exc):
    """xstride's own error: ``'<func>: ...'`` (not NumPy's text that happens to hold
    the word)."""
    assert str(exc).startswith(f"{func}:"), f"{type(exc).__name__} not xstride's: {exc!r}"




@pytest.mark.filterwarnings("ignore::RuntimeWarning")   # NumPy's "Degrees of freedom <= 0"
@pytest.mark.parametrize("func", list(_KW))
@_settings
@given(data=st.data())
def test_reductions_and_scans(func, data):
    x = data.draw(num_arrays, "x")
    kw = {}
    for k in _KW[func]:
        v = data.draw(opt({"axis": st.one_of(st.none(), junk), "dtype": dtypes,
                           "correction": junk, "keepdims": st.one_of(st.booleans(), junk),
                           "include_initial": st.one_of(st.booleans(), junk)}[k]), k)
        if v is not _ABSENT:
            kw[k] = v
    try:
        with warnings.catch_warnings():   # NumPy's documented numeric warnings (empty
            warnings.simplefilter("ignore", RuntimeWarning)   # slices, 0/0, overflow)
            got = getattr(xp, func)(x, **kw)
    except _ALLOWED as exc:
        _named_error(func, exc)
        return
    if not kw and x.dtype == object:
        # a call without keywords is NumPy's own (the fast path checks nothing): NumPy
        # sums an object array to a Python object; with any keyword xstride refuses it
        with pytest.raises(TypeError, match=f"^{func}: argument 'x'"):
            getattr(xp, func)(x, axis=None)
        return
    assert isinstance(got, (np.ndarray, np.generic))
    if "keepdims" in kw and kw["keepdims"] is True:
        assert np.ndim(got) == x.ndim


# ---------------------------------------------------------------- elementwise with out=
_BINARY = ["add", "subtract", "multiply", "divide", "maximum", "equal", "bitwise_and",
           "logical_and"]
_UNARY = ["negative", "abs", "square", "positive"]


@pytest.mark.parametrize("func", _BINARY + _UNARY + ["where", "astype"])
@_settings
@given(data=st.data())
def test_elementwise_out(func, data):
    operand = st.one_of(num_arrays, scalars)
    if func in _BINARY:
        args = [data.draw(operand, "x1"), data.draw(operand, "x2")]
    elif func == "where":
        args = [data.draw(operand, n) for n in ("condition", "x1", "x2")]
    elif func == "astype":
        args = [data.draw(num_arrays, "x"), data.draw(dtypes, "dtype")]
    else:
        args = [data.draw(operand, "x")]
    # out=None is the library's own call (no xstride rule applies without out=; NumPy's
    # object arrays raise what Python raises, ZeroDivisionError included): not drawn
    out = data.draw(st.one_of(num_arrays, junk.filter(lambda v: v is not None)), "out")
    try:
        with warnings.catch_warnings():   # IEEE arithmetic: inf - inf, overflow
            warnings.filterwarnings("ignore", "invalid value encountered", RuntimeWarning)
            warnings.filterwarnings("ignore", "overflow encountered", RuntimeWarning)
            warnings.filterwarnings("ignore", "divide by zero encountered", RuntimeWarning)
            got = getattr(xp, func)(*args, out=out)
    except _ALLOWED as exc:
        _named_error(func, exc)
        return
    assert got is out


@_settings
@given(device_id=st.one_of(st.none(), junk))
def test_device_properties_without_cupy(device_id):
    with _no_cupy():
        got = _call("device_properties", xp.cuda.device_properties, device_id,
                    allowed=_ALLOWED + (RuntimeError,))
    assert isinstance(got, Exception)
    if isinstance(got, RuntimeError):
        assert "unavailable" in str(got)


# ---------------------------------------------------------------- found (fixed here)
@pytest.mark.parametrize("bound", [[1j, 2.0], np.array([1 + 0j, 2]), ["0", "1"], [True, False],
                                   [b"0", b"1"], [1.0, None], [[1.0], [2.0, 3.0]]])
def test_morton_bounds_must_be_real_numbers(bound):
    """Complex bounds lost their imaginary part (a ComplexWarning), strings and bools
    were read as numbers."""
    with pytest.raises(TypeError, match="morton_scales: argument 'lower'"):
        xp.algorithms.morton_scales(bound, [3.0, 4.0], 4)
    with pytest.raises(TypeError, match="morton_keys: argument 'upper'"):
        xp.algorithms.morton_keys(np.zeros((1, 2)), [0, 0], bound, 4)


def test_morton_bounds_still_take_numbers_of_any_kind():
    want = xp.algorithms.morton_scales([0.0, 0.0], [2.0, 4.0], 3)
    for lo in ([0, 0], np.zeros(2, np.int8), [np.float32(0), 0], np.array([0, 0], object),
               (np.uint64(0), 0.0)):
        np.testing.assert_array_equal(xp.algorithms.morton_scales(lo, [2, 4], 3), want)
    with pytest.raises(ValueError, match="morton_scales: argument 'lower' must be finite"):
        xp.algorithms.morton_scales([-(10**400), 0], [2, 4], 3)


@pytest.mark.parametrize("call,func", [
    (lambda: xp.set_backend("cupy"), "set_backend"),
    (lambda: xp.use_backend("CuPy"), "use_backend"),
    (lambda: xp.to_device(np.zeros(2), "cupy"), "to_device"),
    (lambda: xp.cuda.device_properties(), "device_properties"),
    (lambda: xp.cuda.CudaKernel(_SRC, "k").compile(), "CudaKernel 'k'"),
    (lambda: xp.cuda.ElementwiseKernel("T x", "T z", "z = x", "ek")(1.0), "ek"),
])
def test_a_missing_device_is_reported_by_the_function_called(call, func):
    """RuntimeError("backend 'cupy' is unavailable: ...") named no xstride function."""
    before = xp.get_backend()
    with _no_cupy(), pytest.raises(RuntimeError) as info:
        call()
    assert str(info.value).startswith(f"{func}: backend 'cupy' is unavailable: ")
    assert xp.get_backend() == before


@pytest.mark.parametrize("a", [None, [[1], [2, 3]], object(), {"a": 1}, "abc", b"x",
                               ["a", "b"]])
def test_to_device_names_itself_for_bad_arrays(a):
    """to_device(None) raised "to_numpy: argument 'a' ..."; a ragged list raised NumPy's
    ValueError; a str became a ``<U3`` array (no number in it)."""
    for backend in (None, "numpy", "cupy"):
        with _no_cupy(), pytest.raises(TypeError, match="^to_device: argument 'a'"):
            xp.to_device(a, backend)   # the type is checked before the device
    with pytest.raises(TypeError, match="^to_numpy: argument 'a'"):
        xp.to_numpy(a)


@pytest.mark.parametrize("device_id,exc,match", [
    (True, TypeError, "device_properties: argument 'device_id' got bool"),
    ("0", TypeError, "device_properties: argument 'device_id' got str"),
    (1.0, TypeError, "device_properties: argument 'device_id' got float"),
    (-1, ValueError, "device_properties: argument 'device_id' must be >= 0"),
])
def test_device_properties_checks_its_argument_before_cupy(device_id, exc, match):
    """int('0') and int(1.0) were taken; True was device 1; checks came after CuPy."""
    with _no_cupy(), pytest.raises(exc, match=match):
        xp.cuda.device_properties(device_id)


# ---------------------------------------------------------------- the lead's list
_A = np.arange(6.0).reshape(2, 3)
_REC = np.zeros((2, 3), [("a", "<i2"), ("b", "i1")])
_RED = ("sum", "prod", "min", "max", "mean", "var", "std")

#: (call, exception, start of its message); each fails today (module docstring).
LEAD_REDUCTIONS = (
    [(f"xp.{f}(_A, keepdims={v})", TypeError, f"{f}: argument 'keepdims'")
     for f in _RED for v in ("'yes'", "None", "[1]", "1.0", "1", "0")]
    + [(f"xp.{f}(_A, axis={v})", exc, f"{f}: argument 'axis'") for f in ("min", "max")
       for v, exc in (("5", ValueError), ("-3", ValueError), ("(0, 0)", ValueError),
                      ("1.5", TypeError), ("'0'", TypeError), ("True", TypeError),
                      ("2**70", ValueError), ("np.array([0, 1])", TypeError))]
    + [(f"xp.{f}(_A, {ax}dtype={d})", TypeError, f"{f}: argument 'dtype'")
       for f, ax in (("sum", ""), ("prod", ""), ("cumulative_sum", "axis=0, "),
                     ("cumulative_prod", "axis=0, "))
       for d in ("'abc'", "3", "[1]", "'<U2'", "object", "_REC.dtype")]
    + [(f"xp.{f}({x}, axis=0)", TypeError, f"{f}: argument 'x'")
       for f in ("sum", "mean", "min", "cumulative_sum")
       for x in ("None", "np.array(['a'])", "_REC")]
)
LEAD_ELEMENTWISE = (
    [(f"xp.{f}(_A, 2, out=np.zeros((2, 3), {d}))", TypeError, f"{f}: argument 'out'")
     for f in ("add", "multiply", "divide", "maximum") for d in ("np.int8", "'<U2'", "object")]
    + [(f"xp.{f}(_A, out=np.zeros((2, 3), {d}))", TypeError, f"{f}: argument 'out'")
       for f in ("negative", "abs", "square") for d in ("'<U2'", "object")]
    + [("xp.where(_A > 2, _A, 0, out=np.zeros((2, 3), '<U2'))", TypeError,
        "where: argument 'out'"),
       ("xp.where(None, _A, 0, out=np.zeros((2, 3)))", TypeError, "where: argument 'condition'"),
       ("xp.add(_A, np.ones(4), out=np.zeros((2, 3)))", ValueError, "add:"),
       ("xp.add('abc', _A, out=np.zeros((2, 3)))", TypeError, "add: argument 'x1'"),
       ("xp.add(None, _A, out=np.zeros((2, 3)))", TypeError, "add: argument 'x1'"),
       ("xp.negative(np.array(['a']), out=np.zeros(1))", TypeError, "negative: argument 'x'"),
       ("xp.astype(_A, 'abc')", TypeError, "astype: argument 'dtype'"),
       ("xp.astype(_A, object)", TypeError, "astype: argument 'dtype'"),
       ("xp.astype(_A, _REC.dtype)", TypeError, "astype: argument 'dtype'"),
       ("xp.astype(_A, None)", TypeError, "astype: argument 'dtype'"),   # not float64
       ("xp.astype(None, np.float32)", TypeError, "astype: argument 'x'")]
)


def _lead_params(rows):
    return [pytest.param(c, e, m, id=c) for c, e, m in rows]


@pytest.mark.parametrize("call,exc,start", _lead_params(LEAD_REDUCTIONS))
def test_for_the_lead_reductions_and_scans(call, exc, start):
    with pytest.raises(exc) as info:
        eval(call)  # noqa: S307 - the literal calls above
    assert str(info.value).startswith(start), str(info.value)


@pytest.mark.parametrize("call,exc,start", _lead_params(LEAD_ELEMENTWISE))
def test_for_the_lead_elementwise(call, exc, start):
    with pytest.raises(exc) as info:
        eval(call)  # noqa: S307 - the literal calls above
    assert str(info.value).startswith(start), str(info.value)


@pytest.mark.parametrize("call", [f"xp.{f}(_A, keepdims=np.True_)" for f in _RED])
def test_for_the_lead_numpy_bool_keepdims_is_a_bool(call):
    """Valid input refused today: NumPy's bool is a bool (include_initial takes it)."""
    assert np.ndim(eval(call)) == 2  # noqa: S307


class _ShapeRaises:
    dtype = np.dtype(np.float32)

    @property
    def shape(self):
        raise RuntimeError("no shape here")


@pytest.mark.parametrize("call, arg", [
    (lambda v: xp.set_backend(v), "name"),
    (lambda v: xp.sum(v), "x"),
    (lambda v: xp.as_strided(v, (1,), (1,)), "a"),
    (lambda v: xp.add(np.ones(2), v, out=np.ones(2)), "x2"),
    (lambda v: xp.rng.philox_uniform(v, 0, 0), "seed"),
])
@pytest.mark.parametrize("value", [np, _ShapeRaises()], ids=["numpy module", "shape raises"])
def test_arguments_with_odd_shape_attributes_get_the_named_error(call, arg, value):
    """An argument whose ``shape``/``dtype`` are no array's (the ``numpy`` module has both
    as functions; a property that raises) is described by its repr: the TypeError
    naming the argument, not an error from building the message."""
    with pytest.raises(TypeError, match=f"argument '{arg}' got"):
        call(value)


@pytest.mark.parametrize("a", [np.array([1, 2], dtype=object), np.empty(3, dtype=[])],
                         ids=["object", "zero-byte elements"])
def test_to_device_refuses_what_dask_cannot_chunk(a):
    """Found by the Hypothesis test above: ``xp.to_device(a, "dask")`` of an object
    array, or of a structured array of 0-byte elements, raised dask's chunking error
    ("Can not use auto rechunking with object dtype"), naming neither the function
    nor the argument."""
    pytest.importorskip("dask.array")
    with pytest.raises(TypeError, match=r"^to_device: argument 'a' got .*; expected an "
                                        r"array dask can chunk"):
        xp.to_device(a, "dask")
    assert xp.to_device(a, "numpy") is a


@pytest.mark.parametrize("name", sorted(ENGINE_UFUNCS))
def test_an_extra_positional_argument_is_no_unchecked_out(name):
    """On NumPy a call without keywords runs NumPy's ufunc, whose next positional
    argument is ``out``: one more than the standard's must be refused, not written
    without the ``out=`` checks (shape, dtype, self-overlap)."""
    nin = ENGINE_UFUNCS[name][0]
    dt = np.int64 if name.startswith("bitwise") else np.float64
    args = [np.arange(1, 7, dtype=dt).reshape(2, 3)] * nin
    buf = np.zeros(3, dtype=dt)
    overlapping = np.lib.stride_tricks.as_strided(buf, (2, 3), (0, 8))
    with pytest.raises(TypeError, match=rf"^{name}: .*takes {nin} positional argument"):
        getattr(xp, name)(*args, overlapping)
    np.testing.assert_array_equal(buf, 0)
    with pytest.raises(ValueError, match="overlaps itself"):
        getattr(xp, name)(*args, out=overlapping)


@pytest.mark.parametrize("call, name", [
    (lambda u: xp.linalg.vector_norm(u, 0), "vector_norm"),
    (lambda u: xp.roll(u, 1, 0), "roll"),
    (lambda u: xp.add(u, u, u), "add"),
])
def test_too_many_positional_arguments_say_to_pass_them_by_keyword(call, name):
    """A probe: Python's message named an inner closure
    (``_vector_norm_of.<locals>.vector_norm()``) and did not say what to do."""
    with pytest.raises(TypeError) as info:
        call(np.ones((3, 3)))
    text = str(info.value)
    assert text.startswith(f"{name}: {name}() takes ") and "<locals>" not in text
    assert "go by keyword (help(xstride." in text


@pytest.mark.parametrize("backend", ["numpy", "dask"])
@pytest.mark.parametrize("name, x1, x2, arg, shown, dt", [
    ("add", "int8", 2**200, "x2", r"160693804425\.\.\. \(61 digits\)", np.int8),
    ("add", -2**200, "int8", "x1", r"-160693804425\.\.\. \(61 digits\)", np.int8),
    ("multiply", "int8", 300, "x2", "300", np.int8),
    ("subtract", "uint64", 2**64, "x2", "18446744073709551616", np.uint64),
    ("bitwise_and", "uint64", -1, "x2", "-1", np.uint64),
    ("pow", "int64", 2**70, "x2", "1180591620717411303424", np.int64),
    ("floor_divide", "int8", 2**100, "x2", r"126765060022\.\.\. \(31 digits\)", np.int8),
])
def test_a_python_int_its_array_s_dtype_cannot_hold_is_named(backend, name, x1, x2, arg,
                                                             shown, dt):
    """A probe: ``xp.add(x, 2**200)`` of an integer ``x`` raised NumPy's "add: Python int
    too large to convert to C long", naming no argument, dtype or range (a Python int is
    a weak scalar: it takes the array's dtype, NEP 50); ints within 64 bits said "Python
    integer 300 out of bounds for int8", naming no argument."""
    if backend == "dask":
        da = pytest.importorskip("dask.array")
    wrap = np.asarray if backend == "numpy" else (lambda v: da.from_array(v, chunks=2))
    args = [wrap(np.arange(3, dtype=v)) if isinstance(v, str) else v for v in (x1, x2)]
    info = np.iinfo(dt)
    with pytest.raises(OverflowError, match=rf"^{name}: argument '{arg}' is the Python int "
                                            rf"{shown}, out of bounds for {np.dtype(dt)} "
                                            rf"\(from {info.min} to {info.max}\), the dtype "
                                            r"of the array beside it"):
        getattr(xp, name)(*args)


def test_a_python_int_an_array_s_dtype_holds_still_answers():
    """Only the error's words changed: ints that fit the dtype, float and wider operands,
    and other functions' int arguments are as before."""
    i8 = np.arange(3, dtype=np.int8)
    assert xp.add(i8, 127).dtype == np.int8
    assert xp.add(i8, np.arange(3)).dtype == np.int64
    assert xp.add(np.ones(3), 2**200).tolist() == [2.0**200] * 3
    assert xp.equal(i8, 2**200).tolist() == [False] * 3     # NumPy's comparison
    assert xp.roll(i8, 2**62).tolist() == np.roll(np.arange(3, dtype=np.int8), 2**62).tolist()
    with pytest.raises(OverflowError, match=r"^add: argument 'x2' is the Python int .*, past "
                                            "the range of float64"):
        xp.add(np.ones(3), 2**2000)                        # NumPy's float conversion
