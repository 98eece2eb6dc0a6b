"""A bad ``axis`` (``axes``, ``source``, ``destination``) raises the same exception class on
the NumPy and dask backends, for every function of the namespace that takes one.

An axis out of range is ``numpy.exceptions.AxisError`` everywhere, as NumPy raises it: a
subclass of both ``ValueError`` and ``IndexError``, so a caller catching either (the
array API standard allows ``IndexError`` for an axis out of range) sees it. The dask
backend's checks (``normalize_axis``, ``xstride/_plans/reduction.py``) raised a plain
``ValueError`` for ``flip``, ``roll``, ``expand_dims``, ``squeeze``, ``take``,
``repeat``, ``vecdot`` and ``permute_dims``, and the reductions and scans did on both
backends. A repeated axis stays a ``ValueError`` (not an ``AxisError``), as NumPy's.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import xstride as xp

AxisError = np.exceptions.AxisError
A = np.arange(1.0, 7.0).reshape(2, 3)
REDUCTIONS = ("sum", "prod", "min", "max", "mean", "var", "std", "all", "any")


def _on_axis(name):
    return lambda x, v: getattr(xp, name)(x, axis=v)


def _fft(name, arg):
    return lambda x, v: getattr(xp.fft, name)(x, **{arg: v})


# name -> (call(x, axis value), the rank the axis counts in, whether a tuple of axes is taken)
CASES = {
    **{f: (_on_axis(f), 2, True) for f in REDUCTIONS},
    **{f: (_on_axis(f), 2, False) for f in ("argmin", "argmax", "cumulative_sum",
                                             "cumulative_prod", "sort", "argsort", "diff",
                                             "unstack")},
    "flip": (_on_axis("flip"), 2, True),
    "count_nonzero": (_on_axis("count_nonzero"), 2, True),
    "roll": (lambda x, v: xp.roll(x, 1, axis=v), 2, True),
    "expand_dims": (_on_axis("expand_dims"), 3, True),
    "squeeze": (lambda x, v: xp.squeeze(x[:1], axis=v), 2, True),
    "moveaxis(source)": (lambda x, v: xp.moveaxis(x, v, 0), 2, False),
    "moveaxis(destination)": (lambda x, v: xp.moveaxis(x, 0, v), 2, False),
    "permute_dims": (lambda x, v: xp.permute_dims(x, (0, v)), 2, False),
    "concat": (lambda x, v: xp.concat([x, x], axis=v), 2, False),
    "stack": (lambda x, v: xp.stack([x, x], axis=v), 3, False),
    "take": (lambda x, v: xp.take(x, xp.asarray([0, 1]), axis=v), 2, False),
    "take_along_axis": (lambda x, v: xp.take_along_axis(x, xp.zeros((2, 3), dtype=xp.int64),
                                                        axis=v), 2, False),
    "repeat": (lambda x, v: xp.repeat(x, 2, axis=v), 2, False),
    "vecdot": (lambda x, v: xp.vecdot(x, x, axis=v), 2, False),
    "sliding_window_view": (lambda x, v: xp.sliding_window_view(x, 1, axis=v), 2, False),
    "linalg.vecdot": (lambda x, v: xp.linalg.vecdot(x, x, axis=v), 2, False),
    "linalg.vector_norm": (lambda x, v: xp.linalg.vector_norm(x, axis=v), 2, True),
    "linalg.cross": (lambda x, v: xp.linalg.cross(x, x, axis=v), 2, False),
    "tensordot": (lambda x, v: xp.tensordot(x, x, axes=((v,), (0,))), 2, False),
    "linalg.tensordot": (lambda x, v: xp.linalg.tensordot(x, x, axes=((v,), (0,))), 2, False),
    **{f"fft.{f}": (_fft(f, "axis"), 2, False) for f in ("fft", "ifft", "rfft", "irfft",
                                                           "hfft", "ihfft")},
    **{f"fft.{f}": (_fft(f, "axes"), 2, True) for f in ("fftn", "ifftn", "rfftn", "irfftn",
                                                          "fftshift", "ifftshift")},
}
TUPLES = [name for name, (_, _, takes_tuple) in CASES.items() if takes_tuple]


def raised(backend: str, name: str, value):
    """The exception ``CASES[name]`` raises for ``value`` on ``backend`` (the result
    computed, for dask), or None."""
    call = CASES[name][0]
    with xp.use_backend(backend):
        try:
            out = call(xp.asarray(A), value)
            for o in out if isinstance(out, (tuple, list)) else (out,):
                xp.to_numpy(o)
        except Exception as exc:  # noqa: BLE001 - the class is what is compared
            return exc
    return None


def both(name: str, value):
    """The exceptions of the NumPy and dask backends (the dask half skipped where dask
    cannot provide the function: ``NotImplementedError`` by design)."""
    got = raised("numpy", name, value), raised("dask", name, value)
    if isinstance(got[1], NotImplementedError):
        pytest.skip(f"{name} is not provided on the dask backend: {got[1]}")
    return got


def _func(name: str) -> str:
    return name.split("(")[0].rsplit(".", 1)[-1]


def _arg(name: str) -> str:
    """The argument ``CASES[name]`` passes the axis in."""
    if "(" in name:
        return name.split("(")[1].rstrip(")")
    return "axes" if name in ("permute_dims", "tensordot", "linalg.tensordot") or (
        name.startswith("fft.") and CASES[name][2]) else "axis"


def _out_of_range(name: str):
    nd = CASES[name][1]
    values = [nd, -nd - 1, np.int64(nd)]
    if CASES[name][2]:
        values.append((0, 9))   # out of range for any rank here (expand_dims: 2 + 2)
    return values


@pytest.mark.parametrize("name", list(CASES))
def test_axis_out_of_range_is_axis_error_on_both_backends(name):
    for value in _out_of_range(name):
        on_numpy, on_dask = both(name, value)
        for exc in (on_numpy, on_dask):
            assert type(exc) is AxisError, (name, value, on_numpy, on_dask)
            assert isinstance(exc, IndexError) and isinstance(exc, ValueError)
            assert str(exc).startswith(f"{_func(name)}:"), str(exc)


@pytest.mark.parametrize("name", TUPLES)
@pytest.mark.parametrize("value", [(0, 0), (1, -1)])
def test_repeated_axes_raise_the_same_class_on_both_backends(name, value):
    """NumPy's class for a repeated axis is ``ValueError`` (never ``AxisError``); ``roll``
    and ``fftshift`` take one (shifting the axis again), on both backends."""
    on_numpy, on_dask = both(name, value)
    assert type(on_numpy) is type(on_dask), (on_numpy, on_dask)
    for exc in (on_numpy, on_dask):
        if exc is not None:
            assert type(exc) is ValueError
            assert str(exc).startswith(f"{_func(name)}: argument '{_arg(name)}' "), str(exc)


@pytest.mark.parametrize("name", list(CASES))
def test_axis_out_of_range_message_names_function_and_argument(name):
    """NumPy's own messages (``flip``: "axis 3 is out of bounds for array of dimension
    2", ``moveaxis``: "source: axis 3 ...", ``unstack`` through compat's moveaxis:
    "source: ...") named no argument, or the wrong one."""
    for value in _out_of_range(name):
        for exc in both(name, value):
            assert re.match(rf"{_func(name)}: argument '{_arg(name)}' .*out of range",
                            str(exc)), str(exc)


@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.parametrize("value", [2**70, -2**70])
def test_axis_past_64_bits_is_axis_error_on_both_backends(name, value):
    """NumPy's functions raised ``OverflowError`` ("Python int too large to convert to
    C long", ``permute_dims`` a ``ValueError`` "Maximum allowed dimension exceeded"),
    where the dask backend's check raised ``AxisError``: out of range for any array."""
    for exc in both(name, value):
        assert type(exc) is AxisError, (name, exc)
        assert str(exc).startswith(f"{_func(name)}: argument '{_arg(name)}' "), str(exc)


