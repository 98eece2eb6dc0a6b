"""Bad input of the standard's functions on the dask backend that dask took silently or
answered with a message that names no function, argument or remedy (found by a
new-user probe; the earlier ones: tests/test_bad_input_dask_standard.py)."""

from __future__ import annotations

import re

import numpy as np
import pytest

da = pytest.importorskip("dask.array")

import xstride as xp  # noqa: E402
# the NumPy backend restored after each test (autouse), and dask arrays of chunks of 2
from tests.test_bad_input_dask_standard import _d, _numpy_after  # noqa: E402,F401


# ------------------------------------------------------------------ take
@pytest.mark.parametrize("x_chunks", [1, 3, -1])
@pytest.mark.parametrize("index", [4, -5, 7])
def test_take_out_of_range_raises_when_computed(x_chunks, index):
    """dask's take of indices in chunks of more than one element dropped an index out of
    range and put 0 in its place (``take(arange(4), [4, 0])`` computed ``[0, 0]``)."""
    x = _d(np.arange(4.0), x_chunks)
    for chunks in (1, 2):
        got = xp.take(x, _d(np.array([index, 0]), chunks), axis=0)
        with pytest.raises(IndexError, match=rf"take: index {index} is out of bounds for "
                                             r"axis 0 with size 4"):
            xp.to_numpy(got)
    got = xp.take(_d(np.arange(12.0).reshape(3, 4)), _d(np.array([1, -4, 3])), axis=1)
    np.testing.assert_array_equal(xp.to_numpy(got), np.arange(12.0).reshape(3, 4)[:, [1, 0, 3]])
    # unsigned indices: no comparison with a negative bound (CuPy may refuse one)
    u = np.array([3, 0, 1], dtype=np.uint64)
    np.testing.assert_array_equal(xp.to_numpy(xp.take(x, _d(u), axis=0)), [3.0, 0.0, 1.0])
    with pytest.raises(IndexError, match="take: index 4 is out of bounds"):
        xp.to_numpy(xp.take(x, _d(np.array([0, 4], dtype=np.uint64)), axis=0))


# ------------------------------------------------------------------ out= of reductions
@pytest.mark.parametrize("name", ["sum", "prod", "min", "max", "mean", "var", "std", "all",
                                  "any", "argmin", "argmax"])
def test_reductions_refuse_out_as_immutable(name):
    """docs/dask.md: ``out=`` raises the backend's "immutable" ``TypeError``; the
    reductions raised "sum() got an unexpected keyword argument 'out'"."""
    x = _d(np.arange(6.0))
    with pytest.raises(TypeError, match=rf"{name}: argument 'out' got dask.Array.*arrays of "
                                        r"the dask backend are immutable"):
        getattr(xp, name)(x, axis=0, out=_d(np.zeros(())))
    with pytest.raises(TypeError, match=rf"{name}: arrays from different backends"):
        getattr(xp, name)(x, axis=0, out=np.zeros(()))


# ------------------------------------------------------------------ lengths dask does not know
def _selected():
    """A (nan, 3) dask array: rows picked by a boolean mask."""
    a = _d(np.arange(24.0).reshape(8, 3))
    return a[a[:, 0] > 2]


@pytest.mark.parametrize("name", ["trace", "diagonal"])
def test_trace_diagonal_of_unknown_lengths_say_compute_chunk_sizes(name):
    """dask's raised "not enough values to unpack (expected 1, got 0)"."""
    with pytest.raises(ValueError, match=rf"{name}: argument 'x' has shape \(nan, 3\), with "
                                         r"lengths dask does not know.*compute_chunk_sizes"):
        getattr(xp.linalg, name)(_selected())
    y = _selected()
    y.compute_chunk_sizes()
    want = getattr(np.linalg, name)(np.arange(24.0).reshape(8, 3)[1:])
    np.testing.assert_array_equal(xp.to_numpy(getattr(xp.linalg, name)(y)), want)


@pytest.mark.parametrize("call, want, shape, axis", [
    (lambda y: xp.diff(y, axis=0), lambda v: np.diff(v, axis=0), "(nan, 3)", 0),
    (lambda y: xp.diff(y, axis=-2, n=2), lambda v: np.diff(v, axis=-2, n=2), "(nan, 3)", -2),
    (lambda y: xp.diff(y, axis=0, append=_d(np.ones((1, 3)))),
     lambda v: np.diff(v, axis=0, append=np.ones((1, 3))), "(nan, 3)", 0),
    (lambda y: xp.diff(y[:, 0]), lambda v: np.diff(v[:, 0]), "(nan,)", -1),
    (lambda y: xp.diff(y[:, 0] > 5), lambda v: np.diff(v[:, 0] > 5), "(nan,)", -1),  # bools
])
def test_diff_along_unknown_lengths_says_compute_chunk_sizes(call, want, shape, axis):
    """dask's said "Arrays chunk sizes are unknown: (nan, 3)" with a paragraph of advice
    for DataFrames; ``diff`` along an axis of known length, or of ``n=0``, still
    answers."""
    y = _selected()                       # (nan, 3)
    with pytest.raises(ValueError, match=rf"^diff: argument 'x' has shape {re.escape(shape)}, "
                                         r"with lengths dask does not know .*differences "
                                         rf"along axis {axis} need; call "
                                         r"x.compute_chunk_sizes\(\) first$"):
        call(y)
    rows = np.arange(24.0).reshape(8, 3)[1:]
    np.testing.assert_array_equal(xp.to_numpy(xp.diff(y, axis=1)), np.diff(rows, axis=1))
    np.testing.assert_array_equal(xp.to_numpy(xp.diff(y, axis=0, n=0)), rows)
    y.compute_chunk_sizes()
    np.testing.assert_array_equal(xp.to_numpy(call(y)), want(rows))


