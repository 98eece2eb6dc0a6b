"""``xp.fuse`` of dask arrays: a fused elementwise function runs per block
(``xstride/_chunked/fusion.py``) where the output has the blocks' shape, declares the
dtype and chunk type its blocks have, refuses at once what dask refuses, and otherwise
runs as written; against the unfused run (split from tests/test_dask_reductions.py,
past 600 lines)."""

from __future__ import annotations

import pickle
import re
import warnings

import numpy as np
import pytest

da = pytest.importorskip("dask.array")

import xstride as xp  # noqa: E402

from tests.test_dask_reductions import _dask, _layers, _numpy_after, _same  # noqa: E402,F401


@xp.fuse
def push(x, v, a, dt):
    return x + v * dt + 0.5 * a * dt * dt, v + a * dt


@xp.fuse
def damped(x, y):
    return xp.exp(-x) * y - 1


@xp.fuse
def neighbours(x):
    return x[1:] + x[:-1]


def test_fuse_runs_per_block_and_equals_the_unfused_run():
    rng = np.random.default_rng(3)
    p, v, a = rng.standard_normal((10, 3)), rng.standard_normal((10, 3)), rng.standard_normal(3)
    x, y = _dask(p, (4, 2)), _dask(v, (4, 2))
    got = push(x, y, _dask(a.reshape(1, 3), (1, 2)), 0.1)
    want = push.fn(p, v, a.reshape(1, 3), 0.1)
    assert isinstance(got, tuple) and len(got) == 2
    for g, w in zip(got, want):
        assert "xstride-fuse-push" in _layers(g) and g.chunks == ((4, 4, 2), (2, 1))
        _same(g, w, True)
    one = damped(x, _dask(a, 2))               # broadcast along the first axis
    assert one.name.startswith("xstride-fuse-damped")
    _same(one, damped.fn(p, a), True)
    _same(damped(x, np.float32(2)), damped.fn(p, np.float32(2)), True)


def _square(x):
    return x ** 2


def _square_and_next(x):
    return x ** 2, x + 1


@pytest.mark.parametrize("fn", [_square, _square_and_next])
def test_fuse_per_block_declares_the_dtype_its_blocks_have(fn):
    """A new-user probe: the declared dtype came from the trace, which follows CuPy's rules
    (``x ** 2`` of a bool array squares in int64 on CuPy), while NumPy blocks run the
    function as written (int8): ``got.dtype`` said int64 and ``compute()`` gave int8."""
    b = np.array([True, False, True, True, False])
    want = fn(b)
    got = xp.fuse(fn)(_dask(b, 2))
    want, got = (want, got) if isinstance(want, tuple) else ((want,), (got,))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert "xstride-fuse" in _layers(g)
        assert g.dtype == w.dtype and g._meta.dtype == w.dtype
        _same(g, w, True)


def test_fuse_per_block_declares_the_chunk_type_its_blocks_have():
    """A new-user probe: the declared meta took the first dask argument's chunk type, so
    ``a + m`` of a plain ``a`` and a masked ``m`` declared plain chunks while its blocks
    were masked, and ``xp.mean``/``xp.var`` of it counted the masked element."""
    p = np.array([1.0, 2.0, 3.0, 4.0], dtype=np.float32)
    m = np.ma.masked_array([1.0, 2.0, 30.0, 4.0], mask=[0, 0, 1, 0], dtype=np.float32)
    dp, dm = da.from_array(p, chunks=2), da.from_array(m, chunks=2, asarray=False)
    got = xp.fuse(lambda a, b: a + b)(dp, dm)
    assert "xstride-fuse" in _layers(got) and type(got._meta) is np.ma.MaskedArray
    for f in (xp.mean, xp.var):
        assert float(f(got).compute()) == pytest.approx(float(f(p + m)), rel=1e-6)


def _inverse(x):
    return x ** -1