@pytest.mark.parametrize("axis, cls, match", [
    ([0], TypeError, r"argument 'axis' got list \[0\]"),
    ((0, 0), ValueError, r"argument 'axis' \(0, 0\) names axis 0 twice"),
    (1.0, TypeError, "argument 'axis' got float 1.0"),
])
def test_count_nonzero_checks_axis_on_both_backends(axis, cls, match):
    """dask's took a list, and raised "duplicate value in 'axis'" (no function named)
    only when computed."""
    for backend in ("numpy", "dask"):
        with xp.use_backend(backend), pytest.raises(cls, match=f"^count_nonzero: {match}"):
            xp.count_nonzero(xp.asarray(A), axis=axis)
    with xp.use_backend("dask"):
        got = xp.count_nonzero(xp.asarray(A) > 2, axis=(1, 0), keepdims=True)
        assert xp.to_numpy(got).tolist() == [[4]]


def test_flip_axis_out_of_range_is_an_index_error_on_dask():
    """The probe's case: an ``except IndexError`` (the standard's) catches it on dask."""
    a = np.zeros((2, 3))
    with xp.use_backend("dask"):
        d = xp.asarray(a)
        for call in (lambda: xp.flip(d, axis=3), lambda: xp.roll(d, 1, axis=-3),
                     lambda: xp.expand_dims(d, axis=3), lambda: xp.sum(d, axis=2)):
            with pytest.raises(IndexError, match="argument 'axis' -?[23] is out of range"):
                call()