@pytest.mark.parametrize("name, call, want", [
    ("broadcast_arrays", lambda y: xp.broadcast_arrays(y, xp.asarray(1.0)),
     lambda v: np.broadcast_arrays(v, 1.0)),
    ("broadcast_arrays", lambda y: xp.broadcast_arrays(y[:, None], y[:, None], _d(np.ones(3))),
     lambda v: np.broadcast_arrays(v[:, None], v[:, None], np.ones(3))),
    ("meshgrid", lambda y: xp.meshgrid(y, y), lambda v: np.meshgrid(v, v)),
    ("meshgrid", lambda y: xp.meshgrid(y, _d(np.ones(2)), indexing="ij"),
     lambda v: np.meshgrid(v, np.ones(2), indexing="ij")),
])
def test_broadcasts_of_unknown_lengths_say_compute_chunk_sizes(name, call, want):
    """dask's said "cannot broadcast shape (nan,) to shape (nan,)"."""
    with xp.use_backend("dask"):
        y = _selected()[:, 0]
        with pytest.raises(ValueError, match=rf"{name}: argument 'arrays' has shapes .*nan.*, "
                                             r"with lengths dask does not know.*"
                                             r"compute_chunk_sizes"):
            call(y)
        y.compute_chunk_sizes()
        got = [xp.to_numpy(a) for a in call(y)]
    for g, w in zip(got, want(np.arange(24.0).reshape(8, 3)[1:, 0]), strict=True):
        np.testing.assert_array_equal(g, w)
    y = _selected()[:, 0]   # shapes dask's broadcast takes as they are: no error
    assert len(xp.broadcast_arrays(y)) == 1


@pytest.mark.parametrize("backend", ["numpy", "dask"])
def test_meshgrid_takes_one_dimensional_arrays_only(backend):
    """The standard's meshgrid takes 1-D arrays; NumPy's and dask's flattened a 2-D one
    (``meshgrid(ones((2, 3)), ones(4))`` gave shapes (4, 6)) and made a 0-D one of
    length 1, silently."""
    wrap = np.asarray if backend == "numpy" else (lambda a: _d(a, ()) if np.ndim(a) == 0 else _d(a))
    v = wrap(np.arange(4.0))
    for bad, at in ((np.ones((2, 3)), 0), (np.array(5.0), 1)):
        args = (wrap(bad), v) if at == 0 else (v, wrap(bad))
        shape = re.escape(str(bad.shape))
        with pytest.raises(ValueError, match=rf"meshgrid: argument 'arrays\[{at}\]' has shape "
                                             rf"{shape}; expected a one-dimensional array"):
            xp.meshgrid(*args, indexing="ij")
    got = [xp.to_numpy(a) for a in xp.meshgrid(v, wrap(np.ones(3)), indexing="ij")]
    for g, w in zip(got, np.meshgrid(np.arange(4.0), np.ones(3), indexing="ij"), strict=True):
        np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("backend", ["numpy", "dask"])
@pytest.mark.parametrize("indexing, cls, match", [
    ("xx", ValueError, r"^meshgrid: argument 'indexing' is 'xx'; expected 'xy' or 'ij'$"),
    ("IJ", ValueError, r"^meshgrid: argument 'indexing' is 'IJ'; expected 'xy' or 'ij'$"),
    (None, TypeError, r"^meshgrid: argument 'indexing' got NoneType None; expected 'xy' or "),
    (0, TypeError, r"^meshgrid: argument 'indexing' got int 0; expected 'xy' or 'ij'$"),
])
def test_meshgrid_indexing_is_named_alike(backend, indexing, cls, match):
    """NumPy's and dask's meshgrid refused an unknown ``indexing`` with two different
    texts ("Valid values for `indexing` are 'xy' and 'ij'." and "`indexing` must be
    `'ij'` or `'xy'`"), and dask's without arrays took any value."""
    wrap = np.asarray if backend == "numpy" else _d
    v = wrap(np.arange(3.0))
    with xp.use_backend(backend):
        for arrays in ((v, v), ()):
            with pytest.raises(cls, match=match):
                xp.meshgrid(*arrays, indexing=indexing)