def test_fuse_per_block_refuses_at_once_what_dask_refuses():
    """A new-user probe: ``x ** -1`` of an integer array traces (CuPy's rules take it),
    while the blocks, NumPy arrays run as written, refuse it; dask's operator refuses
    the call at once (its dtype probe fails: ``TypeError``), but the fused call built a
    graph whose ``compute()`` raised NumPy's ``ValueError``. It now runs as written."""
    x = _dask(np.arange(1, 7, dtype=np.int8), 3)
    with pytest.raises(TypeError, match=r"unsupported operand type\(s\) for \*\*"):
        _inverse(x)
    with pytest.raises(TypeError, match=r"unsupported operand type\(s\) for \*\*"):
        xp.fuse(_inverse)(x)
    f = _dask(np.arange(1.0, 7.0), 3)           # floats: still one fused call a block
    got = xp.fuse(_inverse)(f)
    assert "xstride-fuse" in _layers(got)
    _same(got, np.arange(1.0, 7.0) ** -1, True)


def test_fuse_runs_as_written_where_blocks_do_not_line_up():
    rng = np.random.default_rng(4)
    p, v = rng.standard_normal((10, 3)), rng.standard_normal((10, 3))
    x = _dask(p, (4, 2))
    other = damped(x, _dask(v, (5, 3)))       # other chunks: dask's operations
    assert "xstride-fuse" not in _layers(other)
    _same(other, damped.fn(p, v), True)
    got = neighbours(x)                       # a slice crosses block boundaries
    assert "xstride-fuse" not in _layers(got)
    _same(got, p[1:] + p[:-1], True)


class _Particles:
    @xp.fuse
    def drift(self, x, v):
        return x + v

    @xp.fuse
    @staticmethod
    def kick(v, a):
        return v + a


def test_fused_functions_pickle_by_reference():
    assert pickle.loads(pickle.dumps(damped)) is damped
    # a new-user probe: a fused method or staticmethod taken from its class did not
    # pickle with the standard pickle (a qualified name C.m was not looked up, and a
    # staticmethod object cannot be pickled by value)
    for protocol in (2, pickle.HIGHEST_PROTOCOL):
        for f in (_Particles.drift, _Particles.kick):
            assert pickle.loads(pickle.dumps(f, protocol)) is f
    bound = pickle.loads(pickle.dumps(_Particles().drift))
    assert bound.__func__ is _Particles.drift

    def local(x):
        return x + 1

    f = xp.fuse(local)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert f.__reduce__()[0] is type(f)


@xp.fuse
def narrower(x, y):
    z = x + y                                  # noqa: F841  (computed, not returned)
    return x * 2


def test_fuse_per_block_only_where_the_output_has_the_blocks_shape():
    """An output narrower than the broadcast of the dask arguments (an argument unused,
    or only a length-1 axis read) would have dask's chunks wrong: it runs as written."""
    rng = np.random.default_rng(5)
    p, v = rng.standard_normal((10, 1)), rng.standard_normal((10, 3))
    for chunks in ((4, 1), 1):
        x, y = _dask(p, chunks), _dask(v, chunks)
        got = narrower(x, y)
        assert got.shape == (10, 1)
        _same(got, p * 2, True)
        got = damped(x, y)                     # broadcast over the length-1 axis
        assert got.shape == (10, 3)
        _same(got, damped.fn(p, v), True)


def test_fuse_per_block_returns_a_value_returned_twice_as_one_array():
    """``return y, y`` runs per block as one output: the same dask array at both places,
    as the unfused run returns one object twice; ``x + 1`` twice stays two arrays."""
    a = np.arange(10.0).reshape(5, 2)

    def twice(x):
        y = x * 2
        return y, x + 1, y, x + 1

    got = xp.fuse(twice)(_dask(a, (2, 1)))
    assert all("xstride-fuse-twice" in _layers(g) for g in got)
    assert got[0] is got[2] and got[1] is not got[3]
    for g, w in zip(got, twice(a)):
        _same(g, w, True)