@pytest.mark.parametrize("name, value", [
    (name, value) for name in ("take", "repeat", "vecdot", "linalg.vecdot")
    for value in ((0,), (0, 0), (0, 9), [1], None)
    # axis=None is an axis take and repeat take (repeat flattens; take refuses it past 1-D)
    if not (value is None and name in ("take", "repeat"))])
def test_one_axis_functions_refuse_a_tuple_on_both_backends(name, value):
    """``take``, ``repeat`` and ``vecdot`` take one int axis (``take``/``repeat``: None
    for a flat array): NumPy's refused a tuple with ``TypeError``, where the dask
    backend's check took it as a tuple of axes (``ValueError`` for ``(0, 0)``, its first
    axis for ``(0,)``)."""
    on_numpy, on_dask = both(name, value)
    assert type(on_numpy) is type(on_dask) is TypeError, (on_numpy, on_dask)
    assert str(on_dask).startswith(f"{_func(name)}: argument 'axis' got "), str(on_dask)


@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.parametrize("value", [1.0, "1", np.float64(1.0)])
def test_an_axis_of_no_int_is_a_type_error_naming_the_argument(name, value):
    """NumPy's own messages named neither function nor argument ("'float' object cannot
    be interpreted as an integer", "'float' object is not iterable", "integer argument
    expected, got float")."""
    for exc in both(name, value):
        assert type(exc) is TypeError, (name, exc)
        assert str(exc).startswith(f"{_func(name)}: argument '{_arg(name)}' got "), str(exc)


@pytest.mark.parametrize("name", ["unstack", "moveaxis(source)", "moveaxis(destination)",
                                  "stack", "expand_dims", "vecdot"])
def test_none_where_an_axis_is_required_is_a_type_error_naming_the_argument(name):
    for exc in both(name, None):
        assert type(exc) is TypeError, (name, exc)
        assert str(exc).startswith(f"{_func(name)}: argument '{_arg(name)}' got NoneType"), \
            str(exc)


@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.parametrize("value", [True, np.True_])
def test_a_bool_axis_raises_the_same_class_on_both_backends(name, value):
    """NumPy's ``flip``, ``roll`` and ``expand_dims`` took ``axis=True`` as axis 1, and
    NumPy's and dask's ``vector_norm`` ``1.0``, ``True`` and (NumPy) ``"1"``, where the
    dask backend's checks refused them; ``stack``, ``unstack`` and ``moveaxis`` took
    ``True`` as axis 1 on both backends (NumPy's and dask's functions)."""
    on_numpy, on_dask = both(name, value)
    assert type(on_numpy) is type(on_dask) is TypeError, (name, on_numpy, on_dask)
    for exc in (on_numpy, on_dask):
        assert str(exc).startswith(f"{_func(name)}: argument '{_arg(name)}' got "), str(exc)


@pytest.mark.parametrize("backend", ["numpy", "dask"])
@pytest.mark.parametrize("func, call, arg, expected", [
    ("stack", lambda x, v: xp.stack([x, x], axis=v), "axis", "an int naming one axis"),
    ("unstack", lambda x, v: xp.unstack(x, axis=v), "axis", "an int naming one axis"),
    ("moveaxis", lambda x, v: xp.moveaxis(x, v, 0), "source", "an int or a tuple of ints"),
    ("moveaxis", lambda x, v: xp.moveaxis(x, 0, v), "destination",
     "an int or a tuple of ints"),
    ("moveaxis", lambda x, v: xp.moveaxis(x, (0, v), (0, 1)), "source",
     "an int or a tuple of ints"),
])
def test_stack_unstack_moveaxis_refuse_a_bool_axis(backend, func, call, arg, expected):
    """The standard's axis is an int; NumPy's and dask's functions took ``True`` as 1
    (``stack([x, x], axis=True)`` stacked along axis 1)."""
    with xp.use_backend(backend):
        x = xp.asarray(A)
        with pytest.raises(TypeError, match=rf"^{func}: argument '{arg}' got .*True.*; "
                                            rf"expected {expected}$"):
            call(x, True)