@pytest.mark.parametrize("backend", ["numpy", "dask"])
@pytest.mark.parametrize("scalar", [1, 2.5, True, 1j])
def test_meshgrid_refuses_a_python_scalar(backend, scalar):
    """NumPy's meshgrid took ``meshgrid(1, v)`` as a 0-D array (a grid of shape (n, 1)),
    which the check above refuses; the dask backend's raised a ``TypeError``."""
    v = np.arange(4.0) if backend == "numpy" else _d(np.arange(4.0))
    for args, at in (((scalar, v), 0), ((v, scalar), 1)):
        with pytest.raises(TypeError, match=rf"meshgrid: argument 'arrays\[{at}\]' got "
                                            rf"{type(scalar).__name__} "):
            xp.meshgrid(*args)


def test_broadcast_arrays_of_known_lengths_that_differ_is_no_unknown_length_error():
    """Shapes (nan, 3) and (4,): the known lengths 3 and 4 never broadcast, whatever the
    unknown one is; the error is the standard's, not "call compute_chunk_sizes()" (after
    which it would still fail)."""
    with xp.use_backend("dask"):
        y = _selected()                       # (nan, 3)
        for other in (_d(np.ones(4)), _d(np.ones((2, 1, 4)))):
            with pytest.raises(ValueError, match=r"broadcast_arrays: shapes .* cannot be "
                                                 r"broadcast together") as info:
                xp.broadcast_arrays(y, other)
            assert "compute_chunk_sizes" not in str(info.value)
        with pytest.raises(ValueError, match="compute_chunk_sizes"):   # lengths 3 and 1
            xp.broadcast_arrays(y, _d(np.ones((5, 1))))


@pytest.mark.parametrize("call", [
    lambda d, o: xp.bitwise_left_shift(d, 1, out=o),
    lambda d, o: xp.bitwise_right_shift(d, 1, out=o),
    lambda d, o: xp.bitwise_invert(d, out=o),
    lambda d, o: xp.logical_not(d > 1, out=o),
    lambda d, o: xp.floor_divide(d, 2, out=o),
])
def test_every_function_refuses_out_as_immutable(call):
    """Functions that hand ``out=`` to dask's (``bitwise_left_shift``, ``logical_not``,
    ...) wrote nothing and raised nothing; ``out=None`` stays no ``out``."""
    d = _d(np.arange(4))
    with pytest.raises(TypeError, match=r"argument 'out' got dask.Array.*arrays of the dask "
                                        r"backend are immutable"):
        call(d, _d(np.zeros(4, np.int64)))
    assert xp.to_numpy(call(d, None)).shape == (4,)
    for name in ("sum", "max", "argmax"):   # dask's reductions take no out keyword
        assert xp.to_numpy(getattr(xp, name)(d, out=None)) == getattr(np, name)(np.arange(4))


# ------------------------------------------------------------------ broadcasting
_BINARY = ["add", "atan2", "bitwise_and", "bitwise_left_shift", "bitwise_or",
           "bitwise_right_shift", "bitwise_xor", "copysign", "divide", "equal",
           "floor_divide", "greater", "greater_equal", "hypot", "less", "less_equal",
           "logaddexp", "logical_and", "logical_or", "logical_xor", "maximum", "minimum",
           "multiply", "nextafter", "not_equal", "pow", "remainder", "subtract"]


@pytest.mark.parametrize("name", _BINARY)
def test_operands_that_do_not_broadcast_are_one_error_on_both_backends(name):
    """NumPy's said "operands could not be broadcast together with shapes (2,3) (2,) "
    and dask's "... with shapes (2, 3) (2,)": both backends now raise xstride's text, as
    the CuPy backend's engine and every ``out=`` call do."""
    kind = (np.bool_ if name.startswith("logical") else np.int64
            if name.startswith("bitwise") else np.float64)
    a, b = np.ones((2, 3), dtype=kind), np.ones(2, dtype=kind)
    msg = rf"^{name}: shapes \(2, 3\) and \(2,\) cannot be broadcast together$"
    with pytest.raises(ValueError, match=msg):
        getattr(xp, name)(a, b)
    with pytest.raises(ValueError, match=msg):
        getattr(xp, name)(_d(a), _d(b))


def test_where_operands_that_do_not_broadcast_are_one_error_on_both_backends():
    """``where``'s three operands, a Python scalar among them (shape ``()``)."""
    a, b = np.ones((2, 3)), np.ones(2)
    with pytest.raises(ValueError, match=r"^where: shapes \(2, 3\) and \(\) and \(2,\) "):
        xp.where(a > 0, 1.0, b)
    with pytest.raises(ValueError, match=r"^where: shapes \(2, 3\) and \(\) and \(2,\) "):
        xp.where(_d(a) > 0, 1.0, _d(b))