def test_fuse_per_block_refuses_an_int_out_of_its_dtype_at_the_call():
    """A new-user probe: traced with ``s=2``, a later call with ``s=300`` (int8 ``x``)
    built a graph whose blocks raised ``OverflowError`` only at ``compute()``, where the
    first call and dask's unfused ``x * 300`` raise at once; a comparison by value
    (``x < 300``: NumPy's answer, no error) runs as written and compares."""
    x = _dask(np.arange(-3, 3, dtype=np.int8), 2)
    scale = xp.fuse(lambda x, s: x * s + 1)
    _same(scale(x, 2), np.arange(-3, 3, dtype=np.int8) * 2 + 1, True)
    with pytest.raises(OverflowError, match="300 out of bounds for int8"):
        scale(x, 300)
    u = _dask(np.arange(6, dtype=np.uint64), 2)
    _same(scale(u, 2**63), np.arange(6, dtype=np.uint64) * 2**63 + 1, True)
    with pytest.raises(OverflowError):
        scale(u, 2**64)
    below = xp.fuse(lambda x, s: x < s)
    _same(below(x, 2), np.arange(-3, 3) < 2, True)
    _same(below(x, 300), np.ones(6, dtype=bool), True)


_SCALE = [1.0]


def _scaled(x):
    return x * _SCALE[0]


def test_fuse_per_block_reads_globals_when_computed():
    """Pins what docs/fuse.md says: the blocks call the function at ``compute()``, so a
    global it reads is read then (the unfused run read it at the call); passed as an
    argument, the value is the call's."""
    x = _dask(np.arange(3.0), 2)
    _SCALE[0] = 1.0
    got, unfused = xp.fuse(_scaled)(x), _scaled(x)
    by_arg = xp.fuse(lambda a, s: a * s)(x, _SCALE[0])
    _SCALE[0] = 2.0
    try:
        assert "xstride-fuse" in _layers(got)
        np.testing.assert_array_equal(got.compute(), [0.0, 2.0, 4.0])
        np.testing.assert_array_equal(unfused.compute(), [0.0, 1.0, 2.0])
        np.testing.assert_array_equal(by_arg.compute(), [0.0, 1.0, 2.0])
    finally:
        _SCALE[0] = 1.0


def _on_dask_arrays(x):
    if isinstance(x, da.Array):                # the unfused run's branch on dask arrays
        return x + 1
    return x - 1


def _on_numpy_arrays(x):
    if isinstance(x, np.ndarray):              # a block's branch (NumPy chunks)
        return x * 2
    return x + 1


def test_fuse_per_block_keeps_the_unfused_branch_on_the_array_type():
    """A new-user probe: the trace's stand-in answers ``isinstance`` as a dask array
    (docs/fuse.md: "a branch on the array type takes the side the unfused run takes"),
    so the graph was elementwise and ran per block, where the blocks, NumPy arrays,
    took the other branch: ``x - 1`` (or ``x * 2``) where the unfused run gave
    ``x + 1``. Such a function now runs as written; one that reads no type still runs
    per block."""
    a = np.arange(-3.0, 3.0)
    x = _dask(a, 2)
    for fn in (_on_dask_arrays, _on_numpy_arrays):
        got = xp.fuse(fn)(x)
        assert "xstride-fuse" not in _layers(got)
        _same(got, a + 1, True)
        _same(got, xp.to_numpy(fn(x)), True)
    plain = xp.fuse(lambda v: xp.where(v > 0, v, 0.5) * 2)(x)
    assert "xstride-fuse" in _layers(plain)
    _same(plain, np.where(a > 0, a, 0.5) * 2, True)


def _reversed_for_floats(x, s):
    if isinstance(s, float):                   # the unfused run's branch for a float s
        return x[::-1] * s
    return x * s