def test_flip_roll_expand_dims_vector_norm_take_valid_axes():
    """The checks in front of them take what is an axis: NumPy integers, 0-D integer
    arrays, lists of axes (``flip``, ``expand_dims``), repeats in ``roll``. The 0-D
    arrays are checked here on the NumPy backend; the dask backend takes them too
    (``test_a_0d_integer_array_axis_stands_for_its_int`` runs both)."""
    want = np.flip(A, axis=1)
    for backend in ("numpy", "dask"):
        with xp.use_backend(backend):
            x = xp.asarray(A)
            np.testing.assert_array_equal(xp.to_numpy(xp.flip(x, axis=np.int64(1))), want)
            np.testing.assert_array_equal(xp.to_numpy(xp.flip(x, axis=[1])), want)
            np.testing.assert_array_equal(xp.to_numpy(xp.roll(x, 1, axis=(1, 1))),
                                          np.roll(A, 2, axis=1))
            assert xp.expand_dims(x, axis=[0, -1]).shape == (1, 2, 3, 1)
            np.testing.assert_allclose(
                xp.to_numpy(xp.linalg.vector_norm(x, axis=(np.int64(0), 1))),
                np.linalg.norm(A))
    np.testing.assert_array_equal(xp.flip(A, axis=np.array(1)), want)
    assert xp.expand_dims(A, axis=np.array(2)).shape == (2, 3, 1)


@pytest.mark.parametrize("dtype", [">i8", "<f4", "?"])
def test_flip_of_a_0d_array_is_a_0d_array_of_its_dtype_on_both_backends(dtype):
    """NumPy's flip of a 0-D array indexes it with ``()``: a NumPy scalar, of the native
    byte order (a ``>i8`` array gave an ``int64`` scalar) where dask's flip keeps a 0-D
    array of x's dtype. The NumPy backend's is a 0-D view of x now."""
    a = np.array(7, dtype=dtype)
    got = xp.flip(a)
    assert isinstance(got, np.ndarray) and got.shape == () and got.dtype == a.dtype
    assert np.shares_memory(got, a) and got.tobytes() == a.tobytes()
    with xp.use_backend("dask"):
        d = xp.flip(xp.asarray(a))
    assert d.dtype == a.dtype and xp.to_numpy(d).tobytes() == a.tobytes()


@pytest.mark.parametrize("name", ["fftn", "ifftn", "rfftn", "irfftn"])
@pytest.mark.parametrize("axes", [1, np.int64(-1)])
def test_n_dimensional_transforms_take_one_int_axes(name, axes):
    """The check takes an int for ``axes`` ("expected an int or a tuple of ints"), but the
    library's function was called with it and iterated over it: "'int' object is not
    iterable" on both backends."""
    want = getattr(np.fft, name)(A, axes=(int(axes),))
    for backend in ("numpy", "dask"):
        with xp.use_backend(backend):
            got = xp.to_numpy(getattr(xp.fft, name)(xp.asarray(A), axes=axes))
        np.testing.assert_allclose(got, want)


@pytest.mark.parametrize("descending", [False, True])
def test_sort_and_argsort_of_axis_none_flatten_on_both_backends(descending):
    """NumPy's sort takes ``axis=None`` (the flattened array), which the NumPy backend
    kept; the dask backend's raised ``TypeError``, and the NumPy backend's ``argsort``
    with ``descending=True`` compat's "'>=' not supported between instances of
    'NoneType' and 'int'"."""
    flat = A[::-1].reshape(-1)
    order = np.argsort(-flat if descending else flat, stable=True)
    for backend in ("numpy", "dask"):
        with xp.use_backend(backend):
            x = xp.asarray(A[::-1])
            got = xp.sort(x, axis=None, descending=descending)
            np.testing.assert_array_equal(xp.to_numpy(got), flat[order])
            got = xp.argsort(x, axis=None, descending=descending)
            np.testing.assert_array_equal(xp.to_numpy(got), order)
    assert type(raised("numpy", "sort", None)) is type(raised("dask", "sort", None))


