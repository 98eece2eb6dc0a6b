"""Random wrong input to Layout, the views, copy_into and xstride.rng (NumPy backend).

Every call either succeeds or raises one of the exceptions its docstring documents
(TypeError, ValueError, OverflowError, and IndexError for ``Layout.slice``), with a
message that names xstride's function. Anything else (a raw NumPy/struct error, a
ZeroDivisionError, an AttributeError...) fails the test. A Philox call that raises
must leave the generator as it was.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import xstride as xp
from xstride.layout import Layout

_REC = np.dtype([("a", "<i2"), ("b", "i1")])
_DTYPES = [np.int8, np.int16, np.int64, np.uint8, np.uint64, np.float32, np.float64,
           np.bool_, np.complex64, np.dtype("<U2"), _REC]

_BIG = [2**31, 2**32, 2**40, 2**62, 2**63 - 1, 2**63, 2**64 - 1, 2**64, 2**70,
        -1, -2, -(2**63), -(2**63) - 1]
ints = st.one_of(st.integers(-3, 8), st.sampled_from(_BIG))
np_scalars = st.sampled_from([np.int64(3), np.uint8(2), np.int8(-1), np.True_, np.False_,
                              np.float32(1.5), np.float64(2.0), np.uint64(2**64 - 1),
                              np.complex64(1j)])
scalars = st.one_of(ints, st.booleans(), st.floats(allow_nan=True), st.none(),
                    st.text(max_size=3), st.just(b"ab"), st.just(1j), np_scalars)


def _special_arrays():
    rec = np.zeros(4, _REC)
    base = np.arange(12, dtype=np.int32).reshape(3, 4)
    ro = np.arange(4.0)
    ro.flags.writeable = False
    return [rec, rec["a"], rec["b"], np.empty(3, dtype=[]), np.empty((2, 0)),
            np.broadcast_to(np.arange(3), (2, 3)), base[::-1, ::2], base.T, ro,
            np.zeros(3)[None], np.array(5), np.array([1, 2], dtype=object),
            np.array([True, False]), np.array([[1, 2], [3, 4]], np.uint64)]


arrays = st.one_of(
    hnp.arrays(st.sampled_from(_DTYPES),
               hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4)),
    st.sampled_from(range(len(_special_arrays()))).map(lambda i: _special_arrays()[i]),
)
seqs = st.one_of(st.lists(ints, max_size=4).map(tuple), st.lists(scalars, max_size=3),
                 st.lists(st.lists(ints, max_size=2), max_size=2), st.just(range(3)),
                 st.just({1: 2}), st.just({2, 3}))
junk = st.one_of(scalars, seqs, arrays, st.just(slice(None, None, 2)))

_ALLOWED = (TypeError, ValueError, OverflowError)


def _call(name, fn, *args, allowed=_ALLOWED, **kwargs):
    """Run one call; a raise must be documented and name ``name``."""
    try:
        return fn(*args, **kwargs)
    except allowed as exc:
        assert name in str(exc), f"{type(exc).__name__} does not name {name}: {exc}"
        return exc


def _allocatable_but_big(shape):
    """A valid shape too large to fill in a test (skipped: not wrong input): what
    ``Philox``'s shapes take, an integer-like (a 0-d integer array too) or a sequence of
    them (a 1-D integer array too)."""
    if isinstance(shape, np.ndarray) and shape.dtype.kind in "iu" and shape.ndim <= 1:
        shape = int(shape) if shape.ndim == 0 else tuple(int(s) for s in shape)
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, (bool, np.bool_)):
        shape = (int(shape),)
    if not isinstance(shape, (tuple, list)) or len(shape) > 64:
        return False
    if not all(isinstance(s, (int, np.integer)) and not isinstance(s, (bool, np.bool_))
               and s >= 0 for s in shape):
        return False
    nbytes = 8 * math.prod(int(s) or 1 for s in shape)
    return 2**22 < nbytes <= 2**63 - 1


_settings = settings(max_examples=300, deadline=None,
                     suppress_health_check=[HealthCheck.too_slow])


@_settings
@given(shape=junk, strides=st.one_of(st.none(), junk), offset=junk, itemsize=junk)
def test_layout_constructor(shape, strides, offset, itemsize):
    _call("Layout", Layout, shape, strides, offset, itemsize)


@_settings
@given(shape=st.lists(st.integers(0, 4), max_size=3).map(tuple), arg=junk,
       method=st.sampled_from(["permute", "broadcast_to", "slice", "pack"]))
def test_layout_methods(shape, arg, method):
    lay = Layout(shape, itemsize=4)
    allowed = _ALLOWED + ((IndexError,) if method == "slice" else ())
    _call("Layout", getattr(lay, method), arg, allowed=allowed)


@_settings
@given(data=st.one_of(junk, st.binary(max_size=40)), max_ndim=junk, a=junk)
def test_layout_unpack_and_from_array(data, max_ndim, a):
    _call("Layout.unpack", Layout.unpack, data, max_ndim)
    got = _call("Layout.from_array", Layout.from_array, a)
    if isinstance(got, Layout):
        assert got.shape == tuple(a.shape)


@_settings
@given(a=junk, shape=junk, strides=junk, offset=junk)
def test_as_strided(a, shape, strides, offset):
    got = _call("as_strided", xp.as_strided, a, shape, strides, offset=offset)
    if isinstance(got, np.ndarray) and got.size:
        # every element is readable (inside the buffer): the elements at the view's
        # lowest and highest addresses, the corners picked by the strides' signs (a
        # copy of a large view of stride 0, (3165416433,) of one element, would not fit)
        low = tuple(n - 1 if st < 0 else 0 for n, st in zip(got.shape, got.strides))
        high = tuple(0 if st < 0 else n - 1 for n, st in zip(got.shape, got.strides))
        got[low], got[high]
        if got.size <= 1 << 16:
            got.copy()


@_settings
@given(x=st.one_of(arrays, junk), window=st.one_of(st.integers(0, 3), junk),
       axis=st.one_of(st.none(), st.integers(-3, 2), junk),
       writeable=st.one_of(st.booleans(), junk))
def test_sliding_window_view(x, window, axis, writeable):
    # valid arguments are drawn often enough that the call also succeeds (with junk
    # alone it never did in 300 examples, and the comparison below never ran)
    got = _call("sliding_window_view", xp.sliding_window_view, x, window, axis,
                writeable=writeable)
    if isinstance(got, np.ndarray) and isinstance(x, np.ndarray):
        ref = np.lib.stride_tricks.sliding_window_view(x, window, axis)
        assert got.shape == ref.shape and got.strides == ref.strides
        np.testing.assert_array_equal(got, ref)


@_settings
@given(dst=junk, src=junk)
def test_copy_into(dst, src):
    _call("copy_into", xp.copy_into, dst, src)


@_settings
@given(func=st.sampled_from(["philox_uniform", "philox_uniform2", "philox_normal",
                             "philox_normal2", "philox4x32_10"]),
       a=junk, b=junk, c=junk)
def test_rng_functions(func, a, b, c):
    with xp.use_backend("numpy"):
        _call(func, getattr(xp.rng, func), a, b, c)


@_settings
@given(seed=junk, stream=junk, backend=st.one_of(st.none(), junk, st.just("numpy")))
def test_philox_constructor(seed, stream, backend):
    with xp.use_backend("numpy"):
        g = _call("Philox", xp.rng.Philox, seed, stream, backend=backend)
    if isinstance(g, xp.rng.Philox):
        assert g.counter == 0


@_settings
@given(start=st.sampled_from([0, 5, 2**63, 2**64 - 12, 2**64 - 1, 2**64]),
       method=st.sampled_from(["advance", "uniform", "normal", "integers"]),
       args=st.lists(junk, min_size=1, max_size=3))
def test_philox_methods_change_nothing_when_they_raise(start, method, args):
    g = xp.rng.Philox(11, 2, backend="numpy").advance(start)
    if method in ("uniform", "normal"):
        args = args[:1]
        assume(not _allocatable_but_big(args[0]))
    elif method == "integers":
        assume(len(args) < 3 or not _allocatable_but_big(args[2]))
    else:
        args = args[:1]
    before = (g.seed, g.stream, g.counter, g.backend)
    got = _call(f"Philox.{method}", getattr(g, method), *args)
    if isinstance(got, Exception):
        assert (g.seed, g.stream, g.counter, g.backend) == before
    else:
        assert g.counter >= start


@pytest.mark.parametrize("shape", [(2**20, 2**20), 2**40, np.array(3221371061),
                                   np.array([2**20, 2**20])])
def test_philox_big_but_valid_shapes_are_what_the_guard_skips(shape):
    assert _allocatable_but_big(shape)
    assert not _allocatable_but_big((2**62,))


def test_found_by_this_file():
    """What the random calls above found (each failed before its fix)."""
    x = np.arange(6.0)
    with pytest.raises(TypeError, match="sliding_window_view: argument 'writeable'"):
        xp.sliding_window_view(x, 2, writeable=np.zeros(2))   # was NumPy's truth-value error
    assert xp.sliding_window_view(x, 2, writeable=np.True_).flags.writeable
    with pytest.raises(TypeError, match="copy_into: argument 'src'"):
        xp.copy_into(np.zeros(2), [[], [0]])                    # was NumPy's ragged error
    np.testing.assert_array_equal(xp.copy_into(np.zeros(2), [1, 2]), [1, 2])


@pytest.mark.parametrize("dtype, src", [
    (np.uint8, [1, 0]), (np.uint8, [[255, 0]]), (np.uint16, [True, 7]),
    (np.uint64, [2**64 - 1, 1]), (np.int64, [-(2**63), 2**63 - 1]), (np.int8, [-128, 127])])
def test_copy_into_takes_a_list_of_python_ints_each_fitting_dst(dtype, src):
    """A list of Python ints is weak, as one Python int is: ``[1, 0]`` into uint8 was a
    ``TypeError`` (``copyto`` made it int64, no same_kind cast into an unsigned dtype),
    and ``[2**64 - 1, 1]`` into uint64 too."""
    dst = np.zeros(np.shape(src), dtype)
    got = xp.copy_into(dst, src)
    assert got is dst and dst.tolist() == np.asarray(src, dtype=dtype).tolist()


@pytest.mark.parametrize("dtype, src, bad", [
    (np.uint8, [300, 0], 300), (np.uint8, [-1, 2], -1), (np.int64, [2**63, 1], 2**63),
    (np.uint64, [2**64, 0], 2**64), (np.int8, [[1, 128]], 128)])
def test_copy_into_names_the_python_int_a_dst_cannot_hold(dtype, src, bad):
    dst = np.zeros(np.shape(src), dtype)
    with pytest.raises(OverflowError, match=rf"^copy_into: src \(a list of ints\) does not "
                                            rf"fit dst's dtype {np.dtype(dtype)} \(Python "
                                            rf"integer {bad} out of bounds"):
        xp.copy_into(dst, src)
    assert not dst.any()