def test_fuse_per_block_takes_the_unfused_branch_on_a_python_scalar_s_type():
    """A new-user probe: ``isinstance(s, float)`` of a Python float argument was False in
    the trace, whose other branch (``x * s``) is elementwise, so the call ran per block,
    where the blocks took the unfused branch: ``x[::-1]`` reversed each block of
    ``[0, 1, 2, 3, 4, 5]`` (``[1, 0, 3, 2, 5, 4]``) in place of the whole array."""
    a = np.arange(6.0)
    got = xp.fuse(_reversed_for_floats)(_dask(a, 2), 2.0)
    assert "xstride-fuse" not in _layers(got)        # a view: runs as written
    _same(got, a[::-1] * 2.0, True)
    ints = xp.fuse(_reversed_for_floats)(_dask(a, 2), 2)
    assert "xstride-fuse" in _layers(ints)
    _same(ints, a * 2, True)


def _scan_or_copy(x):
    try:
        return xp.cumulative_sum(x)
    except Exception:                          # a user's fallback: catches what the trace raises
        return x + 0


def test_fuse_per_block_refuses_a_trace_whose_function_caught_what_it_raised():
    """A new-user probe: a scan inside ``try`` whose ``except Exception`` caught the
    trace's refusal; the trace recorded the fallback, fused it, and each block's run took
    the scan: a running sum that restarted at every block."""
    x = np.arange(1.0, 9.0)
    with pytest.warns(xp.FusionWarning, match="cumulative_sum"):
        got = xp.fuse(_scan_or_copy)(_dask(x, 3))
    assert "xstride-fuse" not in _layers(got)
    np.testing.assert_array_equal(got.compute(), np.cumsum(x))
    with pytest.raises(TypeError, match="cumulative_sum"):
        xp.fuse(strict=True)(_scan_or_copy)(_dask(x, 3))


def _by_repr(x):
    return x * 2 if "dask" in repr(x) else x * 3


def _by_special_name(x):
    return x * 2 if hasattr(x, "__dask_graph__") else x * 3


def _by_missing_special_name(x):
    return x * 2 if hasattr(x, "__no_such_special__") else x * 3


@pytest.mark.parametrize("fn, said", [
    (_by_repr, "repr()"),
    # hasattr of a special name a dask array has was False on the stand-in: the fused
    # run took the other side, with no warning
    (_by_special_name, "__dask_graph__"),
])
def test_a_branch_on_repr_or_a_special_name_runs_unfused(fn, said):
    """The stand-in's repr (a constant of the trace) and its special names (none) are
    not the argument's: such a branch runs unfused, with the unfused run's result."""
    x = _dask(np.arange(6.0).reshape(3, 2), (1, 2))
    with pytest.warns(xp.FusionWarning, match=re.escape(said)):
        got = xp.fuse(fn)(x)
    np.testing.assert_array_equal(got.compute(), fn(x).compute())
    np.testing.assert_array_equal(got.compute(), np.arange(6.0).reshape(3, 2) * 2)


def test_a_special_name_no_array_has_is_missing_in_the_trace_too():
    x = _dask(np.arange(6.0).reshape(3, 2), (1, 2))
    with warnings.catch_warnings():
        warnings.simplefilter("error", xp.FusionWarning)
        got = xp.fuse(_by_missing_special_name)(x)
    np.testing.assert_array_equal(got.compute(), np.arange(6.0).reshape(3, 2) * 3)


@pytest.mark.parametrize("args", [lambda u: (u,), lambda u: (u, 2.0)])
def test_one_array_of_unknown_lengths_runs_as_written_without_a_warning(args):
    """A new-user probe: one dask array of unknown chunk lengths (after a boolean mask)
    reached the fused run, whose layout of NaN lengths failed: a FusionWarning, and
    under ``strict=True`` a TypeError, where docs/fuse.md says such a call runs as
    written with neither."""
    f = xp.fuse(lambda a, s=1.0: a * 2 + s, strict=True)
    with xp.use_backend("dask"):
        x = xp.asarray(np.arange(-3, 5, dtype=np.float32), chunks=3)
        u = x[x > 0]
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            got = f(*args(u))
            np.testing.assert_array_equal(xp.to_numpy(got),
                                          xp.to_numpy(f.__wrapped__(*args(u))))