@pytest.mark.parametrize("name", list(CASES))
def test_a_0d_float_array_axis_is_a_type_error_naming_the_argument(name):
    """NumPy said "only integer scalar arrays can be converted to a scalar index" or
    "iteration over a 0-d array"; the dask backend refused the NumPy array beside dask
    arrays as arrays of two backends."""
    for exc in both(name, np.array(1.0)):
        assert type(exc) is TypeError, (name, exc)
        assert str(exc).startswith(f"{_func(name)}: argument '{_arg(name)}' got "), str(exc)


def outcome(backend: str, name: str, value):
    """What ``CASES[name]`` gives for ``value`` on ``backend``: its results as NumPy
    arrays, or the class and message of what it raised."""
    with xp.use_backend(backend):
        try:
            out = CASES[name][0](xp.asarray(A), value)
            return [xp.to_numpy(o).tolist() for o in
                    (out if isinstance(out, (tuple, list)) else (out,))]
        except Exception as exc:  # noqa: BLE001 - the class and message are compared
            return type(exc), str(exc)


@pytest.mark.parametrize("name, within", [(name, False) for name in CASES]
                         + [(name, True) for name in TUPLES])
@pytest.mark.parametrize("backend", ["numpy", "dask"])
def test_a_0d_integer_array_axis_stands_for_its_int(backend, name, within):
    """As NumPy's functions take it (``__index__``), and as both backends take a NumPy
    integer. The dask backend refused it as arrays of two backends ("x is dask, axis is
    numpy"), and once past that dask's functions refused it ("iteration over a 0-d
    array", "Axis value must be an integer, got 1"); the NumPy backend's ``sort``,
    ``argsort``, ``diff``, ``take_along_axis`` and ``linalg.cross`` refused it ("expected
    an int naming an axis"), and its ``fftshift``/``ifftshift`` failed in NumPy's
    ("iteration over a 0-d array"). ``within``: the array in a tuple of axes."""
    for value, same in ((np.array(1), 1), (np.array(-1, dtype=np.int8), -1)):
        if within:
            value, same = (value,), (same,)
        got, want = outcome(backend, name, value), outcome(backend, name, same)
        assert got == want, (name, value, got, want)


@pytest.mark.parametrize("axis", [1, -2, (0, 1), (2, 1), np.int64(1)])
def test_squeeze_of_an_axis_not_of_length_1_names_the_axis_on_both_backends(axis):
    """NumPy's said "cannot select an axis to squeeze out which has size not equal to
    one", dask's "cannot squeeze axis with size other than one": neither named the axis
    nor the argument, and the two backends differed."""
    x = np.zeros((1, 3, 1))
    got = []
    for backend in ("numpy", "dask"):
        with xp.use_backend(backend), pytest.raises(ValueError) as info:
            xp.squeeze(xp.asarray(x), axis=axis)
        got.append((type(info.value), str(info.value)))
    assert got[0] == got[1], got
    assert got[0] == (ValueError, "squeeze: argument 'axis' names axis 1, which has length "
                                  "3 in an array of shape (1, 3, 1); only axes of length 1 "
                                  "can be squeezed out")


@pytest.mark.parametrize("call", [lambda x: xp.squeeze(x), lambda x: xp.squeeze(x, None),
                                  lambda x: xp.squeeze(x, axis=None)],
                         ids=["no axis", "None by position", "None by keyword"])
def test_squeeze_without_an_axis_squeezes_every_length_1_axis_on_both_backends(call):
    """A new-user probe: NumPy's (and CuPy's) squeeze takes no axis, dask's raised
    "squeeze() missing 1 required positional argument: 'axis'"."""
    x = np.arange(3.0).reshape(1, 3, 1)
    for backend in ("numpy", "dask"):
        with xp.use_backend(backend):
            got = call(xp.asarray(x))
            assert got.shape == (3,), backend
            np.testing.assert_array_equal(xp.to_numpy(got), np.arange(3.0))


def test_squeeze_of_an_axis_of_unknown_length_says_so_on_dask():
    """After boolean indexing dask does not know the length (it may be 1): dask's said
    "cannot squeeze axis with size other than one"; the other axis squeezes."""
    with xp.use_backend("dask"):
        d = xp.asarray(np.zeros((4, 1)))
        rows = d[d[:, 0] < 1]
        with pytest.raises(ValueError, match=r"^squeeze: argument 'axis' names axis 0, whose "
                                             r"length dask does not know .*"
                                             r"compute_chunk_sizes\(\)"):
            xp.squeeze(rows, axis=0)
        assert xp.to_numpy(xp.squeeze(rows, axis=1)).tolist() == [0.0] * 4
        rows.compute_chunk_sizes()
        assert xp.squeeze(rows[:1], axis=0).shape == (1,)


@pytest.mark.parametrize("shape", [(1, 3, 1), (2, 3), (1, 1)])
def test_squeeze_axis_none_squeezes_every_axis_of_length_1_on_both_backends(shape):
    """NumPy's squeeze takes ``axis=None`` (every axis of length 1); the dask backend's
    check took None for every axis and refused an array with an axis of another length
    ("names axis 0, which has length 2" for shape (2, 3))."""
    x = np.arange(float(np.prod(shape))).reshape(shape)
    for backend in ("numpy", "dask"):
        with xp.use_backend(backend):
            got = xp.squeeze(xp.asarray(x), axis=None)
        assert got.shape == np.squeeze(x).shape, backend
        np.testing.assert_array_equal(xp.to_numpy(got), np.squeeze(x))


@pytest.mark.parametrize("axes", [(0,), (), [1]])
@pytest.mark.parametrize("backend", ["numpy", "dask"])
def test_permute_dims_of_too_few_or_too_many_axes_names_axes_alike(backend, axes):
    """NumPy's said "axes don't match array", naming no argument; the dask backend's
    check names ``axes`` and the rank (found by a user probe)."""
    if backend == "dask":
        da = pytest.importorskip("dask.array")
    x = A if backend == "numpy" else da.from_array(A, chunks=1)
    with pytest.raises(ValueError, match=re.escape(f"permute_dims: argument 'axes' is "
                                                   f"{axes!r}; expected a permutation of the "
                                                   "2 axes of x")):
        xp.permute_dims(x, axes)


@pytest.mark.parametrize("name", list(CASES))
def test_an_integer_array_of_axes_is_an_axis_argument_on_dask_too(name):
    """A 1-D NumPy integer array given for an axis beside dask arrays was refused as
    arrays of two backends ("x is dask, axis is numpy; move them to one backend
    first"), where the NumPy backend names the argument; it is the argument's own
    ``TypeError`` there too (both backends refuse what NumPy's checks refuse)."""
    exc = both(name, np.array([1]))
    assert "cannot be mixed" not in str(exc[1]), str(exc[1])
    if isinstance(exc[0], TypeError) and str(exc[0]).startswith(f"{_func(name)}: argument"):
        assert type(exc[1]) is TypeError, (name, exc)
        assert str(exc[1]).startswith(f"{_func(name)}: argument '{_arg(name)}' got "), exc


@pytest.mark.parametrize("axes", [np.array([1, 0]), np.array([-1, 0]), np.array([0, 1])])
def test_permute_dims_takes_a_1d_integer_array_of_axes_on_dask_too(axes):
    """The NumPy backend's permute_dims (NumPy's transpose) takes a 1-D integer array of
    axes; the dask backend's check read it as one axis and refused it ("expected a
    tuple of ints"), once the backend lookup let the array through to it."""
    import dask.array as da

    x = np.arange(6.0).reshape(2, 3)
    want = xp.permute_dims(x, axes)
    got = xp.permute_dims(da.from_array(x, chunks=1), axes)
    assert got.shape == want.shape
    np.testing.assert_array_equal(xp.to_numpy(got), want)


@pytest.mark.parametrize("axis", [np.asarray([1]), np.asarray([[0, 1]])])
def test_an_array_of_axes_beside_cupy_arrays_stays_a_mixed_call(fake_cupy, axis):
    """CuPy's roll and count_nonzero take any sequence of axes without the checks the
    NumPy and dask backends' functions get, so beside a CuPy array a NumPy array of
    axes is still refused as a call of two backends (a 0-D one is an axis, as an int)."""
    from xstride._backends.select import backend_of

    x = fake_cupy.zeros((2, 3), dtype=np.float32)
    with pytest.raises(TypeError, match=r"^roll: arrays from different backends cannot be "
                                        r"mixed \(x is cupy, axis(\[0\])? is numpy\)"):
        backend_of("roll", [("x", x), ("axis", axis)])
    assert backend_of("roll", [("x", x), ("axis", np.asarray(1))]) == "cupy"
